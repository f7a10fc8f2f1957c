//! The canvas's drawing: overlay textures in their stacking order, nav shapes (portals,
//! flow arrows, route, markers), congestion, agents, the sector grid, stamp outlines, the
//! hovered cell, and then the active tool's own drawing.

use egui::{Color32, Pos2, Rect, Stroke as LineStroke, pos2, vec2};

use super::camera::{ARROW_MIN_PX_PER_CELL, arrow_stride};
use super::{ArrowKey, Viewport};
use crate::app::crowd_jams::link_traffic_text;
use crate::app::crowd_preview::CrowdPreview;
use crate::app::goal_preview::GoalPreview;
use crate::app::model::stamp_placement::{StampRect, library, placement_rect};
use crate::app::overlays::OverlayTextures;
use crate::app::state::EditorState;
use crate::app::tools::command::GATE_COLOUR;
use crate::app::tools::link::end_centre;
use crate::app::tools::stamp::stamp_marker_ui;
use crate::app::tools::{Canvas, ToolCx, Tools};
use crate::nav::{NavData, SectorCost};

impl Viewport {
    /// Draws the canvas after this frame's input, over the background `ui` already filled.
    pub(super) fn draw(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        canvas: &Canvas<'_>,
        tools: &Tools,
        cx: &mut ToolCx<'_>,
        textures: &OverlayTextures,
    ) {
        let (state, goal) = (&*cx.state, cx.goal);
        let rect = self.rect;
        let painter = &ui.painter_at(rect);
        let Some(map) = state.map.as_ref() else {
            return;
        };
        let (width, height) = (map.heightmap.width, map.heightmap.height);
        let map_rect = Rect::from_min_max(
            self.transform.screen_from_cell(rect, (0.0, 0.0)),
            self.transform
                .screen_from_cell(rect, (width as f32, height as f32)),
        );
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
                tex.paint(painter, map_rect, tint);
            }
        }
        if let (true, Some(tex)) = (overlays.islands, &textures.islands) {
            tex.paint(painter, map_rect, Color32::WHITE);
        }
        if let (true, Some(tex)) = (state.goal.goal.is_some(), &textures.goal) {
            tex.paint(painter, map_rect, Color32::WHITE);
        }
        painter.rect_stroke(
            map_rect,
            0.0,
            LineStroke::new(1.0, Color32::from_gray(70)),
            egui::StrokeKind::Outside,
        );
        if let Some(nav) = state.nav.as_deref() {
            self.nav_shapes_ui(painter, rect, map_rect, state, nav, goal);
        }
        let cell_m = map.document.cell_size_m.max(1e-6);
        let crowd = &mut *cx.crowd;
        if crowd.show_congestion
            && let Some(congestion) = crowd.sim().congestion()
        {
            let now = ui.input(|i| i.time);
            let congestion = congestion.clone();
            if let Some(tex) = crowd.congestion_texture.get(ui.ctx(), &congestion, now) {
                tex.paint(painter, map_rect, Color32::WHITE);
            }
        }
        self.agents_ui(painter, rect, crowd, cell_m);
        if crowd.show_congestion {
            link_traffic_ui(painter, canvas, &map.document, crowd);
        }

        let state = &*cx.state;
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
        if overlays.stamps {
            self.stamp_outlines_ui(painter, state);
            // The link tool draws them itself, with its selection.
            if tools.active() != crate::app::tools::Tool::Link {
                crate::app::tools::link::draw_links(painter, canvas, &map.document, None);
            }
        }
        let tool = tools.get(tools.active());
        if let Some((x, y)) = self.hover_cell
            && response.hover_pos().is_some()
            && ppc >= 4.0
            && tool.outlines_hover_cell()
        {
            let a = self.transform.screen_from_cell(rect, (x as f32, y as f32));
            painter.rect_stroke(
                Rect::from_min_size(a, vec2(ppc, ppc)),
                0.0,
                LineStroke::new(1.0, Color32::WHITE),
                egui::StrokeKind::Outside,
            );
        }
        tool.draw(painter, canvas, cx);
    }

    /// Shapes drawn from the nav data: clear sectors, portal windows and graph, flow arrows,
    /// the traced route, and the goal and source markers.
    fn nav_shapes_ui(
        &mut self,
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
            for w in layer.windows.iter() {
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
                    let c = (node.center().0 as f32 + 0.5, node.center().1 as f32 + 0.5);
                    if !in_view(c.0 - 10.0, c.1 - 10.0, c.0 + 10.0, c.1 + 10.0) {
                        continue;
                    }
                    painter.circle_filled(at(c.0, c.1), 2.5, Color32::from_rgb(80, 240, 255));
                    for (target, _) in layer.graph.edges(n as u32) {
                        if (target as usize) <= n {
                            continue;
                        }
                        if let Some(other) = layer.nodes.get(target as usize) {
                            let o = (other.center().0 as f32 + 0.5, other.center().1 as f32 + 0.5);
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
            // Zoomed out, one arrow per block of `stride` × `stride` cells, sampled at the
            // block's centre; blocks aligned to the map so arrows do not shimmer as it pans.
            let stride = arrow_stride(ppc);
            let (x0, y0) = (
                vx0.max(0.0) as u32 / stride * stride,
                vy0.max(0.0) as u32 / stride * stride,
            );
            let (x1, y1) = (
                (vx1.ceil() as u32).min(spec.width),
                (vy1.ceil() as u32).min(spec.height),
            );
            // Walls come from the editor's nav data, which may be newer than the preview's.
            let key = ArrowKey {
                preview: goal.arrows_version(),
                nav: (state.nav_version, state.selected_type),
                cells: (x0, y0, x1, y1),
                stride,
            };
            // Each block's sample cell: its centre, clamped to the map.
            let centre = move |b: u32, end: u32| (b + stride / 2).min(end - 1);
            let blocks = move || {
                (y0..y1)
                    .step_by(stride as usize)
                    .flat_map(move |y| (x0..x1).step_by(stride as usize).map(move |x| (x, y)))
            };
            if self.arrows.key != Some(key) {
                self.arrows.dirs.clear();
                self.arrows.dirs.extend(blocks().map(|(bx, by)| {
                    let (x, y) = (centre(bx, x1), centre(by, y1));
                    let wall = layer.cost.get(x, y) == crate::nav::grid::WALL;
                    let c = (x as f32 + 0.5, y as f32 + 0.5);
                    (!wall).then(|| goal.flow_at(c)).flatten()
                }));
                self.arrows.key = Some(key);
            }
            let size = ppc * stride as f32;
            for ((bx, by), dir) in blocks().zip(&self.arrows.dirs) {
                let Some((dx, dy)) = *dir else {
                    continue;
                };
                let (x, y) = (centre(bx, x1), centre(by, y1));
                let c = (x as f32 + 0.5, y as f32 + 0.5);
                let half = 0.35 * stride as f32;
                let tail = at(c.0 - dx * half, c.1 - dy * half);
                let tip = at(c.0 + dx * half, c.1 + dy * half);
                painter.line_segment([tail, tip], arrow);
                let back = vec2(-dx, -dy) * (size * 0.22);
                let side = vec2(-dy, dx) * (size * 0.13);
                painter.line_segment([tip, tip + back + side], arrow);
                painter.line_segment([tip, tip + back - side], arrow);
            }
        }
        if let Some(traced) = &result.traced {
            // The pulled string: straight segments between the points it turns at.
            let points: Vec<Pos2> = traced
                .points
                .iter()
                .map(|&(x, y)| at(x as f32, y as f32))
                .collect();
            painter.add(egui::Shape::line(
                points,
                LineStroke::new(3.0, Color32::from_rgb(255, 70, 200)),
            ));
        }
        if let Some(traced) = &result.traced {
            // The links the route takes: the jump from entry to exit, with the link's id.
            let link = Color32::from_rgb(90, 220, 255);
            for &(k, id) in &traced.links {
                let (Some(&a), Some(&b)) = (traced.cells.get(k), traced.cells.get(k + 1)) else {
                    continue;
                };
                let (pa, pb) = (
                    at(a.0 as f32 + 0.5, a.1 as f32 + 0.5),
                    at(b.0 as f32 + 0.5, b.1 as f32 + 0.5),
                );
                painter.line_segment([pa, pb], LineStroke::new(5.0, link));
                painter.text(
                    pa + (pb - pa) * 0.5 + vec2(8.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    format!("link {id}"),
                    egui::FontId::proportional(13.0),
                    link,
                );
            }
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
        for (centre, radius_m) in crowd.sim().crossings() {
            crossing_ui(painter, to_screen(centre), radius_m / cell_m * ppc);
        }
        let mut mesh = egui::Mesh::default();
        for i in 0..agents.len() {
            let c = to_screen(agents.pos_world[i]);
            if !visible.contains(c) {
                continue;
            }
            let r = (agents.radius_m[i] / cell_m * ppc).max(2.5);
            let h = agents.heading[i];
            let dir = vec2(h.x, h.y);
            let side = vec2(-h.y, h.x);
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
        let stuck_ring = LineStroke::new(
            1.5,
            crate::app::crowd_preview::state_colour(crate::crowd::AgentState::Stuck),
        );
        for i in 0..agents.len() {
            if agents.state[i] == crate::crowd::AgentState::Stuck {
                let c = to_screen(agents.pos_world[i]);
                if visible.contains(c) {
                    let r = (agents.radius_m[i] / cell_m * ppc).max(2.5);
                    painter.circle_stroke(c, r * 2.2, stuck_ring);
                }
            }
        }
        // Each standing move order's spot, as an RTS marks a right-click: a ringed cross.
        for target in crowd.order_targets() {
            let c = to_screen(target);
            if visible.contains(c) {
                crate::app::tools::command::order_marker_ui(painter, c);
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

    /// Screen rectangle of a stamp footprint.
    fn screen_rect(&self, r: StampRect) -> Rect {
        let t = self.transform;
        Rect::from_min_max(
            t.screen_from_cell(self.rect, (r.x0 as f32, r.y0 as f32)),
            t.screen_from_cell(self.rect, (r.x1 as f32, r.y1 as f32)),
        )
    }

    /// The Stamps overlay: placed stamps' outlines (at least `MIN_STAMP_PX` wide, so they
    /// show at fit zoom), with their ids where there is room.
    fn stamp_outlines_ui(&self, painter: &egui::Painter, state: &EditorState) {
        let Some(map) = state.map.as_ref() else {
            return;
        };
        let thin = LineStroke::new(1.0, Color32::from_rgba_unmultiplied(255, 255, 255, 200));
        for placement in &map.document.stamps {
            let Some(r) = placement_rect(library(), placement) else {
                continue;
            };
            let screen = self.screen_rect(r);
            if !screen.intersects(self.rect) {
                continue;
            }
            stamp_marker_ui(painter, screen, thin);
            if screen.width() >= 36.0 && screen.height() >= 14.0 {
                painter.text(
                    screen.min + vec2(3.0, 2.0),
                    egui::Align2::LEFT_TOP,
                    &placement.stamp,
                    egui::FontId::proportional(11.0),
                    Color32::from_rgba_unmultiplied(255, 255, 255, 220),
                );
            }
        }
    }
}

/// On the congestion view, each link agents have used, labelled with its traffic (see
/// [`link_traffic_text`]) in the gates' colour beside its middle: the cells record where
/// agents wait, the label how many the link carries.
fn link_traffic_ui(
    painter: &egui::Painter,
    canvas: &Canvas<'_>,
    doc: &crate::map::MapDocument,
    crowd: &CrowdPreview,
) {
    let (flows, now) = (crowd.sim().link_flows(), crowd.sim_secs());
    for link in &doc.links {
        let Some(flow) = flows.get(&link.id) else {
            continue;
        };
        let (a, b) = (end_centre(canvas, &link.a), end_centre(canvas, &link.b));
        let galley = painter.layout_no_wrap(
            link_traffic_text(flow, now),
            egui::FontId::proportional(13.0),
            GATE_COLOUR,
        );
        let at = a + (b - a) * 0.5 + vec2(10.0, -galley.size().y / 2.0);
        let back = Rect::from_min_size(at, galley.size()).expand(2.0);
        painter.rect_filled(back, 2.0, Color32::from_black_alpha(170));
        painter.galley(at, galley, GATE_COLOUR);
    }
}

/// A crossing the crowd plans where three or more groups meet (`navstudio_crowd`'s
/// `simulation/crossings.rs`): its disc, dashed, with chevrons along it in the sense the
/// groups turn round it (counter-clockwise on screen: each passes it on its left).
fn crossing_ui(painter: &egui::Painter, c: Pos2, radius_px: f32) {
    let r = radius_px.max(6.0);
    let colour = Color32::from_rgba_unmultiplied(255, 255, 255, 170);
    let points: Vec<Pos2> = (0..=48)
        .map(|k| {
            let a = k as f32 / 48.0 * std::f32::consts::TAU;
            c + vec2(a.cos(), a.sin()) * r
        })
        .collect();
    painter.extend(egui::Shape::dashed_line(
        &points,
        LineStroke::new(1.5, colour),
        6.0,
        4.0,
    ));
    let size = (0.25 * r).clamp(4.0, 9.0);
    for k in 0..4 {
        let a = (k as f32 + 0.5) * std::f32::consts::FRAC_PI_2;
        let on = c + vec2(a.cos(), a.sin()) * r;
        // Counter-clockwise on screen (y down): the way of decreasing angle.
        let ahead = vec2(a.sin(), -a.cos());
        let side = vec2(-ahead.y, ahead.x);
        let tip = on + ahead * size * 0.5;
        let stroke = LineStroke::new(2.0, colour);
        painter.line_segment([tip, tip - ahead * size + side * size * 0.6], stroke);
        painter.line_segment([tip, tip - ahead * size - side * size * 0.6], stroke);
    }
}
