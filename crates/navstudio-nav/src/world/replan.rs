//! Re-planning the live paths after a drained rebuild queue, one path at a time in two
//! units: its goal field, built into the cache ahead of the plan, then the plan itself,
//! which finds the field there. The path's old state answers every query until the new one
//! replaces it whole, so a half-done re-plan is never seen.

use std::collections::BTreeMap;
use std::time::Instant;

use super::budget::{Slice, Unit};
use super::{NavWorld, PathId};

impl NavWorld {
    /// Re-plans the live paths a drained queue left (see [`Self::rebuild`]) while `clock`
    /// allows; `true` when none is left.
    pub(super) fn replan_live_paths(&mut self, clock: &mut Slice) -> bool {
        while let Some(&id) = self.replans.last() {
            if self.replan_ready != Some(id) {
                if !clock.may_start(&self.unit_costs, Unit::GoalField) {
                    return false;
                }
                let at = Instant::now();
                self.build_replan_goal_field(id);
                self.replan_ready = Some(id);
                clock.done(&mut self.unit_costs, Unit::GoalField, at);
            }
            if !clock.may_start(&self.unit_costs, Unit::Plan) {
                return false;
            }
            let at = Instant::now();
            self.replans.pop();
            self.replan_ready = None;
            self.replan_path(id);
            clock.done(&mut self.unit_costs, Unit::Plan, at);
        }
        true
    }

    /// Builds the goal field path `id`'s plan will ask the cache for, when its goals lie in
    /// one sector (the field every route of the path ends in). A goal set over several
    /// sectors builds only the fields its routes reach, in the plan. The field is what the
    /// plan would build (the cache key is the goals the old plan kept; should the new one
    /// keep others, it builds its own): only the time it is built moves.
    fn build_replan_goal_field(&mut self, id: PathId) {
        // A streamed world loads the goal's region in the plan.
        if self.streamed.is_some() {
            return;
        }
        let Some(p) = self.paths.get(&id) else {
            return;
        };
        let layer = p.layer;
        let Some(l) = self.nav.layers.get(layer) else {
            return;
        };
        let spec = l.cost.spec;
        let mut by_sector: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
        for &g in &p.goals {
            by_sector
                .entry(spec.sector_of(g.0, g.1))
                .or_default()
                .push(g);
        }
        if by_sector.len() != 1 {
            return;
        }
        let Some(cells) = by_sector.into_values().next() else {
            return;
        };
        self.search_graph(layer);
        let Some(graph) = self.search_graphs[layer].as_ref() else {
            return;
        };
        let links = self.links.layers.get(layer).and_then(Option::as_deref);
        self.goal_cache.get_or_build(
            &self.nav.layers[layer],
            graph,
            layer,
            &cells,
            links,
            &mut self.integ,
        );
    }

    /// Plans path `id` again from its sources to its goals under the same id, or drops it
    /// when it can no longer be routed.
    fn replan_path(&mut self, id: PathId) {
        let Some(old) = self.paths.get(&id) else {
            return;
        };
        let (layer, sources) = (old.layer, old.sources.clone());
        let goals: Vec<(u32, u32)> = std::iter::once(old.goal)
            .chain(old.goals.iter().copied())
            .collect();
        match self.plan(layer, &sources, &goals) {
            Ok(state) => {
                self.paths.insert(id, state);
            }
            Err(_) => {
                self.paths.remove(&id);
            }
        }
    }
}
