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
    heap: BinaryHeap<Reverse<(u32, u32)>>,
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
    let h = |node: u32| {
        let octile = octile(layer.nodes[node as usize].center, ends.goal);
        let alt = ends.landmarks.map_or(0, |b| b.lower_bound(node));
        (octile.max(alt) as f32 * weight) as u32
    };
    // Weighted A* does not reopen expanded nodes: its routes stay within the weight of the
    // optimum without, and reopening multiplies expansions where the bound varies a lot.
    let reopen = weight <= 1.0;
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
        heap.push(Reverse((cost.saturating_add(s.h), node)));
    }
    // Best finish found so far: (total cost, node).
    let mut best: Option<(u32, u32)> = None;
    while let Some(Reverse((f, node))) = heap.pop() {
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
        for (next, w) in layer.graph.edges(node) {
            let ng = g.saturating_add(w);
            let t = &mut states[next as usize];
            if t.seen != generation {
                t.h = h(next);
                t.closed = 0;
            } else if ng >= t.g || (!reopen && t.closed == generation) {
                continue;
            }
            t.seen = generation;
            t.g = ng;
            t.parent = node;
            heap.push(Reverse((ng.saturating_add(t.h), next)));
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
