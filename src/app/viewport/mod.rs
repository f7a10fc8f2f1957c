//! The map canvas: pan (middle/right drag, or space + left drag), zoom to the cursor
//! (wheel), fit to the map (F / Home), overlays as nearest-neighbour textures, the sector
//! grid, stamp outlines; the active tool handles clicks and drags and draws over them.
//!
//! Split by concern: `camera` (the screen ↔ cell transform the tools use), `input`
//! (navigation, then the active tool's input) and `drawing` (what is painted, in order).

pub mod camera;
mod drawing;
mod input;

use egui::{Color32, Rect, Sense};

pub use camera::{ARROW_MIN_PX_PER_CELL, ARROW_SPACING_PX, ViewTransform, arrow_stride};

use super::overlays::OverlayTextures;
use super::tools::{Canvas, ToolCx, Tools};

/// The canvas's own state between frames.
#[derive(Debug)]
pub struct Viewport {
    /// The current transform.
    pub transform: ViewTransform,
    /// Fit the map on the next frame (new map, F, Home).
    pub fit_requested: bool,
    /// The canvas rectangle of the last frame.
    pub rect: Rect,
    /// The cell under the pointer.
    pub hover_cell: Option<(u32, u32)>,
    /// The flow arrows last sampled, so a still preview is not sampled again every frame.
    arrows: ArrowCache,
}

/// A rectangle of cells `(x0, y0, x1, y1)`, the ends excluded.
pub type CellSpan = (u32, u32, u32, u32);

/// A cell's flow arrow: the unit direction drawn, `None` for none (a wall, no flow).
pub type Arrow = Option<(f32, f32)>;

/// Flow directions of the visible cells, sampled from the goal preview.
#[derive(Debug, Default)]
struct ArrowCache {
    key: Option<ArrowKey>,
    /// Per cell of the key's span, row-major.
    dirs: Vec<Arrow>,
}

/// What arrows were sampled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ArrowKey {
    /// [`super::goal_preview::GoalPreview::arrows_version`].
    preview: u64,
    /// The editor's nav version and movement type, whose walls get no arrow.
    nav: (u64, usize),
    cells: CellSpan,
    /// Cells per arrow along each axis ([`camera::arrow_stride`]).
    stride: u32,
}

impl Default for Viewport {
    fn default() -> Self {
        Self {
            transform: ViewTransform::default(),
            fit_requested: true,
            rect: Rect::NOTHING,
            hover_cell: None,
            arrows: ArrowCache::default(),
        }
    }
}

impl Viewport {
    /// The flow arrows last sampled: the cell rectangle `(x0, y0, x1, y1)` and per cell,
    /// row-major, the direction drawn (`None`: a wall or no flow); `None` before any were
    /// drawn. Tests check them against [`super::goal_preview::GoalPreview::flow_at`].
    #[must_use]
    pub fn sampled_arrows(&self) -> Option<(CellSpan, u32, &[Arrow])> {
        let key = self.arrows.key?;
        Some((key.cells, key.stride, &self.arrows.dirs))
    }

    /// The cells in view when zoomed in enough for flow arrows (not clipped to the map);
    /// `None` otherwise.
    #[must_use]
    pub fn arrow_cells(&self) -> Option<crate::nav::CellRect> {
        if self.transform.px_per_cell < ARROW_MIN_PX_PER_CELL || !self.rect.is_positive() {
            return None;
        }
        let (x0, y0) = self.transform.cell_from_screen(self.rect, self.rect.min);
        let (x1, y1) = self.transform.cell_from_screen(self.rect, self.rect.max);
        if x1 < 0.0 || y1 < 0.0 {
            return None;
        }
        Some(crate::nav::CellRect {
            x0: x0.max(0.0) as u32,
            y0: y0.max(0.0) as u32,
            x1: (x1 as u32).saturating_add(1),
            y1: (y1 as u32).saturating_add(1),
        })
    }

    /// Draws the canvas and handles its input: navigation here, the rest by the active tool.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        tools: &mut Tools,
        cx: &mut ToolCx<'_>,
        textures: &OverlayTextures,
    ) {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.rect = rect;
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, Color32::from_rgb(18, 20, 24));
        let Some(map) = cx.state.map.as_ref() else {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "File > Open… a map (.ron) or a heightmap (.png), or drop one here",
                egui::FontId::proportional(16.0),
                Color32::from_gray(150),
            );
            self.hover_cell = None;
            return;
        };
        let (width, height) = (map.heightmap.width, map.heightmap.height);
        if self.fit_requested || self.transform.px_per_cell <= 0.0 {
            self.transform = ViewTransform::fit(rect, width, height);
            self.fit_requested = false;
        }
        self.input(ui, &response, tools, cx, (width, height));
        // After this frame's pan and zoom, so the tool draws where the pointer is.
        self.hover_cell = response.hover_pos().and_then(|p| {
            let (x, y) = self.transform.cell_from_screen(rect, p);
            (x >= 0.0 && y >= 0.0 && x < width as f32 && y < height as f32)
                .then_some((x as u32, y as u32))
        });
        let canvas = self.canvas(ui, &response, (width, height));
        self.draw(ui, &response, &canvas, tools, cx, textures);
    }

    /// The canvas as the tools see it this frame.
    fn canvas<'a>(
        &self,
        ui: &'a egui::Ui,
        response: &'a egui::Response,
        size: (u32, u32),
    ) -> Canvas<'a> {
        Canvas {
            ui,
            response,
            rect: self.rect,
            transform: self.transform,
            size,
            hover_cell: self.hover_cell,
        }
    }
}
