//! Headerless samples: RAW `.r16`/`.raw` (little-endian u16) and SRTM `.hgt` (big-endian
//! i16, 1201² or 3601², −32768 = void), sized from the file length.

use std::path::Path;

use super::{
    ImportedHeightmap, check_size, file_len, metric_heightmap, normalise_samples, read_all,
    void_warnings,
};
use crate::map::error::MapError;

pub(super) fn import_raw16(
    path: &Path,
    width: Option<u32>,
    no_data: Option<f64>,
) -> Result<ImportedHeightmap, MapError> {
    let len = file_len(path)?;
    if len % 2 != 0 {
        return Err(MapError::RawSize {
            path: path.to_path_buf(),
            len_bytes: len,
            problem: "an odd length, but RAW heightmaps hold 2-byte samples".to_owned(),
        });
    }
    let samples = len / 2;
    let (w, h) = match width {
        Some(0) => {
            return Err(MapError::RawSize {
                path: path.to_path_buf(),
                len_bytes: len,
                problem: "and the given width is 0".to_owned(),
            });
        }
        Some(w) => {
            let w = u64::from(w);
            if samples % w != 0 {
                return Err(MapError::RawSize {
                    path: path.to_path_buf(),
                    len_bytes: len,
                    problem: format!("not 2·width·height for width {w}"),
                });
            }
            (w, samples / w)
        }
        None => {
            let side = samples.isqrt();
            if side * side != samples {
                return Err(MapError::RawSize {
                    path: path.to_path_buf(),
                    len_bytes: len,
                    problem: format!(
                        "which is {samples} samples, not a square, so the width cannot be inferred"
                    ),
                });
            }
            (side, side)
        }
    };
    check_size(path, w, h)?;
    let bytes = read_all(path, len)?;
    let values: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let heightmap = normalise_samples(
        w as u32,
        h as u32,
        &values,
        |v| f64::from(v) / 65535.0,
        |v| no_data.is_some_and(|nd| f64::from(v) == nd),
    );
    let mut warnings = Vec::new();
    void_warnings(path, &heightmap, no_data, &mut warnings);
    Ok(ImportedHeightmap {
        heightmap,
        range_m: None,
        warnings,
    })
}

/// The SRTM void value.
const HGT_VOID: i16 = -32768;

pub(super) fn import_hgt(path: &Path, no_data: Option<f64>) -> Result<ImportedHeightmap, MapError> {
    let len = file_len(path)?;
    let side: u32 = match len {
        l if l == 1201 * 1201 * 2 => 1201,
        l if l == 3601 * 3601 * 2 => 3601,
        _ => {
            return Err(MapError::HgtSize {
                path: path.to_path_buf(),
                len_bytes: len,
            });
        }
    };
    let bytes = read_all(path, len)?;
    let mut metres = Vec::with_capacity(bytes.len() / 2);
    let mut void = Vec::with_capacity(bytes.len() / 2);
    for b in bytes.chunks_exact(2) {
        let v = i16::from_be_bytes([b[0], b[1]]);
        void.push(v == HGT_VOID || no_data.is_some_and(|nd| f64::from(v) == nd));
        metres.push(f64::from(v));
    }
    Ok(metric_heightmap(
        path,
        side,
        side,
        &metres,
        &void,
        // −32768 is always a void, so do not warn that it was not found.
        no_data.filter(|&nd| nd != f64::from(HGT_VOID)),
    ))
}
