//! Crowd scenarios saved with the map, for repeatable previews: each is a sidecar file beside
//! the map document, `NAME.SCENARIO.scenario.ron` (the `crowd::Scenario` RON), so the headless
//! run repeats it: `navstudio crowd NAME.ron --scenario NAME.SCENARIO.scenario.ron --steps N`.
//! File naming, listing, saving, loading and deleting; no UI (the panel is
//! [`panels::scenarios`](super::panels::scenarios)).

use std::path::{Path, PathBuf};

use crate::crowd::{CrowdError, Scenario};
use crate::map::MapError;

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
