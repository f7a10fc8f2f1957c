//! The overlays' colour ramps: height, slope, cost, walls, paint, wall-buffer contribution,
//! islands. Plain functions, so the bake thread can colour images and the legend
//! ([`panels::legend`](crate::app::panels::legend)) shows the same ramps.

use egui::Color32;

use crate::map::{PaintCell, PaintForce};
use crate::nav::grid::WALL;

/// Colour of wall cells in the cost and walls overlays: dark, so no cost reads as a wall.
pub const WALL_COLOR: Color32 = Color32::from_rgb(24, 18, 34);
/// Colour of water in the height overlay.
pub(super) const WATER_COLOR: [f32; 3] = [38.0, 78.0, 132.0];
/// Steepest slope the slope ramp distinguishes. `[Units: degrees]`
pub const SLOPE_RAMP_MAX_DEG: f32 = 60.0;

fn lerp_rgb(stops: &[(f32, [f32; 3])], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    for pair in stops.windows(2) {
        let ((t0, c0), (t1, c1)) = (pair[0], pair[1]);
        if t <= t1 {
            let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
            return [
                c0[0] + (c1[0] - c0[0]) * u,
                c0[1] + (c1[1] - c0[1]) * u,
                c0[2] + (c1[2] - c0[2]) * u,
            ];
        }
    }
    stops.last().map_or([0.0; 3], |s| s.1)
}

pub(super) fn rgba(c: [f32; 3], alpha: u8) -> Color32 {
    Color32::from_rgba_unmultiplied(c[0] as u8, c[1] as u8, c[2] as u8, alpha)
}

/// Hypsometric tint for a height `0.0..=1.0`.
pub(super) fn height_tint(h01: f32) -> [f32; 3] {
    lerp_rgb(
        &[
            (0.0, [52.0, 92.0, 62.0]),
            (0.3, [104.0, 128.0, 76.0]),
            (0.6, [156.0, 136.0, 100.0]),
            (0.85, [196.0, 190.0, 180.0]),
            (1.0, [240.0, 240.0, 236.0]),
        ],
        h01,
    )
}

/// Colour of a height (no shading), for the legend.
#[must_use]
pub fn height_color(h01: f32) -> Color32 {
    rgba(height_tint(h01), 255)
}

/// Slope ramp: flat dark blue → green → yellow → red at [`SLOPE_RAMP_MAX_DEG`].
#[must_use]
pub fn slope_color(slope_deg: f32, alpha: u8) -> Color32 {
    let c = lerp_rgb(
        &[
            (0.0, [30.0, 60.0, 140.0]),
            (0.25, [40.0, 170.0, 120.0]),
            (0.5, [230.0, 220.0, 60.0]),
            (0.75, [235.0, 120.0, 40.0]),
            (1.0, [200.0, 30.0, 40.0]),
        ],
        slope_deg / SLOPE_RAMP_MAX_DEG,
    );
    rgba(c, alpha)
}

/// Cost ramp: 1 green → yellow → 254 red; walls [`WALL_COLOR`].
#[must_use]
pub fn cost_color(cost: u8, alpha: u8) -> Color32 {
    if cost == WALL {
        return WALL_COLOR;
    }
    // Most costs are small, so the ramp is stretched at the low end (square root).
    let t = ((f32::from(cost) - 1.0) / 253.0).sqrt();
    let c = lerp_rgb(
        &[
            (0.0, [60.0, 190.0, 90.0]),
            (0.5, [235.0, 215.0, 60.0]),
            (1.0, [215.0, 45.0, 40.0]),
        ],
        t,
    );
    rgba(c, alpha)
}

/// Paint colour: orange for added cost, cyan for removed, magenta for forced walls, white
/// for forced clears; transparent where nothing is painted.
#[must_use]
pub fn paint_color(cell: PaintCell) -> Color32 {
    match cell.force {
        PaintForce::Wall => Color32::from_rgba_unmultiplied(220, 50, 200, 210),
        PaintForce::Clear => Color32::from_rgba_unmultiplied(235, 245, 255, 170),
        PaintForce::None if cell.delta > 0 => {
            let a = 60 + (cell.delta.min(120) as u32 * 150 / 120) as u8;
            Color32::from_rgba_unmultiplied(255, 140, 20, a)
        }
        PaintForce::None if cell.delta < 0 => {
            let a = 60 + ((-cell.delta).min(120) as u32 * 150 / 120) as u8;
            Color32::from_rgba_unmultiplied(30, 200, 255, a)
        }
        PaintForce::None => Color32::TRANSPARENT,
    }
}

/// Colour of a wall added by the large-unit wall buffer.
pub const BUFFER_COLOR: Color32 = Color32::from_rgb(255, 120, 40);

/// The buffer / blur overlay: buffer walls orange, blur magenta growing with the cost
/// added, untouched cells transparent.
#[must_use]
pub fn contribution_color(contribution: u8) -> Color32 {
    match contribution {
        0 => Color32::TRANSPARENT,
        WALL => BUFFER_COLOR,
        added => {
            let t = (f32::from(added) / 16.0).min(1.0);
            Color32::from_rgba_unmultiplied(230, 60, 220, (60.0 + 170.0 * t) as u8)
        }
    }
}

/// A distinct, stable colour for island `id` (0 = wall: transparent).
#[must_use]
pub fn island_color(id: u32) -> Color32 {
    if id == 0 {
        return Color32::TRANSPARENT;
    }
    // Golden-angle hue steps keep neighbouring ids apart.
    let hue = (id as f32 * 0.618_034).fract();
    let rgb = egui::ecolor::Hsva::new(hue, 0.75, 0.95, 1.0).to_srgb();
    Color32::from_rgba_unmultiplied(rgb[0], rgb[1], rgb[2], 170)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walls_never_share_a_colour_with_costs() {
        for c in 1..=254u8 {
            assert_ne!(cost_color(c, 255), WALL_COLOR, "cost {c}");
        }
        // Ramp ends: cheap is green-dominant, expensive is red-dominant.
        let cheap = cost_color(1, 255);
        let dear = cost_color(254, 255);
        assert!(cheap.g() > cheap.r());
        assert!(dear.r() > dear.g());
    }

    #[test]
    fn unpainted_cells_are_transparent() {
        assert_eq!(paint_color(PaintCell::default()), Color32::TRANSPARENT);
    }
}
