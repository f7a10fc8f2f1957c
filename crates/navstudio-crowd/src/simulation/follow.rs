//! Follow orders (SEEDS §000 "moving goals"): a group chases one agent. The order's goal is
//! the leader's position; whenever the leader has moved on by half a cell, every path of
//! the order moves its goal ([`Navigator::move_goal`]: a new goal field inside the goal's
//! sector, a re-plan across a border), each follower's goal shifts with the leader (the
//! group keeps its SmartCenter lanes), and followers that had arrived set off again once
//! the leader is out of the group's reach.

use crate::agents::{AgentId, AgentState, NO_ORDER};
use crate::navigator::Navigator;
use crate::vec2::Vec2;

use super::{OrderReport, Simulation};

impl Simulation {
    /// Orders the selection to follow agent `leader` (the leader itself is left out of the
    /// selection): an [`Self::order_move`] to where the leader stands, whose goal then
    /// moves with the leader every step until the followers get another order. An unknown
    /// leader gives an order that moves nobody.
    pub fn order_follow<N: Navigator + ?Sized>(
        &mut self,
        nav: &mut N,
        selection: &[AgentId],
        leader: AgentId,
    ) -> OrderReport {
        let Some(&leader_at) = self.agents.pos_world.get(leader.0 as usize) else {
            return self.order_move(nav, &[], Vec2::new(f32::NAN, f32::NAN));
        };
        let followers: Vec<AgentId> = selection
            .iter()
            .copied()
            .filter(|&id| id != leader)
            .collect();
        let report = self.order_move(nav, &followers, leader_at);
        if let Some(record) = self.orders.get_mut(report.order as usize)
            && report.moving > 0
        {
            record.leader = Some(leader.0);
            record.leader_at = leader_at;
        }
        report
    }

    /// The leader of a follow order, if `order` is one and still has followers.
    #[must_use]
    pub fn order_leader(&self, order: u32) -> Option<AgentId> {
        self.orders
            .get(order as usize)
            .and_then(|o| o.leader)
            .map(AgentId)
    }

    /// Moves every follow order's goal after its leader (see the module comment); releases
    /// the paths of follow orders that no follower holds any more.
    pub(super) fn follow_leaders<N: Navigator + ?Sized>(&mut self, nav: &mut N) {
        let cell_m = nav.grid().cell_size_m;
        for order in 0..self.orders.len() {
            let Some(leader) = self.orders[order].leader else {
                continue;
            };
            let members: Vec<usize> = (0..self.agents.len())
                .filter(|&i| self.agents.order[i] == order as u32)
                .collect();
            let Some(&leader_at) = self.agents.pos_world.get(leader as usize) else {
                self.orders[order].leader = None;
                continue;
            };
            if members.is_empty() {
                self.orders[order].leader = None;
                self.release_order(nav, order as u32);
                continue;
            }
            let shift = leader_at - self.orders[order].leader_at;
            if shift.length() < 0.5 * cell_m {
                continue;
            }
            self.orders[order].leader_at = leader_at;
            self.order_destinations[order] = leader_at;
            // Each path's goal moves; a navigator that cannot move it plans anew from where
            // its followers stand.
            let paths = self.orders[order].paths.clone();
            for (k, path) in paths.into_iter().enumerate() {
                let on_path: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&i| self.agents.path[i] == Some(path))
                    .collect();
                let sources: Vec<Vec2> =
                    on_path.iter().map(|&i| self.agents.pos_world[i]).collect();
                if nav.move_goal(path, leader_at, &sources) {
                    continue;
                }
                let t = self.orders[order]
                    .path_types
                    .get(k)
                    .copied()
                    .unwrap_or_default();
                if let Some(new) = nav.request_path(t, &sources, leader_at) {
                    for &i in &on_path {
                        self.agents.path[i] = Some(new);
                    }
                    self.orders[order].paths[k] = new;
                    nav.release_path(path);
                }
            }
            let resume_m = self.orders[order].bump_reach_m;
            for &i in &members {
                // Lanes shift with the leader; a lane shifted into a wall falls back to the
                // leader's own position.
                let lane = self.agents.goal_world[i] + shift;
                let (x, y) = nav.grid().cell_from_world(lane);
                let in_wall = nav.is_wall(self.agents.move_type[i], x, y);
                let a = &mut self.agents;
                let before = (a.goal_world[i] - a.pos_world[i]).length();
                a.goal_world[i] = if in_wall { leader_at } else { lane };
                // Progress is measured toward the goal: credit its move, so a follower that
                // keeps walking after a leader walking away is not taken for stuck.
                if a.state[i].is_travelling() {
                    a.best_goal_dist_m[i] += (a.goal_world[i] - a.pos_world[i]).length() - before;
                }
                if a.state[i] == AgentState::Arrived
                    && (a.goal_world[i] - a.pos_world[i]).length() > resume_m + a.radius_m[i]
                {
                    // A re-plan after a wall change gave the order new paths while this
                    // follower stood: take the one of its path's type.
                    let record = &self.orders[order];
                    if !a.path[i].is_some_and(|p| record.paths.contains(&p)) {
                        let k = record
                            .path_types
                            .iter()
                            .position(|&t| t == a.path_type[i])
                            .unwrap_or(0);
                        a.path[i] = record.paths.get(k).copied();
                    }
                    a.state[i] = AgentState::Moving;
                    a.best_goal_dist_m[i] = (a.goal_world[i] - a.pos_world[i]).length();
                    a.no_progress_secs[i] = 0.0;
                    self.orders[order].live += 1;
                }
            }
        }
        debug_assert!(
            self.agents
                .order
                .iter()
                .all(|&o| o == NO_ORDER || (o as usize) < self.orders.len())
        );
    }
}
