//! Autosave and crash recovery. Every [`AUTOSAVE_SECS`] with unsaved changes, the open
//! document (RON and paint PNGs) is written on a background thread to a recovery folder
//! beside the map, `.NAME.recovery/`, with the same atomic writes as a normal save. A normal
//! save removes the folder. Opening a map whose recovery copy is newer than the map offers
//! to restore it, so a crash or a killed editor loses at most one autosave interval.
//!
//! A map that was never saved (New from heightmap) has no folder of its own: its recovery
//! copy goes to the user's data folder ([`default_recovery_root`], then `untitled/`), and
//! the next start of the editor offers it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::map::{Heightmap, MapDocument};

use super::backend;

/// Time between autosaves while there are unsaved changes. `[Units: s]`
pub const AUTOSAVE_SECS: u64 = 30;

/// Where the recovery copy of the map at `map_path` lives.
#[must_use]
pub fn recovery_path(map_path: &Path) -> PathBuf {
    let folder = crate::map::io::folder_of(map_path);
    let name = map_path
        .file_name()
        .map_or_else(|| "map.ron".into(), |n| n.to_string_lossy().into_owned());
    let stem = name.strip_suffix(".ron").unwrap_or(&name);
    folder.join(format!(".{stem}.recovery")).join(&name)
}

/// The user's recovery folder for never-saved maps: `$XDG_DATA_HOME/navstudio/recovery`
/// (or `~/.local/share/navstudio/recovery`).
#[must_use]
pub fn default_recovery_root() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local").join("share")))?;
    Some(data.join("navstudio").join("recovery"))
}

/// Where the recovery copy of a never-saved map lives under `root`.
#[must_use]
pub fn untitled_recovery_path(root: &Path) -> PathBuf {
    root.join("untitled").join("untitled.ron")
}

/// The never-saved map's recovery copy under `root`, if there is one.
#[must_use]
pub fn untitled_recovery(root: &Path) -> Option<PathBuf> {
    let copy = untitled_recovery_path(root);
    copy.is_file().then_some(copy)
}

/// Removes the never-saved map's recovery copy (it was saved, restored and saved, or
/// discarded).
pub fn discard_untitled(root: &Path) {
    if let Some(folder) = untitled_recovery_path(root).parent() {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// The recovery copy of `map_path`, if one exists and is newer than the map itself.
#[must_use]
pub fn newer_recovery(map_path: &Path) -> Option<PathBuf> {
    let copy = recovery_path(map_path);
    let copy_time = std::fs::metadata(&copy).and_then(|m| m.modified()).ok()?;
    match std::fs::metadata(map_path).and_then(|m| m.modified()) {
        Ok(map_time) if map_time >= copy_time => None,
        _ => Some(copy),
    }
}

/// Removes the recovery copy of `map_path` (after a save, or when the designer discards it).
pub fn discard(map_path: &Path) {
    if let Some(folder) = recovery_path(map_path).parent() {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// The autosave timer and the write in flight.
#[derive(Debug, Default)]
pub struct Autosave {
    last: Option<Instant>,
    /// History position of the last autosave, so an unchanged document is not rewritten.
    saved_position: Option<usize>,
    writer: Option<JoinHandle<Result<(), String>>>,
    /// The last autosave error, shown once.
    pub error: Option<String>,
}

impl Autosave {
    /// Restarts the timer (a map was opened or saved).
    pub fn reset(&mut self, position: usize) {
        self.last = Some(Instant::now());
        self.saved_position = Some(position);
    }

    /// Restarts the timer for a document that is unsaved as opened (a map with no file yet):
    /// the next autosave writes it even if nothing is edited.
    pub fn reset_unsaved(&mut self) {
        self.last = Some(Instant::now());
        self.saved_position = None;
    }

    /// Starts a background write of the document to `target` (see [`recovery_path`] and
    /// [`untitled_recovery_path`]) when the interval has passed (or `now`), the document
    /// changed since the last autosave and no write is running. Returns whether one started.
    /// `document` is only called when a write starts: it hands over a shared copy (copying
    /// a 2048² map's paint in the frame took 45–90 ms).
    pub fn maybe_start(
        &mut self,
        target: Option<PathBuf>,
        document: impl FnOnce() -> (Arc<MapDocument>, Arc<Heightmap>),
        position: usize,
        now: bool,
    ) -> bool {
        self.collect();
        let due = now
            || self
                .last
                .is_none_or(|t| t.elapsed() >= Duration::from_secs(AUTOSAVE_SECS));
        if !due || self.writer.is_some() || self.saved_position == Some(position) {
            return false;
        }
        let Some(target) = target else {
            return false;
        };
        let (document, heightmap) = document();
        let spawned = std::thread::Builder::new()
            .name("navstudio-autosave".to_owned())
            .spawn(move || {
                if let Some(folder) = target.parent() {
                    std::fs::create_dir_all(folder).map_err(|e| e.to_string())?;
                }
                backend::save_map(&target, &document, &heightmap).map_err(|e| e.to_string())
            });
        match spawned {
            Ok(handle) => {
                self.writer = Some(handle);
                self.last = Some(Instant::now());
                self.saved_position = Some(position);
                true
            }
            Err(e) => {
                self.error = Some(format!("Autosave could not start: {e}."));
                false
            }
        }
    }

    /// Takes the result of a finished write.
    fn collect(&mut self) {
        if self.writer.as_ref().is_some_and(JoinHandle::is_finished) {
            self.wait();
        }
    }

    /// Waits for the write in flight (tests, and before a normal save removes the copy).
    pub fn wait(&mut self) {
        let Some(handle) = self.writer.take() else {
            return;
        };
        match handle.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.error = Some(format!("Autosave failed: {e}")),
            Err(_) => self.error = Some("Autosave failed unexpectedly.".to_owned()),
        }
    }
}
