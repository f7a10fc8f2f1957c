//! Where the map sits on screen: the [`ViewTransform`] between cell and screen
//! coordinates, fitting the map to the canvas and zooming about the cursor.

use egui::{Pos2, Rect, Vec2, vec2};

/// Flow arrows are drawn once cells are this wide: one per cell from
/// [`ARROW_SPACING_PX`] on, one per block of cells below it. `[Units: screen points per cell]`
pub const ARROW_MIN_PX_PER_CELL: f32 = 3.0;
/// The least distance between two flow arrows on screen. `[Units: screen points]`
pub const ARROW_SPACING_PX: f32 = 9.0;

/// Cells per flow arrow along each axis at `px_per_cell`: 1 when cells are wide enough for an
/// arrow each, else the block that keeps arrows [`ARROW_SPACING_PX`] apart.
#[must_use]
pub fn arrow_stride(px_per_cell: f32) -> u32 {
    (ARROW_SPACING_PX / px_per_cell.max(f32::EPSILON))
        .ceil()
        .max(1.0) as u32
}
/// Zoom limits. `[Units: screen points per cell]`
const MIN_PX_PER_CELL: f32 = 0.02;
const MAX_PX_PER_CELL: f32 = 64.0;

/// Where the map sits on screen: the offset of cell corner `(0, 0)` from the viewport's
/// top-left corner, and the zoom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewTransform {
    /// Screen offset of the map's top-left corner from the viewport's. `[Units: points]`
    pub offset: Vec2,
    /// Zoom. `[Units: screen points per cell]`
    pub px_per_cell: f32,
}

impl Default for ViewTransform {
    fn default() -> Self {
        Self {
            offset: Vec2::ZERO,
            px_per_cell: 1.0,
        }
    }
}

impl ViewTransform {
    /// Continuous cell coordinates under a screen point (cell `(x, y)` spans `x..x+1`).
    #[must_use]
    pub fn cell_from_screen(&self, viewport: Rect, screen: Pos2) -> (f32, f32) {
        let local = screen - viewport.min - self.offset;
        (local.x / self.px_per_cell, local.y / self.px_per_cell)
    }

    /// Screen point of continuous cell coordinates.
    #[must_use]
    pub fn screen_from_cell(&self, viewport: Rect, cell: (f32, f32)) -> Pos2 {
        viewport.min + self.offset + vec2(cell.0, cell.1) * self.px_per_cell
    }

    /// Fits a `width`×`height` map into the viewport with a small margin, centred.
    #[must_use]
    pub fn fit(viewport: Rect, width: u32, height: u32) -> Self {
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        let margin = 16.0;
        let avail = (viewport.size() - vec2(2.0 * margin, 2.0 * margin)).max(vec2(1.0, 1.0));
        let px_per_cell = (avail.x / w)
            .min(avail.y / h)
            .clamp(MIN_PX_PER_CELL, MAX_PX_PER_CELL);
        let offset = (viewport.size() - vec2(w, h) * px_per_cell) * 0.5;
        Self {
            offset,
            px_per_cell,
        }
    }

    /// Zooms by `factor`, keeping the cell under `screen` where it is.
    pub fn zoom_at(&mut self, viewport: Rect, screen: Pos2, factor: f32) {
        let anchor = self.cell_from_screen(viewport, screen);
        self.px_per_cell = (self.px_per_cell * factor).clamp(MIN_PX_PER_CELL, MAX_PX_PER_CELL);
        let moved = self.screen_from_cell(viewport, anchor);
        self.offset += screen - moved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::pos2;

    #[test]
    fn cell_and_screen_transforms_are_inverse() {
        let vp = Rect::from_min_size(pos2(100.0, 50.0), vec2(800.0, 600.0));
        let mut t = ViewTransform::fit(vp, 200, 100);
        assert!((t.px_per_cell - (768.0 / 200.0)).abs() < 1e-4);
        // The fitted map is centred.
        let c = t.screen_from_cell(vp, (100.0, 50.0));
        assert!((c - vp.center()).length() < 1e-3);
        t.zoom_at(vp, pos2(300.0, 200.0), 3.0);
        let cell = t.cell_from_screen(vp, pos2(300.0, 200.0));
        let back = t.screen_from_cell(vp, cell);
        assert!(
            (back - pos2(300.0, 200.0)).length() < 1e-3,
            "zoom keeps the cursor's cell"
        );
    }
}
