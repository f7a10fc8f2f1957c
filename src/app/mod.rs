//! The editor (behind the `gui` feature): the only module that imports eframe, egui,
//! egui_plot and rfd.
//!
//! Layers, each using only itself and the ones before it (see `docs/architecture.md`):
//! - the model, [`model`]: the open document, its undo history and the
//!   [`Command`](model::commands::Command)s that edit it; no egui;
//! - on the model: [`state`] (what is open, selected, baked), [`tools`], [`backend`] (calls
//!   into `map` and `bake`), [`worker`] (the bake thread), [`goal_preview`] (the goal preview
//!   thread), [`crowd_preview`], [`crowd_jams`], [`crowd_scenarios`], [`autosave`],
//!   [`recent`], [`background`], and the overlay pixels ([`overlays::colors`],
//!   [`overlays::images`]);
//! - drawing: [`panels`], the [`overlays`] textures, [`viewport`], [`new_map_dialog`],
//!   [`widgets`], [`perf`];
//! - [`App`] wiring them: `logic.rs` polls the workers each frame, `layout.rs` draws the
//!   frame, whose panels read the state and emit commands, and `command_handling.rs` runs
//!   shortcuts and file actions.

pub mod autosave;
pub mod backend;
pub mod background;
mod command_handling;
pub mod crowd_jams;
pub mod crowd_preview;
pub mod crowd_scenarios;
mod file_actions;
pub mod goal_preview;
mod layout;
mod logic;
pub mod model;
pub mod new_map_dialog;
pub mod overlays;
pub mod panels;
pub mod perf;
pub mod recent;
mod recovery;
mod screenshot;
pub mod state;
pub mod tools;
pub mod viewport;
pub mod widgets;
pub mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use self::overlays::OverlayTextures;
use self::panels::MovementPanel;
use self::state::EditorState;
use self::viewport::Viewport;
use self::worker::Worker;

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
    /// A Goal tool pick to show first (`NAVSTUDIO_SCREENSHOT_ROUTE=TYPE:SX,SY:GX,GY`): the
    /// movement type, the source and the goal, as Shift+click and click set them.
    route: Option<screenshot::RoutePick>,
    /// What to frame in the shot (`NAVSTUDIO_SCREENSHOT_VIEW=X0,Y0:X1,Y1` or `agents`).
    view: Option<screenshot::ViewPick>,
}

/// The editor application.
pub struct App {
    /// Everything being edited.
    pub state: EditorState,
    worker: Worker,
    viewport: Viewport,
    textures: OverlayTextures,
    /// The tools (one of each, and the active one).
    pub tools: tools::Tools,
    /// The goal tool's run-time preview.
    pub goal_preview: goal_preview::GoalPreview,
    /// The crowd preview (spawn, command, play).
    pub crowd: crowd_preview::CrowdPreview,
    /// The document copy shared with bake requests, updated in place by the dirty rect.
    shared_document: model::shared_doc::SharedDocument,
    /// Frame times (View > Performance).
    pub perf: perf::FrameStats,
    /// The Scenarios panel (saved spawns and orders beside the map).
    pub scenario_panel: panels::scenarios::ScenarioPanel,
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
    /// A confirmation of a file action ("Exported …", "Saved …") and when it was given: shown
    /// for [`NOTICE_SECS`], replaced by the next one; warnings go to `state.messages`.
    notice: Option<(String, std::time::Instant)>,
    /// An export asked for while the bake was running: written once the bake is current.
    pending_export: Option<PathBuf>,
    show_help: bool,
    allow_close: bool,
    quit_requested: bool,
    style_set: bool,
    title: String,
    screenshot: Option<ScreenshotPlan>,
}

/// How long a notice ("Exported …", "Saved …") stays on screen. `[Units: s]`
pub const NOTICE_SECS: f32 = 5.0;

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
            tools: tools::Tools::default(),
            goal_preview: goal_preview::GoalPreview::default(),
            crowd: crowd_preview::CrowdPreview::default(),
            scenario_panel: panels::scenarios::ScenarioPanel::default(),
            perf: perf::FrameStats::default(),
            shared_document: model::shared_doc::SharedDocument::default(),
            autosave: autosave::Autosave::default(),
            recent: recent::RecentFiles::default(),
            recovery_offer: None,
            recovery_untitled: false,
            recovery_root: None,
            movement_panel: MovementPanel::default(),
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
            notice: None,
            pending_export: None,
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

    /// The message box's text (a failed open or save), if one is shown.
    #[must_use]
    pub fn error_message(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Whether the worker is idle and the shown bake matches the document.
    #[must_use]
    pub fn is_baked(&self) -> bool {
        !self.worker.is_busy() && self.state.bake_is_current() && !self.tools.is_busy()
    }

    /// Whether a bake request (full or rect) is queued or running on the bake thread.
    #[must_use]
    pub fn bake_in_flight(&self) -> bool {
        self.worker.is_busy()
    }

    /// Makes `tool` active, as its button or shortcut does, if it is available now.
    pub fn select_tool(&mut self, tool: tools::Tool) {
        let mut cx = tools::ToolCx {
            state: &mut self.state,
            crowd: &mut self.crowd,
            goal: &self.goal_preview,
        };
        self.tools.select(tool, &mut cx);
    }

    /// The viewport's screen rectangle (last frame) and transform, for tests and tools.
    #[must_use]
    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// The viewport, to move or zoom the view (tests, scripted screenshots).
    pub fn viewport_mut(&mut self) -> &mut Viewport {
        &mut self.viewport
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

/// Opens the editor window, with `path` (a `.ron` map or `.png` heightmap) if given, and
/// returns when it is closed.
///
/// Set `NAVSTUDIO_SCREENSHOT=shot.png` to save the window once the first bake is shown and
/// close (for README images); with `NAVSTUDIO_SCREENSHOT_SCENARIO=FILE.scenario.ron` and
/// `NAVSTUDIO_SCREENSHOT_AFTER_SECS=S`, a crowd scenario plays for S simulated seconds first;
/// with `NAVSTUDIO_SCREENSHOT_ROUTE=TYPE:SX,SY:GX,GY` the Goal tool shows that type's route;
/// `NAVSTUDIO_SCREENSHOT_VIEW=X0,Y0:X1,Y1` frames those cells, `=agents` the crowd.
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
    let route = std::env::var("NAVSTUDIO_SCREENSHOT_ROUTE").ok().and_then(|r| {
        let parsed = screenshot::parse_route(&r);
        if parsed.is_none() {
            eprintln!(
                "navstudio: NAVSTUDIO_SCREENSHOT_ROUTE={r} is not TYPE:SX,SY:GX,GY (e.g. hover:20,454:60,454); the screenshot shows no route"
            );
        }
        parsed
    });
    let view = std::env::var("NAVSTUDIO_SCREENSHOT_VIEW").ok().and_then(|v| {
        let parsed = screenshot::parse_view(&v);
        if parsed.is_none() {
            eprintln!(
                "navstudio: NAVSTUDIO_SCREENSHOT_VIEW={v} is neither X0,Y0:X1,Y1 (cells) nor `agents`; the screenshot shows the whole map"
            );
        }
        parsed
    });
    app.screenshot = std::env::var_os("NAVSTUDIO_SCREENSHOT").map(|p| ScreenshotPlan {
        path: PathBuf::from(p),
        frames_after_bake: 5,
        requested: false,
        scenario,
        after_secs,
        route,
        view,
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
