//! The goal tool: click a goal and see what units do — the integration heat map, flow
//! arrows, line of sight — and Shift+click a source for its route. The preview itself is
//! computed off the UI thread by [`goal_preview`](crate::app::goal_preview) and drawn as
//! overlays (Overlays > Goal); this tool picks the cells and explains the result.

use egui::{Color32, Pos2, Rect, Stroke as LineStroke, vec2};

use super::{Canvas, EditorTool, ToolCx};
use crate::app::goal_preview::GoalPreview;
use crate::app::state::{EditorState, GoalPick};

/// The goal tool (the pick lives in `EditorState::goal`, which the preview reads).
#[derive(Debug, Default)]
pub struct GoalTool;

/// Whether `cell` cannot be reached from the goal tool's source (or, with no source, from
/// its goal; with neither, whether it is a wall) for the selected type: island ids, a
/// constant-time check.
fn unreachable(state: &EditorState, goal: &GoalPreview, (x, y): (u32, u32)) -> bool {
    let Some(l) = state
        .nav
        .as_deref()
        .and_then(|nav| nav.layers.get(state.selected_type))
    else {
        return false;
    };
    let here = l.islands.island_at(x, y);
    match state.goal.source.or(state.goal.goal) {
        // Different ground islands may be joined by links: the preview's world knows.
        Some((rx, ry)) if here != l.islands.island_at(rx, ry) && here != 0 => !goal
            .reaches(state.selected_type, (rx, ry), (x, y))
            .unwrap_or(false),
        Some((rx, ry)) => here != l.islands.island_at(rx, ry) || here == 0,
        None => here == 0,
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

impl EditorTool for GoalTool {
    fn name() -> &'static str {
        "Goal"
    }

    fn shortcut() -> egui::Key {
        egui::Key::G
    }

    fn description() -> &'static str {
        "Click a goal to see what units do: integration heat map, flow arrows, line of sight; Shift+click a source for its route."
    }

    fn help() -> &'static [(&'static str, &'static str)] {
        &[
            ("Ctrl+click", "add a goal (flow goes to the nearest)"),
            ("Shift+click", "set the source (shows its route)"),
            ("Esc", "clear the goal and source"),
        ]
    }

    fn reads_nav(&self) -> bool {
        true
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        let (state, preview) = (&mut *cx.state, cx.goal);
        ui.weak(
            "Click: goal. Ctrl+click: add a goal (flow goes to the nearest). Shift+click: source (shows its route). Esc: clear. Drag pans.",
        );
        let type_name = state
            .map
            .as_ref()
            .and_then(|m| m.document.movement_types.get(state.selected_type))
            .map_or_else(String::new, |t| t.name.clone());
        ui.label(format!(
            "Movement type: {type_name} (pick it in Movement types)"
        ));
        if state.nav.is_none() {
            ui.weak("Waiting for the bake…");
            return;
        }
        let cell =
            |c: Option<(u32, u32)>| c.map_or_else(|| "—".to_owned(), |(x, y)| format!("{x}, {y}"));
        egui::Grid::new("goal_info").num_columns(2).show(ui, |ui| {
            ui.label("Goal");
            if state.goal.more_goals.is_empty() {
                ui.label(cell(state.goal.goal));
            } else {
                ui.label(format!(
                    "{} goals (first {})",
                    1 + state.goal.more_goals.len(),
                    cell(state.goal.goal)
                ));
            }
            ui.end_row();
            ui.label("Source");
            ui.label(cell(state.goal.source));
            ui.end_row();
            if let Some(r) = &preview.result {
                ui.label("Planned");
                ui.label(format!("{:.1} ms", r.elapsed.as_secs_f64() * 1000.0))
                    .on_hover_text(format!(
                        "Path request, trace and heat map. {} sources requested so far, {} routed sectors on the source's path",
                        r.sources, r.routed_sectors
                    ));
                ui.end_row();
                if let Some(t) = &r.traced {
                    ui.label("Traced");
                    let to = if r.goals.len() > 1 {
                        let k = r.goals.iter().position(|&g| g == t.goal).unwrap_or(0);
                        format!(" to goal {}", k + 1)
                    } else {
                        String::new()
                    };
                    ui.label(format!(
                        "{:.1} cells via {} portals{to}",
                        t.length,
                        r.route_portals.len()
                    ));
                    ui.end_row();
                    if !t.links.is_empty() {
                        ui.label("Links");
                        let ids: Vec<String> =
                            t.links.iter().map(|&(_, id)| format!("link {id}")).collect();
                        ui.label(ids.join(", "))
                            .on_hover_text("The nav links the route takes, in order");
                        ui.end_row();
                    }
                }
            }
        });
        if let Some(problem) = &preview.problem {
            ui.colored_label(Color32::from_rgb(255, 150, 90), problem);
        }
        if (state.goal.goal.is_some() || state.goal.source.is_some())
            && ui.button("Clear goal").clicked()
        {
            state.goal = GoalPick::default();
        }
    }

    fn keys(&mut self, input: &mut egui::InputState, cx: &mut ToolCx<'_>) {
        let esc = egui::KeyboardShortcut::new(egui::Modifiers::NONE, egui::Key::Escape);
        if input.consume_shortcut(&esc) {
            cx.state.goal = GoalPick::default();
        }
    }

    /// Click sets the goal, Ctrl+click adds one to the set, Shift+click sets the source.
    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>) {
        let response = canvas.response;
        if !response.clicked_by(egui::PointerButton::Primary) {
            return;
        }
        let Some(cell) = response
            .interact_pointer_pos()
            .and_then(|p| canvas.map_cell_at(p))
        else {
            return;
        };
        let goal = &mut cx.state.goal;
        let modifiers = canvas.ui.input(|i| i.modifiers);
        if modifiers.shift {
            goal.source = Some(cell);
        } else if modifiers.command || modifiers.ctrl {
            goal.add_goal(cell);
        } else {
            goal.goal = Some(cell);
            goal.more_goals.clear();
        }
    }

    /// A "no entry" sign at the cursor over ground that cannot reach the pick.
    fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, cx: &ToolCx<'_>) {
        if let (Some(p), Some(cell)) = (canvas.response.hover_pos(), canvas.hover_cell)
            && unreachable(cx.state, cx.goal, cell)
        {
            stop_sign(painter, p + vec2(14.0, 14.0));
            canvas.ui.ctx().set_cursor_icon(egui::CursorIcon::NotAllowed);
        }
    }
}
