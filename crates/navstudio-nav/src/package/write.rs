//! Writing a package: encode each section, compress it, checksum the payload, write
//! atomically (temp file in the same folder, fsync, rename).

use std::path::Path;

use rayon::prelude::*;

use super::atomic;
use super::codec::ByteWriter;
use super::{
    FORMAT_VERSION, HEADER_LEN, LayerManifest, MAGIC, Manifest, PackageError, SectionKind,
    ZSTD_LEVEL,
};
use crate::permutations::{FlowPermutations, canonical_flows};
use crate::{NavData, NavLayer, SectorCost};

/// What the package records beside the navigation data itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackageMeta {
    /// Map name.
    pub map_name: String,
    /// Parameters of each movement type (RON text), in layer order.
    pub layer_params: Vec<String>,
    /// Bake settings as `key = value` pairs.
    pub bake_options: Vec<(String, String)>,
}

/// Builds the manifest for `nav`.
#[must_use]
pub fn manifest_for(nav: &NavData, meta: &PackageMeta) -> Manifest {
    let flows: Vec<FlowPermutations> = nav
        .layers
        .iter()
        .map(|l| canonical_flows(&l.cost, &l.nodes, &l.flows))
        .collect();
    manifest_with(nav, meta, &flows)
}

fn manifest_with(nav: &NavData, meta: &PackageMeta, flows: &[FlowPermutations]) -> Manifest {
    Manifest {
        map_name: meta.map_name.clone(),
        width: nav.spec.width,
        height: nav.spec.height,
        sector_size: nav.spec.sector_size,
        cell_size_m: nav.cell_size_m,
        bake_options: meta.bake_options.clone(),
        layers: nav
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| LayerManifest {
                name: l.name.clone(),
                params: meta.layer_params.get(i).cloned().unwrap_or_default(),
                clear_share: l.cost.clear_share(),
                windows: l.windows.len() as u32,
                islands: l.islands.count,
                nodes: l.nodes.len() as u32,
                unique_tiles: flows.get(i).map_or(0, |f| f.tiles.len() as u32),
            })
            .collect(),
    }
}

/// Encodes a package in memory. Deterministic: the same data gives the same bytes.
#[must_use]
pub fn to_bytes(nav: &NavData, meta: &PackageMeta) -> Vec<u8> {
    // Incremental edits leave the in-memory tile store non-canonical; the file never is.
    let flows: Vec<FlowPermutations> = nav
        .layers
        .par_iter()
        .map(|l| canonical_flows(&l.cost, &l.nodes, &l.flows))
        .collect();
    let manifest = manifest_with(nav, meta, &flows);
    // The manifest is plain data; RON serialisation of it cannot fail.
    let manifest_text = ron::ser::to_string_pretty(&manifest, ron::ser::PrettyConfig::default())
        .unwrap_or_default();

    let jobs: Vec<(SectionKind, u32, &NavLayer, &FlowPermutations)> = nav
        .layers
        .iter()
        .enumerate()
        .flat_map(|(i, l)| SectionKind::ALL.map(|k| (k, i as u32, l, &flows[i])))
        .collect();
    // Compression dominates the write; sections are independent, and collect() keeps order.
    let sections: Vec<(SectionKind, u32, usize, Vec<u8>)> = jobs
        .par_iter()
        .map(|&(kind, layer, l, f)| {
            let raw = encode_section_with(kind, l, f);
            let stored = zstd::bulk::compress(&raw, ZSTD_LEVEL).unwrap_or_else(|_| raw.clone());
            (kind, layer, raw.len(), stored)
        })
        .collect();

    let mut payload = ByteWriter::default();
    payload.raw(manifest_text.as_bytes());
    for (kind, layer, raw_len, stored) in &sections {
        payload.u32(*kind as u32);
        payload.u32(*layer);
        payload.u64(*raw_len as u64);
        payload.u64(stored.len() as u64);
    }
    for (_, _, _, stored) in &sections {
        payload.raw(stored);
    }
    let payload = payload.bytes;

    let mut out = ByteWriter::default();
    out.raw(&MAGIC);
    out.u32(FORMAT_VERSION);
    out.len_u32(manifest_text.len());
    out.len_u32(sections.len());
    out.u32(0);
    out.u64(payload.len() as u64);
    out.u32(crc32fast::hash(&payload));
    out.u32(0);
    debug_assert_eq!(out.bytes.len(), HEADER_LEN);
    out.raw(&payload);
    out.bytes
}

/// Writes a package atomically: a temp file in the same folder, fsync, then rename, so an
/// interrupted write never leaves a half file under the real name.
///
/// # Errors
/// [`PackageError::Io`] when the folder is not writable or the disk is full; the old file,
/// if any, is left untouched.
pub fn write(path: &Path, nav: &NavData, meta: &PackageMeta) -> Result<(), PackageError> {
    let bytes = to_bytes(nav, meta);
    atomic::write_atomic(path, &bytes).map_err(|source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The uncompressed bytes of one section of one layer (the layout in `docs/package-format.md`);
/// public so tools and benchmarks can measure codecs on real data.
#[must_use]
pub fn encode_section(kind: SectionKind, l: &NavLayer) -> Vec<u8> {
    let flows = if kind == SectionKind::Flows {
        canonical_flows(&l.cost, &l.nodes, &l.flows)
    } else {
        FlowPermutations::default()
    };
    encode_section_with(kind, l, &flows)
}

/// [`encode_section`] with the layer's canonical flow store already computed.
fn encode_section_with(kind: SectionKind, l: &NavLayer, flows: &FlowPermutations) -> Vec<u8> {
    let mut w = ByteWriter::default();
    match kind {
        SectionKind::Cost => {
            // Flags first, then the tiles: the flag run compresses to almost nothing.
            w.len_u32(l.cost.sectors.len());
            for s in &l.cost.sectors {
                w.u8(u8::from(matches!(s, SectorCost::Tile(_))));
            }
            for s in &l.cost.sectors {
                if let SectorCost::Tile(tile) = s {
                    w.raw(tile);
                }
            }
        }
        SectionKind::Windows => {
            // A window's sectors, axis and border line follow from its border id; store the
            // id as a delta, the start relative to the border's first cell, and the length.
            w.len_u32(l.windows.len());
            let mut prev_border = 0;
            for win in &l.windows {
                let border_id = win.border_id();
                let (x0, y0, _, _) = l.cost.spec.sector_rect(win.sector_a);
                let first = if win.horizontal { x0 } else { y0 };
                w.varint(border_id - prev_border);
                w.varint(win.start - first);
                w.varint(win.len);
                prev_border = border_id;
            }
        }
        SectionKind::Graph => {
            // Per node: edge count, then (target − node) zig-zag and weight, all LEB128.
            let nodes = l.graph.offsets.len().saturating_sub(1);
            w.len_u32(nodes);
            for node in 0..nodes as u32 {
                let edges: Vec<(u32, u32)> = l.graph.edges(node).collect();
                w.varint(edges.len() as u32);
                for (target, weight) in edges {
                    w.varint_signed(i64::from(target) - i64::from(node));
                    w.varint(weight);
                }
            }
        }
        SectionKind::Islands => {
            w.u32(l.islands.count);
            w.len_u32(l.islands.sector_island.len());
            w.u32s(&l.islands.sector_island);
            w.len_u32(l.islands.fields.len());
            for (sector, field) in &l.islands.fields {
                w.u32(*sector);
                w.u32s(field);
            }
        }
        SectionKind::Flows => {
            w.len_u32(flows.tiles.len());
            for tile in &flows.tiles {
                w.len_u32(tile.len());
            }
            for tile in &flows.tiles {
                w.raw(tile);
            }
            w.len_u32(flows.node_tile.len());
            w.u32s(&flows.node_tile);
        }
    }
    w.bytes
}
