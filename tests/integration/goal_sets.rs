//! Goal sets (`NavWorld::request_path_to_any`) against an independent oracle: a plain
//! multi-source Dijkstra from all goals, written here. On the sample maps and on random maps
//! with walls and costs, every source's traced path must reach a goal and cost at most 1.3 ×
//! the cost to its nearest goal — the worst-ratio bound single-goal paths meet on the Moving
//! AI scenarios (`scenarios::moving_ai_scenarios_all_arrive`). On Moving AI maps the bound is
//! that test's own: traced length over the octile optimum, at most 1.3 each and 1.06 on
//! average. A one-goal set must give `request_path`'s path exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;

use crate::common::{self, Rng, bake_all, generated};
use navstudio::map::MapKind;
use navstudio::nav::grid::WALL;
use navstudio::nav::world::PathError;
use navstudio::nav::{NavWorld, TracedPath};

/// The worst traced / optimal ratio single-goal paths are held to.
const WORST_RATIO: f64 = 1.3;

/// Cost to the nearest goal from every cell, 4-neighbour moves, entering a cell costs its
/// cost (the measure the integrator minimises); `u64::MAX` where no goal is reached.
fn dijkstra_4(costs: &[u8], w: u32, h: u32, goals: &[(u32, u32)]) -> (Vec<u64>, Vec<usize>) {
    let mut dist = vec![u64::MAX; costs.len()];
    let mut owner = vec![usize::MAX; costs.len()];
    let mut heap = BinaryHeap::new();
    for (k, &(x, y)) in goals.iter().enumerate() {
        let i = (y * w + x) as usize;
        if costs[i] != WALL && dist[i] != 0 {
            dist[i] = 0;
            owner[i] = k;
            heap.push(Reverse((0_u64, i)));
        }
    }
    while let Some(Reverse((d, i))) = heap.pop() {
        if d > dist[i] {
            continue;
        }
        let (x, y) = ((i as u32 % w) as i64, (i as u32 / w) as i64);
        // Moving from the neighbour into this cell costs this cell's cost.
        let step = u64::from(costs[i]);
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                continue;
            }
            let j = (ny as u32 * w + nx as u32) as usize;
            if costs[j] != WALL && d + step < dist[j] {
                dist[j] = d + step;
                owner[j] = owner[i];
                heap.push(Reverse((d + step, j)));
            }
        }
    }
    (dist, owner)
}

/// Octile length (1 straight, √2 diagonal, no corner cutting) to the nearest goal from every
/// cell, by a multi-source Dijkstra: Moving AI's measure.
fn dijkstra_octile(costs: &[u8], w: u32, h: u32, goals: &[(u32, u32)]) -> Vec<f64> {
    let mut dist = vec![u64::MAX; costs.len()];
    let mut heap = BinaryHeap::new();
    for &(x, y) in goals {
        let i = (y * w + x) as usize;
        dist[i] = 0;
        heap.push(Reverse((0_u64, i)));
    }
    let open = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < i64::from(w)
            && y < i64::from(h)
            && costs[(y * i64::from(w) + x) as usize] != WALL
    };
    while let Some(Reverse((d, i))) = heap.pop() {
        if d > dist[i] {
            continue;
        }
        let (x, y) = ((i as u32 % w) as i64, (i as u32 / w) as i64);
        for dx in -1..=1_i64 {
            for dy in -1..=1_i64 {
                if (dx, dy) == (0, 0) || !open(x + dx, y + dy) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal && !(open(x + dx, y) && open(x, y + dy)) {
                    continue;
                }
                let j = ((y + dy) as u32 * w + (x + dx) as u32) as usize;
                let nd = d + if diagonal { 1414 } else { 1000 };
                if nd < dist[j] {
                    dist[j] = nd;
                    heap.push(Reverse((nd, j)));
                }
            }
        }
    }
    dist.into_iter()
        .map(|d| {
            if d == u64::MAX {
                f64::INFINITY
            } else {
                d as f64 / 1000.0
            }
        })
        .collect()
}

/// The traced path's cost in [`dijkstra_4`]'s measure: an orthogonal step costs the cell
/// entered, a diagonal step the cheaper side cell plus the cell entered (it never cuts a
/// wall corner, so a side cell is open), and the straight line of sight at the end, over
/// clear cells only, its Manhattan length.
fn traced_cost_4(costs: &[u8], w: u32, t: &TracedPath) -> u64 {
    let c = |(x, y): (u32, u32)| u64::from(costs[(y * w + x) as usize]);
    let mut total = 0;
    for pair in t.cells.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        total += c(b);
        if a.0 != b.0 && a.1 != b.1 {
            let sides = [(a.0, b.1), (b.0, a.1)];
            total += sides
                .iter()
                .map(|&s| c(s))
                .filter(|&s| s != u64::from(WALL))
                .min()
                .expect("a diagonal step cut a wall corner");
        }
    }
    // The goal cell may be dear: line of sight only asks for clear cells on the way.
    let last = *t.cells.last().expect("a traced path has a cell");
    let steps = u64::from(last.0.abs_diff(t.goal.0) + last.1.abs_diff(t.goal.1));
    if steps == 0 {
        total
    } else {
        total + steps - 1 + c(t.goal)
    }
}

/// Random passable cells of `costs`.
fn passable_cells(costs: &[u8], w: u32, h: u32, n: usize, rng: &mut Rng) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    while out.len() < n {
        let c = (rng.below(w), rng.below(h));
        if costs[(c.1 * w + c.0) as usize] != WALL {
            out.push(c);
        }
    }
    out
}

/// Traced / optimal cost ratios of one check: to the goal set, and of a single-goal
/// request to the oracle's nearest goal from the same source.
#[derive(Default)]
struct Ratios {
    set: Vec<f64>,
    single: Vec<f64>,
}

/// Requests a goal set for `sources` on layer `li`, traces each source and checks it against
/// the oracle: every source on a goal's island arrives at a goal, and nothing is cheaper
/// than the optimum. The goal is chosen by the portal graph's costs, which on rough ground
/// run well off the cell-exact optimum for single goals too, so the choice is held to the
/// bound single-goal routes meet (`nav_world::landmarks_keep_routes_optimal_and_expand_fewer_nodes`:
/// within 1.1 × the optimal route plus the tie bucket, here the cheapest exact single-goal
/// route over all goals). On unit-cost ground every traced path stays within
/// [`WORST_RATIO`] of the optimum, the bound single-goal paths meet; on rough ground, where
/// single-goal paths have no such bound (merged routes cross costly cells), the set's
/// traced costs are compared with single-goal requests with the same sources to the same
/// goals ([`report`]).
fn check_goal_set(
    world: &mut NavWorld,
    li: usize,
    sources: &[(u32, u32)],
    goals: &[(u32, u32)],
    what: &str,
) -> Ratios {
    let layer = &world.nav().layers[li];
    let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
    let costs = layer.cost.to_cells();
    let unit_costs = costs.iter().all(|&c| c == 1 || c == WALL);
    let (oracle, nearest) = dijkstra_4(&costs, w, h, goals);
    let Ok(id) = world.request_path_to_any(li, sources, goals) else {
        assert!(
            sources
                .iter()
                .all(|s| oracle[(s.1 * w + s.0) as usize] == u64::MAX),
            "{what}: refused although a source reaches a goal"
        );
        return Ratios::default();
    };
    let mut ratios = Ratios::default();
    for &s in sources {
        let best = oracle[(s.1 * w + s.0) as usize];
        let traced = world.trace_path(id, s);
        if best == u64::MAX {
            assert!(
                !world.path_reaches(id, s),
                "{what}: {s:?} reaches no goal by the oracle"
            );
            continue;
        }
        let t = traced.unwrap_or_else(|| panic!("{what}: {s:?} does not arrive at a goal"));
        assert!(
            goals.contains(&t.goal),
            "{what}: {s:?} ended at {:?}",
            t.goal
        );
        if best == 0 {
            continue;
        }
        let cost = traced_cost_4(&costs, w, &t);
        let ratio = cost as f64 / best as f64;
        assert!(
            ratio >= 1.0 - 1e-9,
            "{what}: {s:?} traced {cost}, cheaper than the optimum {best}"
        );
        let g = goals[nearest[(s.1 * w + s.0) as usize]];
        // Merged the same way: later sources finish on earlier routes for single goals too.
        let one = world.request_path(li, sources, t.goal).unwrap();
        let single = traced_cost_4(&costs, w, &world.trace_path(one, s).unwrap());
        world.release_path(one);
        let single_ratio = single as f64 / best as f64;
        if unit_costs {
            assert!(
                ratio <= WORST_RATIO,
                "{what}: {s:?} → {:?} traced cost {cost} vs {best} to the nearest goal {g:?}",
                t.goal
            );
        }
        // The goal choice, source by source (a merged source may finish on an earlier
        // route, so each is asked alone).
        let alone = world.request_path_to_any(li, &[s], goals).unwrap();
        let route = world.path(alone).unwrap().routes[0].clone();
        world.release_path(alone);
        if !route.nodes.is_empty() {
            let mut exact = NavWorld::from_nav(world.nav().clone());
            exact.set_heuristic_weight(1.0);
            let mut cheapest = u32::MAX;
            for &g in goals {
                if let Ok(id) = exact.request_path(li, &[s], g) {
                    cheapest = cheapest.min(exact.path(id).unwrap().routes[0].cost);
                    exact.release_path(id);
                }
            }
            assert!(
                f64::from(route.cost)
                    <= f64::from(cheapest) * 1.1 + f64::from(navstudio::nav::route::TIE_BUCKET),
                "{what}: {s:?}: the set's route costs {} but a single goal's only {cheapest}",
                route.cost
            );
        }
        ratios.set.push(ratio);
        ratios.single.push(single_ratio);
    }
    world.release_path(id);
    ratios
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Prints the ratios and holds the set's mean to the single-goal requests' mean.
fn report(what: &str, r: &Ratios) {
    let worst = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "{what}: {} sources, traced / optimal cost: goal set mean {:.3} worst {:.3}; single goal mean {:.3} worst {:.3}",
        r.set.len(),
        mean(&r.set),
        worst(&r.set),
        mean(&r.single),
        worst(&r.single)
    );
    assert!(
        mean(&r.set) <= mean(&r.single) + 0.05,
        "{what}: goal sets trace costlier paths on average than single-goal requests"
    );
}

#[test]
fn goal_sets_on_the_sample_maps_lead_every_source_to_its_nearest_goal() {
    for kind in [MapKind::Showcase, MapKind::Small] {
        let baked = bake_all(&generated(kind));
        let mut world = NavWorld::from_nav(baked.nav.clone());
        let mut rng = Rng(16);
        for li in 0..baked.nav.layers.len() {
            let layer = &baked.nav.layers[li];
            let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
            let costs = layer.cost.to_cells();
            let mut all = Ratios::default();
            for round in 0..4 {
                let goals = passable_cells(&costs, w, h, 1 + 5 * round, &mut rng);
                let sources = passable_cells(&costs, w, h, 30, &mut rng);
                let what = format!("{kind:?} {} round {round}", layer.name);
                let r = check_goal_set(&mut world, li, &sources, &goals, &what);
                all.set.extend(r.set);
                all.single.extend(r.single);
            }
            report(&format!("{kind:?} {}", layer.name), &all);
        }
    }
}

/// A random map: costs 1–6, wall bars and blocks.
fn random_map(seed: u64, w: u32, h: u32) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut costs: Vec<u8> = (0..w * h).map(|_| 1 + rng.below(6) as u8).collect();
    // Clear patches, where line of sight matters.
    for _ in 0..6 {
        let (x0, y0, s) = (rng.below(w), rng.below(h), 4 + rng.below(12));
        for y in y0..(y0 + s).min(h) {
            for x in x0..(x0 + s).min(w) {
                costs[(y * w + x) as usize] = 1;
            }
        }
    }
    for _ in 0..14 {
        let (x0, y0) = (rng.below(w), rng.below(h));
        let (bw, bh) = if rng.below(2) == 0 {
            (1 + rng.below(30), 1 + rng.below(3))
        } else {
            (1 + rng.below(3), 1 + rng.below(30))
        };
        for y in y0..(y0 + bh).min(h) {
            for x in x0..(x0 + bw).min(w) {
                costs[(y * w + x) as usize] = WALL;
            }
        }
    }
    costs
}

#[test]
fn goal_sets_on_random_maps_with_walls_and_costs_match_a_multi_source_dijkstra() {
    let (w, h) = (90, 70);
    let mut all = Ratios::default();
    for seed in 1..=8_u64 {
        let costs = random_map(seed, w, h);
        let mut world = common::world_from_cells("random", w, h, 10, &costs);
        let mut rng = Rng(seed * 31);
        for n_goals in [1, 3, 12, 40] {
            let goals = passable_cells(&costs, w, h, n_goals, &mut rng);
            let sources = passable_cells(&costs, w, h, 25, &mut rng);
            let what = format!("seed {seed}, {n_goals} goals");
            let r = check_goal_set(&mut world, 0, &sources, &goals, &what);
            all.set.extend(r.set);
            all.single.extend(r.single);
        }
    }
    report("random maps", &all);
}

fn movingai_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NAVSTUDIO_SHARED_DATA")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
            PathBuf::from,
        )
        .join("movingai");
    dir.is_dir().then_some(dir)
}

#[test]
fn goal_sets_on_moving_ai_maps_stay_within_the_scenario_bounds() {
    let Some(dir) = movingai_dir() else {
        eprintln!("note: ../shared/data/movingai is absent; Moving AI goal-set test skipped");
        return;
    };
    for map in ["arena", "den312d", "8room_000", "random512-10-0"] {
        let m = dir.join(format!("{map}.map"));
        // Baked as `scenarios::run` bakes them: the unit-cost grid type, no water.
        let mut loaded = navstudio::map::new_map_from_heightmap(&m).unwrap();
        loaded.document.movement_types = vec![navstudio::movingai::grid_movement_type()];
        loaded.document.water_level_m = -1.0;
        let baked = navstudio::bake::bake(
            &loaded.document,
            &loaded.heightmap,
            &navstudio::map::StampLibrary::default(),
            &navstudio::bake::BakeOptions::default(),
            &mut navstudio::bake::BakeContext::default(),
        )
        .unwrap();
        let layer = &baked.nav.layers[0];
        let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
        let costs = layer.cost.to_cells();
        let mut world = NavWorld::from_nav(baked.nav.clone());
        let mut rng = Rng(7);
        let mut ratios = Vec::new();
        let mut set_ratios = Vec::new();
        for n_goals in [2, 8, 32] {
            let goals = passable_cells(&costs, w, h, n_goals, &mut rng);
            let sources = passable_cells(&costs, w, h, 40, &mut rng);
            let optimum = dijkstra_octile(&costs, w, h, &goals);
            let (nearest_4, _) = dijkstra_4(&costs, w, h, &goals);
            let Ok(id) = world.request_path_to_any(0, &sources, &goals) else {
                continue;
            };
            for &s in &sources {
                let best = optimum[(s.1 * w + s.0) as usize];
                if !best.is_finite() {
                    continue;
                }
                let t = world
                    .trace_path(id, s)
                    .unwrap_or_else(|| panic!("{map}: {s:?} does not arrive at a goal"));
                assert!(goals.contains(&t.goal));
                // The goal reached is the nearest by integrated (4-neighbour) cost, which
                // may differ from the nearest by octile length: a goal 2 cells diagonally
                // away costs as much as one 4 cells straight ahead.
                let best_4 = nearest_4[(s.1 * w + s.0) as usize];
                let cost_4 = traced_cost_4(&costs, w, &t);
                assert!(
                    cost_4 as f64 <= best_4 as f64 * WORST_RATIO,
                    "{map}: {s:?} → {:?} traced cost {cost_4} vs {best_4} to the nearest goal",
                    t.goal
                );
                // Toward the goal it reached, the scenario test's bounds.
                let to_goal = dijkstra_octile(&costs, w, h, &[t.goal])[(s.1 * w + s.0) as usize];
                if best > 0.0 && to_goal > 0.0 {
                    let ratio = t.length / to_goal;
                    assert!(
                        ratio < WORST_RATIO,
                        "{map}: {s:?} → {:?} traced {:.1} vs {to_goal:.1}",
                        t.goal,
                        t.length
                    );
                    ratios.push(ratio);
                    set_ratios.push(t.length / best);
                }
            }
            world.release_path(id);
        }
        let m = mean(&ratios);
        println!(
            "{map}: {} sources, traced / optimal to the goal reached: mean {m:.3}; to the set's octile-nearest goal: mean {:.3}",
            ratios.len(),
            mean(&set_ratios)
        );
        assert!(m <= 1.06, "{map}: mean ratio {m}");
    }
}

#[test]
fn a_one_goal_set_is_request_path() {
    let baked = bake_all(&generated(MapKind::Showcase));
    let mut single = NavWorld::from_nav(baked.nav.clone());
    let mut set = NavWorld::from_nav(baked.nav.clone());
    let layer = &baked.nav.layers[0];
    let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
    let costs = layer.cost.to_cells();
    let mut rng = Rng(3);
    let mut compared = 0;
    while compared < 25 {
        let goal = passable_cells(&costs, w, h, 1, &mut rng)[0];
        let sources = passable_cells(&costs, w, h, 1 + rng.below(6) as usize, &mut rng);
        let (a, b) = (
            single.request_path(0, &sources, goal),
            set.request_path_to_any(0, &sources, &[goal]),
        );
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                assert_eq!(a.err(), b.err());
                continue;
            }
        };
        compared += 1;
        let (pa, pb) = (single.path(a).unwrap(), set.path(b).unwrap());
        assert_eq!(pa.routes, pb.routes);
        assert_eq!(pa.exits, pb.exits);
        assert_eq!(pa.route_first, pb.route_first);
        assert_eq!(pa.goals, vec![goal]);
        for &s in &sources {
            assert_eq!(single.trace_path(a, s), set.trace_path(b, s));
            for d in [(0.3, 0.5), (0.5, 0.5), (0.9, 0.1)] {
                let p = (s.0 as f32 + d.0, s.1 as f32 + d.1);
                assert_eq!(single.sample_flow(a, p), set.sample_flow(b, p));
            }
        }
        single.release_path(a);
        set.release_path(b);
    }
}

#[test]
fn goal_set_requests_refuse_bad_input_with_typed_errors() {
    let (w, h) = (40, 30);
    let mut costs = vec![1_u8; (w * h) as usize];
    // A wall column splits the map into two islands.
    for y in 0..h {
        costs[(y * w + 20) as usize] = WALL;
    }
    let mut world = common::world_from_cells("split", w, h, 10, &costs);
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[]),
        Err(PathError::NoGoal)
    );
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[(5, 5), (99, 5)]),
        Err(PathError::OffMap((99, 5)))
    );
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[(20, 3), (20, 4)]),
        Err(PathError::GoalIsWall((20, 3)))
    );
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[(30, 3)]),
        Err(PathError::Unreachable((30, 3)))
    );
    assert_eq!(
        world.request_path_to_any(9, &[(1, 1)], &[(3, 3)]),
        Err(PathError::UnknownType(9))
    );
    // A wall goal and a goal on the other island are left out; each source flows to the
    // goal on its own island.
    let id = world
        .request_path_to_any(0, &[(1, 1), (38, 28)], &[(20, 10), (10, 10), (30, 20)])
        .unwrap();
    assert_eq!(world.path(id).unwrap().goals, vec![(10, 10), (30, 20)]);
    assert_eq!(world.trace_path(id, (1, 1)).unwrap().goal, (10, 10));
    assert_eq!(world.trace_path(id, (38, 28)).unwrap().goal, (30, 20));
    assert!(world.path_reaches(id, (39, 0)));
    assert!(!world.path_reaches(id, (20, 0)));
}

/// Two goals in one sector and one beyond a wall in the next: line of sight is per goal
/// (a cell steers straight at the goal it sees), and the goal cells themselves are ends.
#[test]
fn line_of_sight_is_per_goal() {
    let (w, h) = (30, 20);
    let mut costs = vec![1_u8; (w * h) as usize];
    for y in 0..15 {
        costs[(y * w + 14) as usize] = WALL;
    }
    let mut world = common::world_from_cells("los", w, h, 10, &costs);
    let goals = [(2, 2), (8, 8), (20, 3)];
    let id = world
        .request_path_to_any(0, &[(0, 0), (12, 12), (25, 2)], &goals)
        .unwrap();
    for (cell, goal) in [((1, 1), (2, 2)), ((9, 9), (8, 8)), ((26, 3), (20, 3))] {
        assert!(world.has_line_of_sight(id, cell), "{cell:?}");
        let d = world
            .sample_flow(id, (cell.0 as f32 + 0.5, cell.1 as f32 + 0.5))
            .unwrap();
        let to = (goal.0 as f32 - cell.0 as f32, goal.1 as f32 - cell.1 as f32);
        let n = to.0.hypot(to.1);
        assert!(
            (d.0 - to.0 / n).abs() < 1e-4 && (d.1 - to.1 / n).abs() < 1e-4,
            "{cell:?} steers {d:?}, not at {goal:?}"
        );
        assert_eq!(world.trace_path(id, cell).unwrap().goal, goal);
    }
    for g in goals {
        let t = world.trace_path(id, g).unwrap();
        assert_eq!((t.goal, t.length), (g, 0.0));
    }
}

/// A scenario order naming two goal points: each agent walks to the nearer one, and a
/// scenario file written before goal sets (no `more_goals_world`) still loads.
#[test]
fn a_scenario_order_with_a_goal_set_sends_each_agent_to_its_nearest_goal() {
    use navstudio::crowd::{Scenario, Simulation, WorldNavigator, default_archetypes};
    let (w, h) = (120_u32, 40_u32);
    let mut costs = vec![1_u8; (w * h) as usize];
    for x in 0..w {
        costs[x as usize] = WALL;
        costs[((h - 1) * w + x) as usize] = WALL;
    }
    for y in 0..h {
        costs[(y * w) as usize] = WALL;
        costs[(y * w + w - 1) as usize] = WALL;
    }
    let world = common::world_from_cells("infantry", w, h, 10, &costs);
    let mut nav = WorldNavigator::new(world, vec![0.0]);
    let text = r#"(
        seed: 5,
        spawns: [(archetype: "infantry", area: Rect(min_world: (x: 10.0, y: 12.0),
            max_world: (x: 110.0, y: 28.0)), count: 40, group: 1)],
        orders: [(group: 1, goal_world: (x: 4.5, y: 20.5),
            more_goals_world: [(x: 115.5, y: 20.5)], at_step: 0)],
    )"#;
    let scenario = Scenario::from_ron_str(text, std::path::Path::new("sets.ron")).unwrap();
    let mut archetypes = default_archetypes();
    for a in &mut archetypes {
        a.movement_type = "infantry".into();
    }
    let mut sim = Simulation::from_scenario(&scenario, &archetypes, &nav).unwrap();
    let start: Vec<f32> = sim.agents().pos_world.iter().map(|p| p.x).collect();
    let count = start.len() as u32;
    while sim.metrics().arrived < count && sim.step_index() < 60 * 60 {
        sim.step(&mut nav);
    }
    assert_eq!(sim.metrics().arrived, count, "{:?}", sim.metrics());
    println!("{count} agents arrived after {} steps", sim.step_index());
    for (i, &x0) in start.iter().enumerate() {
        let x = sim.agents().pos_world[i].x;
        // The agents between x 56 and 64 may take either goal (the group's lanes).
        if !(56.0..=64.0).contains(&x0) {
            assert_eq!(
                x < 60.0,
                x0 < 60.0,
                "agent {i} from x {x0} arrived at x {x}"
            );
        }
    }
    // Written before goal sets: no `more_goals_world`.
    let old =
        r#"(seed: 1, spawns: [], orders: [(group: 1, goal_world: (x: 4.5, y: 20.5), at_step: 0)])"#;
    let old = Scenario::from_ron_str(old, std::path::Path::new("old.ron")).unwrap();
    assert!(old.orders[0].more_goals_world.is_empty());
    assert!(!old.to_ron_string().contains("more_goals_world"));
}
