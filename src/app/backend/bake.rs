//! The bake as the editor runs it: a full bake or a dirty rectangle, into per-type layers
//! (cost, walls, wall-buffer contribution, statistics) the overlays and panels read.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::bake::cost_layers::CostLayers;
use crate::bake::{self, BakeContext, BakeOptions, Baked};
use crate::map::{Heightmap, MapDocument, StampLibrary};
use crate::nav::grid::{CellRect, WALL};

/// Final cost of one movement type and its summary numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeLayers {
    /// The movement type's name.
    pub name: String,
    /// Final cost: 255 wall, 1..=254 cost.
    pub final_cost: Vec<u8>,
    /// Number of wall cells in `final_cost`.
    pub wall_count: usize,
    /// Mean cost of the passable cells.
    pub mean_cost: f32,
    /// Sum of the passable cells' costs (keeps `mean_cost` exact across rect rebakes).
    pub passable_cost_sum: u64,
    /// Why cells differ from the terrain: 255 = a wall only because of the large-unit wall
    /// buffer, 1..=254 = cost added by the wall blur, 0 = neither.
    pub contribution: Vec<u8>,
    /// The cost from slope and water before paint, stamps, buffer and blur (for the
    /// inspector); empty for a package opened read-only. Rect rebakes leave it: it depends
    /// on heights and type settings only, whose edits bake in full. Shared by the bake
    /// thread's copy and the window's.
    pub base_cost: Arc<Vec<u8>>,
}

/// Everything a bake hands back to the editor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BakeOutput {
    /// Slope per cell, shared with the bake thread's (`baked`). `[Units: degrees]`
    pub slope_deg: Arc<Vec<f32>>,
    /// Share of cells per whole degree of slope, 0..=89 (for the curve editor's histogram).
    pub slope_histogram: Vec<f32>,
    /// Per movement type, in document order.
    pub types: Vec<TypeLayers>,
    /// Each stage's name and duration, in order.
    pub timings: Vec<(String, Duration)>,
    /// Warnings of the last full bake.
    pub warnings: Vec<String>,
    /// The library's bake: intermediates (buffer, blur …) and the nav data.
    pub baked: Option<Baked>,
    /// The nav data of a full bake, shared with the bake thread's (`baked`), which a rect
    /// re-bake copies only if the UI still holds this one.
    pub shared_nav: Option<Arc<crate::nav::NavData>>,
}

impl BakeOutput {
    /// The editor window's part, taken out of the bake thread's: everything but the
    /// library's bake (`baked`: the intermediate grids of every type, gigabytes at 8192²,
    /// which only the bake thread re-bakes rectangles from), with the per-type final costs
    /// and contributions and the shared nav data moved rather than copied (the bake thread
    /// keeps only the statistics, and its patches come from `baked`).
    #[must_use]
    pub fn split_for_window(&mut self) -> Self {
        let types = self
            .types
            .iter_mut()
            .map(|t| TypeLayers {
                name: t.name.clone(),
                final_cost: std::mem::take(&mut t.final_cost),
                wall_count: t.wall_count,
                mean_cost: t.mean_cost,
                passable_cost_sum: t.passable_cost_sum,
                contribution: std::mem::take(&mut t.contribution),
                base_cost: Arc::clone(&t.base_cost),
            })
            .collect();
        Self {
            slope_deg: Arc::clone(&self.slope_deg),
            slope_histogram: self.slope_histogram.clone(),
            types,
            timings: self.timings.clone(),
            warnings: self.warnings.clone(),
            baked: None,
            // Moved too: the bake thread reads its own (`baked.nav`), and a reference kept
            // here would make its next rect rebake copy the nav data even once the window
            // let go of it.
            shared_nav: self.shared_nav.take(),
        }
    }
}

/// Progress of a running bake: the stage and its share done, `0.0..=1.0`.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeProgress {
    /// Stage name.
    pub stage: String,
    /// Fraction of the stage done.
    pub fraction: f32,
}

/// Why a bake produced nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BakeStopped {
    /// The user cancelled it.
    #[error("the bake was cancelled")]
    Cancelled,
    /// The library refused the document (one sentence saying what to change).
    #[error("the bake failed: {0}")]
    Failed(String),
}

fn stamps() -> StampLibrary {
    StampLibrary::builtin().unwrap_or_default()
}

/// Bakes every movement type of the document with the library (cost fields, portals,
/// islands, flow permutations).
///
/// # Errors
/// [`BakeStopped::Cancelled`] when `cancel` was set, [`BakeStopped::Failed`] when the
/// library refuses the document.
pub fn bake_full(
    document: &MapDocument,
    heightmap: &Heightmap,
    cancel: &Arc<AtomicBool>,
    progress: Box<dyn Fn(BakeProgress) + Send + Sync>,
) -> Result<BakeOutput, BakeStopped> {
    let mut ctx = BakeContext::new(
        Box::new(move |stage, fraction| {
            progress(BakeProgress {
                stage: stage.to_owned(),
                fraction,
            });
        }),
        Arc::clone(cancel),
    );
    let result = bake::bake(
        document,
        heightmap,
        &stamps(),
        &BakeOptions::default(),
        &mut ctx,
    );
    let baked = match result {
        Ok(b) => b,
        Err(bake::BakeError::Cancelled) => return Err(BakeStopped::Cancelled),
        Err(e) => return Err(BakeStopped::Failed(e.to_string())),
    };
    let types = baked
        .type_indices
        .iter()
        .zip(&baked.cost_layers)
        .map(|(&t, l)| type_stats(&document.movement_types[t].name, l))
        .collect();
    Ok(BakeOutput {
        slope_histogram: histogram(&baked.slope_deg),
        slope_deg: Arc::clone(&baked.slope_deg),
        types,
        timings: ctx
            .timings
            .iter()
            .map(|t| (t.stage.clone(), t.duration))
            .collect(),
        warnings: ctx.warnings.clone(),
        shared_nav: Some(Arc::clone(&baked.nav)),
        baked: Some(baked),
    })
}

/// Re-bakes after an edit inside `rect` with the library's incremental rebake (it grows the
/// rect by the buffer and blur reach and rebuilds only changed sectors). Returns the cells
/// whose costs can have changed: `rect` grown by the types' reach.
pub fn bake_rect(
    document: &MapDocument,
    heightmap: &Heightmap,
    previous: &mut BakeOutput,
    rect: CellRect,
) -> CellRect {
    let start = Instant::now();
    // Only cells within the types' reach of the edit can change: their old final costs give
    // the statistics' change (the bake thread's output may hold no grids of its own, see
    // `BakeOutput::split_for_window`), not a pass over the whole map (~100 ms on 2048²).
    let changed = grown_by_reach(document, rect, heightmap.width, heightmap.height);
    let Some(baked) = previous.baked.as_mut() else {
        return changed;
    };
    let dirty = bake::CellRect {
        x0: rect.x0,
        y0: rect.y0,
        x1: rect.x1,
        y1: rect.y1,
    };
    let old: Vec<Vec<u8>> = baked
        .cost_layers
        .iter()
        .map(|l| rect_cells(&l.final_cost, changed, heightmap.width))
        .collect();
    let mut ctx = BakeContext::default();
    if bake::rebake_rect(document, heightmap, &stamps(), baked, dirty, &mut ctx).is_err() {
        // A failed rect rebake leaves a partly updated layer: rebake everything instead.
        if let Ok(mut full) = bake_full(document, heightmap, &Arc::default(), Box::new(|_| {})) {
            // The window gets this bake through the patch; the grids it moves are dropped.
            drop(full.split_for_window());
            *previous = full;
        }
        return changed;
    }
    if previous.types.len() == baked.cost_layers.len() {
        for ((t, l), old) in previous.types.iter_mut().zip(&baked.cost_layers).zip(&old) {
            t.update_rect(l, old, changed, heightmap.width);
        }
    } else {
        previous.types = baked
            .type_indices
            .iter()
            .zip(&baked.cost_layers)
            .map(|(&t, l)| type_stats(&document.movement_types[t].name, l))
            .collect();
    }
    // The rebake copies the slope only if it changed (heights, which the editor never edits).
    if !Arc::ptr_eq(&previous.slope_deg, &baked.slope_deg) {
        previous.slope_deg = Arc::clone(&baked.slope_deg);
    }
    previous.timings = vec![("rebake rect".to_owned(), start.elapsed())];
    changed
}

/// `rect` grown by the largest reach of any movement type (how far a changed cell can
/// change final costs), clipped to the map.
#[must_use]
pub fn grown_by_reach(document: &MapDocument, rect: CellRect, width: u32, height: u32) -> CellRect {
    let reach = document
        .movement_types
        .iter()
        .map(|ty| crate::bake::cost_layers::reach_cells(ty, document.cell_size_m))
        .max()
        .unwrap_or(0);
    CellRect {
        x0: rect.x0.saturating_sub(reach).min(width),
        y0: rect.y0.saturating_sub(reach).min(height),
        x1: rect.x1.saturating_add(reach).min(width),
        y1: rect.y1.saturating_add(reach).min(height),
    }
}

/// What a cell adds to a type's contribution grid (see [`TypeLayers::contribution`]).
fn contribution_of(layers: &CostLayers, i: usize) -> u8 {
    let buffered = layers.buffered_walls.get(i).copied().unwrap_or(false)
        && !layers.wall_mask.get(i).copied().unwrap_or(false);
    if buffered {
        WALL
    } else {
        layers.blur.get(i).copied().unwrap_or(0).min(254)
    }
}

/// The cells of `rect` of a row-major grid `width` cells wide, row-major within the rect.
#[must_use]
pub fn rect_cells(grid: &[u8], rect: CellRect, width: u32) -> Vec<u8> {
    let mut cells = Vec::with_capacity(rect.area());
    for y in rect.y0..rect.y1 {
        let start = y as usize * width as usize + rect.x0 as usize;
        if let Some(row) = grid.get(start..start + rect.width() as usize) {
            cells.extend_from_slice(row);
        }
    }
    cells
}

/// [`TypeLayers::contribution`] of the cells of `rect`, row-major within the rect.
#[must_use]
pub fn rect_contributions(layers: &CostLayers, rect: CellRect, width: u32) -> Vec<u8> {
    (rect.y0..rect.y1)
        .flat_map(|y| (rect.x0..rect.x1).map(move |x| y as usize * width as usize + x as usize))
        .map(|i| contribution_of(layers, i))
        .collect()
}

impl TypeLayers {
    /// Updates the wall count and mean cost by what changed in `rect` (whose final costs
    /// were `old`, row-major within it) and, where this holds grids, copies the rect's cells
    /// from the re-baked layer.
    fn update_rect(&mut self, layers: &CostLayers, old: &[u8], rect: CellRect, width: u32) {
        let w = rect.width() as usize;
        for y in rect.y0..rect.y1 {
            for x in rect.x0..rect.x1 {
                let i = y as usize * width as usize + x as usize;
                let k = (y - rect.y0) as usize * w + (x - rect.x0) as usize;
                let (Some(&was), Some(&new)) = (old.get(k), layers.final_cost.get(i)) else {
                    continue;
                };
                if let Some(cost) = self.final_cost.get_mut(i) {
                    *cost = new;
                }
                for (cost, sign) in [(was, -1i64), (new, 1)] {
                    if cost == WALL {
                        self.wall_count = (self.wall_count as i64 + sign) as usize;
                    } else {
                        self.passable_cost_sum =
                            (self.passable_cost_sum as i64 + sign * i64::from(cost)) as u64;
                    }
                }
                if let Some(c) = self.contribution.get_mut(i) {
                    *c = contribution_of(layers, i);
                }
            }
        }
        let passable = layers.final_cost.len().saturating_sub(self.wall_count);
        self.mean_cost = if passable == 0 {
            0.0
        } else {
            self.passable_cost_sum as f32 / passable as f32
        };
    }
}

fn type_stats(name: &str, layers: &CostLayers) -> TypeLayers {
    let contribution = (0..layers.final_cost.len())
        .map(|i| contribution_of(layers, i))
        .collect();
    TypeLayers {
        base_cost: Arc::new(layers.base_cost.clone()),
        ..cost_stats(name, layers.final_cost.clone(), contribution)
    }
}

pub(super) fn cost_stats(name: &str, final_cost: Vec<u8>, contribution: Vec<u8>) -> TypeLayers {
    let wall_count = final_cost.iter().filter(|&&c| c == WALL).count();
    let (sum, n) = final_cost
        .iter()
        .filter(|&&c| c != WALL)
        .fold((0u64, 0u64), |(s, n), &c| (s + u64::from(c), n + 1));
    TypeLayers {
        name: name.to_owned(),
        final_cost,
        wall_count,
        mean_cost: if n == 0 { 0.0 } else { sum as f32 / n as f32 },
        passable_cost_sum: sum,
        contribution,
        base_cost: Arc::default(),
    }
}

fn histogram(slope_deg: &[f32]) -> Vec<f32> {
    let mut bins = vec![0.0f32; 90];
    for &s in slope_deg {
        bins[(s.max(0.0) as usize).min(89)] += 1.0;
    }
    let total = slope_deg.len().max(1) as f32;
    for b in &mut bins {
        *b /= total;
    }
    bins
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::app::backend::tests_support;
    use crate::map::{PaintCell, PaintForce, PaintLayer, PaintTarget};

    fn flat_doc(w: u32, h: u32) -> (MapDocument, Heightmap) {
        let hm = Heightmap {
            width: w,
            height: h,
            height01: vec![0.5; (w * h) as usize],
            blocked: Vec::new(),
        };
        (tests_support::doc(), hm)
    }

    #[test]
    fn rect_rebake_equals_full_bake_after_paint() {
        let (mut doc, hm) = flat_doc(20, 20);
        let never = Arc::new(AtomicBool::new(false));
        let mut prev = bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        let mut cells = vec![PaintCell::default(); 400];
        cells[5 * 20 + 7].force = PaintForce::Wall;
        cells[6 * 20 + 7].delta = 40;
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells,
        });
        bake_rect(
            &doc,
            &hm,
            &mut prev,
            CellRect {
                x0: 6,
                y0: 4,
                x1: 9,
                y1: 8,
            },
        );
        let full = bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        for (a, b) in prev.types.iter().zip(&full.types) {
            assert_eq!(a.final_cost, b.final_cost);
            // The rect update keeps the overlays' inputs and the statistics exact.
            assert_eq!(a.contribution, b.contribution, "{}", a.name);
            assert_eq!(a.wall_count, b.wall_count, "{}", a.name);
            assert_eq!(a.passable_cost_sum, b.passable_cost_sum, "{}", a.name);
            assert_eq!(a.mean_cost, b.mean_cost, "{}", a.name);
            assert_eq!(a.final_cost[5 * 20 + 7], WALL, "{}: force wall", a.name);
        }
        // land: flat ground (1) + 40 paint + the blur next to the painted wall.
        assert!(full.types[0].final_cost[6 * 20 + 7] >= 41);
    }

    #[test]
    fn contributions_mark_buffer_walls_and_blur() {
        let (mut doc, hm) = flat_doc(20, 20);
        let mut cells = vec![PaintCell::default(); 400];
        cells[10 * 20 + 10].force = PaintForce::Wall;
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells,
        });
        let never = Arc::new(AtomicBool::new(false));
        let out = bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        let (land, large) = (&out.types[0], &out.types[2]);
        let at = |x: usize, y: usize| y * 20 + x;
        // The painted wall itself is not the buffer's doing.
        assert_eq!(large.contribution[at(10, 10)], 0);
        // large: 1.5 m buffer → the 4-neighbours (edge distance 0.5 m) and diagonals
        // (edge distance 0 m, corner touching) become buffer walls; 3 cells away does not.
        assert_eq!(large.contribution[at(11, 10)], WALL);
        assert_eq!(large.final_cost[at(11, 10)], WALL);
        assert_ne!(large.contribution[at(13, 10)], WALL);
        // land: no buffer; blur (3 m, strength 6) next to the wall, none far away, and the
        // final cost is the flat cost plus exactly that blur.
        let next = land.contribution[at(11, 10)];
        assert!(next > 0 && next != WALL, "{next}");
        assert_eq!(land.final_cost[at(11, 10)], 1 + next);
        assert_eq!(land.contribution[at(18, 18)], 0);
    }

    #[test]
    fn cancelled_bake_returns_cancelled() {
        let (doc, hm) = flat_doc(8, 8);
        let cancel = Arc::new(AtomicBool::new(true));
        assert_eq!(
            bake_full(&doc, &hm, &cancel, Box::new(|_| {})),
            Err(BakeStopped::Cancelled)
        );
    }
}
