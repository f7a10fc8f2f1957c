//! Bake stage 5: the wall buffer — walls grow outward by a large unit's radius, closing gaps
//! it cannot pass and pushing walls and hillsides away from where it would overlap them.
//!
//! Pipeline position: 1. slope → 2. terrain cost → 3. wall mask → 4. distance to walls →
//! **5. wall buffer** → 6. wall blur → 7. paint and stamp costs. Paint force-clear cells are
//! cleared again after this stage ([`super::paint::apply_paint_forces`]).
//!
//! The rule: a unit of radius `radius_cells` standing on a cell centre must not reach into a
//! wall cell. Measured along the line between centres, the wall cell's near edge is half a
//! cell closer than its centre, so a cell becomes a wall when its centre distance `d` to the
//! nearest wall satisfies
//!
//! ```text
//! d < radius_cells + 0.5        (strictly less)
//! ```
//!
//! Consequences a designer can predict (a gap is `g` passable cells between two walls in a
//! row; its middle cell is `ceil(g / 2)` from a wall):
//! - radius 0 or 0.5: nothing changes (a 1-cell gap fits a unit 1 cell wide);
//! - radius 1: 1- and 2-cell gaps close (their cells are 1 from a wall, and 1 < 1.5), a
//!   3-cell gap stays open (its middle cell is 2 away);
//! - radius 1.5: still only gaps up to 2 cells close (2 < 2.0 is false): cells sit on
//!   centres, so a 3-cell gap fits a unit 3 cells wide;
//! - radius 2: gaps up to 4 cells close.

use rayon::prelude::*;

use super::distance::map_squared_distance;

/// Whether a buffer of `radius_cells` leaves every wall mask unchanged (radius ≤ 0.5, or not
/// a number), so the caller can skip the distance transform.
#[must_use]
pub fn is_noop(radius_cells: f32) -> bool {
    radius_cells.is_nan() || radius_cells <= 0.5
}

/// How far, in whole cells (Chebyshev), the buffer can reach from a wall: the largest whole
/// number below `radius_cells + 0.5` (`ceil(radius_cells + 0.5) - 1`), since only cells
/// strictly closer than that turn into walls; 0 when it is a no-op. Saturates for huge radii.
#[must_use]
pub fn reach_cells(radius_cells: f32) -> u32 {
    if is_noop(radius_cells) {
        0
    } else {
        ((f64::from(radius_cells) + 0.5).ceil() as u32).saturating_sub(1)
    }
}

/// Grows the walls of `mask` by `radius_cells` (see the module docs for the exact rule).
///
/// `sqdist` is [`super::distance::squared_distance_to_walls`] of `mask`. A radius larger than
/// the map turns every cell into a wall if there is any wall, and changes nothing if there is
/// none. If the slices differ in length (a caller bug) the result is `mask` unchanged.
#[must_use]
pub fn dilate_walls(mask: &[bool], sqdist: &[f32], radius_cells: f32) -> Vec<bool> {
    if is_noop(radius_cells) || sqdist.len() != mask.len() {
        return mask.to_vec();
    }
    let threshold_sq = threshold_sq(radius_cells);
    mask.par_iter()
        .zip(sqdist.par_iter())
        .with_min_len(4096)
        .map(|(&wall, &d2)| wall || f64::from(d2) < threshold_sq)
        .collect()
}

/// [`dilate_walls`] of the `width × height` grid `mask` with its distance transform, in one
/// pass without the full-map distance grid (walls are at distance 0, below any threshold).
#[must_use]
pub fn buffer_walls(mask: &[bool], width: u32, height: u32, radius_cells: f32) -> Vec<bool> {
    if is_noop(radius_cells) {
        return mask.to_vec();
    }
    let threshold_sq = threshold_sq(radius_cells);
    // Every distance from the cap up stays a passable cell.
    let cap = (threshold_sq + 1.0) as f32;
    map_squared_distance(mask, width, height, cap, |d2| f64::from(d2) < threshold_sq)
}

/// Squared centre distance below which a cell becomes a wall.
fn threshold_sq(radius_cells: f32) -> f64 {
    let reach = f64::from(radius_cells) + 0.5;
    reach * reach
}
