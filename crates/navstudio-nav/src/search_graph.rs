//! The portal graph laid out for the search: nodes renumbered in Z order of their sectors,
//! with each node's edge range and centre side by side.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::layer::NavLayer;
use super::portals::{PortalNode, PortalWindow};
use super::spill::{HEAVY, Spill, narrow_weight};

/// The portal graph as the search reads it: nodes renumbered so that the nodes of one
/// sector, and of sectors near each other (sectors in Z order), have neighbouring ids, and
/// per search id one 8-byte record of the edge range and the centre cell, with each edge's
/// target and weight side by side in 4 bytes. An expansion then reads a few cache lines instead of a
/// line per array and per scattered neighbour. Built from a layer once (the layer's own node
/// ids, which the package stores, stay as they are); rebuild it when the layer changes.
#[derive(Clone, Debug, Default)]
pub struct SearchGraph {
    /// Search id of each portal node.
    rank: Vec<u32>,
    /// Portal node of each search id.
    order: Vec<u32>,
    /// Per search id; one more record at the end closes the last edge range.
    nodes: Vec<SearchNode>,
    /// Per edge its target as a step from its source and its weight, in 16 bits each.
    edges: Vec<Edge>,
    /// Targets of the edges whose step is [`FAR_STEP`], by edge position.
    far: Spill,
    /// Weights of the edges whose weight is [`HEAVY`], by edge position.
    heavy: Spill,
    /// Sectors per map row.
    sectors_x: u32,
    /// Sector edge length in cells.
    sector_size: u32,
    /// Bits of a record's cell that hold x (see [`SearchNode::cell`]).
    x_bits: u32,
    /// Per search id, whether it is a border node of the sector hierarchy (an edge leaves
    /// its cluster or enters it): one bit each, id `i` at bit `i % 64` of word `i / 64`.
    border: Vec<u64>,
    /// Number of link end nodes among the nodes (see [`SearchGraph::with_links`]).
    link_ends: usize,
}

/// One node of a [`SearchGraph`]: 8 bytes, so no record straddles a cache line (a map of
/// 8192² has 2.6 million per type). The node's sector is worked out from its centre,
/// which lies in it.
#[derive(Clone, Copy, Debug, Default)]
struct SearchNode {
    /// First edge (the node's edges end at the next record's `first`).
    first: u32,
    /// Centre cell, `x | y << x_bits` (a map holds at most 2²⁶ cells, so both fit).
    cell: u32,
}

/// Bits of a packed cell that hold x on a map of `spec`'s size: enough for its width.
fn x_bits(spec: crate::grid::GridSpec) -> u32 {
    let bits = |n: u32| u32::BITS - n.saturating_sub(1).leading_zeros();
    // A map holds at most 2²⁶ cells (`MAX_MAP_CELLS`), so x and y take 28 bits at most.
    debug_assert!(bits(spec.width) + bits(spec.height) <= u32::BITS);
    bits(spec.width)
}

/// Cell `(x, y)` packed as a [`SearchNode`] holds it.
fn pack_cell((x, y): (u32, u32), x_bits: u32) -> u32 {
    x | y << x_bits
}

/// One edge of a [`SearchGraph`]: nearly every target lies within an `i16` of its source
/// (a sector's nodes and a cluster's border nodes have neighbouring search ids), and at
/// 8192² every weight fits 16 bits, so an edge takes 4 bytes instead of 8 (38 MiB less).
#[derive(Clone, Copy, Debug, Default, bytemuck::Zeroable)]
#[repr(C)]
struct Edge {
    /// Target minus source, or [`FAR_STEP`] when the target is in `far`.
    step: i16,
    /// Weight, or [`HEAVY`] when it is in `heavy`.
    weight: u16,
}

/// The step of an edge whose target is held whole.
const FAR_STEP: i16 = i16::MIN;

impl Edge {
    /// The edge at `position` from `source` to `target` of weight `weight`, with what
    /// spills of it.
    fn new(
        source: u32,
        (target, weight): (u32, u32),
        position: u32,
        far: &mut Spill,
        heavy: &mut Spill,
    ) -> Self {
        let step = i16::try_from(target.wrapping_sub(source) as i32)
            .ok()
            .filter(|&d| d != FAR_STEP)
            .unwrap_or_else(|| {
                far.push(position, target);
                FAR_STEP
            });
        let narrow = narrow_weight(weight);
        if narrow == HEAVY {
            heavy.push(position, weight);
        }
        Self {
            step,
            weight: narrow,
        }
    }
}

/// `edges` (search id `i`'s are `records[i].first..records[i + 1].first`) packed, with
/// what spills of them: `(edges, far targets, heavy weights)`.
fn pack_edges(records: &[SearchNode], edges: &[(u32, u32)]) -> (Vec<Edge>, Spill, Spill) {
    let (mut far, mut heavy) = (Spill::default(), Spill::default());
    let mut packed = Vec::with_capacity(edges.len());
    for (id, pair) in records.windows(2).enumerate() {
        for position in pair[0].first..pair[1].first {
            let edge = edges[position as usize];
            packed.push(Edge::new(id as u32, edge, position, &mut far, &mut heavy));
        }
    }
    far.shrink_to_fit();
    heavy.shrink_to_fit();
    (packed, far, heavy)
}

/// The `(target, weight)` edges of one search id, in their order.
#[derive(Clone, Debug)]
pub(crate) struct SearchEdges<'a> {
    source: u32,
    /// Position of the next edge.
    at: u32,
    list: std::slice::Iter<'a, Edge>,
    far: &'a Spill,
    heavy: &'a Spill,
}

impl SearchEdges<'_> {
    #[inline]
    fn whole(&self, e: Edge, at: u32) -> (u32, u32) {
        let target = if e.step == FAR_STEP {
            self.far.get(at)
        } else {
            self.source.wrapping_add_signed(i32::from(e.step))
        };
        let weight = if e.weight == HEAVY {
            self.heavy.get(at)
        } else {
            u32::from(e.weight)
        };
        (target, weight)
    }
}

impl Iterator for SearchEdges<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        let &e = self.list.next()?;
        let at = self.at;
        self.at += 1;
        Some(self.whole(e, at))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.list.size_hint()
    }
}

impl ExactSizeIterator for SearchEdges<'_> {}

/// Sectors per side of a cluster of the sector hierarchy ([`super::hierarchy`]); a power
/// of two, so a cluster is one Z-order range of sectors.
pub const CLUSTER_SECTORS: u32 = 8;

/// Z-order bits per cluster: two per halving of [`CLUSTER_SECTORS`].
const CLUSTER_SHIFT: u32 = 2 * CLUSTER_SECTORS.trailing_zeros();

/// The first of the search ids `0..n` for which `below` is false (`below` holds for a
/// prefix of them).
fn partition_ids(n: u32, below: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (0u32, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Up to 64 flags as the bits of a word, the first the lowest.
fn pack_bits(flags: impl Iterator<Item = bool>) -> u64 {
    flags
        .enumerate()
        .fold(0, |bits, (i, f)| bits | u64::from(f) << i)
}

/// Nodes per parallel block when laying out the edges.
const EDGE_BLOCK: usize = 1 << 15;

/// The cluster key (see [`SearchGraph::cluster_key`]) of the sector at `(x, y)` in sectors.
#[must_use]
pub fn sector_cluster_key(x: u32, y: u32) -> u32 {
    (morton(x, y) >> CLUSTER_SHIFT) as u32
}

/// Interleaves the bits of `x` and `y` (Z order).
fn morton(x: u32, y: u32) -> u64 {
    let spread = |v: u32| {
        let mut v = u64::from(v);
        v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF;
        v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333_3333_3333;
        v = (v | (v << 1)) & 0x5555_5555_5555_5555;
        v
    };
    spread(x) | (spread(y) << 1)
}

/// The inverse of [`morton`].
fn unmorton(code: u64) -> (u32, u32) {
    let squeeze = |mut v: u64| {
        v &= 0x5555_5555_5555_5555;
        v = (v | (v >> 1)) & 0x3333_3333_3333_3333;
        v = (v | (v >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
        v = (v | (v >> 4)) & 0x00FF_00FF_00FF_00FF;
        v = (v | (v >> 8)) & 0x0000_FFFF_0000_FFFF;
        v = (v | (v >> 16)) & 0x0000_0000_FFFF_FFFF;
        v as u32
    };
    (squeeze(code), squeeze(code >> 1))
}

/// The search order by sorting: one integer per node of cluster key (at most 22 bits on a
/// 16384² map), not-border (1), sector within the cluster (`CLUSTER_SHIFT`) and node id
/// (32), unique, so an unstable sort will do. `keys` are the Z-order codes of the nodes'
/// sectors.
fn order_by_sort(keys: &[u64], border: &[bool]) -> Vec<u32> {
    let mut keyed: Vec<u64> = (0..keys.len())
        .into_par_iter()
        .map(|v| {
            let k = keys[v];
            let inner = u64::from(!border[v]);
            ((((k >> CLUSTER_SHIFT) << 1 | inner) << CLUSTER_SHIFT
                | (k & ((1 << CLUSTER_SHIFT) - 1)))
                << 32)
                | v as u64
        })
        .collect();
    keyed.par_sort_unstable();
    keyed.into_par_iter().map(|k| k as u32).collect()
}

/// [`order_by_sort`]'s order read off the layer's per-sector node lists instead (a tenth of a
/// second less at 8192²): clusters by key and in each its border nodes first, each group
/// sector by sector in Z order, ascending node id within a sector. `None` unless the lists
/// hold every node once, in its own sector, in ascending order.
fn order_by_sectors(layer: &NavLayer, border: &[bool]) -> Option<Vec<u32>> {
    let (spec, graph) = (layer.cost.spec, &layer.graph);
    let (sx, sy) = (spec.sectors_x(), spec.sectors_y());
    if graph.sector_offsets.len() != spec.sector_count() + 1
        || graph.sector_nodes.len() != layer.nodes.len()
    {
        return None;
    }
    // The clusters that hold sectors, by key (a long thin map's Z codes are mostly past it).
    let mut keys: Vec<u64> = (0..sy.div_ceil(CLUSTER_SECTORS))
        .flat_map(|cy| (0..sx.div_ceil(CLUSTER_SECTORS)).map(move |cx| morton(cx, cy)))
        .collect();
    keys.sort_unstable();
    let per_cluster = 1u64 << CLUSTER_SHIFT;
    let mut order = Vec::with_capacity(layer.nodes.len());
    let (mut sectors, mut inner) = (Vec::new(), Vec::new());
    for key in keys {
        sectors.clear();
        sectors.extend(
            (key * per_cluster..(key + 1) * per_cluster)
                .map(unmorton)
                .filter(|&(x, y)| x < sx && y < sy)
                .map(|(x, y)| y * sx + x),
        );
        // The cluster's border nodes go straight to the order, the others after them.
        inner.clear();
        for &sector in &sectors {
            let list = graph.nodes_of_sector(sector);
            if list.windows(2).any(|p| p[0] >= p[1]) {
                return None;
            }
            for &v in list {
                let is_border = *border.get(v as usize)?;
                if node_of(layer, v as usize).sector != sector {
                    return None;
                }
                if is_border {
                    order.push(v);
                } else {
                    inner.push(v);
                }
            }
        }
        order.extend_from_slice(&inner);
    }
    (order.len() == layer.nodes.len()).then_some(order)
}

/// Portal node `v` of `layer` (island aside) made from its window: what the layout reads of
/// a node (its sector and centre) from a quarter of the bytes of the nodes, which it would
/// otherwise read three times (113 MB at 8192²).
fn node_of(layer: &NavLayer, v: usize) -> PortalNode {
    match layer.windows.get(v / 2) {
        Some(w) => w.node(v % 2 == 1),
        None => layer.nodes[v],
    }
}

/// Whether each of the `n` portal nodes of `windows` (`sectors_x` sectors a row) is a border
/// node of the sector hierarchy (an edge leaves its cluster or enters it). The only edges
/// between sectors join a window's two sides, nodes `2 w` and `2 w + 1`, both ways (see
/// [`crate::portals::PortalGraph`]), and a window's `sector_b` lies east or south of its
/// `sector_a`: both sides are border nodes when `sector_a` is the last column (or row) of its
/// cluster. No pass over the 8 million edges of an 8192² layer, nor over its nodes.
fn border_nodes(n: usize, windows: &[PortalWindow], sectors_x: u32) -> Vec<bool> {
    let mut border = vec![false; n];
    border
        .par_chunks_mut(2)
        .zip(windows.par_iter())
        .for_each(|(pair, w)| {
            let line = if w.horizontal {
                w.sector_a / sectors_x
            } else {
                w.sector_a % sectors_x
            };
            pair.fill(line % CLUSTER_SECTORS == CLUSTER_SECTORS - 1);
        });
    border
}

impl SearchGraph {
    /// Bytes its tables hold, by table (see [`crate::NavData::memory`]).
    pub(crate) fn memory(&self) -> [(&'static str, usize); 4] {
        [
            (
                "search layout: rank and order",
                4 * (self.rank.capacity() + self.order.capacity()),
            ),
            (
                "search layout: node records",
                size_of::<SearchNode>() * self.nodes.capacity(),
            ),
            (
                "search layout: edges",
                size_of::<Edge>() * self.edges.capacity() + self.far.memory() + self.heavy.memory(),
            ),
            ("search layout: border flags", 8 * self.border.capacity()),
        ]
    }

    /// Lays out `layer`'s portal graph for the search.
    #[must_use]
    pub fn new(layer: &NavLayer) -> Self {
        let spec = layer.cost.spec;
        let sx = spec.sectors_x().max(1);
        let x_bits = x_bits(spec);
        let n = layer.nodes.len();
        // Z-order key of a node's sector.
        let key = |v: usize| {
            let s = node_of(layer, v).sector;
            morton(s % sx, s / sx)
        };
        let border = border_nodes(n, &layer.windows, sx);
        // Within a cluster (an aligned block of sectors, one Z-order range) its border nodes
        // come first, so the nodes a hierarchical search expands there lie side by side.
        let order = order_by_sectors(layer, &border).unwrap_or_else(|| {
            let keys: Vec<u64> = (0..n).into_par_iter().map(key).collect();
            order_by_sort(&keys, &border)
        });
        let slots: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        order.par_iter().enumerate().for_each(|(new, &old)| {
            slots[old as usize].store(new as u32, Ordering::Relaxed);
        });
        let rank: Vec<u32> = slots.into_par_iter().map(AtomicU32::into_inner).collect();
        // Edge ranges first (degrees on all cores, then their running sum), then every
        // block of nodes fills its own range on all cores (a tenth of a second of a game's
        // first request at 8192²).
        // Room for the closing record: pushing it onto a collected vector would double its
        // capacity (41 MB at 8192²).
        let mut nodes: Vec<SearchNode> = Vec::with_capacity(n + 1);
        order
            .par_iter()
            .map(|&old| {
                let node = node_of(layer, old as usize);
                SearchNode {
                    first: layer.graph.degree(old),
                    cell: pack_cell(node.center(), x_bits),
                }
            })
            .collect_into_vec(&mut nodes);
        let mut total = 0u32;
        for record in &mut nodes {
            let degree = record.first;
            record.first = total;
            total += degree;
        }
        nodes.push(SearchNode {
            first: total,
            ..SearchNode::default()
        });
        // Zeroed by the allocator: the blocks below write every edge, on all cores.
        let mut edges: Vec<Edge> = bytemuck::zeroed_vec(total as usize);
        let mut blocks = Vec::new();
        let mut rest: &mut [Edge] = &mut edges;
        for start in (0..n).step_by(EDGE_BLOCK) {
            let end = (start + EDGE_BLOCK).min(n);
            let len = (nodes[end].first - nodes[start].first) as usize;
            let (block, tail) = rest.split_at_mut(len);
            blocks.push((start..end, block));
            rest = tail;
        }
        let spilled: Vec<(Spill, Spill)> = blocks
            .into_par_iter()
            .map(|(range, block)| {
                let (mut far, mut heavy) = (Spill::default(), Spill::default());
                let mut slots = block.iter_mut();
                for id in range {
                    let old = order[id];
                    let mut put = |position: u32, (t, w): (u32, u32)| {
                        let target = rank.get(t as usize).copied().unwrap_or(t);
                        let edge =
                            Edge::new(id as u32, (target, w), position, &mut far, &mut heavy);
                        if let Some(slot) = slots.next() {
                            *slot = edge;
                        }
                    };
                    let positions = nodes[id].first..;
                    match layer.graph.stream_only() {
                        Some(s) => positions.zip(s.edges(old)).for_each(|(p, e)| put(p, e)),
                        None => positions
                            .zip(layer.graph.edges(old))
                            .for_each(|(p, e)| put(p, e)),
                    }
                }
                (far, heavy)
            })
            .collect();
        let (mut far, mut heavy) = (Spill::default(), Spill::default());
        for (f, h) in spilled {
            far.extend(f);
            heavy.extend(h);
        }
        far.shrink_to_fit();
        heavy.shrink_to_fit();
        let border = order
            .par_chunks(64)
            .map(|ids| pack_bits(ids.iter().map(|&v| border[v as usize])))
            .collect();
        Self {
            border,
            rank,
            order,
            nodes,
            edges,
            far,
            heavy,
            sectors_x: sx,
            sector_size: spec.sector_size.max(1),
            x_bits,
            link_ends: 0,
        }
    }

    /// Whether search id `id` is a border node of its cluster (see [`super::hierarchy`]).
    #[must_use]
    pub fn is_border(&self, id: u32) -> bool {
        self.border[id as usize / 64] >> (id % 64) & 1 != 0
    }

    /// The border nodes' search ids, ascending.
    pub(crate) fn border_ids(&self) -> Vec<u32> {
        let count = self.border.iter().map(|w| w.count_ones() as usize).sum();
        let mut ids = Vec::with_capacity(count);
        for (w, &bits) in self.border.iter().enumerate() {
            let mut rest = bits;
            while rest != 0 {
                ids.push(64 * w as u32 + rest.trailing_zeros());
                rest &= rest - 1;
            }
        }
        ids
    }

    /// The clusters holding nodes as `(cluster key, first search id, end)`, by key. Each is
    /// one range of search ids, the ranges in ascending key, so each one's end is found by
    /// a galloping search from its start: a few probes each, where a pass over the ids
    /// would read every node record (41 MB at 8192²).
    pub(crate) fn cluster_ranges(&self) -> Vec<(u32, u32, u32)> {
        let n = self.len() as u32;
        let mut clusters = Vec::new();
        let mut lo = 0u32;
        while lo < n {
            let key = self.cluster_key(lo);
            let within = |id: u32| self.cluster_key(id) <= key;
            // The first step past the cluster, then a bisection behind it.
            let mut step = 1u32;
            while lo.checked_add(step).is_some_and(|id| id < n && within(id)) {
                step = step.saturating_mul(2);
            }
            let from = lo + step / 2;
            let to = lo.saturating_add(step).min(n);
            let hi = from + partition_ids(to - from, |i| within(from + i));
            clusters.push((key, lo, hi));
            lo = hi;
        }
        clusters
    }

    /// Key of search id `id`'s cluster of the sector hierarchy: the Z-order code of the
    /// cluster's coordinates. The layout keeps each cluster's nodes one range of ids.
    #[must_use]
    pub fn cluster_key(&self, id: u32) -> u32 {
        let (x, y) = self.sector_xy(id);
        sector_cluster_key(x, y)
    }

    /// `(x, y)` in clusters of the cluster holding search id `id`.
    #[must_use]
    pub(crate) fn cluster_xy(&self, id: u32) -> (u32, u32) {
        let (x, y) = self.sector_xy(id);
        (x / CLUSTER_SECTORS, y / CLUSTER_SECTORS)
    }

    /// `(x, y)` in sectors of search id `id`'s sector.
    fn sector_xy(&self, id: u32) -> (u32, u32) {
        let (x, y) = self.center(id);
        (x / self.sector_size, y / self.sector_size)
    }

    /// Sectors in a row of the map.
    #[must_use]
    pub(crate) fn sectors_x(&self) -> u32 {
        self.sectors_x
    }

    /// Number of nodes (portal nodes and link end nodes).
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Number of portal nodes (the other nodes are link end nodes).
    #[must_use]
    pub fn portal_len(&self) -> usize {
        self.order.len() - self.link_ends
    }

    /// Search id of portal node `node`.
    #[must_use]
    pub fn search_id(&self, node: u32) -> u32 {
        self.rank[node as usize]
    }

    /// Portal node of search id `id`.
    #[must_use]
    pub fn node_id(&self, id: u32) -> u32 {
        self.order[id as usize]
    }

    /// Search id of every portal node, by node id.
    #[must_use]
    pub fn search_ids(&self) -> &[u32] {
        &self.rank
    }

    /// Sector of search id `id`.
    #[must_use]
    pub fn sector(&self, id: u32) -> u32 {
        let (x, y) = self.sector_xy(id);
        y * self.sectors_x + x
    }

    /// Centre cell of search id `id`.
    pub(crate) fn center(&self, id: u32) -> (u32, u32) {
        let cell = self.nodes[id as usize].cell;
        (cell & ((1 << self.x_bits) - 1), cell >> self.x_bits)
    }

    /// This layout with a movement type's link end nodes (see
    /// [`crate::links::overlay`]) added, their in-sector edges and the link traversals
    /// merged into every node's edges. Each end node goes at the end of its cluster's range
    /// of search ids, so the sector hierarchy groups it with its sector's portal nodes; an
    /// end whose traversal leaves its cluster (or enters it) is a border node.
    #[must_use]
    pub fn with_links(self, links: &crate::links::overlay::LayerLinks) -> Self {
        if links.ends.is_empty() {
            return self;
        }
        let n = self.order.len();
        let sx = self.sectors_x;
        let key_of_sector = |s: u32| sector_cluster_key(s % sx, s / sx);
        // Where each end goes: before the first portal search id of a later cluster.
        let mut placed: Vec<(u32, u32)> = links
            .ends
            .iter()
            .enumerate()
            .map(|(k, end)| {
                let key = key_of_sector(end.sector);
                let at = partition_ids(n as u32, |id| self.cluster_key(id) <= key);
                (at, k as u32)
            })
            .collect();
        placed.sort_unstable();
        let m = placed.len();
        // New search id of each old one, and of each end.
        let mut new_of_old = Vec::with_capacity(n);
        let mut end_id = vec![0u32; m];
        let mut j = 0;
        for old in 0..n as u32 {
            while j < m && placed[j].0 <= old {
                end_id[placed[j].1 as usize] = placed[j].0 + j as u32;
                j += 1;
            }
            new_of_old.push(old + j as u32);
        }
        while j < m {
            end_id[placed[j].1 as usize] = placed[j].0 + j as u32;
            j += 1;
        }
        let total = n + m;
        let base = links.base;
        let remap = |node: u32| -> Option<u32> {
            if node >= base {
                end_id.get((node - base) as usize).copied()
            } else {
                let old = *self.rank.get(node as usize)?;
                new_of_old.get(old as usize).copied()
            }
        };
        let mut extra: Vec<Vec<(u32, u32)>> = vec![Vec::new(); total];
        let mut crosses = vec![false; m];
        for &(from, to, w) in &links.edges {
            let (Some(a), Some(b)) = (remap(from), remap(to)) else {
                continue;
            };
            extra[a as usize].push((b, w));
            let sector = |node: u32| {
                if node >= base {
                    links.ends.get((node - base) as usize).map(|e| e.sector)
                } else {
                    self.rank.get(node as usize).map(|&id| self.sector(id))
                }
            };
            if let (Some(sa), Some(sb)) = (sector(from), sector(to))
                && key_of_sector(sa) != key_of_sector(sb)
            {
                for node in [from, to] {
                    if node >= base {
                        crosses[(node - base) as usize] = true;
                    }
                }
            }
        }
        let mut order = vec![0u32; total];
        let mut border = vec![false; total];
        let mut records = vec![SearchNode::default(); total + 1];
        for (old, &id) in new_of_old.iter().enumerate() {
            let id = id as usize;
            order[id] = self.order[old];
            border[id] = self.is_border(old as u32);
            records[id] = self.nodes[old];
        }
        for (k, end) in links.ends.iter().enumerate() {
            let id = end_id[k] as usize;
            order[id] = base + k as u32;
            border[id] = crosses[k];
            records[id] = SearchNode {
                first: 0,
                cell: pack_cell(end.center, self.x_bits),
            };
        }
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(self.edges.len() + links.edges.len());
        let mut old_of_new = vec![u32::MAX; total];
        for (old, &id) in new_of_old.iter().enumerate() {
            old_of_new[id as usize] = old as u32;
        }
        for id in 0..total {
            records[id].first = edges.len() as u32;
            if let Some(&old) = old_of_new.get(id).filter(|&&o| o != u32::MAX) {
                edges.extend(self.edges(old).map(|(t, w)| (new_of_old[t as usize], w)));
            }
            edges.extend_from_slice(&extra[id]);
        }
        records[total].first = edges.len() as u32;
        let mut rank = vec![0u32; order.len()];
        for (id, &node) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(node as usize) {
                *slot = id as u32;
            }
        }
        let (packed, far, heavy) = pack_edges(&records, &edges);
        Self {
            rank,
            order,
            nodes: records,
            edges: packed,
            far,
            heavy,
            sectors_x: sx,
            sector_size: self.sector_size,
            x_bits: self.x_bits,
            border: border
                .chunks(64)
                .map(|c| pack_bits(c.iter().copied()))
                .collect(),
            link_ends: m,
        }
    }

    /// The whole layout's edges in compressed sparse rows by search id, `(offsets,
    /// targets, weights)`: what landmark tables over a graph with links are built on.
    #[must_use]
    pub(crate) fn search_csr(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let offsets = self.nodes.iter().map(|r| r.first).collect();
        let (targets, weights) = (0..self.len() as u32).flat_map(|id| self.edges(id)).unzip();
        (offsets, targets, weights)
    }

    /// `(target, weight)` of the edges leaving search id `id`, in search ids.
    pub(crate) fn edges(&self, id: u32) -> SearchEdges<'_> {
        let a = self.nodes[id as usize].first;
        let b = self.nodes[id as usize + 1].first;
        SearchEdges {
            source: id,
            at: a,
            list: self.edges[a as usize..b as usize].iter(),
            far: &self.far,
            heavy: &self.heavy,
        }
    }

    /// `(target, weight)` of the edges leaving portal node `node`, in node ids: the
    /// portal graph's own edges, in its order.
    pub(crate) fn portal_edges(&self, node: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.edges(self.rank[node as usize])
            .map(|(t, w)| (self.order[t as usize], w))
    }

    /// The portal graph's edges as [`crate::portals::PortalGraph`] holds them, `(offsets,
    /// targets, weights)`: for a layer that let its own copy go (see
    /// [`crate::NavWorld::open`]).
    #[must_use]
    pub(crate) fn portal_csr(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        // Link end nodes (see `with_links`) come after the portal nodes and are left out.
        let n = self.portal_len();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::with_capacity(self.edges.len());
        let mut weights = Vec::with_capacity(self.edges.len());
        offsets.push(0);
        for node in 0..n as u32 {
            for (t, w) in self.portal_edges(node) {
                if t as usize >= n {
                    continue;
                }
                targets.push(t);
                weights.push(w);
            }
            offsets.push(targets.len() as u32);
        }
        (offsets, targets, weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::landmarks::tests::random_layer_sized;

    /// The Z-order key of each node's sector.
    fn sector_keys(layer: &NavLayer) -> Vec<u64> {
        let sx = layer.cost.spec.sectors_x();
        layer
            .nodes
            .iter()
            .map(|n| morton(n.sector % sx, n.sector / sx))
            .collect()
    }

    /// Checks that reading the order off `layer`'s sector lists gives the sorted order.
    fn assert_orders_agree(layer: &NavLayer, what: &str) {
        let graph = SearchGraph::new(layer);
        let keys = sector_keys(layer);
        let border: Vec<bool> = (0..layer.nodes.len() as u32)
            .map(|v| graph.is_border(graph.search_id(v)))
            .collect();
        assert!(border.contains(&true) && border.contains(&false), "{what}");
        let g = &layer.graph;
        assert_eq!(
            graph.portal_csr(),
            (g.offsets.to_vec(), g.targets.to_vec(), g.weights.clone()),
            "{what}: the layout gives the portal graph back"
        );
        // A streamed world gives a layer its windows back from the nodes.
        for (w, pair) in layer.windows.iter().zip(layer.nodes.chunks_exact(2)) {
            assert_eq!(*w, PortalWindow::from_sides(&pair[0], &pair[1]), "{what}");
        }
        // The layout reads sectors and centres off the windows: the nodes' own.
        for id in 0..graph.len() as u32 {
            let node = &layer.nodes[graph.node_id(id) as usize];
            assert_eq!(graph.sector(id), node.sector, "{what}");
            assert_eq!(graph.center(id), node.center(), "{what}");
        }
        assert_eq!(
            order_by_sectors(layer, &border),
            Some(order_by_sort(&keys, &border)),
            "{what}"
        );
        // The clusters found by galloping and the border nodes read off the bits are what a
        // pass over every search id finds.
        let n = graph.len() as u32;
        let mut clusters: Vec<(u32, u32, u32)> = Vec::new();
        for id in 0..n {
            let key = graph.cluster_key(id);
            match clusters.last_mut() {
                Some(last) if last.0 == key => last.2 = id + 1,
                _ => clusters.push((key, id, id + 1)),
            }
        }
        assert!(clusters.len() > 1, "{what}");
        assert_eq!(graph.cluster_ranges(), clusters, "{what}");
        let border: Vec<u32> = (0..n).filter(|&id| graph.is_border(id)).collect();
        assert_eq!(graph.border_ids(), border, "{what}");
    }

    #[test]
    fn the_order_read_off_the_sector_lists_is_the_sorted_order() {
        // Sector counts a side of 32, 17, 10 and 36: whole clusters, partial ones, and Z codes
        // past the map.
        for (seed, size, sector) in [(1, 160, 5), (2, 97, 6), (3, 60, 6), (4, 250, 7)] {
            assert_orders_agree(
                &random_layer_sized(seed, size, sector),
                &format!("seed {seed}"),
            );
        }
    }

    #[test]
    fn border_nodes_are_those_with_an_edge_across_their_cluster_border() {
        for (seed, size, sector) in [(5, 160, 5), (6, 97, 6), (7, 250, 7)] {
            let layer = random_layer_sized(seed, size, sector);
            let keys = sector_keys(&layer);
            let cluster = |v: u32| keys[v as usize] >> CLUSTER_SHIFT;
            // Every edge, not just the twins': an edge leaving a cluster marks both ends.
            let mut expected = vec![false; layer.nodes.len()];
            for v in 0..layer.nodes.len() as u32 {
                for (t, _) in layer.graph.edges(v) {
                    if cluster(t) != cluster(v) {
                        expected[v as usize] = true;
                        expected[t as usize] = true;
                    }
                }
            }
            assert!(expected.contains(&true) && expected.contains(&false));
            assert_eq!(
                border_nodes(
                    layer.nodes.len(),
                    &layer.windows,
                    layer.cost.spec.sectors_x()
                ),
                expected,
                "seed {seed}"
            );
        }
    }

    #[test]
    fn edges_far_off_or_heavy_read_back_whole() {
        let mut rng = crate::rng::SplitMix64::new(9);
        let n = 200u32;
        let mut records = Vec::new();
        let mut edges = Vec::new();
        for id in 0..n {
            records.push(SearchNode {
                first: edges.len() as u32,
                ..SearchNode::default()
            });
            for _ in 0..rng.below(6) {
                // Near and far targets, on both sides of an `i16` and at its marker.
                let target = match rng.below(6) {
                    0 => rng.below(u32::MAX),
                    1 => id.wrapping_add(32_767),
                    2 => id.wrapping_sub(32_768),
                    3 => id.wrapping_sub(32_767),
                    _ => id.wrapping_add(rng.below(200)).wrapping_sub(100),
                };
                let weight = match rng.below(4) {
                    0 => rng.below(u32::MAX),
                    1 => 65_534 + rng.below(3),
                    _ => rng.below(3000),
                };
                edges.push((target, weight));
            }
        }
        records.push(SearchNode {
            first: edges.len() as u32,
            ..SearchNode::default()
        });
        let (packed, far, heavy) = pack_edges(&records, &edges);
        assert!(far.memory() > 0 && heavy.memory() > 0);
        let graph = SearchGraph {
            nodes: records,
            edges: packed,
            far,
            heavy,
            order: (0..n).collect(),
            ..SearchGraph::default()
        };
        for id in 0..n {
            let want = &edges[graph.nodes[id as usize].first as usize
                ..graph.nodes[id as usize + 1].first as usize];
            assert!(graph.edges(id).eq(want.iter().copied()), "id {id}");
            assert_eq!(graph.edges(id).len(), want.len());
        }
        assert_eq!(
            graph.search_csr().1,
            edges.iter().map(|e| e.0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_long_thin_map_is_ordered_as_sorted() {
        // 600 × 12 cells in sectors of 4: 150 × 3 sectors, clusters 19 × 1.
        let spec = crate::GridSpec {
            width: 600,
            height: 12,
            sector_size: 4,
        };
        let cells: Vec<u8> = (0..600 * 12)
            .map(|i| {
                if (i % 600) % 7 == 3 && i / 600 != 5 {
                    255
                } else {
                    1 + (i % 5) as u8
                }
            })
            .collect();
        let cost = crate::CostField::from_cells(spec, &cells);
        let never = std::sync::atomic::AtomicBool::new(false);
        let layer = crate::build_layer("thin", cost, &|_| {}, &never).expect("not cancelled");
        assert_orders_agree(&layer, "600 × 12");
    }
}
