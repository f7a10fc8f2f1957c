//! Moving goals and sources (SEEDS §000): a goal that moves inside its sector costs one goal
//! field; one that crosses a sector border is re-planned through the rebuild queue while the
//! old route stays in use, and the new route replaces it under the same [`PathId`]. Sources
//! added later merge into the routes already planned.

use super::tuples;
use crate::vocab::Cell;
use std::time::Instant;

use super::budget::{Slice, Unit};
use super::goal_field::{cheapest_field, sector_costs_from};
use super::sample::SteerCache;
use super::{NavWorld, PathError, PathId};
use crate::integrate::UNREACHED;

/// What [`NavWorld::move_goal`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalMove {
    /// The path already led there.
    Unchanged,
    /// The goal stayed in its sector: only the goal field was rebuilt, and the path leads to
    /// the new goal from now on.
    FieldRebuilt,
    /// The goal left its sector (or the path had a goal set, or a seamless corridor): the
    /// route is re-planned by [`NavWorld::rebuild`], and the path leads to the old goal
    /// until then.
    RouteQueued,
}

/// Counters of moving-goal work, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoalMoveStats {
    /// Moves answered by rebuilding the goal field alone.
    pub fields_rebuilt: u64,
    /// Routes re-planned by the rebuild queue and switched to.
    pub route_switches: u64,
}

impl NavWorld {
    /// Moves the goal of path `id` to `cell` (SEEDS §000 "moving goals"). Inside the goal's
    /// sector only the goal field is rebuilt (the route into the sector stays right). Across
    /// a sector border the route is re-planned by [`Self::rebuild`] within its time budget;
    /// until then the path keeps its old route and goal, so agents keep moving, and then
    /// switch to the new one under the same id. A goal set becomes the single goal `cell`.
    ///
    /// # Errors
    /// [`PathError::UnknownPath`] for a released path, [`PathError::OffMap`],
    /// [`PathError::GoalIsWall`], or [`PathError::Unreachable`] when `cell` lies on no island
    /// the path's sources stand on. The path is left as it was.
    pub fn move_goal(&mut self, id: PathId, cell: impl Into<Cell>) -> Result<GoalMove, PathError> {
        let cell: (u32, u32) = cell.into().into();
        let p = self
            .paths
            .get_mut(&id)
            .ok_or(PathError::UnknownPath(id.0))?;
        // The route's lazy part would otherwise be refined against the moved goal's field.
        p.refine_whole();
        let layer = p.layer;
        if cell.0 < self.nav.spec.width && cell.1 < self.nav.spec.height {
            // A streamed world loads the new goal field's window.
            let around = self.sectors_around(&[cell]);
            self.ensure_sectors(layer, around.iter().copied())?;
            // And the ring round it, which the path's trace reads.
            if !self.may_refine_lazily() {
                self.ensure_ring_costs(layer, around, None)?;
            }
        }
        let p = self.paths.get(&id).ok_or(PathError::UnknownPath(id.0))?;
        let l = &self.nav.layers[p.layer];
        let spec = l.cost.spec;
        if cell.0 >= spec.width || cell.1 >= spec.height {
            return Err(PathError::OffMap(cell));
        }
        let island = l.islands.island_at(cell.0, cell.1);
        if island == 0 {
            return Err(PathError::GoalIsWall(cell));
        }
        if p.goal_islands.binary_search(&island).is_err() {
            return Err(PathError::Unreachable(cell));
        }
        if p.goals == [cell] {
            self.goal_moves.remove(&id);
            return Ok(GoalMove::Unchanged);
        }
        let sector = spec.sector_of(cell.0, cell.1);
        let same_sector = p.goals.len() == 1
            && spec.sector_of(p.goal.0, p.goal.1) == sector
            && p.corridor.is_none();
        if same_sector {
            let layer = p.layer;
            // The route enters the sector where the old goal is best reached. That stays right
            // only when the new goal lies in the same part of the sector: the sector's portal
            // nodes reach both, or neither.
            let goal_costs = sector_costs_from(l, sector, &[cell], &mut self.integ);
            let in_sector = l.graph.nodes_of_sector(sector);
            let mut old_nodes: Vec<u32> = p
                .finishes
                .iter()
                .map(|&(node, _)| node)
                .filter(|node| in_sector.contains(node))
                .collect();
            old_nodes.sort_unstable();
            let mut new_nodes: Vec<u32> = goal_costs.iter().map(|&(node, _)| node).collect();
            new_nodes.sort_unstable();
            let field = (old_nodes == new_nodes)
                .then(|| self.goal_field(layer, &[cell]))
                .flatten();
            let p = &self.paths[&id];
            // Sources the old field served without a route must still be reached by the new
            // one (a wall inside the sector may part them); else the route is re-planned.
            let served = field.as_ref().is_some_and(|field| {
                let fields = std::slice::from_ref(field);
                p.sources.iter().zip(&p.routes).all(|(&src, route)| {
                    !route.nodes.is_empty()
                        || route.cost == UNREACHED
                        || cheapest_field(fields, &[0], src).is_some()
                })
            });
            if let (true, Some(field)) = (served, field) {
                let Some(p) = self.paths.get_mut(&id) else {
                    return Err(PathError::UnknownPath(id.0));
                };
                // The goal sector's nodes now finish at their cost to the new goal; route
                // nodes keep theirs, off by at most the move inside the sector.
                let in_sector = self.nav.layers[layer].graph.nodes_of_sector(sector);
                p.finishes.retain(|(node, _)| !in_sector.contains(node));
                p.finishes.splice(0..0, goal_costs);
                p.goal_fields.clear();
                p.field_cover.clear();
                p.add_goal_field(spec, field);
                p.goal = cell;
                p.goals = vec![cell];
                p.steer = SteerCache::default();
                self.goal_moves.remove(&id);
                self.move_stats.fields_rebuilt += 1;
                self.evict();
                return Ok(GoalMove::FieldRebuilt);
            }
        }
        self.goal_moves.insert(id, cell);
        Ok(GoalMove::RouteQueued)
    }

    /// Adds sources to path `id` after it was planned (SEEDS §000 "moving sources"): each
    /// runs a merging A* that finishes on the routes already planned, so a unit joining a
    /// group, or one that wandered off the route, costs a short search. Sources on islands
    /// without a goal of the path, and sources already routed, are left out. Returns how
    /// many were added.
    ///
    /// # Errors
    /// [`PathError::UnknownPath`] for a released path, [`PathError::OffMap`] for a cell off
    /// the map (nothing is added then).
    pub fn add_sources(
        &mut self,
        id: PathId,
        cells: &[impl Into<Cell> + Copy],
    ) -> Result<usize, PathError> {
        let cells = &tuples(cells);
        let mut p = self.paths.remove(&id).ok_or(PathError::UnknownPath(id.0))?;
        // New sources merge into every node of the routes.
        p.refine_whole();
        let l = &self.nav.layers[p.layer];
        let spec = l.cost.spec;
        if let Some(&off) = cells
            .iter()
            .find(|c| c.0 >= spec.width || c.1 >= spec.height)
        {
            self.paths.insert(id, p);
            return Err(PathError::OffMap(off));
        }
        let mut new: Vec<(u32, u32)> = Vec::with_capacity(cells.len());
        for &c in cells {
            let island = l.islands.island_at(c.0, c.1);
            if p.goal_islands
                .iter()
                .any(|&g| self.island_reaches(p.layer, island, g))
                && !p.sources.contains(&c)
                && !new.contains(&c)
            {
                new.push(c);
            }
        }
        let result = self.route_sources(&mut p, &new).map(|()| new.len());
        self.paths.insert(id, p);
        result
    }

    /// Re-plans path `id` now if its goal move waits in the queue (see [`Self::move_goal`]),
    /// for a caller that wants the switch this frame: a crowd chasing a unit re-plans the
    /// one path it moved. Returns whether a new route was switched to.
    pub fn replan_moved_goal(&mut self, id: PathId) -> bool {
        let Some(cell) = self.goal_moves.remove(&id) else {
            return false;
        };
        let Some(old) = self.paths.get(&id) else {
            return false;
        };
        let (layer, sources) = (old.layer, old.sources.clone());
        match self.plan(layer, &sources, &[cell]) {
            Ok(state) => {
                self.paths.insert(id, state);
                self.move_stats.route_switches += 1;
                true
            }
            // A goal that can no longer be planned (walls since) keeps the old route.
            Err(_) => false,
        }
    }

    /// Goal moves waiting for a re-plan.
    #[must_use]
    pub fn pending_goal_moves(&self) -> usize {
        self.goal_moves.len()
    }

    /// Counters of moving-goal work so far.
    #[must_use]
    pub fn goal_move_stats(&self) -> GoalMoveStats {
        self.move_stats
    }

    /// Re-plans queued goal moves, one path at a time, while `clock` allows (at least one
    /// per call, so the queue always advances). Each new route replaces its path's whole
    /// state at once, so agents switch between two complete routes. Returns `true` when the
    /// queue is empty.
    pub(super) fn replan_moved_goals(&mut self, clock: &mut Slice) -> bool {
        while let Some(&id) = self.goal_moves.keys().next() {
            if !clock.may_start(&self.unit_costs, Unit::MovedGoal) {
                return false;
            }
            let at = Instant::now();
            self.replan_moved_goal(id);
            clock.done(&mut self.unit_costs, Unit::MovedGoal, at);
        }
        true
    }
}
