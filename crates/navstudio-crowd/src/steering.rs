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
//! [`AvoidanceMode::Orca`] replaces 1–2 by ORCA (`dodgy_2d`) applied to the flow velocity;
//! [`AvoidanceMode::Context`] replaces them by context steering over direction slots. Both
//! keep separation and the physical contact push. Walls are handled after steering by
//! [`super::walls::move_disc`] in every mode.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::agents::{AgentState, Agents, NO_ORDER, Resolution};
use super::half_planes::{HalfPlane, orca_half_plane, slot_danger};
use super::navigator::{NavGrid, Navigator};
use super::resolve;
use super::rng::mix64;
use super::spatial::SpatialGrid;
use super::vec2::{Vec2, floor_i32};
use super::walls::{collision_radius, move_disc, segment_is_clear};

/// Most neighbours any behaviour looks at (the nearest ones).
pub const MAX_NEIGHBOURS: usize = 16;
/// How long a remembered side-step decision holds. `[Units: s]`
pub const REMEMBER_SECS: f32 = 0.25;

/// Local avoidance method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AvoidanceMode {
    /// Reynolds boids with Fieldrunners' side-step avoidance.
    #[default]
    Boids,
    /// Optimal reciprocal collision avoidance (RVO2) via `dodgy_2d`.
    Orca,
    /// Context steering: interest and danger per direction slot, sub-slot interpolation.
    Context,
}

/// Weights of the steering behaviours (dimensionless multipliers on each force).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SteeringWeights {
    /// Flow following. `[Limit: >= 0]`
    pub flow: f32,
    /// Side-step avoidance. `[Limit: >= 0]`
    pub avoidance: f32,
    /// Separation. `[Limit: >= 0]`
    pub separation: f32,
    /// Alignment with same-order neighbours. `[Limit: >= 0]`
    pub alignment: f32,
    /// Cohesion with same-order neighbours. `[Limit: >= 0]`
    pub cohesion: f32,
}

impl Default for SteeringWeights {
    fn default() -> Self {
        Self {
            flow: 1.0,
            avoidance: 0.6,
            separation: 1.0,
            alignment: 0.1,
            cohesion: 0.05,
        }
    }
}

/// The movement techniques from the source documents, each switchable so the crowd
/// benchmark can show what it buys (`navstudio crowd-bench --off NAME`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Techniques {
    /// ORCA as one behaviour inside context steering (seed §004): each neighbour's RVO2
    /// half-plane writes danger into the direction slots (the share of speed a slot must
    /// give up to stay collision-free), instead of danger growing with mere closeness
    /// ([`super::half_planes`]). Context mode only. Off by default: in every benchmark
    /// case it was slower than the proximity danger, and head-on crowds deadlock in it.
    pub context_orca: bool,
    /// Context steering leaves following to the contacts: a member of the agent's own
    /// order walking its way at its pace writes no danger (without this it writes half of
    /// a standing one's, so a queue slows down the closer it packs). Context mode only.
    pub context_pace: bool,
    /// Priority by progress (Age of Empires): between two travelling agents, the one
    /// nearer its goal goes first and the other waits ([`super::resolve::progress_factor`]),
    /// instead of both giving way by half, which lets equal agents wedge side by side in a
    /// gap. Mass still decides between a tank and infantry. Off by default: crowds arrive
    /// sooner with it, but agents ahead run deeper into those that cannot give way.
    pub progress_priority: bool,
    /// Stuck recovery: an agent in the `Stuck` state re-plans its next step from where it
    /// stands, toward the centre of the next cell of its route, instead of pressing along
    /// the interpolated flow into a wall corner. Off by default: the showcase canyon's
    /// last boid arrives with it, but head-on context crowds and ORCA's mixed radii get
    /// worse.
    pub stuck_recovery: bool,
    /// Remembered resolutions (Age of Empires): the side an agent chose to pass a
    /// neighbour on holds for a while instead of being re-decided every step.
    pub remember_resolutions: bool,
    /// Priority-based contact resolution (Age of Empires; The Maestros' pushing): closing
    /// speed that would overlap two agents is removed, the lighter, the stationary and the
    /// follower giving way ([`super::resolve`]).
    pub resolve_contacts: bool,
    /// An agent whose goal is taken by a standing agent it touches counts as arrived,
    /// instead of circling the spot for ever (context steering's "pass the agent on your
    /// waypoint").
    pub pass_occupied_goal: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Self {
            resolve_contacts: true,
            pass_occupied_goal: true,
            context_orca: false,
            context_pace: true,
            remember_resolutions: true,
            progress_priority: false,
            stuck_recovery: false,
        }
    }
}

impl Techniques {
    /// Every technique off: the crowd as it was before they were added.
    #[must_use]
    pub fn none() -> Self {
        Self {
            resolve_contacts: false,
            pass_occupied_goal: false,
            context_orca: false,
            context_pace: false,
            remember_resolutions: false,
            progress_priority: false,
            stuck_recovery: false,
        }
    }

    /// Names accepted by [`Self::set`].
    pub const NAMES: [&'static str; 7] = [
        "resolve_contacts",
        "pass_occupied_goal",
        "context_orca",
        "context_pace",
        "remember_resolutions",
        "progress_priority",
        "stuck_recovery",
    ];

    /// Turns one technique on or off by name; `false` for an unknown name.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        let flag = match name {
            "resolve_contacts" => &mut self.resolve_contacts,
            "pass_occupied_goal" => &mut self.pass_occupied_goal,
            "context_orca" => &mut self.context_orca,
            "context_pace" => &mut self.context_pace,
            "remember_resolutions" => &mut self.remember_resolutions,
            "progress_priority" => &mut self.progress_priority,
            "stuck_recovery" => &mut self.stuck_recovery,
            _ => return false,
        };
        *flag = on;
        true
    }
}

/// Simulation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Fixed step length. `[Units: s] [Limit: > 0]`
    pub step_secs: f32,
    /// Most steps one `advance` call takes; extra time is dropped so a slow frame cannot
    /// snowball. `[Limit: >= 1]`
    pub max_steps_per_advance: u32,
    /// Local avoidance method.
    pub avoidance: AvoidanceMode,
    /// Behaviour weights.
    pub weights: SteeringWeights,
    /// Time to reach the desired velocity if force allowed it. `[Units: s] [Limit: > 0]`
    pub reaction_secs: f32,
    /// Nearest neighbours considered. `[Limit: 1..=16]`
    pub max_neighbours: usize,
    /// Side-step avoidance looks this far ahead. `[Units: s] [Limit: > 0]`
    pub avoidance_horizon_secs: f32,
    /// Extra gap separation keeps between discs; also the "touching" slack for group
    /// arrival. `[Units: m] [Limit: >= 0]`
    pub separation_margin_m: f32,
    /// Share of an overlap between two discs removed per step by pushing. `[Limit: 0..=1]`
    pub contact_relaxation: f32,
    /// An agent that gets no `stuck_progress_m` closer to its goal in this time is stuck.
    /// `[Units: s] [Limit: > 0]`
    pub stuck_secs: f32,
    /// Progress that resets the stuck timer. `[Units: m] [Limit: > 0]`
    pub stuck_progress_m: f32,
    /// Direction slots for context steering. `[Limit: 4..=256]`
    pub context_slots: usize,
    /// ORCA looks this far ahead for other agents. `[Units: s] [Limit: > 0]`
    pub orca_time_horizon_secs: f32,
    /// Movement techniques, each switchable.
    pub techniques: Techniques,
}

impl SimConfig {
    /// Whether separation and the contact push are the only behaviours that read
    /// neighbours: boids with avoidance, alignment and cohesion weighted 0 (ORCA and
    /// context steering look at every neighbour in the neighbour radius).
    #[must_use]
    pub fn uses_separation_only(&self) -> bool {
        let w = self.weights;
        self.avoidance == AvoidanceMode::Boids
            && w.avoidance == 0.0
            && w.alignment == 0.0
            && w.cohesion == 0.0
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            step_secs: 1.0 / 60.0,
            max_steps_per_advance: 8,
            avoidance: AvoidanceMode::Boids,
            weights: SteeringWeights::default(),
            reaction_secs: 0.25,
            max_neighbours: 10,
            avoidance_horizon_secs: 1.5,
            separation_margin_m: 0.1,
            contact_relaxation: 0.5,
            stuck_secs: 3.0,
            stuck_progress_m: 0.5,
            context_slots: 12,
            orca_time_horizon_secs: 2.0,
            techniques: Techniques::default(),
        }
    }
}

/// One agent's result of the parallel pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AgentUpdate {
    pub pos_world: Vec2,
    pub vel: Vec2,
    pub heading_rad: f32,
    pub flow_dir: Vec2,
    pub resolution: Resolution,
    pub contacts: u32,
    /// Sum, count and maximum of this agent's overlaps with touching neighbours (share of
    /// the smaller radius), before this step's push.
    pub overlap_sum: f32,
    pub overlap_count: u32,
    pub overlap_max: f32,
    /// Distance from the new position to the agent's goal. `[Units: m]`
    pub goal_dist_m: f32,
    /// Length of the new velocity. `[Units: m/s]`
    pub speed_mps: f32,
}

/// One agent as its neighbours see it. The step gathers these in neighbour-grid order
/// ([`SpatialGrid::sorted_agents`]), so a disc query reads its candidates from contiguous
/// memory instead of from a dozen agent arrays at random indices.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NearAgent {
    pub pos_world: Vec2,
    pub vel: Vec2,
    pub radius_m: f32,
    pub mass: f32,
    /// `|vel|`, once per agent rather than once per neighbour that reads it. `[Units: m/s]`
    pub speed_mps: f32,
    /// `mass · (|vel|² + 0.25)`: what separation weighs a neighbour by.
    pub energy: f32,
    /// The agent's order while it is `Moving`, else [`NO_ORDER`] (alignment and cohesion
    /// only follow moving agents of the same order).
    pub moving_order: u32,
    /// Who gives way in a contact ([`resolve::priority`]).
    pub priority: f32,
    /// Straight-line distance to its goal while travelling, else −1 (progress priority).
    /// `[Units: m]`
    pub goal_dist_m: f32,
    /// Index into [`Agents`].
    pub index: u32,
}

impl NearAgent {
    /// Agent `i`'s snapshot.
    pub fn of(a: &Agents, i: usize) -> Self {
        let vel = a.vel[i];
        Self {
            pos_world: a.pos_world[i],
            vel,
            radius_m: a.radius_m[i],
            mass: a.mass[i],
            speed_mps: vel.length(),
            energy: a.mass[i] * (vel.length_squared() + 0.25),
            moving_order: if a.state[i] == AgentState::Moving {
                a.order[i]
            } else {
                NO_ORDER
            },
            priority: resolve::priority(a.mass[i], a.state[i].is_travelling()),
            goal_dist_m: if a.state[i].is_travelling() {
                (a.goal_world[i] - a.pos_world[i]).length()
            } else {
                -1.0
            },
            index: i as u32,
        }
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
    /// [`Navigator::replanning`] for this step.
    pub replanning: bool,
    /// Largest agent radius plus the separation margin: no agent separates from a
    /// neighbour farther than its own radius plus this. `[Units: m]`
    pub separation_reach_m: f32,
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
    /// (`near[slot]`).
    pub fn update(&self, slot: usize) -> AgentUpdate {
        let i = self.near[slot].index as usize;
        let a = self.agents;
        let cfg = self.config;
        let dt = cfg.step_secs;
        let (p, v) = (a.pos_world[i], a.vel[i]);
        let (mass, max_force, max_speed) = (a.mass[i], a.max_force[i], a.max_speed[i]);

        let mut neighbours = [Neighbour {
            slot: 0,
            dist_sq: 0.0,
        }; MAX_NEIGHBOURS];
        let count = self.nearest(i, slot, &mut neighbours);
        let neighbours = &neighbours[..count];

        let (desired, flow_dir) = self.desired_velocity(i);
        let w = cfg.weights;
        let to_force = |target: Vec2| (target - v) * (mass / cfg.reaction_secs.max(dt));
        let (separation, push, overlap) = self.separation_and_push(i, neighbours);
        let separation = separation * w.separation;
        let memory = a.resolution[i];
        let mut resolution = Resolution {
            secs_left: (memory.secs_left - dt).max(0.0),
            ..memory
        };
        let force = match cfg.avoidance {
            AvoidanceMode::Boids => {
                // A zero-weighted force is skipped by `priority_sum` whatever its value
                // (zero, or NaN from 0 · ∞), so a behaviour weighted 0 is not computed.
                let side = if w.avoidance == 0.0 {
                    Vec2::ZERO
                } else {
                    let (side, decided) = self.side_step(i, neighbours, desired, resolution);
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
                let avoiding = self.orca(i, neighbours, desired);
                // ORCA sets a velocity for this step, so it is tracked within one step.
                let orca_force = (avoiding - v) * (mass / dt);
                priority_sum(&[orca_force * w.flow, separation], max_force)
            }
            AvoidanceMode::Context => {
                let chosen = self.context(i, slot, neighbours, desired);
                priority_sum(&[to_force(chosen) * w.flow, separation], max_force)
            }
        };

        let mut new_vel = (v + force * (dt / mass)).clamp_length(max_speed);
        // A stuck agent presses on (a deadlock of polite agents never clears), but only so
        // far into others. ORCA already keeps velocities collision-free; only the position
        // passes back it up.
        if cfg.techniques.resolve_contacts && cfg.avoidance != AvoidanceMode::Orca {
            let press = if a.state[i] != AgentState::Stuck {
                0.0
            } else if a.no_progress_secs[i] < 2.0 * cfg.stuck_secs {
                resolve::STUCK_PRESS_SHARE
            } else {
                // Stuck for long: whatever it takes (still less than going through).
                1.0
            };
            let own = &self.near[slot];
            let by_progress = cfg.techniques.progress_priority;
            let mut contacts = [resolve::Contact::default(); MAX_NEIGHBOURS];
            let mut count = 0;
            let own_speed = new_vel.length();
            for n in neighbours {
                let nb = &self.near[n.slot as usize];
                let reach_m = a.radius_m[i] + nb.radius_m - press * a.radius_m[i].min(nb.radius_m);
                // Only neighbours this step's closing speed could matter for.
                let limit = reach_m + resolve::contact_horizon(own_speed + nb.speed_mps, dt);
                if n.dist_sq < limit * limit {
                    contacts[count] = resolve::Contact {
                        offset: nb.pos_world - p,
                        vel: nb.vel,
                        reach_m,
                        priority: if by_progress {
                            nb.priority * resolve::progress_factor(own.goal_dist_m, nb.goal_dist_m)
                        } else {
                            nb.priority
                        },
                    };
                    count += 1;
                }
            }
            new_vel = resolve::constrain_contacts(new_vel, own.priority, &contacts[..count], dt);
        }
        let displacement = new_vel * dt + push;
        let t = a.type_index[i] as usize;
        let moved = move_disc(
            p,
            new_vel,
            displacement,
            self.wall_radius(i),
            self.nav_grid.cell_size_m,
            |x, y| self.nav.is_wall(t, x, y),
        );
        let speed_sq = moved.vel.length_squared();
        let heading_rad = if speed_sq > 0.01 {
            moved.vel.angle_rad_fast()
        } else {
            a.heading_rad[i]
        };
        AgentUpdate {
            pos_world: moved.pos_world,
            vel: moved.vel,
            heading_rad,
            flow_dir,
            resolution,
            contacts: moved.contacts,
            overlap_sum: overlap.sum,
            overlap_count: overlap.count,
            overlap_max: overlap.max,
            goal_dist_m: (a.goal_world[i] - moved.pos_world).length(),
            speed_mps: moved.vel.length(),
        }
    }

    /// Radius of the disc collided against walls: the body minus the type's wall buffer
    /// (which already keeps the body off the real walls), never below a tenth of a cell.
    fn wall_radius(&self, i: usize) -> f32 {
        let t = self.agents.type_index[i] as usize;
        collision_radius(
            self.agents.radius_m[i],
            self.nav.wall_buffer_m(t),
            self.nav_grid.cell_size_m,
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
        let p = a.pos_world[i];
        let radius = if self.config.uses_separation_only() {
            a.neighbour_radius_m[i].min(a.radius_m[i] + self.separation_reach_m)
        } else {
            a.neighbour_radius_m[i]
        };
        let r_sq = radius * radius;
        let cap = self.config.max_neighbours.clamp(1, MAX_NEIGHBOURS);
        // Keys `(distance bits << 32) | slot` order like (distance, slot) since squared
        // distances are non-negative floats; one integer compare per candidate instead of
        // a compound float-and-index test. `u64::MAX` marks an empty slot.
        let mut keys = [u64::MAX; MAX_NEIGHBOURS];
        let last = cap - 1;
        let mut filled = 0;
        self.grid.for_each_slots_in_disc(p, radius, |slots| {
            let start = slots.start;
            for (k, n) in self.near[slots].iter().enumerate() {
                let s = start + k;
                let dist_sq = (n.pos_world - p).length_squared();
                let key = if dist_sq <= r_sq && s != own_slot {
                    (u64::from(dist_sq.to_bits()) << 32) | s as u64
                } else {
                    u64::MAX
                };
                // The kept set is the `cap` smallest keys whatever the visit order.
                if key >= keys[last] {
                    continue;
                }
                // Insert from the end of the filled part, not across the empty slots.
                let mut k = if filled < cap {
                    filled += 1;
                    filled - 1
                } else {
                    last
                };
                while k > 0 && keys[k - 1] > key {
                    keys[k] = keys[k - 1];
                    k -= 1;
                }
                keys[k] = key;
            }
        });
        for (slot, &key) in out.iter_mut().zip(&keys[..filled]) {
            *slot = Neighbour {
                slot: key as u32,
                dist_sq: f32::from_bits((key >> 32) as u32),
            };
        }
        filled
    }

    /// The velocity the agent wants from its path alone, and its smoothed flow direction.
    fn desired_velocity(&self, i: usize) -> (Vec2, Vec2) {
        let a = self.agents;
        let old_dir = a.flow_dir[i];
        if !matches!(a.state[i], AgentState::Moving | AgentState::Stuck) {
            return (Vec2::ZERO, old_dir);
        }
        let p = a.pos_world[i];
        let goal = a.goal_world[i];
        let to_goal = goal - p;
        let dist = to_goal.length();
        let cell = self.nav_grid.cell_size_m;
        let sample = a.path[i].and_then(|path| self.nav.sample_flow(path, p));
        let dir = match sample {
            Some(s) if s.line_of_sight => {
                let destination = self
                    .order_destinations
                    .get(a.order[i] as usize)
                    .copied()
                    .unwrap_or(goal);
                let t = a.type_index[i] as usize;
                if goal == destination && dist > 2.0 * cell {
                    s.direction
                } else if dist <= 2.0 * cell {
                    // The flow leads to the goal *cell*; the last two cells go to the point.
                    to_goal.normalize_or_zero()
                } else if segment_is_clear(p / cell, goal / cell, |x, y| self.nav.is_wall(t, x, y))
                {
                    to_goal.normalize_or_zero()
                } else {
                    s.direction
                }
            }
            Some(s) => {
                // Blend in the new direction over about half a cell of travel.
                let travelled = a.vel[i].length() * self.config.step_secs;
                let alpha = (2.0 * travelled / cell).clamp(0.1, 1.0);
                if old_dir == Vec2::ZERO || old_dir.dot(s.direction) < -0.5 {
                    s.direction
                } else {
                    (old_dir + (s.direction - old_dir) * alpha).normalize_or_zero()
                }
            }
            // Off the flow: only the last metres inside the goal cell go straight.
            None if dist < cell => to_goal.normalize_or_zero(),
            // The world is rebuilding under a stamp: keep going until routes are back.
            None if self.replanning => old_dir,
            None => Vec2::ZERO,
        };
        let dir = match a.path[i] {
            Some(path)
                if self.config.techniques.stuck_recovery
                    && a.state[i] == AgentState::Stuck
                    && dist > 2.0 * cell =>
            {
                self.recovery_direction(i, path).unwrap_or(dir)
            }
            _ => dir,
        };
        let slow_radius = (2.0 * a.radius_m[i]).max(cell);
        let speed = a.max_speed[i] * (dist / slow_radius).min(1.0);
        (dir * speed, dir)
    }

    /// Stuck recovery: re-plan the next step from where the agent stands — toward the
    /// centre of the cell its own cell's flow leads to (or, if a wall takes that diagonal
    /// cell, the free one of its two sides) instead of along the interpolated flow, which
    /// beside a wall corner points into the corner.
    fn recovery_direction(&self, i: usize, path: super::navigator::PathId) -> Option<Vec2> {
        let a = self.agents;
        let p = a.pos_world[i];
        let t = a.type_index[i] as usize;
        let g = self.nav_grid;
        let (cx, cy) = g.cell_from_world(p);
        let centre = g.world_from_cell(cx, cy);
        let d = self.nav.sample_flow(path, centre)?.direction;
        let (sx, sy) = (d.x.round() as i32, d.y.round() as i32);
        if (sx, sy) == (0, 0) {
            return None;
        }
        let next = [(cx + sx, cy + sy), (cx + sx, cy), (cx, cy + sy)]
            .into_iter()
            .find(|&(x, y)| (x, y) != (cx, cy) && !self.nav.is_wall(t, x, y))?;
        let to = g.world_from_cell(next.0, next.1) - p;
        let dir = to.normalize_or_zero();
        (dir != Vec2::ZERO).then_some(dir)
    }

    /// Separation: push away from overlapping neighbours (within the margin), scaled by their
    /// kinetic energy relative to ours; and the positional contact push out of actual
    /// overlaps, the lighter agent moving more (never farther than the disc radius in one
    /// step). One pass, so each distance and direction is computed once.
    fn separation_and_push(&self, i: usize, neighbours: &[Neighbour]) -> (Vec2, Vec2, Overlap) {
        let a = self.agents;
        let p = a.pos_world[i];
        let r = a.radius_m[i];
        let own = a.mass[i] * (a.vel[i].length_squared() + 0.25);
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
            if separating {
                let ratio = (nb.energy / own).clamp(0.1, 10.0);
                sum += away * (a.max_force[i] * (1.0 - dist / min_dist) * ratio);
            }
            if touching {
                let depth = touch - dist;
                let share = nb.mass / (a.mass[i] + nb.mass);
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
    fn side_step(
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
        let (side, resolution) = if self.config.techniques.remember_resolutions
            && memory.with == j as u32
            && memory.secs_left > 0.0
        {
            (memory.side, memory)
        } else {
            let secs_left = if self.config.techniques.remember_resolutions {
                REMEMBER_SECS
            } else {
                0.0
            };
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
    fn alignment_cohesion(&self, i: usize, neighbours: &[Neighbour]) -> (Vec2, Vec2) {
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

    /// ORCA (RVO2) via `dodgy_2d`: the velocity closest to `preferred` that avoids the
    /// neighbours; heavier agents take less of the avoidance.
    fn orca(&self, i: usize, neighbours: &[Neighbour], preferred: Vec2) -> Vec2 {
        let a = self.agents;
        let dt = self.config.step_secs;
        let to_glam = |v: Vec2| dodgy_2d::Vec2::new(v.x, v.y);
        let me = dodgy_2d::Agent {
            position: to_glam(a.pos_world[i]),
            velocity: to_glam(a.vel[i]),
            radius: a.radius_m[i],
            avoidance_responsibility: 1.0 / a.mass[i],
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
                    avoidance_responsibility: 1.0 / nb.mass,
                }))
            })
            .collect();
        let options = dodgy_2d::AvoidanceOptions {
            obstacle_margin: 0.0,
            time_horizon: self.config.orca_time_horizon_secs,
            obstacle_time_horizon: self.config.orca_time_horizon_secs,
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

    /// Context steering: interest toward `desired`, danger from neighbours and wall rays,
    /// best slot refined by a parabola through its neighbours' scores.
    fn context(&self, i: usize, slot: usize, neighbours: &[Neighbour], desired: Vec2) -> Vec2 {
        const MAX_SLOTS: usize = 256;
        let a = self.agents;
        let desired_speed = desired.length();
        if desired_speed < 1e-4 {
            return Vec2::ZERO;
        }
        let goal_dir = desired / desired_speed;
        let slots = self.config.context_slots.clamp(4, MAX_SLOTS);
        let step_rad = std::f32::consts::TAU / slots as f32;
        let mut score = [0.0f32; MAX_SLOTS];
        let mut danger = [0.0f32; MAX_SLOTS];
        let p = a.pos_world[i];
        let r = a.radius_m[i];
        let t = a.type_index[i] as usize;
        let cell = self.nav_grid.cell_size_m;
        let wall_r = self.wall_radius(i);
        let ray_len = wall_r + cell.max(a.max_speed[i] * 0.5);
        // Half-cell steps cannot jump a whole wall cell.
        let ray_step = 0.5 * cell;
        let samples = ((ray_len - wall_r) / ray_step).ceil().max(1.0) as usize;
        // Per neighbour: direction to it, closeness (1 touching … 0 at the neighbour radius)
        // and closing velocity relative to our top speed.
        // (Not needed when ORCA writes the neighbours' danger.)
        let use_orca = self.config.techniques.context_orca;
        let proximity = if use_orca { 0 } else { neighbours.len() };
        // Danger of a neighbour that walks our way at our pace, relative to one that stands:
        // none for a member of our own order with `context_pace` (contacts keep its gap).
        let own_order = if a.state[i] == AgentState::Moving {
            a.order[i]
        } else {
            NO_ORDER
        };
        let pace_of = |nb: &NearAgent| {
            if self.config.techniques.context_pace
                && own_order != NO_ORDER
                && nb.moving_order == own_order
            {
                0.0
            } else {
                0.5
            }
        };
        let mut near = [(Vec2::ZERO, 0.0f32, Vec2::ZERO, 0.0f32); MAX_NEIGHBOURS];
        for (entry, n) in near.iter_mut().zip(&neighbours[..proximity]) {
            let nb = &self.near[n.slot as usize];
            let j = nb.index as usize;
            let gap = n.dist_sq.sqrt() - r - nb.radius_m;
            let span = (a.neighbour_radius_m[i] - r - nb.radius_m).max(1e-3);
            let closeness = (1.0 - gap / span).clamp(0.0, 1.0);
            let toward = away_from(nb.pos_world, p, j, i);
            *entry = (
                toward,
                closeness,
                (a.vel[i] - nb.vel) / a.max_speed[i],
                pace_of(nb),
            );
        }
        let near = &near[..proximity];
        // ORCA in the slots: each neighbour's half-plane of safe velocities, the
        // stationary and the lighter taking more of the avoidance (as in contacts).
        let mut planes = [HalfPlane::default(); MAX_NEIGHBOURS];
        let mut plane_count = 0;
        if use_orca {
            let own = &self.near[slot];
            for n in neighbours {
                let nb = &self.near[n.slot as usize];
                let share = nb.priority / (own.priority + nb.priority).max(1e-9);
                if let Some(h) = orca_half_plane(
                    nb.pos_world - p,
                    a.vel[i],
                    nb.vel,
                    r + nb.radius_m,
                    share,
                    self.config.orca_time_horizon_secs,
                ) {
                    planes[plane_count] = h;
                    plane_count += 1;
                }
            }
        }
        let planes = &planes[..plane_count];
        // Slot directions by repeated rotation: two trig calls per agent instead of 2·slots.
        let turn = Vec2::from_angle(step_rad);
        let mut dir = Vec2::new(1.0, 0.0);
        for (k, d) in danger.iter_mut().enumerate().take(slots) {
            if k > 0 {
                dir = Vec2::new(
                    dir.x * turn.x - dir.y * turn.y,
                    dir.x * turn.y + dir.y * turn.x,
                );
            }
            if use_orca {
                *d = slot_danger(planes, dir, desired_speed);
            } else {
                for &(toward_n, closeness, closing_n, pace) in near {
                    let toward = toward_n.dot(dir);
                    if toward > 0.0 && closeness > 0.0 {
                        // A neighbour already moving our way at our speed is less of an
                        // obstacle (none with `context_pace`).
                        let closing = closing_n.dot(dir).clamp(0.0, 1.0);
                        *d = d.max(closeness * toward * toward * (pace + (1.0 - pace) * closing));
                    }
                }
            }
            for s in 1..=samples {
                let dist = wall_r + s as f32 * ray_step;
                let q = p + dir * dist;
                if self
                    .nav
                    .is_wall(t, floor_i32(q.x / cell), floor_i32(q.y / cell))
                {
                    *d = d.max(1.0 - (dist - wall_r) / (ray_len - wall_r).max(1e-3));
                    break;
                }
            }
            let interest = dir.dot(goal_dir).max(0.0);
            score[k] = if use_orca {
                // ORCA's objective along the slot: the velocity on this ray (up to the
                // speed the danger leaves) nearest the desired one; 0 is standing still.
                let along = interest.min(1.0 - *d);
                along * (2.0 * interest - along)
            } else {
                interest - *d
            };
        }
        let mut best = 0;
        for k in 1..slots {
            if score[k] > score[best] {
                best = k;
            }
        }
        if score[best] <= 0.0 {
            return Vec2::ZERO;
        }
        let prev = score[(best + slots - 1) % slots];
        let next = score[(best + 1) % slots];
        let curvature = prev - 2.0 * score[best] + next;
        let offset = if curvature < -1e-6 {
            (0.5 * (prev - next) / curvature).clamp(-0.5, 0.5)
        } else {
            0.0
        };
        let dir = Vec2::from_angle((best as f32 + offset) * step_rad);
        let speed_share = if use_orca {
            dir.dot(goal_dir).max(0.0).min(1.0 - danger[best])
        } else {
            score[best].min(1.0)
        };
        dir * (desired_speed * speed_share)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::rng::SplitMix64;
    use crate::testing::GridNavigator;

    /// Separation-only runs search neighbours only within the separation reach; the lists
    /// must be the full lists cut at that reach (an independent brute force checks both).
    #[test]
    fn separation_only_neighbours_are_the_full_lists_cut_at_the_separation_reach() {
        let mut rng = SplitMix64::new(21);
        let mut a = Agents::default();
        let radii = [0.4f32, 1.2, 1.0];
        for k in 0..2500 {
            let r = radii[k % 3];
            a.pos_world.push(Vec2::new(
                rng.range_f32(0.0, 40.0),
                rng.range_f32(0.0, 40.0),
            ));
            a.vel.push(Vec2::new(rng.range_f32(-1.0, 1.0), 0.0));
            a.radius_m.push(r);
            a.mass.push(80.0 * r);
            a.neighbour_radius_m.push(if r < 1.0 { 3.0 } else { 6.0 });
            a.state.push(AgentState::Moving);
            a.order.push(0);
            a.type_index.push(0);
            a.goal_world.push(Vec2::new(40.0, 40.0));
        }
        let nav = GridNavigator::new(1.0, 64, 64);
        let config = SimConfig::default();
        let reach = 1.2 + config.separation_margin_m;
        let separation_only = SimConfig {
            weights: SteeringWeights {
                avoidance: 0.0,
                alignment: 0.0,
                cohesion: 0.0,
                ..SteeringWeights::default()
            },
            ..config.clone()
        };
        assert!(separation_only.uses_separation_only() && !config.uses_separation_only());
        let lists = |config: &SimConfig, cell_m: f32| {
            let mut grid = SpatialGrid::default();
            grid.rebuild(&a.pos_world, cell_m);
            let near: Vec<NearAgent> = grid
                .sorted_agents()
                .iter()
                .map(|&i| NearAgent::of(&a, i as usize))
                .collect();
            let ctx = StepContext {
                agents: &a,
                grid: &grid,
                near: &near,
                nav: &nav,
                nav_grid: nav.grid(),
                config,
                order_destinations: &[],
                replanning: false,
                separation_reach_m: reach,
            };
            let mut out = vec![Vec::new(); a.pos_world.len()];
            for slot in 0..near.len() {
                let mut n = [Neighbour {
                    slot: 0,
                    dist_sq: 0.0,
                }; MAX_NEIGHBOURS];
                let i = near[slot].index as usize;
                let count = ctx.nearest(i, slot, &mut n);
                out[i] = n[..count]
                    .iter()
                    .map(|n| (near[n.slot as usize].index, n.dist_sq))
                    .collect::<Vec<_>>();
            }
            out
        };
        let full = lists(&config, 3.0);
        let cut = lists(&separation_only, 0.5 * (2.0 * 1.2 + 0.1));
        let mut nonempty = 0;
        for i in 0..a.pos_world.len() {
            let r = a.radius_m[i] + reach;
            let expected: Vec<(u32, f32)> = full[i]
                .iter()
                .copied()
                .filter(|&(_, d)| d <= r * r)
                .collect();
            assert_eq!(cut[i], expected, "agent {i}");
            // Brute force: every agent within the reach, nearest first, capped.
            let mut brute: Vec<(f32, u32)> = (0..a.pos_world.len())
                .filter(|&j| j != i)
                .map(|j| ((a.pos_world[j] - a.pos_world[i]).length_squared(), j as u32))
                .filter(|&(d, _)| d <= r * r && d <= a.neighbour_radius_m[i].powi(2))
                .collect();
            brute.sort_by(|x, y| x.0.total_cmp(&y.0));
            brute.truncate(config.max_neighbours);
            let got: Vec<f32> = cut[i].iter().map(|&(_, d)| d).collect();
            let want: Vec<f32> = brute.iter().map(|&(d, _)| d).collect();
            assert_eq!(got, want, "agent {i}");
            nonempty += usize::from(!cut[i].is_empty());
        }
        assert!(
            nonempty > 1000,
            "the crowd is dense enough to test: {nonempty}"
        );
    }

    #[test]
    fn priority_sum_drops_low_priorities() {
        let f = [
            Vec2::new(3.0, 0.0),
            Vec2::new(0.0, 4.0),
            Vec2::new(-9.0, 0.0),
        ];
        let s = priority_sum(&f, 5.0);
        assert!((s - Vec2::new(3.0, 2.0)).length() < 1e-6);
        assert_eq!(priority_sum(&f, 100.0), Vec2::new(-6.0, 4.0));
    }

    /// Two agents closing head-on whose lateral offset flips sign between two steps (each
    /// side-stepped, which moved the other's closest approach across its path): without
    /// remembered resolutions the agent re-decides and steps back the other way, the
    /// oscillation of seed §001; with them it keeps the side it chose.
    #[test]
    fn a_remembered_resolution_keeps_its_side_when_the_offset_flips() {
        let nav = GridNavigator::new(1.0, 16, 16);
        let side_at = |lateral_m: f32, techniques: Techniques, memory: Resolution| {
            let mut a = Agents::default();
            for (x, y, vx) in [(4.0, 8.0, 2.0), (6.5, 8.0 + lateral_m, -2.0)] {
                a.pos_world.push(Vec2::new(x, y));
                a.vel.push(Vec2::new(vx, 0.0));
                a.radius_m.push(0.4);
                a.mass.push(80.0);
                a.max_force.push(1600.0);
                a.neighbour_radius_m.push(3.0);
                a.state.push(AgentState::Moving);
                a.order.push(0);
                a.type_index.push(0);
                a.goal_world.push(Vec2::new(x + 10.0 * vx, y));
                a.resolution.push(Resolution::default());
            }
            let config = SimConfig {
                techniques,
                ..SimConfig::default()
            };
            let mut grid = SpatialGrid::default();
            grid.rebuild(&a.pos_world, 1.5);
            let near: Vec<NearAgent> = grid
                .sorted_agents()
                .iter()
                .map(|&i| NearAgent::of(&a, i as usize))
                .collect();
            let ctx = StepContext {
                agents: &a,
                grid: &grid,
                near: &near,
                nav: &nav,
                nav_grid: nav.grid(),
                config: &config,
                order_destinations: &[],
                replanning: false,
                separation_reach_m: 0.5,
            };
            let slot = near.iter().position(|n| n.index == 0).unwrap();
            let mut n = [Neighbour {
                slot: 0,
                dist_sq: 0.0,
            }; MAX_NEIGHBOURS];
            let count = ctx.nearest(0, slot, &mut n);
            let (force, decided) = ctx.side_step(0, &n[..count], Vec2::new(2.0, 0.0), memory);
            (force.y.signum(), decided)
        };
        for (remember, keeps) in [(true, true), (false, false)] {
            let techniques = Techniques {
                remember_resolutions: remember,
                ..Techniques::default()
            };
            let (first, memory) = side_at(0.1, techniques, Resolution::default());
            let (second, _) = side_at(-0.1, techniques, memory);
            assert_eq!(first, -1.0, "the neighbour below: step up (−y)");
            assert_eq!(second == first, keeps, "remember {remember}");
        }
    }

    #[test]
    fn coincident_agents_separate_in_opposite_directions() {
        let a = away_from(Vec2::ZERO, Vec2::ZERO, 3, 9);
        let b = away_from(Vec2::ZERO, Vec2::ZERO, 9, 3);
        assert!((a + b).length() < 1e-6 && (a.length() - 1.0).abs() < 1e-5);
    }
}
