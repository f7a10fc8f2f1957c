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

use super::layer::NavLayer;

/// Reusable search memory; a generation counter replaces clearing per search.
#[derive(Debug, Default)]
pub struct SearchScratch {
    generation: u32,
    seen: Vec<u32>,
    g: Vec<u32>,
    parent: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
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
    /// Heuristic inflation: 1.0 is plain A* (optimal over the graph); above 1 expands far
    /// fewer nodes for slightly longer routes (weighted A*).
    pub heuristic_weight: f32,
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
    if scratch.seen.len() != n {
        scratch.seen = vec![0; n];
        scratch.g = vec![0; n];
        scratch.parent = vec![0; n];
        scratch.generation = 0;
    }
    scratch.generation = scratch.generation.wrapping_add(1);
    if scratch.generation == 0 {
        scratch.seen.fill(0);
        scratch.generation = 1;
    }
    let generation = scratch.generation;
    scratch.heap.clear();
    let weight = ends.heuristic_weight.max(1.0);
    let h =
        |node: u32| (octile(layer.nodes[node as usize].center, ends.goal) as f32 * weight) as u32;
    for &(node, cost) in ends.starts {
        let i = node as usize;
        if scratch.seen[i] != generation || cost < scratch.g[i] {
            scratch.seen[i] = generation;
            scratch.g[i] = cost;
            scratch.parent[i] = FROM_SOURCE;
            scratch
                .heap
                .push(Reverse((cost.saturating_add(h(node)), node)));
        }
    }
    // Best finish found so far: (total cost, node).
    let mut best: Option<(u32, u32)> = None;
    while let Some(Reverse((f, node))) = scratch.heap.pop() {
        if best.is_some_and(|(b, _)| f >= b) {
            break;
        }
        let i = node as usize;
        let g = scratch.g[i];
        if f > g.saturating_add(h(node)) {
            continue; // stale heap entry
        }
        if let Some(rest) = (ends.finish_cost)(node) {
            let total = g.saturating_add(rest);
            if best.is_none_or(|(b, _)| total < b) {
                best = Some((total, node));
            }
        }
        for (next, w) in layer.graph.edges(node) {
            let j = next as usize;
            let ng = g.saturating_add(w);
            if scratch.seen[j] != generation || ng < scratch.g[j] {
                scratch.seen[j] = generation;
                scratch.g[j] = ng;
                scratch.parent[j] = node;
                scratch
                    .heap
                    .push(Reverse((ng.saturating_add(h(next)), next)));
            }
        }
    }
    let (cost, last) = best?;
    let mut nodes = vec![last];
    let mut at = last;
    while scratch.parent[at as usize] != FROM_SOURCE {
        at = scratch.parent[at as usize];
        nodes.push(at);
    }
    nodes.reverse();
    Some(Route { nodes, cost })
}

/// `g` of a node in the last search (cost from the source), for callers building remaining
/// costs along a route.
#[must_use]
pub fn cost_from_source(scratch: &SearchScratch, node: u32) -> u32 {
    scratch.g[node as usize]
}
