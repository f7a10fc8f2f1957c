//! Steering: what each agent wants to do this step, computed for all agents in parallel
//! from one read-only snapshot (so the result does not depend on thread count or order).
//!
//! Behaviours, in priority order (Fieldrunners 2), summed greedily until the agent's max
//! force is spent and the rest dropped:
//! 1. **flow following** — line of sight: straight at the goal (or the agent's lane target);
//!    otherwise the flow direction, blended in while crossing a cell;
//! 2. **avoidance** — a side-step away from the neighbour it would hit soonest;
//! 3. **separation** — away from overlapping neighbours, scaled by the ratio of the
//!    neighbour's kinetic energy to its own (light units give way to heavy ones);
//! 4. **alignment** and 5. **cohesion** with units of the same order.
//!
//! [`AvoidanceMode::Orca`] replaces 1–2 by ORCA ([`super::half_planes`]) applied to the
//! flow velocity; [`AvoidanceMode::Context`] replaces them by context steering over
//! direction slots. Both keep separation and the physical contact push. In boids and
//! context steering the proposed velocity then goes through the contact rule: ORCA over
//! every neighbour, each side of a pair taking avoidance by priority ([`super::resolve`]).
//! Walls are handled after steering by [`super::walls::move_body`]
//! in every mode.
//!
//! This module holds the per-agent step (`StepContext::update`: neighbours, the mode's
//! force, contact resolution, wall sliding); the settings are in `config`, path following
//! in `following`, and each avoidance mode in its own file (`boids`, `orca`, `context`).

use std::ops::ControlFlow;

use following::LaneState;
use navstudio_nav::MoveType;

use super::agents::{Agents, Collision, NO_ORDER, Resolution};
use super::navigator::{NavGrid, Navigator};
use super::resolve;
use super::rng::mix64;
use super::spatial::{MAX_CANDIDATES, SpatialGrid};
use super::vec2::Vec2;
use super::walls::{body_walls_of, move_body, wall_disc_radius};

mod boids;
mod config;
mod context;
mod crossing;
mod following;
mod orca;
mod prediction;
mod right_of_way;
#[cfg(test)]
mod tests;

pub use config::{AvoidanceMode, Param, SimConfig, SteeringWeights, Techniques};
pub(crate) use crossing::CrossingPass;
pub(crate) use right_of_way::{JAM_STUCK_TIMES, jam_goes_first};

/// Most neighbours any behaviour looks at (the nearest ones).
pub const MAX_NEIGHBOURS: usize = 16;
/// How long a remembered side-step decision holds. `[Units: s]`
pub const REMEMBER_SECS: f32 = 0.25;
/// Most rows of neighbour-grid cells a neighbour search takes in memory order: the
/// grid's cells are half the largest query radius, so a query spans up to six rows.
const DISC_ROWS: usize = 8;

/// One agent's result of the parallel pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AgentUpdate {
    pub pos_world: Vec2,
    pub vel: Vec2,
    /// The way the agent faces after the step, or zero to keep the way it faced.
    pub heading: Vec2,
    pub flow_dir: Vec2,
    pub resolution: Resolution,
    pub collision: Collision,
    /// The velocity ORCA or context steering chose, kept between decisions.
    pub decision: Vec2,
    pub contacts: u32,
    /// Normal of the wall the disc was pushed back from this step, zero if none.
    pub wall_normal: Vec2,
    /// [`Agents::yield_secs`] after this step. `[Units: s]`
    pub yield_secs: f32,
    /// Sum, count and maximum of this agent's overlaps with touching neighbours (share of
    /// the smaller radius), before this step's push.
    pub overlap_sum: f32,
    pub overlap_count: u32,
    pub overlap_max: f32,
    /// Distance from the new position to the agent's goal. `[Units: m]`
    pub goal_dist_m: f32,
    /// Length of the new velocity. `[Units: m/s]`
    pub speed_mps: f32,
    /// What following its lane made of the step.
    pub lane: LaneState,
}

/// One agent as its neighbours see it. The step gathers these in neighbour-grid order
/// ([`SpatialGrid::sorted_agents`]), so a disc query reads its candidates from contiguous
/// memory instead of from a dozen agent arrays at random indices. Kept to what every
/// neighbour scan reads (36 bytes): what can be worked out from these (speed, kinetic
/// energy) is, since each byte more is read for every candidate of every query.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NearAgent {
    pub pos_world: Vec2,
    pub vel: Vec2,
    pub radius_m: f32,
    pub mass: f32,
    /// The agent's order while it travels (`Moving`, `Queued` or `Stuck`), else
    /// [`NO_ORDER`]: alignment, cohesion and context steering's pace treat it as one of
    /// the order's walkers, and ORCA's stuck agents walk through those with none. A queue
    /// at a door is stuck by the stuck timer's measure, and counting its members as
    /// obstacles made context steering slow down behind them.
    pub moving_order: u32,
    /// Who gives way in a contact ([`resolve::priority`]).
    pub priority: f32,
    /// Index into [`Agents`].
    pub index: u32,
}

impl NearAgent {
    /// Agent `i`'s snapshot.
    pub fn of(a: &Agents, i: usize) -> Self {
        let travelling = a.state[i].is_travelling();
        debug_assert!(
            !travelling || a.order[i] != NO_ORDER,
            "agent {i} travels with no order"
        );
        Self {
            pos_world: a.pos_world[i],
            vel: a.vel[i],
            radius_m: a.radius_m[i],
            mass: a.mass[i],
            moving_order: if travelling { a.order[i] } else { NO_ORDER },
            priority: resolve::agent_priority(a, i),
            index: i as u32,
        }
    }

    /// `mass · (|vel|² + 0.25)`: what separation weighs a neighbour by.
    pub fn energy(&self) -> f32 {
        self.mass * (self.vel.length_squared() + 0.25)
    }
}

/// Everything the parallel pass reads.
pub(crate) struct StepContext<'a, N: Navigator + ?Sized> {
    pub agents: &'a Agents,
    pub grid: &'a SpatialGrid,
    /// Every agent's [`NearAgent`], in `grid.sorted_agents()` order.
    pub near: &'a [NearAgent],
    pub nav: &'a N,
    pub nav_grid: NavGrid,
    pub config: &'a SimConfig,
    /// Destination of each order, indexed by order id.
    pub order_destinations: &'a [Vec2],
    /// An order's other destinations (a goal set's), indexed by order id.
    pub order_more_goals: &'a [Vec<Vec2>],
    /// Agents still on their way, per order id.
    pub order_live: &'a [u32],
    /// Per order id, the crossing its group passes (`simulation/crossings.rs`).
    pub order_crossing: &'a [Option<CrossingPass>],
    /// Whether right of way can act this step: agents of more than one order travel, or
    /// an agent still holds back ([`crate::Agents::yield_secs`]). With one order on the
    /// move and nobody holding, no agent gives way, so none looks for whom to give way to.
    pub meeting: bool,
    /// [`Navigator::replanning`] for this step.
    pub replanning: bool,
    /// Largest agent radius plus the separation margin: no agent separates from a
    /// neighbour farther than its own radius plus this. `[Units: m]`
    pub separation_reach_m: f32,
    /// Smallest agent radius (`gap_neighbours`). `[Units: m]`
    pub min_radius_m: f32,
    /// Steps taken so far (decision steps).
    pub step_index: u64,
    /// [`SimConfig::decision_steps`], once per step rather than once per agent.
    pub decision_period: u64,
    /// [`SimConfig::uses_separation_only`], once per step rather than once per agent.
    pub separation_only: bool,
    /// Whether to classify collision states (`Simulation::track_collision_states`).
    pub collision_states: bool,
}

/// One agent's overlaps with its touching neighbours, as shares of the smaller radius.
#[derive(Clone, Copy, Debug, Default)]
struct Overlap {
    sum: f32,
    count: u32,
    max: f32,
}

#[derive(Clone, Copy)]
struct Neighbour {
    /// Index into [`StepContext::near`].
    slot: u32,
    dist_sq: f32,
}

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// Steering, integration and wall sliding for the agent in grid slot `slot`
    /// (`near[slot]`), written to `out` (built there, not returned and copied).
    pub fn update(&self, slot: usize, out: &mut AgentUpdate) {
        // The agent's own position, velocity, radius and mass come from its snapshot, read in
        // grid order, rather than from its arrays at a scattered index.
        let me = &self.near[slot];
        let i = me.index as usize;
        let a = self.agents;
        let cfg = self.config;
        let dt = cfg.step_secs;
        let (p, v) = (me.pos_world, me.vel);
        let (mass, max_force, max_speed) = (me.mass, a.max_force[i], a.max_speed[i]);

        let mut neighbours = [Neighbour {
            slot: 0,
            dist_sq: 0.0,
        }; MAX_NEIGHBOURS];
        let count = self.nearest(i, slot, &mut neighbours);
        let neighbours = &neighbours[..count];

        let (desired, flow_dir, lane) = self.desired_velocity(me);
        let (desired, yield_secs) = self.give_way(i, neighbours, desired);
        let w = cfg.weights;
        let to_force = |target: Vec2| (target - v) * (mass / cfg.reaction_secs.max(dt));
        let (separation, push, overlap) = self.separation_and_push(me, neighbours);
        let separation = separation * w.separation;
        // With a decision period, ORCA and context steering choose a velocity only on the
        // agent's own decision steps and keep it in between (staggered by index so each
        // step decides for a share of the crowd); movement, contacts and walls run every
        // step. A held zero (a new agent, or one that was blocked) is decided again.
        let period = self.decision_period;
        let held = || a.decision[i];
        let decides = || {
            period <= 1
                || held() == Vec2::ZERO
                || (self.step_index + i as u64).is_multiple_of(period)
        };
        let mut decision = Vec2::ZERO;
        // Only boids' side-steps read the remembered resolution; elsewhere it lapses (a
        // read at a scattered index per agent and step that nothing would use).
        let mut resolution = Resolution::default();
        let force = match cfg.avoidance {
            // Separation alone (the crowd's floor): the forces weighted 0 are left out, as
            // `priority_sum` would skip them.
            AvoidanceMode::Boids if self.separation_only => {
                priority_sum(&[to_force(desired) * w.flow, separation], max_force)
            }
            AvoidanceMode::Boids => {
                // A zero-weighted force is skipped by `priority_sum` whatever its value
                // (zero, or NaN from 0 · ∞), so a behaviour weighted 0 is not computed.
                let side = if w.avoidance == 0.0 {
                    Vec2::ZERO
                } else {
                    let memory = a.resolution[i];
                    let memory = Resolution {
                        secs_left: (memory.secs_left - dt).max(0.0),
                        ..memory
                    };
                    let (side, decided) = self.side_step(i, neighbours, desired, memory);
                    resolution = decided;
                    side * w.avoidance
                };
                let (align, cohere) = if w.alignment == 0.0 && w.cohesion == 0.0 {
                    (Vec2::ZERO, Vec2::ZERO)
                } else {
                    self.alignment_cohesion(i, neighbours)
                };
                priority_sum(
                    &[
                        to_force(desired) * w.flow,
                        side,
                        separation,
                        align * w.alignment,
                        cohere * w.cohesion,
                    ],
                    max_force,
                )
            }
            AvoidanceMode::Orca => {
                let avoiding = if decides() {
                    self.orca(i, slot, neighbours, desired, cfg.orca_time_horizon_secs)
                } else {
                    held()
                };
                decision = avoiding;
                // Of a velocity into the wall the agent slid along last step, the move
                // keeps only the part along it; steered toward whole, the part into the
                // wall spent the force a braking agent needed (a column running along a
                // wall into a corner braked at a fifth of its agility: 34 % overlaps).
                let wall = a.wall_normal[i];
                let reachable = avoiding - wall * avoiding.dot(wall).min(0.0);
                // ORCA sets a velocity for this step, so it is tracked within one step.
                let orca_force = (reachable - v) * (mass / dt);
                priority_sum(&[orca_force * w.flow, separation], max_force)
            }
            AvoidanceMode::Context => {
                let chosen = if decides() {
                    self.context(i, slot, neighbours, desired)
                } else {
                    held()
                };
                decision = chosen;
                priority_sum(&[to_force(chosen) * w.flow, separation], max_force)
            }
        };

        let mut new_vel = (v + force * (dt / mass)).clamp_length(max_speed);
        // ORCA mode's velocities are collision-free already; only the position passes back
        // them up.
        if cfg.techniques.resolve_contacts && cfg.avoidance != AvoidanceMode::Orca {
            let proposed = new_vel;
            new_vel = self.orca(i, slot, neighbours, new_vel, cfg.contact_horizon_secs);
            if cfg.avoidance == AvoidanceMode::Context {
                new_vel = self.follow_in_queue(i, slot, neighbours, proposed, new_vel);
            }
        }
        let displacement = new_vel * dt + push;
        let t = a.move_type[i];
        let body = body_walls_of(self.nav, t, me.radius_m, self.nav_grid.cell_size_m, true);
        let moved = move_body(
            p,
            new_vel,
            displacement,
            self.wall_radius_of(t, me.radius_m),
            self.nav_grid.cell_size_m,
            |x, y| self.nav.is_wall(t, x, y),
            body.map(|u| (me.radius_m, move |x, y| self.nav.is_wall(u, x, y))),
        );
        let speed_mps = moved.vel.length();
        // Zero while (nearly) standing: the agent keeps facing the way it last moved.
        let heading = if speed_mps > 0.1 {
            moved.vel * (1.0 / speed_mps)
        } else {
            Vec2::ZERO
        };
        // Pushed back by a wall: the normal points from where the move wanted to end to
        // where the wall let it.
        let wall_normal = if moved.contacts > 0 {
            (moved.pos_world - (p + displacement)).normalize_or_zero()
        } else {
            Vec2::ZERO
        };
        // Only where agents avoid each other: separation alone resolves nothing ahead.
        let collision = if !self.collision_states || self.separation_only {
            Collision::Clear
        } else {
            self.collision_state(i, neighbours, desired, moved.vel, a.collision[i])
        };
        *out = AgentUpdate {
            pos_world: moved.pos_world,
            vel: moved.vel,
            heading,
            flow_dir,
            resolution,
            collision,
            decision,
            contacts: moved.contacts,
            wall_normal,
            yield_secs,
            overlap_sum: overlap.sum,
            overlap_count: overlap.count,
            overlap_max: overlap.max,
            goal_dist_m: (a.goal_world[i] - moved.pos_world).length(),
            speed_mps,
            lane,
        };
    }

    /// Radius of the disc collided against walls: the body minus the type's wall buffer
    /// (which already keeps the body off the real walls), never below a tenth of a cell.
    fn wall_radius(&self, i: usize) -> f32 {
        self.wall_radius_of(self.agents.move_type[i], self.agents.radius_m[i])
    }

    /// [`Self::wall_radius`] of a body of `radius_m` and movement type `t`.
    fn wall_radius_of(&self, t: MoveType, radius_m: f32) -> f32 {
        wall_disc_radius(
            radius_m,
            self.nav.wall_buffer_m(t),
            self.nav_grid.cell_size_m,
            true,
        )
    }

    /// Up to `max_neighbours` nearest other agents within the neighbour radius, nearest
    /// first (ties by grid slot, so the order is fixed).
    ///
    /// When only separation and the contact push read the neighbours
    /// ([`SimConfig::uses_separation_only`]), the search stops at the separation reach
    /// `radius + separation_reach_m`: neither looks farther, and the nearest `max_neighbours`
    /// within the smaller disc are exactly those of the full list that lie in it.
    fn nearest(&self, i: usize, own_slot: usize, out: &mut [Neighbour; MAX_NEIGHBOURS]) -> usize {
        let a = self.agents;
        let me = &self.near[own_slot];
        let p = me.pos_world;
        let radius = if self.separation_only {
            a.neighbour_radius_m[i].min(me.radius_m + self.separation_reach_m)
        } else {
            a.neighbour_radius_m[i]
        };
        // With `gap_neighbours` and radii that differ, neighbours go by the gap to their
        // disc (plus the smallest radius, so an agent of that radius keeps its centre
        // distance): a large agent's centre lies far off while its body touches.
        let max_r = self.separation_reach_m - self.config.separation_margin_m;
        let spread = max_r - self.min_radius_m;
        let by_gap = spread > 1e-6;
        let query = if by_gap { radius + spread } else { radius };
        let r_sq = radius * radius;
        let cap = self.config.max_neighbours.clamp(1, MAX_NEIGHBOURS);
        let mut found = NearestKeys {
            near: self.near,
            p,
            own_slot,
            by_gap,
            radius,
            r_sq,
            min_radius_m: self.min_radius_m,
            keys: [u64::MAX; MAX_NEIGHBOURS],
            last: cap - 1,
            filled: 0,
        };
        let mut rows = [(0, 0); DISC_ROWS];
        if let Some(count) = self.grid.disc_rows(p, query, &mut rows) {
            // Under the candidate cap every row is scanned, so in memory order.
            for &(start, end) in &rows[..count] {
                found.scan(start..end);
            }
        } else {
            // A pile: its candidates are capped, nearest rows first.
            let mut left = MAX_CANDIDATES;
            self.grid
                .for_each_slots_in_disc(p, query, |slots, row_gap_m| {
                    // Rows come nearest first: once the list is full and this row cannot beat
                    // its last key, no later row can either.
                    let bound = if by_gap {
                        (row_gap_m - spread).max(0.0)
                    } else {
                        row_gap_m
                    };
                    if found.filled == cap
                        && u64::from((bound * bound).to_bits()) << 32 > found.keys[found.last]
                    {
                        return ControlFlow::Break(());
                    }
                    let slots = slots.start..slots.end.min(slots.start + left);
                    left -= slots.len();
                    found.scan(slots);
                    if left == 0 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
        }
        // Read where they are: a copy of the keys is a 128-byte move per agent and step.
        let filled = found.filled;
        for (slot, &key) in out.iter_mut().zip(&found.keys[..filled]) {
            let s = key as u32;
            *slot = Neighbour {
                slot: s,
                dist_sq: if by_gap {
                    (self.near[s as usize].pos_world - p).length_squared()
                } else {
                    f32::from_bits((key >> 32) as u32)
                },
            };
        }
        filled
    }
}

/// The nearest candidates [`StepContext::nearest`] has found so far, as keys
/// `(distance bits << 32) | slot`: these order like (distance, slot) since squared distances
/// are non-negative floats, one integer compare per candidate instead of a compound
/// float-and-index test. `u64::MAX` marks an empty place.
struct NearestKeys<'n> {
    near: &'n [NearAgent],
    p: Vec2,
    own_slot: usize,
    /// Neighbours go by the gap to their disc plus `min_radius_m` (`nearest`).
    by_gap: bool,
    radius: f32,
    r_sq: f32,
    min_radius_m: f32,
    /// The `last + 1` smallest keys so far, ascending.
    keys: [u64; MAX_NEIGHBOURS],
    last: usize,
    filled: usize,
}

impl NearestKeys<'_> {
    /// Offers every agent in grid slots `slots`. Inlined into each caller: the search runs
    /// for every agent and step, and a call per row of a handful of candidates costs as
    /// much as the scan.
    #[inline(always)]
    fn scan(&mut self, slots: std::ops::Range<usize>) {
        let start = slots.start;
        for (k, n) in self.near[slots].iter().enumerate() {
            let s = start + k;
            let dist_sq = (n.pos_world - self.p).length_squared();
            let key = if s == self.own_slot {
                u64::MAX
            } else if self.by_gap {
                let gap = dist_sq.sqrt() - n.radius_m + self.min_radius_m;
                if gap <= self.radius {
                    let g = gap.max(0.0);
                    (u64::from((g * g).to_bits()) << 32) | s as u64
                } else {
                    u64::MAX
                }
            } else if dist_sq <= self.r_sq {
                (u64::from(dist_sq.to_bits()) << 32) | s as u64
            } else {
                u64::MAX
            };
            // The kept set is the `last + 1` smallest keys whatever the visit order.
            if key >= self.keys[self.last] {
                continue;
            }
            // Insert from the end of the filled part, not across the empty places.
            let mut k = if self.filled <= self.last {
                self.filled += 1;
                self.filled - 1
            } else {
                self.last
            };
            while k > 0 && self.keys[k - 1] > key {
                self.keys[k] = self.keys[k - 1];
                k -= 1;
            }
            self.keys[k] = key;
        }
    }
}

/// Unit vector from `other` to `p`; coincident agents get a fixed pseudo-random direction
/// from their indices (opposite for the two of them), so they separate the same way every run.
fn away_from(p: Vec2, other: Vec2, i: usize, j: usize) -> Vec2 {
    away_from_at(p, other, (p - other).length_squared(), i, j)
}

/// [`away_from`] with the squared distance already known (`(other - p)` squares to the
/// same bits as `(p - other)`).
fn away_from_at(p: Vec2, other: Vec2, len_sq: f32, i: usize, j: usize) -> Vec2 {
    let d = p - other;
    if len_sq > 1e-12 {
        return d / len_sq.sqrt();
    }
    let (lo, hi) = if i < j { (i, j) } else { (j, i) };
    let h = mix64(((lo as u64) << 32) ^ hi as u64);
    let angle = (h >> 40) as f32 / (1u64 << 24) as f32 * std::f32::consts::TAU;
    let dir = Vec2::from_angle(angle);
    if i < j { dir } else { -dir }
}

/// Adds forces in priority order until `max_force` is spent; the one that crosses the
/// budget is shortened and the rest are dropped.
#[must_use]
pub fn priority_sum(forces: &[Vec2], max_force: f32) -> Vec2 {
    let mut total = Vec2::ZERO;
    let mut left = max_force;
    for &f in forces {
        let len = f.length();
        if !len.is_finite() || len <= 0.0 {
            continue;
        }
        if len <= left {
            total += f;
            left -= len;
        } else {
            total += f * (left / len);
            break;
        }
    }
    total
}
