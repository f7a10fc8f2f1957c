//! Selecting agents and ordering them in the crowd preview: a rectangle or a click selects,
//! a right-click orders a move, or a follow when it lands on an agent; each order is kept to
//! be re-issued after a re-bake and recorded for the scenario.

use crate::crowd::{AgentId, Order, Vec2};

use super::{CrowdPreview, group_members};

impl CrowdPreview {
    /// Selects the agents inside the rectangle (world metres); a tiny rectangle picks the
    /// nearest agent under it.
    pub fn select_rect(&mut self, a_world: Vec2, b_world: Vec2) {
        let agents = self.sim.agents();
        let (min, max) = (
            Vec2::new(a_world.x.min(b_world.x), a_world.y.min(b_world.y)),
            Vec2::new(a_world.x.max(b_world.x), a_world.y.max(b_world.y)),
        );
        self.selection = agents
            .pos_world
            .iter()
            .enumerate()
            .filter(|(i, p)| {
                let r = agents.radius_m[*i];
                p.x + r >= min.x && p.x - r <= max.x && p.y + r >= min.y && p.y - r <= max.y
            })
            .map(|(i, _)| AgentId(i as u32))
            .collect();
    }

    /// The agent whose disc covers `pos_world` (the nearest centre if several do).
    #[must_use]
    pub fn agent_at(&self, pos_world: Vec2) -> Option<AgentId> {
        let a = self.sim.agents();
        (0..a.len())
            .filter(|&i| (a.pos_world[i] - pos_world).length() <= a.radius_m[i])
            .min_by(|&i, &j| {
                let d = |k: usize| (a.pos_world[k] - pos_world).length();
                d(i).total_cmp(&d(j))
            })
            .map(|i| AgentId(i as u32))
    }

    /// Orders the selection (or every other agent) to follow `leader`: their path's goal
    /// moves with it (`Simulation::order_follow`).
    pub fn follow(&mut self, leader: AgentId) {
        let agents = self.ordered_agents();
        let Some(nav) = self.nav.as_mut() else {
            return;
        };
        let report = self.sim.order_follow(nav, &agents, leader);
        let mut note = format!(
            "{} agent{} follow agent {}: their path's goal moves with it.",
            report.moving,
            if report.moving == 1 { "" } else { "s" },
            leader.0
        );
        if report.unreachable > 0 {
            note.push_str(&format!(
                " {} cannot reach it (another island for their movement type) and stay put.",
                report.unreachable
            ));
        }
        self.message = Some(note);
        self.record_notes.push(
            "A follow order is not saved in the scenario: scenarios hold move orders.".to_owned(),
        );
        self.forget_orders_of(&agents);
        self.follows.push((agents, leader));
    }

    /// Who an order goes to: the selection, or every agent when nothing is selected.
    fn ordered_agents(&self) -> Vec<AgentId> {
        if self.selection.is_empty() {
            (0..self.sim.agents().len() as u32).map(AgentId).collect()
        } else {
            self.selection.clone()
        }
    }

    /// Drops the kept orders (move or follow) that `agents` all had: a new order replaces
    /// them for the re-issue after a re-bake.
    fn forget_orders_of(&mut self, agents: &[AgentId]) {
        let replaced = |a: &[AgentId]| a.iter().all(|id| agents.contains(id));
        self.orders.retain(|(a, _)| !replaced(a));
        self.follows.retain(|(a, _)| !replaced(a));
    }

    /// Where the live move orders send their agents (world metres): the map marks each spot
    /// a right-click ordered, as long as that order stands.
    pub fn order_targets(&self) -> impl Iterator<Item = Vec2> + '_ {
        self.orders.iter().map(|&(_, goal)| goal)
    }

    /// Orders the selection (or every agent) to `goal_world`.
    pub fn order(&mut self, goal_world: Vec2) {
        let agents = self.ordered_agents();
        let Some(nav) = self.nav.as_mut() else {
            return;
        };
        if agents.is_empty() {
            self.message = Some("Spawn agents first: drag a rectangle with the Spawn tool.".into());
            return;
        }
        let report = self.sim.order_move(nav, &agents, goal_world);
        let mut notes = Vec::new();
        // Which route each part of a mixed selection took (the most restrictive type's
        // path serves every agent it can; see `Simulation::order_move`).
        let kinds: std::collections::BTreeSet<crate::nav::MoveType> = agents
            .iter()
            .filter_map(|id| self.sim.agents().move_type.get(id.0 as usize).copied())
            .collect();
        if kinds.len() > 1 {
            let layers = &nav.world.nav().layers;
            let parts: Vec<String> = self
                .sim
                .order_routes(report.order)
                .iter()
                .map(|&(t, n)| {
                    let name = layers.get(t.index()).map_or("?", |l| l.name.as_str());
                    format!("{n} on the {name} route")
                })
                .collect();
            if !parts.is_empty() {
                notes.push(format!(
                    "{} route{}: {}.",
                    parts.len(),
                    if parts.len() == 1 { "" } else { "s" },
                    parts.join(", ")
                ));
            }
        }
        if report.unreachable > 0 {
            notes.push(format!(
                "{} of {} agents cannot reach that point (another island for their movement type) and stay put.",
                report.unreachable,
                agents.len()
            ));
        }
        self.message = (!notes.is_empty()).then(|| notes.join(" "));
        self.record_order(&agents, goal_world);
        self.forget_orders_of(&agents);
        self.orders.push((agents, goal_world));
    }

    /// Records an order as one scenario order per group it touches (scenarios address
    /// groups), noting when that will not replay exactly.
    fn record_order(&mut self, agents: &[AgentId], goal_world: Vec2) {
        let groups_of = &self.sim.agents().group;
        let mut groups: Vec<u32> = agents
            .iter()
            .filter_map(|id| groups_of.get(id.0 as usize).copied())
            .collect();
        groups.sort_unstable();
        groups.dedup();
        let whole = groups.iter().all(|&g| {
            group_members(&self.sim, g)
                .iter()
                .all(|id| agents.contains(id))
        });
        if !whole {
            self.record_notes.push(
                "An order went to part of a spawn: the scenario orders the whole spawn.".to_owned(),
            );
        }
        if groups.len() > 1 {
            self.record_notes.push(format!(
                "An order went to {} spawns at once: the scenario orders each on its own (lanes may differ).",
                groups.len()
            ));
        }
        let at_step = self
            .sim
            .step_index()
            .saturating_sub(self.record_start.unwrap_or(0));
        self.recorded
            .orders
            .extend(groups.into_iter().map(|group| Order {
                group,
                goal_world,
                more_goals_world: Vec::new(),
                at_step,
            }));
    }
}
