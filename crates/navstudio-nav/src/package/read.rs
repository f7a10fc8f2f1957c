//! Reading a package: the header names the format version; version 2 (this file) checks the
//! manifest's checksum, parses its JSON, checks the chunk index against the file, then
//! checks, decompresses and decodes every chunk, and assembles each movement type with the
//! same cross-checks as version 1 ([`super::read_v1`]); both share [`super::decode`].

use std::path::Path;

use rayon::prelude::*;

use super::codec::{ByteReader, ReadFault};
use super::decode::{
    Faults, FieldLayout, StoredFlows, assemble_layer, check_islands, check_manifest, decompress,
    decompress_prefix, max_section_len, parse_cost_sectors, parse_flow_tiles, parse_graph,
    parse_island_fields, parse_sector_islands, parse_windows, portal_bounds,
};
use super::{
    BASE_VERSION, ChunkKind, FORMAT_VERSION, HEADER_LEN, MAGIC, Manifest, OLDEST_VERSION, Package,
    PackageError, RegionGrid, SectionInfo, SectionKind, StoredHierarchy, StoredLandmarks,
    StoredLevels,
};
use crate::hierarchy::MAX_LINK_ENDS;
use crate::hierarchy::{CLUSTER_SECTORS, Hierarchy};
use crate::landmarks::{LANDMARK_COUNT, Landmarks};
use crate::permutations::FlowPermutations;
use crate::{CostField, GridSpec, NavData, NavLayer, SectorCost};

/// Most sectors a region side may span (a larger claim is a lie: no map has more).
const MAX_REGION_SECTORS: u32 = 1 << 16;

/// Reads and checks a package file (format version 1 or 2).
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
    from_bytes_at(bytes, Path::new(MEMORY))
}

/// The name errors give a package read from memory.
pub(super) const MEMORY: &str = "<memory>";

fn from_bytes_at(bytes: &[u8], path: &Path) -> Result<Package, PackageError> {
    let err = Faults { path };
    if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] != MAGIC {
        return Err(PackageError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let mut header = ByteReader::new(bytes);
    let magic = header
        .take(MAGIC.len(), "header")
        .map_err(|f| err.fault(f))?;
    if magic != MAGIC {
        return Err(PackageError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    match header.u32("header").map_err(|f| err.fault(f))? {
        1 => super::read_v1::from_bytes_at(bytes, err),
        version @ (BASE_VERSION | FORMAT_VERSION) => read_v2(bytes, err, version),
        found if found > FORMAT_VERSION => Err(PackageError::NewerVersion {
            path: path.to_path_buf(),
            found,
        }),
        found => {
            debug_assert!(found < OLDEST_VERSION);
            Err(PackageError::OlderVersion {
                path: path.to_path_buf(),
                found,
            })
        }
    }
}

fn read_v2(bytes: &[u8], err: Faults<'_>, version: u32) -> Result<Package, PackageError> {
    let (manifest_len, manifest_crc) = header_v2(bytes, err)?;
    let manifest_bytes = ByteReader::new(bytes.get(HEADER_LEN..).unwrap_or_default())
        .take(manifest_len, "manifest")
        .map_err(|f| err.fault(f))?;
    let (manifest, regions) = manifest_v2(manifest_bytes, manifest_crc, err)?;
    let spec = regions.spec;
    let chunks = check_index(
        &manifest,
        bytes.len() as u64,
        HEADER_LEN + manifest_len,
        regions,
        err,
    )?;

    // Checksums and decompression first, all chunks on all cores; then each movement type.
    let raw: Vec<Vec<u8>> = chunks
        .par_iter()
        .map(|c| {
            let info = &manifest.chunks[c.index];
            let what = || {
                let layer = &manifest.layers[info.layer as usize].name;
                match info.region {
                    Some(r) => format!("{} chunk of movement type {layer}, region {r}", info.kind),
                    None => format!("{} chunk of movement type {layer}", info.kind),
                }
            };
            let stored = &bytes[info.offset as usize..(info.offset + info.stored_len) as usize];
            let found = crc32fast::hash(stored);
            if found != info.crc32 {
                return Err(err.checksum(what(), info.crc32, found));
            }
            let raw = if c.kind == ChunkKind::Landmarks {
                // Checked here, decoded when a world opens on them (StoredLandmarks).
                decompress_prefix(stored, Landmarks::HEADER_LEN)
            } else if c.kind == ChunkKind::Hierarchy {
                decompress_prefix(stored, Hierarchy::HEADER_LEN)
            } else if c.kind == ChunkKind::Levels || c.kind == ChunkKind::LevelCells {
                // Decoded when a world first searches the type.
                decompress_prefix(stored, 8)
            } else {
                decompress(stored, info.raw_len)
            };
            raw.map_err(|w| err.invalid(format!("{}: {w}", what())))
        })
        .collect::<Result<_, _>>()?;

    let by_key: rustc_hash::FxHashMap<(usize, ChunkKind, Option<u32>), usize> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| ((c.layer, c.kind, c.region), i))
        .collect();
    let layers = (0..manifest.layers.len())
        .into_par_iter()
        .map(|layer| {
            let name = &manifest.layers[layer].name;
            let of = |kind: ChunkKind, region: Option<u32>| -> &[u8] {
                // check_index found exactly one chunk for every (layer, kind, region).
                by_key
                    .get(&(layer, kind, region))
                    .map_or(&[], |&i| raw[i].as_slice())
            };
            let l = decode_layer_v2(spec, regions, name.clone(), &of).map_err(|f| match f {
                ReadFault::Truncated(w) | ReadFault::Invalid(w) => {
                    err.invalid(format!("movement type {name}: {w}"))
                }
            })?;
            let marks = by_key
                .get(&(layer, ChunkKind::Landmarks, None))
                .map(|&i| {
                    let info = &manifest.chunks[chunks[i].index];
                    let raw_len = usize::try_from(info.raw_len).unwrap_or(usize::MAX);
                    Landmarks::check_header(&raw[i], raw_len, l.nodes.len())?;
                    let start = info.offset as usize;
                    Ok(StoredLandmarks {
                        stored: bytes[start..start + info.stored_len as usize].to_vec(),
                        raw_len: info.raw_len,
                        node_count: l.nodes.len(),
                    })
                })
                .transpose()
                .map_err(|w: String| err.invalid(format!("movement type {name}: {w}")))?;
            let hierarchy = by_key
                .get(&(layer, ChunkKind::Hierarchy, None))
                .map(|&i| {
                    let info = &manifest.chunks[chunks[i].index];
                    Hierarchy::check_header(&raw[i], info.raw_len, l.nodes.len(), MAX_LINK_ENDS)?;
                    let start = info.offset as usize;
                    // A package of this build stores its levels by cell.
                    let levels = [ChunkKind::LevelCells, ChunkKind::Levels]
                        .into_iter()
                        .find_map(|kind| Some((kind, *by_key.get(&(layer, kind, None))?)))
                        .map(|(kind, j)| {
                            let info = &manifest.chunks[chunks[j].index];
                            let start = info.offset as usize;
                            StoredLevels {
                                stored: std::sync::Arc::new(
                                    bytes[start..start + info.stored_len as usize].to_vec(),
                                ),
                                raw_len: info.raw_len,
                                kind,
                            }
                        });
                    Ok(StoredHierarchy {
                        stored: bytes[start..start + info.stored_len as usize].to_vec(),
                        raw_len: info.raw_len,
                        levels,
                    })
                })
                .transpose()
                .map_err(|w: String| err.invalid(format!("movement type {name}: {w}")))?;
            Ok((l, (marks, hierarchy)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (layers, tables): (Vec<_>, Vec<_>) = layers.into_iter().unzip();
    let (landmarks, hierarchies): (Vec<_>, Vec<_>) = tables.into_iter().unzip();

    let links = match by_key.get(&(0, ChunkKind::Links, None)) {
        Some(&i) => crate::links::codec::from_bytes(&raw[i], spec.width, spec.height)
            .map_err(|w| err.invalid(format!("links chunk: {w}")))?,
        None => Vec::new(),
    };
    let sections = section_sizes(&manifest);
    Ok(Package {
        version,
        links,
        nav: NavData::new(spec, manifest.cell_size_m, layers),
        landmarks,
        hierarchies,
        manifest,
        sections,
    })
}

/// The manifest's length and checksum from a version 2 header (its first [`HEADER_LEN`]
/// bytes; more may follow).
pub(super) fn header_v2(bytes: &[u8], err: Faults<'_>) -> Result<(usize, u32), PackageError> {
    let mut header = ByteReader::new(bytes);
    let _magic_and_version = header.take(12, "header").map_err(|f| err.fault(f))?;
    let manifest_len = header.u32("header").map_err(|f| err.fault(f))? as usize;
    let manifest_crc = header.u32("header").map_err(|f| err.fault(f))?;
    let _reserved = header.u32("header").map_err(|f| err.fault(f))?;
    Ok((manifest_len, manifest_crc))
}

/// The manifest, checked against its checksum and the size limits, and its region grid.
pub(super) fn manifest_v2(
    manifest_bytes: &[u8],
    manifest_crc: u32,
    err: Faults<'_>,
) -> Result<(Manifest, RegionGrid), PackageError> {
    let found = crc32fast::hash(manifest_bytes);
    if found != manifest_crc {
        return Err(err.checksum("manifest".to_owned(), manifest_crc, found));
    }
    let manifest: Manifest = serde_json::from_slice(manifest_bytes)
        .map_err(|e| err.invalid(format!("the manifest is not readable JSON ({e})")))?;
    let spec = check_manifest(&manifest).map_err(|w| err.invalid(w))?;
    if let Some(unknown) = manifest
        .requires
        .iter()
        .find(|k| ChunkKind::from_name(k).is_none())
    {
        return Err(err.invalid(format!(
            "it requires chunk kind \"{unknown}\", which this navstudio does not read; upgrade navstudio"
        )));
    }
    if !(1..=MAX_REGION_SECTORS).contains(&manifest.region_sectors) {
        return Err(err.invalid(format!(
            "region size {} sectors is out of range",
            manifest.region_sectors
        )));
    }
    let regions = RegionGrid {
        spec,
        region_sectors: manifest.region_sectors,
    };
    Ok((manifest, regions))
}

/// A chunk of a kind this build reads, located in the manifest's index.
pub(super) struct KnownChunk {
    pub(super) index: usize,
    pub(super) layer: usize,
    pub(super) kind: ChunkKind,
    pub(super) region: Option<u32>,
}

/// Checks the chunk index against the file: the chunks follow the manifest back to back
/// in index order and end where the file ends; every known chunk names a movement type and
/// (for regional kinds) a region that exist, appears exactly once, and claims no more raw
/// bytes than a map of this size can need. Unknown kinds are skipped.
pub(super) fn check_index(
    manifest: &Manifest,
    file_len: u64,
    data_start: usize,
    regions: RegionGrid,
    err: Faults<'_>,
) -> Result<Vec<KnownChunk>, PackageError> {
    let mut expected = data_start as u64;
    for (i, c) in manifest.chunks.iter().enumerate() {
        if c.offset != expected {
            return Err(err.invalid(format!(
                "chunk {i} starts at byte {}, expected {expected}",
                c.offset
            )));
        }
        expected = expected
            .checked_add(c.stored_len)
            .ok_or_else(|| err.invalid(format!("chunk {i} is longer than any file")))?;
    }
    if expected > file_len {
        return Err(err.fault(ReadFault::Truncated(format!(
            "the chunk index announces {expected} bytes, the file holds {file_len}"
        ))));
    }
    if expected < file_len {
        return Err(err.invalid(format!(
            "{} bytes follow the last chunk",
            file_len - expected
        )));
    }

    let layer_count = manifest.layers.len();
    let region_count = regions.count() as usize;
    let mut seen = vec![false; layer_count * (3 + 3 * region_count)];
    let mut known = Vec::new();
    let mut seen_optional = vec![false; layer_count * ChunkKind::OPTIONAL.len()];
    for (index, c) in manifest.chunks.iter().enumerate() {
        let Some(kind) = ChunkKind::from_name(&c.kind) else {
            continue;
        };
        let layer = c.layer as usize;
        let optional = ChunkKind::OPTIONAL.iter().position(|&k| k == kind);
        let global = ChunkKind::GLOBAL.iter().position(|&k| k == kind);
        let regional = ChunkKind::REGIONAL.iter().position(|&k| k == kind);
        let slot = match (optional, global, regional, c.region) {
            (Some(k), _, _, None) if layer < layer_count => {
                Some(&mut seen_optional[layer * ChunkKind::OPTIONAL.len() + k])
            }
            (_, Some(k), _, None) if layer < layer_count => Some(&mut seen[layer * 3 + k]),
            (_, _, Some(k), Some(r)) if layer < layer_count && (r as usize) < region_count => {
                Some(&mut seen[layer_count * 3 + (r as usize * layer_count + layer) * 3 + k])
            }
            _ => None,
        };
        let Some(slot) = slot else {
            return Err(err.invalid(format!(
                "chunk {index} ({}) names movement type {} / region {:?}, which do not exist",
                c.kind, c.layer, c.region
            )));
        };
        if kind == ChunkKind::Links && layer != 0 {
            return Err(err.invalid(format!(
                "chunk {index} (links) names movement type {layer}; the links chunk is map-wide and names type 0"
            )));
        }
        if std::mem::replace(slot, true) {
            return Err(err.invalid(format!("chunk {index} ({}) appears twice", c.kind)));
        }
        let limit = max_chunk_len(kind, regions, c.region);
        if c.raw_len > limit {
            return Err(err.invalid(format!(
                "chunk {index} ({}) claims {} bytes, more than a {}×{} map can need ({limit})",
                c.kind, c.raw_len, regions.spec.width, regions.spec.height
            )));
        }
        known.push(KnownChunk {
            index,
            layer,
            kind,
            region: c.region,
        });
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        let (layer, what) = if missing < layer_count * 3 {
            (
                missing / 3,
                ChunkKind::GLOBAL[missing % 3].name().to_owned(),
            )
        } else {
            let m = missing - layer_count * 3;
            let (region, layer) = ((m / 3) / layer_count, (m / 3) % layer_count);
            (
                layer,
                format!("{} of region {region}", ChunkKind::REGIONAL[m % 3].name()),
            )
        };
        return Err(err.invalid(format!(
            "the {what} chunk of movement type {} is missing",
            manifest.layers[layer].name
        )));
    }
    Ok(known)
}

/// Bytes per movement type and kind of data, summed over chunks.
fn section_sizes(manifest: &Manifest) -> Vec<SectionInfo> {
    let mut out: Vec<SectionInfo> = (0..manifest.layers.len() as u32)
        .flat_map(|layer| {
            SectionKind::ALL.map(|kind| SectionInfo {
                kind,
                layer,
                raw_len: 0,
                stored_len: 0,
                chunks: 0,
            })
        })
        .collect();
    for c in &manifest.chunks {
        let Some(kind) = ChunkKind::from_name(&c.kind) else {
            continue;
        };
        if let Some(s) = out
            .iter_mut()
            .find(|s| s.layer == c.layer && s.kind == kind.section())
        {
            s.raw_len += c.raw_len;
            s.stored_len += c.stored_len;
            s.chunks += 1;
        }
    }
    out
}

/// The most bytes a version 2 chunk can hold.
fn max_chunk_len(kind: ChunkKind, regions: RegionGrid, region: Option<u32>) -> u64 {
    let spec = regions.spec;
    let sectors = spec.sector_count() as u64;
    let ss = u64::from(spec.sector_size);
    let region_sectors = u64::from(regions.region_sectors).pow(2).min(sectors);
    let region_cells = region_sectors * ss * ss;
    let (_, _, nodes_per_sector) = portal_bounds(spec, sectors);
    let region_nodes = region_sectors * nodes_per_sector;
    match (kind, region) {
        (ChunkKind::Cost, Some(_)) => region_sectors + region_cells,
        // Per sector its id, id count, ids (a cell each at most) and packed indices (at
        // most 32 bits a cell).
        (ChunkKind::IslandFields, Some(_)) => 4 + 8 * region_sectors + 8 * region_cells,
        (ChunkKind::Flows, Some(_)) => 8 + region_nodes * (8 + ss * ss),
        (ChunkKind::SectorIslands, None) => 8 + 4 * sectors,
        (ChunkKind::Links, None) => {
            4 + (crate::links::codec::RECORD_LEN * crate::links::codec::MAX_LINKS) as u64
        }
        (ChunkKind::Landmarks, None) => {
            12 + 4 * (4 * LANDMARK_COUNT as u64) * sectors * nodes_per_sector
        }
        (ChunkKind::Levels | ChunkKind::LevelCells, None) => {
            // Levels of cells of 2 × 2 clusters and up: each a border node at most with an
            // edge to every node of a cell and out of it (which also covers a `level_cells`
            // chunk's table of a few words per cell).
            let nodes = sectors * nodes_per_sector;
            8 + 16 * (12 + 8 * nodes * (2 + nodes.min(1 << 16)))
        }
        (ChunkKind::Hierarchy, None) => {
            // Border nodes with an edge to every node of their cluster and out of it, and
            // their landmark tables.
            let nodes = sectors * nodes_per_sector;
            let cluster_nodes = u64::from(CLUSTER_SECTORS).pow(2) * nodes_per_sector;
            Hierarchy::HEADER_LEN as u64
                + 8 * nodes * (1 + cluster_nodes + nodes_per_sector)
                + 12
                + 4 * (4 * LANDMARK_COUNT as u64) * nodes
        }
        (k, _) => max_section_len(k.section(), spec),
    }
}

pub(super) fn decode_layer_v2<'a>(
    spec: GridSpec,
    regions: RegionGrid,
    name: String,
    chunk: &dyn Fn(ChunkKind, Option<u32>) -> &'a [u8],
) -> Result<NavLayer, ReadFault> {
    let sectors = spec.sector_count();
    let mut cost_sectors = vec![SectorCost::Clear; sectors];
    let mut fields = Vec::new();
    let mut region_flows = Vec::with_capacity(regions.count() as usize);

    let mut r = ByteReader::new(chunk(ChunkKind::SectorIslands, None));
    let (count, sector_island) = parse_sector_islands(&mut r, spec)?;
    r.finish("sector islands chunk")?;
    for region in 0..regions.count() {
        let in_region: Vec<u32> = regions.sectors(region).collect();
        let mut r = ByteReader::new(chunk(ChunkKind::Cost, Some(region)));
        for (s, c) in in_region
            .iter()
            .zip(parse_cost_sectors(&mut r, spec, &in_region)?)
        {
            cost_sectors[*s as usize] = c;
        }
        r.finish("cost chunk")?;
        let mut r = ByteReader::new(chunk(ChunkKind::IslandFields, Some(region)));
        let n = r.count(4, "island fields")?;
        let start = fields.len();
        parse_island_fields(&mut r, spec, count, n, FieldLayout::Packed, &mut fields)?;
        if fields[start..]
            .iter()
            .any(|(s, _)| regions.region_of_sector(*s) != region)
        {
            return Err(ReadFault::Invalid(format!(
                "island fields chunk of region {region} holds a sector of another region"
            )));
        }
        r.finish("island fields chunk")?;
        let mut r = ByteReader::new(chunk(ChunkKind::Flows, Some(region)));
        let store = parse_flow_tiles(&mut r)?;
        let n = r.count(4, "node tiles")?;
        let node_tile = r.u32s(n, "node tiles")?;
        r.finish("flows chunk")?;
        region_flows.push(FlowPermutations {
            tiles: store,
            node_tile,
        });
    }
    // Regions list their sectors row by row within the block; the layer keeps them sorted.
    fields.sort_unstable_by_key(|(s, _)| *s);

    let mut r = ByteReader::new(chunk(ChunkKind::Windows, None));
    let windows = parse_windows(&mut r, spec)?;
    r.finish("windows chunk")?;
    let mut r = ByteReader::new(chunk(ChunkKind::Graph, None));
    let graph = parse_graph(&mut r, 2 * windows.len())?;
    r.finish("graph chunk")?;

    assemble_layer(
        name,
        CostField {
            spec,
            sectors: crate::cost::SectorTable::new(spec, regions.region_sectors, &cost_sectors),
        },
        windows,
        graph,
        check_islands(spec, count, sector_island, fields)?,
        StoredFlows::Regional(regions, region_flows),
    )
}
