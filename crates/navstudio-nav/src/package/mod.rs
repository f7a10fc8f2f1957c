//! The nav package on disk (`NAME.navpkg`): what a game ships and loads.
//!
//! Version 2 (all integers little-endian; full description in `docs/package-format.md`):
//! a fixed 24-byte header (magic, format version, manifest length, CRC-32 of the manifest),
//! the manifest as UTF-8 JSON that any engine parses, then zstd-compressed chunks listed by
//! the manifest's index, each with its own CRC-32. Per movement type, the portal windows,
//! the portal graph and the island id of every sector are one chunk each (what a request
//! needs before it touches any region); the cost tiles, the per-cell island fields of mixed
//! sectors and the flow permutations are chunked by region (square blocks of sectors), so a
//! reader can decode a region on first use with positioned reads. Same `NavData` in, same
//! bytes out. Version 1 packages (RON manifest, one section per kind) still read.
//!
//! The reader trusts nothing: every length is checked against the bytes actually present
//! and against what a map of the manifest's size can need before anything is allocated, and
//! every index is range-checked, so a truncated, corrupted or hostile file gives a
//! [`PackageError`], never a panic.

pub mod atomic;
mod codec;
mod decode;
#[cfg(test)]
mod levels_tests;
mod read;
mod read_v1;
mod ron_v1;
pub mod stream;
pub(crate) mod words;
mod write;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use read::{from_bytes, read};
pub(crate) use write::zstd_compress;
pub use write::{PackageMeta, encode_section, manifest_for, to_bytes, write};

/// First 8 bytes of every package.
pub const MAGIC: [u8; 8] = *b"NAVSTPKG";
/// The newest package format version this build reads and writes. Version 3 is version 2
/// with the manifest's `requires` list: the chunk kinds a reader must understand to use the
/// package (`links` when the map has links). A package that requires nothing is written as
/// version 2, byte for byte as before, so older readers still open it.
pub const FORMAT_VERSION: u32 = 3;
/// The version a package that requires no chunk kind is written as.
pub const BASE_VERSION: u32 = 2;
/// The oldest format version this build reads.
pub const OLDEST_VERSION: u32 = 1;
/// Size of the fixed header of a version 2 package.
pub const HEADER_LEN: usize = 24;
/// Size of the fixed header of a version 1 package.
pub const HEADER_LEN_V1: usize = 40;
/// Sectors per region side: a region of 16 × 16 sectors is 160–512 cells a side for the
/// usual sector sizes, small enough to decode in well under a millisecond and large enough
/// that its chunks compress well.
pub const REGION_SECTORS: u32 = 16;
/// zstd level: zstd's default. Higher levels save a little disk for a large share of the
/// bake's time.
pub const ZSTD_LEVEL: i32 = 3;

/// zstd level of the flow tiles' chunks, the most of a package: their 16 directions carry
/// more than the 8 of a 4-neighbour flood, and level 3 kept 26–30 % of them. Level 5 stores
/// them 5 % smaller for no bake time we could measure (level 6: 8 %, for 4–5 % more bake
/// CPU at 2048²); decoding costs the same at any level.
pub const FLOWS_ZSTD_LEVEL: i32 = 5;

/// The region grid of a map: square blocks of `region_sectors` × `region_sectors` sectors,
/// numbered row-major; blocks on the right and bottom edge may be partial.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionGrid {
    /// The map's grid.
    pub spec: crate::GridSpec,
    /// Sectors per region side. `[Limit: ≥ 1]`
    pub region_sectors: u32,
}

impl RegionGrid {
    /// Regions per row.
    #[must_use]
    pub fn regions_x(&self) -> u32 {
        self.spec.sectors_x().div_ceil(self.region_sectors)
    }

    /// Regions per column.
    #[must_use]
    pub fn regions_y(&self) -> u32 {
        self.spec.sectors_y().div_ceil(self.region_sectors)
    }

    /// Number of regions.
    #[must_use]
    pub fn count(&self) -> u32 {
        self.regions_x() * self.regions_y()
    }

    /// The region holding sector `s`.
    #[must_use]
    pub fn region_of_sector(&self, s: u32) -> u32 {
        let sx = s % self.spec.sectors_x();
        let sy = s / self.spec.sectors_x();
        (sy / self.region_sectors) * self.regions_x() + sx / self.region_sectors
    }

    /// The sectors of region `r`, row-major, which is also ascending sector order.
    pub fn sectors(&self, r: u32) -> impl Iterator<Item = u32> + use<> {
        let (rs, sectors_x, sectors_y) = (
            self.region_sectors,
            self.spec.sectors_x(),
            self.spec.sectors_y(),
        );
        let (rx, ry) = (r % self.regions_x(), r / self.regions_x());
        let xs = rx * rs..((rx + 1) * rs).min(sectors_x);
        let ys = ry * rs..((ry + 1) * rs).min(sectors_y);
        ys.flat_map(move |sy| xs.clone().map(move |sx| sy * sectors_x + sx))
    }
}

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SectionKind {
    /// Per-sector cost tiles; clear sectors store nothing.
    Cost = 1,
    /// Portal windows.
    Windows = 2,
    /// The portal graph (CSR).
    Graph = 3,
    /// Island ids per sector and per-cell island fields of mixed sectors.
    Islands = 4,
    /// Unique flow tiles and the tile id of every portal node.
    Flows = 5,
}

impl SectionKind {
    /// All kinds, in the order each layer's sections are written.
    pub const ALL: [Self; 5] = [
        Self::Cost,
        Self::Windows,
        Self::Graph,
        Self::Islands,
        Self::Flows,
    ];

    fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|k| *k as u32 == v)
    }
}

/// What a version 2 chunk holds. The manifest names kinds as the snake-case strings of
/// [`ChunkKind::name`]; a reader skips kinds it does not know, so later builds can add
/// chunks (e.g. a search hierarchy) without a new format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// Per movement type: the portal windows (as version 1's section 2).
    Windows,
    /// Per movement type: the portal graph (as version 1's section 3).
    Graph,
    /// Per movement type: the island count and the island id of every sector.
    SectorIslands,
    /// Per region: the sectors' cost flags and tiles.
    Cost,
    /// Per region: the per-cell island ids of the region's mixed sectors.
    IslandFields,
    /// Per region: unique flow tiles and the tile of every portal node in the region.
    Flows,
    /// Per movement type, optional: the ALT landmark tables of the portal graph, computed
    /// when the package is written so no game computes them on its first request.
    Landmarks,
    /// Per movement type, optional: the sector hierarchy with its landmark tables over
    /// border nodes (maps from 200 × 200 sectors, instead of
    /// [`ChunkKind::Landmarks`]).
    Hierarchy,
    /// Per movement type, optional beside [`ChunkKind::Hierarchy`]: the hierarchy's levels
    /// above its clusters (see [`crate::SearchMode::Levels`]), every level whole. Written
    /// by earlier builds, still read. A package with levels lists `levels` in the
    /// manifest's `requires`: the search over them finds other routes.
    Levels,
    /// Per movement type, optional beside [`ChunkKind::Hierarchy`]: the same levels, the
    /// top one whole and the levels below it in one block per cell of the top level, so a
    /// reader decompresses only the cells a search reads. Listed in `requires` too, so a
    /// reader that knows only [`ChunkKind::Levels`] refuses the package.
    LevelCells,
    /// Map-wide (listed under movement type 0), at most one: the nav links
    /// ([`crate::links`]). A package with links lists `links` in the manifest's `requires`.
    Links,
}

impl ChunkKind {
    /// The kinds stored once per movement type, in file order.
    pub const GLOBAL: [Self; 3] = [Self::Windows, Self::Graph, Self::SectorIslands];
    /// The kinds stored once per movement type and region, in file order.
    pub const REGIONAL: [Self; 3] = [Self::Cost, Self::IslandFields, Self::Flows];

    /// The kinds stored at most once per movement type, which a reader can do without.
    pub const OPTIONAL: [Self; 5] = [
        Self::Landmarks,
        Self::Hierarchy,
        Self::Levels,
        Self::LevelCells,
        Self::Links,
    ];

    /// The name the manifest uses.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Landmarks => "alt_landmarks",
            Self::Hierarchy => "hierarchy",
            Self::Levels => "levels",
            Self::LevelCells => "level_cells",
            Self::Links => "links",
            Self::Windows => "windows",
            Self::Graph => "graph",
            Self::SectorIslands => "sector_islands",
            Self::Cost => "cost",
            Self::IslandFields => "island_fields",
            Self::Flows => "flows",
        }
    }

    /// The kind a manifest name stands for, if this build knows it.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::GLOBAL
            .into_iter()
            .chain(Self::REGIONAL)
            .chain(Self::OPTIONAL)
            .find(|k| k.name() == name)
    }

    /// The version 1 section that held the same data.
    #[must_use]
    pub fn section(self) -> SectionKind {
        match self {
            Self::Windows => SectionKind::Windows,
            Self::Graph => SectionKind::Graph,
            Self::SectorIslands | Self::IslandFields => SectionKind::Islands,
            Self::Cost => SectionKind::Cost,
            Self::Flows => SectionKind::Flows,
            // Sizes of the landmark tables count with the graph, whose search they speed.
            Self::Landmarks | Self::Hierarchy | Self::Levels | Self::LevelCells | Self::Links => {
                SectionKind::Graph
            }
        }
    }
}

/// One entry of a version 2 package's chunk index (the manifest's `chunks`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    /// Index of the movement type.
    pub layer: u32,
    /// What it holds: a [`ChunkKind::name`], or a kind this build does not know.
    pub kind: String,
    /// The region (row-major over the region grid) for regional kinds; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<u32>,
    /// Where the stored bytes start in the file.
    pub offset: u64,
    /// Stored (zstd-compressed) length in bytes.
    pub stored_len: u64,
    /// Uncompressed length in bytes.
    pub raw_len: u64,
    /// CRC-32 (IEEE) of the stored bytes.
    pub crc32: u32,
}

/// One movement type as the manifest records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerManifest {
    /// Movement type name.
    pub name: String,
    /// The movement type's parameters as the bake saw them: a JSON object in version 2
    /// (a RON string in version 1), for people and tools.
    pub params: serde_json::Value,
    /// Share of sectors that store no cost tile.
    pub clear_share: f64,
    /// Portal windows.
    pub windows: u32,
    /// Islands.
    pub islands: u32,
    /// Portal nodes (flow permutations before deduplication).
    pub nodes: u32,
    /// Unique flow tiles stored.
    pub unique_tiles: u32,
}

/// The readable part of a package.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Map name.
    pub map_name: String,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Sector edge length. `[Units: cells]`
    pub sector_size: u32,
    /// Cell edge length. `[Units: m]`
    pub cell_size_m: f32,
    /// Bake settings that shaped the data, as `key = value` lines.
    pub bake_options: Vec<(String, String)>,
    /// One entry per movement type, in layer order.
    pub layers: Vec<LayerManifest>,
    /// Sectors per region side (version 2; 0 in version 1, which has no regions).
    #[serde(default)]
    pub region_sectors: u32,
    /// The chunk index, in file order (version 2; empty in version 1).
    #[serde(default)]
    pub chunks: Vec<ChunkInfo>,
    /// Chunk kinds a reader must understand to use the package (version 3); a reader
    /// refuses a package that requires a kind it does not know.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
}

/// How many bytes one kind of data of one movement type takes: a version 1 section, or
/// the sum of the version 2 chunks that hold the same data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionInfo {
    /// What it holds.
    pub kind: SectionKind,
    /// Index of the movement type.
    pub layer: u32,
    /// Uncompressed length in bytes.
    pub raw_len: u64,
    /// Stored (compressed) length in bytes.
    pub stored_len: u64,
    /// Chunks it is stored in (1 for a version 1 section).
    pub chunks: u32,
}

/// A package read from disk: the manifest, the section sizes and the navigation data.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    /// The format version of the file (1, 2 or 3).
    pub version: u32,
    /// The readable manifest.
    pub manifest: Manifest,
    /// Bytes per movement type and kind of data, in layer order.
    pub sections: Vec<SectionInfo>,
    /// The navigation data.
    pub nav: crate::NavData,
    /// Per movement type, the landmark tables the package stores (none in version 1, nor
    /// for a type without portal nodes); [`crate::NavWorld::from_package`] decodes them.
    pub landmarks: Vec<Option<StoredLandmarks>>,
    /// Per movement type, the sector hierarchy the package stores (maps from
    /// 200 × 200 sectors); decoded on the type's first
    /// request.
    pub hierarchies: Vec<Option<StoredHierarchy>>,
    /// The nav links (none in packages without a `links` chunk).
    pub links: Vec<crate::links::NavLink>,
}

/// One movement type's sector hierarchy (with its landmark tables) as the package stores
/// it: checked (checksum and header) when read, and decoded as it
/// decompresses when a world first searches the type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredHierarchy {
    pub(super) stored: Vec<u8>,
    pub(super) raw_len: u64,
    /// The levels chunk, if the package has one.
    pub(super) levels: Option<StoredLevels>,
}

/// A movement type's levels chunk as the package stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct StoredLevels {
    /// The stored bytes, shared with the cells not decoded yet of a `level_cells` chunk.
    pub(super) stored: std::sync::Arc<Vec<u8>>,
    pub(super) raw_len: u64,
    /// Which kind: [`ChunkKind::LevelCells`], or [`ChunkKind::Levels`] of earlier builds.
    pub(super) kind: ChunkKind,
}

impl StoredHierarchy {
    /// The hierarchy's tables for a layer of `node_count` portal nodes, decoded as the chunk
    /// decompresses (`Hierarchy::parse`).
    ///
    /// # Errors
    /// One sentence if the chunk does not decompress to its stated length or does not
    /// decode (its checksum matched, so only a faulty writer makes one).
    pub fn parse(&self, node_count: usize) -> Result<crate::hierarchy::ParsedHierarchy, String> {
        let mut words = words::StreamWords::new(&self.stored, self.raw_len)?;
        crate::hierarchy::Hierarchy::parse(&mut words, node_count)
    }

    /// Whether its levels are stored whole (a `levels` chunk of earlier builds): reading
    /// them before a search then decodes every level, not the top one alone.
    #[must_use]
    pub fn levels_whole(&self) -> bool {
        self.levels
            .as_ref()
            .is_some_and(|l| l.kind != ChunkKind::LevelCells)
    }

    /// The levels chunk over at most `most_border` border nodes, as far as it is read
    /// before a search: a `level_cells` chunk's top level (`Levels::parse_cells`, its cells
    /// left to decode when a search reads them), or a `levels` chunk of earlier builds
    /// whole (`Levels::parse`), decoded as they decompress; `None` for a package without
    /// levels (version 2 packages, small maps).
    ///
    /// # Errors
    /// As [`Self::parse`].
    pub fn parse_levels(
        &self,
        most_border: usize,
    ) -> Option<Result<crate::hierarchy::ParsedLevels, String>> {
        let levels = self.levels.as_ref()?;
        Some(if levels.kind == ChunkKind::LevelCells {
            crate::hierarchy::Levels::parse_cells(
                std::sync::Arc::clone(&levels.stored),
                levels.raw_len,
                most_border,
            )
        } else {
            words::StreamWords::new(&levels.stored, levels.raw_len)
                .and_then(|mut words| crate::hierarchy::Levels::parse(&mut words, most_border))
        })
    }
}

/// One movement type's landmark tables as the package stores them. Reading a package checks
/// their checksum and header against the graph; they are decompressed and decoded only when
/// a world opens on them ([`Self::decode`]), because tools that read packages never search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredLandmarks {
    pub(super) stored: Vec<u8>,
    pub(super) raw_len: u64,
    pub(super) node_count: usize,
}

impl StoredLandmarks {
    /// The tables.
    ///
    /// # Errors
    /// One sentence if the chunk does not decompress to tables that fit the graph (its
    /// checksum matched, so only a faulty writer makes one).
    pub fn decode(&self) -> Result<crate::landmarks::Landmarks, String> {
        self.decode_ranked(None)
    }

    /// [`Self::decode`] with node `n`'s entries at `rank[n]` (the order a
    /// world's search layout gives its nodes).
    ///
    /// # Errors
    /// As [`Self::decode`].
    pub fn decode_ranked(
        &self,
        rank: Option<&[u32]>,
    ) -> Result<crate::landmarks::Landmarks, String> {
        let raw = decode::decompress(&self.stored, self.raw_len)?;
        crate::landmarks::Landmarks::from_bytes_ranked(&raw, self.node_count, rank)
    }
}

/// Why a package could not be written or read. Each message is one sentence: which file,
/// what is wrong, what to do.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}; check the path and permissions")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file does not start with the package magic.
    #[error(
        "{path}: not a navstudio nav package (wrong magic bytes); bake one with `navstudio bake MAP.ron -o OUT.navpkg`"
    )]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// The package was written by a newer navstudio.
    #[error(
        "{path}: package format version {found} is newer than this navstudio reads (version {FORMAT_VERSION}); upgrade navstudio or re-bake the map"
    )]
    NewerVersion {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
    },
    /// The package was written by an older, unsupported format.
    #[error(
        "{path}: package format version {found} is older than this navstudio reads (versions {OLDEST_VERSION}–{FORMAT_VERSION}); re-bake the map"
    )]
    OlderVersion {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
    },
    /// The file ends before the data its header announces.
    #[error(
        "{path}: the package is truncated ({what}); the file was cut short — copy or re-bake it"
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What was being read.
        what: String,
    },
    /// A checksum does not match.
    #[error(
        "{path}: the package is corrupted ({what}: checksum {found:08x}, expected {expected:08x}); re-bake or re-copy it"
    )]
    Checksum {
        /// The file.
        path: PathBuf,
        /// Which part: the manifest, a chunk, or the payload of a version 1 package.
        what: String,
        /// Checksum in the header.
        expected: u32,
        /// Checksum of the bytes present.
        found: u32,
    },
    /// The content contradicts itself or the map size.
    #[error("{path}: the package is inconsistent: {what}; re-bake it with this navstudio")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}
