//! Building the landmark tables: picking landmark nodes on the largest island near the map's
//! perimeter, and one Dijkstra (a Dial bucket queue over small integer weights) per landmark
//! and direction, a few at a time for time-sliced rebuilds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::{FAR, FAR_STORED, LANDMARK_COUNT, Landmarks};
use crate::grid::GridSpec;
use crate::layer::NavLayer;
use crate::portals::csr_edges;

/// A landmark build done a few tables at a time, so a time-sliced rebuild
/// ([`crate::NavWorld::rebuild`]) can spread it over frames.
#[derive(Debug)]
pub struct LandmarkBuilder {
    sources: Vec<u32>,
    /// The graph searched, as `(offsets, targets, weights)`, when it is not a layer's portal
    /// graph (the sector hierarchy's border graph, [`Self::over_graph`]).
    forward: Option<(Vec<u32>, Vec<u32>, Vec<u32>)>,
    /// The graph reversed, for `d(node, L)`.
    reverse: (Vec<u32>, Vec<u32>, Vec<u32>),
    /// Tables done, in order: forward then backward per landmark.
    tables: Vec<Vec<u32>>,
    /// The next table, part-searched by [`Self::step_until`].
    current: Option<DistanceRun>,
}

impl LandmarkBuilder {
    /// Picks the landmarks of `layer`, over its portal graph.
    #[must_use]
    pub fn new(layer: &NavLayer) -> Self {
        Self {
            sources: pick_landmarks(layer, LANDMARK_COUNT),
            forward: None,
            reverse: reversed(layer),
            tables: Vec::new(),
            current: None,
        }
    }

    /// A build from `sources` over any graph in compressed sparse row form; `step` and
    /// `finish` then ignore their layer.
    #[must_use]
    pub fn over_graph(forward: (Vec<u32>, Vec<u32>, Vec<u32>), sources: Vec<u32>) -> Self {
        let reverse = reversed_csr(&forward.0, &forward.1, &forward.2);
        Self {
            sources,
            forward: Some(forward),
            reverse,
            tables: Vec::new(),
            current: None,
        }
    }

    /// Computes the next two tables (in parallel); `true` when all are done. `layer` must be
    /// the one the builder was made for, unchanged.
    pub fn step(&mut self, layer: &NavLayer) -> bool {
        if self.current.is_some() {
            return self.step_until(layer, None);
        }
        let total = self.sources.len() * 2;
        let next = self.tables.len();
        if next >= total {
            return true;
        }
        let forward = match &self.forward {
            Some((offsets, targets, weights)) => Csr {
                offsets,
                targets,
                weights,
            },
            None => Csr {
                offsets: &layer.graph.offsets,
                targets: &layer.graph.targets,
                weights: &layer.graph.weights,
            },
        };
        let backward = Csr {
            offsets: &self.reverse.0,
            targets: &self.reverse.1,
            weights: &self.reverse.2,
        };
        let sources = &self.sources;
        let done: Vec<Vec<u32>> = (next..(next + 2).min(total))
            .into_par_iter()
            .map(|t| {
                let graph = if t.is_multiple_of(2) {
                    &forward
                } else {
                    &backward
                };
                distances_from(graph, sources[t / 2])
            })
            .collect();
        self.tables.extend(done);
        self.tables.len() >= total
    }

    /// Searches one table at a time on this thread, pausing inside a search once `deadline`
    /// has passed (checked every few thousand nodes), so a time-sliced rebuild keeps its
    /// budget however big the graph; `true` when every table is done. `None` runs to the
    /// end of the current table.
    pub fn step_until(&mut self, layer: &NavLayer, deadline: Option<std::time::Instant>) -> bool {
        /// Nodes settled between looks at the clock (well under 0.1 ms).
        const POPS: usize = 2048;
        let total = self.sources.len() * 2;
        loop {
            let t = self.tables.len();
            if t >= total {
                return true;
            }
            let graph = if t.is_multiple_of(2) {
                match &self.forward {
                    Some((offsets, targets, weights)) => Csr {
                        offsets,
                        targets,
                        weights,
                    },
                    None => Csr {
                        offsets: &layer.graph.offsets,
                        targets: &layer.graph.targets,
                        weights: &layer.graph.weights,
                    },
                }
            } else {
                Csr {
                    offsets: &self.reverse.0,
                    targets: &self.reverse.1,
                    weights: &self.reverse.2,
                }
            };
            let run = self
                .current
                .get_or_insert_with(|| DistanceRun::new(&graph, self.sources[t / 2]));
            loop {
                if run.advance(&graph, POPS) {
                    break;
                }
                if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                    return false;
                }
            }
            if let Some(done) = self.current.take() {
                self.tables.push(done.dist);
            }
            if deadline.is_none_or(|d| std::time::Instant::now() >= d) {
                return self.tables.len() >= total;
            }
        }
    }

    /// Whether every table is done (only [`Self::finish`] is left).
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.tables.len() >= self.sources.len() * 2
    }

    /// Whether it searches a graph of its own ([`Self::over_graph`]).
    #[must_use]
    pub fn is_over_own_graph(&self) -> bool {
        self.forward.is_some()
    }

    /// The tables, once [`LandmarkBuilder::step`] has returned `true`; `None` for a layer
    /// without nodes or an unfinished build.
    #[must_use]
    pub fn finish(self, layer: &NavLayer) -> Option<Landmarks> {
        self.finish_with_step(layer, None)
    }

    /// [`LandmarkBuilder::finish`] storing distances in units of `step` cost units (by
    /// default the least that fits the longest distance in 16 bits).
    pub(super) fn finish_with_step(self, layer: &NavLayer, step: Option<u32>) -> Option<Landmarks> {
        if self.sources.is_empty() || self.tables.len() != 2 * self.sources.len() {
            return None;
        }
        let n = self
            .forward
            .as_ref()
            .map_or(layer.nodes.len(), |f| f.0.len().saturating_sub(1));
        tables_to_landmarks(self.tables, n, step)
    }
}

/// Landmark tables from forward and backward distance tables (in that order per landmark)
/// over `n` nodes.
fn tables_to_landmarks(tables: Vec<Vec<u32>>, n: usize, step: Option<u32>) -> Option<Landmarks> {
    if tables.is_empty() || !tables.len().is_multiple_of(2) {
        return None;
    }
    let step = step.unwrap_or_else(|| {
        let longest = tables
            .iter()
            .flatten()
            .copied()
            .filter(|&d| d != FAR)
            .max()
            .unwrap_or(0);
        longest.div_ceil(u32::from(FAR_STORED - 1)).max(1)
    });
    let store = |d: u32| {
        if d == FAR {
            FAR_STORED
        } else {
            u16::try_from(d / step).unwrap_or(FAR_STORED - 1)
        }
    };
    let columns = tables
        .chunks_exact(2)
        .map(|pair| {
            let mut column = vec![[FAR_STORED; 2]; n];
            for (entry, (&fwd, &bwd)) in column.iter_mut().zip(pair[0].iter().zip(&pair[1])) {
                *entry = [store(fwd), store(bwd)];
            }
            column
        })
        .collect();
    Some(Landmarks { columns, step })
}

/// Landmark nodes: the nodes nearest to the map's corners and edge midpoints, among the
/// nodes of the island holding the most nodes (other islands keep the octile heuristic).
pub(crate) fn pick_landmarks(layer: &NavLayer, count: usize) -> Vec<u32> {
    let candidates: Vec<(u32, (u32, u32), u32)> = layer
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (i as u32, n.center, n.island))
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
    if candidates.is_empty() {
        return Vec::new();
    }
    let mut per_island: Vec<(u32, u32)> = candidates.iter().map(|c| (c.2, 0)).collect();
    per_island.sort_unstable();
    per_island.dedup();
    for c in candidates {
        if let Ok(i) = per_island.binary_search_by_key(&c.2, |&(id, _)| id) {
            per_island[i].1 += 1;
        }
    }
    let Some(&(island, _)) = per_island
        .iter()
        .max_by_key(|&&(id, nodes)| (nodes, Reverse(id)))
    else {
        return Vec::new();
    };
    let (w, h) = (spec.width.saturating_sub(1), spec.height.saturating_sub(1));
    // Evenly spaced along the perimeter, starting at the top-left corner.
    let perimeter = 2 * (u64::from(w) + u64::from(h));
    let (w, h) = (u64::from(w), u64::from(h));
    let targets: Vec<(u32, u32)> = (0..count as u64)
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
        .collect();
    let mut picked: Vec<u32> = Vec::with_capacity(count);
    for &(tx, ty) in &targets {
        let nearest = candidates
            .iter()
            .filter(|c| c.2 == island)
            .min_by_key(|c| {
                let (dx, dy) = (c.1.0.abs_diff(tx), c.1.1.abs_diff(ty));
                (
                    u64::from(dx) * u64::from(dx) + u64::from(dy) * u64::from(dy),
                    c.0,
                )
            })
            .map(|c| c.0);
        if let Some(node) = nearest
            && !picked.contains(&node)
        {
            picked.push(node);
        }
    }
    picked
}

/// A graph in compressed sparse row form.
pub(super) struct Csr<'a> {
    pub(super) offsets: &'a [u32],
    pub(super) targets: &'a [u32],
    pub(super) weights: &'a [u32],
}

/// The portal graph with every edge reversed, as `(offsets, targets, weights)`.
fn reversed(layer: &NavLayer) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let g = &layer.graph;
    reversed_csr(&g.offsets, &g.targets, &g.weights)
}

/// A graph in compressed sparse row form with every edge reversed.
pub(super) fn reversed_csr(
    offsets: &[u32],
    targets: &[u32],
    weights: &[u32],
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = offsets.len().saturating_sub(1);
    let mut rev_offsets = vec![0u32; n + 1];
    for &t in targets {
        if (t as usize) < n {
            rev_offsets[t as usize + 1] += 1;
        }
    }
    for i in 0..n {
        rev_offsets[i + 1] += rev_offsets[i];
    }
    let mut fill = rev_offsets.clone();
    let mut rev_targets = vec![0u32; targets.len()];
    let mut rev_weights = vec![0u32; targets.len()];
    for from in 0..n as u32 {
        for (to, w) in csr_edges(offsets, targets, weights, from) {
            let Some(slot) = fill.get_mut(to as usize) else {
                continue;
            };
            rev_targets[*slot as usize] = from;
            rev_weights[*slot as usize] = w;
            *slot += 1;
        }
    }
    (rev_offsets, rev_targets, rev_weights)
}

/// Largest edge weight for which [`distances_from`] uses Dial's buckets (one per weight).
const DIAL_MAX_WEIGHT: u32 = 1 << 16;

/// Dijkstra from one node: `d(source, n)` for every node of `graph`. Weights are small
/// integers (the cost of crossing part of a sector), so Dial's algorithm with circular
/// buckets replaces the heap, as in the integrator; a graph with a huge weight falls back to
/// a binary heap.
pub(super) fn distances_from(graph: &Csr<'_>, source: u32) -> Vec<u32> {
    let mut run = DistanceRun::new(graph, source);
    while !run.advance(graph, usize::MAX) {}
    run.dist
}

/// What is left to settle of a [`distances_from`] search.
#[derive(Debug)]
enum Frontier {
    Heap(BinaryHeap<Reverse<(u32, u32)>>),
    Dial {
        buckets: Vec<Vec<u32>>,
        queued: usize,
        d: u32,
    },
}

/// A [`distances_from`] search that can stop and resume, so a time-sliced rebuild can spread
/// one table over frames.
#[derive(Debug)]
pub(super) struct DistanceRun {
    dist: Vec<u32>,
    frontier: Frontier,
}

impl DistanceRun {
    fn new(graph: &Csr<'_>, source: u32) -> Self {
        let n = graph.offsets.len().saturating_sub(1);
        let mut dist = vec![FAR; n];
        let max_weight = graph.weights.iter().copied().max().unwrap_or(0);
        let start = (source as usize) < n;
        if start {
            dist[source as usize] = 0;
        }
        let frontier = if max_weight > DIAL_MAX_WEIGHT {
            Frontier::Heap(if start {
                BinaryHeap::from([Reverse((0u32, source))])
            } else {
                BinaryHeap::new()
            })
        } else {
            let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); max_weight as usize + 1];
            if start {
                buckets[0].push(source);
            }
            Frontier::Dial {
                buckets,
                queued: usize::from(start),
                d: 0,
            }
        };
        Self { dist, frontier }
    }

    /// Takes up to about `pops` nodes off the frontier; `true` when the search is done.
    fn advance(&mut self, graph: &Csr<'_>, pops: usize) -> bool {
        let edges = |node: u32| csr_edges(graph.offsets, graph.targets, graph.weights, node);
        let dist = &mut self.dist;
        let mut left = pops;
        match &mut self.frontier {
            Frontier::Heap(heap) => {
                while left > 0 {
                    let Some(Reverse((d, node))) = heap.pop() else {
                        return true;
                    };
                    left -= 1;
                    if d > dist[node as usize] {
                        continue;
                    }
                    for (next, w) in edges(node) {
                        let nd = d.saturating_add(w);
                        if nd < dist[next as usize] {
                            dist[next as usize] = nd;
                            heap.push(Reverse((nd, next)));
                        }
                    }
                }
                heap.is_empty()
            }
            Frontier::Dial { buckets, queued, d } => {
                let span = buckets.len();
                while *queued > 0 {
                    if left == 0 {
                        return false;
                    }
                    let slot = *d as usize % span;
                    // Zero-weight edges refill the bucket being drained: drain until it
                    // stays empty (a pause leaves `d` there, so the bucket is resumed).
                    while let Some(node) = buckets[slot].pop() {
                        *queued -= 1;
                        if dist[node as usize] != *d {
                            continue; // improved since it was queued
                        }
                        for (next, w) in edges(node) {
                            let nd = d.saturating_add(w);
                            if nd < dist[next as usize] {
                                dist[next as usize] = nd;
                                buckets[nd as usize % span].push(next);
                                *queued += 1;
                            }
                        }
                        left = left.saturating_sub(1);
                        if left == 0 {
                            return false;
                        }
                    }
                    *d = d.saturating_add(1);
                }
                true
            }
        }
    }
}
