//! The nav package on disk (`NAME.navpkg`): what a game ships and loads.
//!
//! Layout (all integers little-endian; full description in `docs/package-format.md`):
//! a fixed 40-byte header (magic, format version, manifest length, section count, payload
//! length, CRC-32 of the payload), then the payload: the manifest as UTF-8 RON text a person
//! can read, the section table, and the sections, each zstd-compressed. Per movement type
//! there are five sections: cost sectors, portal windows, portal graph, islands and flow
//! permutations. Same `NavData` in, same bytes out.
//!
//! The reader trusts nothing: every length is checked against the bytes actually present
//! and against what a map of the manifest's size can need before anything is allocated, and
//! every index is range-checked, so a truncated, corrupted or hostile file gives a
//! [`PackageError`], never a panic.

pub mod atomic;
mod codec;
mod read;
mod write;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use read::{from_bytes, read};
pub use write::{PackageMeta, encode_section, manifest_for, to_bytes, write};

/// First 8 bytes of every package.
pub const MAGIC: [u8; 8] = *b"NAVSTPKG";
/// The package format version this build writes; it reads this version only.
pub const FORMAT_VERSION: u32 = 1;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 40;
/// zstd level: level 19 packs the flow tiles ~15 % smaller than 3 but bakes far slower;
/// 9 is the knee on our maps (see the README's package figures).
pub const ZSTD_LEVEL: i32 = 9;

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

/// One movement type as the manifest records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerManifest {
    /// Movement type name.
    pub name: String,
    /// The movement type's parameters as the bake saw them (RON), for people and tools.
    pub params: String,
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
}

/// One entry of the section table.
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
}

/// A package read from disk: the manifest, the section table and the navigation data.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    /// The readable manifest.
    pub manifest: Manifest,
    /// Section sizes, in file order.
    pub sections: Vec<SectionInfo>,
    /// The navigation data.
    pub nav: crate::NavData,
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
        "{path}: package format version {found} is older than this navstudio reads (version {FORMAT_VERSION}); re-bake the map"
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
    /// The payload checksum does not match.
    #[error(
        "{path}: the package is corrupted (checksum {found:08x}, expected {expected:08x}); re-bake or re-copy it"
    )]
    Checksum {
        /// The file.
        path: PathBuf,
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
