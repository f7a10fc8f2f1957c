//! A* and merging A* over the portal graph (SupCom2's path request, step 1).
//!
//! The search runs over the layer's portal nodes plus two virtual ends: the source (joined to
//! the nodes of its sector by the costs of an integration of that sector from the source cell)
//! and the goal (joined from the nodes of the goal sector by an integration from the goal).
//! **Merging A***: a later source of the same request may also finish at any node already on
//! an earlier route, paying that node's known remaining cost, so routes join instead of
//! running side by side and share their flow tiles.

use super::hierarchy::{ClusterQuery, Hierarchy, Hop, OpenCells, RefineOver, Refining};
use super::landmarks::LandmarkBounds;
pub use super::search_graph::SearchGraph;

/// Reusable search memory; a generation counter replaces clearing per search.
#[derive(Debug, Default)]
pub struct SearchScratch {
    /// Even; a node record is seen in this search when its stamp is `generation` (open) or
    /// `generation + 1` (expanded).
    generation: u32,
    /// One 16-byte record per node of the search (by the index of its `Space`), so a
    /// relaxation touches one cache line.
    nodes: Vec<NodeState>,
    /// Keys `f >> bucket_shift | off_line | node` packed into one integer (see [`search`]):
    /// one compare per sift step, and 8-byte entries keep the heap small.
    heap: MinHeap,
    /// Nodes expanded over all searches (a measure of the heuristic's strength).
    pub expanded: u64,
    /// The last search's route as `(search id, cost from the source)`.
    route: Vec<(u32, u32)>,
    /// Of a search over the hierarchy: its opened clusters and finishing nodes, in the
    /// search's own indices (see `ClusterSpace`).
    opened: Vec<(u32, u32, u32)>,
    cluster_finishes: FinishCosts,
    /// Of a search over the hierarchy's levels: the cells holding opened clusters.
    open_cells: OpenCells,
    /// A hierarchical route under refinement, with its searches' memory.
    refining: Refining,
    /// The hops of the last route left unrefined (see [`SearchEnds::eager_ring`]).
    far: Vec<Hop>,
    /// Of a search suspended at a deadline ([`search_until`]): the best finish found so
    /// far, `(total cost, node)`; `None` when no search is under way.
    suspended: Option<Option<(u32, u32)>>,
    /// Of a search that found its route: the route's cost while its refinement is under
    /// way (`false`) or done (`true`) across calls of [`search_until`].
    found: Option<(u32, bool)>,
    /// The edges of the node being expanded (see [`run`]).
    edges: Vec<(u32, u32)>,
}

impl SearchScratch {
    /// Forgets a search suspended by [`search_until`]: the next search starts afresh.
    pub fn abandon(&mut self) {
        self.suspended = None;
        self.found = None;
    }

    /// Keeps the last search's route, of cost `cost`, for the next [`search_until`] to
    /// give again (a caller not ready to use it in this call).
    pub fn hold(&mut self, cost: u32) {
        self.found = Some((cost, true));
    }

    /// Whether a route is held (see [`Self::hold`]): the next [`search_until`] gives it
    /// without working.
    #[must_use]
    pub fn is_held(&self) -> bool {
        matches!(self.found, Some((_, true)))
    }
}

/// A min-heap of search keys with four children per entry: half the levels of a binary
/// heap, the four children in one cache line, and a branch-free pick of the least. A pop
/// was a tenth of a warm 8192² search with a binary heap of some 10,000 entries. The
/// smallest key comes first as from any min-heap (equal keys are equal entries), so the
/// searches expand the same nodes in the same order.
#[derive(Debug, Default)]
struct MinHeap {
    keys: Vec<u64>,
}

impl MinHeap {
    fn clear(&mut self) {
        self.keys.clear();
    }

    fn push(&mut self, key: u64) {
        let keys = &mut self.keys;
        let mut at = keys.len();
        keys.push(key);
        while at > 0 {
            let parent = (at - 1) / 4;
            if keys[parent] <= key {
                break;
            }
            keys[at] = keys[parent];
            at = parent;
        }
        keys[at] = key;
    }

    fn pop(&mut self) -> Option<u64> {
        let keys = &mut self.keys;
        let last = keys.pop()?;
        if keys.is_empty() {
            return Some(last);
        }
        let top = keys[0];
        let n = keys.len();
        let mut at = 0;
        loop {
            let first = 4 * at + 1;
            if first >= n {
                break;
            }
            let mut least = first;
            if first + 4 <= n {
                // All four children: pick without branches on the keys.
                let c = &keys[first..first + 4];
                let a = if c[1] < c[0] { 1 } else { 0 };
                let b = if c[3] < c[2] { 3 } else { 2 };
                least += if c[b] < c[a] { b } else { a };
            } else {
                for child in first + 1..n {
                    if keys[child] < keys[least] {
                        least = child;
                    }
                }
            }
            if keys[least] >= last {
                break;
            }
            keys[at] = keys[least];
            at = least;
        }
        keys[at] = last;
        Some(top)
    }
}

/// Expansions between two looks at the clock of a search with a deadline (a look costs
/// about as much as an expansion).
const CLOCK_EVERY: u32 = 32;

/// Search state of one node; fields are valid while `stamp` is the current generation
/// (open) or the one after it (expanded).
#[derive(Clone, Copy, Debug, Default, bytemuck::Zeroable)]
struct NodeState {
    stamp: u32,
    g: u32,
    /// Heuristic, computed once per search.
    h: u32,
    parent: u32,
}

/// A zeroed vector of `len` whose pages stay unmapped until written. glibc serves a block
/// of more than 32 MiB from fresh pages of its own, always; a smaller one may come from
/// memory freed before, which `calloc` then clears, mapping every page. So a table of a
/// megabyte or more asks for that much and is cut to `len`: the rest is address space only.
pub(crate) fn sparse_zeroed<T: bytemuck::Zeroable + Clone>(len: usize) -> Vec<T> {
    const FRESH_BYTES: usize = (32 << 20) + (64 << 10);
    let size = size_of::<T>().max(1);
    let mut v: Vec<T> = if len.saturating_mul(size) >= 1 << 20 {
        bytemuck::zeroed_vec(len.max(FRESH_BYTES.div_ceil(size)))
    } else {
        bytemuck::zeroed_vec(len)
    };
    v.truncate(len);
    v
}

/// Remaining costs of a request's finishing nodes, dense by node id: the search asks for
/// every node it touches, and a hash lookup per relaxation was a tenth of a request.
#[derive(Debug, Default)]
pub struct FinishCosts {
    /// Per node its remaining cost plus one, 0 for none: a zeroed array comes from the
    /// allocator unwritten, so the pages no finish lands on are never mapped.
    cost: Vec<u32>,
    set: Vec<u32>,
}

impl FinishCosts {
    /// Empties the set, sized for at least `nodes` portal nodes.
    pub fn reset(&mut self, nodes: usize) {
        if self.cost.len() >= nodes {
            for &n in &self.set {
                self.cost[n as usize] = 0;
            }
        } else {
            self.cost = sparse_zeroed(nodes);
        }
        self.set.clear();
    }

    /// The remaining cost of `node`, if it is a finishing node.
    #[must_use]
    pub fn get(&self, node: u32) -> Option<u32> {
        self.cost
            .get(node as usize)
            .copied()
            .filter(|&c| c != 0)
            .map(|c| c - 1)
    }

    /// The finishing nodes with their remaining costs.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.set
            .iter()
            .map(|&n| (n, self.cost[n as usize].saturating_sub(1)))
    }

    /// Makes `node` a finishing node with remaining cost `rest` unless it already is one;
    /// returns its remaining cost.
    pub fn insert_absent(&mut self, node: u32, rest: u32) -> u32 {
        let Some(slot) = self.cost.get_mut(node as usize) else {
            return rest;
        };
        if *slot == 0 {
            *slot = rest.min(u32::MAX - 1) + 1;
            self.set.push(node);
        }
        *slot - 1
    }
}

/// Parent marker of nodes reached straight from the source.
const FROM_SOURCE: u32 = u32::MAX;

/// One search's ends.
pub struct SearchEnds<'a> {
    /// `(search id, cost from the source cell)` for the nodes of the source sector.
    pub starts: &'a [(u32, u32)],
    /// Remaining cost to the goal of nodes (by search id) that may end the search: the goal
    /// sector's nodes (cost from the node to the goal cell) and, when merging, nodes on
    /// earlier routes.
    pub finishes: &'a FinishCosts,
    /// Goal cell the tie-break's straight line runs to (of a goal set: the nearest).
    pub goal: (u32, u32),
    /// `(min, max)` corners of the goals' bounding box, for the straight-line heuristic: the
    /// distance to the box is at most the distance to any goal in it, so the bound stays
    /// admissible for a goal set (`(goal, goal)` for one goal).
    pub goal_box: ((u32, u32), (u32, u32)),
    /// Source cell: among keys of nearly equal `f` the search expands first the nodes whose
    /// parent lies nearest the straight line from source to goal, so of the many equally
    /// cheap staircase routes that 4-neighbour costs allow it keeps the straightest.
    pub source: (u32, u32),
    /// Heuristic inflation: 1.0 is plain A* (optimal over the graph); above 1 expands far
    /// fewer nodes for slightly longer routes (weighted A*).
    pub heuristic_weight: f32,
    /// ALT lower bounds for this search's finishing nodes, when the layer has landmarks (rows
    /// in search-id order, see [`super::landmarks::Landmarks::reordered`]); the heuristic is
    /// the larger of them and the straight-line distance.
    pub landmarks: Option<&'a LandmarkBounds<'a>>,
    /// The sector hierarchy, when the search runs over it: outside the clusters it opens,
    /// only border nodes are expanded, over shortcuts (see [`super::hierarchy`]), and its
    /// landmark bounds (over border nodes) replace `landmarks`.
    pub clusters: Option<&'a ClusterQuery<'a>>,
    /// Of a search over the hierarchy whose route is refined lazily: the source's cluster
    /// (`(x, y)` in clusters) and how many rings of clusters around it the route is refined
    /// through at once; the hops after it are left as found ([`far_hops`]).
    pub eager_ring: Option<((u32, u32), u32)>,
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

/// Width of the `f` ranges within which a weighted portal search prefers nodes near the
/// straight line; a power of two. A route found at the default heuristic weight costs at
/// most 1.1 × the optimum plus this much.
pub const TIE_BUCKET: u32 = 4;

/// Bits of the heap key for the distance from the source–goal line.
const LINE_BITS: u32 = 16;

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

/// Octile distance between cells at the cheapest cell cost (1), rounded down: the length of
/// an 8-connected line between them.
#[must_use]
pub fn octile(a: (u32, u32), b: (u32, u32)) -> u32 {
    let dx = a.0.abs_diff(b.0);
    let dy = a.1.abs_diff(b.1);
    dx.max(dy) + (dx.min(dy) * 414) / 1000
}

/// Straight-line distance between cells at the cheapest cell cost (1), rounded down: the
/// search's heuristic. Edge weights come from the Eikonal integration, which on clear ground
/// approaches the straight line from above (see [`crate::integrate`]), so the octile
/// distance (up to 8 % longer) would overestimate them.
#[must_use]
pub fn straight_line(a: (u32, u32), b: (u32, u32)) -> u32 {
    let dx = u64::from(a.0.abs_diff(b.0));
    let dy = u64::from(a.1.abs_diff(b.1));
    // Exact in f64 for any map side (squares below 2^53).
    ((dx * dx + dy * dy) as f64).sqrt() as u32
}

/// [`straight_line`] from `a` to the nearest cell of the box `(min, max)` (inclusive corners).
#[must_use]
pub fn straight_line_to_box(a: (u32, u32), (min, max): ((u32, u32), (u32, u32))) -> u32 {
    let nearest = (
        a.0.clamp(min.0, max.0.max(min.0)),
        a.1.clamp(min.1, max.1.max(min.1)),
    );
    straight_line(a, nearest)
}

#[cfg(test)]
/// A* from the source to the cheapest finishing node over `graph` (the layout of the layer
/// whose nodes the ends name): `ends` name nodes by search id ([`SearchGraph::search_id`]),
/// the route names portal nodes. `None` when no node finishes.
pub fn search(
    graph: &SearchGraph,
    ends: &SearchEnds<'_>,
    scratch: &mut SearchScratch,
) -> Option<Route> {
    scratch.abandon();
    search_until(graph, ends, scratch, None).flatten()
}

/// [`search`] that stops at `deadline` (checked every few dozen expansions, and after
/// each hop the refinement of a hierarchical route unpacks): `None` when it stopped before
/// finishing, its state kept in `scratch` until a later call with the same `graph` and
/// `ends` goes on from there (any other search first calls [`SearchScratch::abandon`], as
/// [`search`] does). A route refined past the deadline is kept for the next call too, so
/// the caller's work on it starts with a fresh budget. Going on in steps finds exactly the
/// route one call finds.
pub fn search_until(
    graph: &SearchGraph,
    ends: &SearchEnds<'_>,
    scratch: &mut SearchScratch,
    deadline: Option<std::time::Instant>,
) -> Option<Option<Route>> {
    let (cost, refined) = match scratch.found.take() {
        Some(found) => found,
        None => {
            let cost = match ends.clusters {
                Some(q) => {
                    let mut opened = std::mem::take(&mut scratch.opened);
                    let mut finishes = std::mem::take(&mut scratch.cluster_finishes);
                    let mut cells = std::mem::take(&mut scratch.open_cells);
                    let found = {
                        let space = ClusterSpace::new(
                            graph,
                            q,
                            ends,
                            &mut opened,
                            &mut finishes,
                            &mut cells,
                        );
                        run(&space, ends, scratch, deadline)
                    };
                    (scratch.opened, scratch.cluster_finishes) = (opened, finishes);
                    scratch.open_cells = cells;
                    found
                }
                None => run(&FlatSpace { graph, ends }, ends, scratch, deadline),
            };
            let Some(cost) = cost? else {
                return Some(None);
            };
            scratch.far.clear();
            if ends.clusters.is_some() {
                // Hops from the first node outside the rings stay as found.
                let stop = ends.eager_ring.map_or(usize::MAX, |((x, y), ring)| {
                    scratch
                        .route
                        .iter()
                        .position(|&(id, _)| {
                            let (cx, cy) = graph.cluster_xy(id);
                            cx.abs_diff(x) > ring || cy.abs_diff(y) > ring
                        })
                        .map_or(usize::MAX, |p| p + 1)
                });
                scratch.refining.start(&scratch.route, stop);
            }
            (cost, ends.clusters.is_none())
        }
    };
    if !refined && let Some(q) = ends.clusters {
        let over = RefineOver {
            graph,
            hierarchy: q.hierarchy,
            levels: q.levels,
            landmarks: q.landmarks,
            open_cells: &scratch.open_cells,
            is_open: &|key| q.is_open(key),
        };
        let done = scratch.refining.run(&over, deadline);
        if !done {
            scratch.found = Some((cost, false));
            return None;
        }
        scratch.far = scratch.refining.far_hops(&over);
        scratch.route.clear();
        scratch.route.extend_from_slice(scratch.refining.route());
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            scratch.found = Some((cost, true));
            return None;
        }
    }
    let nodes = scratch
        .route
        .iter()
        .map(|&(id, _)| graph.node_id(id))
        .collect();
    Some(Some(Route { nodes, cost }))
}

/// The nodes one search runs over, by a dense index of its own.
trait Space {
    /// Number of indices.
    fn len(&self) -> usize;
    /// Index of search id `id`; `None` for a node the search cannot reach.
    fn index(&self, id: u32) -> Option<u32>;
    /// Search id of index `i`.
    fn id(&self, i: u32) -> u32;
    /// Window centre of index `i`.
    fn center(&self, i: u32) -> (u32, u32);
    /// Remaining cost of index `i` if the search may finish there.
    fn finish(&self, i: u32) -> Option<u32>;
    /// The landmark bound at index `i` (before weighting); `None` leaves the straight line to the goals.
    fn bound(&self, i: u32) -> Option<u32>;
    /// Calls `relax(target index, weight)` for each edge the search takes from index `i`.
    fn edges(&self, i: u32, relax: impl FnMut(u32, u32));
}

/// The layer's whole graph, indexed by search id.
struct FlatSpace<'a> {
    graph: &'a SearchGraph,
    ends: &'a SearchEnds<'a>,
}

impl Space for FlatSpace<'_> {
    fn len(&self) -> usize {
        self.graph.len()
    }
    fn index(&self, id: u32) -> Option<u32> {
        Some(id)
    }
    fn id(&self, i: u32) -> u32 {
        i
    }
    fn center(&self, i: u32) -> (u32, u32) {
        self.graph.center(i)
    }
    fn finish(&self, i: u32) -> Option<u32> {
        self.ends.finishes.get(i)
    }
    fn bound(&self, i: u32) -> Option<u32> {
        self.ends.landmarks.and_then(|b| b.lower_bound(i))
    }
    fn edges(&self, i: u32, mut relax: impl FnMut(u32, u32)) {
        for (t, w) in self.graph.edges(i) {
            relax(t, w);
        }
    }
}

/// The hierarchy's view: border nodes by border index, then the nodes of each cluster the
/// search opens, the cluster's search-id range laid out from a base index on (its border
/// nodes' slots unused). A search across the map then keeps its state in a table of border
/// nodes (an eighth of the nodes) and reads edges and centres from the hierarchy's arrays.
struct ClusterSpace<'a> {
    graph: &'a SearchGraph,
    query: &'a ClusterQuery<'a>,
    /// `(first search id, end, base index)` per opened cluster, by search id.
    opened: &'a [(u32, u32, u32)],
    /// Remaining costs of the finishing nodes, by index.
    finishes: &'a FinishCosts,
    /// Cells of the levels that hold opened clusters.
    open_cells: &'a OpenCells,
    len: usize,
}

impl<'a> ClusterSpace<'a> {
    fn new(
        graph: &'a SearchGraph,
        query: &'a ClusterQuery<'a>,
        ends: &SearchEnds<'_>,
        opened: &'a mut Vec<(u32, u32, u32)>,
        finishes: &'a mut FinishCosts,
        open_cells: &'a mut OpenCells,
    ) -> Self {
        let h = query.hierarchy;
        let mut len = h.border_count() as u32;
        opened.clear();
        let keys = open_keys(query.open);
        for &key in &keys {
            if let Some((lo, hi)) = h.cluster_range(key) {
                opened.push((lo, hi, len));
                len += hi - lo;
            }
        }
        if let Some(levels) = query.levels {
            levels.mark_open(keys.iter().copied(), open_cells);
        }
        let opened: &'a [(u32, u32, u32)] = opened;
        finishes.reset(len as usize);
        for (id, rest) in ends.finishes.iter() {
            if let Some(i) = index_in(h, opened, id) {
                finishes.insert_absent(i, rest);
            }
        }
        Self {
            graph,
            query,
            opened,
            finishes,
            open_cells,
            len: len as usize,
        }
    }
}

/// The keys of the opened clusters, ascending. A request opens a few of the map's clusters
/// (16,000 keys at 8192²): the flags are scanned 64 at a time, each block with one
/// branch, since a flag at a time was a few percent of a request (once per level).
fn open_keys(open: &[bool]) -> Vec<u32> {
    const BLOCK: usize = 64;
    let mut keys = Vec::new();
    for (b, block) in open.chunks(BLOCK).enumerate() {
        if block.iter().fold(false, |any, &o| any | o) {
            keys.extend(
                block
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| **o)
                    .map(|(i, _)| (b * BLOCK + i) as u32),
            );
        }
    }
    keys
}

/// The entry of `opened` (by search id) whose range holds `id`.
fn opened_at(opened: &[(u32, u32, u32)], id: u32) -> Option<(u32, u32, u32)> {
    let i = opened
        .partition_point(|&(lo, _, _)| lo <= id)
        .checked_sub(1)?;
    let (lo, hi, base) = opened[i];
    (id < hi).then_some((lo, hi, base))
}

/// [`ClusterSpace`]'s index of search id `id`.
fn index_in(h: &Hierarchy, opened: &[(u32, u32, u32)], id: u32) -> Option<u32> {
    if let Some(b) = h.border_index(id) {
        return Some(b);
    }
    let (lo, _, base) = opened_at(opened, id)?;
    Some(base + id - lo)
}

impl Space for ClusterSpace<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn index(&self, id: u32) -> Option<u32> {
        index_in(self.query.hierarchy, self.opened, id)
    }
    fn id(&self, i: u32) -> u32 {
        let h = self.query.hierarchy;
        if (i as usize) < h.border_count() {
            return h.border_node(i);
        }
        let at = self.opened.partition_point(|&(_, _, base)| base <= i) - 1;
        let (lo, _, base) = self.opened[at];
        lo + i - base
    }
    fn center(&self, i: u32) -> (u32, u32) {
        let h = self.query.hierarchy;
        if (i as usize) < h.border_count() {
            h.border_center(i)
        } else {
            self.graph.center(self.id(i))
        }
    }
    fn finish(&self, i: u32) -> Option<u32> {
        self.finishes.get(i)
    }
    fn bound(&self, i: u32) -> Option<u32> {
        let bounds = self.query.bounds?;
        // Nodes inside opened clusters have no entries; the straight line between window
        // centres may overestimate, which the exact search must not (they are few: 0 there).
        if (i as usize) < self.query.hierarchy.border_count() {
            bounds.lower_bound(i)
        } else {
            Some(0)
        }
    }
    fn edges(&self, i: u32, mut relax: impl FnMut(u32, u32)) {
        let h = self.query.hierarchy;
        // In a cluster the search has not opened, a border node's edges are its shortcuts
        // and its edges out of the cluster, all to border nodes.
        // Over the levels, at the highest whose cell holds no opened cluster.
        if (i as usize) < h.border_count() && !self.query.is_open(h.border_key(i)) {
            match self.query.levels {
                Some(levels) => levels
                    .expand(h, i, h.border_key(i), self.open_cells)
                    .1
                    .for_each(|(t, w)| relax(t, w)),
                None => h.border_edges(i).for_each(|(t, w)| relax(t, w)),
            }
            return;
        }
        let id = self.id(i);
        let Some((lo, hi, base)) = opened_at(self.opened, id) else {
            return;
        };
        for (t, w) in self.graph.edges(id) {
            let index = match h.border_index(t) {
                Some(b) => b,
                None if t >= lo && t < hi => base + t - lo,
                None => continue,
            };
            relax(index, w);
        }
    }
}

/// The search over `space`: fills `scratch.route` with `(search id, cost from the source)`
/// and returns the route's total cost (`Some(None)` when no node finishes); `None` when it
/// stopped at `deadline`, to go on from there in the next call (see [`search_until`]).
fn run<S: Space>(
    space: &S,
    ends: &SearchEnds<'_>,
    scratch: &mut SearchScratch,
    deadline: Option<std::time::Instant>,
) -> Option<Option<u32>> {
    let resumed = scratch.suspended.take();
    let n = space.len();
    if resumed.is_none() {
        if scratch.nodes.len() < n {
            // Zeroed by the allocator, not written: a search touches a few thousand of the
            // 2.6 million states of an 8192² layer, and the rest (40 MB) need never be
            // mapped. A stamp of 0 is older than any generation, so no old state needs
            // keeping.
            scratch.nodes = sparse_zeroed(n.next_power_of_two());
            scratch.generation = 0;
        }
        scratch.generation = scratch.generation.wrapping_add(2);
        if scratch.generation >= u32::MAX - 2 || scratch.generation == 0 {
            scratch.nodes.fill(NodeState::default());
            scratch.generation = 2;
        }
        scratch.heap.clear();
    }
    let open = scratch.generation;
    let closed = open + 1;
    let weight = ends.heuristic_weight.max(1.0);
    // With landmarks, their bound alone: it is exact over the graph (admissible and
    // consistent), while the straight line between window centres may overestimate by up
    // to half a window per hop; the straight line stays for nodes no landmark reaches.
    let h = |i: u32| {
        let bound = space
            .bound(i)
            .unwrap_or_else(|| straight_line_to_box(space.center(i), ends.goal_box));
        (bound as f32 * weight) as u32
    };
    let line = off_line(ends.source, ends.goal);
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
    // Key bits, high to low: `f >> bucket_shift`, the parent's distance from the line (16
    // bits), the node (as many bits as the graph needs). Both leading fields saturate; a
    // saturated `f` only orders ties worse (the checks below take it as a lower bound).
    let node_bits = u64::BITS - (n.max(2) as u64 - 1).leading_zeros();
    let f_shift = node_bits + LINE_BITS;
    let f_max = u64::MAX >> f_shift;
    let key = |f: u32, off_line: u32, node: u32| {
        (u64::from(f >> bucket_shift).min(f_max) << f_shift)
            | (u64::from(off_line).min((1 << LINE_BITS) - 1) << node_bits)
            | u64::from(node)
    };
    let node_mask = (1u64 << node_bits) - 1;
    let states = &mut scratch.nodes;
    let heap = &mut scratch.heap;
    let starts = if resumed.is_some() {
        &[][..]
    } else {
        ends.starts
    };
    for &(id, cost) in starts {
        let Some(node) = space.index(id) else {
            continue;
        };
        let s = &mut states[node as usize];
        if s.stamp < open {
            s.h = h(node);
        } else if cost >= s.g {
            continue;
        }
        s.stamp = open;
        s.g = cost;
        s.parent = FROM_SOURCE;
        heap.push(key(
            cost.saturating_add(s.h),
            line(space.center(node)),
            node,
        ));
    }
    // Best finish found so far: (total cost, node).
    let mut best: Option<(u32, u32)> = resumed.flatten();
    let mut until_clock = CLOCK_EVERY;
    while let Some(entry) = heap.pop() {
        if let Some(deadline) = deadline {
            until_clock -= 1;
            if until_clock == 0 {
                until_clock = CLOCK_EVERY;
                if std::time::Instant::now() >= deadline {
                    heap.push(entry);
                    scratch.suspended = Some(best);
                    return None;
                }
            }
        }
        // `f` rounded down to its bucket: exact for exact searches, a lower bound otherwise.
        let f_bucket = entry >> f_shift;
        let node = (entry & node_mask) as u32;
        if best.is_some_and(|(b, _)| f_bucket << bucket_shift >= u64::from(b)) {
            break;
        }
        let s = &mut states[node as usize];
        let g = s.g;
        let stale = f_bucket < f_max && f_bucket > u64::from(g.saturating_add(s.h) >> bucket_shift);
        if stale || (!reopen && s.stamp == closed) {
            continue; // stale heap entry
        }
        s.stamp = closed;
        scratch.expanded += 1;
        if let Some(rest) = space.finish(node) {
            let total = g.saturating_add(rest);
            if best.is_none_or(|(b, _)| total < b) {
                best = Some((total, node));
            }
        }
        // A node's tie-break is its parent's distance from the line: one node record read
        // per expansion rather than per relaxed edge.
        let parent_line = line(space.center(node));
        // The edges are read into a buffer and relaxed in one loop here: a node of the
        // levels has hundreds, and relaxing them in the closure the edge readers call
        // (once per kind of edge list) left it a call per edge.
        let edges = &mut scratch.edges;
        edges.clear();
        space.edges(node, |next, w| edges.push((next, w)));
        for &(next, w) in edges.iter() {
            let t = &mut states[next as usize];
            let ng = g.saturating_add(w);
            if t.stamp < open {
                t.h = h(next);
            } else if ng >= t.g || (!reopen && t.stamp == closed) {
                continue;
            }
            t.stamp = open;
            t.g = ng;
            t.parent = node;
            heap.push(key(ng.saturating_add(t.h), parent_line, next));
        }
    }
    let Some((cost, last)) = best else {
        return Some(None);
    };
    let route = &mut scratch.route;
    route.clear();
    let mut at = last;
    loop {
        let s = &states[at as usize];
        route.push((space.id(at), s.g));
        if s.parent == FROM_SOURCE {
            break;
        }
        at = s.parent;
    }
    route.reverse();
    Some(Some(cost))
}

/// The last search's route as `(search id, cost from the source)` per node, for callers
/// building remaining costs along it (its refined part, when [`far_hops`] are left).
#[must_use]
pub fn last_route(scratch: &SearchScratch) -> &[(u32, u32)] {
    &scratch.route
}

/// The hops of the last route left unrefined, in travel order (see
/// [`SearchEnds::eager_ring`]).
#[must_use]
pub fn far_hops(scratch: &SearchScratch) -> &[Hop] {
    &scratch.far
}

/// The cells holding the clusters the last search over the levels opened.
#[must_use]
pub(crate) fn open_cells(scratch: &SearchScratch) -> &OpenCells {
    &scratch.open_cells
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::landmarks::Landmarks;
    use crate::landmarks::tests::random_layer;
    use crate::layer::NavLayer;

    /// Virtual source `n` and sink `n + 1` around the portal graph of `n` nodes.
    pub(crate) fn oracle(
        layer: &NavLayer,
        starts: &[(u32, u32)],
        finishes: &[(u32, u32)],
    ) -> Option<u32> {
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
            let graph = SearchGraph::new(&layer);
            let marks = Landmarks::build(&layer)
                .unwrap()
                .reordered(graph.search_ids());
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
                let goal = layer.nodes[finishes[0].0 as usize].center();
                // The cheapest remaining cost of each finishing node, by search id.
                let mut finish = FinishCosts::default();
                finish.reset(graph.len());
                let mut by_cost = finishes.clone();
                by_cost.sort_by_key(|&(_, r)| r);
                for &(f, r) in &by_cost {
                    finish.insert_absent(graph.search_id(f), r);
                }
                let mut bounds = marks.bounds();
                for &(f, r) in &finishes {
                    bounds.add_finish(graph.search_id(f), r);
                }
                let search_starts: Vec<(u32, u32)> = starts
                    .iter()
                    .map(|&(v, c)| (graph.search_id(v), c))
                    .collect();
                for (weight, landmarks) in [(1.0, None), (1.0, Some(&bounds)), (1.1, Some(&bounds))]
                {
                    let ends = SearchEnds {
                        starts: &search_starts,
                        finishes: &finish,
                        goal,
                        goal_box: (goal, goal),
                        source: layer.nodes[starts[0].0 as usize].center(),
                        heuristic_weight: weight,
                        landmarks,
                        clusters: None,
                        eager_ring: None,
                    };
                    let found = search(&graph, &ends, &mut scratch).map(|r| r.cost);
                    match (truth, found) {
                        (None, None) => {}
                        (Some(t), Some(f)) if landmarks.is_none() => {
                            // Random finishes ignore the goal cell, so the straight line guides badly
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

    #[test]
    fn min_heap_pops_what_a_binary_heap_pops() {
        use crate::rng::SplitMix64;
        use std::cmp::Reverse;
        for seed in 0..50 {
            let mut rng = SplitMix64::new(seed);
            let mut ours = MinHeap::default();
            let mut theirs = std::collections::BinaryHeap::new();
            for _ in 0..2000 {
                if rng.chance(0.55) {
                    // Few distinct keys, so equal ones meet.
                    let k = u64::from(rng.below(300)) << 20 | u64::from(rng.below(4));
                    ours.push(k);
                    theirs.push(Reverse(k));
                } else {
                    assert_eq!(ours.pop(), theirs.pop().map(|r| r.0), "seed {seed}");
                }
            }
            while let Some(Reverse(k)) = theirs.pop() {
                assert_eq!(ours.pop(), Some(k), "seed {seed}");
            }
            assert_eq!(ours.pop(), None);
            ours.clear();
        }
    }
}
