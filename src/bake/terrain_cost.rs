//! Bake stage 2: slope + water + blocked cells → the base cost of one movement type.
//!
//! Pipeline position: 1. slope → **2. terrain cost** → 3. wall mask → 4. distance to walls →
//! 5. wall buffer → 6. wall blur → 7. paint and stamp costs.
//!
//! Per cell, the first rule that applies decides:
//! 1. blocked (Moving AI wall, heightmap void) → [`WALL`];
//! 2. water (`height01 · height_scale_m < water_level_m`) → [`WALL`] for
//!    [`WaterRule::Impassable`], the type's water cost (clamped to `1..=254`) for
//!    [`WaterRule::Cost`]. A water surface is flat, so the slope of the bed below it is
//!    ignored entirely: neither the curve nor `max_slope_deg` applies;
//! 3. slope above `max_slope_deg` (or not a number) → [`WALL`];
//! 4. otherwise the slope→cost curve ([`eval_curve`]), rounded to nearest and clamped to
//!    `1..=254`.

use rayon::prelude::*;

use crate::map::{MovementType, WaterRule};
use crate::nav::grid::{CLEAR, WALL};

/// The highest cost a passable cell can have.
const MAX_COST: u8 = WALL - 1;

/// Evaluates a slope→cost curve of `(slope_deg, cost)` points at `deg`.
///
/// Piecewise linear between points, held flat beyond the first and last point. The points
/// should be strictly increasing in degrees (the document validator checks); if two share a
/// degree value the later one's cost is used from there on rather than dividing by zero.
/// An empty curve is flat at 1.0; a NaN `deg` gives the first point's cost.
#[must_use]
pub fn eval_curve(points: &[(f32, f32)], deg: f32) -> f32 {
    let Some(&(first_deg, first_cost)) = points.first() else {
        return 1.0;
    };
    if deg.is_nan() || deg <= first_deg {
        return first_cost;
    }
    for pair in points.windows(2) {
        let ((d0, c0), (d1, c1)) = (pair[0], pair[1]);
        if deg <= d1 {
            let span = d1 - d0;
            if span <= 0.0 {
                return c1;
            }
            return c0 + (c1 - c0) * ((deg - d0) / span);
        }
    }
    points.last().map_or(1.0, |p| p.1)
}

/// Rounds a cost to the nearest integer in `1..=254`; NaN becomes 1.
fn clamp_cost(cost: f32) -> u8 {
    (cost.round().clamp(f32::from(CLEAR), f32::from(MAX_COST)) as u8).max(CLEAR)
}

/// Base cost of every cell for one movement type (see the module docs for the rules).
///
/// `slope_deg` and `height01` are row-major and equally long; `blocked` is either empty (no
/// cell blocked) or as long. Invalid input does not panic: if the lengths disagree the result
/// is `slope_deg.len()` wall cells.
#[must_use]
pub fn terrain_cost(
    slope_deg: &[f32],
    height01: &[f32],
    blocked: &[bool],
    height_scale_m: f32,
    water_level_m: f32,
    ty: &MovementType,
) -> Vec<u8> {
    let n = slope_deg.len();
    if height01.len() != n || !(blocked.is_empty() || blocked.len() == n) {
        return vec![WALL; n];
    }
    let water_cost = match ty.water {
        WaterRule::Impassable => WALL,
        WaterRule::Cost(c) => c.clamp(CLEAR, MAX_COST),
    };
    let curve = ty.slope_cost.as_slice();
    let max_slope = ty.max_slope_deg;
    let cell = |slope: f32, h01: f32, is_blocked: bool| -> u8 {
        if is_blocked {
            WALL
        } else if h01 * height_scale_m < water_level_m {
            water_cost
        } else if slope.is_nan() || slope > max_slope {
            WALL
        } else {
            clamp_cost(eval_curve(curve, slope))
        }
    };
    // Every cell is written below; zeroed, so the pages are first touched on all cores.
    let mut out = vec![0; n];
    // Row-sized chunks without needing the width: 4096 cells amortise the task overhead.
    const CHUNK: usize = 4096;
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, out_chunk)| {
            let start = c * CHUNK;
            let slopes = &slope_deg[start..start + out_chunk.len()];
            let heights = &height01[start..start + out_chunk.len()];
            if blocked.is_empty() {
                for ((o, &s), &h) in out_chunk.iter_mut().zip(slopes).zip(heights) {
                    *o = cell(s, h, false);
                }
            } else {
                let blocked = &blocked[start..start + out_chunk.len()];
                for (((o, &s), &h), &b) in
                    out_chunk.iter_mut().zip(slopes).zip(heights).zip(blocked)
                {
                    *o = cell(s, h, b);
                }
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_edges() {
        let c = [(0.0, 1.0), (10.0, 11.0), (20.0, 31.0)];
        assert_eq!(eval_curve(&c, -5.0), 1.0);
        assert_eq!(eval_curve(&c, 5.0), 6.0);
        assert_eq!(eval_curve(&c, 15.0), 21.0);
        assert_eq!(eval_curve(&c, 40.0), 31.0);
        assert_eq!(eval_curve(&c, f32::NAN), 1.0);
        assert_eq!(eval_curve(&[], 12.0), 1.0);
        assert_eq!(eval_curve(&[(30.0, 7.0)], 0.0), 7.0);
        assert_eq!(eval_curve(&[(30.0, 7.0)], 80.0), 7.0);
        assert_eq!(eval_curve(&[(0.0, 2.0), (5.0, 3.0), (5.0, 9.0)], 5.0), 3.0);
        assert_eq!(eval_curve(&[(0.0, 2.0), (5.0, 3.0), (5.0, 9.0)], 6.0), 9.0);
    }

    #[test]
    fn clamp_cost_rounds_and_clamps() {
        assert_eq!(clamp_cost(0.0), 1);
        assert_eq!(clamp_cost(2.5), 3);
        assert_eq!(clamp_cost(2.49), 2);
        assert_eq!(clamp_cost(300.0), 254);
        assert_eq!(clamp_cost(f32::NAN), 1);
        assert_eq!(clamp_cost(f32::INFINITY), 254);
    }
}
