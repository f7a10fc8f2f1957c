//! The file actions behind the File menu, drag and drop and the typed-path dialog: open a
//! map, heightmap or nav package; start a new map through the New map dialog; save; export
//! the nav package. Errors go to the message box in one sentence.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::backend::{self, LoadedMap};
use super::panels::MovementPanel;
use super::{App, FileAction, PathDialog, autosave, new_map_dialog};

impl App {
    /// Opens a map, heightmap or nav package (read-only) now (no unsaved-changes check);
    /// errors go to the message box.
    pub fn open_path(&mut self, path: &Path) {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("navpkg"))
        {
            match backend::load_package(path) {
                Ok(view) => {
                    self.open_loaded(view.map);
                    self.state.show_package(path.to_owned(), view.output);
                    // The package carries no heights: the flat stand-in would only hide
                    // the cost overlay under one shade.
                    self.state.overlays.height = false;
                    self.recent.note(path);
                }
                Err(err) => self.error = Some(err.to_string()),
            }
            return;
        }
        if is_new_map_source(path) {
            self.start_new_map(path);
            return;
        }
        match backend::load_map(path) {
            Ok(loaded) => {
                let is_document = loaded.path.is_some();
                self.open_loaded(loaded);
                self.recent.note(path);
                self.recovery_offer = if is_document {
                    autosave::newer_recovery(path)
                } else {
                    None
                };
                self.recovery_untitled = false;
            }
            Err(err) => self.error = Some(err.to_string()),
        }
    }

    /// Imports a heightmap and shows the New map dialog for it; the open map stays until
    /// the designer creates the new one.
    pub fn start_new_map(&mut self, path: &Path) {
        match new_map_dialog::NewMapDialog::open(path) {
            Ok(dialog) => self.new_map = Some(dialog),
            Err(err) => self.error = Some(err.to_string()),
        }
    }

    /// The New map dialog, while one is shown (tests and tools set its fields).
    pub fn new_map_dialog_mut(&mut self) -> Option<&mut new_map_dialog::NewMapDialog> {
        self.new_map.as_mut()
    }

    /// Creates the map the New map dialog describes, as its Create button does. Returns
    /// `false` (and keeps the dialog, with the reason shown) when a field is invalid or no
    /// dialog is open.
    pub fn confirm_new_map(&mut self) -> bool {
        let Some(mut dialog) = self.new_map.take() else {
            return false;
        };
        match dialog.build() {
            Ok(loaded) => {
                self.open_loaded(loaded);
                self.recent.note(&dialog.path);
                self.recovery_untitled = false;
                true
            }
            Err(problem) => {
                dialog.problem = Some(problem);
                self.new_map = Some(dialog);
                false
            }
        }
    }

    pub(super) fn new_map_ui(&mut self, ctx: &egui::Context) {
        let choice = self.new_map.as_mut().and_then(|d| d.ui(ctx));
        match choice {
            Some(new_map_dialog::NewMapChoice::Create) => {
                self.confirm_new_map();
            }
            Some(new_map_dialog::NewMapChoice::Cancel) => self.new_map = None,
            None => {}
        }
    }

    pub(super) fn open_loaded(&mut self, loaded: LoadedMap) {
        self.shared_document.reset();
        self.movement_panel = MovementPanel::default();
        if self.state.read_only.is_some() {
            // Leaving a package view, which turned the height overlay off.
            self.state.overlays.height = true;
        }
        self.state.open(loaded);
        self.viewport.fit_requested = true;
        self.textures_need_reset = true;
        self.cost_shown = None;
        self.bake_suspended = false;
        self.full_timings.clear();
        self.crowd.clear();
        self.recovery_offer = None;
        self.autosave.wait();
        if self.state.is_modified() {
            self.autosave.reset_unsaved();
        } else {
            self.autosave.reset(0);
        }
    }

    /// Shows the system file dialog; when none is available (it returns at once), opens
    /// the typed-path dialog instead and says why.
    pub(super) fn pick(
        &mut self,
        dialog: rfd::FileDialog,
        action: FileAction,
        save: bool,
    ) -> Option<PathBuf> {
        let start = Instant::now();
        let picked = if save {
            dialog.save_file()
        } else {
            dialog.pick_file()
        };
        if picked.is_none() && start.elapsed() < Duration::from_millis(300) {
            let path = self.suggested_path(&action);
            self.path_dialog = Some(PathDialog {
                action,
                path,
                reason: "No system file dialog is available (no desktop portal and no zenity), so type the path here."
                    .to_owned(),
                focused: false,
            });
        }
        picked
    }

    /// What the typed-path dialog starts with for `action`, as a system dialog would: the
    /// map's file for Open and Save, the same name as `.navpkg` for Export; an untitled map
    /// is named after its document in the working folder.
    fn suggested_path(&self, action: &FileAction) -> String {
        let Some(map) = &self.state.map else {
            return String::new();
        };
        let file = map
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("{}.ron", map.document.name)));
        let file = match action {
            FileAction::ExportPackage => file.with_extension("navpkg"),
            _ => file,
        };
        file.to_string_lossy().into_owned()
    }

    /// Saves the map to `path` now (Save As without a dialog); errors go to the message box.
    pub fn save_as(&mut self, path: &Path) {
        self.save_to(path);
    }

    pub(super) fn save_to(&mut self, path: &Path) {
        let Some(map) = &self.state.map else { return };
        let was_untitled = map.path.is_none();
        match backend::save_map(path, &map.document, &map.heightmap) {
            Ok(()) => {
                self.state.mark_saved(path.to_owned());
                self.recent.note(path);
                self.notice = Some((
                    format!("Saved {}.", path.display()),
                    std::time::Instant::now(),
                ));
                self.autosave.wait();
                autosave::discard(path);
                if let (true, Some(root)) = (was_untitled, &self.recovery_root) {
                    autosave::discard_untitled(root);
                }
                self.autosave.reset(self.state.history.position());
            }
            Err(err) => {
                self.error = Some(format!(
                    "The map was not saved: {err} Your changes are still open in the editor."
                ));
            }
        }
    }

    /// Writes the shown bake as a nav package (atomically); refuses while the bake is out of
    /// date, so the file always matches the document.
    pub fn export_package(&mut self, path: &Path) {
        if self.state.map.is_none() {
            self.error = Some("Nothing to export yet: open a map and let it bake.".to_owned());
            return;
        }
        if self.export_ready() {
            self.write_package(path);
        } else if self.bake_will_finish() {
            // A click while the bake runs (often the very bake the click's own edit started,
            // a typed value committed by the press) is kept, not dropped.
            self.pending_export = Some(path.to_owned());
            self.notice = Some((
                format!(
                    "Exporting to {} once the bake is up to date…",
                    path.display()
                ),
                std::time::Instant::now(),
            ));
        } else {
            self.error = Some(
                "The bake is out of date and automatic re-baking is off: press Bake, then export again."
                    .to_owned(),
            );
        }
    }

    /// Writes an export that waited for its bake, once the bake is up to date (or gives up
    /// with a message when no bake will come).
    pub(super) fn finish_pending_export(&mut self) {
        let Some(path) = self.pending_export.clone() else {
            return;
        };
        if self.export_ready() {
            self.pending_export = None;
            self.write_package(&path);
        } else if !self.bake_will_finish() {
            self.pending_export = None;
            self.error = Some(format!(
                "{} was not written: the bake stopped before it was up to date. Press Bake, then export again.",
                path.display()
            ));
        }
    }

    /// Whether a package written now would hold the document's current nav data.
    fn export_ready(&self) -> bool {
        self.is_baked() && !self.state.nav_behind && self.state.nav.is_some()
    }

    /// Whether the shown bake will become current without the designer pressing Bake.
    fn bake_will_finish(&self) -> bool {
        self.worker.is_busy()
            || self.tools.is_busy()
            || self.state.nav_behind
            || (!self.bake_suspended && (self.auto_rebake || self.state.baked.is_none()))
    }

    /// Writes the shown bake as a nav package.
    fn write_package(&mut self, path: &Path) {
        let (Some(map), Some(nav)) = (&self.state.map, &self.state.nav) else {
            self.error = Some("Nothing to export yet: open a map and let it bake.".to_owned());
            return;
        };
        let types: Vec<usize> = nav
            .layers
            .iter()
            .filter_map(|l| {
                map.document
                    .movement_types
                    .iter()
                    .position(|t| t.name == l.name)
            })
            .collect();
        let meta = crate::bake::package_meta(&map.document, &types);
        match crate::package::write(path, nav, &meta) {
            Ok(len) => {
                self.notice = Some((
                    format!(
                        "Exported the nav package to {} ({:.1} MB).",
                        path.display(),
                        len as f64 / 1e6
                    ),
                    std::time::Instant::now(),
                ));
            }
            Err(err) => {
                self.error = Some(format!(
                    "The package was not written: {err} Nothing else changed."
                ));
            }
        }
    }

    pub(super) fn typed_path_done(&mut self, action: FileAction, path: PathBuf) {
        match action {
            FileAction::NewFromHeightmap => self.start_new_map(&path),
            FileAction::SaveAs | FileAction::Save => self.save_to(&path),
            FileAction::ExportPackage => self.export_package(&path),
            _ => self.open_path(&path),
        }
    }
}

/// Whether opening `path` starts a new map through the New map dialog: a heightmap
/// (anything but a map document, a nav package or a flat Moving AI grid).
pub(super) fn is_new_map_source(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    !matches!(ext.as_str(), "ron" | "navpkg" | "map")
}
