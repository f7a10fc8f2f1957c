//! Every edit of the map document is a [`Command`] with `apply` and `undo`, so the editor
//! has exactly one undo/redo history. Commands carry the values they replace; applying a
//! command reports an [`Effect`] that tells the editor what to re-bake.

use crate::map::{
    MapDocument, MapLink, MovementType, PaintCell, PaintLayer, PaintTarget, StampPlacement,
};

use super::stamp_placement::{library, placement_rect};
use crate::nav::grid::CellRect;

/// What a command changed, so the editor knows what to re-bake and redraw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Only these cells' costs changed.
    Cells(CellRect),
    /// Anything may have changed (movement types, map settings): bake everything.
    Everything,
    /// Only the nav links changed: no cost changes, the run-time previews take the links.
    Links,
}

/// One painted cell's value before and after a stroke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellChange {
    /// Row-major cell index.
    pub index: u32,
    /// Value before the stroke.
    pub before: PaintCell,
    /// Value after the stroke.
    pub after: PaintCell,
}

/// Map-wide settings edited together in the Map panel.
#[derive(Clone, Debug, PartialEq)]
pub struct MapSettings {
    /// Map name.
    pub name: String,
    /// Cell edge. `[Units: m]`
    pub cell_size_m: f32,
    /// Metres from a black to a full-white sample. `[Units: m]`
    pub height_scale_m: f32,
    /// Real height of a black sample. `[Units: m]`
    pub height_base_m: f32,
    /// Water level, in real heights. `[Units: m]`
    pub water_level_m: f32,
    /// Sector edge. `[Units: cells]`
    pub sector_size: u16,
}

impl MapSettings {
    /// The settings of a document.
    #[must_use]
    pub fn of(document: &MapDocument) -> Self {
        Self {
            name: document.name.clone(),
            cell_size_m: document.cell_size_m,
            height_scale_m: document.height_scale_m,
            height_base_m: document.height_base_m,
            water_level_m: document.water_level_m,
            sector_size: document.sector_size,
        }
    }

    fn write_to(&self, document: &mut MapDocument) {
        document.name.clone_from(&self.name);
        document.cell_size_m = self.cell_size_m;
        document.height_scale_m = self.height_scale_m;
        document.height_base_m = self.height_base_m;
        document.water_level_m = self.water_level_m;
        document.sector_size = self.sector_size;
    }
}

/// An edit of the map document.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// One brush stroke on one paint layer.
    PaintStroke {
        /// Index of the layer in `document.paint`.
        layer: usize,
        /// The stroke created the layer with this target and side file (undo removes it
        /// again).
        created: Option<(PaintTarget, String)>,
        /// Number of cells of a new layer.
        cell_count: usize,
        /// Changed cells, in the order the stroke changed them (each pointer move's cells
        /// ascending); a cell the stroke changed again appears again.
        changes: Vec<CellChange>,
        /// Bounding rectangle of the changes.
        rect: CellRect,
    },
    /// A movement type's parameters (or name) changed.
    EditMovementType {
        /// Its index.
        index: usize,
        /// The old value.
        before: MovementType,
        /// The new value.
        after: MovementType,
    },
    /// A movement type was added.
    AddMovementType {
        /// Where it was inserted.
        index: usize,
        /// The new type.
        ty: MovementType,
    },
    /// A movement type was deleted, together with the paint layers that target it.
    RemoveMovementType {
        /// Its index.
        index: usize,
        /// The deleted type.
        ty: MovementType,
        /// The deleted paint layers with their former indices, ascending.
        layers: Vec<(usize, PaintLayer)>,
        /// The links that named the type, with their indices, as they were: deleting the
        /// type takes its name off them (a link left naming none is disabled, as naming
        /// none means every type).
        links: Vec<(usize, MapLink)>,
    },
    /// Map-wide settings changed.
    EditMapSettings {
        /// The old settings.
        before: MapSettings,
        /// The new settings.
        after: MapSettings,
    },
    /// A stamp was placed.
    PlaceStamp {
        /// Its index in `document.stamps` (the end, for a new placement).
        index: usize,
        /// The placement.
        placement: StampPlacement,
    },
    /// A placed stamp was deleted.
    RemoveStamp {
        /// Its former index in `document.stamps`.
        index: usize,
        /// The deleted placement.
        placement: StampPlacement,
    },
    /// A placed stamp was moved or rotated.
    MoveStamp {
        /// Its index in `document.stamps`.
        index: usize,
        /// The placement before.
        before: StampPlacement,
        /// The placement after.
        after: StampPlacement,
    },
    /// A nav link was added.
    AddLink {
        /// Its index in `document.links` (the end, for a new link).
        index: usize,
        /// The link.
        link: MapLink,
    },
    /// A nav link was deleted.
    RemoveLink {
        /// Its former index in `document.links`.
        index: usize,
        /// The deleted link.
        link: MapLink,
    },
    /// A nav link was changed (an end moved, an option set).
    EditLink {
        /// Its index in `document.links`.
        index: usize,
        /// The link before.
        before: MapLink,
        /// The link after.
        after: MapLink,
    },
}

/// The cells a placement's footprint covers (negative coordinates cut off); `None` for a
/// stamp the built-in library does not define.
fn footprint_cells(placement: &StampPlacement) -> Option<CellRect> {
    placement_rect(library(), placement).map(|r| r.to_cells())
}

fn rename_targets(document: &mut MapDocument, from: &str, to: &str) {
    if from == to {
        return;
    }
    for layer in &mut document.paint {
        if layer.target == PaintTarget::Type(from.to_owned()) {
            layer.target = PaintTarget::Type(to.to_owned());
        }
    }
    for link in &mut document.links {
        for name in &mut link.types {
            if name == from {
                to.clone_into(name);
            }
        }
    }
}

/// Inserts `item` at `index`, or at the end when the list is shorter: a command applied to
/// a document that changed under it never panics.
fn insert_clamped<T>(items: &mut Vec<T>, index: usize, item: T) {
    let index = index.min(items.len());
    items.insert(index, item);
}

/// Removes the item at `index`, if there is one (see [`insert_clamped`]).
fn remove_if_present<T>(items: &mut Vec<T>, index: usize) {
    if index < items.len() {
        items.remove(index);
    }
}

/// Replaces movement type `index` (`from`) by `to`, and moves paint that targeted `from`'s
/// name to `to`'s: apply and undo are the same edit in opposite directions.
fn replace_movement_type(
    document: &mut MapDocument,
    index: usize,
    from: &MovementType,
    to: &MovementType,
) {
    if let Some(ty) = document.movement_types.get_mut(index) {
        *ty = to.clone();
        rename_targets(document, &from.name, &to.name);
    }
}

/// Writes the changes' afters in order, or (undoing) their befores in reverse order, so a
/// cell changed more than once ends at its last after, or back at its first before.
fn write_cells(layer: Option<&mut PaintLayer>, changes: &[CellChange], after: bool) {
    let Some(layer) = layer else { return };
    let mut write = |change: &CellChange| {
        if let Some(cell) = layer.cells.get_mut(change.index as usize) {
            *cell = if after { change.after } else { change.before };
        }
    };
    if after {
        changes.iter().for_each(&mut write);
    } else {
        changes.iter().rev().for_each(&mut write);
    }
}

impl Command {
    /// What applying or undoing this command changes.
    #[must_use]
    pub fn effect(&self) -> Effect {
        match self {
            Self::PaintStroke { rect, .. } => Effect::Cells(*rect),
            Self::PlaceStamp { placement, .. } | Self::RemoveStamp { placement, .. } => {
                footprint_cells(placement).map_or(Effect::Everything, Effect::Cells)
            }
            Self::MoveStamp { before, after, .. } => {
                match (footprint_cells(before), footprint_cells(after)) {
                    (Some(a), Some(b)) => Effect::Cells(a.union(&b)),
                    _ => Effect::Everything,
                }
            }
            Self::AddLink { .. } | Self::RemoveLink { .. } | Self::EditLink { .. } => Effect::Links,
            _ => Effect::Everything,
        }
    }

    /// Applies the command to the document.
    pub fn apply(&self, document: &mut MapDocument) -> Effect {
        match self {
            Self::PaintStroke {
                layer,
                created,
                cell_count,
                changes,
                ..
            } => {
                if let Some((target, file)) = created {
                    let index = (*layer).min(document.paint.len());
                    document.paint.insert(
                        index,
                        PaintLayer {
                            target: target.clone(),
                            file: file.clone(),
                            cells: vec![PaintCell::default(); *cell_count],
                        },
                    );
                }
                write_cells(document.paint.get_mut(*layer), changes, true);
            }
            Self::EditMovementType {
                index,
                before,
                after,
            } => {
                replace_movement_type(document, *index, before, after);
            }
            Self::AddMovementType { index, ty } => {
                insert_clamped(&mut document.movement_types, *index, ty.clone());
            }
            Self::RemoveMovementType {
                index,
                ty,
                layers,
                links,
            } => {
                remove_if_present(&mut document.movement_types, *index);
                for (i, _) in layers.iter().rev() {
                    remove_if_present(&mut document.paint, *i);
                }
                for (i, _) in links {
                    if let Some(link) = document.links.get_mut(*i) {
                        link.types.retain(|t| *t != ty.name);
                        if link.types.is_empty() {
                            link.enabled = false;
                        }
                    }
                }
            }
            Self::EditMapSettings { after, .. } => after.write_to(document),
            Self::PlaceStamp { index, placement } => {
                insert_clamped(&mut document.stamps, *index, placement.clone());
            }
            Self::RemoveStamp { index, .. } => remove_if_present(&mut document.stamps, *index),
            Self::MoveStamp { index, after, .. } => {
                if let Some(p) = document.stamps.get_mut(*index) {
                    *p = after.clone();
                }
            }
            Self::AddLink { index, link } => {
                insert_clamped(&mut document.links, *index, link.clone())
            }
            Self::RemoveLink { index, .. } => remove_if_present(&mut document.links, *index),
            Self::EditLink { index, after, .. } => {
                if let Some(l) = document.links.get_mut(*index) {
                    *l = after.clone();
                }
            }
        }
        self.effect()
    }

    /// Reverts the command on a document it was applied to.
    pub fn undo(&self, document: &mut MapDocument) -> Effect {
        match self {
            Self::PaintStroke {
                layer,
                created,
                changes,
                ..
            } => {
                write_cells(document.paint.get_mut(*layer), changes, false);
                if created.is_some() && *layer < document.paint.len() {
                    document.paint.remove(*layer);
                }
            }
            Self::EditMovementType {
                index,
                before,
                after,
            } => {
                replace_movement_type(document, *index, after, before);
            }
            Self::AddMovementType { index, .. } => {
                remove_if_present(&mut document.movement_types, *index);
            }
            Self::RemoveMovementType {
                index,
                ty,
                layers,
                links,
            } => {
                insert_clamped(&mut document.movement_types, *index, ty.clone());
                for (i, layer) in layers {
                    insert_clamped(&mut document.paint, *i, layer.clone());
                }
                for (i, link) in links {
                    if let Some(l) = document.links.get_mut(*i) {
                        *l = link.clone();
                    }
                }
            }
            Self::EditMapSettings { before, .. } => before.write_to(document),
            Self::PlaceStamp { index, .. } => remove_if_present(&mut document.stamps, *index),
            Self::RemoveStamp { index, placement } => {
                insert_clamped(&mut document.stamps, *index, placement.clone());
            }
            Self::MoveStamp { index, before, .. } => {
                if let Some(p) = document.stamps.get_mut(*index) {
                    *p = before.clone();
                }
            }
            Self::AddLink { index, .. } => remove_if_present(&mut document.links, *index),
            Self::RemoveLink { index, link } => {
                insert_clamped(&mut document.links, *index, link.clone());
            }
            Self::EditLink { index, before, .. } => {
                if let Some(l) = document.links.get_mut(*index) {
                    *l = before.clone();
                }
            }
        }
        self.effect()
    }

    /// Folds `next`, a later part of the same gesture (a stroke's next pointer move, a
    /// slider's next value), into this command, so that the two are one undo step. Gives
    /// `next` back when it does not continue this command (another kind, or it edits
    /// something else).
    #[must_use]
    pub fn absorb(&mut self, next: Self) -> Option<Self> {
        match (self, next) {
            (
                Self::PaintStroke {
                    layer,
                    changes,
                    rect,
                    ..
                },
                Self::PaintStroke {
                    layer: next_layer,
                    created: None,
                    changes: next_changes,
                    rect: next_rect,
                    ..
                },
            ) if *layer == next_layer => {
                // In order: redo writes the afters forward (the last wins), undo the befores
                // backward (the first wins). Appending keeps a long stroke's frames O(move).
                changes.extend(next_changes);
                *rect = rect.union(&next_rect);
                None
            }
            (
                Self::EditMovementType { index, after, .. },
                Self::EditMovementType {
                    index: next_index,
                    before: next_before,
                    after: next_after,
                },
            ) if *index == next_index && *after == next_before => {
                *after = next_after;
                None
            }
            (
                Self::EditMapSettings { after, .. },
                Self::EditMapSettings {
                    before: next_before,
                    after: next_after,
                },
            ) if *after == next_before => {
                *after = next_after;
                None
            }
            (
                Self::EditLink { index, after, .. },
                Self::EditLink {
                    index: next_index,
                    before: next_before,
                    after: next_after,
                },
            ) if *index == next_index && *after == next_before => {
                *after = next_after;
                None
            }
            (_, next) => Some(next),
        }
    }

    /// A short description for the Edit menu ("Undo paint stroke").
    #[must_use]
    pub fn label(&self) -> &'static str {
        match self {
            Self::PaintStroke { .. } => "paint stroke",
            Self::EditMovementType { .. } => "movement type edit",
            Self::AddMovementType { .. } => "add movement type",
            Self::RemoveMovementType { .. } => "delete movement type",
            Self::EditMapSettings { .. } => "map settings edit",
            Self::PlaceStamp { .. } => "place stamp",
            Self::RemoveStamp { .. } => "delete stamp",
            Self::MoveStamp { before, after, .. } => {
                if before.rotation == after.rotation {
                    "move stamp"
                } else {
                    "rotate stamp"
                }
            }
            Self::AddLink { .. } => "add link",
            Self::RemoveLink { .. } => "delete link",
            Self::EditLink { before, after, .. } => {
                if before.a == after.a && before.b == after.b {
                    "link edit"
                } else {
                    "move link end"
                }
            }
        }
    }
}

/// The undo/redo history: applied commands before `position`, undone ones after it.
#[derive(Clone, Debug, Default)]
pub struct History {
    commands: Vec<Command>,
    position: usize,
    /// The last command belongs to a gesture still going on (a drag): the gesture's next
    /// command is folded into it ([`Command::absorb`]).
    open: bool,
}

impl History {
    /// Records an applied command, dropping everything that was undone. `saved_at` is the
    /// position of the saved state; it becomes unreachable when it lay in the dropped part.
    pub fn push(&mut self, command: Command, saved_at: &mut Option<usize>) {
        self.open = false;
        self.push_new(command, saved_at);
    }

    /// Records an applied command that is part of a gesture: folded into the gesture's
    /// command when it continues it, else pushed as the gesture's first.
    pub fn push_continuing(&mut self, command: Command, saved_at: &mut Option<usize>) {
        let mut command = command;
        if self.open
            && self.position == self.commands.len()
            && let Some(last) = self.commands.last_mut()
        {
            match last.absorb(command) {
                None => {
                    // The saved state was the command before this part: no longer in history.
                    if *saved_at == Some(self.position) {
                        *saved_at = None;
                    }
                    return;
                }
                Some(next) => command = next,
            }
        }
        self.push_new(command, saved_at);
        self.open = true;
    }

    /// Ends the gesture: the next command is a new undo step.
    pub fn end_gesture(&mut self) {
        self.open = false;
    }

    fn push_new(&mut self, command: Command, saved_at: &mut Option<usize>) {
        self.commands.truncate(self.position);
        if saved_at.is_some_and(|s| s > self.position) {
            *saved_at = None;
        }
        self.commands.push(command);
        self.position = self.commands.len();
    }

    /// Undoes the last applied command.
    pub fn undo(&mut self, document: &mut MapDocument) -> Option<Effect> {
        self.open = false;
        let command = self.commands.get(self.position.checked_sub(1)?)?;
        let effect = command.undo(document);
        self.position -= 1;
        Some(effect)
    }

    /// Re-applies the next undone command.
    pub fn redo(&mut self, document: &mut MapDocument) -> Option<Effect> {
        self.open = false;
        let command = self.commands.get(self.position)?;
        let effect = command.apply(document);
        self.position += 1;
        Some(effect)
    }

    /// Number of applied commands.
    #[must_use]
    pub fn position(&self) -> usize {
        self.position
    }

    /// The command `undo` would revert.
    #[must_use]
    pub fn next_undo(&self) -> Option<&Command> {
        self.commands.get(self.position.checked_sub(1)?)
    }

    /// The command `redo` would re-apply.
    #[must_use]
    pub fn next_redo(&self) -> Option<&Command> {
        self.commands.get(self.position)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::map::PaintForce;

    fn doc() -> MapDocument {
        crate::app::model::test_document(vec![MovementType::default()])
    }

    fn stamp(id: &str, x: i32, y: i32, rotation: u8) -> StampPlacement {
        StampPlacement {
            stamp: id.to_owned(),
            x,
            y,
            rotation,
        }
    }

    #[test]
    fn stamp_commands_rebake_only_their_footprints() {
        let rect = |x0, y0, x1, y1| Effect::Cells(CellRect { x0, y0, x1, y1 });
        let place = Command::PlaceStamp {
            index: 0,
            placement: stamp("factory_6x4", 10, 20, 0),
        };
        assert_eq!(place.effect(), rect(10, 20, 16, 24));
        // Old 3×3 at (4, 5) and new turned 3×3 at (8, 2): their union.
        let moved = Command::MoveStamp {
            index: 0,
            before: stamp("wall_block_3x3", 4, 5, 0),
            after: stamp("wall_block_3x3", 8, 2, 1),
        };
        assert_eq!(moved.effect(), rect(4, 2, 11, 8));
        // Rotating a 6×4 factory in place covers both orientations.
        let turned = Command::MoveStamp {
            index: 0,
            before: stamp("factory_6x4", 10, 20, 0),
            after: stamp("factory_6x4", 11, 19, 1),
        };
        assert_eq!(turned.effect(), rect(10, 19, 16, 25));
        // Off the top-left edge: cut at 0.
        let edge = Command::RemoveStamp {
            index: 0,
            placement: stamp("tower_2x2", -1, -1, 0),
        };
        assert_eq!(edge.effect(), rect(0, 0, 1, 1));
        let unknown = Command::PlaceStamp {
            index: 0,
            placement: stamp("no_such_stamp", 0, 0, 0),
        };
        assert_eq!(unknown.effect(), Effect::Everything);
    }

    #[test]
    fn undo_then_redo_round_trips_every_command() {
        let original = doc();
        let wall = PaintCell {
            delta: 0,
            force: PaintForce::Wall,
        };
        let commands = vec![
            Command::PaintStroke {
                layer: 0,
                created: Some((
                    PaintTarget::Type("land".to_owned()),
                    "t.paint.land.png".to_owned(),
                )),
                cell_count: 4,
                changes: vec![CellChange {
                    index: 2,
                    before: PaintCell::default(),
                    after: wall,
                }],
                rect: CellRect::cell(0, 1),
            },
            Command::EditMovementType {
                index: 0,
                before: MovementType::default(),
                after: MovementType {
                    name: "tank".to_owned(),
                    max_slope_deg: 10.0,
                    ..MovementType::default()
                },
            },
            Command::AddMovementType {
                index: 1,
                ty: MovementType::default(),
            },
            Command::PlaceStamp {
                index: 0,
                placement: stamp("wall_block_3x3", 4, 5, 0),
            },
            Command::PlaceStamp {
                index: 1,
                placement: stamp("factory_6x4", 20, 30, 0),
            },
            Command::MoveStamp {
                index: 0,
                before: stamp("wall_block_3x3", 4, 5, 0),
                after: stamp("wall_block_3x3", 8, 2, 1),
            },
            Command::RemoveStamp {
                index: 0,
                placement: stamp("wall_block_3x3", 8, 2, 1),
            },
        ];
        let n = commands.len();
        let mut d = original.clone();
        let mut history = History::default();
        let mut saved = Some(0);
        let mut states = vec![d.clone()];
        for c in commands {
            c.apply(&mut d);
            history.push(c, &mut saved);
            states.push(d.clone());
        }
        // The rename followed the paint layer.
        assert_eq!(d.paint[0].target, PaintTarget::Type("tank".to_owned()));
        assert_eq!(d.paint[0].cells[2], wall);
        // The stamp edits left only the factory, at its place.
        assert_eq!(d.stamps, vec![stamp("factory_6x4", 20, 30, 0)]);
        assert_eq!(states[5].stamps.len(), 2, "after both placements");
        assert_eq!(states[6].stamps[0], stamp("wall_block_3x3", 8, 2, 1));
        for k in (0..n).rev() {
            history.undo(&mut d).unwrap();
            assert_eq!(d, states[k]);
        }
        assert!(history.undo(&mut d).is_none());
        for state in states.iter().skip(1) {
            history.redo(&mut d).unwrap();
            assert_eq!(&d, state);
        }
        // Deleting the renamed type takes its layer; undo brings both back.
        let remove = Command::RemoveMovementType {
            index: 0,
            ty: d.movement_types[0].clone(),
            layers: vec![(0, d.paint[0].clone())],
            links: Vec::new(),
        };
        let before = d.clone();
        remove.apply(&mut d);
        assert!(d.paint.is_empty());
        remove.undo(&mut d);
        assert_eq!(d, before);
    }

    #[test]
    fn new_command_after_undo_makes_saved_state_unreachable() {
        let mut d = doc();
        let mut history = History::default();
        let mut saved = Some(0);
        let edit = |slope| Command::EditMovementType {
            index: 0,
            before: MovementType::default(),
            after: MovementType {
                max_slope_deg: slope,
                ..MovementType::default()
            },
        };
        history.push(edit(10.0), &mut saved);
        saved = Some(1);
        history.undo(&mut d);
        history.push(edit(20.0), &mut saved);
        assert_eq!(saved, None);
    }
}
