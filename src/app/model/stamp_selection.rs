//! What the stamp tool has chosen and selected: the stamp a click places and its rotation,
//! the selected placement, and a move in progress. Every edit is one [`Command`]
//! (`PlaceStamp`, `MoveStamp`, `RemoveStamp`); the placement geometry is
//! [`stamp_placement`](crate::app::model::stamp_placement)'s. It is model state, not UI: undo
//! and redo forget a selection whose stamp is gone.

use crate::app::model::commands::Command;
use crate::app::model::stamp_placement::{centred_on, kept_on_map, library};
use crate::map::{Stamp, StampLibrary, StampPlacement};

/// A drag of a placed stamp in progress: the document is only changed on release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StampDrag {
    /// The placement being moved.
    pub index: usize,
    /// The placement when the drag started.
    pub before: StampPlacement,
    /// Cell offset of the grab point from the placement's top-left corner.
    pub grab: (i32, i32),
    /// Where it would land now.
    pub current: StampPlacement,
}

impl StampDrag {
    /// Starts dragging `placement` (index `index`) grabbed at cell `(x, y)`.
    #[must_use]
    pub fn start(index: usize, placement: &StampPlacement, x: i32, y: i32) -> Self {
        Self {
            index,
            before: placement.clone(),
            grab: (x - placement.x, y - placement.y),
            current: placement.clone(),
        }
    }

    /// Follows the pointer to cell `(x, y)`, kept on the map.
    pub fn update(&mut self, library: &StampLibrary, x: i32, y: i32, width: u32, height: u32) {
        let moved = StampPlacement {
            x: x - self.grab.0,
            y: y - self.grab.1,
            ..self.before.clone()
        };
        self.current = kept_on_map(library, &moved, width, height);
    }

    /// The command for the finished drag, or `None` if the stamp did not move.
    #[must_use]
    pub fn finish(self) -> Option<Command> {
        (self.current != self.before).then_some(Command::MoveStamp {
            index: self.index,
            before: self.before,
            after: self.current,
        })
    }
}

/// The stamp tool's choice and selection, between frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StampSelection {
    /// Id of the stamp the preview shows and a click places.
    pub chosen: Option<String>,
    /// Rotation of the preview, in clockwise quarter turns. `[Limit: 0..=3]`
    pub rotation: u8,
    /// Index of the selected placement in `document.stamps`.
    pub selected: Option<usize>,
    /// A move in progress.
    pub drag: Option<StampDrag>,
}

impl Default for StampSelection {
    fn default() -> Self {
        Self {
            chosen: library().stamps.first().map(|s| s.id.clone()),
            rotation: 0,
            selected: None,
            drag: None,
        }
    }
}

impl StampSelection {
    /// The chosen stamp, if the library has it.
    #[must_use]
    pub fn chosen_stamp(&self) -> Option<&'static Stamp> {
        library().get(self.chosen.as_deref()?)
    }

    /// The preview placement centred on cell `(x, y)`.
    #[must_use]
    pub fn preview_at(&self, x: i32, y: i32) -> Option<StampPlacement> {
        Some(centred_on(self.chosen_stamp()?, self.rotation, x, y))
    }

    /// Forgets a selection or drag that no longer fits a document with `count` stamps
    /// (after undo, redo or opening another map).
    pub fn forget_missing(&mut self, count: usize) {
        if self.selected.is_some_and(|i| i >= count) {
            self.selected = None;
        }
        if self.drag.as_ref().is_some_and(|d| d.index >= count) {
            self.drag = None;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::app::model::stamp_placement::tests::at;

    #[test]
    fn drag_moves_by_the_grab_offset_and_makes_one_command() {
        let lib = library();
        let p = at("wall_block_3x3", 10, 10, 2);
        let mut drag = StampDrag::start(3, &p, 11, 12);
        assert_eq!(drag.grab, (1, 2));
        drag.update(lib, 20, 5, 64, 64);
        assert_eq!(drag.current, at("wall_block_3x3", 19, 3, 2));
        drag.update(lib, 0, 0, 64, 64);
        assert_eq!(
            drag.current,
            at("wall_block_3x3", 0, 0, 2),
            "kept on the map"
        );
        assert_eq!(
            drag.clone().finish(),
            Some(Command::MoveStamp {
                index: 3,
                before: p.clone(),
                after: at("wall_block_3x3", 0, 0, 2),
            })
        );
        drag.update(lib, 11, 12, 64, 64);
        assert_eq!(drag.finish(), None, "back where it was: no command");
    }

    #[test]
    fn selection_is_forgotten_when_its_stamp_is_gone() {
        let mut tool = StampSelection {
            selected: Some(2),
            ..StampSelection::default()
        };
        tool.forget_missing(3);
        assert_eq!(tool.selected, Some(2));
        tool.forget_missing(2);
        assert_eq!(tool.selected, None);
        assert!(
            tool.chosen_stamp().is_some(),
            "a stamp is chosen by default"
        );
    }
}
