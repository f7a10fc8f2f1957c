//! What both format versions decode the same way: the parts of a movement type (cost
//! tiles, windows, graph, islands, flow tiles), the checks that tie them together, and the
//! limits on what a map of a given size can need.

use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use super::codec::{ByteReader, ReadFault};
use super::{Manifest, PackageError, RegionGrid, SectionKind};
use crate::grid::{DIR_NONE, FLOW_FINE_CCW, FLOW_FINE_CW, MAX_MAP_CELLS, MAX_MAP_SIDE};
use crate::islands::{IslandField, Islands, MIXED};
use crate::permutations::{FlowPermutations, canonical_flows};
use crate::portals::{
    EdgeStream, PortalGraph, PortalNode, PortalWindow, find_windows, group_nodes_by_sector,
    nodes_from_windows,
};
use crate::{CostField, CostTile, GridSpec, NavLayer, SectorCost};

/// Most movement types a package may hold.
pub(super) const MAX_LAYERS: usize = 64;

/// Turns reader faults and messages into errors that name the file.
#[derive(Clone, Copy)]
pub(super) struct Faults<'a> {
    pub(super) path: &'a Path,
}

impl Faults<'_> {
    pub(super) fn fault(self, f: ReadFault) -> PackageError {
        match f {
            ReadFault::Truncated(what) => PackageError::Truncated {
                path: self.path.to_path_buf(),
                what,
            },
            ReadFault::Invalid(what) => self.invalid(what),
        }
    }

    pub(super) fn invalid(self, what: String) -> PackageError {
        PackageError::Invalid {
            path: self.path.to_path_buf(),
            what,
        }
    }

    pub(super) fn checksum(self, what: String, expected: u32, found: u32) -> PackageError {
        PackageError::Checksum {
            path: self.path.to_path_buf(),
            what,
            expected,
            found,
        }
    }
}

/// Checks the map-wide numbers of a manifest and returns the grid they describe.
pub(super) fn check_manifest(m: &Manifest) -> Result<GridSpec, String> {
    if m.width == 0
        || m.height == 0
        || m.width > MAX_MAP_SIDE
        || m.height > MAX_MAP_SIDE
        || u64::from(m.width) * u64::from(m.height) > MAX_MAP_CELLS
    {
        return Err(format!("map size {}×{} is out of range", m.width, m.height));
    }
    if !(1..=255).contains(&m.sector_size) {
        return Err(format!(
            "sector size {} is out of range 1..=255",
            m.sector_size
        ));
    }
    if !(m.cell_size_m.is_finite() && m.cell_size_m > 0.0) {
        return Err(format!("cell size {} m is not positive", m.cell_size_m));
    }
    if m.layers.is_empty() || m.layers.len() > MAX_LAYERS {
        return Err(format!(
            "{} movement types (expected 1..={MAX_LAYERS})",
            m.layers.len()
        ));
    }
    Ok(GridSpec {
        width: m.width,
        height: m.height,
        sector_size: m.sector_size,
    })
}

/// Upper bounds on a layer's windows and nodes, for raw-length limits.
pub(super) fn portal_bounds(spec: GridSpec, sectors: u64) -> (u64, u64, u64) {
    let ss = u64::from(spec.sector_size);
    // A border of `ss` cells holds at most ceil(ss / 2) windows; two borders per sector.
    let windows = 2 * sectors * ss.div_ceil(2);
    let nodes_per_sector = 4 * ss.div_ceil(2);
    (windows, 2 * windows, nodes_per_sector)
}

/// The most bytes a version 1 section of a map of this size can hold; a larger claim is a lie.
pub(super) fn max_section_len(kind: SectionKind, spec: GridSpec) -> u64 {
    let sectors = spec.sector_count() as u64;
    let cells = spec.cell_count() as u64;
    let ss = u64::from(spec.sector_size);
    let (windows, nodes, nodes_per_sector) = portal_bounds(spec, sectors);
    match kind {
        SectionKind::Cost => 4 + sectors + cells,
        SectionKind::Windows => 4 + 15 * windows,
        SectionKind::Graph => 4 + 5 * nodes + 10 * nodes * (nodes_per_sector + 1),
        SectionKind::Islands => 12 + 8 * sectors + 4 * cells,
        SectionKind::Flows => 8 + nodes * (8 + ss * ss),
    }
}

thread_local! {
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Decompresses at most `raw_len` bytes. The buffer is reserved up front only as far as the
/// stored bytes can plausibly expand (so a lying `raw_len` cannot make us allocate), and grows
/// beyond that only as data actually arrives.
pub(super) fn decompress(stored: &[u8], raw_len: u64) -> Result<Vec<u8>, String> {
    const PLAUSIBLE_RATIO: u64 = 64;
    let reserve = raw_len.min((stored.len() as u64).saturating_mul(PLAUSIBLE_RATIO));
    // One byte more than expected so read_to_end's probe for the end needs no regrowth.
    let mut out = Vec::with_capacity(usize::try_from(reserve).unwrap_or(0).saturating_add(1));
    // One decompression context per thread, reused: creating one per chunk was a twentieth
    // of opening an 8192² package. It writes into `out`'s capacity and fails if the chunk
    // holds more; the stream below then finds out how much.
    let whole = DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = zstd::bulk::Decompressor::new().ok();
        }
        d.as_mut()?.decompress_to_buffer(stored, &mut out).ok()
    });
    if whole.is_none() {
        out.clear();
        let decoder = zstd::stream::read::Decoder::new(stored)
            .map_err(|e| format!("cannot decompress: {e}"))?;
        decoder
            .take(raw_len + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("cannot decompress: {e}"))?;
    }
    if out.len() as u64 != raw_len {
        return Err(format!(
            "decompresses to {} bytes, the index says {raw_len}",
            out.len()
        ));
    }
    Ok(out)
}

/// The first `len` bytes of a chunk's raw contents (its header), without decompressing the
/// rest.
pub(super) fn decompress_prefix(stored: &[u8], len: usize) -> Result<Vec<u8>, String> {
    let mut decoder =
        zstd::stream::read::Decoder::new(stored).map_err(|e| format!("cannot decompress: {e}"))?;
    let mut out = vec![0; len];
    decoder
        .read_exact(&mut out)
        .map_err(|e| format!("cannot decompress its header: {e}"))?;
    Ok(out)
}

/// Flow tiles as a file stores them: one store for the map (version 1) or one per region.
pub(super) enum StoredFlows {
    /// The whole map's tiles, numbered by first use over all nodes.
    Global(FlowPermutations),
    /// Per region, the tiles its nodes use, numbered by first use over the region's nodes
    /// (in node order); `node_tile` lists the region's nodes only.
    Regional(RegionGrid, Vec<FlowPermutations>),
}

/// Puts a movement type together from its decoded parts and checks them against each
/// other: the windows must be exactly those of the cost field, the graph must have their
/// nodes, the islands must agree with themselves, and the flow tiles must be shared and
/// numbered exactly as a bake stores them.
pub(super) fn assemble_layer(
    name: String,
    cost: CostField,
    windows: Vec<PortalWindow>,
    graph_csr: GraphCsr,
    islands: Islands,
    stored: StoredFlows,
) -> Result<NavLayer, ReadFault> {
    let bad = |w: &str| ReadFault::Invalid(w.to_owned());
    let spec = cost.spec;
    if windows != find_windows(&cost) {
        return Err(bad("portal windows disagree with the cost field"));
    }
    let mut nodes = nodes_from_windows(&windows);
    // Only the canonical node → tile assignment is needed: given no tiles, nothing is cloned.
    let canonical = canonical_flows(&cost, &nodes, &FlowPermutations::default());
    // Directions are range-checked but not re-derived: a wrong direction can only steer
    // badly, never make the run time index out of bounds. A bake stores each tile once,
    // shared by every node with the same sector contents and window; a store that differs
    // (found by fuzzing) was edited or corrupted and would silently change if written again.
    let not_canonical = || bad("the flow tiles are not shared and numbered as a bake stores them");
    let flows = match stored {
        StoredFlows::Global(flows) => {
            if canonical.node_tile != flows.node_tile || canonical.tiles.len() != flows.tiles.len()
            {
                return Err(not_canonical());
            }
            flows
        }
        StoredFlows::Regional(regions, per_region) => {
            let mut region_nodes = vec![Vec::new(); per_region.len()];
            for (i, n) in nodes.iter().enumerate() {
                if let Some(list) =
                    region_nodes.get_mut(regions.region_of_sector(n.sector) as usize)
                {
                    list.push(i as u32);
                }
            }
            // Each region's numbering must be the canonical one renumbered by first use
            // within the region; then every canonical tile is taken from its first node.
            let mut tiles: Vec<Option<Arc<[u8]>>> = vec![None; canonical.tiles.len()];
            for (list, store) in region_nodes.iter().zip(per_region) {
                if store.node_tile.len() != list.len() {
                    return Err(bad(
                        "a flows chunk lists another number of nodes than its region has",
                    ));
                }
                let mut local_of = rustc_hash::FxHashMap::default();
                for (&n, &local) in list.iter().zip(&store.node_tile) {
                    let global = canonical.node_tile[n as usize];
                    let next = local_of.len() as u32;
                    if *local_of.entry(global).or_insert(next) != local {
                        return Err(not_canonical());
                    }
                }
                if local_of.len() != store.tiles.len() {
                    return Err(not_canonical());
                }
                let mut region_tiles: Vec<Option<Arc<[u8]>>> =
                    store.tiles.into_iter().map(Some).collect();
                for (global, local) in local_of {
                    let slot = &mut tiles[global as usize];
                    if slot.is_none() {
                        *slot = region_tiles[local as usize].take();
                    }
                }
            }
            FlowPermutations {
                tiles: tiles
                    .into_iter()
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(not_canonical)?,
                node_tile: canonical.node_tile,
            }
        }
    };

    let (offsets, targets, weights) = graph_csr;
    let (sector_offsets, sector_nodes) = group_nodes_by_sector(spec, &windows);
    let graph = PortalGraph {
        offsets: Arc::new(offsets),
        targets: Arc::new(targets),
        weights,
        sector_offsets: Arc::new(sector_offsets),
        sector_nodes: Arc::new(sector_nodes),
        stream: None,
    };
    set_node_islands(spec, &islands, &mut nodes);
    for (n, &t) in nodes.iter().zip(&flows.node_tile) {
        match flows.tiles.get(t as usize) {
            Some(tile) if tile.len() == sector_cells(spec, n.sector) => {}
            _ => {
                return Err(bad(
                    "a portal node refers to a missing or mis-sized flow tile",
                ));
            }
        }
    }
    Ok(NavLayer {
        name,
        cost,
        windows: Arc::new(windows),
        nodes: Arc::new(nodes),
        graph,
        islands: Arc::new(islands),
        flows,
    })
}

/// Sets every node's island: the id of its centre cell.
pub(super) fn set_node_islands(spec: GridSpec, islands: &Islands, nodes: &mut [PortalNode]) {
    let island_at = node_islands(spec, islands);
    for n in nodes {
        n.island = island_at(n.center());
    }
}

/// The island id of a cell, as [`Islands::island_at`] with the binary search over mixed
/// sectors replaced by a table: for every portal node of a type at once.
pub(super) fn node_islands(spec: GridSpec, islands: &Islands) -> impl Fn((u32, u32)) -> u32 + '_ {
    let mut field_of = vec![usize::MAX; spec.sector_count()];
    for (i, (s, _)) in islands.fields.iter().enumerate() {
        field_of[*s as usize] = i;
    }
    move |(x, y)| {
        let s = spec.sector_of(x, y);
        match islands.sector_island[s as usize] {
            MIXED => {
                let (x0, y0, w, _) = spec.sector_rect(s);
                islands.fields[field_of[s as usize]]
                    .1
                    .get(((y - y0) * w + (x - x0)) as usize)
            }
            id => id,
        }
    }
}

/// Cells of sector `s` (its tiles' length).
pub(super) fn sector_cells(spec: GridSpec, s: u32) -> usize {
    let (_, _, w, h) = spec.sector_rect(s);
    (w * h) as usize
}

/// The graph in CSR form: `(offsets, targets, weights)`.
pub(super) type GraphCsr = (Vec<u32>, Vec<u32>, Vec<u32>);

/// Cost flags then the tiles of the flagged sectors, for `sectors` in order; the tiles
/// share one allocation.
pub(super) fn parse_cost_sectors(
    r: &mut ByteReader<'_>,
    spec: GridSpec,
    sectors: &[u32],
) -> Result<Vec<SectorCost>, ReadFault> {
    let flags = r.take(sectors.len(), "cost flags")?;
    let mut ranges = Vec::with_capacity(sectors.len());
    let mut bytes = Vec::new();
    for (&s, &flag) in sectors.iter().zip(flags) {
        ranges.push(match flag {
            0 => None,
            1 => {
                let tile = r.take(sector_cells(spec, s), "cost tile")?;
                if tile.contains(&0) {
                    return Err(ReadFault::Invalid(format!(
                        "cost tile of sector {s} holds cost 0"
                    )));
                }
                bytes.extend_from_slice(tile);
                Some(bytes.len() - tile.len()..bytes.len())
            }
            f => return Err(ReadFault::Invalid(format!("cost flag {f} of sector {s}"))),
        });
    }
    let bytes: Arc<[u8]> = bytes.into();
    Ok(ranges
        .into_iter()
        .map(|range| match range {
            None => SectorCost::Clear,
            Some(range) => SectorCost::Tile(CostTile::within(&bytes, range)),
        })
        .collect())
}

/// The portal windows, in canonical order.
pub(super) fn parse_windows(
    r: &mut ByteReader<'_>,
    spec: GridSpec,
) -> Result<Vec<PortalWindow>, ReadFault> {
    let bad = |w: &str| ReadFault::Invalid(w.to_owned());
    let sectors = spec.sector_count();
    let n = r.count(3, "windows")?;
    let mut windows = Vec::with_capacity(n);
    let mut border_id: u32 = 0;
    for _ in 0..n {
        border_id = border_id
            .checked_add(r.varint("window")?)
            .filter(|&b| (b / 2) < sectors as u32)
            .ok_or_else(|| bad("window border out of range"))?;
        let sector_a = border_id / 2;
        let horizontal = border_id % 2 == 1;
        let (sxa, sya) = (sector_a % spec.sectors_x(), sector_a / spec.sectors_x());
        let sector_b = if horizontal {
            (sya + 1 < spec.sectors_y()).then(|| sector_a + spec.sectors_x())
        } else {
            (sxa + 1 < spec.sectors_x()).then_some(sector_a + 1)
        }
        .ok_or_else(|| bad("window on a border at the map edge"))?;
        let (x0, y0, w, h) = spec.sector_rect(sector_a);
        let (xb, yb, _, _) = spec.sector_rect(sector_b);
        let (first, border, side) = if horizontal { (x0, yb, w) } else { (y0, xb, h) };
        let offset = r.varint("window")?;
        let len = r.varint("window")?;
        // A window lies along its border (a node's run of cells is held in 16 bits).
        if len == 0 || u64::from(offset) + u64::from(len) > u64::from(side) {
            return Err(bad("window runs off its border"));
        }
        let start = first + offset;
        windows.push(PortalWindow {
            sector_a,
            sector_b,
            horizontal,
            border,
            start,
            len,
        });
    }
    Ok(windows)
}

/// The portal graph of `node_count` nodes.
pub(super) fn parse_graph(
    r: &mut ByteReader<'_>,
    node_count: usize,
) -> Result<GraphCsr, ReadFault> {
    check_graph_nodes(r, node_count)?;
    let mut offsets = Vec::with_capacity(node_count + 1);
    // Every edge takes at least two bytes, so this reserves no more than the data can fill.
    let mut targets = Vec::with_capacity(r.remaining() / 2);
    let mut weights = Vec::with_capacity(r.remaining() / 2);
    offsets.push(0);
    for node in 0..node_count {
        read_node_edges(r, node, node_count, |target, weight| {
            targets.push(target);
            weights.push(weight);
        })?;
        offsets.push(targets.len() as u32);
    }
    targets.shrink_to_fit();
    weights.shrink_to_fit();
    Ok((offsets, targets, weights))
}

/// [`parse_graph`] of a whole graph chunk `raw`, kept as it is stored with the byte where
/// each node's edges start (checked as `parse_graph` checks them).
pub(super) fn parse_graph_stream(raw: Vec<u8>, node_count: usize) -> Result<EdgeStream, ReadFault> {
    let mut r = ByteReader::new(&raw);
    check_graph_nodes(&mut r, node_count)?;
    // Every node takes a byte at least, so this reserves no more than the data can fill.
    let mut starts = Vec::with_capacity(node_count.min(r.remaining()));
    for node in 0..node_count {
        starts.push(
            u32::try_from(raw.len() - r.remaining())
                .map_err(|_| ReadFault::Invalid("graph chunk of 4 GiB or more".to_owned()))?,
        );
        read_node_edges(&mut r, node, node_count, |_, _| {})?;
    }
    r.finish("graph chunk")?;
    Ok(EdgeStream::new(raw, starts))
}

/// Reads a graph chunk's node count, which must be the windows' `node_count`.
fn check_graph_nodes(r: &mut ByteReader<'_>, node_count: usize) -> Result<(), ReadFault> {
    let stored_nodes = r.u32("graph")? as usize;
    if stored_nodes != node_count {
        return Err(ReadFault::Invalid(format!(
            "graph has {stored_nodes} nodes, the windows make {node_count}"
        )));
    }
    Ok(())
}

/// Reads node `node`'s edges (a count, then per edge the target's offset from `node` and
/// the weight), handing each `(target, weight)` to `edge`, with every target checked to be
/// one of the `node_count` nodes.
fn read_node_edges(
    r: &mut ByteReader<'_>,
    node: usize,
    node_count: usize,
    mut edge: impl FnMut(u32, u32),
) -> Result<(), ReadFault> {
    let edges = r.varint("graph edge count")? as usize;
    if edges.saturating_mul(2) > r.remaining() {
        return Err(ReadFault::Truncated("graph edges".to_owned()));
    }
    for _ in 0..edges {
        let target = node as i64 + r.varint_signed("graph edge")?;
        if !(0..node_count as i64).contains(&target) {
            return Err(ReadFault::Invalid(
                "graph edge target out of range".to_owned(),
            ));
        }
        edge(target as u32, r.varint("graph edge")?);
    }
    Ok(())
}

/// The island count and every sector's island id.
pub(super) fn parse_sector_islands(
    r: &mut ByteReader<'_>,
    spec: GridSpec,
) -> Result<(u32, Vec<u32>), ReadFault> {
    let count = r.u32("islands")?;
    let sectors = spec.sector_count();
    if r.count(4, "sector islands")? != sectors {
        return Err(ReadFault::Invalid(
            "islands: sector count differs from the map size".to_owned(),
        ));
    }
    Ok((count, r.u32s(sectors, "sector islands")?))
}

/// How a package version stores an island field's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FieldLayout {
    /// Format 1: `ids u32[cells]`.
    Plain,
    /// Format 2: `id_count u32`, the ids that occur, then per cell its index among them in
    /// [`IslandField::bits_for`] bits.
    Packed,
}

/// `n` island fields (sector id, then its cells in `layout`), in ascending sector order.
pub(super) fn parse_island_fields(
    r: &mut ByteReader<'_>,
    spec: GridSpec,
    count: u32,
    n: usize,
    layout: FieldLayout,
    fields: &mut Vec<(u32, IslandField)>,
) -> Result<(), ReadFault> {
    let sectors = spec.sector_count();
    let start = fields.len();
    let above_count = |s: u32, ids: &[u32]| {
        if ids.iter().any(|&id| id > count) {
            return Err(ReadFault::Invalid(format!(
                "island field of sector {s} holds an id above {count}"
            )));
        }
        Ok(())
    };
    // One buffer for every field's cells (or ids): opening an 8192² package reads 116,000
    // a type.
    let mut plain = Vec::new();
    for _ in 0..n {
        let s = r.u32("island field")?;
        if s as usize >= sectors || fields[start..].last().is_some_and(|(p, _)| *p >= s) {
            return Err(ReadFault::Invalid(
                "island fields out of order or range".to_owned(),
            ));
        }
        let cells = sector_cells(spec, s);
        let field = match layout {
            FieldLayout::Plain => {
                r.u32s_into(cells, "island field", &mut plain)?;
                above_count(s, &plain)?;
                IslandField::from_ids(&plain)
            }
            FieldLayout::Packed => {
                let id_count = r.u32("island field")? as usize;
                if id_count == 0 || id_count > cells {
                    return Err(ReadFault::Invalid(format!(
                        "island field of sector {s} names {id_count} ids for {cells} cells"
                    )));
                }
                r.u32s_into(id_count, "island field ids", &mut plain)?;
                above_count(s, &plain)?;
                let bits = IslandField::bits_for(id_count) as usize;
                let packed = r.take((cells * bits).div_ceil(8), "island field")?;
                IslandField::from_packed(&plain, cells, packed).ok_or_else(|| {
                    ReadFault::Invalid(format!(
                        "island field of sector {s}: ids out of order or a cell naming no id"
                    ))
                })?
            }
        };
        fields.push((s, field));
    }
    Ok(())
}

/// Checks that `fields` (ascending by sector) name exactly the mixed sectors of
/// `sector_island`.
pub(super) fn check_fields(
    sector_island: &[u32],
    fields: &[(u32, IslandField)],
) -> Result<(), ReadFault> {
    let mixed = sector_island.iter().filter(|&&id| id == MIXED).count();
    if mixed != fields.len()
        || fields.windows(2).any(|w| w[0].0 >= w[1].0)
        || fields
            .iter()
            .any(|(s, _)| sector_island.get(*s as usize) != Some(&MIXED))
    {
        return Err(ReadFault::Invalid(
            "island ids disagree with the island fields".to_owned(),
        ));
    }
    Ok(())
}

/// Checks that the sector ids and the fields agree: exactly the mixed sectors have fields.
pub(super) fn check_islands(
    spec: GridSpec,
    count: u32,
    sector_island: Vec<u32>,
    fields: Vec<(u32, IslandField)>,
) -> Result<Islands, ReadFault> {
    check_fields(&sector_island, &fields)?;
    if sector_island.iter().any(|&id| id != MIXED && id > count) {
        return Err(ReadFault::Invalid(
            "island ids disagree with the island fields".to_owned(),
        ));
    }
    Ok(Islands {
        spec,
        count,
        sector_island,
        fields,
    })
}

/// A flow tile store: tile count, lengths, then the tiles; every direction must be known.
pub(super) fn parse_flow_tiles(r: &mut ByteReader<'_>) -> Result<Vec<Arc<[u8]>>, ReadFault> {
    let tile_count = r.count(4, "flow tiles")?;
    let lens = r.u32s(tile_count, "flow tile lengths")?;
    let mut tiles = Vec::with_capacity(tile_count);
    for &len in &lens {
        let tile = r.take(len as usize, "flow tile")?;
        // A fold rather than `any`: without the early exit it vectorises.
        let unknown = tile.iter().fold(false, |acc, &f| {
            // A fine flag needs a direction, and at most one of the two is set.
            let fine = f & (FLOW_FINE_CW | FLOW_FINE_CCW);
            acc | (f & 0x0F > 7 && f & 0x0F != DIR_NONE)
                | (fine != 0 && (f & 0x0F > 7 || fine == FLOW_FINE_CW | FLOW_FINE_CCW))
        });
        if unknown {
            return Err(ReadFault::Invalid(
                "a flow tile holds an unknown direction".to_owned(),
            ));
        }
        tiles.push(Arc::<[u8]>::from(tile));
    }
    Ok(tiles)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::package::codec::ByteWriter;

    /// One window (east border of sector 0, `offset` cells down it, `len` long) on a 30²
    /// map in sectors of 10, as the `windows` chunk stores it.
    fn one_window(offset: u32, len: u32) -> Vec<u8> {
        let mut w = ByteWriter::default();
        w.u32(1);
        w.varint(0);
        w.varint(offset);
        w.varint(len);
        w.bytes
    }

    #[test]
    fn a_window_off_its_border_is_an_error() {
        let spec = GridSpec {
            width: 30,
            height: 30,
            sector_size: 10,
        };
        let read = |bytes: &[u8]| parse_windows(&mut ByteReader::new(bytes), spec);
        let windows = read(&one_window(3, 7)).unwrap();
        assert_eq!((windows[0].start, windows[0].len), (3, 7));
        assert_eq!(windows[0].node(false).cells.len(), 7);
        for (offset, len) in [(3, 8), (0, 0), (10, 1), (0, 70_000), (u32::MAX, 2)] {
            assert!(
                matches!(read(&one_window(offset, len)), Err(ReadFault::Invalid(_))),
                "offset {offset}, len {len}"
            );
        }
    }

    #[test]
    fn a_map_side_longer_than_a_node_holds_is_refused() {
        let manifest = |width: u32, height: u32| Manifest {
            map_name: "m".to_owned(),
            width,
            height,
            sector_size: 16,
            cell_size_m: 1.0,
            bake_options: Vec::new(),
            layers: vec![crate::package::LayerManifest {
                name: "land".to_owned(),
                params: serde_json::Value::Null,
                clear_share: 1.0,
                windows: 0,
                islands: 1,
                nodes: 0,
                unique_tiles: 0,
            }],
            region_sectors: 0,
            chunks: Vec::new(),
            requires: Vec::new(),
        };
        assert_eq!(check_manifest(&manifest(16_384, 4096)).err(), None);
        // Within the cell count, but a portal node's first cell is two `u16`.
        for (w, h) in [(16_385, 16), (16, 65_536), (0, 16)] {
            let err = check_manifest(&manifest(w, h)).unwrap_err();
            assert!(err.contains(&format!("{w}×{h}")), "{err}");
        }
    }
}
