//! Bake stage 6: the wall blur — a cost gradient near walls, so flow runs along the middle of
//! corridors and rounds jagged edges instead of hugging them.
//!
//! Pipeline position: 1. slope → 2. terrain cost → 3. wall mask → 4. distance to walls →
//! 5. wall buffer → **6. wall blur** → 7. paint and stamp costs. The distance is measured to
//! the final walls (after the buffer and paint force-clear).
//!
//! For a passable cell at centre distance `d` (in cells, so `d ≥ 1`) from the nearest wall:
//!
//! ```text
//! added = round(strength · (1 − d / radius_cells))   if d < radius_cells
//!         0                                          otherwise
//! ```
//!
//! clamped to `0..=254`. Wall cells get 0: the blur never makes or changes a wall (the final
//! clamp to 254 happens in stage 7). A radius of 1 cell or less adds nothing.

use rayon::prelude::*;

use super::distance::map_squared_distance;

/// The most a blur can add; stage 7 clamps the sum to 254 anyway.
const MAX_BLUR: f32 = 254.0;

/// Whether the blur adds nothing anywhere (radius ≤ 1 cell, strength ≤ 0, or either not a
/// number), so the caller can skip the distance transform.
#[must_use]
pub fn is_noop(radius_cells: f32, strength: f32) -> bool {
    radius_cells.is_nan() || radius_cells <= 1.0 || strength.is_nan() || strength <= 0.0
}

/// How far, in whole cells (Chebyshev), the blur can reach from a wall: the largest whole
/// number below `radius_cells` (`ceil(radius_cells) - 1`), since only cells strictly closer
/// than the radius get cost; 0 when it is a no-op. Saturates for huge radii.
#[must_use]
pub fn reach_cells(radius_cells: f32, strength: f32) -> u32 {
    if is_noop(radius_cells, strength) {
        0
    } else {
        (f64::from(radius_cells).ceil() as u32).saturating_sub(1)
    }
}

/// Cost added to each cell by the blur (see the module docs for the formula).
///
/// `sqdist` is the squared distance to the final walls from
/// [`super::distance::squared_distance_to_walls`]. A radius larger than the map just makes
/// the gradient shallower; with no walls at all (`sqdist` infinite) nothing is added.
#[must_use]
pub fn blur_cost(sqdist: &[f32], radius_cells: f32, strength: f32) -> Vec<u8> {
    if is_noop(radius_cells, strength) {
        return vec![0; sqdist.len()];
    }
    sqdist
        .par_iter()
        .with_min_len(4096)
        .map(|&d2| blur_at(d2, radius_cells, strength))
        .collect()
}

/// [`blur_cost`] of the distance transform of the `width × height` grid `walls`, in one pass
/// without the full-map distance grid.
#[must_use]
pub fn blur_walls(
    walls: &[bool],
    width: u32,
    height: u32,
    radius_cells: f32,
    strength: f32,
) -> Vec<u8> {
    if is_noop(radius_cells, strength) {
        return vec![0; walls.len()];
    }
    // Every distance from the cap up is a radius or more away: no blur.
    let cap = (radius_cells + 1.0) * (radius_cells + 1.0);
    map_squared_distance(walls, width, height, cap, |d2| {
        blur_at(d2, radius_cells, strength)
    })
}

/// The blur for one squared distance.
fn blur_at(d2: f32, radius_cells: f32, strength: f32) -> u8 {
    if d2 <= 0.0 {
        return 0;
    }
    let d = d2.sqrt();
    if d >= radius_cells {
        return 0;
    }
    (strength * (1.0 - d / radius_cells))
        .round()
        .clamp(0.0, MAX_BLUR) as u8
}
