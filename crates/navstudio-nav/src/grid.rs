//! Cell and sector coordinates, the 8-direction table and the flow-field bit layout.
//!
//! Axis convention for the whole crate: x to the right (columns), y down (rows), origin at
//! the top-left cell of the heightmap; cell `(x, y)` is at row-major index `y * width + x`.

use serde::{Deserialize, Serialize};

/// The largest map this build accepts, in cells (8192 × 8192). Checked against file headers
/// before anything is decoded or allocated.
pub const MAX_MAP_CELLS: u64 = 8192 * 8192;

/// The longest map side this build accepts, in cells.
pub const MAX_MAP_SIDE: u32 = 16384;

/// Cost of a wall cell.
pub const WALL: u8 = 255;
/// Cost of clear ground (the cheapest a passable cell can be).
pub const CLEAR: u8 = 1;

/// The 8 flow directions, indexed by a flow cell's low 4 bits: N, NE, E, SE, S, SW, W, NW
/// as `(dx, dy)` with y down.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];
/// The 16 steering directions as lattice vectors `(dx, dy)` (y down), clockwise from N: the
/// 8 of [`DIRECTIONS`] at even indices (`DIRECTIONS[d]` is `DIRECTIONS16[2 d]`, scaled), and
/// between each two of them the knight's move (N-NE is `(1, -2)`), 26.6° and 63.4° off the
/// axes. A flow byte names one with its 8-direction index and a [`FLOW_FINE_CW`] or
/// [`FLOW_FINE_CCW`] flag (see [`flow_direction16`]).
pub const DIRECTIONS16: [(i32, i32); 16] = [
    (0, -1),
    (1, -2),
    (1, -1),
    (2, -1),
    (1, 0),
    (2, 1),
    (1, 1),
    (1, 2),
    (0, 1),
    (-1, 2),
    (-1, 1),
    (-2, 1),
    (-1, 0),
    (-2, -1),
    (-1, -1),
    (-1, -2),
];
/// Flow flag: steer half a step clockwise of the 8-direction index, i.e. at
/// `DIRECTIONS16[2 d + 1]`; the index itself stays the cell step (a neighbour with a lower
/// integrated cost), so readers that know only the 8 directions still follow a sound flow.
pub const FLOW_FINE_CW: u8 = 0x40;
/// Flow flag: steer half a step counter-clockwise of the 8-direction index
/// (`DIRECTIONS16[2 d - 1]`, modulo 16). Never set together with [`FLOW_FINE_CW`].
pub const FLOW_FINE_CCW: u8 = 0x80;

/// The steering direction of a flow byte as an index into [`DIRECTIONS16`]; `None` without
/// a direction (or with both fine flags, which no bake writes).
#[must_use]
pub fn flow_direction16(f: u8) -> Option<usize> {
    let d = usize::from(f & 0x0F);
    if d >= DIRECTIONS.len() {
        return None;
    }
    match (f & FLOW_FINE_CW != 0, f & FLOW_FINE_CCW != 0) {
        (false, false) => Some(2 * d),
        (true, false) => Some(2 * d + 1),
        (false, true) => Some((2 * d + 15) % 16),
        (true, true) => None,
    }
}

/// The steering direction of a flow byte as a unit vector (x right, y down); `None` without
/// a direction. With the fine flags it is one of 16 directions, else one of 8.
#[must_use]
pub fn flow_vector(f: u8) -> Option<(f32, f32)> {
    let (dx, dy) = DIRECTIONS16[flow_direction16(f)?];
    let n = ((dx * dx + dy * dy) as f32).sqrt();
    Some((dx as f32 / n, dy as f32 / n))
}

/// Direction index meaning "no direction" (walls, goal cells, unreachable cells).
pub const DIR_NONE: u8 = 0x0F;
/// Flow flag: the cell is passable.
pub const FLOW_PATHABLE: u8 = 0x10;
/// Flow flag: the cell has line of sight to the goal (steer straight at it).
pub const FLOW_LOS: u8 = 0x20;

/// The size of the map and how it is cut into sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridSpec {
    /// Columns. `[Limit: 1..=MAX_MAP_SIDE]`
    pub width: u32,
    /// Rows. `[Limit: 1..=MAX_MAP_SIDE]`
    pub height: u32,
    /// Sector edge length; sectors at the right and bottom edges may be partial.
    /// `[Units: cells] [Limit: 1..=255]`
    pub sector_size: u32,
}

impl GridSpec {
    /// Sector columns.
    #[must_use]
    pub fn sectors_x(&self) -> u32 {
        self.width.div_ceil(self.sector_size)
    }
    /// Sector rows.
    #[must_use]
    pub fn sectors_y(&self) -> u32 {
        self.height.div_ceil(self.sector_size)
    }
    /// Number of sectors.
    #[must_use]
    pub fn sector_count(&self) -> usize {
        self.sectors_x() as usize * self.sectors_y() as usize
    }
    /// Number of cells.
    #[must_use]
    pub fn cell_count(&self) -> usize {
        self.width as usize * self.height as usize
    }
    /// Row-major index of a cell.
    #[must_use]
    pub fn index(&self, x: u32, y: u32) -> usize {
        y as usize * self.width as usize + x as usize
    }
    /// Whether `(x, y)` lies on the map.
    #[must_use]
    pub fn contains(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height)
    }
    /// The sector holding a cell.
    #[must_use]
    pub fn sector_of(&self, x: u32, y: u32) -> u32 {
        (y / self.sector_size) * self.sectors_x() + x / self.sector_size
    }
    /// A sector's cell rectangle `(x0, y0, width, height)`, clipped to the map.
    #[must_use]
    pub fn sector_rect(&self, sector: u32) -> (u32, u32, u32, u32) {
        let sx = sector % self.sectors_x();
        let sy = sector / self.sectors_x();
        let x0 = sx * self.sector_size;
        let y0 = sy * self.sector_size;
        (
            x0,
            y0,
            self.sector_size.min(self.width - x0),
            self.sector_size.min(self.height - y0),
        )
    }
}

/// A rectangle of cells, `x0..x1` × `y0..y1` (end exclusive). Empty when `x1 <= x0` or
/// `y1 <= y0`. The one rectangle type of bake, editor and run time: dirty regions, windows,
/// stamp footprints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CellRect {
    /// First column.
    pub x0: u32,
    /// First row.
    pub y0: u32,
    /// One past the last column.
    pub x1: u32,
    /// One past the last row.
    pub y1: u32,
}

impl CellRect {
    /// The whole `width × height` map.
    #[must_use]
    pub fn full(width: u32, height: u32) -> Self {
        Self {
            x0: 0,
            y0: 0,
            x1: width,
            y1: height,
        }
    }

    /// The `w × h` block of cells whose top-left cell is `(x, y)`.
    #[must_use]
    pub fn at(x: u32, y: u32, w: u32, h: u32) -> Self {
        Self {
            x0: x,
            y0: y,
            x1: x.saturating_add(w),
            y1: y.saturating_add(h),
        }
    }

    /// The single cell `(x, y)`.
    #[must_use]
    pub fn cell(x: u32, y: u32) -> Self {
        Self {
            x0: x,
            y0: y,
            x1: x.saturating_add(1),
            y1: y.saturating_add(1),
        }
    }

    /// Number of cells.
    #[must_use]
    pub fn area(&self) -> usize {
        self.width() as usize * self.height() as usize
    }

    /// Columns covered.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.x1.saturating_sub(self.x0)
    }

    /// Rows covered.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.y1.saturating_sub(self.y0)
    }

    /// Whether the rectangle holds no cell.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.width() == 0 || self.height() == 0
    }

    /// Whether cell `(x, y)` lies inside.
    #[must_use]
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }

    /// Grown by `cells` on every side (saturating at 0 and `u32::MAX`; clip afterwards).
    /// An empty rectangle stays empty.
    #[must_use]
    pub fn expand(&self, cells: u32) -> Self {
        if self.is_empty() {
            return *self;
        }
        Self {
            x0: self.x0.saturating_sub(cells),
            y0: self.y0.saturating_sub(cells),
            x1: self.x1.saturating_add(cells),
            y1: self.y1.saturating_add(cells),
        }
    }

    /// The part inside a `width × height` map (possibly empty).
    #[must_use]
    pub fn clip(&self, width: u32, height: u32) -> Self {
        let x0 = self.x0.min(width);
        let y0 = self.y0.min(height);
        Self {
            x0,
            y0,
            x1: self.x1.min(width).max(x0),
            y1: self.y1.min(height).max(y0),
        }
    }

    /// The smallest rectangle holding both (an empty one adds nothing).
    #[must_use]
    pub fn union(&self, other: &Self) -> Self {
        if self.is_empty() {
            return *other;
        }
        if other.is_empty() {
            return *self;
        }
        Self {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }

    /// The cells in both (possibly empty).
    #[must_use]
    pub fn intersect(&self, other: &Self) -> Self {
        let x0 = self.x0.max(other.x0);
        let y0 = self.y0.max(other.y0);
        Self {
            x0,
            y0,
            x1: self.x1.min(other.x1).max(x0),
            y1: self.y1.min(other.y1).max(y0),
        }
    }
}
