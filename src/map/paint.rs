//! Designer paint layers: hand-painted cost changes, walls and clears, for one movement
//! type or for all of them. Stored losslessly as an RGB PNG beside the map document.

use serde::{Deserialize, Serialize};

/// Which movement types a paint layer applies to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PaintTarget {
    /// Every movement type.
    All,
    /// The movement type of this name.
    Type(String),
}

/// A forced state painted on a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PaintForce {
    /// No forced state.
    #[default]
    None,
    /// Force a wall.
    Wall,
    /// Force the cell passable (removes terrain, buffer and stamp walls).
    Clear,
}

/// One painted cell: a cost delta and an optional forced state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaintCell {
    /// Cost added (positive) or removed (negative). `[Limit: -254..=254]`
    pub delta: i16,
    /// Forced wall or clear.
    pub force: PaintForce,
}

/// A paint layer: its target and one `PaintCell` per map cell (row-major).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaintLayer {
    /// The movement types this layer applies to.
    pub target: PaintTarget,
    /// The PNG side file, relative to the map document.
    pub file: String,
    /// The painted cells, row-major, `width * height` long (loaded from `file`).
    #[serde(skip)]
    pub cells: Vec<PaintCell>,
}
