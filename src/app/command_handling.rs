//! What the designer asks of the App outside the panels (rerun's `command_handling`):
//! keyboard shortcuts, dropped files, the window's close request, and running a
//! [`FileAction`], after a confirmation when it would discard unsaved changes.

use egui::{Key, KeyboardShortcut, Modifiers, ViewportCommand};

use super::tools::ToolCx;
use super::{App, FileAction};

impl App {
    pub(super) fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        if ctx.text_edit_focused() {
            return;
        }
        let undo = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
        let redo_shift = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
        let redo_y = KeyboardShortcut::new(Modifiers::COMMAND, Key::Y);
        let save = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
        let open = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
        // Longest modifier set first: Ctrl+Shift+Z must not be read as Ctrl+Z.
        let (mut redo, mut undo, save, open) = ctx.input_mut(|i| {
            let redo = i.consume_shortcut(&redo_shift) || i.consume_shortcut(&redo_y);
            (
                redo,
                i.consume_shortcut(&undo),
                i.consume_shortcut(&save),
                i.consume_shortcut(&open),
            )
        });
        // No undo or redo under a brush stroke still being dragged: the stroke has written
        // into its paint layer (by index) and holds the cells' values from before it, so an
        // undo that removes or re-adds layers under it corrupts the document (the monkey
        // test found a redo mid-stroke leaving two layers with the same side file). The
        // keys are consumed and ignored; the stroke becomes one undo step on release.
        if self.tools.is_busy() {
            (redo, undo) = (false, false);
        }
        if redo {
            self.state.redo();
        }
        if undo {
            self.state.undo();
        }
        if save {
            self.request(FileAction::Save);
        }
        if open {
            self.request(FileAction::Open);
        }
        let plain = |key| KeyboardShortcut::new(Modifiers::NONE, key);
        let mut frame_agents = false;
        ctx.input_mut(|i| {
            let mut cx = ToolCx {
                state: &mut self.state,
                crowd: &mut self.crowd,
                goal: &self.goal_preview,
            };
            self.tools.keys(i, &mut cx);
            if i.consume_shortcut(&plain(Key::P)) {
                self.crowd.playing = !self.crowd.playing;
            }
            if i.consume_shortcut(&plain(Key::Period)) {
                self.crowd.step_once();
            }
            // Before plain F, which Shift+F would match too.
            if i.consume_shortcut(&KeyboardShortcut::new(Modifiers::SHIFT, Key::F)) {
                frame_agents = true;
            }
            if i.consume_shortcut(&plain(Key::F)) || i.consume_shortcut(&plain(Key::Home)) {
                self.viewport.fit_requested = true;
            }
            if i.consume_shortcut(&plain(Key::F1)) {
                self.show_help = !self.show_help;
            }
        });
        if frame_agents {
            self.frame_agents_or_say();
        }
    }

    pub(super) fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped = ctx.input(|i| i.raw.dropped_files.first().map(|f| f.path().to_owned()));
        if let Some(path) = dropped {
            self.request(FileAction::OpenPath(path));
        }
    }

    pub(super) fn handle_close_request(&mut self, ctx: &egui::Context) {
        if ctx.input(|i| i.viewport().close_requested())
            && self.state.is_modified()
            && !self.allow_close
        {
            ctx.send_viewport_cmd(ViewportCommand::CancelClose);
            self.confirm = Some(FileAction::Quit);
        }
    }

    /// Runs a file action, asking first when it would discard unsaved changes.
    pub fn request(&mut self, action: FileAction) {
        if action.discards_changes() && self.state.is_modified() {
            self.confirm = Some(action);
        } else {
            self.perform(action);
        }
    }

    pub(super) fn perform(&mut self, action: FileAction) {
        if let (Some(package), FileAction::Save | FileAction::SaveAs | FileAction::ExportPackage) =
            (&self.state.read_only, &action)
        {
            self.error = Some(format!(
                "{} is a nav package, open read-only: there is no map document to save. Open the map's .ron to edit it, then bake and export a new package.",
                package.display()
            ));
            return;
        }
        match action {
            FileAction::NewFromHeightmap => {
                let dialog = rfd::FileDialog::new()
                    .set_title("New map from heightmap")
                    .add_filter("Heightmap", &["png", "hgt", "r16", "raw"]);
                if let Some(path) = self.pick(dialog, FileAction::NewFromHeightmap, false) {
                    self.start_new_map(&path);
                }
            }
            FileAction::Open => {
                let dialog = rfd::FileDialog::new().set_title("Open map").add_filter(
                    "Map, heightmap or nav package",
                    &["ron", "png", "r16", "raw", "hgt", "map", "navpkg"],
                );
                if let Some(path) = self.pick(dialog, FileAction::Open, false) {
                    self.open_path(&path);
                }
            }
            FileAction::OpenPath(path) => self.open_path(&path),
            FileAction::Save => match self.state.map.as_ref().and_then(|m| m.path.clone()) {
                Some(path) => self.save_to(&path),
                None => self.perform(FileAction::SaveAs),
            },
            FileAction::SaveAs => {
                let Some(map) = &self.state.map else { return };
                let dialog = rfd::FileDialog::new()
                    .set_title("Save map as")
                    .add_filter("Map document", &["ron"])
                    .set_file_name(format!("{}.ron", map.document.name));
                if let Some(path) = self.pick(dialog, FileAction::SaveAs, true) {
                    self.save_to(&path);
                }
            }
            FileAction::ExportPackage => {
                let Some(map) = &self.state.map else { return };
                let dialog = rfd::FileDialog::new()
                    .set_title("Export nav package")
                    .add_filter("Nav package", &["navpkg"])
                    .set_file_name(format!("{}.navpkg", map.document.name));
                if let Some(path) = self.pick(dialog, FileAction::ExportPackage, true) {
                    self.export_package(&path);
                }
            }
            FileAction::Quit => {
                self.allow_close = true;
                self.quit_requested = true;
            }
        }
    }
}
