//! The flow pass: turns an integration field into one `u8` per cell (see [`super::grid`] for
//! the bit layout) pointing at the cheapest of the 8 neighbours. Last stage of the integrator
//! pipeline, used by the flow permutations and by run-time goal fields.

use super::grid::{DIR_NONE, DIRECTIONS, FLOW_LOS, FLOW_PATHABLE, WALL};
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
    let passable = |x: i32, y: i32| -> Option<usize> {
        if x < 0 || y < 0 || x >= w as i32 || y >= h as i32 {
            return None;
        }
        let i = y as usize * wu + x as usize;
        (i < n && costs[i] != WALL).then_some(i)
    };
    for i in 0..n {
        if costs[i] == WALL {
            out[i] = DIR_NONE;
            continue;
        }
        let own = field.cost[i];
        let mut flow = FLOW_PATHABLE | DIR_NONE;
        if own != UNREACHED {
            if field.flags[i] & INT_LOS != 0 {
                flow |= FLOW_LOS;
            }
            let (x, y) = ((i % wu) as i32, (i / wu) as i32);
            let mut best = own;
            let mut best_dir = DIR_NONE;
            for dir in SEARCH_ORDER {
                let (dx, dy) = DIRECTIONS[dir as usize];
                let Some(nb) = passable(x + dx, y + dy) else {
                    continue;
                };
                if dx != 0
                    && dy != 0
                    && (passable(x + dx, y).is_none() || passable(x, y + dy).is_none())
                {
                    continue;
                }
                if field.cost[nb] < best {
                    best = field.cost[nb];
                    best_dir = dir;
                }
            }
            flow = (flow & !0x0F) | best_dir;
        }
        out[i] = flow;
    }
    for &(cell, dir) in exits {
        if cell < n && costs[cell] != WALL {
            out[cell] = (out[cell] & FLOW_LOS) | FLOW_PATHABLE | (dir & 0x0F);
        }
    }
}
