//! The stamp tool: pick a stamp from the library, preview it under the cursor, rotate it,
//! place it; click a placed stamp to select it, drag to move it, delete it. Every edit is
//! one [`Command`] (`PlaceStamp`, `MoveStamp`, `RemoveStamp`).
//!
//! This module is pure logic (no egui): footprint rectangles of placements, hit-testing a
//! cell against placed stamps (the last placed wins, as in the bake), centring a preview on
//! the cursor, rotating in place and keeping a placement on the map.

use std::sync::OnceLock;

use crate::map::{Stamp, StampLibrary, StampPlacement};

use crate::app::commands::Command;
use crate::app::state::CellRect;

/// The built-in stamp library (`assets/stamps.ron`), parsed once. Empty only if the
/// compiled-in file were broken, which the map module's tests rule out.
#[must_use]
pub fn library() -> &'static StampLibrary {
    static LIBRARY: OnceLock<StampLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| StampLibrary::builtin().unwrap_or_default())
}

/// A rectangle of cells that may reach past the map's edges: `x0..x1` × `y0..y1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StampRect {
    /// First column (may be negative).
    pub x0: i32,
    /// First row (may be negative).
    pub y0: i32,
    /// One past the last column.
    pub x1: i32,
    /// One past the last row.
    pub y1: i32,
}

impl StampRect {
    /// Whether cell `(x, y)` lies inside.
    #[must_use]
    pub fn contains(&self, x: i32, y: i32) -> bool {
        (self.x0..self.x1).contains(&x) && (self.y0..self.y1).contains(&y)
    }

    /// Whether the whole rectangle lies on a `width` × `height` map.
    #[must_use]
    pub fn is_inside(&self, width: u32, height: u32) -> bool {
        self.x0 >= 0 && self.y0 >= 0 && self.x1 <= width as i32 && self.y1 <= height as i32
    }

    /// The cells it covers with negative coordinates cut off (empty when wholly above or
    /// left of the map). The bake clips the far edges itself.
    #[must_use]
    pub fn to_cells(&self) -> CellRect {
        let clamp = |v: i32| v.max(0) as u32;
        CellRect {
            x0: clamp(self.x0),
            y0: clamp(self.y0),
            x1: clamp(self.x1).max(clamp(self.x0)),
            y1: clamp(self.y1).max(clamp(self.y0)),
        }
    }
}

/// Columns and rows of `stamp` turned by `rotation` quarter turns (no cell parsing).
#[must_use]
pub fn rotated_size(stamp: &Stamp, rotation: u8) -> (u32, u32) {
    let w = stamp.rows.first().map_or(0, |r| r.chars().count()) as u32;
    let h = stamp.rows.len() as u32;
    if rotation.is_multiple_of(2) {
        (w, h)
    } else {
        (h, w)
    }
}

/// The cells a placement covers, or `None` when the library has no such stamp.
#[must_use]
pub fn placement_rect(library: &StampLibrary, placement: &StampPlacement) -> Option<StampRect> {
    let stamp = library.get(&placement.stamp)?;
    let (w, h) = rotated_size(stamp, placement.rotation);
    Some(StampRect {
        x0: placement.x,
        y0: placement.y,
        x1: placement.x + w as i32,
        y1: placement.y + h as i32,
    })
}

/// The topmost placement (the last placed, which the bake applies last) whose footprint
/// rectangle holds cell `(x, y)`.
#[must_use]
pub fn hit_test(
    library: &StampLibrary,
    placements: &[StampPlacement],
    x: i32,
    y: i32,
) -> Option<usize> {
    placements
        .iter()
        .enumerate()
        .rev()
        .find(|(_, p)| placement_rect(library, p).is_some_and(|r| r.contains(x, y)))
        .map(|(i, _)| i)
}

/// A placement of `stamp` turned by `rotation` whose footprint is centred on cell
/// `(x, y)` (for even sizes, the cell right/below the middle).
#[must_use]
pub fn centred_on(stamp: &Stamp, rotation: u8, x: i32, y: i32) -> StampPlacement {
    let (w, h) = rotated_size(stamp, rotation);
    StampPlacement {
        stamp: stamp.id.clone(),
        x: x - (w / 2) as i32,
        y: y - (h / 2) as i32,
        rotation: rotation % 4,
    }
}

/// The next rotation clockwise.
#[must_use]
pub fn next_rotation(rotation: u8) -> u8 {
    (rotation + 1) % 4
}

/// `placement` turned one more quarter clockwise about its centre (the centre cell stays
/// put, within half a cell).
#[must_use]
pub fn rotated_in_place(library: &StampLibrary, placement: &StampPlacement) -> StampPlacement {
    let rotation = next_rotation(placement.rotation);
    let Some(stamp) = library.get(&placement.stamp) else {
        return StampPlacement {
            rotation,
            ..placement.clone()
        };
    };
    let (w, h) = rotated_size(stamp, placement.rotation);
    let (cx, cy) = (placement.x + (w / 2) as i32, placement.y + (h / 2) as i32);
    centred_on(stamp, rotation, cx, cy)
}

/// `placement` shifted the least so that its footprint lies on a `width` × `height` map
/// (a footprint larger than the map is aligned to its top-left corner).
#[must_use]
pub fn kept_on_map(
    library: &StampLibrary,
    placement: &StampPlacement,
    width: u32,
    height: u32,
) -> StampPlacement {
    let Some(r) = placement_rect(library, placement) else {
        return placement.clone();
    };
    let fit = |start: i32, len: i32, size: i32| start.min(size - len).max(0);
    StampPlacement {
        x: fit(r.x0, r.x1 - r.x0, width as i32),
        y: fit(r.y0, r.y1 - r.y0, height as i32),
        ..placement.clone()
    }
}

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

/// The stamp tool's state between frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StampTool {
    /// Id of the stamp the preview shows and a click places.
    pub chosen: Option<String>,
    /// Rotation of the preview, in clockwise quarter turns. `[Limit: 0..=3]`
    pub rotation: u8,
    /// Index of the selected placement in `document.stamps`.
    pub selected: Option<usize>,
    /// A move in progress.
    pub drag: Option<StampDrag>,
}

impl Default for StampTool {
    fn default() -> Self {
        Self {
            chosen: library().stamps.first().map(|s| s.id.clone()),
            rotation: 0,
            selected: None,
            drag: None,
        }
    }
}

impl StampTool {
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

    fn at(id: &str, x: i32, y: i32, rotation: u8) -> StampPlacement {
        StampPlacement {
            stamp: id.to_owned(),
            x,
            y,
            rotation,
        }
    }

    #[test]
    fn footprint_rect_follows_rotation() {
        let lib = library();
        // factory_6x4 is 6 wide, 4 tall; a quarter turn makes it 4 × 6.
        assert_eq!(
            placement_rect(lib, &at("factory_6x4", 10, 20, 0)),
            Some(StampRect {
                x0: 10,
                y0: 20,
                x1: 16,
                y1: 24
            })
        );
        assert_eq!(
            placement_rect(lib, &at("factory_6x4", 10, 20, 1)),
            Some(StampRect {
                x0: 10,
                y0: 20,
                x1: 14,
                y1: 26
            })
        );
        assert_eq!(placement_rect(lib, &at("no_such_stamp", 0, 0, 0)), None);
        // The size agrees with the map module's rotated footprint.
        let fp = lib.get("bridge_3x8").unwrap().footprint(3).unwrap();
        assert_eq!(
            rotated_size(lib.get("bridge_3x8").unwrap(), 3),
            (fp.width, fp.height)
        );
    }

    #[test]
    fn negative_corners_are_cut_off_in_cells() {
        let r = StampRect {
            x0: -2,
            y0: 3,
            x1: 1,
            y1: 6,
        };
        assert_eq!(
            r.to_cells(),
            CellRect {
                x0: 0,
                y0: 3,
                x1: 1,
                y1: 6
            }
        );
        assert!(!r.is_inside(10, 10));
        let gone = StampRect {
            x0: -5,
            y0: -5,
            x1: -1,
            y1: -1,
        };
        assert!(gone.to_cells().is_empty());
        assert!(
            StampRect {
                x0: 7,
                y0: 7,
                x1: 10,
                y1: 10
            }
            .is_inside(10, 10)
        );
    }

    #[test]
    fn hit_test_prefers_the_last_placed() {
        let lib = library();
        let stamps = vec![
            at("wall_block_3x3", 10, 10, 0), // 10..13
            at("tower_2x2", 12, 12, 0),      // 12..14, over the block's corner
        ];
        assert_eq!(hit_test(lib, &stamps, 10, 10), Some(0));
        assert_eq!(hit_test(lib, &stamps, 12, 12), Some(1), "topmost wins");
        assert_eq!(hit_test(lib, &stamps, 13, 13), Some(1));
        assert_eq!(hit_test(lib, &stamps, 13, 10), None, "x1 is exclusive");
        assert_eq!(hit_test(lib, &stamps, 9, 10), None);
        assert_eq!(hit_test(lib, &[], 10, 10), None);
    }

    #[test]
    fn preview_is_centred_and_rotation_keeps_the_centre() {
        let lib = library();
        let block = lib.get("wall_block_3x3").unwrap();
        assert_eq!(centred_on(block, 0, 10, 24), at("wall_block_3x3", 9, 23, 0));
        let factory = lib.get("factory_6x4").unwrap();
        let p = centred_on(factory, 0, 20, 20);
        assert_eq!(p, at("factory_6x4", 17, 18, 0));
        let turned = rotated_in_place(lib, &p);
        // 4 × 6 now, centre (20, 20) → corner (18, 17).
        assert_eq!(turned, at("factory_6x4", 18, 17, 1));
        let mut q = p.clone();
        for _ in 0..4 {
            q = rotated_in_place(lib, &q);
        }
        assert_eq!(q, p, "four quarter turns come back");
        assert_eq!(next_rotation(3), 0);
    }

    #[test]
    fn kept_on_map_shifts_the_least() {
        let lib = library();
        assert_eq!(
            kept_on_map(lib, &at("wall_block_3x3", -2, 5, 0), 20, 10),
            at("wall_block_3x3", 0, 5, 0)
        );
        assert_eq!(
            kept_on_map(lib, &at("wall_block_3x3", 19, 9, 0), 20, 10),
            at("wall_block_3x3", 17, 7, 0)
        );
        assert_eq!(
            kept_on_map(lib, &at("wall_block_3x3", 4, 4, 0), 20, 10),
            at("wall_block_3x3", 4, 4, 0)
        );
    }

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
        let mut tool = StampTool {
            selected: Some(2),
            ..StampTool::default()
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
