//! The sectored cost field: one `u8` per cell (255 wall, 1..=254 cost), stored per sector;
//! a sector whose cells all cost 1 stores nothing and reads as the shared clear field.

use std::sync::Arc;

use rayon::prelude::*;

use super::grid::{CLEAR, GridSpec, WALL};

/// One sector's costs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectorCost {
    /// Every cell costs 1; nothing stored.
    Clear,
    /// Row-major costs of the (possibly partial) sector rectangle.
    Tile(CostTile),
}

/// One sector's row-major costs: a range of a buffer that may hold other sectors' tiles too.
/// A region read from a package keeps its tiles in one allocation (at 8192² a tile is 100
/// bytes, and an allocation of its own took 28 more).
#[derive(Clone, Debug)]
pub struct CostTile {
    bytes: Arc<[u8]>,
    start: u32,
    len: u32,
}

impl CostTile {
    /// The tile at `range` of `bytes` (which must hold it).
    #[must_use]
    pub fn within(bytes: &Arc<[u8]>, range: std::ops::Range<usize>) -> Self {
        debug_assert!(range.end <= bytes.len());
        Self {
            bytes: Arc::clone(bytes),
            start: range.start as u32,
            len: range.len() as u32,
        }
    }
}

impl std::ops::Deref for CostTile {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        &self.bytes[self.start as usize..(self.start + self.len) as usize]
    }
}

impl From<&[u8]> for CostTile {
    fn from(tile: &[u8]) -> Self {
        Self {
            bytes: tile.into(),
            start: 0,
            len: tile.len() as u32,
        }
    }
}

impl From<Vec<u8>> for CostTile {
    fn from(tile: Vec<u8>) -> Self {
        let len = tile.len() as u32;
        Self {
            bytes: tile.into(),
            start: 0,
            len,
        }
    }
}

impl PartialEq for CostTile {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for CostTile {}

/// The cost field of one movement type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostField {
    /// Map and sector sizes.
    pub spec: GridSpec,
    /// One entry per sector, indexed row-major over sectors, held in blocks of sectors
    /// shared between copies (see [`SectorTable`]).
    pub sectors: SectorTable,
}

/// Sectors per side of a [`SectorTable`] block of a field made whole (a package's fields
/// use its regions instead).
pub const BLOCK_SECTORS: u32 = 16;

/// The per-sector costs of a field, indexed by sector id, stored in square blocks of
/// `side` × `side` sectors (row-major within a block; blocks on the right and bottom edge
/// are partial). A block is shared between copies until one changes it, and a streamed
/// type's block is its region's decoded costs, shared with the cache that decoded them:
/// a query's copy of an 8192² field holds 2,600 block handles, not 670,000 entries
/// (11 MB).
#[derive(Clone, Debug)]
pub struct SectorTable {
    sectors_x: u32,
    len: usize,
    side: u32,
    blocks_x: u32,
    blocks: Arc<Vec<Arc<[SectorCost]>>>,
}

impl SectorTable {
    /// `sectors` (row-major over the sectors of `spec`) in blocks of `side` × `side`.
    #[must_use]
    pub fn new(spec: GridSpec, side: u32, sectors: &[SectorCost]) -> Self {
        debug_assert_eq!(sectors.len(), spec.sector_count());
        let mut table = Self::clear(spec, side);
        let blocks = (0..table.block_count())
            .map(|b| {
                table
                    .block_sectors(b)
                    .map(|s| sectors[s as usize].clone())
                    .collect()
            })
            .collect();
        table.blocks = Arc::new(blocks);
        table
    }

    /// Every sector of `spec` clear, in blocks of `side` × `side` sharing one allocation.
    #[must_use]
    pub fn clear(spec: GridSpec, side: u32) -> Self {
        let side = side.max(1);
        let sectors_x = spec.sectors_x().max(1);
        let blocks_x = sectors_x.div_ceil(side);
        let blocks_y = spec.sectors_y().div_ceil(side);
        let clear: Arc<[SectorCost]> = vec![SectorCost::Clear; (side * side) as usize].into();
        Self {
            sectors_x,
            len: spec.sector_count(),
            side,
            blocks_x,
            blocks: Arc::new(vec![clear; (blocks_x * blocks_y) as usize]),
        }
    }

    /// Number of sectors.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map has no sectors.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sectors per block side.
    #[must_use]
    pub fn side(&self) -> u32 {
        self.side
    }

    /// Every sector's costs, in sector order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &SectorCost> + '_ {
        (0..self.len).map(|s| &self[s])
    }

    fn block_count(&self) -> u32 {
        self.blocks.len() as u32
    }

    /// Block and position in it of sector `s`.
    #[inline]
    fn locate(&self, s: usize) -> (usize, usize) {
        let s = s as u32;
        let (x, y) = (s % self.sectors_x, s / self.sectors_x);
        let (bx, by) = (x / self.side, y / self.side);
        let (x0, y0) = (bx * self.side, by * self.side);
        let w = (self.sectors_x - x0).min(self.side);
        (
            (by * self.blocks_x + bx) as usize,
            ((y - y0) * w + (x - x0)) as usize,
        )
    }

    /// The sectors of block `b`, row-major (ascending).
    fn block_sectors(&self, b: u32) -> impl Iterator<Item = u32> + use<> {
        square_block(self.sectors_x, self.len, self.side, b)
    }

    /// Sets sector `s` (changing only this table's copy of its block).
    pub fn set(&mut self, s: usize, cost: SectorCost) {
        let (b, i) = self.locate(s);
        let block = &mut Arc::make_mut(&mut self.blocks)[b];
        if let Some(block) = Arc::get_mut(block) {
            block[i] = cost;
        } else {
            let mut copy = block.to_vec();
            copy[i] = cost;
            *block = copy.into();
        }
    }

    /// Puts `costs` (the sectors of the `side` × `side` block `b`, in order) in: shared
    /// as the table's block when its blocks have that side, sector by sector otherwise.
    pub fn put_block(&mut self, side: u32, b: u32, costs: &Arc<[SectorCost]>) {
        let sectors: Vec<u32> = square_block(self.sectors_x, self.len, side, b).collect();
        if side == self.side && (b as usize) < self.blocks.len() && sectors.len() == costs.len() {
            Arc::make_mut(&mut self.blocks)[b as usize] = Arc::clone(costs);
            return;
        }
        for (s, c) in sectors.into_iter().zip(costs.iter()) {
            self.set(s as usize, c.clone());
        }
    }
}

/// The sectors of block `b` of `side` × `side` sectors, row-major (ascending), in a map
/// `sectors_x` sectors wide holding `len` sectors.
fn square_block(sectors_x: u32, len: usize, side: u32, b: u32) -> impl Iterator<Item = u32> {
    let (side, sx) = (side.max(1), sectors_x.max(1));
    let rows = (len as u32).div_ceil(sx);
    let blocks_x = sx.div_ceil(side);
    let (bx, by) = (b % blocks_x, b / blocks_x);
    let xs = bx * side..((bx + 1) * side).min(sx);
    let ys = by * side..((by + 1) * side).min(rows);
    ys.flat_map(move |y| xs.clone().map(move |x| y * sx + x))
}

impl std::ops::Index<usize> for SectorTable {
    type Output = SectorCost;

    #[inline]
    fn index(&self, s: usize) -> &SectorCost {
        assert!(s < self.len, "sector {s} of {}", self.len);
        let (b, i) = self.locate(s);
        &self.blocks[b][i]
    }
}

impl PartialEq for SectorTable {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for SectorTable {}

impl CostField {
    /// Cuts a row-major cost grid (`spec.cell_count()` long) into sectors.
    #[must_use]
    pub fn from_cells(spec: GridSpec, cells: &[u8]) -> Self {
        debug_assert_eq!(cells.len(), spec.cell_count());
        let sectors: Vec<SectorCost> = (0..spec.sector_count() as u32)
            .map(|s| sector_from_cells(spec, cells, s))
            .collect();
        Self {
            spec,
            sectors: SectorTable::new(spec, BLOCK_SECTORS, &sectors),
        }
    }

    /// Replaces one sector's costs from a row-major full-map grid.
    pub fn update_sector_from_cells(&mut self, cells: &[u8], sector: u32) {
        self.sectors
            .set(sector as usize, sector_from_cells(self.spec, cells, sector));
    }

    /// Replaces one sector's costs from its own row-major tile (sector-rectangle sized);
    /// an all-1 tile becomes the shared clear field.
    pub fn set_sector(&mut self, sector: u32, tile: &[u8]) {
        let cost = if tile.iter().all(|&c| c == CLEAR) {
            SectorCost::Clear
        } else {
            SectorCost::Tile(tile.into())
        };
        self.sectors.set(sector as usize, cost);
    }

    /// Cost of cell `(x, y)`; the cell must be on the map.
    #[must_use]
    pub fn get(&self, x: u32, y: u32) -> u8 {
        let s = self.spec.sector_of(x, y);
        match &self.sectors[s as usize] {
            SectorCost::Clear => CLEAR,
            SectorCost::Tile(tile) => {
                let (x0, y0, w, _) = self.spec.sector_rect(s);
                tile[((y - y0) * w + (x - x0)) as usize]
            }
        }
    }

    /// Copies one sector's costs into `out` (row-major, sector rectangle sized).
    pub fn sector_cells(&self, sector: u32, out: &mut Vec<u8>) {
        let (_, _, w, h) = self.spec.sector_rect(sector);
        out.clear();
        match &self.sectors[sector as usize] {
            SectorCost::Clear => out.resize((w * h) as usize, CLEAR),
            SectorCost::Tile(tile) => out.extend_from_slice(tile),
        }
    }

    /// Cost of a cell given by its sector and its row-major index inside the sector
    /// rectangle; the caller keeps `local` inside the rectangle.
    #[must_use]
    pub fn sector_cell(&self, sector: u32, local: usize) -> u8 {
        match &self.sectors[sector as usize] {
            SectorCost::Clear => CLEAR,
            SectorCost::Tile(tile) => tile[local],
        }
    }

    /// Copies the window `(x0, y0, w, h)` (clipped by the caller to the map) into `out`,
    /// row-major — e.g. the goal sector and its neighbours for a run-time LOS field.
    pub fn copy_window(&self, x0: u32, y0: u32, w: u32, h: u32, out: &mut Vec<u8>) {
        out.clear();
        out.reserve((w * h) as usize);
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                out.push(self.get(x, y));
            }
        }
    }

    /// The whole field as one row-major grid (a row of sectors per task, on all cores).
    #[must_use]
    pub fn to_cells(&self) -> Vec<u8> {
        let spec = self.spec;
        let mut cells = vec![CLEAR; spec.cell_count()];
        let width = spec.width as usize;
        let band = width * spec.sector_size as usize;
        let sx = spec.sectors_x() as usize;
        if band == 0 || sx == 0 {
            return cells;
        }
        cells
            .par_chunks_mut(band)
            .enumerate()
            .for_each(|(sy, rows)| {
                for i in 0..sx {
                    if let SectorCost::Tile(tile) = &self.sectors[sy * sx + i] {
                        let (x0, _, w, h) = spec.sector_rect((sy * sx + i) as u32);
                        let (x0, w) = (x0 as usize, w as usize);
                        for row in 0..h as usize {
                            let dst = row * width + x0;
                            rows[dst..dst + w].copy_from_slice(&tile[row * w..(row + 1) * w]);
                        }
                    }
                }
            });
        cells
    }

    /// Cells that are walls, counted sector by sector (a clear sector holds none).
    #[must_use]
    pub fn wall_cells(&self) -> usize {
        (0..self.sectors.len())
            .into_par_iter()
            .map(|s| match &self.sectors[s] {
                SectorCost::Clear => 0,
                SectorCost::Tile(tile) => tile.iter().filter(|&&c| c == WALL).count(),
            })
            .sum()
    }

    /// Share of sectors that are clear (store nothing), `0.0..=1.0`.
    #[must_use]
    pub fn clear_share(&self) -> f64 {
        let clear = self
            .sectors
            .iter()
            .filter(|s| matches!(s, SectorCost::Clear))
            .count();
        clear as f64 / self.sectors.len().max(1) as f64
    }
}

fn sector_from_cells(spec: GridSpec, cells: &[u8], sector: u32) -> SectorCost {
    let (x0, y0, w, h) = spec.sector_rect(sector);
    let mut tile = Vec::with_capacity((w * h) as usize);
    for row in 0..h {
        let start = spec.index(x0, y0 + row);
        tile.extend_from_slice(&cells[start..start + w as usize]);
    }
    if tile.iter().all(|&c| c == CLEAR) {
        SectorCost::Clear
    } else {
        SectorCost::Tile(tile.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walls counted sector by sector equal a count over every cell: clear sectors, mixed
    /// ones, all-wall ones and partial sectors at the edges.
    #[test]
    fn wall_cells_count_every_wall() {
        let spec = GridSpec {
            width: 23,
            height: 17,
            sector_size: 5,
        };
        let cells: Vec<u8> = (0..spec.cell_count() as u32)
            .map(|i| {
                let (x, y) = (i % spec.width, i / spec.width);
                // A scramble of the cell's index: walls and costs without a pattern.
                let r = i.wrapping_mul(2_654_435_761) >> 24;
                match (x / 5, y / 5) {
                    (0, _) => CLEAR,
                    (1, 0) => WALL,
                    _ if r % 5 == 0 => WALL,
                    _ => 1 + (r % 4) as u8,
                }
            })
            .collect();
        let cost = CostField::from_cells(spec, &cells);
        assert!(cost.clear_share() > 0.0);
        let walls = cells.iter().filter(|&&c| c == WALL).count();
        assert!(walls > 25);
        assert_eq!(cost.wall_cells(), walls);
        assert_eq!(cost.to_cells(), cells);
    }
}
