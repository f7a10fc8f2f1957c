//! Passing a planned crossing (`simulation/crossings.rs`): an agent whose way leads
//! through its order's crossing disc turns to pass it keeping it on its left. The turn is
//! worked out at the agent's place in its group's centre line (its position less its lane
//! offset across the way), for a disc widened by half the group's width, so the whole group
//! turns alike and passes beside the disc abreast, where each member's own tangent would
//! funnel the group into one file along the disc's edge.

use crate::navigator::Navigator;
use crate::vec2::Vec2;

use super::StepContext;

/// An order's part in a crossing planned by the simulation: the disc its group passes
/// keeping it on its left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrossingPass {
    pub centre_world: Vec2,
    /// The disc's radius. `[Units: m]`
    pub radius_m: f32,
    /// Half the group's width across its way when the order was given. `[Units: m]`
    pub half_width_m: f32,
    /// The group's way at the crossing (unit): from its centre to its destination when the
    /// order was given.
    pub way: Vec2,
}

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// `dir` turned to pass agent `i`'s crossing keeping it on the left; `dir` itself when
    /// its order has none, its group's centre place has passed it, the way does not lead
    /// through it, or the agent has made no progress for the stuck time. `dist_m` is its
    /// distance to its goal.
    pub(super) fn round_crossing(&self, i: usize, dir: Vec2, dist_m: f32) -> Vec2 {
        let a = self.agents;
        let Some(c) = self
            .order_crossing
            .get(a.order[i] as usize)
            .copied()
            .flatten()
        else {
            return dir;
        };
        // An agent that got no nearer its goal for the stuck time is circling the disc (its
        // centre place held short of the centre by its lane offset, antipodes-163 of seed 1
        // in ORCA for 15 s): it walks its own way.
        if dir == Vec2::ZERO || a.no_progress_secs[i] >= self.config.stuck_secs {
            return dir;
        }
        // The lane offset across the group's way, fixed for the trip.
        let offset = a.goal_world[i]
            - self
                .destination(a.order[i], a.goal_world[i])
                .unwrap_or(a.goal_world[i]);
        let lateral = c.way.perp() * offset.dot(c.way.perp());
        let place = a.pos_world[i] - lateral;
        if (place - c.centre_world).dot(c.way) >= 0.0 {
            return dir;
        }
        // On a lane, the group's flank passes at the disc's edge; without, the agent.
        let radius = c.radius_m
            + if lateral == Vec2::ZERO {
                a.radius_m[i]
            } else {
                c.half_width_m
            };
        let to_centre = c.centre_world - place;
        let d = to_centre.length();
        if d < 1e-4 {
            return dir.perp();
        }
        let u = to_centre / d;
        if d <= radius {
            // Pushed inside: on, turned halfway to the way round, so it leaves forward into
            // the ring's turning (circling the disc's inner edge, a straggler of the circle
            // took 5 s more to leave).
            return (dir + u.perp()).normalize_or_zero();
        }
        let ahead = to_centre.dot(dir);
        if ahead <= 0.0 || ahead > dist_m + radius {
            return dir;
        }
        // Passing it on the left already, or clear of it.
        let across = to_centre.dot(dir.perp());
        if across <= -radius {
            return dir;
        }
        // The tangent that keeps the disc on the left: the way to the centre turned right.
        let s = radius / d;
        let c = (1.0 - s * s).max(0.0).sqrt();
        let tangent = u * c + u.perp() * s;
        // Never a sharper turn than the tangent's; a way already left of it is kept.
        if dir.dot(u.perp()) >= tangent.dot(u.perp()) {
            dir
        } else {
            tangent
        }
    }
}
