//! Nav links end to end: route costs against a Dijkstra over the cell grid plus the link
//! edges (the oracle), islands joined by links and by one-way drops, run-time changes
//! through the rebuild queue, and the package's `links` chunk.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use navstudio_nav::rng::SplitMix64;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use navstudio_nav::grid::WALL;
use navstudio_nav::links::{LinkCost, LinkKind, NavLink};
use navstudio_nav::package::{self, PackageMeta};
use navstudio_nav::{CostField, GridSpec, NavData, NavWorld, PathError, SearchMode, build_layer};

fn nav_from_cells(w: u32, h: u32, sector_size: u32, costs: &[u8]) -> NavData {
    let spec = GridSpec {
        width: w,
        height: h,
        sector_size,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let layer = build_layer("land", CostField::from_cells(spec, costs), &|_| {}, &never).unwrap();
    NavData::new(spec, 1.0, vec![layer])
}

/// Cheapest cost from `from` to every cell: a 4-neighbour step costs the cell entered, a
/// link the link's traversal cost (from its entry cell to its exit cell).
fn oracle(costs: &[u8], w: u32, h: u32, links: &[NavLink], from: (u32, u32)) -> Vec<u64> {
    let idx = |x: u32, y: u32| (y * w + x) as usize;
    let mut dist = vec![u64::MAX; costs.len()];
    let mut heap = BinaryHeap::new();
    dist[idx(from.0, from.1)] = 0;
    heap.push(Reverse((0_u64, from)));
    while let Some(Reverse((d, (x, y)))) = heap.pop() {
        if d > dist[idx(x, y)] {
            continue;
        }
        let mut relax = |(nx, ny): (u32, u32), c: u64, heap: &mut BinaryHeap<_>| {
            let nd = d + c;
            if nd < dist[idx(nx, ny)] {
                dist[idx(nx, ny)] = nd;
                heap.push(Reverse((nd, (nx, ny))));
            }
        };
        for (dx, dy) in [(1_i64, 0_i64), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
            if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                continue;
            }
            let c = costs[idx(nx as u32, ny as u32)];
            if c != WALL {
                relax((nx as u32, ny as u32), u64::from(c), &mut heap);
            }
        }
        for l in links.iter().filter(|l| l.enabled) {
            let (a, b) = ((l.a.x, l.a.y), (l.b.x, l.b.y));
            let c = u64::from(l.traversal_cost(1.0));
            if (x, y) == a && costs[idx(b.0, b.1)] != WALL {
                relax(b, c, &mut heap);
            }
            if l.two_way && (x, y) == b && costs[idx(a.0, a.1)] != WALL {
                relax(a, c, &mut heap);
            }
        }
    }
    dist
}

fn random_map(rng: &mut SplitMix64, w: u32, h: u32) -> Vec<u8> {
    (0..w * h)
        .map(|_| match rng.below(10) {
            0..=2 => WALL,
            3 => 1 + rng.below(8) as u8,
            _ => 1,
        })
        .collect()
}

fn random_links(rng: &mut SplitMix64, costs: &[u8], w: u32, h: u32, n: u32) -> Vec<NavLink> {
    let open = |rng: &mut SplitMix64| loop {
        let c = (rng.below(w), rng.below(h));
        if costs[(c.1 * w + c.0) as usize] != WALL {
            return c;
        }
    };
    let mut links = Vec::new();
    for id in 0..n {
        let (a, b) = (open(rng), open(rng));
        let mut l = NavLink::walk(id + 1, a, b);
        match id % 4 {
            0 => {}
            1 => {
                l.kind = LinkKind::Drop;
                l.two_way = false;
                l.cost = LinkCost::Direct(1 + rng.below(6));
            }
            2 => {
                l.kind = LinkKind::Teleport { time_s: 1.0 };
                l.cost = LinkCost::Direct(2 + rng.below(4));
                l.two_way = rng.below(2) == 0;
            }
            _ => l.cost = LinkCost::PerMetre(0.5 + rng.below(3) as f32),
        }
        links.push(l);
    }
    links
}

/// In sectors of one cell the portal graph is the 4-neighbour cell graph, so an exact
/// search (heuristic weight 1) must cost exactly what the oracle does, links included; and
/// whether a request is refused must agree with the oracle's reachability.
#[test]
fn route_costs_with_random_links_equal_the_cell_grid_oracle() {
    oracle_routes(SearchMode::Flat, 20, 12);
}

/// The same over the sector hierarchy and its levels: maps of 50–79 cells in sectors of
/// one cell are 7–10 clusters a side, so the links' end nodes sit in clusters, teleports
/// and drops join clusters and levels, and the search crosses the levels above them.
#[test]
fn route_costs_with_random_links_over_the_hierarchy_equal_the_cell_grid_oracle() {
    oracle_routes(SearchMode::Levels, 50, 30);
}

/// Random maps of `least + below(spread)` cells a side with random links, searched in
/// `mode`, against the oracle.
fn oracle_routes(mode: SearchMode, least: u32, spread: u32) {
    let seed = std::env::var("LINK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x11AC_u64);
    println!("seed {seed} (set LINK_SEED to replay)");
    let mut rng = SplitMix64::new(seed);
    let mut checked = 0;
    let mut over_links = 0;
    let mut with_levels = 0;
    for map in 0..12 {
        let (w, h) = (least + rng.below(spread), least + rng.below(spread));
        let costs = random_map(&mut rng, w, h);
        let count = 3 + rng.below(8);
        let links = random_links(&mut rng, &costs, w, h, count);
        let mut world = NavWorld::from_nav(nav_from_cells(w, h, 1, &costs));
        world.set_search_mode(mode);
        world.set_heuristic_weight(1.0);
        world.set_links(links.clone()).unwrap();
        for _ in 0..25 {
            let src = (rng.below(w), rng.below(h));
            let goal = (rng.below(w), rng.below(h));
            if costs[(src.1 * w + src.0) as usize] == WALL
                || costs[(goal.1 * w + goal.0) as usize] == WALL
                || src.0.abs_diff(goal.0).max(src.1.abs_diff(goal.1)) < 3
            {
                continue;
            }
            let d = oracle(&costs, w, h, &links, src)[(goal.1 * w + goal.0) as usize];
            let reachable = world.is_reachable(0, src, goal);
            assert_eq!(
                reachable,
                d != u64::MAX,
                "map {map} {src:?}->{goal:?}: reachability"
            );
            match world.request_path(0, &[src], goal) {
                Ok(id) => {
                    let cost = world.path(id).unwrap().routes[0].cost;
                    assert_eq!(
                        u64::from(cost),
                        d,
                        "map {map} (seed {seed}, {mode:?}) {src:?}->{goal:?}: route cost vs oracle"
                    );
                    let ground = oracle(&costs, w, h, &[], src)[(goal.1 * w + goal.0) as usize];
                    if u64::from(cost) < ground {
                        over_links += 1;
                        let traced = world.trace_path(id, src).expect("the path arrives");
                        assert!(
                            !traced.links.is_empty(),
                            "map {map}: a cheaper route takes a link"
                        );
                        assert_eq!(traced.goal, goal);
                    }
                    world.release_path(id);
                    checked += 1;
                }
                Err(PathError::Unreachable(_)) => {
                    assert_eq!(d, u64::MAX, "map {map} {src:?}->{goal:?}")
                }
                Err(e) => panic!("map {map}: {e}"),
            }
        }
        if mode == SearchMode::Levels {
            let h = world.cluster_stats(0).expect("searched over the hierarchy");
            with_levels += usize::from(h.levels > 0);
        }
    }
    println!(
        "{checked} routes checked, {over_links} cheaper over links, {with_levels} maps with levels"
    );
    if mode == SearchMode::Levels {
        assert!(with_levels >= 6, "only {with_levels} maps had levels");
    }
    assert!(
        checked > 100 && over_links > 10,
        "{checked} routes, {over_links} over links"
    );
}

/// A river 4 cells wide down the middle of a 64 × 40 map in sectors of 8, with a ford at
/// the bottom only when `ford`.
fn river(ford: bool) -> (Vec<u8>, u32, u32) {
    let (w, h) = (64, 40);
    let mut costs = vec![1_u8; (w * h) as usize];
    for y in 0..h {
        for x in 30..34 {
            if !(ford && y >= 37) {
                costs[(y * w + x) as usize] = WALL;
            }
        }
    }
    (costs, w, h)
}

#[test]
fn a_bridge_joins_islands_and_a_one_way_drop_reaches_one_way() {
    let (costs, w, h) = river(false);
    let mut world = NavWorld::from_nav(nav_from_cells(w, h, 8, &costs));
    let (left, right) = ((5, 20), (60, 20));
    assert!(!world.is_reachable(0, left, right));
    // A drop from the left bank to the right one.
    let mut drop = NavLink::walk(1, (29, 10), (34, 10));
    drop.kind = LinkKind::Drop;
    drop.two_way = false;
    world.set_links(vec![drop]).unwrap();
    assert!(world.is_reachable(0, left, right), "down the drop");
    assert!(!world.is_reachable(0, right, left), "not back up");
    assert!(matches!(
        world.request_path(0, &[right], left),
        Err(PathError::Unreachable(_))
    ));
    let id = world.request_path(0, &[left], right).unwrap();
    let traced = world.trace_path(id, left).expect("arrives over the drop");
    assert_eq!(traced.links.len(), 1);
    assert_eq!(traced.links[0].1, 1);
    assert_eq!(traced.cells[traced.links[0].0], (29, 10));
    assert_eq!(traced.cells[traced.links[0].0 + 1], (34, 10));
    assert_eq!(traced.goal, right);
    // At the entry the world says which link to take and where it leads.
    let step = world.link_at(id, (29.5, 10.5)).expect("at the link");
    assert_eq!((step.id, step.exit), (1, (34, 10)));
    assert!(world.link_at(id, (20.5, 10.5)).is_none());
    // Following the flow from the source leads onto the entry.
    let mut pos = (5.5_f32, 20.5_f32);
    let mut arrived = false;
    for _ in 0..400 {
        if world.link_at(id, pos).is_some() {
            arrived = true;
            break;
        }
        let (dx, dy) = world.sample_flow(id, pos).expect("on the route");
        pos = (pos.0 + 0.25 * dx, pos.1 + 0.25 * dy);
    }
    assert!(
        arrived,
        "the flow leads to the link's entry (stopped at {pos:?})"
    );
}

#[test]
fn a_link_removed_at_run_time_re_plans_after_rebuild() {
    let (costs, w, h) = river(true);
    let mut world = NavWorld::from_nav(nav_from_cells(w, h, 8, &costs));
    world.set_heuristic_weight(1.0);
    let bridge = NavLink::walk(7, (29, 5), (34, 5));
    world.set_links(vec![bridge]).unwrap();
    let (src, goal) = ((20, 5), (44, 5));
    let id = world.request_path(0, &[src], goal).unwrap();
    let over_bridge = world.path(id).unwrap().routes[0].cost;
    assert!(over_bridge < 40, "over the bridge: {over_bridge}");
    world.remove_link(7).unwrap();
    assert_eq!(world.links().len(), 1, "changes wait for the rebuild");
    assert!(world.pending_rebuilds() > 0);
    while !world.rebuild(Duration::ZERO) {}
    assert!(world.links().is_empty());
    let by_ford = world.path(id).expect("re-planned").routes[0].cost;
    assert!(
        by_ford > over_bridge + 40,
        "round by the ford: {by_ford} vs {over_bridge}"
    );
    let traced = world.trace_path(id, src).unwrap();
    assert!(traced.links.is_empty());
    // Without the ford the banks part: reachability follows the rebuild.
    let (costs, w, h) = river(false);
    let mut world = NavWorld::from_nav(nav_from_cells(w, h, 8, &costs));
    world
        .set_links(vec![NavLink::walk(7, (29, 5), (34, 5))])
        .unwrap();
    let id = world.request_path(0, &[src], goal).unwrap();
    world.set_link_enabled(7, false).unwrap();
    assert!(world.is_reachable(0, src, goal), "until the rebuild");
    while !world.rebuild(Duration::ZERO) {}
    assert!(!world.is_reachable(0, src, goal));
    assert!(
        world.path(id).is_none(),
        "the path no route serves is dropped"
    );
    world.set_link_enabled(7, true).unwrap();
    while !world.rebuild(Duration::ZERO) {}
    assert!(world.is_reachable(0, src, goal));
}

#[test]
fn the_package_keeps_links_and_a_damaged_links_chunk_is_an_error() {
    let (costs, w, h) = river(false);
    let nav = nav_from_cells(w, h, 8, &costs);
    let mut ferry = NavLink::walk(3, (29, 20), (34, 20));
    ferry.kind = LinkKind::Ride {
        capacity: 10,
        period_s: 20.0,
    };
    let without = package::to_bytes(&nav, &PackageMeta::default());
    assert_eq!(u32::from_le_bytes(without[8..12].try_into().unwrap()), 2);
    let meta = PackageMeta {
        links: vec![ferry.clone()],
        ..PackageMeta::default()
    };
    let bytes = package::to_bytes(&nav, &meta);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 3);
    let pkg = package::from_bytes(&bytes).unwrap();
    assert_eq!(pkg.links, vec![ferry]);
    assert_eq!(pkg.manifest.requires, vec!["links".to_owned()]);
    let mut world = NavWorld::from_package(pkg);
    assert!(world.is_reachable(0, (5, 5), (60, 5)));
    let id = world.request_path(0, &[(5, 5)], (60, 5)).unwrap();
    assert_eq!(world.trace_path(id, (5, 5)).unwrap().links.len(), 1);
    // Without links the package opens as before.
    assert!(package::from_bytes(&without).unwrap().links.is_empty());
    // A links chunk whose bytes are damaged: a typed error, never a panic.
    let pkg = package::from_bytes(&bytes).unwrap();
    let chunk = pkg
        .manifest
        .chunks
        .iter()
        .find(|c| c.kind == "links")
        .unwrap()
        .clone();
    let mut damaged = bytes.clone();
    damaged[chunk.offset as usize + 3] ^= 0x40;
    assert!(matches!(
        package::from_bytes(&damaged),
        Err(package::PackageError::Checksum { .. })
    ));
}

/// A 64 × 48 map in sectors of 16 with a river (x 38..41) that a ford (y 28..31) crosses:
/// both banks and the ford lie in the window of a goal field around (44, 8), so the ground
/// way round is one the goal field knows.
fn river_with_near_ford() -> (Vec<u8>, u32, u32) {
    let (w, h) = (64, 48);
    let mut costs = vec![1_u8; (w * h) as usize];
    for y in (0..h).filter(|y| !(28..32).contains(y)) {
        for x in 38..41 {
            costs[(y * w + x) as usize] = WALL;
        }
    }
    (costs, w, h)
}

/// Follows the path's flow from `from` (link traversals included) until the goal cell,
/// for at most `steps`: the links taken and the distance walked on the ground.
fn follow(
    world: &NavWorld,
    id: navstudio_nav::PathId,
    from: (f32, f32),
    goal: (u32, u32),
) -> (Vec<u32>, f32) {
    let (mut pos, mut taken, mut walked) = (from, Vec::new(), 0.0_f32);
    for _ in 0..2000 {
        if (pos.0 as u32, pos.1 as u32) == goal {
            return (taken, walked);
        }
        if let Some(step) = world.link_at(id, pos) {
            taken.push(step.id);
            pos = (step.exit.0 as f32 + 0.5, step.exit.1 as f32 + 0.5);
            continue;
        }
        let Some((dx, dy)) = world.sample_flow(id, pos) else {
            panic!("off the route at {pos:?} after links {taken:?}");
        };
        pos = (pos.0 + 0.25 * dx, pos.1 + 0.25 * dy);
        walked += 0.25;
    }
    panic!("no arrival from {from:?}: at {pos:?}, links {taken:?}, walked {walked}");
}

/// A goal just past a link's exit, with the link's entry in the goal's own sector and the
/// ground way round (by the ford) inside the goal field's window: the path takes the link —
/// the goal field counts it — whether the source is far away or on the near bank in the
/// goal's window, in the default mode and in seamless mode (whose corridor counts links
/// too). Over the link it is about 12 from the bank at x 32 to the goal; round by the ford
/// about 50.
#[test]
fn a_goal_near_a_link_exit_is_reached_over_the_link_by_goal_field_and_corridor() {
    let (costs, w, h) = river_with_near_ford();
    let goal = (44, 8);
    let mut bridge = NavLink::walk(1, (37, 8), (41, 8));
    bridge.cost = LinkCost::Direct(4);
    for seamless in [false, true] {
        let mut world = NavWorld::from_nav(nav_from_cells(w, h, 16, &costs));
        world.set_seamless(seamless);
        world.set_links(vec![bridge.clone()]).unwrap();
        for src in [(5, 8), (33, 10), (36, 3)] {
            let id = world.request_path(0, &[src], goal).unwrap();
            let oracle = oracle(&costs, w, h, std::slice::from_ref(&bridge), src);
            let best = oracle[(goal.1 * w + goal.0) as usize];
            let traced = world.trace_path(id, src).unwrap();
            assert_eq!(
                traced.links.iter().map(|l| l.1).collect::<Vec<_>>(),
                [1],
                "seamless {seamless}, from {src:?}: the trace takes the bridge (oracle {best})"
            );
            let (taken, walked) =
                follow(&world, id, (src.0 as f32 + 0.5, src.1 as f32 + 0.5), goal);
            assert_eq!(
                taken,
                [1],
                "seamless {seamless}, from {src:?}: agents take it"
            );
            // The oracle's cost less the link's 4 is the ground walked (clear cells cost 1);
            // the flow's 8 directions walk it shorter, never round by the ford.
            assert!(
                walked <= (best - 4) as f32 + 2.0,
                "seamless {seamless}, from {src:?}: walked {walked}, oracle ground {}",
                best - 4
            );
            if seamless {
                assert!(
                    world.path(id).unwrap().corridor.is_some(),
                    "from {src:?}: seamless mode builds the corridor over the link"
                );
            }
            world.release_path(id);
        }
    }
}
