//! Neighbour search: a uniform grid over the agents' bounding box, rebuilt every step by a
//! counting sort into one flat index array (no per-cell `Vec`). Agents within a cell stay in
//! index order, so every query visits candidates in the same order on every run.

use std::ops::ControlFlow;

use super::vec2::{Vec2, floor_i32};

/// The grid never holds more than this many cells per agent (plus a floor), so a huge map
/// with a few agents does not allocate a huge grid; cells grow instead.
const MAX_CELLS_PER_AGENT: usize = 4;
const MIN_CELL_BUDGET: usize = 1024;

/// A scan visits at most this many candidates. Agents are discs that push each other apart,
/// so a scan's reach holds far fewer unless they are piled up (a client may add thousands on
/// one spot); in a pile every scan would visit every agent and a step would grow with the
/// square of the pile. Past the cap the rows nearest the centre come first, and the pile's
/// agents weigh their nearest rows until the pile spreads.
pub const MAX_CANDIDATES: usize = 256;

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

/// A disc query in cell units ([`SpatialGrid::for_each_slots_in_disc`]).
struct Disc {
    /// Centre relative to the grid's origin.
    rel: Vec2,
    /// Radius plus `slack`.
    r: f32,
    /// Allowance for the rounding of `rel`.
    slack: f32,
    /// First and last row.
    y0: i32,
    y1: i32,
}

impl Disc {
    /// Nearest distance from the centre to row `cy`'s band of y.
    fn gap(&self, cy: i32) -> f32 {
        let band = cy as f32;
        if self.rel.y < band {
            band - self.rel.y
        } else if self.rel.y > band + 1.0 {
            self.rel.y - band - 1.0
        } else {
            0.0
        }
    }
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
            floor_i32(rel.x).clamp(0, self.cols as i32 - 1)
        } else {
            0
        };
        let cy = if rel.y.is_finite() {
            floor_i32(rel.y).clamp(0, self.rows as i32 - 1)
        } else {
            0
        };
        (cx as u32, cy as u32)
    }

    fn cell_index(&self, p: Vec2) -> u32 {
        let (cx, cy) = self.clamp_cell(p);
        cy * self.cols + cx
    }

    /// Calls `visit(agent_index, position)` for every agent in the cells overlapping the disc
    /// of `radius_m` around `center_world` (a superset of those within the radius; at most
    /// [`MAX_CANDIDATES`]), rows nearest the centre first, in a fixed order. Each row of cells
    /// is clipped to the disc's chord, so with cells smaller than the radius far fewer
    /// candidates are visited than by the bounding square.
    pub fn for_each_in_disc(
        &self,
        center_world: Vec2,
        radius_m: f32,
        mut visit: impl FnMut(u32, Vec2),
    ) {
        if !(center_world.is_finite() && radius_m.is_finite()) {
            self.for_each_candidate(center_world, radius_m, visit);
            return;
        }
        let mut left = MAX_CANDIDATES;
        self.for_each_slots_in_disc(center_world, radius_m, |slots, _| {
            let slots = slots.start..slots.end.min(slots.start + left);
            left -= slots.len();
            for (&i, &p) in self.sorted[slots.clone()]
                .iter()
                .zip(&self.sorted_pos[slots])
            {
                visit(i, p);
            }
            if left == 0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    }

    /// The candidates of [`Self::for_each_in_disc`] as ranges of slots: positions in
    /// [`Self::sorted_agents`] order, one range per row of cells, rows in order of their
    /// nearest distance from the centre, which `visit` is given (in metres) so it can stop
    /// once no farther row can hold what it looks for. Data gathered in that order is then
    /// read front to back. Nothing is visited for a non-finite centre or radius. The ranges
    /// are not capped: a caller that may meet a pile caps them itself.
    pub fn for_each_slots_in_disc(
        &self,
        center_world: Vec2,
        radius_m: f32,
        mut visit: impl FnMut(std::ops::Range<usize>, f32) -> ControlFlow<()>,
    ) {
        let Some(disc) = self.disc(center_world, radius_m) else {
            return;
        };
        let mid = floor_i32(disc.rel.y).clamp(disc.y0, disc.y1);
        let (mut up, mut down) = (mid - 1, mid);
        while up >= disc.y0 || down <= disc.y1 {
            let cy = if down > disc.y1 || (up >= disc.y0 && disc.gap(up) < disc.gap(down)) {
                up -= 1;
                up + 1
            } else {
                down += 1;
                down - 1
            };
            let (slots, dy) = self.disc_row(&disc, cy);
            if visit(slots, (dy - disc.slack).max(0.0) * self.cell_size_m).is_break() {
                return;
            }
        }
    }

    /// The candidates of [`Self::for_each_slots_in_disc`] as slot ranges row by row from
    /// the top, written to `rows`, and how many rows that is; `None` (nothing written) when
    /// the disc spans more rows than `rows` holds or more than [`MAX_CANDIDATES`]
    /// candidates. Under the cap the nearest rows need not come first, and rows in memory
    /// order take fewer steps and branches to walk.
    #[inline]
    pub fn disc_rows<const N: usize>(
        &self,
        center_world: Vec2,
        radius_m: f32,
        rows: &mut [(usize, usize); N],
    ) -> Option<usize> {
        let Some(disc) = self.disc(center_world, radius_m) else {
            return Some(0);
        };
        let count = (disc.y1 - disc.y0 + 1) as usize;
        if count > N {
            return None;
        }
        let mut total = 0;
        for (row, cy) in rows.iter_mut().zip(disc.y0..=disc.y1) {
            let (slots, _) = self.disc_row(&disc, cy);
            total += slots.len();
            *row = (slots.start, slots.end);
        }
        (total <= MAX_CANDIDATES).then_some(count)
    }

    /// The rows a disc query scans; `None` when there is nothing to scan (no agents, or
    /// a non-finite centre or radius).
    #[inline(always)]
    fn disc(&self, center_world: Vec2, radius_m: f32) -> Option<Disc> {
        if self.cols == 0 || self.sorted.is_empty() {
            return None;
        }
        if !(center_world.is_finite() && radius_m.is_finite()) {
            return None;
        }
        // In cell units, with slack for the rounding of `(p - origin) / cell` (a few ulps of
        // the coordinates), so an agent within the radius is never dropped.
        let rel = (center_world - self.origin_world) / self.cell_size_m;
        let slack = 1e-3 + 1e-6 * (rel.x.abs() + rel.y.abs());
        let r = radius_m.max(0.0) / self.cell_size_m + slack;
        let max_y = self.rows as i32 - 1;
        Some(Disc {
            rel,
            r,
            slack,
            y0: floor_i32(rel.y - r).clamp(0, max_y),
            y1: floor_i32(rel.y + r).clamp(0, max_y),
        })
    }

    /// Row `cy` of `disc` clipped to the disc's chord, as slots, and its nearest distance
    /// from the centre in cells.
    #[inline(always)]
    fn disc_row(&self, disc: &Disc, cy: i32) -> (std::ops::Range<usize>, f32) {
        let max_x = self.cols as i32 - 1;
        let dy = disc.gap(cy);
        let half = (disc.r * disc.r - dy * dy).max(0.0).sqrt();
        let x0 = floor_i32(disc.rel.x - half).clamp(0, max_x) as usize;
        let x1 = floor_i32(disc.rel.x + half).clamp(0, max_x) as usize;
        let row = cy as usize * self.cols as usize;
        let start = self.cell_start[row + x0] as usize;
        let end = self.cell_start[row + x1 + 1] as usize;
        (start..end, dy)
    }

    /// Calls `visit(agent_index, position)` for every agent in the cells overlapping the
    /// square around `center_world` of half-size `radius_m` (a superset of those within the
    /// radius), in a fixed order. Positions are those given to the last [`Self::rebuild`].
    /// Past [`MAX_CANDIDATES`] (a pile), only that many are visited, rows nearest the
    /// centre first.
    pub fn for_each_candidate(
        &self,
        center_world: Vec2,
        radius_m: f32,
        visit: impl FnMut(u32, Vec2),
    ) {
        self.scan_square(center_world, radius_m, MAX_CANDIDATES, visit);
    }

    /// [`Self::for_each_candidate`] without the cap, for measures that must see every pair.
    pub fn for_each_candidate_uncapped(
        &self,
        center_world: Vec2,
        radius_m: f32,
        visit: impl FnMut(u32, Vec2),
    ) {
        self.scan_square(center_world, radius_m, usize::MAX, visit);
    }

    /// The square's rows top to bottom when they hold at most `cap` agents; otherwise `cap`
    /// of them, rows nearest the centre first.
    fn scan_square(
        &self,
        center_world: Vec2,
        radius_m: f32,
        cap: usize,
        mut visit: impl FnMut(u32, Vec2),
    ) {
        if self.cols == 0 || self.sorted.is_empty() {
            return;
        }
        let (x0, y0) = self.clamp_cell(center_world - Vec2::new(radius_m, radius_m));
        let (x1, y1) = self.clamp_cell(center_world + Vec2::new(radius_m, radius_m));
        // Cells of one row are contiguous in `sorted`, so a row is one slice.
        let row_slots = |cy: u32| {
            let row = (cy * self.cols) as usize;
            self.cell_start[row + x0 as usize] as usize
                ..self.cell_start[row + x1 as usize + 1] as usize
        };
        let mut visit_slots = |slots: std::ops::Range<usize>| {
            for (&i, &p) in self.sorted[slots.clone()]
                .iter()
                .zip(&self.sorted_pos[slots])
            {
                visit(i, p);
            }
        };
        let total: usize = (y0..=y1).map(|cy| row_slots(cy).len()).sum();
        if total <= cap {
            for cy in y0..=y1 {
                visit_slots(row_slots(cy));
            }
            return;
        }
        let (_, mid) = self.clamp_cell(center_world);
        let mut left = cap;
        for k in 0..=2 * (y1 - y0) {
            // mid, mid - 1, mid + 1, mid - 2, …, within y0..=y1.
            let step = (k as i64 + 1) / 2;
            let cy = if k % 2 == 1 {
                i64::from(mid) - step
            } else {
                i64::from(mid) + step
            };
            if cy < i64::from(y0) || cy > i64::from(y1) {
                continue;
            }
            let slots = row_slots(cy as u32);
            let slots = slots.start..slots.end.min(slots.start + left);
            left -= slots.len();
            visit_slots(slots);
            if left == 0 {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::rng::SplitMix64;

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

    #[test]
    fn disc_query_visits_every_agent_within_the_radius_once() {
        let mut rng = SplitMix64::new(12);
        // Far from the origin, so rounding of the cell coordinates is exercised too.
        let positions: Vec<Vec2> = (0..4000)
            .map(|_| Vec2::new(rng.range_f32(1500.0, 1700.0), rng.range_f32(900.0, 1000.0)))
            .collect();
        for cell in [0.7f32, 1.5, 3.0, 7.0] {
            let mut grid = SpatialGrid::default();
            grid.rebuild(&positions, cell);
            for q in 0..300 {
                // Centres on agents, and exactly on cell corners.
                let center = if q % 2 == 0 {
                    positions[q * 11]
                } else {
                    grid.origin_world + Vec2::new(q as f32, (q % 40) as f32) * grid.cell_size_m
                };
                let radius = rng.range_f32(0.2, 9.0);
                let mut found = Vec::new();
                grid.for_each_in_disc(center, radius, |i, p| {
                    assert_eq!(p, positions[i as usize]);
                    if (p - center).length_squared() <= radius * radius {
                        found.push(i);
                    }
                });
                let visited = found.len();
                found.sort_unstable();
                found.dedup();
                assert_eq!(found.len(), visited, "an agent visited twice");
                let expected: Vec<u32> = (0..positions.len() as u32)
                    .filter(|&i| {
                        (positions[i as usize] - center).length_squared() <= radius * radius
                    })
                    .collect();
                assert_eq!(
                    found, expected,
                    "cell {cell} centre {center:?} radius {radius}"
                );
            }
        }
    }

    /// The rows in memory order hold the same slots as the nearest-first walk, and are
    /// declined past the row count or the candidate cap (a pile).
    #[test]
    fn disc_rows_are_the_nearest_first_rows_in_memory_order_or_none() {
        let mut rng = SplitMix64::new(5);
        let positions: Vec<Vec2> = (0..3000)
            .map(|_| Vec2::new(rng.range_f32(100.0, 160.0), rng.range_f32(40.0, 90.0)))
            .collect();
        let mut grid = SpatialGrid::default();
        grid.rebuild(&positions, 1.0);
        let (mut taken, mut declined) = (0, 0);
        for q in 0..400 {
            let center = positions[q * 7];
            let radius = rng.range_f32(0.2, 5.0);
            let mut nearest_first = Vec::new();
            grid.for_each_slots_in_disc(center, radius, |slots, _| {
                nearest_first.extend(slots);
                ControlFlow::Continue(())
            });
            let mut rows = [(0, 0); 8];
            match grid.disc_rows(center, radius, &mut rows) {
                Some(count) => {
                    taken += 1;
                    let in_order: Vec<usize> =
                        rows[..count].iter().flat_map(|&(s, e)| s..e).collect();
                    assert!(in_order.is_sorted(), "rows in memory order");
                    nearest_first.sort_unstable();
                    assert_eq!(in_order, nearest_first, "centre {center:?} radius {radius}");
                }
                None => {
                    declined += 1;
                    assert!(radius > 3.0 || nearest_first.len() > MAX_CANDIDATES);
                }
            }
        }
        assert!(
            taken > 0 && declined > 0,
            "{taken} taken, {declined} declined"
        );
        let pile = vec![Vec2::new(5.0, 5.0); MAX_CANDIDATES + 1];
        grid.rebuild(&pile, 1.0);
        assert_eq!(
            grid.disc_rows(Vec2::new(5.0, 5.0), 1.0, &mut [(0, 0); 8]),
            None
        );
    }

    /// A pile (more agents within reach than discs can hold) costs each scan at most
    /// `MAX_CANDIDATES` visits, nearest rows first: an agent on the pile's row is seen,
    /// rows far off are not; an uncapped scan sees all.
    #[test]
    fn a_scan_of_a_pile_visits_at_most_the_cap_nearest_rows_first() {
        let mut positions = vec![Vec2::new(50.0, 50.0); 5000];
        positions.push(Vec2::new(50.5, 50.2)); // on the pile's row
        positions.push(Vec2::new(50.0, 55.0)); // five rows down
        positions.push(Vec2::new(0.0, 0.0)); // spreads the grid over 50 m
        let mut grid = SpatialGrid::default();
        grid.rebuild(&positions, 1.0);
        let mut seen = Vec::new();
        grid.for_each_candidate(Vec2::new(50.0, 50.0), 6.0, |i, _| seen.push(i));
        assert_eq!(seen.len(), MAX_CANDIDATES);
        let mut distinct = seen.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), seen.len(), "an agent visited twice");
        assert!(!seen.contains(&5001), "a far row comes after the cap");
        let mut all = 0;
        grid.for_each_candidate_uncapped(Vec2::new(50.0, 50.0), 6.0, |_, _| all += 1);
        assert_eq!(all, 5002);
        // Within the cap the order is top to bottom, as always: the row below comes last.
        let few = [
            Vec2::new(3.0, 3.0),
            Vec2::new(3.0, 1.0),
            Vec2::new(0.0, 0.0),
        ];
        grid.rebuild(&few, 1.0);
        let mut order = Vec::new();
        grid.for_each_candidate(Vec2::new(3.0, 2.0), 2.0, |i, _| order.push(i));
        assert_eq!(order, [1, 0]);
    }

    #[test]
    fn floor_i32_matches_floor() {
        let mut rng = SplitMix64::new(4);
        let specials = [
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999_999_8,
            -2.999_999_8,
            1e9,
            -1e9,
            3e9,
            -3e9,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ];
        let randoms = (0..100_000).map(|_| rng.range_f32(-5000.0, 5000.0));
        for x in specials.into_iter().chain(randoms) {
            assert_eq!(floor_i32(x), x.floor() as i32, "{x}");
        }
    }
}
