//! The map document a designer edits and saves: `maps/NAME.ron` with the heightmap and the
//! paint layers as side files beside it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::MapError;
pub use super::heightmap::HeightEncoding;
use super::movement::{MovementType, WaterRule};
use super::paint::{PAINT_DELTA_MAX, PaintLayer, PaintTarget};
use super::stamp::{StampLibrary, StampPlacement};

/// The document format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Where the heights come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeightmapSource {
    /// Path of the heightmap file, relative to the map document.
    pub path: String,
    /// How the file encodes heights.
    #[serde(default)]
    pub encoding: HeightEncoding,
    /// Raw sample value meaning "no data" (becomes a wall for every type), if the source has one.
    #[serde(default)]
    pub no_data: Option<f64>,
}

/// The map document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapDocument {
    /// Document format version; see [`FORMAT_VERSION`].
    pub version: u32,
    /// Map name, shown in the title bar and written into the nav package.
    pub name: String,
    /// The heightmap.
    pub heightmap: HeightmapSource,
    /// Width and depth of one cell. `[Units: m] [Limit: > 0]`
    pub cell_size_m: f32,
    /// Metres from a black (minimum) to a full-white (maximum) heightmap sample.
    /// `[Units: m] [Limit: >= 0]`
    pub height_scale_m: f32,
    /// Height of a black sample in the heightmap's own metres (an SRTM tile's 1165 m), so
    /// every height shown and the water level read as the file's real heights.
    /// `[Units: m]`
    #[serde(default)]
    pub height_base_m: f32,
    /// Cells whose height is below this are water, in the same real metres as
    /// `height_base_m`. `[Units: m]`
    pub water_level_m: f32,
    /// Sector edge length. `[Units: cells] [Limit: 1..=255]`
    pub sector_size: u16,
    /// Movement types, each baked separately.
    pub movement_types: Vec<MovementType>,
    /// Designer paint layers, applied in order.
    #[serde(default)]
    pub paint: Vec<PaintLayer>,
    /// Placed stamps, applied in order (later stamps win).
    #[serde(default)]
    pub stamps: Vec<StampPlacement>,
    /// Nav links: bridges, ferries, ramps, ladders, teleporters and drops (see
    /// `docs/map-format.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<super::MapLink>,
}

/// The name used in messages for a document that has no file yet.
const UNSAVED: &str = "unsaved map";

/// The largest `min_island_cells` a movement type may ask for: larger pockets are places a
/// designer meant, and the stage's reach (how far an edit can change walls) grows with it.
pub const MAX_MIN_ISLAND_CELLS: u32 = 1024;

impl MapDocument {
    /// The real height of a heightmap sample of `height01` (0 black … 1 white). `[Units: m]`
    #[must_use]
    pub fn height_m(&self, height01: f32) -> f32 {
        self.height_base_m + height01 * self.height_scale_m
    }

    /// The water level measured from the black sample, as the bake compares it with
    /// `height01 · height_scale_m`. `[Units: m]`
    #[must_use]
    pub fn water_above_black_m(&self) -> f32 {
        self.water_level_m - self.height_base_m
    }

    /// A paint side-file name for a new layer with `target` that no layer of this document
    /// uses yet: `NAME.paint.all.png` or `NAME.paint.TYPE.png` (characters other than
    /// letters, digits, `-` and `_` become `_`), with a number added when taken.
    #[must_use]
    pub fn unused_paint_file(&self, target: &PaintTarget) -> String {
        let clean = |s: &str| -> String {
            let c: String = s
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if c.is_empty() { "map".to_owned() } else { c }
        };
        let what = match target {
            PaintTarget::All => "all".to_owned(),
            PaintTarget::Type(name) => clean(name),
        };
        let base = format!("{}.paint.{what}", clean(&self.name));
        let taken = |f: &str| self.paint.iter().any(|l| l.file == f);
        let mut file = format!("{base}.png");
        let mut n = 2;
        while taken(&file) {
            file = format!("{base}{n}.png");
            n += 1;
        }
        file
    }

    /// Checks every value against its documented limits: format version, cell size, height
    /// scale, sector size, movement types (names, slope limits and curves, water costs,
    /// buffer and blur), paint layers (targets, side file names, cost deltas) and stamp
    /// placements (known stamp ids in the built-in library, rotation 0..=3).
    ///
    /// Does not touch the disk; paint layer sizes are checked when the side files load.
    ///
    /// # Errors
    /// The first problem found, as a [`MapError`] naming the document as `unsaved map`.
    pub fn validate(&self) -> Result<(), MapError> {
        self.validate_at(Path::new(UNSAVED))
    }

    /// [`MapDocument::validate`], naming `path` in errors.
    ///
    /// # Errors
    /// As [`MapDocument::validate`].
    pub fn validate_at(&self, path: &Path) -> Result<(), MapError> {
        let invalid = |field: String, problem: String| MapError::InvalidValue {
            path: path.to_path_buf(),
            field,
            problem,
        };
        match self.version.cmp(&FORMAT_VERSION) {
            std::cmp::Ordering::Less => {
                return Err(MapError::OldVersion {
                    path: path.to_path_buf(),
                    found: self.version,
                    supported: FORMAT_VERSION,
                });
            }
            std::cmp::Ordering::Greater => {
                return Err(MapError::NewVersion {
                    path: path.to_path_buf(),
                    found: self.version,
                    supported: FORMAT_VERSION,
                });
            }
            std::cmp::Ordering::Equal => {}
        }
        if self.name.trim().is_empty() {
            return Err(invalid(
                "`name`".to_owned(),
                "is empty but must name the map".to_owned(),
            ));
        }
        if self.heightmap.path.trim().is_empty() {
            return Err(invalid(
                "`heightmap.path`".to_owned(),
                "is empty but must name the heightmap file".to_owned(),
            ));
        }
        if let Some(nd) = self.heightmap.no_data
            && !nd.is_finite()
        {
            return Err(invalid(
                "`heightmap.no_data`".to_owned(),
                format!("is {nd} but must be a finite sample value"),
            ));
        }
        if let HeightEncoding::Raw16 { width: Some(0) } = self.heightmap.encoding {
            return Err(invalid(
                "`heightmap.encoding` RAW width".to_owned(),
                "is 0 but must be at least 2 (or None to infer a square)".to_owned(),
            ));
        }
        if !(self.cell_size_m.is_finite() && self.cell_size_m > 0.0) {
            return Err(invalid(
                "`cell_size_m`".to_owned(),
                format!(
                    "is {} but must be a number of metres above 0",
                    self.cell_size_m
                ),
            ));
        }
        if !(self.height_scale_m.is_finite() && self.height_scale_m >= 0.0) {
            return Err(invalid(
                "`height_scale_m`".to_owned(),
                format!("is {} but must be 0 or more metres", self.height_scale_m),
            ));
        }
        if !self.height_base_m.is_finite() {
            return Err(invalid(
                "`height_base_m`".to_owned(),
                format!(
                    "is {} but must be a finite number of metres",
                    self.height_base_m
                ),
            ));
        }
        if !self.water_level_m.is_finite() {
            return Err(invalid(
                "`water_level_m`".to_owned(),
                format!(
                    "is {} but must be a finite number of metres",
                    self.water_level_m
                ),
            ));
        }
        if !(1..=255).contains(&self.sector_size) {
            return Err(invalid(
                "`sector_size`".to_owned(),
                format!("is {} but must be 1..=255 cells", self.sector_size),
            ));
        }
        if self.movement_types.is_empty() {
            return Err(invalid(
                "`movement_types`".to_owned(),
                "is empty but the map needs at least one movement type to bake".to_owned(),
            ));
        }
        for (i, movement) in self.movement_types.iter().enumerate() {
            if self.movement_types[..i]
                .iter()
                .any(|m| m.name == movement.name)
            {
                return Err(MapError::DuplicateMovementType {
                    path: path.to_path_buf(),
                    name: movement.name.clone(),
                });
            }
            validate_movement(path, i, movement)?;
        }
        self.validate_paint(path)?;
        self.validate_stamps(path)?;
        self.validate_links(path)
    }

    fn validate_paint(&self, path: &Path) -> Result<(), MapError> {
        for (i, layer) in self.paint.iter().enumerate() {
            let field = format!("paint layer {i} `file`");
            let file = layer.file.as_str();
            let name_ok = !file.is_empty()
                && Path::new(file)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("png"))
                && Path::new(file)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !name_ok {
                return Err(MapError::InvalidValue {
                    path: path.to_path_buf(),
                    field,
                    problem: format!(
                        "is `{file}` but must be a .png path inside the map's folder (no `..`, no absolute path)"
                    ),
                });
            }
            if self.paint[..i].iter().any(|l| l.file == layer.file) {
                return Err(MapError::InvalidValue {
                    path: path.to_path_buf(),
                    field,
                    problem: format!(
                        "is `{file}`, which another paint layer already uses; give each layer its own file"
                    ),
                });
            }
            if let PaintTarget::Type(name) = &layer.target
                && !self.movement_types.iter().any(|m| &m.name == name)
            {
                return Err(MapError::UnknownPaintTarget {
                    path: path.to_path_buf(),
                    layer: i,
                    file: layer.file.clone(),
                    name: name.clone(),
                });
            }
            if let Some(cell) = layer
                .cells
                .iter()
                .find(|c| !(-PAINT_DELTA_MAX..=PAINT_DELTA_MAX).contains(&c.delta))
            {
                return Err(MapError::InvalidValue {
                    path: path.to_path_buf(),
                    field: format!("paint layer {i} (`{file}`) cost change"),
                    problem: format!(
                        "is {} but must be -{PAINT_DELTA_MAX}..={PAINT_DELTA_MAX}",
                        cell.delta
                    ),
                });
            }
        }
        Ok(())
    }

    fn validate_stamps(&self, path: &Path) -> Result<(), MapError> {
        if self.stamps.is_empty() {
            return Ok(());
        }
        let library = StampLibrary::builtin()?;
        for (i, placement) in self.stamps.iter().enumerate() {
            if library.get(&placement.stamp).is_none() {
                return Err(MapError::UnknownStamp {
                    path: path.to_path_buf(),
                    index: i,
                    id: placement.stamp.clone(),
                    known: library.id_list(),
                });
            }
            if placement.rotation > 3 {
                return Err(MapError::BadRotation {
                    path: path.to_path_buf(),
                    stamp: placement.stamp.clone(),
                    rotation: placement.rotation,
                });
            }
        }
        Ok(())
    }
}

fn validate_movement(path: &Path, index: usize, m: &MovementType) -> Result<(), MapError> {
    let label = if m.name.trim().is_empty() {
        format!("movement type {index}")
    } else {
        format!("movement type `{}`", m.name)
    };
    let invalid = |field: &str, problem: String| MapError::InvalidValue {
        path: path.to_path_buf(),
        field: format!("{label} {field}"),
        problem,
    };
    if m.name.trim().is_empty() {
        return Err(invalid(
            "`name`",
            "is empty but must be a unique name".to_owned(),
        ));
    }
    if !(m.max_slope_deg.is_finite() && (0.0..=90.0).contains(&m.max_slope_deg)) {
        return Err(invalid(
            "`max_slope_deg`",
            format!("is {} but must be 0..=90 degrees", m.max_slope_deg),
        ));
    }
    if m.slope_cost.is_empty() {
        return Err(invalid(
            "`slope_cost`",
            "is empty but needs at least one (slope_deg, cost) point, e.g. [(0.0, 1.0)]".to_owned(),
        ));
    }
    for (k, &(deg, cost)) in m.slope_cost.iter().enumerate() {
        if !deg.is_finite() || !(0.0..=90.0).contains(&deg) {
            return Err(invalid(
                "`slope_cost`",
                format!("point {k} is at {deg} degrees but points must lie in 0..=90"),
            ));
        }
        if !cost.is_finite() || !(1.0..=254.0).contains(&cost) {
            return Err(invalid(
                "`slope_cost`",
                format!("point {k} has cost {cost} but costs must be 1..=254"),
            ));
        }
        if k > 0 && deg <= m.slope_cost[k - 1].0 {
            return Err(invalid(
                "`slope_cost`",
                format!(
                    "point {k} is at {deg} degrees, not above the previous point's {}; degrees must strictly increase",
                    m.slope_cost[k - 1].0
                ),
            ));
        }
    }
    if let WaterRule::Cost(c) = m.water
        && !(1..=254).contains(&c)
    {
        return Err(invalid(
            "water cost",
            format!("is {c} but must be 1..=254 (use `Impassable` for a wall)"),
        ));
    }
    for (field, value) in [
        ("`wall_buffer_m`", m.wall_buffer_m),
        ("`blur_radius_m`", m.blur_radius_m),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(invalid(
                field,
                format!("is {value} but must be 0 or more metres"),
            ));
        }
    }
    if m.min_island_cells > MAX_MIN_ISLAND_CELLS {
        return Err(invalid(
            "`min_island_cells`",
            format!(
                "is {} but must be 0..={MAX_MIN_ISLAND_CELLS}",
                m.min_island_cells
            ),
        ));
    }
    if !(m.blur_strength.is_finite() && (0.0..=253.0).contains(&m.blur_strength)) {
        return Err(invalid(
            "`blur_strength`",
            format!("is {} but must be 0..=253", m.blur_strength),
        ));
    }
    Ok(())
}
