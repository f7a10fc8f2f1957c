//! The Scenario panel: the crowd preview's spawns and orders saved with the map, for
//! repeatable previews. Each scenario is a sidecar file beside the map document,
//! `NAME.SCENARIO.scenario.ron` (the `crowd::Scenario` RON), so the headless run repeats it:
//! `navstudio crowd NAME.ron --scenario NAME.SCENARIO.scenario.ron --steps N`.

use std::path::{Path, PathBuf};

use egui::{Color32, Ui};

use crate::crowd::{CrowdError, Scenario};
use crate::map::MapError;

use super::crowd_view::CrowdPreview;

/// The sidecar suffix after the map stem and the scenario name.
const SUFFIX: &str = ".scenario.ron";

/// Why a scenario could not be saved, listed, loaded or deleted (one sentence for a person).
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// Scenarios live beside the map file, which does not exist yet.
    #[error("save the map first: scenarios are stored beside the map file")]
    Unsaved,
    /// The name has no usable character.
    #[error("name the scenario with letters, digits, '-' or '_' (for example \"rush-left\")")]
    BadName,
    /// No nav data to spawn on yet.
    #[error("the map is not baked yet; wait for the bake to finish and load again")]
    NotBaked,
    /// The crowd library refused the scenario (unknown archetype, bad RON …).
    #[error(transparent)]
    Crowd(#[from] CrowdError),
    /// Writing the file failed.
    #[error(transparent)]
    Write(#[from] MapError),
    /// Deleting the file failed.
    #[error("could not delete {path}: {source}")]
    Delete {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// `rush left!` → `rush-left`: the part of a file name a scenario name becomes.
#[must_use]
pub fn file_safe_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

fn stem(map_path: &Path) -> String {
    map_path
        .file_stem()
        .map_or_else(|| "map".to_owned(), |s| s.to_string_lossy().into_owned())
}

/// The sidecar file of scenario `name` of the map at `map_path`.
///
/// # Errors
/// [`ScenarioError::BadName`] when the name has no usable character.
pub fn scenario_path(map_path: &Path, name: &str) -> Result<PathBuf, ScenarioError> {
    let safe = file_safe_name(name);
    if safe.is_empty() {
        return Err(ScenarioError::BadName);
    }
    Ok(crate::map::io::folder_of(map_path).join(format!("{}.{safe}{SUFFIX}", stem(map_path))))
}

/// The names of the map's saved scenarios, sorted.
#[must_use]
pub fn list(map_path: &Path) -> Vec<String> {
    let prefix = format!("{}.", stem(map_path));
    let Ok(entries) = std::fs::read_dir(crate::map::io::folder_of(map_path)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let name = file.strip_prefix(&prefix)?.strip_suffix(SUFFIX)?;
            (!name.is_empty() && file_safe_name(name) == name).then(|| name.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// Writes `scenario` as scenario `name` of the map (atomically); returns the file.
///
/// # Errors
/// A bad name or a failed write.
pub fn save(map_path: &Path, name: &str, scenario: &Scenario) -> Result<PathBuf, ScenarioError> {
    let path = scenario_path(map_path, name)?;
    crate::map::io::write_atomic(&path, scenario.to_ron_string().as_bytes())?;
    Ok(path)
}

/// Reads scenario `name` of the map.
///
/// # Errors
/// A bad name, a missing or unreadable file, or RON that is not a scenario.
pub fn load(map_path: &Path, name: &str) -> Result<Scenario, ScenarioError> {
    Ok(Scenario::load(&scenario_path(map_path, name)?)?)
}

/// Deletes scenario `name` of the map.
///
/// # Errors
/// A bad name or a failed delete.
pub fn delete(map_path: &Path, name: &str) -> Result<(), ScenarioError> {
    let path = scenario_path(map_path, name)?;
    std::fs::remove_file(&path).map_err(|source| ScenarioError::Delete { path, source })
}

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
    ui.horizontal(|ui| {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_become_sidecar_files_that_list_back() {
        assert_eq!(file_safe_name("  rush left!! "), "rush-left");
        assert_eq!(file_safe_name("../../etc"), "etc");
        assert_eq!(file_safe_name("///"), "");
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("small.ron");
        assert!(matches!(
            scenario_path(&map, "//"),
            Err(ScenarioError::BadName)
        ));
        assert_eq!(
            scenario_path(&map, "rush left").unwrap(),
            dir.path().join("small.rush-left.scenario.ron")
        );
        let s = Scenario {
            seed: 7,
            ..Scenario::default()
        };
        save(&map, "b", &s).unwrap();
        save(&map, "a", &s).unwrap();
        // Another map's scenario in the same folder is not listed.
        save(&dir.path().join("other.ron"), "c", &s).unwrap();
        assert_eq!(list(&map), ["a", "b"]);
        assert_eq!(load(&map, "a").unwrap(), s);
        delete(&map, "a").unwrap();
        assert_eq!(list(&map), ["b"]);
        assert!(matches!(load(&map, "a"), Err(ScenarioError::Crowd(_))));
    }
}
