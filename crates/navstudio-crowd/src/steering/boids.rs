//! Boids (Fieldrunners 2): separation scaled by kinetic energy and the contact push,
//! side-step avoidance with remembered resolutions (Age of Empires), alignment and
//! cohesion.

use crate::agents::{AgentState, NO_ORDER, Resolution};
use crate::navigator::Navigator;
use crate::resolve;
use crate::vec2::Vec2;

use super::{NearAgent, Neighbour, Overlap, REMEMBER_SECS, StepContext, away_from_at};

/// Separation weighs a neighbour by its kinetic energy over the agent's, between these
/// bounds: a lighter or slower neighbour pushes less, a heavier or faster one more. For a
/// travelling agent a faster neighbour counts only by its mass: in a queue, a walker
/// catching up from behind kicked the slower one ahead sideways. A standing agent keeps
/// the full ratio, so movers still push it aside (The Maestros).
const SEPARATION_RATIO: (f32, f32) = (0.1, 10.0);

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// Separation: push away from overlapping neighbours (within the margin), scaled by their
    /// kinetic energy relative to ours; and the positional contact push out of actual
    /// overlaps, the lighter agent moving more (never farther than the disc radius in one
    /// step). One pass, so each distance and direction is computed once.
    pub(super) fn separation_and_push(
        &self,
        me: &NearAgent,
        neighbours: &[Neighbour],
    ) -> (Vec2, Vec2, Overlap) {
        let a = self.agents;
        let i = me.index as usize;
        let p = me.pos_world;
        let r = me.radius_m;
        let own = me.energy();
        let travelling = a.state[i].is_travelling();
        // In a jam, the one that goes first (queue order) does not keep clear of the one
        // behind it: the two stood touching, each separation balancing the other's flow.
        // (Not in separation alone, the crowd's floor, which has no contact rule either.)
        let jammed = !self.separation_only
            && self.config.avoidance == super::AvoidanceMode::Boids
            && a.state[i] == AgentState::Stuck
            && a.no_progress_secs[i] >= super::JAM_STUCK_TIMES * self.config.stuck_secs;
        let mut sum = Vec2::ZERO;
        let mut push = Vec2::ZERO;
        let mut overlap = Overlap::default();
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            let j = nb.index as usize;
            let min_dist = r + nb.radius_m + self.config.separation_margin_m;
            let touch = r + nb.radius_m;
            let separating = n.dist_sq < min_dist * min_dist;
            let touching = n.dist_sq < touch * touch;
            if !separating && !touching {
                continue;
            }
            let dist = n.dist_sq.sqrt();
            let away = away_from_at(p, nb.pos_world, n.dist_sq, i, j);
            if separating && !(jammed && self.queue_order(i, nb) == Some(false)) {
                // `energy / mass` is the speed term `|v|² + 0.25`.
                let energy = if travelling {
                    nb.energy().min(nb.mass * own / me.mass)
                } else {
                    nb.energy()
                };
                let ratio = (energy / own).clamp(SEPARATION_RATIO.0, SEPARATION_RATIO.1);
                sum += away * (a.max_force[i] * (1.0 - dist / min_dist) * ratio);
            }
            if touching {
                let depth = touch - dist;
                let (own_m, other_m) = (
                    resolve::contact_mass(me.mass),
                    resolve::contact_mass(nb.mass),
                );
                let share = other_m / (own_m + other_m);
                push += away * (depth * share * self.config.contact_relaxation);
                let fraction = depth / r.min(nb.radius_m);
                overlap.sum += fraction;
                overlap.count += 1;
                overlap.max = overlap.max.max(fraction);
            }
        }
        (sum, push.clamp_length(r), overlap)
    }

    /// Fieldrunners' side-step: a sideways force away from the neighbour it would hit first,
    /// and the resolution to remember. With `remember_resolutions`, the side chosen for a
    /// neighbour holds for [`REMEMBER_SECS`] while that neighbour stays the first threat
    /// (seed §001), instead of following the sign of a lateral offset that flips as the
    /// pair turns toward each other.
    pub(super) fn side_step(
        &self,
        i: usize,
        neighbours: &[Neighbour],
        desired: Vec2,
        memory: Resolution,
    ) -> (Vec2, Resolution) {
        let a = self.agents;
        let (p, v) = (a.pos_world[i], a.vel[i]);
        let forward = if v.length_squared() > 0.01 {
            v.normalize_or_zero()
        } else {
            desired.normalize_or_zero()
        };
        if forward == Vec2::ZERO {
            return (Vec2::ZERO, memory);
        }
        let horizon = self.config.avoidance_horizon_secs;
        let mut soonest: Option<(f32, Vec2, usize)> = None;
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            let j = nb.index as usize;
            let rel_pos = nb.pos_world - p;
            let rel_vel = nb.vel - v;
            let rv_sq = rel_vel.length_squared();
            if rv_sq < 1e-6 {
                continue;
            }
            let t = -rel_pos.dot(rel_vel) / rv_sq;
            if t <= 0.0 || t > horizon {
                continue;
            }
            let closest = rel_pos + rel_vel * t;
            let reach = a.radius_m[i] + nb.radius_m + self.config.separation_margin_m;
            if closest.length_squared() < reach * reach && soonest.is_none_or(|s| t < s.0) {
                soonest = Some((t, closest, j));
            }
        }
        let Some((t, closest, j)) = soonest else {
            return (Vec2::ZERO, memory);
        };
        let lateral = closest.dot(forward.perp());
        let fresh = if lateral.abs() > 1e-4 {
            -lateral.signum()
        } else if i < j {
            // Head-on: both pass on their own right-hand side.
            1.0
        } else {
            -1.0
        };
        let (side, resolution) = if memory.with == j as u32 && memory.secs_left > 0.0 {
            (memory.side, memory)
        } else {
            let secs_left = REMEMBER_SECS;
            (
                fresh,
                Resolution {
                    with: j as u32,
                    side: fresh,
                    secs_left,
                },
            )
        };
        (
            forward.perp() * (side * a.max_force[i] * (1.0 - t / horizon)),
            resolution,
        )
    }

    /// Alignment and cohesion forces with moving neighbours of the same order.
    pub(super) fn alignment_cohesion(&self, i: usize, neighbours: &[Neighbour]) -> (Vec2, Vec2) {
        let a = self.agents;
        let order = a.order[i];
        if order == NO_ORDER || a.state[i] != AgentState::Moving {
            return (Vec2::ZERO, Vec2::ZERO);
        }
        let (mut vel_sum, mut pos_sum, mut count) = (Vec2::ZERO, Vec2::ZERO, 0u32);
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            if nb.moving_order == order {
                vel_sum += nb.vel;
                pos_sum += nb.pos_world;
                count += 1;
            }
        }
        if count == 0 {
            return (Vec2::ZERO, Vec2::ZERO);
        }
        let inv = 1.0 / count as f32;
        let align = (vel_sum * inv - a.vel[i]) * (a.mass[i] / self.config.reaction_secs.max(1e-3));
        let cohere = (pos_sum * inv - a.pos_world[i]) * (a.max_force[i] / a.neighbour_radius_m[i]);
        (align, cohere)
    }
}
