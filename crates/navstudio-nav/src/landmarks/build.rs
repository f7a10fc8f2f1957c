//! Building the landmark tables: picking landmark nodes on the largest island near the map's
//! perimeter, and one Dijkstra (a Dial bucket queue over small integer weights) per landmark
//! and direction, a few at a time for time-sliced rebuilds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use std::time::Instant;

use rayon::prelude::*;

use super::prepare::{Prep, reversed_csr};
use super::{FAR, FAR_STORED, Landmarks};
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
    /// Longest finite distance in `tables` (the stored step follows from it).
    longest: u32,
    /// What is left of picking the landmarks and reversing the graph, for a builder from
    /// [`Self::start`]; `sources` and `reverse` are empty until it is done.
    prep: Option<Prep>,
    /// The stored tables [`Self::finish_until`] fills, landmark by landmark: those before
    /// `started − 1` are complete, and that one up to node `stored`.
    out: Option<Landmarks>,
    /// Landmarks whose entries [`Self::finish_until`] has begun to store.
    started: usize,
    /// Nodes of landmark `started − 1` stored so far.
    stored: usize,
}

/// Nodes whose entries one piece of [`LandmarkBuilder::finish_until`] stores (few in tests,
/// so that small maps pause inside a column too).
const STORE_PIECE: usize = if cfg!(test) { 100 } else { 1 << 15 };

impl LandmarkBuilder {
    /// Picks the landmarks of `layer`, over its portal graph.
    #[must_use]
    pub fn new(layer: &NavLayer) -> Self {
        let mut builder = Self::start(layer);
        if let Some((sources, reverse)) =
            builder.prep.take().and_then(|mut p| p.advance(layer, None))
        {
            (builder.sources, builder.reverse) = (sources, reverse);
        }
        builder
    }

    /// A build of `layer`'s landmarks that picks them and reverses the graph in
    /// [`Self::step_until`] too, a piece at a time, so that a time-sliced rebuild keeps its
    /// budget from the first piece on.
    #[must_use]
    pub fn start(layer: &NavLayer) -> Self {
        Self {
            sources: Vec::new(),
            forward: None,
            reverse: (Vec::new(), Vec::new(), Vec::new()),
            tables: Vec::new(),
            current: None,
            longest: 0,
            prep: Some(Prep::new(layer)),
            out: None,
            started: 0,
            stored: 0,
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
            longest: 0,
            prep: None,
            out: None,
            started: 0,
            stored: 0,
        }
    }

    /// Computes the next two tables (in parallel); `true` when all are done. `layer` must be
    /// the one the builder was made for, unchanged.
    pub fn step(&mut self, layer: &NavLayer) -> bool {
        if self.prep.is_some() || self.current.is_some() {
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
        for table in done {
            self.push_table(table);
        }
        self.tables.len() >= total
    }

    /// Adds a finished table, keeping [`Self::longest`] up to date.
    fn push_table(&mut self, table: Vec<u32>) {
        let longest = table.iter().copied().filter(|&d| d != FAR).max();
        self.longest = self.longest.max(longest.unwrap_or(0));
        self.tables.push(table);
    }

    /// Searches one table at a time on this thread, pausing inside a search once `deadline`
    /// has passed (checked every few thousand nodes), so a time-sliced rebuild keeps its
    /// budget however big the graph; `true` when every table is done. A builder from
    /// [`Self::start`] first picks its landmarks and reverses the graph, pausing likewise
    /// between pieces. `None` runs to the end of the current table.
    pub fn step_until(&mut self, layer: &NavLayer, deadline: Option<Instant>) -> bool {
        /// Nodes settled between looks at the clock (well under 0.1 ms).
        const POPS: usize = 2048;
        if let Some(prep) = self.prep.as_mut() {
            let Some((sources, reverse)) = prep.advance(layer, deadline) else {
                return false;
            };
            (self.sources, self.reverse, self.prep) = (sources, reverse, None);
            if past(deadline) {
                return self.is_done();
            }
        }
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
                if past(deadline) {
                    return false;
                }
            }
            if let Some(done) = self.current.take() {
                self.push_table(done.dist);
            }
            if deadline.is_none_or(|d| Instant::now() >= d) {
                return self.tables.len() >= total;
            }
        }
    }

    /// Whether every table is done (only [`Self::finish`] is left).
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.prep.is_none() && self.tables.len() >= self.sources.len() * 2
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
        if self.sources.is_empty() || !self.is_done() || self.started != 0 {
            return None;
        }
        let n = self.node_count(layer);
        let step = step.unwrap_or_else(|| self.stored_step());
        let mut out = Landmarks::unreached(self.sources.len(), n, step);
        for (k, pair) in self.tables.chunks_exact(2).enumerate() {
            store_entries(&mut out, k, (&pair[0], &pair[1]), 0..n, step, None);
        }
        Some(out)
    }

    /// Once every table is done: stores the tables as [`LandmarkBuilder::finish`] does, with
    /// node `v`'s entries at `rank[v]` when `rank` has an entry per node (as
    /// [`Landmarks::reordered`] puts them), a block of nodes of one landmark at a time,
    /// pausing once `deadline` has passed; `true` when all are stored (then
    /// [`Self::into_landmarks`]). `None` stores them all.
    pub fn finish_until(
        &mut self,
        layer: &NavLayer,
        rank: Option<&[u32]>,
        deadline: Option<Instant>,
    ) -> bool {
        if !self.is_done() {
            return false;
        }
        let n = self.node_count(layer);
        let rank = rank.filter(|r| r.len() == n);
        let step = self.stored_step();
        let count = self.sources.len();
        let out = self
            .out
            .get_or_insert_with(|| Landmarks::unreached(count, n, step));
        loop {
            let k = self.started;
            if self.stored >= n && k >= count {
                return true;
            }
            if self.stored >= n || k == 0 {
                // The previous landmark is complete: its tables are no longer needed.
                if let Some(done) = k.checked_sub(1) {
                    self.tables[2 * done] = Vec::new();
                    self.tables[2 * done + 1] = Vec::new();
                }
                self.started += 1;
                self.stored = 0;
            }
            let k = self.started - 1;
            let end = (self.stored + STORE_PIECE).min(n);
            store_entries(
                out,
                k,
                (&self.tables[2 * k], &self.tables[2 * k + 1]),
                self.stored..end,
                step,
                rank,
            );
            self.stored = end;
            if past(deadline) {
                return self.stored >= n && self.started >= count;
            }
        }
    }

    /// The tables [`Self::finish_until`] stored; `None` for a layer without nodes or an
    /// unfinished build.
    #[must_use]
    pub fn into_landmarks(self) -> Option<Landmarks> {
        let out = self.out?;
        let complete = self.started > 0 && self.stored >= out.node_count();
        if self.sources.is_empty() || self.started != self.sources.len() || !complete {
            return None;
        }
        Some(out)
    }

    /// The landmark nodes (empty until picked).
    #[cfg(test)]
    pub(super) fn sources(&self) -> &[u32] {
        &self.sources
    }

    /// Nodes the tables cover.
    fn node_count(&self, layer: &NavLayer) -> usize {
        self.forward
            .as_ref()
            .map_or(layer.nodes.len(), |f| f.0.len().saturating_sub(1))
    }

    /// Cost units per stored unit: the least that fits the longest distance in 16 bits.
    fn stored_step(&self) -> u32 {
        self.longest.div_ceil(u32::from(FAR_STORED - 1)).max(1)
    }
}

/// Whether `deadline` has passed.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// Stores landmark `k`'s entries of nodes `range` from its `(forward, backward)` tables
/// into `out` in units of `step`, node `v` at `rank[v]` when given (nodes beyond the tables
/// stay unreachable).
fn store_entries(
    out: &mut Landmarks,
    k: usize,
    (forward, backward): (&[u32], &[u32]),
    range: std::ops::Range<usize>,
    step: u32,
    rank: Option<&[u32]>,
) {
    let store = |d: u32| {
        if d == FAR {
            FAR_STORED
        } else {
            u16::try_from(d / step).unwrap_or(FAR_STORED - 1)
        }
    };
    for v in range {
        let (Some(&fwd), Some(&bwd)) = (forward.get(v), backward.get(v)) else {
            break;
        };
        let to = rank.map_or(v, |r| r[v] as usize);
        out.set(to, k, [store(fwd), store(bwd)]);
    }
}

/// A graph in compressed sparse row form.
pub(super) struct Csr<'a> {
    pub(super) offsets: &'a [u32],
    pub(super) targets: &'a [u32],
    pub(super) weights: &'a [u32],
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
