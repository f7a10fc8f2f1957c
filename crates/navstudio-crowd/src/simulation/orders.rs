//! Orders: who moves where along which planned paths (a mixed selection's routes, goal
//! sets, SmartCenter lanes), leaving an order, and re-planning when the world changes.

use navstudio_nav::MoveType;
use std::collections::BTreeMap;

use crate::agents::{AgentId, AgentState, LaneMode, NO_ORDER};
use crate::groups::lane_targets;
use crate::navigator::{Navigator, PathId};
use crate::vec2::Vec2;
use crate::walls::{disc_is_clear, segment_is_clear, wall_disc_radius};

use super::{OrderRecord, OrderReport, Simulation};

impl Simulation {
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
    /// [`crate::groups`]); a lane whose target is a wall, or behind a wall as seen from the
    /// goal, falls back to the goal itself.
    pub fn order_move<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        selection: &[AgentId],
        goal_world: Vec2,
    ) -> OrderReport {
        let (ids, by_type) = self.take_selection(nav, selection);
        let order_id = self.orders.len() as u32;
        let mut paths = Vec::new();
        let mut path_types = Vec::new();
        let mut routes = Vec::new();
        let mut moving = Vec::new();
        let mut types: Vec<MoveType> = by_type.keys().copied().collect();
        types.sort_by_key(|&t| (nav.passable_cells(t), t));
        let mut unserved: Vec<usize> = ids.clone();
        let mut served_flag = vec![false; self.agents.len()];
        for &r in &types {
            let members: Vec<usize> = unserved
                .iter()
                .copied()
                .filter(|&i| {
                    let t = self.agents.move_type[i];
                    t == r || nav.passable_subset(r, t)
                })
                .collect();
            if members.is_empty() || !goal_world.is_finite() {
                continue;
            }
            let sources: Vec<Vec2> = members.iter().map(|&i| self.agents.pos_world[i]).collect();
            let Some(path) = nav.request_path(r, &sources, goal_world) else {
                continue;
            };
            let before = moving.len();
            for &i in &members {
                // A source on another island than the goal shares no route: a later, less
                // restrictive type may still serve it.
                if nav.reaches(path, self.agents.pos_world[i]) {
                    self.agents.path[i] = Some(path);
                    self.agents.path_type[i] = r;
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
        let lanes_spread = self.send_to_lanes(&*nav, &moving, goal_world, order_id);
        let radii: Vec<f32> = moving.iter().map(|&i| self.agents.radius_m[i]).collect();
        // Packed discs fill about 80 % of the area they cover.
        let area_m2: f32 = radii
            .iter()
            .map(|r| std::f32::consts::PI * r * r / 0.8)
            .sum();
        let bump_reach_m =
            2.0 * goal_area_reach_m(&*nav, path_types.first(), &[goal_world], area_m2);
        let route_count = routes.len() as u32;
        self.orders.push(OrderRecord {
            paths,
            path_types,
            bump_reach_m,
            live: moving.len() as u32,
            leader: None,
            leader_at: Vec2::ZERO,
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
            lanes: lanes_spread,
            routes: route_count,
        }
    }

    /// Sends `members` off under order `order_id`: each toward its own lane spread round
    /// `goal_world` where that lane is open and in plain sight of the goal, else toward the
    /// goal itself. Returns whether lanes were spread.
    fn send_to_lanes<N: Navigator + ?Sized>(
        &mut self,
        nav: &N,
        members: &[usize],
        goal_world: Vec2,
        order_id: u32,
    ) -> bool {
        let positions: Vec<Vec2> = members.iter().map(|&i| self.agents.pos_world[i]).collect();
        let radii: Vec<f32> = members.iter().map(|&i| self.agents.radius_m[i]).collect();
        let lanes = lane_targets(&positions, &radii, goal_world);
        let cell = nav.grid().cell_size_m;
        for (k, &i) in members.iter().enumerate() {
            let t = self.agents.move_type[i];
            let goal = match &lanes {
                Some(lanes) => {
                    let lane = lanes[k];
                    // The agent must fit there: a lane against a wall held a tank a body's
                    // width short of it, stuck for good.
                    let disc =
                        wall_disc_radius(self.agents.radius_m[i], nav.wall_buffer_m(t), cell, true);
                    let usable = disc_is_clear(lane, disc, cell, |x, y| nav.is_wall(t, x, y))
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
            a.lane[i] = LaneMode::Own;
            a.best_goal_dist_m[i] = (goal - a.pos_world[i]).length();
            a.no_progress_secs[i] = 0.0;
        }
        lanes.is_some()
    }

    /// The selected agents that exist, sorted and once each, taken off their old orders,
    /// and the same agents grouped by movement type: how every move order starts.
    fn take_selection<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        selection: &[AgentId],
    ) -> (Vec<usize>, BTreeMap<MoveType, Vec<usize>>) {
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
        let mut by_type: BTreeMap<MoveType, Vec<usize>> = BTreeMap::new();
        for &i in &ids {
            by_type.entry(self.agents.move_type[i]).or_default().push(i);
        }
        (ids, by_type)
    }

    /// The paths an order planned: `(movement type index the path was planned for, agents
    /// following it)`, most restrictive type first (see [`Self::order_move`]).
    #[must_use]
    pub fn order_routes(&self, order: u32) -> &[(MoveType, u32)] {
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
        let (_, by_type) = self.take_selection(nav, selection);
        let order_id = self.orders.len() as u32;
        let mut paths = Vec::new();
        let mut path_types = Vec::new();
        let mut routes = Vec::new();
        // Per goal (index into `goals`), the agents heading there.
        let mut by_goal: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut unreachable = 0;
        for (t, members) in by_type {
            let sources: Vec<Vec2> = members.iter().map(|&i| self.agents.pos_world[i]).collect();
            let Some(path) = nav.request_path_to_any(t, &sources, &goals) else {
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
                self.agents.path_type[i] = t;
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
        let mut moving = 0;
        let mut any_lanes = false;
        let mut area_m2 = 0.0_f32;
        for (k, members) in by_goal {
            let goal_world = goals[k];
            any_lanes |= self.send_to_lanes(&*nav, &members, goal_world, order_id);
            for &i in &members {
                let r = self.agents.radius_m[i];
                area_m2 += std::f32::consts::PI * r * r / 0.8;
                moving += 1;
            }
        }
        let route_count = routes.len() as u32;
        let bump_reach_m = 2.0 * goal_area_reach_m(&*nav, path_types.first(), &goals, area_m2);
        self.orders.push(OrderRecord {
            paths,
            path_types,
            bump_reach_m,
            live: moving,
            leader: None,
            leader_at: Vec2::ZERO,
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
    pub(super) fn leave_order<N: Navigator + ?Sized>(&mut self, nav: &mut N, i: usize) {
        let order = self.agents.order[i];
        let travelling = self.agents.state[i].is_travelling();
        self.agents.order[i] = NO_ORDER;
        self.agents.path[i] = None;
        self.agents.state[i] = AgentState::Idle;
        if travelling {
            self.finish_travel(nav, order);
        }
    }

    pub(super) fn finish_travel<N: Navigator + ?Sized>(&mut self, nav: &mut N, order: u32) {
        if let Some(record) = self.orders.get_mut(order as usize) {
            record.live = record.live.saturating_sub(1);
            // A follow order keeps its paths while followers wait for the leader to move on
            // (`follow::follow_leaders` releases them when no follower is left).
            if record.live == 0 && record.leader.is_none() {
                self.release_order(nav, order);
            }
        }
    }

    pub(super) fn release_order<N: Navigator + ?Sized>(&mut self, nav: &mut N, order: u32) {
        if let Some(record) = self.orders.get_mut(order as usize) {
            for path in record.paths.drain(..) {
                nav.release_path(path);
            }
        }
    }

    /// Asks again for every live order's paths, from where its travelling agents are now
    /// (after the world changed under them); goals, lanes and states stay. Agents whose type
    /// can no longer reach the goal leave the order (idle), as in [`Self::order_move`].
    pub fn replan<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let travelling = AgentState::is_travelling;
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
                        .unwrap_or(self.agents.move_type[ids[0]]);
                    match nav.request_path_to_any(t, &sources, &goals) {
                        Some(path) => {
                            let before = stranded.len();
                            for &i in ids {
                                if nav.reaches(path, self.agents.pos_world[i]) {
                                    self.agents.path[i] = Some(path);
                                    self.agents.path_type[i] = t;
                                } else {
                                    stranded.push(i);
                                }
                            }
                            if stranded.len() - before < ids.len() {
                                new_paths.push(path);
                                new_types.push(t);
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
}

/// How far from the goals (the nearest of them) the ground an order's group stands on
/// when it has arrived reaches: the distance within which the cells passable for
/// `move_type`, connected to a goal, cover `area_m2` (the group's packed footprint).
/// In open ground that is the radius of a disc of that area; in a corridor it is the
/// length of corridor the group fills, so the members at the end of a long queue still
/// count as near enough to arrive by touching the group, instead of pressing into it for
/// good. Nearest cells first (by straight distance to the goal), grown only through
/// passable neighbours. `[Units: m]`
fn goal_area_reach_m<N: Navigator + ?Sized>(
    nav: &N,
    move_type: Option<&MoveType>,
    goals: &[Vec2],
    area_m2: f32,
) -> f32 {
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, HashSet};
    let disc = (area_m2 / std::f32::consts::PI).sqrt();
    let Some(&t) = move_type else {
        return disc;
    };
    let grid = nav.grid();
    let cell_area = grid.cell_size_m * grid.cell_size_m;
    let dist_to = |x: i32, y: i32| {
        let c = grid.world_from_cell(x, y);
        goals
            .iter()
            .map(|&g| (c - g).length())
            .fold(f32::INFINITY, f32::min)
    };
    // Keys: distance bits (non-negative floats order like their bits), then the cell.
    let mut heap = BinaryHeap::new();
    let mut seen = HashSet::new();
    for &g in goals {
        let (x, y) = grid.cell_from_world(g);
        if !nav.is_wall(t, x, y) && seen.insert((x, y)) {
            heap.push(Reverse((0u32, x, y)));
        }
    }
    if heap.is_empty() {
        return disc;
    }
    let mut covered = 0.0f32;
    let mut reach = 0.0f32;
    while let Some(Reverse((bits, x, y))) = heap.pop() {
        reach = f32::from_bits(bits);
        covered += cell_area;
        if covered >= area_m2 {
            break;
        }
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (x + dx, y + dy);
            if !nav.is_wall(t, nx, ny) && seen.insert((nx, ny)) {
                heap.push(Reverse((dist_to(nx, ny).to_bits(), nx, ny)));
            }
        }
    }
    // Never less than the open-ground disc (cell centres lie inside the disc they fill).
    reach.max(disc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::GridNavigator;

    /// Open ground: the area's reach is the disc's radius, √(50 / π) ≈ 3.99 m (never
    /// less; the cells within it cover a little less than the disc, so a few more count).
    /// A corridor three cells wide with the goal at its closed end: 60 m² fill 20 cells
    /// of its length, so the reach is ≈ 19.5 m from the goal half a cell in.
    #[test]
    fn the_goal_area_reaches_as_far_as_the_ground_the_group_fills() {
        let (w, h) = (60u32, 40u32);
        let mut nav = GridNavigator::new(1.0, w, h);
        let t = nav
            .add_type("open", vec![1; (w * h) as usize])
            .expect("an open type");
        let open = goal_area_reach_m(
            &nav,
            Some(&MoveType::new(t)),
            &[Vec2::new(30.5, 20.5)],
            50.0,
        );
        assert!((3.98..4.6).contains(&open), "open ground: {open}");

        let mut costs = vec![255u8; (w * h) as usize];
        for y in 10..13 {
            for x in 0..w {
                costs[(y * w + x) as usize] = 1;
            }
        }
        let mut nav = GridNavigator::new(1.0, w, h);
        let t = nav.add_type("corridor", costs).expect("a corridor type");
        let corridor =
            goal_area_reach_m(&nav, Some(&MoveType::new(t)), &[Vec2::new(0.5, 11.5)], 60.0);
        assert!((19.0..20.2).contains(&corridor), "corridor: {corridor}");
    }
}
