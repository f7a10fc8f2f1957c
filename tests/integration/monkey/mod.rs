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
//!
//! The action types and the run live here; [`input`] holds the pointer, keyboard and
//! accessibility-tree helpers and [`actions`] how the monkey picks and performs an action.

mod actions;
mod input;

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
use input::{press_chord, settle};

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

/// The monkey: its RNG, temporary folder and the editor.
struct Monkey {
    rng: Rng,
    dir: tempfile::TempDir,
    h: Harness<'static, App>,
    saves: u32,
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
