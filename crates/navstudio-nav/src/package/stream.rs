//! Opening a version 2 package without decoding it all: the island ids of every movement
//! type are read at once (the island id of every sector and the island fields of mixed
//! sectors: any two cells' reachability), a movement type's windows and portal graph (and
//! its landmark tables, undecoded) on its first use ([`PackageStream::load_globals`]), and a
//! region's cost tiles and flow tiles with positioned reads when the world first needs them
//! ([`PackageStream::decode_region`]).
//!
//! The checks are the eager reader's per chunk: checksums, lengths against what a map of
//! the manifest's size can need, ranges, and every flow tile's length against its sector.
//! Two checks need the whole map's costs and are left to [`super::read`]: that the portal
//! windows are exactly those of the cost field, and that the flow tiles are shared as a bake
//! shares them. A damaged region chunk is an error when the region is first loaded, and
//! the other regions stay usable.
//!
//! The package is read from a file ([`open`]) or from bytes held in memory ([`open_bytes`]),
//! alike: only where the chunks come from differs.

use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::codec::{ByteReader, ReadFault};
use super::decode::{
    Faults, FieldLayout, check_fields, decompress, decompress_prefix, node_islands,
    parse_cost_sectors, parse_flow_tiles, parse_graph_stream, parse_island_fields,
    parse_sector_islands, parse_windows, sector_cells,
};
use super::read::{MEMORY, check_index, header_v2, manifest_v2};
use super::{
    BASE_VERSION, ChunkKind, FORMAT_VERSION, HEADER_LEN, MAGIC, Manifest, PackageError, RegionGrid,
    StoredHierarchy, StoredLandmarks, StoredLevels,
};
use crate::cost::SectorTable;
use crate::hierarchy::Hierarchy;
use crate::hierarchy::MAX_LINK_ENDS;
use crate::islands::{IslandField, Islands, MIXED};
use crate::landmarks::Landmarks;
use crate::permutations::FlowPermutations;
use crate::portals::{PortalGraph, group_nodes_by_sector, nodes_with_islands};
use crate::{CostField, NavData, NavLayer, SectorCost};

/// Tile index of a portal node whose region is not loaded.
pub const NOT_LOADED: u32 = u32::MAX;

/// An open version 2 package: the file and its index, for loading regions on demand.
#[derive(Debug)]
pub struct PackageStream {
    path: PathBuf,
    source: Source,
    manifest: Manifest,
    regions: RegionGrid,
    /// Per movement type, per region: the manifest indices of its cost and flows chunks.
    regional: Vec<Vec<[usize; 2]>>,
    /// Per movement type: the manifest indices of its windows, graph and landmark chunks,
    /// read on the type's first use ([`PackageStream::load_globals`]).
    globals: Vec<[Option<usize>; 5]>,
    /// Per movement type: the manifest indices of its island-field chunks (one per region
    /// with mixed sectors), read on the type's first use ([`PackageStream::load_island_fields`]).
    island_fields: Vec<Vec<usize>>,
}

/// What [`open`] gives: the island ids per sector of every movement type, and the stream
/// that reads the rest on demand.
#[derive(Debug)]
pub struct OpenedPackage {
    /// The nav links (see [`crate::links`]).
    pub links: Vec<crate::links::NavLink>,
    /// Every movement type with its island ids per sector only: no island fields (the cells'
    /// ids in mixed sectors) until [`PackageStream::load_island_fields`], no windows, nodes or
    /// graph until [`PackageStream::load_globals`], no cost or flow tiles until
    /// [`PackageStream::decode_region`].
    pub nav: NavData,
    /// The file.
    pub stream: PackageStream,
}

/// Where a stream's chunks come from: a file read with positioned reads, or a package's
/// bytes held in memory.
#[derive(Debug)]
enum Source {
    File(File),
    Memory(Box<[u8]>),
}

impl Source {
    fn len(&self) -> std::io::Result<u64> {
        match self {
            Self::File(file) => Ok(file.metadata()?.len()),
            Self::Memory(bytes) => Ok(bytes.len() as u64),
        }
    }

    /// Exactly `buf.len()` bytes at `offset`.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        match self {
            Self::File(file) => read_at(file, offset, buf),
            Self::Memory(bytes) => {
                let from = usize::try_from(offset).unwrap_or(usize::MAX);
                let part = from
                    .checked_add(buf.len())
                    .and_then(|to| bytes.get(from..to))
                    .ok_or(std::io::ErrorKind::UnexpectedEof)?;
                buf.copy_from_slice(part);
                Ok(())
            }
        }
    }
}

/// Whether `head`, a package's first bytes, begins a version 2 or 3 package (the versions
/// that stream).
fn streams(head: &[u8]) -> bool {
    head.len() >= 12
        && head[..MAGIC.len()] == MAGIC
        && matches!(
            u32::from_le_bytes([head[8], head[9], head[10], head[11]]),
            BASE_VERSION | FORMAT_VERSION
        )
}

/// Whether the file at `path` is a version 2 or 3 package (the versions that stream).
///
/// # Errors
/// [`PackageError::Io`] when the file cannot be read.
pub fn is_streamable(path: &Path) -> Result<bool, PackageError> {
    let io = |source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut head = [0u8; 12];
    let mut file = File::open(path).map_err(io)?;
    let n = file.read(&mut head).map_err(io)?;
    Ok(streams(&head[..n]))
}

/// Whether `bytes` hold a version 2 or 3 package (the versions that stream).
#[must_use]
pub fn is_streamable_bytes(bytes: &[u8]) -> bool {
    streams(bytes)
}

/// Opens a version 2 package for streaming.
///
/// # Errors
/// A [`PackageError`] naming the file when it cannot be read, is not a version 2 package,
/// or its header, manifest, index or any global chunk is damaged.
pub fn open(path: &Path) -> Result<OpenedPackage, PackageError> {
    let file = File::open(path).map_err(|source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    open_source(path, Source::File(file))
}

/// Opens a version 2 package held in memory for streaming, as [`open`] opens a file: the
/// bytes are copied once and each chunk is checked and decoded when first needed, so a
/// damaged region fails the calls that need it, as from a file. Errors name `<memory>`.
///
/// # Errors
/// As [`open`].
pub fn open_bytes(bytes: &[u8]) -> Result<OpenedPackage, PackageError> {
    open_source(Path::new(MEMORY), Source::Memory(bytes.into()))
}

fn open_source(path: &Path, source: Source) -> Result<OpenedPackage, PackageError> {
    let err = Faults { path };
    let io = |source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file_len = source.len().map_err(io)?;
    let mut header = [0u8; HEADER_LEN];
    source.read_at(0, &mut header).map_err(|_| {
        err.fault(ReadFault::Truncated(
            "the file is shorter than a package header".to_owned(),
        ))
    })?;
    if header[..MAGIC.len()] != MAGIC {
        return Err(PackageError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    if version != FORMAT_VERSION && version != BASE_VERSION {
        return Err(err.invalid(format!(
            "format version {version} does not stream; read it with package::read"
        )));
    }
    let (manifest_len, manifest_crc) = header_v2(&header, err)?;
    // Nothing is allocated from the header's claim before the file is known to hold it.
    if manifest_len as u64 > file_len.saturating_sub(HEADER_LEN as u64) {
        return Err(err.fault(ReadFault::Truncated(format!(
            "the manifest claims {manifest_len} bytes, the file holds {file_len} in all"
        ))));
    }
    let mut manifest_bytes = vec![0u8; manifest_len];
    source
        .read_at(HEADER_LEN as u64, &mut manifest_bytes)
        .map_err(io)?;
    let (manifest, regions) = manifest_v2(&manifest_bytes, manifest_crc, err)?;
    let chunks = check_index(&manifest, file_len, HEADER_LEN + manifest_len, regions, err)?;
    let layer_count = manifest.layers.len();
    let region_count = regions.count() as usize;
    let mut sector_islands: Vec<Option<usize>> = vec![None; layer_count];
    let mut island_fields: Vec<Vec<usize>> = vec![Vec::new(); layer_count];
    let mut regional = vec![vec![[usize::MAX; 2]; region_count]; layer_count];
    let mut globals = vec![[None; 5]; layer_count];
    let mut links_chunk = None;
    for c in &chunks {
        match (c.kind, c.region) {
            (ChunkKind::Cost, Some(r)) => regional[c.layer][r as usize][0] = c.index,
            (ChunkKind::Flows, Some(r)) => regional[c.layer][r as usize][1] = c.index,
            (ChunkKind::Windows, _) => globals[c.layer][0] = Some(c.index),
            (ChunkKind::Graph, _) => globals[c.layer][1] = Some(c.index),
            (ChunkKind::Landmarks, _) => globals[c.layer][2] = Some(c.index),
            (ChunkKind::Hierarchy, _) => globals[c.layer][3] = Some(c.index),
            // A package of this build stores its levels by cell.
            (ChunkKind::LevelCells, _) => globals[c.layer][4] = Some(c.index),
            (ChunkKind::Levels, _) => {
                globals[c.layer][4] = globals[c.layer][4].or(Some(c.index));
            }
            (ChunkKind::SectorIslands, _) => sector_islands[c.layer] = Some(c.index),
            (ChunkKind::Links, _) => links_chunk = Some(c.index),
            (ChunkKind::IslandFields, _) => island_fields[c.layer].push(c.index),
            // check_index lets no regional chunk go without its region.
            (ChunkKind::Cost | ChunkKind::Flows, None) => {}
        }
    }
    let stream = PackageStream {
        path: path.to_path_buf(),
        source,
        manifest,
        regions,
        regional,
        globals,
        island_fields,
    };
    // Reads one after the other (one file position), decoding on all cores.
    let stored: Vec<(usize, Vec<u8>)> = sector_islands
        .iter()
        .enumerate()
        .map(|(layer, index)| {
            let name = &stream.manifest.layers[layer].name;
            let index = index.ok_or_else(|| {
                err.invalid(format!("movement type {name}: no sector islands chunk"))
            })?;
            Ok((index, stream.stored(index)?))
        })
        .collect::<Result<_, PackageError>>()?;
    // Every type starts on one shared clear field in blocks of a region each; reading a
    // region puts its decoded costs in as its block.
    let clear = SectorTable::clear(regions.spec, regions.region_sectors);
    let layers: Vec<NavLayer> = stored
        .into_par_iter()
        .enumerate()
        .map(|(layer, (index, stored))| stream.decode_islands(layer, index, &stored, &clear))
        .collect::<Result<_, _>>()?;
    let links = match links_chunk {
        Some(index) => {
            let raw = stream.decompressed(index, &stream.stored(index)?)?;
            crate::links::codec::from_bytes(&raw, regions.spec.width, regions.spec.height)
                .map_err(|w| err.invalid(format!("links chunk: {w}")))?
        }
        None => Vec::new(),
    };
    Ok(OpenedPackage {
        links,
        nav: NavData::new(regions.spec, stream.manifest.cell_size_m, layers),
        stream,
    })
}

/// `fields` (of sectors below `sector_count`) in ascending sector order, placed by sector
/// rather than sorted: sorting the 116,000 fields of each type was a tenth of opening an
/// 8192² package. `None` when two name one sector.
fn by_sector(
    sector_count: usize,
    fields: impl Iterator<Item = (u32, IslandField)>,
) -> Option<Vec<(u32, IslandField)>> {
    let mut fields: Vec<Option<(u32, IslandField)>> = fields.map(Some).collect();
    let mut at = vec![u32::MAX; sector_count];
    for (i, field) in fields.iter().enumerate() {
        let slot = at.get_mut(field.as_ref()?.0 as usize)?;
        if *slot != u32::MAX {
            return None;
        }
        *slot = i as u32;
    }
    at.into_iter()
        .filter(|&i| i != u32::MAX)
        .map(|i| fields[i as usize].take())
        .collect()
}

/// Positioned read of exactly `buf.len()` bytes that shares no file position, since reads
/// may come from several threads at once: a world's `&self` queries read a type's island
/// fields on first use.
#[cfg(unix)]
fn read_at(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

/// Positioned read of exactly `buf.len()` bytes (Windows moves the file position, but each
/// read names its own offset).
#[cfg(windows)]
fn read_at(file: &File, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Positioned read of exactly `buf.len()` bytes, through the one file position elsewhere.
#[cfg(not(any(unix, windows)))]
fn read_at(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::{Seek as _, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

impl PackageStream {
    /// The package's file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The package's region grid.
    #[must_use]
    pub fn regions(&self) -> RegionGrid {
        self.regions
    }

    /// The manifest.
    #[must_use]
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn faults(&self) -> Faults<'_> {
        Faults { path: &self.path }
    }

    /// The stored bytes of chunk `index`, checked against its checksum.
    fn stored(&self, index: usize) -> Result<Vec<u8>, PackageError> {
        let info = &self.manifest.chunks[index];
        // check_index tied every chunk to the file's length, so this much is there.
        let mut bytes = vec![0u8; usize::try_from(info.stored_len).unwrap_or(0)];
        (self.source.read_at(info.offset, &mut bytes)).map_err(|source| PackageError::Io {
            path: self.path.clone(),
            source,
        })?;
        let found = crc32fast::hash(&bytes);
        if found != info.crc32 {
            return Err(self.faults().checksum(self.what(index), info.crc32, found));
        }
        Ok(bytes)
    }

    /// The raw bytes of chunk `index`.
    fn raw(&self, index: usize) -> Result<Vec<u8>, PackageError> {
        self.decompressed(index, &self.stored(index)?)
    }

    /// Chunk `index`'s `stored` bytes decompressed.
    fn decompressed(&self, index: usize, stored: &[u8]) -> Result<Vec<u8>, PackageError> {
        decompress(stored, self.manifest.chunks[index].raw_len)
            .map_err(|w| self.faults().invalid(format!("{}: {w}", self.what(index))))
    }

    /// What is wrong with chunk `index`'s contents, naming the file and the chunk.
    fn chunk_fault(&self, index: usize, f: ReadFault) -> PackageError {
        match f {
            ReadFault::Truncated(w) | ReadFault::Invalid(w) => {
                self.faults().invalid(format!("{}: {w}", self.what(index)))
            }
        }
    }

    fn what(&self, index: usize) -> String {
        let info = &self.manifest.chunks[index];
        let layer = self
            .manifest
            .layers
            .get(info.layer as usize)
            .map_or("?", |l| l.name.as_str());
        match info.region {
            Some(r) => format!("{} chunk of movement type {layer}, region {r}", info.kind),
            None => format!("{} chunk of movement type {layer}", info.kind),
        }
    }

    /// One movement type with its island ids per sector only, from its sector islands chunk
    /// (`index`, stored bytes `stored`).
    fn decode_islands(
        &self,
        layer: usize,
        index: usize,
        stored: &[u8],
        clear: &SectorTable,
    ) -> Result<NavLayer, PackageError> {
        let spec = self.regions.spec;
        let name = self.manifest.layers[layer].name.clone();
        let fault = |f: ReadFault| self.chunk_fault(index, f);
        let raw = self.decompressed(index, stored)?;
        let mut r = ByteReader::new(&raw);
        let (count, sector_island) = parse_sector_islands(&mut r, spec).map_err(fault)?;
        r.finish("sector islands chunk").map_err(fault)?;
        if sector_island.iter().any(|&id| id != MIXED && id > count) {
            return Err(fault(ReadFault::Invalid(
                "a sector names an island beyond the island count".to_owned(),
            )));
        }
        let islands = Islands {
            spec,
            count,
            sector_island,
            fields: Vec::new(),
        };
        Ok(NavLayer {
            name,
            cost: CostField {
                spec,
                sectors: clear.clone(),
            },
            windows: Arc::default(),
            nodes: Arc::default(),
            graph: PortalGraph::default(),
            islands: Arc::new(islands),
            flows: FlowPermutations::default(),
        })
    }

    /// The island fields of movement type `layer` (every region's), for `islands`, that
    /// type's island ids per sector as [`open`] read them: what [`Islands::fields`] holds.
    ///
    /// # Errors
    /// A [`PackageError`] naming the file, the chunk and what is wrong.
    pub fn load_island_fields(
        &self,
        layer: usize,
        islands: &Islands,
    ) -> Result<Vec<(u32, IslandField)>, PackageError> {
        let spec = self.regions.spec;
        let fault = |index: usize, f: ReadFault| self.chunk_fault(index, f);
        let Some(chunks) = self.island_fields.get(layer) else {
            return Ok(Vec::new());
        };
        // Reads one after the other (one file position), decoding on all cores.
        let stored: Vec<(usize, Vec<u8>)> = chunks
            .iter()
            .map(|&index| Ok((index, self.stored(index)?)))
            .collect::<Result<_, PackageError>>()?;
        let per_region: Vec<Vec<(u32, IslandField)>> = stored
            .par_iter()
            .map(|(index, stored)| {
                let index = *index;
                let region = self.manifest.chunks[index].region;
                let raw = self.decompressed(index, stored)?;
                let mut r = ByteReader::new(&raw);
                let n = r.count(4, "island fields").map_err(|f| fault(index, f))?;
                let mut fields = Vec::with_capacity(n);
                parse_island_fields(
                    &mut r,
                    spec,
                    islands.count,
                    n,
                    FieldLayout::Packed,
                    &mut fields,
                )
                .map_err(|f| fault(index, f))?;
                if fields
                    .iter()
                    .any(|(s, _)| Some(self.regions.region_of_sector(*s)) != region)
                {
                    return Err(fault(
                        index,
                        ReadFault::Invalid("it holds a sector of another region".to_owned()),
                    ));
                }
                r.finish("island fields chunk")
                    .map_err(|f| fault(index, f))?;
                Ok(fields)
            })
            .collect::<Result<_, PackageError>>()?;
        let last = chunks.last().copied().unwrap_or(0);
        let fields =
            by_sector(spec.sector_count(), per_region.into_iter().flatten()).ok_or_else(|| {
                fault(
                    last,
                    ReadFault::Invalid("two island fields name one sector".to_owned()),
                )
            })?;
        check_fields(&islands.sector_island, &fields).map_err(|f| fault(last, f))?;
        Ok(fields)
    }

    /// Reads movement type `layer`'s windows and portal graph into `l` (which [`open`] made
    /// for that type), with no region loaded, and returns its stored landmark tables.
    ///
    /// # Errors
    /// A [`PackageError`] naming the file, the chunk and what is wrong; `l` is unchanged.
    pub fn load_globals(
        &self,
        layer: usize,
        l: &mut NavLayer,
    ) -> Result<(Option<StoredLandmarks>, Option<StoredHierarchy>), PackageError> {
        let spec = self.regions.spec;
        let err = self.faults();
        let fault = |index: usize, f: ReadFault| self.chunk_fault(index, f);
        let [
            Some(windows_index),
            Some(graph_index),
            landmarks_index,
            hierarchy_index,
            levels_index,
        ] = self.globals[layer]
        else {
            return Err(err.invalid(format!(
                "movement type {}: its windows or graph chunk is missing",
                l.name
            )));
        };
        // The windows (and the nodes they make) and the graph decode side by side, at 8192²
        // a tenth of a second each, and the search tables' stored bytes (57 MB there) are
        // read beside them; the tables are checked against the nodes after.
        let stored_windows = self.stored(windows_index)?;
        let stored_graph = self.stored(graph_index)?;
        let islands = &l.islands;
        let read = |index: Option<usize>| index.map(|i| self.stored(i)).transpose();
        let read_tables = || -> Result<_, PackageError> {
            Ok((
                read(landmarks_index)?,
                read(hierarchy_index)?,
                read(hierarchy_index.and(levels_index))?,
            ))
        };
        let ((windows, graph), stored_tables) = rayon::join(
            || {
                rayon::join(
                    || -> Result<_, PackageError> {
                        let raw = self.decompressed(windows_index, &stored_windows)?;
                        let mut r = ByteReader::new(&raw);
                        let windows =
                            parse_windows(&mut r, spec).map_err(|f| fault(windows_index, f))?;
                        r.finish("windows chunk")
                            .map_err(|f| fault(windows_index, f))?;
                        let nodes = nodes_with_islands(&windows, node_islands(spec, islands));
                        let (sector_offsets, sector_nodes) = group_nodes_by_sector(spec, &windows);
                        Ok((windows, nodes, sector_offsets, sector_nodes))
                    },
                    || -> Result<_, PackageError> {
                        let raw = self.decompressed(graph_index, &stored_graph)?;
                        // The node count the graph states, checked against the windows'
                        // below.
                        let stated = raw
                            .get(..4)
                            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
                        // Kept as stored until the search layout is built from it.
                        let edges =
                            parse_graph_stream(raw, stated).map_err(|f| fault(graph_index, f))?;
                        Ok((stated, edges))
                    },
                )
            },
            read_tables,
        );
        let (windows, nodes, sector_offsets, sector_nodes) = windows?;
        let (stated, edges) = graph?;
        let (stored_landmarks, stored_hierarchy, stored_levels) = stored_tables?;
        if stated != nodes.len() {
            return Err(fault(
                graph_index,
                ReadFault::Invalid(format!(
                    "graph has {stated} nodes, the windows make {}",
                    nodes.len()
                )),
            ));
        }
        let landmarks = landmarks_index
            .zip(stored_landmarks)
            .map(|(index, stored)| {
                let check = || -> Result<u64, String> {
                    let header = decompress_prefix(&stored, Landmarks::HEADER_LEN)?;
                    let raw_len = self.manifest.chunks[index].raw_len;
                    Landmarks::check_header(
                        &header,
                        usize::try_from(raw_len).unwrap_or(usize::MAX),
                        nodes.len(),
                    )?;
                    Ok(raw_len)
                };
                let raw_len =
                    check().map_err(|w| err.invalid(format!("{}: {w}", self.what(index))))?;
                Ok(StoredLandmarks {
                    stored,
                    raw_len,
                    node_count: nodes.len(),
                })
            })
            .transpose()?;
        let hierarchy = hierarchy_index
            .zip(stored_hierarchy)
            .map(|(index, stored)| {
                let raw_len = self.manifest.chunks[index].raw_len;
                decompress_prefix(&stored, Hierarchy::HEADER_LEN)
                    .and_then(|header| {
                        Hierarchy::check_header(&header, raw_len, nodes.len(), MAX_LINK_ENDS)
                    })
                    .map_err(|w| err.invalid(format!("{}: {w}", self.what(index))))?;
                let levels = levels_index.zip(stored_levels).map(|(j, stored)| {
                    let info = &self.manifest.chunks[j];
                    StoredLevels {
                        stored: Arc::new(stored),
                        raw_len: info.raw_len,
                        kind: ChunkKind::from_name(&info.kind).unwrap_or(ChunkKind::Levels),
                    }
                });
                Ok(StoredHierarchy {
                    stored,
                    raw_len,
                    levels,
                })
            })
            .transpose()?;
        // The tile of each node is listed once a region's flow tiles are first read: a world
        // that only plans paths never reads them (at 8192² the list is 10 MB a world).
        l.flows = FlowPermutations::default();
        l.windows = Arc::new(windows);
        l.nodes = Arc::new(nodes);
        l.graph = PortalGraph {
            sector_offsets: Arc::new(sector_offsets),
            sector_nodes: Arc::new(sector_nodes),
            stream: Some(Arc::new(edges)),
            ..PortalGraph::default()
        };
        Ok((landmarks, hierarchy))
    }

    /// Decodes `part` of region `region` of movement type `layer`: its sectors' cost tiles,
    /// or its nodes' flow tiles checked against `l` (which [`open`] made for that type, its
    /// graph loaded), for [`Self::install_region`]. Reads through `&self`, so threads
    /// sharing the stream decode regions at once.
    ///
    /// # Errors
    /// A [`PackageError`] naming the file, the chunk and what is wrong.
    pub fn decode_region(
        &self,
        layer: usize,
        region: u32,
        part: RegionPart,
        l: &NavLayer,
    ) -> Result<DecodedRegion, PackageError> {
        let spec = self.regions.spec;
        let [cost_index, flows_index] = self.regional[layer][region as usize];
        let fault = |index: usize, f: ReadFault| self.chunk_fault(index, f);
        let in_region: Vec<u32> = self.regions.sectors(region).collect();
        if part == RegionPart::Costs {
            let raw = self.raw(cost_index)?;
            let mut r = ByteReader::new(&raw);
            let costs =
                parse_cost_sectors(&mut r, spec, &in_region).map_err(|f| fault(cost_index, f))?;
            r.finish("cost chunk").map_err(|f| fault(cost_index, f))?;
            let bytes = costs
                .iter()
                .map(|c| match c {
                    SectorCost::Tile(t) => t.len(),
                    SectorCost::Clear => 0,
                })
                .sum();
            return Ok(DecodedRegion {
                part,
                costs: costs.into(),
                tiles: Vec::new(),
                nodes: Vec::new(),
                node_tile: Vec::new(),
                bytes,
            });
        }
        let raw = self.raw(flows_index)?;
        let mut r = ByteReader::new(&raw);
        let tiles = parse_flow_tiles(&mut r).map_err(|f| fault(flows_index, f))?;
        let n = r
            .count(4, "node tiles")
            .map_err(|f| fault(flows_index, f))?;
        let node_tile = r.u32s(n, "node tiles").map_err(|f| fault(flows_index, f))?;
        r.finish("flows chunk").map_err(|f| fault(flows_index, f))?;
        let nodes = region_nodes(&in_region, l);
        let bad = |w: &str| fault(flows_index, ReadFault::Invalid(w.to_owned()));
        if node_tile.len() != nodes.len() {
            return Err(bad("it lists another number of nodes than its region has"));
        }
        for (&node, &t) in nodes.iter().zip(&node_tile) {
            let sector = l.nodes[node as usize].sector;
            if tiles
                .get(t as usize)
                .is_none_or(|tile| tile.len() != sector_cells(spec, sector))
            {
                return Err(bad(
                    "a portal node refers to a missing or mis-sized flow tile",
                ));
            }
        }
        let bytes = tiles.iter().map(|t| t.len()).sum::<usize>();
        Ok(DecodedRegion {
            part,
            costs: Arc::default(),
            tiles,
            nodes,
            node_tile,
            bytes,
        })
    }

    /// Puts `decoded` (a part of region `region` of the type `l` is) into `l`: its cost
    /// tiles, or its nodes' flow tiles, sharing them. `base` is where the region's flow
    /// tiles start in the layer's tile store once loaded (`None` the first time; a region
    /// loaded again reuses its slots). Returns the bytes the part holds.
    pub fn install_region(
        &self,
        decoded: &DecodedRegion,
        region: u32,
        l: &mut NavLayer,
        base: &mut Option<u32>,
    ) -> usize {
        if decoded.part == RegionPart::Costs {
            l.cost
                .sectors
                .put_block(self.regions.region_sectors, region, &decoded.costs);
            return decoded.bytes;
        }
        if l.flows.node_tile.len() < l.nodes.len() {
            l.flows.node_tile.resize(l.nodes.len(), NOT_LOADED);
        }
        let at = match *base {
            Some(at) => {
                for (i, tile) in decoded.tiles.iter().enumerate() {
                    l.flows.tiles[at as usize + i] = Arc::clone(tile);
                }
                at
            }
            None => {
                let at = l.flows.tiles.len() as u32;
                l.flows.tiles.extend(decoded.tiles.iter().cloned());
                *base = Some(at);
                at
            }
        };
        for (&node, &t) in decoded.nodes.iter().zip(&decoded.node_tile) {
            l.flows.node_tile[node as usize] = at + t;
        }
        decoded.bytes
    }

    /// Drops `part` of region `region` from `l` (a movement type of this package): its cost
    /// sectors read as clear again, or its nodes lose their flow tiles (the tile slots
    /// stay, empty).
    pub fn unload_region(&self, region: u32, part: RegionPart, l: &mut NavLayer) {
        let in_region: Vec<u32> = self.regions.sectors(region).collect();
        if part == RegionPart::Costs {
            let clear: Arc<[SectorCost]> = vec![SectorCost::Clear; in_region.len()].into();
            l.cost
                .sectors
                .put_block(self.regions.region_sectors, region, &clear);
            return;
        }
        for node in region_nodes(&in_region, l) {
            let Some(slot) = l.flows.node_tile.get_mut(node as usize) else {
                continue;
            };
            let t = std::mem::replace(slot, NOT_LOADED);
            if let Some(tile) = l.flows.tiles.get_mut(t as usize) {
                *tile = std::sync::Arc::default();
            }
        }
    }
}

/// The two parts of a region, read apart: a request reads cost tiles (its goal fields and
/// checks), only a read of a path's flow reads flow tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionPart {
    /// The sectors' cost tiles.
    Costs,
    /// The portal nodes' flow tiles.
    Flows,
}

/// One part of a region of one movement type as [`PackageStream::decode_region`] reads
/// it: cost tiles or flow tiles behind `Arc`s, so worlds and threads that install it share
/// them.
#[derive(Debug)]
pub struct DecodedRegion {
    part: RegionPart,
    /// The region's sectors' costs, in [`RegionGrid::sectors`] order (of the costs part).
    costs: Arc<[SectorCost]>,
    /// Its flow tiles, numbered as its `node_tile` numbers them.
    tiles: Vec<Arc<[u8]>>,
    /// Its portal nodes, ascending, with their tiles.
    nodes: Vec<u32>,
    node_tile: Vec<u32>,
    /// Bytes of decoded tiles.
    bytes: usize,
}

impl DecodedRegion {
    /// Bytes of decoded tiles it holds.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// The portal nodes of the sectors `in_region` of `l`, ascending: the order of a region's
/// flows chunk.
fn region_nodes(in_region: &[u32], l: &NavLayer) -> Vec<u32> {
    let mut nodes: Vec<u32> = in_region
        .iter()
        .flat_map(|&s| l.graph.nodes_of_sector(s).iter().copied())
        .collect();
    nodes.sort_unstable();
    nodes
}
