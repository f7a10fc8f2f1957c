//! The editor's frame layout: menu bar, status bar, side panels, the viewport, and the
//! Help, path and confirmation windows. Drawing only; state changes go through `App`.

use std::path::PathBuf;

use egui::{Color32, RichText};

use super::panels::{self, BakeAction, BakeView};
use super::tools::{ToolCx, Tools, inspect_cell};
use super::{App, FileAction};

/// The Help window's lines after the tools' own (which come from the list of tools):
/// (keys, what they do).
const SHORTCUTS: [(&str, &str); 11] = [
    ("P", "Crowd: play / pause"),
    (".", "Crowd: one step"),
    ("F / Home", "Fit the map in the view"),
    (
        "Shift+F",
        "Frame the selected agents (all when none is selected)",
    ),
    ("Wheel", "Zoom at the cursor"),
    ("Middle / right drag, Space + drag", "Pan"),
    ("Ctrl+Z", "Undo"),
    ("Ctrl+Shift+Z / Ctrl+Y", "Redo"),
    ("Ctrl+S", "Save"),
    ("Ctrl+O", "Open"),
    ("F1", "This help"),
];

impl App {
    pub(super) fn ui_impl(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("menu_bar").show(ui, |ui| self.menu_bar_ui(ui));
        egui::Panel::bottom("status_bar").show(ui, |ui| self.status_bar_ui(ui));
        egui::Panel::left("left_panel")
            .resizable(true)
            .default_size(310.0)
            .min_size(220.0)
            .show(ui, |ui| {
                // Scrolling both ways, never shrinking: a tool whose settings are wider than
                // the panel scrolls inside it instead of widening it and moving the map.
                egui::ScrollArea::both().auto_shrink(false).show(ui, |ui| {
                    section(ui, "Tools", true, |ui| {
                        let mut cx = ToolCx {
                            state: &mut self.state,
                            crowd: &mut self.crowd,
                            goal: &self.goal_preview,
                        };
                        panels::tools_ui(ui, &mut self.tools, &mut cx);
                    });
                    // Map (folded) before the long Overlays list, so its header is in view.
                    section(ui, "Map", false, |ui| {
                        panels::map_settings_ui(ui, &mut self.state)
                    });
                    section(ui, "Overlays", true, |ui| {
                        panels::overlays_ui(ui, &mut self.state)
                    });
                });
            });
        egui::Panel::right("right_panel")
            .resizable(true)
            .default_size(340.0)
            .min_size(280.0)
            .show(ui, |ui| {
                crowd_toolbar_ui(ui, &mut self.crowd);
                ui.separator();
                egui::ScrollArea::both().auto_shrink(false).show(ui, |ui| {
                    section(ui, "Movement types", true, |ui| {
                        self.movement_panel.ui(ui, &mut self.state)
                    });
                    // The crowd before the bake: the bake runs by itself after every edit,
                    // and its progress also shows in the status bar.
                    section(ui, "Crowd", true, |ui| {
                        super::panels::crowd::crowd_panel_ui(ui, &mut self.crowd);
                    });
                    section(ui, "Bake", true, |ui| self.bake_panel_ui(ui));
                    section(ui, "Scenarios", true, |ui| {
                        let map_path = self.state.map.as_ref().and_then(|m| m.path.as_deref());
                        super::panels::scenarios::scenario_panel_ui(
                            ui,
                            &mut self.scenario_panel,
                            &mut self.crowd,
                            map_path,
                        );
                    });
                });
            });
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| {
                let mut cx = ToolCx {
                    state: &mut self.state,
                    crowd: &mut self.crowd,
                    goal: &self.goal_preview,
                };
                self.viewport
                    .ui(ui, &mut self.tools, &mut cx, &self.textures);
            });
        let ctx = ui.ctx().clone();
        self.windows_ui(&ctx);
        // A panel's gesture (a slider drag, typing in a field) is one undo step: it ends once
        // the pointer is up and no field has the keyboard.
        if !ctx.input(|i| i.pointer.any_down()) && !ctx.text_edit_focused() {
            self.state.end_gesture();
        }
        self.perf.end();
    }

    fn bake_panel_ui(&mut self, ui: &mut egui::Ui) {
        let (w, h) = self.state.map_size();
        let view = BakeView {
            busy: self.worker.is_busy(),
            progress: self.worker.progress(),
            baked: self.state.baked.as_ref(),
            full_timings: &self.full_timings,
            cell_count: w as usize * h as usize,
            current: self.state.bake_is_current(),
            read_only: self.state.read_only.is_some(),
        };
        match panels::bake_ui(ui, &view, &mut self.auto_rebake) {
            Some(BakeAction::Bake) => self.start_full_bake(),
            Some(BakeAction::Cancel) => self.worker.cancel(),
            Some(BakeAction::Export) => self.request(FileAction::ExportPackage),
            None => {}
        }
    }

    fn menu_bar_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("New from heightmap…").clicked() {
                    self.request(FileAction::NewFromHeightmap);
                }
                if ui
                    .add(egui::Button::new("Open…").shortcut_text("Ctrl+O"))
                    .clicked()
                {
                    self.request(FileAction::Open);
                }
                let recent = self.recent.paths.clone();
                ui.add_enabled_ui(!recent.is_empty(), |ui| {
                    ui.menu_button("Open recent", |ui| {
                        for path in recent {
                            // The name, then its folder (two maps may share a name).
                            let name = path
                                .file_name()
                                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                            let folder = path
                                .parent()
                                .map_or_else(String::new, |p| p.display().to_string());
                            let mut text = egui::text::LayoutJob::default();
                            text.append(&name, 0.0, egui::TextFormat::default());
                            text.append(
                                &format!("  {folder}"),
                                0.0,
                                egui::TextFormat {
                                    color: Color32::from_gray(140),
                                    ..Default::default()
                                },
                            );
                            let button = ui
                                .add_enabled(path.exists(), egui::Button::new(text))
                                .on_hover_text(path.display().to_string())
                                .on_disabled_hover_text(format!(
                                    "{} no longer exists",
                                    path.display()
                                ));
                            if button.clicked() {
                                self.request(FileAction::OpenPath(path));
                            }
                        }
                    });
                });
                ui.separator();
                let has_map = self.state.map.is_some();
                if ui
                    .add_enabled(has_map, egui::Button::new("Save").shortcut_text("Ctrl+S"))
                    .clicked()
                {
                    self.request(FileAction::Save);
                }
                if ui
                    .add_enabled(has_map, egui::Button::new("Save As…"))
                    .clicked()
                {
                    self.request(FileAction::SaveAs);
                }
                if ui
                    .add_enabled(
                        self.state.nav.is_some(),
                        egui::Button::new("Export nav package…"),
                    )
                    .clicked()
                {
                    self.request(FileAction::ExportPackage);
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    self.request(FileAction::Quit);
                }
            });
            ui.menu_button("Edit", |ui| {
                let undo = self
                    .state
                    .history
                    .next_undo()
                    .map(super::model::commands::Command::label);
                let redo = self
                    .state
                    .history
                    .next_redo()
                    .map(super::model::commands::Command::label);
                let undo_text = undo.map_or_else(|| "Undo".to_owned(), |l| format!("Undo {l}"));
                let redo_text = redo.map_or_else(|| "Redo".to_owned(), |l| format!("Redo {l}"));
                if ui
                    .add_enabled(
                        undo.is_some(),
                        egui::Button::new(undo_text).shortcut_text("Ctrl+Z"),
                    )
                    .clicked()
                {
                    self.state.undo();
                }
                if ui
                    .add_enabled(
                        redo.is_some(),
                        egui::Button::new(redo_text).shortcut_text("Ctrl+Shift+Z"),
                    )
                    .clicked()
                {
                    self.state.redo();
                }
            });
            ui.menu_button("View", |ui| {
                if ui
                    .add(egui::Button::new("Fit map").shortcut_text("F"))
                    .clicked()
                {
                    self.viewport.fit_requested = true;
                }
                if ui
                    .add(egui::Button::new("Frame agents").shortcut_text("Shift+F"))
                    .on_hover_text("Zoom onto the selected agents, or onto all agents")
                    .clicked()
                {
                    self.frame_agents_or_say();
                }
                ui.checkbox(&mut self.perf.open, "Performance");
            });
            ui.menu_button("Help", |ui| {
                if ui
                    .add(egui::Button::new("Keyboard shortcuts").shortcut_text("F1"))
                    .clicked()
                {
                    self.show_help = true;
                }
            });
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if let Some(map) = &self.state.map {
                    let star = if self.state.is_modified() { " •" } else { "" };
                    let (name, path) = match (&self.state.read_only, &map.path) {
                        (Some(package), _) => (
                            format!("{} (read-only package)", map.document.name),
                            package.display().to_string(),
                        ),
                        (None, Some(p)) => (map.document.name.clone(), p.display().to_string()),
                        (None, None) => (map.document.name.clone(), "not saved yet".to_owned()),
                    };
                    ui.label(RichText::new(format!("{name}{star}")).strong())
                        .on_hover_text(path);
                }
            });
        });
    }

    fn status_bar_ui(&mut self, ui: &mut egui::Ui) {
        // The zoom on the right first; the cell's read-out gets the rest and is cut off at
        // it rather than drawn over it ("island 1" next to "118 %" read "island 1118 %").
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.monospace(format!(
                "{:.0} %",
                self.viewport.transform.px_per_cell * 100.0
            ));
            if self.worker.is_busy() {
                ui.weak("baking");
                ui.spinner();
            }
            ui.separator();
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                ui.set_clip_rect(ui.max_rect().intersect(ui.clip_rect()));
                self.status_read_out_ui(ui);
            });
        });
    }

    /// The status bar's read-out of the hovered cell, or the active tool's hint.
    fn status_read_out_ui(&self, ui: &mut egui::Ui) {
        {
            let info = self.viewport.hover_cell.and_then(|(x, y)| {
                let map = self.state.map.as_ref()?;
                inspect_cell(map, self.state.baked.as_ref(), x, y)
            });
            match info {
                Some(info) => {
                    ui.monospace(format!("cell {:>4}, {:<4}", info.x, info.y));
                    ui.separator();
                    ui.monospace(format!("{:.1}, {:.1} m", info.world_m.0, info.world_m.1));
                    ui.separator();
                    if self.state.read_only.is_none() {
                        // A nav package carries no heights or slopes.
                        ui.monospace(format!("height {:.2} m", info.height_m));
                        ui.separator();
                    }
                    match info.slope_deg {
                        Some(s) => ui.monospace(format!("slope {s:.1}°")),
                        None => ui.monospace("slope –"),
                    };
                    ui.separator();
                    // The island of the selected movement type: cells of one id reach
                    // each other (0: a wall), as the Islands overlay colours them. Before
                    // the costs, so a narrow window cuts off the sector instead.
                    let ty = self.state.selected_type;
                    if let Some(l) = self.state.nav.as_ref().and_then(|n| n.layers.get(ty)) {
                        let island = l.islands.island_at(info.x, info.y);
                        ui.monospace(if island == 0 {
                            format!("{}: no island", l.name)
                        } else {
                            format!("{}: island {island}", l.name)
                        });
                        ui.separator();
                    }
                    // Cost per movement type and why (slope, water, buffer, blur, paint,
                    // stamp, clear), read back from the bake's intermediate grids.
                    for t in &info.why {
                        let text = RichText::new(t.summary()).monospace();
                        let text = if t.cost == crate::nav::grid::WALL {
                            text.color(Color32::from_rgb(230, 110, 110))
                        } else {
                            text
                        };
                        ui.label(text);
                    }
                    ui.separator();
                    ui.monospace(format!(
                        "sector {},{} (#{})",
                        info.sector.0, info.sector.1, info.sector.2
                    ));
                    // Nav links with an end here: units of the types named step onto
                    // them; the islands they join stay apart in the ids.
                    for line in &info.links {
                        ui.separator();
                        ui.monospace(line);
                    }
                }
                None => {
                    ui.weak(self.tools.get(self.tools.active()).status_hint());
                }
            }
        }
    }

    fn windows_ui(&mut self, ctx: &egui::Context) {
        if let Some(copy) = self.recovery_offer().map(std::path::Path::to_path_buf) {
            let when = std::fs::metadata(&copy)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .map_or_else(String::new, |d| format!(" ({} min ago)", d.as_secs() / 60));
            egui::Window::new("Recover unsaved changes?")
                .collapsible(false)
                .resizable(false)
                .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
                .show(ctx, |ui| {
                    ui.label(if self.recovery_is_untitled() {
                        format!(
                            "navstudio autosaved a new map that was never saved{when}. Restore it?"
                        )
                    } else {
                        format!(
                            "navstudio autosaved changes to this map that were never saved{when}. Restore them?"
                        )
                    });
                    ui.weak(copy.display().to_string());
                    ui.horizontal(|ui| {
                        if ui.button("Restore").clicked() {
                            self.restore_recovery();
                        }
                        if ui.button("Discard").clicked() {
                            self.discard_recovery();
                        }
                    });
                });
        }
        let mut perf_open = self.perf.open;
        egui::Window::new("Performance")
            .open(&mut perf_open)
            .default_width(360.0)
            .show(ctx, |ui| super::perf::perf_ui(ui, &self.perf));
        self.perf.open = perf_open;
        let mut show_help = self.show_help;
        egui::Window::new("Help")
            .open(&mut show_help)
            .resizable(false)
            .collapsible(false)
            .show(ctx, |ui| {
                ui.label("Keyboard and mouse");
                egui::Grid::new("shortcuts").num_columns(2).striped(true).show(ui, |ui| {
                    for (keys, what) in Tools::help_lines() {
                        ui.monospace(keys);
                        ui.label(what);
                        ui.end_row();
                    }
                    for (keys, what) in SHORTCUTS {
                        ui.monospace(keys);
                        ui.label(what);
                        ui.end_row();
                    }
                });
                ui.add_space(6.0);
                ui.label(
                    "The bake runs in order: slope -> slope->cost curve (max slope and water make walls) -> \
                     painted walls and clears -> wall buffer -> wall blur -> painted cost. One brush stroke is one \
                     undo step.",
                );
            });
        self.show_help = show_help;

        self.new_map_ui(ctx);

        if let Some(mut dialog) = self.path_dialog.take() {
            let mut done = None;
            let mut cancel = false;
            egui::Modal::new(egui::Id::unique("path_dialog")).show(ctx, |ui| {
                ui.heading("Type a path");
                ui.label(&dialog.reason);
                let label = ui.label("Path");
                let edit = ui
                    .add(egui::TextEdit::singleline(&mut dialog.path).desired_width(420.0))
                    .labelled_by(label.id);
                if !dialog.focused {
                    edit.request_focus();
                    dialog.focused = true;
                }
                let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                ui.horizontal(|ui| {
                    if ui.button("OK").clicked() || enter {
                        done = Some(PathBuf::from(dialog.path.trim()));
                    }
                    if ui.button("Cancel").clicked() {
                        cancel = true;
                    }
                });
            });
            match done {
                Some(path) if !path.as_os_str().is_empty() => {
                    self.typed_path_done(dialog.action, path)
                }
                _ if cancel => {}
                _ => self.path_dialog = Some(dialog),
            }
        }

        if let Some(action) = self.confirm.clone() {
            let mut choice = None;
            egui::Modal::new(egui::Id::unique("confirm_discard")).show(ctx, |ui| {
                ui.heading("Unsaved changes");
                ui.label("The map has changes that are not saved. Discard them?");
                ui.horizontal(|ui| {
                    if ui.button("Save first").clicked() {
                        choice = Some(0);
                    }
                    if ui.button("Discard").clicked() {
                        choice = Some(1);
                    }
                    if ui.button("Cancel").clicked() {
                        choice = Some(2);
                    }
                });
            });
            match choice {
                Some(0) => {
                    self.confirm = None;
                    self.perform(FileAction::Save);
                    if !self.state.is_modified() {
                        self.perform(action);
                    }
                }
                Some(1) => {
                    self.confirm = None;
                    self.forget_untitled_changes();
                    self.perform(action);
                }
                Some(_) => self.confirm = None,
                None => {}
            }
        }

        if let Some(message) = self.error.clone() {
            let mut close = false;
            egui::Modal::new(egui::Id::unique("error")).show(ctx, |ui| {
                ui.set_max_width(480.0);
                ui.heading("Something went wrong");
                ui.label(message);
                if ui.button("OK").clicked() {
                    close = true;
                }
            });
            if close {
                self.error = None;
            }
        }

        if !self.state.messages.is_empty() {
            let mut dismiss = false;
            egui::Window::new("Messages")
                .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 40.0))
                .collapsible(false)
                .resizable(false)
                .title_bar(false)
                .show(ctx, |ui| {
                    for m in &self.state.messages {
                        ui.label(RichText::new(m).color(Color32::from_rgb(240, 200, 120)));
                    }
                    if ui.button("Dismiss").clicked() {
                        dismiss = true;
                    }
                });
            if dismiss {
                self.state.messages.clear();
            }
        }

        if let Some((text, since)) = &self.notice {
            let age = since.elapsed().as_secs_f32();
            if age > super::NOTICE_SECS {
                self.notice = None;
            } else {
                egui::Area::new(egui::Id::unique("notice"))
                    .anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -40.0))
                    .interactable(false)
                    .show(ctx, |ui| {
                        egui::Frame::popup(ui.style()).show(ui, |ui| {
                            ui.label(RichText::new(text).color(Color32::from_rgb(150, 220, 150)));
                        });
                    });
                ctx.request_repaint_after(std::time::Duration::from_millis(250));
            }
        }

        let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
        if hovering {
            let painter = ctx.layer_painter(egui::LayerId::new(
                egui::Order::Foreground,
                egui::Id::unique("drop"),
            ));
            let rect = ctx.content_rect();
            painter.rect_filled(rect, 0.0, Color32::from_black_alpha(160));
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "Drop a map (.ron), a heightmap (.png, .hgt, .r16) or a package (.navpkg) to open it",
                egui::FontId::proportional(22.0),
                Color32::WHITE,
            );
        }
    }
}

/// Play, pause, step and clear for the crowd preview, always in view at the top of the
/// right panel (the Crowd panel below holds the rest of its settings).
fn crowd_toolbar_ui(ui: &mut egui::Ui, crowd: &mut super::crowd_preview::CrowdPreview) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("Crowd").strong());
        let play = if crowd.playing { "Pause" } else { "Play" };
        if ui
            .button(play)
            .on_hover_text("Play or pause the crowd preview (P)")
            .clicked()
        {
            crowd.playing = !crowd.playing;
        }
        if ui
            .button("Step")
            .on_hover_text("One 1/60 s step (.)")
            .clicked()
        {
            crowd.step_once();
        }
        if ui
            .button("Clear agents")
            .on_hover_text("Remove every agent")
            .clicked()
        {
            crowd.clear();
        }
        ui.weak(format!("{} agents", crowd.sim().agents().len()));
    });
}

fn section(ui: &mut egui::Ui, title: &str, open: bool, add: impl FnOnce(&mut egui::Ui)) {
    egui::CollapsingHeader::new(RichText::new(title).strong().size(15.0))
        .default_open(open)
        .show(ui, add);
    ui.add_space(2.0);
}
