//! ORCA (RVO2): the avoidance mode, and the contact rule of boids and context steering
//! (`orca_contacts`).

use crate::agents::{AgentState, NO_ORDER};
use crate::half_planes::{HalfPlane, nearest_permitted, nearest_permitted_within, orca_half_plane};
use crate::navigator::Navigator;
use crate::resolve::{STATIONARY_PRIORITY, contact_mass, delay_weight};
use crate::steering::AvoidanceMode;
use crate::vec2::Vec2;

use super::{MAX_NEIGHBOURS, Neighbour, StepContext};

/// A stalled ORCA agent walks through standing agents once it has made no progress for
/// this many times [`crate::SimConfig::stuck_secs`].
const THROUGH_STANDING_STUCK_TIMES: f32 = 4.0;

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// ORCA (RVO2): the velocity closest to `preferred` that avoids the
    /// neighbours for `horizon_secs`. Each side of a pair takes avoidance in inverse
    /// proportion to its contact priority ([`crate::resolve::priority`]): heavier agents
    /// take less, and an idle or arrived ally, weighing a twentieth, gets out of a
    /// mover's way (The Maestros' pushing). In ORCA mode, between travellers no rule ranks
    /// (the right of way, the queue order), the one held up longer takes less
    /// ([`crate::resolve::delay_weight`]). Not where this is boids' or context steering's
    /// contact rule: their own steering parts such pairs, and there the delay moved
    /// circle swaps over 2 × the bound.
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
        let (p, v, max_speed) = (a.pos_world[i], a.vel[i], a.max_speed[i]);
        let own = self.near[slot].priority;
        // In ORCA mode an agent stuck for long walks through standing agents (The
        // Maestros' pushing at its strongest): their half-planes held one that crossing
        // streams had carried into the other stream's arrived crowd, whose members cannot
        // all give way at once, for half a minute. The position passes push them aside by
        // priority. Only after THROUGH_STANDING_STUCK_TIMES the stuck time: a queue at a
        // door that walked through the crowd standing beyond it at once crushed it into
        // itself (door swaps: overlap maxima 31–44 %, with the wait 6–25 %). (With ORCA
        // contacts it slowed context steering through the rooms.)
        let through_standing = a.state[i].is_stalled()
            && self.config.avoidance == AvoidanceMode::Orca
            && a.no_progress_secs[i] >= THROUGH_STANDING_STUCK_TIMES * self.config.stuck_secs;
        let mut planes = [HalfPlane::default(); MAX_NEIGHBOURS + 1];
        let mut count = 0;
        // In a hard contact (an overlap deeper than `hard_depth`) the wall face the agent
        // was pressed against last step is a hard line (RVO2's obstacle lines): a velocity
        // into it is slid along it by the move, so a neighbour's half-plane answered by
        // moving into the wall became a velocity into the neighbour (two agents pressed
        // into a wall corner by each other: 31 % overlaps). A face only: round a wall's
        // corner (a pillar's, a door jamb's) the disc may roll, which a line forbids, and
        // such lines jammed a queue at a pillar for good. Short of a hard contact no line:
        // everywhere it held queues at door jambs (seed 4477's door swaps within 2 × fell
        // from 60 to 55 of 60 in boids and context steering).
        let wall = a.wall_normal[i];
        if wall != Vec2::ZERO && (wall.x.abs() < 1e-3 || wall.y.abs() < 1e-3) {
            planes[0] = HalfPlane {
                point: Vec2::ZERO,
                normal: wall,
            };
            count = 1;
        }
        let walled = count;
        let mut deep = false;
        // Of a traveller in ORCA mode, its priority weighed by its delay, for neighbours
        // that travel too and that no rule ranks against it.
        let delayed = (self.config.avoidance == AvoidanceMode::Orca
            && self.near_order(i) != NO_ORDER)
            .then(|| own * self.delay_weight_of(i));
        let boids_jammed = self.config.avoidance == AvoidanceMode::Boids
            && a.state[i] == AgentState::Stuck
            && a.no_progress_secs[i] >= super::JAM_STUCK_TIMES * self.config.stuck_secs;
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            // … but not through one pressed into others already
            // ([`crate::resolve::agent_priority`]): it cannot give way, and walked through
            // it was crushed into the crowd behind it (a group arrived beyond a door).
            if through_standing
                && nb.moving_order == NO_ORDER
                && nb.priority <= 2.0 * STATIONARY_PRIORITY * contact_mass(nb.mass)
            {
                continue;
            }
            // A neighbour that cannot touch within the horizon at either one's top speed
            // adds a line far from any velocity the agent could take.
            let reach = (max_speed + nb.vel.length()) * horizon_secs + a.radius_m[i] + nb.radius_m;
            if n.dist_sq > reach * reach {
                continue;
            }
            // As boids' contact rule, the one that goes first in a jam does not avoid the
            // one behind it at all ([`Self::queue_order`]): however small its share, a
            // velocity obstacle forbids walking into a neighbour that stands, so the two
            // stood touching for good.
            if boids_jammed && self.queue_order(i, nb) == Some(false) {
                continue;
            }
            let (mine, theirs) = match (self.ranked_priority(i, nb), delayed) {
                (Some(theirs), _) => (own, theirs),
                (None, Some(mine)) if nb.moving_order != NO_ORDER => {
                    (mine, nb.priority * self.delay_weight_of(nb.index as usize))
                }
                (None, _) => (own, nb.priority),
            };
            let mut share = theirs / (mine + theirs).max(1e-9);
            // A deep overlap is not shared by priority (hard contacts): the agent takes
            // at least half of opening it, the one with the right of way or the heavier too.
            let touch = a.radius_m[i] + nb.radius_m;
            let hard = crate::resolve::hard_depth(a.radius_m[i], nb.radius_m);
            if n.dist_sq < (touch - hard).max(0.0).powi(2) {
                share = share.max(0.5);
                deep = true;
            }
            // Nor, in ORCA mode, by one squeezed into others deeper than that: it cannot
            // give way, so it is avoided as if it stood, wholly by this agent (a stream
            // with the right of way pushed a queue into a pillar's corner, 34 % of a
            // radius deep). As boids' contact rule it jammed a queue at a pillar for good.
            let squeezed = self.config.avoidance == AvoidanceMode::Orca
                && crate::resolve::squeezed(a, nb.index as usize);
            if squeezed {
                share = 1.0;
            }
            if let Some(h) = orca_half_plane(
                nb.pos_world - p,
                v,
                if squeezed { Vec2::ZERO } else { nb.vel },
                a.radius_m[i] + nb.radius_m,
                share,
                horizon_secs,
                dt,
            ) {
                planes[count] = h;
                count += 1;
            }
        }
        let out = if deep {
            nearest_permitted_within(&planes[..count], walled, preferred, max_speed)
        } else {
            nearest_permitted(&planes[walled..count], preferred, max_speed)
        };
        if out.is_finite() { out } else { Vec2::ZERO }
    }

    /// [`crate::resolve::delay_weight`] of agent `i`; agents built field by field (tests)
    /// may not track their delay: not delayed.
    fn delay_weight_of(&self, i: usize) -> f32 {
        delay_weight(self.agents.no_progress_secs.get(i).copied().unwrap_or(0.0))
    }
}
