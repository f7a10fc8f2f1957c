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
    /// The cells the cost pass starts from.
    seeds: Vec<u32>,
    queue: Vec<u32>,
    /// The window's costs inside a border of walls (see [`run_fmm`]).
    pad_cost: Vec<u8>,
    /// Per padded cell its distance so far.
    pad_dist: Vec<f32>,
    /// Per padded cell which of its diagonal neighbours count ([`diagonal_bits`]).
    diagonals: Vec<u8>,
    /// Per padded cell the key of the bucket it waits in, [`NOT_QUEUED`] if none.
    queued_at: Vec<u64>,
    /// Fast marching's bucket ring (see [`run_fmm`]): per bucket its last entry in
    /// `entries`, [`NO_ENTRY`] for none.
    heads: Vec<u32>,
    /// The ring's entries: a padded cell and the entry queued before it in the same bucket.
    entries: Vec<(u32, u32)>,
    /// One bit per bucket of the ring: whether it holds an entry.
    occupied: Vec<u64>,
    /// The seeds as `(distance, padded cell)`, cheapest first.
    seed_order: Vec<(f32, u32)>,
    /// Per cell of the last [`integrate_with_los_set`] with several goals: the index of the
    /// goal whose LOS flood last tested it (`u32::MAX` where none came).
    owner: Vec<u32>,
    /// The LOS flood's window of not-clear cells ([`crate::los::BlockedSums`]).
    blocked: crate::los::BlockedSums,
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
    scratch
        .blocked
        .build(wu, hu, |x, y| costs[y * wu + x] != CLEAR);

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
            // The hull test answers most cells in a few look-ups and never says yes where
            // the walks would say no; the walks settle the rest.
            let (bx, by) = xy(nb);
            let sees = scratch.blocked.hull_clear(
                (i64::from(goal_xy.0), i64::from(goal_xy.1)),
                (i64::from(bx), i64::from(by)),
            ) || cell_sees(costs, w, h, goal_xy, (bx, by));
            if sees {
                field.flags[nb] = (field.flags[nb] & !INT_BLOCKED) | INT_LOS;
                let (gx, gy) = goal_xy;
                field.dist[nb] = (((bx - gx) * (bx - gx) + (by - gy) * (by - gy)) as f32).sqrt();
                scratch.queue.push(nb as u32);
            } else {
                field.flags[nb] |= INT_BLOCKED;
            }
        }
    }

    // Only LOS cells beside a passable non-LOS cell can relax anything; beside along a
    // diagonal too, which the diagonal stencil reaches across.
    scratch.seeds.clear();
    for &c in &scratch.queue {
        let c = c as usize;
        let (x, y) = (c % wu, c / wu);
        let frontier = neighbours8(x, y, wu, hu)
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

/// Width of a bucket of fast marching's queue, in cost units (a clear cell is 1 wide), as
/// its inverse: keys are `distance × BUCKETS_PER_COST` rounded down.
const BUCKETS_PER_COST: f32 = 4.0;

/// A padded cell's cost when its distance is fixed before the marching starts (a
/// line-of-sight cell, see [`run_fmm`]): a value no cost is copied in as (0 is read as 1). It
/// is read as "not a wall" where a neighbour's diagonal is checked, which such a cell is not.
const FIXED: u8 = 0;

/// The 8 neighbours of `(x, y)` as indices, `usize::MAX` off the window.
#[inline]
fn neighbours8(x: usize, y: usize, w: usize, h: usize) -> [usize; 8] {
    let [n, e, s, wst] = neighbours4(x, y, w, h);
    let pair = |a: usize, b: usize, d: usize| {
        if a == usize::MAX || b == usize::MAX {
            usize::MAX
        } else {
            d
        }
    };
    let c = y * w + x;
    [
        n,
        e,
        s,
        wst,
        pair(n, e, c.wrapping_sub(w).wrapping_add(1)),
        pair(s, e, c.wrapping_add(w + 1)),
        pair(s, wst, c.wrapping_add(w).wrapping_sub(1)),
        pair(n, wst, c.wrapping_sub(w + 1)),
    ]
}

/// Fast marching from `scratch.seeds` (whose costs are already written into `field.dist`):
/// every cell gets the least of [`eikonal_update`] over two stencils of its neighbours'
/// distances: the axis-aligned one (the cheaper neighbour along x and along y, one cell away)
/// and the diagonal one (the cheaper neighbour along each diagonal, √2 away). The diagonal
/// stencil makes the error on open ground a fraction of the axis stencil's alone, which is
/// exact only along the axes; a diagonal neighbour counts only when both cells beside the
/// diagonal are passable, so no distance leaks through a gap between two walls that touch at
/// a corner. Cells flagged [`INT_LOS`] keep their distance (it is exact) and are never
/// updated; walls are never updated.
///
/// The queue is Dial's bucket queue over the distance quantised to
/// `1 / BUCKETS_PER_COST`, a ring of buckets as wide as the largest step a cell can add
/// (`√2 ×` the window's dearest cost) with a bitmap of the non-empty ones: no heap. Inside a
/// bucket cells leave in any order, so a cell can leave before a neighbour of the same bucket
/// that lowers it; it is then lowered and queued again (label correcting). When a cell
/// leaves, each neighbour's stencil that holds it is worked out whole from the current
/// distances, and distances only ever go down, so the result is the solution of the same
/// discrete equations exact fast marching solves (the integration tests compare it with a
/// sweeping solver); on random 10 × 10 tiles under 0.1 % of cells are queued again with
/// buckets a quarter of a clear cell wide.
///
/// It runs on a copy of the window inside a border of walls two cells wide (see [`march`]).
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
        seeds,
        pad_cost,
        pad_dist,
        diagonals,
        queued_at,
        heads,
        entries,
        occupied,
        seed_order,
        ..
    } = scratch;
    let h = n / w;
    let pw = w + 2 * BORDER;
    let pn = pw * (h + 2 * BORDER);
    // The padded arrays are at least as long as the size class `march` runs them at.
    let class = [256, 1024, 4096].into_iter().find(|&c| pn <= c);
    let len = class.unwrap_or(pn);
    let padded = |c: usize| (c / w + BORDER) * pw + c % w + BORDER;
    pad_cost.clear();
    pad_cost.resize(len, WALL);
    pad_dist.clear();
    pad_dist.resize(len, f32::INFINITY);
    queued_at.clear();
    queued_at.resize(len, NOT_QUEUED);
    let mut dearest = CLEAR;
    for y in 0..h {
        let row = padded(y * w);
        let flags = &field.flags[y * w..y * w + w];
        for ((to, &from), &f) in pad_cost[row..row + w]
            .iter_mut()
            .zip(&costs[y * w..y * w + w])
            .zip(flags)
        {
            let c = from.max(1);
            if c != WALL {
                dearest = dearest.max(c);
            }
            *to = if f & INT_LOS != 0 { FIXED } else { c };
        }
        pad_dist[row..row + w].copy_from_slice(&field.dist[y * w..y * w + w]);
    }
    diagonals.clear();
    diagonals.resize(len, 0);
    for y in 0..h {
        let row = padded(y * w);
        for (p, bits) in diagonals.iter_mut().enumerate().skip(row).take(w) {
            *bits = diagonal_bits(pad_cost, p, pw);
        }
    }
    // The ring holds every key from the current one to the current one plus the largest
    // step, √2 × the dearest cost (and one more for rounding).
    let span = (f32::from(dearest) * std::f32::consts::SQRT_2 * BUCKETS_PER_COST) as usize + 3;
    let ring = span.next_power_of_two().max(64);
    // Every run leaves its buckets empty and its bits clear.
    if heads.len() < ring {
        heads.resize(ring, NO_ENTRY);
    }
    entries.clear();
    occupied.clear();
    occupied.resize(ring / 64, 0);
    // Seeds enter the ring when the marching reaches their key: their distances may lie far
    // apart (start costs), farther than the ring reaches.
    seed_order.clear();
    seed_order.extend(
        seeds
            .iter()
            .map(|&cell| (field.dist[cell as usize], padded(cell as usize) as u32)),
    );
    seed_order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut q = Queue {
        heads: &mut heads[..ring],
        entries,
        occupied,
        queued: 0,
    };
    match class {
        Some(256) => march::<256>(
            pw, pad_cost, diagonals, pad_dist, queued_at, &mut q, seed_order,
        ),
        Some(1024) => march::<1024>(
            pw, pad_cost, diagonals, pad_dist, queued_at, &mut q, seed_order,
        ),
        Some(4096) => march::<4096>(
            pw, pad_cost, diagonals, pad_dist, queued_at, &mut q, seed_order,
        ),
        _ => march::<0>(
            pw, pad_cost, diagonals, pad_dist, queued_at, &mut q, seed_order,
        ),
    }
    for y in 0..h {
        let row = padded(y * w);
        for x in 0..w {
            let c = y * w + x;
            let d = pad_dist[row + x];
            field.dist[c] = d;
            if d.is_finite() {
                field.flags[c] |= INT_ACTIVE;
            }
        }
    }
}

/// Fast marching's bucket ring (see [`run_fmm`]).
///
/// Each bucket is a stack of entries linked through one shared list rather than a vector
/// of its own: a run touches hundreds of buckets, and their own vectors lay scattered over
/// the heap.
struct Queue<'a> {
    /// Per bucket its last entry in `entries` ([`NO_ENTRY`] for none); a power of two of
    /// them, key `k` in bucket `k & mask`.
    heads: &'a mut [u32],
    /// Every entry of the run so far: a padded cell and the entry below it in its bucket.
    entries: &'a mut Vec<(u32, u32)>,
    /// One bit per bucket: whether it holds an entry.
    occupied: &'a mut [u64],
    /// Entries in the ring.
    queued: usize,
}

impl Queue<'_> {
    /// Queues padded cell `q` at key `k` unless it waits there already.
    #[inline]
    fn push(&mut self, q: usize, k: usize, queued_at: &mut u64) {
        if *queued_at != k as u64 {
            *queued_at = k as u64;
            let mask = self.heads.len() - 1;
            let head = &mut self.heads[k & mask];
            self.entries.push((q as u32, *head));
            *head = (self.entries.len() - 1) as u32;
            self.occupied[(k & mask) / 64] |= 1 << (k & 63);
            self.queued += 1;
        }
    }

    /// Takes the padded cell queued last in bucket `b`.
    #[inline]
    fn pop(&mut self, b: usize) -> Option<usize> {
        let head = &mut self.heads[b];
        let &(q, below) = self.entries.get(*head as usize)?;
        *head = below;
        self.queued -= 1;
        Some(q as usize)
    }
}

/// [`Queue::heads`] of an empty bucket.
const NO_ENTRY: u32 = u32::MAX;

/// The key of a distance in fast marching's queue.
#[inline]
fn key_of(d: f32) -> usize {
    (d * BUCKETS_PER_COST) as i64 as usize
}

/// The less of two distances (no NaN comes here): one instruction, where `f32::min` also
/// sorts out NaN.
#[inline(always)]
fn least(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// Fast marching's loop over the padded window (see [`run_fmm`]). `N`, a power of two, is
/// a length the padded arrays have at least, and every index is taken modulo `N`: a no-op
/// (every index is inside the window's border), which lets the compiler drop the bounds
/// checks from the inner loop. `N = 0` is any size, with the checks.
fn march<const N: usize>(
    pw: usize,
    cost: &[u8],
    bits: &[u8],
    dist: &mut [f32],
    queued_at: &mut [u64],
    q: &mut Queue<'_>,
    seed_order: &[(f32, u32)],
) {
    let (cost, bits, dist, queued_at) = if N > 0 {
        (&cost[..N], &bits[..N], &mut dist[..N], &mut queued_at[..N])
    } else {
        (cost, bits, dist, queued_at)
    };
    let at = at::<N>;
    let mask = q.heads.len() - 1;
    let mut next_seed = 0;
    let Some(&(first, _)) = seed_order.first() else {
        return;
    };
    let mut cur = key_of(first);
    let (up, left) = (pw.wrapping_neg(), 1_usize.wrapping_neg());
    loop {
        // Seeds whose key has come (and that nothing lowered meanwhile).
        while let Some(&(d, p)) = seed_order.get(next_seed) {
            if key_of(d) > cur {
                break;
            }
            next_seed += 1;
            let p = at(p as usize);
            if dist[p] == d {
                q.push(p, cur, &mut queued_at[p]);
            }
        }
        while let Some(p) = q.pop(cur & mask) {
            let p = at(p);
            // Queued again at another key since (a lower one: done; a higher one: later).
            if queued_at[p] != cur as u64 {
                continue;
            }
            queued_at[p] = NOT_QUEUED;
            // The neighbours' stencils that hold `p`, whole and without branches (walls and
            // fixed cells step at infinity, a diagonal without both side cells is infinite).
            // No stencil of one neighbour reads another neighbour of `p` (an axis
            // neighbour's reads `p`'s diagonals, a diagonal's reads `p` and cells two away),
            // so all eight are worked out first, side by side, and then written: the same
            // values as one at a time, and the only branches left are over the neighbours
            // that came down.
            let mut lanes = Lanes::default();
            for (k, (along, across)) in [(up, 1), (pw, 1), (left, pw), (1, pw)]
                .into_iter()
                .enumerate()
            {
                let n = at(p.wrapping_add(along));
                lanes.n[k] = n;
                lanes.tx[k] = least(
                    dist[at(n.wrapping_sub(along))],
                    dist[at(n.wrapping_add(along))],
                );
                lanes.ty[k] = least(
                    dist[at(n.wrapping_sub(across))],
                    dist[at(n.wrapping_add(across))],
                );
                lanes.c[k] = STEP[usize::from(cost[n])];
            }
            for (k, ((a, b), [to_p, ahead, cross_a, cross_b])) in [
                ((up, left), [SE, NW, NE, SW]),
                ((up, 1), [SW, NE, NW, SE]),
                ((pw, left), [NE, SW, SE, NW]),
                ((pw, 1), [NW, SE, SW, NE]),
            ]
            .into_iter()
            .enumerate()
            {
                // `n`'s diagonal bits raise a diagonal neighbour's distance to infinity
                // unless both cells beside the diagonal are passable, by arithmetic rather
                // than a branch (which cells are walls does not repeat). `to_p`, `ahead`,
                // `cross_a`, `cross_b` name the diagonals toward `n - a - b` (which is `p`),
                // `n + a + b`, `n + a - b` and `n - a + b`.
                let n = at(p.wrapping_add(a).wrapping_add(b));
                let bits = bits[n];
                let via = |bit: u8, d: usize| {
                    let floor =
                        f32::from_bits(u32::from(bits & bit == 0) * f32::INFINITY.to_bits());
                    let d = dist[at(d)];
                    if d > floor { d } else { floor }
                };
                lanes.n[4 + k] = n;
                lanes.tx[4 + k] =
                    least(via(to_p, p), via(ahead, n.wrapping_add(a).wrapping_add(b)));
                lanes.ty[4 + k] = least(
                    via(cross_a, n.wrapping_add(a).wrapping_sub(b)),
                    via(cross_b, n.wrapping_sub(a).wrapping_add(b)),
                );
                lanes.c[4 + k] = DIAGONAL_STEP[usize::from(cost[n])];
            }
            let t: [f32; 8] =
                std::array::from_fn(|k| eikonal_branchless(lanes.tx[k], lanes.ty[k], lanes.c[k]));
            let mut came_down = 0_u32;
            for (k, (&n, &tk)) in lanes.n.iter().zip(&t).enumerate() {
                let old = dist[n];
                let lower = tk < old;
                dist[n] = if lower { tk } else { old };
                came_down |= u32::from(lower) << k;
            }
            while came_down != 0 {
                let k = came_down.trailing_zeros() as usize;
                came_down &= came_down - 1;
                let n = lanes.n[k];
                q.push(n, key_of(t[k]).max(cur), &mut queued_at[n]);
            }
        }
        q.occupied[(cur & mask) / 64] &= !(1 << (cur & 63));
        // The next key: the nearest non-empty bucket ahead, or the next seed's.
        let ahead = if q.queued > 0 {
            next_occupied(q.occupied, cur, mask)
        } else {
            usize::MAX
        };
        let seed_key = seed_order
            .get(next_seed)
            .map_or(usize::MAX, |&(d, _)| key_of(d));
        cur = ahead.min(seed_key);
        if cur == usize::MAX {
            break;
        }
    }
}

/// The eight neighbours of a cell leaving fast marching's queue (see [`march`]), side by
/// side: the neighbour, its stencil's cheaper neighbour along each axis (or diagonal), and
/// the step across it.
#[derive(Default)]
struct Lanes {
    n: [usize; 8],
    tx: [f32; 8],
    ty: [f32; 8],
    c: [f32; 8],
}

/// An index into [`march`]'s arrays of length at least `N`: modulo `N` (see there).
#[inline(always)]
fn at<const N: usize>(i: usize) -> usize {
    if N > 0 { i & (N - 1) } else { i }
}

/// Bits of [`IntegratorScratch::diagonals`]: the diagonal neighbour up-left, up-right,
/// down-left, down-right of a padded cell counts (both cells beside it are passable).
const NW: u8 = 1;
const NE: u8 = 2;
const SW: u8 = 4;
const SE: u8 = 8;

/// A padded cell's diagonal bits ([`NW`], [`NE`], [`SW`], [`SE`]) from its 4 neighbours.
#[inline]
fn diagonal_bits(cost: &[u8], p: usize, pw: usize) -> u8 {
    let (n, s) = (cost[p - pw] != WALL, cost[p + pw] != WALL);
    let (w, e) = (cost[p - 1] != WALL, cost[p + 1] != WALL);
    (u8::from(n & w) * NW)
        | (u8::from(n & e) * NE)
        | (u8::from(s & w) * SW)
        | (u8::from(s & e) * SE)
}

/// Border of walls around [`run_fmm`]'s copy of the window, in cells: two, so a neighbour's
/// neighbour is never out of bounds.
const BORDER: usize = 2;

/// [`IntegratorScratch::queued_at`] of a cell in no bucket.
const NOT_QUEUED: u64 = u64::MAX;

/// The step across a padded cell along an axis by its cost: infinite for walls and for
/// [`FIXED`] cells, which are never updated.
const STEP: [f32; 256] = step_table(1.0);
/// [`STEP`] along a diagonal (√2 ×).
const DIAGONAL_STEP: [f32; 256] = step_table(std::f32::consts::SQRT_2);

const fn step_table(scale: f32) -> [f32; 256] {
    let mut t = [f32::INFINITY; 256];
    let mut c = 1;
    while c < WALL as usize {
        t[c] = c as f32 * scale;
        c += 1;
    }
    t
}

/// [`eikonal_update`] without a branch, for fast marching's inner loop: the same value, and
/// infinity where both neighbours are (or the cost is) infinite.
#[inline(always)]
fn eikonal_branchless(tx: f32, ty: f32, c: f32) -> f32 {
    let (lo, hi) = if tx < ty { (tx, ty) } else { (ty, tx) };
    let gap = hi - lo;
    // NaN (both infinite) reads as 0 here, and the sum is infinite.
    let square = 2.0 * c * c - gap * gap;
    let root = if square > 0.0 { square.sqrt() } else { 0.0 };
    let quad = 0.5 * (lo + hi + root);
    if gap >= c { lo + c } else { quad }
}

/// The key of the nearest non-empty bucket after key `cur` in the ring (`mask + 1` buckets,
/// `occupied` one bit each, every queued key within one ring of `cur`), `usize::MAX` if none.
fn next_occupied(occupied: &[u64], cur: usize, mask: usize) -> usize {
    let ring = mask + 1;
    let words = occupied.len();
    let start = (cur + 1) & mask;
    let (mut wi, bit) = (start / 64, start % 64);
    let mut word = occupied[wi] & (u64::MAX << bit);
    for _ in 0..=words {
        if word != 0 {
            let slot = wi * 64 + word.trailing_zeros() as usize;
            return cur + 1 + ((slot + ring - start) & mask);
        }
        wi = (wi + 1) % words;
        word = occupied[wi];
    }
    usize::MAX
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
        // Half up, as `round` for a distance (never negative), without its libm call; in f64
        // so `+ 0.5` is exact. Saturating cast; distances are far below u32::MAX - 1.
        ((f64::from(d) + 0.5) as u32).min(UNREACHED - 1)
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
