//! The editor's bridge to the library: load and save map documents (`map::io`), import
//! heightmaps, and bake (`bake::bake`, `bake::rebake_rect`) into the shapes the editor's
//! overlays and panels read. The rest of `app/` calls through here, never around it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::bake::cost_layers::CostLayers;
use crate::bake::{self, BakeContext, BakeOptions, Baked};
use crate::map::{self, Heightmap, MapDocument, MapError, StampLibrary};
#[cfg(test)]
use crate::map::{FORMAT_VERSION, HeightEncoding, HeightmapSource};
use crate::nav::grid::WALL;

use super::state::CellRect;

/// Why loading, saving or importing failed: the library's one-sentence message.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The library refused the file (the message says which file, what and what to do).
    #[error(transparent)]
    Map(#[from] MapError),
    /// The bake refused the document.
    #[error(transparent)]
    Bake(#[from] bake::BakeError),
    /// The nav package could not be read (the message says which file and what is wrong).
    #[error(transparent)]
    Package(#[from] crate::package::PackageError),
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
    /// Things the designer should know.
    pub warnings: Vec<String>,
}

impl From<map::LoadedMap> for LoadedMap {
    fn from(m: map::LoadedMap) -> Self {
        Self {
            path: Some(m.path),
            document: m.document,
            heightmap: m.heightmap,
            warnings: m.warnings,
        }
    }
}

/// The movement types a new map starts with (the library's).
#[must_use]
pub fn default_movement_types() -> Vec<crate::map::MovementType> {
    map::default_movement_types()
}

/// Reads a heightmap in any supported format (see `map::heightmap`).
///
/// # Errors
/// The library's [`MapError`].
pub fn import_heightmap(path: &Path) -> Result<Heightmap, BackendError> {
    Ok(map::import_heightmap(path, map::HeightEncoding::Auto, None)?.heightmap)
}

/// A new, unsaved map document for a heightmap file, at the scale the file states, with
/// the default movement types.
///
/// # Errors
/// The library's [`MapError`].
pub fn new_map_from_heightmap(heightmap_path: &Path) -> Result<LoadedMap, BackendError> {
    let prefilled = prefill_new_map(heightmap_path)?;
    Ok(new_map_with_settings(
        heightmap_path,
        prefilled.imported,
        &prefilled.settings,
    ))
}

/// Imports a heightmap and pre-fills the New map dialog from what the file says.
///
/// # Errors
/// The library's [`MapError`].
pub fn prefill_new_map(heightmap_path: &Path) -> Result<map::new_map::Prefilled, BackendError> {
    Ok(map::new_map::prefill(heightmap_path)?)
}

/// A new, unsaved map document for an imported heightmap with the dialog's settings.
#[must_use]
pub fn new_map_with_settings(
    heightmap_path: &Path,
    imported: map::ImportedHeightmap,
    settings: &map::NewMapSettings,
) -> LoadedMap {
    let mut m: LoadedMap =
        map::io::new_map_with_settings(heightmap_path, imported, settings).into();
    // The library resolves the heightmap relative to the document; until the map is saved
    // there is no document, so keep the path as given.
    m.document.heightmap.path = heightmap_path.to_string_lossy().into_owned();
    m.path = None;
    m
}

/// The slope histogram and terrain-wall share per type a document would bake to.
#[must_use]
pub fn terrain_preview(
    document: &MapDocument,
    heightmap: &Heightmap,
) -> bake::preview::TerrainPreview {
    bake::preview::terrain_preview(document, heightmap)
}

/// Opens a map: a `.ron` document (with its heightmap and paint side files), or a
/// heightmap file (`.png`, `.r16`, `.raw`, `.hgt`, `.map`), which becomes a new unsaved map.
///
/// # Errors
/// The library's [`MapError`] (one sentence naming the file).
pub fn load_map(path: &Path) -> Result<LoadedMap, BackendError> {
    let is_ron = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
    if !is_ron {
        return new_map_from_heightmap(path);
    }
    let mut loaded: LoadedMap = map::load_map(path)?.into();
    // The document stores its heightmap relative to itself; the editor keeps it absolute so
    // "Save As" into another folder still finds it (`save_map` makes it relative again).
    let hm = map::io::folder_of(path).join(&loaded.document.heightmap.path);
    if let Ok(abs) = hm.canonicalize() {
        loaded.document.heightmap.path = abs.to_string_lossy().into_owned();
    }
    Ok(loaded)
}

/// A nav package opened for viewing: the package's own numbers shown as a bake of a
/// stand-in document, which the editor keeps read-only.
#[derive(Clone, Debug)]
pub struct PackageView {
    /// A document with the package's map name, cell and sector size and the movement
    /// types its manifest records, over flat heights (a package carries no heights).
    pub map: LoadedMap,
    /// The package's cost fields and nav data, in the shape a bake hands the editor.
    pub output: BakeOutput,
}

/// Reads a nav package for viewing (see [`PackageView`]).
///
/// # Errors
/// The library's [`PackageError`](crate::package::PackageError) (one sentence naming the
/// file: wrong magic, newer version, damaged or truncated).
pub fn load_package(path: &Path) -> Result<PackageView, BackendError> {
    let package = crate::package::read(path)?;
    let manifest = &package.manifest;
    let nav = package.nav;
    let setting = |key: &str| {
        manifest
            .bake_options
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse::<f32>().ok())
    };
    let mut warnings = vec![format!(
        "{} is a nav package, open read-only: paint, stamps and movement types are shown as baked; open the map's .ron to edit and re-bake.",
        path.display()
    )];
    let movement_types = nav
        .layers
        .iter()
        .enumerate()
        .map(|(k, layer)| {
            let recorded = manifest
                .layers
                .get(k)
                .and_then(|l| match &l.params {
                    // Version 1 packages recorded the movement type as RON text.
                    serde_json::Value::String(ron) => ron::from_str(ron).ok(),
                    json => serde_json::from_value::<map::MovementType>(json.clone()).ok(),
                });
            recorded.unwrap_or_else(|| {
                warnings.push(format!(
                    "The package does not record the settings of movement type \"{}\"; its panel shows defaults.",
                    layer.name
                ));
                map::MovementType {
                    name: layer.name.clone(),
                    ..map::MovementType::default()
                }
            })
        })
        .collect();
    let (width, height) = (nav.spec.width, nav.spec.height);
    let document = MapDocument {
        version: map::FORMAT_VERSION,
        name: manifest.map_name.clone(),
        heightmap: map::HeightmapSource {
            path: String::new(),
            encoding: map::HeightEncoding::Auto,
            no_data: None,
        },
        cell_size_m: nav.cell_size_m,
        height_scale_m: setting("height_scale_m").unwrap_or(0.0),
        water_level_m: setting("water_level_m").unwrap_or(-1.0),
        sector_size: u16::try_from(nav.spec.sector_size).unwrap_or(u16::MAX),
        movement_types,
        paint: Vec::new(),
        stamps: Vec::new(),
    };
    let cells = width as usize * height as usize;
    let types = nav
        .layers
        .iter()
        .map(|layer| cost_stats(&layer.name, layer.cost.to_cells(), vec![0; cells]))
        .collect();
    let output = BakeOutput {
        types,
        shared_nav: Some(Arc::new(nav)),
        ..BakeOutput::default()
    };
    let map = LoadedMap {
        path: None,
        document,
        heightmap: Heightmap {
            width,
            height,
            height01: vec![0.0; cells],
            blocked: Vec::new(),
        },
        warnings,
    };
    Ok(PackageView { map, output })
}

/// Saves the document (RON) and its paint layers (PNG side files) atomically.
///
/// # Errors
/// The library's [`MapError`]; the old files stay intact.
pub fn save_map(
    path: &Path,
    document: &MapDocument,
    heightmap: &Heightmap,
) -> Result<(), BackendError> {
    let dir = map::io::folder_of(path);
    let stem = path
        .file_stem()
        .map_or_else(|| "map".to_owned(), |s| s.to_string_lossy().into_owned());
    let mut doc = document.clone();
    // Store the heightmap relative to the document when it lies beside it.
    let hm_path = PathBuf::from(&doc.heightmap.path);
    let hm_abs = if hm_path.is_absolute() {
        hm_path.clone()
    } else {
        std::env::current_dir()
            .map(|d| d.join(&hm_path))
            .unwrap_or(hm_path.clone())
    };
    if let (Ok(abs_hm), Ok(abs_dir)) = (hm_abs.canonicalize(), dir.canonicalize()) {
        doc.heightmap.path = abs_hm.strip_prefix(&abs_dir).map_or_else(
            |_| abs_hm.to_string_lossy().into_owned(),
            |rel| rel.to_string_lossy().into_owned(),
        );
    }
    for (i, layer) in doc.paint.iter_mut().enumerate() {
        if layer.file.is_empty() || layer.file.contains('/') {
            layer.file = format!("{stem}.paint{i}.png");
        }
    }
    map::save_map_with_size(path, &doc, heightmap.width, heightmap.height)?;
    Ok(())
}

/// Final cost of one movement type and its summary numbers.
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
    /// Sum of the passable cells' costs (keeps `mean_cost` exact across rect rebakes).
    pub passable_cost_sum: u64,
    /// Why cells differ from the terrain: 255 = a wall only because of the large-unit wall
    /// buffer, 1..=254 = cost added by the wall blur, 0 = neither.
    pub contribution: Vec<u8>,
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
    /// Warnings of the last full bake.
    pub warnings: Vec<String>,
    /// The library's bake: intermediates (buffer, blur …) and the nav data.
    pub baked: Option<Baked>,
    /// The nav data of a full bake, copied once on the bake thread so the UI can share it
    /// without copying it in a frame.
    pub shared_nav: Option<Arc<crate::nav::NavData>>,
}

/// Progress of a running bake: the stage and its share done, `0.0..=1.0`.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeProgress {
    /// Stage name.
    pub stage: String,
    /// Fraction of the stage done.
    pub fraction: f32,
}

/// Why a bake produced nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BakeStopped {
    /// The user cancelled it.
    #[error("the bake was cancelled")]
    Cancelled,
    /// The library refused the document (one sentence saying what to change).
    #[error("the bake failed: {0}")]
    Failed(String),
}

fn stamps() -> StampLibrary {
    StampLibrary::builtin().unwrap_or_default()
}

/// Bakes every movement type of the document with the library (cost fields, portals,
/// islands, flow permutations).
///
/// # Errors
/// [`BakeStopped::Cancelled`] when `cancel` was set, [`BakeStopped::Failed`] when the
/// library refuses the document.
pub fn bake_full(
    document: &MapDocument,
    heightmap: &Heightmap,
    cancel: &Arc<AtomicBool>,
    progress: Box<dyn Fn(BakeProgress) + Send + Sync>,
) -> Result<BakeOutput, BakeStopped> {
    let mut ctx = BakeContext::new(
        Box::new(move |stage, fraction| {
            progress(BakeProgress {
                stage: stage.to_owned(),
                fraction,
            });
        }),
        Arc::clone(cancel),
    );
    let result = bake::bake(
        document,
        heightmap,
        &stamps(),
        &BakeOptions::default(),
        &mut ctx,
    );
    let baked = match result {
        Ok(b) => b,
        Err(bake::BakeError::Cancelled) => return Err(BakeStopped::Cancelled),
        Err(e) => return Err(BakeStopped::Failed(e.to_string())),
    };
    let types = baked
        .type_indices
        .iter()
        .zip(&baked.cost_layers)
        .map(|(&t, l)| type_stats(&document.movement_types[t].name, l))
        .collect();
    Ok(BakeOutput {
        slope_histogram: histogram(&baked.slope_deg),
        slope_deg: baked.slope_deg.clone(),
        types,
        timings: ctx
            .timings
            .iter()
            .map(|t| (t.stage.clone(), t.duration))
            .collect(),
        warnings: ctx.warnings.clone(),
        shared_nav: Some(Arc::new(baked.nav.clone())),
        baked: Some(baked),
    })
}

/// Re-bakes after an edit inside `rect` with the library's incremental rebake (it grows the
/// rect by the buffer and blur reach and rebuilds only changed sectors).
pub fn bake_rect(
    document: &MapDocument,
    heightmap: &Heightmap,
    previous: &mut BakeOutput,
    rect: CellRect,
) {
    let start = Instant::now();
    let Some(baked) = previous.baked.as_mut() else {
        return;
    };
    let dirty = bake::CellRect {
        x0: rect.x0,
        y0: rect.y0,
        x1: rect.x1,
        y1: rect.y1,
    };
    let mut ctx = BakeContext::default();
    if bake::rebake_rect(document, heightmap, &stamps(), baked, dirty, &mut ctx).is_err() {
        // A failed rect rebake leaves a partly updated layer: rebake everything instead.
        if let Ok(full) = bake_full(document, heightmap, &Arc::default(), Box::new(|_| {})) {
            *previous = full;
        }
        return;
    }
    // Only cells within the types' reach of the edit can have changed: update those and the
    // running statistics, not the whole map (a full pass is ~100 ms on 2048²).
    let changed = grown_by_reach(document, rect, heightmap.width, heightmap.height);
    let same_shape = previous.types.len() == baked.cost_layers.len()
        && previous
            .types
            .iter()
            .zip(&baked.cost_layers)
            .all(|(t, l)| t.final_cost.len() == l.final_cost.len());
    if same_shape {
        for (t, l) in previous.types.iter_mut().zip(&baked.cost_layers) {
            t.update_rect(l, changed, heightmap.width);
        }
    } else {
        previous.types = baked
            .type_indices
            .iter()
            .zip(&baked.cost_layers)
            .map(|(&t, l)| type_stats(&document.movement_types[t].name, l))
            .collect();
    }
    // Heights are never edited in the editor, so the slope only changes with the map size.
    if previous.slope_deg.len() != baked.slope_deg.len() {
        previous.slope_deg.clone_from(&baked.slope_deg);
    }
    previous.timings = vec![("rebake rect".to_owned(), start.elapsed())];
}

/// `rect` grown by the largest reach of any movement type (how far a changed cell can
/// change final costs), clipped to the map.
#[must_use]
pub fn grown_by_reach(document: &MapDocument, rect: CellRect, width: u32, height: u32) -> CellRect {
    let reach = document
        .movement_types
        .iter()
        .map(|ty| crate::bake::cost_layers::reach_cells(ty, document.cell_size_m))
        .max()
        .unwrap_or(0);
    CellRect {
        x0: rect.x0.saturating_sub(reach).min(width),
        y0: rect.y0.saturating_sub(reach).min(height),
        x1: rect.x1.saturating_add(reach).min(width),
        y1: rect.y1.saturating_add(reach).min(height),
    }
}

/// What a cell adds to a type's contribution grid (see [`TypeLayers::contribution`]).
fn contribution_of(layers: &CostLayers, i: usize) -> u8 {
    let buffered = layers.buffered_walls.get(i).copied().unwrap_or(false)
        && !layers.wall_mask.get(i).copied().unwrap_or(false);
    if buffered {
        WALL
    } else {
        layers.blur.get(i).copied().unwrap_or(0).min(254)
    }
}

impl TypeLayers {
    /// Copies the cells of `rect` from a re-baked layer and updates the wall count and mean
    /// cost by what changed there.
    fn update_rect(&mut self, layers: &CostLayers, rect: CellRect, width: u32) {
        for y in rect.y0..rect.y1 {
            for x in rect.x0..rect.x1 {
                let i = y as usize * width as usize + x as usize;
                let (Some(old), Some(&new)) =
                    (self.final_cost.get_mut(i), layers.final_cost.get(i))
                else {
                    continue;
                };
                for (cost, sign) in [(*old, -1i64), (new, 1)] {
                    if cost == WALL {
                        self.wall_count = (self.wall_count as i64 + sign) as usize;
                    } else {
                        self.passable_cost_sum =
                            (self.passable_cost_sum as i64 + sign * i64::from(cost)) as u64;
                    }
                }
                *old = new;
                if let Some(c) = self.contribution.get_mut(i) {
                    *c = contribution_of(layers, i);
                }
            }
        }
        let passable = self.final_cost.len().saturating_sub(self.wall_count);
        self.mean_cost = if passable == 0 {
            0.0
        } else {
            self.passable_cost_sum as f32 / passable as f32
        };
    }
}

fn type_stats(name: &str, layers: &CostLayers) -> TypeLayers {
    let contribution = (0..layers.final_cost.len())
        .map(|i| contribution_of(layers, i))
        .collect();
    cost_stats(name, layers.final_cost.clone(), contribution)
}

fn cost_stats(name: &str, final_cost: Vec<u8>, contribution: Vec<u8>) -> TypeLayers {
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
        passable_cost_sum: sum,
        contribution,
    }
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
    use crate::map::{PaintCell, PaintForce, PaintLayer, PaintTarget};

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
    fn rect_rebake_equals_full_bake_after_paint() {
        let (mut doc, hm) = flat_doc(20, 20);
        let never = Arc::new(AtomicBool::new(false));
        let mut prev = bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        let mut cells = vec![PaintCell::default(); 400];
        cells[5 * 20 + 7].force = PaintForce::Wall;
        cells[6 * 20 + 7].delta = 40;
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
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
        let full = bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        for (a, b) in prev.types.iter().zip(&full.types) {
            assert_eq!(a.final_cost, b.final_cost);
            // The rect update keeps the overlays' inputs and the statistics exact.
            assert_eq!(a.contribution, b.contribution, "{}", a.name);
            assert_eq!(a.wall_count, b.wall_count, "{}", a.name);
            assert_eq!(a.passable_cost_sum, b.passable_cost_sum, "{}", a.name);
            assert_eq!(a.mean_cost, b.mean_cost, "{}", a.name);
            assert_eq!(a.final_cost[5 * 20 + 7], WALL, "{}: force wall", a.name);
        }
        // land: flat ground (1) + 40 paint + the blur next to the painted wall.
        assert!(full.types[0].final_cost[6 * 20 + 7] >= 41);
    }

    #[test]
    fn contributions_mark_buffer_walls_and_blur() {
        let (mut doc, hm) = flat_doc(20, 20);
        let mut cells = vec![PaintCell::default(); 400];
        cells[10 * 20 + 10].force = PaintForce::Wall;
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells,
        });
        let never = Arc::new(AtomicBool::new(false));
        let out = bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        let (land, large) = (&out.types[0], &out.types[2]);
        let at = |x: usize, y: usize| y * 20 + x;
        // The painted wall itself is not the buffer's doing.
        assert_eq!(large.contribution[at(10, 10)], 0);
        // large: 1.5 m buffer → the 4-neighbours (edge distance 0.5 m) and diagonals
        // (edge distance 0 m, corner touching) become buffer walls; 3 cells away does not.
        assert_eq!(large.contribution[at(11, 10)], WALL);
        assert_eq!(large.final_cost[at(11, 10)], WALL);
        assert_ne!(large.contribution[at(13, 10)], WALL);
        // land: no buffer; blur (3 m, strength 6) next to the wall, none far away, and the
        // final cost is the flat cost plus exactly that blur.
        let next = land.contribution[at(11, 10)];
        assert!(next > 0 && next != WALL, "{next}");
        assert_eq!(land.final_cost[at(11, 10)], 1 + next);
        assert_eq!(land.contribution[at(18, 18)], 0);
    }

    #[test]
    fn cancelled_bake_returns_cancelled() {
        let (doc, hm) = flat_doc(8, 8);
        let cancel = Arc::new(AtomicBool::new(true));
        assert_eq!(
            bake_full(&doc, &hm, &cancel, Box::new(|_| {})),
            Err(BakeStopped::Cancelled)
        );
    }
}
