//! Writing a package (format version 2): encode every chunk, compress the chunks on all
//! cores, index them in the JSON manifest, write atomically (temp file in the same folder,
//! fsync, rename).

use std::borrow::Cow;
use std::path::Path;

use rayon::prelude::*;

use super::atomic;
use super::codec::ByteWriter;
use super::{
    BASE_VERSION, ChunkInfo, ChunkKind, FLOWS_ZSTD_LEVEL, FORMAT_VERSION, HEADER_LEN,
    LayerManifest, MAGIC, Manifest, PackageError, REGION_SECTORS, RegionGrid, SectionKind,
    ZSTD_LEVEL,
};
use crate::hierarchy::{Hierarchy, Levels};
use crate::landmarks::Landmarks;
use crate::permutations::{FlowPermutations, canonical_flows_borrowed};
use crate::route::SearchGraph;
use crate::{NavData, NavLayer, SectorCost};

/// What the package records beside the navigation data itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackageMeta {
    /// Map name.
    pub map_name: String,
    /// Parameters of each movement type (a JSON object each), in layer order.
    pub layer_params: Vec<serde_json::Value>,
    /// Bake settings as `key = value` pairs.
    pub bake_options: Vec<(String, String)>,
    /// Which search tables to store: the sector hierarchy (`Some(true)`), landmark tables
    /// per portal node (`Some(false)`), or whichever pays on the map's size (`None`: the
    /// hierarchy from 200 × 200 sectors).
    pub hierarchy: Option<bool>,
    /// The nav links, stored in the `links` chunk (the package then requires it).
    pub links: Vec<crate::links::NavLink>,
}

/// Builds the manifest for `nav`, without the chunk index.
#[must_use]
pub fn manifest_for(nav: &NavData, meta: &PackageMeta) -> Manifest {
    let flows: Vec<Cow<'_, FlowPermutations>> = nav
        .layers
        .iter()
        .map(|l| canonical_flows_borrowed(&l.cost, &l.nodes, &l.flows))
        .collect();
    manifest_with(nav, meta, &flows)
}

fn manifest_with(
    nav: &NavData,
    meta: &PackageMeta,
    flows: &[Cow<'_, FlowPermutations>],
) -> Manifest {
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
                params: meta
                    .layer_params
                    .get(i)
                    .cloned()
                    .unwrap_or(serde_json::Value::Null),
                clear_share: l.cost.clear_share(),
                windows: l.windows.len() as u32,
                islands: l.islands.count,
                nodes: l.nodes.len() as u32,
                unique_tiles: flows.get(i).map_or(0, |f| f.tiles.len() as u32),
            })
            .collect(),
        region_sectors: REGION_SECTORS,
        chunks: Vec::new(),
        requires: if meta.links.is_empty() {
            Vec::new()
        } else {
            vec![ChunkKind::Links.name().to_owned()]
        },
    }
}

/// One chunk to encode: which movement type, what, and for regional kinds which region.
#[derive(Clone, Copy)]
struct ChunkJob {
    layer: u32,
    kind: ChunkKind,
    region: Option<u32>,
}

/// Encodes a package in memory. Deterministic: the same data gives the same bytes.
#[must_use]
pub fn to_bytes(nav: &NavData, meta: &PackageMeta) -> Vec<u8> {
    let encoded = encode(nav, meta);
    let mut out = Vec::with_capacity(encoded.len());
    out.extend_from_slice(&encoded.head);
    // Each chunk is freed once copied, so the file and its chunks are not held twice.
    for chunk in encoded.chunks {
        out.extend_from_slice(&chunk);
    }
    out
}

/// A package's bytes in the pieces the encoder makes: the header and manifest, then the
/// chunks in file order. Written to a file piece by piece, the package is never held whole
/// (233 MB at 8192², as much again as its chunks).
struct EncodedPackage {
    /// Header and manifest.
    head: Vec<u8>,
    /// Compressed chunks, in file order.
    chunks: Vec<Vec<u8>>,
}

impl EncodedPackage {
    /// The file's length in bytes.
    fn len(&self) -> usize {
        self.head.len() + self.chunks.iter().map(Vec::len).sum::<usize>()
    }

    /// The pieces in file order.
    fn parts(&self) -> Vec<&[u8]> {
        std::iter::once(&self.head[..])
            .chain(self.chunks.iter().map(Vec::as_slice))
            .collect()
    }
}

/// Encodes a package into its pieces ([`to_bytes`] joins them, [`write`] writes them).
fn encode(nav: &NavData, meta: &PackageMeta) -> EncodedPackage {
    // Incremental edits leave the in-memory tile store non-canonical; the file never is.
    let flows: Vec<Cow<'_, FlowPermutations>> = nav
        .layers
        .par_iter()
        .map(|l| canonical_flows_borrowed(&l.cost, &l.nodes, &l.flows))
        .collect();
    let mut manifest = manifest_with(nav, meta, &flows);
    // The search's tables, so a game's first request does not compute them (seconds on the
    // largest maps): landmark tables per portal node, or, on maps where it pays, the sector
    // hierarchy with tables per border node. In the layers' node order (or their search
    // order, which the reader lays out alike). One layer at a time, each compressed (as
    // `(raw length, stored bytes)`) while the next one builds: each build already runs on
    // all cores but the compression on one, and a map at the size limit holds 166 MB of
    // plain per-node tables per layer, so no more than one waits.
    let clustered = meta
        .hierarchy
        .unwrap_or_else(|| crate::hierarchy::pays_off(nav.spec));
    let tables_kind = if clustered {
        ChunkKind::Hierarchy
    } else {
        ChunkKind::Landmarks
    };
    type Stored = Option<(usize, Vec<u8>)>;
    let build = |(i, l): (usize, &NavLayer)| -> Option<(Vec<u8>, Stored)> {
        if clustered {
            if l.nodes.is_empty() {
                return None;
            }
            // Over the type's links too: a reader lays its graph out with their end nodes.
            let mut graph = SearchGraph::new(l);
            if !meta.links.is_empty() {
                let ends =
                    crate::links::overlay::LayerLinks::build(l, i, &meta.links, nav.cell_size_m);
                graph = graph.with_links(&ends);
            }
            let hierarchy = Hierarchy::build(&graph);
            let landmarks = hierarchy.landmarks(l, &graph);
            // Stored here, the cells compressed in parallel: they are many small frames.
            let levels = Some(Levels::build(&hierarchy))
                .filter(|levels| levels.count() > 0)
                .map(|levels| levels.to_stored(&hierarchy, ZSTD_LEVEL))
                .map(|(raw_len, stored)| (raw_len as usize, stored));
            Some((hierarchy.to_bytes(landmarks.as_ref()), levels))
        } else {
            Some((Landmarks::build(l)?.to_bytes(), None))
        }
    };
    let store = |raw: Option<(Vec<u8>, Stored)>| -> (Stored, Stored) {
        let Some((tables, levels)) = raw else {
            return (None, None);
        };
        (Some((tables.len(), compress(&tables))), levels)
    };
    let mut tables: Vec<Stored> = Vec::with_capacity(nav.layers.len());
    let mut level_tables: Vec<Stored> = Vec::with_capacity(nav.layers.len());
    let mut waiting = None;
    let mut keep = |(t, l): (Stored, Stored)| {
        tables.push(t);
        level_tables.push(l);
    };
    for (i, l) in nav.layers.iter().enumerate() {
        let (stored, raw) = rayon::join(|| waiting.take().map(store), || build((i, l)));
        if let Some(stored) = stored {
            keep(stored);
        }
        waiting = Some(raw);
    }
    // The last layer's tables have no build left to share the cores with: they are
    // compressed with the chunks below instead (and freed as soon as they are).
    let mut last_layer_tables = None;
    if let Some(raw) = waiting {
        let (tables, levels) = raw.unzip();
        last_layer_tables = tables.map(|t| (nav.layers.len() - 1, t));
        keep((None, levels.flatten()));
    }
    let last_tables_layer = last_layer_tables.as_ref().map(|(layer, _)| *layer);
    let last_tables = std::sync::Mutex::new(last_layer_tables.map(|(_, t)| t));
    // Levels change which routes a search finds: a reader must search them.
    if level_tables.iter().any(Option::is_some) {
        manifest
            .requires
            .push(ChunkKind::LevelCells.name().to_owned());
    }
    let regions = RegionGrid {
        spec: nav.spec,
        region_sectors: REGION_SECTORS,
    };
    // Each layer's portal nodes and island fields grouped by region, in order (grouped once:
    // a filter per region over a layer's 116,000 fields was a billion tests at 8192²).
    let by_region = |sectors: &mut dyn Iterator<Item = u32>| {
        let mut lists = vec![Vec::new(); regions.count() as usize];
        for (i, sector) in sectors.enumerate() {
            lists[regions.region_of_sector(sector) as usize].push(i as u32);
        }
        lists
    };
    let region_nodes: Vec<Vec<Vec<u32>>> = nav
        .layers
        .iter()
        .map(|l| by_region(&mut l.nodes.iter().map(|n| n.sector)))
        .collect();
    let region_fields: Vec<Vec<Vec<u32>>> = nav
        .layers
        .iter()
        .map(|l| by_region(&mut l.islands.fields.iter().map(|(s, _)| *s)))
        .collect();

    // File order: every layer's global chunks (what opening a package reads), then region
    // by region every layer's regional chunks, so a region's data lies together on disk.
    let layer_count = nav.layers.len() as u32;
    let mut jobs: Vec<ChunkJob> = (0..layer_count)
        .flat_map(|layer| {
            let has_tables =
                tables[layer as usize].is_some() || last_tables_layer == Some(layer as usize);
            let has_levels = level_tables[layer as usize].is_some();
            let optional = [tables_kind].into_iter().filter(move |_| has_tables).chain(
                [ChunkKind::LevelCells]
                    .into_iter()
                    .filter(move |_| has_levels),
            );
            ChunkKind::GLOBAL
                .into_iter()
                .chain(optional)
                .map(move |kind| ChunkJob {
                    layer,
                    kind,
                    region: None,
                })
        })
        .collect();
    if !meta.links.is_empty() {
        jobs.push(ChunkJob {
            layer: 0,
            kind: ChunkKind::Links,
            region: None,
        });
    }
    for region in 0..regions.count() {
        for layer in 0..layer_count {
            jobs.extend(ChunkKind::REGIONAL.map(|kind| ChunkJob {
                layer,
                kind,
                region: Some(region),
            }));
        }
    }
    // Compression dominates the write; chunks are independent, and collect() keeps order.
    let mut chunks: Vec<(usize, Vec<u8>)> = jobs
        .par_iter()
        .map(|job| {
            let last = (job.kind == tables_kind && last_tables_layer == Some(job.layer as usize))
                .then(|| {
                    last_tables
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .take()
                })
                .flatten();
            if let Some(raw) = last {
                return (raw.len(), compress(&raw));
            }
            if job.kind == tables_kind || job.kind == ChunkKind::LevelCells {
                // Moved in below rather than copied: 13 MB per type at 8192².
                return (0, Vec::new());
            }
            let l = &nav.layers[job.layer as usize];
            let f = &flows[job.layer as usize];
            let raw = match job.region {
                None if job.kind == ChunkKind::Links => crate::links::codec::to_bytes(&meta.links),
                None if job.kind == ChunkKind::SectorIslands => sector_islands(l),
                None => encode_section_with(job.kind.section(), l, f),
                Some(r) => encode_region(
                    job.kind,
                    l,
                    f,
                    regions.sectors(r),
                    &region_nodes[job.layer as usize][r as usize],
                    &region_fields[job.layer as usize][r as usize],
                ),
            };
            let level = if job.kind == ChunkKind::Flows {
                FLOWS_ZSTD_LEVEL
            } else {
                ZSTD_LEVEL
            };
            (raw.len(), compress_at(&raw, level))
        })
        .collect();
    for (job, chunk) in jobs.iter().zip(&mut chunks) {
        let from = if job.kind == tables_kind {
            &mut tables
        } else if job.kind == ChunkKind::LevelCells {
            &mut level_tables
        } else {
            continue;
        };
        if let Some(table) = from.get_mut(job.layer as usize).and_then(Option::take) {
            *chunk = table;
        }
    }

    // The index holds absolute offsets, and the offsets depend on the manifest's length:
    // offsets are written relative to the data start, the manifest measured, and the
    // offsets shifted until its length no longer changes (digits can only grow).
    let mut data_start = HEADER_LEN as u64;
    let manifest_text = loop {
        let mut offset = data_start;
        manifest.chunks = jobs
            .iter()
            .zip(&chunks)
            .map(|(job, (raw_len, stored))| {
                let info = ChunkInfo {
                    layer: job.layer,
                    kind: job.kind.name().to_owned(),
                    region: job.region,
                    offset,
                    stored_len: stored.len() as u64,
                    raw_len: *raw_len as u64,
                    crc32: crc32fast::hash(stored),
                };
                offset += stored.len() as u64;
                info
            })
            .collect();
        // The manifest is plain data; JSON serialisation of it cannot fail.
        let text = serde_json::to_string(&manifest).unwrap_or_default();
        let start = (HEADER_LEN + text.len()) as u64;
        if start == data_start {
            break text;
        }
        data_start = start;
    };

    let mut head = ByteWriter::default();
    head.bytes.reserve(HEADER_LEN + manifest_text.len());
    head.raw(&MAGIC);
    // Nothing required: version 2, which readers from before `requires` open.
    head.u32(if manifest.requires.is_empty() {
        BASE_VERSION
    } else {
        FORMAT_VERSION
    });
    head.len_u32(manifest_text.len());
    head.u32(crc32fast::hash(manifest_text.as_bytes()));
    head.u32(0);
    debug_assert_eq!(head.bytes.len(), HEADER_LEN);
    head.raw(manifest_text.as_bytes());
    EncodedPackage {
        head: head.bytes,
        chunks: chunks.into_iter().map(|(_, stored)| stored).collect(),
    }
}

/// `raw` compressed at [`ZSTD_LEVEL`] (see [`compress_at`]).
fn compress(raw: &[u8]) -> Vec<u8> {
    compress_at(raw, ZSTD_LEVEL)
}

/// `raw` compressed at zstd level `level` (or `raw` itself should zstd fail), in a buffer
/// of its own length: zstd's is sized for the worst case, about `raw`'s length, and the
/// chunks wait for the file in memory, so at 8192² the slack would be some 900 MB.
fn compress_at(raw: &[u8], level: i32) -> Vec<u8> {
    let mut stored = zstd_compress(raw, level).unwrap_or_else(|| raw.to_vec());
    stored.shrink_to_fit();
    stored
}

thread_local! {
    /// Per thread, a compression context per zstd level used so far.
    static COMPRESSORS: std::cell::RefCell<Vec<(i32, zstd::bulk::Compressor<'static>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `raw` as one zstd frame at level `level` (`None` should zstd fail): what
/// `zstd::bulk::compress` gives, in a context the thread keeps for the level. A package
/// holds tens of thousands of small frames, and a context of their own had each allocate
/// and clear its tables afresh.
pub(crate) fn zstd_compress(raw: &[u8], level: i32) -> Option<Vec<u8>> {
    COMPRESSORS.with_borrow_mut(|contexts| {
        let at = match contexts.iter().position(|(l, _)| *l == level) {
            Some(at) => at,
            None => {
                contexts.push((level, zstd::bulk::Compressor::new(level).ok()?));
                contexts.len() - 1
            }
        };
        contexts[at].1.compress(raw).ok()
    })
}

/// The uncompressed bytes of one regional chunk (layouts in `docs/package-format.md`):
/// `sectors` are the region's, `nodes` and `fields` index the layer's portal nodes and island
/// fields in those sectors, in order.
fn encode_region(
    kind: ChunkKind,
    l: &NavLayer,
    flows: &FlowPermutations,
    sectors: impl Iterator<Item = u32>,
    nodes: &[u32],
    fields: &[u32],
) -> Vec<u8> {
    let mut w = ByteWriter::default();
    match kind {
        ChunkKind::Cost => {
            let sectors: Vec<u32> = sectors.collect();
            for &s in &sectors {
                w.u8(u8::from(matches!(
                    l.cost.sectors[s as usize],
                    SectorCost::Tile(_)
                )));
            }
            for &s in &sectors {
                if let SectorCost::Tile(tile) = &l.cost.sectors[s as usize] {
                    w.raw(tile);
                }
            }
        }
        ChunkKind::IslandFields => {
            w.len_u32(fields.len());
            for &i in fields {
                let (sector, field) = &l.islands.fields[i as usize];
                let (ids, packed) = field.packed();
                w.u32(*sector);
                w.len_u32(ids.len());
                w.u32s(ids);
                w.raw(packed);
            }
        }
        ChunkKind::Flows => {
            // The region's own tile store: the tiles its nodes use, numbered by first use.
            let mut local_of = rustc_hash::FxHashMap::default();
            let mut tiles: Vec<&[u8]> = Vec::new();
            let mut node_tile = Vec::with_capacity(nodes.len());
            for &n in nodes {
                let global = flows.node_tile[n as usize];
                let local = *local_of.entry(global).or_insert_with(|| {
                    tiles.push(&flows.tiles[global as usize]);
                    tiles.len() as u32 - 1
                });
                node_tile.push(local);
            }
            w.len_u32(tiles.len());
            for tile in &tiles {
                w.len_u32(tile.len());
            }
            for tile in &tiles {
                w.raw(tile);
            }
            w.len_u32(node_tile.len());
            w.u32s(&node_tile);
        }
        ChunkKind::Windows
        | ChunkKind::Graph
        | ChunkKind::SectorIslands
        | ChunkKind::Landmarks
        | ChunkKind::Hierarchy
        | ChunkKind::Levels
        | ChunkKind::LevelCells
        | ChunkKind::Links => {}
    }
    w.bytes
}

/// Writes a package atomically: a temp file in the same folder, fsync, then rename, so an
/// interrupted write never leaves a half file under the real name. Returns the file's length.
///
/// # Errors
/// [`PackageError::Io`] when the folder is not writable or the disk is full; the old file,
/// if any, is left untouched.
pub fn write(path: &Path, nav: &NavData, meta: &PackageMeta) -> Result<usize, PackageError> {
    let encoded = encode(nav, meta);
    atomic::write_parts_atomic(path, &encoded.parts()).map_err(|source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(encoded.len())
}

/// The uncompressed bytes of one section of one layer (the layout in `docs/package-format.md`);
/// public so tools and benchmarks can measure codecs on real data.
#[must_use]
pub fn encode_section(kind: SectionKind, l: &NavLayer) -> Vec<u8> {
    let flows = if kind == SectionKind::Flows {
        canonical_flows_borrowed(&l.cost, &l.nodes, &l.flows)
    } else {
        Cow::Owned(FlowPermutations::default())
    };
    encode_section_with(kind, l, &flows)
}

/// [`encode_section`] with the layer's canonical flow store already computed. The islands
/// section is written whole for version 1 tools; a version 2 package's `sector_islands`
/// chunk is its first part, [`sector_islands`].
fn encode_section_with(kind: SectionKind, l: &NavLayer, flows: &FlowPermutations) -> Vec<u8> {
    let mut w = ByteWriter::default();
    match kind {
        SectionKind::Cost => {
            // Flags first, then the tiles: the flag run compresses to almost nothing.
            w.len_u32(l.cost.sectors.len());
            for s in l.cost.sectors.iter() {
                w.u8(u8::from(matches!(s, SectorCost::Tile(_))));
            }
            for s in l.cost.sectors.iter() {
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
            for win in l.windows.iter() {
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
            w.raw(&sector_islands(l));
            w.len_u32(l.islands.fields.len());
            for (sector, field) in &l.islands.fields {
                w.u32(*sector);
                w.u32s(&field.iter().collect::<Vec<u32>>());
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

/// The `sector_islands` chunk: the island count, the sector count and each sector's id.
fn sector_islands(l: &NavLayer) -> Vec<u8> {
    let mut w = ByteWriter::default();
    w.u32(l.islands.count);
    w.len_u32(l.islands.sector_island.len());
    w.u32s(&l.islands.sector_island);
    w.bytes
}
