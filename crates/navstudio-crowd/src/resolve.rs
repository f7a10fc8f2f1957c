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
/// Share of an overlap one position pass removes (Jacobi passes overshoot at 1).
const PROJECTION_SHARE: f32 = 0.7;

/// The overlap depth past which a contact between radii `a` and `b` is hard
/// ([`HARD_CONTACT_SHARE`] of the smaller). `[Units: m]`
#[must_use]
pub fn hard_depth(a: f32, b: f32) -> f32 {
    HARD_CONTACT_SHARE * a.min(b)
}

/// A position pass's share of a hard overlap: at least half, so the heavy agent moves back
/// as far as the light one instead of leaving it all of it.
fn share_hard(share: f32) -> f32 {
    share.max(0.5)
}

/// Passes over an agent's contacts.
const CONTACT_PASSES: usize = 2;

/// The mass a contact weighs an agent by: its fourth root (tank : infantry 4.4 : 1, large
/// walker : infantry 5.2 : 1, where the masses are 375 : 1 and 750 : 1). A light agent can
/// only give way as fast as the agents around it let it: a tank that leaves an infantryman
/// all of their contact crushes it into the crowd beside it, while at the fourth root the
/// tank takes a fifth and slows down.
#[must_use]
pub fn contact_mass(mass: f32) -> f32 {
    mass.sqrt().sqrt()
}

/// Priority weight of an agent: its (contact) mass, much less while it stands (idle or
/// arrived).
#[must_use]
pub fn priority(mass: f32, travelling: bool) -> f32 {
    if travelling {
        mass
    } else {
        mass * STATIONARY_PRIORITY
    }
}

/// A standing agent overlapping a neighbour deeper than this share of the smaller
/// radius is being pressed into it (a settled crowd's overlaps stay below it: the random
/// benchmark's mean target is 5 %) and starts to weigh more; at [`HARD_CONTACT_SHARE`] it
/// weighs as much as a travelling agent ([`agent_priority`]).
pub const PRESSED_SHARE: f32 = 0.05;

/// Agent `i`'s priority weight ([`priority`] of its [`contact_mass`]). A standing agent
/// pressed into its neighbours ([`Agents::pressed`]) weighs more, from
/// [`STATIONARY_PRIORITY`] at [`PRESSED_SHARE`] up to a travelling agent's weight at
/// [`HARD_CONTACT_SHARE`]: travellers push a standing crowd aside (The Maestros) only as
/// far as it can give way. Where it cannot — a group arrived beyond a door, with the other
/// group pushing through it, or packed into a corridor's end — the pushed agents
/// otherwise took 95 % of every contact and were crushed into each other (overlaps of
/// 40–96 % of a radius between arrived agents in the random door family).
#[must_use]
pub fn agent_priority(a: &Agents, i: usize) -> f32 {
    pressed_priority(
        contact_mass(a.mass[i]),
        a.state[i].is_travelling(),
        // Agents built field by field (tests) may not track it: not pressed.
        a.pressed.get(i).copied().unwrap_or(0.0),
    )
}

/// How much more a travelling agent that has made no progress for `delayed_secs` weighs in
/// ORCA mode against another traveller where no rule ranks the two (no right of way, no
/// queue order): 1 with no delay, rising linearly to [`DELAYED_FACTOR`] at
/// [`DELAYED_RAMP_SECS`] (seed §001's priorities: who has waited longest goes first).
/// ORCA's velocities only: the position passes weigh by [`agent_priority`].
#[must_use]
pub fn delay_weight(delayed_secs: f32) -> f32 {
    1.0 + (DELAYED_FACTOR - 1.0) * (delayed_secs / DELAYED_RAMP_SECS).clamp(0.0, 1.0)
}

/// See [`delay_weight`]. In ORCA each side of a pair takes half of avoiding, so the
/// members of a big group streaming past an agent of another group carried it off with
/// them for seconds (random antipodes); weighed by their delays, the stream that makes
/// progress gives way to the agent it holds up. Agents that wait alike weigh alike.
pub const DELAYED_FACTOR: f32 = 8.0;
/// Time without progress over which [`DELAYED_FACTOR`] is reached. `[Units: s]`
pub const DELAYED_RAMP_SECS: f32 = 6.0;

/// [`priority`] of a (contact) mass, a standing agent's raised by how deep it is
/// `pressed` (share of the smaller radius): see [`agent_priority`].
#[must_use]
pub fn pressed_priority(mass: f32, travelling: bool, pressed: f32) -> f32 {
    if travelling {
        return mass;
    }
    let t = ((pressed - PRESSED_SHARE) / (HARD_CONTACT_SHARE - PRESSED_SHARE)).clamp(0.0, 1.0);
    mass * (STATIONARY_PRIORITY + (1.0 - STATIONARY_PRIORITY) * t)
}

/// Whether agent `i` started the step overlapping a neighbour deeper than
/// [`HARD_CONTACT_SHARE`] ([`Agents::pressed`]): squeezed between others, it cannot give
/// way to one more.
#[must_use]
pub fn squeezed(a: &Agents, i: usize) -> bool {
    a.pressed.get(i).is_some_and(|&d| d > HARD_CONTACT_SHARE)
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
    /// Overlap depth past which the agent takes the whole contact whatever the priorities
    /// (`hard_contacts`: [`HARD_CONTACT_SHARE`] of the smaller radius); infinite without.
    /// `[Units: m]`
    pub hard_depth_m: f32,
}

/// With `hard_contacts`, an overlap deeper than this share of the smaller radius is no
/// longer shared by priority: the agent closing on it takes all of it, the heavy one too.
pub const HARD_CONTACT_SHARE: f32 = 0.2;

/// The gap beyond which a contact cannot constrain a velocity: no closing speed up to
/// `closing_max` exceeds what a gap this wide allows (head-on pairs may close it in one
/// step, followers over `APPROACH_STEPS` steps). `[Units: m]`
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
    // settles most of it (Gauss–Seidel over the agent's own contacts). On a lone contact the
    // second pass takes its share of what is left again: each side ends up giving 3/4 of an
    // equal pair's excess, so pairs open slightly rather than stay pressed.
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
                let share = if c.reach_m - dist > c.hard_depth_m {
                    1.0
                } else {
                    c.priority / (own_priority + c.priority).max(1e-9)
                };
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
/// [`priority`]) of `PROJECTION_SHARE` of every overlap away, from the positions as they
/// are (Jacobi: every agent of a pass reads the same positions), at most its radius; and
/// its deepest overlap before the pass, as a share of the smaller radius.
/// `reach_m` is the agent's radius plus the largest one. `goes_first(j)`: `Some(true)` when
/// neighbour `j` goes before `i` (`i` then takes the whole overlap), `Some(false)` when `i`
/// goes first (it takes none of an overlap shallower than the hard depth), `None` to share
/// by priority.
#[must_use]
pub fn overlap_correction(
    agents: &Agents,
    grid: &SpatialGrid,
    i: usize,
    reach_m: f32,
    goes_first: impl Fn(usize) -> Option<bool>,
) -> (Vec2, f32) {
    let a = agents;
    let (p, r) = (a.pos_world[i], a.radius_m[i]);
    let own = agent_priority(a, i);
    let mut corr = Vec2::ZERO;
    let mut deepest = 0.0f32;
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
        let other = agent_priority(a, j);
        deepest = deepest.max((reach - dist) / r.min(a.radius_m[j]));
        let hard = reach - dist > hard_depth(r, a.radius_m[j]);
        let shared = other / (own + other).max(1e-9);
        let share = match goes_first(j) {
            Some(true) => 1.0,
            // Squeezed into others deeper than the hard share, it cannot give way: one
            // not squeezed itself takes all of their overlap (as in ORCA's half-planes).
            // The squeezed one still takes its share: kept in place, it held a queue
            // pressed into a pillar's corner at 36 % of a radius (34 % without the rule).
            _ if squeezed(a, j) && !squeezed(a, i) => 1.0,
            // Ahead, it keeps its place, but not past a hard overlap: the one behind may
            // be pinned against a wall (a queue pressed into a pillar's corner reached
            // 46 % of a radius).
            Some(false) if !hard => 0.0,
            _ if hard => share_hard(shared),
            _ => shared,
        };
        corr += away * ((reach - dist) * share * PROJECTION_SHARE);
    });
    (corr.clamp_length(r), deepest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand case, head-on: two equal agents 1 m apart (reach 0.8) closing at 2 m/s each,
    /// steps of 0.1 s. Closing 4 m/s, the 0.2 m gap allows 2 m/s in one step; the first pass
    /// takes half of the excess 2 off its speed (2 → 1 m/s) and turns half of that aside to
    /// its right (+0.5 m/s along +y); the second finds closing 3, excess 1: → 0.5 m/s
    /// ahead, +0.25 aside.
    #[test]
    fn head_on_agents_split_the_excess_and_step_right() {
        let c = Contact {
            offset: Vec2::new(1.0, 0.0),
            vel: Vec2::new(-2.0, 0.0),
            reach_m: 0.8,
            priority: 80.0,
            hard_depth_m: f32::INFINITY,
        };
        let v = constrain_contacts(Vec2::new(2.0, 0.0), 80.0, &[c], 0.1);
        assert!((v - Vec2::new(0.5, 0.75)).length() < 1e-5, "{v:?}");
    }

    /// Hand values of the pressed ramp for a mass of 2: a standing agent weighs
    /// 2 · 0.05 = 0.1 up to 5 % deep, 2 · (0.05 + 0.95 · 0.5) = 1.05 half way to the hard
    /// depth (12.5 %), the full 2 from 20 % on; a travelling one always 2.
    #[test]
    fn a_standing_agent_pressed_deeper_weighs_more() {
        let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
        assert!(close(pressed_priority(2.0, false, 0.0), 0.1));
        assert!(close(pressed_priority(2.0, false, 0.05), 0.1));
        assert!(close(pressed_priority(2.0, false, 0.125), 1.05));
        assert!(close(pressed_priority(2.0, false, 0.2), 2.0));
        assert!(close(pressed_priority(2.0, false, 0.9), 2.0));
        assert!(close(pressed_priority(2.0, true, 0.0), 2.0));
        assert!(close(
            pressed_priority(2.0, false, 0.0),
            priority(2.0, false)
        ));
    }

    /// Hand values of the delay ramp: 1 with no delay, 1 + 7 · 0.5 = 4.5 after 3 s without
    /// progress, the full 8 from 6 s on.
    #[test]
    fn an_agent_that_waits_longer_weighs_more() {
        let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
        assert!(close(delay_weight(0.0), 1.0));
        assert!(close(delay_weight(3.0), 4.5));
        assert!(close(delay_weight(6.0), 8.0));
        assert!(close(delay_weight(60.0), 8.0));
    }

    /// Hand case, following: the same pair, the one ahead walking away at 1 m/s. It counts
    /// at 3/4 of that (0.75), so closing is 1.25 m/s; the gap allows 0.2 / (10 · 0.1) =
    /// 0.2 m/s; the first pass takes half of the excess 1.05 (→ 1.475 m/s), the second half
    /// of the 0.525 left (→ 1.2125 m/s); no side step.
    #[test]
    fn a_follower_slows_to_the_pace_ahead() {
        let c = Contact {
            offset: Vec2::new(1.0, 0.0),
            vel: Vec2::new(1.0, 0.0),
            reach_m: 0.8,
            priority: 80.0,
            hard_depth_m: f32::INFINITY,
        };
        let v = constrain_contacts(Vec2::new(2.0, 0.0), 80.0, &[c], 0.1);
        assert!((v - Vec2::new(1.2125, 0.0)).length() < 1e-5, "{v:?}");
    }

    /// Hard contacts: a tank (fourth-root mass 13.2) at 4 m/s into an infantryman (3.0)
    /// standing 0.1 m deep in it (a quarter of the infantry's radius). Shared by priority
    /// the tank takes only 3.0 / 16.2 of the excess in each of the two passes and drives on
    /// at 2.65 m/s, leaving the infantry to get out of the way; past a fifth of the smaller radius the contact
    /// is hard, and the tank stops closing.
    #[test]
    fn a_hard_contact_stops_a_heavy_agent_closing_on_a_deep_overlap() {
        let (tank, infantry) = (priority(contact_mass(30_000.0), true), 3.0);
        let speed_on = |hard: bool| {
            let c = Contact {
                offset: Vec2::new(1.5, 0.0),
                vel: Vec2::ZERO,
                reach_m: 1.6,
                priority: infantry,
                hard_depth_m: if hard {
                    hard_depth(1.2, 0.4)
                } else {
                    f32::INFINITY
                },
            };
            constrain_contacts(Vec2::new(4.0, 0.0), tank, &[c], 1.0 / 60.0).x
        };
        assert!(speed_on(false) > 2.6, "by priority: {}", speed_on(false));
        assert!(speed_on(true).abs() < 1e-5, "hard: {}", speed_on(true));
    }

    /// A heavy agent barely yields to a stationary light one; the light one, touched by the
    /// heavy one coming on, takes almost all of it: pushed ahead and aside.
    #[test]
    fn heavy_movers_push_stationary_allies() {
        let heavy = priority(30_000.0, true);
        let light = priority(80.0, false);
        let to_light = Contact {
            offset: Vec2::new(2.0, 0.0),
            vel: Vec2::ZERO,
            reach_m: 1.6,
            priority: light,
            hard_depth_m: f32::INFINITY,
        };
        let v = constrain_contacts(Vec2::new(6.0, 0.0), heavy, &[to_light], 1.0 / 60.0);
        assert!(v.x > 5.99, "the tank keeps its speed: {v:?}");
        let to_heavy = Contact {
            offset: Vec2::new(-2.0, 0.0),
            vel: Vec2::new(6.0, 0.0),
            reach_m: 1.6,
            priority: heavy,
            hard_depth_m: f32::INFINITY,
        };
        // 0.4 m apart at 6 m/s: one step can close 24 m/s, so nothing to do yet.
        let w = constrain_contacts(Vec2::ZERO, light, &[to_heavy], 1.0 / 60.0);
        assert_eq!(w, Vec2::ZERO);
        let touching = Contact {
            offset: Vec2::new(-1.6, 0.0),
            ..to_heavy
        };
        let w = constrain_contacts(Vec2::ZERO, light, &[touching], 1.0 / 60.0);
        assert!(
            w.x > 5.99 && (w.y + 3.0).abs() < 0.01,
            "pushed ahead and aside: {w:?}"
        );
    }
}
