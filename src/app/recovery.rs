//! Autosave and crash recovery as the App drives them: offering, restoring or discarding a
//! recovery copy after opening a map, and the periodic autosave step. The files themselves
//! are written and found by [`autosave`](super::autosave).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::backend;
use super::{App, autosave};
use crate::nav::grid::CellRect;

impl App {
    /// The recovery copy offered after opening a map, if any.
    #[must_use]
    pub fn recovery_offer(&self) -> Option<&Path> {
        self.recovery_offer.as_deref()
    }

    /// Autosaves never-saved maps under `root` (see [`autosave::untitled_recovery_path`]) and
    /// offers the copy a previous session left there, if any. The real editor passes
    /// [`autosave::default_recovery_root`].
    pub fn set_recovery_root(&mut self, root: PathBuf) {
        if self.recovery_offer.is_none()
            && let Some(copy) = autosave::untitled_recovery(&root)
        {
            self.recovery_offer = Some(copy);
            self.recovery_untitled = true;
        }
        self.recovery_root = Some(root);
    }

    /// Whether the offered recovery copy is of a map that was never saved.
    #[must_use]
    pub fn recovery_is_untitled(&self) -> bool {
        self.recovery_offer.is_some() && self.recovery_untitled
    }

    /// Replaces the open document with its recovery copy (unsaved, under the map's own path;
    /// a never-saved map's copy opens as a new, never-saved map).
    pub fn restore_recovery(&mut self) {
        let Some(copy) = self.recovery_offer.take() else {
            return;
        };
        let original = if self.recovery_untitled {
            None
        } else {
            self.state.map.as_ref().and_then(|m| m.path.clone())
        };
        match backend::load_map(&copy) {
            Ok(mut loaded) => {
                if original.is_none() {
                    // Paint side files get the map's name at its first save.
                    for layer in &mut loaded.document.paint {
                        layer.file.clear();
                    }
                }
                loaded.path = original;
                self.open_loaded(loaded);
                self.state.mark_unsaved();
                self.state
                    .messages
                    .push("Restored the autosaved changes; save to keep them.".to_owned());
            }
            Err(err) => {
                self.error = Some(format!("The recovery copy could not be read: {err}"));
            }
        }
    }

    /// Deletes the offered recovery copy.
    pub fn discard_recovery(&mut self) {
        if self.recovery_offer.take().is_none() {
            return;
        }
        if self.recovery_untitled {
            if let Some(root) = &self.recovery_root {
                autosave::discard_untitled(root);
            }
        } else if let Some(path) = self.state.map.as_ref().and_then(|m| m.path.clone()) {
            autosave::discard(&path);
        }
    }

    /// The designer discarded the open map's changes: a never-saved map's recovery copy
    /// must not come back on the next start.
    pub(super) fn forget_untitled_changes(&self) {
        let untitled = self.state.map.as_ref().is_some_and(|m| m.path.is_none());
        if let (true, Some(root)) = (untitled, &self.recovery_root) {
            autosave::discard_untitled(root);
        }
    }

    /// Autosaves now (if there are changes) and waits for the write.
    pub fn autosave_now(&mut self) {
        self.autosave_step(true);
        self.autosave.wait();
    }

    pub(super) fn autosave_step(&mut self, now: bool) {
        if !self.state.is_modified() {
            return;
        }
        if let Some(map) = &self.state.map {
            let target = match (&map.path, &self.recovery_root) {
                (Some(path), _) => Some(autosave::recovery_path(path)),
                (None, Some(root)) => Some(autosave::untitled_recovery_path(root)),
                (None, None) => None,
            };
            // As in `request_bakes`: every paint cell changed since the last shared copy
            // lies in `pending_dirty` (none: nothing changed).
            let changed = Some(self.state.pending_dirty.unwrap_or(CellRect::full(0, 0)));
            let shared_document = &mut self.shared_document;
            self.autosave.maybe_start(
                target,
                || {
                    let heightmap = Arc::clone(&map.heightmap);
                    let document =
                        shared_document.sync(&map.document, changed, map.heightmap.width);
                    (document, heightmap)
                },
                self.state.history.position(),
                now,
            );
        }
        if let Some(e) = self.autosave.error.take() {
            self.state.messages.push(e);
        }
    }
}
