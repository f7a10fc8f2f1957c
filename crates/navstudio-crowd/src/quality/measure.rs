//! What the crowd benchmark measures, from outside the simulation: after each step it reads
//! the agents' positions, velocities and states and accumulates overlap between agents,
//! wall penetrations, distance walked, heading changes and arrival times. Nothing here
//! trusts the simulation's own counters, so it is an independent check of them.

use crate::spatial::SpatialGrid;
use crate::walls::wall_disc_radius;
use crate::{AgentState, Navigator, Simulation, Vec2};
use navstudio_nav::MoveType;

/// An agent counts as turning only while it moves faster than this share of its top speed
/// (a standing agent's heading is noise).
const MOVING_SHARE: f32 = 0.1;
/// Wall overlap below this is rounding, not a penetration. `[Units: m]`
const WALL_TOLERANCE_M: f32 = 1e-3;

/// Accumulates quality measures over a run; feed it every step with [`Self::observe`].
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    prev_pos: Vec<Vec2>,
    prev_heading: Vec<Option<Vec2>>,
    walked_m: Vec<f64>,
    arrived_secs: Vec<Option<f64>>,
    overlap_sum: f64,
    overlap_pairs: u64,
    overlap_max: f32,
    wall_penetrations: u64,
    turn_rad: f64,
    turn_secs: f64,
    step_ms: Vec<f64>,
    elapsed_secs: f64,
    /// Neighbour grid for the pair search.
    pairs: SpatialGrid,
}

/// What the recorder saw, summed up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measures {
    /// Agents in the run.
    pub agents: u32,
    /// Agents arrived at the end.
    pub arrived: u32,
    /// Seconds until 95 % had arrived (`None`: never). `[Units: s]`
    pub t95_secs: Option<f64>,
    /// Seconds until all had arrived (`None`: never). `[Units: s]`
    pub t100_secs: Option<f64>,
    /// Agents in the `Stuck` state at the end.
    pub stuck_at_end: u32,
    /// Mean overlap depth of touching pairs as a share of the smaller radius, over all
    /// pairs and steps.
    pub overlap_mean: f64,
    /// Deepest overlap seen, as a share of the smaller radius.
    pub overlap_max: f32,
    /// Agent-steps with the collision disc inside a wall cell.
    pub wall_penetrations: u64,
    /// Mean over arrived agents of distance walked ÷ shortest-path progress (see
    /// [`Recorder::finish`]); 1 is the shortest path itself.
    pub path_efficiency: f64,
    /// Mean heading change of moving agents. `[Units: deg/s]`
    pub jitter_deg_per_sec: f64,
    /// Median step time. `[Units: ms]`
    pub step_ms: f64,
}

impl Recorder {
    /// Starts measuring a simulation whose agents are all in place.
    #[must_use]
    pub fn new(sim: &Simulation) -> Self {
        let a = sim.agents();
        let n = a.len();
        Self {
            prev_pos: a.pos_world.clone(),
            prev_heading: vec![None; n],
            walked_m: vec![0.0; n],
            arrived_secs: vec![None; n],
            ..Self::default()
        }
    }

    /// Reads the state after one step that took `step_ms` of wall time.
    pub fn observe<N: Navigator + ?Sized>(&mut self, sim: &Simulation, nav: &N, step_ms: f64) {
        let a = sim.agents();
        let dt = f64::from(sim.config().step_secs);
        self.elapsed_secs += dt;
        self.step_ms.push(step_ms);
        for i in 0..a.len() {
            let p = a.pos_world[i];
            self.walked_m[i] += f64::from((p - self.prev_pos[i]).length());
            self.prev_pos[i] = p;
            if a.state[i] == AgentState::Arrived && self.arrived_secs[i].is_none() {
                self.arrived_secs[i] = Some(self.elapsed_secs);
            }
            let v = a.vel[i];
            let heading = (v.length() > MOVING_SHARE * a.max_speed[i]
                && a.state[i] == AgentState::Moving)
                .then(|| v.normalize_or_zero());
            if let (Some(h), Some(prev)) = (heading, self.prev_heading[i]) {
                self.turn_rad += f64::from(prev.dot(h).clamp(-1.0, 1.0).acos());
                self.turn_secs += dt;
            }
            self.prev_heading[i] = heading;
            if disc_in_wall(nav, a.move_type[i], p, wall_radius(sim, nav, i)) {
                self.wall_penetrations += 1;
            }
        }
        self.observe_overlaps(sim);
    }

    /// Every overlapping pair once, through the crowd's own neighbour grid.
    fn observe_overlaps(&mut self, sim: &Simulation) {
        let a = sim.agents();
        if a.len() < 2 {
            return;
        }
        let r_max = a.radius_m.iter().copied().fold(0.0f32, f32::max);
        self.pairs.rebuild(&a.pos_world, 2.0 * r_max);
        let (mut sum, mut count, mut max) = (0.0f64, 0u64, self.overlap_max);
        for i in 0..a.len() {
            let (p, r) = (a.pos_world[i], a.radius_m[i]);
            self.pairs
                .for_each_candidate_uncapped(p, r + r_max, |j, q| {
                    let j = j as usize;
                    let reach = r + a.radius_m[j];
                    let d_sq = (q - p).length_squared();
                    if j <= i || d_sq >= reach * reach {
                        return;
                    }
                    let depth = (reach - d_sq.sqrt()) / r.min(a.radius_m[j]);
                    sum += f64::from(depth);
                    count += 1;
                    max = max.max(depth);
                });
        }
        self.overlap_sum += sum;
        self.overlap_pairs += count;
        self.overlap_max = max;
    }

    /// Seconds observed so far. `[Units: s]`
    #[must_use]
    pub fn elapsed_secs(&self) -> f64 {
        self.elapsed_secs
    }

    /// Arrival time of each agent so far (`None`: not arrived). `[Units: s]`
    #[must_use]
    pub fn arrival_secs(&self) -> &[Option<f64>] {
        &self.arrived_secs
    }

    /// The measures at the end of a run. `progress_m[i]` is how much nearer agent `i` came
    /// to its destination along shortest paths (shortest path from its start minus shortest
    /// path from where it ended; `None` when unknown); path efficiency is distance walked
    /// over it, for arrived agents that made at least a metre of progress.
    #[must_use]
    pub fn finish(&self, sim: &Simulation, progress_m: &[Option<f64>]) -> Measures {
        let a = sim.agents();
        let n = a.len();
        let mut times: Vec<f64> = self.arrived_secs.iter().flatten().copied().collect();
        times.sort_by(f64::total_cmp);
        let at_share = |share: f64| {
            let need = ((n as f64 * share).ceil() as usize).max(1);
            times.get(need - 1).copied()
        };
        let mut efficiency = Vec::new();
        for i in 0..n {
            let progress = progress_m.get(i).copied().flatten().unwrap_or(0.0);
            if a.state[i] == AgentState::Arrived && progress > 1.0 {
                efficiency.push(self.walked_m[i] / progress);
            }
        }
        let mut step_ms = self.step_ms.clone();
        step_ms.sort_by(f64::total_cmp);
        Measures {
            agents: n as u32,
            arrived: times.len() as u32,
            t95_secs: at_share(0.95),
            t100_secs: at_share(1.0),
            stuck_at_end: a.state.iter().filter(|&&s| s == AgentState::Stuck).count() as u32,
            overlap_mean: if self.overlap_pairs > 0 {
                self.overlap_sum / self.overlap_pairs as f64
            } else {
                0.0
            },
            overlap_max: self.overlap_max,
            wall_penetrations: self.wall_penetrations,
            path_efficiency: if efficiency.is_empty() {
                1.0
            } else {
                efficiency.iter().sum::<f64>() / efficiency.len() as f64
            },
            jitter_deg_per_sec: if self.turn_secs > 0.0 {
                self.turn_rad.to_degrees() / self.turn_secs
            } else {
                0.0
            },
            step_ms: step_ms.get(step_ms.len() / 2).copied().unwrap_or(0.0),
        }
    }
}

/// The disc the simulation collides with walls.
fn wall_radius<N: Navigator + ?Sized>(sim: &Simulation, nav: &N, i: usize) -> f32 {
    let a = sim.agents();
    let t = a.move_type[i];
    wall_disc_radius(
        a.radius_m[i],
        nav.wall_buffer_m(t),
        nav.grid().cell_size_m,
        true,
    )
}

/// Whether a disc overlaps a wall cell by more than the tolerance.
fn disc_in_wall<N: Navigator + ?Sized>(nav: &N, t: MoveType, p: Vec2, radius_m: f32) -> bool {
    let cell = nav.grid().cell_size_m;
    let r = radius_m - WALL_TOLERANCE_M;
    if r <= 0.0 {
        return false;
    }
    let (x0, y0) = nav.grid().cell_from_world(p - Vec2::new(r, r));
    let (x1, y1) = nav.grid().cell_from_world(p + Vec2::new(r, r));
    for y in y0..=y1 {
        for x in x0..=x1 {
            if !nav.is_wall(t, x, y) {
                continue;
            }
            let min = Vec2::new(x as f32 * cell, y as f32 * cell);
            let closest = Vec2::new(
                p.x.clamp(min.x, min.x + cell),
                p.y.clamp(min.y, min.y + cell),
            );
            if (p - closest).length_squared() < r * r {
                return true;
            }
        }
    }
    false
}
