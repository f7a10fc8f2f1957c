//! The flow pass: turns an integration field into one `u8` per cell (see [`super::grid`] for
//! the bit layout): a steering direction among 16, taken from the integration field's
//! gradient, and a cell step among 8 toward a neighbour with a lower integrated cost. Last
//! stage of the integrator pipeline, used by the flow permutations and by run-time goal
//! fields.

use super::grid::{
    DIR_NONE, DIRECTIONS, DIRECTIONS16, FLOW_FINE_CCW, FLOW_FINE_CW, FLOW_LOS, FLOW_PATHABLE, WALL,
};
use super::integrate::{INT_LOS, IntegrationField, UNREACHED};

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
    let target = (
        if vx < 0.0 { -dx } else { dx },
        if vy < 0.0 { -dy } else { dy },
    );
    DIRECTIONS16.iter().position(|&d| d == target).unwrap_or(0)
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
    for y in 0..hu {
        let row = y * wu;
        for x in 0..wu {
            let i = row + x;
            if costs[i] == WALL {
                out[i] = DIR_NONE;
                continue;
            }
            if field.cost[i] == UNREACHED {
                out[i] = FLOW_PATHABLE | DIR_NONE;
                continue;
            }
            let own = field.dist[i];
            // Index of each of the 8 neighbours (DIRECTIONS order), `usize::MAX` if off the
            // window or a wall; diagonals also need both orthogonal cells beside them.
            let (up, right, down, left) = (y > 0, x + 1 < wu, y + 1 < hu, x > 0);
            let open = |ok: bool, j: usize| {
                if ok && costs[j] != WALL {
                    j
                } else {
                    usize::MAX
                }
            };
            let n_ = open(up, i.wrapping_sub(wu));
            let e = open(right, i + 1);
            let s_ = open(down, i + wu);
            let w_ = open(left, i.wrapping_sub(1));
            let diag = |a: usize, b: usize, j: usize| {
                if a != usize::MAX && b != usize::MAX && costs[j] != WALL {
                    j
                } else {
                    usize::MAX
                }
            };
            let around = [
                n_,
                diag(n_, e, i.wrapping_sub(wu).wrapping_add(1)),
                e,
                diag(s_, e, i + wu + 1),
                s_,
                diag(s_, w_, (i + wu).wrapping_sub(1)),
                w_,
                diag(n_, w_, i.wrapping_sub(wu + 1)),
            ];
            let dist = |j: usize| {
                if j == usize::MAX {
                    f32::INFINITY
                } else {
                    field.dist[j]
                }
            };
            let los = if field.flags[i] & INT_LOS != 0 {
                FLOW_LOS
            } else {
                0
            };
            let byte = gradient_step(own, &around, &dist)
                .unwrap_or_else(|| cheapest_step(own, &around, &dist));
            out[i] = FLOW_PATHABLE | los | byte;
        }
    }
    for &(cell, dir) in exits {
        if cell < n && costs[cell] != WALL {
            out[cell] = (out[cell] & FLOW_LOS) | FLOW_PATHABLE | (dir & 0x0F);
        }
    }
}

/// The step and fine flag from the field's gradient (see [`flow_from_integration`]); `None`
/// when the gradient is flat or its step is blocked or not downhill.
fn gradient_step(own: f32, around: &[usize; 8], dist: &impl Fn(usize) -> f32) -> Option<u8> {
    // Upwind differences: along each axis, toward the cheaper neighbour if it is cheaper than
    // the cell, by how much cheaper.
    let axis = |neg: usize, pos: usize| {
        let (a, b) = (dist(neg), dist(pos));
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
        (own - dist(around[d])) / len
    };
    let step = if a != b && around[b] != usize::MAX && slope(b) > slope(a) {
        b
    } else {
        a
    };
    if around[step] == usize::MAX || dist(around[step]) >= own {
        return None;
    }
    let fine = if a == b || around[a] == usize::MAX || around[b] == usize::MAX {
        0
    } else if step == a {
        FLOW_FINE_CW
    } else {
        FLOW_FINE_CCW
    };
    Some(step as u8 | fine)
}

/// The step to the cheapest of the 8 open neighbours, if cheaper than the cell, else
/// [`DIR_NONE`].
fn cheapest_step(own: f32, around: &[usize; 8], dist: &impl Fn(usize) -> f32) -> u8 {
    let mut best = own;
    let mut best_dir = DIR_NONE;
    for dir in SEARCH_ORDER {
        let d = dist(around[dir as usize]);
        if d < best {
            best = d;
            best_dir = dir;
        }
    }
    debug_assert!(best_dir == DIR_NONE || usize::from(best_dir) < DIRECTIONS.len());
    best_dir
}
