//! Levels of the sector hierarchy above its clusters (HPA*'s recursive levels): level `j`
//! groups the clusters into cells of `2^j × 2^j` (an aligned block of cluster keys, so one
//! range of border indices). A level's **members** are the border nodes with an edge leaving
//! their cell or entering it; each member's edges at the level are shortcuts to the cell's
//! other members (the cheapest cost inside the cell over the level below) and its own edges
//! out of the cell. Every route decomposes into stretches inside cells between members, so
//! each level keeps the border graph's distances exactly.
//!
//! A search expands each border node at the highest level whose cell holds no opened cluster
//! (the source's and the finishes'), so across the map it crosses a few big cells instead of
//! a hundred clusters. Its route is then unpacked level by level: a shortcut of level `j` by
//! an A* over level `j − 1` inside its cell, bounded by the hierarchy's landmark tables and
//! stopped when it reaches the shortcut's end at the shortcut's weight (see
//! [`Levels::unpack_hop`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::{ClusterLandmarks, Hierarchy};

mod codec;
mod dense;

pub use codec::ParsedLevels;

/// Cluster-key bits of each level's cells (two per doubling of the side).
pub const LEVEL_SHIFTS: [u32; 4] = [2, 4, 6, 8];

/// Cells a level must have at least (by the Z-order key range): a level of a few big
/// cells costs more to build (a Dijkstra per rim node over a quarter of the map) than its
/// searches save.
const MIN_CELLS: u32 = 16;

/// Members' edges of one cell: `(member, [(target, weight)])`.
type CellEdges = Vec<(u32, Vec<(u32, u32)>)>;

/// A level's edges by border index: `b`'s are `edges[first[b]..first[b + 1]]`, as both the
/// hierarchy and [`Level`] hold them.
#[derive(Clone, Copy)]
struct Csr<'a> {
    first: &'a [u32],
    edges: &'a [(u32, u32)],
}

impl<'a> Csr<'a> {
    fn of(self, b: u32) -> &'a [(u32, u32)] {
        let b = b as usize;
        &self.edges[self.first[b] as usize..self.first[b + 1] as usize]
    }
}

use super::refining::Hop;

/// Cost marker of nodes a search has not reached.
const FAR: u32 = u32::MAX;

/// Landmarks an unpacking search reads.
const UNPACK_LANDMARKS: usize = 4;

/// The levels above one [`Hierarchy`], in its border indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Levels {
    levels: Vec<Level>,
}

/// One level: its members and their edges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Level {
    /// Cluster-key bits of a cell: a border node's cell is its cluster key shifted right.
    shift: u32,
    /// Per border index, whether it is a member.
    member: Vec<bool>,
    /// Per border index its first edge (non-members have none); one more closes the last.
    first: Vec<u32>,
    /// `(target border index, weight)`.
    edges: Vec<(u32, u32)>,
    /// `(cell, first border index, end)` per cell holding border nodes, in order.
    cells: Vec<(u32, u32, u32)>,
}

impl Level {
    fn edges(&self, b: u32) -> &[(u32, u32)] {
        let b = b as usize;
        &self.edges[self.first[b] as usize..self.first[b + 1] as usize]
    }
}

/// Per level, which cells hold an opened cluster: a search expands nothing at a level in
/// those cells.
#[derive(Clone, Debug, Default)]
pub struct OpenCells {
    per_level: Vec<Vec<bool>>,
}

impl Levels {
    /// Builds every level above `hierarchy` (one Dijkstra per member inside its cell, cells
    /// in parallel).
    #[must_use]
    pub fn build(hierarchy: &Hierarchy) -> Self {
        Self::rebuild(&Self::default(), hierarchy, &|_| true)
    }

    /// The levels above `hierarchy`, a rebuild of the one `old` was built over, reusing the
    /// shortcuts of `old`'s cells that hold no cluster `dirty` names (by key) and whose
    /// members sit where they did: equal to [`Self::build`] of `hierarchy`.
    #[must_use]
    pub fn rebuild(
        old: &Self,
        hierarchy: &Hierarchy,
        dirty: &(dyn Fn(u32) -> bool + Sync),
    ) -> Self {
        let top = hierarchy.border_key.last().copied().unwrap_or(0);
        let mut levels: Vec<Level> = Vec::new();
        for (j, &shift) in LEVEL_SHIFTS.iter().enumerate() {
            if (top >> shift) + 1 < MIN_CELLS {
                break;
            }
            let before = old.levels.get(j).filter(|l| l.shift == shift);
            let below = match levels.last() {
                Some(below) => Csr {
                    first: &below.first,
                    edges: &below.edges,
                },
                None => Csr {
                    first: &hierarchy.first,
                    edges: &hierarchy.edges,
                },
            };
            let level = build_level(hierarchy, below, shift, before, dirty);
            levels.push(level);
        }
        Self { levels }
    }

    /// Bytes each level holds (see [`crate::NavData::memory`]).
    pub(crate) fn memory(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        const NAMES: [&str; LEVEL_SHIFTS.len()] = [
            "levels: cells of 2 × 2 clusters",
            "levels: cells of 4 × 4 clusters",
            "levels: cells of 8 × 8 clusters",
            "levels: cells of 16 × 16 clusters",
        ];
        self.levels.iter().zip(NAMES).map(|(l, name)| {
            let bytes = l.member.capacity()
                + 4 * l.first.capacity()
                + 8 * l.edges.capacity()
                + 12 * l.cells.capacity();
            (name, bytes)
        })
    }

    /// Number of levels above the clusters.
    #[must_use]
    pub fn count(&self) -> usize {
        self.levels.len()
    }

    /// Marks the cells of every level that hold one of `open_keys` (cluster keys).
    pub fn mark_open(&self, open_keys: impl Iterator<Item = u32> + Clone, out: &mut OpenCells) {
        out.per_level.resize_with(self.levels.len(), Vec::new);
        for (level, cells) in self.levels.iter().zip(&mut out.per_level) {
            cells.clear();
            for key in open_keys.clone() {
                let cell = (key >> level.shift) as usize;
                if cells.len() <= cell {
                    cells.resize(cell + 1, false);
                }
                cells[cell] = true;
            }
        }
    }

    /// The level at which border node `b` (of cluster key `key`, in no opened cluster) is
    /// expanded: the highest whose cell holds no opened cluster, 0 for the clusters' own.
    #[must_use]
    pub fn level_of(&self, b: u32, key: u32, open: &OpenCells) -> usize {
        for (j, level) in self.levels.iter().enumerate().rev() {
            if !level.member[b as usize] {
                continue;
            }
            let cell = (key >> level.shift) as usize;
            let opened = open
                .per_level
                .get(j)
                .and_then(|cells| cells.get(cell))
                .copied()
                .unwrap_or(false);
            if !opened {
                return j + 1;
            }
        }
        0
    }

    /// The edges of border node `b` at `level` (0: the hierarchy's own).
    #[must_use]
    pub fn edges<'a>(&'a self, hierarchy: &'a Hierarchy, level: usize, b: u32) -> &'a [(u32, u32)] {
        match level {
            0 => hierarchy.border_edges(b),
            j => self.levels[j - 1].edges(b),
        }
    }

    /// Unpacks `hop`, a shortcut of a level above the clusters (found by a search that
    /// expanded nodes as [`Self::level_of`] says), into the hops of the cheapest stretch
    /// over the level below inside its cell: pushed onto `hops` last first, so the stack
    /// pops them in travel order. Pushes nothing for a hop that is one of the hierarchy's
    /// own edges (a cluster's shortcut or an edge between clusters), which
    /// [`Hierarchy::refine_hop`] then refines.
    pub(super) fn unpack_hop(
        &self,
        hierarchy: &Hierarchy,
        landmarks: Option<&ClusterLandmarks>,
        (a, b, level): Hop,
        scratch: &mut UnpackScratch,
        hops: &mut Vec<Hop>,
    ) {
        let (Some(ba), Some(bb)) = (hierarchy.border_index(a.0), hierarchy.border_index(b.0))
        else {
            return;
        };
        let Some(shift) = level
            .checked_sub(1)
            .and_then(|j| self.levels.get(j))
            .map(|l| l.shift)
        else {
            return;
        };
        let cell = hierarchy.border_key(ba) >> shift;
        if hierarchy.border_key(bb) >> shift != cell {
            return;
        }
        let lo = hierarchy.border_key.partition_point(|&k| k >> shift < cell) as u32;
        let hi = hierarchy
            .border_key
            .partition_point(|&k| k >> shift <= cell) as u32;
        let Some(nodes) = scratch.stretch(
            self,
            hierarchy,
            landmarks,
            level - 1,
            (lo, hi),
            (ba, a.1),
            (bb, b.1),
        ) else {
            return;
        };
        let from = hops.len();
        let mut prev = a;
        for &(n, g) in nodes {
            let next = (hierarchy.border_node(n), g);
            hops.push((prev, next, level - 1));
            prev = next;
        }
        hops[from..].reverse();
    }
}

/// Working memory of the searches that unpack a level's shortcuts, by border index.
#[derive(Debug, Default)]
pub struct UnpackScratch {
    dist: Vec<u32>,
    parent: Vec<u32>,
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<u64>>,
    way: Vec<(u32, u32)>,
}

impl UnpackScratch {
    /// The border nodes after `a` of the cheapest way from `a` to `b` over `level`'s edges
    /// inside border indices `lo..hi`, each with its cost from the route's source; `None`
    /// if there is none (a shortcut the build found always has one).
    #[allow(clippy::too_many_arguments)]
    fn stretch(
        &mut self,
        levels: &Levels,
        hierarchy: &Hierarchy,
        landmarks: Option<&ClusterLandmarks>,
        level: usize,
        (lo, hi): (u32, u32),
        (a, ga): (u32, u32),
        (b, gb): (u32, u32),
    ) -> Option<&[(u32, u32)]> {
        let n = hierarchy.border_count();
        if self.dist.len() < n {
            self.dist = vec![FAR; n];
            self.parent = vec![FAR; n];
        }
        for &v in &self.touched {
            self.dist[v as usize] = FAR;
        }
        self.touched.clear();
        self.heap.clear();
        let bounds = landmarks.map(|m| {
            let mut bounds = m.bounds();
            bounds.add_finish(b, 0);
            bounds.focus(a, UNPACK_LANDMARKS);
            bounds
        });
        let h = |v: u32| {
            bounds
                .as_ref()
                .and_then(|bd| bd.lower_bound(v))
                .unwrap_or(0)
        };
        let least = gb.saturating_sub(ga);
        self.dist[a as usize] = 0;
        self.touched.push(a);
        self.heap
            .push(Reverse(u64::from(h(a)) << 32 | u64::from(a)));
        let mut found = a == b;
        'search: while let Some(Reverse(key)) = self.heap.pop() {
            let (f, v) = ((key >> 32) as u32, key as u32);
            let d = self.dist[v as usize];
            if f > d.saturating_add(h(v)) {
                continue;
            }
            if v == b {
                found = true;
                break;
            }
            for &(t, w) in levels.edges(hierarchy, level, v) {
                if t < lo || t >= hi {
                    continue;
                }
                let nd = d.saturating_add(w);
                let ti = t as usize;
                if nd < self.dist[ti] {
                    if self.dist[ti] == FAR {
                        self.touched.push(t);
                    }
                    self.dist[ti] = nd;
                    self.parent[ti] = v;
                    // No stretch is cheaper than the shortcut's weight.
                    if t == b && nd <= least {
                        found = true;
                        break 'search;
                    }
                    let nf = nd.saturating_add(h(t));
                    self.heap.push(Reverse(u64::from(nf) << 32 | u64::from(t)));
                }
            }
        }
        if !found {
            return None;
        }
        self.way.clear();
        let mut at = b;
        while at != a {
            self.way
                .push((at, ga.saturating_add(self.dist[at as usize])));
            at = self.parent[at as usize];
            if at == FAR {
                return None;
            }
        }
        self.way.reverse();
        Some(&self.way)
    }
}

/// The member flags and cells of the level whose cells are `shift` bits of cluster key.
#[allow(clippy::type_complexity)]
fn members_and_cells(hierarchy: &Hierarchy, shift: u32) -> (Vec<bool>, Vec<(u32, u32, u32)>) {
    let n = hierarchy.border_count();
    let key = &hierarchy.border_key;
    let cell = |b: u32| key[b as usize] >> shift;
    let mut member = vec![false; n];
    for b in 0..n as u32 {
        for &(t, _) in hierarchy.border_edges(b) {
            if cell(t) != cell(b) {
                member[b as usize] = true;
                member[t as usize] = true;
            }
        }
    }
    let mut cells = Vec::new();
    if n > 0 {
        let mut lo = 0u32;
        for b in 1..=n as u32 {
            if b == n as u32 || cell(b) != cell(lo) {
                cells.push((cell(lo), lo, b));
                lo = b;
            }
        }
    }
    (member, cells)
}

/// Border node `from`'s own edges that leave the cell spanning border indices `lo..hi`:
/// every level keeps them as they are.
fn edges_out_of(
    hierarchy: &Hierarchy,
    from: u32,
    (lo, hi): (u32, u32),
) -> impl Iterator<Item = (u32, u32)> + '_ {
    hierarchy
        .border_edges(from)
        .iter()
        .copied()
        .filter(move |&(t, _)| t < lo || t >= hi)
}

/// The level whose cells are `shift` bits of cluster key, over the level below whose
/// edges `below` gives; a cell of `before` (the same level before a rebuild) holding no
/// `dirty` cluster and its members where they were keeps its shortcuts.
fn build_level(
    hierarchy: &Hierarchy,
    below: Csr<'_>,
    shift: u32,
    before: Option<&Level>,
    dirty: &(dyn Fn(u32) -> bool + Sync),
) -> Level {
    let n = hierarchy.border_count();
    let (member, cells) = members_and_cells(hierarchy, shift);
    let member_ref = &member;
    let lists: Vec<CellEdges> = cells
        .par_iter()
        .map(|&(cell, lo, hi)| {
            before
                .and_then(|old| reused_cell(hierarchy, old, member_ref, (cell, lo, hi), dirty))
                .or_else(|| dense::cell_edges(hierarchy, below, member_ref, (lo, hi)))
                .unwrap_or_else(|| cell_edges(hierarchy, below, member_ref, (lo, hi)))
        })
        .collect();
    let mut first = Vec::with_capacity(n + 1);
    let mut edges = Vec::new();
    let mut next = 0u32;
    for (from, list) in lists.into_iter().flatten() {
        while next <= from {
            first.push(edges.len() as u32);
            next += 1;
        }
        edges.extend(list);
    }
    while first.len() <= n {
        first.push(edges.len() as u32);
    }
    Level {
        shift,
        member,
        first,
        edges,
        cells,
    }
}

/// Cell `cell` (border indices `lo..hi` now) with `old`'s shortcuts moved to its new range
/// and its members' edges out of it taken from `hierarchy`; `None` if a cluster of the cell
/// is `dirty`, or the cell's size or members changed.
fn reused_cell(
    hierarchy: &Hierarchy,
    old: &Level,
    member: &[bool],
    (cell, lo, hi): (u32, u32, u32),
    dirty: &(dyn Fn(u32) -> bool + Sync),
) -> Option<CellEdges> {
    let i = old.cells.binary_search_by_key(&cell, |&(c, _, _)| c).ok()?;
    let (_, old_lo, old_hi) = old.cells[i];
    if old_hi - old_lo != hi - lo {
        return None;
    }
    let keys = &hierarchy.border_key[lo as usize..hi as usize];
    let mut previous = None;
    for &k in keys {
        if previous != Some(k) && dirty(k) {
            return None;
        }
        previous = Some(k);
    }
    let same = (0..hi - lo).all(|v| member[(lo + v) as usize] == old.member[(old_lo + v) as usize]);
    if !same {
        return None;
    }
    let mut out = Vec::new();
    for v in 0..hi - lo {
        let from = lo + v;
        if !member[from as usize] {
            continue;
        }
        let mut list: Vec<(u32, u32)> = old
            .edges(old_lo + v)
            .iter()
            .filter(|&&(t, _)| t >= old_lo && t < old_hi)
            .map(|&(t, w)| (t - old_lo + lo, w))
            .collect();
        list.extend(edges_out_of(hierarchy, from, (lo, hi)));
        out.push((from, list));
    }
    Some(out)
}

/// The edges of the members of the cell spanning border indices `lo..hi`: shortcuts to the
/// cell's other members over `below`'s edges inside the cell, then the member's own edges
/// out of it. A shortcut whose cheapest stretch can pass another member at a positive cost
/// below its own is the sum of two cheaper ones and is left out (the rule of the
/// clusters' shortcuts).
///
/// A Dijkstra per member, over the cell's nodes by local index, stopped once every member
/// is settled and no node left in the queue can still tie with the last one (a tie may
/// lower the cost at which a member's cheapest ways pass another member).
fn cell_edges(
    hierarchy: &Hierarchy,
    below: Csr<'_>,
    member: &[bool],
    (lo, hi): (u32, u32),
) -> CellEdges {
    let len = (hi - lo) as usize;
    let members: Vec<u32> = (lo..hi).filter(|&b| member[b as usize]).collect();
    let mut dist = vec![FAR; len];
    // The least positive cost at which a cheapest way here passes a member.
    let mut via = vec![FAR; len];
    let mut touched: Vec<u32> = Vec::new();
    let mut heap: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let mut out = Vec::with_capacity(members.len());
    for &from in &members {
        for &v in &touched {
            dist[v as usize] = FAR;
            via[v as usize] = FAR;
        }
        touched.clear();
        heap.clear();
        let start = from - lo;
        dist[start as usize] = 0;
        touched.push(start);
        heap.push(Reverse(u64::from(start)));
        // Members other than `from` not settled yet, and the cost of the last one settled.
        let mut unsettled = members.len() - 1;
        let mut last = 0u32;
        while let Some(Reverse(key)) = heap.pop() {
            let (d, vi) = ((key >> 32) as u32, key as u32 as usize);
            if d > dist[vi] {
                continue;
            }
            if unsettled == 0 && d > last {
                break;
            }
            let v = lo + vi as u32;
            let is_member = member[v as usize];
            if is_member && v != from {
                unsettled = unsettled.saturating_sub(1);
                last = d;
            }
            let passed = if is_member && v != from && d > 0 {
                via[vi].min(d)
            } else {
                via[vi]
            };
            for &(t, w) in below.of(v) {
                if t < lo || t >= hi {
                    continue;
                }
                let (nd, ti) = (d.saturating_add(w), (t - lo) as usize);
                if nd < dist[ti] {
                    if dist[ti] == FAR {
                        touched.push(ti as u32);
                    }
                    dist[ti] = nd;
                    via[ti] = passed;
                    heap.push(Reverse(u64::from(nd) << 32 | ti as u64));
                } else if nd == dist[ti] {
                    via[ti] = via[ti].min(passed);
                }
            }
        }
        let mut list: Vec<(u32, u32)> = members
            .iter()
            .filter(|&&t| t != from)
            .filter_map(|&t| {
                let i = (t - lo) as usize;
                (dist[i] != FAR && via[i] >= dist[i]).then_some((t, dist[i]))
            })
            .collect();
        list.extend(edges_out_of(hierarchy, from, (lo, hi)));
        out.push((from, list));
    }
    out
}
