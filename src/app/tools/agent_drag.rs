//! What the Spawn and Command tools share: the box dragged from a press (a click is a tiny
//! box around the point), and the right click that orders agents to a point.

use egui::{Color32, Pos2, Rect, Stroke as LineStroke};

use super::{Canvas, ToolCx};
use crate::crowd::Vec2;

/// A box drag on the canvas: where it started, in continuous cell coordinates.
#[derive(Debug, Default)]
pub(super) struct AgentDrag {
    from: Option<(f32, f32)>,
}

/// A finished box or click, in world metres: its corners, and whether it was a click.
pub(super) struct AgentBox {
    /// The smaller corner.
    pub min: Vec2,
    /// The larger corner.
    pub max: Vec2,
    /// Where the press started and where it ended (world metres).
    pub from: Vec2,
    pub to: Vec2,
    /// A click rather than a drag.
    pub click: bool,
}

/// Cell size of the open map, `None` with no map. `[Units: m]`
pub(super) fn cell_m(cx: &ToolCx<'_>) -> Option<f32> {
    cx.state.map.as_ref().map(|m| m.document.cell_size_m)
}

impl AgentDrag {
    /// Follows the primary button: starts the box at the press (the drag is recognised a
    /// few points after it), and returns the box once the button is released or clicked.
    pub(super) fn update(&mut self, canvas: &Canvas<'_>, cell_m: f32) -> Option<AgentBox> {
        let response = canvas.response;
        let primary = egui::PointerButton::Primary;
        if response.drag_started_by(primary)
            && let Some(p) = response
                .ctx
                .input(|i| i.pointer.press_origin())
                .or_else(|| response.interact_pointer_pos())
        {
            self.from = Some(canvas.cell_from_screen(p));
        }
        let finished = response.drag_stopped_by(primary) || response.clicked_by(primary);
        let p = response.interact_pointer_pos().filter(|_| finished)?;
        let to = canvas.cell_from_screen(p);
        let from = self.from.take().unwrap_or(to);
        let world = |c: (f32, f32)| Vec2::new(c.0 * cell_m, c.1 * cell_m);
        let click = (from.0 - to.0).abs() + (from.1 - to.1).abs() < 0.5;
        let pad = if click { 0.4 } else { 0.0 };
        Some(AgentBox {
            min: world((from.0.min(to.0) - pad, from.1.min(to.1) - pad)),
            max: world((from.0.max(to.0) + pad, from.1.max(to.1) + pad)),
            from: world(from),
            to: world(to),
            click,
        })
    }

    /// Forgets a box in progress.
    pub(super) fn cancel(&mut self) {
        self.from = None;
    }

    /// Where the box started, if one is being dragged.
    pub(super) fn start(&self) -> Option<(f32, f32)> {
        self.from
    }

    /// Draws the box from its start to the pointer.
    pub(super) fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, color: Color32) {
        if let (Some(from), Some(p)) = (self.from, canvas.response.hover_pos()) {
            let a = canvas.screen_from_cell(from);
            painter.rect_stroke(
                Rect::from_two_pos(a, p),
                0.0,
                LineStroke::new(1.5, color),
                egui::StrokeKind::Middle,
            );
        }
    }
}

/// A right click orders the selection (or everyone) to the point; on an agent outside the
/// selection it follows that agent (an RTS's "follow").
pub(super) fn order_on_right_click(canvas: &Canvas<'_>, cx: &mut ToolCx<'_>, cell_m: f32) {
    let response = canvas.response;
    if !response.clicked_by(egui::PointerButton::Secondary) {
        return;
    }
    let Some(p): Option<Pos2> = response.interact_pointer_pos() else {
        return;
    };
    let (x, y) = canvas.cell_from_screen(p);
    let target = Vec2::new(x * cell_m, y * cell_m);
    let crowd = &mut *cx.crowd;
    match crowd.agent_at(target) {
        Some(leader) if !crowd.selection.contains(&leader) => crowd.follow(leader),
        _ => crowd.order(target),
    }
}
