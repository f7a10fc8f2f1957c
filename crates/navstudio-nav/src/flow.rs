//! The flow pass: turns an integration field into one `u8` per cell (see [`super::grid`] for
//! the bit layout): a steering direction among 16, taken from the integration field's
//! gradient, and a cell step among 8 toward a neighbour with a lower integrated cost. Last
//! stage of the integrator pipeline, used by the flow permutations and by run-time goal
//! fields.

use super::grid::{
    DIR_NONE, DIRECTIONS, DIRECTIONS16, FLOW_FINE_CCW, FLOW_FINE_CW, FLOW_LOS, FLOW_PATHABLE, WALL,
};
use super::integrate::{INT_LOS, IntegrationField};

/// Orthogonal directions first, so an orthogonal move wins a tie against a diagonal one.
const SEARCH_ORDER: [u8; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// The index of the direction of [`DIRECTIONS16`] nearest in angle to `(vx, vy)` (not both
/// zero). Within an octant the boundaries lie halfway between the axis (0°), the knight's
/// move (26.57°) and the diagonal (45°), at tangents √5 − 2 and 0.7208.
fn nearest16(vx: f32, vy: f32) -> usize {
    const AXIS_KNIGHT: f32 = 0.236_068; // tan(13.28°)
    const KNIGHT_DIAGONAL: f32 = 0.720_759; // tan(35.78°)
    let (ax, ay) = (vx.abs(), vy.abs());
    let (major, minor) = if ay <= ax { (ax, ay) } else { (ay, ax) };
    let (big, small) = if minor < AXIS_KNIGHT * major {
        (1, 0)
    } else if minor < KNIGHT_DIAGONAL * major {
        (2, 1)
    } else {
        (1, 1)
    };
    let (dx, dy) = if ay <= ax { (big, small) } else { (small, big) };
    let (tx, ty) = (
        if vx < 0.0 { -dx } else { dx },
        if vy < 0.0 { -dy } else { dy },
    );
    usize::from(INDEX16[((ty + 2) * 5 + tx + 2) as usize])
}

/// The index into [`DIRECTIONS16`] of each lattice vector `(dx, dy)` with both in `-2..=2`,
/// at `(dy + 2) * 5 + dx + 2` (0 for vectors not in the table).
const INDEX16: [u8; 25] = {
    let mut t = [0; 25];
    let mut k = 0;
    while k < DIRECTIONS16.len() {
        let (dx, dy) = DIRECTIONS16[k];
        t[((dy + 2) * 5 + dx + 2) as usize] = k as u8;
        k += 1;
    }
    t
};

thread_local! {
    /// [`flow_from_integration`]'s padded copy of the distances, kept per thread.
    static PADDED: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Writes the flow field of a `w × h` window into `out` (`w × h` long).
///
/// - walls: `DIR_NONE` without [`FLOW_PATHABLE`];
/// - goal cells listed in `exits` (`(cell, direction)`): pathable with that direction — the
///   direction across the border for a portal window, `DIR_NONE` for a final goal;
/// - unreached cells: pathable with `DIR_NONE`;
/// - every other cell: pathable, plus [`FLOW_LOS`] when the integrator flagged line of sight,
///   and a direction:
///   - the **steering direction**: the descent direction of the integration field at the
///     cell (upwind differences, the direction fast marching's update came from), rounded to
///     the nearest of [`DIRECTIONS16`];
///   - the **cell step** (the low 4 bits): that direction's neighbour if it is one of the 8,
///     else the one of the two neighbours a knight's move runs between that the field falls
///     to more steeply (drop per unit length), written with [`FLOW_FINE_CW`] or
///     [`FLOW_FINE_CCW`] to name the knight's move. The step must be passable and cheaper
///     than the cell; a knight's move is written only when *both* neighbours it runs between
///     are passable; a diagonal neighbour counts as passable only with both cells beside it.
///     So no direction enters a wall or cuts a wall corner at the cell's centre;
///   - where the gradient is flat or its step is blocked or not downhill: the step to the
///     cheapest of the 8 neighbours (ties go to orthogonal moves, then to the lower
///     direction index) and no fine flag.
///
/// Every step strictly lowers the integrated cost, so following the steps reaches a goal
/// without cycles.
pub fn flow_from_integration(
    costs: &[u8],
    w: u32,
    h: u32,
    field: &IntegrationField,
    exits: &[(usize, u8)],
    out: &mut [u8],
) {
    let (wu, hu) = (w as usize, h as usize);
    let n = (wu * hu)
        .min(out.len())
        .min(costs.len())
        .min(field.cost.len())
        .min(field.dist.len());
    let hu = n.checked_div(wu).unwrap_or(0);
    let n = wu * hu;
    // The window's distances inside a border of infinity, so no neighbour needs a bounds
    // check. A neighbour of a reached cell is reached exactly when it is passable (the
    // integrator reaches every passable 4-neighbour of a reached cell, and a diagonal one
    // with both cells beside it), so a finite distance doubles as "open".
    let pw = wu + 2;
    PADDED.with_borrow_mut(|dist| {
        dist.clear();
        dist.resize(pw * (hu + 2), f32::INFINITY);
        for y in 0..hu {
            let prow = (y + 1) * pw + 1;
            dist[prow..prow + wu].copy_from_slice(&field.dist[y * wu..y * wu + wu]);
        }
        for y in 0..hu {
            let rows = &dist[y * pw..(y + 3) * pw];
            let (up, rest) = rows.split_at(pw);
            let (mid, down) = rest.split_at(pw);
            let cells = up
                .windows(3)
                .zip(mid.windows(3))
                .zip(down.windows(3))
                .zip(&costs[y * wu..y * wu + wu])
                .zip(&field.flags[y * wu..y * wu + wu]);
            for (((((u, m), d), &cost), &flags), o) in cells.zip(&mut out[y * wu..y * wu + wu]) {
                let (&[nw, n_, ne], &[w_, own, e], &[sw, s_, se]) = (u, m, d) else {
                    continue;
                };
                if cost == WALL {
                    *o = DIR_NONE;
                    continue;
                }
                if own == f32::INFINITY {
                    *o = FLOW_PATHABLE | DIR_NONE;
                    continue;
                }
                // A diagonal neighbour counts only with both cells beside it open.
                let diagonal = |a: f32, b: f32, d: f32| {
                    if a < f32::INFINITY && b < f32::INFINITY {
                        d
                    } else {
                        f32::INFINITY
                    }
                };
                let around = [
                    n_,
                    diagonal(n_, e, ne),
                    e,
                    diagonal(s_, e, se),
                    s_,
                    diagonal(s_, w_, sw),
                    w_,
                    diagonal(n_, w_, nw),
                ];
                let los = if flags & INT_LOS != 0 { FLOW_LOS } else { 0 };
                let byte =
                    gradient_step(own, &around).unwrap_or_else(|| cheapest_step(own, &around));
                *o = FLOW_PATHABLE | los | byte;
            }
        }
    });
    for &(cell, dir) in exits {
        if cell < n && costs[cell] != WALL {
            out[cell] = (out[cell] & FLOW_LOS) | FLOW_PATHABLE | (dir & 0x0F);
        }
    }
}

/// The step and fine flag from the field's gradient (see [`flow_from_integration`]); `None`
/// when the gradient is flat or its step is blocked or not downhill. `around` are the 8
/// neighbours' distances (in [`DIRECTIONS`] order), infinite where not open.
#[inline(always)]
fn gradient_step(own: f32, around: &[f32; 8]) -> Option<u8> {
    let open = |d: usize| around[d] < f32::INFINITY;
    // Upwind differences: along each axis, toward the cheaper neighbour if it is cheaper than
    // the cell, by how much cheaper.
    let axis = |a: f32, b: f32| {
        if a < b && a < own {
            -(own - a)
        } else if b < a && b < own {
            own - b
        } else {
            0.0
        }
    };
    let vx = axis(around[6], around[2]);
    let vy = axis(around[0], around[4]);
    if vx == 0.0 && vy == 0.0 {
        return None;
    }
    let k = nearest16(vx, vy);
    // The neighbours the direction runs into: its own, or the two a knight's move runs
    // between; the step is the one of them the field falls to most steeply.
    let (a, b) = (k / 2, k.div_ceil(2) % 8);
    let slope = |d: usize| {
        let len = if d.is_multiple_of(2) {
            1.0
        } else {
            std::f32::consts::SQRT_2
        };
        (own - around[d]) / len
    };
    let step = if a != b && open(b) && slope(b) > slope(a) {
        b
    } else {
        a
    };
    if !open(step) || around[step] >= own {
        return None;
    }
    let fine = if a == b || !open(a) || !open(b) {
        0
    } else if step == a {
        FLOW_FINE_CW
    } else {
        FLOW_FINE_CCW
    };
    Some(step as u8 | fine)
}

/// The step to the cheapest of the 8 open neighbours (distances in `around`, infinite where
/// not open), if cheaper than the cell, else [`DIR_NONE`].
fn cheapest_step(own: f32, around: &[f32; 8]) -> u8 {
    let mut best = own;
    let mut best_dir = DIR_NONE;
    for dir in SEARCH_ORDER {
        let d = around[dir as usize];
        if d < best {
            best = d;
            best_dir = dir;
        }
    }
    debug_assert!(best_dir == DIR_NONE || usize::from(best_dir) < DIRECTIONS.len());
    best_dir
}
