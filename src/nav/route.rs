//! A* and merging A* over the portal graph (SupCom2's path request, step 1).
//!
//! The search runs over the layer's portal nodes plus two virtual ends: the source (joined to
//! the nodes of its sector by the costs of an integration of that sector from the source cell)
//! and the goal (joined from the nodes of the goal sector by an integration from the goal).
//! **Merging A***: a later source of the same request may also finish at any node already on
//! an earlier route, paying that node's known remaining cost, so routes join instead of
//! running side by side and share their flow tiles.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::landmarks::LandmarkBounds;
use super::layer::NavLayer;

/// Reusable search memory; a generation counter replaces clearing per search.
#[derive(Debug, Default)]
pub struct SearchScratch {
    generation: u32,
    /// One record per portal node, so a relaxation touches one cache line.
    nodes: Vec<NodeState>,
    /// `f >> bucket_shift << 96 | off_line << 64 | f << 32 | node`: one integer compare per sift
    /// step.
    heap: BinaryHeap<Reverse<u128>>,
    /// Nodes expanded over all searches (a measure of the heuristic's strength).
    pub expanded: u64,
}

/// Search state of one portal node; fields are valid while `seen` is the current generation.
#[derive(Clone, Copy, Debug, Default)]
struct NodeState {
    seen: u32,
    /// Generation in which the node was expanded.
    closed: u32,
    g: u32,
    /// Heuristic, computed once per search.
    h: u32,
    parent: u32,
}

/// Remaining costs of a request's finishing nodes, dense by node id: the search asks for
/// every node it touches, and a hash lookup per relaxation was a tenth of a request.
#[derive(Debug, Default)]
pub struct FinishCosts {
    cost: Vec<u32>,
    set: Vec<u32>,
}

impl FinishCosts {
    /// Empties the set, sized for `nodes` portal nodes.
    pub fn reset(&mut self, nodes: usize) {
        if self.cost.len() == nodes {
            for &n in &self.set {
                self.cost[n as usize] = u32::MAX;
            }
        } else {
            self.cost = vec![u32::MAX; nodes];
        }
        self.set.clear();
    }

    /// The remaining cost of `node`, if it is a finishing node.
    #[must_use]
    pub fn get(&self, node: u32) -> Option<u32> {
        self.cost
            .get(node as usize)
            .copied()
            .filter(|&c| c != u32::MAX)
    }

    /// Makes `node` a finishing node with remaining cost `rest` unless it already is one;
    /// returns its remaining cost.
    pub fn insert_absent(&mut self, node: u32, rest: u32) -> u32 {
        let Some(slot) = self.cost.get_mut(node as usize) else {
            return rest;
        };
        if *slot == u32::MAX {
            *slot = rest.min(u32::MAX - 1);
            self.set.push(node);
        }
        *slot
    }
}

/// Parent marker of nodes reached straight from the source.
const FROM_SOURCE: u32 = u32::MAX;

/// One search's ends.
pub struct SearchEnds<'a> {
    /// `(node, cost from the source cell)` for the nodes of the source sector.
    pub starts: &'a [(u32, u32)],
    /// Remaining cost to the goal of nodes that may end the search: the goal sector's nodes
    /// (cost from the node to the goal cell) and, when merging, nodes on earlier routes.
    pub finish_cost: &'a dyn Fn(u32) -> Option<u32>,
    /// Goal cell, for the octile heuristic.
    pub goal: (u32, u32),
    /// Source cell: among keys of nearly equal `f` the search expands first the nodes whose
    /// parent lies nearest the straight line from source to goal, so of the many equally
    /// cheap staircase routes that 4-neighbour costs allow it keeps the straightest.
    pub source: (u32, u32),
    /// Heuristic inflation: 1.0 is plain A* (optimal over the graph); above 1 expands far
    /// fewer nodes for slightly longer routes (weighted A*).
    pub heuristic_weight: f32,
    /// ALT lower bounds for this search's finishing nodes, when the layer has landmarks; the
    /// heuristic is the larger of them and the octile distance.
    pub landmarks: Option<&'a LandmarkBounds<'a>>,
}

/// Result of a search: the node sequence from the first node after the source to the node the
/// search finished at, and the total cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// Portal nodes in travel order.
    pub nodes: Vec<u32>,
    /// Cost from the source cell to the goal cell along the route.
    pub cost: u32,
}

/// Width of the `f` ranges within which a weighted search prefers nodes near the straight
/// line (see [`search`]); a power of two.
pub const TIE_BUCKET: u32 = 4;

/// Distance of a cell from the line through `a` and `b`, in cells within a factor of two
/// (the cross product scaled by a power of two; only its order matters).
fn off_line(a: (u32, u32), b: (u32, u32)) -> impl Fn((u32, u32)) -> u32 {
    let (dx, dy) = (
        i64::from(b.0) - i64::from(a.0),
        i64::from(b.1) - i64::from(a.1),
    );
    let shift = dx.abs().max(dy.abs()).max(1).ilog2();
    move |p: (u32, u32)| {
        let (px, py) = (
            i64::from(p.0) - i64::from(a.0),
            i64::from(p.1) - i64::from(a.1),
        );
        u32::try_from((px * dy - py * dx).unsigned_abs() >> shift).unwrap_or(u32::MAX)
    }
}

/// Octile distance between cells at the cheapest cell cost (1), rounded down. Edge weights
/// come from 4-neighbour integration, which costs at least the Manhattan distance, so octile
/// (never more than Manhattan) stays admissible even though a window is entered at any of
/// its cells rather than at its centre.
#[must_use]
pub fn octile(a: (u32, u32), b: (u32, u32)) -> u32 {
    let dx = a.0.abs_diff(b.0);
    let dy = a.1.abs_diff(b.1);
    dx.max(dy) + (dx.min(dy) * 414) / 1000
}

/// A* from the source to the cheapest finishing node. `None` when no node finishes.
pub fn search(
    layer: &NavLayer,
    ends: &SearchEnds<'_>,
    scratch: &mut SearchScratch,
) -> Option<Route> {
    let n = layer.nodes.len();
    if scratch.nodes.len() != n {
        scratch.nodes = vec![NodeState::default(); n];
        scratch.generation = 0;
    }
    scratch.generation = scratch.generation.wrapping_add(1);
    if scratch.generation == 0 {
        scratch.nodes.fill(NodeState::default());
        scratch.generation = 1;
    }
    let generation = scratch.generation;
    scratch.heap.clear();
    let weight = ends.heuristic_weight.max(1.0);
    // With landmarks, their bound alone: it is exact over the graph (admissible and
    // consistent), while the octile distance between window centres may overestimate by up
    // to half a window per hop; octile stays for nodes no landmark reaches.
    let h = |node: u32| {
        let bound = ends
            .landmarks
            .and_then(|b| b.lower_bound(node))
            .unwrap_or_else(|| octile(layer.nodes[node as usize].center, ends.goal));
        (bound as f32 * weight) as u32
    };
    let line = off_line(ends.source, ends.goal);
    let line = |node: u32| line(layer.nodes[node as usize].center);
    // Weighted A* does not reopen expanded nodes: its routes stay within the weight of the
    // optimum without, and reopening multiplies expansions where the bound varies a lot.
    let reopen = weight <= 1.0;
    // Equal-cost routes abound under 4-neighbour costs (every staircase between two points
    // costs the same), and the search keeps whichever it expands first. Among keys in the
    // same bucket of `TIE_BUCKET` it expands first the nodes whose parent lies nearest the
    // source–goal line, so the route is the one a unit walking straight would take (Moving
    // AI random512-10-0: mean traced / optimal 1.069 by node id, 1.063 with exact-f ties,
    // 1.055 with buckets of 4). A route can then cost up to `TIE_BUCKET - 1` more than the
    // weighted bound, so exact searches (weight 1) keep buckets of 1.
    let bucket_shift = if reopen { 0 } else { TIE_BUCKET.ilog2() };
    let key = |f: u32, off_line: u32, node: u32| {
        (u128::from(f >> bucket_shift) << 96)
            | (u128::from(off_line) << 64)
            | (u128::from(f) << 32)
            | u128::from(node)
    };
    let states = &mut scratch.nodes;
    let heap = &mut scratch.heap;
    for &(node, cost) in ends.starts {
        let s = &mut states[node as usize];
        if s.seen != generation {
            s.h = h(node);
        } else if cost >= s.g {
            continue;
        }
        s.seen = generation;
        s.g = cost;
        s.parent = FROM_SOURCE;
        heap.push(Reverse(key(cost.saturating_add(s.h), line(node), node)));
    }
    // Best finish found so far: (total cost, node).
    let mut best: Option<(u32, u32)> = None;
    while let Some(Reverse(entry)) = heap.pop() {
        let (f, node) = ((entry >> 32) as u32, entry as u32);
        if best.is_some_and(|(b, _)| f >= b) {
            break;
        }
        let s = &mut states[node as usize];
        let g = s.g;
        if f > g.saturating_add(s.h) || (!reopen && s.closed == generation) {
            continue; // stale heap entry
        }
        s.closed = generation;
        scratch.expanded += 1;
        if let Some(rest) = (ends.finish_cost)(node) {
            let total = g.saturating_add(rest);
            if best.is_none_or(|(b, _)| total < b) {
                best = Some((total, node));
            }
        }
        // A node's tie-break is its parent's distance from the line: one node record read
        // per expansion rather than per relaxed edge.
        let parent_line = line(node);
        for (next, w) in layer.graph.edges(node) {
            let t = &mut states[next as usize];
            let ng = g.saturating_add(w);
            if t.seen != generation {
                t.h = h(next);
                t.closed = 0;
            } else if ng >= t.g || (!reopen && t.closed == generation) {
                continue;
            }
            t.seen = generation;
            t.g = ng;
            t.parent = node;
            heap.push(Reverse(key(ng.saturating_add(t.h), parent_line, next)));
        }
    }
    let (cost, last) = best?;
    let mut nodes = vec![last];
    let mut at = last;
    while states[at as usize].parent != FROM_SOURCE {
        at = states[at as usize].parent;
        nodes.push(at);
    }
    nodes.reverse();
    Some(Route { nodes, cost })
}

/// `g` of a node in the last search (cost from the source), for callers building remaining
/// costs along a route.
#[must_use]
pub fn cost_from_source(scratch: &SearchScratch, node: u32) -> u32 {
    scratch.nodes.get(node as usize).map_or(0, |s| s.g)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::nav::landmarks::Landmarks;
    use crate::nav::landmarks::tests::random_layer;

    /// Virtual source `n` and sink `n + 1` around the portal graph of `n` nodes.
    fn oracle(layer: &NavLayer, starts: &[(u32, u32)], finishes: &[(u32, u32)]) -> Option<u32> {
        let n = layer.nodes.len() as u32;
        let (source, sink) = (n, n + 1);
        pathfinding::directed::dijkstra::dijkstra(
            &source,
            |&v| -> Vec<(u32, u32)> {
                if v == source {
                    starts.to_vec()
                } else if v == sink {
                    Vec::new()
                } else {
                    let mut out: Vec<(u32, u32)> = layer.graph.edges(v).collect();
                    for &(_, rest) in finishes.iter().filter(|&&(f, _)| f == v) {
                        out.push((sink, rest));
                    }
                    out
                }
            },
            |&v| v == sink,
        )
        .map(|(_, cost)| cost)
    }

    #[test]
    fn exact_search_finds_the_cheapest_route_and_weighted_stays_within_its_weight() {
        for seed in 1..=6 {
            let layer = random_layer(seed);
            let marks = Landmarks::build(&layer).unwrap();
            let n = layer.nodes.len() as u64;
            let mut state = seed;
            let mut next = move |m: u64| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(7);
                (state >> 33) % m
            };
            let mut scratch = SearchScratch::default();
            for _ in 0..40 {
                let starts: Vec<(u32, u32)> = (0..1 + next(3))
                    .map(|_| (next(n) as u32, next(30) as u32))
                    .collect();
                let finishes: Vec<(u32, u32)> = (0..1 + next(3))
                    .map(|_| (next(n) as u32, next(30) as u32))
                    .collect();
                let truth = oracle(&layer, &starts, &finishes);
                let goal = layer.nodes[finishes[0].0 as usize].center;
                let finish = |v: u32| {
                    finishes
                        .iter()
                        .filter(|&&(f, _)| f == v)
                        .map(|&(_, r)| r)
                        .min()
                };
                let mut bounds = marks.bounds();
                for &(f, r) in &finishes {
                    bounds.add_finish(f, r);
                }
                for (weight, landmarks) in [(1.0, None), (1.0, Some(&bounds)), (1.1, Some(&bounds))]
                {
                    let ends = SearchEnds {
                        starts: &starts,
                        finish_cost: &finish,
                        goal,
                        source: layer.nodes[starts[0].0 as usize].center,
                        heuristic_weight: weight,
                        landmarks,
                    };
                    let found = search(&layer, &ends, &mut scratch).map(|r| r.cost);
                    match (truth, found) {
                        (None, None) => {}
                        (Some(t), Some(f)) if landmarks.is_none() => {
                            // Random finishes ignore the goal cell, so octile guides badly
                            // here; the route must still be a real one.
                            assert!(f >= t, "seed {seed}: cheaper than possible");
                        }
                        (Some(t), Some(f)) if weight == 1.0 => {
                            assert_eq!(f, t, "seed {seed}: exact search cost");
                        }
                        (Some(t), Some(f)) => {
                            assert!(f >= t, "seed {seed}: cheaper than possible");
                            assert!(
                                f64::from(f)
                                    <= f64::from(t) * f64::from(weight) + f64::from(TIE_BUCKET),
                                "seed {seed}: {f} vs optimum {t} at weight {weight}"
                            );
                        }
                        other => panic!("seed {seed}: reachability differs: {other:?}"),
                    }
                }
            }
        }
    }
}
