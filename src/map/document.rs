//! The map document a designer edits and saves: `maps/NAME.ron` with the heightmap and the
//! paint layers as side files beside it.

use serde::{Deserialize, Serialize};

use super::movement::MovementType;
use super::paint::PaintLayer;
use super::stamp::StampPlacement;

/// The document format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

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
    /// Height of a full-white (maximum) heightmap sample. `[Units: m] [Limit: >= 0]`
    pub height_scale_m: f32,
    /// Cells whose height is below this are water. `[Units: m]`
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
}
