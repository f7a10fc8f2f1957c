//! The crowd simulation: a fixed time step with an accumulator, a seeded RNG, agents in
//! structure-of-arrays, steering computed in parallel from a snapshot and applied serially,
//! group orders with SmartCenter lanes and group arrival by transitive bumping.
//!
//! One step: issue scheduled orders → (rebuild the neighbour grid if agents were added) →
//! steering + integration + wall sliding for every agent in parallel into a buffer → copy
//! the buffer back → rebuild the neighbour grid → arrivals (goal reached, then transitive
//! bumping) → stuck detection → metrics. Every agent's update reads only the snapshot, so
//! the result is the same for any number of threads.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use rayon::prelude::*;

use super::agents::{AgentId, AgentState, Agents, NO_ORDER, Resolution};
use super::archetype::AgentArchetype;
use super::error::CrowdError;
use super::groups::lane_targets;
use super::metrics::{CongestionMap, StepMetrics};
use super::navigator::{NavGrid, Navigator, PathId};
use super::resolve;
use super::rng::SplitMix64;
use super::scenario::{Order, Scenario, Spawn, SpawnArea};
use super::spatial::SpatialGrid;
use super::steering::{AgentUpdate, NearAgent, SimConfig, StepContext};
use super::vec2::Vec2;
use super::walls::{collision_radius, move_disc, segment_is_clear};

/// Position passes that open overlaps after each step.
const PROJECTION_PASSES: usize = 2;
/// Agents per parallel work item.
const CHUNK: usize = 256;
/// Steps of metrics kept for plots (one minute at 60 Hz).
const HISTORY_LEN: usize = 3600;
/// Random tries per agent before a rectangle spawn gives up on that agent.
const SPAWN_TRIES: u32 = 64;
/// How far (in cells) an agent caught inside a new wall looks for free ground.
const EVICT_SEARCH_CELLS: i32 = 64;

/// Agents already standing, bucketed for a rectangle spawn's "is this spot free?" (a spawn
/// of 20,000 must not compare every try with every agent).
struct Occupancy {
    bucket_m: f32,
    cells: rustc_hash::FxHashMap<(i32, i32), Vec<u32>>,
}

impl Occupancy {
    fn new(agents: &Agents, new_radius_m: f32) -> Self {
        let r_max = agents.radius_m.iter().copied().fold(new_radius_m, f32::max);
        let mut o = Self {
            bucket_m: (2.0 * r_max).max(1e-3),
            cells: rustc_hash::FxHashMap::default(),
        };
        for (i, &p) in agents.pos_world.iter().enumerate() {
            o.add(p, i as u32);
        }
        o
    }

    fn key(&self, p: Vec2) -> (i32, i32) {
        (
            (p.x / self.bucket_m).floor() as i32,
            (p.y / self.bucket_m).floor() as i32,
        )
    }

    fn add(&mut self, p: Vec2, id: u32) {
        let k = self.key(p);
        self.cells.entry(k).or_default().push(id);
    }

    /// No agent's disc overlaps a disc of `radius_m` at `p` (buckets are at least a
    /// diameter of the largest agent, so the 3 × 3 around `p` hold every candidate).
    fn is_free(&self, agents: &Agents, p: Vec2, radius_m: f32) -> bool {
        let (kx, ky) = self.key(p);
        for y in ky - 1..=ky + 1 {
            for x in kx - 1..=kx + 1 {
                for &j in self.cells.get(&(x, y)).map_or(&[][..], Vec::as_slice) {
                    let j = j as usize;
                    let reach = agents.radius_m[j] + radius_m;
                    if (agents.pos_world[j] - p).length_squared() < reach * reach {
                        return false;
                    }
                }
            }
        }
        true
    }
}

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
    path_types: Vec<u32>,
    /// Transitive bumping only counts within this distance of an agent's goal: twice the
    /// radius of the disc the whole group would fill when packed. Without it a single-file
    /// column touching back through a corridor would all "arrive" at once. `[Units: m]`
    bump_reach_m: f32,
    /// Agents still on their way.
    live: u32,
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
    /// Per agent, this step's distance to its goal and speed, from the parallel pass (the
    /// serial arrival, progress and metrics passes read them instead of recomputing).
    goal_dist_m: Vec<f32>,
    speed_mps: Vec<f32>,
    /// Per agent, whether it touched another at the start of this step (the position
    /// passes only move those).
    overlapping: Vec<bool>,
    orders: Vec<OrderRecord>,
    order_destinations: Vec<Vec2>,
    /// Per order, the goal set beyond its destination (empty: a single-goal order), so a
    /// re-plan asks for the same set.
    order_more_goals: Vec<Vec<Vec2>>,
    /// Per order, `(movement type the path was planned for, agents on it)` per path.
    order_routes: Vec<Vec<(u32, u32)>>,
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
    /// [`Navigator::walls_version`] and [`Navigator::routes_version`] last acted on.
    seen_walls_version: u64,
    seen_routes_version: u64,
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
            goal_dist_m: Vec::new(),
            speed_mps: Vec::new(),
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
            seen_walls_version: 0,
            seen_routes_version: 0,
        }
    }

    /// Builds a simulation from a scenario: spawns its agents and schedules its orders.
    ///
    /// # Errors
    /// [`CrowdError::UnknownArchetype`] when a spawn names an archetype not in `archetypes`,
    /// [`CrowdError::UnknownMovementType`] / [`CrowdError::InvalidArchetype`] from
    /// [`Self::add_agent`].
    pub fn from_scenario<N: Navigator + ?Sized>(
        scenario: &Scenario,
        archetypes: &[AgentArchetype],
        nav: &N,
    ) -> Result<Self, CrowdError> {
        let mut sim = Self::new(scenario.config.clone(), scenario.seed);
        for spawn in &scenario.spawns {
            let archetype = archetypes
                .iter()
                .find(|a| a.name == spawn.archetype)
                .ok_or_else(|| CrowdError::UnknownArchetype {
                    name: spawn.archetype.clone(),
                })?;
            sim.spawn(nav, archetype, spawn)?;
        }
        sim.scheduled = scenario.orders.clone();
        sim.scheduled.sort_by_key(|o| o.at_step);
        Ok(sim)
    }

    /// Adds one idle agent; `Ok(None)` when `pos_world` is in a wall (or off the map) for
    /// its movement type.
    ///
    /// # Errors
    /// [`CrowdError::InvalidArchetype`] for a bad parameter, [`CrowdError::UnknownMovementType`]
    /// when the navigator lacks the archetype's movement type.
    pub fn add_agent<N: Navigator + ?Sized>(
        &mut self,
        nav: &N,
        archetype: &AgentArchetype,
        pos_world: Vec2,
        group: u32,
    ) -> Result<Option<AgentId>, CrowdError> {
        archetype.validate()?;
        let type_index = nav
            .movement_type_index(&archetype.movement_type)
            .ok_or_else(|| CrowdError::UnknownMovementType {
                archetype: archetype.name.clone(),
                movement_type: archetype.movement_type.clone(),
            })?;
        let (cx, cy) = nav.grid().cell_from_world(pos_world);
        if !pos_world.is_finite() || nav.is_wall(type_index, cx, cy) {
            return Ok(None);
        }
        let archetype_index = match self.archetypes.iter().position(|a| a == archetype) {
            Some(k) => k,
            None => {
                self.archetypes.push(archetype.clone());
                self.archetypes.len() - 1
            }
        };
        let a = &mut self.agents;
        let id = AgentId(a.len() as u32);
        a.pos_world.push(pos_world);
        a.vel.push(Vec2::ZERO);
        a.heading_rad.push(0.0);
        a.radius_m.push(archetype.radius_m);
        a.mass.push(archetype.mass);
        a.max_force.push(archetype.max_force);
        a.max_speed.push(archetype.max_speed);
        a.neighbour_radius_m.push(archetype.neighbour_radius_m);
        a.type_index.push(type_index as u32);
        a.archetype.push(archetype_index as u32);
        a.group.push(group);
        a.order.push(NO_ORDER);
        a.goal_world.push(pos_world);
        a.path.push(None);
        a.state.push(AgentState::Idle);
        a.flow_dir.push(Vec2::ZERO);
        a.best_goal_dist_m.push(0.0);
        a.no_progress_secs.push(0.0);
        a.resolution.push(Resolution::default());
        self.max_radius_m = self.max_radius_m.max(archetype.radius_m);
        self.max_neighbour_radius_m = self
            .max_neighbour_radius_m
            .max(archetype.neighbour_radius_m);
        self.grid_dirty = true;
        Ok(Some(id))
    }

    /// Places a spawn's agents (seeded); returns how many were placed — fewer than asked
    /// when the area has too little free ground.
    ///
    /// # Errors
    /// As [`Self::add_agent`].
    pub fn spawn<N: Navigator + ?Sized>(
        &mut self,
        nav: &N,
        archetype: &AgentArchetype,
        spawn: &Spawn,
    ) -> Result<u32, CrowdError> {
        let mut placed = 0;
        match spawn.area {
            SpawnArea::Rect {
                min_world,
                max_world,
            } => {
                let type_index = nav.movement_type_index(&archetype.movement_type);
                let mut taken = Occupancy::new(&self.agents, archetype.radius_m);
                for _ in 0..spawn.count {
                    // Prefer ground no agent stands on (a tank dropped on infantry); when the
                    // area is that full, the first wall-free try, pushed apart by the step.
                    let mut fallback = None;
                    let mut placed_here = false;
                    for _ in 0..SPAWN_TRIES {
                        let p = Vec2::new(
                            self.rng.range_f32(min_world.x, max_world.x),
                            self.rng.range_f32(min_world.y, max_world.y),
                        );
                        let (cx, cy) = nav.grid().cell_from_world(p);
                        if type_index.is_some_and(|t| nav.is_wall(t, cx, cy)) {
                            continue;
                        }
                        if !taken.is_free(&self.agents, p, archetype.radius_m) {
                            fallback = fallback.or(Some(p));
                            continue;
                        }
                        if let Some(id) = self.add_agent(nav, archetype, p, spawn.group)? {
                            taken.add(p, id.0);
                            placed += 1;
                            placed_here = true;
                            break;
                        }
                    }
                    if !placed_here
                        && let Some(p) = fallback
                        && let Some(id) = self.add_agent(nav, archetype, p, spawn.group)?
                    {
                        taken.add(p, id.0);
                        placed += 1;
                    }
                }
            }
            SpawnArea::Center { center_world } => {
                // Vogel's sunflower spiral: about hexagonal packing at 2.2 radii apart.
                let spacing = 2.2 * archetype.radius_m;
                let golden_rad = std::f32::consts::PI * (3.0 - 5f32.sqrt());
                let mut k = 0u32;
                while placed < spawn.count && k < spawn.count.saturating_mul(4) {
                    let r = 0.6 * spacing * (k as f32).sqrt();
                    let p = center_world + Vec2::from_angle(k as f32 * golden_rad) * r;
                    if self.add_agent(nav, archetype, p, spawn.group)?.is_some() {
                        placed += 1;
                    }
                    k += 1;
                }
            }
        }
        Ok(placed)
    }

    /// Orders the selection to `goal_world`.
    ///
    /// A mixed selection follows SupCom2's rule: the most restrictive movement type plans
    /// for every agent it can serve, further paths only for the rest. Types are taken from
    /// the most restrictive (fewest passable cells) on; each plans one path with every
    /// agent not yet served whose own type passes at least its cells
    /// ([`Navigator::passable_subset`], derived from the baked layers, not from names) as
    /// sources, and every such agent on that path's island ([`Navigator::reaches`]) follows
    /// it. So tanks, infantry and large walkers take the large walkers' route, and only
    /// agents it cannot serve — hovercraft on a lake, agents on other islands — get their
    /// own type's path ([`Self::order_routes`] lists them). Agents no path serves become
    /// idle.
    /// Lanes come from SmartCenter over all the agents that got a path (see
    /// [`super::groups`]); a lane whose target is a wall, or behind a wall as seen from the
    /// goal, falls back to the goal itself.
    pub fn order_move<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        selection: &[AgentId],
        goal_world: Vec2,
    ) -> OrderReport {
        let mut ids: Vec<usize> = selection
            .iter()
            .map(|id| id.0 as usize)
            .filter(|&i| i < self.agents.len())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for &i in &ids {
            self.leave_order(nav, i);
        }
        let order_id = self.orders.len() as u32;
        let mut by_type: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for &i in &ids {
            by_type
                .entry(self.agents.type_index[i])
                .or_default()
                .push(i);
        }
        let mut paths = Vec::new();
        let mut path_types = Vec::new();
        let mut routes = Vec::new();
        let mut moving = Vec::new();
        let mut types: Vec<u32> = by_type.keys().copied().collect();
        types.sort_by_key(|&t| (nav.passable_cells(t as usize), t));
        let mut unserved: Vec<usize> = ids.clone();
        let mut served_flag = vec![false; self.agents.len()];
        for &r in &types {
            let members: Vec<usize> = unserved
                .iter()
                .copied()
                .filter(|&i| {
                    let t = self.agents.type_index[i];
                    t == r || nav.passable_subset(r as usize, t as usize)
                })
                .collect();
            if members.is_empty() || !goal_world.is_finite() {
                continue;
            }
            let sources: Vec<Vec2> = members.iter().map(|&i| self.agents.pos_world[i]).collect();
            let Some(path) = nav.request_path(r as usize, &sources, goal_world) else {
                continue;
            };
            let before = moving.len();
            for &i in &members {
                // A source on another island than the goal shares no route: a later, less
                // restrictive type may still serve it.
                if nav.reaches(path, self.agents.pos_world[i]) {
                    self.agents.path[i] = Some(path);
                    moving.push(i);
                    served_flag[i] = true;
                }
            }
            let served = moving.len() - before;
            if served > 0 {
                unserved.retain(|&i| !served_flag[i]);
                paths.push(path);
                path_types.push(r);
                routes.push((r, served as u32));
            } else {
                nav.release_path(path);
            }
        }
        let unreachable = unserved.len() as u32;
        moving.sort_unstable();
        let positions: Vec<Vec2> = moving.iter().map(|&i| self.agents.pos_world[i]).collect();
        let radii: Vec<f32> = moving.iter().map(|&i| self.agents.radius_m[i]).collect();
        let lanes = lane_targets(&positions, &radii, goal_world);
        let cell = nav.grid().cell_size_m;
        for (k, &i) in moving.iter().enumerate() {
            let t = self.agents.type_index[i] as usize;
            let goal = match &lanes {
                Some(lanes) => {
                    let lane = lanes[k];
                    let (cx, cy) = nav.grid().cell_from_world(lane);
                    let usable = !nav.is_wall(t, cx, cy)
                        && segment_is_clear(goal_world / cell, lane / cell, |x, y| {
                            nav.is_wall(t, x, y)
                        });
                    if usable { lane } else { goal_world }
                }
                None => goal_world,
            };
            let a = &mut self.agents;
            a.goal_world[i] = goal;
            a.order[i] = order_id;
            a.state[i] = AgentState::Moving;
            a.flow_dir[i] = Vec2::ZERO;
            a.best_goal_dist_m[i] = (goal - a.pos_world[i]).length();
            a.no_progress_secs[i] = 0.0;
        }
        // Packed discs fill about 80 % of the area they cover.
        let area_m2: f32 = radii
            .iter()
            .map(|r| std::f32::consts::PI * r * r / 0.8)
            .sum();
        let bump_reach_m = 2.0 * (area_m2 / std::f32::consts::PI).sqrt();
        let route_count = routes.len() as u32;
        self.orders.push(OrderRecord {
            paths,
            path_types,
            bump_reach_m,
            live: moving.len() as u32,
        });
        self.order_destinations.push(goal_world);
        self.order_more_goals.push(Vec::new());
        self.order_routes.push(routes);
        if moving.is_empty() {
            self.release_order(nav, order_id);
        }
        OrderReport {
            order: order_id,
            moving: moving.len() as u32,
            unreachable,
            lanes: lanes.is_some(),
            routes: route_count,
        }
    }

    /// The paths an order planned: `(movement type index the path was planned for, agents
    /// following it)`, most restrictive type first (see [`Self::order_move`]).
    #[must_use]
    pub fn order_routes(&self, order: u32) -> &[(u32, u32)] {
        self.order_routes
            .get(order as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// Orders the selection to the nearest of a goal set (SEEDS §002: exits, depots, a
    /// building's entrances): one path per movement type to all of `goals_world`
    /// ([`Navigator::request_path_to_any`]), and each agent heads for the goal its flow
    /// leads to ([`Navigator::goal_reached`], else the nearest in a straight line). Agents
    /// going to the same goal share SmartCenter lanes. One goal is [`Self::order_move`].
    pub fn order_move_to_any<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        selection: &[AgentId],
        goals_world: &[Vec2],
    ) -> OrderReport {
        let goals: Vec<Vec2> = goals_world
            .iter()
            .copied()
            .filter(|g| g.is_finite())
            .collect();
        match goals.as_slice() {
            [] => return self.order_move(nav, selection, Vec2::new(f32::NAN, f32::NAN)),
            [one] => return self.order_move(nav, selection, *one),
            _ => {}
        }
        let mut ids: Vec<usize> = selection
            .iter()
            .map(|id| id.0 as usize)
            .filter(|&i| i < self.agents.len())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for &i in &ids {
            self.leave_order(nav, i);
        }
        let order_id = self.orders.len() as u32;
        let mut by_type: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for &i in &ids {
            by_type
                .entry(self.agents.type_index[i])
                .or_default()
                .push(i);
        }
        let mut paths = Vec::new();
        let mut path_types = Vec::new();
        let mut routes = Vec::new();
        // Per goal (index into `goals`), the agents heading there.
        let mut by_goal: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut unreachable = 0;
        for (t, members) in by_type {
            let sources: Vec<Vec2> = members.iter().map(|&i| self.agents.pos_world[i]).collect();
            let Some(path) = nav.request_path_to_any(t as usize, &sources, &goals) else {
                unreachable += members.len() as u32;
                continue;
            };
            let mut used = 0;
            for &i in &members {
                let p = self.agents.pos_world[i];
                if !nav.reaches(path, p) {
                    unreachable += 1;
                    continue;
                }
                let reached = nav.goal_reached(path, p);
                let k = (0..goals.len())
                    .min_by(|&a, &b| {
                        let d = |k: usize| (reached.unwrap_or(p) - goals[k]).length();
                        d(a).total_cmp(&d(b))
                    })
                    .unwrap_or(0);
                self.agents.path[i] = Some(path);
                by_goal.entry(k).or_default().push(i);
                used += 1;
            }
            if used > 0 {
                paths.push(path);
                path_types.push(t);
                routes.push((t, used));
            } else {
                nav.release_path(path);
            }
        }
        let cell = nav.grid().cell_size_m;
        let mut moving = 0;
        let mut any_lanes = false;
        let mut area_m2 = 0.0_f32;
        for (k, members) in by_goal {
            let goal_world = goals[k];
            let positions: Vec<Vec2> = members.iter().map(|&i| self.agents.pos_world[i]).collect();
            let radii: Vec<f32> = members.iter().map(|&i| self.agents.radius_m[i]).collect();
            let lanes = lane_targets(&positions, &radii, goal_world);
            any_lanes |= lanes.is_some();
            for (j, &i) in members.iter().enumerate() {
                let t = self.agents.type_index[i] as usize;
                let goal = match &lanes {
                    Some(lanes) => {
                        let lane = lanes[j];
                        let (cx, cy) = nav.grid().cell_from_world(lane);
                        let usable = !nav.is_wall(t, cx, cy)
                            && segment_is_clear(goal_world / cell, lane / cell, |x, y| {
                                nav.is_wall(t, x, y)
                            });
                        if usable { lane } else { goal_world }
                    }
                    None => goal_world,
                };
                let a = &mut self.agents;
                a.goal_world[i] = goal;
                a.order[i] = order_id;
                a.state[i] = AgentState::Moving;
                a.flow_dir[i] = Vec2::ZERO;
                a.best_goal_dist_m[i] = (goal - a.pos_world[i]).length();
                a.no_progress_secs[i] = 0.0;
                area_m2 += std::f32::consts::PI * radii[j] * radii[j] / 0.8;
                moving += 1;
            }
        }
        let route_count = routes.len() as u32;
        self.orders.push(OrderRecord {
            paths,
            path_types,
            bump_reach_m: 2.0 * (area_m2 / std::f32::consts::PI).sqrt(),
            live: moving,
        });
        self.order_destinations.push(goals[0]);
        self.order_more_goals.push(goals[1..].to_vec());
        self.order_routes.push(routes);
        if moving == 0 {
            self.release_order(nav, order_id);
        }
        OrderReport {
            order: order_id,
            moving,
            unreachable,
            lanes: any_lanes,
            routes: route_count,
        }
    }

    /// Orders every agent of `group` to `goal_world`; see [`Self::order_move`].
    pub fn order_group<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        group: u32,
        goal_world: Vec2,
    ) -> OrderReport {
        let selection: Vec<AgentId> = (0..self.agents.len())
            .filter(|&i| self.agents.group[i] == group)
            .map(|i| AgentId(i as u32))
            .collect();
        self.order_move(nav, &selection, goal_world)
    }

    /// Takes an agent off its order (idle, no path), releasing the order's paths when it
    /// was the last one travelling.
    fn leave_order<N: Navigator + ?Sized>(&mut self, nav: &mut N, i: usize) {
        let order = self.agents.order[i];
        let travelling = matches!(self.agents.state[i], AgentState::Moving | AgentState::Stuck);
        self.agents.order[i] = NO_ORDER;
        self.agents.path[i] = None;
        self.agents.state[i] = AgentState::Idle;
        if travelling {
            self.finish_travel(nav, order);
        }
    }

    fn finish_travel<N: Navigator + ?Sized>(&mut self, nav: &mut N, order: u32) {
        if let Some(record) = self.orders.get_mut(order as usize) {
            record.live = record.live.saturating_sub(1);
            if record.live == 0 {
                self.release_order(nav, order);
            }
        }
    }

    fn release_order<N: Navigator + ?Sized>(&mut self, nav: &mut N, order: u32) {
        if let Some(record) = self.orders.get_mut(order as usize) {
            for path in record.paths.drain(..) {
                nav.release_path(path);
            }
        }
    }

    /// Runs as many fixed steps as `dt_secs` (plus the leftover from earlier calls) covers,
    /// at most `SimConfig::max_steps_per_advance`; returns the steps taken.
    pub fn advance<N: Navigator + ?Sized>(&mut self, nav: &mut N, dt_secs: f64) -> u32 {
        self.advance_within(nav, dt_secs, None)
    }

    /// As [`Self::advance`], but with a wall-clock budget for an interactive frame: after
    /// the first step, another is taken only if the time spent so far plus the last step's
    /// time stays within `budget`. The time not stepped is dropped as for the step cap, so a
    /// crowd too big for the machine runs slower than real time instead of stalling frames.
    /// The steps themselves are the same, so trajectories do not depend on the budget.
    pub fn advance_within<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        dt_secs: f64,
        budget: Option<std::time::Duration>,
    ) -> u32 {
        let started = Instant::now();
        let step = f64::from(self.config.step_secs.max(1e-4));
        if dt_secs.is_finite() && dt_secs > 0.0 {
            self.accumulator_secs += dt_secs;
        }
        let mut taken = 0;
        while self.accumulator_secs >= step && taken < self.config.max_steps_per_advance.max(1) {
            if let Some(budget) = budget
                && taken > 0
                && started.elapsed().as_secs_f64() + self.last.step_secs > budget.as_secs_f64()
            {
                break;
            }
            self.step(nav);
            self.accumulator_secs -= step;
            taken += 1;
        }
        // Time the cap refused is dropped, not owed: a stalled frame must not snowball.
        self.accumulator_secs = self.accumulator_secs.min(step);
        taken
    }

    /// One fixed step of `SimConfig::step_secs`.
    pub fn step<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let started = Instant::now();
        let walls_version = nav.walls_version();
        if walls_version != self.seen_walls_version {
            self.seen_walls_version = walls_version;
            self.evict_from_walls(&*nav);
        }
        let routes_version = nav.routes_version();
        if routes_version != self.seen_routes_version {
            self.seen_routes_version = routes_version;
            self.replan(nav);
        }
        while let Some(order) = self.scheduled.get(self.next_scheduled).cloned() {
            if order.at_step > self.step_index {
                break;
            }
            if order.more_goals_world.is_empty() {
                self.order_group(nav, order.group, order.goal_world);
            } else {
                let goals: Vec<Vec2> = std::iter::once(order.goal_world)
                    .chain(order.more_goals_world.iter().copied())
                    .collect();
                let selection: Vec<AgentId> = (0..self.agents.len())
                    .filter(|&i| self.agents.group[i] == order.group)
                    .map(|i| AgentId(i as u32))
                    .collect();
                self.order_move_to_any(nav, &selection, &goals);
            }
            self.next_scheduled += 1;
        }
        if self.grid_dirty {
            self.grid
                .rebuild(&self.agents.pos_world, self.grid_cell_m());
            self.grid_dirty = false;
        }

        let n = self.agents.len();
        self.updates.resize(n, AgentUpdate::default());
        {
            let agents = &self.agents;
            self.near.clear();
            self.near.par_extend(
                self.grid
                    .sorted_agents()
                    .par_iter()
                    .map(|&i| NearAgent::of(agents, i as usize)),
            );
            let ctx = StepContext {
                agents: &self.agents,
                grid: &self.grid,
                near: &self.near,
                nav: &*nav,
                nav_grid: nav.grid(),
                config: &self.config,
                order_destinations: &self.order_destinations,
                replanning: nav.replanning(),
                separation_reach_m: self.max_radius_m + self.config.separation_margin_m,
            };
            // Agents are visited in grid order (spatial neighbours together, for the cache);
            // `updates[k]` belongs to the agent in grid slot `k`.
            self.updates
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, out)| {
                    for (k, u) in out.iter_mut().enumerate() {
                        *u = ctx.update(c * CHUNK + k);
                    }
                });
        }

        let mut collisions = 0u32;
        let (mut overlap_sum, mut overlap_count, mut overlap_max) = (0.0f64, 0u64, 0.0f32);
        let a = &mut self.agents;
        self.goal_dist_m.resize(n, 0.0);
        self.speed_mps.resize(n, 0.0);
        self.overlapping.resize(n, false);
        for (&i, u) in self.grid.sorted_agents().iter().zip(&self.updates) {
            let i = i as usize;
            a.pos_world[i] = u.pos_world;
            a.vel[i] = u.vel;
            a.heading_rad[i] = u.heading_rad;
            a.flow_dir[i] = u.flow_dir;
            a.resolution[i] = u.resolution;
            self.goal_dist_m[i] = u.goal_dist_m;
            self.speed_mps[i] = u.speed_mps;
            collisions = collisions.saturating_add(u.contacts);
            self.overlapping[i] = u.overlap_count > 0;
            overlap_sum += f64::from(u.overlap_sum);
            overlap_count += u64::from(u.overlap_count);
            overlap_max = overlap_max.max(u.overlap_max);
        }
        self.grid
            .rebuild(&self.agents.pos_world, self.grid_cell_m());
        if self.config.techniques.resolve_contacts {
            self.open_overlaps(&*nav);
        }

        self.resolve_arrivals(nav);
        self.track_progress();
        self.add_congestion(nav.grid());

        let a = &self.agents;
        let mut metrics = StepMetrics {
            step: self.step_index,
            collisions_resolved: collisions,
            overlap_mean: if overlap_count > 0 {
                (overlap_sum / overlap_count as f64) as f32
            } else {
                0.0
            },
            overlap_max,
            ..StepMetrics::default()
        };
        let mut speed_sum = 0.0f64;
        for i in 0..n {
            match a.state[i] {
                AgentState::Arrived => metrics.arrived += 1,
                AgentState::Moving => metrics.moving += 1,
                AgentState::Stuck => metrics.stuck += 1,
                AgentState::Idle => {}
            }
            speed_sum += f64::from(self.speed_mps[i]);
        }
        metrics.mean_speed_mps = if n > 0 {
            (speed_sum / n as f64) as f32
        } else {
            0.0
        };
        metrics.step_secs = started.elapsed().as_secs_f64();
        self.last = metrics;
        if self.history.len() == HISTORY_LEN {
            self.history.pop_front();
        }
        self.history.push_back(metrics);
        self.step_index += 1;
    }

    /// Position passes that push overlapping agents apart, heavier and travelling agents
    /// moving less ([`resolve::overlap_corrections`]), each move through the walls'
    /// collision so walls stay solid. Only agents that overlapped this step are moved.
    fn open_overlaps<N: Navigator + ?Sized>(&mut self, nav: &N) {
        if !self.overlapping.contains(&true) {
            return;
        }
        let active = std::mem::take(&mut self.overlapping);
        let cell = nav.grid().cell_size_m;
        let ids: Vec<usize> = (0..active.len()).filter(|&i| active[i]).collect();
        let mut moved = vec![Vec2::ZERO; ids.len()];
        for _ in 0..PROJECTION_PASSES {
            let (a, grid, max_r) = (&self.agents, &self.grid, self.max_radius_m);
            moved
                .par_iter_mut()
                .zip(&ids)
                .with_min_len(CHUNK)
                .for_each(|(out, &i)| {
                    let c = resolve::overlap_correction(a, grid, i, a.radius_m[i] + max_r);
                    *out = if c == Vec2::ZERO {
                        a.pos_world[i]
                    } else {
                        let t = a.type_index[i] as usize;
                        let wall_r = collision_radius(a.radius_m[i], nav.wall_buffer_m(t), cell);
                        move_disc(a.pos_world[i], a.vel[i], c, wall_r, cell, |x, y| {
                            nav.is_wall(t, x, y)
                        })
                        .pos_world
                    };
                });
            for (&i, &p) in ids.iter().zip(&moved) {
                self.agents.pos_world[i] = p;
            }
        }
        self.overlapping = active;
        self.grid
            .rebuild(&self.agents.pos_world, self.grid_cell_m());
    }

    /// Moves every agent whose centre is in a wall cell of its type (a stamp dropped on it)
    /// to the centre of the nearest free cell, stopped; returns how many moved. Agents with
    /// no free cell within `EVICT_SEARCH_CELLS` stay.
    pub fn evict_from_walls<N: Navigator + ?Sized>(&mut self, nav: &N) -> u32 {
        let grid = nav.grid();
        let mut moved = 0;
        let a = &mut self.agents;
        for i in 0..a.len() {
            let t = a.type_index[i] as usize;
            let p = a.pos_world[i];
            let (cx, cy) = grid.cell_from_world(p);
            if !nav.is_wall(t, cx, cy) {
                continue;
            }
            // Square rings outward; a cell of ring k is at least (k - 0.5) cells away, so
            // stop once the best found is nearer than the next ring can be.
            let mut best: Option<(f32, Vec2)> = None;
            for k in 1..=EVICT_SEARCH_CELLS {
                let ring_min = (k as f32 - 0.5) * grid.cell_size_m;
                if best.is_some_and(|(d_sq, _)| d_sq <= ring_min * ring_min) {
                    break;
                }
                for y in cy - k..=cy + k {
                    for x in cx - k..=cx + k {
                        let on_ring = (x - cx).abs() == k || (y - cy).abs() == k;
                        if !on_ring || nav.is_wall(t, x, y) {
                            continue;
                        }
                        let c = grid.world_from_cell(x, y);
                        let d_sq = (c - p).length_squared();
                        if best.is_none_or(|(b, _)| d_sq < b) {
                            best = Some((d_sq, c));
                        }
                    }
                }
            }
            if let Some((_, c)) = best {
                a.pos_world[i] = c;
                a.vel[i] = Vec2::ZERO;
                a.flow_dir[i] = Vec2::ZERO;
                moved += 1;
            }
        }
        if moved > 0 {
            self.grid_dirty = true;
        }
        moved
    }

    /// Asks again for every live order's paths, from where its travelling agents are now
    /// (after the world changed under them); goals, lanes and states stay. Agents whose type
    /// can no longer reach the goal leave the order (idle), as in [`Self::order_move`].
    pub fn replan<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let travelling = |s: AgentState| matches!(s, AgentState::Moving | AgentState::Stuck);
        let mut members: BTreeMap<(u32, PathId), Vec<usize>> = BTreeMap::new();
        let a = &self.agents;
        for i in 0..a.len() {
            if let Some(path) = a.path[i]
                && a.order[i] != NO_ORDER
                && travelling(a.state[i])
            {
                members.entry((a.order[i], path)).or_default().push(i);
            }
        }
        let mut stranded = Vec::new();
        for order in 0..self.orders.len() as u32 {
            let old_paths = std::mem::take(&mut self.orders[order as usize].paths);
            let old_types = std::mem::take(&mut self.orders[order as usize].path_types);
            let destination = self.order_destinations[order as usize];
            let goals: Vec<Vec2> = std::iter::once(destination)
                .chain(
                    self.order_more_goals
                        .get(order as usize)
                        .into_iter()
                        .flatten()
                        .copied(),
                )
                .collect();
            let mut new_paths = Vec::new();
            let mut new_types = Vec::new();
            for (j, old) in old_paths.into_iter().enumerate() {
                if let Some(ids) = members.get(&(order, old)) {
                    let sources: Vec<Vec2> =
                        ids.iter().map(|&i| self.agents.pos_world[i]).collect();
                    let t = old_types
                        .get(j)
                        .copied()
                        .unwrap_or(self.agents.type_index[ids[0]])
                        as usize;
                    match nav.request_path_to_any(t, &sources, &goals) {
                        Some(path) => {
                            let before = stranded.len();
                            for &i in ids {
                                if nav.reaches(path, self.agents.pos_world[i]) {
                                    self.agents.path[i] = Some(path);
                                } else {
                                    stranded.push(i);
                                }
                            }
                            if stranded.len() - before < ids.len() {
                                new_paths.push(path);
                                new_types.push(t as u32);
                            } else {
                                nav.release_path(path);
                            }
                        }
                        None => stranded.extend_from_slice(ids),
                    }
                }
                // Arrived agents keep the old id but never sample it again.
                nav.release_path(old);
            }
            self.orders[order as usize].paths = new_paths;
            self.orders[order as usize].path_types = new_types;
        }
        for i in stranded {
            self.leave_order(nav, i);
        }
    }

    /// Goal reached → arrived; then group arrival by transitive bumping: an agent touching
    /// an arrived agent of the same order is done too, and so on through the group.
    fn resolve_arrivals<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let n = self.agents.len();
        let mut done_orders = Vec::new();
        let mut queue = Vec::new();
        let travelling = |s: AgentState| matches!(s, AgentState::Moving | AgentState::Stuck);
        for i in 0..n {
            let a = &self.agents;
            if travelling(a.state[i]) && self.goal_dist_m[i] <= a.radius_m[i] {
                self.agents.state[i] = AgentState::Arrived;
                done_orders.push(self.agents.order[i]);
                queue.push(i);
            }
        }
        if self.config.techniques.pass_occupied_goal {
            for i in 0..n {
                if travelling(self.agents.state[i]) && self.goal_taken_by_touching(i) {
                    self.agents.state[i] = AgentState::Arrived;
                    done_orders.push(self.agents.order[i]);
                    queue.push(i);
                }
            }
        }
        for i in 0..n {
            // A stuck agent touching the arrived group is at the end of the line too, however
            // far its lane target lies beyond the group (ORCA agents otherwise hover there).
            let state = self.agents.state[i];
            if travelling(state)
                && (state == AgentState::Stuck || self.within_bump_reach(i))
                && self.touching_arrived(i).is_some()
            {
                self.agents.state[i] = AgentState::Arrived;
                done_orders.push(self.agents.order[i]);
                queue.push(i);
            }
        }
        while let Some(k) = queue.pop() {
            let a = &self.agents;
            let order = a.order[k];
            let reach =
                1.25 * (a.radius_m[k] + self.max_radius_m) + self.config.separation_margin_m;
            let mut bumped = Vec::new();
            self.grid.for_each_candidate(a.pos_world[k], reach, |j, _| {
                let j = j as usize;
                if travelling(a.state[j])
                    && a.order[j] == order
                    && self.touches(k, j)
                    && self.within_bump_reach(j)
                {
                    bumped.push(j);
                }
            });
            for j in bumped {
                if travelling(self.agents.state[j]) {
                    self.agents.state[j] = AgentState::Arrived;
                    done_orders.push(order);
                    queue.push(j);
                }
            }
        }
        for order in done_orders {
            self.finish_travel(nav, order);
        }
    }

    /// Neighbour-grid cells of half the largest query radius: a disc query then scans
    /// about 5 r² of cells (rows clipped to the disc) instead of 9 r² with r-sized cells.
    /// The query radius is the neighbour radius, or only the separation reach when nothing
    /// else reads neighbours (see [`SimConfig::uses_separation_only`]); group arrival
    /// queries the separation reach too.
    fn grid_cell_m(&self) -> f32 {
        let separation_m = 2.0 * self.max_radius_m + self.config.separation_margin_m;
        if self.config.uses_separation_only() {
            0.5 * self.max_neighbour_radius_m.min(separation_m)
        } else {
            0.5 * self.max_neighbour_radius_m
        }
    }

    fn within_bump_reach(&self, i: usize) -> bool {
        let a = &self.agents;
        self.orders
            .get(a.order[i] as usize)
            .is_some_and(|o| self.goal_dist_m[i] <= o.bump_reach_m + a.radius_m[i])
    }

    /// Whether two agents touch for group arrival: within the separation margin plus a
    /// quarter of their radii (agents that avoid each other, as ORCA's do, hover just
    /// apart and would otherwise never bump).
    fn touches(&self, i: usize, j: usize) -> bool {
        let a = &self.agents;
        let radii = a.radius_m[i] + a.radius_m[j];
        let reach = radii * 1.25 + self.config.separation_margin_m;
        (a.pos_world[i] - a.pos_world[j]).length_squared() <= reach * reach
    }

    fn touching_arrived(&self, i: usize) -> Option<usize> {
        let a = &self.agents;
        let order = a.order[i];
        let reach = 1.25 * (a.radius_m[i] + self.max_radius_m) + self.config.separation_margin_m;
        let mut found = None;
        self.grid.for_each_candidate(a.pos_world[i], reach, |j, _| {
            let j = j as usize;
            if found.is_none()
                && j != i
                && a.state[j] == AgentState::Arrived
                && a.order[j] == order
                && self.touches(i, j)
            {
                found = Some(j);
            }
        });
        found
    }

    /// Whether agent `i` touches a standing agent (idle or arrived, any order) that sits so
    /// close to `i`'s goal that `i` could not come within its own radius of it.
    fn goal_taken_by_touching(&self, i: usize) -> bool {
        let a = &self.agents;
        let (r, goal) = (a.radius_m[i], a.goal_world[i]);
        if self.goal_dist_m[i] > 2.0 * (r + self.max_radius_m) + self.config.separation_margin_m {
            return false;
        }
        let reach = 1.25 * (r + self.max_radius_m) + self.config.separation_margin_m;
        let mut taken = false;
        self.grid.for_each_candidate(a.pos_world[i], reach, |j, _| {
            let j = j as usize;
            if !taken
                && j != i
                && !a.state[j].is_travelling()
                && (a.pos_world[j] - goal).length() < r + a.radius_m[j]
                && self.touches(i, j)
            {
                taken = true;
            }
        });
        taken
    }

    fn track_progress(&mut self) {
        let dt = self.config.step_secs;
        let a = &mut self.agents;
        for i in 0..a.len() {
            if !matches!(a.state[i], AgentState::Moving | AgentState::Stuck) {
                continue;
            }
            let dist = self.goal_dist_m[i];
            if dist < a.best_goal_dist_m[i] - self.config.stuck_progress_m {
                a.best_goal_dist_m[i] = dist;
                a.no_progress_secs[i] = 0.0;
                a.state[i] = AgentState::Moving;
            } else {
                a.no_progress_secs[i] += dt;
                if a.no_progress_secs[i] >= self.config.stuck_secs {
                    a.state[i] = AgentState::Stuck;
                }
            }
        }
    }

    /// Starts (or stops) accumulating where travelling agents are held up, on the
    /// navigator's grid; starting again keeps what was gathered if the grid is the same.
    pub fn track_congestion(&mut self, grid: Option<NavGrid>) {
        self.congestion = grid.map(|g| match self.congestion.take() {
            Some(map) if map.width == g.width_cells && map.height == g.height_cells => map,
            _ => CongestionMap::new(g.width_cells, g.height_cells),
        });
    }

    /// Where travelling agents were held up, if tracked ([`Self::track_congestion`]).
    #[must_use]
    pub fn congestion(&self) -> Option<&CongestionMap> {
        self.congestion.as_ref()
    }

    fn add_congestion(&mut self, grid: NavGrid) {
        let Some(map) = &mut self.congestion else {
            return;
        };
        let a = &self.agents;
        let dt = self.config.step_secs;
        let mut added = false;
        for i in 0..a.len() {
            if matches!(a.state[i], AgentState::Moving | AgentState::Stuck)
                && self.speed_mps[i] < map.slow_share * a.max_speed[i]
            {
                map.add(grid.cell_from_world(a.pos_world[i]), dt);
                added = true;
            }
        }
        if added {
            map.version += 1;
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

    /// Steps taken so far.
    #[must_use]
    pub fn step_index(&self) -> u64 {
        self.step_index
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
}
