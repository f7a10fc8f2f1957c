//! The editor's adapter to the library: load and save map documents, import heightmaps,
//! and bake cost layers.
//!
//! **This is the one file to rewire** when the library's `map::io` and `bake` modules land:
//! every function here has the signature the editor needs and a minimal local body. The
//! rest of `app/` only calls through these functions and types, never around them.
//!
//! The local bake runs stages 1, 2, 3 and 6 of the architecture's order (slope, slope→cost
//! with `max_slope_deg` and the water rule, designer walls/clears, designer add/remove
//! paint); the wall buffer and wall blur (stages 4, 5) and the nav data (stage 7) come with
//! the real bake.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::map::{FORMAT_VERSION, Heightmap};
use crate::map::{
    HeightEncoding, HeightmapSource, MapDocument, MovementType, PaintCell, PaintForce, PaintLayer,
    PaintTarget, WaterRule,
};
use crate::nav::grid::{CLEAR, WALL};

use super::state::CellRect;

/// Why loading, saving or importing failed, in one sentence for a person.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// A file could not be read or written.
    #[error("could not {action} {path}: {source}. Check that the path exists and is writable.")]
    Io {
        /// "read" or "write".
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The heightmap image could not be decoded.
    #[error(
        "{path} is not a readable PNG heightmap ({reason}). Export it as an 8- or 16-bit grey PNG."
    )]
    Image {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// The map document could not be parsed.
    #[error(
        "{path} is not a valid map document ({reason}). Fix the RON file or create a new map from its heightmap."
    )]
    Document {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// The document is inconsistent with its heightmap.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
}

/// A map loaded from disk: the document, its heightmap, and warnings for the designer.
#[derive(Clone, Debug)]
pub struct LoadedMap {
    /// The `.ron` file the document came from (`None` for a map made from a heightmap and
    /// not yet saved).
    pub path: Option<PathBuf>,
    /// The document.
    pub document: MapDocument,
    /// Its heights.
    pub heightmap: Heightmap,
    /// Things the designer should know (e.g. a paint layer of the wrong size was dropped).
    pub warnings: Vec<String>,
}

/// The movement types a new map starts with.
#[must_use]
pub fn default_movement_types() -> Vec<MovementType> {
    vec![
        MovementType::default(),
        MovementType {
            name: "hover".to_owned(),
            max_slope_deg: 25.0,
            slope_cost: vec![(0.0, 1.0), (10.0, 2.0), (25.0, 20.0)],
            water: WaterRule::Cost(2),
            ..MovementType::default()
        },
        MovementType {
            name: "large".to_owned(),
            max_slope_deg: 25.0,
            slope_cost: vec![(0.0, 1.0), (5.0, 2.0), (15.0, 12.0), (25.0, 40.0)],
            wall_buffer_m: 2.0,
            ..MovementType::default()
        },
    ]
}

/// Reads a grey PNG heightmap (8 or 16 bit; colour is converted to luminance).
///
/// Adapter: to be replaced by the library's heightmap import.
///
/// # Errors
/// The file cannot be read or is not a PNG.
pub fn import_heightmap(path: &Path) -> Result<Heightmap, BackendError> {
    let image = image::open(path).map_err(|err| BackendError::Image {
        path: path.to_owned(),
        reason: err.to_string(),
    })?;
    let luma = image.into_luma16();
    let (width, height) = luma.dimensions();
    if width == 0 || height == 0 {
        return Err(BackendError::Invalid {
            path: path.to_owned(),
            reason: "the heightmap has no pixels; export a non-empty image".to_owned(),
        });
    }
    let height01 = luma.pixels().map(|p| f32::from(p.0[0]) / 65535.0).collect();
    Ok(Heightmap {
        width,
        height,
        height01,
        blocked: Vec::new(),
    })
}

/// A new, unsaved map document for a heightmap file, with the default movement types.
///
/// Adapter: to be replaced by the library's "new document from heightmap".
///
/// # Errors
/// See [`import_heightmap`].
pub fn new_map_from_heightmap(heightmap_path: &Path) -> Result<LoadedMap, BackendError> {
    let heightmap = import_heightmap(heightmap_path)?;
    let name = heightmap_path.file_stem().map_or_else(
        || "untitled".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let document = MapDocument {
        version: FORMAT_VERSION,
        name,
        heightmap: HeightmapSource {
            path: heightmap_path.to_string_lossy().into_owned(),
            encoding: HeightEncoding::Auto,
            no_data: None,
        },
        cell_size_m: 1.0,
        height_scale_m: 30.0,
        water_level_m: 1.5,
        sector_size: 10,
        movement_types: default_movement_types(),
        paint: Vec::new(),
        stamps: Vec::new(),
    };
    Ok(LoadedMap {
        path: None,
        document,
        heightmap,
        warnings: Vec::new(),
    })
}

/// Opens a map: a `.ron` document (with its heightmap and paint side files), or a `.png`
/// heightmap, which becomes a new unsaved map.
///
/// Adapter: to be replaced by `crate::map::io::load_map`.
///
/// # Errors
/// The file or a side file cannot be read or parsed.
pub fn load_map(path: &Path) -> Result<LoadedMap, BackendError> {
    let is_png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if is_png {
        return new_map_from_heightmap(path);
    }
    let text = std::fs::read_to_string(path).map_err(|source| BackendError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })?;
    let mut document: MapDocument = ron::from_str(&text).map_err(|err| BackendError::Document {
        path: path.to_owned(),
        reason: err.to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let heightmap = import_heightmap(&dir.join(&document.heightmap.path))?;
    let mut warnings = Vec::new();
    let cell_count = heightmap.width as usize * heightmap.height as usize;
    let mut kept = Vec::with_capacity(document.paint.len());
    for mut layer in std::mem::take(&mut document.paint) {
        match read_paint_png(&dir.join(&layer.file)) {
            Ok(cells) if cells.len() == cell_count => {
                layer.cells = cells;
                kept.push(layer);
            }
            Ok(_) => warnings.push(format!(
                "paint layer {} does not match the heightmap size and was dropped",
                layer.file
            )),
            Err(err) => warnings.push(err.to_string()),
        }
    }
    document.paint = kept;
    Ok(LoadedMap {
        path: Some(path.to_owned()),
        document,
        heightmap,
        warnings,
    })
}

/// Saves the document as RON at `path` and each paint layer as a PNG side file beside it,
/// each written to a temporary file and renamed, so a failed save leaves the old files.
///
/// Adapter: to be replaced by `crate::map::io::save_map`.
///
/// # Errors
/// A file cannot be written.
pub fn save_map(
    path: &Path,
    document: &MapDocument,
    heightmap: &Heightmap,
) -> Result<(), BackendError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let stem = path
        .file_stem()
        .map_or_else(|| "map".to_owned(), |s| s.to_string_lossy().into_owned());
    let mut doc = document.clone();
    // The heightmap path is stored relative to the document when it lies beside it.
    let hm_path = PathBuf::from(&doc.heightmap.path);
    if let (Ok(abs_hm), Ok(abs_dir)) = (hm_path.canonicalize(), dir.canonicalize())
        && let Ok(rel) = abs_hm.strip_prefix(&abs_dir)
    {
        doc.heightmap.path = rel.to_string_lossy().into_owned();
    } else if let Ok(abs_hm) = hm_path.canonicalize() {
        doc.heightmap.path = abs_hm.to_string_lossy().into_owned();
    }
    for (i, layer) in doc.paint.iter_mut().enumerate() {
        layer.file = format!("{stem}.paint{i}.png");
        write_paint_png(
            &dir.join(&layer.file),
            &layer.cells,
            heightmap.width,
            heightmap.height,
        )?;
    }
    let text =
        ron::ser::to_string_pretty(&doc, ron::ser::PrettyConfig::default()).map_err(|err| {
            BackendError::Document {
                path: path.to_owned(),
                reason: err.to_string(),
            }
        })?;
    write_atomic(path, text.as_bytes())
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BackendError> {
    let tmp = path.with_extension("tmp-save");
    let io = |source| BackendError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    };
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Paint PNG encoding: R,G = cost delta as little-endian i16, B = force (0 none, 1 wall,
/// 2 clear).
fn write_paint_png(
    path: &Path,
    cells: &[PaintCell],
    width: u32,
    height: u32,
) -> Result<(), BackendError> {
    let mut rgb = Vec::with_capacity(cells.len() * 3);
    for cell in cells {
        let [lo, hi] = cell.delta.to_le_bytes();
        let force = match cell.force {
            PaintForce::None => 0,
            PaintForce::Wall => 1,
            PaintForce::Clear => 2,
        };
        rgb.extend_from_slice(&[lo, hi, force]);
    }
    let mut png = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(&mut png),
        &rgb,
        width,
        height,
        image::ExtendedColorType::Rgb8,
    )
    .map_err(|err| BackendError::Image {
        path: path.to_owned(),
        reason: err.to_string(),
    })?;
    write_atomic(path, &png)
}

fn read_paint_png(path: &Path) -> Result<Vec<PaintCell>, BackendError> {
    let image = image::open(path).map_err(|err| BackendError::Image {
        path: path.to_owned(),
        reason: err.to_string(),
    })?;
    Ok(image
        .into_rgb8()
        .pixels()
        .map(|p| PaintCell {
            delta: i16::from_le_bytes([p.0[0], p.0[1]]),
            force: match p.0[2] {
                1 => PaintForce::Wall,
                2 => PaintForce::Clear,
                _ => PaintForce::None,
            },
        })
        .collect())
}

/// Intermediate and final cost layers of one movement type (row-major, one per cell).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeLayers {
    /// The movement type's name.
    pub name: String,
    /// Final cost: 255 wall, 1..=254 cost.
    pub final_cost: Vec<u8>,
    /// Number of wall cells in `final_cost`.
    pub wall_count: usize,
    /// Mean cost of the passable cells.
    pub mean_cost: f32,
}

/// Everything a bake hands back to the editor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BakeOutput {
    /// Slope per cell. `[Units: degrees]`
    pub slope_deg: Vec<f32>,
    /// Share of cells per whole degree of slope, 0..=89 (for the curve editor's histogram).
    pub slope_histogram: Vec<f32>,
    /// Per movement type, in document order.
    pub types: Vec<TypeLayers>,
    /// Each stage's name and duration, in order.
    pub timings: Vec<(String, Duration)>,
}

/// Progress of a running bake: the stage and its share done, `0.0..=1.0` overall.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeProgress {
    /// Stage name.
    pub stage: String,
    /// Overall fraction done.
    pub fraction: f32,
}

/// The bake was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the bake was cancelled")]
pub struct Cancelled;

/// Slope of every cell in degrees, from central differences (one-sided at the edges).
#[must_use]
pub fn slope_degrees(document: &MapDocument, heightmap: &Heightmap) -> Vec<f32> {
    let (w, h) = (heightmap.width as usize, heightmap.height as usize);
    let scale = document.height_scale_m;
    let cell = document.cell_size_m.max(f32::EPSILON);
    let at = |x: usize, y: usize| heightmap.height01[y * w + x] * scale;
    let mut out = vec![0.0; w * h];
    for y in 0..h {
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(1), (x + 1).min(w - 1));
            let (y0, y1) = (y.saturating_sub(1), (y + 1).min(h - 1));
            let dx = (at(x1, y) - at(x0, y)) / (cell * (x1 - x0).max(1) as f32);
            let dy = (at(x, y1) - at(x, y0)) / (cell * (y1 - y0).max(1) as f32);
            out[y * w + x] = dx.hypot(dy).atan().to_degrees();
        }
    }
    out
}

/// The slope→cost curve evaluated piecewise linearly, flat beyond its ends.
#[must_use]
pub fn curve_cost(curve: &[(f32, f32)], slope_deg: f32) -> f32 {
    let Some(&(first_deg, first_cost)) = curve.first() else {
        return 1.0;
    };
    if slope_deg <= first_deg {
        return first_cost;
    }
    for pair in curve.windows(2) {
        let ((d0, c0), (d1, c1)) = (pair[0], pair[1]);
        if slope_deg <= d1 {
            let t = if d1 > d0 {
                (slope_deg - d0) / (d1 - d0)
            } else {
                1.0
            };
            return c0 + t * (c1 - c0);
        }
    }
    curve.last().map_or(1.0, |&(_, c)| c)
}

/// Final cost of the cells in `rect` for one movement type, written into `cost`.
fn bake_type_rect(
    document: &MapDocument,
    heightmap: &Heightmap,
    slope_deg: &[f32],
    ty: &MovementType,
    rect: CellRect,
    cost: &mut [u8],
) {
    let w = heightmap.width as usize;
    let layers: Vec<&PaintLayer> = document
        .paint
        .iter()
        .filter(|l| match &l.target {
            PaintTarget::All => true,
            PaintTarget::Type(name) => *name == ty.name,
        })
        .collect();
    for y in rect.y0..rect.y1 {
        for x in rect.x0..rect.x1 {
            let i = y as usize * w + x as usize;
            let slope = slope_deg[i];
            let height_m = heightmap.height01[i] * document.height_scale_m;
            let blocked = heightmap.blocked.get(i).copied().unwrap_or(false);
            let mut wall = blocked || slope > ty.max_slope_deg;
            let mut c = curve_cost(&ty.slope_cost, slope);
            if height_m < document.water_level_m {
                match ty.water {
                    WaterRule::Impassable => wall = true,
                    WaterRule::Cost(w) => {
                        c = f32::from(w);
                        wall = blocked;
                    }
                }
            }
            let mut delta = 0i32;
            for layer in &layers {
                let Some(cell) = layer.cells.get(i) else {
                    continue;
                };
                match cell.force {
                    PaintForce::Wall => wall = true,
                    PaintForce::Clear => wall = false,
                    PaintForce::None => {}
                }
                delta += i32::from(cell.delta);
            }
            cost[i] = if wall {
                WALL
            } else {
                (c.round() as i32 + delta).clamp(i32::from(CLEAR), 254) as u8
            };
        }
    }
}

fn type_stats(name: &str, final_cost: Vec<u8>) -> TypeLayers {
    let wall_count = final_cost.iter().filter(|&&c| c == WALL).count();
    let (sum, n) = final_cost
        .iter()
        .filter(|&&c| c != WALL)
        .fold((0u64, 0u64), |(s, n), &c| (s + u64::from(c), n + 1));
    TypeLayers {
        name: name.to_owned(),
        final_cost,
        wall_count,
        mean_cost: if n == 0 { 0.0 } else { sum as f32 / n as f32 },
    }
}

/// Bakes every movement type of the document from scratch.
///
/// Adapter: to be replaced by `crate::bake::bake` (which also builds the nav data).
///
/// # Errors
/// [`Cancelled`] when `cancel` was set between rows of work.
pub fn bake_full(
    document: &MapDocument,
    heightmap: &Heightmap,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(BakeProgress),
) -> Result<BakeOutput, Cancelled> {
    let full = CellRect::full(heightmap.width, heightmap.height);
    let stages = 1 + document.movement_types.len();
    let mut timings = Vec::new();
    progress(BakeProgress {
        stage: "slope".to_owned(),
        fraction: 0.0,
    });
    let start = Instant::now();
    let slope_deg = slope_degrees(document, heightmap);
    let slope_histogram = histogram(&slope_deg);
    timings.push(("slope".to_owned(), start.elapsed()));
    let mut types = Vec::with_capacity(document.movement_types.len());
    for (k, ty) in document.movement_types.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        progress(BakeProgress {
            stage: format!("cost: {}", ty.name),
            fraction: (k + 1) as f32 / stages as f32,
        });
        let start = Instant::now();
        let mut cost = vec![CLEAR; full.area()];
        bake_type_rect(document, heightmap, &slope_deg, ty, full, &mut cost);
        types.push(type_stats(&ty.name, cost));
        timings.push((format!("cost: {}", ty.name), start.elapsed()));
    }
    progress(BakeProgress {
        stage: "done".to_owned(),
        fraction: 1.0,
    });
    Ok(BakeOutput {
        slope_deg,
        slope_histogram,
        types,
        timings,
    })
}

/// Re-bakes only `rect` of a previous bake of the same heightmap and movement types.
///
/// Adapter: to be replaced by the library's incremental rebake (which must grow the rect by
/// the buffer and blur radii and rebuild the touched sectors' nav data).
pub fn bake_rect(
    document: &MapDocument,
    heightmap: &Heightmap,
    previous: &mut BakeOutput,
    rect: CellRect,
) {
    let start = Instant::now();
    let slope = std::mem::take(&mut previous.slope_deg);
    for (layers, ty) in previous.types.iter_mut().zip(&document.movement_types) {
        let mut cost = std::mem::take(&mut layers.final_cost);
        bake_type_rect(document, heightmap, &slope, ty, rect, &mut cost);
        *layers = type_stats(&ty.name, cost);
    }
    previous.slope_deg = slope;
    previous.timings = vec![("rebake rect".to_owned(), start.elapsed())];
}

fn histogram(slope_deg: &[f32]) -> Vec<f32> {
    let mut bins = vec![0.0f32; 90];
    for &s in slope_deg {
        bins[(s.max(0.0) as usize).min(89)] += 1.0;
    }
    let total = slope_deg.len().max(1) as f32;
    for b in &mut bins {
        *b /= total;
    }
    bins
}

/// Small documents for unit tests across `app`.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// A document with the default movement types and no water.
    pub(crate) fn doc() -> MapDocument {
        MapDocument {
            version: FORMAT_VERSION,
            name: "t".to_owned(),
            heightmap: HeightmapSource {
                path: "t.png".to_owned(),
                encoding: HeightEncoding::Auto,
                no_data: None,
            },
            cell_size_m: 1.0,
            height_scale_m: 10.0,
            water_level_m: 0.0,
            sector_size: 10,
            movement_types: default_movement_types(),
            paint: Vec::new(),
            stamps: Vec::new(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn flat_doc(w: u32, h: u32) -> (MapDocument, Heightmap) {
        let hm = Heightmap {
            width: w,
            height: h,
            height01: vec![0.5; (w * h) as usize],
            blocked: Vec::new(),
        };
        (tests_support::doc(), hm)
    }

    #[test]
    fn ramp_slope_matches_hand_computed_angle() {
        // Height rises 1 m per 1 m cell in x: 45 degrees everywhere.
        let (mut doc, mut hm) = flat_doc(5, 3);
        doc.height_scale_m = 10.0;
        for y in 0..3 {
            for x in 0..5 {
                hm.height01[y * 5 + x] = x as f32 / 10.0;
            }
        }
        let s = slope_degrees(&doc, &hm);
        for v in s {
            assert!((v - 45.0).abs() < 1e-3, "{v}");
        }
    }

    #[test]
    fn curve_is_piecewise_linear_and_flat_beyond_ends() {
        let c = [(0.0, 1.0), (10.0, 11.0), (20.0, 31.0)];
        assert_eq!(curve_cost(&c, -5.0), 1.0);
        assert!((curve_cost(&c, 5.0) - 6.0).abs() < 1e-5);
        assert!((curve_cost(&c, 15.0) - 21.0).abs() < 1e-5);
        assert_eq!(curve_cost(&c, 80.0), 31.0);
    }

    #[test]
    fn rect_rebake_equals_full_bake_after_paint() {
        let (mut doc, hm) = flat_doc(20, 20);
        let never = AtomicBool::new(false);
        let mut prev = bake_full(&doc, &hm, &never, &mut |_| {}).unwrap();
        let mut cells = vec![PaintCell::default(); 400];
        cells[5 * 20 + 7].force = PaintForce::Wall;
        cells[6 * 20 + 7].delta = 40;
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: String::new(),
            cells,
        });
        bake_rect(
            &doc,
            &hm,
            &mut prev,
            CellRect {
                x0: 6,
                y0: 4,
                x1: 9,
                y1: 8,
            },
        );
        let full = bake_full(&doc, &hm, &never, &mut |_| {}).unwrap();
        for (a, b) in prev.types.iter().zip(&full.types) {
            assert_eq!(a.final_cost, b.final_cost);
            assert_eq!(a.wall_count, 1);
        }
        assert_eq!(full.types[0].final_cost[6 * 20 + 7], 41);
    }

    #[test]
    fn cancelled_bake_returns_cancelled() {
        let (doc, hm) = flat_doc(8, 8);
        let cancel = AtomicBool::new(true);
        assert_eq!(bake_full(&doc, &hm, &cancel, &mut |_| {}), Err(Cancelled));
    }
}
