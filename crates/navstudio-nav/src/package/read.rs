//! Reading a package: header, checksum, manifest, section table, then each section decoded
//! and checked against the map size before it becomes `NavData`.

use std::io::Read as _;

use rayon::prelude::*;
use std::path::Path;

use super::codec::{ByteReader, ReadFault};
use super::{
    FORMAT_VERSION, HEADER_LEN, MAGIC, Manifest, Package, PackageError, SectionInfo, SectionKind,
};
use crate::grid::{DIR_NONE, MAX_MAP_CELLS};
use crate::islands::{Islands, MIXED};
use crate::permutations::{FlowPermutations, canonical_flows};
use crate::portals::{
    PortalGraph, PortalWindow, find_windows, group_nodes_by_sector, nodes_from_windows,
};
use crate::{CostField, GridSpec, NavData, NavLayer, SectorCost};

/// Most movement types a package may hold.
const MAX_LAYERS: usize = 64;
/// Section table entry size.
const SECTION_ENTRY_LEN: usize = 24;

/// Reads and checks a package file.
///
/// # Errors
/// A [`PackageError`] naming the file for anything unreadable, truncated, corrupted, from
/// another format version or inconsistent with the map size.
pub fn read(path: &Path) -> Result<Package, PackageError> {
    let bytes = std::fs::read(path).map_err(|source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    from_bytes_at(&bytes, path)
}

/// Decodes a package held in memory (`path` is only used in messages: pass the name the
/// bytes came from).
///
/// # Errors
/// As [`read`].
pub fn from_bytes(bytes: &[u8]) -> Result<Package, PackageError> {
    from_bytes_at(bytes, Path::new("<memory>"))
}

fn from_bytes_at(bytes: &[u8], path: &Path) -> Result<Package, PackageError> {
    let fault = |f: ReadFault| match f {
        ReadFault::Truncated(what) => PackageError::Truncated {
            path: path.to_path_buf(),
            what,
        },
        ReadFault::Invalid(what) => PackageError::Invalid {
            path: path.to_path_buf(),
            what,
        },
    };
    let invalid = |what: String| PackageError::Invalid {
        path: path.to_path_buf(),
        what,
    };

    if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] != MAGIC {
        return Err(PackageError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let mut header = ByteReader::new(bytes);
    let magic = header.take(MAGIC.len(), "header").map_err(fault)?;
    if magic != MAGIC {
        return Err(PackageError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let version = header.u32("header").map_err(fault)?;
    if version > FORMAT_VERSION {
        return Err(PackageError::NewerVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    if version < FORMAT_VERSION {
        return Err(PackageError::OlderVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let manifest_len = header.u32("header").map_err(fault)? as usize;
    let section_count = header.u32("header").map_err(fault)? as usize;
    let _reserved = header.u32("header").map_err(fault)?;
    let payload_len = header.u64("header").map_err(fault)?;
    let checksum = header.u32("header").map_err(fault)?;
    let _reserved = header.u32("header").map_err(fault)?;
    let payload = &bytes[HEADER_LEN..];
    if (payload.len() as u64) < payload_len {
        return Err(fault(ReadFault::Truncated(format!(
            "the header announces {payload_len} payload bytes, the file holds {}",
            payload.len()
        ))));
    }
    if payload.len() as u64 > payload_len {
        return Err(invalid(format!(
            "{} bytes follow the announced end of the payload",
            payload.len() as u64 - payload_len
        )));
    }
    let found = crc32fast::hash(payload);
    if found != checksum {
        return Err(PackageError::Checksum {
            path: path.to_path_buf(),
            expected: checksum,
            found,
        });
    }

    let mut r = ByteReader::new(payload);
    let manifest_text = r.take(manifest_len, "manifest").map_err(fault)?;
    let manifest: Manifest = std::str::from_utf8(manifest_text)
        .ok()
        .and_then(|t| ron::from_str(t).ok())
        .ok_or_else(|| invalid("the manifest is not readable RON".to_owned()))?;
    let spec = check_manifest(&manifest).map_err(invalid)?;
    if section_count != manifest.layers.len() * SectionKind::ALL.len() {
        return Err(invalid(format!(
            "{section_count} sections for {} movement types (expected {} each)",
            manifest.layers.len(),
            SectionKind::ALL.len()
        )));
    }

    if section_count * SECTION_ENTRY_LEN > r.remaining() {
        return Err(fault(ReadFault::Truncated(format!(
            "the section table of {section_count} entries does not fit in the {} bytes left",
            r.remaining()
        ))));
    }
    let mut sections = Vec::with_capacity(section_count);
    for i in 0..section_count {
        let (kind, layer) = (
            r.u32("section table").map_err(fault)?,
            r.u32("section table").map_err(fault)?,
        );
        let raw_len = r.u64("section table").map_err(fault)?;
        let stored_len = r.u64("section table").map_err(fault)?;
        let expected_kind = SectionKind::ALL[i % SectionKind::ALL.len()];
        let kind = SectionKind::from_u32(kind)
            .filter(|k| *k == expected_kind && layer as usize == i / SectionKind::ALL.len())
            .ok_or_else(|| {
                invalid(format!(
                    "section {i} has kind {kind} / layer {layer}, out of order"
                ))
            })?;
        sections.push(SectionInfo {
            kind,
            layer,
            raw_len,
            stored_len,
        });
    }
    let stored_total: u64 = sections
        .iter()
        .map(|s| s.stored_len)
        .fold(0, u64::saturating_add);
    if stored_total != r.remaining() as u64 {
        return Err(fault(ReadFault::Truncated(format!(
            "the section table announces {stored_total} bytes of sections, {} are present",
            r.remaining()
        ))));
    }

    // Slice every section first (cheap, sequential), then decompress and decode the
    // movement types in parallel: they are independent.
    let mut stored_sections = Vec::with_capacity(sections.len());
    for info in &sections {
        let stored = r.take(info.stored_len as usize, "section").map_err(fault)?;
        let limit = max_raw_len(info.kind, spec);
        if info.raw_len > limit {
            return Err(invalid(format!(
                "{:?} section of movement type {} claims {} bytes, more than a {}×{} map can need ({limit})",
                info.kind, info.layer, info.raw_len, spec.width, spec.height
            )));
        }
        stored_sections.push((info, stored));
    }
    let layers = stored_sections
        .par_chunks(SectionKind::ALL.len())
        .zip(&manifest.layers)
        .map(|(chunk, layer_manifest)| {
            let name = &layer_manifest.name;
            let raw = chunk
                .par_iter()
                .map(|(info, stored)| {
                    decompress(stored, info.raw_len).map_err(|what| {
                        invalid(format!(
                            "{:?} section of movement type {name}: {what}",
                            info.kind
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            decode_layer(spec, name.clone(), &raw).map_err(|f| match f {
                ReadFault::Truncated(w) | ReadFault::Invalid(w) => {
                    invalid(format!("movement type {name}: {w}"))
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;

    Ok(Package {
        nav: NavData {
            spec,
            cell_size_m: manifest.cell_size_m,
            layers,
        },
        manifest,
        sections,
    })
}

fn check_manifest(m: &Manifest) -> Result<GridSpec, String> {
    if m.width == 0 || m.height == 0 || u64::from(m.width) * u64::from(m.height) > MAX_MAP_CELLS {
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

/// The most bytes a section of a map of this size can hold; a larger claim is a lie.
fn max_raw_len(kind: SectionKind, spec: GridSpec) -> u64 {
    let sectors = spec.sector_count() as u64;
    let cells = spec.cell_count() as u64;
    let ss = u64::from(spec.sector_size);
    // A border of `ss` cells holds at most ceil(ss / 2) windows; two borders per sector.
    let windows = 2 * sectors * ss.div_ceil(2);
    let nodes = 2 * windows;
    let nodes_per_sector = 4 * ss.div_ceil(2);
    match kind {
        SectionKind::Cost => 4 + sectors + cells,
        SectionKind::Windows => 4 + 15 * windows,
        SectionKind::Graph => 4 + 5 * nodes + 10 * nodes * (nodes_per_sector + 1),
        SectionKind::Islands => 12 + 8 * sectors + 4 * cells,
        SectionKind::Flows => 8 + nodes * (8 + ss * ss),
    }
}

/// Decompresses at most `raw_len` bytes. The buffer is reserved up front only as far as the
/// stored bytes can plausibly expand (so a lying `raw_len` cannot make us allocate), and grows
/// beyond that only as data actually arrives.
fn decompress(stored: &[u8], raw_len: u64) -> Result<Vec<u8>, String> {
    const PLAUSIBLE_RATIO: u64 = 64;
    let decoder =
        zstd::stream::read::Decoder::new(stored).map_err(|e| format!("cannot decompress: {e}"))?;
    let reserve = raw_len.min((stored.len() as u64).saturating_mul(PLAUSIBLE_RATIO));
    // One byte more than expected so read_to_end's probe for the end needs no regrowth.
    let mut out = Vec::with_capacity(usize::try_from(reserve).unwrap_or(0).saturating_add(1));
    decoder
        .take(raw_len + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot decompress: {e}"))?;
    if out.len() as u64 != raw_len {
        return Err(format!(
            "decompresses to {} bytes, the table says {raw_len}",
            out.len()
        ));
    }
    Ok(out)
}

fn decode_layer(spec: GridSpec, name: String, raw: &[Vec<u8>]) -> Result<NavLayer, ReadFault> {
    let bad = |w: String| ReadFault::Invalid(w);
    let sectors = spec.sector_count();
    let tile_len = |s: u32| sector_cells(spec, s);

    // Cost.
    let mut r = ByteReader::new(&raw[0]);
    if r.count(1, "cost sectors")? != sectors {
        return Err(bad(
            "cost section: sector count differs from the map size".to_owned()
        ));
    }
    let flags = r.take(sectors, "cost flags")?;
    let mut cost_sectors = Vec::with_capacity(sectors);
    for (s, &flag) in flags.iter().enumerate() {
        cost_sectors.push(match flag {
            0 => SectorCost::Clear,
            1 => {
                let tile = r.take(tile_len(s as u32), "cost tile")?;
                if tile.contains(&0) {
                    return Err(bad(format!("cost tile of sector {s} holds cost 0")));
                }
                SectorCost::Tile(tile.into())
            }
            f => return Err(bad(format!("cost flag {f} of sector {s}"))),
        });
    }
    r.finish("cost section")?;
    let cost = CostField {
        spec,
        sectors: cost_sectors,
    };

    // Windows: must be exactly the maximal runs of the cost field, in canonical order.
    let mut r = ByteReader::new(&raw[1]);
    let n = r.count(3, "windows")?;
    let mut windows = Vec::with_capacity(n);
    let mut border_id: u32 = 0;
    for _ in 0..n {
        border_id = border_id
            .checked_add(r.varint("window")?)
            .filter(|&b| (b / 2) < sectors as u32)
            .ok_or_else(|| bad("window border out of range".to_owned()))?;
        let sector_a = border_id / 2;
        let horizontal = border_id % 2 == 1;
        let (sxa, sya) = (sector_a % spec.sectors_x(), sector_a / spec.sectors_x());
        let sector_b = if horizontal {
            (sya + 1 < spec.sectors_y()).then(|| sector_a + spec.sectors_x())
        } else {
            (sxa + 1 < spec.sectors_x()).then_some(sector_a + 1)
        }
        .ok_or_else(|| bad("window on a border at the map edge".to_owned()))?;
        let (x0, y0, _, _) = spec.sector_rect(sector_a);
        let (xb, yb, _, _) = spec.sector_rect(sector_b);
        let (first, border) = if horizontal { (x0, yb) } else { (y0, xb) };
        let start = first.saturating_add(r.varint("window")?);
        let len = r.varint("window")?;
        windows.push(PortalWindow {
            sector_a,
            sector_b,
            horizontal,
            border,
            start,
            len,
        });
    }
    r.finish("windows section")?;

    // What can be derived from the cost field (windows, the canonical tile numbering) is
    // checked on one thread while the stored graph, islands and flows are decoded on the
    // other: three movement types on two cores otherwise leave one core idle for a third
    // of the read.
    let (derived, stored) = rayon::join(
        || -> Result<_, ReadFault> {
            if windows != find_windows(&cost) {
                return Err(bad("portal windows disagree with the cost field".to_owned()));
            }
            let nodes = nodes_from_windows(&windows);
            // Only the canonical node → tile assignment is needed: given no tiles, nothing
            // is cloned.
            let canonical = canonical_flows(&cost, &nodes, &FlowPermutations::default());
            Ok((nodes, canonical))
        },
        || decode_stored(spec, sectors, 2 * windows.len(), raw),
    );
    let (mut nodes, canonical) = derived?;
    let (graph_csr, islands, flows) = stored?;
    let (offsets, targets, weights) = graph_csr;
    let (sector_offsets, sector_nodes) = group_nodes_by_sector(spec, &nodes);
    let graph = PortalGraph {
        offsets,
        targets,
        weights,
        sector_offsets,
        sector_nodes,
    };
    // `island_at` with the binary search over mixed sectors replaced by a table.
    let mut field_of = vec![usize::MAX; sectors];
    for (i, (s, _)) in islands.fields.iter().enumerate() {
        field_of[*s as usize] = i;
    }
    for n in &mut nodes {
        let (x, y) = n.center;
        let s = spec.sector_of(x, y);
        n.island = match islands.sector_island[s as usize] {
            MIXED => {
                let (x0, y0, w, _) = spec.sector_rect(s);
                islands.fields[field_of[s as usize]].1[((y - y0) * w + (x - x0)) as usize]
            }
            id => id,
        };
    }
    for (n, &t) in nodes.iter().zip(&flows.node_tile) {
        match flows.tiles.get(t as usize) {
            Some(tile) if tile.len() == tile_len(n.sector) => {}
            _ => {
                return Err(bad(
                    "a portal node refers to a missing or mis-sized flow tile".to_owned(),
                ));
            }
        }
    }
    // Directions are range-checked but not re-derived: a wrong direction can only steer
    // badly, never make the run time index out of bounds.
    // A bake stores each tile once, numbered by first use, shared by every node with the
    // same sector contents and window; a store that differs (found by fuzzing) was edited
    // or corrupted and would silently change if the package were written again.
    if canonical.node_tile != flows.node_tile || canonical.tiles.len() != flows.tiles.len() {
        return Err(bad(
            "the flow tiles are not shared and numbered as a bake stores them".to_owned(),
        ));
    }

    Ok(NavLayer {
        name,
        cost,
        windows,
        nodes,
        graph,
        islands,
        flows,
    })
}

/// Cells of sector `s` (its tiles' length).
fn sector_cells(spec: GridSpec, s: u32) -> usize {
    let (_, _, w, h) = spec.sector_rect(s);
    (w * h) as usize
}

/// The graph in CSR form: `(offsets, targets, weights)`.
type GraphCsr = (Vec<u32>, Vec<u32>, Vec<u32>);

/// Decodes the graph, islands and flows sections of one movement type, checking them
/// against the counts the windows imply (`node_count`) but not yet against the nodes.
fn decode_stored(
    spec: GridSpec,
    sectors: usize,
    node_count: usize,
    raw: &[Vec<u8>],
) -> Result<(GraphCsr, Islands, FlowPermutations), ReadFault> {
    let bad = |w: String| ReadFault::Invalid(w);
    let tile_len = |s: u32| sector_cells(spec, s);

    // Graph.
    let mut r = ByteReader::new(&raw[2]);
    let stored_nodes = r.u32("graph")? as usize;
    if stored_nodes != node_count {
        return Err(bad(format!(
            "graph has {stored_nodes} nodes, the windows make {node_count}"
        )));
    }
    let mut offsets = Vec::with_capacity(node_count + 1);
    // Every edge takes at least two bytes, so this reserves no more than the data can fill.
    let mut targets = Vec::with_capacity(r.remaining() / 2);
    let mut weights = Vec::with_capacity(r.remaining() / 2);
    offsets.push(0);
    for node in 0..node_count as i64 {
        let edges = r.varint("graph edge count")? as usize;
        if edges.saturating_mul(2) > r.remaining() {
            return Err(ReadFault::Truncated("graph edges".to_owned()));
        }
        for _ in 0..edges {
            let target = node + r.varint_signed("graph edge")?;
            if !(0..node_count as i64).contains(&target) {
                return Err(bad("graph edge target out of range".to_owned()));
            }
            targets.push(target as u32);
            weights.push(r.varint("graph edge")?);
        }
        offsets.push(targets.len() as u32);
    }
    r.finish("graph section")?;
    targets.shrink_to_fit();
    weights.shrink_to_fit();

    // Islands.
    let mut r = ByteReader::new(&raw[3]);
    let count = r.u32("islands")?;
    if r.count(4, "sector islands")? != sectors {
        return Err(bad(
            "islands section: sector count differs from the map size".to_owned(),
        ));
    }
    let sector_island = r.u32s(sectors, "sector islands")?;
    let field_count = r.count(4, "island fields")?;
    let mut fields: Vec<(u32, Box<[u32]>)> = Vec::with_capacity(field_count.min(sectors));
    for _ in 0..field_count {
        let s = r.u32("island field")?;
        if s as usize >= sectors || fields.last().is_some_and(|(p, _)| *p >= s) {
            return Err(bad("island fields out of order or range".to_owned()));
        }
        let field = r.u32s(tile_len(s), "island field")?;
        if field.iter().copied().max().is_some_and(|id| id > count) {
            return Err(bad(format!(
                "island field of sector {s} holds an id above {count}"
            )));
        }
        fields.push((s, field.into_boxed_slice()));
    }
    r.finish("islands section")?;
    let mixed = sector_island.iter().filter(|&&id| id == MIXED).count();
    if mixed != fields.len()
        || fields
            .iter()
            .any(|(s, _)| sector_island[*s as usize] != MIXED)
        || sector_island.iter().any(|&id| id != MIXED && id > count)
    {
        return Err(bad("island ids disagree with the island fields".to_owned()));
    }
    let islands = Islands {
        spec,
        count,
        sector_island,
        fields,
    };

    // Flows.
    let mut r = ByteReader::new(&raw[4]);
    let tile_count = r.count(4, "flow tiles")?;
    let lens = r.u32s(tile_count, "flow tile lengths")?;
    let mut tiles = Vec::with_capacity(tile_count);
    for &len in &lens {
        let tile = r.take(len as usize, "flow tile")?;
        // A fold rather than `any`: without the early exit it vectorises.
        let unknown = tile.iter().fold(false, |acc, &f| {
            acc | (f & 0x0F > 7 && f & 0x0F != DIR_NONE)
        });
        if unknown {
            return Err(bad("a flow tile holds an unknown direction".to_owned()));
        }
        tiles.push(Box::<[u8]>::from(tile));
    }
    if r.count(4, "node tiles")? != node_count {
        return Err(bad(
            "flow section: node count differs from the windows".to_owned()
        ));
    }
    let node_tile = r.u32s(node_count, "node tiles")?;
    r.finish("flows section")?;
    Ok((
        (offsets, targets, weights),
        islands,
        FlowPermutations { tiles, node_tile },
    ))
}
