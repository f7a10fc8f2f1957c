//! What a new map would bake to, before the bake: the slope histogram and the share of
//! cells each movement type would see as terrain walls.
//!
//! Pipeline position: stages 1–2 only ([`super::slope`], [`super::terrain_cost`]), for the
//! New map dialog and `navstudio new`, so a designer sees "98 % walls" before baking. Wall
//! buffer, blur, paint and stamps are left out: a new map has none of the last two, and the
//! buffer only grows walls that are already counted here.

use crate::map::{Heightmap, MapDocument};
use crate::nav::grid::WALL;

/// Width of one slope histogram bin. `[Units: degrees]`
pub const SLOPE_BIN_DEG: f32 = 5.0;

/// Number of slope histogram bins (0°–90° in [`SLOPE_BIN_DEG`] steps).
pub const SLOPE_BINS: usize = 18;

/// The preview of a document's terrain.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainPreview {
    /// Cells per slope bin: bin `i` counts slopes in `[i·5°, (i+1)·5°)`, the last bin
    /// includes 90°.
    pub slope_histogram: [u64; SLOPE_BINS],
    /// Share of cells below the water level. `[Limit: 0..=1]`
    pub water_share: f64,
    /// Per movement type in document order: its name and the share of cells that are terrain
    /// walls for it (too steep, impassable water, no data). `[Limit: 0..=1]`
    pub wall_share: Vec<(String, f64)>,
}

/// Slope histogram and terrain-wall share per movement type of `doc` over `heightmap`.
///
/// Invalid values do not panic: a cell size that is not above 0 makes every cell 90°, as in
/// [`super::slope::slope_deg`].
#[must_use]
pub fn terrain_preview(doc: &MapDocument, heightmap: &Heightmap) -> TerrainPreview {
    let slope_deg = super::slope::slope_deg(
        &heightmap.height01,
        heightmap.width,
        heightmap.height,
        doc.cell_size_m,
        doc.height_scale_m,
    );
    let mut slope_histogram = [0u64; SLOPE_BINS];
    for &s in &slope_deg {
        let bin = if s.is_finite() {
            ((s / SLOPE_BIN_DEG) as usize).min(SLOPE_BINS - 1)
        } else {
            SLOPE_BINS - 1
        };
        slope_histogram[bin] += 1;
    }
    let cells = slope_deg.len().max(1) as f64;
    let water = heightmap
        .height01
        .iter()
        .filter(|&&h| h * doc.height_scale_m < doc.water_above_black_m())
        .count();
    let wall_share = doc
        .movement_types
        .iter()
        .map(|ty| {
            let cost = super::terrain_cost::terrain_cost(
                &slope_deg,
                &heightmap.height01,
                &heightmap.blocked,
                doc.height_scale_m,
                doc.water_above_black_m(),
                ty,
            );
            let walls = cost.iter().filter(|&&c| c == WALL).count();
            (ty.name.clone(), walls as f64 / cells)
        })
        .collect();
    TerrainPreview {
        slope_histogram,
        water_share: water as f64 / cells,
        wall_share,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::map::{HeightEncoding, MovementPreset, NewMapSettings};

    fn settings(cell_size_m: f32) -> NewMapSettings {
        NewMapSettings {
            encoding: HeightEncoding::Gray,
            cell_size_m,
            height_black_m: 0.0,
            height_white_m: 100.0,
            water_level_m: Some(10.0),
            sector_size: 10,
            preset: MovementPreset::LandHoverLarge,
            metric: false,
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_ramp_has_one_slope_and_walls_follow_the_cell_size() {
        // Heights rise 1/20 of the 100 m range per column: 5 m per cell.
        let (w, h) = (21u32, 4u32);
        let height01: Vec<f32> = (0..w * h).map(|i| (i % w) as f32 / 20.0).collect();
        let hm = Heightmap {
            width: w,
            height: h,
            height01,
            blocked: Vec::new(),
        };
        // 5 m over 1 m cells: 78.7°, a wall for every default type — except where hover
        // crosses water (the first two columns), which comes before the slope limit.
        let steep = terrain_preview(&settings(1.0).document("r", "r.png"), &hm);
        assert_eq!(steep.slope_histogram[15], u64::from(w * h));
        for (name, share) in &steep.wall_share {
            let want = if name == "hover" { 19.0 / 21.0 } else { 1.0 };
            assert!((share - want).abs() < 1e-9, "{name}: {share}");
        }
        // 5 m over 30 m cells: 9.5°; water below 10 m is the first two columns.
        let gentle = terrain_preview(&settings(30.0).document("r", "r.png"), &hm);
        assert_eq!(gentle.slope_histogram[1], u64::from(w * h));
        let expected_water = 2.0 / 21.0;
        assert!((gentle.water_share - expected_water).abs() < 1e-9);
        let share = |name: &str| {
            gentle
                .wall_share
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| *s)
        };
        assert!((share("land").unwrap_or(0.0) - expected_water).abs() < 1e-9);
        assert_eq!(share("hover"), Some(0.0));
    }
}
