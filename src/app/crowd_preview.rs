//! The crowd preview in the editor: a [`Simulation`] driven through a [`WorldNavigator`] over
//! the latest bake — exactly what a game loading the package would run. Spawn agents by
//! dragging a rectangle, select them, right-click to order a move, play / pause / step at a
//! chosen speed, and watch the metrics.
//!
//! Selecting agents and giving orders (move, follow) is in `orders.rs`.
//!
//! When the map is re-baked (a brush stroke, a stamp) the changed sectors go through the
//! live world's time-sliced rebuild queue, as in a game: agents keep moving and re-plan when
//! it drains. A new grid or movement-type list rebuilds the navigator and re-issues the
//! live orders.

use std::sync::Arc;

use egui::Color32;

use crate::crowd::{
    AgentArchetype, AgentId, AgentState, AvoidanceMode, Collision, Navigator, Order, Scenario,
    SimConfig, Simulation, Spawn, SpawnArea, StepMetrics, Vec2, WorldNavigator, default_archetypes,
};
use crate::map::MapDocument;
use crate::nav::{NavData, NavWorld};

use super::crowd_jams::{CongestionTexture, Gate};
use super::crowd_scenarios::ScenarioError;

mod orders;

/// Seed of every preview run, so the same spawns and orders give the same trajectories.
const PREVIEW_SEED: u64 = 1;

/// The editor's crowd: simulation, navigator, what the designer picked, and the orders to
/// re-issue after a re-bake.
pub struct CrowdPreview {
    sim: Simulation,
    nav: Option<WorldNavigator>,
    /// The latest nav data and wall buffers, kept until agents need a navigator: building
    /// one copies the whole nav data (≈ 100 ms on 2048²), which no frame should pay while
    /// there is no crowd.
    latest: Option<(Arc<NavData>, Vec<f32>)>,
    nav_version: u64,
    /// The document's links and their version (see `EditorState::links_version`): a new
    /// navigator takes them, a live one through its rebuild queue.
    links: (u64, Vec<crate::nav::links::NavLink>),
    /// Agent archetypes (each bound to a movement type by name).
    pub archetypes: Vec<AgentArchetype>,
    /// Index of the archetype the spawn tool places.
    pub archetype: usize,
    /// Agents one spawn drag places.
    pub spawn_count: u32,
    /// Whether time runs.
    pub playing: bool,
    /// Simulation seconds per real second. `[Limit: 0.25..=8]`
    pub speed: f32,
    /// Selected agents (empty: orders go to every agent).
    pub selection: Vec<AgentId>,
    /// What agents are coloured by.
    pub colouring: AgentColouring,
    /// Draw each agent's velocity.
    pub show_velocity: bool,
    /// Orders given so far, re-issued after a re-bake: (agents, goal).
    orders: Vec<(Vec<AgentId>, Vec2)>,
    /// Follow orders given (followers, leader), re-issued with `orders` after a re-bake.
    follows: Vec<(Vec<AgentId>, AgentId)>,
    next_group: u32,
    /// Metrics of recent steps, oldest first (for the plots).
    pub history: Vec<StepMetrics>,
    /// The last thing worth telling the designer (unreachable goal, spawn in a wall …).
    pub message: Option<String>,
    /// The spawns and orders given since the last clear or load, as a scenario (orders
    /// address the spawns' groups; steps count from the first spawn).
    recorded: Scenario,
    /// Step index of the first recorded spawn: scenario steps count from it.
    record_start: Option<u64>,
    /// Why the recording may not replay exactly (an order to part of a spawn, a spawn after
    /// time ran), shown beside Save.
    pub record_notes: Vec<String>,
    /// Orders of a loaded scenario not yet issued, to add to `orders` once they are.
    replay_pending: Vec<Order>,
    /// Draw where travelling agents were held up (the congestion overlay).
    pub show_congestion: bool,
    /// The congestion overlay's texture.
    pub congestion_texture: CongestionTexture,
    /// The line whose crossings the panel counts (Shift+drag with the Command tool).
    pub gate: Option<Gate>,
}

impl Default for CrowdPreview {
    fn default() -> Self {
        Self {
            sim: Simulation::new(SimConfig::default(), PREVIEW_SEED),
            nav: None,
            latest: None,
            nav_version: 0,
            links: (0, Vec::new()),
            archetypes: default_archetypes(),
            archetype: 0,
            spawn_count: 200,
            playing: true,
            speed: 1.0,
            selection: Vec::new(),
            colouring: AgentColouring::State,
            show_velocity: false,
            orders: Vec::new(),
            follows: Vec::new(),
            next_group: 0,
            history: Vec::new(),
            message: None,
            recorded: Scenario {
                seed: PREVIEW_SEED,
                ..Scenario::default()
            },
            record_start: None,
            record_notes: Vec::new(),
            replay_pending: Vec::new(),
            show_congestion: true,
            congestion_texture: CongestionTexture::default(),
            gate: None,
        }
    }
}

impl std::fmt::Debug for CrowdPreview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrowdPreview")
            .field("agents", &self.sim.agents().len())
            .field("playing", &self.playing)
            .finish_non_exhaustive()
    }
}

/// Time per frame spent draining the world's rebuild queue after an edit.
const REBUILD_BUDGET: std::time::Duration = std::time::Duration::from_millis(2);

/// Wall-clock time per frame the crowd may spend stepping (the first due step is always
/// taken): a crowd whose steps cost more than real time slows down instead of dragging the
/// viewport below 30 fps.
const STEP_BUDGET: std::time::Duration = std::time::Duration::from_millis(20);

/// History kept for the plots. `[Units: steps]`
const HISTORY_STEPS: usize = 600;

impl CrowdPreview {
    /// The simulation (agents, metrics).
    #[must_use]
    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    /// Whether there is nav data to move on.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.nav.is_some() || self.latest.is_some()
    }

    /// Builds the navigator from the latest nav data if it was deferred.
    fn ensure_nav(&mut self) {
        if self.nav.is_none()
            && let Some((nav, buffers)) = self.latest.take()
        {
            let mut world = NavWorld::from_nav(Arc::clone(&nav));
            // Checked against the map when taken from the document.
            let _ = world.set_links(self.links.1.clone());
            self.nav = Some(WorldNavigator::new(world, buffers));
        }
    }

    /// Follows the document's links: a live navigator takes them through its rebuild
    /// queue (its crowd then re-plans), a later one when it is built.
    pub fn sync_links(
        &mut self,
        version: u64,
        links: impl FnOnce() -> Vec<crate::nav::links::NavLink>,
    ) {
        if version == self.links.0 {
            return;
        }
        self.links = (version, links());
        if let Some(nav) = self.nav.as_mut() {
            let _ = nav.world.replace_links(self.links.1.clone());
        }
    }

    /// Follows the nav data: changed sectors through the queue, or a new navigator with the
    /// live orders re-issued.
    pub fn sync_nav(&mut self, nav: Option<&Arc<NavData>>, version: u64, doc: &MapDocument) {
        if version == self.nav_version
            && (self.nav.is_some() || self.latest.is_some() || nav.is_none())
        {
            return;
        }
        self.nav_version = version;
        let Some(nav) = nav else {
            self.nav = None;
            self.latest = None;
            return;
        };
        let buffers = nav
            .layers
            .iter()
            .map(|l| {
                doc.movement_types
                    .iter()
                    .find(|t| t.name == l.name)
                    .map_or(0.0, |t| t.wall_buffer_m)
            })
            .collect::<Vec<f32>>();
        if let Some(current) = self.nav.as_mut()
            && current.update_from(nav, buffers.clone())
        {
            return;
        }
        if self.sim.agents().is_empty() && self.orders.is_empty() && self.follows.is_empty() {
            // The previous nav data may be the last reference: free it off the UI thread.
            super::background::drop_later((self.nav.take(), self.latest.take()));
            self.latest = Some((Arc::clone(nav), buffers));
            return;
        }
        self.latest = None;
        let mut world = NavWorld::from_nav(Arc::clone(nav));
        let _ = world.set_links(self.links.1.clone());
        let mut navigator = WorldNavigator::new(world, buffers);
        for (agents, goal) in &self.orders {
            let _ = self.sim.order_move(&mut navigator, agents, *goal);
        }
        for (agents, leader) in &self.follows {
            let _ = self.sim.order_follow(&mut navigator, agents, *leader);
        }
        self.nav = Some(navigator);
    }

    /// Removes every agent and order (a new map, or the Clear button).
    pub fn clear(&mut self) {
        let config = self.sim.config().clone();
        self.sim = Simulation::new(config, PREVIEW_SEED);
        self.selection.clear();
        self.orders.clear();
        self.follows.clear();
        self.history.clear();
        self.next_group = 0;
        self.message = None;
        self.recorded = Scenario {
            seed: PREVIEW_SEED,
            ..Scenario::default()
        };
        self.record_start = None;
        self.record_notes.clear();
        self.replay_pending.clear();
        self.congestion_texture.clear();
        self.gate = None;
    }

    /// Simulated time so far. `[Units: s]`
    #[must_use]
    pub fn sim_secs(&self) -> f64 {
        self.sim.step_index() as f64 * f64::from(self.sim.config().step_secs)
    }

    /// Draws the gate line between two points; crossings count from now.
    pub fn set_gate(&mut self, a_world: Vec2, b_world: Vec2) {
        self.gate = Some(Gate::new(a_world, b_world, self.sim_secs()));
    }

    /// Runs `steps` on the navigator with congestion tracked and the gate counting.
    fn run_steps(&mut self, run: impl FnOnce(&mut Simulation, &mut WorldNavigator) -> u32) -> u32 {
        let Some(nav) = self.nav.as_mut() else {
            return 0;
        };
        if self.sim.congestion().is_none() {
            self.sim.track_congestion(Some(nav.grid()));
        }
        self.sim.track_collision_states(true);
        let before = self
            .gate
            .is_some()
            .then(|| self.sim.agents().pos_world.clone());
        let steps = run(&mut self.sim, nav);
        let now = self.sim_secs();
        if let (Some(gate), Some(before)) = (self.gate.as_mut(), before) {
            gate.count(&before, &self.sim.agents().pos_world, now);
        }
        steps
    }

    /// The spawns and orders given since the last clear (or the loaded scenario), with the
    /// current simulation settings: what Save stores and `navstudio crowd --scenario` runs.
    #[must_use]
    pub fn scenario(&self) -> Scenario {
        Scenario {
            config: self.sim.config().clone(),
            ..self.recorded.clone()
        }
    }

    /// Replaces the crowd with a fresh run of `scenario` (its seed, settings, spawns and
    /// scheduled orders), exactly as the headless `navstudio crowd --scenario` builds it.
    ///
    /// # Errors
    /// No nav data yet, or the scenario names an archetype or movement type this map lacks.
    pub fn load_scenario(&mut self, scenario: &Scenario) -> Result<(), ScenarioError> {
        self.ensure_nav();
        let Some(nav) = self.nav.as_ref() else {
            return Err(ScenarioError::NotBaked);
        };
        let sim = Simulation::from_scenario(scenario, &self.archetypes, nav)?;
        self.clear();
        self.sim = sim;
        self.recorded = scenario.clone();
        self.record_start = Some(0);
        self.next_group = scenario
            .spawns
            .iter()
            .map(|s| s.group + 1)
            .max()
            .unwrap_or(0);
        self.replay_pending = scenario.orders.clone();
        self.replay_pending.sort_by_key(|o| o.at_step);
        self.note_replayed_orders();
        Ok(())
    }

    /// Moves the loaded scenario's orders that the simulation has issued into `orders`, so a
    /// re-bake re-issues them like orders given by hand.
    fn note_replayed_orders(&mut self) {
        let now = self.sim.step_index();
        let issued = self
            .replay_pending
            .iter()
            .take_while(|o| o.at_step < now)
            .count();
        for order in self.replay_pending.drain(..issued) {
            let agents = group_members(&self.sim, order.group);
            self.orders.push((agents, order.goal_world));
        }
    }

    /// Sets the local avoidance mode for the following steps.
    pub fn set_avoidance(&mut self, mode: AvoidanceMode) {
        self.sim.config_mut().avoidance = mode;
    }

    /// How often ORCA and context steering decide (`SimConfig::decision_secs`).
    pub fn set_decision_secs(&mut self, secs: f32) {
        self.sim.config_mut().decision_secs = secs;
    }

    /// Replaces the running crowd's settings (the Crowd panel's parameters), kept by the
    /// scenarios saved from it.
    pub fn set_config(&mut self, config: crate::crowd::SimConfig) {
        *self.sim.config_mut() = config;
    }

    /// Switches movement techniques for the running crowd (and the scenarios saved from it).
    pub fn set_techniques(&mut self, techniques: crate::crowd::Techniques) {
        self.sim.config_mut().techniques = techniques;
    }

    /// Places `spawn_count` agents of the chosen archetype in the rectangle (world metres).
    pub fn spawn_rect(&mut self, a_world: Vec2, b_world: Vec2) {
        self.ensure_nav();
        let (Some(nav), Some(archetype)) = (self.nav.as_ref(), self.archetypes.get(self.archetype))
        else {
            return;
        };
        let (min, max) = (
            Vec2::new(a_world.x.min(b_world.x), a_world.y.min(b_world.y)),
            Vec2::new(a_world.x.max(b_world.x), a_world.y.max(b_world.y)),
        );
        let area = if (max.x - min.x) * (max.y - min.y) < 1.0 {
            SpawnArea::Center {
                center_world: (min + max) * 0.5,
            }
        } else {
            SpawnArea::Rect {
                min_world: min,
                max_world: max,
            }
        };
        let spawn = Spawn {
            archetype: archetype.name.clone(),
            area,
            count: self.spawn_count,
            group: self.next_group,
        };
        self.next_group += 1;
        let before = self.sim.agents().len();
        let step = self.sim.step_index();
        match self.sim.spawn(nav, archetype, &spawn) {
            Ok(placed) => {
                let start = *self.record_start.get_or_insert(step);
                if step > start {
                    self.record_notes.push(format!(
                        "Spawn {} came {} steps after the first: a replay places it at the start.",
                        spawn.group,
                        step - start
                    ));
                }
                self.recorded.spawns.push(spawn.clone());
                let mut notes = Vec::new();
                if placed < self.spawn_count {
                    notes.push(format!(
                        "Placed {placed} of {} {}: the rest of the area is wall for {}.",
                        self.spawn_count, archetype.name, archetype.movement_type
                    ));
                }
                let pressed = self
                    .sim
                    .agents()
                    .pressed_count(before..self.sim.agents().len());
                if pressed > 0 {
                    notes.push(format!(
                        "{pressed} of the {placed} {} stand pressed into others: the area \
                         cannot hold them apart, and the first steps push them apart. Drag a \
                         larger area to start them clear.",
                        archetype.name
                    ));
                }
                self.message = (!notes.is_empty()).then(|| notes.join(" "));
                self.selection = (before..self.sim.agents().len())
                    .map(|i| AgentId(i as u32))
                    .collect();
            }
            Err(e) => self.message = Some(format!("Could not spawn: {e}.")),
        }
    }

    /// Advances the simulation by `dt_secs` of real time (times the speed) when playing.
    /// Returns the steps taken.
    pub fn tick(&mut self, dt_secs: f64) -> u32 {
        if !self.playing {
            return 0;
        }
        let Some(nav) = self.nav.as_mut() else {
            return 0;
        };
        nav.rebuild(REBUILD_BUDGET);
        let dt = dt_secs * f64::from(self.speed.clamp(0.25, 8.0));
        let steps = self.run_steps(|sim, nav| sim.advance_within(nav, dt, Some(STEP_BUDGET)));
        self.record(steps);
        self.note_replayed_orders();
        steps
    }

    /// One fixed step, whether playing or not.
    pub fn step_once(&mut self) {
        if self.run_steps(|sim, nav| {
            sim.step(nav);
            1
        }) > 0
        {
            self.record(1);
            self.note_replayed_orders();
        }
    }

    fn record(&mut self, steps: u32) {
        if steps > 0 && !self.sim.agents().is_empty() {
            self.history.push(self.sim.metrics());
            if self.history.len() > HISTORY_STEPS {
                let extra = self.history.len() - HISTORY_STEPS;
                self.history.drain(..extra);
            }
        }
    }

    /// Fill colour of agent `i`.
    #[must_use]
    pub fn agent_color(&self, i: usize) -> Color32 {
        let agents = self.sim.agents();
        match self.colouring {
            AgentColouring::State => state_colour(agents.state[i]),
            AgentColouring::Collision => match agents.collision[i] {
                Collision::Clear => Color32::from_gray(200),
                Collision::Unresolved => Color32::from_rgb(255, 80, 60),
                Collision::Resolving => Color32::from_rgb(255, 200, 60),
                Collision::Resolved { .. } => Color32::from_rgb(90, 200, 255),
            },
            AgentColouring::Archetype => {
                const PALETTE: [Color32; 6] = [
                    Color32::from_rgb(240, 200, 90),
                    Color32::from_rgb(120, 180, 255),
                    Color32::from_rgb(230, 120, 230),
                    Color32::from_rgb(120, 230, 180),
                    Color32::from_rgb(255, 140, 90),
                    Color32::from_rgb(200, 200, 200),
                ];
                PALETTE[agents.archetype[i] as usize % PALETTE.len()]
            }
        }
    }
}

/// What the viewport colours agents by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentColouring {
    /// Moving, arrived, stuck or idle.
    State,
    /// Seed §001's collision states ([`Collision`]).
    Collision,
    /// One colour per archetype.
    Archetype,
}

impl AgentColouring {
    /// Every colouring, for the panel's menu.
    pub const ALL: [Self; 3] = [Self::State, Self::Collision, Self::Archetype];

    /// Its name in the menu.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::State => "state",
            Self::Collision => "collision state",
            Self::Archetype => "archetype",
        }
    }

    /// What its colours mean.
    #[must_use]
    pub fn legend(self) -> &'static str {
        match self {
            Self::State => {
                "Blue moving, amber queued (waiting in a queue that moves), green arrived, red stuck, grey idle"
            }
            Self::Collision => {
                "Red: its path runs into a neighbour and nothing it does avoids it; yellow: \
                 avoiding one (side-step, slowing, waiting, pushing); blue: resolved one in \
                 the last 0.25 s; grey: clear"
            }
            Self::Archetype => "One colour per archetype",
        }
    }
}

/// The agents of spawn group `group`.
pub(super) fn group_members(sim: &Simulation, group: u32) -> Vec<AgentId> {
    sim.agents()
        .group
        .iter()
        .enumerate()
        .filter(|(_, g)| **g == group)
        .map(|(i, _)| AgentId(i as u32))
        .collect()
}

/// The one colour of each agent state: the map's agents, the stuck rings, the legend and
/// the plots all use it.
#[must_use]
pub fn state_colour(state: AgentState) -> Color32 {
    match state {
        AgentState::Moving => Color32::from_rgb(90, 200, 255),
        AgentState::Queued => Color32::from_rgb(255, 190, 60),
        AgentState::Arrived => Color32::from_rgb(110, 230, 110),
        AgentState::Stuck => Color32::from_rgb(255, 80, 60),
        AgentState::Idle => Color32::from_gray(200),
    }
}
