//! The spawn tool: drag a rectangle (or click) to spawn agents of the Crowd panel's
//! archetype; a right click orders them to a point.

use egui::Color32;

use super::agent_drag::{AgentDrag, cell_m, order_on_right_click};
use super::{Canvas, EditorTool, ToolCx};

/// The spawn tool and the box being dragged.
#[derive(Debug, Default)]
pub struct SpawnTool {
    drag: AgentDrag,
}

impl EditorTool for SpawnTool {
    fn name() -> &'static str {
        "Spawn"
    }

    fn shortcut() -> egui::Key {
        egui::Key::A
    }

    fn description() -> &'static str {
        "Drag a rectangle (or click) to spawn agents of the Crowd panel's archetype; right-click orders them to a point."
    }

    fn help() -> &'static [(&'static str, &'static str)] {
        &[("Right click", "order the agents (or everyone) there")]
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, _cx: &mut ToolCx<'_>) {
        ui.weak("Drag a rectangle (or click) to spawn agents; right-click orders them. Archetype, count and play controls are in the Crowd panel.");
    }

    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>) {
        let Some(cell_m) = cell_m(cx) else {
            return;
        };
        if let Some(b) = self.drag.update(canvas, cell_m) {
            if b.click {
                cx.crowd.spawn_rect(b.to, b.to);
            } else {
                cx.crowd.spawn_rect(b.min, b.max);
            }
        }
        order_on_right_click(canvas, cx, cell_m);
    }

    fn release(&mut self, _cx: &mut ToolCx<'_>) {
        self.drag.cancel();
    }

    fn owns_primary_drag(&self, _cx: &ToolCx<'_>) -> bool {
        true
    }

    fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, _cx: &ToolCx<'_>) {
        self.drag
            .draw(painter, canvas, Color32::from_rgb(120, 230, 120));
    }
}
