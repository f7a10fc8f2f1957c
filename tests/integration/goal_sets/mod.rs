//! Goal sets (`NavWorld::request_path_to_any`) against an independent oracle: a plain
//! multi-source Dijkstra from all goals, written here. On the sample maps and on random maps
//! with walls and costs, every source's traced path must reach a goal and cost at most 1.3 ×
//! the cost to its nearest goal — the worst-ratio bound single-goal paths meet on the Moving
//! AI scenarios (`scenarios::moving_ai_scenarios_all_arrive`). On Moving AI maps the bound is
//! that test's own: traced length over the octile optimum, at most 1.3 each and 1.06 on
//! average. A one-goal set must give `request_path`'s path exactly.
//!
//! This module holds the oracles and the goal-set check; the tests are grouped in the
//! submodules by the maps they run on and by the requests they make.

mod maps;
mod requests;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
                    <= f64::from(cheapest) * 1.1 + f64::from(navstudio::nav::TIE_BUCKET),
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
