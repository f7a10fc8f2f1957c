//! Property tests of the run-time navigation core against independent oracles: the
//! `pathfinding` crate's Dijkstra, a breadth-first flood fill, a brute-force border scan,
//! an exact segment/square intersection test and a full rebuild.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;

use navstudio::nav::flow::flow_from_integration;
use navstudio::nav::grid::{DIR_NONE, DIRECTIONS, FLOW_LOS, FLOW_PATHABLE, WALL};
use navstudio::nav::integrate::{
    INT_LOS, IntegrationField, IntegratorScratch, UNREACHED, integrate_costs, integrate_with_los,
};
use navstudio::nav::islands::find_islands;
use navstudio::nav::permutations::canonical_flows;
use navstudio::nav::portals::{PortalWindow, find_windows};
use navstudio::nav::{CostField, GridSpec, build_layer, rebuild_sectors};
use pathfinding::directed::dijkstra::dijkstra_all;

/// xorshift64*: a tiny deterministic generator so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Random costs: `wall_p` walls, `cost_p` costed cells (1..=max_cost), clear elsewhere; walls
/// come in small blobs so there are corridors and corners.
fn random_map(
    rng: &mut Rng,
    w: usize,
    h: usize,
    wall_p: f64,
    cost_p: f64,
    max_cost: u8,
) -> Vec<u8> {
    let mut c = vec![1_u8; w * h];
    for v in c.iter_mut() {
        if rng.chance(cost_p) {
            *v = 1 + rng.below(u64::from(max_cost)) as u8;
        }
    }
    let blobs = ((w * h) as f64 * wall_p / 3.0).ceil() as usize;
    for _ in 0..blobs {
        let (x, y) = (rng.below(w as u64) as usize, rng.below(h as u64) as usize);
        for _ in 0..3 {
            let (dx, dy) = DIRECTIONS[rng.below(8) as usize];
            let (nx, ny) = (x as i32 + dx, y as i32 + dy);
            if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                c[ny as usize * w + nx as usize] = WALL;
            }
        }
        c[y * w + x] = WALL;
    }
    c
}

fn succ4(costs: &[u8], w: usize, h: usize, c: usize) -> Vec<(usize, u32)> {
    let (x, y) = (c % w, c / w);
    let mut v = Vec::new();
    let mut push = |n: usize| {
        if costs[n] != WALL {
            v.push((n, u32::from(costs[n])));
        }
    };
    if y > 0 {
        push(c - w);
    }
    if x + 1 < w {
        push(c + 1);
    }
    if y + 1 < h {
        push(c + w);
    }
    if x > 0 {
        push(c - 1);
    }
    v
}

/// Oracle: Dijkstra from a virtual source joined to each seed by its start cost.
fn oracle_costs(
    costs: &[u8],
    w: usize,
    h: usize,
    seeds: &[(usize, u32)],
    blocked: &dyn Fn(usize) -> bool,
) -> Vec<u32> {
    const SRC: usize = usize::MAX;
    let all = dijkstra_all(&SRC, |&c| {
        if c == SRC {
            seeds.to_vec()
        } else {
            succ4(costs, w, h, c)
                .into_iter()
                .filter(|&(n, _)| !blocked(n))
                .collect()
        }
    });
    (0..w * h)
        .map(|c| all.get(&c).map_or(UNREACHED, |&(_, d)| d))
        .collect()
}

const SIZES: [(usize, usize); 7] = [
    (1, 1),
    (3, 7),
    (10, 10),
    (17, 23),
    (40, 31),
    (64, 5),
    (33, 33),
];

#[test]
fn integration_equals_dijkstra() {
    let mut rng = Rng(0x1234_5678);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for &(w, h) in &SIZES {
        for round in 0..12 {
            let max_cost = [1_u8, 5, 40, 254][round % 4];
            let costs = random_map(&mut rng, w, h, 0.15, 0.5, max_cost);
            let n_seeds = 1 + rng.below(4) as usize;
            let seeds: Vec<(usize, u32)> = (0..n_seeds)
                .map(|_| (rng.below((w * h) as u64) as usize, rng.below(600) as u32))
                .filter(|&(c, _)| costs[c] != WALL)
                .collect();
            integrate_costs(&costs, w as u32, h as u32, &seeds, &mut field, &mut scratch);
            let oracle = oracle_costs(&costs, w, h, &seeds, &|_| false);
            assert_eq!(field.cost, oracle, "{w}x{h} round {round}");
        }
    }
}

/// Exact test: does the closed square of cell `(cx, cy)` meet the segment between the centres
/// of `a` and `b`? Coordinates doubled so centres and cell edges are integers.
fn segment_touches_cell(a: (i64, i64), b: (i64, i64), cx: i64, cy: i64) -> bool {
    let (ax, ay, bx, by) = (2 * a.0 + 1, 2 * a.1 + 1, 2 * b.0 + 1, 2 * b.1 + 1);
    let (x0, x1, y0, y1) = (2 * cx, 2 * cx + 2, 2 * cy, 2 * cy + 2);
    if ax.max(bx) < x0 || ax.min(bx) > x1 || ay.max(by) < y0 || ay.min(by) > y1 {
        return false;
    }
    let side = |px: i64, py: i64| ((bx - ax) * (py - ay) - (by - ay) * (px - ax)).signum();
    let s = [side(x0, y0), side(x1, y0), side(x0, y1), side(x1, y1)];
    !(s.iter().all(|&v| v > 0) || s.iter().all(|&v| v < 0))
}

fn clear_line(costs: &[u8], w: usize, h: usize, a: (i64, i64), b: (i64, i64)) -> bool {
    for cy in a.1.min(b.1)..=a.1.max(b.1) {
        for cx in a.0.min(b.0)..=a.0.max(b.0) {
            if (cx, cy) != a
                && segment_touches_cell(a, b, cx, cy)
                && costs[cy as usize * w + cx as usize] != 1
            {
                return false;
            }
        }
    }
    let _ = h;
    true
}

#[test]
fn los_is_sound_and_cost_pass_is_exact() {
    let mut rng = Rng(0xBEEF);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    let (mut visible, mut flagged) = (0_usize, 0_usize);
    for &(w, h) in &[(10_usize, 10_usize), (30, 30), (17, 23), (64, 5), (1, 9)] {
        for round in 0..20 {
            let costs = random_map(&mut rng, w, h, 0.06, 0.04, 9);
            let goal = rng.below((w * h) as u64) as usize;
            integrate_with_los(&costs, w as u32, h as u32, goal, &mut field, &mut scratch);
            if costs[goal] == WALL {
                assert!(field.cost.iter().all(|&c| c == UNREACHED));
                continue;
            }
            let g = ((goal % w) as i64, (goal / w) as i64);
            let truth = oracle_costs(&costs, w, h, &[(goal, 0)], &|_| false);
            for c in 0..w * h {
                let p = ((c % w) as i64, (c / w) as i64);
                let los = field.flags[c] & INT_LOS != 0;
                if los {
                    flagged += usize::from(c != goal);
                    assert!(
                        clear_line(&costs, w, h, g, p),
                        "{w}x{h} r{round}: LOS cell {p:?} has no clear line to {g:?}"
                    );
                    assert!(field.cost[c] >= truth[c]);
                }
                if costs[c] == 1
                    && truth[c] != UNREACHED
                    && c != goal
                    && clear_line(&costs, w, h, g, p)
                {
                    visible += 1;
                }
                assert_eq!(
                    field.cost[c] == UNREACHED,
                    truth[c] == UNREACHED,
                    "reachability of {p:?}"
                );
            }
            // Non-LOS cells: exact Dijkstra from the LOS region (LOS cells pinned, not re-entered).
            let seeds: Vec<(usize, u32)> = (0..w * h)
                .filter(|&c| field.flags[c] & INT_LOS != 0)
                .map(|c| (c, field.cost[c]))
                .collect();
            let flags = field.flags.clone();
            let oracle = oracle_costs(&costs, w, h, &seeds, &|n| flags[n] & INT_LOS != 0);
            for (c, &want) in oracle.iter().enumerate() {
                if field.flags[c] & INT_LOS == 0 {
                    assert_eq!(field.cost[c], want, "{w}x{h} r{round} cell {c}");
                }
            }
            check_flow(&costs, w, h, &field, &[(goal, DIR_NONE)]);
        }
    }
    // Completeness is approximate (documented); make sure it stays high.
    let share = flagged as f64 / visible.max(1) as f64;
    println!("LOS flags {flagged} cells, {share:.3} of the visible ones");
    assert!(
        share > 0.9,
        "LOS flags only {share:.3} of the visible cells"
    );
}

/// Flow properties: walls unpathable, every reached cell reaches a goal by strictly cheaper,
/// non-corner-cutting steps; unreached cells have no direction; LOS flag mirrors the field.
fn check_flow(costs: &[u8], w: usize, h: usize, field: &IntegrationField, exits: &[(usize, u8)]) {
    let mut out = vec![0_u8; w * h];
    flow_from_integration(costs, w as u32, h as u32, field, exits, &mut out);
    let pass = |x: i32, y: i32| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && costs[y as usize * w + x as usize] != WALL
    };
    for c in 0..w * h {
        if costs[c] == WALL {
            assert_eq!(out[c] & FLOW_PATHABLE, 0);
            continue;
        }
        assert_ne!(out[c] & FLOW_PATHABLE, 0);
        assert_eq!(out[c] & FLOW_LOS != 0, field.flags[c] & INT_LOS != 0);
        if let Some(&(_, d)) = exits.iter().find(|e| e.0 == c) {
            assert_eq!(out[c] & 0x0F, d);
            continue;
        }
        if field.cost[c] == UNREACHED {
            assert_eq!(out[c] & 0x0F, DIR_NONE);
            continue;
        }
        let mut cur = c;
        let mut steps = 0;
        while !exits.iter().any(|e| e.0 == cur) {
            let d = out[cur] & 0x0F;
            assert_ne!(d, DIR_NONE, "reached cell {cur} without direction");
            let (dx, dy) = DIRECTIONS[d as usize];
            let (x, y) = ((cur % w) as i32, (cur / w) as i32);
            assert!(pass(x + dx, y + dy), "flow steps into a wall");
            if dx != 0 && dy != 0 {
                assert!(pass(x + dx, y) && pass(x, y + dy), "flow cuts a corner");
            }
            let next = (y + dy) as usize * w + (x + dx) as usize;
            assert!(field.cost[next] < field.cost[cur]);
            cur = next;
            steps += 1;
            assert!(steps <= w * h, "cycle");
        }
    }
}

#[test]
fn flow_follows_to_the_goal_set() {
    let mut rng = Rng(77);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for &(w, h) in &SIZES {
        for _ in 0..10 {
            let costs = random_map(&mut rng, w, h, 0.2, 0.5, 30);
            let exits: Vec<(usize, u8)> = (0..1 + rng.below(3))
                .map(|_| (rng.below((w * h) as u64) as usize, rng.below(8) as u8))
                .filter(|&(c, _)| costs[c] != WALL)
                .collect();
            let seeds: Vec<(usize, u32)> = exits
                .iter()
                .map(|&(c, _)| (c, u32::from(costs[c])))
                .collect();
            integrate_costs(&costs, w as u32, h as u32, &seeds, &mut field, &mut scratch);
            check_flow(&costs, w, h, &field, &exits);
        }
    }
}

/// Oracle: BFS with 8 moves and no corner cutting, ids by first cell in row-major order.
fn flood_islands(costs: &[u8], w: usize, h: usize) -> Vec<u32> {
    let mut ids = vec![0_u32; w * h];
    let mut next = 0;
    let pass = |x: i32, y: i32| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && costs[y as usize * w + x as usize] != WALL
    };
    for start in 0..w * h {
        if costs[start] == WALL || ids[start] != 0 {
            continue;
        }
        next += 1;
        ids[start] = next;
        let mut q = VecDeque::from([start]);
        while let Some(c) = q.pop_front() {
            let (x, y) = ((c % w) as i32, (c / w) as i32);
            for (dx, dy) in DIRECTIONS {
                if !pass(x + dx, y + dy)
                    || (dx != 0 && dy != 0 && !(pass(x + dx, y) && pass(x, y + dy)))
                {
                    continue;
                }
                let n = (y + dy) as usize * w + (x + dx) as usize;
                if ids[n] == 0 {
                    ids[n] = next;
                    q.push_back(n);
                }
            }
        }
    }
    ids
}

#[test]
fn islands_equal_flood_fill() {
    let mut rng = Rng(99);
    for round in 0..40 {
        let (w, h) = (1 + rng.below(60) as u32, 1 + rng.below(60) as u32);
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 1 + rng.below(16) as u32,
        };
        let costs = random_map(
            &mut rng,
            w as usize,
            h as usize,
            [0.1, 0.3, 0.5][round % 3],
            0.2,
            9,
        );
        let islands = find_islands(&CostField::from_cells(spec, &costs));
        let oracle = flood_islands(&costs, w as usize, h as usize);
        assert_eq!(islands.count, oracle.iter().copied().max().unwrap_or(0));
        for y in 0..h {
            for x in 0..w {
                assert_eq!(
                    islands.island_at(x, y),
                    oracle[spec.index(x, y)],
                    "round {round} cell ({x},{y})"
                );
            }
        }
    }
}

/// Oracle: walk every sector border cell by cell on the full grid.
fn brute_windows(spec: GridSpec, costs: &[u8]) -> Vec<PortalWindow> {
    let (w, h, s) = (spec.width, spec.height, spec.sector_size);
    let pass = |x: u32, y: u32| costs[spec.index(x, y)] != WALL;
    let mut out = Vec::new();
    for sy in 0..spec.sectors_y() {
        for sx in 0..spec.sectors_x() {
            let a = sy * spec.sectors_x() + sx;
            // east border
            if (sx + 1) * s < w {
                let bx = (sx + 1) * s;
                let mut run: Option<u32> = None;
                for y in sy * s..=((sy + 1) * s).min(h) {
                    let open = y < ((sy + 1) * s).min(h) && pass(bx - 1, y) && pass(bx, y);
                    match (open, run) {
                        (true, None) => run = Some(y),
                        (false, Some(st)) => {
                            out.push(PortalWindow {
                                sector_a: a,
                                sector_b: a + 1,
                                horizontal: false,
                                border: bx,
                                start: st,
                                len: y - st,
                            });
                            run = None;
                        }
                        _ => {}
                    }
                }
            }
            // south border
            if (sy + 1) * s < h {
                let by = (sy + 1) * s;
                let mut run: Option<u32> = None;
                for x in sx * s..=((sx + 1) * s).min(w) {
                    let open = x < ((sx + 1) * s).min(w) && pass(x, by - 1) && pass(x, by);
                    match (open, run) {
                        (true, None) => run = Some(x),
                        (false, Some(st)) => {
                            out.push(PortalWindow {
                                sector_a: a,
                                sector_b: a + spec.sectors_x(),
                                horizontal: true,
                                border: by,
                                start: st,
                                len: x - st,
                            });
                            run = None;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

#[test]
fn portals_equal_brute_force() {
    let mut rng = Rng(4242);
    for round in 0..60 {
        let (w, h) = (1 + rng.below(70) as u32, 1 + rng.below(70) as u32);
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 1 + (round % 16) as u32,
        };
        let costs = random_map(&mut rng, w as usize, h as usize, 0.25, 0.3, 9);
        let windows = find_windows(&CostField::from_cells(spec, &costs));
        assert_eq!(
            windows,
            brute_windows(spec, &costs),
            "round {round}: {w}x{h} sector {}",
            spec.sector_size
        );
    }
}

#[test]
fn layer_graph_and_tiles_match_direct_integration() {
    let mut rng = Rng(5150);
    let never = AtomicBool::new(false);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for round in 0..8 {
        let (w, h) = (20 + rng.below(40) as u32, 20 + rng.below(40) as u32);
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 4 + rng.below(9) as u32,
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
            let cells: Vec<usize> = (0..node.cells.len)
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
                layer.islands.island_at(node.center.0, node.center.1)
            );
            assert_ne!(node.island, 0);
            // Edges into this node from its sector: oracle weight = dist(centre) - cost(centre).
            let oracle = oracle_costs(&sector_costs, sw as usize, sh as usize, &seeds, &|_| false);
            for &m in layer.graph.nodes_of_sector(node.sector) {
                if m as usize == ni {
                    continue;
                }
                let (cx, cy) = layer.nodes[m as usize].center;
                let c = local(cx, cy);
                let want = (oracle[c] != UNREACHED).then(|| oracle[c] - u32::from(sector_costs[c]));
                let got = layer
                    .graph
                    .edges(m)
                    .find(|&(t, _)| t as usize == ni)
                    .map(|(_, wgt)| wgt);
                assert_eq!(got, want, "edge {m} -> {ni}");
            }
            // The twin edge.
            let twin = (ni ^ 1) as u32;
            let (tx, ty) = layer.nodes[twin as usize].center;
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
    let mut rng = Rng(31337);
    let never = AtomicBool::new(false);
    for round in 0..10 {
        let (w, h) = (10 + rng.below(50) as u32, 10 + rng.below(50) as u32);
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 2 + rng.below(10) as u32,
        };
        let mut costs = random_map(&mut rng, w as usize, h as usize, 0.1, 0.2, 9);
        let mut layer =
            build_layer("inc", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
        for edit in 0..6 {
            // A few dabs: walls, costs, and clearing a whole sector.
            let mut dirty = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let (x, y) = (
                    rng.below(u64::from(w)) as u32,
                    rng.below(u64::from(h)) as u32,
                );
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
                let s = rng.below(spec.sector_count() as u64) as u32;
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
    let mut rng = Rng(4242);
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
