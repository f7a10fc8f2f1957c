//! Right of way (seed §001: priority-based resolution, decided once and held; seed §003:
//! pushing). Where agents of two orders meet head-on — two groups swapping rooms through a
//! door, antipodes meeting in the middle of a circle, groups crossing between blocks — the
//! order given first has the right of way for the whole trip: its agents walk on and push,
//! the later order's agents step out of their path and wait beside it. The decision is the
//! same from both sides and at every step, so nobody re-decides and oscillates, and the
//! orders are ranked in one line, so "who waits for whom" can never close into a circle: a
//! door serves the first stream, then the next, instead of both pressing into it for good.
//! Standing agents (arrived or idle) step out of the path of travellers of other orders
//! (seed §003: idle units are pushed out of the way), so a stream leaves through a group
//! arrived round it. Within one order, where its agents' ways merge, the one ahead goes
//! first (queue order).

use crate::agents::{AgentState, NO_ORDER};
use crate::navigator::Navigator;
use crate::steering::AvoidanceMode;
use crate::vec2::Vec2;
use crate::walls::disc_is_clear;

use super::{NearAgent, Neighbour, StepContext};

/// Two flows meet head-on when their directions are further apart than this (cosine,
/// about 115°).
const ONCOMING_COS: f32 = -0.42;
/// An agent with the right of way weighs this many times more in a contact with an agent
/// that gives way to it, so it pushes through.
pub const RIGHT_OF_WAY_FACTOR: f32 = 20.0;
/// Queue order acts between agents both stuck this many times the stuck time.
pub(crate) const JAM_STUCK_TIMES: f32 = 2.0;
/// Queue order acts between agents this share of their summed radii from touching.
const QUEUE_GAP_SHARE: f32 = 0.25;
/// Two ways of one order merge when they are further apart than this (cosine, 60°).
const MERGE_COS: f32 = 0.5;
/// An agent's way leads into a neighbour when the neighbour lies within this of it
/// (cosine, about 45°)…
const QUEUE_PRESS_COS: f32 = 0.7;
/// … and leads away from it when the neighbour lies outside this (cosine, about 73°).
const QUEUE_FREE_COS: f32 = 0.3;
/// An agent gives way to one coming at it that is at most this far from touching it.
/// `[Units: m]`
const GIVE_WAY_GAP_M: f32 = 1.0;
/// Share of its top speed an agent giving way steps aside at.
const STEP_ASIDE_SHARE: f32 = 0.5;
/// Share of its top speed an agent holding back walks back at.
const BACK_SHARE: f32 = 0.5;
/// How long an agent holds back after it last met the stream it gives way to. `[Units: s]`
const HOLD_SECS: f32 = 1.0;
/// An agent holds back only with a wall of its movement type within this many cells: at a
/// door or in a corridor, where the place it stands in is the stream's way through. In
/// open ground it steps aside and walks on. Holding there too, a stream waiting in a room
/// held back for as long as the other stream's agents walked through it to their goal,
/// long after the door was free, and then came to the door in one file along the wall.
const HOLD_WALL_CELLS: i32 = 3;
/// An agent backing off behind one holding back holds back this share of the other's
/// hold left, and passes a hold on only while it is longer than [`MIN_PASSED_HOLD_SECS`]:
/// the backing off fades some 30 agents behind the stream's front (0.95³⁰ ≈ 0.2), enough
/// to clear a doorway, where a stream met in a corridor otherwise backed all the way out
/// of it (the built-in head_on: 1.99 / 1.84 / 2.11 × the bound against 1.71 / 1.68 / 1.84 ×).
const PASSED_HOLD_SHARE: f32 = 0.95;
/// See [`PASSED_HOLD_SHARE`]. `[Units: s]`
const MIN_PASSED_HOLD_SECS: f32 = 0.2;
/// An agent giving way this close to touching the oncoming one could not get out of its
/// way in time. `[Units: m]`
const PRESSED_GAP_M: f32 = 0.1;

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// The agent's flow direction, or its velocity's when it has none yet.
    fn heading(&self, i: usize) -> Vec2 {
        let f = self.agents.flow_dir[i];
        if f == Vec2::ZERO {
            self.agents.vel[i].normalize_or_zero()
        } else {
            f
        }
    }

    /// Whether agent `i` and neighbour `nb`, of different orders, meet head-on: `Some(true)`
    /// when `nb`'s order has the right of way (it was given first), `Some(false)` when
    /// `i`'s has, `None` when they are of one order, not both travelling, or not oncoming.
    pub(super) fn right_of_way(&self, i: usize, nb: &NearAgent) -> Option<bool> {
        if !self.meeting {
            return None;
        }
        let own = self.near_order(i);
        if own == NO_ORDER || nb.moving_order == NO_ORDER || own == nb.moving_order {
            return None;
        }
        let oncoming = self.heading(i).dot(self.heading(nb.index as usize)) < ONCOMING_COS;
        oncoming.then_some(nb.moving_order < own)
    }

    /// `nb`'s priority in agent `i`'s contacts, weighed by the right of way between orders
    /// and by the queue order within one.
    ///
    /// The right of way does not press an agent into a wall: where the one that gives way
    /// stands against a wall on the side the other presses it to, the two share the
    /// contact evenly. Otherwise, at the corner of a corridor one body wide, an agent
    /// backing off could move only into the walls, the one with the right of way pressed
    /// on, and both stood for good.
    pub(super) fn priority_of(&self, i: usize, nb: &NearAgent) -> f32 {
        self.ranked_priority(i, nb).unwrap_or(nb.priority)
    }

    /// [`Self::priority_of`] where a rule ranks the two (the right of way, the queue
    /// order), `None` where none does.
    pub(super) fn ranked_priority(&self, i: usize, nb: &NearAgent) -> Option<f32> {
        match self.right_of_way(i, nb) {
            Some(way) => {
                let j = nb.index as usize;
                let a = self.agents;
                // The one giving way, and the direction it is pressed in.
                let (yielder, pressed) = if way {
                    (i, a.pos_world[i] - nb.pos_world)
                } else {
                    (j, nb.pos_world - a.pos_world[i])
                };
                let wall = a.wall_normal.get(yielder).copied().unwrap_or(Vec2::ZERO);
                Some(if wall.dot(pressed) < 0.0 {
                    nb.priority
                } else if way {
                    nb.priority * RIGHT_OF_WAY_FACTOR
                } else {
                    nb.priority / RIGHT_OF_WAY_FACTOR
                })
            }
            None => match self.queue_order(i, nb) {
                Some(true) => Some(nb.priority * RIGHT_OF_WAY_FACTOR),
                Some(false) => Some(nb.priority / RIGHT_OF_WAY_FACTOR),
                None => None,
            },
        }
    }

    /// Queue order in a jam of one order, in boids: between two of its agents both stuck
    /// for [`JAM_STUCK_TIMES`] the stuck time, in contact (within [`QUEUE_GAP_SHARE`] of
    /// touching), whose ways merge (more than 60° apart): `Some(true)` when `nb` is ahead
    /// of agent `i` (`i`'s way leads into it and its own way leads away from `i`),
    /// `Some(false)` when it is behind; head on (each way leads into the other), `Some(true)`
    /// when `nb` has waited longer; `None` otherwise. The one ahead goes first, as in a
    /// zip merge: one group's agents reaching a one-cell opening from both sides at once
    /// each pressed on the agent in its mouth, which stood between them off the opening's
    /// line, and boids' even shares held them all there for good. Only in a jam: between
    /// agents still moving, the weights slowed the merge at a gap's mouth until the queue
    /// stood, and a file's push keeps a queue at a door moving.
    pub(super) fn queue_order(&self, i: usize, nb: &NearAgent) -> Option<bool> {
        if self.config.avoidance != AvoidanceMode::Boids {
            return self.jam_order(i, nb);
        }
        let a = self.agents;
        let own = a.order[i];
        if own == NO_ORDER || nb.moving_order != own || !a.state[i].is_travelling() {
            return None;
        }
        let j = nb.index as usize;
        let jammed = |k: usize| {
            a.state[k] == AgentState::Stuck
                && a.no_progress_secs[k] >= JAM_STUCK_TIMES * self.config.stuck_secs
        };
        if !(jammed(i) && jammed(j)) {
            return None;
        }
        let offset = nb.pos_world - a.pos_world[i];
        let reach = (1.0 + QUEUE_GAP_SHARE) * (a.radius_m[i] + nb.radius_m);
        if offset.length_squared() > reach * reach {
            return None;
        }
        let (mine, theirs) = (self.heading(i), self.heading(j));
        if mine.dot(theirs) > MERGE_COS {
            return None;
        }
        let u = offset.normalize_or_zero();
        let (into, back) = (mine.dot(u), -theirs.dot(u));
        if into > QUEUE_PRESS_COS && back < QUEUE_FREE_COS {
            Some(true)
        } else if back > QUEUE_PRESS_COS && into < QUEUE_FREE_COS {
            Some(false)
        } else if into > QUEUE_PRESS_COS && back > QUEUE_PRESS_COS {
            // Head on, each pressing into the other for the place between them (two large
            // walkers sliding along a wall into a gap's mouth from either side, where they
            // stood chest to chest for 15 s): who has waited longer goes first (seed
            // §001), then the lower index. Both wait on at the same rate, so the order
            // holds until one of them gets through.
            let (mine, theirs) = (a.no_progress_secs[i], a.no_progress_secs[j]);
            Some(theirs > mine || theirs == mine && j < i)
        } else {
            None
        }
    }

    /// Queue order in a jam of one order, in ORCA and context steering's velocities:
    /// between two agents both stuck for [`JAM_STUCK_TIMES`] the stuck time, in contact
    /// (within [`QUEUE_GAP_SHARE`] of touching), `Some(true)` when `nb` goes first: it has
    /// waited longer (ties to the lower index). Three large walkers meeting at a one-cell
    /// gap's mouth from above, below and beside it stood touching for good (mixed_gaps-174
    /// of seed 2026120304 in ORCA, 10 stuck): each avoided the others evenly, so none
    /// stepped into the gap's row, and the position passes had no overlap to share. Ranked
    /// by the shorter way to the goal, as the position passes rank ([`jam_goes_first`]),
    /// the walker behind the one pinned at the wall's end went first, its goal being
    /// nearer, and the three still stood.
    fn jam_order(&self, i: usize, nb: &NearAgent) -> Option<bool> {
        let a = self.agents;
        let j = nb.index as usize;
        let offset = nb.pos_world - a.pos_world[i];
        let reach = (1.0 + QUEUE_GAP_SHARE) * (a.radius_m[i] + nb.radius_m);
        if offset.length_squared() > reach * reach {
            return None;
        }
        // Their waits grow alike, so the order holds until one of them gets through.
        let way = |k: usize| -a.no_progress_secs.get(k).copied().unwrap_or(0.0);
        jam_order_by(
            a,
            JAM_STUCK_TIMES * self.config.stuck_secs,
            (i, way(i)),
            (j, way(j)),
        )
    }

    /// A standing agent's (arrived or idle) velocity: zero, or — when a traveller of
    /// another order walks at it — a step out of that traveller's path at half speed, to
    /// the side it already stands on (the traveller's right when dead ahead; the other
    /// side where a wall takes that one). Seed §003: idle units are pushed out of the way.
    /// Pushed by the contacts alone, a group arrived in a room stood packed round the
    /// agents of the other order still waiting there to leave it, and they waded out at a
    /// crawl (a door swap's second stream: door_swap-50 of seed 1 took 2.12 × the bound
    /// in context steering, 1.81 × making way). Agents of its own order arriving against
    /// it are group arrival's ([`crate::groups`]), unless one of them is stuck.
    fn make_way(&self, i: usize, neighbours: &[Neighbour]) -> Vec2 {
        let a = self.agents;
        let p = a.pos_world[i];
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            // Its own order's travellers arrive against it (group arrival), unless one is
            // stuck: then it stands in that one's way (an arrived tank in a gap the last
            // tank of its group must pass).
            if nb.moving_order == NO_ORDER
                || (nb.moving_order == a.order[i]
                    && a.state[nb.index as usize] != AgentState::Stuck)
            {
                continue;
            }
            let along = self.heading(nb.index as usize);
            let offset = p - nb.pos_world;
            let touch = a.radius_m[i] + nb.radius_m;
            if offset.dot(along) <= 0.0 || n.dist_sq > (touch + GIVE_WAY_GAP_M).powi(2) {
                continue;
            }
            let lateral = offset.dot(along.perp());
            let clear_by = touch + self.config.separation_margin_m;
            if lateral.abs() >= clear_by {
                continue;
            }
            let lean = if lateral.abs() < 0.1 * touch {
                along.perp()
            } else {
                along.perp() * lateral.signum()
            };
            return self
                .side_out_of_path(i, lean, lateral, clear_by)
                .map_or(Vec2::ZERO, |side| {
                    side * (a.max_speed[i] * STEP_ASIDE_SHARE)
                });
        }
        Vec2::ZERO
    }

    /// The side agent `i` steps to, out of a path it stands `lateral` across from (m, the
    /// sign its side), to be `clear_by` from its line: `lean` where walls leave its body
    /// room there, else the other side, else none.
    fn side_out_of_path(&self, i: usize, lean: Vec2, lateral: f32, clear_by: f32) -> Option<Vec2> {
        let p = self.agents.pos_world[i];
        [
            (lean, clear_by - lateral.abs()),
            (-lean, clear_by + lateral.abs()),
        ]
        .into_iter()
        .find(|&(dir, by)| self.room_at(i, p + dir * by.max(0.0)))
        .map(|(dir, _)| dir)
    }

    /// Whether agent `i`'s body fits at `pos` for the walls.
    fn room_at(&self, i: usize, pos: Vec2) -> bool {
        let t = self.agents.move_type[i];
        disc_is_clear(
            pos,
            self.wall_radius(i),
            self.nav_grid.cell_size_m,
            |x, y| self.nav.is_wall(t, x, y),
        )
    }

    /// Agent `i`'s order while it travels, else [`NO_ORDER`].
    pub(super) fn near_order(&self, i: usize) -> u32 {
        let a = self.agents;
        if a.state[i].is_travelling() {
            a.order[i]
        } else {
            NO_ORDER
        }
    }

    /// `desired`, or — when an agent with the right of way comes at agent `i` and `i`
    /// stands in its path — a step out of that path at half speed, to the side `i` already
    /// leans to (its own right when it stands dead ahead). When the agent it gives way to
    /// is one of a stream (an order of several agents) and is already on it (within
    /// [`PRESSED_GAP_M`] of touching) where walls are near ([`HOLD_WALL_CELLS`]), `i` then
    /// holds back for [`HOLD_SECS`] (waits), and every agent of its order that walks up
    /// behind one holding back backs off too, for a little less long
    /// ([`PASSED_HOLD_SHARE`]): the waiting stream clears the way in front of a door,
    /// instead of pressing into it while the other stream comes through (the door
    /// alternates between the streams). A standing agent makes way instead
    /// ([`Self::make_way`]). Also returns the hold left.
    pub(super) fn give_way(
        &self,
        i: usize,
        neighbours: &[Neighbour],
        desired: Vec2,
    ) -> (Vec2, f32) {
        let a = self.agents;
        if !a.state[i].is_travelling() {
            return (self.make_way(i, neighbours), 0.0);
        }
        if !self.meeting {
            return (desired, 0.0);
        }
        let held = (a.yield_secs[i] - self.config.step_secs).max(0.0);
        if desired == Vec2::ZERO || self.near_order(i) == NO_ORDER {
            return (desired, 0.0);
        }
        let p = a.pos_world[i];
        let forward = self.heading(i);
        let back = -forward * (a.max_speed[i] * BACK_SHARE);
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            let offset = nb.pos_world - p;
            let touch = a.radius_m[i] + nb.radius_m;
            if offset.dot(forward) <= 0.0 || n.dist_sq > (touch + GIVE_WAY_GAP_M).powi(2) {
                continue;
            }
            match self.right_of_way(i, nb) {
                Some(true) => {}
                None if nb.moving_order == self.near_order(i)
                    && a.yield_secs[nb.index as usize] > MIN_PASSED_HOLD_SECS
                    && offset.dot(forward) > 0.5 * n.dist_sq.sqrt() =>
                {
                    return (back, a.yield_secs[nb.index as usize] * PASSED_HOLD_SHARE);
                }
                _ => continue,
            }
            // How far `i` stands to the side of the neighbour's path.
            let across = self.heading(nb.index as usize).perp();
            let lateral = (p - nb.pos_world).dot(across);
            if lateral.abs() >= touch + self.config.separation_margin_m {
                continue;
            }
            // Out of the stream by its nearer edge: away from where most of its agents
            // about `i` walk, which for a lone agent is away from its path. Away from one
            // neighbour's path alone, an agent at a stream's front edge stepped into the
            // stream and was carried along it (antipodes-73 of seed 20261203 in ORCA: 28 m
            // in 10 s).
            let sides: f32 = neighbours
                .iter()
                .map(|m| &self.near[m.slot as usize])
                .filter(|m| m.moving_order == nb.moving_order)
                .map(|m| (p - m.pos_world).dot(across).signum())
                .sum();
            let lean = if lateral.abs() < 0.1 * touch && sides.abs() <= 1.0 {
                forward.perp()
            } else if sides != 0.0 {
                across * sides.signum()
            } else {
                across * lateral.signum()
            };
            // A lone agent has passed once it has: only a stream keeps coming.
            let stream = self
                .order_live
                .get(nb.moving_order as usize)
                .is_some_and(|&live| live > 1);
            // Only an agent that could not get out of the way in time (the stream is on
            // it) waits: one that stepped aside early, where there is room, walks on
            // beside the stream (a corridor's streams pass side by side).
            let pressed = n.dist_sq.sqrt() - touch <= PRESSED_GAP_M;
            let at_way_through = || self.wall_within(a.move_type[i], p, HOLD_WALL_CELLS);
            let hold = if stream && pressed && at_way_through() {
                HOLD_SECS
            } else {
                0.0
            };
            // Out of the path to the side it leans to, else to the other; where walls
            // leave room on neither (a corridor one body wide), it backs off the way the
            // oncoming agent walks and holds back, so the agents of its order behind it
            // back off too, until there is room to step aside.
            let clear_by = touch + self.config.separation_margin_m;
            return match self.side_out_of_path(i, lean, lateral, clear_by) {
                Some(side) => (side * (a.max_speed[i] * STEP_ASIDE_SHARE), hold),
                None => (
                    self.heading(nb.index as usize) * (a.max_speed[i] * BACK_SHARE),
                    HOLD_SECS,
                ),
            };
        }
        if held > 0.0 {
            // Out of the way: wait for the stream to pass.
            return (Vec2::ZERO, held);
        }
        (desired, 0.0)
    }
}

/// Queue order in the position passes (ORCA and context steering): between two agents of one order, both stuck for [`JAM_STUCK_TIMES`]
/// the stuck time (`jam_secs`), `Some(true)` when `j` goes before `i` — it has the shorter
/// way to its goal (`goal_dist_m`, ties to the lower index) —, `Some(false)` when `i` goes
/// first, `None` otherwise. The one behind takes the whole overlap, so the one ahead is
/// not pushed back. Shared evenly, two allies merging into
/// a one-cell slot from above and from its side, each in the other's way, held for good:
/// the one above steered down and was pushed back as far each step (pillars-117 of seed
/// 20261207 in context steering, 20 agents at 5 × the bound). Both ways to the goal shrink
/// only as the agents move, so the order holds until one of them gets through.
pub(crate) fn jam_goes_first(
    a: &crate::agents::Agents,
    goal_dist_m: &[f32],
    jam_secs: f32,
    i: usize,
    j: usize,
) -> Option<bool> {
    let way = |k: usize| goal_dist_m.get(k).copied().unwrap_or(f32::INFINITY);
    jam_order_by(a, jam_secs, (i, way(i)), (j, way(j)))
}

/// [`jam_goes_first`] with each agent's way to its goal given. `[Units: m]`
fn jam_order_by(
    a: &crate::agents::Agents,
    jam_secs: f32,
    (i, way_i): (usize, f32),
    (j, way_j): (usize, f32),
) -> Option<bool> {
    let jammed = |k: usize| a.state[k] == AgentState::Stuck && a.no_progress_secs[k] >= jam_secs;
    if a.order[i] == NO_ORDER || a.order[i] != a.order[j] || !jammed(i) || !jammed(j) {
        return None;
    }
    Some((way_j, j) < (way_i, i))
}
