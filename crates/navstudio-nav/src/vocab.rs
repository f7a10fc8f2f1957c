//! The run time's vocabulary: a movement type, a cell, a path. Plain indices and tuples
//! meant different things in different crates; these newtypes mean one thing everywhere
//! (a rectangle of cells is [`crate::grid::CellRect`]).

/// A movement type of a map (land, hover, amphibious…): an index into the map's types in
/// the document's order. Find one by its name with [`crate::NavData::move_type`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveType(u32);

impl MoveType {
    /// The movement type at `index` of the map's types (not checked against a map: a type
    /// a map does not have gives [`crate::PathError::UnknownType`] when used).
    #[must_use]
    pub fn new(index: usize) -> Self {
        Self(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// Its index among the map's movement types.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl From<usize> for MoveType {
    fn from(index: usize) -> Self {
        Self::new(index)
    }
}

impl From<MoveType> for usize {
    fn from(t: MoveType) -> Self {
        t.index()
    }
}

/// One cell of the map: column `x`, row `y`, from the top-left corner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C)]
pub struct Cell {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    #[must_use]
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }
}

impl From<(u32, u32)> for Cell {
    fn from((x, y): (u32, u32)) -> Self {
        Self { x, y }
    }
}

impl From<Cell> for (u32, u32) {
    fn from(c: Cell) -> Self {
        (c.x, c.y)
    }
}

/// A path in a [`crate::PathTable`] or a [`crate::NavWorld`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathId(pub u32);
