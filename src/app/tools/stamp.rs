//! The stamp tool: pick a stamp from the library, preview it under the cursor, rotate it,
//! place it; click a placed stamp to select it, drag to move it, delete it. Every edit is
//! one command (`PlaceStamp`, `MoveStamp`, `RemoveStamp`); what is chosen and selected is
//! the model's [`StampSelection`](crate::app::model::stamp_selection::StampSelection), kept
//! in the editor state so undo can forget a selection whose stamp is gone.

use egui::{Color32, Rect, RichText, Stroke as LineStroke, vec2};

use super::{Canvas, EditorTool, ToolCx};
use crate::app::model::stamp_placement::{StampRect, library, placement_rect, rotated_size};
use crate::app::model::stamp_selection::StampDrag;
use crate::app::overlays::cost_color;
use crate::map::{StampCell, StampPlacement};

/// The stamp tool (its choice and selection live in `EditorState::stamp`).
#[derive(Debug, Default)]
pub struct StampTool;

/// The least on-screen size of a placed stamp's marker: at fit zoom a 3 × 3 stamp covers a
/// few pixels, so it is drawn (and picked) as a square this wide. `[Units: points]`
pub const MIN_STAMP_PX: f32 = 14.0;

/// Where a stamp whose footprint covers `footprint` on screen is drawn and picked: the
/// footprint, grown about its centre to at least [`MIN_STAMP_PX`] a side.
#[must_use]
pub fn marker_rect(footprint: Rect) -> Rect {
    Rect::from_center_size(
        footprint.center(),
        footprint.size().max(vec2(MIN_STAMP_PX, MIN_STAMP_PX)),
    )
}

/// Draws a placed stamp's marker: its outline in `line` over a dark halo, so it reads on
/// light and dark ground alike, and a light fill when the footprint was grown to be seen.
pub fn stamp_marker_ui(painter: &egui::Painter, footprint: Rect, line: LineStroke) {
    let marker = marker_rect(footprint);
    if marker != footprint {
        painter.rect_filled(marker, 2.0, Color32::from_white_alpha(60));
    }
    let halo = LineStroke::new(line.width + 2.0, Color32::from_black_alpha(150));
    painter.rect_stroke(marker, 2.0, halo, egui::StrokeKind::Middle);
    painter.rect_stroke(marker, 2.0, line, egui::StrokeKind::Middle);
}

/// The topmost placed stamp whose marker holds screen point `p`.
fn stamp_at(canvas: &Canvas<'_>, stamps: &[StampPlacement], p: egui::Pos2) -> Option<usize> {
    stamps
        .iter()
        .enumerate()
        .rev()
        .find(|(_, placement)| {
            placement_rect(library(), placement)
                .is_some_and(|r| marker_rect(screen_rect(canvas, r)).contains(p))
        })
        .map(|(i, _)| i)
}

/// Screen rectangle of a stamp footprint.
fn screen_rect(canvas: &Canvas<'_>, r: StampRect) -> Rect {
    Rect::from_min_max(
        canvas.screen_from_cell((r.x0 as f32, r.y0 as f32)),
        canvas.screen_from_cell((r.x1 as f32, r.y1 as f32)),
    )
}

/// A stamp's cells, translucent: walls dark, cost cells tinted by cost, transparent cells
/// left out.
fn stamp_cells_ui(painter: &egui::Painter, canvas: &Canvas<'_>, placement: &StampPlacement) {
    let Some(fp) = library()
        .get(&placement.stamp)
        .and_then(|s| s.footprint(placement.rotation).ok())
    else {
        return;
    };
    let ppc = canvas.px_per_cell();
    for y in 0..fp.height {
        for x in 0..fp.width {
            let color = match fp.get(x, y) {
                Some(StampCell::Wall) => Color32::from_rgba_unmultiplied(16, 12, 24, 210),
                Some(StampCell::Cost(c)) => cost_color(c, 170),
                _ => continue,
            };
            let cell = (
                (placement.x + x as i32) as f32,
                (placement.y + y as i32) as f32,
            );
            let min = canvas.screen_from_cell(cell);
            painter.rect_filled(Rect::from_min_size(min, vec2(ppc, ppc)), 0.0, color);
        }
    }
}

impl EditorTool for StampTool {
    fn name() -> &'static str {
        "Stamp"
    }

    fn shortcut() -> egui::Key {
        egui::Key::S
    }

    fn description() -> &'static str {
        "Place stamps from the library (buildings, walls, bridges): click to place, R rotates; click a stamp to select, drag to move, Delete removes."
    }

    fn help() -> &'static [(&'static str, &'static str)] {
        &[
            ("R", "rotate the preview, or the selected stamp"),
            ("Delete / Backspace", "remove the selected stamp"),
            ("Shift+click", "place over another stamp"),
            ("Esc", "deselect"),
        ]
    }

    fn edits_document() -> bool {
        true
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        let state = &mut *cx.state;
        ui.weak(
            "Click: place. Click a stamp: select; drag: move. R: rotate. Delete: remove. \
             Shift+click: place over a stamp. Esc: deselect.",
        );
        // Wrapped buttons, not a table: with the rotation and the selection they fit the
        // tool options' fixed height, so nothing hides below its scroll.
        ui.horizontal_wrapped(|ui| {
            for stamp in &library().stamps {
                let chosen = state.stamp.chosen.as_deref() == Some(stamp.id.as_str());
                let (w, h) = rotated_size(stamp, 0);
                if ui
                    .add(egui::Button::selectable(chosen, &stamp.id))
                    .on_hover_text(format!("{} ({w} × {h} cells)", stamp.name))
                    .clicked()
                {
                    state.stamp.chosen = Some(stamp.id.clone());
                }
            }
        });
        ui.horizontal(|ui| {
            ui.label("Rotation");
            for (r, text) in ["0°", "90°", "180°", "270°"].into_iter().enumerate() {
                ui.selectable_value(&mut state.stamp.rotation, r as u8, text)
                    .on_hover_text("Clockwise turn of the stamp a click places (R turns it)");
            }
        });
        ui.add_space(4.0);
        let Some((index, placement)) = state.selected_stamp() else {
            ui.weak("No stamp selected: click one on the map.");
            return;
        };
        ui.label(RichText::new("Selected stamp").strong());
        ui.label(format!(
            "{} (#{}) at {}, {}, turned {}°",
            placement.stamp,
            index + 1,
            placement.x,
            placement.y,
            u32::from(placement.rotation) * 90
        ));
        ui.horizontal(|ui| {
            if ui
                .button("Rotate")
                .on_hover_text("Turn it a quarter clockwise about its centre (R)")
                .clicked()
            {
                state.rotate_stamp();
            }
            if ui
                .button("Delete")
                .on_hover_text("Remove it from the map (Delete)")
                .clicked()
            {
                state.delete_selected_stamp();
            }
            if ui.button("Deselect").on_hover_text("Esc").clicked() {
                state.stamp.selected = None;
            }
        });
    }

    fn keys(&mut self, input: &mut egui::InputState, cx: &mut ToolCx<'_>) {
        let plain = |key| egui::KeyboardShortcut::new(egui::Modifiers::NONE, key);
        if input.consume_shortcut(&plain(egui::Key::R)) {
            cx.state.rotate_stamp();
        }
        if input.consume_shortcut(&plain(egui::Key::Delete))
            || input.consume_shortcut(&plain(egui::Key::Backspace))
        {
            cx.state.delete_selected_stamp();
        }
        if input.consume_shortcut(&plain(egui::Key::Escape)) {
            cx.state.stamp.selected = None;
            cx.state.stamp.drag = None;
        }
    }

    /// A click on a stamp selects it, elsewhere places the chosen stamp (Shift+click places
    /// even over a stamp); dragging a stamp moves it, one command on release.
    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>) {
        let (ui, response) = (canvas.ui, canvas.response);
        let state = &mut *cx.state;
        let (width, height) = canvas.size;
        let primary = egui::PointerButton::Primary;
        let shift = ui.input(|i| i.modifiers.shift);
        if response.drag_started_by(primary)
            && state.stamp.drag.is_none()
            && !shift
            && let Some(origin) = ui.input(|i| i.pointer.press_origin())
            && let Some(map) = state.map.as_ref()
        {
            let (x, y) = canvas.cell_at(origin);
            let stamps = &map.document.stamps;
            if let Some(index) = stamp_at(canvas, stamps, origin)
                && let Some(placement) = stamps.get(index)
            {
                state.stamp.selected = Some(index);
                state.stamp.drag = Some(StampDrag::start(index, placement, x, y));
            }
        }
        if let Some(p) = canvas.pointer() {
            let (x, y) = canvas.cell_at(p);
            if let Some(drag) = state.stamp.drag.as_mut() {
                drag.update(library(), x, y, width, height);
            }
        }
        let released = response.drag_stopped_by(primary) || !ui.input(|i| i.pointer.primary_down());
        if released
            && let Some(drag) = state.stamp.drag.take()
            && let Some(command) = drag.finish()
        {
            state.execute(command);
        }
        if response.clicked_by(primary)
            && let Some(p) = response.interact_pointer_pos()
        {
            let (x, y) = canvas.cell_at(p);
            let hit = state
                .map
                .as_ref()
                .and_then(|m| stamp_at(canvas, &m.document.stamps, p))
                .filter(|_| !shift);
            if hit.is_some() {
                state.stamp.selected = hit;
            } else {
                state.stamp.selected = None;
                if let Some(placement) = state.stamp.preview_at(x, y) {
                    state.place_stamp(placement);
                }
            }
        }
    }

    fn release(&mut self, cx: &mut ToolCx<'_>) {
        cx.state.stamp.drag = None;
    }

    fn owns_primary_drag(&self, cx: &ToolCx<'_>) -> bool {
        cx.state.stamp.drag.is_some()
    }

    fn outlines_hover_cell(&self) -> bool {
        false
    }

    /// Placed stamps' outlines (the Stamps overlay draws them too, with ids), the hovered
    /// and selected ones brighter, the drag ghost and the preview under the cursor.
    fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, cx: &ToolCx<'_>) {
        let state = &*cx.state;
        let Some(map) = state.map.as_ref() else {
            return;
        };
        let (width, height) = canvas.size;
        let stamps = &map.document.stamps;
        let pointer = canvas
            .response
            .hover_pos()
            .filter(|_| state.stamp.drag.is_none());
        let hover = canvas
            .hover_cell
            .map(|(x, y)| (x as i32, y as i32))
            .filter(|_| pointer.is_some());
        let shift = canvas.ui.input(|i| i.modifiers.shift);
        let hover_hit = pointer
            .and_then(|p| stamp_at(canvas, stamps, p))
            .filter(|_| !shift);
        let thin = LineStroke::new(1.0, Color32::from_rgba_unmultiplied(255, 255, 255, 200));
        let bright = LineStroke::new(1.5, Color32::WHITE);
        let selected = LineStroke::new(2.5, Color32::from_rgb(255, 210, 60));
        for (i, placement) in stamps.iter().enumerate() {
            let line = if state.stamp.selected == Some(i) {
                selected
            } else if hover_hit == Some(i) {
                bright
            } else if !state.overlays.stamps {
                thin
            } else {
                continue;
            };
            let Some(r) = placement_rect(library(), placement) else {
                continue;
            };
            let screen = screen_rect(canvas, r);
            if screen.intersects(canvas.rect) {
                stamp_marker_ui(painter, screen, line);
            }
        }
        if let Some(drag) = &state.stamp.drag {
            stamp_cells_ui(painter, canvas, &drag.current);
            if let Some(r) = placement_rect(library(), &drag.current) {
                painter.rect_stroke(
                    screen_rect(canvas, r),
                    0.0,
                    selected,
                    egui::StrokeKind::Middle,
                );
            }
            canvas.ui.ctx().set_cursor_icon(egui::CursorIcon::Grabbing);
            return;
        }
        if hover_hit.is_some() {
            canvas.ui.ctx().set_cursor_icon(egui::CursorIcon::Grab);
            return;
        }
        let Some(preview) = hover.and_then(|(x, y)| state.stamp.preview_at(x, y)) else {
            return;
        };
        let Some(r) = placement_rect(library(), &preview) else {
            return;
        };
        stamp_cells_ui(painter, canvas, &preview);
        let outline = if r.is_inside(width, height) {
            LineStroke::new(1.5, Color32::from_rgba_unmultiplied(255, 255, 255, 230))
        } else {
            LineStroke::new(2.0, Color32::from_rgb(255, 60, 60))
        };
        painter.rect_stroke(
            screen_rect(canvas, r),
            0.0,
            outline,
            egui::StrokeKind::Middle,
        );
    }
}
