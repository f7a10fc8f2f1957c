//! Where stamp placements sit on the map, for the document's commands and the stamp tool:
//! the built-in library, footprint rectangles of placements, hit-testing a cell against
//! placed stamps (the last placed wins, as in the bake), centring a preview on the cursor,
//! rotating in place and keeping a placement on the map. Plain geometry, no egui.

use std::sync::OnceLock;

use crate::map::{Stamp, StampLibrary, StampPlacement};

use crate::nav::grid::CellRect;

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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;

    /// A placement of stamp `id` at cell `(x, y)` turned `rotation` quarter turns.
    pub(crate) fn at(id: &str, x: i32, y: i32, rotation: u8) -> StampPlacement {
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
}
