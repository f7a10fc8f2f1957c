//! Segments against a grid of unit squares, exactly.
//!
//! The geometry every reference path here uses:
//! - cell `(x, y)` is the unit square `[x, x + 1] × [y, y + 1]`; a wall cell's square is
//!   solid, and everything outside the map is solid too (the border is a wall);
//! - a segment may run along a wall's edge and touch a wall's corner;
//! - it may not pass through a wall square's interior, run along an edge shared by two wall
//!   squares, or pass through a point where two wall squares meet only at a corner (no
//!   squeezing diagonally between them: units have a body).
//!
//! Points are given in doubled coordinates (`2 x`, `2 y`), so cell centres (`x + ½`) and
//! cell corners (integers) are both integers and every test below is exact.

/// A grid of walls: the map as the references read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WallGrid {
    /// Width in cells.
    pub width: u32,
    /// Height in cells.
    pub height: u32,
    /// Row-major: `true` for a wall cell.
    pub walls: Vec<bool>,
}

impl WallGrid {
    /// A grid of `width × height` with the given walls (row-major).
    ///
    /// # Panics
    /// If `walls.len() != width * height`.
    #[must_use]
    pub fn new(width: u32, height: u32, walls: Vec<bool>) -> Self {
        assert_eq!(walls.len(), width as usize * height as usize);
        Self {
            width,
            height,
            walls,
        }
    }

    /// Parses rows of `#` (wall) and `.` (free), one string per row: for hand-drawn tests.
    ///
    /// # Panics
    /// If the rows differ in length.
    #[must_use]
    pub fn from_rows(rows: &[&str]) -> Self {
        let width = rows.first().map_or(0, |r| r.len()) as u32;
        let mut walls = Vec::new();
        for r in rows {
            assert_eq!(r.len() as u32, width, "rows of one length");
            walls.extend(r.bytes().map(|b| b == b'#'));
        }
        Self::new(width, rows.len() as u32, walls)
    }

    /// Whether cell `(x, y)` is solid: a wall, or off the map.
    #[must_use]
    pub fn is_wall(&self, x: i64, y: i64) -> bool {
        x < 0
            || y < 0
            || x >= i64::from(self.width)
            || y >= i64::from(self.height)
            || self.walls[(y * i64::from(self.width) + x) as usize]
    }

    /// Whether the corner point `(x, y)` pinches: the two walls around it meet only there.
    fn pinches(&self, x: i64, y: i64) -> bool {
        let (nw, ne) = (self.is_wall(x - 1, y - 1), self.is_wall(x, y - 1));
        let (sw, se) = (self.is_wall(x - 1, y), self.is_wall(x, y));
        (nw && se && !ne && !sw) || (ne && sw && !nw && !se)
    }

    /// Whether the corner point `(x, y)` is a convex wall corner (exactly one of the four
    /// cells around it is solid): the only points where a shortest path bends. Returns the
    /// solid cell's quadrant as signs `(qx, qy)` (`+1`: the cell is on the side of larger
    /// coordinates).
    #[must_use]
    pub fn convex_corner(&self, x: i64, y: i64) -> Option<(i8, i8)> {
        let around = [
            (self.is_wall(x - 1, y - 1), (-1, -1)),
            (self.is_wall(x, y - 1), (1, -1)),
            (self.is_wall(x - 1, y), (-1, 1)),
            (self.is_wall(x, y), (1, 1)),
        ];
        let mut solid = around.iter().filter(|(w, _)| *w);
        let first = solid.next()?;
        solid.next().is_none().then_some(first.1)
    }
}

/// What a segment meets, in order from its start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crossing {
    /// A piece inside cell `(x, y)`, of this length (cell units).
    Cell(i64, i64, f64),
    /// A piece along the edge between two cells (either side), of this length.
    Edge((i64, i64), (i64, i64), f64),
    /// The segment passes through cell corner `(x, y)` (not at its ends).
    Corner(i64, i64),
}

/// Walks the segment from `p` to `q` (doubled coordinates) and calls `visit` with each
/// [`Crossing`] in order; stops early, returning `false`, when `visit` does.
pub fn walk_segment(p: (i64, i64), q: (i64, i64), mut visit: impl FnMut(Crossing) -> bool) -> bool {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let length = ((dx * dx + dy * dy) as f64).sqrt() / 2.0;
    if dx == 0 && dy == 0 {
        return true;
    }
    // Grid lines are the even doubled coordinates. The k-th line crossed along x sits at
    // parameter t = num / |dx|; along y at num / |dy|.
    let first_line = |from: i64, d: i64| -> i64 {
        // The first even value strictly beyond `from` in the direction of `d`.
        if d > 0 {
            (from.div_euclid(2) + 1) * 2
        } else {
            (from + 1).div_euclid(2) * 2 - 2
        }
    };
    let (sx, sy) = (dx.signum(), dy.signum());
    let (adx, ady) = (dx.abs(), dy.abs());
    // Next crossing numerators (distance in doubled units to the next line).
    let mut next_x = (dx != 0).then(|| (first_line(p.0, dx) - p.0).abs());
    let mut next_y = (dy != 0).then(|| (first_line(p.1, dy) - p.1).abs());
    // Events as t = (num, den) fractions; compare a/b < c/d as a*d < c*b.
    let mut t_prev = (0_i64, 1_i64);
    loop {
        let ex = next_x.filter(|&n| n < adx).map(|n| (n, adx));
        let ey = next_y.filter(|&n| n < ady).map(|n| (n, ady));
        let event = match (ex, ey) {
            (None, None) => None,
            (Some(a), None) => Some((a, true, false)),
            (None, Some(b)) => Some((b, false, true)),
            (Some(a), Some(b)) => {
                let c = (a.0 * b.1).cmp(&(b.0 * a.1));
                match c {
                    std::cmp::Ordering::Less => Some((a, true, false)),
                    std::cmp::Ordering::Greater => Some((b, false, true)),
                    std::cmp::Ordering::Equal => Some((a, true, true)),
                }
            }
        };
        let t_next = event.map_or((1, 1), |(t, _, _)| t);
        // The piece between t_prev and t_next.
        let t0 = t_prev.0 as f64 / t_prev.1 as f64;
        let t1 = t_next.0 as f64 / t_next.1 as f64;
        if t1 > t0 {
            let tm = 0.5 * (t0 + t1);
            let (mx, my) = (p.0 as f64 + dx as f64 * tm, p.1 as f64 + dy as f64 * tm);
            let len = length * (t1 - t0);
            let piece = if dx == 0 && p.0.rem_euclid(2) == 0 {
                let (x, y) = (p.0 / 2, (my / 2.0).floor() as i64);
                Crossing::Edge((x - 1, y), (x, y), len)
            } else if dy == 0 && p.1.rem_euclid(2) == 0 {
                let (x, y) = ((mx / 2.0).floor() as i64, p.1 / 2);
                Crossing::Edge((x, y - 1), (x, y), len)
            } else {
                Crossing::Cell((mx / 2.0).floor() as i64, (my / 2.0).floor() as i64, len)
            };
            if !visit(piece) {
                return false;
            }
        }
        let Some((t, on_x, on_y)) = event else {
            return true;
        };
        // The crossing point: a corner when both coordinates are on grid lines there.
        let at_x = p.0 + sx * t.0 * adx / t.1;
        let at_y = p.1 + sy * t.0 * ady / t.1;
        let x_on_line = on_x || (dx == 0 && p.0.rem_euclid(2) == 0);
        let y_on_line = on_y || (dy == 0 && p.1.rem_euclid(2) == 0);
        if x_on_line && y_on_line && !visit(Crossing::Corner(at_x / 2, at_y / 2)) {
            return false;
        }
        if on_x {
            next_x = next_x.map(|n| n + 2);
        }
        if on_y {
            next_y = next_y.map(|n| n + 2);
        }
        t_prev = t;
    }
}

/// Whether the segment from `p` to `q` (doubled coordinates) stays in free space by the
/// rules at the top of this module.
#[must_use]
pub fn segment_free(grid: &WallGrid, p: (i64, i64), q: (i64, i64)) -> bool {
    walk_segment(p, q, |c| match c {
        Crossing::Cell(x, y, _) => !grid.is_wall(x, y),
        Crossing::Edge(a, b, _) => !(grid.is_wall(a.0, a.1) && grid.is_wall(b.0, b.1)),
        Crossing::Corner(x, y) => !grid.pinches(x, y),
    })
}

/// Doubled coordinates of the centre of cell `c`.
#[must_use]
pub fn centre(c: (u32, u32)) -> (i64, i64) {
    (2 * i64::from(c.0) + 1, 2 * i64::from(c.1) + 1)
}

/// Euclidean distance between two doubled points, in cell units.
#[must_use]
pub fn distance(a: (i64, i64), b: (i64, i64)) -> f64 {
    let (dx, dy) = ((a.0 - b.0) as f64, (a.1 - b.1) as f64);
    (dx * dx + dy * dy).sqrt() / 2.0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn crossings(p: (i64, i64), q: (i64, i64)) -> Vec<Crossing> {
        let mut v = Vec::new();
        walk_segment(p, q, |c| {
            v.push(c);
            true
        });
        v
    }

    #[test]
    fn a_diagonal_through_a_corner_meets_the_corner_between_two_cells() {
        // Centre of (0,0) to centre of (1,1): half a diagonal in each cell, corner (1,1).
        let h = std::f64::consts::SQRT_2 / 2.0;
        let v = crossings((1, 1), (3, 3));
        assert_eq!(v.len(), 3, "{v:?}");
        assert!(matches!(v[0], Crossing::Cell(0, 0, l) if (l - h).abs() < 1e-12));
        assert_eq!(v[1], Crossing::Corner(1, 1));
        assert!(matches!(v[2], Crossing::Cell(1, 1, l) if (l - h).abs() < 1e-12));
    }

    #[test]
    fn lengths_add_up_to_the_segment() {
        for (p, q) in [
            ((1, 1), (9, 4)),
            ((7, 3), (0, 0)),
            ((2, 0), (2, 8)),
            ((0, 4), (9, 4)),
        ] {
            let total: f64 = crossings(p, q)
                .iter()
                .map(|c| match c {
                    Crossing::Cell(_, _, l) | Crossing::Edge(_, _, l) => *l,
                    Crossing::Corner(..) => 0.0,
                })
                .sum();
            assert!(
                (total - distance(p, q)).abs() < 1e-9,
                "{p:?}->{q:?}: {total}"
            );
        }
    }

    #[test]
    fn corners_may_be_touched_but_not_squeezed_through() {
        // Walls at (1,0) and (0,1) meet only at corner (1,1).
        let g = WallGrid::from_rows(&[".#.", "#..", "..."]);
        assert!(!segment_free(&g, centre((0, 0)), centre((1, 1))), "squeeze");
        // Touching the single wall corner (2,1) of (1,0) from (2,2)'s centre is fine.
        assert!(segment_free(&g, centre((2, 2)), (4, 2)));
        // Along the wall's right edge, x = 2 from y = 0 to 1: touching.
        assert!(segment_free(&g, (4, 0), (4, 2)));
        // Along the edge between the two walls' … there is none; along the border: touching.
        assert!(segment_free(&g, (6, 0), (6, 6)));
        // Through the wall (1,0).
        assert!(!segment_free(&g, centre((0, 0)), centre((2, 0))));
    }

    #[test]
    fn an_edge_between_two_walls_is_solid() {
        let g = WallGrid::from_rows(&["##", ".."]);
        assert!(!segment_free(&g, (2, 0), (2, 2)));
        assert!(segment_free(&g, (0, 2), (4, 2)));
    }

    #[test]
    fn convex_corners_have_one_solid_cell() {
        let g = WallGrid::from_rows(&["...", ".#.", "..."]);
        assert_eq!(g.convex_corner(1, 1), Some((1, 1)));
        assert_eq!(g.convex_corner(2, 2), Some((-1, -1)));
        assert_eq!(g.convex_corner(0, 1), None, "border: two solid cells");
        assert_eq!(g.convex_corner(0, 0), None, "map corner: three");
    }
}
