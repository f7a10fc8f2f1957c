//! Heightmap import: grey PNG (8/16-bit), Terrain-RGB PNG, RAW `.r16`, SRTM `.hgt` and
//! Moving AI `.map` grids, all turned into one [`Heightmap`].

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
