#![allow(clippy::unwrap_used)]

use super::*;
use crate::landmarks::tests::random_layer_sized;
use crate::route::tests::oracle;
use crate::route::{FinishCosts, SearchEnds, SearchScratch, search, search_until};

/// Each step of `steps` (`(search id, cost from the source)`) is an edge of `graph` costing
/// the difference of the two costs.
fn assert_walks_real_edges(graph: &SearchGraph, steps: &[(u32, u32)], what: &str) {
    for pair in steps.windows(2) {
        let ((a, ga), (b, gb)) = (pair[0], pair[1]);
        let w = graph
            .edges(a)
            .filter(|&(t, _)| t == b)
            .map(|(_, w)| w)
            .min();
        assert_eq!(w, Some(gb - ga), "{what}: step {a} → {b} is no edge");
    }
}

/// A 768² map in sectors of 32 whose borders are walled every 4th cell: 8 windows a side,
/// so every cluster holds over [`eliminate::MAX_NODES`] nodes and its shortcuts come from a
/// Dijkstra per border node rather than elimination.
fn comb_layer() -> NavLayer {
    let spec = crate::GridSpec {
        width: 768,
        height: 768,
        sector_size: 32,
    };
    let on_border = |v: u32| v.is_multiple_of(32) || v % 32 == 31;
    let cells: Vec<u8> = (0..768 * 768_u32)
        .map(|i| {
            let (x, y) = (i % 768, i / 768);
            if (on_border(x) && y.is_multiple_of(4)) || (on_border(y) && x.is_multiple_of(4)) {
                crate::grid::WALL
            } else {
                1 + ((x * 7 + y * 13) % 9) as u8
            }
        })
        .collect();
    let cost = crate::CostField::from_cells(spec, &cells);
    crate::build_layer(
        "comb",
        cost,
        &|_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
    .unwrap()
}

/// A 160² map in sectors of 5 (32 × 32 sectors, 4 × 4 clusters), and the comb map whose
/// clusters are too big for elimination: random requests from one sector to a few random
/// nodes give the flat optimum exactly at weight 1, with and without the border landmarks,
/// and the refined route is a walk over the flat graph's own edges that costs what the
/// search says.
#[test]
fn hierarchical_search_keeps_the_flat_optimum_and_refines_to_real_edges() {
    // Seeds 6 and 7: 14 × 14 clusters, so two levels above them.
    let layers = (1..=4)
        .map(|seed| (seed, random_layer_sized(seed, 160, 5)))
        .chain([(5, comb_layer())])
        .chain((6..=7).map(|seed| (seed, random_layer_sized(seed, 320, 3))));
    for (seed, layer) in layers {
        let graph = SearchGraph::new(&layer);
        let hierarchy = Hierarchy::build(&graph);
        if seed == 5 {
            let smallest = hierarchy.clusters.iter().map(|&(_, lo, hi)| hi - lo).min();
            assert!(smallest.unwrap() as usize > eliminate::MAX_NODES);
        }
        assert!(
            hierarchy.cluster_count() >= 9,
            "seed {seed}: too few clusters"
        );
        assert!(hierarchy.border_count() < graph.len() / 2);
        let marks = hierarchy.landmarks(&layer, &graph).unwrap();
        let levels = Levels::build(&hierarchy);
        if seed >= 6 {
            assert_eq!(
                levels.count(),
                2,
                "seed {seed}: levels above 14 × 14 clusters"
            );
        }
        let mut state = seed;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(7);
            (state >> 33) % m
        };
        let n = layer.nodes.len() as u64;
        let mut scratch = SearchScratch::default();
        let mut local = LocalSearch::default();
        let mut far = 0;
        let mut stepped_calls = 0;
        for _ in 0..60 {
            // Starts: the nodes of one sector, at random costs.
            let sector = layer.nodes[next(n) as usize].sector;
            let starts: Vec<(u32, u32)> = layer
                .graph
                .nodes_of_sector(sector)
                .iter()
                .map(|&v| (v, next(20) as u32))
                .collect();
            let finishes: Vec<(u32, u32)> = (0..1 + next(3))
                .map(|_| (next(n) as u32, next(30) as u32))
                .collect();
            let Some(truth) = oracle(&layer, &starts, &finishes) else {
                continue;
            };
            let mut finish = FinishCosts::default();
            finish.reset(graph.len());
            let mut by_cost = finishes.clone();
            by_cost.sort_by_key(|&(_, r)| r);
            let mut open = vec![false; hierarchy.key_space()];
            let mut bounds = marks.bounds();
            for &(f, r) in &by_cost {
                let id = graph.search_id(f);
                let r = finish.insert_absent(id, r);
                open[graph.cluster_key(id) as usize] = true;
                marks.add_finish(&mut bounds, &hierarchy, &graph, id, r, true, &mut local);
            }
            let search_starts: Vec<(u32, u32)> = starts
                .iter()
                .map(|&(v, c)| (graph.search_id(v), c))
                .collect();
            let source_key = graph.cluster_key(search_starts[0].0);
            open[source_key as usize] = true;
            if finishes
                .iter()
                .all(|&(f, _)| graph.cluster_key(graph.search_id(f)) != source_key)
            {
                far += 1;
            }
            let goal = layer.nodes[finishes[0].0 as usize].center();
            for (with_bounds, with_levels) in [(false, false), (true, false), (true, true)] {
                let query = ClusterQuery {
                    hierarchy: &hierarchy,
                    open: &open,
                    bounds: with_bounds.then_some(&bounds),
                    levels: with_levels.then_some(&levels),
                    landmarks: with_levels.then_some(&marks),
                };
                let ends = SearchEnds {
                    starts: &search_starts,
                    finishes: &finish,
                    goal,
                    goal_box: (goal, goal),
                    source: layer.nodes[starts[0].0 as usize].center(),
                    heuristic_weight: 1.0,
                    landmarks: None,
                    clusters: Some(&query),
                    eager_ring: None,
                };
                let route = search(&graph, &ends, &mut scratch).unwrap();
                // Stepped a few dozen expansions at a time, the search finds the same.
                if with_levels {
                    let whole = crate::route::last_route(&scratch).to_vec();
                    let mut stepped = SearchScratch::default();
                    let mut calls = 0;
                    let again = loop {
                        calls += 1;
                        let past = std::time::Instant::now();
                        if let Some(found) = search_until(&graph, &ends, &mut stepped, Some(past)) {
                            break found.unwrap();
                        }
                    };
                    assert_eq!(again, route, "seed {seed}: stepped search ({calls} calls)");
                    assert_eq!(crate::route::last_route(&stepped), whole.as_slice());
                    stepped_calls += calls;
                }
                if with_bounds {
                    assert_eq!(
                        route.cost, truth,
                        "seed {seed}: cost with bounds (levels: {with_levels})"
                    );
                } else {
                    // The octile heuristic between window centres may overestimate a little
                    // (see `route::search`); the route is still a real one.
                    assert!(route.cost >= truth, "seed {seed}: cheaper than possible");
                }
                // The refined route walks real edges, costing what the steps say.
                let steps = crate::route::last_route(&scratch);
                assert_walks_real_edges(&graph, steps, &format!("seed {seed}"));
                let start = starts
                    .iter()
                    .find(|&&(v, _)| graph.search_id(v) == steps[0].0)
                    .unwrap();
                assert_eq!(steps[0].1, start.1, "seed {seed}: first step's cost");
            }
        }
        assert!(
            far >= 20,
            "seed {seed}: only {far} requests left their cluster"
        );
        assert!(
            stepped_calls > 120,
            "seed {seed}: searches stopped too rarely"
        );
    }
}

/// A rebuild after costs change in one sector recomputes the clusters around it and moves
/// the rest: equal to a fresh build. Claiming no cluster changed keeps the old shortcuts,
/// which then differ — so the rebuild does reuse them.
#[test]
fn a_rebuild_recomputes_the_clusters_around_changed_sectors_and_moves_the_rest() {
    use crate::search_graph::sector_cluster_key;
    let mut layer = random_layer_sized(3, 160, 5);
    let old = Hierarchy::build(&SearchGraph::new(&layer));
    // Sectors (8..=10, 9) of 32 × 32 made clear (cost 1), their walls kept (so their
    // windows, and their clusters' nodes, stay where they were): cheaper ways through.
    let sectors: Vec<u32> = (8..=10).map(|x| 9 * 32 + x).collect();
    for &sector in &sectors {
        let (x0, y0, _, _) = layer.cost.spec.sector_rect(sector);
        let tile: Vec<u8> = (0..25)
            .map(|i| {
                let was = layer.cost.get(x0 + i % 5, y0 + i / 5);
                if was == crate::grid::WALL { was } else { 1 }
            })
            .collect();
        layer.cost.set_sector(sector, &tile);
    }
    crate::layer::rebuild_sectors(&mut layer, &sectors);
    let graph = SearchGraph::new(&layer);
    let fresh = Hierarchy::build(&graph);
    let mut dirty = std::collections::BTreeSet::new();
    for y in 8..=10 {
        for x in 7..=11 {
            dirty.insert(sector_cluster_key(x, y));
        }
    }
    let rebuilt = Hierarchy::rebuild(&old, &graph, &|k| dirty.contains(&k));
    assert!(
        rebuilt == fresh,
        "the rebuilt hierarchy differs from a fresh build"
    );
    assert!(old != fresh, "the change moved no shortcut");
    let stale = Hierarchy::rebuild(&old, &graph, &|_| false);
    assert!(stale != fresh, "nothing was reused");
}

/// The levels of a rebuilt hierarchy recompute the cells around changed sectors and move
/// the rest: equal to a fresh build. Claiming no cluster changed keeps old shortcuts,
/// which then differ — so the rebuild does reuse them.
#[test]
fn a_rebuild_recomputes_the_levels_around_changed_sectors_and_moves_the_rest() {
    use crate::search_graph::sector_cluster_key;
    // 107 × 107 sectors: 14 × 14 clusters, two levels.
    let mut layer = random_layer_sized(6, 320, 3);
    let sx = layer.cost.spec.sectors_x();
    let mut old = Hierarchy::build(&SearchGraph::new(&layer));
    old.build_levels();
    // Sectors (40..=43, 40) made dearer, walls kept, so the windows stay as they were.
    let mut changed = Vec::new();
    for x in 40..=43 {
        let sector = 40 * sx + x;
        let (x0, y0, _, _) = layer.cost.spec.sector_rect(sector);
        let tile: Vec<u8> = (0..9)
            .map(|i| {
                let c = layer.cost.get(x0 + i % 3, y0 + i / 3);
                if c == crate::grid::WALL { c } else { 9 }
            })
            .collect();
        layer.cost.set_sector(sector, &tile);
        changed.push(sector);
    }
    crate::layer::rebuild_sectors(&mut layer, &changed);
    let graph = SearchGraph::new(&layer);
    let mut fresh = Hierarchy::build(&graph);
    fresh.build_levels();
    assert_eq!(fresh.levels().map(Levels::count), Some(2));
    let mut dirty = std::collections::BTreeSet::new();
    for y in 39..=41 {
        for x in 39..=44 {
            dirty.insert(sector_cluster_key(x, y));
        }
    }
    let rebuilt = Hierarchy::rebuild(&old, &graph, &|k| dirty.contains(&k));
    assert!(rebuilt.levels() == fresh.levels(), "rebuilt levels differ");
    let stale = Hierarchy::rebuild(&old, &graph, &|_| false);
    assert!(stale.levels() != fresh.levels(), "no level was reused");
}

/// Refining a long chain of shortcuts and edges between clusters gives real edges of the
/// flat graph, each costing what its step says, ending at the chain's cost.
#[test]
fn refining_a_chain_of_shortcuts_walks_real_edges() {
    let layer = random_layer_sized(2, 160, 5);
    let graph = SearchGraph::new(&layer);
    let hierarchy = Hierarchy::build(&graph);
    let mut chains = 0;
    for start in (0..hierarchy.border_count() as u32).step_by(7) {
        // Alternate a shortcut inside the cluster and an edge out of it, as a route over
        // closed clusters does.
        let mut at = hierarchy.border_node(start);
        let mut coarse = vec![(at, 0u32)];
        for hop in 0..12 {
            let key = graph.cluster_key(at);
            let inside = hop % 2 == 0;
            let b = hierarchy.border_index(at).unwrap();
            let next = hierarchy.border_edges(b).find(|&(t, w)| {
                let t = hierarchy.border_node(t);
                (graph.cluster_key(t) == key) == inside
                    && w > 0
                    && coarse.iter().all(|&(v, _)| v != t)
            });
            let Some((t, w)) = next else { break };
            let t = hierarchy.border_node(t);
            coarse.push((t, coarse.last().unwrap().1 + w));
            at = t;
        }
        if coarse.len() < 4 {
            continue;
        }
        chains += 1;
        let mut all = coarse.clone();
        hierarchy.refine(&graph, &mut all, &|_| false, &mut LocalSearch::default());
        assert_eq!(all.last(), coarse.last(), "the chain's end and cost");
        assert!(all.len() > coarse.len(), "no shortcut was refined");
        assert_walks_real_edges(&graph, &all, &format!("chain from border node {start}"));
    }
    assert!(chains >= 10, "only {chains} chains");
}

/// The marks inside each cluster bound the cost from any node to any border node of the
/// cluster from below (checked against a Dijkstra from the node inside the cluster), and
/// consistently (across every edge inside the cluster, by at most the edge's weight), which
/// keeps the A* that refines a shortcut exact.
#[test]
fn cluster_marks_bound_the_cost_inside_the_cluster_consistently() {
    for seed in 1..=3 {
        let layer = random_layer_sized(seed, 160, 5);
        let graph = SearchGraph::new(&layer);
        let hierarchy = Hierarchy::build(&graph);
        let mut local = LocalSearch::default();
        let mut guided = 0;
        for (c, &(key, lo, hi)) in hierarchy.clusters.iter().enumerate() {
            let marks = hierarchy
                .marks
                .get(c, &hierarchy, &graph, &mut local)
                .unwrap();
            for b in hierarchy.cluster_borders(key) {
                let b = hierarchy.border_node(b);
                for v in lo..hi {
                    local.run(&graph, (lo, hi), v, None);
                    let bound = marks.bound(lo, v, b);
                    match local.cost(lo, b) {
                        Some(truth) => assert!(
                            bound <= truth,
                            "seed {seed}: bound {bound} above the cost {truth} from {v} to {b}"
                        ),
                        None => continue,
                    }
                    guided += usize::from(bound > 0);
                    for (t, w) in graph.edges(v) {
                        if (lo..hi).contains(&t) {
                            assert!(
                                bound <= w + marks.bound(lo, t, b),
                                "seed {seed}: bound drops by more than edge {v} → {t} costs"
                            );
                        }
                    }
                }
            }
        }
        assert!(
            guided > 1000,
            "seed {seed}: the marks bound almost nothing ({guided})"
        );
    }
}

/// A marking run that stops once every border node of the cluster is final gives them the
/// costs of a run over the whole cluster, and settles fewer nodes in all.
#[test]
fn marking_runs_stop_once_the_border_nodes_are_final() {
    let layer = random_layer_sized(5, 160, 5);
    let graph = SearchGraph::new(&layer);
    let hierarchy = Hierarchy::build(&graph);
    let (mut early, mut whole) = (LocalSearch::default(), LocalSearch::default());
    let mut left_unsettled = 0;
    for &(key, lo, hi) in &hierarchy.clusters {
        let borders: Vec<u32> = hierarchy
            .cluster_borders(key)
            .map(|b| hierarchy.border_node(b))
            .collect();
        let is_border = |v: u32| borders.contains(&v);
        for &from in &borders {
            early.run_marking(&graph, (lo, hi), from, &is_border, borders.len());
            whole.run_marking(&graph, (lo, hi), from, &is_border, usize::MAX);
            for &b in &borders {
                let i = (b - lo) as usize;
                assert_eq!(early.dist[i], whole.dist[i], "cost from {from} to {b}");
            }
            left_unsettled += (lo..hi)
                .filter(|&v| early.cost(lo, v) != whole.cost(lo, v))
                .count();
        }
    }
    assert!(left_unsettled > 0, "no run stopped early");
}

/// Eliminating a cluster's inner nodes leaves the costs between its border nodes that a
/// Dijkstra from each of them finds, on maps with walls and islands in sectors of 5 and 8,
/// and every shortcut the build keeps has such a cost.
#[test]
fn elimination_gives_the_border_costs_of_a_dijkstra_from_each_border_node() {
    let mut compared = 0;
    for (seed, sector) in [(1, 5), (2, 5), (3, 8), (7, 8)] {
        let layer = random_layer_sized(seed, 160, sector);
        let graph = SearchGraph::new(&layer);
        let hierarchy = Hierarchy::build(&graph);
        let (mut eliminator, mut local) = (Eliminator::default(), LocalSearch::default());
        let (mut by_elimination, mut by_search) = (Vec::new(), Vec::new());
        for &(key, lo, hi) in &hierarchy.clusters {
            let border: Vec<u32> = (0..hi - lo).filter(|&v| graph.is_border(lo + v)).collect();
            eliminator.border_costs(&graph, (lo, hi), &border, &mut by_elimination);
            border_costs_by_search(&graph, (lo, hi), &border, &mut local, &mut by_search);
            assert_eq!(by_elimination, by_search, "seed {seed}: cluster {key}");
            let b = border.len();
            for (i, bi) in hierarchy.cluster_borders(key).enumerate() {
                for (t, w) in hierarchy.border_edges(bi) {
                    let to = hierarchy.border_node(t);
                    if let Some(j) = border.iter().position(|&v| lo + v == to) {
                        assert_eq!(by_search[i * b + j], w, "seed {seed}: shortcut cost");
                    }
                }
            }
            compared += b * b;
        }
    }
    assert!(compared > 10_000, "only {compared} pairs compared");
}
