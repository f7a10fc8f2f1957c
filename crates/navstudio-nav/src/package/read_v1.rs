//! Reading a version 1 package: a 40-byte header with one CRC-32 over the payload, a RON
//! manifest, a table of five sections per movement type, each one zstd frame.

use rayon::prelude::*;

use super::codec::{ByteReader, ReadFault};
use super::decode::{
    Faults, FieldLayout, StoredFlows, assemble_layer, check_islands, check_manifest, decompress,
    max_section_len, parse_cost_sectors, parse_flow_tiles, parse_graph, parse_island_fields,
    parse_sector_islands, parse_windows,
};
use super::{HEADER_LEN_V1, Manifest, Package, PackageError, SectionInfo, SectionKind};
use crate::permutations::FlowPermutations;
use crate::{CostField, GridSpec, NavData, NavLayer};

/// Section table entry size.
const SECTION_ENTRY_LEN: usize = 24;

pub(super) fn from_bytes_at(bytes: &[u8], err: Faults<'_>) -> Result<Package, PackageError> {
    let fault = |f: ReadFault| err.fault(f);
    let mut header = ByteReader::new(bytes);
    let _magic_and_version = header.take(12, "header").map_err(fault)?;
    let manifest_len = header.u32("header").map_err(fault)? as usize;
    let section_count = header.u32("header").map_err(fault)? as usize;
    let _reserved = header.u32("header").map_err(fault)?;
    let payload_len = header.u64("header").map_err(fault)?;
    let checksum = header.u32("header").map_err(fault)?;
    let _reserved = header.u32("header").map_err(fault)?;
    let payload = &bytes[HEADER_LEN_V1..];
    if (payload.len() as u64) < payload_len {
        return Err(fault(ReadFault::Truncated(format!(
            "the header announces {payload_len} payload bytes, the file holds {}",
            payload.len()
        ))));
    }
    if payload.len() as u64 > payload_len {
        return Err(err.invalid(format!(
            "{} bytes follow the announced end of the payload",
            payload.len() as u64 - payload_len
        )));
    }
    let found = crc32fast::hash(payload);
    if found != checksum {
        return Err(err.checksum("payload".to_owned(), checksum, found));
    }

    let mut r = ByteReader::new(payload);
    let manifest_text = r.take(manifest_len, "manifest").map_err(fault)?;
    let manifest: Manifest = std::str::from_utf8(manifest_text)
        .ok()
        .and_then(|t| super::ron_v1::from_str(t).ok())
        .ok_or_else(|| err.invalid("the manifest is not readable RON".to_owned()))?;
    let spec = check_manifest(&manifest).map_err(|w| err.invalid(w))?;
    if section_count != manifest.layers.len() * SectionKind::ALL.len() {
        return Err(err.invalid(format!(
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
                err.invalid(format!(
                    "section {i} has kind {kind} / layer {layer}, out of order"
                ))
            })?;
        sections.push(SectionInfo {
            kind,
            layer,
            raw_len,
            stored_len,
            chunks: 1,
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
        let limit = max_section_len(info.kind, spec);
        if info.raw_len > limit {
            return Err(err.invalid(format!(
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
                        err.invalid(format!(
                            "{:?} section of movement type {name}: {what}",
                            info.kind
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            decode_layer(spec, name.clone(), &raw).map_err(|f| match f {
                ReadFault::Truncated(w) | ReadFault::Invalid(w) => {
                    err.invalid(format!("movement type {name}: {w}"))
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;

    Ok(Package {
        links: Vec::new(),
        version: 1,
        // Version 1 stored no landmark tables: a world computes them on first use.
        landmarks: vec![None; layers.len()],
        hierarchies: vec![None; layers.len()],
        nav: NavData::new(spec, manifest.cell_size_m, layers),
        manifest,
        sections,
    })
}

/// One movement type from its five sections (cost, windows, graph, islands, flows).
fn decode_layer(spec: GridSpec, name: String, raw: &[Vec<u8>]) -> Result<NavLayer, ReadFault> {
    let all: Vec<u32> = (0..spec.sector_count() as u32).collect();
    let mut r = ByteReader::new(&raw[0]);
    if r.count(1, "cost sectors")? != all.len() {
        return Err(ReadFault::Invalid(
            "cost section: sector count differs from the map size".to_owned(),
        ));
    }
    let cost = CostField {
        spec,
        sectors: crate::cost::SectorTable::new(
            spec,
            crate::cost::BLOCK_SECTORS,
            &parse_cost_sectors(&mut r, spec, &all)?,
        ),
    };
    r.finish("cost section")?;

    let mut r = ByteReader::new(&raw[1]);
    let windows = parse_windows(&mut r, spec)?;
    r.finish("windows section")?;
    let node_count = 2 * windows.len();

    let mut r = ByteReader::new(&raw[2]);
    let graph = parse_graph(&mut r, node_count)?;
    r.finish("graph section")?;

    let mut r = ByteReader::new(&raw[3]);
    let (count, sector_island) = parse_sector_islands(&mut r, spec)?;
    let n = r.count(4, "island fields")?;
    let mut fields = Vec::with_capacity(n.min(all.len()));
    parse_island_fields(&mut r, spec, count, n, FieldLayout::Plain, &mut fields)?;
    r.finish("islands section")?;
    let islands = check_islands(spec, count, sector_island, fields)?;

    let mut r = ByteReader::new(&raw[4]);
    let tiles = parse_flow_tiles(&mut r)?;
    if r.count(4, "node tiles")? != node_count {
        return Err(ReadFault::Invalid(
            "flow section: node count differs from the windows".to_owned(),
        ));
    }
    let node_tile = r.u32s(node_count, "node tiles")?;
    r.finish("flows section")?;

    assemble_layer(
        name,
        cost,
        windows,
        graph,
        islands,
        StoredFlows::Global(FlowPermutations { tiles, node_tile }),
    )
}
