//! Editor tools: what a primary-button drag in the viewport does. Inspect shows a cell's
//! data; the paint brush edits paint layers; the goal tool previews the run-time path
//! toward a clicked cell; the stamp tool places, selects, moves, rotates and deletes
//! library stamps.

pub mod brush;
pub mod inspect;
pub mod stamp;

pub use brush::{BrushMode, BrushSettings, BrushShape, BrushTarget, Stroke};
pub use inspect::{CellInfo, TypeCost, Why, inspect_cell};
pub use stamp::{StampDrag, StampTool};

/// The active tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tool {
    /// Hover shows cell data; dragging pans.
    #[default]
    Inspect,
    /// Paint costs, walls and clears.
    Paint,
    /// Place, move, rotate and delete cost stamps from the stamp library.
    Stamp,
    /// Set a path goal and preview flow (needs the nav bake).
    Goal,
    /// Drag a rectangle to spawn agents; right-click orders them.
    Spawn,
    /// Select agents by box or click; right-click orders a move (RTS style).
    Command,
}

impl Tool {
    /// Every tool, in toolbar order.
    pub const ALL: [Self; 6] = [
        Self::Inspect,
        Self::Paint,
        Self::Stamp,
        Self::Goal,
        Self::Spawn,
        Self::Command,
    ];

    /// The label on its button (kittest finds tools by it).
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Inspect => "Inspect",
            Self::Paint => "Paint",
            Self::Stamp => "Stamp",
            Self::Goal => "Goal",
            Self::Spawn => "Spawn",
            Self::Command => "Command",
        }
    }

    /// Its keyboard shortcut key, as shown in tooltips.
    #[must_use]
    pub fn shortcut(self) -> &'static str {
        match self {
            Self::Inspect => "I",
            Self::Paint => "B",
            Self::Stamp => "S",
            Self::Goal => "G",
            Self::Spawn => "A",
            Self::Command => "C",
        }
    }

    /// One line for the tooltip.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Self::Inspect => "Hover to read a cell's height, slope, cost and sector.",
            Self::Paint => "Paint cost, walls and clears onto a paint layer.",
            Self::Stamp => {
                "Place stamps from the library (buildings, walls, bridges): click to place, R rotates; click a stamp to select, drag to move, Delete removes."
            }
            Self::Goal => {
                "Click a goal to see what units do: integration heat map, flow arrows, line of sight; Shift+click a source for its route."
            }
            Self::Spawn => {
                "Drag a rectangle (or click) to spawn agents of the Crowd panel's archetype; right-click orders them to a point."
            }
            Self::Command => {
                "Drag a box or click to select agents; right-click orders the selection (or everyone) to a point."
            }
        }
    }

    /// Whether the tool works in this build.
    #[must_use]
    pub fn is_available(self) -> bool {
        true
    }
}
