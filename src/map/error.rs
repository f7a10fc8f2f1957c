//! Typed errors for everything that reads or writes map files: heightmaps, map documents,
//! paint side files and the stamp library.
//!
//! Every message is one sentence a designer can act on: which file, what is wrong, what to
//! do about it. The CLI and the editor print `Display` as is.

use std::path::PathBuf;

pub use navstudio_nav::grid::{MAX_MAP_CELLS, MAX_MAP_SIDE};

/// The smallest map side: slopes need a neighbour in each direction.
pub const MIN_MAP_SIDE: u32 = 2;

/// Something wrong with a map file, a heightmap, a paint side file or a stamp definition.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    /// The file does not exist.
    #[error("{}: file not found; check the path, or put the file back where the map expects it", path.display())]
    NotFound {
        /// The missing file.
        path: PathBuf,
    },

    /// Reading failed for another reason (permissions, a folder instead of a file …).
    #[error("{}: could not be read ({source}); check that it is a readable file", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },

    /// Writing failed; the previous version of the file, if any, is untouched.
    #[error("{}: could not be written ({source}); the old file is unchanged — check permissions and free disk space, then save again", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },

    /// The file extension names no heightmap format this build knows.
    #[error("{}: unknown heightmap format `{extension}`; use .png, .r16/.raw, .hgt or .map, or set `encoding` in the map document", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// Its extension (may be empty).
        extension: String,
    },

    /// The file is not a PNG image at all.
    #[error("{}: not a PNG image ({detail}); export the heightmap as PNG or pick the right file", path.display())]
    NotAnImage {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        detail: String,
    },

    /// The image is truncated or damaged.
    #[error("{}: the image is truncated or damaged ({detail}); export or download it again", path.display())]
    CorruptImage {
        /// The file.
        path: PathBuf,
        /// What the decoder reported.
        detail: String,
    },

    /// The image's pixel format cannot be read with the requested encoding.
    #[error("{}: unsupported pixel format {format} for {wanted}; re-export it as {expected}", path.display())]
    UnsupportedPixelFormat {
        /// The file.
        path: PathBuf,
        /// The pixel format found, e.g. `16-bit grey`.
        format: String,
        /// The encoding that was asked for, e.g. `Terrain-RGB`.
        wanted: String,
        /// What would work.
        expected: String,
    },

    /// Width or height below 2 cells.
    #[error("{}: the map is {width}×{height} cells, but it needs at least 2×2; use a larger heightmap", path.display())]
    TooSmall {
        /// The file.
        path: PathBuf,
        /// Columns found.
        width: u64,
        /// Rows found.
        height: u64,
    },

    /// More cells (or a longer side) than this build accepts.
    #[error("{}: the map is {width}×{height} cells, more than this build accepts (at most {max_side} per side and {max_cells} cells in all); downsample or crop the heightmap", path.display(), max_side = MAX_MAP_SIDE, max_cells = MAX_MAP_CELLS)]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Columns claimed.
        width: u64,
        /// Rows claimed.
        height: u64,
    },

    /// A RAW 16-bit file whose length does not fit the requested or inferred size.
    #[error("{}: RAW file is {len_bytes} bytes, {problem}; give the right `width` in the map document or re-export the file", path.display())]
    RawSize {
        /// The file.
        path: PathBuf,
        /// File length.
        len_bytes: u64,
        /// Why the length does not fit, e.g. `not 2·width·height for width 100`.
        problem: String,
    },

    /// An SRTM `.hgt` file of a size that is neither 1201² nor 3601² samples.
    #[error("{}: .hgt file is {len_bytes} bytes, but an SRTM tile is {} (1201×1201) or {} (3601×3601) bytes; download the tile again", path.display(), 1201 * 1201 * 2, 3601 * 3601 * 2)]
    HgtSize {
        /// The file.
        path: PathBuf,
        /// File length.
        len_bytes: u64,
    },

    /// A Moving AI `.map` file that does not follow the format.
    #[error("{}: line {line}: {problem}; fix the file (format: `type octile`, `height H`, `width W`, `map`, then H rows of W characters from `.GS@OTW`)", path.display())]
    MovingAi {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong on that line.
        problem: String,
    },

    /// RON that does not parse, or does not fit the expected shape.
    #[error("{}: {message} (line {line}, column {column}); fix the text there", path.display())]
    Ron {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser reported.
        message: String,
    },

    /// A field the format does not have (often a typo or a field from another version).
    #[error("{}: unknown field `{field}` in {within} (line {line}, column {column}); expected one of {expected}; fix or remove it", path.display())]
    UnknownField {
        /// The file.
        path: PathBuf,
        /// The field as written.
        field: String,
        /// The structure it sits in, e.g. `movement type`.
        within: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The allowed field names, comma separated.
        expected: String,
    },

    /// A map document written by an older format version.
    #[error("{}: was written by format {found}; this build reads only version {supported} — re-save it with the navstudio that made it or upgrade it", path.display())]
    OldVersion {
        /// The file.
        path: PathBuf,
        /// Version found in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },

    /// A map document written by a newer format version.
    #[error("{}: was written by format {found}, but this build reads only version {supported}; it needs a newer navstudio", path.display())]
    NewVersion {
        /// The file.
        path: PathBuf,
        /// Version found in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },

    /// A value outside its allowed range (cell size, sector size, slope curve, costs …).
    #[error("{}: {field} {problem}; correct it and load the map again", path.display())]
    InvalidValue {
        /// The map document (or stamp library).
        path: PathBuf,
        /// Where the value sits, e.g. `movement type \`hover\` water cost`.
        field: String,
        /// What is wrong, e.g. `is 0 but must be 1..=254`.
        problem: String,
    },

    /// Two movement types share a name.
    #[error("{}: two movement types are named `{name}`; give each movement type a unique name", path.display())]
    DuplicateMovementType {
        /// The map document.
        path: PathBuf,
        /// The shared name.
        name: String,
    },

    /// A paint layer targets a movement type the document does not define.
    #[error("{}: paint layer {layer} (`{file}`) targets movement type `{name}`, which the map does not define; rename the target or add that movement type", path.display())]
    UnknownPaintTarget {
        /// The map document.
        path: PathBuf,
        /// 0-based index of the layer.
        layer: usize,
        /// The layer's side file.
        file: String,
        /// The unknown type name.
        name: String,
    },

    /// A paint side file whose size differs from the heightmap's.
    #[error("{}: paint layer is {width}×{height} pixels but the heightmap is {expected_width}×{expected_height}; resize the layer or delete it and paint again", path.display())]
    PaintSize {
        /// The paint PNG.
        path: PathBuf,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// The heightmap width.
        expected_width: u32,
        /// The heightmap height.
        expected_height: u32,
    },

    /// A paint side file pixel that does not follow the paint encoding.
    #[error("{}: pixel ({x}, {y}) {problem}; paint layers store R = added cost, G = removed cost, B = 255 wall / 128 clear / 0 none — repaint that cell", path.display())]
    PaintPixel {
        /// The paint PNG.
        path: PathBuf,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// What is wrong with it.
        problem: String,
    },

    /// A stamp placement names a stamp the library does not have.
    #[error("{}: stamp placement {index} uses stamp `{id}`, which the stamp library does not define; pick one of {known}", path.display())]
    UnknownStamp {
        /// The map document.
        path: PathBuf,
        /// 0-based index of the placement.
        index: usize,
        /// The unknown id.
        id: String,
        /// The known ids, comma separated.
        known: String,
    },

    /// A rotation outside 0..=3 quarter turns.
    #[error("{}: stamp `{stamp}` has rotation {rotation}, but rotation counts clockwise quarter turns 0..=3; use 0, 1, 2 or 3", path.display())]
    BadRotation {
        /// The map document (or stamp library).
        path: PathBuf,
        /// The stamp id.
        stamp: String,
        /// The rotation found.
        rotation: u8,
    },

    /// A stamp definition that cannot be used.
    #[error("{}: stamp `{id}` {problem}", path.display())]
    BadStamp {
        /// The stamp library.
        path: PathBuf,
        /// The stamp id.
        id: String,
        /// What is wrong and what to do.
        problem: String,
    },
}

impl MapError {
    /// The file the error is about.
    #[must_use]
    pub fn path(&self) -> &std::path::Path {
        match self {
            Self::NotFound { path }
            | Self::Read { path, .. }
            | Self::Write { path, .. }
            | Self::UnknownFormat { path, .. }
            | Self::NotAnImage { path, .. }
            | Self::CorruptImage { path, .. }
            | Self::UnsupportedPixelFormat { path, .. }
            | Self::TooSmall { path, .. }
            | Self::TooLarge { path, .. }
            | Self::RawSize { path, .. }
            | Self::HgtSize { path, .. }
            | Self::MovingAi { path, .. }
            | Self::Ron { path, .. }
            | Self::UnknownField { path, .. }
            | Self::OldVersion { path, .. }
            | Self::NewVersion { path, .. }
            | Self::InvalidValue { path, .. }
            | Self::DuplicateMovementType { path, .. }
            | Self::UnknownPaintTarget { path, .. }
            | Self::PaintSize { path, .. }
            | Self::PaintPixel { path, .. }
            | Self::UnknownStamp { path, .. }
            | Self::BadRotation { path, .. }
            | Self::BadStamp { path, .. } => path,
        }
    }

    /// Turns an I/O error on reading `path` into `NotFound` or `Read`.
    pub(crate) fn read(path: &std::path::Path, source: std::io::Error) -> Self {
        if source.kind() == std::io::ErrorKind::NotFound {
            Self::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            Self::Read {
                path: path.to_path_buf(),
                source,
            }
        }
    }

    /// Wraps an I/O error on writing `path`.
    pub(crate) fn write(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Write {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Turns a RON parse error into `UnknownField` or `Ron`, with a 1-based position.
    pub(crate) fn ron(path: &std::path::Path, err: &ron::error::SpannedError) -> Self {
        let line = err.position.line;
        let column = err.position.col;
        match &err.code {
            ron::Error::NoSuchStructField {
                expected,
                found,
                outer,
            } => Self::UnknownField {
                path: path.to_path_buf(),
                field: found.clone(),
                within: outer
                    .as_deref()
                    .map_or_else(|| "this structure".to_owned(), describe_struct),
                line,
                column,
                expected: expected
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            },
            code => Self::Ron {
                path: path.to_path_buf(),
                line,
                column,
                message: code.to_string(),
            },
        }
    }
}

/// A designer-facing name for a document struct.
fn describe_struct(name: &str) -> String {
    match name {
        "MapDocument" => "the map document".to_owned(),
        "MovementType" => "movement type".to_owned(),
        "HeightmapSource" => "heightmap".to_owned(),
        "PaintLayer" => "paint layer".to_owned(),
        "StampPlacement" => "stamp placement".to_owned(),
        "StampLibrary" => "the stamp library".to_owned(),
        "Stamp" => "stamp".to_owned(),
        other => format!("`{other}`"),
    }
}
