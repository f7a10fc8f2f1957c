//! One fixed step: scheduled orders, the parallel steering pass over a snapshot, the
//! position passes that open overlaps, and agents evicted from new walls.

use std::time::Instant;

use rayon::prelude::*;

use crate::agents::{AgentId, AgentState, Collision, Resolution};
use crate::metrics::StepMetrics;
use crate::navigator::Navigator;
use crate::resolve;
use crate::steering::{
    AgentUpdate, AvoidanceMode, JAM_STUCK_TIMES, NearAgent, StepContext, jam_goes_first,
};
use crate::vec2::Vec2;
use crate::walls::{body_walls_of, move_body, wall_disc_radius};

use super::Simulation;

/// The per-agent steering memories a step keeps. Each is kept only where something reads
/// it: the remembered side-step by boids that side-step, the held decision by ORCA and
/// context steering, the collision state where it is tracked. Elsewhere the step's update
/// leaves it at its resting value, so it is not written back (a write at a scattered index
/// per agent and step), and it is reset to that value when the configuration stops keeping
/// it: a mode switched to never reads another mode's leftovers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Kept {
    resolution: bool,
    decision: bool,
    collision: bool,
}

/// Position passes that open overlaps after each step. Jacobi passes open a share of each
/// overlap from the positions as they are, and where a heavy agent or a crowd presses from
/// behind two passes leave a chain of light agents pressed into each other.
const PROJECTION_PASSES: usize = 3;
/// At most this many passes more, for the agents still overlapping deeper than
/// [`resolve::HARD_CONTACT_SHARE`]: against a wall or a pillar's corner only the free side
/// gives way, and three passes left 30–31 % overlaps in 1 % of the random cases.
const DEEP_PROJECTION_PASSES: usize = 3;
/// Agents per parallel work item.
const CHUNK: usize = 256;
/// Steps of metrics kept for plots (one minute at 60 Hz).
const HISTORY_LEN: usize = 3600;
/// How far (in cells) an agent caught inside a new wall looks for free ground.
const EVICT_SEARCH_CELLS: i32 = 64;

impl Simulation {
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
        let step = exact_step_secs(self.config.step_secs);
        if dt_secs.is_finite() && dt_secs > 0.0 {
            self.accumulator_secs += dt_secs;
        }
        // Sums of frame times round in the last bits: a step owed to within a billionth of
        // its length is due (600 frames of 1/60 s are 600 steps, not 599).
        let due = step * (1.0 - 1e-9);
        let mut taken = 0;
        while self.accumulator_secs >= due && taken < self.config.max_steps_per_advance.max(1) {
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
        self.accumulator_secs = self.accumulator_secs.clamp(0.0, step);
        taken
    }

    /// One fixed step of `SimConfig::step_secs`.
    pub fn step<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let started = Instant::now();
        self.step_start_pos.clone_from(&self.agents.pos_world);
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
        self.follow_leaders(nav);
        self.plan_crossings(&*nav);
        if self.grid_dirty {
            self.grid
                .rebuild(&self.agents.pos_world, self.grid_cell_m());
            self.grid_dirty = false;
        }

        let n = self.agents.len();
        self.updates.resize(n, AgentUpdate::default());
        let order_live: Vec<u32> = self.orders.iter().map(|o| o.live).collect();
        let meeting = self.right_of_way_can_act();
        {
            let agents = &self.agents;
            self.near.clear();
            self.near.par_extend(
                self.grid
                    .sorted_agents()
                    .par_iter()
                    .map(|&i| NearAgent::of(agents, i as usize)),
            );
            let min_radius_m = self
                .agents
                .radius_m
                .iter()
                .copied()
                .fold(self.max_radius_m, f32::min);
            let ctx = StepContext {
                agents: &self.agents,
                grid: &self.grid,
                near: &self.near,
                nav: &*nav,
                nav_grid: nav.grid(),
                config: &self.config,
                order_destinations: &self.order_destinations,
                order_more_goals: &self.order_more_goals,
                order_live: &order_live,
                order_crossing: &self.order_crossing,
                meeting,
                replanning: nav.replanning(),
                separation_reach_m: self.max_radius_m + self.config.separation_margin_m,
                min_radius_m,
                step_index: self.step_index,
                decision_period: self.config.decision_steps(),
                separation_only: self.config.uses_separation_only(),
                collision_states: self.collision_states,
            };
            // Agents are visited in grid order (spatial neighbours together, for the cache);
            // `updates[k]` belongs to the agent in grid slot `k`.
            self.updates
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, out)| {
                    for (k, u) in out.iter_mut().enumerate() {
                        ctx.update(c * CHUNK + k, u);
                    }
                });
        }

        let mut collisions = 0u32;
        let (mut overlap_sum, mut overlap_count, mut overlap_max) = (0.0f64, 0u64, 0.0f32);
        let kept = self.keep_memories();
        // Only the position passes read who overlapped.
        let contacts = self.config.techniques.resolve_contacts;
        self.goal_dist_m.resize(n, 0.0);
        self.speed_mps.resize(n, 0.0);
        self.overlapping.resize(n, false);
        let a = &mut self.agents;
        // Every array cut to `n`, so the bounds check of one write at the agent's scattered
        // index covers all of them.
        let (pos, vel, heading, flow_dir) = (
            &mut a.pos_world[..n],
            &mut a.vel[..n],
            &mut a.heading[..n],
            &mut a.flow_dir[..n],
        );
        let (resolution, collision, decision) = (
            &mut a.resolution[..n],
            &mut a.collision[..n],
            &mut a.decision[..n],
        );
        let (wall_normal, yield_secs, pressed, lane) = (
            &mut a.wall_normal[..n],
            &mut a.yield_secs[..n],
            &mut a.pressed[..n],
            &mut a.lane[..n],
        );
        let (goal_dist_m, speed_mps, overlapping) = (
            &mut self.goal_dist_m[..n],
            &mut self.speed_mps[..n],
            &mut self.overlapping[..n],
        );
        for (&i, u) in self.grid.sorted_agents().iter().zip(&self.updates) {
            let i = i as usize;
            pos[i] = u.pos_world;
            vel[i] = u.vel;
            if u.heading != Vec2::ZERO {
                heading[i] = u.heading;
            }
            flow_dir[i] = u.flow_dir;
            if kept.resolution {
                resolution[i] = u.resolution;
            }
            if kept.collision {
                collision[i] = u.collision;
            }
            if kept.decision {
                decision[i] = u.decision;
            }
            wall_normal[i] = u.wall_normal;
            yield_secs[i] = u.yield_secs;
            pressed[i] = u.overlap_max;
            lane[i] = u.lane.mode;
            goal_dist_m[i] = u.goal_dist_m;
            speed_mps[i] = u.speed_mps;
            if contacts {
                overlapping[i] = u.overlap_count > 0;
            }
            collisions = collisions.saturating_add(u.contacts);
            overlap_sum += f64::from(u.overlap_sum);
            overlap_count += u64::from(u.overlap_count);
            overlap_max = overlap_max.max(u.overlap_max);
        }
        let now = (self.step_index + 1) as f64 * f64::from(self.config.step_secs);
        self.cross_links(&*nav, now);
        self.grid
            .rebuild(&self.agents.pos_world, self.grid_cell_m());
        if self.config.techniques.resolve_contacts {
            self.open_overlaps(&*nav);
        }

        self.resolve_arrivals(nav);
        self.track_progress(nav);
        self.add_congestion(nav.grid());

        let a = &self.agents;
        let mut metrics = StepMetrics {
            step: self.step_index,
            wall_contacts: collisions,
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
                AgentState::Queued => metrics.queued += 1,
                AgentState::Idle => {}
            }
            // Where the states are not kept, every agent is clear.
            if kept.collision {
                match a.collision[i] {
                    Collision::Clear => {}
                    Collision::Unresolved => metrics.collisions_unresolved += 1,
                    Collision::Resolving => metrics.collisions_resolving += 1,
                    Collision::Resolved { .. } => metrics.collisions_resolved += 1,
                }
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

    /// Which steering memories this step keeps, resetting those it stops keeping to their
    /// resting values (see [`Kept`]).
    fn keep_memories(&mut self) -> Kept {
        let cfg = &self.config;
        let kept = Kept {
            resolution: cfg.avoidance == AvoidanceMode::Boids && cfg.weights.avoidance != 0.0,
            decision: cfg.avoidance != AvoidanceMode::Boids,
            collision: self.collision_states && !cfg.uses_separation_only(),
        };
        if self.kept != Some(kept) {
            let a = &mut self.agents;
            if !kept.resolution {
                a.resolution.fill(Resolution::default());
            }
            if !kept.decision {
                a.decision.fill(Vec2::ZERO);
            }
            if !kept.collision {
                a.collision.fill(Collision::Clear);
            }
            self.kept = Some(kept);
        }
        kept
    }

    /// Position passes that push overlapping agents apart, heavier and travelling agents
    /// moving less ([`resolve::overlap_corrections`]), each move through the walls'
    /// collision so walls stay solid. Only agents that overlapped this step are moved.
    pub(super) fn open_overlaps<N: Navigator + ?Sized>(&mut self, nav: &N) {
        if !self.overlapping.contains(&true) {
            return;
        }
        let active = std::mem::take(&mut self.overlapping);
        let cell = nav.grid().cell_size_m;
        let mut ids: Vec<usize> = (0..active.len()).filter(|&i| active[i]).collect();
        // Per agent of `ids`: where this pass moves it, and its deepest overlap before.
        let mut moved = vec![(Vec2::ZERO, 0.0f32); ids.len()];
        for pass in 0..PROJECTION_PASSES + DEEP_PROJECTION_PASSES {
            if pass >= PROJECTION_PASSES {
                let deep: Vec<usize> = ids
                    .iter()
                    .zip(&moved)
                    .filter(|(_, (_, depth))| *depth > resolve::HARD_CONTACT_SHARE)
                    .map(|(&i, _)| i)
                    .collect();
                if deep.is_empty() {
                    break;
                }
                ids = self.with_contacts(&deep);
                moved.resize(ids.len(), (Vec2::ZERO, 0.0));
            }
            let (a, grid, max_r) = (&self.agents, &self.grid, self.max_radius_m);
            // Boids rank a jam by weighting separation instead (queue order in
            // `steering/right_of_way.rs`); ranked here too, a queue pressed into a pillar's
            // corner took 2.31 × the bound (pillars-177 of seed 1201, 1.50 × without).
            let goal_dist = &self.goal_dist_m;
            let jam_secs = (self.config.avoidance != AvoidanceMode::Boids)
                .then_some(JAM_STUCK_TIMES * self.config.stuck_secs);
            moved
                .par_iter_mut()
                .zip(&ids)
                .with_min_len(CHUNK)
                .for_each(|(out, &i)| {
                    let (c, deepest) =
                        resolve::overlap_correction(a, grid, i, a.radius_m[i] + max_r, |j| {
                            jam_secs.and_then(|jam| jam_goes_first(a, goal_dist, jam, i, j))
                        });
                    let pos = if c == Vec2::ZERO {
                        a.pos_world[i]
                    } else {
                        let t = a.move_type[i];
                        let wall_r =
                            wall_disc_radius(a.radius_m[i], nav.wall_buffer_m(t), cell, true);
                        let body = body_walls_of(nav, t, a.radius_m[i], cell, true);
                        move_body(
                            a.pos_world[i],
                            a.vel[i],
                            c,
                            wall_r,
                            cell,
                            |x, y| nav.is_wall(t, x, y),
                            body.map(|u| (a.radius_m[i], move |x, y| nav.is_wall(u, x, y))),
                        )
                        .pos_world
                    };
                    *out = (pos, deepest);
                });
            for (&i, &(p, _)) in ids.iter().zip(&moved) {
                self.agents.pos_world[i] = p;
            }
        }
        self.overlapping = active;
        self.grid
            .rebuild(&self.agents.pos_world, self.grid_cell_m());
    }

    /// `deep` and every agent overlapping one of them, in index order. A deep overlap is
    /// often an agent squeezed between others that are not deep themselves (one pressing
    /// in, one against a wall): only if those move too can the pressure go back to where
    /// there is room (a queue squeezed into a pillar's corner by a stream with the right
    /// of way kept 34 % of a radius when only the deep agents moved).
    fn with_contacts(&self, deep: &[usize]) -> Vec<usize> {
        let (a, grid, max_r) = (&self.agents, &self.grid, self.max_radius_m);
        let mut ids = deep.to_vec();
        for &i in deep {
            let (p, r) = (a.pos_world[i], a.radius_m[i]);
            grid.for_each_candidate(p, r + max_r, |j, _| {
                let j = j as usize;
                let reach = r + a.radius_m[j];
                if j != i && (p - a.pos_world[j]).length_squared() < reach * reach {
                    ids.push(j);
                }
            });
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Moves every agent whose centre is in a wall cell of its type (a stamp dropped on it)
    /// to the centre of the nearest free cell, stopped; returns how many moved. Agents with
    /// no free cell within `EVICT_SEARCH_CELLS` stay.
    pub fn evict_from_walls<N: Navigator + ?Sized>(&mut self, nav: &N) -> u32 {
        let grid = nav.grid();
        let mut moved = 0;
        let a = &mut self.agents;
        for i in 0..a.len() {
            let t = a.move_type[i];
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

    /// Whether agents of more than one order travel, or an agent holds back for another
    /// order's stream ([`crate::steering::StepContext::meeting`]).
    fn right_of_way_can_act(&self) -> bool {
        let a = &self.agents;
        let mut first = None;
        for i in 0..a.len() {
            if a.yield_secs[i] > 0.0 {
                return true;
            }
            if a.state[i].is_travelling() {
                match first {
                    None => first = Some(a.order[i]),
                    Some(o) if o != a.order[i] => return true,
                    Some(_) => {}
                }
            }
        }
        false
    }

    /// Neighbour-grid cells of half the largest query radius: a disc query then scans
    /// about 5 r² of cells (rows clipped to the disc) instead of 9 r² with r-sized cells.
    /// The query radius is the neighbour radius, or only the separation reach when nothing
    /// else reads neighbours (see [`SimConfig::uses_separation_only`]); group arrival
    /// queries the separation reach too.
    pub(super) fn grid_cell_m(&self) -> f32 {
        let separation_m = 2.0 * self.max_radius_m + self.config.separation_margin_m;
        if self.config.uses_separation_only() {
            0.5 * self.max_neighbour_radius_m.min(separation_m)
        } else {
            0.5 * self.max_neighbour_radius_m
        }
    }
}

/// The step length the configuration means, in f64: `step_secs` is an f32, and 1/60 s as
/// an f32 is 1/60 + 9e-10, which over ten minutes of frames loses a step. A step within
/// 1e-6 of a whole rate (1/60, 1/30, 1/120 s …) is that rate's exact step.
fn exact_step_secs(step_secs: f32) -> f64 {
    let step = f64::from(step_secs.max(1e-4));
    let rate = (1.0 / step).round();
    if ((1.0 / step) - rate).abs() < 1e-6 * rate {
        1.0 / rate
    } else {
        step
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::testing::GridNavigator;
    use crate::{SimConfig, Simulation};

    /// Frame times add up to whole steps exactly, at 60 Hz and at rates that do not divide
    /// it; a frame longer than the cap drops all but one step of what it did not take.
    #[test]
    fn advance_keeps_fractional_time_exactly_and_drops_what_the_cap_refuses() {
        let mut nav = GridNavigator::new(1.0, 8, 8);
        nav.add_type("land", vec![1; 64]).unwrap();
        for (frame, frames, steps) in [(1.0 / 60.0, 600, 600), (1.0 / 144.0, 1440, 600)] {
            let mut sim = Simulation::new(SimConfig::default(), 1);
            let taken: u32 = (0..frames).map(|_| sim.advance(&mut nav, frame)).sum();
            assert_eq!(taken, steps, "{frames} frames of {frame} s");
        }
        let mut sim = Simulation::new(SimConfig::default(), 1);
        assert_eq!(sim.advance(&mut nav, 1.0), 8, "the cap");
        assert_eq!(
            sim.advance(&mut nav, 0.0),
            1,
            "one step of the rest is kept"
        );
        assert_eq!(sim.advance(&mut nav, 0.0), 0, "the rest was dropped");
    }
}
