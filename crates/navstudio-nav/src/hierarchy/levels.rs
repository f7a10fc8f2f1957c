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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use rayon::prelude::*;

use super::{ClusterLandmarks, EdgeLists, Hierarchy};

mod codec;
mod dense;
use super::packed::{Edges, PackedEdges};

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

/// The levels above one [`Hierarchy`], in its border indices: the top level whole, and
/// the levels below it per cell of the top level, each cell's decoded on first use (a
/// search reads them only inside the cells holding its source or goal, and where it
/// unpacks a hop), and the rest on a thread of their own once a request has been
/// answered ([`Self::decode_rest_in_background`]). Threads sharing the levels decode a
/// cell once.
#[derive(Clone, Default)]
pub struct Levels {
    /// Cluster-key bits of each level's cells, lowest first (empty: no levels).
    shifts: Vec<u32>,
    /// The top level over every border node.
    top: Level,
    /// Per cell of the top level (in the order of `top.cells`), the levels below it.
    below: Arc<[Below]>,
    /// Index in `below` of each cell of the top level (by cell), [`NO_CELL`] for none.
    slot: Vec<u32>,
    /// The thread decoding the cells no request has read yet, shared by clones.
    background: Arc<Background>,
}

/// The thread of [`Levels::decode_rest_in_background`].
#[derive(Debug, Default)]
struct Background {
    /// Whether it was started (or found nothing to do): it runs at most once.
    started: AtomicBool,
    /// The thread until someone waits for it ([`Levels::wait_for_background`]).
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// Marker of a top-level cell holding no border node.
const NO_CELL: u32 = u32::MAX;

/// The levels below the top one inside one cell of the top level.
#[derive(Debug, Default)]
struct Below {
    /// The cell's border indices.
    lo: u32,
    hi: u32,
    /// The cell's stored block until it is decoded: the stored chunk (shared by the
    /// cells, freed once every cell has been decoded), the block's range in it and its
    /// raw length.
    stored: Mutex<Option<StoredCell>>,
    /// The block decoded, by a request or in the background: the levels below the top,
    /// lowest first, indexed from `lo` (`None` if the block did not decode).
    levels: OnceLock<Decoded>,
    /// The levels below the top built from the hierarchy, when the block did not decode.
    built: OnceLock<Vec<Level>>,
}

/// A cell's block once decoded.
#[derive(Debug)]
struct Decoded {
    /// Its levels below the top; `None` if the block did not decode (its checksum
    /// matched, so only a faulty writer makes one).
    levels: Option<Vec<Level>>,
    /// Whether the background thread decoded it rather than a request.
    in_background: bool,
}

impl Below {
    /// The cell's levels below the top (whose cells are `lower` key bits, over `border`
    /// border nodes), decoded now unless they were; a thread finding another decoding them
    /// waits for it.
    fn decode(&self, lower: &[u32], border: usize, in_background: bool) -> &Decoded {
        self.levels.get_or_init(|| {
            let stored = self
                .stored
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            Decoded {
                levels: stored
                    .and_then(|s| codec::decode_cell(&s, lower, (self.lo, self.hi), border).ok()),
                in_background,
            }
        })
    }

    /// The cell's levels below the top if decoded or built already.
    fn levels(&self) -> Option<&[Level]> {
        match self.levels.get()? {
            Decoded {
                levels: Some(levels),
                ..
            } => Some(levels),
            Decoded { levels: None, .. } => self.built.get().map(Vec::as_slice),
        }
    }
}

/// Where a cell's block lies in its stored chunk.
#[derive(Clone, Debug)]
pub(crate) struct StoredCell {
    pub(crate) chunk: Arc<Vec<u8>>,
    pub(crate) range: std::ops::Range<usize>,
    pub(crate) raw_len: u64,
}

/// One level, or the part of one inside a cell of the top level: its members and their
/// edges, by border index from `base`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Level {
    /// Cluster-key bits of a cell: a border node's cell is its cluster key shifted right.
    shift: u32,
    /// Border index of the first entry of `member` and `first` (0 for a whole level).
    base: u32,
    /// Per border index, whether it is a member.
    member: Vec<bool>,
    /// Per border index its `(target border index, weight)` edges (non-members have none).
    edges: PackedEdges,
    /// `(cell, first border index, end)` per cell holding border nodes, in order (of a
    /// whole level only).
    cells: Vec<(u32, u32, u32)>,
}

impl Level {
    fn edges(&self, b: u32) -> Edges<'_> {
        self.edges.edges((b - self.base) as usize, b)
    }

    fn is_member(&self, b: u32) -> bool {
        self.member[(b - self.base) as usize]
    }

    /// The part of this whole level over border indices `lo..hi`.
    fn part(&self, (lo, hi): (u32, u32)) -> Self {
        let (lo, hi) = (lo as usize, hi as usize);
        Self {
            shift: self.shift,
            base: lo as u32,
            member: self.member[lo..hi].to_vec(),
            edges: self.edges.part(lo, hi),
            cells: Vec::new(),
        }
    }

    /// Its lists whole: `(first, edges)`, index `i`'s edges `edges[first[i]..first[i + 1]]`.
    #[cfg(test)]
    fn wide(&self) -> (Vec<u32>, Vec<(u32, u32)>) {
        let mut first = vec![0];
        let mut edges = Vec::with_capacity(self.edges.len());
        for i in 0..self.edges.lists() {
            edges.extend(self.edges(self.base + i as u32));
            first.push(edges.len() as u32);
        }
        (first, edges)
    }

    /// Bytes the level holds.
    fn memory(&self) -> usize {
        self.member.capacity() + self.edges.memory() + 12 * self.cells.capacity()
    }
}

impl PartialEq for Levels {
    /// Equal levels: the same shifts, top level and, cell by cell, the same levels below
    /// (cells not decoded yet are decoded for the comparison and left as they were).
    fn eq(&self, other: &Self) -> bool {
        self.shifts == other.shifts
            && self.top == other.top
            && self.below.len() == other.below.len()
            && (0..self.below.len()).all(|i| {
                let (a, b) = (&self.below[i], &other.below[i]);
                (a.lo, a.hi) == (b.lo, b.hi) && self.cell_view(i) == other.cell_view(i)
            })
    }
}

impl Eq for Levels {}

impl std::fmt::Debug for Levels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Levels")
            .field("shifts", &self.shifts)
            .field("cells", &self.below.len())
            .field("decoded_cells", &self.decoded_cells())
            .field(
                "decoded_in_background",
                &self
                    .below
                    .iter()
                    .filter(|c| c.levels.get().is_some_and(|d| d.in_background))
                    .count(),
            )
            .finish_non_exhaustive()
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
        Self::from_whole(build_whole(&[], hierarchy, &|_| true, None))
    }

    /// The levels above `hierarchy`, a rebuild of the ones `old` (over `old_hierarchy`)
    /// were built over, reusing the shortcuts of `old`'s cells that hold no cluster `dirty`
    /// names (by key) and whose members sit where they did: equal to [`Self::build`] of
    /// `hierarchy`. Every cell of `old` not decoded yet is decoded for it.
    #[must_use]
    pub fn rebuild(
        old: &Self,
        old_hierarchy: &Hierarchy,
        hierarchy: &Hierarchy,
        dirty: &(dyn Fn(u32) -> bool + Sync),
    ) -> Self {
        let before = old.whole(old_hierarchy);
        Self::from_whole(build_whole(&before, hierarchy, dirty, None))
    }

    /// Levels built whole (lowest first), held as the top level and its cells' levels
    /// below.
    fn from_whole(mut whole: Vec<Level>) -> Self {
        let Some(top) = whole.pop() else {
            return Self::default();
        };
        let shifts: Vec<u32> = whole.iter().chain([&top]).map(|l| l.shift).collect();
        let below: Vec<Below> = top
            .cells
            .iter()
            .map(|&(_, lo, hi)| Below {
                lo,
                hi,
                stored: Mutex::new(None),
                levels: OnceLock::from(Decoded {
                    levels: Some(whole.iter().map(|l| l.part((lo, hi))).collect()),
                    in_background: false,
                }),
                built: OnceLock::new(),
            })
            .collect();
        Self::assemble(shifts, top, below)
    }

    /// Levels of `shifts` from their top level (its cells set) and its cells' levels below.
    fn assemble(shifts: Vec<u32>, top: Level, below: Vec<Below>) -> Self {
        let cells = top.cells.last().map_or(0, |&(c, _, _)| c as usize + 1);
        let mut slot = vec![NO_CELL; cells];
        for (i, &(c, _, _)) in top.cells.iter().enumerate() {
            slot[c as usize] = i as u32;
        }
        Self {
            shifts,
            top,
            below: below.into(),
            slot,
            background: Arc::default(),
        }
    }

    /// Every level whole, lowest first, its cells set from `hierarchy` (the one these
    /// levels stand on): what a rebuild reuses.
    fn whole(&self, hierarchy: &Hierarchy) -> Vec<Level> {
        let Some((&top_shift, lower)) = self.shifts.split_last() else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(self.shifts.len());
        let border = hierarchy.border_count();
        for (j, &shift) in lower.iter().enumerate() {
            let mut level = Level {
                shift,
                base: 0,
                member: Vec::with_capacity(border),
                edges: PackedEdges::new(0, &[0], &[]),
                cells: members_and_cells(hierarchy, shift).1,
            };
            for i in 0..self.below.len() {
                let part = &self.lower(hierarchy, i)[j];
                level.member.extend_from_slice(&part.member);
                level.edges.append(&part.edges);
            }
            out.push(level);
        }
        debug_assert_eq!(self.top.shift, top_shift);
        out.push(self.top.clone());
        out
    }

    /// Bytes each level holds (see [`crate::NavData::memory`]): the levels below the top
    /// count the cells decoded so far, and the stored cells not decoded yet count apart.
    pub(crate) fn memory(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        const NAMES: [&str; LEVEL_SHIFTS.len()] = [
            "levels: cells of 2 × 2 clusters",
            "levels: cells of 4 × 4 clusters",
            "levels: cells of 8 × 8 clusters",
            "levels: cells of 16 × 16 clusters",
        ];
        let lower = self.shifts.len().saturating_sub(1);
        let mut rows: Vec<(&'static str, usize)> = NAMES[..lower]
            .iter()
            .enumerate()
            .map(|(j, &name)| {
                let bytes = self
                    .below
                    .iter()
                    .filter_map(Below::levels)
                    .map(|levels| levels[j].memory())
                    .sum();
                (name, bytes)
            })
            .collect();
        if let Some(&name) = NAMES.get(lower).filter(|_| !self.shifts.is_empty()) {
            rows.push((name, self.top.memory()));
        }
        // The cells not decoded yet share the chunk they were read from.
        let held = self
            .below
            .iter()
            .find_map(|c| {
                let stored = c.stored.lock().unwrap_or_else(PoisonError::into_inner);
                stored.as_ref().map(|s| s.chunk.capacity())
            })
            .unwrap_or(0);
        rows.push(("levels: stored chunk until every cell is decoded", held));
        rows.into_iter()
    }

    /// Number of levels above the clusters.
    #[must_use]
    pub fn count(&self) -> usize {
        self.shifts.len()
    }

    /// Cells of the top level, and how many of them have their levels below decoded.
    #[cfg(test)]
    pub fn cells_decoded(&self) -> (usize, usize) {
        (self.below.len(), self.decoded_cells())
    }

    /// The cells of the top level (by cell: cluster key shifted right by its shift) whose
    /// levels below a request decoded (not the background thread), ascending.
    #[cfg(test)]
    pub fn cells_decoded_by_requests(&self) -> Vec<u32> {
        self.top
            .cells
            .iter()
            .zip(self.below.iter())
            .filter(|(_, b)| b.levels.get().is_some_and(|d| !d.in_background))
            .map(|(&(c, _, _), _)| c)
            .collect()
    }

    /// Decodes, on a thread of its own, the levels below the top of every cell no request
    /// has read yet, so that later requests find them decoded; the thread starts once per
    /// levels (their clones share it), and not at all when every cell is decoded. Called
    /// once a request has been answered: the first request decodes only the cells it
    /// reads, and the next ones need not wait for a cell's first read (1 to 8 ms each at
    /// 8192²). A request reading a cell the thread is decoding waits for it; once every
    /// cell is decoded the stored chunk is freed.
    ///
    /// The thread holds the cells weakly, taking hold of them one cell at a time: levels
    /// dropped meanwhile (their world or data dropped, or rebuilt) stop it after the cell
    /// it is decoding, and their memory is freed then. It calls nothing that panics on the
    /// stored bytes (a block that does not decode is left to the request that reads it,
    /// which builds its levels from the hierarchy); should it panic all the same, only
    /// that thread ends, and the cell it held is decoded by the request that reads it. If
    /// the system refuses a thread, the cells are decoded on first read as before.
    pub fn decode_rest_in_background(&self) {
        if self.background.started.load(Ordering::Acquire) {
            return;
        }
        if self.below.iter().all(|c| c.levels.get().is_some())
            || self.background.started.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let cells = Arc::downgrade(&self.below);
        let lower = self.shifts[..self.shifts.len().saturating_sub(1)].to_vec();
        let border = self.top.member.len();
        let spawned = std::thread::Builder::new()
            .name("navstudio-levels".to_owned())
            .spawn(move || decode_cells(&cells, &lower, border));
        if let Ok(thread) = spawned {
            *self
                .background
                .thread
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(thread);
        }
    }

    /// Returns once the thread of [`Self::decode_rest_in_background`] has ended: every
    /// cell is decoded then (or was left to its first read because its block does not
    /// decode). Returns at once if no thread was started, or another caller is waiting.
    pub fn wait_for_background(&self) {
        let thread = self
            .background
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(thread) = thread {
            // A panic there ended that thread only (see `decode_rest_in_background`).
            let _ = thread.join();
        }
    }

    /// The top level's cell holding cluster key `key`.
    #[cfg(test)]
    pub fn top_cell(&self, key: u32) -> u32 {
        key >> self.top.shift
    }

    fn decoded_cells(&self) -> usize {
        self.below.iter().filter_map(Below::levels).count()
    }

    /// Marks the cells of every level that hold one of `open_keys` (cluster keys).
    pub fn mark_open(&self, open_keys: impl Iterator<Item = u32> + Clone, out: &mut OpenCells) {
        out.per_level.resize_with(self.shifts.len(), Vec::new);
        for (&shift, cells) in self.shifts.iter().zip(&mut out.per_level) {
            cells.clear();
            for key in open_keys.clone() {
                let cell = (key >> shift) as usize;
                if cells.len() <= cell {
                    cells.resize(cell + 1, false);
                }
                cells[cell] = true;
            }
        }
    }

    /// The level at which border node `b` (of cluster key `key`, in no opened cluster) is
    /// expanded: the highest whose cell holds no opened cluster, 0 for the clusters' own.
    /// Below the top level this reads (and decodes on first use) `b`'s cell of the top
    /// level, as the search does only inside cells holding its source or goal.
    #[must_use]
    pub fn level_of(&self, hierarchy: &Hierarchy, b: u32, key: u32, open: &OpenCells) -> usize {
        self.expand(hierarchy, b, key, open).0
    }

    /// [`Self::level_of`] and border node `b`'s edges at that level (as [`Self::edges`]),
    /// finding `b`'s cell of the top level once: what a search expanding `b` reads.
    #[must_use]
    pub fn expand<'a>(
        &'a self,
        hierarchy: &'a Hierarchy,
        b: u32,
        key: u32,
        open: &OpenCells,
    ) -> (usize, Edges<'a>) {
        let opened = |j: usize, shift: u32| {
            open.per_level
                .get(j)
                .and_then(|cells| cells.get((key >> shift) as usize))
                .copied()
                .unwrap_or(false)
        };
        let own = (0, hierarchy.border_edges(b));
        let Some(top) = self.shifts.len().checked_sub(1) else {
            return own;
        };
        if self.top.is_member(b) && !opened(top, self.top.shift) {
            return (top + 1, self.top.edges(b));
        }
        if top == 0 {
            return own;
        }
        let Some(cell) = self.cell_of(key) else {
            return own;
        };
        for (j, level) in self.lower(hierarchy, cell).iter().enumerate().rev() {
            if level.is_member(b) && !opened(j, level.shift) {
                return (j + 1, level.edges(b));
            }
        }
        own
    }

    /// The edges of border node `b` at `level` (0: the hierarchy's own).
    #[must_use]
    pub fn edges<'a>(&'a self, hierarchy: &'a Hierarchy, level: usize, b: u32) -> Edges<'a> {
        match level {
            0 => hierarchy.border_edges(b),
            j if j == self.shifts.len() => self.top.edges(b),
            j => match self.cell_of(hierarchy.border_key(b)) {
                Some(cell) => self.lower(hierarchy, cell)[j - 1].edges(b),
                None => Edges::whole(&[]),
            },
        }
    }

    /// Index in `below` of the cell of the top level holding cluster key `key`.
    fn cell_of(&self, key: u32) -> Option<usize> {
        let cell = key >> self.top.shift;
        self.slot
            .get(cell as usize)
            .copied()
            .filter(|&i| i != NO_CELL)
            .map(|i| i as usize)
    }

    /// The levels below the top inside cell `i` of the top level, decoded now if they were
    /// not; built from `hierarchy` if their block does not decode (its checksum matched,
    /// so only a faulty writer makes one), which gives the same levels.
    fn lower(&self, hierarchy: &Hierarchy, i: usize) -> &[Level] {
        let cell = &self.below[i];
        let lower = &self.shifts[..self.shifts.len() - 1];
        match &cell.decode(lower, hierarchy.border_count(), false).levels {
            Some(levels) => levels,
            None => cell.built.get_or_init(|| {
                let whole = build_whole(&[], hierarchy, &|_| true, Some((cell.lo, cell.hi)));
                whole[..lower.len()]
                    .iter()
                    .map(|l| l.part((cell.lo, cell.hi)))
                    .collect()
            }),
        }
    }

    /// Cell `i`'s levels below the top as they are or as its block decodes, without
    /// keeping them (for comparisons).
    fn cell_view(&self, i: usize) -> Result<std::borrow::Cow<'_, [Level]>, String> {
        let cell = &self.below[i];
        if let Some(levels) = cell.levels() {
            return Ok(std::borrow::Cow::Borrowed(levels));
        }
        let stored = cell
            .stored
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        // Decoded between the two looks.
        let Some(stored) = stored else {
            return cell
                .levels()
                .map(std::borrow::Cow::Borrowed)
                .ok_or_else(|| "a cell holds neither levels nor a stored block".to_owned());
        };
        let lower = &self.shifts[..self.shifts.len() - 1];
        let border = self.top.member.len();
        codec::decode_cell(&stored, lower, (cell.lo, cell.hi), border).map(std::borrow::Cow::Owned)
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
        let Some(&shift) = level.checked_sub(1).and_then(|j| self.shifts.get(j)) else {
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
        // The stretch lies inside one cell of the top level: `a`'s.
        let within = match level {
            0 => None,
            j if j == levels.shifts.len() => None,
            j => levels
                .cell_of(hierarchy.border_key(a))
                .map(|cell| &levels.lower(hierarchy, cell)[j - 1]),
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
            let edges = match within {
                Some(l) => l.edges(v),
                None => levels.edges(hierarchy, level, v),
            };
            for (t, w) in edges {
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

/// The body of [`Levels::decode_rest_in_background`]'s thread: decodes the levels below
/// the top (`lower` key bits, over `border` border nodes) of each cell not decoded yet, in
/// order, holding the cells only while it decodes one; stops when they have been dropped.
fn decode_cells(cells: &Weak<[Below]>, lower: &[u32], border: usize) {
    for i in 0.. {
        let Some(cells) = cells.upgrade() else {
            return;
        };
        let Some(cell) = cells.get(i) else {
            return;
        };
        cell.decode(lower, border, true);
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
        for (t, _) in hierarchy.border_edges(b) {
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
        .filter(move |&(t, _)| t < lo || t >= hi)
}

/// Every level above `hierarchy`, whole and lowest first, reusing the cells of `before`
/// (the levels before a rebuild, whole) as [`build_level`] says. With `only`, a range of
/// border indices, only the cells inside it get edges (the levels below the top inside
/// one cell of the top level).
fn build_whole(
    before: &[Level],
    hierarchy: &Hierarchy,
    dirty: &(dyn Fn(u32) -> bool + Sync),
    only: Option<(u32, u32)>,
) -> Vec<Level> {
    let top = hierarchy.border_key.last().copied().unwrap_or(0);
    let mut levels: Vec<Level> = Vec::new();
    // The level below's lists whole (first the hierarchy's), which the next level's build
    // reads many times.
    let mut below: Option<EdgeLists> = None;
    for (j, &shift) in LEVEL_SHIFTS.iter().enumerate() {
        if (top >> shift) + 1 < MIN_CELLS {
            break;
        }
        let old = before.get(j).filter(|l| l.shift == shift);
        let lists = below.get_or_insert_with(|| hierarchy.border_lists());
        let csr = Csr {
            first: &lists.0,
            edges: &lists.1,
        };
        let (level, first, edges) = build_level(hierarchy, csr, shift, old, dirty, only);
        levels.push(level);
        *lists = (first, edges);
    }
    levels
}

/// The level whose cells are `shift` bits of cluster key, over the level below whose
/// edges `below` gives; a cell of `before` (the same level before a rebuild) holding no
/// `dirty` cluster and its members where they were keeps its shortcuts. With `only`, the
/// cells outside that range of border indices get no edges.
fn build_level(
    hierarchy: &Hierarchy,
    below: Csr<'_>,
    shift: u32,
    before: Option<&Level>,
    dirty: &(dyn Fn(u32) -> bool + Sync),
    only: Option<(u32, u32)>,
) -> (Level, Vec<u32>, Vec<(u32, u32)>) {
    let n = hierarchy.border_count();
    let (member, cells) = members_and_cells(hierarchy, shift);
    let member_ref = &member;
    let inside =
        |&&(_, lo, hi): &&(u32, u32, u32)| only.is_none_or(|(from, to)| lo >= from && hi <= to);
    let lists: Vec<CellEdges> = cells
        .par_iter()
        .filter(inside)
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
    let level = Level {
        shift,
        base: 0,
        member,
        edges: PackedEdges::new(0, &first, &edges),
        cells,
    };
    (level, first, edges)
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
            .filter(|&(t, _)| t >= old_lo && t < old_hi)
            .map(|(t, w)| (t - old_lo + lo, w))
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
