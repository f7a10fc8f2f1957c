//! The integrator: turns a rectangular window of costs into an integration field (the
//! cheapest cost from every cell to a goal set). Shared by the bake (flow permutations toward
//! every portal window) and the run time (a custom line-of-sight field in the goal sector).
//!
//! Two entry points:
//! - [`integrate_costs`]: the Eikonal cost pass alone — fast marching (Sethian) with the
//!   two-neighbour quadratic update, in `f32`, where a cell's cost-field value is its local
//!   slowness. On clear ground it approaches the Euclidean distance (a 4-neighbour flood gives
//!   the Manhattan distance: diamonds, and an 8-direction staircase in the flow); it is never
//!   more than the 4-neighbour flood and, for a point goal on clear ground, never less than
//!   the straight-line distance.
//! - [`integrate_with_los`]: the Supreme Commander 2 pipeline for a real goal: a
//!   line-of-sight flood first (exact Euclidean distances in the visible region), then the
//!   cost pass from the edge of the visible region.
//!
//! The field keeps both the `f32` distance (the flow pass takes its gradient) and the
//! distance rounded to a whole cost (the portal graph's weights, route costs and tools).
//!
//! Neither allocates once its [`IntegratorScratch`] and [`IntegrationField`] have grown to the
//! window size, so a worker thread keeps one of each and reuses them for every tile.

use super::grid::{CLEAR, WALL};

/// Integration flag: the cell sees the goal in a straight line (steer straight at it).
pub const INT_LOS: u8 = 0x01;
/// Integration flag: the line-of-sight flood reached this clear cell but the straight line to
/// the goal is blocked, so the cost pass integrates it instead ("flood blocked").
pub const INT_BLOCKED: u8 = 0x02;
/// Integration flag: the cell has been settled (its cost is final).
pub const INT_ACTIVE: u8 = 0x04;
/// Integration flag: the cell is a goal (seed) cell.
pub const INT_GOAL: u8 = 0x08;
/// Integrated cost of a cell the flood never reached (walls, other islands).
pub const UNREACHED: u32 = u32::MAX;

/// Integrated costs and flags of one rectangular window, row-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntegrationField {
    /// Window columns.
    pub width: u32,
    /// Window rows.
    pub height: u32,
    /// Cheapest cost to the goal set per cell, [`Self::dist`] rounded to a whole cost;
    /// [`UNREACHED`] where the flood never came.
    pub cost: Vec<u32>,
    /// The Eikonal distance to the goal set per cell (in cost units: a clear cell is 1 wide);
    /// infinite where the flood never came.
    pub dist: Vec<f32>,
    /// `INT_*` flags per cell.
    pub flags: Vec<u8>,
}

impl IntegrationField {
    /// An empty field; it grows on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Resizes to `width × height` and marks every cell unreached, without freeing memory.
    pub fn reset(&mut self, width: u32, height: u32) {
        let n = width as usize * height as usize;
        self.width = width;
        self.height = height;
        self.cost.clear();
        self.cost.resize(n, UNREACHED);
        self.dist.clear();
        self.dist.resize(n, f32::INFINITY);
        self.flags.clear();
        self.flags.resize(n, 0);
    }
}

/// Reusable working memory of the integrator (heap, seed list, flood queue).
#[derive(Debug, Default)]
pub struct IntegratorScratch {
    /// Fast marching's open cells, `distance as f32 bits << 32 | padded cell`: non-negative
    /// floats order as their bits do, and one `u64` compares faster than a pair.
    heap: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
    /// The cells the cost pass starts from.
    seeds: Vec<u32>,
    queue: Vec<u32>,
    /// The window's costs inside a border of walls (see [`run_fmm`]).
    pad_cost: Vec<u8>,
    /// Per padded cell its distance once known, infinity before.
    known: Vec<f32>,
    /// Per padded cell its distance so far.
    pad_dist: Vec<f32>,
    /// Per cell of the last [`integrate_with_los_set`] with several goals: the index of the
    /// goal whose LOS flood last tested it (`u32::MAX` where none came).
    owner: Vec<u32>,
}

impl IntegratorScratch {
    /// Empty scratch; it grows on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Per cell of the last [`integrate_with_los_set`] with two goals or more, the index of
    /// the goal an [`INT_LOS`] cell sees (meaningless for other cells); empty after one goal
    /// (every LOS cell sees that goal).
    #[must_use]
    pub fn los_owner(&self) -> &[u32] {
        &self.owner
    }
}

/// Integrates `costs` (a `w × h` row-major window, 255 = wall) from `seeds`
/// (`(cell index, start cost)`) by fast marching: the Eikonal distance where a cell's cost is
/// the time to cross it (see [`eikonal_update`]).
///
/// A seed cell's integrated cost is the lowest of its start costs (or lower, if a cheaper
/// path from another seed reaches it). Seeds on walls or outside the window are ignored; a
/// cost of 0 in the input is treated as 1, so every step strictly increases the cost.
/// Seed cells get [`INT_GOAL`], every reached cell [`INT_ACTIVE`].
pub fn integrate_costs(
    costs: &[u8],
    w: u32,
    h: u32,
    seeds: &[(usize, u32)],
    field: &mut IntegrationField,
    scratch: &mut IntegratorScratch,
) {
    field.reset(w, h);
    let n = full_rows(field.cost.len().min(costs.len()), w);
    scratch.seeds.clear();
    for &(cell, start) in seeds {
        if cell < n && costs[cell] != WALL && start != UNREACHED {
            // Start costs are whole costs, exact in f32 far beyond any window's reach.
            field.dist[cell] = field.dist[cell].min(start as f32);
            field.flags[cell] |= INT_GOAL;
            scratch.seeds.push(cell as u32);
        }
    }
    run_fmm(costs, w as usize, n, field, scratch);
    round_costs(field);
}

/// Integrates toward a single real goal cell with the line-of-sight pass first
/// (Supreme Commander 2, Game AI Pro ch. 23), on any rectangular window — e.g. the goal sector
/// plus its neighbours, so line of sight continues across sector borders.
///
/// 1. **LOS flood**: a 4-neighbour breadth-first flood from the goal through clear (cost 1)
///    cells. A cell joins the LOS region ([`INT_LOS`]) only if the straight segments from the
///    goal's centre to its centre and to its four corners touch clear cells alone, so the
///    goal is in sight from anywhere in the cell (see [`has_line_of_sight`]); a
///    clear cell that fails is marked [`INT_BLOCKED`] and the flood does not pass through it,
///    so the blocked cells form the shadow boundary behind every LOS corner. The stored cost of
///    an LOS cell is its straight-line distance to the goal (the goal is 0) — on clear ground
///    that is what the cost pass approaches, so costs stay continuous across the LOS border.
/// 2. **Cost pass**: fast marching from the LOS region's boundary cells (with their distances)
///    into every cell that is not LOS; LOS cells are never re-entered.
///
/// Where the SupCom2 text traces a Bresenham line from each LOS corner to mark the shadow,
/// this tests each flooded cell's segment exactly (a supercover walk), which is sound (an LOS
/// cell always has a clear line) at `O(cells × window diameter)` — small for the 3 × 3 sector
/// window of a run-time goal. The approximation is on the other side: a visible cell is
/// missed only when every 4-neighbour path to it through clear cells passes a non-visible
/// cell (thin diagonal slits); such a cell is integrated by the cost pass instead.
/// A goal on a wall or outside the window leaves the field unreached.
pub fn integrate_with_los(
    costs: &[u8],
    w: u32,
    h: u32,
    goal: usize,
    field: &mut IntegrationField,
    scratch: &mut IntegratorScratch,
) {
    integrate_with_los_set(costs, w, h, &[goal], field, scratch);
}

/// [`integrate_with_los`] toward the nearest of several goal cells (a goal set, SEEDS §002):
/// the LOS flood starts from every goal at once, breadth-first, and a cell joins the LOS
/// region of the first goal whose flood reaches it and that it sees; a cell blocked from one
/// goal may still be claimed by another's flood. [`IntegratorScratch::los_owner`] then names,
/// per cell, the index into `goals` of the goal its line of sight refers to (filled only for
/// two goals or more). The cost pass runs from the edge of the union of those regions, so
/// every cell gets its cost to the nearest goal. One goal gives exactly
/// [`integrate_with_los`]. Goals on walls, outside the window or repeated are skipped.
pub fn integrate_with_los_set(
    costs: &[u8],
    w: u32,
    h: u32,
    goals: &[usize],
    field: &mut IntegrationField,
    scratch: &mut IntegratorScratch,
) {
    field.reset(w, h);
    let n = full_rows(field.cost.len().min(costs.len()), w);
    let multi = goals.len() > 1;
    scratch.owner.clear();
    if multi {
        scratch.owner.resize(n, u32::MAX);
    }
    let wu = w as usize;
    let hu = n / wu.max(1);
    scratch.queue.clear();
    for (k, &goal) in goals.iter().enumerate() {
        if goal >= n || costs[goal] == WALL || field.flags[goal] & INT_GOAL != 0 {
            continue;
        }
        field.dist[goal] = 0.0;
        field.flags[goal] = INT_LOS | INT_GOAL;
        if multi {
            scratch.owner[goal] = k as u32;
        }
        scratch.queue.push(goal as u32);
    }
    if scratch.queue.is_empty() {
        return;
    }
    let xy = |c: usize| ((c % wu) as i32, (c / wu) as i32);

    // LOS flood, breadth-first; a cell's distance is its straight line to the goal it sees.
    let mut head = 0;
    while head < scratch.queue.len() {
        let c = scratch.queue[head] as usize;
        head += 1;
        let k = if multi { scratch.owner[c] } else { 0 };
        let goal_xy = xy(goals[k as usize]);
        let (x, y) = (c % wu, c / wu);
        for nb in neighbours4(x, y, wu, hu) {
            if nb == usize::MAX || costs[nb] != CLEAR || field.flags[nb] & INT_LOS != 0 {
                continue;
            }
            // Blocked from this goal already (with one goal: blocked for good).
            if field.flags[nb] & INT_BLOCKED != 0 && (!multi || scratch.owner[nb] == k) {
                continue;
            }
            if multi {
                scratch.owner[nb] = k;
            }
            if cell_sees(costs, w, h, goal_xy, xy(nb)) {
                field.flags[nb] = (field.flags[nb] & !INT_BLOCKED) | INT_LOS;
                let (gx, gy) = goal_xy;
                let (bx, by) = xy(nb);
                field.dist[nb] = (((bx - gx) * (bx - gx) + (by - gy) * (by - gy)) as f32).sqrt();
                scratch.queue.push(nb as u32);
            } else {
                field.flags[nb] |= INT_BLOCKED;
            }
        }
    }

    // Only LOS cells beside a passable non-LOS cell can relax anything.
    scratch.seeds.clear();
    for &c in &scratch.queue {
        let c = c as usize;
        let (x, y) = (c % wu, c / wu);
        let frontier = neighbours4(x, y, wu, hu)
            .into_iter()
            .any(|nb| nb != usize::MAX && costs[nb] != WALL && field.flags[nb] & INT_LOS == 0);
        if frontier {
            scratch.seeds.push(c as u32);
        }
    }
    run_fmm(costs, wu, n, field, scratch);
    round_costs(field);
    for c in &scratch.queue {
        field.flags[*c as usize] |= INT_ACTIVE;
    }
}

/// Whether the whole of cell `cell` sees the centre of cell `goal` (window coordinates) over
/// clear cells: see [`crate::los::cell_sees`].
fn cell_sees(costs: &[u8], w: u32, h: u32, goal: (i32, i32), cell: (i32, i32)) -> bool {
    let (wi, hi) = (i64::from(w), i64::from(h));
    let clear = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < wi
            && y < hi
            && costs.get((y * wi + x) as usize).copied() == Some(CLEAR)
    };
    crate::los::cell_sees(
        clear,
        (i64::from(goal.0), i64::from(goal.1)),
        (i64::from(cell.0), i64::from(cell.1)),
    )
}

/// Whether the straight segment between the centres of cells `from` and `to` (window
/// coordinates) touches only clear (cost 1) cells, `from` itself excepted. A segment passing
/// exactly through a cell corner counts both side cells as touched (no squeezing between two
/// diagonal walls). Cells outside the window count as blocked.
#[must_use]
pub fn has_line_of_sight(costs: &[u8], w: u32, h: u32, from: (i32, i32), to: (i32, i32)) -> bool {
    let (w, h) = (w as i32, h as i32);
    let clear = |x: i32, y: i32| -> bool {
        x >= 0
            && y >= 0
            && x < w
            && y < h
            && costs.get((y * w + x) as usize).copied() == Some(CLEAR)
    };
    segment_clear(
        (i64::from(from.0), i64::from(from.1)),
        (i64::from(to.0), i64::from(to.1)),
        |x, y, _| i32::try_from(x).is_ok_and(|x| i32::try_from(y).is_ok_and(|y| clear(x, y))),
    )
}

pub use crate::los::segment_clear;

/// The largest whole number of `w`-wide rows within `n` cells, as a cell count: a cost slice
/// shorter than the window is treated as a shorter window rather than read out of bounds.
fn full_rows(n: usize, w: u32) -> usize {
    if w == 0 {
        0
    } else {
        n / w as usize * w as usize
    }
}

/// The 4 neighbours N, E, S, W of `(x, y)` as indices, `usize::MAX` off the window.
#[inline]
fn neighbours4(x: usize, y: usize, w: usize, h: usize) -> [usize; 4] {
    let c = y * w + x;
    [
        if y > 0 { c - w } else { usize::MAX },
        if x + 1 < w { c + 1 } else { usize::MAX },
        if y + 1 < h { c + w } else { usize::MAX },
        if x > 0 { c - 1 } else { usize::MAX },
    ]
}

/// Fast marching from `scratch.seeds` (whose costs are already written into `field.dist`):
/// cells leave a binary heap cheapest first, and each accepted cell updates its 8 neighbours
/// with the two-neighbour Eikonal update over the neighbours already known ([`update_at`]).
/// Cells flagged [`INT_LOS`] are known from the start (their distance is exact) and never
/// updated; walls are never updated.
///
/// It runs on a copy of the window with a border of walls one cell wide, so no neighbour
/// needs a bounds check, and with `known` holding a cell's distance once it is known and
/// infinity before, so an update reads one array per neighbour.
fn run_fmm(
    costs: &[u8],
    w: usize,
    n: usize,
    field: &mut IntegrationField,
    scratch: &mut IntegratorScratch,
) {
    if n == 0 || scratch.seeds.is_empty() {
        return;
    }
    let IntegratorScratch {
        heap,
        seeds,
        pad_cost,
        known,
        pad_dist,
        ..
    } = scratch;
    let h = n / w;
    let pw = w + 2;
    let pn = pw * (h + 2);
    pad_cost.clear();
    pad_cost.resize(pn, WALL);
    known.clear();
    known.resize(pn, f32::INFINITY);
    pad_dist.clear();
    pad_dist.resize(pn, f32::INFINITY);
    for y in 0..h {
        let row = (y + 1) * pw + 1;
        for (to, &from) in pad_cost[row..row + w]
            .iter_mut()
            .zip(&costs[y * w..y * w + w])
        {
            *to = from.max(1);
        }
        pad_dist[row..row + w].copy_from_slice(&field.dist[y * w..y * w + w]);
        for x in 0..w {
            if field.flags[y * w + x] & INT_LOS != 0 {
                known[row + x] = field.dist[y * w + x];
            }
        }
    }
    heap.clear();
    // A cell listed twice is pushed twice; its second pop finds it done.
    for &cell in seeds.iter() {
        let c = cell as usize;
        let p = (c / w + 1) * pw + c % w + 1;
        heap.push(std::cmp::Reverse(key(field.dist[c], p)));
    }
    // A padded cell is done once its neighbours have been updated from it; a wall is never
    // pushed, so the border's cells serve as the "done" marks of nothing.
    while let Some(std::cmp::Reverse(k)) = heap.pop() {
        let (bits, p) = ((k >> 32) as u32, (k & u64::from(u32::MAX)) as usize);
        if pad_dist[p].to_bits() != bits || pad_cost[p] == DONE {
            continue;
        }
        known[p] = pad_dist[p];
        for off in [
            p - pw,
            p + 1,
            p + pw,
            p - 1,
            p - pw + 1,
            p + pw + 1,
            p + pw - 1,
            p - pw - 1,
        ] {
            if pad_cost[off] == WALL || pad_cost[off] == DONE || known[off] != f32::INFINITY {
                continue;
            }
            let t = update_at(pad_cost, known, pw, off);
            if t < pad_dist[off] {
                pad_dist[off] = t;
                heap.push(std::cmp::Reverse(key(t, off)));
            }
        }
        // Marked after the updates, which read the cell's own cost.
        pad_cost[p] = DONE;
    }
    for y in 0..h {
        let row = (y + 1) * pw + 1;
        for x in 0..w {
            let c = y * w + x;
            field.dist[c] = pad_dist[row + x];
            if pad_cost[row + x] == DONE {
                field.flags[c] |= INT_ACTIVE;
            }
        }
    }
}

/// A heap key: the distance's bits above the padded cell's index.
#[inline]
fn key(d: f32, p: usize) -> u64 {
    (u64::from(d.to_bits()) << 32) | p as u64
}

/// A padded cell's cost once fast marching is done with it (see [`run_fmm`]): a value no
/// cost is copied in as (0 is read as 1); [`update_at`] reads it
/// only as "not a wall", which a done cell is not.
const DONE: u8 = 0;

/// The multi-stencil fast marching update of padded cell `p` (see [`run_fmm`]) from its
/// known neighbours: the least of [`eikonal_update`] over the axis-aligned stencil (the
/// cheapest known neighbour along x and along y, one cell away) and over the diagonal stencil
/// (the cheapest known neighbour along each diagonal, √2 away). The diagonal stencil makes
/// the error on open ground a fraction of the axis stencil's alone, which is exact only along
/// the axes; a diagonal neighbour counts only when both cells beside the diagonal are
/// passable, so no distance leaks through a gap between two walls that touch at a corner.
#[inline]
fn update_at(cost: &[u8], known: &[f32], pw: usize, p: usize) -> f32 {
    let step = f32::from(cost[p].max(1));
    let tx = known[p - 1].min(known[p + 1]);
    let ty = known[p - pw].min(known[p + pw]);
    let axis = eikonal_update(tx, ty, step);
    let (n, e, s, w) = (
        cost[p - pw] != WALL,
        cost[p + 1] != WALL,
        cost[p + pw] != WALL,
        cost[p - 1] != WALL,
    );
    let diagonal = |ok: bool, q: usize| if ok { known[q] } else { f32::INFINITY };
    let d1 = diagonal(n && e, p - pw + 1).min(diagonal(s && w, p + pw - 1));
    let d2 = diagonal(s && e, p + pw + 1).min(diagonal(n && w, p - pw - 1));
    if d1.min(d2) >= axis {
        return axis;
    }
    axis.min(eikonal_update(d1, d2, std::f32::consts::SQRT_2 * step))
}

/// Writes every cell's whole cost from its distance.
fn round_costs(field: &mut IntegrationField) {
    for (cost, &d) in field.cost.iter_mut().zip(&field.dist) {
        *cost = rounded(d);
    }
}

/// The two-neighbour Eikonal update of fast marching: the `t` solving
/// `(t - tx)² + (t - ty)² = c²` with `t >= max(tx, ty)`, where `tx` and `ty` are the cheapest
/// known neighbours along x and y and `c` is the cell's cost (its slowness times the unit cell
/// width); where the two differ by `c` or more, or one is unknown (infinite), the one-sided
/// `min(tx, ty) + c`. Never more than the 4-neighbour step `min(tx, ty) + c`, never less than
/// `max(tx, ty)`.
#[inline]
#[must_use]
pub fn eikonal_update(tx: f32, ty: f32, c: f32) -> f32 {
    let (lo, hi) = if tx <= ty { (tx, ty) } else { (ty, tx) };
    let gap = hi - lo;
    if gap >= c {
        // Also catches an infinite `hi`.
        lo + c
    } else {
        0.5 * (lo + hi + (2.0 * c * c - gap * gap).sqrt())
    }
}

/// An integrated distance as the integer cost the graph and the tools use: rounded to the
/// nearest whole cost, [`UNREACHED`] for infinity.
#[inline]
fn rounded(d: f32) -> u32 {
    if d.is_finite() {
        // Saturating float-to-int cast; distances are far below u32::MAX - 1.
        (d.round() as u32).min(UNREACHED - 1)
    } else {
        UNREACHED
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn corridor_costs_add_up() {
        // 5 × 1 corridor, costs 1 3 1 2 1, goal at the left end with start cost 0.
        let costs = [1, 3, 1, 2, 1];
        let mut f = IntegrationField::new();
        let mut s = IntegratorScratch::new();
        integrate_costs(&costs, 5, 1, &[(0, 0)], &mut f, &mut s);
        assert_eq!(f.cost, vec![0, 3, 4, 6, 7]);
    }

    #[test]
    fn wall_splits_window() {
        let costs = [1, 255, 1];
        let mut f = IntegrationField::new();
        let mut s = IntegratorScratch::new();
        integrate_costs(&costs, 3, 1, &[(0, 0)], &mut f, &mut s);
        assert_eq!(f.cost, vec![0, UNREACHED, UNREACHED]);
    }

    #[test]
    fn los_stops_behind_a_wall() {
        // Goal at (0,1); a wall at (2,1) shadows (3,1) and (4,1) but not the other rows.
        #[rustfmt::skip]
        let costs = [
            1, 1, 1, 1, 1,
            1, 1, 255, 1, 1,
            1, 1, 1, 1, 1,
        ];
        let mut f = IntegrationField::new();
        let mut s = IntegratorScratch::new();
        integrate_with_los(&costs, 5, 3, 5, &mut f, &mut s);
        assert!(f.flags[6] & INT_LOS != 0);
        assert!(f.flags[8] & INT_LOS == 0);
        assert!(f.flags[9] & INT_LOS == 0);
        assert!(
            f.flags[1] & INT_LOS != 0,
            "(1,0) sees the goal over the wall"
        );
        assert!(
            f.flags[2] & INT_LOS == 0,
            "from (2,0)'s lower right corner the wall hides the goal"
        );
        assert!(f.flags[3] & INT_LOS == 0, "(3,0) grazes the wall's corner");
        // Behind the wall: longer than the straight line (3), no longer than the 4-neighbour
        // way round (5).
        assert!(f.dist[8] > 3.0 && f.dist[8] <= 5.0, "{}", f.dist[8]);
        assert_eq!(f.cost[8], f.dist[8].round() as u32);
    }
}
