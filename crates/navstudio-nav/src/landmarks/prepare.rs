//! Before a landmark build's searches: picking the landmark nodes on the largest island near
//! the map's perimeter, and reversing the graph for the backward tables. A time-sliced
//! rebuild does both a piece at a time ([`Prep`]); the pieces compute exactly what one go
//! does.

use std::cmp::Reverse;
use std::time::Instant;

use super::LANDMARK_COUNT;
use crate::grid::GridSpec;
use crate::layer::NavLayer;
use crate::portals::csr_edges;

/// A graph as `(offsets, targets, weights)` in compressed sparse row form.
pub(super) type OwnedCsr = (Vec<u32>, Vec<u32>, Vec<u32>);

/// The preparation of a layer's landmark build, resumable between pieces of well under a
/// millisecond on a 1024² map: the largest island, then one perimeter point's nearest node
/// at a time, then the reversed graph a block of edges or nodes at a time.
#[derive(Debug)]
pub(super) struct Prep {
    /// The island with the most nodes once counted (`Some(None)`: the layer has no nodes).
    island: Option<Option<u32>>,
    /// Perimeter points whose nearest node is still to find, from the back.
    targets: Vec<(u32, u32)>,
    /// Nodes of the layer scanned for the last target, and the nearest so far as
    /// `(squared distance, node)`.
    scanned: usize,
    nearest: Option<(u64, u32)>,
    picked: Vec<u32>,
    reverse: ReverseRun,
}

impl Prep {
    pub(super) fn new(layer: &NavLayer) -> Self {
        let mut targets = perimeter_points(layer.cost.spec, LANDMARK_COUNT);
        targets.reverse();
        Self {
            island: None,
            targets,
            scanned: 0,
            nearest: None,
            picked: Vec::new(),
            reverse: ReverseRun::new(&layer.graph.offsets, &layer.graph.targets),
        }
    }

    /// Runs pieces until `deadline` has passed (at least one; all with `None`); the
    /// landmarks and the reversed graph when done.
    pub(super) fn advance(
        &mut self,
        layer: &NavLayer,
        deadline: Option<Instant>,
    ) -> Option<(Vec<u32>, OwnedCsr)> {
        loop {
            match self.island {
                None => {
                    let islands: Vec<u32> = layer.nodes.iter().map(|n| n.island).collect();
                    self.island = Some(largest_island(&islands));
                }
                Some(Some(island)) if !self.targets.is_empty() => {
                    let target = self.targets[self.targets.len() - 1];
                    let end = (self.scanned + SCAN_PIECE).min(layer.nodes.len());
                    let candidates = layer.nodes[self.scanned..end]
                        .iter()
                        .zip(self.scanned as u32..)
                        .map(|(n, i)| (i, n.center(), n.island));
                    let nearer = nearest_key(candidates, island, target);
                    self.nearest = match (self.nearest, nearer) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    self.scanned = end;
                    if end >= layer.nodes.len() {
                        if let Some((_, node)) = self.nearest.take()
                            && !self.picked.contains(&node)
                        {
                            self.picked.push(node);
                        }
                        self.targets.pop();
                        self.scanned = 0;
                    }
                }
                Some(_) => {
                    let g = &layer.graph;
                    if self.reverse.advance(&g.offsets, &g.targets, &g.weights) {
                        let reverse = std::mem::take(&mut self.reverse).into_csr();
                        return Some((std::mem::take(&mut self.picked), reverse));
                    }
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
        }
    }
}

/// Landmark nodes: the nodes nearest to the map's corners and edge midpoints, among the
/// nodes of the island holding the most nodes (other islands keep the octile heuristic).
pub(crate) fn pick_landmarks(layer: &NavLayer, count: usize) -> Vec<u32> {
    let candidates: Vec<(u32, (u32, u32), u32)> = layer
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (i as u32, n.center(), n.island))
        .collect();
    pick_near_perimeter(layer.cost.spec, &candidates, count)
}

/// Of `candidates` (`(id, centre cell, island)`), the ids of the ones on the island with the
/// most candidates nearest to `count` points evenly spaced along the map's perimeter.
pub(crate) fn pick_near_perimeter(
    spec: GridSpec,
    candidates: &[(u32, (u32, u32), u32)],
    count: usize,
) -> Vec<u32> {
    let islands: Vec<u32> = candidates.iter().map(|c| c.2).collect();
    let Some(island) = largest_island(&islands) else {
        return Vec::new();
    };
    let mut picked: Vec<u32> = Vec::with_capacity(count);
    for target in perimeter_points(spec, count) {
        if let Some(node) = nearest_on_island(candidates.iter().copied(), island, target)
            && !picked.contains(&node)
        {
            picked.push(node);
        }
    }
    picked
}

/// The island id occurring most often in `islands`, the smallest id among equals; `None`
/// for none.
fn largest_island(islands: &[u32]) -> Option<u32> {
    let &top = islands.iter().max()?;
    // Island ids are numbered densely from a layer's flood fill: count them in an array;
    // sort only ids too sparse for one.
    let counts: Vec<(u32, u32)> = if top as usize <= 4 * islands.len() + 64 {
        let mut count = vec![0u32; top as usize + 1];
        for &i in islands {
            count[i as usize] += 1;
        }
        (0..=top)
            .zip(count)
            .filter(|&(_, nodes)| nodes > 0)
            .collect()
    } else {
        let mut sorted = islands.to_vec();
        sorted.sort_unstable();
        sorted
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0], run.len() as u32))
            .collect()
    };
    counts
        .into_iter()
        .max_by_key(|&(id, nodes)| (nodes, Reverse(id)))
        .map(|(id, _)| id)
}

/// `count` points evenly spaced along the map's perimeter, clockwise from the top-left
/// corner.
fn perimeter_points(spec: GridSpec, count: usize) -> Vec<(u32, u32)> {
    let (w, h) = (spec.width.saturating_sub(1), spec.height.saturating_sub(1));
    let perimeter = 2 * (u64::from(w) + u64::from(h));
    let (w, h) = (u64::from(w), u64::from(h));
    (0..count as u64)
        .map(|k| {
            // Walk the perimeter clockwise: top, right, bottom, left edge.
            let t = perimeter * k / count as u64;
            let p = if t < w {
                (t, 0)
            } else if t < w + h {
                (w, t - w)
            } else if t < 2 * w + h {
                (w - (t - w - h), h)
            } else {
                (0, h - (t - 2 * w - h).min(h))
            };
            (p.0 as u32, p.1 as u32)
        })
        .collect()
}

/// The id of the candidate on `island` nearest to `target` (the smallest id among equals).
fn nearest_on_island(
    candidates: impl Iterator<Item = (u32, (u32, u32), u32)>,
    island: u32,
    target: (u32, u32),
) -> Option<u32> {
    nearest_key(candidates, island, target).map(|(_, id)| id)
}

/// `(squared distance, id)` of the candidate on `island` nearest to `target`, the smallest
/// id among equals: the least over several runs of candidates is the one over them all.
fn nearest_key(
    candidates: impl Iterator<Item = (u32, (u32, u32), u32)>,
    island: u32,
    target: (u32, u32),
) -> Option<(u64, u32)> {
    candidates
        .filter(|c| c.2 == island)
        .map(|c| {
            let (dx, dy) = (c.1.0.abs_diff(target.0), c.1.1.abs_diff(target.1));
            (
                u64::from(dx) * u64::from(dx) + u64::from(dy) * u64::from(dy),
                c.0,
            )
        })
        .min()
}

/// A graph in compressed sparse row form with every edge reversed.
pub(super) fn reversed_csr(offsets: &[u32], targets: &[u32], weights: &[u32]) -> OwnedCsr {
    let mut run = ReverseRun::new(offsets, targets);
    while !run.advance(offsets, targets, weights) {}
    run.into_csr()
}

/// Nodes scanned for a landmark per piece of a [`Prep`] (few in tests, so that small maps
/// pause inside a scan too).
const SCAN_PIECE: usize = if cfg!(test) { 150 } else { 1 << 16 };

/// Edges counted, or nodes' edges placed, per piece of a [`ReverseRun`].
const REVERSE_PIECE: usize = if cfg!(test) { 800 } else { 1 << 15 };

/// Reversing a graph a piece at a time: counting each node's incoming edges, then placing
/// every node's edges in its targets' rows.
#[derive(Debug, Default)]
struct ReverseRun {
    offsets: Vec<u32>,
    /// Per node, where its next incoming edge goes (after the counting).
    fill: Vec<u32>,
    targets: Vec<u32>,
    weights: Vec<u32>,
    /// Edges counted so far.
    counted: usize,
    /// Nodes whose edges are placed (0 until the counts are summed into offsets).
    placed: usize,
    summed: bool,
}

impl ReverseRun {
    fn new(offsets: &[u32], targets: &[u32]) -> Self {
        let n = offsets.len().saturating_sub(1);
        Self {
            offsets: vec![0; n + 1],
            fill: Vec::new(),
            targets: vec![0; targets.len()],
            weights: vec![0; targets.len()],
            counted: 0,
            placed: 0,
            summed: false,
        }
    }

    /// One piece; `true` when the reversed graph is complete.
    fn advance(&mut self, offsets: &[u32], targets: &[u32], weights: &[u32]) -> bool {
        let n = offsets.len().saturating_sub(1);
        if self.counted < targets.len() {
            let end = (self.counted + REVERSE_PIECE).min(targets.len());
            for &t in &targets[self.counted..end] {
                if (t as usize) < n {
                    self.offsets[t as usize + 1] += 1;
                }
            }
            self.counted = end;
            return false;
        }
        if !self.summed {
            for i in 0..n {
                self.offsets[i + 1] += self.offsets[i];
            }
            self.fill.clone_from(&self.offsets);
            self.summed = true;
            return n == 0;
        }
        let end = (self.placed + REVERSE_PIECE / 8).min(n);
        for from in self.placed as u32..end as u32 {
            for (to, w) in csr_edges(offsets, targets, weights, from) {
                let Some(slot) = self.fill.get_mut(to as usize) else {
                    continue;
                };
                self.targets[*slot as usize] = from;
                self.weights[*slot as usize] = w;
                *slot += 1;
            }
        }
        self.placed = end;
        self.placed >= n
    }

    fn into_csr(self) -> OwnedCsr {
        (self.offsets, self.targets, self.weights)
    }
}
