//! The canvas's input: pan and zoom, and what a click or drag does with each tool — the
//! goal pick, spawning, selecting and ordering agents, placing and dragging stamps, and
//! paint strokes (which edit the document while dragging and become one command on
//! release).

use egui::Pos2;

use super::Viewport;
use crate::app::crowd_preview::CrowdPreview;
use crate::app::model::stamp_placement::{hit_test, library};
use crate::app::state::EditorState;
use crate::app::tools::{BrushTarget, StampDrag, Stroke, Tool};
use crate::map::PaintTarget;

impl Viewport {
    /// Handles this frame's input on the canvas (`response`) for a map of
    /// `width` × `height` cells.
    pub(super) fn input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        state: &mut EditorState,
        crowd: &mut CrowdPreview,
        width: u32,
        height: u32,
    ) {
        let rect = self.rect;
        // Navigation.
        let space = ui.input(|i| i.key_down(egui::Key::Space));
        // Stamp tool: a press on a stamp drags it; elsewhere a primary drag pans.
        if matches!(state.tool, Tool::Stamp) && !space {
            self.stamp_input(ui, response, state, width, height);
        } else {
            state.stamp.drag = None;
        }
        let pan_drag = response.dragged_by(egui::PointerButton::Middle)
            || response.dragged_by(egui::PointerButton::Secondary)
            || (response.dragged_by(egui::PointerButton::Primary)
                && (space || !matches!(state.tool, Tool::Paint))
                && self.stroke.is_none()
                && state.stamp.drag.is_none()
                && !matches!(state.tool, Tool::Spawn | Tool::Command));
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

        // Goal tool: click sets the goal, Ctrl+click adds one to the set, Shift+click sets
        // the source.
        if matches!(state.tool, Tool::Goal)
            && response.clicked_by(egui::PointerButton::Primary)
            && let Some(p) = response.interact_pointer_pos()
        {
            let (cx, cy) = self.transform.cell_from_screen(rect, p);
            if cx >= 0.0 && cy >= 0.0 && cx < width as f32 && cy < height as f32 {
                let cell = (cx as u32, cy as u32);
                let modifiers = ui.input(|i| i.modifiers);
                if modifiers.shift {
                    state.goal.source = Some(cell);
                } else if modifiers.command || modifiers.ctrl {
                    state.goal.add_goal(cell);
                } else {
                    state.goal.goal = Some(cell);
                    state.goal.more_goals.clear();
                }
            }
        }

        // Agents: a primary drag spawns (Spawn) or selects (Command); a right click orders.
        if matches!(state.tool, Tool::Spawn | Tool::Command) && !space {
            self.agent_input(response, state, crowd);
        } else {
            self.agent_drag_from = None;
            self.gate_drag = false;
        }

        // Painting.
        if matches!(state.tool, Tool::Paint) && !space {
            self.paint_input(ui, response, state);
        } else if let Some(stroke) = self.stroke.take() {
            finish_stroke(stroke, state);
        }
    }

    /// Spawn / Command tool input: the drag rectangle, clicks, and right-click orders.
    fn agent_input(
        &mut self,
        response: &egui::Response,
        state: &EditorState,
        crowd: &mut CrowdPreview,
    ) {
        let Some(map) = state.map.as_ref() else {
            return;
        };
        let cell_m = map.document.cell_size_m;
        let world = |c: (f32, f32)| crate::crowd::Vec2::new(c.0 * cell_m, c.1 * cell_m);
        let primary = egui::PointerButton::Primary;
        let cell_at = |p: Pos2| self.transform.cell_from_screen(self.rect, p);
        // The drag is recognised a few points after the press: start the box at the press.
        if response.drag_started_by(primary)
            && let Some(p) = response
                .ctx
                .input(|i| i.pointer.press_origin())
                .or_else(|| response.interact_pointer_pos())
        {
            self.agent_drag_from = Some(cell_at(p));
            self.gate_drag =
                matches!(state.tool, Tool::Command) && response.ctx.input(|i| i.modifiers.shift);
        }
        let finished = response.drag_stopped_by(primary) || response.clicked_by(primary);
        if finished
            && self.gate_drag
            && let Some(p) = response.interact_pointer_pos()
        {
            self.gate_drag = false;
            if let Some(from) = self.agent_drag_from.take() {
                crowd.set_gate(world(from), world(cell_at(p)));
            }
            return;
        }
        if finished && let Some(p) = response.interact_pointer_pos() {
            let to = cell_at(p);
            // A click is a tiny rectangle: spawn around the point, or pick the agent under it.
            let from = self.agent_drag_from.take().unwrap_or(to);
            let pad = if (from.0 - to.0).abs() + (from.1 - to.1).abs() < 0.5 {
                0.4
            } else {
                0.0
            };
            let (a, b) = (
                world((from.0.min(to.0) - pad, from.1.min(to.1) - pad)),
                world((from.0.max(to.0) + pad, from.1.max(to.1) + pad)),
            );
            if matches!(state.tool, Tool::Spawn) {
                if pad > 0.0 {
                    let c = world(to);
                    crowd.spawn_rect(c, c);
                } else {
                    crowd.spawn_rect(a, b);
                }
            } else {
                crowd.select_rect(a, b);
            }
        }
        if response.clicked_by(egui::PointerButton::Secondary)
            && let Some(p) = response.interact_pointer_pos()
        {
            // Right-click on an agent outside the selection: follow it (an RTS's "follow").
            let target = world(cell_at(p));
            match crowd.agent_at(target) {
                Some(leader) if !crowd.selection.contains(&leader) => crowd.follow(leader),
                _ => crowd.order(target),
            }
        }
    }

    /// Stamp tool input: a click on a stamp selects it, elsewhere places the chosen stamp
    /// (Shift+click places even over a stamp); dragging a stamp moves it, one command on
    /// release.
    fn stamp_input(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        state: &mut EditorState,
        width: u32,
        height: u32,
    ) {
        let primary = egui::PointerButton::Primary;
        let shift = ui.input(|i| i.modifiers.shift);
        if response.drag_started_by(primary)
            && state.stamp.drag.is_none()
            && !shift
            && let Some(origin) = ui.input(|i| i.pointer.press_origin())
            && let Some(map) = state.map.as_ref()
        {
            let (x, y) = self.cell_at(origin);
            let stamps = &map.document.stamps;
            if let Some(index) = hit_test(library(), stamps, x, y)
                && let Some(placement) = stamps.get(index)
            {
                state.stamp.selected = Some(index);
                state.stamp.drag = Some(StampDrag::start(index, placement, x, y));
            }
        }
        if let Some(p) = response
            .interact_pointer_pos()
            .or_else(|| response.hover_pos())
        {
            let (x, y) = self.cell_at(p);
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
            let (x, y) = self.cell_at(p);
            let hit = state
                .map
                .as_ref()
                .and_then(|m| hit_test(library(), &m.document.stamps, x, y))
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

    fn paint_input(&mut self, ui: &egui::Ui, response: &egui::Response, state: &mut EditorState) {
        let primary = egui::PointerButton::Primary;
        let starting = response.drag_started_by(primary) || response.clicked_by(primary);
        if starting && self.stroke.is_none() {
            let target = match state.brush.target {
                BrushTarget::AllTypes => Some(PaintTarget::All),
                BrushTarget::SelectedType => state.map.as_ref().and_then(|m| {
                    m.document
                        .movement_types
                        .get(state.selected_type)
                        .map(|t| PaintTarget::Type(t.name.clone()))
                }),
            };
            if let (Some(map), Some(target)) = (state.map.as_mut(), target) {
                let (w, h) = (map.heightmap.width, map.heightmap.height);
                self.stroke = Some(Stroke::begin(&mut map.document, w, h, state.brush, target));
                if let Some(origin) = ui.input(|i| i.pointer.press_origin()) {
                    self.extend_stroke(state, origin);
                }
            }
        }
        if self.stroke.is_some()
            && (response.dragged_by(primary) || response.clicked_by(primary) || starting)
            && let Some(pos) = response
                .interact_pointer_pos()
                .or_else(|| response.hover_pos())
        {
            self.extend_stroke(state, pos);
        }
        let released = response.drag_stopped_by(primary)
            || response.clicked_by(primary)
            || !ui.input(|i| i.pointer.primary_down());
        if released && let Some(stroke) = self.stroke.take() {
            finish_stroke(stroke, state);
        }
    }

    fn extend_stroke(&mut self, state: &mut EditorState, screen: Pos2) {
        let cell = self.transform.cell_from_screen(self.rect, screen);
        let (Some(stroke), Some(map)) = (self.stroke.as_mut(), state.map.as_mut()) else {
            return;
        };
        if let Some(rect) = stroke.extend_to(&mut map.document, cell) {
            state.paint_dirty = Some(state.paint_dirty.map_or(rect, |r| r.union(&rect)));
            state.pending_dirty = Some(state.pending_dirty.map_or(rect, |r| r.union(&rect)));
        }
    }
}

fn finish_stroke(stroke: Stroke, state: &mut EditorState) {
    let Some(map) = state.map.as_mut() else {
        return;
    };
    if let Some(command) = stroke.finish(&mut map.document) {
        state.record_applied(command);
    }
}
