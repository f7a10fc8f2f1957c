//! The sector hierarchy (HPA*, Botea, Müller & Schaeffer 2004, with exact cluster distances):
//! sectors grouped into clusters of [`CLUSTER_SECTORS`]² sectors, each cluster's border
//! nodes (portal nodes with an edge to or from another cluster) joined by **shortcuts**, the
//! cheapest cost between two border nodes without leaving the cluster.
//!
//! A search then expands, in the clusters a request opens (its source's and its finishing
//! nodes'), every portal node as before, and elsewhere border nodes only, over shortcuts and
//! the graph's own edges between clusters. Every route decomposes into stretches inside
//! clusters between border nodes, so this graph keeps the flat graph's distances exactly;
//! the route found is then refined, shortcut by shortcut, by a search inside the cluster.
//! Across an 8192² map a route crosses about a hundred clusters instead of a thousand sectors,
//! and the ALT landmark tables cover the border nodes only (see [`ClusterLandmarks`]).
//!
//! Clusters are aligned blocks of the sector grid, so in the search's Z order each is one
//! contiguous range of search ids.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::layer::NavLayer;
pub use super::search_graph::CLUSTER_SECTORS;
use super::search_graph::SearchGraph;

mod codec;
pub use codec::ParsedHierarchy;
mod eliminate;
use eliminate::Eliminator;
mod landmarks;
mod levels;
mod local_marks;
mod packed;
use packed::{Edges, PackedEdges};
mod refining;

pub use levels::{LEVEL_SHIFTS, Levels, OpenCells, ParsedLevels, UnpackScratch};
pub use refining::{Hop, RefineOver, Refining};

pub use landmarks::ClusterLandmarks;
use local_marks::LocalMarks;

/// Sectors from which the hierarchy pays: from 2048² cells in sectors of 10 on, its searches
/// beat the flat search with landmark tables per portal node, while on smaller maps the
/// flat search is faster (`cargo bench --bench scale`, docs/performance.md). Packages of
/// such maps store the hierarchy instead of per-node tables, and [`crate::NavWorld`]
/// searches over it.
pub const CLUSTER_MIN_SECTORS: u64 = 200 * 200;

/// Whether a map of `spec` is one where the hierarchy pays ([`CLUSTER_MIN_SECTORS`]).
#[must_use]
pub fn pays_off(spec: crate::GridSpec) -> bool {
    u64::from(spec.sectors_x()) * u64::from(spec.sectors_y()) >= CLUSTER_MIN_SECTORS
}

/// Most link end nodes a layer's search graph can add to its portal nodes (two per link).
pub const MAX_LINK_ENDS: usize = 2 * crate::links::codec::MAX_LINKS;

/// Edge lists whole, `(first, edges)`: index `i`'s edges are `edges[first[i]..first[i + 1]]`.
type EdgeLists = (Vec<u32>, Vec<(u32, u32)>);

/// Cost marker of nodes a local search has not reached.
const FAR: u32 = u32::MAX;

/// One layer's cluster graph, in the search ids of its [`SearchGraph`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hierarchy {
    /// `(cluster key, first search id, end)` per cluster holding nodes, by key (which is
    /// also search-id order). The key is the Z-order code of the cluster's coordinates.
    clusters: Vec<(u32, u32, u32)>,
    /// Which search ids are border nodes, and each one's border index.
    border_of: BorderRank,
    /// Search id of each border node, ascending.
    border: Vec<u32>,
    /// Per border node its `(target border index, weight)` edges: its shortcuts inside its
    /// cluster, then its own edges to other clusters (whose targets are border nodes too).
    /// Border indices, so a search across the map keeps its state in a table an eighth of
    /// the graph's size.
    edges: PackedEdges,
    /// Cluster key and window centre per border node: what a search reads of each node it
    /// expands, kept beside its edges rather than in the layout's tables.
    border_key: Vec<u32>,
    border_center: Vec<(u32, u32)>,
    /// Landmarks inside each cluster that guide refinement, computed on first use.
    marks: LocalMarks,
    /// The levels above the clusters, once built or read ([`Self::build_levels`]).
    levels: Option<Levels>,
}

impl Hierarchy {
    /// Groups `graph`'s nodes into clusters and computes every shortcut (one Dijkstra per
    /// border node inside its cluster, clusters in parallel).
    #[must_use]
    pub fn build(graph: &SearchGraph) -> Self {
        let (clusters, border, border_of) = layout(graph);
        let per_cluster: Vec<Vec<Vec<(u32, u32)>>> = clusters
            .par_iter()
            .map_init(ClusterScratch::default, |scratch, &(_, lo, hi)| {
                cluster_edges(graph, (lo, hi), scratch)
            })
            .collect();
        Self::assemble(graph, clusters, border, border_of, per_cluster)
    }

    /// The hierarchy of `graph`, a layout of the same layer after a rebuild, reusing the
    /// shortcuts of `old`'s clusters that `dirty` (by cluster key) does not name: a cluster
    /// whose sectors and neighbouring sectors kept their costs keeps its nodes in the same
    /// order and its shortcuts. Equal to [`Self::build`] of `graph`.
    #[must_use]
    pub fn rebuild(old: &Self, graph: &SearchGraph, dirty: &(dyn Fn(u32) -> bool + Sync)) -> Self {
        let (clusters, border, border_of) = layout(graph);
        let per_cluster: Vec<Vec<Vec<(u32, u32)>>> = clusters
            .par_iter()
            .map_init(ClusterScratch::default, |scratch, &(key, lo, hi)| {
                (!dirty(key))
                    .then(|| old.reused_edges(key, (lo, hi), graph))
                    .flatten()
                    .unwrap_or_else(|| cluster_edges(graph, (lo, hi), scratch))
            })
            .collect();
        let mut fresh = Self::assemble(graph, clusters, border, border_of, per_cluster);
        if let Some(levels) = &old.levels {
            let levels = Levels::rebuild(levels, old, &fresh, dirty);
            fresh.levels = Some(levels).filter(|l| l.count() > 0);
        }
        fresh
    }

    /// Builds the levels above the clusters (see [`Levels`]); none on a map whose clusters
    /// fit one cell of 2 × 2.
    pub fn build_levels(&mut self) {
        let levels = Levels::build(self);
        self.levels = Some(levels).filter(|l| l.count() > 0);
    }

    /// Puts levels read from a package in place.
    pub fn set_levels(&mut self, levels: Levels) {
        self.levels = Some(levels).filter(|l| l.count() > 0);
    }

    /// The levels above the clusters, if built.
    #[must_use]
    pub fn levels(&self) -> Option<&Levels> {
        self.levels.as_ref()
    }

    /// The edges of cluster `key`'s border nodes, moved to the search-id range `(lo, hi)` of
    /// the new layout `graph` (cross-cluster edges taken from it); `None` unless the cluster
    /// has as many nodes as before, with border nodes at the same places.
    fn reused_edges(
        &self,
        key: u32,
        (lo, hi): (u32, u32),
        graph: &SearchGraph,
    ) -> Option<Vec<Vec<(u32, u32)>>> {
        let (old_lo, old_hi) = self.cluster_range(key)?;
        if old_hi - old_lo != hi - lo {
            return None;
        }
        let old_borders = self.cluster_borders(key);
        let now = (lo..hi).filter(|&id| graph.is_border(id)).count();
        if now != old_borders.len() {
            return None;
        }
        let mut lists = Vec::with_capacity(now);
        for b in old_borders {
            let b = b as usize;
            let id = self.border[b] - old_lo + lo;
            if !graph.is_border(id) {
                return None;
            }
            let mut list: Vec<(u32, u32)> = self
                .border_edges(b as u32)
                .map(|(t, w)| (self.border[t as usize], w))
                .filter(|&(t, _)| t >= old_lo && t < old_hi)
                .map(|(t, w)| (t - old_lo + lo, w))
                .collect();
            list.extend(graph.edges(id).filter(|&(t, _)| t < lo || t >= hi));
            lists.push(list);
        }
        Some(lists)
    }

    /// A hierarchy of `graph` from its clusters, border nodes and per cluster the edges of
    /// its border nodes in order (targets in search ids).
    fn assemble(
        graph: &SearchGraph,
        clusters: Vec<(u32, u32, u32)>,
        border: Vec<u32>,
        border_of: BorderRank,
        per_cluster: Vec<Vec<Vec<(u32, u32)>>>,
    ) -> Self {
        let mut first = Vec::with_capacity(border.len() + 1);
        let mut edges = Vec::new();
        for lists in per_cluster {
            for list in lists {
                first.push(edges.len() as u32);
                // Every edge a border node keeps leads to a border node: a shortcut's end,
                // or a node with an edge from another cluster.
                edges.extend(
                    list.into_iter()
                        .map(|(t, w)| (border_of.index(t).unwrap_or(u32::MAX), w)),
                );
            }
        }
        first.push(edges.len() as u32);
        let edges = PackedEdges::new(0, &first, &edges);
        Self::from_parts(graph, clusters, border, border_of, edges)
    }

    /// A hierarchy of `graph` from its parts, with what searches read per border node.
    fn from_parts(
        graph: &SearchGraph,
        clusters: Vec<(u32, u32, u32)>,
        border: Vec<u32>,
        border_of: BorderRank,
        edges: PackedEdges,
    ) -> Self {
        let (border_key, border_center) = border
            .par_iter()
            .map(|&id| (graph.cluster_key(id), graph.center(id)))
            .unzip();
        Self {
            marks: LocalMarks::new(clusters.len()),
            clusters,
            border_of,
            border,
            edges,
            border_key,
            border_center,
            levels: None,
        }
    }

    /// Bytes its tables hold, by table, its levels' included (see
    /// [`crate::NavData::memory`]).
    pub(crate) fn memory(&self) -> Vec<(&'static str, usize)> {
        let mut rows = vec![
            (
                "hierarchy: clusters and border node tables",
                12 * self.clusters.capacity()
                    + self.border_of.memory()
                    + 4 * (self.border.capacity() + self.border_key.capacity())
                    + 8 * self.border_center.capacity(),
            ),
            ("hierarchy: edges", self.edges.memory()),
            ("hierarchy: landmarks inside clusters", self.marks.memory()),
        ];
        if let Some(levels) = &self.levels {
            rows.extend(levels.memory());
        }
        rows
    }

    /// Number of border nodes.
    #[must_use]
    pub fn border_count(&self) -> usize {
        self.border.len()
    }

    /// Number of clusters holding nodes.
    #[must_use]
    pub fn cluster_count(&self) -> usize {
        self.clusters.len()
    }

    /// Border index of search id `id`, if it is a border node.
    #[must_use]
    pub fn border_index(&self, id: u32) -> Option<u32> {
        self.border_of.index(id)
    }

    /// Search id of border node `b`.
    #[must_use]
    pub fn border_node(&self, b: u32) -> u32 {
        self.border[b as usize]
    }

    /// The edges a search takes from border node `b` (a border index) of a cluster it has
    /// not opened, as `(target border index, weight)`.
    #[must_use]
    pub fn border_edges(&self, b: u32) -> Edges<'_> {
        self.edges.edges(b as usize, b)
    }

    /// Cluster key of border node `b`.
    #[must_use]
    pub fn border_key(&self, b: u32) -> u32 {
        self.border_key[b as usize]
    }

    /// Window centre of border node `b`.
    #[must_use]
    pub fn border_center(&self, b: u32) -> (u32, u32) {
        self.border_center[b as usize]
    }

    /// `(first search id, end)` of the cluster with key `key`.
    #[must_use]
    pub fn cluster_range(&self, key: u32) -> Option<(u32, u32)> {
        let i = self
            .clusters
            .binary_search_by_key(&key, |&(k, _, _)| k)
            .ok()?;
        Some((self.clusters[i].1, self.clusters[i].2))
    }

    /// Border indices of the cluster with key `key` (a contiguous range, since border
    /// indices follow search ids).
    #[must_use]
    pub fn cluster_borders(&self, key: u32) -> std::ops::Range<u32> {
        let Some((lo, hi)) = self.cluster_range(key) else {
            return 0..0;
        };
        let a = self.border.partition_point(|&id| id < lo) as u32;
        let b = self.border.partition_point(|&id| id < hi) as u32;
        a..b
    }

    /// Largest cluster key plus one (the size of a table indexed by key).
    #[must_use]
    pub fn key_space(&self) -> usize {
        self.clusters.last().map_or(0, |&(k, _, _)| k as usize + 1)
    }

    /// Index of the cluster with key `key` in [`Self::clusters`].
    fn cluster_index(&self, key: u32) -> Option<usize> {
        self.clusters
            .binary_search_by_key(&key, |&(k, _, _)| k)
            .ok()
    }

    /// The border graph in border indices, as `(offsets, targets, weights)`, for the landmark
    /// Dijkstras.
    pub(crate) fn border_csr(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let mut first = Vec::with_capacity(self.border.len() + 1);
        let mut targets = Vec::with_capacity(self.edges.len());
        let mut weights = Vec::with_capacity(self.edges.len());
        first.push(0);
        for b in 0..self.border.len() as u32 {
            for (t, w) in self.border_edges(b) {
                targets.push(t);
                weights.push(w);
            }
            first.push(targets.len() as u32);
        }
        (first, targets, weights)
    }

    /// The border graph in border indices as `(first, edges)`: border index `b`'s edges
    /// are `edges[first[b]..first[b + 1]]`.
    fn border_lists(&self) -> EdgeLists {
        let mut first = Vec::with_capacity(self.border.len() + 1);
        let mut edges = Vec::with_capacity(self.edges.len());
        first.push(0);
        for b in 0..self.border.len() as u32 {
            edges.extend(self.border_edges(b));
            first.push(edges.len() as u32);
        }
        (first, edges)
    }

    /// Builds the landmark tables over the border graph for `layer` (whose search layout is
    /// `graph`).
    #[must_use]
    pub fn landmarks(&self, layer: &NavLayer, graph: &SearchGraph) -> Option<ClusterLandmarks> {
        ClusterLandmarks::build(self, layer, graph)
    }

    #[cfg(test)]
    /// Replaces each shortcut on `route` (`(search id, cost from the source)`; a shortcut is
    /// two consecutive nodes of one cluster not in `open`) by the nodes of the cheapest
    /// stretch inside its cluster.
    pub fn refine(
        &self,
        graph: &SearchGraph,
        route: &mut Vec<(u32, u32)>,
        open: &dyn Fn(u32) -> bool,
        local: &mut LocalSearch,
    ) {
        if route.len() < 2 {
            return;
        }
        let mut out = Vec::with_capacity(route.len() * 4);
        out.push(route[0]);
        for pair in route.windows(2) {
            self.refine_hop(graph, pair[0], pair[1], open, local, &mut out);
        }
        *route = out;
    }

    /// Appends to `out` the hop from `a` to `b` of a route: the nodes after `a` of the
    /// cheapest stretch inside their cluster when the hop is a shortcut (both in one
    /// cluster not in `open`), else `b` alone.
    pub fn refine_hop(
        &self,
        graph: &SearchGraph,
        a: (u32, u32),
        b: (u32, u32),
        open: &dyn Fn(u32) -> bool,
        local: &mut LocalSearch,
        out: &mut Vec<(u32, u32)>,
    ) {
        let key = graph.cluster_key(a.0);
        let shortcut = key == graph.cluster_key(b.0) && !open(key);
        let cluster = shortcut.then(|| self.cluster_index(key)).flatten();
        let Some(c) = cluster else {
            out.push(b);
            return;
        };
        let (_, lo, hi) = self.clusters[c];
        let marks = self.marks.get(c, self, graph, local);
        local.stretch(graph, (lo, hi), a, b, out, |v| {
            marks.map_or(0, |m| m.bound(lo, v, b.0))
        });
    }
}

/// Working memory of [`cluster_edges`], one per thread.
#[derive(Debug, Default)]
struct ClusterScratch {
    eliminator: Eliminator,
    local: LocalSearch,
    costs: Vec<u32>,
}

/// The edges of the border nodes of the cluster spanning search ids `(lo, hi)`: shortcuts to
/// the cluster's other border nodes, then the node's own edges out of it.
///
/// A shortcut whose cheapest stretch can pass another border node c with
/// 0 < d(from, c) < d(from, to) is the sum of two cheaper ones, which stay (by induction on
/// the cost): it is left out. Stretches of cost 0 (windows meeting at a sector corner) never
/// decide, or two shortcuts could each leave the other out.
fn cluster_edges(
    graph: &SearchGraph,
    (lo, hi): (u32, u32),
    scratch: &mut ClusterScratch,
) -> Vec<Vec<(u32, u32)>> {
    let border: Vec<u32> = (0..hi - lo).filter(|&v| graph.is_border(lo + v)).collect();
    let costs = &mut scratch.costs;
    if ((hi - lo) as usize) <= eliminate::MAX_NODES {
        scratch
            .eliminator
            .border_costs(graph, (lo, hi), &border, costs);
    } else {
        border_costs_by_search(graph, (lo, hi), &border, &mut scratch.local, costs);
    }
    let b = border.len();
    let mut passes_border = vec![false; b];
    (0..b)
        .map(|i| {
            let row = &costs[i * b..(i + 1) * b];
            // Row by row rather than per shortcut, so the loop reads memory in order.
            passes_border.fill(false);
            for (c, &ic) in row.iter().enumerate() {
                if c == i || ic == 0 || ic == FAR {
                    continue;
                }
                let via = &costs[c * b..(c + 1) * b];
                for ((passes, &ij), &cj) in passes_border.iter_mut().zip(row).zip(via) {
                    *passes |= ic < ij && cj != FAR && ic.wrapping_add(cj) == ij;
                }
            }
            let mut out: Vec<(u32, u32)> = (0..b)
                .filter(|&j| j != i && row[j] != FAR && !passes_border[j])
                .map(|j| (lo + border[j], row[j]))
                .collect();
            out.extend(
                graph
                    .edges(lo + border[i])
                    .filter(|&(t, _)| t < lo || t >= hi),
            );
            out
        })
        .collect()
}

/// [`Eliminator::border_costs`] by a Dijkstra from each border node: for clusters too big
/// for its dense tables.
fn border_costs_by_search(
    graph: &SearchGraph,
    (lo, hi): (u32, u32),
    border: &[u32],
    local: &mut LocalSearch,
    costs: &mut Vec<u32>,
) {
    costs.clear();
    for &from in border {
        let is_border = |id: u32| graph.is_border(id);
        local.run_marking(graph, (lo, hi), lo + from, &is_border, border.len());
        costs.extend(border.iter().map(|&to| local.dist[to as usize]));
    }
}

/// The clusters of `graph` as `(key, first search id, end)`, the border nodes' search ids
/// and each search id's border index.
#[allow(clippy::type_complexity)]
fn layout(graph: &SearchGraph) -> (Vec<(u32, u32, u32)>, Vec<u32>, BorderRank) {
    let border = graph.border_ids();
    let border_of = BorderRank::new(graph.len() as u32, &border);
    (graph.cluster_ranges(), border, border_of)
}

/// The border nodes among the search ids as one bit each, with the count of border nodes
/// before each word of 64: a border node's index is that count plus the border bits
/// below it in its word. An index per search id would be 4 bytes a node (10 MB at 8192²);
/// this is a quarter of a byte, and small enough to stay in cache while a search asks it
/// of every edge it relaxes in an opened cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct BorderRank {
    /// Per word of 64 search ids: `(bits, border nodes before the word)`.
    words: Vec<(u64, u32)>,
    /// Search ids covered.
    len: u32,
}

impl BorderRank {
    /// Over `n` search ids, of which `border` (ascending) are border nodes.
    fn new(n: u32, border: &[u32]) -> Self {
        let mut words = vec![(0u64, 0u32); (n as usize).div_ceil(64)];
        for &id in border {
            words[id as usize / 64].0 |= 1 << (id % 64);
        }
        let mut before = 0u32;
        for (bits, count) in &mut words {
            *count = before;
            before += bits.count_ones();
        }
        Self { words, len: n }
    }

    /// Border index of search id `id`, if it is a border node.
    #[inline]
    fn index(&self, id: u32) -> Option<u32> {
        let &(bits, before) = self.words.get(id as usize / 64)?;
        let bit = 1u64 << (id % 64);
        (bits & bit != 0).then(|| before + (bits & (bit - 1)).count_ones())
    }

    /// Search ids covered (border nodes or not).
    fn len(&self) -> usize {
        self.len as usize
    }

    /// Bytes it holds.
    fn memory(&self) -> usize {
        size_of::<(u64, u32)>() * self.words.capacity()
    }
}

/// Dijkstra inside one cluster, with memory reused between runs.
#[derive(Debug, Default)]
pub struct LocalSearch {
    dist: Vec<u32>,
    /// Each reached node's predecessor ([`FAR`] for none).
    parent: Vec<u32>,
    /// `cost << 32 | node` keys: one compare per sift step.
    heap: BinaryHeap<Reverse<u64>>,
}

impl LocalSearch {
    /// [`LocalSearch::run`] until the `marked` nodes of the range (`count` of them, `from`
    /// included if marked) have their final costs. Nodes farther than every marked one may
    /// stay unsettled: what the shortcuts and a goal's way out of its cluster need, at a
    /// fraction of a whole run.
    pub fn run_marking(
        &mut self,
        graph: &SearchGraph,
        range: (u32, u32),
        from: u32,
        marked: &dyn Fn(u32) -> bool,
        count: usize,
    ) {
        self.search(graph, range, from, None, Some((marked, count)), |_| 0);
    }

    /// Costs from `from` to the nodes of the search-id range `(lo, hi)` over edges inside it,
    /// with each node's parent; with `stop = Some((node, least))`, stops once `node` is
    /// settled, or reached at cost `least` when no stretch to it costs less (a shortcut's
    /// weight): the nodes between its last hop and it then stay unsettled.
    pub fn run(
        &mut self,
        graph: &SearchGraph,
        range: (u32, u32),
        from: u32,
        stop: Option<(u32, u32)>,
    ) {
        self.search(graph, range, from, stop, None, |_| 0);
    }

    /// Dijkstra over the range, or A* under `h`, a consistent lower bound on the cost to
    /// `stop`'s node (`|_| 0` for plain runs); see [`Self::run`] and [`Self::run_marking`].
    fn search(
        &mut self,
        graph: &SearchGraph,
        (lo, hi): (u32, u32),
        from: u32,
        stop: Option<(u32, u32)>,
        marked: Option<(&dyn Fn(u32) -> bool, usize)>,
        h: impl Fn(u32) -> u32,
    ) {
        let len = (hi - lo) as usize;
        for v in [&mut self.dist, &mut self.parent] {
            v.clear();
            v.resize(len, FAR);
        }
        self.heap.clear();
        if from < lo || from >= hi {
            return;
        }
        self.dist[(from - lo) as usize] = 0;
        self.heap
            .push(Reverse(u64::from(h(from)) << 32 | u64::from(from)));
        let (target, least) = stop.unwrap_or((FAR, 0));
        // Marked nodes left to settle, and once none is, the cost of the last: a node
        // popped beyond it cannot change a marked node's cost.
        let (mut left, mut last_marked) = (marked.map_or(usize::MAX, |(_, count)| count), FAR);
        'search: while let Some(Reverse(key)) = self.heap.pop() {
            let (f, v) = ((key >> 32) as u32, key as u32);
            let vi = (v - lo) as usize;
            let d = self.dist[vi];
            if f > d.saturating_add(h(v)) {
                continue;
            }
            if v == target || d > last_marked {
                break;
            }
            if let Some((marked, _)) = marked
                && marked(v)
                && left > 0
            {
                left -= 1;
                if left == 0 {
                    last_marked = d;
                }
            }
            for (t, w) in graph.edges(v) {
                if t < lo || t >= hi {
                    continue;
                }
                let nd = d.saturating_add(w);
                let ti = (t - lo) as usize;
                if nd < self.dist[ti] {
                    self.dist[ti] = nd;
                    self.parent[ti] = v;
                    if t == target && nd <= least {
                        break 'search;
                    }
                    let nf = nd.saturating_add(h(t));
                    self.heap.push(Reverse(u64::from(nf) << 32 | u64::from(t)));
                }
            }
        }
    }

    /// Appends to `out` the nodes after `a` of the cheapest stretch from `a` to `b` inside
    /// the cluster spanning `range`, each with its cost from the route's source (`ga` at
    /// `a`); just `b` if there is none (which cannot happen for a shortcut the build found).
    /// The search is A* under `h`, a consistent lower bound on the cost left to `b`.
    fn stretch(
        &mut self,
        graph: &SearchGraph,
        range: (u32, u32),
        (a, ga): (u32, u32),
        (b, gb): (u32, u32),
        out: &mut Vec<(u32, u32)>,
        h: impl Fn(u32) -> u32,
    ) {
        self.search(graph, range, a, Some((b, gb.saturating_sub(ga))), None, h);
        let (lo, from) = (range.0, out.len());
        let mut at = b;
        while at != a {
            let i = (at - lo) as usize;
            out.push((at, ga.saturating_add(self.dist[i])));
            at = self.parent[i];
            if at == FAR {
                out.truncate(from);
                out.push((b, gb));
                return;
            }
        }
        out[from..].reverse();
    }

    /// Cost from the last run's source to search id `id` of range starting at `lo`.
    #[must_use]
    pub fn cost(&self, lo: u32, id: u32) -> Option<u32> {
        self.dist
            .get(id.checked_sub(lo)? as usize)
            .copied()
            .filter(|&d| d != FAR)
    }
}

/// The hierarchy and landmark tables a search reads, with the clusters it opens.
pub struct ClusterQuery<'a> {
    /// The cluster graph.
    pub hierarchy: &'a Hierarchy,
    /// Opened clusters, by key: their nodes are expanded over the graph's own edges.
    pub open: &'a [bool],
    /// Landmark bounds over border nodes, by border index.
    pub bounds: Option<&'a super::landmarks::LandmarkBounds<'a>>,
    /// The levels above the clusters, when the search crosses them (the hierarchy's own,
    /// or none for a search over the clusters alone).
    pub levels: Option<&'a Levels>,
    /// The landmark tables the bounds come from (they guide the levels' unpacking).
    pub landmarks: Option<&'a ClusterLandmarks>,
}

impl ClusterQuery<'_> {
    /// Whether the cluster with key `key` is opened.
    #[must_use]
    pub fn is_open(&self, key: u32) -> bool {
        self.open.get(key as usize).copied().unwrap_or(true)
    }
}

#[cfg(test)]
mod tests;
