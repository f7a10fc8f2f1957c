//! Line of sight as the goal field's LOS pass and the run time share it: whether the whole
//! of a cell sees a goal cell's centre over clear cells. The goal field floods it over its
//! window; beyond the window [`crate::world::NavWorld::trace_path`] asks it per point, so the
//! traced string's line of sight carries across portal windows as far as the goal is visible.

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
