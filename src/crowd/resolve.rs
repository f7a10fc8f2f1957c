//! Collision resolution between agents (Age of Empires' priority rules, The Maestros'
//! pushing): who yields, who waits and who pushes when two discs are about to touch.
//!
//! After steering, each agent's new velocity is checked against every neighbour it could
//! reach this step. The part of the closing speed that would make the discs overlap is
//! removed, shared by priority: a heavy unit keeps going and a light one gets out of its way;
//! a travelling agent pushes idle and arrived allies, which give way as if far lighter; an
//! agent following another slows to its pace instead of pressing into it. Every agent
//! computes its own share from the same snapshot, so the result does not depend on thread
//! count or order.

use super::agents::Agents;
use super::spatial::SpatialGrid;
use super::vec2::Vec2;

/// Stationary agents (idle or arrived) weigh this share of their mass when deciding who
/// gives way: travelling allies push them aside (The Maestros).
pub const STATIONARY_PRIORITY: f32 = 0.05;

/// A neighbour is assumed to keep this share of last step's velocity: every agent reads the
/// same snapshot, so a leader braking this step would otherwise be run into (the follower
/// closing at the leader's old speed is what packed crowds into doors).
const FOLLOW_SPEED_SHARE: f32 = 0.75;
/// A gap is closed over this many steps, not one: agents come up behind others smoothly
/// instead of stop-and-go.
const APPROACH_STEPS: f32 = 10.0;
/// Share of the blocked closing speed a head-on pair turns into a step to their right.
const SIDESTEP_SHARE: f32 = 0.5;
/// Passes over an agent's contacts.
const CONTACT_PASSES: usize = 2;
/// Share of an overlap one position pass removes (Jacobi passes overshoot at 1).
const PROJECTION_SHARE: f32 = 0.7;

/// Priority weight of an agent: its mass, much less while it stands (idle or arrived).
#[must_use]
pub fn priority(mass: f32, travelling: bool) -> f32 {
    if travelling {
        mass
    } else {
        mass * STATIONARY_PRIORITY
    }
}

/// A neighbour as the contact rule sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Contact {
    /// From the agent to the neighbour. `[Units: m]`
    pub offset: Vec2,
    /// The neighbour's velocity in the snapshot. `[Units: m/s]`
    pub vel: Vec2,
    /// Sum of both radii. `[Units: m]`
    pub reach_m: f32,
    /// The neighbour's [`priority`].
    pub priority: f32,
}

/// The gap beyond which a contact cannot constrain a velocity: no closing speed up to
/// `closing_max` exceeds what a gap this wide allows (head-on pairs may close it in one
/// step, followers over [`APPROACH_STEPS`]). `[Units: m]`
#[must_use]
pub fn contact_horizon(closing_max: f32, dt: f32) -> f32 {
    closing_max * dt * APPROACH_STEPS
}

/// The velocity `vel` with this agent's share of every contact's excess closing speed
/// removed: closing on a neighbour faster than the gap allows in `dt` would overlap them;
/// the agent takes `p_other / (p_own + p_other)` of the excess (the neighbour takes the rest
/// in its own update).
#[must_use]
pub fn constrain_contacts(vel: Vec2, own_priority: f32, contacts: &[Contact], dt: f32) -> Vec2 {
    let mut v = vel;
    // Removing the closing speed on one contact can add some on another: a second pass
    // settles most of it (Gauss–Seidel over the agent's own contacts).
    for _ in 0..CONTACT_PASSES {
        for c in contacts {
            // Head-on (the neighbour comes toward us) or following? Signs first: most
            // neighbours are not being closed on, and those need no square root.
            let head_on = c.vel.dot(c.offset) < 0.0;
            let rel = if head_on {
                v - c.vel
            } else {
                v - c.vel * FOLLOW_SPEED_SHARE
            };
            if rel.dot(c.offset) <= 0.0 {
                continue;
            }
            let dist_sq = c.offset.length_squared();
            if dist_sq < 1e-12 {
                continue;
            }
            let dist = dist_sq.sqrt();
            let n = c.offset / dist;
            let gap = (dist - c.reach_m).max(0.0);
            let closing = rel.dot(n);
            let allowed = if head_on {
                gap / dt
            } else {
                gap / (APPROACH_STEPS * dt)
            };
            let excess = closing - allowed;
            if excess > 0.0 {
                let share = c.priority / (own_priority + c.priority).max(1e-9);
                v -= n * (excess * share);
                // Head-on, both turn part of the blocked speed aside, each to its own right,
                // so they pass instead of pressing.
                if head_on {
                    v += n.perp() * (excess * share * SIDESTEP_SHARE);
                }
            }
        }
    }
    v
}

/// One position pass for agent `i`: the displacement that takes its share (by
/// [`priority`]) of [`PROJECTION_SHARE`] of every overlap away, from the positions as they
/// are (Jacobi: every agent of a pass reads the same positions), at most its radius.
/// `reach_m` is the agent's radius plus the largest one.
#[must_use]
pub fn overlap_correction(agents: &Agents, grid: &SpatialGrid, i: usize, reach_m: f32) -> Vec2 {
    let a = agents;
    let (p, r) = (a.pos_world[i], a.radius_m[i]);
    let own = priority(a.mass[i], a.state[i].is_travelling());
    let mut corr = Vec2::ZERO;
    grid.for_each_candidate(p, reach_m, |j, _| {
        let j = j as usize;
        if j == i {
            return;
        }
        let d = p - a.pos_world[j];
        let reach = r + a.radius_m[j];
        let d_sq = d.length_squared();
        if d_sq >= reach * reach {
            return;
        }
        let dist = d_sq.sqrt();
        let away = if dist > 1e-6 {
            d / dist
        } else {
            // Coincident: a fixed direction per pair, opposite for the two.
            let dir = Vec2::from_angle((i.min(j) * 7 + i.max(j)) as f32);
            if i < j { dir } else { -dir }
        };
        let other = priority(a.mass[j], a.state[j].is_travelling());
        let share = other / (own + other).max(1e-9);
        corr += away * ((reach - dist) * share * PROJECTION_SHARE);
    });
    corr.clamp_length(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand case: two equal agents 1 m apart (reach 0.8) closing at 2 m/s each, steps of
    /// 0.1 s. The neighbour counts at `FOLLOW_SPEED_SHARE` of its speed: closing 2 + 1.5 =
    /// 3.5 m/s; the 0.2 m gap allows 0.2 / (10 · 0.1) = 0.2 m/s; each takes half of the
    /// excess 3.3 → 2 − 1.65 = 0.35 m/s.
    #[test]
    fn equal_agents_split_the_excess() {
        let c = Contact {
            offset: Vec2::new(1.0, 0.0),
            vel: Vec2::new(-2.0, 0.0),
            reach_m: 0.8,
            priority: 80.0,
        };
        let v = constrain_contacts(Vec2::new(2.0, 0.0), 80.0, &[c], 0.1);
        assert!((v - Vec2::new(0.35, 0.0)).length() < 1e-5, "{v:?}");
    }

    /// A heavy agent barely yields to a stationary light one; the light one, seeing the
    /// heavy one come, takes almost all of it.
    #[test]
    fn heavy_movers_push_stationary_allies() {
        let heavy = priority(30_000.0, true);
        let light = priority(80.0, false);
        let to_light = Contact {
            offset: Vec2::new(2.0, 0.0),
            vel: Vec2::ZERO,
            reach_m: 1.6,
            priority: light,
        };
        let v = constrain_contacts(Vec2::new(6.0, 0.0), heavy, &[to_light], 1.0 / 60.0);
        assert!(v.x > 5.99, "the tank keeps its speed: {v:?}");
        let to_heavy = Contact {
            offset: Vec2::new(-2.0, 0.0),
            vel: Vec2::new(6.0, 0.0),
            reach_m: 1.6,
            priority: heavy,
        };
        // Closing 0.75 · 6 = 4.5 m/s, the 0.4 m gap allows 0.4 / (10/60) = 2.4 m/s: the
        // light one starts away at almost all of the excess 2.1 m/s …
        let w = constrain_contacts(Vec2::ZERO, light, &[to_heavy], 1.0 / 60.0);
        assert!((w.x - 2.1).abs() < 1e-3, "{w:?}");
        // … and touching, at nearly the 4.5 m/s it is closed at.
        let near = Contact {
            offset: Vec2::new(-1.6, 0.0),
            ..to_heavy
        };
        let w = constrain_contacts(Vec2::ZERO, light, &[near], 1.0 / 60.0);
        assert!(w.x > 4.49, "pushed ahead: {w:?}");
    }
}
