//! Bake stage 1: heights → slope in degrees per cell.
//!
//! Pipeline position: **1. slope** → 2. terrain cost → 3. wall mask → 4. distance to walls →
//! 5. wall buffer → 6. wall blur → 7. paint and stamp costs. Slope is the only stage shared
//! by every movement type; the rest run once per type.
//!
//! The gradient uses central differences, `(h[x+1] - h[x-1]) / (2 · cell_size_m)`, and
//! one-sided differences at the map edges, `(h[1] - h[0]) / cell_size_m`; a map one cell
//! wide has no gradient along that axis. Slope = `atan(|∇h|)` in degrees, so a plane has the
//! same slope everywhere, edges included. Heights are `height01 · height_scale_m` metres.
//!
//! Because each cell reads its 4 neighbours, a height edit over a rectangle changes the slope
//! over that rectangle grown by one cell; [`slope_deg_rect`] recomputes just such a window.

use rayon::prelude::*;

use navstudio_nav::grid::CellRect;

/// Slope in degrees (`0.0..=90.0`) per cell of a row-major height grid.
///
/// `height01` holds `width * height` heights in `0.0..=1.0` (any finite value works); metres
/// are `height01 · height_scale_m`. Invalid input does not panic: if `cell_size_m` is not a
/// finite number above 0, or a height is not finite, the affected cells get 90°, so every
/// type with `max_slope_deg < 90` sees a wall; if `height01.len()` is not `width * height`
/// every cell is 90°.
#[must_use]
pub fn slope_deg(
    height01: &[f32],
    width: u32,
    height: u32,
    cell_size_m: f32,
    height_scale_m: f32,
) -> Vec<f32> {
    slope_deg_rect(
        height01,
        width,
        height,
        cell_size_m,
        height_scale_m,
        CellRect::full(width, height),
    )
}

/// Slope in degrees for the cells of `rect` only (clipped to the map), row-major over the
/// clipped rectangle; values equal [`slope_deg`] at the same cells, since the neighbours
/// outside `rect` are read from the full grid.
///
/// Invalid input behaves as in [`slope_deg`]; a mismatched `height01` length gives 90° for
/// every cell of the clipped rectangle.
#[must_use]
pub fn slope_deg_rect(
    height01: &[f32],
    width: u32,
    height: u32,
    cell_size_m: f32,
    height_scale_m: f32,
    rect: CellRect,
) -> Vec<f32> {
    let rect = rect.clip(width, height);
    let rw = rect.width() as usize;
    let rh = rect.height() as usize;
    let w = width as usize;
    let h = height as usize;
    if w.checked_mul(h) != Some(height01.len()) {
        let n = if w.checked_mul(h).is_some() {
            rw * rh
        } else {
            height01.len()
        };
        return vec![90.0; n];
    }
    if rw * rh == 0 || !(cell_size_m.is_finite() && cell_size_m > 0.0) {
        return vec![90.0; rw * rh];
    }
    // Zeroed, so the pages are first touched by the parallel pass below, not by one thread.
    let mut out = vec![0.0; rw * rh];
    // Multipliers turning a height01 difference into a gradient in m/m: central differences
    // span two cells, one-sided ones one.
    let k_one = f64::from(height_scale_m) / f64::from(cell_size_m);
    let k_two = k_one * 0.5;
    let (x0, y0) = (rect.x0 as usize, rect.y0 as usize);
    out.par_chunks_mut(rw)
        .enumerate()
        .for_each(|(row, out_row)| {
            let y = y0 + row;
            let (ya, yb, ky) = neighbours(y, h, k_one, k_two);
            let here = &height01[y * w..(y + 1) * w];
            let up = &height01[ya * w..(ya + 1) * w];
            let down = &height01[yb * w..(yb + 1) * w];
            for (i, cell) in out_row.iter_mut().enumerate() {
                let x = x0 + i;
                let (xa, xb, kx) = neighbours(x, w, k_one, k_two);
                let gx = (f64::from(here[xb]) - f64::from(here[xa])) * kx;
                let gy = (f64::from(down[x]) - f64::from(up[x])) * ky;
                let deg = (gx * gx + gy * gy).sqrt().atan().to_degrees();
                // NaN comes from non-finite heights or scales; treat it as a cliff.
                *cell = if deg.is_nan() { 90.0 } else { deg as f32 };
            }
        });
    out
}

/// The two samples a difference at `i` reads along an axis of `n` cells, and the multiplier
/// for their difference (0 when the axis is one cell long).
fn neighbours(i: usize, n: usize, k_one: f64, k_two: f64) -> (usize, usize, f64) {
    let a = i.saturating_sub(1);
    let b = (i + 1).min(n - 1);
    let k = match b - a {
        2 => k_two,
        1 => k_one,
        _ => 0.0,
    };
    (a, b, k)
}
