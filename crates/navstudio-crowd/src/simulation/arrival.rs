//! After each step: arrivals (goal reached, an occupied goal, transitive bumping), the
//! stuck timer, and the congestion map.

use std::collections::BTreeMap;

use crate::Vec2;
use crate::agents::AgentState;
use crate::metrics::CongestionMap;
use crate::navigator::{NavGrid, Navigator, PathId};
use crate::walls::segment_is_clear;

use super::Simulation;

/// An agent is ahead of another when it lies within about 85° of the other's flow
/// direction (the cosine): where a queue merges into a door, the one to go next stands
/// almost beside it.
const QUEUE_CONE_COS: f32 = 0.1;
/// A stalled agent that moves along its flow at this share of its top speed, smoothed over
/// `FLOW_SPEED_SECS`, is queued (on its way again) whatever lies ahead.
const QUEUE_FLOW_SHARE: f32 = 0.25;
/// Time constant of the smoothed speed along the flow (an exponential average). One step is
/// too short: pressed into a crowd an agent can step forward and be pushed back by turns.
const FLOW_SPEED_SECS: f32 = 0.25;
/// Beyond the group's own footprint from its goal, an agent bumps into its arrived group
/// (and arrives) only while the group holds it back: below this share of its top speed.
/// One walking freely past arrived members there (the tail of a column still coming
/// through a door) walks on to the group's edge.
const BUMP_SPEED_SHARE: f32 = 0.5;

impl Simulation {
    /// Goal reached → arrived; then group arrival by transitive bumping: an agent touching
    /// an arrived agent of the same order is done too, and so on through the group.
    pub(super) fn resolve_arrivals<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let n = self.agents.len();
        let mut done_orders = Vec::new();
        let mut queue = Vec::new();
        let travelling = AgentState::is_travelling;
        // Only agents of an order with someone home can touch its arrived group: while a
        // crowd is on its way, nobody is asked where it stands.
        let mut has_arrived = vec![false; self.orders.len()];
        let mut home = |order: u32| {
            if let Some(flag) = has_arrived.get_mut(order as usize) {
                *flag = true;
            }
        };
        // Travelling agents near enough their goals for a standing agent to take them.
        let mut near_goal = Vec::new();
        for i in 0..n {
            let a = &self.agents;
            let state = a.state[i];
            if !travelling(state) {
                if state == AgentState::Arrived {
                    home(a.order[i]);
                }
            } else if self.goal_dist_m[i] <= a.radius_m[i] {
                let order = a.order[i];
                self.agents.state[i] = AgentState::Arrived;
                home(order);
                done_orders.push(order);
                queue.push(i);
            } else if self.goal_in_touching_reach(i) {
                near_goal.push(i);
            }
        }
        // An agent whose goal is taken by a standing agent it touches arrives against it,
        // instead of circling the spot for ever (context steering's "pass the agent on your
        // waypoint").
        for i in near_goal {
            if travelling(self.agents.state[i]) && self.goal_taken_by_touching(i) {
                let order = self.agents.order[i];
                self.agents.state[i] = AgentState::Arrived;
                home(order);
                done_orders.push(order);
                queue.push(i);
            }
        }
        // With nobody home, nobody is looked at at all.
        let asked = if has_arrived.contains(&true) {
            0..n
        } else {
            0..0
        };
        for i in asked {
            if !has_arrived
                .get(self.agents.order[i] as usize)
                .is_some_and(|&h| h)
            {
                continue;
            }
            // A stuck agent touching the arrived group is at the end of the line too, however
            // far its lane target lies beyond the group (ORCA agents otherwise hover there),
            // as long as it stands within twice the reach in sight of where it was sent: a queue held up in a door
            // behind the arrived group is not home, and arriving there, member by member
            // back through the door, it would stand in the doorway for good.
            let state = self.agents.state[i];
            if travelling(state)
                && (self.bumps(nav, i)
                    || state == AgentState::Stuck && self.in_reach_of_goal(nav, i, 2.0))
                && self.touching_arrived(i).is_some()
                && !self.in_a_stuck_allys_way(nav, i)
            {
                self.agents.state[i] = AgentState::Arrived;
                done_orders.push(self.agents.order[i]);
                queue.push(i);
            }
        }
        let nav_ref: &N = nav;
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
                    && self.bumps(nav_ref, j)
                    && !self.in_a_stuck_allys_way(nav_ref, j)
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

    /// Whether agent `i` is near enough its goal to end its order by touching the arrived
    /// group: within `reach_factor` × the group's reach of its own lane, of the order's
    /// destination or of a goal of its set, in plain sight of it. A late agent whose lane
    /// lies across the arrived group otherwise shoves its way through the group to reach
    /// it; the sight line keeps a group from settling in the doorway of the room it was sent
    /// into, and a queue behind a door from arriving there however near its lane beyond
    /// the door lies.
    fn in_reach_of_goal<N: Navigator + ?Sized>(
        &self,
        nav: &N,
        i: usize,
        reach_factor: f32,
    ) -> bool {
        let a = &self.agents;
        let order = a.order[i] as usize;
        let Some(record) = self.orders.get(order) else {
            return false;
        };
        let reach = reach_factor * record.bump_reach_m + a.radius_m[i];
        let p = a.pos_world[i];
        let t = a.move_type[i];
        let cell = nav.grid().cell_size_m;
        std::iter::once(&a.goal_world[i])
            .chain(self.order_destinations.get(order))
            .chain(self.order_more_goals.get(order).into_iter().flatten())
            .any(|&goal| {
                (goal - p).length() <= reach
                    && segment_is_clear(p / cell, goal / cell, |x, y| nav.is_wall(t, x, y))
            })
    }

    /// Whether agent `i` stands in the way of an ally it touches that is held up (stuck or
    /// queued), farther from the goal, and could not end the order where it stands (out of
    /// reach or out of sight of the goal, [`Self::in_reach_of_goal`]): settling there, `i`
    /// would hold it for good. The group's edge is where its last members can see the goal:
    /// large walkers arriving one against the next stood in a line back into a gap's mouth,
    /// and the group's last three walkers waited behind it for 40 s (mixed_gaps-194 of seed
    /// 1 in context steering, 3.83 × the bound; 2.66 × now).
    fn in_a_stuck_allys_way<N: Navigator + ?Sized>(&self, nav: &N, i: usize) -> bool {
        let a = &self.agents;
        let reach = 1.25 * (a.radius_m[i] + self.max_radius_m) + self.config.separation_margin_m;
        let mut found = false;
        self.grid.for_each_candidate(a.pos_world[i], reach, |j, _| {
            let j = j as usize;
            found = found
                || (j != i
                    && a.state[j].is_stalled()
                    && a.order[j] == a.order[i]
                    && self.goal_dist_m[j] > self.goal_dist_m[i]
                    && self.touches(i, j)
                    && !self.in_reach_of_goal(nav, j, 2.0));
        });
        found
    }

    /// Whether agent `i`, touching its arrived group, has bumped into it: within the
    /// group's footprint of its goal (half the bump reach, [`Self::in_reach_of_goal`]), or
    /// within the whole reach while the group holds it back ([`BUMP_SPEED_SHARE`]).
    fn bumps<N: Navigator + ?Sized>(&self, nav: &N, i: usize) -> bool {
        let held_back = self
            .speed_mps
            .get(i)
            .is_none_or(|&v| v < BUMP_SPEED_SHARE * self.agents.max_speed[i]);
        self.in_reach_of_goal(nav, i, if held_back { 1.0 } else { 0.5 })
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

    /// Whether agent `i` stands near enough its goal for [`Self::goal_taken_by_touching`]:
    /// within the reach of a standing agent it touches that sits on the goal.
    fn goal_in_touching_reach(&self, i: usize) -> bool {
        let r = self.agents.radius_m[i];
        self.goal_dist_m[i] <= 2.0 * (r + self.max_radius_m) + self.config.separation_margin_m
    }

    /// Whether agent `i`, within [`Self::goal_in_touching_reach`], touches a standing agent
    /// (idle or arrived, any order) that sits so close to `i`'s goal that `i` could not
    /// come within its own radius of it.
    fn goal_taken_by_touching(&self, i: usize) -> bool {
        let a = &self.agents;
        let (r, goal) = (a.radius_m[i], a.goal_world[i]);
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

    /// Progress per travelling agent: one that gets no nearer its goal for
    /// `stuck_secs` is stuck. With stuck recovery, a stuck agent standing where its path's
    /// flow does not reach (pushed into a part of a sector no route leads through) has its
    /// path extended from where it stands, once each `stuck_secs` it stays stuck.
    pub(super) fn track_progress<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let dt = self.config.step_secs;
        let stuck_secs = self.config.stuck_secs;
        let a = &mut self.agents;
        let mut off_flow: BTreeMap<PathId, Vec<Vec2>> = BTreeMap::new();
        // Only a travelling agent is stalled, so they are gathered here.
        let mut stalled = Vec::new();
        let n = a.len();
        self.flow_speed_mps.resize(n, 0.0);
        let smoothing = (dt / FLOW_SPEED_SECS).min(1.0);
        // Sliced to the agent count once, so the loop below indexes without bounds checks
        // (it runs for every agent every step).
        let goal_dist = &self.goal_dist_m[..n];
        let flow_speed = &mut self.flow_speed_mps[..n];
        let start_pos = self.step_start_pos.get(..n);
        let (pos, flow) = (&a.pos_world[..n], &a.flow_dir[..n]);
        let (best, waited) = (&mut a.best_goal_dist_m[..n], &mut a.no_progress_secs[..n]);
        let state = &mut a.state[..n];
        for i in 0..n {
            if !state[i].is_travelling() {
                continue;
            }
            let dist = goal_dist[i];
            if dist < best[i] - self.config.stuck_progress_m {
                best[i] = dist;
                waited[i] = 0.0;
                state[i] = AgentState::Moving;
                flow_speed[i] = 0.0;
            } else {
                // Smoothed only while it makes no progress: it is read once the agent is
                // stalled, twelve time constants on, and a crowd on its way skips the work.
                if let Some(start) = start_pos {
                    let along = (pos[i] - start[i]).dot(flow[i]) / dt;
                    flow_speed[i] += (along - flow_speed[i]) * smoothing;
                }
                let before = waited[i];
                waited[i] += dt;
                if waited[i] >= stuck_secs {
                    state[i] = AgentState::Stuck;
                    let period = |t: f32| (t / stuck_secs) as u32;
                    if period(waited[i]) > period(before)
                        && let Some(path) = a.path[i]
                        && !nav.covers(path, pos[i])
                    {
                        off_flow.entry(path).or_default().push(pos[i]);
                    }
                }
            }
            if state[i].is_stalled() {
                stalled.push(i);
            }
        }
        for (path, at) in off_flow {
            nav.join_path(path, &at);
        }
        self.classify_stalled(stalled);
    }

    /// Splits the agents that made no progress for `stuck_secs` into queued and stuck
    /// ("stuck" means an agent *and the agents ahead of it* make no progress). An agent's
    /// agents ahead are the travelling agents within a body of touching it (a queue's
    /// members jostle apart), in front of it along its flow (within ±85°), and of another
    /// order or not walking against it (their flows less than 120° apart: one crossing in
    /// front, as at a door a queue merges into, leads; another order's stream coming the
    /// other way uses the way it waits for). A stalled agent walking along its flow at a
    /// quarter of its top speed or more is queued (it got its turn), so is one holding back
    /// for another order's stream (its way is in use), and so is one with an agent ahead
    /// that makes progress or is queued itself; the rest — blocked by walls, by standing
    /// agents, by an oncoming crowd that stands too, or in a ring of agents each waiting for
    /// the next — are stuck. Found by a breadth-first search from the
    /// agents that make progress back along "is behind".
    ///
    /// `stalled`: the stalled agents (stuck or queued), in index order.
    fn classify_stalled(&mut self, stalled: Vec<usize>) {
        let a = &self.agents;
        let n = a.len();
        if stalled.is_empty() {
            return;
        }
        let margin = self.config.separation_margin_m;
        let reach_max = 2.0 * 2.0 * self.max_radius_m + margin;
        // behind[j]: the stalled agents that have j ahead of them.
        let mut behind: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in &stalled {
            let p = a.pos_world[i];
            let dir = if a.flow_dir[i] == Vec2::ZERO {
                (a.goal_world[i] - p).normalize_or_zero()
            } else {
                a.flow_dir[i]
            };
            if dir == Vec2::ZERO {
                continue;
            }
            self.grid.for_each_candidate(p, reach_max, |j, q| {
                let j = j as usize;
                if j == i || !a.state[j].is_travelling() {
                    return;
                }
                let offset = q - p;
                let dist = offset.length();
                let reach = 2.0 * (a.radius_m[i] + a.radius_m[j]) + margin;
                let other = if a.flow_dir[j] == Vec2::ZERO {
                    dir
                } else {
                    a.flow_dir[j]
                };
                // Its own order's agents coming the other way (round an obstacle) do not
                // lead it; another order's do: their stream uses the way it waits for.
                if dist <= reach
                    && offset.dot(dir) >= QUEUE_CONE_COS * dist
                    && (other.dot(dir) > -0.5 || a.order[j] != a.order[i])
                {
                    behind.entry(j).or_default().push(i);
                }
            });
        }
        // A stalled agent that moves along its flow (the head of a queue that just got its
        // turn) is on its way: its record distance lags behind. Moves, not walks: pressed
        // into a crowd that cannot give way, its velocity points on at speed (ORCA leaves
        // standing agents most of the avoidance) while the position passes push it back,
        // and a column held so read as a queue for good.
        let speed = &self.flow_speed_mps;
        let flowing = |j: usize| {
            a.state[j].is_stalled()
                && speed
                    .get(j)
                    .is_some_and(|&v| v >= QUEUE_FLOW_SHARE * a.max_speed[j])
        };
        // One holding back for another order's stream waits for a way that is in use.
        let holding = |j: usize| a.state[j].is_stalled() && a.yield_secs[j] > 0.0;
        // Only a stalled agent flows or holds (both read that first).
        let mut queued = vec![false; n];
        for &j in &stalled {
            queued[j] = flowing(j) || holding(j);
        }
        // The search starts from the agents someone stands behind (not every agent: with a
        // crowd on its way that was a map look-up per agent and step).
        let mut queue: Vec<usize> = behind
            .keys()
            .copied()
            .filter(|&j| a.state[j] == AgentState::Moving || queued[j])
            .collect();
        while let Some(j) = queue.pop() {
            if let Some(list) = behind.get(&j) {
                for &i in list {
                    if !queued[i] {
                        queued[i] = true;
                        queue.push(i);
                    }
                }
            }
        }
        for i in stalled {
            self.agents.state[i] = if queued[i] {
                AgentState::Queued
            } else {
                AgentState::Stuck
            };
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

    pub(super) fn add_congestion(&mut self, grid: NavGrid) {
        let Some(map) = &mut self.congestion else {
            return;
        };
        let a = &self.agents;
        let dt = self.config.step_secs;
        let mut added = false;
        for i in 0..a.len() {
            if a.state[i].is_travelling() && self.speed_mps[i] < map.slow_share * a.max_speed[i] {
                map.add(grid.cell_from_world(a.pos_world[i]), dt);
                added = true;
            }
        }
        if added {
            map.version += 1;
        }
    }
}
