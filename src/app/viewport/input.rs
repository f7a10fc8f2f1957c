//! The canvas's input: pan and zoom here; a click or drag goes to the active tool
//! (`app/tools/`), and the other tools end any gesture they had.

use super::Viewport;
use crate::app::tools::{Tool, ToolCx, Tools};

impl Viewport {
    /// Handles this frame's input on the canvas (`response`) for a map of `size` cells.
    pub(super) fn input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        tools: &mut Tools,
        cx: &mut ToolCx<'_>,
        size: (u32, u32),
    ) {
        let rect = self.rect;
        // Space + drag pans with any tool: the tools get no input meanwhile.
        let space = ui.input(|i| i.key_down(egui::Key::Space));
        let active = tools.active();
        for tool in Tool::ALL {
            if tool != active || space {
                tools.get_mut(tool).release(cx);
            }
        }
        if !space {
            let canvas = self.canvas(ui, response, size);
            tools.get_mut(active).input(&canvas, cx);
        }
        let pan_drag = response.dragged_by(egui::PointerButton::Middle)
            || response.dragged_by(egui::PointerButton::Secondary)
            || (response.dragged_by(egui::PointerButton::Primary)
                && (space || !tools.get(active).owns_primary_drag(cx)));
        if pan_drag {
            self.transform.offset += response.drag_delta();
        }
        if let Some(hover) = response.hover_pos() {
            let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
            // About 25 % per wheel notch, as Tiled and LDtk zoom (13 % was too slow to cross a map).
            let factor = (scroll * 0.0028).exp() * zoom;
            if (factor - 1.0).abs() > 1e-4 {
                self.transform.zoom_at(rect, hover, factor);
            }
        }
    }
}
