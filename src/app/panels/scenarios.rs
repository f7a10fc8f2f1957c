//! The Scenario panel: the crowd preview's spawns and orders saved with the map
//! ([`crowd_scenarios`](crate::app::crowd_scenarios)), loaded back for a repeatable run.

use std::path::{Path, PathBuf};

use egui::{Color32, Ui};

use crate::app::crowd_preview::CrowdPreview;
use crate::app::crowd_scenarios::{ScenarioError, delete, list, load, save, scenario_path};

/// What the Scenario panel remembers between frames.
#[derive(Debug, Default)]
pub struct ScenarioPanel {
    /// The name Save uses.
    pub name: String,
    /// Saved scenarios of the open map (refreshed when the map path changes or a file is
    /// written or deleted).
    pub saved: Vec<String>,
    listed_for: Option<PathBuf>,
    /// The last result, shown under the buttons: (text, is an error).
    pub status: Option<(String, bool)>,
}

impl ScenarioPanel {
    /// Re-reads the list when the map path changed (or `force`).
    pub fn refresh(&mut self, map_path: Option<&Path>, force: bool) {
        if force || self.listed_for.as_deref() != map_path {
            self.listed_for = map_path.map(Path::to_path_buf);
            self.saved = map_path.map(list).unwrap_or_default();
        }
    }

    /// Saves the crowd's recorded spawns and orders as `self.name` (or `scenario-N`, the
    /// first free number, when the name is left empty).
    pub fn save_current(&mut self, map_path: Option<&Path>, crowd: &CrowdPreview) {
        if self.name.trim().is_empty() {
            self.refresh(map_path, true);
            let free = (1..)
                .map(|n| format!("scenario-{n}"))
                .find(|n| !self.saved.contains(n));
            self.name = free.unwrap_or_default();
        }
        let result = map_path
            .ok_or(ScenarioError::Unsaved)
            .and_then(|m| save(m, &self.name, &crowd.scenario()));
        self.status = Some(match result {
            Ok(path) => (format!("Saved {}.", path.display()), false),
            Err(e) => (format!("Not saved: {e}."), true),
        });
        self.refresh(map_path, true);
    }

    /// Replaces the crowd with a fresh run of the saved scenario `name`.
    pub fn load_into(&mut self, map_path: Option<&Path>, name: &str, crowd: &mut CrowdPreview) {
        let result = map_path
            .ok_or(ScenarioError::Unsaved)
            .and_then(|m| load(m, name))
            .and_then(|s| crowd.load_scenario(&s));
        self.status = Some(match result {
            Ok(()) => {
                self.name = name.to_owned();
                (format!("Loaded \"{name}\" from step 0."), false)
            }
            Err(e) => (format!("Not loaded: {e}."), true),
        });
    }

    /// Deletes the saved scenario `name`.
    pub fn delete(&mut self, map_path: Option<&Path>, name: &str) {
        let result = map_path
            .ok_or(ScenarioError::Unsaved)
            .and_then(|m| delete(m, name));
        self.status = Some(match result {
            Ok(()) => (format!("Deleted \"{name}\"."), false),
            Err(e) => (format!("Not deleted: {e}."), true),
        });
        self.refresh(map_path, true);
    }
}

/// The Scenario panel: name + Save, then each saved scenario with Load and Delete.
pub fn scenario_panel_ui(
    ui: &mut Ui,
    panel: &mut ScenarioPanel,
    crowd: &mut CrowdPreview,
    map_path: Option<&Path>,
) {
    panel.refresh(map_path, false);
    let recorded = crowd.scenario();
    ui.label(format!(
        "Recorded: {} spawns, {} orders",
        recorded.spawns.len(),
        recorded.orders.len()
    ));
    // Wrapped: a narrow panel puts the button on the next line instead of cutting it off.
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("Scenario name");
        ui.add(egui::TextEdit::singleline(&mut panel.name).desired_width(120.0))
            .labelled_by(label.id);
        let can_save = map_path.is_some() && !recorded.spawns.is_empty();
        let save = ui
            .add_enabled(can_save, egui::Button::new("Save scenario"))
            .on_hover_text("Stores the spawns and orders beside the map file")
            .on_disabled_hover_text(if map_path.is_none() {
                "Save the map first: scenarios are stored beside it"
            } else {
                "Spawn agents first"
            });
        if save.clicked() {
            panel.save_current(map_path, crowd);
        }
    });
    for note in &crowd.record_notes {
        ui.weak(note);
    }
    let mut load = None;
    let mut remove = None;
    for name in &panel.saved {
        ui.horizontal(|ui| {
            ui.label(name);
            if ui
                .button("Load")
                .on_hover_text(format!("Replay \"{name}\" from step 0"))
                .clicked()
            {
                load = Some(name.clone());
            }
            if ui
                .button("Delete file")
                .on_hover_text(format!("Delete \"{name}\""))
                .clicked()
            {
                remove = Some(name.clone());
            }
        });
    }
    if panel.saved.is_empty() {
        ui.weak("No saved scenarios for this map.");
    }
    if let Some(name) = load {
        panel.load_into(map_path, &name, crowd);
    }
    if let Some(name) = remove {
        panel.delete(map_path, &name);
    }
    if let Some((text, is_error)) = &panel.status {
        let color = if *is_error {
            Color32::from_rgb(255, 150, 90)
        } else {
            ui.visuals().weak_text_color()
        };
        ui.colored_label(color, text);
    }
    if let (Some(map), Some(name)) = (map_path, panel.saved.first()) {
        let file = scenario_path(map, name)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        ui.weak(format!(
            "Headless: navstudio crowd {} --scenario {file} --steps 600",
            map.display()
        ));
    }
}
