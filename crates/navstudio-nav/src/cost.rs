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
    Tile(Arc<[u8]>),
}

/// The cost field of one movement type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostField {
    /// Map and sector sizes.
    pub spec: GridSpec,
    /// One entry per sector, row-major over sectors. Shared between copies until one is
    /// changed: a streamed game's layers start as one clear field per type, copied by every
    /// version and query of its data (at 8192² 11 MB each).
    pub sectors: Arc<Vec<SectorCost>>,
}

impl CostField {
    /// Cuts a row-major cost grid (`spec.cell_count()` long) into sectors.
    #[must_use]
    pub fn from_cells(spec: GridSpec, cells: &[u8]) -> Self {
        debug_assert_eq!(cells.len(), spec.cell_count());
        let sectors = (0..spec.sector_count() as u32)
            .map(|s| sector_from_cells(spec, cells, s))
            .collect::<Vec<_>>()
            .into();
        Self { spec, sectors }
    }

    /// Replaces one sector's costs from a row-major full-map grid.
    pub fn update_sector_from_cells(&mut self, cells: &[u8], sector: u32) {
        Arc::make_mut(&mut self.sectors)[sector as usize] =
            sector_from_cells(self.spec, cells, sector);
    }

    /// Replaces one sector's costs from its own row-major tile (sector-rectangle sized);
    /// an all-1 tile becomes the shared clear field.
    pub fn set_sector(&mut self, sector: u32, tile: &[u8]) {
        Arc::make_mut(&mut self.sectors)[sector as usize] = if tile.iter().all(|&c| c == CLEAR) {
            SectorCost::Clear
        } else {
            SectorCost::Tile(tile.into())
        };
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
            .zip(self.sectors.par_chunks(sx))
            .enumerate()
            .for_each(|(sy, (rows, sectors))| {
                for (i, sector) in sectors.iter().enumerate() {
                    if let SectorCost::Tile(tile) = sector {
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
        self.sectors
            .par_iter()
            .map(|s| match s {
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
        SectorCost::Tile(Arc::from(tile))
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
