//! Line of sight as the goal field's LOS pass and the run time share it: whether the whole
//! of a cell sees a goal cell's centre over clear cells. The goal field floods it over its
//! window; beyond the window the run time asks it a sector at a time ([`rect_sees`]) and per
//! cell (steering, [`crate::world::NavWorld::has_line_of_sight`]) or per point
//! ([`crate::world::NavWorld::trace_path`]), so line of sight carries across portal windows
//! as far as the goal is visible.

/// How far inside its cell's corners [`cell_sees`] tests: an agent anywhere in the cell but
/// the outermost sliver.
const CORNER_INSET: f64 = 1.0 / 64.0;

/// Whether the whole of cell `cell` sees the centre of cell `goal`: the segments from its
/// centre and from its corners (inset by 1/64 of a cell) touch only cells `clear` accepts
/// (the goal's own cell aside), so an agent steering straight at the goal from anywhere in
/// the cell — not only from its centre — clips no wall corner. From the centre a segment
/// through a cell corner needs both side cells ([`segment_clear`]).
pub fn cell_sees(clear: impl Fn(i64, i64) -> bool, goal: (i64, i64), cell: (i64, i64)) -> bool {
    if !segment_clear(goal, cell, |x, y, _| clear(x, y)) {
        return false;
    }
    let (gx, gy) = goal;
    let open = |x: i64, y: i64| (x, y) == (gx, gy) || clear(x, y);
    let target = (gx as f64 + 0.5, gy as f64 + 0.5);
    let (lo, hi) = (CORNER_INSET, 1.0 - CORNER_INSET);
    let corners = [(lo, lo), (hi, lo), (lo, hi), (hi, hi)]
        .map(|(ox, oy)| (cell.0 as f64 + ox, cell.1 as f64 + oy));
    // Only the two corners the cell's outline turns at, seen from the goal, matter: the
    // segments from them bound the hull of the cell and the goal, and no wall square fits
    // inside that hull without meeting one of them (the hull is nowhere wider, across the
    // line of sight, than a square).
    let (dx, dy) = ((gx - cell.0) as f64, (gy - cell.1) as f64);
    let side = |c: &(f64, f64)| dx * (c.1 - target.1) - dy * (c.0 - target.0);
    let by_side = |a: &&(f64, f64), b: &&(f64, f64)| side(a).total_cmp(&side(b));
    let (Some(left), Some(right)) = (
        corners.iter().min_by(by_side),
        corners.iter().max_by(by_side),
    ) else {
        return false;
    };
    segment_clear_f64(*left, target, open) && segment_clear_f64(*right, target, open)
}

/// A sufficient test for [`cell_sees`] from every cell of the rectangle `(x0, y0, w, h)` at
/// once: `true` only when every cell that touches the hull of the rectangle (its cells inset
/// as [`cell_sees`] insets them) and the goal's centre is one `clear` accepts, the goal's own
/// cell included. Every segment [`cell_sees`] walks from a cell of the rectangle lies in that
/// hull. One scan, row by row, of the cells the hull touches, stopping at the first that is
/// not clear: what lets the run time carry line of sight a sector at a time beyond the goal
/// field's window.
pub fn rect_sees(
    clear: impl Fn(i64, i64) -> bool,
    goal: (i64, i64),
    rect: (i64, i64, i64, i64),
) -> bool {
    let (x0, y0, w, h) = rect;
    if w <= 0 || h <= 0 {
        return false;
    }
    if !(y0..y0 + h).all(|y| (x0..x0 + w).all(|x| clear(x, y))) {
        return false; // the rectangle's own cells first: the cheapest refusal
    }
    let (lo, hi) = (CORNER_INSET, 1.0 - CORNER_INSET);
    let (ax, ay) = (x0 as f64 + lo, y0 as f64 + lo);
    let (bx, by) = ((x0 + w - 1) as f64 + hi, (y0 + h - 1) as f64 + hi);
    let points = [
        (ax, ay),
        (bx, ay),
        (ax, by),
        (bx, by),
        (goal.0 as f64 + 0.5, goal.1 as f64 + 0.5),
    ];
    let (ymin, ymax) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
    // A closed unit cell `i` meets the closed interval `[a, b]` when `a - 1 <= i <= b`.
    let first = |a: f64| (a - SLACK).ceil() as i64 - 1;
    let last = |b: f64| (b + SLACK).floor() as i64;
    // From the rectangle's side toward the goal: a cell that is not clear near the
    // rectangle ends the scan early (the answer does not depend on the order).
    let rows = first(ymin)..=last(ymax);
    let rows: Box<dyn Iterator<Item = i64>> = if goal.1 < y0 {
        Box::new(rows.rev())
    } else {
        Box::new(rows)
    };
    for row in rows {
        // The hull's extent across the closed band of the row: every hull edge joins two of
        // the points, so the segments between all pairs, clipped to the band, reach it.
        let (ya, yb) = (row as f64 - SLACK, row as f64 + 1.0 + SLACK);
        let (mut xa, mut xb) = (f64::INFINITY, f64::NEG_INFINITY);
        for (i, p) in points.iter().enumerate() {
            for q in &points[i..] {
                let dy = q.1 - p.1;
                let (t0, t1) = if dy.abs() < 1e-12 {
                    if p.1 < ya || p.1 > yb {
                        continue;
                    }
                    (0.0, 1.0)
                } else {
                    let (ta, tb) = ((ya - p.1) / dy, (yb - p.1) / dy);
                    (ta.min(tb).max(0.0), ta.max(tb).min(1.0))
                };
                if t0 > t1 {
                    continue;
                }
                for t in [t0, t1] {
                    let x = p.0 + (q.0 - p.0) * t;
                    (xa, xb) = (xa.min(x), xb.max(x));
                }
            }
        }
        if xa <= xb && !(first(xa)..=last(xb)).all(|x| clear(x, row)) {
            return false;
        }
    }
    true
}

/// Whether the straight segment from point `a` to point `b` (cell `(x, y)` spans
/// `[x, x + 1) × [y, y + 1)`) touches only cells `open` accepts, both ends' cells included.
/// Where it passes through a cell corner (within rounding), both side cells must be open.
fn segment_clear_f64(a: (f64, f64), b: (f64, f64), open: impl Fn(i64, i64) -> bool) -> bool {
    let (mut x, mut y) = (a.0.floor() as i64, a.1.floor() as i64);
    let (ex, ey) = (b.0.floor() as i64, b.1.floor() as i64);
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (sx, sy) = (if dx > 0.0 { 1 } else { -1 }, if dy > 0.0 { 1 } else { -1 });
    // Amanatides–Woo: the segment parameter at the next vertical and horizontal boundary.
    let next = |p: f64, c: i64, d: f64| {
        if d > 0.0 {
            ((c + 1) as f64 - p) / d
        } else if d < 0.0 {
            (c as f64 - p) / d
        } else {
            f64::INFINITY
        }
    };
    let (tdx, tdy) = (1.0 / dx.abs(), 1.0 / dy.abs());
    let (mut tx, mut ty) = (next(a.0, x, dx), next(a.1, y, dy));
    if !open(x, y) {
        return false;
    }
    let steps = (ex - x).abs() + (ey - y).abs();
    for _ in 0..steps {
        if (x, y) == (ex, ey) {
            break;
        }
        if (tx - ty).abs() < 1e-9 {
            if !open(x + sx, y) || !open(x, y + sy) {
                return false;
            }
            x += sx;
            y += sy;
            tx += tdx;
            ty += tdy;
        } else if tx < ty {
            x += sx;
            tx += tdx;
        } else {
            y += sy;
            ty += tdy;
        }
        if !open(x, y) {
            return false;
        }
    }
    true
}

/// Whether the straight segment between the centres of cells `from` and `to` touches only
/// cells `open` accepts (`from` itself excepted). A segment through a cell corner needs both
/// side cells (`open` is told which calls are such side cells), so it never squeezes between
/// two diagonal walls. Shared by the goal field's line of sight and the run time's flow
/// look-ahead.
pub fn segment_clear(
    from: (i64, i64),
    to: (i64, i64),
    mut open: impl FnMut(i64, i64, bool) -> bool,
) -> bool {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let (nx, ny) = (dx.abs(), dy.abs());
    let (sx, sy) = (dx.signum(), dy.signum());
    let (mut x, mut y) = from;
    let (mut ix, mut iy) = (0_i64, 0_i64);
    // Amanatides–Woo in integers: compare where the segment crosses the next vertical and the
    // next horizontal cell boundary, (2 ix + 1) / 2 nx against (2 iy + 1) / 2 ny.
    while ix < nx || iy < ny {
        let decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
        if decision == 0 {
            if !open(x + sx, y, true) || !open(x, y + sy, true) {
                return false;
            }
            x += sx;
            y += sy;
            ix += 1;
            iy += 1;
        } else if decision < 0 {
            x += sx;
            ix += 1;
        } else {
            y += sy;
            iy += 1;
        }
        if !open(x, y, false) {
            return false;
        }
    }
    true
}

/// Margin by which [`BlockedSums::hull_clear`] widens a piece's bounding box before it picks
/// the cells the piece touches: far wider than the segment walks' rounding (a tie within
/// `1e-9` of the segment's length), far narrower than a cell.
const SLACK: f64 = 1e-4;

/// Shortest piece of a line of sight, in cells along its longer axis, that
/// [`BlockedSums::hull_clear`] still splits before it gives up.
const FINEST_PIECE: f64 = 2.0;

/// A summed-area table of the cells that are not clear over a window and a border one cell
/// wide around it (the outside counts as not clear, as for [`cell_sees`]), so a rectangle of
/// cells is asked whether it is all clear in four look-ups.
#[derive(Debug, Default)]
pub struct BlockedSums {
    /// Columns of `sums`: the window's width plus the border and a zero column.
    stride: usize,
    /// `sums[py * stride + px]`: not-clear cells among padded cells left of `px` and above
    /// `py` (padded cell `(x + 1, y + 1)` is window cell `(x, y)`).
    sums: Vec<u32>,
}

impl BlockedSums {
    /// Rebuilds the table for a `w × h` window where `blocked(x, y)` says whether a cell is
    /// not clear.
    pub fn build(&mut self, w: usize, h: usize, blocked: impl Fn(usize, usize) -> bool) {
        let (pw, ph) = (w + 2, h + 2);
        self.stride = pw + 1;
        self.sums.clear();
        self.sums.resize(self.stride * (ph + 1), 0);
        for py in 0..ph {
            let mut row = 0;
            for px in 0..pw {
                let inside = (1..=w).contains(&px) && (1..=h).contains(&py);
                row += u32::from(!inside || blocked(px - 1, py - 1));
                let above = self.sums[py * self.stride + px + 1];
                self.sums[(py + 1) * self.stride + px + 1] = above + row;
            }
        }
    }

    /// Not-clear cells among window cells `x0..=x1` × `y0..=y1` (each from -1, the border,
    /// to the window's size, the other border).
    fn count(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> u32 {
        let at = |px: i64, py: i64| self.sums[py as usize * self.stride + px as usize];
        // Padded coordinates are window coordinates + 1; the table's index is one more.
        let (a0, b0, a1, b1) = (x0 + 1, y0 + 1, x1 + 2, y1 + 2);
        at(a1, b1) + at(a0, b0) - at(a0, b1) - at(a1, b0)
    }

    /// A sufficient test for [`cell_sees`] (window coordinates): `true` only when every cell
    /// that touches the hull of the inset cell and the goal's centre is clear, the goal's own
    /// cell included — then every segment [`cell_sees`] walks lies in that hull and meets
    /// only clear cells. The hull is covered by the bounding boxes of pieces of it, split in
    /// two while a box holds a cell that is not clear; `false` (ask [`cell_sees`]) once a
    /// piece `FINEST_PIECE` long still does. On open ground that is one look-up per cell
    /// instead of three segment walks.
    #[must_use]
    pub fn hull_clear(&self, goal: (i64, i64), cell: (i64, i64)) -> bool {
        if self.sums.is_empty() {
            return false;
        }
        let g = (goal.0 as f64 + 0.5, goal.1 as f64 + 0.5);
        let lo = (cell.0 as f64 + CORNER_INSET, cell.1 as f64 + CORNER_INSET);
        let hi = (
            cell.0 as f64 + 1.0 - CORNER_INSET,
            cell.1 as f64 + 1.0 - CORNER_INSET,
        );
        let span = (goal.0 - cell.0).abs().max((goal.1 - cell.1).abs()) as f64 + 1.0;
        self.piece_clear(g, lo, hi, span, 0.0, 1.0)
    }

    /// [`Self::hull_clear`] of the hull's points `p + t (g - p)` for `t` in `t0..=t1`.
    fn piece_clear(
        &self,
        g: (f64, f64),
        lo: (f64, f64),
        hi: (f64, f64),
        span: f64,
        t0: f64,
        t1: f64,
    ) -> bool {
        let at = |a: f64, b: f64, t: f64| a + (b - a) * t;
        let (xa, xb) = (
            at(lo.0, g.0, t0).min(at(lo.0, g.0, t1)),
            at(hi.0, g.0, t0).max(at(hi.0, g.0, t1)),
        );
        let (ya, yb) = (
            at(lo.1, g.1, t0).min(at(lo.1, g.1, t1)),
            at(hi.1, g.1, t0).max(at(hi.1, g.1, t1)),
        );
        // A closed unit cell `i` meets the closed interval `[a, b]` when `a - 1 <= i <= b`.
        let first = |a: f64| (a - SLACK).ceil() as i64 - 1;
        let last = |b: f64| (b + SLACK).floor() as i64;
        if self.count(first(xa), first(ya), last(xb), last(yb)) == 0 {
            return true;
        }
        if (t1 - t0) * span <= FINEST_PIECE {
            return false;
        }
        let mid = 0.5 * (t0 + t1);
        self.piece_clear(g, lo, hi, span, t0, mid) && self.piece_clear(g, lo, hi, span, mid, t1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64 as Rng;

    /// Random `w × h` grid: `true` = clear; walls as single cells and short bars.
    fn random_grid(rng: &mut Rng, w: usize, h: usize, per_mille: u32) -> Vec<bool> {
        let mut clear = vec![true; w * h];
        for i in 0..w * h {
            if rng.below(1000) < per_mille {
                clear[i] = false;
                if rng.below(4) == 0 {
                    let (x, y) = (i % w, i / w);
                    let len = rng.below(5) as usize;
                    for k in 0..len {
                        if rng.below(2) == 0 && x + k < w {
                            clear[y * w + x + k] = false;
                        } else if y + k < h {
                            clear[(y + k) * w + x] = false;
                        }
                    }
                }
            }
        }
        clear
    }

    /// `clear` (a `w`-wide grid) as a [`cell_sees`] predicate: off the grid is not clear.
    fn clear_at(clear: &[bool], w: usize, h: usize) -> impl Fn(i64, i64) -> bool + '_ {
        let (wi, hi) = (w as i64, h as i64);
        move |x, y| x >= 0 && y >= 0 && x < wi && y < hi && clear[(y * wi + x) as usize]
    }

    /// The hull test never says yes where [`cell_sees`] says no, for every clear cell and
    /// goal of random grids; and on a grid without walls it answers every cell itself.
    #[test]
    fn the_hull_test_only_accepts_cells_the_walks_accept() {
        let seed = 0x9e37_79b9_7f4a_7c15_u64;
        println!("seed {seed:#x}");
        let mut rng = Rng::new(seed);
        let mut sums = BlockedSums::default();
        let (mut accepted, mut seen) = (0_usize, 0_usize);
        for round in 0..60 {
            let (w, h) = (4 + rng.below(30) as usize, 4 + rng.below(30) as usize);
            let per_mille = [0, 5, 20, 60, 150][round % 5];
            let clear = random_grid(&mut rng, w, h, per_mille);
            let (wi, hi) = (w as i64, h as i64);
            let is_clear = clear_at(&clear, w, h);
            sums.build(w, h, |x, y| !clear[y * w + x]);
            for _ in 0..8 {
                let goal = (rng.below(w as u32) as i64, rng.below(h as u32) as i64);
                if !is_clear(goal.0, goal.1) {
                    continue;
                }
                for cy in 0..hi {
                    for cx in 0..wi {
                        if !is_clear(cx, cy) {
                            continue;
                        }
                        let fast = sums.hull_clear(goal, (cx, cy));
                        let exact = cell_sees(&is_clear, goal, (cx, cy));
                        assert!(
                            !fast || exact,
                            "seed {seed:#x} round {round}: {w}x{h}, goal {goal:?}, cell ({cx}, {cy}): hull says clear, walks say blocked"
                        );
                        if per_mille == 0 {
                            assert!(fast, "open {w}x{h}: goal {goal:?} cell ({cx}, {cy})");
                        }
                        accepted += usize::from(fast);
                        seen += usize::from(exact);
                    }
                }
            }
        }
        println!("hull test accepted {accepted} of {seen} cells that see their goal");
        assert!(
            accepted * 2 > seen,
            "the hull test should answer most visible cells"
        );
    }

    /// A rectangle's test against the walks from each of its cells: it never accepts a
    /// rectangle one of whose cells does not see the goal, accepts every rectangle on open
    /// ground, and accepts a rectangle whose cells all see the goal over ground with walls
    /// away from the line of sight.
    #[test]
    fn the_rectangle_test_only_accepts_rectangles_whose_cells_all_see() {
        let seed = 0x51de_5eed_u64;
        println!("seed {seed:#x}");
        let mut rng = Rng::new(seed);
        let (mut accepted, mut all_see) = (0_usize, 0_usize);
        for round in 0..200 {
            let (w, h) = (8 + rng.below(40) as usize, 8 + rng.below(40) as usize);
            let per_mille = [0, 2, 5, 20, 60][round % 5];
            let clear = random_grid(&mut rng, w, h, per_mille);
            let (wi, hi) = (w as i64, h as i64);
            let is_clear = clear_at(&clear, w, h);
            let goal = (rng.below(w as u32) as i64, rng.below(h as u32) as i64);
            let (rw, rh) = (1 + rng.below(8) as i64, 1 + rng.below(8) as i64);
            let (rx, ry) = (
                rng.below((wi - rw + 1) as u32) as i64,
                rng.below((hi - rh + 1) as u32) as i64,
            );
            let fast = rect_sees(&is_clear, goal, (rx, ry, rw, rh));
            let exact = (ry..ry + rh).all(|y| {
                (rx..rx + rw).all(|x| is_clear(x, y) && cell_sees(&is_clear, goal, (x, y)))
            });
            assert!(
                !fast || exact,
                "seed {seed:#x} round {round}: {w}x{h}, goal {goal:?}, rect ({rx}, {ry}, {rw}, {rh}): accepted, yet a cell does not see the goal"
            );
            if per_mille == 0 {
                assert!(
                    fast,
                    "open {w}x{h}: goal {goal:?}, rect ({rx}, {ry}, {rw}, {rh})"
                );
            }
            accepted += usize::from(fast);
            all_see += usize::from(exact);
        }
        println!("rectangle test accepted {accepted} of {all_see} rectangles whose cells all see");
        assert!(accepted * 10 >= all_see * 8, "{accepted} of {all_see}");
    }

    /// Hand-computed: a wall row right beside a rectangle (outside the hull of its inset
    /// cells) leaves it accepted; a wall cell on the way to the goal refuses it, and so does
    /// one the hull only grazes past the rectangle's corner.
    #[test]
    fn the_rectangle_test_on_hand_cases() {
        // 20 × 10, goal (15, 5), rectangle x 2..6, y 3..7.
        let grid = |walls: &[(i64, i64)]| {
            let walls = walls.to_vec();
            move |x: i64, y: i64| {
                (0..20).contains(&x) && (0..10).contains(&y) && !walls.contains(&(x, y))
            }
        };
        let (goal, rect) = ((15, 5), (2, 3, 4, 4));
        assert!(rect_sees(grid(&[]), goal, rect));
        // The row above the rectangle, left of it: outside the hull.
        let beside: Vec<_> = (0..6).map(|x| (x, 2)).collect();
        assert!(rect_sees(grid(&beside), goal, rect));
        // On the line of sight.
        assert!(!rect_sees(grid(&[(10, 5)]), goal, rect));
        // The hull's upper edge runs from (2 + 1/64, 3 + 1/64) to (15.5, 5.5): at x = 7 it is
        // at y ≈ 3.94, inside cell (7, 3).
        assert!(!rect_sees(grid(&[(7, 3)]), goal, rect));
        // At x = 7 the edge is above row 3's lower part only: row 2 is clear of it.
        assert!(rect_sees(grid(&[(7, 2)]), goal, rect));
        // The goal's own cell counts.
        assert!(!rect_sees(grid(&[goal]), goal, rect));
    }

    /// Hand-computed: a wall one cell off the straight line but inside the bounding box
    /// leaves the cell accepted; a wall the cell's hull grazes at a corner is refused by both.
    #[test]
    fn the_hull_test_on_hand_cases() {
        // 9 × 3, goal (8, 1), cell (0, 1): the hull spans y in [1 + 1/64, 2 - 1/64], so a
        // wall at (4, 0), inside the pair's bounding box dilated by a cell, is not touched.
        let mut clear = [true; 27];
        clear[4] = false;
        let is_clear =
            |x: i64, y: i64| x >= 0 && y >= 0 && x < 9 && y < 3 && clear[(y * 9 + x) as usize];
        let mut sums = BlockedSums::default();
        sums.build(9, 3, |x, y| !clear[y * 9 + x]);
        assert!(cell_sees(is_clear, (8, 1), (0, 1)));
        assert!(sums.hull_clear((8, 1), (0, 1)));
        // From (0, 2) to (8, 0) the line passes (4, 1)'s centre; a wall at (4, 1) blocks both.
        clear[4] = true;
        clear[13] = false;
        let is_clear =
            |x: i64, y: i64| x >= 0 && y >= 0 && x < 9 && y < 3 && clear[(y * 9 + x) as usize];
        sums.build(9, 3, |x, y| !clear[y * 9 + x]);
        assert!(!cell_sees(is_clear, (8, 0), (0, 2)));
        assert!(!sums.hull_clear((8, 0), (0, 2)));
    }
}
