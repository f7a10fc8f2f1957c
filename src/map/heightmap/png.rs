//! PNG heightmaps: 8/16-bit grey (colour converted to luminance with a warning) and Mapbox
//! Terrain-RGB, the size read from the header before anything is decoded.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

use super::{ImportedHeightmap, check_size, metric_heightmap, normalise_samples, void_warnings};
use crate::map::error::{MAX_MAP_CELLS, MAX_MAP_SIDE, MapError};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PngMode {
    Gray,
    TerrainRgb,
}

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Reads the IHDR size straight from the file so an absurd header is rejected before the
/// decoder sees it.
pub(super) fn png_header_size(path: &Path) -> Result<(u32, u32), MapError> {
    let mut file = File::open(path).map_err(|e| MapError::read(path, e))?;
    let mut head = [0u8; 24];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(MapError::read(path, e)),
        }
    }
    if filled < PNG_SIGNATURE.len() || head[..8] != PNG_SIGNATURE {
        return Err(MapError::NotAnImage {
            path: path.to_path_buf(),
            detail: "the file does not start with the PNG signature".to_owned(),
        });
    }
    if filled < head.len() {
        return Err(MapError::CorruptImage {
            path: path.to_path_buf(),
            detail: "the file ends inside the PNG header".to_owned(),
        });
    }
    if &head[12..16] != b"IHDR" {
        return Err(MapError::CorruptImage {
            path: path.to_path_buf(),
            detail: "the first chunk is not IHDR".to_owned(),
        });
    }
    let width = u32::from_be_bytes([head[16], head[17], head[18], head[19]]);
    let height = u32::from_be_bytes([head[20], head[21], head[22], head[23]]);
    Ok((width, height))
}

/// Maps a decoder error; `size` is the header's claimed size, reported if a limit trips.
fn image_error(path: &Path, err: image::ImageError, size: (u32, u32)) -> MapError {
    match err {
        image::ImageError::Limits(_) => MapError::TooLarge {
            path: path.to_path_buf(),
            width: u64::from(size.0),
            height: u64::from(size.1),
        },
        image::ImageError::IoError(e) if e.kind() != std::io::ErrorKind::UnexpectedEof => {
            MapError::read(path, e)
        }
        image::ImageError::Unsupported(e) => MapError::NotAnImage {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
        other => MapError::CorruptImage {
            path: path.to_path_buf(),
            detail: other.to_string(),
        },
    }
}

pub(super) fn import_png(
    path: &Path,
    mode: PngMode,
    no_data: Option<f64>,
) -> Result<ImportedHeightmap, MapError> {
    let (header_w, header_h) = png_header_size(path)?;
    check_size(path, u64::from(header_w), u64::from(header_h))?;

    let mut reader = ImageReader::open(path)
        .map_err(|e| MapError::read(path, e))?
        .with_guessed_format()
        .map_err(|e| MapError::read(path, e))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_MAP_SIDE);
    limits.max_image_height = Some(MAX_MAP_SIDE);
    // Four 16-bit channels per cell plus the decoder's row buffers.
    limits.max_alloc = Some(MAX_MAP_CELLS * 8 + (64 << 20));
    reader.limits(limits);
    let decoder = reader
        .into_decoder()
        .map_err(|e| image_error(path, e, (header_w, header_h)))?;
    let (width, height) = decoder.dimensions();
    check_size(path, u64::from(width), u64::from(height))?;
    let image =
        DynamicImage::from_decoder(decoder).map_err(|e| image_error(path, e, (width, height)))?;

    match mode {
        PngMode::Gray => grey_from_image(path, &image, no_data),
        PngMode::TerrainRgb => terrain_rgb_from_image(path, &image, no_data),
    }
}

/// Samples of one channel (or luminance) as integers, and the full-scale value.
fn grey_from_image(
    path: &Path,
    image: &DynamicImage,
    no_data: Option<f64>,
) -> Result<ImportedHeightmap, MapError> {
    let (width, height) = (image.width(), image.height());
    let mut warnings = Vec::new();
    // 16-bit grey is read in place (128 MB at 8192² not copied); the rest is converted.
    let (samples, full_scale): (Cow<'_, [u16]>, f64) = match image {
        DynamicImage::ImageLuma8(img) => (
            Cow::Owned(img.as_raw().iter().map(|&v| u16::from(v)).collect()),
            255.0,
        ),
        DynamicImage::ImageLumaA8(img) => (
            Cow::Owned(
                img.as_raw()
                    .chunks_exact(2)
                    .map(|p| u16::from(p[0]))
                    .collect(),
            ),
            255.0,
        ),
        DynamicImage::ImageLuma16(img) => (Cow::Borrowed(img.as_raw().as_slice()), 65535.0),
        DynamicImage::ImageLumaA16(img) => (
            Cow::Owned(img.as_raw().chunks_exact(2).map(|p| p[0]).collect()),
            65535.0,
        ),
        DynamicImage::ImageRgb8(img) => (
            Cow::Owned(rgb_to_grey(img.as_raw(), 3, path, &mut warnings, u16::from)),
            255.0,
        ),
        DynamicImage::ImageRgba8(img) => (
            Cow::Owned(rgb_to_grey(img.as_raw(), 4, path, &mut warnings, u16::from)),
            255.0,
        ),
        DynamicImage::ImageRgb16(img) => (
            Cow::Owned(rgb_to_grey(img.as_raw(), 3, path, &mut warnings, |v| v)),
            65535.0,
        ),
        DynamicImage::ImageRgba16(img) => (
            Cow::Owned(rgb_to_grey(img.as_raw(), 4, path, &mut warnings, |v| v)),
            65535.0,
        ),
        other => {
            return Err(MapError::UnsupportedPixelFormat {
                path: path.to_path_buf(),
                format: format!("{:?}", other.color()),
                wanted: "a grey heightmap".to_owned(),
                expected: "an 8- or 16-bit grey PNG".to_owned(),
            });
        }
    };
    let heightmap = normalise_samples(
        width,
        height,
        &samples,
        |v| f64::from(v) / full_scale,
        |v| no_data.is_some_and(|nd| f64::from(v) == nd),
    );
    void_warnings(path, &heightmap, no_data, &mut warnings);
    Ok(ImportedHeightmap {
        heightmap,
        range_m: None,
        warnings,
    })
}

/// Grey stored in RGB(A) is read from the red channel; true colour becomes luminance.
fn rgb_to_grey<T: Copy + PartialEq + Into<f64>>(
    raw: &[T],
    channels: usize,
    path: &Path,
    warnings: &mut Vec<String>,
    to_u16: impl Fn(T) -> u16,
) -> Vec<u16> {
    let is_grey = raw
        .chunks_exact(channels)
        .all(|p| p[0] == p[1] && p[1] == p[2]);
    if is_grey {
        return raw.chunks_exact(channels).map(|p| to_u16(p[0])).collect();
    }
    warnings.push(format!(
        "{}: colour image converted to grey by luminance; if it is a Mapbox Terrain-RGB tile set `encoding: TerrainRgb`, otherwise export a grey heightmap for exact heights",
        path.display()
    ));
    raw.chunks_exact(channels)
        .map(|p| {
            // Rec. 709 luma weights, matching how image editors show brightness.
            let y = 0.2126 * p[0].into() + 0.7152 * p[1].into() + 0.0722 * p[2].into();
            y.round() as u16
        })
        .collect()
}

fn terrain_rgb_from_image(
    path: &Path,
    image: &DynamicImage,
    no_data: Option<f64>,
) -> Result<ImportedHeightmap, MapError> {
    let (raw, channels) = match image {
        DynamicImage::ImageRgb8(img) => (img.as_raw(), 3),
        DynamicImage::ImageRgba8(img) => (img.as_raw(), 4),
        other => {
            return Err(MapError::UnsupportedPixelFormat {
                path: path.to_path_buf(),
                format: format!("{:?}", other.color()),
                wanted: "Terrain-RGB".to_owned(),
                expected: "an 8-bit RGB or RGBA Terrain-RGB tile, or set `encoding: Gray`"
                    .to_owned(),
            });
        }
    };
    let mut metres = Vec::with_capacity(raw.len() / channels);
    let mut void = Vec::with_capacity(raw.len() / channels);
    for p in raw.chunks_exact(channels) {
        let packed = u32::from(p[0]) * 65536 + u32::from(p[1]) * 256 + u32::from(p[2]);
        void.push(no_data.is_some_and(|nd| f64::from(packed) == nd));
        metres.push(-10000.0 + f64::from(packed) * 0.1);
    }
    Ok(metric_heightmap(
        path,
        image.width(),
        image.height(),
        &metres,
        &void,
        no_data,
    ))
}
