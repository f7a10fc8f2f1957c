//! `EditorState`: everything the editor knows about the open map, with no UI code — the
//! document, its heights, the latest bake, the selection, the current tool and the undo
//! history. Panels read it and emit [`Command`]s; [`EditorState::execute`] applies them.

use std::path::PathBuf;
use std::sync::Arc;

use crate::map::StampPlacement;
use crate::nav::NavData;
use crate::nav::grid::CellRect;

use super::backend::{BakeOutput, LoadedMap};
use super::model::OpenMap;
use super::model::commands::{Command, History};
use super::model::stamp_placement;
use super::model::stamp_selection::StampSelection;

/// Everything the editor edits and shows, without UI code.
#[derive(Debug)]
pub struct EditorState {
    /// The open map, if any.
    pub map: Option<OpenMap>,
    /// The latest bake result (may be older than the document while a rebake runs).
    pub baked: Option<BakeOutput>,
    /// Index of the selected movement type.
    pub selected_type: usize,
    /// Stamp tool: chosen stamp, preview rotation, selected placement, drag.
    pub stamp: StampSelection,
    /// Whether something besides the overlays and the goal reads the nav data — the active
    /// tool, an export waiting for its bake — set each frame, so rect re-bakes send it back.
    pub nav_wanted: bool,
    /// Which overlays are visible.
    pub overlays: OverlaySettings,
    /// Undo/redo history.
    pub history: History,
    /// Cells whose cost must be re-baked (accumulated until the worker takes them).
    pub pending_dirty: Option<CellRect>,
    /// A full bake is needed (movement type or map settings changed, or a new map).
    pub pending_full_bake: bool,
    /// Cells whose paint overlay must be re-uploaded.
    pub paint_dirty: Option<CellRect>,
    /// The history length at the last save (`None`: the saved state is unreachable).
    saved_at: Option<usize>,
    /// Messages for the designer (warnings from loading, save failures).
    pub messages: Vec<String>,
    /// The nav data of the latest bake (portals, islands, flow tiles), shared with the
    /// goal preview.
    pub nav: Option<Arc<NavData>>,
    /// Bumped whenever `nav` changes, so views built from it know to rebuild.
    pub nav_version: u64,
    /// Bumped whenever the document's links change (they are not baked into `nav`: the
    /// run-time previews take them from the document).
    pub links_version: u64,
    /// Whether a rect re-bake went out without sending its nav data back (nothing showed
    /// it): `nav` is older than the costs, and is fetched once something reads it.
    pub nav_behind: bool,
    /// The goal tool's goal and source cells.
    pub goal: GoalPick,
    /// The nav package shown, when one is open for viewing: nothing is edited or baked.
    pub read_only: Option<PathBuf>,
}

/// What the goal tool picked: a goal (or a goal set), and optionally a source whose route
/// is shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoalPick {
    /// The goal cell (click), the first of the set.
    pub goal: Option<(u32, u32)>,
    /// Further goals of the set (Ctrl+click): the preview shows flow to the nearest.
    pub more_goals: Vec<(u32, u32)>,
    /// The source cell (Shift+click).
    pub source: Option<(u32, u32)>,
}

impl GoalPick {
    /// Every goal, the first one first.
    #[must_use]
    pub fn goals(&self) -> Vec<(u32, u32)> {
        self.goal
            .into_iter()
            .chain(self.more_goals.iter().copied())
            .collect()
    }

    /// Adds a goal to the set (the first goal when there is none yet).
    pub fn add_goal(&mut self, cell: (u32, u32)) {
        match self.goal {
            None => self.goal = Some(cell),
            Some(g) if g == cell => {}
            Some(_) => {
                if !self.more_goals.contains(&cell) {
                    self.more_goals.push(cell);
                }
            }
        }
    }
}

/// Which overlays are visible.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlaySettings {
    /// Hill-shaded height (the base layer).
    pub height: bool,
    /// Slope colour ramp.
    pub slope: bool,
    /// Cost of the selected movement type.
    pub cost: bool,
    /// Walls of the selected movement type.
    pub walls: bool,
    /// Paint that applies to the selected movement type.
    pub paint: bool,
    /// Sector grid lines (when zoomed in enough).
    pub sectors: bool,
    /// One colour per island of the selected movement type.
    pub islands: bool,
    /// Portal windows on sector borders, and the portal graph when zoomed in.
    pub portals: bool,
    /// Sectors whose costs are all 1 (stored as the one shared clear field).
    pub clear_sectors: bool,
    /// Integrated cost toward the goal (goal tool).
    pub integration: bool,
    /// Flow arrows toward the goal, where zoomed in enough to read them.
    pub flow: bool,
    /// Cells that see the goal in a straight line.
    pub line_of_sight: bool,
    /// Placed stamps' outlines and ids.
    pub stamps: bool,
    /// Walls added by the wall buffer and cost added by the wall blur (selected type).
    pub contributions: bool,
    /// Opacity of the slope and cost overlays over the height. `[Limit: 0..=1]`
    pub opacity: f32,
}

impl Default for OverlaySettings {
    fn default() -> Self {
        Self {
            height: true,
            slope: false,
            cost: true,
            walls: true,
            paint: true,
            sectors: true,
            islands: false,
            portals: false,
            clear_sectors: false,
            integration: true,
            flow: true,
            line_of_sight: true,
            stamps: true,
            contributions: false,
            opacity: 0.6,
        }
    }
}

impl Default for EditorState {
    fn default() -> Self {
        Self {
            map: None,
            baked: None,
            selected_type: 0,
            stamp: StampSelection::default(),
            nav_wanted: false,
            overlays: OverlaySettings::default(),
            history: History::default(),
            pending_dirty: None,
            pending_full_bake: false,
            paint_dirty: None,
            saved_at: Some(0),
            messages: Vec::new(),
            nav: None,
            nav_version: 0,
            links_version: 0,
            nav_behind: false,
            goal: GoalPick::default(),
            read_only: None,
        }
    }
}

impl EditorState {
    /// Replaces the open map, clearing the history and asking for a full bake.
    pub fn open(&mut self, loaded: LoadedMap) {
        let LoadedMap {
            path,
            document,
            heightmap,
            warnings,
        } = loaded;
        self.map = Some(OpenMap {
            document,
            heightmap: Arc::new(heightmap),
            path,
        });
        self.baked = None;
        self.selected_type = 0;
        self.history = History::default();
        // A map that has no file yet (new from a heightmap, a restored untitled copy) is
        // unsaved from the start, as in Tiled: every way out asks and the autosave covers it.
        self.saved_at = self.map.as_ref().and_then(|m| m.path.as_ref()).map(|_| 0);
        self.pending_dirty = None;
        self.pending_full_bake = true;
        self.paint_dirty = None;
        self.messages = warnings;
        self.set_nav(None);
        self.goal = GoalPick::default();
        self.stamp.selected = None;
        self.stamp.drag = None;
        self.read_only = None;
    }

    /// Shows the just-opened stand-in document of a nav package read-only, with the
    /// package's nav data as its bake; nothing is edited or baked from here on.
    pub fn show_package(&mut self, path: PathBuf, output: BakeOutput) {
        self.pending_full_bake = false;
        // A package viewed read-only has nothing to save, though its stand-in has no file.
        self.saved_at = Some(self.history.position());
        self.set_nav(output.shared_nav.clone());
        self.baked = Some(output);
        self.read_only = Some(path);
    }

    /// Replaces the nav data (a new bake, or a patch that carried it).
    pub fn set_nav(&mut self, nav: Option<Arc<NavData>>) {
        self.nav = nav;
        self.nav_version += 1;
        self.nav_behind = false;
    }

    /// Whether something on screen reads the nav data, so rect re-bakes must send it back.
    #[must_use]
    pub fn wants_nav(&self) -> bool {
        let o = &self.overlays;
        self.nav_wanted || self.goal.goal.is_some() || o.islands || o.portals || o.clear_sectors
    }

    /// Applies a command, records it for undo and marks what must be re-baked.
    pub fn execute(&mut self, command: Command) {
        let Some(map) = self.map.as_mut().filter(|_| self.read_only.is_none()) else {
            return;
        };
        let effect = command.apply(&mut map.document);
        self.note_effect(effect);
        self.history.push(command, &mut self.saved_at);
    }

    /// Applies a command that is part of a gesture (a brush stroke's pointer move, a
    /// slider's drag, typing in a field): the gesture's commands are one undo step, until
    /// [`Self::end_gesture`].
    pub fn execute_continuing(&mut self, command: Command) {
        let Some(map) = self.map.as_mut().filter(|_| self.read_only.is_none()) else {
            return;
        };
        let effect = command.apply(&mut map.document);
        self.note_effect(effect);
        self.history.push_continuing(command, &mut self.saved_at);
    }

    /// Ends the gesture [`Self::execute_continuing`] was extending.
    pub fn end_gesture(&mut self) {
        self.history.end_gesture();
    }

    /// Undoes the last command, if any.
    pub fn undo(&mut self) {
        let Some(map) = self.map.as_mut() else {
            return;
        };
        if let Some(effect) = self.history.undo(&mut map.document) {
            self.note_effect(effect);
        }
        self.stamp.drag = None;
    }

    /// Redoes the last undone command, if any.
    pub fn redo(&mut self) {
        let Some(map) = self.map.as_mut() else {
            return;
        };
        if let Some(effect) = self.history.redo(&mut map.document) {
            self.note_effect(effect);
        }
        self.stamp.drag = None;
    }

    /// The selected stamp placement and its index, if any.
    #[must_use]
    pub fn selected_stamp(&self) -> Option<(usize, &StampPlacement)> {
        let index = self.stamp.selected?;
        let map = self.map.as_ref()?;
        map.document.stamps.get(index).map(|p| (index, p))
    }

    /// Places a stamp on top of the others (one undo step). Refused (returns `false`) when
    /// its footprint would leave the map or the library has no such stamp.
    pub fn place_stamp(&mut self, placement: StampPlacement) -> bool {
        let (width, height) = self.map_size();
        let Some(map) = self.map.as_ref() else {
            return false;
        };
        let fits = stamp_placement::placement_rect(stamp_placement::library(), &placement)
            .is_some_and(|r| r.is_inside(width, height));
        if !fits {
            return false;
        }
        let index = map.document.stamps.len();
        self.execute(Command::PlaceStamp { index, placement });
        true
    }

    /// R in the stamp tool: turns the selected placement a quarter clockwise about its
    /// centre (one undo step, kept on the map), or with nothing selected the preview.
    pub fn rotate_stamp(&mut self) {
        let (width, height) = self.map_size();
        let Some((index, before)) = self.selected_stamp() else {
            self.stamp.rotation = stamp_placement::next_rotation(self.stamp.rotation);
            return;
        };
        let before = before.clone();
        let library = stamp_placement::library();
        let after = stamp_placement::kept_on_map(
            library,
            &stamp_placement::rotated_in_place(library, &before),
            width,
            height,
        );
        self.stamp.drag = None;
        self.execute(Command::MoveStamp {
            index,
            before,
            after,
        });
    }

    /// Delete in the stamp tool: removes the selected placement (one undo step).
    pub fn delete_selected_stamp(&mut self) {
        let Some((index, placement)) = self.selected_stamp() else {
            return;
        };
        let placement = placement.clone();
        self.stamp.selected = None;
        self.stamp.drag = None;
        self.execute(Command::RemoveStamp { index, placement });
    }

    /// The document's links for the nav data's movement types (matched by name), as the
    /// run-time previews take them.
    #[must_use]
    pub fn nav_links(&self) -> Vec<crate::nav::links::NavLink> {
        let (Some(map), Some(nav)) = (self.map.as_ref(), self.nav.as_ref()) else {
            return Vec::new();
        };
        let doc = &map.document;
        let indices: Vec<usize> = nav
            .layers
            .iter()
            .filter_map(|l| doc.movement_types.iter().position(|m| m.name == l.name))
            .collect();
        let (w, h) = (nav.spec.width, nav.spec.height);
        doc.nav_links(&indices)
            .into_iter()
            .filter(|l| l.validate(w, h).is_ok())
            .collect()
    }

    /// The version of what the run-time previews are built from: the nav data and the links.
    #[must_use]
    pub fn preview_version(&self) -> u64 {
        self.nav_version ^ (self.links_version << 40)
    }

    fn note_effect(&mut self, effect: super::model::commands::Effect) {
        use super::model::commands::Effect;
        let (width, height) = self.map_size();
        match effect {
            Effect::Cells(rect) => {
                // Stamps may reach past the map's far edges: rebake and patch only the map.
                let rect = CellRect {
                    x0: rect.x0.min(width),
                    y0: rect.y0.min(height),
                    x1: rect.x1.min(width),
                    y1: rect.y1.min(height),
                };
                self.pending_dirty = Some(self.pending_dirty.map_or(rect, |r| r.union(&rect)));
                self.paint_dirty = Some(self.paint_dirty.map_or(rect, |r| r.union(&rect)));
            }
            Effect::Links => self.links_version += 1,
            Effect::Everything => {
                self.pending_full_bake = true;
                if let Some(map) = &self.map {
                    self.paint_dirty =
                        Some(CellRect::full(map.heightmap.width, map.heightmap.height));
                }
            }
        }
        if let Some(map) = &self.map {
            let n = map.document.movement_types.len();
            self.selected_type = self.selected_type.min(n.saturating_sub(1));
            self.stamp.forget_missing(map.document.stamps.len());
        }
    }

    /// Whether the document differs from the last saved (or loaded) state.
    #[must_use]
    pub fn is_modified(&self) -> bool {
        self.map.is_some() && self.saved_at != Some(self.history.position())
    }

    /// Marks the document as unsaved (e.g. restored from a recovery copy).
    pub fn mark_unsaved(&mut self) {
        self.saved_at = None;
    }

    /// Marks the current state as saved to `path`.
    pub fn mark_saved(&mut self, path: PathBuf) {
        self.saved_at = Some(self.history.position());
        if let Some(map) = self.map.as_mut() {
            map.path = Some(path);
        }
    }

    /// The window title: map name and `*` when unsaved.
    #[must_use]
    pub fn title(&self) -> String {
        match &self.map {
            None => "navstudio".to_owned(),
            Some(map) => match &self.read_only {
                Some(path) => {
                    let file = path.file_name().unwrap_or_default().to_string_lossy();
                    format!("{} — {file} (read-only) — navstudio", map.document.name)
                }
                None => {
                    let star = if self.is_modified() { " *" } else { "" };
                    format!("{}{star} — navstudio", map.document.name)
                }
            },
        }
    }

    /// Map size in cells, `(0, 0)` with no map.
    #[must_use]
    pub fn map_size(&self) -> (u32, u32) {
        self.map
            .as_ref()
            .map_or((0, 0), |m| (m.heightmap.width, m.heightmap.height))
    }

    /// Whether the latest bake matches the document (no rebake pending).
    #[must_use]
    pub fn bake_is_current(&self) -> bool {
        self.baked.is_some()
            && self.pending_dirty.is_none()
            && !self.pending_full_bake
            && !(self.nav_behind && self.wants_nav())
    }
}
