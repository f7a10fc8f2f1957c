//! The wall-changing incremental rebuild (`rebuild_sectors` when a dab adds or removes
//! walls) against a fresh `build_layer` of the same costs: windows, nodes, graph, islands,
//! the canonical tile store and the package bytes; islands also against an independent
//! flood fill as a reachability partition. Also that the local path is really taken.

use crate::common;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicBool;

use crate::common::{Rng, bake_all, generated};
use navstudio::map::MapKind;
use navstudio::nav::grid::WALL;
use navstudio::nav::layer::{RebuildPath, rebuild_sectors_traced};
use navstudio::nav::permutations::canonical_flows;
use navstudio::nav::{CostField, GridSpec, NavData, NavLayer, build_layer};
use navstudio::package::{self, PackageMeta};

fn full(spec: GridSpec, costs: &[u8]) -> NavLayer {
    full_named("t", spec, costs)
}

fn full_named(name: &str, spec: GridSpec, costs: &[u8]) -> NavLayer {
    build_layer(
        name,
        CostField::from_cells(spec, costs),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap()
}

/// Oracle: 4-neighbour BFS components (the crate's island rule; 8 moves without corner
/// cutting reach the same cells), one label per component in discovery order.
fn components(costs: &[u8], w: usize, h: usize) -> Vec<u32> {
    let mut ids = vec![0_u32; w * h];
    let mut next = 0;
    for start in 0..w * h {
        if costs[start] == WALL || ids[start] != 0 {
            continue;
        }
        next += 1;
        ids[start] = next;
        let mut q = VecDeque::from([start]);
        while let Some(c) = q.pop_front() {
            let (x, y) = (c % w, c / w);
            let mut visit = |n: usize| {
                if costs[n] != WALL && ids[n] == 0 {
                    ids[n] = next;
                    q.push_back(n);
                }
            };
            if x > 0 {
                visit(c - 1);
            }
            if x + 1 < w {
                visit(c + 1);
            }
            if y > 0 {
                visit(c - w);
            }
            if y + 1 < h {
                visit(c + w);
            }
        }
    }
    ids
}

/// The layer's island ids describe exactly the oracle's components: same id iff same
/// component, 0 iff wall, and `count` ids.
fn check_partition(layer: &NavLayer, costs: &[u8], what: &str) {
    let spec = layer.cost.spec;
    let oracle = components(costs, spec.width as usize, spec.height as usize);
    let mut fwd: HashMap<u32, u32> = HashMap::new();
    let mut back: HashMap<u32, u32> = HashMap::new();
    for y in 0..spec.height {
        for x in 0..spec.width {
            let (ours, theirs) = (layer.islands.island_at(x, y), oracle[spec.index(x, y)]);
            assert_eq!(ours == 0, theirs == 0, "{what}: wall at ({x}, {y})");
            if ours != 0 {
                assert_eq!(
                    *fwd.entry(ours).or_insert(theirs),
                    theirs,
                    "{what}: ({x}, {y})"
                );
                assert_eq!(
                    *back.entry(theirs).or_insert(ours),
                    ours,
                    "{what}: ({x}, {y})"
                );
            }
        }
    }
    assert_eq!(
        layer.islands.count as usize,
        fwd.len(),
        "{what}: island count"
    );
    for n in layer.nodes.iter() {
        assert_eq!(
            n.island,
            layer.islands.island_at(n.center().0, n.center().1),
            "{what}: node island"
        );
    }
}

fn package_bytes(layer: &NavLayer) -> Vec<u8> {
    let nav = NavData::new(layer.cost.spec, 1.0, vec![layer.clone()]);
    package::to_bytes(&nav, &PackageMeta::default())
}

/// The incremental layer equals a full build, field by field, and writes the same package.
fn check_equal(layer: &NavLayer, costs: &[u8], what: &str) {
    let spec = layer.cost.spec;
    let f = full_named(&layer.name, spec, costs);
    assert_eq!(layer.windows, f.windows, "{what}: windows");
    assert_eq!(layer.nodes, f.nodes, "{what}: nodes");
    assert_eq!(layer.graph, f.graph, "{what}: graph");
    assert_eq!(layer.islands, f.islands, "{what}: islands");
    assert_eq!(
        canonical_flows(&layer.cost, &layer.nodes, &layer.flows),
        f.flows,
        "{what}: flows"
    );
    // The store as the run time reads it: every node's tile equals the full build's.
    for (n, &t) in layer.flows.node_tile.iter().enumerate() {
        assert_eq!(
            layer.flows.tiles[t as usize], f.flows.tiles[f.flows.node_tile[n] as usize],
            "{what}: node {n}'s tile"
        );
    }
    assert!(
        package_bytes(layer) == package_bytes(&f),
        "{what}: package bytes"
    );
    check_partition(layer, costs, what);
}

/// Writes `value` over a disc (or restores `base` there when `value` is `None`) and returns
/// the dirty sectors.
fn dab(
    spec: GridSpec,
    costs: &mut [u8],
    base: &[u8],
    (cx, cy, r): (i64, i64, i64),
    value: Option<u8>,
) -> Vec<u32> {
    let mut dirty = Vec::new();
    for y in (cy - r).max(0)..=(cy + r).min(i64::from(spec.height) - 1) {
        for x in (cx - r).max(0)..=(cx + r).min(i64::from(spec.width) - 1) {
            if (x - cx).pow(2) + (y - cy).pow(2) > r * r {
                continue;
            }
            let i = spec.index(x as u32, y as u32);
            costs[i] = value.unwrap_or(base[i]);
            dirty.push(spec.sector_of(x as u32, y as u32));
        }
    }
    dirty.sort_unstable();
    dirty.dedup();
    dirty
}

fn apply(layer: &mut NavLayer, costs: &[u8], dirty: &[u32]) -> RebuildPath {
    for &s in dirty {
        layer.cost.update_sector_from_cells(costs, s);
    }
    rebuild_sectors_traced(layer, dirty)
}

/// Rooms joined by doorways (1–3 cells, often on sector borders) plus scattered wall blobs:
/// closing a doorway splits an island, reopening it joins them again.
fn rooms(rng: &mut Rng, w: u32, h: u32, room: u32) -> Vec<u8> {
    let mut c = vec![1_u8; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            if x % room == room - 1 || y % room == room - 1 {
                c[(y * w + x) as usize] = WALL;
            }
        }
    }
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize;
            if c[i] == WALL && rng.below(9) == 0 {
                for k in 0..1 + rng.below(3) {
                    let (xx, yy) = if x % room == room - 1 {
                        (x, (y + k).min(h - 1))
                    } else {
                        ((x + k).min(w - 1), y)
                    };
                    c[(yy * w + xx) as usize] = 1 + rng.below(5) as u8;
                }
            } else if c[i] != WALL && rng.below(40) == 0 {
                c[i] = WALL;
            } else if c[i] != WALL && rng.below(5) == 0 {
                c[i] = 1 + rng.below(30) as u8;
            }
        }
    }
    c
}

#[test]
fn random_wall_dabs_equal_full_build() {
    let mut rng = Rng::new(2026);
    let mut paths: HashMap<RebuildPath, usize> = HashMap::new();
    for round in 0..8 {
        let (w, h) = (30 + rng.below(50), 30 + rng.below(50));
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: [4, 5, 8, 10][rng.below(4) as usize],
        };
        let room = 5 + rng.below(9);
        let base = rooms(&mut rng, w, h, room);
        let mut costs = base.clone();
        let mut layer = full(spec, &costs);
        for edit in 0..25 {
            let (cx, cy) = (i64::from(rng.below(w)), i64::from(rng.below(h)));
            let r = i64::from(rng.below(4));
            // Walls on, walls back off (the original terrain), or a new passable patch.
            let value = match rng.below(3) {
                0 => Some(WALL),
                1 => None,
                _ => Some(1 + rng.below(9) as u8),
            };
            let dirty = dab(spec, &mut costs, &base, (cx, cy, r), value);
            let path = apply(&mut layer, &costs, &dirty);
            *paths.entry(path).or_default() += 1;
            check_equal(
                &layer,
                &costs,
                &format!("round {round} edit {edit} ({path:?})"),
            );
        }
    }
    // The sequence exercised every path, the local one most.
    let local = paths.get(&RebuildPath::Local).copied().unwrap_or(0);
    let relabel = paths
        .get(&RebuildPath::IslandsRelabelled)
        .copied()
        .unwrap_or(0);
    assert!(local > relabel, "{paths:?}");
    assert!(relabel > 0, "no split or join happened: {paths:?}");
    assert!(paths.contains_key(&RebuildPath::CostsOnly), "{paths:?}");
}

#[test]
fn wall_dabs_on_a_generated_map_equal_full_build() {
    let m = generated(MapKind::Small);
    let baked = bake_all(&m);
    let mut rng = Rng::new(99);
    for l in &baked.nav.layers {
        let spec = l.cost.spec;
        let base = l.cost.to_cells();
        let mut costs = base.clone();
        let mut layer = l.clone();
        for edit in 0..12 {
            let c = (
                i64::from(rng.below(spec.width)),
                i64::from(rng.below(spec.height)),
                2 + i64::from(rng.below(6)),
            );
            let value = if edit % 2 == 0 { Some(WALL) } else { None };
            let dirty = dab(spec, &mut costs, &base, c, value);
            let path = apply(&mut layer, &costs, &dirty);
            check_equal(
                &layer,
                &costs,
                &format!("{} edit {edit} ({path:?})", l.name),
            );
        }
    }
}

#[test]
fn closing_and_opening_a_doorway_splits_and_joins() {
    // Two rooms side by side, a 2-cell doorway in the wall between them at x = 20.
    let spec = GridSpec {
        width: 40,
        height: 30,
        sector_size: 10,
    };
    let mut base = vec![1_u8; 40 * 30];
    for y in 0..30 {
        if !(14..16).contains(&y) {
            base[spec.index(20, y)] = WALL;
        }
    }
    let mut costs = base.clone();
    let mut layer = full(spec, &costs);
    assert_eq!(layer.islands.count, 1);
    let dirty = dab(spec, &mut costs, &base, (20, 15, 1), Some(WALL));
    assert_eq!(
        apply(&mut layer, &costs, &dirty),
        RebuildPath::IslandsRelabelled
    );
    assert_eq!(layer.islands.count, 2);
    assert_ne!(
        layer.islands.island_at(5, 5),
        layer.islands.island_at(35, 5)
    );
    check_equal(&layer, &costs, "closed");
    let dirty = dab(spec, &mut costs, &base, (20, 15, 1), None);
    assert_eq!(
        apply(&mut layer, &costs, &dirty),
        RebuildPath::IslandsRelabelled
    );
    assert_eq!(layer.islands.count, 1);
    check_equal(&layer, &costs, "reopened");
}

#[test]
fn wall_dab_in_open_ground_takes_the_local_path() {
    // Open ground with a few wall blobs; a wall disc in the middle splits nothing.
    let spec = GridSpec {
        width: 120,
        height: 100,
        sector_size: 10,
    };
    let mut rng = Rng::new(5);
    let mut base = vec![1_u8; 120 * 100];
    for _ in 0..40 {
        let (x, y) = (rng.below(120), rng.below(100));
        base[spec.index(x, y)] = WALL;
    }
    let mut costs = base.clone();
    let mut layer = full(spec, &costs);
    let islands_before = layer.islands.count;
    let tiles_before = layer.flows.tiles.len();
    let dirty = dab(spec, &mut costs, &base, (60, 50, 10), Some(WALL));
    assert!(dirty.len() >= 4);
    assert_eq!(apply(&mut layer, &costs, &dirty), RebuildPath::Local);
    assert_eq!(layer.islands.count, islands_before);
    assert!(
        layer.flows.tiles.len() > tiles_before,
        "new tiles are appended, not the store rebuilt"
    );
    check_equal(&layer, &costs, "wall on");
    let dirty = dab(spec, &mut costs, &base, (60, 50, 10), None);
    assert_eq!(apply(&mut layer, &costs, &dirty), RebuildPath::Local);
    check_equal(&layer, &costs, "wall off");
}

/// How often the bake bench's dabs (radius 10, walls on at one spot, off at the next, 35
/// spots) need the map-wide island renumbering on the 2048² benchmark map, per layer. Raw
/// wall discs here (no buffer or blur), so a little smaller than the bench's dirty areas.
#[test]
#[ignore = "bakes the 2048² benchmark map; run with --ignored --nocapture"]
fn benchmark_dab_paths() {
    let baked = common::bake_generated(MapKind::Benchmark, 2048, 2048, 1, None);
    for l in &baked.nav.layers {
        let spec = l.cost.spec;
        let base = l.cost.to_cells();
        let mut costs = base.clone();
        let mut layer = l.clone();
        let mut paths: HashMap<RebuildPath, usize> = HashMap::new();
        for i in 1..=70_i64 {
            let c = (300 + (i % 7) * 200, 400 + (i % 5) * 250, 10);
            let value = if i % 2 == 0 { Some(WALL) } else { None };
            let dirty = dab(spec, &mut costs, &base, c, value);
            *paths.entry(apply(&mut layer, &costs, &dirty)).or_default() += 1;
        }
        println!("{}: {paths:?}", l.name);
    }
}

/// Rebuilding a copy of a layer (as the editor's bake thread does while the window holds
/// the nav data) leaves the original as it was. A cost edit without walls shares the copy's
/// windows, nodes, islands and graph shape with the original; a wall edit gives the copy
/// its own. Both copies equal full builds of their costs.
#[test]
fn editing_a_copy_leaves_the_original_and_shares_what_the_edit_kept() {
    use std::sync::Arc;
    let mut rng = Rng::new(7);
    let spec = GridSpec {
        width: 60,
        height: 60,
        sector_size: 10,
    };
    let base = rooms(&mut rng, 60, 60, 9);
    let original = full(spec, &base);
    let mut copy = original.clone();
    let mut costs = base.clone();
    // A cost dab on open ground: one passable cell, made dearer — a portal node's centre, so
    // the weight of the edge entering it changes whatever way paths bend around it.
    let cell = original
        .nodes
        .iter()
        .map(|n| n.center().1 as usize * 60 + n.center().0 as usize)
        .find(|&i| costs[i] != WALL && i % 60 > 20 && i / 60 > 20)
        .unwrap();
    let at = ((cell % 60) as i64, (cell / 60) as i64, 0);
    let dirty = dab(spec, &mut costs, &base, at, Some(9));
    assert_eq!(apply(&mut copy, &costs, &dirty), RebuildPath::CostsOnly);
    check_equal(&copy, &costs, "cost dab on the copy");
    check_equal(&original, &base, "original after the cost dab");
    assert!(Arc::ptr_eq(&copy.windows, &original.windows));
    assert!(Arc::ptr_eq(&copy.nodes, &original.nodes));
    assert!(Arc::ptr_eq(&copy.islands, &original.islands));
    assert!(Arc::ptr_eq(&copy.graph.offsets, &original.graph.offsets));
    assert!(Arc::ptr_eq(&copy.graph.targets, &original.graph.targets));
    assert_ne!(copy.graph.weights, original.graph.weights);
    // A wall across the same cell's neighbourhood.
    let dirty = dab(spec, &mut costs, &base, (at.0, at.1, 3), Some(WALL));
    assert_ne!(apply(&mut copy, &costs, &dirty), RebuildPath::CostsOnly);
    check_equal(&copy, &costs, "wall dab on the copy");
    check_equal(&original, &base, "original after the wall dab");
    assert!(!Arc::ptr_eq(&copy.nodes, &original.nodes));
}
