//! The map canvas: pan (middle/right drag, or space + left drag), zoom to the cursor
//! (wheel), fit to the map (F / Home), overlays as nearest-neighbour textures, the sector
//! grid, the brush footprint, stamp outlines and the stamp tool's preview, and the
//! screen ↔ cell transform the tools use.

use egui::{Color32, Pos2, Rect, Sense, Stroke as LineStroke, Vec2, pos2, vec2};

use crate::map::PaintTarget;

use super::crowd_view::CrowdPreview;
use super::goal::GoalPreview;
use super::overlays::{OverlayTextures, cost_color};
use super::state::EditorState;
use super::tools::stamp::{StampDrag, StampRect, hit_test, library, placement_rect};
use super::tools::{BrushShape, BrushTarget, Stroke, Tool};
use crate::map::{StampCell, StampPlacement};
use crate::nav::{NavData, SectorCost};

/// Flow arrows are drawn once cells are this wide. `[Units: screen points per cell]`
pub const ARROW_MIN_PX_PER_CELL: f32 = 9.0;
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
    stroke: Option<Stroke>,
    /// Where a spawn or selection rectangle started (continuous cell coordinates).
    agent_drag_from: Option<(f32, f32)>,
    /// The drag from `agent_drag_from` draws the crowd's gate line (Shift with Command).
    gate_drag: bool,
}

/// Colour of the crowd's gate line.
const GATE_COLOUR: Color32 = Color32::from_rgb(255, 150, 40);

impl Default for Viewport {
    fn default() -> Self {
        Self {
            transform: ViewTransform::default(),
            fit_requested: true,
            rect: Rect::NOTHING,
            hover_cell: None,
            stroke: None,
            agent_drag_from: None,
            gate_drag: false,
        }
    }
}

impl Viewport {
    /// The cells in view `(x0, y0, x1, y1)`, inclusive, when zoomed in enough for flow
    /// arrows; `None` otherwise.
    #[must_use]
    pub fn arrow_cells(&self) -> Option<(u32, u32, u32, u32)> {
        if self.transform.px_per_cell < ARROW_MIN_PX_PER_CELL || !self.rect.is_positive() {
            return None;
        }
        let (x0, y0) = self.transform.cell_from_screen(self.rect, self.rect.min);
        let (x1, y1) = self.transform.cell_from_screen(self.rect, self.rect.max);
        if x1 < 0.0 || y1 < 0.0 {
            return None;
        }
        Some((x0.max(0.0) as u32, y0.max(0.0) as u32, x1 as u32, y1 as u32))
    }

    /// Whether a brush stroke is in progress.
    #[must_use]
    pub fn is_painting(&self) -> bool {
        self.stroke.is_some()
    }

    /// Draws the canvas and handles its input. Paint strokes edit the document directly
    /// while dragging and become one command when the button is released.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        state: &mut EditorState,
        textures: &OverlayTextures,
        goal: &GoalPreview,
        crowd: &mut CrowdPreview,
    ) {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.rect = rect;
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, Color32::from_rgb(18, 20, 24));
        let Some(map) = state.map.as_ref() else {
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

        // Navigation.
        let space = ui.input(|i| i.key_down(egui::Key::Space));
        // Stamp tool: a press on a stamp drags it; elsewhere a primary drag pans.
        if matches!(state.tool, Tool::Stamp) && !space {
            self.stamp_input(ui, &response, state, width, height);
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
            let factor = (scroll * 0.0015).exp() * zoom;
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
            self.agent_input(&response, state, crowd);
        } else {
            self.agent_drag_from = None;
            self.gate_drag = false;
        }

        // Painting.
        if matches!(state.tool, Tool::Paint) && !space {
            self.paint_input(ui, &response, state);
        } else if let Some(stroke) = self.stroke.take() {
            finish_stroke(stroke, state);
        }

        let Some(map) = state.map.as_ref() else {
            return;
        };
        let map_rect = Rect::from_min_max(
            self.transform.screen_from_cell(rect, (0.0, 0.0)),
            self.transform
                .screen_from_cell(rect, (width as f32, height as f32)),
        );
        let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
        let overlays = state.overlays;
        let fade = Color32::from_white_alpha((overlays.opacity * 255.0) as u8);
        let layers = [
            (overlays.height, &textures.height, Color32::WHITE),
            (
                overlays.slope,
                &textures.slope,
                if overlays.height {
                    fade
                } else {
                    Color32::WHITE
                },
            ),
            (
                overlays.cost,
                &textures.cost,
                if overlays.height || overlays.slope {
                    fade
                } else {
                    Color32::WHITE
                },
            ),
            (
                overlays.walls && !overlays.cost,
                &textures.walls,
                Color32::WHITE,
            ),
            (
                overlays.contributions,
                &textures.contribution,
                Color32::WHITE,
            ),
            (overlays.paint, &textures.paint, Color32::WHITE),
        ];
        for (visible, tex, tint) in layers {
            if let (true, Some(tex)) = (visible, tex) {
                painter.image(tex.id(), map_rect, uv, tint);
            }
        }
        if let (true, Some(tex)) = (overlays.islands, &textures.islands) {
            painter.image(tex.id(), map_rect, uv, Color32::WHITE);
        }
        if let (true, Some(tex)) = (state.goal.goal.is_some(), &textures.goal) {
            painter.image(tex.id(), map_rect, uv, Color32::WHITE);
        }
        painter.rect_stroke(
            map_rect,
            0.0,
            LineStroke::new(1.0, Color32::from_gray(70)),
            egui::StrokeKind::Outside,
        );
        if let Some(nav) = state.nav.as_deref() {
            self.nav_shapes_ui(&painter, rect, map_rect, state, nav, goal);
        }
        let cell_m = map.document.cell_size_m.max(1e-6);
        if crowd.show_congestion
            && let Some(congestion) = crowd.sim().congestion()
        {
            let now = ui.input(|i| i.time);
            let congestion = congestion.clone();
            if let Some(tex) = crowd.congestion_texture.get(ui.ctx(), &congestion, now) {
                painter.image(tex.id(), map_rect, uv, Color32::WHITE);
            }
        }
        self.agents_ui(&painter, rect, crowd, cell_m);
        if let (Some(from), Some(p)) = (self.agent_drag_from, response.hover_pos()) {
            let a = self.transform.screen_from_cell(rect, from);
            let color = if matches!(state.tool, Tool::Spawn) {
                Color32::from_rgb(120, 230, 120)
            } else {
                Color32::from_rgb(255, 220, 90)
            };
            if self.gate_drag {
                painter.line_segment([a, p], LineStroke::new(2.5, GATE_COLOUR));
            } else {
                painter.rect_stroke(
                    Rect::from_two_pos(a, p),
                    0.0,
                    LineStroke::new(1.5, color),
                    egui::StrokeKind::Middle,
                );
            }
        }

        let ppc = self.transform.px_per_cell;
        let sector = f32::from(map.document.sector_size.max(1));
        if overlays.sectors && ppc * sector >= 12.0 {
            let alpha = ((ppc * sector - 12.0) * 4.0).clamp(0.0, 110.0) as u8;
            let line = LineStroke::new(1.0, Color32::from_rgba_unmultiplied(230, 230, 255, alpha));
            let visible = map_rect.intersect(rect);
            let (cx0, cy0) = self.transform.cell_from_screen(rect, visible.min);
            let (cx1, cy1) = self.transform.cell_from_screen(rect, visible.max);
            let mut sx = (cx0 / sector).ceil() * sector;
            while sx <= cx1 {
                let x = self.transform.screen_from_cell(rect, (sx, 0.0)).x;
                painter.line_segment([pos2(x, visible.min.y), pos2(x, visible.max.y)], line);
                sx += sector;
            }
            let mut sy = (cy0 / sector).ceil() * sector;
            while sy <= cy1 {
                let y = self.transform.screen_from_cell(rect, (0.0, sy)).y;
                painter.line_segment([pos2(visible.min.x, y), pos2(visible.max.x, y)], line);
                sy += sector;
            }
        }

        // Hover: the cell outline, and the brush footprint while painting.
        self.hover_cell = response.hover_pos().and_then(|p| {
            let (cx, cy) = self.transform.cell_from_screen(rect, p);
            (cx >= 0.0 && cy >= 0.0 && cx < width as f32 && cy < height as f32)
                .then_some((cx as u32, cy as u32))
        });
        if overlays.stamps || matches!(state.tool, Tool::Stamp) {
            self.stamps_ui(ui, &painter, state, response.hover_pos().is_some());
        }
        if let (Some(p), Tool::Goal) = (response.hover_pos(), state.tool)
            && self.hover_unreachable(state)
        {
            stop_sign(&painter, p + vec2(14.0, 14.0));
            ui.ctx().set_cursor_icon(egui::CursorIcon::NotAllowed);
        }
        if let Some(p) = response.hover_pos() {
            if matches!(state.tool, Tool::Paint) {
                let r = state.brush.radius_cells * ppc;
                let outline =
                    LineStroke::new(1.5, Color32::from_rgba_unmultiplied(255, 255, 255, 200));
                match state.brush.shape {
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
            } else if let Some((x, y)) = self.hover_cell
                && ppc >= 4.0
                && !matches!(state.tool, Tool::Stamp)
            {
                let a = self.transform.screen_from_cell(rect, (x as f32, y as f32));
                painter.rect_stroke(
                    Rect::from_min_size(a, vec2(ppc, ppc)),
                    0.0,
                    LineStroke::new(1.0, Color32::WHITE),
                    egui::StrokeKind::Outside,
                );
            }
        }
    }

    /// Whether the hovered cell cannot be reached from the goal tool's source (or, with no
    /// source, from its goal; with neither, whether it is a wall) for the selected type:
    /// island ids, a constant-time check.
    fn hover_unreachable(&self, state: &EditorState) -> bool {
        let (Some((x, y)), Some(nav)) = (self.hover_cell, state.nav.as_deref()) else {
            return false;
        };
        let Some(l) = nav.layers.get(state.selected_type) else {
            return false;
        };
        let here = l.islands.island_at(x, y);
        match state.goal.source.or(state.goal.goal) {
            Some((rx, ry)) => here != l.islands.island_at(rx, ry) || here == 0,
            None => here == 0,
        }
    }

    /// Shapes drawn from the nav data: clear sectors, portal windows and graph, flow arrows,
    /// the traced route, and the goal and source markers.
    fn nav_shapes_ui(
        &self,
        painter: &egui::Painter,
        rect: Rect,
        map_rect: Rect,
        state: &EditorState,
        nav: &NavData,
        goal: &GoalPreview,
    ) {
        let Some(layer) = nav.layers.get(state.selected_type) else {
            return;
        };
        let overlays = state.overlays;
        let t = self.transform;
        let ppc = t.px_per_cell;
        let spec = layer.cost.spec;
        let visible = map_rect.intersect(rect);
        let (vx0, vy0) = t.cell_from_screen(rect, visible.min);
        let (vx1, vy1) = t.cell_from_screen(rect, visible.max);
        let in_view =
            |x0: f32, y0: f32, x1: f32, y1: f32| x1 >= vx0 && x0 <= vx1 && y1 >= vy0 && y0 <= vy1;
        let at = |x: f32, y: f32| t.screen_from_cell(rect, (x, y));

        if overlays.clear_sectors {
            let fill = Color32::from_rgba_unmultiplied(120, 200, 255, 40);
            for (s, sector) in layer.cost.sectors.iter().enumerate() {
                if !matches!(sector, SectorCost::Clear) {
                    continue;
                }
                let (x0, y0, w, h) = spec.sector_rect(s as u32);
                let (x0, y0, x1, y1) = (x0 as f32, y0 as f32, (x0 + w) as f32, (y0 + h) as f32);
                if in_view(x0, y0, x1, y1) {
                    painter.rect_filled(Rect::from_min_max(at(x0, y0), at(x1, y1)), 0.0, fill);
                }
            }
        }

        if overlays.portals && ppc * spec.sector_size as f32 >= 6.0 {
            let window_line = LineStroke::new(2.0, Color32::from_rgb(80, 240, 255));
            for w in &layer.windows {
                let (b, a0, a1) = (w.border as f32, w.start as f32, (w.start + w.len) as f32);
                let (p0, p1) = if w.horizontal {
                    ((a0, b), (a1, b))
                } else {
                    ((b, a0), (b, a1))
                };
                if in_view(p0.0, p0.1, p1.0, p1.1) {
                    painter.line_segment([at(p0.0, p0.1), at(p1.0, p1.1)], window_line);
                }
            }
            // The graph: edges inside sectors between window sides, once zoomed in.
            if ppc * spec.sector_size as f32 >= 40.0 {
                let edge =
                    LineStroke::new(1.0, Color32::from_rgba_unmultiplied(255, 255, 255, 110));
                for (n, node) in layer.nodes.iter().enumerate() {
                    let c = (node.center.0 as f32 + 0.5, node.center.1 as f32 + 0.5);
                    if !in_view(c.0 - 10.0, c.1 - 10.0, c.0 + 10.0, c.1 + 10.0) {
                        continue;
                    }
                    painter.circle_filled(at(c.0, c.1), 2.5, Color32::from_rgb(80, 240, 255));
                    for (target, _) in layer.graph.edges(n as u32) {
                        if (target as usize) <= n {
                            continue;
                        }
                        if let Some(other) = layer.nodes.get(target as usize) {
                            let o = (other.center.0 as f32 + 0.5, other.center.1 as f32 + 0.5);
                            painter.line_segment([at(c.0, c.1), at(o.0, o.1)], edge);
                        }
                    }
                }
            }
        }

        let Some(result) = goal.result.as_ref() else {
            return;
        };
        if overlays.flow && ppc >= ARROW_MIN_PX_PER_CELL {
            let arrow = LineStroke::new(1.2, Color32::from_rgba_unmultiplied(255, 255, 255, 220));
            let (x0, y0) = (vx0.max(0.0) as u32, vy0.max(0.0) as u32);
            let (x1, y1) = (
                (vx1.ceil() as u32).min(spec.width),
                (vy1.ceil() as u32).min(spec.height),
            );
            for y in y0..y1 {
                for x in x0..x1 {
                    let c = (x as f32 + 0.5, y as f32 + 0.5);
                    if layer.cost.get(x, y) == crate::nav::grid::WALL {
                        continue;
                    }
                    let Some((dx, dy)) = goal.flow_at(c) else {
                        continue;
                    };
                    let half = 0.35;
                    let tail = at(c.0 - dx * half, c.1 - dy * half);
                    let tip = at(c.0 + dx * half, c.1 + dy * half);
                    painter.line_segment([tail, tip], arrow);
                    let back = vec2(-dx, -dy) * (ppc * 0.22);
                    let side = vec2(-dy, dx) * (ppc * 0.13);
                    painter.line_segment([tip, tip + back + side], arrow);
                    painter.line_segment([tip, tip + back - side], arrow);
                }
            }
        }
        if let Some(traced) = &result.traced {
            let mut points: Vec<Pos2> = traced
                .cells
                .iter()
                .map(|&(x, y)| at(x as f32 + 0.5, y as f32 + 0.5))
                .collect();
            points.push(at(traced.goal.0 as f32 + 0.5, traced.goal.1 as f32 + 0.5));
            painter.add(egui::Shape::line(
                points,
                LineStroke::new(3.0, Color32::from_rgb(255, 70, 200)),
            ));
        }
        for &(x, y) in &result.route_portals {
            painter.circle_stroke(
                at(x as f32 + 0.5, y as f32 + 0.5),
                5.0,
                LineStroke::new(2.0, Color32::from_rgb(255, 70, 200)),
            );
        }
        let marker = |cell: (u32, u32), color: Color32, label: &str| {
            let p = at(cell.0 as f32 + 0.5, cell.1 as f32 + 0.5);
            painter.circle_filled(p, 7.0, color);
            painter.circle_stroke(p, 7.0, LineStroke::new(2.0, Color32::BLACK));
            painter.text(
                p + vec2(10.0, -10.0),
                egui::Align2::LEFT_BOTTOM,
                label,
                egui::FontId::proportional(13.0),
                Color32::WHITE,
            );
        };
        if result.goals.len() > 1 {
            for (k, &g) in result.goals.iter().enumerate() {
                marker(
                    g,
                    Color32::from_rgb(255, 220, 60),
                    &format!("goal {}", k + 1),
                );
            }
        } else {
            marker(result.goal, Color32::from_rgb(255, 220, 60), "goal");
        }
        if let Some(src) = state.goal.source {
            marker(src, Color32::from_rgb(255, 70, 200), "source");
        }
    }

    /// The integer cell under a screen point (may lie off the map).
    fn cell_at(&self, screen: Pos2) -> (i32, i32) {
        let (cx, cy) = self.transform.cell_from_screen(self.rect, screen);
        (cx.floor() as i32, cy.floor() as i32)
    }

    /// Stamp tool input: a click on a stamp selects it, elsewhere places the chosen stamp
    /// (Shift+click places even over a stamp); dragging a stamp moves it, one command on
    /// release.
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
            crowd.order(world(cell_at(p)));
        }
    }

    /// Agents as oriented triangles in one mesh (tens of thousands stay cheap), selection
    /// rings, and velocity vectors when asked.
    fn agents_ui(&self, painter: &egui::Painter, rect: Rect, crowd: &CrowdPreview, cell_m: f32) {
        let agents = crowd.sim().agents();
        if agents.is_empty() && crowd.gate.is_none() {
            return;
        }
        let ppc = self.transform.px_per_cell;
        let to_screen = |p: crate::crowd::Vec2| {
            self.transform
                .screen_from_cell(rect, (p.x / cell_m, p.y / cell_m))
        };
        let visible = rect.expand(20.0);
        let mut mesh = egui::Mesh::default();
        for i in 0..agents.len() {
            let c = to_screen(agents.pos_world[i]);
            if !visible.contains(c) {
                continue;
            }
            let r = (agents.radius_m[i] / cell_m * ppc).max(2.5);
            let (sin, cos) = agents.heading_rad[i].sin_cos();
            let dir = vec2(cos, sin);
            let side = vec2(-sin, cos);
            let color = crowd.agent_color(i);
            let base = mesh.vertices.len() as u32;
            mesh.colored_vertex(c + dir * (1.5 * r), color);
            mesh.colored_vertex(c - dir * (0.8 * r) + side * (0.9 * r), color);
            mesh.colored_vertex(c - dir * (0.8 * r) - side * (0.9 * r), color);
            mesh.add_triangle(base, base + 1, base + 2);
        }
        painter.add(egui::Shape::mesh(mesh));
        if crowd.selection.len() <= 5000 {
            let ring = LineStroke::new(1.2, Color32::from_rgb(255, 220, 90));
            for id in &crowd.selection {
                let i = id.0 as usize;
                if i < agents.len() {
                    let c = to_screen(agents.pos_world[i]);
                    if visible.contains(c) {
                        let r = (agents.radius_m[i] / cell_m * ppc).max(2.5);
                        painter.circle_stroke(c, r * 1.7, ring);
                    }
                }
            }
        }
        // Stuck agents get a red ring at any colouring, so a designer can point at them.
        let stuck_ring = LineStroke::new(1.5, Color32::from_rgb(255, 60, 40));
        for i in 0..agents.len() {
            if agents.state[i] == crate::crowd::AgentState::Stuck {
                let c = to_screen(agents.pos_world[i]);
                if visible.contains(c) {
                    let r = (agents.radius_m[i] / cell_m * ppc).max(2.5);
                    painter.circle_stroke(c, r * 2.2, stuck_ring);
                }
            }
        }
        if let Some(gate) = &crowd.gate {
            let (a, b) = (to_screen(gate.a_world), to_screen(gate.b_world));
            painter.line_segment([a, b], LineStroke::new(2.5, GATE_COLOUR));
            painter.text(
                b + vec2(6.0, 0.0),
                egui::Align2::LEFT_CENTER,
                format!("{:.1}/s", gate.throughput(crowd.sim_secs())),
                egui::FontId::proportional(13.0),
                GATE_COLOUR,
            );
        }
        if crowd.show_velocity {
            let arrow = LineStroke::new(1.0, Color32::from_rgba_unmultiplied(255, 255, 255, 180));
            for i in 0..agents.len() {
                let c = to_screen(agents.pos_world[i]);
                if visible.contains(c) {
                    let v = agents.vel[i];
                    // One second of travel.
                    painter.line_segment([c, to_screen(agents.pos_world[i] + v)], arrow);
                }
            }
        }
    }

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

    /// Screen rectangle of a stamp footprint.
    fn screen_rect(&self, r: StampRect) -> Rect {
        let t = self.transform;
        Rect::from_min_max(
            t.screen_from_cell(self.rect, (r.x0 as f32, r.y0 as f32)),
            t.screen_from_cell(self.rect, (r.x1 as f32, r.y1 as f32)),
        )
    }

    /// A stamp's cells, translucent: walls dark, cost cells tinted by cost, transparent
    /// cells left out.
    fn stamp_cells_ui(&self, painter: &egui::Painter, placement: &StampPlacement) {
        let Some(fp) = library()
            .get(&placement.stamp)
            .and_then(|s| s.footprint(placement.rotation).ok())
        else {
            return;
        };
        let ppc = self.transform.px_per_cell;
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
                let min = self.transform.screen_from_cell(self.rect, cell);
                painter.rect_filled(Rect::from_min_size(min, vec2(ppc, ppc)), 0.0, color);
            }
        }
    }

    /// Placed stamps' outlines (ids with the Stamps overlay); with the stamp tool the
    /// selection, the drag ghost and the preview under the cursor.
    fn stamps_ui(
        &self,
        ui: &egui::Ui,
        painter: &egui::Painter,
        state: &EditorState,
        hovered: bool,
    ) {
        let Some(map) = state.map.as_ref() else {
            return;
        };
        let (width, height) = (map.heightmap.width, map.heightmap.height);
        let tool = matches!(state.tool, Tool::Stamp);
        let stamps = &map.document.stamps;
        let hover = self
            .hover_cell
            .map(|(x, y)| (x as i32, y as i32))
            .filter(|_| tool && hovered && state.stamp.drag.is_none());
        let shift = ui.input(|i| i.modifiers.shift);
        let hover_hit = hover
            .and_then(|(x, y)| hit_test(library(), stamps, x, y))
            .filter(|_| !shift);
        let thin = LineStroke::new(1.0, Color32::from_rgba_unmultiplied(255, 255, 255, 150));
        let bright = LineStroke::new(1.5, Color32::WHITE);
        let selected = LineStroke::new(2.5, Color32::from_rgb(255, 210, 60));
        let ids = state.overlays.stamps;
        for (i, placement) in stamps.iter().enumerate() {
            let Some(r) = placement_rect(library(), placement) else {
                continue;
            };
            let screen = self.screen_rect(r);
            if !screen.intersects(self.rect) {
                continue;
            }
            let line = if tool && state.stamp.selected == Some(i) {
                selected
            } else if hover_hit == Some(i) {
                bright
            } else {
                thin
            };
            painter.rect_stroke(screen, 0.0, line, egui::StrokeKind::Middle);
            if ids && screen.width() >= 36.0 && screen.height() >= 14.0 {
                painter.text(
                    screen.min + vec2(3.0, 2.0),
                    egui::Align2::LEFT_TOP,
                    &placement.stamp,
                    egui::FontId::proportional(11.0),
                    Color32::from_rgba_unmultiplied(255, 255, 255, 220),
                );
            }
        }
        if !tool {
            return;
        }
        if let Some(drag) = &state.stamp.drag {
            self.stamp_cells_ui(painter, &drag.current);
            if let Some(r) = placement_rect(library(), &drag.current) {
                painter.rect_stroke(self.screen_rect(r), 0.0, selected, egui::StrokeKind::Middle);
            }
            ui.ctx().set_cursor_icon(egui::CursorIcon::Grabbing);
            return;
        }
        if hover_hit.is_some() {
            ui.ctx().set_cursor_icon(egui::CursorIcon::Grab);
            return;
        }
        let Some(preview) = hover.and_then(|(x, y)| state.stamp.preview_at(x, y)) else {
            return;
        };
        let Some(r) = placement_rect(library(), &preview) else {
            return;
        };
        self.stamp_cells_ui(painter, &preview);
        let outline = if r.is_inside(width, height) {
            LineStroke::new(1.5, Color32::from_rgba_unmultiplied(255, 255, 255, 230))
        } else {
            LineStroke::new(2.0, Color32::from_rgb(255, 60, 60))
        };
        painter.rect_stroke(self.screen_rect(r), 0.0, outline, egui::StrokeKind::Middle);
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

/// A small "no entry" sign: red disc with a white bar.
fn stop_sign(painter: &egui::Painter, centre: Pos2) {
    painter.circle_filled(centre, 9.0, Color32::from_rgb(210, 30, 30));
    painter.circle_stroke(centre, 9.0, LineStroke::new(1.5, Color32::WHITE));
    painter.rect_filled(
        Rect::from_center_size(centre, vec2(11.0, 3.5)),
        1.0,
        Color32::WHITE,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

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
