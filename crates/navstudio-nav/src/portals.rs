//! Portal windows on sector borders and the portal graph (bake step 7, rebuilt at run time
//! when a stamp lands).
//!
//! On the border between two adjacent sectors every maximal run of cells passable on both
//! sides is a window; each side of a window is a node. Nodes are joined across their window
//! and, inside a sector, to every other node of that sector they can reach.
//!
//! Canonical order (so a full build and an incremental rebuild give identical data): every
//! sector `s` owns two borders, its east border (id `2 s`) and its south border (id `2 s + 1`);
//! windows are sorted by (border id, start); window `w` has node `2 w` on its west/north side
//! (`sector_a`) and node `2 w + 1` on its east/south side (`sector_b`).

use rayon::prelude::*;

use super::cost::CostField;
use super::grid::{GridSpec, WALL};
use super::integrate::UNREACHED;
use std::sync::Arc;

/// One portal window: a maximal run of cells passable on both sides of a sector border.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortalWindow {
    /// The west (or north) sector.
    pub sector_a: u32,
    /// The east (or south) sector.
    pub sector_b: u32,
    /// `true` for the border between vertically stacked sectors (the window runs along x).
    pub horizontal: bool,
    /// x of the first column of `sector_b` (or y of its first row).
    pub border: u32,
    /// First cell along the border, absolute map coordinate (y for a vertical border, x for
    /// a horizontal one).
    pub start: u32,
    /// Cells in the window. `[Limit: >= 1]`
    pub len: u32,
}

impl PortalWindow {
    /// Canonical border id: `2 × sector_a` for an east border, `+ 1` for a south border.
    #[must_use]
    pub fn border_id(&self) -> u32 {
        2 * self.sector_a + u32::from(self.horizontal)
    }

    /// The node on side `b` of this window: `sector_a`'s side when `b` is false, `sector_b`'s
    /// otherwise (nodes `2 w` and `2 w + 1`), island 0.
    #[must_use]
    pub fn node(&self, b: bool) -> PortalNode {
        // (sector, first cell, exit direction); directions index DIRECTIONS.
        let (sector, (x, y), exit_dir) = match (self.horizontal, b) {
            (true, false) => (self.sector_a, (self.start, self.border - 1), 4_u8),
            (true, true) => (self.sector_b, (self.start, self.border), 0_u8),
            (false, false) => (self.sector_a, (self.border - 1, self.start), 2_u8),
            (false, true) => (self.sector_b, (self.border, self.start), 6_u8),
        };
        let step = if self.horizontal { (1, 0) } else { (0, 1) };
        // A window lies along one sector's border, so its length fits (sectors are at most
        // 255 cells a side).
        let cells = CellRun::new(x, y, step, u16::try_from(self.len).unwrap_or(u16::MAX));
        PortalNode {
            sector,
            cells,
            exit_dir,
            island: 0,
        }
    }

    /// The window whose sides are `a` (`sector_a`'s) and `b`: the inverse of
    /// [`Self::node`].
    #[must_use]
    pub fn from_sides(a: &PortalNode, b: &PortalNode) -> Self {
        let horizontal = a.cells.step() == (1, 0);
        let (border, start) = if horizontal {
            (b.cells.y(), b.cells.x())
        } else {
            (b.cells.x(), b.cells.y())
        };
        Self {
            sector_a: a.sector,
            sector_b: b.sector,
            horizontal,
            border,
            start,
            len: u32::from(a.cells.len()),
        }
    }
}

/// A straight run of cells: the first cell, the unit step along the run, and its length.
/// Held in 6 bytes (a map side is below 2¹⁶, a run at most 255 cells, and the step one bit
/// beside the length), so a portal node takes 16: a game holds every node of each type it
/// searches, 2.6 million at 8192².
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellRun {
    x: u16,
    y: u16,
    /// The length, with [`VERTICAL`] set for a run along y.
    len_step: u16,
}

/// [`CellRun::len_step`]'s bit for a run whose step is `(0, 1)`.
const VERTICAL: u16 = 1 << 15;

impl CellRun {
    /// The run of `len` cells from `(x, y)` along `step`, `(1, 0)` or `(0, 1)` (any other
    /// step is taken as `(1, 0)`). Coordinates are below [`crate::grid::MAX_MAP_SIDE`] and
    /// lengths at most a sector's side, so they fit.
    #[must_use]
    pub fn new(x: u32, y: u32, step: (u8, u8), len: u16) -> Self {
        debug_assert!(
            x < crate::grid::MAX_MAP_SIDE && y < crate::grid::MAX_MAP_SIDE && len < VERTICAL
        );
        let vertical = if step == (0, 1) { VERTICAL } else { 0 };
        Self {
            x: x as u16,
            y: y as u16,
            len_step: (len & !VERTICAL) | vertical,
        }
    }

    /// Absolute x of the first cell.
    #[must_use]
    pub fn x(&self) -> u32 {
        u32::from(self.x)
    }

    /// Absolute y of the first cell.
    #[must_use]
    pub fn y(&self) -> u32 {
        u32::from(self.y)
    }

    /// Step from one cell to the next: `(1, 0)` or `(0, 1)`.
    #[must_use]
    pub fn step(&self) -> (u8, u8) {
        if self.len_step & VERTICAL == 0 {
            (1, 0)
        } else {
            (0, 1)
        }
    }

    /// Number of cells.
    #[must_use]
    pub fn len(&self) -> u16 {
        self.len_step & !VERTICAL
    }

    /// Whether the run holds no cell.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th cell.
    #[must_use]
    pub fn cell(&self, i: u32) -> (u32, u32) {
        let (sx, sy) = self.step();
        (self.x() + u32::from(sx) * i, self.y() + u32::from(sy) * i)
    }
}

/// One side of a portal window: a node of the portal graph. Node `2 w` is window `w`'s side in
/// its `sector_a`, node `2 w + 1` the side in its `sector_b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortalNode {
    /// The sector this side lies in.
    pub sector: u32,
    /// The window's cells on this side.
    pub cells: CellRun,
    /// Direction index (into `DIRECTIONS`) that steps across the border into the other sector.
    pub exit_dir: u8,
    /// Island id of the node's cells (0 until islands are assigned).
    pub island: u32,
}

impl PortalNode {
    /// The middle cell of the run (`len / 2`, rounded down), absolute: worked out rather
    /// than stored, since a game holds every node of each type it searches (2.6 million
    /// at 8192²).
    #[must_use]
    pub fn center(&self) -> (u32, u32) {
        self.cells.cell(u32::from(self.cells.len() / 2))
    }
}

/// The portal graph in compressed sparse row form, plus each sector's node list. Its shape
/// is shared between copies (see [`super::NavLayer`]); an edit that changes costs but no
/// wall changes only the weights.
///
/// Edge weights (all in cost units, see [`assemble_graph`]):
/// - across a window, node → its twin: the cost of the twin's centre cell;
/// - inside a sector, node `m` → node `n`: the integrated cost from `m`'s centre cell to
///   `n`'s window (window cells seeded with their own cost) minus the cost of `m`'s centre
///   cell, i.e. the sum of the costs of the cells entered on the way, the window cell included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortalGraph {
    /// Edges of node `i` are `offsets[i]..offsets[i + 1]`.
    pub offsets: Arc<Vec<u32>>,
    /// Target node per edge, ascending within a node.
    pub targets: Arc<Vec<u32>>,
    /// Weight per edge.
    pub weights: Vec<u32>,
    /// Nodes of sector `s` are `sector_nodes[sector_offsets[s]..sector_offsets[s + 1]]`.
    pub sector_offsets: Arc<Vec<u32>>,
    /// Node ids grouped by sector, ascending within a sector.
    pub sector_nodes: Arc<Vec<u32>>,
    /// A streamed type's edges as its package stores them, until its search layout is
    /// built from them (`offsets`, `targets` and `weights` are empty meanwhile).
    pub stream: Option<Arc<EdgeStream>>,
}

/// A portal graph's edges as a package stores them: per node a varint count, then per edge
/// its target as a zig-zag varint step from the node and its weight as a varint; with the
/// byte where each node's edges start. At 8192² 36 MB where the graph in compressed sparse
/// rows is 90 MB, which a streamed type's first request would hold only to lay it out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeStream {
    bytes: Vec<u8>,
    starts: Vec<u32>,
}

impl EdgeStream {
    /// `bytes`, whose node `i`'s edges start at `starts[i]` (checked by the caller: every
    /// varint complete, every target a node).
    pub(crate) fn new(bytes: Vec<u8>, starts: Vec<u32>) -> Self {
        Self { bytes, starts }
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether it holds no node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    fn varint(&self, at: &mut usize) -> u32 {
        let mut v = 0u32;
        let mut shift = 0;
        while let Some(&b) = self.bytes.get(*at) {
            *at += 1;
            v |= u32::from(b & 0x7F).wrapping_shl(shift);
            if b < 0x80 {
                break;
            }
            shift += 7;
        }
        v
    }

    /// Number of edges leaving `node`.
    #[must_use]
    pub fn degree(&self, node: u32) -> u32 {
        let mut at = self.starts[node as usize] as usize;
        self.varint(&mut at)
    }

    /// `(target, weight)` of every edge leaving `node`, in order.
    pub fn edges(&self, node: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = self.starts[node as usize] as usize;
        let n = self.varint(&mut at);
        (0..n).map(move |_| {
            let z = i64::from(self.varint(&mut at));
            let step = (z >> 1) ^ -(z & 1);
            let target = (i64::from(node) + step) as u32;
            (target, self.varint(&mut at))
        })
    }

    /// The graph in compressed sparse rows: `(offsets, targets, weights)`.
    #[must_use]
    pub fn to_csr(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let mut offsets = Vec::with_capacity(self.len() + 1);
        offsets.push(0);
        let mut total = 0u32;
        for node in 0..self.len() as u32 {
            total += self.degree(node);
            offsets.push(total);
        }
        let (mut targets, mut weights) = (
            Vec::with_capacity(total as usize),
            Vec::with_capacity(total as usize),
        );
        for node in 0..self.len() as u32 {
            for (t, w) in self.edges(node) {
                targets.push(t);
                weights.push(w);
            }
        }
        (offsets, targets, weights)
    }

    /// Bytes it holds.
    #[must_use]
    pub fn memory(&self) -> usize {
        self.bytes.capacity() + 4 * self.starts.capacity()
    }
}

/// `(target, weight)` of every edge leaving `node` of a graph in compressed sparse rows (the
/// portal graph, or the reversed one the landmark build walks).
pub(crate) fn csr_edges<'a>(
    offsets: &'a [u32],
    targets: &'a [u32],
    weights: &'a [u32],
    node: u32,
) -> impl Iterator<Item = (u32, u32)> + 'a {
    let (a, b) = (
        offsets[node as usize] as usize,
        offsets[node as usize + 1] as usize,
    );
    targets[a..b]
        .iter()
        .copied()
        .zip(weights[a..b].iter().copied())
}

impl PortalGraph {
    /// `(target, weight)` of every edge leaving `node` (of the compressed sparse rows).
    pub fn edges(&self, node: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        csr_edges(&self.offsets, &self.targets, &self.weights, node)
    }

    /// The edges as stored, when the graph holds them so and not in compressed sparse rows.
    pub(crate) fn stream_only(&self) -> Option<&EdgeStream> {
        self.stream.as_deref().filter(|_| self.offsets.is_empty())
    }

    /// Number of edges leaving `node`, stored either way.
    pub(crate) fn degree(&self, node: u32) -> u32 {
        match self.stream_only() {
            Some(s) => s.degree(node),
            None => self.offsets[node as usize + 1] - self.offsets[node as usize],
        }
    }

    /// Node ids of one sector.
    #[must_use]
    pub fn nodes_of_sector(&self, sector: u32) -> &[u32] {
        let s = sector as usize;
        &self.sector_nodes[self.sector_offsets[s] as usize..self.sector_offsets[s + 1] as usize]
    }
}

/// Appends the windows of one border (see the module docs for border ids) in start order.
/// Border ids past the map edge (no sector to the east or south) give nothing.
pub fn scan_border(cost: &CostField, border_id: u32, out: &mut Vec<PortalWindow>) {
    let spec = cost.spec;
    let sector_a = border_id / 2;
    let horizontal = border_id % 2 == 1;
    let (sxa, sya) = (sector_a % spec.sectors_x(), sector_a / spec.sectors_x());
    let sector_b = if horizontal {
        if sya + 1 >= spec.sectors_y() {
            return;
        }
        sector_a + spec.sectors_x()
    } else {
        if sxa + 1 >= spec.sectors_x() {
            return;
        }
        sector_a + 1
    };
    let (xa, ya, wa, ha) = spec.sector_rect(sector_a);
    let (xb, yb, wb, _) = spec.sector_rect(sector_b);
    // Along-border length and the local index of the i-th cell on each side.
    let (len, border, first) = if horizontal {
        (wa, yb, xa)
    } else {
        (ha, xb, ya)
    };
    let local_a = |i: u32| -> usize {
        if horizontal {
            ((ha - 1) * wa + i) as usize
        } else {
            (i * wa + wa - 1) as usize
        }
    };
    let local_b = |i: u32| -> usize {
        if horizontal {
            i as usize
        } else {
            (i * wb) as usize
        }
    };
    let mut run_start: Option<u32> = None;
    for i in 0..=len {
        let open = i < len
            && cost.sector_cell(sector_a, local_a(i)) != WALL
            && cost.sector_cell(sector_b, local_b(i)) != WALL;
        match (open, run_start) {
            (true, None) => run_start = Some(i),
            (false, Some(s)) => {
                out.push(PortalWindow {
                    sector_a,
                    sector_b,
                    horizontal,
                    border,
                    start: first + s,
                    len: i - s,
                });
                run_start = None;
            }
            _ => {}
        }
    }
}

/// Every portal window of the map, in canonical order.
#[must_use]
pub fn find_windows(cost: &CostField) -> Vec<PortalWindow> {
    // Runs of borders scanned on all cores, joined in order.
    const RUN: u32 = 4096;
    let borders = 2 * cost.spec.sector_count() as u32;
    (0..borders.div_ceil(RUN))
        .into_par_iter()
        .map(|run| {
            let mut out = Vec::new();
            for border_id in run * RUN..((run + 1) * RUN).min(borders) {
                scan_border(cost, border_id, &mut out);
            }
            out
        })
        .collect::<Vec<_>>()
        .concat()
}

/// Windows after the sectors in `dirty` changed: borders touching a dirty sector are scanned
/// again, every other border keeps its windows from `old`. Equals [`find_windows`] on `cost`
/// when `old` was built from a cost field differing only inside the dirty sectors.
#[must_use]
pub fn rescan_windows(cost: &CostField, old: &[PortalWindow], dirty: &[bool]) -> Vec<PortalWindow> {
    let spec = cost.spec;
    let mut out = Vec::with_capacity(old.len() + 16);
    let mut o = 0;
    for border_id in 0..2 * spec.sector_count() as u32 {
        let a = border_id / 2;
        let b = if border_id % 2 == 1 {
            a + spec.sectors_x()
        } else {
            a + 1
        };
        let touched = dirty.get(a as usize).copied().unwrap_or(true)
            || dirty.get(b as usize).copied().unwrap_or(false);
        let start = o;
        while o < old.len() && old[o].border_id() == border_id {
            o += 1;
        }
        if touched {
            scan_border(cost, border_id, &mut out);
        } else {
            out.extend_from_slice(&old[start..o]);
        }
    }
    out
}

/// The two nodes of every window (node `2 w` on `sector_a`'s side, `2 w + 1` on `sector_b`'s),
/// island ids left at 0.
#[must_use]
pub fn nodes_from_windows(windows: &[PortalWindow]) -> Vec<PortalNode> {
    nodes_with_islands(windows, |_| 0)
}

/// [`nodes_from_windows`] with each node's island id, `island_at` its centre cell: set while
/// the node is made rather than in a second pass over them (113 MB at 8192²).
pub(crate) fn nodes_with_islands(
    windows: &[PortalWindow],
    island_at: impl Fn((u32, u32)) -> u32 + Sync,
) -> Vec<PortalNode> {
    windows
        .par_iter()
        .with_min_len(4096)
        .map(|win| {
            [false, true].map(|side| {
                let node = win.node(side);
                PortalNode {
                    island: island_at(node.center()),
                    ..node
                }
            })
        })
        .collect::<Vec<[PortalNode; 2]>>()
        .into_flattened()
}

/// Groups the node ids of `windows` ([`nodes_from_windows`]) by sector (counting sort, so
/// ascending within a sector): `(sector_offsets, sector_nodes)`. The sectors are read off
/// the windows, a quarter of the bytes of the nodes (at 8192² reading the nodes twice was
/// some 15 ms of a game's first request).
#[must_use]
pub fn group_nodes_by_sector(spec: GridSpec, windows: &[PortalWindow]) -> (Vec<u32>, Vec<u32>) {
    let sectors_of = || {
        windows
            .iter()
            .flat_map(|w| [w.sector_a as usize, w.sector_b as usize])
    };
    let sectors = spec.sector_count();
    let mut offsets = vec![0_u32; sectors + 1];
    for s in sectors_of() {
        offsets[s + 1] += 1;
    }
    for s in 0..sectors {
        offsets[s + 1] += offsets[s];
    }
    let mut fill = offsets.clone();
    let mut list = vec![0_u32; 2 * windows.len()];
    for (i, s) in sectors_of().enumerate() {
        let slot = &mut fill[s];
        list[*slot as usize] = i as u32;
        *slot += 1;
    }
    (offsets, list)
}

/// Builds the CSR graph. `intra` holds, per sector, a `k × k` row-major matrix (`k` = the
/// sector's node count, rows/columns in `sector_nodes` order) starting at `intra_offsets[s]`:
/// entry `(i, j)` is the weight from node `i` to node `j`, [`UNREACHED`] for no edge.
#[must_use]
pub fn assemble_graph(
    cost: &CostField,
    nodes: &[PortalNode],
    sector_offsets: Vec<u32>,
    sector_nodes: Vec<u32>,
    intra_offsets: &[usize],
    intra: &[u32],
) -> PortalGraph {
    let mut offsets = Vec::with_capacity(nodes.len() + 1);
    let mut targets = Vec::with_capacity(nodes.len() * 4);
    let mut weights = Vec::with_capacity(nodes.len() * 4);
    offsets.push(0);
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(16);
    for (m, node) in nodes.iter().enumerate() {
        edges.clear();
        let twin = (m ^ 1) as u32;
        if let Some(t) = nodes.get(twin as usize) {
            let (cx, cy) = t.center();
            edges.push((twin, u32::from(cost.get(cx, cy))));
        }
        let s = node.sector as usize;
        let list = &sector_nodes[sector_offsets[s] as usize..sector_offsets[s + 1] as usize];
        let k = list.len();
        if let Ok(i) = list.binary_search(&(m as u32)) {
            let row = &intra[intra_offsets[s] + i * k..intra_offsets[s] + (i + 1) * k];
            for (j, &wgt) in row.iter().enumerate() {
                if j != i && wgt != UNREACHED {
                    edges.push((list[j], wgt));
                }
            }
        }
        edges.sort_unstable();
        for &(t, wgt) in &edges {
            targets.push(t);
            weights.push(wgt);
        }
        offsets.push(targets.len() as u32);
    }
    PortalGraph {
        offsets: Arc::new(offsets),
        targets: Arc::new(targets),
        weights,
        sector_offsets: Arc::new(sector_offsets),
        sector_nodes: Arc::new(sector_nodes),
        stream: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_run_keeps_its_cells_at_the_largest_coordinates_and_length() {
        let run = CellRun::new(16383, 5, (0, 1), 255);
        assert_eq!(
            (run.x(), run.y(), run.step(), run.len()),
            (16383, 5, (0, 1), 255)
        );
        assert_eq!(run.cell(3), (16383, 8));
        let run = CellRun::new(7, 16383, (1, 0), 1);
        assert_eq!(
            (run.step(), run.len(), run.cell(0)),
            ((1, 0), 1, (7, 16383))
        );
        // A game holds millions of nodes per movement type.
        assert_eq!(size_of::<PortalNode>(), 16);
    }

    #[test]
    fn a_window_and_its_two_sides_convert_both_ways() {
        for horizontal in [false, true] {
            let w = PortalWindow {
                sector_a: 3,
                sector_b: if horizontal { 3 + 10 } else { 4 },
                horizontal,
                border: 64,
                start: 70,
                len: 9,
            };
            let (a, b) = (w.node(false), w.node(true));
            assert_eq!(PortalWindow::from_sides(&a, &b), w);
            let along = if horizontal { (1, 0) } else { (0, 1) };
            assert_eq!((a.cells.step(), b.cells.step()), (along, along));
            // Sector a's side lies just before the border, b's on it.
            let first = if horizontal { (70, 63) } else { (63, 70) };
            assert_eq!(a.cells.cell(0), first);
            assert_eq!(a.cells.len(), 9);
        }
    }
}
