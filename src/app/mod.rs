//! The editor (behind the `gui` feature): the only module that imports eframe, egui,
//! egui_plot and rfd.
//!
//! [`App`] owns the [`EditorState`](state::EditorState) and the background bake
//! [`Worker`](worker::Worker). Each frame, [`App::logic`](eframe::App::logic) polls the
//! worker, handles shortcuts, sends rebake requests and refreshes overlay textures; then
//! `ui` draws the panels, which read the state and emit [`Command`](commands::Command)s.
//! Library calls go through [`backend`], the adapter to rewire to `map::io` and `bake`.

pub mod autosave;
pub mod backend;
pub mod commands;
pub mod crowd_jams;
pub mod crowd_view;
pub mod goal;
mod layout;
pub mod new_map_dialog;
pub mod overlays;
pub mod panels;
pub mod perf;
pub mod recent;
pub mod scenarios;
pub mod shared_doc;
pub mod state;
pub mod tools;
pub mod viewport;
pub mod worker;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::{Key, KeyboardShortcut, Modifiers, ViewportCommand};

use self::backend::LoadedMap;
use self::overlays::OverlayTextures;
use self::panels::{MapSettingsPanel, MovementPanel};
use self::state::{CellRect, EditorState};
use self::tools::Tool;
use self::viewport::Viewport;
use self::worker::{BakeRequest, Worker, WorkerMessage};

/// Why the editor could not run, in one sentence for a person.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No display server to open a window on.
    #[error(
        "the editor needs a display, but neither DISPLAY nor WAYLAND_DISPLAY is set; \
         run it from a desktop session, or use the headless commands \
         `navstudio validate`, `navstudio bake` and `navstudio info`"
    )]
    NoDisplay,
    /// eframe could not open the window or its renderer.
    #[error(
        "the editor window could not be opened ({0}); check the graphics drivers \
         (Vulkan or OpenGL), or use the headless commands `navstudio validate`, \
         `navstudio bake` and `navstudio info`"
    )]
    Window(String),
    /// The bake thread could not be started.
    #[error(
        "the editor could not start its bake thread ({0}); free some system resources and try again"
    )]
    Worker(#[source] std::io::Error),
}

/// A file action, possibly waiting for the designer to confirm discarding changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileAction {
    /// Pick a heightmap and start a new map from it.
    NewFromHeightmap,
    /// Pick a map document (or heightmap) to open.
    Open,
    /// Open this file.
    OpenPath(PathBuf),
    /// Save to the current path (asks for one the first time).
    Save,
    /// Save to a new path.
    SaveAs,
    /// Write the latest bake as a nav package (what a game loads).
    ExportPackage,
    /// Close the editor.
    Quit,
}

impl FileAction {
    fn discards_changes(&self) -> bool {
        matches!(
            self,
            Self::NewFromHeightmap | Self::Open | Self::OpenPath(_) | Self::Quit
        )
    }
}

/// The typed-path dialog shown when no system file dialog is available.
#[derive(Clone, Debug)]
struct PathDialog {
    action: FileAction,
    path: String,
    reason: String,
    focused: bool,
}

/// Saves a screenshot of a frame and closes the window (`NAVSTUDIO_SCREENSHOT=path`).
#[derive(Clone, Debug)]
struct ScreenshotPlan {
    path: PathBuf,
    frames_after_bake: u32,
    requested: bool,
    /// A crowd scenario to play first (`NAVSTUDIO_SCREENSHOT_SCENARIO`), and the simulated
    /// seconds to play it for (`NAVSTUDIO_SCREENSHOT_AFTER_SECS`), at 8× speed.
    scenario: Option<crate::crowd::Scenario>,
    after_secs: f64,
}

/// The editor application.
pub struct App {
    /// Everything being edited.
    pub state: EditorState,
    worker: Worker,
    viewport: Viewport,
    textures: OverlayTextures,
    /// The goal tool's run-time preview.
    pub goal_preview: goal::GoalPreview,
    /// The crowd preview (spawn, command, play).
    pub crowd: crowd_view::CrowdPreview,
    /// The open map's heights, shared with every bake request (they are never edited, and
    /// copying 16 MB per brush frame on a 2048² map cost milliseconds).
    shared_heightmap: Option<Arc<crate::map::Heightmap>>,
    /// The document copy shared with bake requests, updated in place by the dirty rect.
    shared_document: shared_doc::SharedDocument,
    /// Frame times (View > Performance).
    pub perf: perf::FrameStats,
    /// The Scenarios panel (saved spawns and orders beside the map).
    pub scenario_panel: scenarios::ScenarioPanel,
    autosave: autosave::Autosave,
    /// File > Open recent.
    pub recent: recent::RecentFiles,
    /// A recovery copy newer than the opened map, offered for restoring.
    recovery_offer: Option<PathBuf>,
    /// Whether the offered copy is of a never-saved map (restores as untitled).
    recovery_untitled: bool,
    /// Where never-saved maps are autosaved (`None`: they are not; tests and embedded uses).
    recovery_root: Option<PathBuf>,
    movement_panel: MovementPanel,
    map_panel: MapSettingsPanel,
    auto_rebake: bool,
    /// A full bake was cancelled: automatic rebakes wait for the Bake button.
    bake_suspended: bool,
    full_timings: Vec<(String, Duration)>,
    textures_need_reset: bool,
    cost_shown: Option<(usize, usize)>,
    height_params: (f32, f32, f32),
    path_dialog: Option<PathDialog>,
    /// The New map dialog of a heightmap being opened.
    new_map: Option<new_map_dialog::NewMapDialog>,
    confirm: Option<FileAction>,
    error: Option<String>,
    show_help: bool,
    allow_close: bool,
    quit_requested: bool,
    style_set: bool,
    title: String,
    screenshot: Option<ScreenshotPlan>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl App {
    /// An editor with `path` (a `.ron` map or a `.png` heightmap) open, if given. A path
    /// that fails to load leaves the editor empty and shows the error.
    ///
    /// # Errors
    /// The bake thread could not be started.
    pub fn new(path: Option<&Path>) -> Result<Self, AppError> {
        let worker = Worker::spawn().map_err(AppError::Worker)?;
        let mut app = Self {
            state: EditorState::default(),
            worker,
            viewport: Viewport::default(),
            textures: OverlayTextures::default(),
            goal_preview: goal::GoalPreview::default(),
            crowd: crowd_view::CrowdPreview::default(),
            scenario_panel: scenarios::ScenarioPanel::default(),
            perf: perf::FrameStats::default(),
            shared_heightmap: None,
            shared_document: shared_doc::SharedDocument::default(),
            autosave: autosave::Autosave::default(),
            recent: recent::RecentFiles::default(),
            recovery_offer: None,
            recovery_untitled: false,
            recovery_root: None,
            movement_panel: MovementPanel::default(),
            map_panel: MapSettingsPanel::default(),
            auto_rebake: true,
            bake_suspended: false,
            full_timings: Vec::new(),
            textures_need_reset: false,
            cost_shown: None,
            height_params: (0.0, 0.0, 0.0),
            path_dialog: None,
            new_map: None,
            confirm: None,
            error: None,
            show_help: false,
            allow_close: false,
            quit_requested: false,
            style_set: false,
            title: String::new(),
            screenshot: None,
        };
        if let Some(path) = path {
            app.open_path(path);
        }
        Ok(app)
    }

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

    fn new_map_ui(&mut self, ctx: &egui::Context) {
        let choice = self.new_map.as_mut().and_then(|d| d.ui(ctx));
        match choice {
            Some(new_map_dialog::NewMapChoice::Create) => {
                self.confirm_new_map();
            }
            Some(new_map_dialog::NewMapChoice::Cancel) => self.new_map = None,
            None => {}
        }
    }

    /// The message box's text (a failed open or save), if one is shown.
    #[must_use]
    pub fn error_message(&self) -> Option<&str> {
        self.error.as_deref()
    }

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
    fn forget_untitled_changes(&self) {
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

    fn autosave_step(&mut self, now: bool) {
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
            let (shared_document, shared_heightmap) =
                (&mut self.shared_document, &mut self.shared_heightmap);
            self.autosave.maybe_start(
                target,
                || {
                    let heightmap = Arc::clone(
                        shared_heightmap.get_or_insert_with(|| Arc::new(map.heightmap.clone())),
                    );
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

    fn open_loaded(&mut self, loaded: LoadedMap) {
        self.shared_heightmap = None;
        self.shared_document.reset();
        self.movement_panel = MovementPanel::default();
        self.map_panel = MapSettingsPanel::default();
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
        self.autosave.reset(0);
    }

    /// Whether the worker is idle and the shown bake matches the document.
    #[must_use]
    pub fn is_baked(&self) -> bool {
        !self.worker.is_busy() && self.state.bake_is_current() && !self.viewport.is_painting()
    }

    /// Whether a bake request (full or rect) is queued or running on the bake thread.
    #[must_use]
    pub fn bake_in_flight(&self) -> bool {
        self.worker.is_busy()
    }

    /// The viewport's screen rectangle (last frame) and transform, for tests and tools.
    #[must_use]
    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// Draws one frame into `ui` without an eframe `Frame` (for egui_kittest): runs the
    /// same logic and drawing as the real window.
    pub fn ui_for_test(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.logic_impl(&ctx);
        self.ui_impl(ui);
    }

    fn setup_style(ctx: &egui::Context) {
        ctx.set_theme(egui::Theme::Dark);
        ctx.all_styles_mut(|style| {
            style.spacing.item_spacing = egui::vec2(8.0, 5.0);
            style.spacing.button_padding = egui::vec2(7.0, 3.0);
            style.spacing.slider_width = 130.0;
        });
    }

    // ---------------------------------------------------------------- logic

    fn logic_impl(&mut self, ctx: &egui::Context) {
        self.perf.begin();
        if !self.style_set {
            Self::setup_style(ctx);
            self.style_set = true;
        }
        self.worker.set_repaint_context(ctx);
        self.poll_worker(ctx);
        self.handle_shortcuts(ctx);
        self.handle_dropped_files(ctx);
        self.handle_close_request(ctx);
        if std::mem::take(&mut self.quit_requested) {
            ctx.send_viewport_cmd(ViewportCommand::Close);
        }
        self.request_bakes();
        self.refresh_textures(ctx);
        self.crowd_logic(ctx);
        self.autosave_step(false);
        let title = self.state.title();
        if title != self.title {
            ctx.send_viewport_cmd(ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        self.screenshot_step(ctx);
    }

    /// Keeps the crowd's navigator on the latest nav data and advances it by the frame time.
    fn crowd_logic(&mut self, ctx: &egui::Context) {
        if let Some(map) = &self.state.map {
            self.crowd.sync_nav(
                self.state.nav.as_ref(),
                self.state.nav_version,
                &map.document,
            );
        }
        // The frame's own duration, capped so a stalled frame does not fast-forward.
        let dt = f64::from(ctx.input(|i| i.stable_dt).min(0.1));
        self.crowd.tick(dt);
        if self.crowd.playing && !self.crowd.sim().agents().is_empty() {
            ctx.request_repaint();
        }
    }

    fn poll_worker(&mut self, ctx: &egui::Context) {
        for message in self.worker.poll() {
            match message {
                WorkerMessage::Progress(_) => {}
                WorkerMessage::Baked(output, images) => {
                    self.full_timings.clone_from(&output.timings);
                    let nav = output.shared_nav.clone();
                    let old_nav = self.state.nav.take();
                    self.state.set_nav(nav);
                    let old_baked = self.state.baked.replace(*output);
                    drop_later((old_nav, old_baked));
                    self.cost_shown = None;
                    let mut images = images;
                    if let Some((layer, image)) = images.islands.take() {
                        self.textures
                            .install_islands(ctx, image, self.state.nav_version, layer);
                    }
                    if let (Some(map), Some(baked)) = (&self.state.map, &self.state.baked) {
                        let type_index = images.type_index;
                        // Images of another size are from a map no longer open; those of
                        // another type leave the cost textures to `refresh_textures`.
                        match self.textures.install_baked(ctx, map, *images) {
                            Some(true) => {
                                self.cost_shown = Some((type_index, baked.types.len()));
                            }
                            Some(false) => {}
                            None => self.textures.refresh_slope(ctx, map, baked),
                        }
                    }
                }
                WorkerMessage::Patched(mut patch) => {
                    if let Some(nav) = patch.nav.clone() {
                        // The previous nav data can be the last reference: free it elsewhere.
                        let old_nav = self.state.nav.take();
                        self.state.set_nav(Some(nav));
                        drop_later(old_nav);
                        if let Some((layer, image)) = patch.islands.take() {
                            self.textures.install_islands(
                                ctx,
                                image,
                                self.state.nav_version,
                                layer,
                            );
                        }
                    }
                    let width = self.state.map_size().0;
                    if let Some(baked) = self.state.baked.as_mut() {
                        patch.apply_to(baked, width);
                    }
                    if let (Some(map), Some(baked)) = (&self.state.map, &self.state.baked) {
                        self.textures.refresh_cost(
                            ctx,
                            map,
                            baked,
                            self.state.selected_type,
                            patch.rect,
                        );
                    }
                }
                WorkerMessage::Failed(why) => {
                    // Wait for the next edit: re-baking the same document fails the same way.
                    self.state.pending_full_bake = false;
                    self.state.messages.push(format!(
                        "The map could not be baked: {why} The overlays show the previous bake."
                    ));
                }
                WorkerMessage::Cancelled => {
                    self.bake_suspended = true;
                    self.state.pending_full_bake = true;
                    self.state
                        .messages
                        .push("Bake cancelled: the overlays show the previous bake. Press Bake to finish.".to_owned());
                }
            }
        }
        if self.worker.is_busy() {
            // Progress arrives by message; this only keeps the bar's animation alive.
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    fn request_bakes(&mut self) {
        if self.worker.is_busy() || self.bake_suspended || self.state.read_only.is_some() {
            return;
        }
        let Some(map) = self.state.map.as_ref() else {
            return;
        };
        let heightmap = Arc::clone(
            self.shared_heightmap
                .get_or_insert_with(|| Arc::new(map.heightmap.clone())),
        );
        let first = self.state.baked.is_none();
        let width = map.heightmap.width;
        // Paint cells only change by strokes and their undo/redo, which all mark their
        // cells in `pending_dirty`, emptied only here once a request took a copy; layers
        // added, removed or retargeted are found by comparing the layer lists.
        let changed = self.state.pending_dirty.unwrap_or(CellRect::full(0, 0));
        // The island image is built on the bake thread with the nav data it sends back.
        let islands_layer = self
            .state
            .overlays
            .islands
            .then_some(self.state.selected_type);
        if self.state.pending_full_bake && (self.auto_rebake || first) {
            let request = BakeRequest::Full {
                document: self
                    .shared_document
                    .sync(&map.document, Some(changed), width),
                heightmap,
                overlay_type: self.state.selected_type,
                islands_layer,
            };
            if self.worker.send(request) {
                self.state.pending_full_bake = false;
                self.state.pending_dirty = None;
            }
        } else if let (Some(rect), true, false) = (
            self.state.pending_dirty,
            self.auto_rebake,
            self.state.pending_full_bake,
        ) {
            let request = BakeRequest::Rect {
                document: self
                    .shared_document
                    .sync(&map.document, Some(changed), width),
                heightmap,
                rect,
                with_nav: self.state.wants_nav(),
                overlay_type: self.state.selected_type,
                islands_layer,
            };
            if self.worker.send(request) {
                self.state.pending_dirty = None;
            }
        }
    }

    fn start_full_bake(&mut self) {
        self.bake_suspended = false;
        self.state.pending_full_bake = true;
        let auto = self.auto_rebake;
        self.auto_rebake = true;
        self.request_bakes();
        self.auto_rebake = auto;
    }

    fn refresh_textures(&mut self, ctx: &egui::Context) {
        let Some(map) = self.state.map.as_ref() else {
            return;
        };
        let params = (
            map.document.height_scale_m,
            map.document.water_level_m,
            map.document.cell_size_m,
        );
        if self.textures_need_reset {
            self.textures.reset(ctx, map);
            self.textures_need_reset = false;
            self.height_params = params;
            self.state.paint_dirty =
                Some(CellRect::full(map.heightmap.width, map.heightmap.height));
        } else if params != self.height_params {
            self.textures.refresh_height(ctx, map);
            self.height_params = params;
        }
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let selected = self.state.selected_type;
        let type_name = map
            .document
            .movement_types
            .get(selected)
            .map_or_else(String::new, |t| t.name.clone());
        if let Some(rect) = self.state.paint_dirty.take() {
            self.textures.refresh_paint(ctx, map, &type_name, rect);
        }
        if let Some(baked) = &self.state.baked {
            let key = (selected, baked.types.len());
            if self.cost_shown != Some(key) {
                self.textures.refresh_cost(ctx, map, baked, selected, full);
                self.cost_shown = Some(key);
            }
        }
        let overlays = self.state.overlays;
        if let (true, Some(nav)) = (overlays.islands, &self.state.nav) {
            self.textures
                .refresh_islands(ctx, nav, self.state.nav_version, selected);
        }
        self.goal_preview.update(
            &self.state,
            (overlays.integration, overlays.line_of_sight),
            Some(ctx),
        );
        if let (true, Some(cells)) = (overlays.flow, self.viewport.arrow_cells()) {
            self.goal_preview.cover_cells(cells);
        }
        self.textures.refresh_goal(
            ctx,
            &mut self.goal_preview,
            (full.x1, full.y1),
            (overlays.integration, overlays.line_of_sight),
        );
    }

    fn handle_shortcuts(&mut self, ctx: &egui::Context) {
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
        if self.viewport.is_painting() {
            (redo, undo) = (false, false);
        }
        if redo || undo {
            self.movement_panel.flush(&mut self.state);
            self.map_panel.flush(&mut self.state);
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
        ctx.input_mut(|i| {
            for (key, tool) in [
                (Key::B, Tool::Paint),
                (Key::I, Tool::Inspect),
                (Key::S, Tool::Stamp),
                (Key::G, Tool::Goal),
                (Key::A, Tool::Spawn),
                (Key::C, Tool::Command),
            ] {
                if i.consume_shortcut(&plain(key)) && self.state.tool_available(tool) {
                    self.state.tool = tool;
                }
            }
            if matches!(self.state.tool, Tool::Goal) && i.consume_shortcut(&plain(Key::Escape)) {
                self.state.goal = state::GoalPick::default();
            }
            if matches!(self.state.tool, Tool::Stamp) {
                if i.consume_shortcut(&plain(Key::R)) {
                    self.state.rotate_stamp();
                }
                if i.consume_shortcut(&plain(Key::Delete))
                    || i.consume_shortcut(&plain(Key::Backspace))
                {
                    self.state.delete_selected_stamp();
                }
                if i.consume_shortcut(&plain(Key::Escape)) {
                    self.state.stamp.selected = None;
                    self.state.stamp.drag = None;
                }
            }
            if i.consume_shortcut(&plain(Key::P)) {
                self.crowd.playing = !self.crowd.playing;
            }
            if i.consume_shortcut(&plain(Key::Period)) {
                self.crowd.step_once();
            }
            if matches!(self.state.tool, Tool::Command) && i.consume_shortcut(&plain(Key::Escape)) {
                self.crowd.selection.clear();
            }
            if i.consume_shortcut(&plain(Key::F)) || i.consume_shortcut(&plain(Key::Home)) {
                self.viewport.fit_requested = true;
            }
            if i.consume_shortcut(&plain(Key::F1)) {
                self.show_help = !self.show_help;
            }
        });
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped = ctx.input(|i| i.raw.dropped_files.first().map(|f| f.path().to_owned()));
        if let Some(path) = dropped {
            self.request(FileAction::OpenPath(path));
        }
    }

    fn handle_close_request(&mut self, ctx: &egui::Context) {
        if ctx.input(|i| i.viewport().close_requested())
            && self.state.is_modified()
            && !self.allow_close
        {
            ctx.send_viewport_cmd(ViewportCommand::CancelClose);
            self.confirm = Some(FileAction::Quit);
        }
    }

    // ---------------------------------------------------------------- files

    /// Runs a file action, asking first when it would discard unsaved changes.
    pub fn request(&mut self, action: FileAction) {
        if action.discards_changes() && self.state.is_modified() {
            self.confirm = Some(action);
        } else {
            self.perform(action);
        }
    }

    fn perform(&mut self, action: FileAction) {
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

    /// Shows the system file dialog; when none is available (it returns at once), opens
    /// the typed-path dialog instead and says why.
    fn pick(&mut self, dialog: rfd::FileDialog, action: FileAction, save: bool) -> Option<PathBuf> {
        let start = Instant::now();
        let picked = if save {
            dialog.save_file()
        } else {
            dialog.pick_file()
        };
        if picked.is_none() && start.elapsed() < Duration::from_millis(300) {
            self.path_dialog = Some(PathDialog {
                action,
                path: self
                    .state
                    .map
                    .as_ref()
                    .and_then(|m| m.path.as_ref())
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                reason: "No system file dialog is available (no desktop portal and no zenity), so type the path here."
                    .to_owned(),
                focused: false,
            });
        }
        picked
    }

    /// Saves the map to `path` now (Save As without a dialog); errors go to the message box.
    pub fn save_as(&mut self, path: &Path) {
        self.save_to(path);
    }

    fn save_to(&mut self, path: &Path) {
        let Some(map) = &self.state.map else { return };
        let was_untitled = map.path.is_none();
        match backend::save_map(path, &map.document, &map.heightmap) {
            Ok(()) => {
                self.state.mark_saved(path.to_owned());
                self.recent.note(path);
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
        let (Some(map), Some(nav)) = (&self.state.map, &self.state.nav) else {
            self.error = Some("Nothing to export yet: open a map and let it bake.".to_owned());
            return;
        };
        if !self.is_baked() {
            self.error = Some(
                "The bake is still running or out of date: export again once the Bake panel says \"up to date\"."
                    .to_owned(),
            );
            return;
        }
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
            Ok(()) => self
                .state
                .messages
                .push(format!("Exported the nav package to {}.", path.display())),
            Err(err) => {
                self.error = Some(format!(
                    "The package was not written: {err} Nothing else changed."
                ));
            }
        }
    }

    fn typed_path_done(&mut self, action: FileAction, path: PathBuf) {
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
fn is_new_map_source(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    !matches!(ext.as_str(), "ron" | "navpkg" | "map")
}

/// Frees `value` on a short-lived thread: the previous bake of a 2048² map is hundreds of
/// megabytes in many allocations, too slow to free inside a frame.
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    let spawned = std::thread::Builder::new()
        .name("navstudio-drop".to_owned())
        .spawn(move || drop(value));
    // If no thread can start, the value was dropped with the error: freed here, still correct.
    drop(spawned);
}

impl eframe::App for App {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.logic_impl(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui_impl(ui);
    }

    fn on_exit(&mut self) {
        self.perf.write_log();
    }
}

impl App {
    fn screenshot_step(&mut self, ctx: &egui::Context) {
        // A heightmap waits in the New map dialog: that dialog is the frame to save.
        let ready = self.is_baked()
            || (self.state.map.is_none() && (self.error.is_some() || self.new_map.is_some()));
        let Some(plan) = self.screenshot.as_mut() else {
            return;
        };
        if plan.requested {
            return;
        }
        ctx.request_repaint();
        if !ready {
            return;
        }
        if let Some(scenario) = plan.scenario.take() {
            if let Err(e) = self.crowd.load_scenario(&scenario) {
                eprintln!("navstudio: the screenshot scenario does not load: {e}");
            }
            self.crowd.playing = true;
            self.crowd.speed = 8.0;
        }
        if self.crowd.sim_secs() < plan.after_secs {
            return;
        }
        if plan.frames_after_bake > 0 {
            plan.frames_after_bake -= 1;
            return;
        }
        plan.requested = true;
        self.allow_close = true;
        let path = plan.path.clone();
        let close_ctx = ctx.clone();
        ctx.request_screenshot(move |image: Arc<egui::ColorImage>| {
            let [w, h] = image.size;
            let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
            let saved = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
                .ok_or_else(|| "the screenshot has the wrong size".to_owned())
                .and_then(|img| img.save(&path).map_err(|e| e.to_string()));
            if let Err(err) = saved {
                eprintln!(
                    "navstudio: could not save the screenshot to {}: {err}",
                    path.display()
                );
            }
            close_ctx.send_viewport_cmd(ViewportCommand::Close);
        });
    }
}

/// Opens the editor window, with `path` (a `.ron` map or `.png` heightmap) if given, and
/// returns when it is closed.
///
/// Set `NAVSTUDIO_SCREENSHOT=shot.png` to save the window once the first bake is shown and
/// close (for README images); with `NAVSTUDIO_SCREENSHOT_SCENARIO=FILE.scenario.ron` and
/// `NAVSTUDIO_SCREENSHOT_AFTER_SECS=S`, a crowd scenario plays for S simulated seconds first.
///
/// # Errors
/// No display is available, or the window or its renderer could not be created.
pub fn run_editor(path: Option<PathBuf>) -> Result<(), AppError> {
    let has = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    if !has("DISPLAY") && !has("WAYLAND_DISPLAY") {
        return Err(AppError::NoDisplay);
    }
    let mut app = App::new(path.as_deref())?;
    if let Some(root) = autosave::default_recovery_root() {
        app.set_recovery_root(root);
    }
    if let Some(store) = recent::default_store() {
        app.recent = recent::RecentFiles::load(store);
        if let Some(opened) = app.state.map.as_ref().and_then(|m| m.path.clone()) {
            app.recent.note(&opened);
        }
    }
    app.perf = perf::FrameStats::from_env();
    let scenario = std::env::var_os("NAVSTUDIO_SCREENSHOT_SCENARIO").and_then(|p| {
        crate::crowd::Scenario::load(std::path::Path::new(&p))
            .map_err(|e| eprintln!("navstudio: {e}; the screenshot shows no crowd"))
            .ok()
    });
    let after_secs = std::env::var("NAVSTUDIO_SCREENSHOT_AFTER_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    app.screenshot = std::env::var_os("NAVSTUDIO_SCREENSHOT").map(|p| ScreenshotPlan {
        path: PathBuf::from(p),
        frames_after_bake: 5,
        requested: false,
        scenario,
        after_secs,
    });
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("navstudio")
            .with_app_id("navstudio")
            .with_inner_size([1440.0, 900.0])
            .with_min_inner_size([960.0, 600.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "navstudio",
        options,
        Box::new(move |cc| {
            App::setup_style(&cc.egui_ctx);
            Ok(Box::new(app))
        }),
    )
    .map_err(|err| AppError::Window(err.to_string()))
}
