//! Bake stage 4 (shared by stages 5 and 6): the exact Euclidean distance transform to walls.
//!
//! Pipeline position, per movement type:
//! 1. slope → 2. terrain cost → 3. wall mask → **4. distance to walls** → 5. wall buffer →
//!    **distance to the buffered walls** → 6. wall blur → 7. paint and stamp costs.
//!
//! [`squared_distance_to_walls`] gives, for every cell, the squared Euclidean distance in
//! cells, centre to centre, to the nearest wall cell (0 on walls). It is the
//! Felzenszwalb–Huttenlocher algorithm: a 1-D pass down every column gives the vertical
//! distance to the nearest wall in the same column, then a 1-D lower envelope of parabolas
//! along every row finds the true nearest wall. Both passes are linear in cells, and run on
//! bands of rows in parallel when the caller caps the distances it tells apart (as the bake
//! does). Cells outside the map are not walls.
//!
//! The result is exact: every value is an integer `dx² + dy²`, stored as `f32`, which holds
//! integers exactly up to 2²⁴ (distances below 4096 cells — the whole range of a
//! 2048 × 2048 map).

use rayon::prelude::*;

/// Rows per band when distances are capped: enough bands at 2048² to keep both cores busy,
/// few enough that the rows a band reads above and below it stay a small share.
const BAND_ROWS: usize = 64;

/// "No wall in this column" for the vertical pass.
const NO_WALL: u32 = u32::MAX;

/// Squared Euclidean distance in cells (centre to centre) from every cell to the nearest
/// cell where `mask` is `true`; `0.0` on walls.
///
/// `mask` is row-major, `width * height` long. With no wall at all every cell is
/// `f32::INFINITY`. If `mask.len()` is not `width * height` (a caller bug) the result is
/// `mask.len()` cells of `0.0`, i.e. treated as all wall, instead of a panic.
#[must_use]
pub fn squared_distance_to_walls(mask: &[bool], width: u32, height: u32) -> Vec<f32> {
    map_squared_distance(mask, width, height, f32::INFINITY, |d2| d2)
}

/// `f` of every cell's squared distance to the nearest wall, for stages that only tell
/// distances below `cap` apart (the wall buffer and the blur): `f` gets the exact squared
/// distance where it is below `cap`, and some value at or above `cap` (maybe infinity)
/// elsewhere. Equal to mapping [`squared_distance_to_walls`] through `f` whenever `f` maps
/// every value from `cap` up alike, without its full-map `f32` grid, and the envelope
/// skips columns whose nearest wall is `cap` away or more (most of open terrain).
#[must_use]
pub fn map_squared_distance<T>(
    mask: &[bool],
    width: u32,
    height: u32,
    cap: f32,
    f: impl Fn(f32) -> T + Sync,
) -> Vec<T>
where
    T: Copy + Default + Send,
{
    let w = width as usize;
    let h = height as usize;
    if w.checked_mul(h) != Some(mask.len()) {
        return vec![f(0.0); mask.len()];
    }
    if mask.is_empty() {
        return Vec::new();
    }
    let cap = f64::from(cap);
    // A vertical distance above `reach` squares to `cap` or more, which the caller does not
    // tell apart, so a band of rows needs the walls no further than `reach` above or below
    // it: bands are solved alone, on all cores, each in a small buffer of its own instead
    // of one full-map grid (268 MB of fresh memory per call at 8192²). Without a cap, or
    // with one as tall as the map, the band is the whole map.
    let reach = if cap.is_finite() {
        (cap.sqrt().ceil() as usize).min(h)
    } else {
        h
    };
    // Bands at least eight reaches tall, so the rows read around them stay a quarter.
    let band_rows = if reach >= h {
        h
    } else {
        (8 * reach).max(BAND_ROWS)
    };
    let mut out = vec![T::default(); w * h];
    out.par_chunks_mut(band_rows * w).enumerate().for_each_init(
        || (Vec::new(), Envelope::with_capacity(w)),
        |(vertical, env), (band, out_rows)| {
            let y0 = band * band_rows;
            let y1 = y0 + out_rows.len() / w;
            // Pass 1, down and up the columns of the band's window.
            let (top, bottom) = (y0.saturating_sub(reach), (y1 + reach).min(h));
            vertical_distances(&mask[top * w..bottom * w], w, vertical);
            // Pass 2, along the rows: lower envelope of the parabolas (x - q)² + vertical(q)².
            // A parabola whose apex is at or above the cap gives no cell a distance below it.
            for (y, out_row) in (y0..y1).zip(out_rows.chunks_mut(w)) {
                let row = &vertical[(y - top) * w..(y - top + 1) * w];
                env.f.clear();
                env.f.extend(row.iter().map(|&d| {
                    let d2 = f64::from(d) * f64::from(d);
                    if d == NO_WALL || d2 >= cap {
                        f64::INFINITY
                    } else {
                        d2
                    }
                }));
                env.solve(out_row, &f);
            }
        },
    );
    out
}

/// Each cell's distance in rows to the nearest wall of `mask` (`w` wide) in its column,
/// [`NO_WALL`] for none, into `vertical` (row-major, as long as `mask`).
fn vertical_distances(mask: &[bool], w: usize, vertical: &mut Vec<u32>) {
    vertical.clear();
    vertical.resize(mask.len(), NO_WALL);
    let rows = mask.len() / w;
    for y in 0..rows {
        let (above, rest) = vertical.split_at_mut(y * w);
        let row = &mut rest[..w];
        let mask_row = &mask[y * w..(y + 1) * w];
        let prev = y.checked_sub(1).map(|p| &above[p * w..]);
        for i in 0..w {
            row[i] = if mask_row[i] {
                0
            } else {
                prev.map_or(NO_WALL, |p| p[i].saturating_add(1))
            };
        }
    }
    for y in (0..rows.saturating_sub(1)).rev() {
        let (upper, lower) = vertical.split_at_mut((y + 1) * w);
        let row = &mut upper[y * w..];
        for (d, &below) in row.iter_mut().zip(&lower[..w]) {
            *d = (*d).min(below.saturating_add(1));
        }
    }
}

/// Scratch buffers for one 1-D lower-envelope solve, reused across rows of one task.
struct Envelope {
    /// Sampled function: squared vertical distance per column, `INFINITY` for none.
    f: Vec<f64>,
    /// Columns whose parabolas form the envelope, left to right.
    v: Vec<usize>,
    /// `z[k]..z[k+1]` is where parabola `v[k]` is lowest.
    z: Vec<f64>,
}

impl Envelope {
    fn with_capacity(n: usize) -> Self {
        Self {
            f: Vec::with_capacity(n),
            v: Vec::with_capacity(n),
            z: Vec::with_capacity(n + 1),
        }
    }

    /// Writes `map(min_q (x - q)² + f[q])` for every `x` into `out` (same length as `f`).
    fn solve<T: Copy>(&mut self, out: &mut [T], map: &impl Fn(f32) -> T) {
        let f = &self.f;
        self.v.clear();
        self.z.clear();
        // Parabolas with an infinite apex never win anywhere, so they are left out; this
        // keeps the intersection arithmetic finite.
        for (q, &fq) in f.iter().enumerate() {
            if fq.is_infinite() {
                continue;
            }
            let qf = q as f64;
            if self.v.is_empty() {
                self.v.push(q);
                self.z.push(f64::NEG_INFINITY);
                self.z.push(f64::INFINITY);
                continue;
            }
            let mut s;
            loop {
                let k = self.v.len() - 1;
                let p = self.v[k];
                let pf = p as f64;
                s = ((fq + qf * qf) - (f[p] + pf * pf)) / (2.0 * (qf - pf));
                // z[0] is -inf, so the first parabola is never popped and `v` stays non-empty.
                if s <= self.z[k] {
                    self.v.pop();
                    self.z.pop();
                } else {
                    break;
                }
            }
            let k = self.v.len();
            self.v.push(q);
            self.z[k] = s;
            self.z.push(f64::INFINITY);
        }
        if self.v.is_empty() {
            out.fill(map(f32::INFINITY));
            return;
        }
        let mut k = 0;
        for (x, cell) in out.iter_mut().enumerate() {
            while self.z[k + 1] < x as f64 {
                k += 1;
            }
            let q = self.v[k];
            let dx = x.abs_diff(q) as u64;
            // f[q] is an exact integer below 2^53, so the sum is exact before the f32 rounding.
            *cell = map((dx * dx + f[q] as u64) as f32);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn single_wall_in_the_corner() {
        let mut mask = vec![false; 12];
        mask[0] = true;
        let d = squared_distance_to_walls(&mask, 4, 3);
        assert_eq!(d, vec![0., 1., 4., 9., 1., 2., 5., 10., 4., 5., 8., 13.]);
    }

    #[test]
    fn no_walls_is_infinite_and_empty_is_empty() {
        let d = squared_distance_to_walls(&[false; 6], 3, 2);
        assert!(d.iter().all(|v| v.is_infinite()));
        assert!(squared_distance_to_walls(&[], 0, 5).is_empty());
        assert_eq!(squared_distance_to_walls(&[false; 5], 2, 2), vec![0.0; 5]);
    }
}
