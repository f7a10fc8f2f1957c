//! Stages 2–7 for one movement type in one call, keeping every intermediate grid for the
//! editor's overlays, and the same stages re-run on a dirty rectangle.
//!
//! The order (each stage in its own module):
//! 1. [`super::slope`] — heights → slope (shared by all types; an input here);
//! 2. [`super::terrain_cost`] — slope, water, blocked → base cost;
//! 3. [`super::paint::wall_mask`] — terrain walls, stamp walls/clears, paint forces;
//! 4. [`super::distance`] — exact distance to the wall mask;
//! 5. [`super::wall_buffer`] — walls grow by the type's buffer, then paint forces again
//!    ([`super::paint::apply_paint_forces`]) so force-clear beats the buffer;
//! 6. [`super::distance`] to those final walls, then [`super::wall_blur`] — cost near walls;
//! 7. [`super::paint::apply_costs`] — base + blur + paint deltas, then stamp costs; clamp.
//!
//! # Incremental rebake
//! Every stage is per cell except the two distance-based ones, and those only look as far
//! as the buffer reach `ceil(buffer_cells + 0.5) - 1` and the blur reach
//! `ceil(blur_cells) - 1` (both strict: only cells closer than the radius are touched).
//! So an input change at a cell can change outputs no further than
//! `R = buffer reach + blur reach` cells away (Chebyshev), and the outputs of a cell depend
//! on inputs no further than `R` away. [`rebake_rect`] therefore takes the dirty rectangle,
//! grows it by `R` (the cells that may change), grows that by `R` again (every input those
//! cells read), runs the stages on that cropped window and copies the inner part back.
//! Cells outside the window count as "not a wall" inside it, so the window sees a subset of
//! the true walls; any wall that matters to an inner cell lies inside the window, so the
//! inner results are exactly the full bake's.
//!
//! [`reach_cells`] adds one cell for the slope stencil, so it answers "how far from an
//! edited height, paint or stamp cell can the final cost change" — what the orchestrator
//! needs to pick dirty sectors.

use thiserror::Error;

use crate::map::{MovementType, PaintCell, PaintLayer};

use super::paint::{PlacedFootprint, apply_costs, apply_paint_forces, wall_mask};
use super::terrain_cost::terrain_cost;
use super::{pockets, wall_blur, wall_buffer};
pub use navstudio_nav::grid::CellRect;

/// Everything stages 2–7 read for one movement type. All grids are row-major over the map.
#[derive(Clone, Debug)]
pub struct CostInputs<'a> {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Width and depth of one cell. `[Units: m] [Limit: > 0]`
    pub cell_size_m: f32,
    /// Height of a `height01` of 1.0. `[Units: m]`
    pub height_scale_m: f32,
    /// Cells below this height, measured from the black sample, are water
    /// ([`MapDocument::water_above_black_m`](crate::map::MapDocument::water_above_black_m)).
    /// `[Units: m]`
    pub water_level_m: f32,
    /// Heights in `0.0..=1.0`, `width * height` long.
    pub height01: &'a [f32],
    /// Cells blocked for every type; empty when none is.
    pub blocked: &'a [bool],
    /// Stage 1's slope per cell. `[Units: degrees]`
    pub slope_deg: &'a [f32],
    /// The paint layers that target this movement type, in document order.
    pub paint: Vec<&'a PaintLayer>,
    /// Rotated, placed stamp footprints, in placement order.
    pub stamps: &'a [PlacedFootprint],
}

/// The intermediate and final grids of one movement type, each row-major over the map (or
/// over the rectangle a window bake covers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CostLayers {
    /// Stage 2: terrain cost (255 = slope, water or blocked wall).
    pub base_cost: Vec<u8>,
    /// Stage 3: terrain walls with stamps and paint forces applied.
    pub wall_mask: Vec<bool>,
    /// Stage 5: the wall mask grown by the buffer, with paint forces applied again — the
    /// final walls.
    pub buffered_walls: Vec<bool>,
    /// Stage 6: cost added near the final walls.
    pub blur: Vec<u8>,
    /// Stage 7: the final cost field (255 wall, 1..=254 cost).
    pub final_cost: Vec<u8>,
}

/// Inputs that do not fit together; found by [`CostInputs::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CostInputError {
    /// `width * height` does not fit in memory addressing.
    #[error(
        "the map is {width} × {height} cells, more than this computer can address; use a smaller heightmap"
    )]
    TooLarge {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// A per-cell grid has the wrong number of cells.
    #[error(
        "the {grid} grid has {actual} cells but the map has {expected}; reload the heightmap so every grid matches its size"
    )]
    GridLength {
        /// Which grid (`heights`, `blocked`, `slope`).
        grid: &'static str,
        /// Cells held.
        actual: usize,
        /// `width * height`.
        expected: usize,
    },
    /// A paint layer has the wrong number of cells.
    #[error(
        "paint layer {index} ('{file}') has {actual} cells but the map has {expected}; resize or repaint that layer file to match the heightmap"
    )]
    PaintLength {
        /// Position in [`CostInputs::paint`].
        index: usize,
        /// The layer's side file.
        file: String,
        /// Cells held.
        actual: usize,
        /// `width * height`.
        expected: usize,
    },
    /// A stamp footprint's cells do not match its size.
    #[error(
        "stamp footprint {index} is {width} × {height} but holds {actual} cells; rebuild it from the stamp library"
    )]
    FootprintLength {
        /// Position in [`CostInputs::stamps`].
        index: usize,
        /// Footprint columns.
        width: u32,
        /// Footprint rows.
        height: u32,
        /// Cells held.
        actual: usize,
    },
}

impl CostInputs<'_> {
    /// Checks that every grid, paint layer and footprint has the right number of cells.
    ///
    /// # Errors
    /// The first mismatch found, as a [`CostInputError`].
    pub fn validate(&self) -> Result<(), CostInputError> {
        let expected = (self.width as usize)
            .checked_mul(self.height as usize)
            .ok_or(CostInputError::TooLarge {
                width: self.width,
                height: self.height,
            })?;
        let grid = |grid: &'static str, actual: usize| {
            if actual == expected {
                Ok(())
            } else {
                Err(CostInputError::GridLength {
                    grid,
                    actual,
                    expected,
                })
            }
        };
        grid("heights", self.height01.len())?;
        grid("slope", self.slope_deg.len())?;
        if !self.blocked.is_empty() {
            grid("blocked", self.blocked.len())?;
        }
        for (index, layer) in self.paint.iter().enumerate() {
            if layer.cells.len() != expected {
                return Err(CostInputError::PaintLength {
                    index,
                    file: layer.file.clone(),
                    actual: layer.cells.len(),
                    expected,
                });
            }
        }
        for (index, fp) in self.stamps.iter().enumerate() {
            if Some(fp.cells.len()) != (fp.width as usize).checked_mul(fp.height as usize) {
                return Err(CostInputError::FootprintLength {
                    index,
                    width: fp.width,
                    height: fp.height,
                    actual: fp.cells.len(),
                });
            }
        }
        Ok(())
    }
}

/// Metres to cells; an invalid cell size (not a finite number above 0, which the document
/// validator rejects) gives 0, turning the buffer and blur off rather than the whole map
/// into walls.
fn cells_from_m(length_m: f32, cell_size_m: f32) -> f32 {
    if cell_size_m.is_finite() && cell_size_m > 0.0 {
        length_m / cell_size_m
    } else {
        0.0
    }
}

/// A movement type's wall buffer in cells.
fn buffer_cells(ty: &MovementType, cell_size_m: f32) -> f32 {
    cells_from_m(ty.wall_buffer_m, cell_size_m)
}

/// A movement type's blur radius in cells.
fn blur_cells(ty: &MovementType, cell_size_m: f32) -> f32 {
    cells_from_m(ty.blur_radius_m, cell_size_m)
}

/// How far stages 3–7 carry a change: buffer reach + pocket reach + blur reach, in cells
/// (Chebyshev).
fn stage_reach_cells(ty: &MovementType, cell_size_m: f32) -> u32 {
    wall_buffer::reach_cells(buffer_cells(ty, cell_size_m))
        .saturating_add(pockets::reach_cells(ty.min_island_cells))
        .saturating_add(wall_blur::reach_cells(
            blur_cells(ty, cell_size_m),
            ty.blur_strength,
        ))
}

/// How far (cells, Chebyshev) from an edited height, paint or stamp cell the final cost of
/// `ty` can change: buffer `(ceil(buffer_cells + 0.5) - 1)`, plus pockets `min_island_cells`,
/// plus blur `(ceil(blur_cells) - 1)`, plus 1 for the slope stencil; a term is 0 when its
/// stage is a no-op. Saturates for absurd radii. The incremental tests check that one cell
/// less is not enough.
#[must_use]
pub fn reach_cells(ty: &MovementType, cell_size_m: f32) -> u32 {
    stage_reach_cells(ty, cell_size_m).saturating_add(1)
}

/// Runs stages 2–7 for one movement type over the whole map, keeping every intermediate.
///
/// # Errors
/// [`CostInputError`] if a grid, paint layer or footprint does not match its size.
pub fn bake_cost_field(
    input: &CostInputs<'_>,
    ty: &MovementType,
) -> Result<CostLayers, CostInputError> {
    input.validate()?;
    let paint: Vec<&[PaintCell]> = input.paint.iter().map(|l| l.cells.as_slice()).collect();
    Ok(run_stages(
        &Window {
            width: input.width,
            height: input.height,
            open_edges: [false; 4],
            height01: input.height01,
            blocked: input.blocked,
            slope_deg: input.slope_deg,
            paint: &paint,
            stamps: input.stamps,
        },
        input,
        ty,
    ))
}

/// The grids of the rectangle the stages run on (the whole map or a cropped window).
struct Window<'a> {
    width: u32,
    height: u32,
    /// Edges cut from a larger map (left, top, right, bottom): regions reaching them may go on.
    open_edges: pockets::OpenEdges,
    height01: &'a [f32],
    blocked: &'a [bool],
    slope_deg: &'a [f32],
    paint: &'a [&'a [PaintCell]],
    stamps: &'a [PlacedFootprint],
}

fn run_stages(win: &Window<'_>, input: &CostInputs<'_>, ty: &MovementType) -> CostLayers {
    let (w, h) = (win.width, win.height);
    let base_cost = terrain_cost(
        win.slope_deg,
        win.height01,
        win.blocked,
        input.height_scale_m,
        input.water_level_m,
        ty,
    );
    let wall_mask = wall_mask(&base_cost, w, h, win.paint, win.stamps);

    let buffer = buffer_cells(ty, input.cell_size_m);
    let mut buffered_walls = wall_buffer::buffer_walls(&wall_mask, w, h, buffer);
    apply_paint_forces(&mut buffered_walls, w, h, win.paint);
    pockets::wall_in_pockets(
        &mut buffered_walls,
        w,
        h,
        ty.min_island_cells,
        win.open_edges,
    );

    let blur_radius = blur_cells(ty, input.cell_size_m);
    let blur = wall_blur::blur_walls(&buffered_walls, w, h, blur_radius, ty.blur_strength);

    let final_cost = apply_costs(
        &base_cost,
        &buffered_walls,
        &blur,
        w,
        h,
        win.paint,
        win.stamps,
    );
    CostLayers {
        base_cost,
        wall_mask,
        buffered_walls,
        blur,
        final_cost,
    }
}

/// Copies the cells of `rect` (map coordinates, inside the window) out of a window-sized grid.
fn crop<T: Copy>(src: &[T], src_width: u32, rect: CellRect) -> Vec<T> {
    let sw = src_width as usize;
    let mut out = Vec::with_capacity(rect.width() as usize * rect.height() as usize);
    for y in rect.y0..rect.y1 {
        let start = y as usize * sw + rect.x0 as usize;
        out.extend_from_slice(&src[start..start + rect.width() as usize]);
    }
    out
}

/// Writes the cells of `rect` (map coordinates) from a grid covering `window` into a
/// map-sized grid.
fn paste<T: Copy>(dst: &mut [T], map_width: u32, src: &[T], window: CellRect, rect: CellRect) {
    let (mw, ww) = (map_width as usize, window.width() as usize);
    let len = rect.width() as usize;
    for y in rect.y0..rect.y1 {
        let d = y as usize * mw + rect.x0 as usize;
        let s = (y - window.y0) as usize * ww + (rect.x0 - window.x0) as usize;
        dst[d..d + len].copy_from_slice(&src[s..s + len]);
    }
}

/// The part of a footprint inside `window`, re-based to the window's origin.
fn crop_footprint(
    fp: &PlacedFootprint,
    map_width: u32,
    map_height: u32,
    window: CellRect,
) -> Option<PlacedFootprint> {
    let r = fp.map_rect(map_width, map_height).intersect(&window);
    if r.is_empty() {
        return None;
    }
    let mut cells = Vec::with_capacity(r.width() as usize * r.height() as usize);
    for y in r.y0..r.y1 {
        let fy = (i64::from(y) - i64::from(fp.y)) as usize;
        let fx = (i64::from(r.x0) - i64::from(fp.x)) as usize;
        let start = fy * fp.width as usize + fx;
        cells.extend_from_slice(&fp.cells[start..start + r.width() as usize]);
    }
    Some(PlacedFootprint {
        x: (r.x0 - window.x0) as i32,
        y: (r.y0 - window.y0) as i32,
        width: r.width(),
        height: r.height(),
        cells,
    })
}

/// Re-runs stages 2–7 for the cells a change inside `dirty` can affect, updating `layers`
/// (a previous [`bake_cost_field`] of the same map) in place. Afterwards `layers` equals a
/// full [`bake_cost_field`] of `input`.
///
/// `dirty` must cover every cell whose height, blocked flag, slope, paint or stamp cell
/// changed. A height edit over rectangle `H` changes the slope over `H.expand(1)`: update
/// the slope there ([`super::slope::slope_deg_rect`]) and pass that as `dirty`. If `layers`
/// does not match the map size it is replaced by a full bake.
///
/// # Errors
/// [`CostInputError`] if a grid, paint layer or footprint does not match its size; `layers`
/// is then left unchanged.
pub fn rebake_rect(
    input: &CostInputs<'_>,
    ty: &MovementType,
    layers: &mut CostLayers,
    dirty: CellRect,
) -> Result<(), CostInputError> {
    input.validate()?;
    let (w, h) = (input.width, input.height);
    let n = w as usize * h as usize;
    let sized = [
        layers.base_cost.len(),
        layers.wall_mask.len(),
        layers.buffered_walls.len(),
        layers.blur.len(),
        layers.final_cost.len(),
    ]
    .iter()
    .all(|&len| len == n);
    if !sized {
        *layers = bake_cost_field(input, ty)?;
        return Ok(());
    }
    let reach = stage_reach_cells(ty, input.cell_size_m);
    let affected = dirty.clip(w, h).expand(reach).clip(w, h);
    if affected.is_empty() {
        return Ok(());
    }
    let window = affected.expand(reach).clip(w, h);

    let height01 = crop(input.height01, w, window);
    let slope_deg = crop(input.slope_deg, w, window);
    let blocked = if input.blocked.is_empty() {
        Vec::new()
    } else {
        crop(input.blocked, w, window)
    };
    let paint_cells: Vec<Vec<PaintCell>> = input
        .paint
        .iter()
        .map(|l| crop(&l.cells, w, window))
        .collect();
    let paint: Vec<&[PaintCell]> = paint_cells.iter().map(Vec::as_slice).collect();
    let stamps: Vec<PlacedFootprint> = input
        .stamps
        .iter()
        .filter_map(|fp| crop_footprint(fp, w, h, window))
        .collect();

    let local = run_stages(
        &Window {
            width: window.width(),
            height: window.height(),
            open_edges: [window.x0 > 0, window.y0 > 0, window.x1 < w, window.y1 < h],
            height01: &height01,
            blocked: &blocked,
            slope_deg: &slope_deg,
            paint: &paint,
            stamps: &stamps,
        },
        input,
        ty,
    );
    paste(&mut layers.base_cost, w, &local.base_cost, window, affected);
    paste(&mut layers.wall_mask, w, &local.wall_mask, window, affected);
    paste(
        &mut layers.buffered_walls,
        w,
        &local.buffered_walls,
        window,
        affected,
    );
    paste(&mut layers.blur, w, &local.blur, window, affected);
    paste(
        &mut layers.final_cost,
        w,
        &local.final_cost,
        window,
        affected,
    );
    Ok(())
}
