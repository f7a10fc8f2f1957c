//! Placing agents: one at a point, a spawn's rectangle or spiral, a scenario's spawns.

use crate::agents::Agents;
use crate::agents::{AgentId, AgentState, Collision, LaneMode, NO_ORDER, Resolution};
use crate::archetype::AgentArchetype;
use crate::error::CrowdError;
use crate::navigator::Navigator;
use crate::scenario::{Scenario, Spawn, SpawnArea};
use crate::vec2::Vec2;

use super::Simulation;

/// Random tries per agent before a rectangle spawn gives up on that agent.
const SPAWN_TRIES: u32 = 64;

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

impl Simulation {
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
    /// [`CrowdError::InvalidArchetype`] for a bad parameter (the radius is checked against
    /// the navigator's cell size), [`CrowdError::UnknownMovementType`] when the navigator
    /// lacks the archetype's movement type, [`CrowdError::NotFinite`] for a NaN or infinite
    /// position.
    pub fn add_agent<N: Navigator + ?Sized>(
        &mut self,
        nav: &N,
        archetype: &AgentArchetype,
        pos_world: Vec2,
        group: u32,
    ) -> Result<Option<AgentId>, CrowdError> {
        archetype.validate_for_cell_size(nav.grid().cell_size_m)?;
        if !pos_world.is_finite() {
            return Err(CrowdError::NotFinite {
                what: "agent position",
                x: pos_world.x,
                y: pos_world.y,
            });
        }
        let move_type = nav.move_type(&archetype.movement_type).ok_or_else(|| {
            CrowdError::UnknownMovementType {
                archetype: archetype.name.clone(),
                movement_type: archetype.movement_type.clone(),
            }
        })?;
        let (cx, cy) = nav.grid().cell_from_world(pos_world);
        if !pos_world.is_finite() || nav.is_wall(move_type, cx, cy) {
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
        a.heading.push(Vec2::new(1.0, 0.0));
        a.radius_m.push(archetype.radius_m);
        a.mass.push(archetype.mass);
        a.max_force.push(archetype.max_force);
        a.max_speed.push(archetype.max_speed);
        a.neighbour_radius_m.push(archetype.neighbour_radius_m);
        a.move_type.push(move_type);
        a.archetype.push(archetype_index as u32);
        a.group.push(group);
        a.order.push(NO_ORDER);
        a.goal_world.push(pos_world);
        a.path.push(None);
        a.path_type.push(move_type);
        a.state.push(AgentState::Idle);
        a.flow_dir.push(Vec2::ZERO);
        a.best_goal_dist_m.push(0.0);
        a.no_progress_secs.push(0.0);
        a.resolution.push(Resolution::default());
        a.collision.push(Collision::Clear);
        a.decision.push(Vec2::ZERO);
        a.wall_normal.push(Vec2::ZERO);
        a.yield_secs.push(0.0);
        a.pressed.push(0.0);
        a.lane.push(LaneMode::Own);
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
                let move_type = nav.move_type(&archetype.movement_type);
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
                        if move_type.is_some_and(|t| nav.is_wall(t, cx, cy)) {
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
                // Vogel's sunflower spiral: about hexagonal packing at 2.2 radii apart. The
                // half step keeps the first two points apart: at `√k` the second stood 1.32
                // radii from the first (two bodies 68 % of a radius into each other, sprung
                // apart at full speed by the first step); at `√(k + ½)` no two points lie
                // nearer than 2.04 radii. A lone agent stands on the point.
                let spacing = 2.2 * archetype.radius_m;
                let golden_rad = std::f32::consts::PI * (3.0 - 5f32.sqrt());
                let half = if spawn.count > 1 { 0.5 } else { 0.0 };
                let mut k = 0u32;
                while placed < spawn.count && k < spawn.count.saturating_mul(4) {
                    let r = 0.6 * spacing * (k as f32 + half).sqrt();
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
}
