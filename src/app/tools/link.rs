//! The link tool: nav links (bridges, ferries, ramps, ladders, teleporters, drops) between
//! two places of the map. Click the entry end, then the exit end, to add a link with the
//! options shown; click an end to select its link, drag an end to move it, Delete removes
//! the selected link, Esc cancels. The options edit the selected link, or the next one when
//! none is selected. Every edit is one command (`AddLink`, `RemoveLink`, `EditLink`).
//! Links are drawn on the map for every tool: their ends, and an arrow for each way they
//! may be taken.

use egui::{Color32, Pos2, Rect, RichText, Stroke as LineStroke};

use super::{Canvas, EditorTool, ToolCx};
use crate::app::model::commands::Command;
use crate::map::{MapDocument, MapLink};
use crate::nav::links::{LinkCost, LinkEnd, LinkKind};

/// An end being dragged: the link, which end, and where it is now (cells).
#[derive(Clone, Debug)]
struct EndDrag {
    index: usize,
    end_b: bool,
    before: MapLink,
    at: LinkEnd,
}

/// The link tool's state.
#[derive(Debug)]
pub struct LinkTool {
    /// The entry end clicked, waiting for the exit.
    pending: Option<(u32, u32)>,
    /// The selected link (index into `document.links`).
    selected: Option<usize>,
    drag: Option<EndDrag>,
    /// The options of the next link added.
    template: MapLink,
}

impl Default for LinkTool {
    fn default() -> Self {
        Self {
            pending: None,
            selected: None,
            drag: None,
            template: MapLink::walk(0, (0, 0), (0, 0)),
        }
    }
}

/// The link and end (`true` for `b`) whose block holds `cell`, the last drawn first.
#[must_use]
pub fn hit_end(links: &[MapLink], cell: (i32, i32)) -> Option<(usize, bool)> {
    let inside = |e: &LinkEnd| {
        cell.0 >= e.x as i32
            && cell.1 >= e.y as i32
            && cell.0 < (e.x + e.w) as i32
            && cell.1 < (e.y + e.h) as i32
    };
    links.iter().enumerate().rev().find_map(|(i, l)| {
        if inside(&l.b) {
            Some((i, true))
        } else if inside(&l.a) {
            Some((i, false))
        } else {
            None
        }
    })
}

/// One line about a link for Inspect and the options: kind, ways, width, who may use it.
#[must_use]
pub fn describe(link: &MapLink) -> String {
    let kind = match link.kind {
        LinkKind::Walk => "walk".to_owned(),
        LinkKind::Ride { capacity, period_s } => format!("ride, {capacity} per {period_s} s"),
        LinkKind::Teleport { time_s } => format!("teleport, {time_s} s"),
        LinkKind::Drop => "drop".to_owned(),
    };
    let cost = match link.cost {
        LinkCost::PerMetre(c) => format!("cost {c}/m"),
        LinkCost::Direct(c) => format!("cost {c}"),
        LinkCost::Time(s) => format!("cost {s} s"),
    };
    let types = if link.types.is_empty() {
        "all types".to_owned()
    } else {
        link.types.join("+")
    };
    format!(
        "link {} ({kind}, {}, {:.1} m wide, {cost}, {types}{})",
        link.id,
        if link.two_way { "both ways" } else { "one way" },
        link.width_m,
        if link.enabled { "" } else { ", disabled" }
    )
}

/// The end's block centred on `cell`, keeping its size, inside the map.
fn end_at(end: LinkEnd, cell: (i32, i32), size: (u32, u32)) -> LinkEnd {
    let x = (cell.0 - (end.w as i32 - 1) / 2).clamp(0, size.0.saturating_sub(end.w) as i32);
    let y = (cell.1 - (end.h as i32 - 1) / 2).clamp(0, size.1.saturating_sub(end.h) as i32);
    LinkEnd {
        x: x as u32,
        y: y as u32,
        ..end
    }
}

fn end_rect(canvas: &Canvas<'_>, e: &LinkEnd) -> Rect {
    Rect::from_min_max(
        canvas.screen_from_cell((e.x as f32, e.y as f32)),
        canvas.screen_from_cell(((e.x + e.w) as f32, (e.y + e.h) as f32)),
    )
}

/// The centre of a link end's block on screen.
pub fn end_centre(canvas: &Canvas<'_>, e: &LinkEnd) -> Pos2 {
    end_rect(canvas, e).center()
}

/// An arrow from `a` to `b` with its head at `b`.
fn arrow(painter: &egui::Painter, a: Pos2, b: Pos2, stroke: LineStroke) {
    painter.line_segment([a, b], stroke);
    let d = b - a;
    let len = d.length();
    if len < 1.0 {
        return;
    }
    let dir = d / len;
    let side = egui::vec2(-dir.y, dir.x);
    let head = (len * 0.25).clamp(5.0, 12.0);
    let back = b - dir * head;
    painter.line_segment([b, back + side * head * 0.5], stroke);
    painter.line_segment([b, back - side * head * 0.5], stroke);
}

/// Draws every link of `doc`: its ends' blocks, an arrow for each way it may be taken and
/// its id; `selected` brighter, disabled links grey.
pub fn draw_links(
    painter: &egui::Painter,
    canvas: &Canvas<'_>,
    doc: &MapDocument,
    selected: Option<usize>,
) {
    for (i, link) in doc.links.iter().enumerate() {
        let colour = if !link.enabled {
            Color32::from_gray(150)
        } else if selected == Some(i) {
            Color32::from_rgb(255, 230, 90)
        } else {
            Color32::from_rgb(90, 220, 255)
        };
        let width = if selected == Some(i) { 3.0 } else { 2.0 };
        let stroke = LineStroke::new(width, colour);
        for e in [&link.a, &link.b] {
            painter.rect_stroke(
                end_rect(canvas, e),
                1.0,
                stroke,
                egui::StrokeKind::Middle,
            );
        }
        let (a, b) = (end_centre(canvas, &link.a), end_centre(canvas, &link.b));
        // Two-way: a head at each end; one way: at the exit only.
        arrow(painter, a, b, stroke);
        if link.two_way {
            arrow(painter, b, a, stroke);
        }
        painter.text(
            a + (b - a) * 0.5,
            egui::Align2::CENTER_CENTER,
            format!("{}", link.id),
            egui::FontId::monospace(11.0),
            colour,
        );
    }
}

impl LinkTool {
    /// The selected link's index, if it still exists (undo may have removed it).
    fn selected(&self, doc: &MapDocument) -> Option<usize> {
        self.selected.filter(|&i| i < doc.links.len())
    }

    /// Adds a link from `a` to `b` with the template's options and selects it.
    fn add(&mut self, cx: &mut ToolCx<'_>, a: (u32, u32), b: (u32, u32)) {
        let Some(map) = cx.state.map.as_ref() else {
            return;
        };
        let links = &map.document.links;
        let id = links.iter().map(|l| l.id).max().map_or(1, |m| m + 1);
        let mut link = self.template.clone();
        link.id = id;
        // The options name types by name, and a type may have been deleted or renamed since
        // they were set: keep the names the map has (none left means every type, as a
        // link's empty list does).
        let known = |t: &String| map.document.movement_types.iter().any(|m| m.name == *t);
        link.types.retain(known);
        self.template.types.retain(known);
        link.a = LinkEnd::cell(a.0, a.1);
        link.b = LinkEnd::cell(b.0, b.1);
        if link.kind == LinkKind::Drop {
            link.two_way = false;
        }
        let index = links.len();
        cx.state.execute(Command::AddLink { index, link });
        self.selected = Some(index);
    }

    /// Deletes the selected link.
    fn delete_selected(&mut self, cx: &mut ToolCx<'_>) {
        let Some(map) = cx.state.map.as_ref() else {
            return;
        };
        let Some(index) = self.selected(&map.document) else {
            return;
        };
        let link = map.document.links[index].clone();
        self.selected = None;
        self.drag = None;
        cx.state.execute(Command::RemoveLink { index, link });
    }
}

/// The options of `link` (kind, ways, width, cost, movement types); `true` when changed.
fn link_options_ui(ui: &mut egui::Ui, link: &mut MapLink, type_names: &[String]) -> bool {
    let before = link.clone();
    egui::Grid::new("link_options")
        .num_columns(2)
        .spacing([8.0, 3.0])
        .show(ui, |ui| {
            ui.label("Kind");
            ui.horizontal_wrapped(|ui| {
                let kinds = [
                    ("Walk", LinkKind::Walk, "Walked along: a bridge, ramp or ladder"),
                    (
                        "Ride",
                        LinkKind::Ride {
                            capacity: 10,
                            period_s: 30.0,
                        },
                        "A ferry: agents wait, board up to its capacity, leave every period",
                    ),
                    (
                        "Teleport",
                        LinkKind::Teleport { time_s: 1.0 },
                        "Agents vanish at the entry and appear at the exit",
                    ),
                    ("Drop", LinkKind::Drop, "One way down (a cliff, a ledge)"),
                ];
                for (name, kind, tip) in kinds {
                    let on = std::mem::discriminant(&link.kind) == std::mem::discriminant(&kind);
                    if ui.selectable_label(on, name).on_hover_text(tip).clicked() && !on {
                        link.kind = kind;
                        if kind == LinkKind::Drop {
                            link.two_way = false;
                        }
                    }
                }
            });
            ui.end_row();
            match &mut link.kind {
                LinkKind::Ride { capacity, period_s } => {
                    let label = ui.label("Capacity");
                    ui.horizontal(|ui| {
                        ui.add(egui::DragValue::new(capacity).range(1..=1000).suffix(" agents"))
                            .labelled_by(label.id);
                        let every = ui.label("every");
                        ui.add(egui::DragValue::new(period_s).range(0.5..=3600.0).suffix(" s"))
                            .labelled_by(every.id)
                            .on_hover_text("Seconds between departures; a crossing takes half");
                    });
                    ui.end_row();
                }
                LinkKind::Teleport { time_s } => {
                    let label = ui.label("Time");
                    ui.add(egui::DragValue::new(time_s).range(0.0..=600.0).suffix(" s"))
                        .labelled_by(label.id);
                    ui.end_row();
                }
                LinkKind::Walk | LinkKind::Drop => {}
            }
            // One row for both switches keeps the options within the tool options area.
            ui.label("Use");
            ui.horizontal(|ui| {
                ui.add_enabled(
                    link.kind != LinkKind::Drop,
                    egui::Checkbox::new(&mut link.two_way, "both ways"),
                )
                .on_hover_text("Off: only from the first end to the second (the arrow)");
                ui.checkbox(&mut link.enabled, "enabled")
                    .on_hover_text("A disabled link stays on the map but nobody takes it");
            });
            ui.end_row();
            let label = ui.label("Width");
            ui.add(
                egui::DragValue::new(&mut link.width_m)
                    .range(0.1..=100.0)
                    .speed(0.1)
                    .suffix(" m"),
            )
            .labelled_by(label.id)
            .on_hover_text("How many agents use it side by side");
            ui.end_row();
            let label = ui.label("Cost");
            ui.horizontal(|ui| {
                let (mut mode, mut value) = match link.cost {
                    LinkCost::PerMetre(v) => (0, v),
                    LinkCost::Direct(c) => (1, c as f32),
                    LinkCost::Time(s) => (2, s),
                };
                egui::ComboBox::new("link_cost_mode", "")
                    .selected_text(["per metre", "direct", "time"][mode])
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut mode, 0, "per metre")
                            .on_hover_text("Length × this; 1 costs as clear ground");
                        ui.selectable_value(&mut mode, 1, "direct")
                            .on_hover_text("Cost units (clear cells crossed), whatever the length");
                        ui.selectable_value(&mut mode, 2, "time")
                            .on_hover_text("Seconds, at a walking unit's 4 m/s");
                    })
                    .response
                    .labelled_by(label.id);
                ui.add(egui::DragValue::new(&mut value).range(0.0..=100_000.0).speed(0.1))
                    .labelled_by(label.id);
                link.cost = match mode {
                    0 => LinkCost::PerMetre(value),
                    1 => LinkCost::Direct(value.round() as u32),
                    _ => LinkCost::Time(value),
                };
            });
            ui.end_row();
            ui.label("Types");
            ui.horizontal_wrapped(|ui| {
                for name in type_names {
                    let mut on = link.types.is_empty() || link.types.contains(name);
                    if ui.checkbox(&mut on, name.as_str()).changed() {
                        let mut types: Vec<String> = if link.types.is_empty() {
                            type_names.to_vec()
                        } else {
                            link.types.clone()
                        };
                        if on {
                            types.push(name.clone());
                        } else {
                            types.retain(|t| t != name);
                        }
                        // Every type named is the same as none named.
                        types.sort_by_key(|t| type_names.iter().position(|n| n == t));
                        types.dedup();
                        link.types = if types.len() == type_names.len() {
                            Vec::new()
                        } else {
                            types
                        };
                    }
                }
            });
            ui.end_row();
        });
    *link != before
}

impl EditorTool for LinkTool {
    fn name() -> &'static str {
        "Link"
    }

    fn shortcut() -> egui::Key {
        egui::Key::L
    }

    fn description() -> &'static str {
        "Connect two places with a nav link (bridge, ferry, ramp, ladder, teleporter, drop): click the entry, then the exit; click an end to select, drag it to move, Delete removes."
    }

    fn help() -> &'static [(&'static str, &'static str)] {
        &[
            ("Delete / Backspace", "remove the selected link"),
            ("Esc", "cancel the first end, or deselect"),
        ]
    }

    fn edits_document() -> bool {
        true
    }

    fn status_hint(&self) -> &'static str {
        "Click the entry end of a new link, then its exit; click an end to select its link."
    }

    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        ui.weak(
            "Click: the entry end, then the exit end. Click an end: select. Drag an end: move. \
             Delete: remove. Esc: cancel or deselect.",
        );
        let Some(map) = cx.state.map.as_ref() else {
            return;
        };
        let doc = &map.document;
        let type_names: Vec<String> = doc.movement_types.iter().map(|t| t.name.clone()).collect();
        if let Some(a) = self.pending {
            ui.label(format!("Entry at {}, {}: click the exit.", a.0, a.1));
        }
        match self.selected(doc) {
            Some(index) => {
                let before = doc.links[index].clone();
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(format!("Selected: link {}", before.id)).strong());
                    ui.label(format!(
                        "from ({}, {}) to ({}, {})",
                        before.a.x, before.a.y, before.b.x, before.b.y
                    ));
                });
                let mut after = before.clone();
                if link_options_ui(ui, &mut after, &type_names) {
                    let dragging = ui.input(|i| i.pointer.primary_down());
                    let command = Command::EditLink {
                        index,
                        before,
                        after,
                    };
                    if dragging {
                        cx.state.execute_continuing(command);
                    } else {
                        cx.state.execute(command);
                    }
                }
                ui.horizontal(|ui| {
                    if ui.button("Delete").on_hover_text("Remove it (Delete)").clicked() {
                        self.delete_selected(cx);
                    }
                    if ui.button("Deselect").on_hover_text("Esc").clicked() {
                        self.selected = None;
                    }
                });
            }
            None => {
                ui.label(RichText::new("Next link").strong());
                link_options_ui(ui, &mut self.template, &type_names);
            }
        }
        if let Some(map) = cx.state.map.as_ref()
            && !map.document.links.is_empty()
        {
            ui.add_space(4.0);
            // Wrapped ids, each described on hover: many links still take a few rows.
            let mut pick = None;
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new("Links").strong());
                for (i, link) in map.document.links.iter().enumerate() {
                    let on = self.selected == Some(i);
                    if ui
                        .selectable_label(on, format!("link {}", link.id))
                        .on_hover_text(describe(link))
                        .clicked()
                    {
                        pick = Some(i);
                    }
                }
            });
            if pick.is_some() {
                self.selected = pick;
            }
        }
    }

    fn keys(&mut self, input: &mut egui::InputState, cx: &mut ToolCx<'_>) {
        let plain = |key| egui::KeyboardShortcut::new(egui::Modifiers::NONE, key);
        if input.consume_shortcut(&plain(egui::Key::Delete))
            || input.consume_shortcut(&plain(egui::Key::Backspace))
        {
            self.delete_selected(cx);
        }
        if input.consume_shortcut(&plain(egui::Key::Escape)) {
            if self.pending.is_some() {
                self.pending = None;
            } else {
                self.selected = None;
            }
            self.drag = None;
        }
    }

    /// A press on an end starts dragging it (one command on release); a click on an end
    /// selects its link; other clicks set the new link's entry, then its exit.
    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>) {
        let (ui, response) = (canvas.ui, canvas.response);
        let primary = egui::PointerButton::Primary;
        let Some(map) = cx.state.map.as_ref() else {
            return;
        };
        let links = &map.document.links;
        if response.drag_started_by(primary)
            && self.drag.is_none()
            && let Some(origin) = ui.input(|i| i.pointer.press_origin())
            && let Some((index, end_b)) = hit_end(links, canvas.cell_at(origin))
        {
            let before = links[index].clone();
            let at = if end_b { before.b } else { before.a };
            self.selected = Some(index);
            self.drag = Some(EndDrag {
                index,
                end_b,
                before,
                at,
            });
        }
        if let Some(drag) = self.drag.as_mut()
            && let Some(p) = canvas.pointer()
        {
            drag.at = end_at(drag.at, canvas.cell_at(p), canvas.size);
        }
        let released = response.drag_stopped_by(primary) || !ui.input(|i| i.pointer.primary_down());
        if released && let Some(drag) = self.drag.take() {
            let mut after = drag.before.clone();
            if drag.end_b {
                after.b = drag.at;
            } else {
                after.a = drag.at;
            }
            if after != drag.before {
                cx.state.execute(Command::EditLink {
                    index: drag.index,
                    before: drag.before,
                    after,
                });
            }
            return;
        }
        if response.clicked_by(primary)
            && let Some(p) = response.interact_pointer_pos()
        {
            let Some(map) = cx.state.map.as_ref() else {
                return;
            };
            if self.pending.is_none()
                && let Some((index, _)) = hit_end(&map.document.links, canvas.cell_at(p))
            {
                self.selected = Some(index);
                return;
            }
            let Some(cell) = canvas.map_cell_at(p) else {
                return;
            };
            match self.pending.take() {
                None => {
                    self.pending = Some(cell);
                    self.selected = None;
                }
                Some(a) if a != cell => self.add(cx, a, cell),
                Some(_) => {}
            }
        }
    }

    fn release(&mut self, _cx: &mut ToolCx<'_>) {
        self.drag = None;
    }

    fn owns_primary_drag(&self, _cx: &ToolCx<'_>) -> bool {
        self.drag.is_some()
    }

    /// The selected link brighter, the entry waiting for its exit, a dragged end's new place.
    fn draw(&self, painter: &egui::Painter, canvas: &Canvas<'_>, cx: &ToolCx<'_>) {
        let Some(map) = cx.state.map.as_ref() else {
            return;
        };
        let doc = &map.document;
        draw_links(painter, canvas, doc, self.selected(doc));
        let ghost = LineStroke::new(2.0, Color32::from_rgb(255, 160, 60));
        if let Some(a) = self.pending {
            let e = LinkEnd::cell(a.0, a.1);
            painter.rect_stroke(end_rect(canvas, &e), 1.0, ghost, egui::StrokeKind::Middle);
            if let Some(p) = canvas.response.hover_pos() {
                arrow(painter, end_centre(canvas, &e), p, ghost);
            }
        }
        if let Some(drag) = &self.drag {
            painter.rect_stroke(
                end_rect(canvas, &drag.at),
                1.0,
                ghost,
                egui::StrokeKind::Middle,
            );
        }
    }
}
