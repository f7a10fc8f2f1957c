//! The command tool (RTS style): drag a box or click to select agents; a right click
//! orders the selection (everyone when none is selected) to a point, or follows the agent
//! clicked; Shift+drag draws the crowd's gate line, which counts agents passing it.

use egui::{Color32, Pos2, Stroke as LineStroke, vec2};

use super::agent_drag::{AgentDrag, cell_m, order_on_right_click};
use super::{Canvas, EditorTool, ToolCx};

/// Colour of the crowd's gate line (as the viewport draws a finished gate).
pub const GATE_COLOUR: Color32 = Color32::from_rgb(255, 150, 40);

/// The command tool and the box (or gate line) being dragged.
#[derive(Debug, Default)]
pub struct CommandTool {
    drag: AgentDrag,
    /// The drag draws the gate line (Shift was held when it started).
    gate: bool,
}

impl EditorTool for CommandTool {
    fn name() -> &'static str {
        "Command"
    }

    fn shortcut() -> egui::Key {
        egui::Key::C
    }

    fn description() -> &'static str {
        "Drag a box or click to select agents; right-click orders the selection (or everyone) to a point."
    }

    fn help() -> &'static [(&'static str, &'static str)] {
        &[
            ("Right click", "order the selection (or everyone) there"),
            ("Shift+drag", "draw a gate line that counts agents through it"),
            ("Esc", "deselect"),
        ]
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, _cx: &mut ToolCx<'_>) {
        ui.weak("Drag a box or click to select agents; right-click orders the selection (everyone when none is selected). Shift+drag draws a gate line. Esc deselects.");
    }

    fn keys(&mut self, input: &mut egui::InputState, cx: &mut ToolCx<'_>) {
        let esc = egui::KeyboardShortcut::new(egui::Modifiers::NONE, egui::Key::Escape);
        if input.consume_shortcut(&esc) {
            cx.crowd.selection.clear();
        }
    }

    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>) {
        let Some(cell_m) = cell_m(cx) else {
            return;
        };
        let response = canvas.response;
        if response.drag_started_by(egui::PointerButton::Primary) {
            self.gate = response.ctx.input(|i| i.modifiers.shift);
        }
        if let Some(b) = self.drag.update(canvas, cell_m) {
            if std::mem::take(&mut self.gate) {
                cx.crowd.set_gate(b.from, b.to);
            } else {
                cx.crowd.select_rect(b.min, b.max);
            }
        }
        order_on_right_click(canvas, cx, cell_m);
    }

    fn release(&mut self, _cx: &mut ToolCx<'_>) {
        self.drag.cancel();
        self.gate = false;
    }

    fn owns_primary_drag(&self, _cx: &ToolCx<'_>) -> bool {
        true
    }

    fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, _cx: &ToolCx<'_>) {
        if !self.gate {
            self.drag
                .draw(painter, canvas, Color32::from_rgb(255, 220, 90));
        } else if let (Some(from), Some(p)) = (self.drag.start(), canvas.response.hover_pos()) {
            let a = canvas.screen_from_cell(from);
            painter.line_segment([a, p], LineStroke::new(2.5, GATE_COLOUR));
        }
    }
}

/// Radius of the marker of a move order's spot. `[Units: points]`
pub const ORDER_MARKER_RADIUS: f32 = 8.0;

/// The marker of a move order's spot: a white ring and cross with a dark halo, readable on
/// any ground and unlike the agents' state colours and the goal tool's discs.
pub fn order_marker_ui(painter: &egui::Painter, c: Pos2) {
    let r = ORDER_MARKER_RADIUS;
    for (width, color) in [(3.5, Color32::from_black_alpha(200)), (1.5, Color32::WHITE)] {
        let line = LineStroke::new(width, color);
        painter.circle_stroke(c, r, line);
        painter.line_segment([c - vec2(r * 0.6, 0.0), c + vec2(r * 0.6, 0.0)], line);
        painter.line_segment([c - vec2(0.0, r * 0.6), c + vec2(0.0, r * 0.6)], line);
    }
}

