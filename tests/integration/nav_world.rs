//! NavWorld on the baked sample maps: paths arrive, reachability agrees with a flood fill,
//! unreachable requests never run A*, merging A* shares tiles, dynamic stamps rebuild to a
//! fresh bake, the goal field gives way to the route where its window forces a detour.

use crate::common;

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use crate::common::{Rng, bake_all, generated};
use navstudio::map::MapKind;
use navstudio::nav::CellRect;
use navstudio::nav::grid::WALL;
use navstudio::nav::{CostField, NavWorld, build_layer};

/// Independent 4-connected flood fill (diagonals without corner cutting add nothing).
fn flood(costs: &[u8], w: u32, h: u32, from: (u32, u32)) -> Vec<bool> {
    let mut seen = vec![false; costs.len()];
    let start = (from.1 * w + from.0) as usize;
    if costs[start] == WALL {
        return seen;
    }
    let mut q = VecDeque::from([from]);
    seen[start] = true;
    while let Some((x, y)) = q.pop_front() {
        for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
            if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                continue;
            }
            let i = (ny as u32 * w + nx as u32) as usize;
            if !seen[i] && costs[i] != WALL {
                seen[i] = true;
                q.push_back((nx as u32, ny as u32));
            }
        }
    }
    seen
}

#[test]
fn random_pairs_arrive_and_reachability_matches_flood_fill() {
    let baked = bake_all(&generated(MapKind::Showcase));
    let mut world = NavWorld::from_nav(baked.nav.clone());
    let mut rng = Rng::new(42);
    for (li, layer) in baked.nav.layers.iter().enumerate() {
        let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
        let costs = layer.cost.to_cells();
        let mut arrived = 0;
        let mut tried = 0;
        let mut ratios = Vec::new();
        while tried < 40 {
            let a = (rng.below(w), rng.below(h));
            let b = (rng.below(w), rng.below(h));
            if costs[(a.1 * w + a.0) as usize] == WALL || costs[(b.1 * w + b.0) as usize] == WALL {
                continue;
            }
            let reach = flood(&costs, w, h, a);
            let truth = reach[(b.1 * w + b.0) as usize];
            assert_eq!(
                world.is_reachable(li, a, b),
                truth,
                "{} {a:?}->{b:?}",
                layer.name
            );
            let runs = world.a_star_runs();
            let result = world.request_path(li, &[a], b);
            if !truth {
                assert!(result.is_err());
                assert_eq!(world.a_star_runs(), runs, "an unreachable request ran A*");
                continue;
            }
            tried += 1;
            let id = result.unwrap();
            let traced = world
                .trace_path(id, a)
                .expect("the traced path must arrive");
            for &(x, y) in &traced.cells {
                assert_ne!(costs[(y * w + x) as usize], WALL, "the path entered a wall");
            }
            // The taut string may touch a wall's corner, never pass between two walls
            // that meet at one.
            for pair in traced.cells.windows(2) {
                let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                if x0 != x1 && y0 != y1 {
                    let sides = (costs[(y0 * w + x1) as usize], costs[(y1 * w + x0) as usize]);
                    assert_ne!(sides, (WALL, WALL), "squeezed between two walls");
                }
            }
            let straight = f64::from(a.0.abs_diff(b.0)).hypot(f64::from(a.1.abs_diff(b.1)));
            if straight > 0.0 {
                ratios.push(traced.length / straight);
            }
            arrived += 1;
            world.release_path(id);
        }
        assert_eq!(arrived, tried);
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        println!(
            "{}: {arrived}/{tried} arrived, traced / straight-line mean {mean:.3}",
            layer.name
        );
    }
}

#[test]
fn merging_a_star_shares_routes() {
    let baked = bake_all(&generated(MapKind::Showcase));
    let land = 0;
    let mut world = NavWorld::from_nav(baked.nav.clone());
    let layer = &baked.nav.layers[land];
    let costs = layer.cost.to_cells();
    let w = layer.cost.spec.width;
    let goal = (600, 600);
    let mut sources = Vec::new();
    let mut rng = Rng::new(9);
    while sources.len() < 100 {
        let s = (40 + rng.below(30), 40 + rng.below(30));
        if costs[(s.1 * w + s.0) as usize] != WALL && world.is_reachable(land, s, goal) {
            sources.push(s);
        }
    }
    let merged = world.request_path(land, &sources, goal).unwrap();
    let merged_tiles = world.path(merged).unwrap().exits.len();
    let mut independent = 0;
    let mut union = BTreeSet::new();
    for &s in &sources {
        let id = world.request_path(land, &[s], goal).unwrap();
        independent += world.path(id).unwrap().exits.len();
        union.extend(world.path(id).unwrap().exits.keys().copied());
        world.release_path(id);
    }
    println!(
        "merged request: {merged_tiles} routed sectors; 100 independent requests: {independent} in all ({} distinct)",
        union.len()
    );
    assert!(merged_tiles < independent);
    for &s in &sources {
        assert!(
            world.trace_path(merged, s).is_some(),
            "source {s:?} does not arrive on the merged path"
        );
    }
    let stats = world.cache_stats();
    assert!(
        stats.hits >= 100,
        "the goal field must be shared: {stats:?}"
    );
}

#[test]
fn dynamic_stamp_then_rebuild_equals_fresh_build() {
    let baked = bake_all(&generated(MapKind::Small));
    let mut world = NavWorld::from_nav(baked.nav.clone());
    let before = world.nav().layers[0].clone();
    let wall = vec![WALL; 12 * 4];
    let stamp = world.apply_stamp(&[0, 1, 2], CellRect::at(30, 40, 12, 4), &wall);
    world.set_cost(1, (5, 5), 77);
    while !world.rebuild(Duration::from_millis(1)) {}
    for l in &world.nav().layers {
        let fresh = build_layer(
            &l.name,
            CostField::from_cells(l.cost.spec, &l.cost.to_cells()),
            &|_| {},
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap();
        // Equal up to the order of the tile store, which incremental rebuilds append to.
        assert!(
            canonical(l) == fresh,
            "{}: rebuilt layer differs from a fresh build",
            l.name
        );
    }
    world.remove_stamp(stamp);
    world.set_cost(1, (5, 5), before.cost.get(5, 5));
    while !world.rebuild(Duration::from_millis(1)) {}
    assert!(
        canonical(&world.nav().layers[0]) == before,
        "removing the stamp must restore the layer"
    );
}

/// The layer with its tile store in the order a full build gives.
fn canonical(l: &navstudio::nav::NavLayer) -> navstudio::nav::NavLayer {
    let mut c = l.clone();
    c.flows = navstudio::nav::permutations::canonical_flows(&c.cost, &c.nodes, &c.flows);
    c
}

/// Route costs of the same requests three ways: plain A* (octile only, weight 1), A* with
/// landmark bounds (weight 1) and the default (landmarks; the heuristic weight inflates only
/// the hierarchy's search, and a 512² map is searched flat). Landmark bounds are admissible,
/// so at weight 1 they must find routes as cheap as plain A* while expanding far fewer
/// nodes; the default is that same search.
#[test]
fn landmarks_keep_routes_optimal_and_expand_fewer_nodes() {
    // The benchmark terrain (hills, lakes, cliffs) at 512², land type only.
    let baked = common::bake_generated(MapKind::Benchmark, 512, 512, 3, Some(vec!["land".into()]));
    let layer = &baked.nav.layers[0];
    let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
    let costs = layer.cost.to_cells();
    let mut plain = NavWorld::from_nav(baked.nav.clone());
    plain.set_landmarks(false);
    plain.set_heuristic_weight(1.0);
    let mut exact = NavWorld::from_nav(baked.nav.clone());
    exact.set_heuristic_weight(1.0);
    let mut default = NavWorld::from_nav(baked.nav.clone());
    let mut rng = Rng::new(5);
    let mut pairs = 0;
    let route_cost = |world: &mut NavWorld, a, b| {
        let id = world.request_path(0, &[a], b).unwrap();
        let cost = world.path(id).unwrap().routes[0].cost;
        world.release_path(id);
        cost
    };
    while pairs < 30 {
        let a = (rng.below(w), rng.below(h));
        let b = (rng.below(w), rng.below(h));
        let far = a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= w / 3;
        if !far || costs[(a.1 * w + a.0) as usize] == WALL || !plain.is_reachable(0, a, b) {
            continue;
        }
        pairs += 1;
        let (p, e, d) = (
            route_cost(&mut plain, a, b),
            route_cost(&mut exact, a, b),
            route_cost(&mut default, a, b),
        );
        assert!(
            e <= p,
            "{a:?}->{b:?}: landmark route {e} costlier than plain A* {p}"
        );
        assert_eq!(d, e, "{a:?}->{b:?}: the default flat search is exact");
    }
    let (pe, ee, de) = (
        plain.a_star_expansions(),
        exact.a_star_expansions(),
        default.a_star_expansions(),
    );
    println!("expansions over {pairs} requests: plain {pe}, landmarks {ee}, default {de}");
    assert!(ee * 2 < pe, "landmarks expanded {ee} nodes, plain A* {pe}");
    assert_eq!(de, ee, "the default expanded {de} nodes, weight 1 {ee}");

    // A wall dropped at run time: the queue rebuilds the sectors, then the landmark tables a
    // few at a time; afterwards routes are as cheap as in a fresh world over the new data.
    let wall = vec![WALL; 60 * 60];
    exact.apply_stamp(&[0], CellRect::at(200, 200, 60, 60), &wall);
    let mut calls = 0;
    while !exact.rebuild(Duration::ZERO) {
        calls += 1;
        assert!(exact.pending_rebuilds() > 0);
    }
    // 32 tables (16 landmarks, both directions), two per step: at least 15 calls return
    // before the last step.
    assert!(
        calls >= 15,
        "the landmark tables were not time-sliced ({calls} calls)"
    );
    let mut fresh = NavWorld::from_nav(exact.nav().clone());
    fresh.set_heuristic_weight(1.0);
    let costs = exact.nav().layers[0].cost.to_cells();
    let mut checked = 0;
    while checked < 10 {
        let a = (rng.below(w), rng.below(h));
        let b = (rng.below(w), rng.below(h));
        if costs[(a.1 * w + a.0) as usize] == WALL || !exact.is_reachable(0, a, b) {
            continue;
        }
        checked += 1;
        assert_eq!(
            route_cost(&mut exact, a, b),
            route_cost(&mut fresh, a, b),
            "{a:?}->{b:?} after the rebuild"
        );
    }
}

/// Shortest 8-connected path length without corner cutting (1 straight, √2 diagonal), by the
/// `pathfinding` crate: the yardstick Moving AI publishes.
fn octile_optimum(costs: &[u8], w: u32, h: u32, from: (u32, u32), to: (u32, u32)) -> f64 {
    let open = |x: i64, y: i64| {
        x >= 0 && y >= 0 && x < i64::from(w) && y < i64::from(h) && {
            costs[(y * i64::from(w) + x) as usize] != WALL
        }
    };
    let (_, cost) = pathfinding::directed::dijkstra::dijkstra(
        &(i64::from(from.0), i64::from(from.1)),
        |&(x, y)| {
            let mut next = Vec::new();
            for (dx, dy) in [
                (1, 0),
                (-1, 0),
                (0, 1),
                (0, -1),
                (1, 1),
                (1, -1),
                (-1, 1),
                (-1, -1),
            ] {
                let diagonal = dx != 0 && dy != 0;
                if open(x + dx, y + dy) && (!diagonal || (open(x + dx, y) && open(x, y + dy))) {
                    next.push(((x + dx, y + dy), if diagonal { 1414_u64 } else { 1000 }));
                }
            }
            next
        },
        |&p| p == (i64::from(to.0), i64::from(to.1)),
    )
    .expect("the goal is reachable");
    cost as f64 / 1000.0
}

/// Rooms whose connecting corridor runs just outside the goal field's window (the goal
/// sector and its 8 neighbours), as in Moving AI's 8room maps: the route dips into the window
/// (rooms A and B, right of a wall that splits the corridor) and leaves it again, while inside
/// the window B reaches the goal only by a long way round through A. The goal field used to
/// steer wherever it reached, so a unit in B took the long way (8room_000's worst row traced
/// 1.92 × the optimum); now the route's tiles steer in sectors where it is cheaper.
#[test]
fn the_goal_field_gives_way_to_a_cheaper_route_outside_its_window() {
    let (w, h) = (50_u32, 50_u32);
    let mut costs = vec![1_u8; (w * h) as usize];
    let mut wall = |x: u32, y: u32| costs[(y * w + x) as usize] = WALL;
    // The corridor (rows 0–9) over a wall with doors into A, B and the passage to the goal.
    for x in (0..w).filter(|x| ![24, 33, 37].contains(x)) {
        wall(x, 10);
    }
    // Splits corridor and rooms; doors A–B (row 14) and A–goal room (row 39, the window's
    // last row: the long way round).
    for y in (0..h).filter(|y| ![14, 39].contains(y)) {
        wall(29, y);
    }
    // B (x 30–35) and the passage to the goal room (x 37–49), closed below but for a door.
    for y in 10..20 {
        wall(36, y);
    }
    for x in (30..w).filter(|&x| x != 37) {
        wall(x, 19);
    }
    let mut world = common::world_from_cells("rooms", w, h, 10, &costs);
    let goal = (37, 22);
    // From the corridor, and from inside B (in the window, where the field used to win).
    for source in [(5, 5), (33, 13)] {
        let id = world.request_path(0, &[source], goal).unwrap();
        let traced = world.trace_path(id, source).expect("the path arrives");
        let optimum = octile_optimum(&costs, w, h, source, goal);
        assert!(
            traced.length <= optimum * 1.15,
            "{source:?}: traced {:.1} vs optimal {optimum:.1} (the long way round through A is far longer)",
            traced.length
        );
        world.release_path(id);
    }
}

/// A world over shared nav data (the editor's crowd and goal previews share the editor's)
/// reads it in place for requests, and copies it on its first run-time change, leaving the
/// sharer's data as baked.
#[test]
fn a_world_over_shared_data_copies_it_only_when_it_changes() {
    let baked = bake_all(&generated(MapKind::Small));
    let shared = std::sync::Arc::clone(&baked.nav);
    let as_baked = navstudio::nav::NavData::clone(&shared);
    let mut world = NavWorld::from_nav(std::sync::Arc::clone(&shared));
    let spec = shared.spec;
    let mut rng = Rng::new(7);
    let mut planned = 0;
    while planned < 10 {
        let a = (rng.below(spec.width), rng.below(spec.height));
        let b = (rng.below(spec.width), rng.below(spec.height));
        if world.is_reachable(0, a, b) {
            let id = world
                .request_path(0, &[a], b)
                .expect("a reachable pair plans");
            assert!(world.trace_path(id, a).is_some());
            world.release_path(id);
            planned += 1;
        }
    }
    assert!(
        std::ptr::eq(world.nav(), &*shared),
        "requests copied the shared data"
    );
    let wall = vec![WALL; 12 * 4];
    world.apply_stamp(&[0], CellRect::at(30, 40, 12, 4), &wall);
    while !world.rebuild(Duration::from_millis(1)) {}
    assert!(!std::ptr::eq(world.nav(), &*shared));
    assert!(*shared == as_baked, "the stamp changed the sharer's data");
    assert!(
        world.nav().layers[0] != as_baked.layers[0],
        "the stamp changed nothing"
    );
}
