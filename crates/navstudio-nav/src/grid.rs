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
/// Direction index meaning "no direction" (walls, goal cells, unreachable cells).
pub const DIR_NONE: u8 = 0x0F;
/// Flow flag: the cell is passable.
pub const FLOW_PATHABLE: u8 = 0x10;
/// Flow flag: the cell has line of sight to the goal (steer straight at it).
pub const FLOW_LOS: u8 = 0x20;

/// The size of the map and how it is cut into sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridSpec {
    /// Columns. `[Limit: >= 1]`
    pub width: u32,
    /// Rows. `[Limit: >= 1]`
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
