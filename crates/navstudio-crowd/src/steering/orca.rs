//! ORCA (RVO2) via `dodgy_2d`: the avoidance mode, and the contact rule of boids and
//! context steering (`orca_contacts`).

use std::borrow::Cow;

use crate::navigator::Navigator;
use crate::vec2::Vec2;

use super::{Neighbour, StepContext};

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// ORCA (RVO2) via `dodgy_2d`: the velocity closest to `preferred` that avoids the
    /// neighbours for `horizon_secs`. Each side of a pair takes avoidance in inverse
    /// proportion to its contact priority ([`crate::resolve::priority`]): heavier agents
    /// take less, and an idle or arrived ally, weighing a twentieth, gets out of a
    /// mover's way (The Maestros' pushing).
    pub(super) fn orca(
        &self,
        i: usize,
        slot: usize,
        neighbours: &[Neighbour],
        preferred: Vec2,
        horizon_secs: f32,
    ) -> Vec2 {
        let a = self.agents;
        let dt = self.config.step_secs;
        let to_glam = |v: Vec2| dodgy_2d::Vec2::new(v.x, v.y);
        let me = dodgy_2d::Agent {
            position: to_glam(a.pos_world[i]),
            velocity: to_glam(a.vel[i]),
            radius: a.radius_m[i],
            avoidance_responsibility: 1.0 / self.near[slot].priority.max(1e-9),
        };
        let others: Vec<Cow<'_, dodgy_2d::Agent>> = neighbours
            .iter()
            .filter_map(|n| {
                let nb = &self.near[n.slot as usize];
                let rel_pos = nb.pos_world - a.pos_world[i];
                let rel_vel = a.vel[i] - nb.vel;
                // dodgy_2d picks a random direction when these coincide; skip the case so
                // runs repeat (separation and the contact push still act).
                if n.dist_sq < 1e-8 || (rel_vel - rel_pos / dt).length_squared() < 1e-8 {
                    return None;
                }
                Some(Cow::Owned(dodgy_2d::Agent {
                    position: to_glam(nb.pos_world),
                    velocity: to_glam(nb.vel),
                    radius: nb.radius_m,
                    avoidance_responsibility: 1.0 / nb.priority.max(1e-9),
                }))
            })
            .collect();
        let options = dodgy_2d::AvoidanceOptions {
            obstacle_margin: 0.0,
            time_horizon: horizon_secs,
            obstacle_time_horizon: horizon_secs,
        };
        let out = me.compute_avoiding_velocity(
            &others,
            &[],
            to_glam(preferred),
            a.max_speed[i],
            dt,
            &options,
        );
        let out = Vec2::new(out.x, out.y);
        if out.is_finite() { out } else { Vec2::ZERO }
    }
}
