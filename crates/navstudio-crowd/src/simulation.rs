//! The crowd simulation: a fixed time step with an accumulator, a seeded RNG, agents in
//! structure-of-arrays, steering computed in parallel from a snapshot and applied serially,
//! group orders with SmartCenter lanes and group arrival by transitive bumping.
//!
//! One step: issue scheduled orders → (rebuild the neighbour grid if agents were added) →
//! steering + integration + wall sliding for every agent in parallel into a buffer → copy
//! the buffer back → rebuild the neighbour grid → arrivals (goal reached, then transitive
//! bumping) → stuck detection → metrics. Every agent's update reads only the snapshot, so
//! the result is the same for any number of threads.
//!
//! The struct and its accessors are here; placing agents is in `spawn`, orders and
//! re-planning in `orders`, follow orders in `follow`, the step itself in `stepping`, and
//! arrivals, the stuck timer and congestion in `arrival`.

use navstudio_nav::MoveType;
use std::collections::VecDeque;

use super::agents::Agents;
use super::archetype::AgentArchetype;
use super::metrics::{CongestionMap, StepMetrics};
use super::navigator::PathId;
use super::rng::SplitMix64;
use super::scenario::Order;
use super::spatial::SpatialGrid;
use super::steering::{AgentUpdate, CrossingPass, NearAgent, SimConfig};
use super::vec2::Vec2;

mod arrival;
mod crossings;
mod follow;
mod links;
mod orders;
mod spawn;
mod stepping;

/// What an order did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderReport {
    /// Id of the order (the same for every agent it moved).
    pub order: u32,
    /// Agents now moving.
    pub moving: u32,
    /// Agents whose movement type cannot reach the goal; they became idle.
    pub unreachable: u32,
    /// Whether SmartCenter lanes were used (otherwise every agent heads for the goal).
    pub lanes: bool,
    /// Paths planned (see [`Simulation::order_routes`] for which types and agents).
    pub routes: u32,
}

#[derive(Clone, Debug)]
struct OrderRecord {
    paths: Vec<PathId>,
    /// The movement type each path was planned for (a mixed selection's agents may follow
    /// a path of a more restrictive type than their own), so re-plans ask for it again.
    path_types: Vec<MoveType>,
    /// Transitive bumping only counts within this distance of an agent's goal: twice the
    /// radius of the disc the whole group would fill when packed. Without it a single-file
    /// column touching back through a corridor would all "arrive" at once. `[Units: m]`
    bump_reach_m: f32,
    /// Agents still on their way.
    live: u32,
    /// A follow order's leader (agent index), whose moves move the order's goal.
    leader: Option<u32>,
    /// Where the leader stood when the order's goals last moved. `[Units: m]`
    leader_at: Vec2,
}

/// The crowd.
#[derive(Debug)]
pub struct Simulation {
    config: SimConfig,
    rng: SplitMix64,
    archetypes: Vec<AgentArchetype>,
    agents: Agents,
    grid: SpatialGrid,
    grid_dirty: bool,
    updates: Vec<AgentUpdate>,
    /// Every agent as its neighbours see it, in grid order (rebuilt each step).
    near: Vec<NearAgent>,
    /// The steering memories the last step kept (`stepping.rs`, [`Kept`]).
    kept: Option<stepping::Kept>,
    /// Per agent, this step's distance to its goal and speed, from the parallel pass (the
    /// serial arrival, progress and metrics passes read them instead of recomputing).
    goal_dist_m: Vec<f32>,
    speed_mps: Vec<f32>,
    /// Positions at the start of the step, and per agent its displacement along its flow
    /// per second, smoothed over `FLOW_SPEED_SECS`: it tells a queue's head on its way from
    /// one pressed into a crowd (`classify_stalled`).
    step_start_pos: Vec<Vec2>,
    flow_speed_mps: Vec<f32>,
    /// Per agent, whether it touched another at the start of this step (the position
    /// passes only move those; written only in steps that run them).
    overlapping: Vec<bool>,
    orders: Vec<OrderRecord>,
    order_destinations: Vec<Vec2>,
    /// Per order, the goal set beyond its destination (empty: a single-goal order), so a
    /// re-plan asks for the same set.
    order_more_goals: Vec<Vec<Vec2>>,
    /// Per order, `(movement type the path was planned for, agents on it)` per path.
    order_routes: Vec<Vec<(MoveType, u32)>>,
    scheduled: Vec<Order>,
    next_scheduled: usize,
    step_index: u64,
    accumulator_secs: f64,
    max_radius_m: f32,
    max_neighbour_radius_m: f32,
    last: StepMetrics,
    history: VecDeque<StepMetrics>,
    /// Slow agent-seconds per cell, when tracked ([`Self::track_congestion`]).
    congestion: Option<CongestionMap>,
    /// Whether each step classifies agents' collision states
    /// ([`Self::track_collision_states`]).
    collision_states: bool,
    /// [`Navigator::walls_version`] and [`Navigator::routes_version`] last acted on.
    seen_walls_version: u64,
    seen_routes_version: u64,
    /// Agents on nav links (see `links.rs`).
    links: links::LinkTraffic,
    /// Per order, the crossing its group passes, and how many orders the plan has seen
    /// (`crossings.rs`).
    order_crossing: Vec<Option<CrossingPass>>,
    crossings_planned_for: usize,
}

impl Simulation {
    /// An empty simulation.
    #[must_use]
    pub fn new(config: SimConfig, seed: u64) -> Self {
        Self {
            config,
            rng: SplitMix64::new(seed),
            archetypes: Vec::new(),
            agents: Agents::default(),
            grid: SpatialGrid::default(),
            grid_dirty: true,
            updates: Vec::new(),
            near: Vec::new(),
            kept: None,
            goal_dist_m: Vec::new(),
            speed_mps: Vec::new(),
            step_start_pos: Vec::new(),
            flow_speed_mps: Vec::new(),
            overlapping: Vec::new(),
            orders: Vec::new(),
            order_destinations: Vec::new(),
            order_more_goals: Vec::new(),
            order_routes: Vec::new(),
            scheduled: Vec::new(),
            next_scheduled: 0,
            step_index: 0,
            accumulator_secs: 0.0,
            max_radius_m: 0.0,
            max_neighbour_radius_m: 0.0,
            last: StepMetrics::default(),
            history: VecDeque::new(),
            congestion: None,
            collision_states: false,
            seen_walls_version: 0,
            seen_routes_version: 0,
            links: links::LinkTraffic::default(),
            order_crossing: Vec::new(),
            crossings_planned_for: 0,
        }
    }

    /// The agents (read-only; change them through orders).
    #[must_use]
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// Archetypes of the agents, indexed by `Agents::archetype`.
    #[must_use]
    pub fn archetypes(&self) -> &[AgentArchetype] {
        &self.archetypes
    }

    /// Settings.
    #[must_use]
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Settings, to tune between steps (mode, weights …).
    pub fn config_mut(&mut self) -> &mut SimConfig {
        &mut self.config
    }

    /// Starts (or stops) classifying each agent's collision state every step
    /// ([`crate::Collision`], counted in [`StepMetrics`]). Nothing in the simulation reads
    /// the states, so they are worked out only for a viewer (the editor, `navstudio
    /// crowd`): two predictions over each agent's neighbours cost 5–8 % of a boids step's
    /// CPU. Off: every agent stays clear.
    pub fn track_collision_states(&mut self, on: bool) {
        self.collision_states = on;
    }

    /// Steps taken so far.
    #[must_use]
    pub fn step_index(&self) -> u64 {
        self.step_index
    }

    /// Simulated time so far: steps taken × the step. `[Units: s]`
    #[must_use]
    pub fn sim_secs(&self) -> f64 {
        self.step_index as f64 * f64::from(self.config.step_secs)
    }

    /// Metrics of the last step.
    #[must_use]
    pub fn metrics(&self) -> StepMetrics {
        self.last
    }

    /// Metrics of recent steps, oldest first (the last minute at 60 Hz).
    #[must_use]
    pub fn metrics_history(&self) -> &VecDeque<StepMetrics> {
        &self.history
    }

    /// Destination of an order (before lane offsets).
    #[must_use]
    pub fn order_destination(&self, order: u32) -> Option<Vec2> {
        self.order_destinations.get(order as usize).copied()
    }

    /// The crossings orders with agents still on their way pass (`crossings.rs`), each
    /// once: its centre and the radius of its disc.
    #[must_use]
    pub fn crossings(&self) -> Vec<(Vec2, f32)> {
        let mut out: Vec<(Vec2, f32)> = Vec::new();
        for (pass, order) in self.order_crossing.iter().zip(&self.orders) {
            if let Some(c) = pass
                && order.live > 0
                && !out.contains(&(c.centre_world, c.radius_m))
            {
                out.push((c.centre_world, c.radius_m));
            }
        }
        out
    }
}
