//! The paint brush tool: a drag paints cost, walls or clears onto the paint layer of the
//! selected movement type (or of all types). Each pointer move executes a command; the
//! history folds a stroke's commands into one undo step. The brush itself
//! (dabs, falloff, what a mode does to a cell) is the model's
//! [`brush`](crate::app::model::brush).

use egui::{Color32, Rect, Stroke as LineStroke, vec2};

use super::{Canvas, EditorTool, ToolCx};
use crate::app::model::brush::{BrushMode, BrushSettings, BrushShape, BrushTarget, Stroke};
use crate::app::state::EditorState;
use crate::map::PaintTarget;

/// The brush's options and the stroke being dragged.
#[derive(Debug, Default)]
pub struct PaintTool {
    /// Mode, shape, size, strength, falloff and target.
    pub brush: BrushSettings,
    stroke: Option<Stroke>,
}

impl PaintTool {
    /// Paints from the last pointer position to `screen`: one command, part of the stroke.
    fn extend(&mut self, canvas: &Canvas<'_>, state: &mut EditorState, screen: egui::Pos2) {
        let cell = canvas.cell_from_screen(screen);
        let (Some(stroke), Some(map)) = (self.stroke.as_mut(), state.map.as_ref()) else {
            return;
        };
        if let Some(command) = stroke.extend_to(&map.document, cell) {
            state.execute_continuing(command);
        }
    }

    /// Ends the stroke: its commands are one undo step.
    fn finish(&mut self, state: &mut EditorState) {
        if self.stroke.take().is_some() {
            state.end_gesture();
        }
    }
}

impl EditorTool for PaintTool {
    fn name() -> &'static str {
        "Paint"
    }

    fn shortcut() -> egui::Key {
        egui::Key::B
    }

    fn description() -> &'static str {
        "Paint cost, walls and clears onto a paint layer."
    }

    fn edits_document() -> bool {
        true
    }

    fn status_hint(&self) -> &'static str {
        "Paint: drag on the map. Space + drag pans, wheel zooms, F fits."
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        let brush = &mut self.brush;
        ui.horizontal_wrapped(|ui| {
            for mode in BrushMode::ALL {
                ui.selectable_value(&mut brush.mode, mode, mode.label());
            }
        });
        egui::Grid::new("brush_options")
            .num_columns(2)
            .spacing([8.0, 4.0])
            .show(ui, |ui| {
                ui.label("Shape");
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut brush.shape, BrushShape::Round, "Round");
                    ui.selectable_value(&mut brush.shape, BrushShape::Square, "Square");
                });
                ui.end_row();
                let label = ui.label("Size");
                ui.add(
                    egui::Slider::new(&mut brush.radius_cells, 0.5..=64.0)
                        .logarithmic(true)
                        .suffix(" cells"),
                )
                .labelled_by(label.id)
                .on_hover_text("Brush radius in cells");
                ui.end_row();
                let enabled = matches!(brush.mode, BrushMode::AddCost | BrushMode::RemoveCost);
                let label = ui.label("Strength");
                ui.add_enabled(enabled, egui::Slider::new(&mut brush.strength, 1.0..=254.0))
                    .labelled_by(label.id)
                    .on_hover_text("Cost added or removed at the brush centre");
                ui.end_row();
                let label = ui.label("Falloff");
                ui.add(egui::Slider::new(&mut brush.falloff, 0.0..=1.0))
                    .labelled_by(label.id)
                    .on_hover_text("0: hard edge; 1: fades from the centre");
                ui.end_row();
                ui.label("Target");
                let state = &*cx.state;
                let selected_name = state
                    .map
                    .as_ref()
                    .and_then(|m| m.document.movement_types.get(state.selected_type))
                    .map_or_else(|| "selected type".to_owned(), |t| t.name.clone());
                ui.horizontal(|ui| {
                    ui.selectable_value(
                        &mut brush.target,
                        BrushTarget::SelectedType,
                        selected_name,
                    )
                    .on_hover_text("Paint only for the movement type selected on the right");
                    ui.selectable_value(&mut brush.target, BrushTarget::AllTypes, "all types")
                        .on_hover_text("Paint for every movement type");
                });
                ui.end_row();
            });
    }

    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>) {
        let (ui, response) = (canvas.ui, canvas.response);
        let state = &mut *cx.state;
        let primary = egui::PointerButton::Primary;
        let starting = response.drag_started_by(primary) || response.clicked_by(primary);
        if starting && self.stroke.is_none() {
            let target = match self.brush.target {
                BrushTarget::AllTypes => Some(PaintTarget::All),
                BrushTarget::SelectedType => state.map.as_ref().and_then(|m| {
                    m.document
                        .movement_types
                        .get(state.selected_type)
                        .map(|t| PaintTarget::Type(t.name.clone()))
                }),
            };
            if let (Some(map), Some(target)) = (state.map.as_ref(), target) {
                let (w, h) = (map.heightmap.width, map.heightmap.height);
                self.stroke = Some(Stroke::begin(&map.document, w, h, self.brush, target));
                state.end_gesture();
                if let Some(origin) = ui.input(|i| i.pointer.press_origin()) {
                    self.extend(canvas, state, origin);
                }
            }
        }
        if self.stroke.is_some()
            && (response.dragged_by(primary) || response.clicked_by(primary) || starting)
            && let Some(pos) = canvas.pointer()
        {
            self.extend(canvas, state, pos);
        }
        let released = response.drag_stopped_by(primary)
            || response.clicked_by(primary)
            || !ui.input(|i| i.pointer.primary_down());
        if released {
            self.finish(state);
        }
    }

    fn release(&mut self, cx: &mut ToolCx<'_>) {
        self.finish(cx.state);
    }

    fn owns_primary_drag(&self, _cx: &ToolCx<'_>) -> bool {
        true
    }

    fn is_busy(&self) -> bool {
        self.stroke.is_some()
    }

    fn outlines_hover_cell(&self) -> bool {
        false
    }

    fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, _cx: &ToolCx<'_>) {
        let Some(p) = canvas.response.hover_pos() else {
            return;
        };
        let r = self.brush.radius_cells * canvas.px_per_cell();
        let outline = LineStroke::new(1.5, Color32::from_rgba_unmultiplied(255, 255, 255, 200));
        match self.brush.shape {
            BrushShape::Round => {
                painter.circle_stroke(p, r, outline);
            }
            BrushShape::Square => {
                painter.rect_stroke(
                    Rect::from_center_size(p, vec2(2.0 * r, 2.0 * r)),
                    0.0,
                    outline,
                    egui::StrokeKind::Middle,
                );
            }
        }
    }
}
