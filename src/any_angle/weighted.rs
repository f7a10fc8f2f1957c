//! The reference for cost fields: the cheapest path over a grid graph of cell centres whose
//! steps go in 48 directions (every `(dx, dy)` with no common divisor and
//! `max(|dx|, |dy|) ≤ 4`), each step's segment checked against walls by the rules of
//! [`super::geometry`] and priced by the cells it crosses, each cell's cost times the length
//! inside it. On a unit-cost grid it is within about 1 % of the any-angle optimum (the
//! directions are at most 7° apart), and it prices a route the same way
//! [`polyline_cost`] prices a traced one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::geometry::{Crossing, WallGrid, centre, walk_segment};

/// Cost of a wall cell (as the nav layer stores it).
pub const WALL: u8 = 255;

/// A cost field: row-major cost per cell, [`WALL`] for walls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostGrid {
    /// Width in cells.
    pub width: u32,
    /// Height in cells.
    pub height: u32,
    /// Row-major cost, 1 = clear, [`WALL`] = blocked.
    pub costs: Vec<u8>,
}

impl CostGrid {
    /// The cost of cell `(x, y)`; [`WALL`] off the map.
    #[must_use]
    pub fn cost(&self, x: i64, y: i64) -> u8 {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            WALL
        } else {
            self.costs[(y * i64::from(self.width) + x) as usize]
        }
    }

    /// The walls of this field.
    #[must_use]
    pub fn walls(&self) -> WallGrid {
        WallGrid::new(
            self.width,
            self.height,
            self.costs.iter().map(|&c| c == WALL).collect(),
        )
    }
}

/// The price of the straight segment between the centres of `a` and `b`: each crossed
/// cell's cost times the length inside it; `None` if it crosses a wall or squeezes between
/// two walls meeting at a corner.
#[must_use]
pub fn segment_cost(
    grid: &CostGrid,
    walls: &WallGrid,
    a: (u32, u32),
    b: (u32, u32),
) -> Option<f64> {
    half_segment_cost(grid, walls, centre(a), centre(b))
}

/// [`segment_cost`] between two points in half-cell units; a segment along an edge is
/// priced at the cheaper side.
fn half_segment_cost(
    grid: &CostGrid,
    walls: &WallGrid,
    a: (i64, i64),
    b: (i64, i64),
) -> Option<f64> {
    let mut total = 0.0;
    walk_segment(a, b, |c| match c {
        Crossing::Cell(x, y, len) => {
            let cost = grid.cost(x, y);
            total += f64::from(cost) * len;
            cost != WALL
        }
        Crossing::Edge(p, q, len) => {
            let cost = grid.cost(p.0, p.1).min(grid.cost(q.0, q.1));
            total += f64::from(cost) * len;
            cost != WALL
        }
        Crossing::Corner(x, y) => {
            let w = |dx, dy| walls.is_wall(x + dx, y + dy);
            !((w(-1, -1) && w(0, 0)) || (w(0, -1) && w(-1, 0)))
        }
    })
    .then_some(total)
}

/// The price of a route through the centres of `cells`, segment by segment (see
/// [`segment_cost`]); `None` if a segment is blocked.
#[must_use]
pub fn polyline_cost(grid: &CostGrid, cells: &[(u32, u32)]) -> Option<f64> {
    let walls = grid.walls();
    cells
        .windows(2)
        .map(|w| segment_cost(grid, &walls, w[0], w[1]))
        .sum()
}

/// The price of a route through `points` (cell units: a cell `(x, y)` spans
/// `[x, x + 1) × [y, y + 1)`, so centres end in .5 and corners are whole; each coordinate a
/// multiple of one half), each cell crossed priced by its cost times the length inside it,
/// along an edge at the cheaper side; `None` if a segment crosses a wall or squeezes between
/// two walls meeting at a corner.
#[must_use]
pub fn points_cost(grid: &CostGrid, points: &[(f64, f64)]) -> Option<f64> {
    let walls = grid.walls();
    let half = |p: (f64, f64)| ((p.0 * 2.0).round() as i64, (p.1 * 2.0).round() as i64);
    points
        .windows(2)
        .map(|w| half_segment_cost(grid, &walls, half(w[0]), half(w[1])))
        .sum()
}

/// The 48 step directions.
fn directions() -> Vec<(i64, i64)> {
    let gcd = |mut a: i64, mut b: i64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    };
    let mut v = Vec::new();
    for dy in -4_i64..=4 {
        for dx in -4_i64..=4 {
            if (dx, dy) != (0, 0) && gcd(dx, dy) == 1 {
                v.push((dx, dy));
            }
        }
    }
    v
}

/// The cheapest cost from the centre of `from` to the centre of `to` over the
/// fine-direction graph; `None` when either is a wall or no path exists.
///
/// A* with the straight-line distance times the field's cheapest cost as the heuristic: no
/// segment is priced below its length times that cost, so the heuristic is consistent and
/// the answer is Dijkstra's.
#[must_use]
pub fn fine_direction_cost(grid: &CostGrid, from: (u32, u32), to: (u32, u32)) -> Option<f64> {
    fine_direction_path(grid, from, to).map(|(cost, _)| cost)
}

/// [`fine_direction_cost`] with the path: its cost and the cells it steps through, `from`
/// first and `to` last.
#[must_use]
pub fn fine_direction_path(
    grid: &CostGrid,
    from: (u32, u32),
    to: (u32, u32),
) -> Option<(f64, Vec<(u32, u32)>)> {
    let walls = grid.walls();
    let (w, h) = (i64::from(grid.width), i64::from(grid.height));
    let at = |c: (u32, u32)| c.1 as usize * grid.width as usize + c.0 as usize;
    if grid.cost(i64::from(from.0), i64::from(from.1)) == WALL
        || grid.cost(i64::from(to.0), i64::from(to.1)) == WALL
    {
        return None;
    }
    let cheapest = f64::from(grid.costs.iter().copied().min().unwrap_or(1));
    let estimate = |c: (u32, u32)| {
        let (dx, dy) = (
            f64::from(c.0) - f64::from(to.0),
            f64::from(c.1) - f64::from(to.1),
        );
        // A hair under the bound, so float rounding never makes it overestimate.
        (dx * dx + dy * dy).sqrt() * cheapest * (1.0 - 1e-9)
    };
    let dirs = directions();
    let mut dist = vec![f64::INFINITY; grid.costs.len()];
    let mut done = vec![false; grid.costs.len()];
    let mut parent = vec![u32::MAX; grid.costs.len()];
    let mut heap = BinaryHeap::new();
    dist[at(from)] = 0.0;
    // Priorities as ordered integers (nanounits): exact enough, and no float ordering.
    let key = |f: f64| (f * 1e9) as u64;
    heap.push(Reverse((key(estimate(from)), from)));
    while let Some(Reverse((_, c))) = heap.pop() {
        if std::mem::replace(&mut done[at(c)], true) {
            continue;
        }
        let d = dist[at(c)];
        if c == to {
            let mut cells = vec![to];
            let mut i = at(to);
            while parent[i] != u32::MAX {
                i = parent[i] as usize;
                cells.push((
                    (i % grid.width as usize) as u32,
                    (i / grid.width as usize) as u32,
                ));
            }
            cells.reverse();
            return Some((d, cells));
        }
        for &(dx, dy) in &dirs {
            let (nx, ny) = (i64::from(c.0) + dx, i64::from(c.1) + dy);
            if nx < 0 || ny < 0 || nx >= w || ny >= h {
                continue;
            }
            let n = (nx as u32, ny as u32);
            if grid.cost(nx, ny) == WALL || done[at(n)] {
                continue;
            }
            let Some(step) = segment_cost(grid, &walls, c, n) else {
                continue;
            };
            let nd = d + step;
            if nd < dist[at(n)] - 1e-12 {
                dist[at(n)] = nd;
                parent[at(n)] = at(c) as u32;
                heap.push(Reverse((key(nd + estimate(n)), n)));
            }
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn field(rows: &[&str]) -> CostGrid {
        // '#' wall, '.' cost 1, digits cost 1..9 as written, 's' cost 20.
        let width = rows[0].len() as u32;
        let costs = rows
            .iter()
            .flat_map(|r| r.bytes())
            .map(|b| match b {
                b'#' => WALL,
                b'.' => 1,
                b's' => 20,
                d => d - b'0',
            })
            .collect();
        CostGrid {
            width,
            height: rows.len() as u32,
            costs,
        }
    }

    #[test]
    fn forty_eight_directions() {
        assert_eq!(directions().len(), 48);
    }

    #[test]
    fn a_segment_is_priced_by_the_length_in_each_cell() {
        // (0,0) to (2,0) through a cell of cost 5: half a cell of 1, one of 5, half of 1.
        let g = field(&[".5."]);
        let c = segment_cost(&g, &g.walls(), (0, 0), (2, 0)).unwrap();
        assert!((c - 6.0).abs() < 1e-12, "{c}");
    }

    #[test]
    fn open_ground_is_near_the_straight_line() {
        let g = field(&["..........."; 8]);
        let c = fine_direction_cost(&g, (0, 0), (10, 7)).unwrap();
        let straight = (100.0_f64 + 49.0).sqrt();
        assert!(
            c >= straight - 1e-9 && c < straight * 1.01,
            "{c} vs {straight}"
        );
    }

    #[test]
    fn an_expensive_band_is_crossed_where_it_is_thin() {
        // Going from row 0 to row 4 across a band of cost 9 (row 2): straight down costs
        // 0.5 + 1 + 9 + 1 + 0.5 = 12; no way round.
        let g = field(&[".....", ".....", "99999", ".....", "....."]);
        let c = fine_direction_cost(&g, (2, 0), (2, 4)).unwrap();
        assert!((c - 12.0).abs() < 1e-9, "{c}");
    }
}
