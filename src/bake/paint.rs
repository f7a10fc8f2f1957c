//! Bake stages 3 and 7: designer paint and placed stamps.
//!
//! Pipeline position: 1. slope → 2. terrain cost → **3. wall mask** → 4. distance to walls →
//! 5. wall buffer (then **force-clear again**) → 6. wall blur → **7. paint and stamp costs**.
//!
//! Stamps arrive already rotated and positioned as [`PlacedFootprint`]s (they may hang off
//! the map; off-map cells are ignored). Paint arrives as the cell grids of the layers that
//! target this movement type, in document order.
//!
//! # Stage 3, the wall mask ([`wall_mask`]) — per cell, later steps override earlier ones
//! 1. terrain: the cell is a wall if its base cost is [`WALL`];
//! 2. stamps, in placement order: a wall cell sets a wall; an opaque cost cell clears it (a
//!    bridge deck over water); a transparent cell keeps what was there;
//! 3. paint layers, in order: force-wall sets a wall, force-clear clears it.
//!
//! So paint beats stamps, a later stamp beats an earlier one, and a later paint layer beats
//! an earlier one.
//!
//! # After the wall buffer ([`apply_paint_forces`])
//! The paint forces are applied once more to the buffered walls, so a force-clear cell stays
//! passable even next to a wall (force-clear "removes terrain, buffer and stamp walls").
//! Stamp cost cells are not re-cleared: a bridge narrower than a large unit is a wall for it.
//!
//! # Stage 7, the final cost ([`apply_costs`]) — per cell
//! 1. a final wall (buffered mask after force-clear) is [`WALL`], and nothing below changes it;
//! 2. otherwise `base + blur + Σ paint deltas`, summed exactly and then clamped once to
//!    `1..=254` (so the order of layers never matters, adding never reaches a wall and
//!    removing never goes below 1). A cell whose base cost is a wall but that is not a final
//!    wall (force-cleared terrain wall) counts its base as 1;
//! 3. stamps, in placement order: an opaque cost cell replaces the cost with its own
//!    (clamped to `1..=254`), ignoring blur and paint deltas; a wall cell that paint cleared
//!    restores the rule-2 cost; a transparent cell keeps the cost. The last opaque stamp
//!    cell wins.

use rayon::prelude::*;

use crate::map::{PaintCell, PaintForce, StampCell};
use crate::nav::grid::{CLEAR, WALL};

use navstudio_nav::grid::CellRect;

/// A stamp's rotated footprint placed on the map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedFootprint {
    /// Map column of the footprint's top-left cell (may be negative or past the map).
    pub x: i32,
    /// Map row of the footprint's top-left cell (may be negative or past the map).
    pub y: i32,
    /// Footprint columns.
    pub width: u32,
    /// Footprint rows.
    pub height: u32,
    /// Row-major cells, `width * height` long; missing cells read as transparent.
    pub cells: Vec<StampCell>,
}

impl PlacedFootprint {
    /// The footprint's cells on a `map_width × map_height` map (empty if it lies off the map).
    #[must_use]
    pub fn map_rect(&self, map_width: u32, map_height: u32) -> CellRect {
        let x0 = i64::from(self.x).clamp(0, i64::from(map_width));
        let y0 = i64::from(self.y).clamp(0, i64::from(map_height));
        let x1 = (i64::from(self.x) + i64::from(self.width)).clamp(x0, i64::from(map_width));
        let y1 = (i64::from(self.y) + i64::from(self.height)).clamp(y0, i64::from(map_height));
        CellRect {
            x0: x0 as u32,
            y0: y0 as u32,
            x1: x1 as u32,
            y1: y1 as u32,
        }
    }

    /// Calls `visit(map_index, cell)` for every footprint cell on the map, row by row.
    pub fn for_each_on_map(
        &self,
        map_width: u32,
        map_height: u32,
        mut visit: impl FnMut(usize, StampCell),
    ) {
        let r = self.map_rect(map_width, map_height);
        for my in r.y0..r.y1 {
            let fy = (i64::from(my) - i64::from(self.y)) as usize;
            for mx in r.x0..r.x1 {
                let fx = (i64::from(mx) - i64::from(self.x)) as usize;
                let cell = self
                    .cells
                    .get(fy * self.width as usize + fx)
                    .copied()
                    .unwrap_or(StampCell::Transparent);
                visit(my as usize * map_width as usize + mx as usize, cell);
            }
        }
    }
}

/// `width * height`, or `None` if it overflows `usize`.
fn cell_count(width: u32, height: u32) -> Option<usize> {
    (width as usize).checked_mul(height as usize)
}

/// Stage 3: the wall mask (terrain walls, stamps, paint forces; see the module docs).
///
/// `base_cost` is stage 2's output, `width * height` long; paint layers of another length
/// are ignored. If `base_cost` has the wrong length (a caller bug) the result is
/// `base_cost.len()` walls.
#[must_use]
pub fn wall_mask(
    base_cost: &[u8],
    width: u32,
    height: u32,
    paint: &[&[PaintCell]],
    stamps: &[PlacedFootprint],
) -> Vec<bool> {
    if cell_count(width, height) != Some(base_cost.len()) {
        return vec![true; base_cost.len()];
    }
    let mut mask: Vec<bool> = base_cost
        .par_iter()
        .with_min_len(4096)
        .map(|&c| c == WALL)
        .collect();
    for stamp in stamps {
        stamp.for_each_on_map(width, height, |i, cell| match cell {
            StampCell::Wall => mask[i] = true,
            StampCell::Cost(_) => mask[i] = false,
            StampCell::Transparent => {}
        });
    }
    apply_paint_forces(&mut mask, width, height, paint);
    mask
}

/// Applies the paint layers' forces to `walls` in layer order: force-wall sets a wall,
/// force-clear clears it. Used by stage 3 and again right after the wall buffer.
///
/// Does nothing if `walls` is not `width * height` long; ignores layers of another length.
pub fn apply_paint_forces(walls: &mut [bool], width: u32, height: u32, paint: &[&[PaintCell]]) {
    let w = width as usize;
    if w == 0 || cell_count(width, height) != Some(walls.len()) {
        return;
    }
    let n = walls.len();
    let layers: Vec<&[PaintCell]> = paint.iter().copied().filter(|l| l.len() == n).collect();
    if layers.is_empty() {
        return;
    }
    walls.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for layer in &layers {
            for (wall, cell) in row.iter_mut().zip(&layer[y * w..(y + 1) * w]) {
                match cell.force {
                    PaintForce::Wall => *wall = true,
                    PaintForce::Clear => *wall = false,
                    PaintForce::None => {}
                }
            }
        }
    });
}

/// Stage 7: the final cost of every cell (see the module docs for the rules and their order).
///
/// `base` (stage 2), `final_walls` (buffered walls after force-clear) and `blur` (stage 6)
/// are `width * height` long; paint layers of another length are ignored. If the three
/// disagree with the map size (a caller bug) the result is `base.len()` walls.
#[must_use]
pub fn apply_costs(
    base: &[u8],
    final_walls: &[bool],
    blur: &[u8],
    width: u32,
    height: u32,
    paint: &[&[PaintCell]],
    stamps: &[PlacedFootprint],
) -> Vec<u8> {
    let n = base.len();
    if cell_count(width, height) != Some(n) || final_walls.len() != n || blur.len() != n {
        return vec![WALL; n];
    }
    if n == 0 {
        return Vec::new();
    }
    let w = width as usize;
    let layers: Vec<&[PaintCell]> = paint.iter().copied().filter(|l| l.len() == n).collect();
    // Every row is written below; zeroed, so the pages are first touched on all cores.
    let mut out = vec![0; n];
    out.par_chunks_mut(w).enumerate().for_each_init(
        || vec![0_i32; w],
        |deltas, (y, row)| {
            let span = y * w..(y + 1) * w;
            deltas.fill(0);
            for layer in &layers {
                for (acc, cell) in deltas.iter_mut().zip(&layer[span.clone()]) {
                    *acc += i32::from(cell.delta);
                }
            }
            let cells = row
                .iter_mut()
                .zip(&base[span.clone()])
                .zip(&final_walls[span.clone()])
                .zip(&blur[span])
                .zip(deltas.iter());
            for ((((o, &b), &wall), &bl), &d) in cells {
                *o = if wall { WALL } else { summed_cost(b, bl, d) };
            }
        },
    );
    for stamp in stamps {
        stamp.for_each_on_map(width, height, |i, cell| {
            if final_walls[i] {
                return;
            }
            match cell {
                StampCell::Cost(c) => out[i] = c.clamp(CLEAR, WALL - 1),
                StampCell::Wall => {
                    let d: i32 = layers.iter().map(|l| i32::from(l[i].delta)).sum();
                    out[i] = summed_cost(base[i], blur[i], d);
                }
                StampCell::Transparent => {}
            }
        });
    }
    out
}

/// Rule 2 of stage 7: `base + blur + delta` clamped once to `1..=254`, a wall base read as 1.
fn summed_cost(base: u8, blur: u8, delta: i32) -> u8 {
    let base = if base == WALL { CLEAR } else { base };
    (i32::from(base) + i32::from(blur) + delta).clamp(i32::from(CLEAR), i32::from(WALL - 1)) as u8
}
