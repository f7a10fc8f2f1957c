//! Neighbour search: a uniform grid over the agents' bounding box, rebuilt every step by a
//! counting sort into one flat index array (no per-cell `Vec`). Agents within a cell stay in
//! index order, so every query visits candidates in the same order on every run.

use super::vec2::Vec2;

/// The grid never holds more than this many cells per agent (plus a floor), so a huge map
/// with a few agents does not allocate a huge grid; cells grow instead.
const MAX_CELLS_PER_AGENT: usize = 4;
const MIN_CELL_BUDGET: usize = 1024;

/// A uniform grid of agent indices.
#[derive(Clone, Debug, Default)]
pub struct SpatialGrid {
    origin_world: Vec2,
    cell_size_m: f32,
    cols: u32,
    rows: u32,
    /// `cell_start[c]..cell_start[c + 1]` indexes `sorted` for cell `c`.
    cell_start: Vec<u32>,
    /// Agent indices ordered by cell, then by index.
    sorted: Vec<u32>,
    /// Positions in the same order as `sorted`, so scans read memory front to back.
    sorted_pos: Vec<Vec2>,
    /// Cell of each agent (scratch reused between rebuilds).
    agent_cell: Vec<u32>,
}

impl SpatialGrid {
    /// Rebuilds the grid for these positions with cells of at least `min_cell_size_m`.
    pub fn rebuild(&mut self, positions: &[Vec2], min_cell_size_m: f32) {
        let mut lo = Vec2::new(f32::MAX, f32::MAX);
        let mut hi = Vec2::new(f32::MIN, f32::MIN);
        for p in positions {
            lo = Vec2::new(lo.x.min(p.x), lo.y.min(p.y));
            hi = Vec2::new(hi.x.max(p.x), hi.y.max(p.y));
        }
        if positions.is_empty() || !lo.is_finite() || !hi.is_finite() {
            lo = Vec2::ZERO;
            hi = Vec2::ZERO;
        }
        let extent = hi - lo;
        let budget = (positions.len() * MAX_CELLS_PER_AGENT).max(MIN_CELL_BUDGET) as f32;
        let mut cell = min_cell_size_m.max(1e-3);
        // Smallest cell size keeping cols·rows within budget.
        let area_cell = ((extent.x.max(cell) * extent.y.max(cell)) / budget).sqrt();
        if area_cell > cell {
            cell = area_cell;
        }
        let cols = ((extent.x / cell).floor() as u32 + 1).max(1);
        let rows = ((extent.y / cell).floor() as u32 + 1).max(1);
        self.origin_world = lo;
        self.cell_size_m = cell;
        self.cols = cols;
        self.rows = rows;
        let cells = cols as usize * rows as usize;

        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        self.agent_cell.clear();
        for p in positions {
            let c = self.cell_index(*p);
            self.agent_cell.push(c);
            self.cell_start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.sorted.clear();
        self.sorted.resize(positions.len(), 0);
        self.sorted_pos.clear();
        self.sorted_pos.resize(positions.len(), Vec2::ZERO);
        // `cell_start[c]` doubles as the write cursor, then is restored from the next cell's start.
        let mut cursor: Vec<u32> = self.cell_start[..cells].to_vec();
        for (i, &c) in self.agent_cell.iter().enumerate() {
            let slot = &mut cursor[c as usize];
            self.sorted[*slot as usize] = i as u32;
            self.sorted_pos[*slot as usize] = positions[i];
            *slot += 1;
        }
    }

    /// Agent indices ordered by cell (row-major), then by index: neighbours in space are
    /// near each other here, so walking agents in this order keeps their data in cache.
    #[must_use]
    pub fn sorted_agents(&self) -> &[u32] {
        &self.sorted
    }

    fn clamp_cell(&self, p: Vec2) -> (u32, u32) {
        let rel = (p - self.origin_world) / self.cell_size_m;
        let cx = if rel.x.is_finite() {
            rel.x.floor().clamp(0.0, (self.cols - 1) as f32)
        } else {
            0.0
        };
        let cy = if rel.y.is_finite() {
            rel.y.floor().clamp(0.0, (self.rows - 1) as f32)
        } else {
            0.0
        };
        (cx as u32, cy as u32)
    }

    fn cell_index(&self, p: Vec2) -> u32 {
        let (cx, cy) = self.clamp_cell(p);
        cy * self.cols + cx
    }

    /// Calls `visit(agent_index, position)` for every agent in the cells overlapping the
    /// square around `center_world` of half-size `radius_m` (a superset of those within the
    /// radius), in a fixed order. Positions are those given to the last [`Self::rebuild`].
    pub fn for_each_candidate(
        &self,
        center_world: Vec2,
        radius_m: f32,
        mut visit: impl FnMut(u32, Vec2),
    ) {
        if self.cols == 0 || self.sorted.is_empty() {
            return;
        }
        let (x0, y0) = self.clamp_cell(center_world - Vec2::new(radius_m, radius_m));
        let (x1, y1) = self.clamp_cell(center_world + Vec2::new(radius_m, radius_m));
        for cy in y0..=y1 {
            let row = (cy * self.cols) as usize;
            let start = self.cell_start[row + x0 as usize] as usize;
            let end = self.cell_start[row + x1 as usize + 1] as usize;
            // Cells of one row are contiguous in `sorted`, so a row is one slice.
            for (&i, &p) in self.sorted[start..end]
                .iter()
                .zip(&self.sorted_pos[start..end])
            {
                visit(i, p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::crowd::rng::SplitMix64;

    #[test]
    fn finds_exactly_the_brute_force_neighbours() {
        let mut rng = SplitMix64::new(11);
        let positions: Vec<Vec2> = (0..3000)
            .map(|_| Vec2::new(rng.range_f32(0.0, 200.0), rng.range_f32(50.0, 120.0)))
            .collect();
        let mut grid = SpatialGrid::default();
        grid.rebuild(&positions, 2.0);
        for q in 0..200 {
            let center = positions[q * 7];
            let radius = rng.range_f32(0.5, 9.0);
            let mut found = Vec::new();
            grid.for_each_candidate(center, radius, |i, p| {
                assert_eq!(p, positions[i as usize]);
                if (p - center).length() <= radius {
                    found.push(i);
                }
            });
            found.sort_unstable();
            let expected: Vec<u32> = (0..positions.len() as u32)
                .filter(|&i| (positions[i as usize] - center).length() <= radius)
                .collect();
            assert_eq!(found, expected);
        }
    }
}
