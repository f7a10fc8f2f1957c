//! Whole layers: the graph and tiles against direct integration, incremental and cost-only
//! rebuilds against a full build, and cancelled builds.

use super::*;
use navstudio_nav::cost::SectorCost;

#[test]
fn layer_graph_and_tiles_match_direct_integration() {
    let mut rng = Rng::new(5150);
    let never = AtomicBool::new(false);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for round in 0..8 {
        let (w, h) = (20 + rng.below(40), 20 + rng.below(40));
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 4 + rng.below(9),
        };
        let mut costs = random_map(&mut rng, w as usize, h as usize, 0.1, 0.3, 12);
        // Leave a band of clear sectors so deduplication has something to share.
        for y in 0..h.min(spec.sector_size * 2) {
            for x in 0..w {
                costs[spec.index(x, y)] = 1;
            }
        }
        let cost = CostField::from_cells(spec, &costs);
        let layer = build_layer("test", cost.clone(), &|_| {}, &never).unwrap();
        assert!(
            layer.flows.tiles.len() < layer.nodes.len(),
            "round {round}: no tile shared"
        );
        let mut sector_costs = Vec::new();
        for (ni, node) in layer.nodes.iter().enumerate() {
            let (x0, y0, sw, sh) = spec.sector_rect(node.sector);
            cost.sector_cells(node.sector, &mut sector_costs);
            let local = |x: u32, y: u32| ((y - y0) * sw + (x - x0)) as usize;
            let cells: Vec<usize> = (0..u32::from(node.cells.len()))
                .map(|i| {
                    let (x, y) = node.cells.cell(i);
                    local(x, y)
                })
                .collect();
            let seeds: Vec<(usize, u32)> = cells
                .iter()
                .map(|&c| (c, u32::from(sector_costs[c])))
                .collect();
            let exits: Vec<(usize, u8)> = cells.iter().map(|&c| (c, node.exit_dir)).collect();
            integrate_costs(&sector_costs, sw, sh, &seeds, &mut field, &mut scratch);
            let mut flow = vec![0_u8; (sw * sh) as usize];
            flow_from_integration(&sector_costs, sw, sh, &field, &exits, &mut flow);
            assert_eq!(
                &*layer.flows.tiles[layer.flows.node_tile[ni] as usize],
                &flow[..],
                "tile of node {ni}"
            );
            check_flow(&sector_costs, sw as usize, sh as usize, &field, &exits);
            assert_eq!(
                node.island,
                layer.islands.island_at(node.center().0, node.center().1)
            );
            assert_ne!(node.island, 0);
            // Edges into this node from its sector: oracle weight = dist(centre) - cost(centre),
            // the distance by the fast-sweeping Eikonal oracle, rounded as the integrator does
            // (within one where the float distance sits at a half).
            let fseeds: Vec<(usize, f64)> = seeds.iter().map(|&(c, v)| (c, f64::from(v))).collect();
            let oracle = sweep_oracle(&sector_costs, sw as usize, sh as usize, &fseeds, &[]);
            for &m in layer.graph.nodes_of_sector(node.sector) {
                if m as usize == ni {
                    continue;
                }
                let (cx, cy) = layer.nodes[m as usize].center();
                let c = local(cx, cy);
                // Never below the straight line between the two centres (every cell costs
                // at least 1).
                let (nx, ny) = node.center();
                let line = (f64::from(cx) - f64::from(nx))
                    .hypot(f64::from(cy) - f64::from(ny))
                    .floor();
                let want = oracle[c].is_finite().then(|| {
                    (oracle[c].round() - f64::from(sector_costs[c]))
                        .max(0.0)
                        .max(line)
                });
                let got = layer
                    .graph
                    .edges(m)
                    .find(|&(t, _)| t as usize == ni)
                    .map(|(_, wgt)| f64::from(wgt));
                assert_eq!(got.is_some(), want.is_some(), "edge {m} -> {ni}");
                if let (Some(g), Some(o)) = (got, want) {
                    assert!((g - o).abs() <= 1.0, "edge {m} -> {ni}: {g}, oracle {o}");
                }
            }
            // The twin edge.
            let twin = (ni ^ 1) as u32;
            let (tx, ty) = layer.nodes[twin as usize].center();
            assert!(
                layer
                    .graph
                    .edges(ni as u32)
                    .any(|e| e == (twin, u32::from(cost.get(tx, ty))))
            );
        }
    }
}

#[test]
fn incremental_rebuild_equals_full_build() {
    let mut rng = Rng::new(31337);
    let never = AtomicBool::new(false);
    for round in 0..10 {
        let (w, h) = (10 + rng.below(50), 10 + rng.below(50));
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 2 + rng.below(10),
        };
        let mut costs = random_map(&mut rng, w as usize, h as usize, 0.1, 0.2, 9);
        let mut layer =
            build_layer("inc", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
        for edit in 0..6 {
            // A few dabs: walls, costs, and clearing a whole sector.
            let mut dirty = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let (x, y) = (rng.below(w), rng.below(h));
                let r = rng.below(4) as i64;
                let value = match rng.below(3) {
                    0 => WALL,
                    1 => 1,
                    _ => 1 + rng.below(20) as u8,
                };
                for yy in (i64::from(y) - r).max(0)..=(i64::from(y) + r).min(i64::from(h) - 1) {
                    for xx in (i64::from(x) - r).max(0)..=(i64::from(x) + r).min(i64::from(w) - 1) {
                        costs[spec.index(xx as u32, yy as u32)] = value;
                        dirty.push(spec.sector_of(xx as u32, yy as u32));
                    }
                }
            }
            if rng.chance(0.3) {
                let s = rng.below(spec.sector_count() as u32);
                let (x0, y0, sw, sh) = spec.sector_rect(s);
                for y in y0..y0 + sh {
                    for x in x0..x0 + sw {
                        costs[spec.index(x, y)] = 1;
                    }
                }
                dirty.push(s);
            }
            dirty.sort_unstable();
            dirty.dedup();
            for &s in &dirty {
                layer.cost.update_sector_from_cells(&costs, s);
            }
            rebuild_sectors(&mut layer, &dirty);
            let full =
                build_layer("inc", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
            assert_eq!(
                layer.windows, full.windows,
                "round {round} edit {edit}: windows"
            );
            assert_eq!(layer.nodes, full.nodes, "round {round} edit {edit}: nodes");
            assert_eq!(layer.graph, full.graph, "round {round} edit {edit}: graph");
            assert_eq!(
                layer.islands, full.islands,
                "round {round} edit {edit}: islands"
            );
            // Cost-only edits append tiles; the canonical store must equal the full build's.
            let mut canon = layer.clone();
            canon.flows = canonical_flows(&canon.cost, &canon.nodes, &canon.flows);
            assert_eq!(canon.flows, full.flows, "round {round} edit {edit}: flows");
            assert_eq!(canon, full);
            for (n, &t) in layer.flows.node_tile.iter().enumerate() {
                let c = full.flows.node_tile[n] as usize;
                assert_eq!(
                    layer.flows.tiles[t as usize], full.flows.tiles[c],
                    "round {round} edit {edit}: node {n}'s tile as the run time reads it"
                );
            }
        }
    }
}

#[test]
fn cancelled_build_returns_none() {
    let spec = GridSpec {
        width: 50,
        height: 50,
        sector_size: 10,
    };
    let cancel = AtomicBool::new(true);
    assert!(
        build_layer(
            "x",
            CostField::from_cells(spec, &vec![1; 2500]),
            &|_| {},
            &cancel
        )
        .is_none()
    );
}

#[test]
fn cost_only_edit_rebuilds_locally_and_matches_full_build() {
    let mut rng = Rng::new(4242);
    let never = AtomicBool::new(false);
    let spec = GridSpec {
        width: 60,
        height: 40,
        sector_size: 10,
    };
    let mut costs = random_map(&mut rng, 60, 40, 0.1, 0.2, 9);
    let mut layer = build_layer("c", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
    let tiles_before = layer.flows.tiles.len();
    // Raise the cost of every passable cell of a 6 × 6 patch: no wall changes.
    let mut dirty = Vec::new();
    for y in 12..18 {
        for x in 22..28 {
            let i = spec.index(x, y);
            if costs[i] != WALL {
                costs[i] = costs[i].saturating_add(30).min(254);
                dirty.push(spec.sector_of(x, y));
            }
        }
    }
    dirty.sort_unstable();
    dirty.dedup();
    for &s in &dirty {
        layer.cost.update_sector_from_cells(&costs, s);
    }
    let islands_before = layer.islands.clone();
    rebuild_sectors(&mut layer, &dirty);
    assert!(
        layer.flows.tiles.len() > tiles_before,
        "the local path appends the dirty sectors' tiles instead of rebuilding the store"
    );
    assert_eq!(layer.islands, islands_before);
    let full = build_layer("c", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
    assert_eq!(layer.graph, full.graph, "edge weights patched in place");
    let mut canon = layer.clone();
    canon.flows = canonical_flows(&canon.cost, &canon.nodes, &canon.flows);
    assert_eq!(canon, full);
}

/// Nodes share a tile exactly when their keys are equal (sector contents, window within the
/// sector, exit), counted by brute force: clear ground whose one class gathers dozens of
/// windows (more than a class keeps in its chain before a map), a cost tile repeated in
/// many sectors, and sectors of their own.
#[test]
fn nodes_share_a_tile_exactly_when_their_keys_are_equal() {
    let spec = GridSpec {
        width: 160,
        height: 128,
        sector_size: 8,
    };
    let mut rng = Rng::new(3);
    let cells: Vec<u8> = (0..spec.cell_count() as u32)
        .map(|i| {
            let (x, y) = (i % spec.width, i / spec.width);
            let r = rng.below(100);
            match (x / 8 + y / 8) % 4 {
                // Clear, with short walls that leave windows of many lengths.
                0 | 1 if r < 12 && (x % 8 == 0 || y % 8 == 0) => WALL,
                0 | 1 => 1,
                // The same tile in every such sector.
                2 => 1 + ((x % 8) * 3 + (y % 8)) as u8 % 5,
                _ if r < 15 => WALL,
                _ => 1 + r as u8 % 9,
            }
        })
        .collect();
    let cost = CostField::from_cells(spec, &cells);
    let layer = build_layer("t", cost, &|_| {}, &AtomicBool::new(false)).unwrap();
    let mut key_tile = std::collections::HashMap::new();
    let mut keys_per_class: std::collections::HashMap<Option<Vec<u8>>, usize> =
        std::collections::HashMap::new();
    for (node, &tile) in layer.nodes.iter().zip(&layer.flows.node_tile) {
        let (x0, y0, w, h) = spec.sector_rect(node.sector);
        let class = match &layer.cost.sectors[node.sector as usize] {
            SectorCost::Clear => None,
            SectorCost::Tile(t) => Some(t.to_vec()),
        };
        let c = &node.cells;
        let key = (
            class.clone(),
            (w, h),
            (c.x() - x0, c.y() - y0),
            c.step(),
            c.len(),
            node.exit_dir,
        );
        match key_tile.get(&key) {
            Some(&t) => assert_eq!(t, tile, "equal keys, other tiles"),
            None => {
                *keys_per_class.entry(class).or_default() += 1;
                key_tile.insert(key, tile);
            }
        }
    }
    assert_eq!(layer.flows.tiles.len(), key_tile.len(), "a tile per key");
    assert!(
        keys_per_class.get(&None).is_some_and(|&k| k > 30),
        "{keys_per_class:?}"
    );
    let shared = keys_per_class
        .iter()
        .filter(|(c, _)| c.is_some())
        .map(|(_, &k)| k);
    assert!(
        shared.max().is_some_and(|k| k > 8),
        "no cost tile class past a chain"
    );
}
