//! The flow pass: turns an integration field into one `u8` per cell (see [`super::grid`] for
//! the bit layout) pointing at the cheapest of the 8 neighbours. Last stage of the integrator
//! pipeline, used by the flow permutations and by run-time goal fields.

use super::grid::{DIR_NONE, FLOW_LOS, FLOW_PATHABLE, WALL};
use super::integrate::{INT_LOS, IntegrationField, UNREACHED};

/// Orthogonal directions first, so an orthogonal move wins a tie against a diagonal one.
const SEARCH_ORDER: [u8; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// Writes the flow field of a `w × h` window into `out` (`w × h` long).
///
/// - walls: `DIR_NONE` without [`FLOW_PATHABLE`];
/// - goal cells listed in `exits` (`(cell, direction)`): pathable with that direction — the
///   direction across the border for a portal window, `DIR_NONE` for a final goal;
/// - unreached cells: pathable with `DIR_NONE`;
/// - every other cell: pathable, the direction to its cheapest neighbour among the 8 (a
///   diagonal only when both orthogonal cells beside it are passable, so no wall corner is
///   cut; ties go to orthogonal moves, then to the lower direction index), plus [`FLOW_LOS`]
///   when the integrator flagged line of sight.
///
/// The integrator's costs strictly fall along a cheapest 4-neighbour step, so following the
/// flow strictly lowers the cost and reaches a goal without cycles.
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
        .min(field.cost.len());
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
            let own = field.cost[i];
            if own == UNREACHED {
                out[i] = FLOW_PATHABLE | DIR_NONE;
                continue;
            }
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
            let mut best = own;
            let mut best_dir = DIR_NONE;
            for dir in SEARCH_ORDER {
                let j = around[dir as usize];
                if j != usize::MAX && field.cost[j] < best {
                    best = field.cost[j];
                    best_dir = dir;
                }
            }
            let los = if field.flags[i] & INT_LOS != 0 {
                FLOW_LOS
            } else {
                0
            };
            out[i] = FLOW_PATHABLE | los | best_dir;
        }
    }
    for &(cell, dir) in exits {
        if cell < n && costs[cell] != WALL {
            out[cell] = (out[cell] & FLOW_LOS) | FLOW_PATHABLE | (dir & 0x0F);
        }
    }
}
