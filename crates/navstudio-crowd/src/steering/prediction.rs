//! Seed §001's predicted positions and collision states: an agent's next stretch of
//! movement checked against its neighbours' ([`crate::agents::Collision`]).

use crate::agents::Collision;
use crate::navigator::Navigator;
use crate::vec2::Vec2;

use super::{Neighbour, REMEMBER_SECS, StepContext};

/// A predicted collision is an overlap deeper than this share of the two radii: agents
/// walking in a packed group graze each other all the time, and that is no collision.
const PREDICTED_DEPTH_SHARE: f32 = 0.1;
/// The velocity an agent takes is checked this far ahead, the one its path asks for over
/// the avoidance horizon: an agent waiting in a press would run into the one ahead within
/// 1.5 s if nothing changed, but it is resolving that, step by step. `[Units: s]`
const TAKEN_HORIZON_SECS: f32 = 0.25;

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// The agent's collision state after a step in which its path asked for `wanted` and
    /// it took `taken`; `previous` is its state before the step.
    pub(super) fn collision_state(
        &self,
        i: usize,
        neighbours: &[Neighbour],
        wanted: Vec2,
        taken: Vec2,
        previous: Collision,
    ) -> Collision {
        let horizon = self.config.avoidance_horizon_secs;
        if self.predicts_collision(i, neighbours, wanted, horizon) {
            let within = TAKEN_HORIZON_SECS.min(horizon);
            return if self.predicts_collision(i, neighbours, taken, within) {
                Collision::Unresolved
            } else {
                Collision::Resolving
            };
        }
        let dt = self.config.step_secs;
        match previous {
            Collision::Unresolved | Collision::Resolving => Collision::Resolved {
                secs_left: REMEMBER_SECS,
            },
            // Half a step of slack, so 0.25 s is 15 steps at 60 Hz whatever the rounding.
            Collision::Resolved { secs_left } if secs_left - dt > 0.5 * dt => Collision::Resolved {
                secs_left: secs_left - dt,
            },
            _ => Collision::Clear,
        }
    }

    /// Whether the agent moving at `vel` and some neighbour at its own velocity would
    /// collide within `horizon_secs`: they close in, and at their nearest they overlap by
    /// more than [`PREDICTED_DEPTH_SHARE`] of their radii.
    fn predicts_collision(
        &self,
        i: usize,
        neighbours: &[Neighbour],
        vel: Vec2,
        horizon_secs: f32,
    ) -> bool {
        let a = self.agents;
        let p = a.pos_world[i];
        neighbours.iter().any(|n| {
            let nb = &self.near[n.slot as usize];
            let rel_pos = nb.pos_world - p;
            let closing = vel - nb.vel;
            let along = rel_pos.dot(closing);
            if along <= 0.0 {
                return false;
            }
            let reach = (a.radius_m[i] + nb.radius_m) * (1.0 - PREDICTED_DEPTH_SHARE);
            let t = (along / closing.length_squared().max(1e-12)).min(horizon_secs);
            (rel_pos - closing * t).length_squared() < reach * reach
        })
    }
}
