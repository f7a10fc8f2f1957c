//! The editor monkey test: the real editor (egui_kittest, headless) on a copy of
//! `maps/small.ron`, driven by random actions from a seeded RNG — tools, clicks and drags in
//! the viewport with every tool (paint, erase, stamp place/rotate/remove, goal, spawn,
//! command, inspect), random widgets of the panels found through the accessibility tree
//! (sliders, drag values, checkboxes, combo boxes, buttons), the slope→cost curve editor,
//! overlays, undo and redo (keys, the Edit menu, and in the middle of a drag), bake, crowd
//! play/pause/step/clear, saving to a temporary folder and resizing the window.
//!
//! After every action the document must validate ([`MapDocument::validate`]) and the
//! editor's indices (selected movement type and stamp, paint layer sizes) must hold; at
//! the end, undoing everything through the UI must give the original document back (heights,
//! paint layers, stamps, movement types, map settings), and redoing everything the edited
//! one. A panic or a failed check prints the seed and the actions that led there.
//!
//! - `cargo test --test integration monkey` runs 500 actions on one seed.
//! - `cargo test --test integration monkey -- --ignored` runs 10,000 actions on several
//!   seeds (CI runs it after the main `cargo test`).
//! - `MONKEY_SEED=S [MONKEY_ACTIONS=N] cargo test --test integration monkey::replay -- --ignored --nocapture`
//!   replays seed S (N actions, 500 by default), printing each action as it runs.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui::{Key, Modifiers, PointerButton, Pos2, Rect, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use navstudio::app::App;
use navstudio::app::tools::Tool;
use navstudio::map::{Heightmap, MapDocument};

use crate::common::Rng;
use crate::gui_common::harness;

/// A key with its modifiers.
#[derive(Clone, Copy, Debug)]
struct Chord(Modifiers, Key);

impl Chord {
    fn plain(key: Key) -> Self {
        Self(Modifiers::NONE, key)
    }
    fn undo() -> Self {
        Self(Modifiers::COMMAND, Key::Z)
    }
    fn redo() -> Self {
        Self(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z)
    }
    fn redo_y() -> Self {
        Self(Modifiers::COMMAND, Key::Y)
    }
}

/// What to do with a widget found in the accessibility tree.
#[derive(Clone, Debug)]
enum WidgetOp {
    Click,
    Increment,
    Decrement,
    Set(f64),
}

/// A widget, found again by role and label (the `nth` of that role and label).
#[derive(Clone, Debug)]
struct WidgetRef {
    role: Role,
    label: String,
    nth: usize,
}

/// What the curve editor does at two points given as fractions of the plot's rectangle.
#[derive(Clone, Copy, Debug)]
enum CurveOp {
    /// Double-click (adds a point there).
    Insert((f32, f32)),
    /// Double-click, then drag the new point.
    InsertAndDrag((f32, f32), (f32, f32)),
    /// A drag from one place to another (moves a point when it starts on one).
    Drag((f32, f32), (f32, f32)),
    /// Right-click (removes the point there).
    Remove((f32, f32)),
    /// Double-click, then right-click the new point.
    InsertAndRemove((f32, f32)),
}

/// One monkey action. Positions in the viewport are in cells.
#[derive(Clone, Debug)]
enum Action {
    ToolButton(Tool),
    Key(Chord),
    Click {
        cell: (f32, f32),
        shift: bool,
    },
    /// A primary drag through `via`, optionally pressing a key half way (undo, a tool
    /// shortcut, Delete…) while the button is held.
    Drag {
        from: (f32, f32),
        via: Vec<(f32, f32)>,
        shift: bool,
        key_midway: Option<Chord>,
    },
    RightClick((f32, f32)),
    Pan {
        from: (f32, f32),
        to: (f32, f32),
    },
    Wheel {
        at: (f32, f32),
        delta: f32,
    },
    PickStamp(String),
    Widget(WidgetRef, WidgetOp),
    /// Toggles the overlay checkbox whose label starts with this.
    Overlay(&'static str),
    /// Undo or redo through the Edit menu.
    EditMenu(&'static str),
    Bake,
    /// A crowd toolbar button: "Play/Pause", "Step" or "Clear agents".
    Crowd(&'static str),
    ChooseArchetype(usize),
    MovementType(&'static str),
    SelectType(usize),
    Curve(CurveOp),
    /// Ctrl+S (the map's path is in the temporary folder).
    Save,
    /// Save As a file in a new sub-folder of the temporary folder.
    SaveAs(u32),
    Export(u32),
    Resize(f32, f32),
    DismissMessages,
    CloseError,
    Idle(u8),
}

/// The actions run so far, for the failure report.
struct Log {
    seed: u64,
    actions: Vec<Action>,
}

impl fmt::Display for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "monkey seed {} failed at action {} of the list below.",
            self.seed,
            self.actions.len()
        )?;
        writeln!(
            f,
            "Replay: MONKEY_SEED={} MONKEY_ACTIONS={} cargo test --test integration monkey::replay -- --ignored --nocapture",
            self.seed,
            self.actions.len()
        )?;
        for (i, a) in self.actions.iter().enumerate() {
            writeln!(f, "  {:>5}: {a:?}", i + 1)?;
        }
        Ok(())
    }
}

/// Overlay checkboxes, by the start of their labels.
const OVERLAYS: [&str; 14] = [
    "Height",
    "Slope",
    "Cost (",
    "Walls (",
    "Wall buffer and blur",
    "Paint layer",
    "Sector grid",
    "Stamps",
    "Islands",
    "Portals",
    "Clear sectors",
    "Integration heat map",
    "Flow arrows",
    "Line of sight",
];

/// Buttons a random widget pick must not press: they open system file dialogs (which a
/// headless test cannot answer), leave the map, or quit. Saving and exporting have actions
/// of their own that write into the temporary folder.
const FORBIDDEN_BUTTONS: [&str; 9] = [
    "File",
    "Open",
    "Save",
    "Export",
    "Quit",
    "New from heightmap",
    "Restore",
    "Discard",
    "Delete file",
];

/// Map size in cells of `maps/small.ron`; positions are drawn a little beyond it.
const MAP: f32 = 96.0;

/// The most agents before spawning gives way to clearing (keeps crowd steps cheap).
const MAX_AGENTS: usize = 1500;

fn small_map_copy(dir: &Path) -> PathBuf {
    let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    for file in ["small.ron", "small.png", "small.paint.all.png"] {
        std::fs::copy(maps.join(file), dir.join(file)).unwrap();
    }
    dir.join("small.ron")
}

fn uniform(rng: &mut Rng) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32
}

fn range(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * uniform(rng)
}

fn chance(rng: &mut Rng, p: f32) -> bool {
    uniform(rng) < p
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u32) as usize]
}

fn cell(rng: &mut Rng) -> (f32, f32) {
    (range(rng, -4.0, MAP + 4.0), range(rng, -4.0, MAP + 4.0))
}

fn near(rng: &mut Rng, c: (f32, f32), r: f32) -> (f32, f32) {
    (c.0 + range(rng, -r, r), c.1 + range(rng, -r, r))
}

/// Steps until the bake thread and the goal preview are idle.
fn settle(h: &mut Harness<'_, App>) {
    h.step();
    h.step();
    let deadline = Instant::now() + Duration::from_secs(120);
    while h.state().bake_in_flight() || h.state().goal_preview.is_pending() {
        assert!(
            Instant::now() < deadline,
            "the editor stayed busy for 120 s"
        );
        std::thread::sleep(Duration::from_millis(1));
        h.step();
    }
    h.step();
}

/// A screen point of a cell, kept inside the viewport (so a click never lands on a menu).
fn screen(h: &Harness<'_, App>, c: (f32, f32)) -> Pos2 {
    let vp = h.state().viewport();
    let p = vp.transform.screen_from_cell(vp.rect, c);
    let r = vp.rect.shrink(1.0);
    if r.width() <= 0.0 || r.height() <= 0.0 {
        return vp.rect.center();
    }
    p.clamp(r.min, r.max)
}

fn button(h: &Harness<'_, App>, pos: Pos2, button: PointerButton, pressed: bool, m: Modifiers) {
    h.event(egui::Event::PointerButton {
        pos,
        button,
        pressed,
        modifiers: m,
    });
}

fn press_chord(h: &Harness<'_, App>, c: Chord) {
    h.key_press_modifiers(c.0, c.1);
}

fn shift_if(shift: bool) -> Modifiers {
    if shift {
        Modifiers::SHIFT
    } else {
        Modifiers::NONE
    }
}

/// Roles the random widget pick chooses from.
const WIDGET_ROLES: [Role; 5] = [
    Role::Button,
    Role::CheckBox,
    Role::Slider,
    Role::SpinButton,
    Role::ComboBox,
];

/// Every enabled widget of the picked roles with a label, as (role, label, nth, range).
fn widgets(h: &Harness<'_, App>) -> Vec<(WidgetRef, Option<(f64, f64)>)> {
    let mut out: Vec<(WidgetRef, Option<(f64, f64)>)> = Vec::new();
    for node in h.root().children_recursive() {
        let n = node.accesskit_node();
        let role = n.role();
        if !WIDGET_ROLES.contains(&role) || n.is_disabled() || n.is_hidden() {
            continue;
        }
        let Some(label) = n.label().filter(|l| !l.trim().is_empty()) else {
            continue;
        };
        if role == Role::Button && FORBIDDEN_BUTTONS.iter().any(|f| label.starts_with(f)) {
            continue;
        }
        let nth = out
            .iter()
            .filter(|(w, _)| w.role == role && w.label == label)
            .count();
        let bounds = n.min_numeric_value().zip(n.max_numeric_value());
        out.push((WidgetRef { role, label, nth }, bounds));
    }
    out
}

/// The first node labelled `label` that is not a plain text label (`query_by_label` panics
/// when a label shows up twice, as "Goal" does with the goal tool on).
fn first<'t>(h: &'t Harness<'_, App>, label: &'t str) -> Option<egui_kittest::Node<'t>> {
    h.query_all_by_label(label)
        .find(|n| n.accesskit_node().role() != Role::Label)
}

fn find_widget<'t>(h: &'t Harness<'_, App>, w: &'t WidgetRef) -> Option<egui_kittest::Node<'t>> {
    h.query_all_by_role_and_label(w.role, &w.label).nth(w.nth)
}

/// The plot rectangle of the slope→cost curve, below its heading, if on screen.
fn curve_rect(h: &mut Harness<'_, App>) -> Option<Rect> {
    h.query_all_by_label("Slope -> cost").next()?.scroll_to_me();
    h.step();
    h.step();
    let heading = h.query_all_by_label("Slope -> cost").next()?.rect();
    let window = h.ctx.content_rect();
    // The plot is 190 points high, right under the heading, as wide as the panel; keep
    // clear of its axis labels.
    let plot = Rect::from_min_max(
        Pos2::new(heading.left() + 40.0, heading.bottom() + 12.0),
        Pos2::new(window.right() - 30.0, heading.bottom() + 160.0),
    );
    (window.contains_rect(plot) && plot.width() > 40.0).then_some(plot)
}

fn at(rect: Rect, f: (f32, f32)) -> Pos2 {
    rect.min + vec2(f.0 * rect.width(), f.1 * rect.height())
}

fn frac(rng: &mut Rng) -> (f32, f32) {
    (uniform(rng), uniform(rng))
}

/// The monkey: its RNG, temporary folder and the editor.
struct Monkey {
    rng: Rng,
    dir: tempfile::TempDir,
    h: Harness<'static, App>,
    saves: u32,
}

impl Monkey {
    fn new(seed: u64) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = small_map_copy(dir.path());
        let mut h = harness(App::new(Some(&path)).unwrap());
        settle(&mut h);
        assert!(h.state().is_baked(), "small.ron did not bake");
        // Keep spawns small: the crowd steps every frame while playing.
        h.state_mut().crowd.spawn_count = 40;
        Self {
            rng: Rng(seed),
            dir,
            h,
            saves: 0,
        }
    }

    fn document(&self) -> &MapDocument {
        &self.h.state().state.map.as_ref().unwrap().document
    }

    fn heightmap(&self) -> &Heightmap {
        &self.h.state().state.map.as_ref().unwrap().heightmap
    }

    /// Draws the next action for the editor as it is now.
    fn next_action(&mut self) -> Action {
        let app = self.h.state();
        if app.error_message().is_some() && chance(&mut self.rng, 0.8) {
            return Action::CloseError;
        }
        if !app.state.messages.is_empty() && chance(&mut self.rng, 0.3) {
            return Action::DismissMessages;
        }
        let tool = app.state.tool;
        let agents = app.crowd.sim().agents().len();
        let rng = &mut self.rng;
        match rng.below(100) {
            0..=7 => Action::ToolButton(pick(rng, &Tool::ALL)),
            8..=10 => Action::Key(Chord::plain(pick(
                rng,
                &[Key::B, Key::I, Key::S, Key::G, Key::A, Key::C],
            ))),
            11..=34 => {
                if matches!(tool, Tool::Spawn) && agents > MAX_AGENTS {
                    return Action::Crowd("Clear agents");
                }
                let from = cell(rng);
                if chance(rng, 0.35) {
                    Action::Click {
                        cell: from,
                        shift: chance(rng, 0.2),
                    }
                } else {
                    let n = 1 + rng.below(4) as usize;
                    let mut via = Vec::with_capacity(n);
                    let mut last = from;
                    for _ in 0..n {
                        last = near(rng, last, 12.0);
                        via.push(last);
                    }
                    let key_midway = chance(rng, 0.15).then(|| {
                        pick(
                            rng,
                            &[
                                Chord::undo(),
                                Chord::redo(),
                                Chord::plain(Key::Delete),
                                Chord::plain(Key::R),
                                Chord::plain(Key::Escape),
                                Chord::plain(Key::B),
                                Chord::plain(Key::S),
                                Chord::plain(Key::I),
                            ],
                        )
                    });
                    Action::Drag {
                        from,
                        via,
                        shift: chance(rng, 0.1),
                        key_midway,
                    }
                }
            }
            35..=37 => Action::RightClick(cell(rng)),
            38..=39 => {
                if chance(rng, 0.5) {
                    let from = cell(rng);
                    Action::Pan {
                        from,
                        to: near(rng, from, 20.0),
                    }
                } else {
                    Action::Wheel {
                        at: cell(rng),
                        delta: range(rng, -300.0, 300.0),
                    }
                }
            }
            40..=44 => Action::Key(pick(
                rng,
                &[
                    Chord::plain(Key::R),
                    Chord::plain(Key::Delete),
                    Chord::plain(Key::Backspace),
                    Chord::plain(Key::Escape),
                    Chord::plain(Key::P),
                    Chord::plain(Key::Period),
                    Chord::plain(Key::F),
                    Chord::plain(Key::F1),
                ],
            )),
            45..=47 => {
                let stamps = navstudio::app::model::stamp_placement::library();
                let k = rng.below(stamps.stamps.len() as u32) as usize;
                Action::PickStamp(stamps.stamps[k].id.clone())
            }
            48..=59 => self.random_widget(),
            60..=63 => Action::Overlay(pick(rng, &OVERLAYS)),
            64..=70 => Action::Key(pick(rng, &[Chord::undo(), Chord::undo(), Chord::redo_y()])),
            71..=72 => Action::Key(Chord::redo()),
            73 => Action::EditMenu(pick(rng, &["Undo", "Redo"])),
            74..=75 => Action::Bake,
            76..=79 => Action::Crowd(pick(rng, &["Play/Pause", "Step", "Step", "Clear agents"])),
            80 => Action::ChooseArchetype(rng.below(8) as usize),
            81..=82 => Action::MovementType(pick(rng, &["Add", "Duplicate", "Delete"])),
            83..=84 => Action::SelectType(rng.below(6) as usize),
            85..=89 => {
                let a = frac(rng);
                let b = frac(rng);
                Action::Curve(match rng.below(5) {
                    0 => CurveOp::Insert(a),
                    1 => CurveOp::InsertAndDrag(a, b),
                    2 => CurveOp::Drag(a, b),
                    3 => CurveOp::InsertAndRemove(a),
                    _ => CurveOp::Remove(a),
                })
            }
            90 => Action::Save,
            91 => {
                self.saves += 1;
                Action::SaveAs(self.saves)
            }
            92 => {
                self.saves += 1;
                Action::Export(self.saves)
            }
            93..=95 => Action::Resize(range(rng, 640.0, 1920.0), range(rng, 420.0, 1200.0)),
            _ => Action::Idle(1 + rng.below(30) as u8),
        }
    }

    fn random_widget(&mut self) -> Action {
        let found = widgets(&self.h);
        if found.is_empty() {
            return Action::Idle(1);
        }
        let (w, bounds) = found[self.rng.below(found.len() as u32) as usize].clone();
        let rng = &mut self.rng;
        let op = match w.role {
            Role::Slider | Role::SpinButton => match rng.below(3) {
                0 => WidgetOp::Increment,
                1 => WidgetOp::Decrement,
                _ => {
                    let (lo, hi) = bounds.unwrap_or((-10.0, 100.0));
                    // Huge crowds only make the run slow.
                    let hi = if w.label.starts_with("Agents per spawn") {
                        hi.min(200.0)
                    } else {
                        hi
                    };
                    // Now and then a value beyond the range: the widget must clamp it.
                    let (lo, hi) = if chance(rng, 0.1) {
                        (lo - 10.0, hi + 10.0)
                    } else {
                        (lo, hi)
                    };
                    WidgetOp::Set(lo + (hi - lo) * f64::from(uniform(rng)))
                }
            },
            _ => WidgetOp::Click,
        };
        Action::Widget(w, op)
    }

    /// Runs one action through the UI and lets the editor settle.
    fn run(&mut self, action: &Action) {
        let h = &mut self.h;
        match action {
            Action::ToolButton(tool) => {
                if let Some(b) = first(h, tool.label()) {
                    b.click_accesskit();
                }
            }
            Action::Key(chord) => press_chord(h, *chord),
            Action::Click { cell, shift } => {
                let p = screen(h, *cell);
                let m = shift_if(*shift);
                h.hover_at(p);
                h.step();
                h.event(egui::Event::ModifiersChanged(m));
                button(h, p, PointerButton::Primary, true, m);
                button(h, p, PointerButton::Primary, false, m);
                h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
            }
            Action::Drag {
                from,
                via,
                shift,
                key_midway,
            } => {
                let m = shift_if(*shift);
                let p = screen(h, *from);
                h.hover_at(p);
                h.step();
                h.event(egui::Event::ModifiersChanged(m));
                button(h, p, PointerButton::Primary, true, m);
                h.step();
                let mut last = p;
                for (k, c) in via.iter().enumerate() {
                    last = screen(h, *c);
                    h.hover_at(last);
                    h.step();
                    if k == via.len() / 2
                        && let Some(chord) = key_midway
                    {
                        press_chord(h, *chord);
                        h.step();
                    }
                }
                button(h, last, PointerButton::Primary, false, m);
                h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
            }
            Action::RightClick(c) => {
                let p = screen(h, *c);
                h.hover_at(p);
                h.step();
                button(h, p, PointerButton::Secondary, true, Modifiers::NONE);
                h.step();
                button(h, p, PointerButton::Secondary, false, Modifiers::NONE);
            }
            Action::Pan { from, to } => {
                let (a, b) = (screen(h, *from), screen(h, *to));
                h.hover_at(a);
                h.step();
                button(h, a, PointerButton::Middle, true, Modifiers::NONE);
                h.step();
                h.hover_at(b);
                h.step();
                button(h, b, PointerButton::Middle, false, Modifiers::NONE);
            }
            Action::Wheel { at, delta } => {
                let p = screen(h, *at);
                h.hover_at(p);
                h.event(egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Point,
                    delta: vec2(0.0, *delta),
                    phase: egui::TouchPhase::Move,
                    source: egui::MouseWheelSource::Wheel,
                    modifiers: Modifiers::NONE,
                });
            }
            Action::PickStamp(id) => {
                if let Some(b) = first(h, id) {
                    b.click_accesskit();
                }
            }
            Action::Widget(w, op) => {
                if let Some(node) = find_widget(h, w) {
                    match op {
                        WidgetOp::Click => node.click_accesskit(),
                        WidgetOp::Increment => node.increment_accesskit(),
                        WidgetOp::Decrement => node.decrement_accesskit(),
                        WidgetOp::Set(v) => node.set_value_accesskit(*v),
                    }
                }
            }
            Action::Overlay(prefix) => {
                if let Some(b) = h.query_all_by_role(Role::CheckBox).find(|n| {
                    n.accesskit_node()
                        .label()
                        .is_some_and(|l| l.starts_with(prefix))
                }) {
                    b.click_accesskit();
                }
            }
            Action::EditMenu(what) => {
                if let Some(menu) = first(h, "Edit") {
                    menu.click();
                    h.step();
                    h.step();
                    let what: &'static str = what;
                    if let Some(item) = h
                        .query_all_by(move |n| {
                            n.role() != Role::Label
                                && n.label().is_some_and(|l| l.starts_with(what))
                        })
                        .next()
                    {
                        item.click();
                    }
                    h.step();
                    // Close the menu if the item was disabled.
                    h.key_press(Key::Escape);
                }
            }
            Action::Bake => {
                // The Bake section's header has the same label: the button comes after it.
                if let Some(b) = h
                    .query_all_by_label("Bake")
                    .rfind(|n| n.accesskit_node().role() != Role::Label)
                {
                    b.click_accesskit();
                }
            }
            Action::Crowd(what) => {
                let label = match *what {
                    "Play/Pause" if h.state().crowd.playing => "Pause",
                    "Play/Pause" => "Play",
                    other => other,
                };
                if let Some(b) = first(h, label) {
                    b.click_accesskit();
                }
            }
            Action::ChooseArchetype(k) => {
                let combo = h.query_all_by_role(Role::ComboBox).next();
                let opened = combo.inspect(|c| c.click_accesskit()).is_some();
                if opened {
                    h.step();
                    h.step();
                    let names: Vec<String> = h
                        .state()
                        .crowd
                        .archetypes
                        .iter()
                        .map(|a| a.name.clone())
                        .collect();
                    if let Some(name) = names.get(k % names.len().max(1))
                        && let Some(option) = h
                            .query_all_by_label(name)
                            .rfind(|n| n.accesskit_node().role() != Role::Label)
                    {
                        option.click_accesskit();
                    }
                }
            }
            Action::MovementType(what) => {
                // The Movement types panel is on the right; the stamp tool has a Delete too.
                let half = h.ctx.content_rect().center().x;
                if let Some(b) = h.query_all_by_label(what).find(|n| {
                    n.accesskit_node().role() != Role::Label && n.rect().center().x > half
                }) {
                    b.click_accesskit();
                }
            }
            Action::SelectType(k) => {
                let names: Vec<String> = self_types(h);
                if let Some(name) = names.get(k % names.len().max(1))
                    && let Some(b) = h
                        .query_all_by_label(name)
                        .find(|n| n.accesskit_node().role() != Role::Label)
                {
                    b.click_accesskit();
                }
            }
            Action::Curve(op) => {
                if let Some(rect) = curve_rect(h) {
                    curve(h, rect, *op);
                }
            }
            Action::Save => press_chord(h, Chord(Modifiers::COMMAND, Key::S)),
            Action::SaveAs(n) => {
                let folder = self.dir.path().join(format!("save{n}"));
                std::fs::create_dir_all(&folder).unwrap();
                let path = folder.join(format!("monkey{n}.ron"));
                // A message box left by an earlier action (a refused export) is not ours.
                let before = h.state().error_message().map(str::to_owned);
                h.state_mut().save_as(&path);
                settle(h);
                check_saved(h, &path, before.as_deref());
                return;
            }
            Action::Export(n) => {
                let path = self.dir.path().join(format!("monkey{n}.navpkg"));
                h.state_mut().export_package(&path);
            }
            Action::Resize(w, hh) => {
                h.set_size(vec2(*w, *hh));
            }
            Action::DismissMessages => {
                if let Some(b) = first(h, "Dismiss") {
                    b.click_accesskit();
                }
            }
            Action::CloseError => {
                if let Some(b) = first(h, "OK") {
                    b.click();
                }
            }
            Action::Idle(frames) => h.run_steps(usize::from(*frames)),
        }
        settle(h);
    }

    /// The checks that must hold after every action.
    fn check(&self) {
        let app = self.h.state();
        let map = app.state.map.as_ref().expect("the map stays open");
        let doc = &map.document;
        if let Err(e) = doc.validate() {
            panic!("the document does not validate: {e}");
        }
        let cells = map.heightmap.width as usize * map.heightmap.height as usize;
        for (i, layer) in doc.paint.iter().enumerate() {
            assert_eq!(
                layer.cells.len(),
                cells,
                "paint layer {i} ({}) has the wrong size",
                layer.file
            );
        }
        assert!(
            app.state.selected_type < doc.movement_types.len(),
            "selected movement type {} of {}",
            app.state.selected_type,
            doc.movement_types.len()
        );
        if let Some(s) = app.state.stamp.selected {
            assert!(
                s < doc.stamps.len(),
                "selected stamp {s} of {}",
                doc.stamps.len()
            );
        }
        assert!(app.state.read_only.is_none());
    }

    /// Undoes everything with Ctrl+Z; returns the number of steps.
    fn undo_all(&mut self) -> usize {
        let steps = self.h.state().state.history.position();
        for _ in 0..steps {
            press_chord(&self.h, Chord::undo());
            self.h.step();
        }
        settle(&mut self.h);
        steps
    }
}

fn self_types(h: &Harness<'_, App>) -> Vec<String> {
    h.state()
        .state
        .map
        .as_ref()
        .map(|m| {
            m.document
                .movement_types
                .iter()
                .map(|t| t.name.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn double_click(h: &mut Harness<'_, App>, p: Pos2) {
    h.hover_at(p);
    h.step();
    for _ in 0..2 {
        button(h, p, PointerButton::Primary, true, Modifiers::NONE);
        button(h, p, PointerButton::Primary, false, Modifiers::NONE);
        h.step();
    }
}

fn drag(h: &mut Harness<'_, App>, a: Pos2, b: Pos2) {
    h.hover_at(a);
    h.step();
    button(h, a, PointerButton::Primary, true, Modifiers::NONE);
    h.step();
    for t in [0.3, 0.7, 1.0] {
        h.hover_at(a + (b - a) * t);
        h.step();
    }
    button(h, b, PointerButton::Primary, false, Modifiers::NONE);
    h.step();
}

fn curve(h: &mut Harness<'_, App>, rect: Rect, op: CurveOp) {
    match op {
        CurveOp::Insert(a) => double_click(h, at(rect, a)),
        CurveOp::InsertAndDrag(a, b) => {
            double_click(h, at(rect, a));
            h.step();
            drag(h, at(rect, a), at(rect, b));
        }
        CurveOp::Drag(a, b) => drag(h, at(rect, a), at(rect, b)),
        CurveOp::InsertAndRemove(a) => {
            double_click(h, at(rect, a));
            h.step();
            curve(h, rect, CurveOp::Remove(a));
        }
        CurveOp::Remove(a) => {
            let p = at(rect, a);
            h.hover_at(p);
            h.step();
            button(h, p, PointerButton::Secondary, true, Modifiers::NONE);
            button(h, p, PointerButton::Secondary, false, Modifiers::NONE);
        }
    }
}

/// A saved map loads back with the open document's content.
fn check_saved(h: &Harness<'_, App>, path: &Path, error_before: Option<&str>) {
    let app = h.state();
    if let Some(e) = app.error_message().filter(|e| Some(*e) != error_before) {
        panic!("Save As {} failed: {e}", path.display());
    }
    assert!(!app.state.is_modified(), "saved, yet marked modified");
    let loaded = navstudio::map::load_map(path).unwrap_or_else(|e| panic!("reload: {e}"));
    let doc = &app.state.map.as_ref().unwrap().document;
    let back = &loaded.document;
    assert_eq!(back.movement_types, doc.movement_types, "movement types");
    assert_eq!(back.stamps, doc.stamps, "stamps");
    assert_eq!(back.paint.len(), doc.paint.len(), "paint layers");
    for (a, b) in back.paint.iter().zip(&doc.paint) {
        assert_eq!(a.target, b.target);
        assert!(a.cells == b.cells, "paint layer {} differs", a.file);
    }
    assert_eq!(
        (
            back.cell_size_m,
            back.height_scale_m,
            back.water_level_m,
            back.sector_size
        ),
        (
            doc.cell_size_m,
            doc.height_scale_m,
            doc.water_level_m,
            doc.sector_size
        )
    );
}

/// Runs `count` actions from `seed`; on failure prints the seed and the actions and panics.
fn monkey(seed: u64, count: usize, verbose: bool) {
    let start = Instant::now();
    let mut log = Log {
        seed,
        actions: Vec::with_capacity(count),
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut m = Monkey::new(seed);
        let original = m.document().clone();
        let heights = m.heightmap().clone();
        m.check();
        for _ in 0..count {
            let action = m.next_action();
            if verbose {
                eprintln!("{:>5}: {action:?}", log.actions.len() + 1);
            }
            log.actions.push(action.clone());
            m.run(&action);
            m.check();
        }
        // Leave the crowd and any live edit, then undo everything through the UI.
        m.h.state_mut().crowd.playing = false;
        settle(&mut m.h);
        let edited = m.document().clone();
        let summary = format!(
            "{} movement types, {} paint layers, {} stamps, {} agents",
            edited.movement_types.len(),
            edited.paint.len(),
            edited.stamps.len(),
            m.h.state().crowd.sim().agents().len()
        );
        let steps = m.undo_all();
        let app = m.h.state();
        assert_eq!(app.state.history.position(), 0, "undo stopped early");
        assert!(m.heightmap() == &heights, "the heights changed");
        let undone = m.document();
        assert_eq!(
            undone.movement_types, original.movement_types,
            "movement types after undo"
        );
        assert_eq!(undone.stamps, original.stamps, "stamps after undo");
        assert_eq!(
            undone.paint.len(),
            original.paint.len(),
            "paint layers after undo"
        );
        for (i, (a, b)) in undone.paint.iter().zip(&original.paint).enumerate() {
            assert!(a == b, "paint layer {i} differs after undo");
        }
        assert!(
            undone == &original,
            "the document differs after undoing everything"
        );
        // And redo gives the edited document back.
        for _ in 0..steps {
            press_chord(&m.h, Chord::redo_y());
            m.h.step();
        }
        settle(&mut m.h);
        assert!(
            m.document() == &edited,
            "redoing everything does not give the edits back"
        );
        m.check();
        (steps, summary)
    }));
    match result {
        Ok((steps, summary)) => eprintln!(
            "monkey seed {seed}: {count} actions in {:.1} s; at the end {summary}, undone in {steps} steps",
            start.elapsed().as_secs_f64()
        ),
        Err(panic) => {
            let file = std::env::temp_dir().join(format!("navstudio-monkey-{seed}.txt"));
            let report = log.to_string();
            let _ = std::fs::write(&file, &report);
            let tail: String = report
                .lines()
                .rev()
                .take(60)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            eprintln!(
                "{}\n(last actions above; the whole list is in {})",
                tail,
                file.display()
            );
            std::panic::resume_unwind(panic);
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// 500 actions on one seed, in the plain `cargo test`.
#[test]
fn monkey_500_actions() {
    monkey(1, 500, false);
}

/// 10,000 actions on each of two seeds; `.ci/run` runs them with `--ignored`, side by side on
/// its two cores (one test per seed, so the harness runs them in parallel).
///
/// Two seeds, for CI's budget (the whole run under ~20 minutes on 2 cores): in the dev
/// profile on a 2-core machine shared with other builds, the two seeds took 103 s and 86 s
/// one after the other beside a full `cargo test`, and one seed 230 s at a load of ~12; the
/// 500-action test takes 3–5 s. Later actions cost more than early ones: by then the map has
/// a few dozen movement types to bake and draw. Seed 3 found the drag-value bug below.
#[test]
#[ignore = "slow: CI runs it with `cargo test --test integration monkey -- --ignored`"]
fn monkey_10000_actions_seed_2() {
    monkey(2, 10_000, false);
}

/// The second seed of the CI run; see [`monkey_10000_actions_seed_2`].
#[test]
#[ignore = "slow: CI runs it with `cargo test --test integration monkey -- --ignored`"]
fn monkey_10000_actions_seed_3() {
    monkey(3, 10_000, false);
}

/// Replays `MONKEY_SEED` (`MONKEY_ACTIONS` actions, 500 by default), printing each action.
#[test]
#[ignore = "manual: MONKEY_SEED=S cargo test --test integration monkey::replay -- --ignored --nocapture"]
fn replay() {
    let Some(seed) = env_u64("MONKEY_SEED") else {
        eprintln!("set MONKEY_SEED to replay a seed");
        return;
    };
    let count = env_u64("MONKEY_ACTIONS").map_or(500, |n| n as usize);
    monkey(seed, count, true);
}

/// Runs a fixed list of actions with the monkey's checks, then undoes everything and
/// compares with the original document.
fn script(actions: &[Action]) {
    let mut m = Monkey::new(0);
    let original = m.document().clone();
    for (i, a) in actions.iter().enumerate() {
        m.run(a);
        m.check();
        eprintln!(
            "{i}: {a:?} -> history {}",
            m.h.state().state.history.position()
        );
    }
    m.undo_all();
    assert_eq!(m.h.state().state.history.position(), 0);
    assert!(
        m.document() == &original,
        "undoing everything does not restore the document"
    );
}

/// Undo and redo pressed while a brush stroke is still being dragged. Before the fix in
/// `App::handle_shortcuts`, the undo removed the layer under the stroke and the redo re-added
/// it beside the one the next stroke had created: two paint layers with the same side file,
/// a document that no longer validates.
#[test]
fn monkey_undo_in_the_middle_of_a_stroke() {
    let stroke = |key_midway| Action::Drag {
        from: (20.5, 20.5),
        via: vec![(30.5, 20.5), (40.5, 20.5), (50.5, 20.5)],
        shift: false,
        key_midway,
    };
    script(&[
        Action::ToolButton(Tool::Paint),
        stroke(None),
        stroke(Some(Chord::undo())),
        stroke(Some(Chord::redo())),
    ]);
}

/// Arrow-key / accessibility decrements of drag values at the bottom of their range. egui
/// stepped the value out of range for a frame (a wall buffer of −0.05 m); the editor
/// recorded it, and undoing the correction brought it back (monkey seed 3, action 6,629).
/// The Map panel's drag values get the same clamp; this test does not reach them.
#[test]
fn monkey_drag_values_stepped_below_their_range() {
    let dec = |label: &str| {
        Action::Widget(
            WidgetRef {
                role: Role::SpinButton,
                label: label.to_owned(),
                nth: 0,
            },
            WidgetOp::Decrement,
        )
    };
    let set = |label: &str, v| {
        Action::Widget(
            WidgetRef {
                role: Role::SpinButton,
                label: label.to_owned(),
                nth: 0,
            },
            WidgetOp::Set(v),
        )
    };
    script(&[
        dec("Wall buffer"),
        dec("Blur radius"),
        set("Max slope", 0.0),
        dec("Max slope"),
        Action::Key(Chord::undo()),
        Action::Key(Chord::undo()),
    ]);
}
