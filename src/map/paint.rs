//! Designer paint layers: hand-painted cost changes, walls and clears, for one movement
//! type or for all of them. Stored losslessly as an RGB PNG beside the map document.

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::error::{MAX_MAP_CELLS, MAX_MAP_SIDE, MapError};

/// Which movement types a paint layer applies to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PaintTarget {
    /// Every movement type.
    All,
    /// The movement type of this name.
    Type(String),
}

/// A forced state painted on a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PaintForce {
    /// No forced state.
    #[default]
    None,
    /// Force a wall.
    Wall,
    /// Force the cell passable (removes terrain, buffer and stamp walls).
    Clear,
}

/// One painted cell: a cost delta and an optional forced state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaintCell {
    /// Cost added (positive) or removed (negative). `[Limit: -254..=254]`
    pub delta: i16,
    /// Forced wall or clear.
    pub force: PaintForce,
}

/// A paint layer: its target and one `PaintCell` per map cell (row-major).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaintLayer {
    /// The movement types this layer applies to.
    pub target: PaintTarget,
    /// The PNG side file, relative to the map document.
    pub file: String,
    /// The painted cells, row-major, `width * height` long (loaded from `file`).
    #[serde(skip)]
    pub cells: Vec<PaintCell>,
}

/// Blue channel value of a forced wall in a paint side file.
pub const PAINT_BLUE_WALL: u8 = 255;
/// Blue channel value of a forced clear in a paint side file.
pub const PAINT_BLUE_CLEAR: u8 = 128;
/// Blue channel value of "no forced state" in a paint side file.
pub const PAINT_BLUE_NONE: u8 = 0;
/// The largest cost change one paint cell can hold.
pub const PAINT_DELTA_MAX: i16 = 254;

impl PaintCell {
    /// The cell as a side-file pixel: `R = max(delta, 0)`, `G = max(-delta, 0)`,
    /// `B` = 255 wall / 128 clear / 0 none. Deltas beyond ±254 are clamped.
    #[must_use]
    pub fn to_rgb(self) -> [u8; 3] {
        let delta = self.delta.clamp(-PAINT_DELTA_MAX, PAINT_DELTA_MAX);
        let blue = match self.force {
            PaintForce::None => PAINT_BLUE_NONE,
            PaintForce::Wall => PAINT_BLUE_WALL,
            PaintForce::Clear => PAINT_BLUE_CLEAR,
        };
        [delta.max(0) as u8, (-delta).max(0) as u8, blue]
    }

    /// Reads a side-file pixel.
    ///
    /// # Errors
    /// A sentence saying what is wrong with the pixel (both R and G set, an unknown B).
    pub fn from_rgb(rgb: [u8; 3]) -> Result<Self, String> {
        let [r, g, b] = rgb;
        if r > 0 && g > 0 {
            return Err(format!(
                "has both added cost (R = {r}) and removed cost (G = {g})"
            ));
        }
        if r == 255 || g == 255 {
            return Err("has a cost change of 255, but at most 254 fits".to_owned());
        }
        let force = match b {
            PAINT_BLUE_NONE => PaintForce::None,
            PAINT_BLUE_WALL => PaintForce::Wall,
            PAINT_BLUE_CLEAR => PaintForce::Clear,
            other => {
                return Err(format!("has blue {other}, which is no paint state"));
            }
        };
        Ok(Self {
            delta: i16::from(r) - i16::from(g),
            force,
        })
    }
}

impl PaintLayer {
    /// An empty layer (no cost change, no forced state) for a `width × height` map.
    #[must_use]
    pub fn new(target: PaintTarget, file: impl Into<String>, width: u32, height: u32) -> Self {
        Self {
            target,
            file: file.into(),
            cells: vec![PaintCell::default(); width as usize * height as usize],
        }
    }

    /// The cell at `(x, y)` on a map `width` cells wide; `None` outside the layer.
    #[must_use]
    pub fn get(&self, width: u32, x: u32, y: u32) -> Option<PaintCell> {
        if x >= width {
            return None;
        }
        self.cells
            .get(y as usize * width as usize + x as usize)
            .copied()
    }

    /// Sets the cell at `(x, y)` on a map `width` cells wide; returns `false` (and changes
    /// nothing) outside the layer.
    pub fn set(&mut self, width: u32, x: u32, y: u32, cell: PaintCell) -> bool {
        if x >= width {
            return false;
        }
        match self.cells.get_mut(y as usize * width as usize + x as usize) {
            Some(c) => {
                *c = cell;
                true
            }
            None => false,
        }
    }

    /// Whether no cell changes anything.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cells.iter().all(|c| *c == PaintCell::default())
    }

    /// The layer as RGB8 pixel bytes, row-major (the side-file encoding).
    #[must_use]
    pub fn encode_rgb(&self) -> Vec<u8> {
        self.cells.iter().flat_map(|c| c.to_rgb()).collect()
    }

    /// Cells from RGB8 pixel bytes, row-major, `width` pixels per row; `path` names the
    /// file in errors.
    ///
    /// # Errors
    /// [`MapError::PaintPixel`] for the first pixel that breaks the encoding.
    pub fn decode_rgb(path: &Path, rgb: &[u8], width: u32) -> Result<Vec<PaintCell>, MapError> {
        // On both cores (67 million pixels at 8192²), checked first and then collected in
        // place (a collect that can stop early would gather pieces and copy them); a file
        // with a bad pixel is read again in order, so the error names the first one.
        let decode = |p: &[u8]| PaintCell::from_rgb([p[0], p[1], p[2]]);
        if rgb.par_chunks_exact(3).all(|p| decode(p).is_ok()) {
            return Ok(rgb
                .par_chunks_exact(3)
                .map(|p| decode(p).unwrap_or_default())
                .collect());
        }
        rgb.chunks_exact(3)
            .enumerate()
            .map(|(i, p)| {
                PaintCell::from_rgb([p[0], p[1], p[2]]).map_err(|problem| {
                    let w = width.max(1) as usize;
                    MapError::PaintPixel {
                        path: path.to_path_buf(),
                        x: (i % w) as u32,
                        y: (i / w) as u32,
                        problem,
                    }
                })
            })
            .collect()
    }

    /// The layer as an RGB8 PNG file in memory.
    ///
    /// # Errors
    /// [`MapError::InvalidValue`] if the layer does not hold `width * height` cells.
    pub fn encode_png(&self, path: &Path, width: u32, height: u32) -> Result<Vec<u8>, MapError> {
        if self.cells.len() != width as usize * height as usize {
            return Err(MapError::InvalidValue {
                path: path.to_path_buf(),
                field: format!("paint layer `{}`", self.file),
                problem: format!(
                    "holds {} cells but the map is {width}×{height}",
                    self.cells.len()
                ),
            });
        }
        super::heightmap::encode_png(
            path,
            &self.encode_rgb(),
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
    }

    /// Reads a paint side file and checks that it is `width × height` pixels.
    ///
    /// # Errors
    /// Missing or unreadable file, not a PNG, not 8-bit RGB, the wrong size, or a pixel
    /// that breaks the encoding.
    pub fn read_png(path: &Path, width: u32, height: u32) -> Result<Vec<PaintCell>, MapError> {
        // The size is compared with the map's before any pixel is decoded, so an absurd
        // header fails as `PaintSize` without allocating.
        let (decoder, size) = open_png(path)?;
        check_size(path, size, (width, height))?;
        decode_png(path, decoder, size.0)
    }

    /// [`Self::read_png`] before the map's size is known, so it can run beside the
    /// heightmap's import (half a second of opening an 8192² map); [`UncheckedPaint::check`]
    /// then compares the sizes. A size no map can have is not decoded.
    ///
    /// # Errors
    /// Missing or unreadable file, or not a PNG.
    pub fn read_png_unchecked(path: &Path) -> Result<UncheckedPaint, MapError> {
        let (decoder, (width, height)) = open_png(path)?;
        let fits_a_map = width <= MAX_MAP_SIDE
            && height <= MAX_MAP_SIDE
            && u64::from(width) * u64::from(height) <= MAX_MAP_CELLS;
        let cells = if fits_a_map {
            decode_png(path, decoder, width)
        } else {
            Ok(Vec::new())
        };
        Ok(UncheckedPaint {
            path: path.to_path_buf(),
            size: (width, height),
            cells,
        })
    }
}

/// A paint side file read by [`PaintLayer::read_png_unchecked`]: its size, and its cells or
/// why they do not decode.
#[derive(Debug)]
pub struct UncheckedPaint {
    path: std::path::PathBuf,
    size: (u32, u32),
    cells: Result<Vec<PaintCell>, MapError>,
}

impl UncheckedPaint {
    /// The cells, if the file is `width × height` pixels and decodes.
    ///
    /// # Errors
    /// As [`PaintLayer::read_png`], in the same order: the wrong size first.
    pub fn check(self, width: u32, height: u32) -> Result<Vec<PaintCell>, MapError> {
        check_size(&self.path, self.size, (width, height))?;
        self.cells
    }
}

/// A paint side file's PNG decoder and size, from its header.
fn open_png(path: &Path) -> Result<(PngDecoder, (u32, u32)), MapError> {
    use image::{ImageDecoder, ImageReader};
    let reader = ImageReader::open(path)
        .map_err(|e| MapError::read(path, e))?
        .with_guessed_format()
        .map_err(|e| MapError::read(path, e))?;
    if reader.format() != Some(image::ImageFormat::Png) {
        return Err(MapError::NotAnImage {
            path: path.to_path_buf(),
            detail: "a paint layer must be a PNG file".to_owned(),
        });
    }
    let decoder = reader.into_decoder().map_err(|e| MapError::CorruptImage {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    let size = decoder.dimensions();
    Ok((Box::new(decoder), size))
}

/// `MapError::PaintSize` unless a paint file of `size` fits a map of `map`.
fn check_size(path: &Path, size: (u32, u32), map: (u32, u32)) -> Result<(), MapError> {
    if size == map {
        return Ok(());
    }
    Err(MapError::PaintSize {
        path: path.to_path_buf(),
        width: size.0,
        height: size.1,
        expected_width: map.0,
        expected_height: map.1,
    })
}

/// The decoder of an image file whose header has been read.
type PngDecoder = Box<dyn image::ImageDecoder>;

/// The cells of a paint file `width` pixels wide, from its decoder.
fn decode_png(path: &Path, decoder: PngDecoder, width: u32) -> Result<Vec<PaintCell>, MapError> {
    if decoder.color_type() != image::ColorType::Rgb8 {
        return Err(MapError::UnsupportedPixelFormat {
            path: path.to_path_buf(),
            format: format!("{:?}", decoder.color_type()),
            wanted: "a paint layer".to_owned(),
            expected: "an 8-bit RGB PNG without alpha".to_owned(),
        });
    }
    let mut rgb = vec![0u8; decoder.total_bytes() as usize];
    decoder
        .read_image_boxed(&mut rgb)
        .map_err(|e| MapError::CorruptImage {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })?;
    PaintLayer::decode_rgb(path, &rgb, width)
}
