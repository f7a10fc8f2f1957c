//! Path requests: the portal search from every source to the goal (or the nearest of a goal
//! set), merging later sources into earlier routes, and the goal-field cache.

use super::tuples;
use crate::vocab::{Cell, MoveType};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::budget::{Slice, Unit, UnitCosts};
use super::goal_field::{
    GoalField, GoalFieldCache, cheapest_field, sector_costs_from, sectors_in, within_any,
};
use super::lazy::{EAGER_RING, LazyPlan, LazyRoute};
use super::sample::SteerCache;
use super::{ACTIVE_LANDMARKS, CLUSTER_ACTIVE_LANDMARKS, NavWorld, PathError, PathId, PathState};
use crate::hierarchy::{CLUSTER_SECTORS, ClusterLandmarks, ClusterQuery};
use crate::integrate::UNREACHED;
use crate::landmarks::{LandmarkBounds, Landmarks};
use crate::route::{Route, SearchEnds, search_until};

impl NavWorld {
    /// Plans a path from `sources` to `goal` for movement type `layer`. Sources on other
    /// islands than the goal are left out (no A* for them); the first reachable source runs
    /// a full A*, later ones a merging A* that may finish on the earlier routes.
    ///
    /// # Errors
    /// [`PathError`] when the type does not exist, a cell is off the map, the goal is a wall,
    /// or no source shares the goal's island.
    pub fn request_path(
        &mut self,
        move_type: impl Into<MoveType>,
        sources: &[impl Into<Cell> + Copy],
        goal: impl Into<Cell>,
    ) -> Result<PathId, PathError> {
        self.request_path_to_any(move_type, sources, &[goal.into()])
    }

    /// Plans one path from `sources` to the nearest of `goals` (by integrated cost) for
    /// movement type `layer`: every source's flow leads to its nearest goal (SEEDS §002's
    /// goal sets: exits, depots, a building's entrances). The portal search finishes at any
    /// goal sector's nodes at their cost to that sector's nearest goal, landmark bounds take
    /// the minimum over all of them, and each goal sector gets one goal field integrated from
    /// all of its goals, with line of sight per goal. Goals on walls, and goals on islands no
    /// source stands on, are left out; sources on islands without a goal likewise. One goal
    /// gives exactly [`Self::request_path`]'s path. [`Self::sample_flow`],
    /// [`Self::trace_path`] (whose [`super::TracedPath::goal`] names the goal reached) and
    /// [`Self::has_line_of_sight`] work on it unchanged.
    ///
    /// # Errors
    /// [`PathError::NoGoal`] for an empty set, [`PathError::OffMap`] for a cell off the map,
    /// [`PathError::GoalIsWall`] (naming the first goal) when every goal is a wall,
    /// [`PathError::SourceIsWall`] (naming the first source) when every source is,
    /// [`PathError::Unreachable`] when no source shares an island with a goal, and
    /// [`PathError::UnknownType`].
    pub fn request_path_to_any(
        &mut self,
        move_type: impl Into<MoveType>,
        sources: &[impl Into<Cell> + Copy],
        goals: &[impl Into<Cell> + Copy],
    ) -> Result<PathId, PathError> {
        let state = self.plan(move_type.into().index(), &tuples(sources), &tuples(goals))?;
        let id = PathId(self.next_path);
        self.next_path = self.next_path.wrapping_add(1);
        self.paths.insert(id, state);
        Ok(id)
    }

    /// Whether an agent at `cell` can follow path `id` to one of its goals: the cell lies on
    /// the island of one of them.
    #[must_use]
    pub fn path_reaches(&self, id: PathId, cell: impl Into<Cell>) -> bool {
        let cell = cell.into().into();
        self.paths
            .get(&id)
            .is_some_and(|p| self.state_reaches(p, cell))
    }

    /// [`Self::path_reaches`] for a path held outside the world (a query's).
    pub(crate) fn state_reaches(&self, p: &PathState, cell: (u32, u32)) -> bool {
        let island = self.island_at(p.layer, cell);
        p.goal_islands
            .iter()
            .any(|&g| self.island_reaches(p.layer, island, g))
    }

    pub(crate) fn plan(
        &mut self,
        layer: usize,
        sources: &[(u32, u32)],
        goals: &[(u32, u32)],
    ) -> Result<PathState, PathError> {
        let (mut state, reachable) = self.plan_start(layer, sources, goals)?;
        self.route_sources(&mut state, &reachable)?;
        self.decode_levels_in_background(layer);
        Ok(state)
    }

    /// The first part of [`Self::plan`]: checks the request and makes its path state with
    /// the goals' finishing costs, and the sources to route (those that can reach a goal).
    pub(super) fn plan_start(
        &mut self,
        layer: usize,
        sources: &[(u32, u32)],
        goals: &[(u32, u32)],
    ) -> Result<(PathState, Vec<(u32, u32)>), PathError> {
        self.ensure_islands(layer)?;
        let l = self
            .nav
            .layers
            .get(layer)
            .ok_or(PathError::UnknownType(layer))?;
        let spec = l.cost.spec;
        let first_goal = *goals.first().ok_or(PathError::NoGoal)?;
        for &(x, y) in sources.iter().chain(goals) {
            if x >= spec.width || y >= spec.height {
                return Err(PathError::OffMap((x, y)));
            }
        }
        let island = |c: (u32, u32)| l.islands.island_at(c.0, c.1);
        let mut goal_islands: Vec<u32> = goals.iter().map(|&g| island(g)).collect();
        goal_islands.retain(|&i| i != 0);
        goal_islands.sort_unstable();
        goal_islands.dedup();
        if goal_islands.is_empty() {
            return Err(PathError::GoalIsWall(first_goal));
        }
        // On a goal's island, or on one that links lead from to a goal's.
        let reaches = |from: u32, to: u32| self.island_reaches(layer, from, to);
        let reachable: Vec<(u32, u32)> = sources
            .iter()
            .copied()
            .filter(|&c| goal_islands.iter().any(|&g| reaches(island(c), g)))
            .collect();
        if reachable.is_empty() {
            if let Some(&wall) = sources.first()
                && sources.iter().all(|&c| island(c) == 0)
            {
                return Err(PathError::SourceIsWall(wall));
            }
            return Err(PathError::Unreachable(first_goal));
        }
        // Goals no source can reach would only cost goal fields.
        let mut source_islands: Vec<u32> = reachable.iter().map(|&c| island(c)).collect();
        source_islands.sort_unstable();
        source_islands.dedup();
        goal_islands.retain(|&g| source_islands.iter().any(|&s| reaches(s, g)));
        let kept = |g: &(u32, u32)| goal_islands.binary_search(&island(*g)).is_ok();
        let Some(&goal) = goals.iter().find(|g| kept(g)) else {
            return Err(PathError::Unreachable(first_goal));
        };
        let mut goal_cells: Vec<(u32, u32)> = goals.iter().copied().filter(kept).collect();
        goal_cells.sort_unstable();
        goal_cells.dedup();
        let mut by_sector: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
        for &g in &goal_cells {
            by_sector
                .entry(spec.sector_of(g.0, g.1))
                .or_default()
                .push(g);
        }
        let mut state = PathState {
            layer,
            goal,
            goals: goal_cells,
            goal_islands,
            sources: Vec::new(),
            exits: BTreeMap::new(),
            routes: Vec::with_capacity(reachable.len()),
            route_first: super::RouteFirst::new(),
            goal_fields: Vec::new(),
            field_cover: BTreeMap::new(),
            corridor: None,
            steer: SteerCache::default(),
            finishes: Vec::new(),
            links: None,
            lazy: None,
        };
        // A streamed world loads what the search reads: the goals' and sources' sectors.
        self.evict_regions();
        self.ensure_request_sectors(layer, &reachable, &state.goals)?;
        // Cost from each goal-sector node to its sector's nearest goal, by integrating the
        // sector from all of them: the search's finishes (a virtual sink behind them).
        let l = &self.nav.layers[layer];
        for (&sector, cells) in &by_sector {
            let goal_costs = sector_costs_from(l, sector, cells, &mut self.integ);
            state.finishes.extend(goal_costs);
        }
        Ok((state, reachable))
    }

    /// Routes `new_sources` (all on the path's goal islands, none routed yet) into path `p`:
    /// the first a full portal A* when `p` has no route yet, every later one a merging A*
    /// that finishes on the goal sectors' nodes or on any node of an earlier route, at that
    /// node's remaining cost. Extends `p`'s exits, routes and finishes, and rebuilds its
    /// seamless corridor.
    pub(super) fn route_sources(
        &mut self,
        p: &mut PathState,
        new_sources: &[(u32, u32)],
    ) -> Result<(), PathError> {
        self.scratch.abandon();
        let done =
            self.route_sources_until(p, new_sources, None, true)? && self.finish_routes(p, None)?;
        debug_assert!(done, "a search without a deadline finishes");
        Ok(())
    }

    /// The routing of [`Self::route_sources`] under a budgeted call's `clock`: `Ok(false)`
    /// when a source's search stopped at the deadline, or a goal field its route needs
    /// would not fit in the budget left, with `p` holding the sources routed before it and
    /// the search's state kept in the world's scratch. A later call with `fresh` false, the
    /// same `p`, the sources not routed yet and the same scratch and opened clusters goes on
    /// from that source and finds what one call finds. [`Self::finish_routes`] then
    /// finishes the path.
    pub(super) fn route_sources_until(
        &mut self,
        p: &mut PathState,
        new_sources: &[(u32, u32)],
        mut clock: Option<&mut Slice>,
        fresh: bool,
    ) -> Result<bool, PathError> {
        let deadline = clock.as_deref().and_then(Slice::deadline);
        let layer = p.layer;
        let spec = self.nav.layers[layer].cost.spec;
        let mut goal_sectors: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
        for &g in &p.goals {
            goal_sectors
                .entry(spec.sector_of(g.0, g.1))
                .or_default()
                .push(g);
        }
        // The octile heuristic's target: the goals' bounding box (a point for one goal).
        let goal_box = p.goals.iter().fold(
            ((u32::MAX, u32::MAX), (0, 0)),
            |((x0, y0), (x1, y1)), &(x, y)| ((x0.min(x), y0.min(y)), (x1.max(x), y1.max(y))),
        );
        self.ensure_request_sectors(layer, new_sources, &p.goals)?;
        self.ensure_link_sectors(layer)?;
        // A map of one cluster has no border nodes to put landmark tables on: the flat
        // search with its tables is then both exact and faster.
        let clustered = self.uses_clusters(layer) && {
            self.ensure_hierarchy(layer);
            self.hierarchies[layer]
                .as_ref()
                .is_some_and(|h| h.hierarchy.border_count() > 0)
        };
        if !clustered {
            self.ensure_landmarks(layer);
        }
        self.search_graph(layer);
        let l = &self.nav.layers[layer];
        // Link end nodes in the goal sectors finish too (an island a ferry alone reaches has
        // no portal to finish on), at their cost to the sector's nearest goal.
        let link_layer = self
            .links
            .layers
            .get(layer)
            .cloned()
            .flatten()
            .filter(|ll| !ll.is_empty());
        if p.links.is_none()
            && let Some(ll) = &link_layer
        {
            for (&sector, cells) in &goal_sectors {
                let costs = ll.costs_from(l, sector, cells, &mut self.integ);
                p.finishes.extend(costs);
            }
        }
        p.links = link_layer;
        let Some(graph) = self.search_graphs.get(layer).and_then(Option::as_ref) else {
            return Err(PathError::UnknownType(layer));
        };
        let hierarchy = self
            .hierarchies
            .get(layer)
            .and_then(Option::as_ref)
            .filter(|_| clustered);
        let may_lazy = self.may_refine_lazily();
        let remaining = &mut self.finish;
        remaining.reset(graph.len());
        let mut bounds = match hierarchy {
            Some(h) => h.landmarks.as_ref().map(ClusterLandmarks::bounds),
            None => self
                .landmarks
                .get(layer)
                .and_then(Option::as_deref)
                .map(Landmarks::bounds),
        };
        // A hierarchical search opens its source's cluster and every finishing node's.
        // A request going on keeps the clusters its routed sources opened.
        let open = &mut self.cluster_open;
        if fresh {
            open.clear();
        }
        open.resize(hierarchy.map_or(0, |h| h.hierarchy.key_space()), false);
        let local = &mut self.cluster_local;
        // A goal node's backward bound costs a search inside its cluster. A goal set over
        // many sectors (exits, depots) would pay one per node for little: its searches keep
        // the forward bounds only (16 goals on the 2048² map: 875 → 180 µs; one goal
        // without them: 538 → 741 µs, `cargo bench --bench path`).
        let few_goal_sectors = goal_sectors.len() <= 2;
        // Adds a finishing node to the bounds (and opens its cluster).
        let mut add_finish =
            |bounds: &mut Option<LandmarkBounds<'_>>, open: &mut Vec<bool>, id: u32, rest: u32| {
                let Some(h) = hierarchy else {
                    if let Some(b) = bounds.as_mut() {
                        b.add_finish(id, rest);
                    }
                    return;
                };
                if let Some(slot) = open.get_mut(graph.cluster_key(id) as usize) {
                    *slot = true;
                }
                if let (Some(b), Some(marks)) = (bounds.as_mut(), h.landmarks.as_ref()) {
                    let goal = few_goal_sectors && goal_sectors.contains_key(&graph.sector(id));
                    marks.add_finish(b, &h.hierarchy, graph, id, rest, goal, local);
                    if !few_goal_sectors {
                        b.void_backward();
                    }
                }
            };
        // The goal sectors' nodes, then the nodes of earlier routes, in the order they were
        // found: the first cost given for a node stands.
        for &(node, rest) in &p.finishes {
            let id = graph.search_id(node);
            let rest = remaining.insert_absent(id, rest);
            add_finish(&mut bounds, open, id, rest);
        }
        let one_goal_sector = goal_sectors.len() == 1;
        for (i, &src) in new_sources.iter().enumerate() {
            let src_sector = spec.sector_of(src.0, src.1);
            let in_goal_sector = goal_sectors.contains_key(&src_sector);
            // Goal fields are built where they serve: the goal sectors whose windows cover a
            // source (here), and those a route ends in (below). A goal set's far goals that
            // no source heads for cost no field.
            let (sx, sy) = (src_sector % spec.sectors_x(), src_sector / spec.sectors_x());
            for gy in sy.saturating_sub(1)..=sy + 1 {
                for gx in sx.saturating_sub(1)..=sx + 1 {
                    if let Some(cells) = goal_sectors.get(&(gy * spec.sectors_x() + gx))
                        && gx < spec.sectors_x()
                        && !add_goal_field_in_time(
                            &mut self.goal_cache,
                            &mut self.integ,
                            &mut self.unit_costs,
                            clock.as_deref_mut(),
                            (l, graph, layer),
                            cells,
                            (p, spec),
                        )
                    {
                        return Ok(false);
                    }
                }
            }
            let (goal_fields, field_cover) = (&p.goal_fields, &p.field_cover);
            let cover = field_cover.get(&src_sector).map_or(&[][..], Vec::as_slice);
            // Inside a goal field's window with a goal reached locally: no portals needed in
            // the goal sector (with one goal sector); elsewhere in the window only if no
            // route beats the field.
            let local_cost = cheapest_field(goal_fields, cover, src).map(|(_, _, c)| c);
            p.sources.push(src);
            if let Some(cost) = local_cost
                && in_goal_sector
                && one_goal_sector
            {
                p.routes.push(Route {
                    nodes: Vec::new(),
                    cost,
                });
                continue;
            }
            let mut starts = sector_costs_from(l, src_sector, &[src], &mut self.integ);
            if let Some(ll) = &p.links {
                starts.extend(ll.costs_from(l, src_sector, &[src], &mut self.integ));
            }
            // What the window offers from the source, in the graph's measure.
            let start_in_window = starts
                .iter()
                .filter_map(|&(node, c)| {
                    Some(c.saturating_add(within_any(goal_fields, field_cover, src_sector, node)?))
                })
                .min()
                .unwrap_or(UNREACHED);
            for (node, _) in &mut starts {
                *node = graph.search_id(*node);
            }
            let focus_at = match (hierarchy, starts.first()) {
                (Some(h), Some(&(first, _))) => {
                    let key = graph.cluster_key(first);
                    if let Some(slot) = open.get_mut(key as usize) {
                        *slot = true;
                    }
                    h.hierarchy.cluster_borders(key).next()
                }
                (None, Some(&(first, _))) => Some(first),
                (_, None) => None,
            };
            // The hierarchy's tables cover an eighth of the nodes and stay in cache, so it
            // reads twice as many landmarks per node.
            let active = if hierarchy.is_some() {
                CLUSTER_ACTIVE_LANDMARKS
            } else {
                ACTIVE_LANDMARKS
            };
            if let (Some(b), Some(at)) = (bounds.as_mut(), focus_at) {
                b.focus(at, active);
            }
            // Tie-breaking leans toward the straight line to the nearest goal.
            let toward = if p.goals.len() == 1 {
                p.goal
            } else {
                p.goals
                    .iter()
                    .copied()
                    .min_by_key(|&g| crate::route::octile(src, g))
                    .unwrap_or(p.goal)
            };
            let query = hierarchy.map(|h| ClusterQuery {
                hierarchy: &h.hierarchy,
                open: open.as_slice(),
                bounds: bounds.as_ref(),
                levels: h
                    .hierarchy
                    .levels()
                    .filter(|_| self.search_mode != super::SearchMode::Clusters),
                landmarks: h.landmarks.as_ref(),
            });
            // The last source's route is refined around its source only, the rest when read
            // (see `lazy.rs`): where no later source merges into it, no corridor is built
            // from all its exits, and no streamed tiles wait to be read for them.
            let lazy = self.lazy_refinement
                && hierarchy.is_some()
                && i + 1 == new_sources.len()
                && p.links.is_none()
                && !self.seamless
                && !self.seamless_where_split
                && may_lazy;
            let src_cluster = (
                src_sector % spec.sectors_x() / CLUSTER_SECTORS,
                src_sector / spec.sectors_x() / CLUSTER_SECTORS,
            );
            let ends = SearchEnds {
                starts: &starts,
                finishes: remaining,
                goal: toward,
                goal_box,
                source: src,
                // The flat search runs only below the hierarchy's size, where optimal
                // routes are cheap; a route within 1.1 × the optimum takes the wrong side
                // of a wall often enough to show in the walked length (8room_000: 1.028 ×
                // the any-angle optimum against 1.015).
                heuristic_weight: if hierarchy.is_some() {
                    self.heuristic_weight
                } else {
                    1.0
                },
                landmarks: bounds.as_ref().filter(|_| hierarchy.is_none()),
                clusters: query.as_ref(),
                eager_ring: lazy.then_some((src_cluster, EAGER_RING)),
            };
            let levels = query.as_ref().is_some_and(|q| q.levels.is_some());
            let held = self.scratch.is_held();
            let searched = search_until(graph, &ends, &mut self.scratch, deadline);
            if let Some(c) = clock.as_deref_mut()
                && !held
            {
                c.worked();
            }
            let Some(found) = searched else {
                // Stopped at the deadline: this source goes on in the next call.
                p.sources.pop();
                return Ok(false);
            };
            self.a_star_runs += 1;
            let Some(route) = found else {
                p.routes.push(Route {
                    nodes: Vec::new(),
                    cost: local_cost.unwrap_or(UNREACHED),
                });
                continue;
            };
            // Graph costs run a little low (an edge ends anywhere on a window, the next starts
            // at its centre), the same way inside the window and out: compare them with each
            // other, allowing a sector's width. In a goal sector (of a set with several) the
            // field's own cost is exact and needs no portal.
            let detour = spec.sector_size;
            let field_first = match local_cost {
                Some(cost) if in_goal_sector => cost <= route.cost.saturating_add(detour),
                Some(_) => start_in_window <= route.cost.saturating_add(detour),
                None => false,
            };
            if let Some(cost) = local_cost
                && field_first
            {
                p.routes.push(Route {
                    nodes: Vec::new(),
                    cost,
                });
                continue;
            }
            if local_cost.is_some() {
                p.route_first.insert((src_sector, src));
            }
            // Remaining cost of every node on this route, so later sources can merge into it.
            let steps = crate::route::last_route(&self.scratch);
            let far = crate::route::far_hops(&self.scratch);
            let last = far
                .last()
                .map(|hop| hop.1.0)
                .or_else(|| steps.last().map(|&(id, _)| id));
            if let Some(cells) = last.and_then(|id| goal_sectors.get(&graph.sector(id)))
                && !add_goal_field_in_time(
                    &mut self.goal_cache,
                    &mut self.integ,
                    &mut self.unit_costs,
                    clock.as_deref_mut(),
                    (l, graph, layer),
                    cells,
                    (p, spec),
                )
            {
                // The route waits for the next call, which builds the field first (and
                // counts the search then).
                self.scratch.hold(route.cost);
                self.a_star_runs -= 1;
                p.sources.pop();
                return Ok(false);
            }
            let steps = crate::route::last_route(&self.scratch);
            let far = crate::route::far_hops(&self.scratch);
            let (goal_fields, field_cover) = (&p.goal_fields, &p.field_cover);
            let end_rest = last.and_then(|id| remaining.get(id)).unwrap_or(0);
            let total = route.cost;
            let more_sources = i + 1 < new_sources.len();
            for &(id, g) in steps {
                // Nodes already on an earlier route keep their cost and are in the bounds.
                if remaining.get(id).is_some() {
                    continue;
                }
                let rest =
                    remaining.insert_absent(id, total.saturating_sub(g).max(end_rest.min(total)));
                p.finishes.push((graph.node_id(id), rest));
                if more_sources {
                    add_finish(&mut bounds, open, id, rest);
                }
            }
            // Consecutive nodes in different sectors cross a window: the first is its
            // sector's exit, the second where the route enters the next sector.
            for pair in steps.windows(2) {
                let (a, b) = (pair[0].0, pair[1].0);
                let sector = graph.sector(a);
                let entered = graph.sector(b);
                if entered != sector && !goal_sectors.contains_key(&entered) {
                    let rest = total.saturating_sub(pair[1].1);
                    let within = within_any(goal_fields, field_cover, entered, graph.node_id(b));
                    if within.is_some_and(|c| c > rest.saturating_add(detour)) {
                        p.route_first.insert((entered, graph.center(b)));
                    }
                }
                // A link's entry is its sector's exit, even to the same sector (a ladder).
                let traversal = p
                    .links
                    .as_ref()
                    .is_some_and(|ll| ll.is_traversal(graph.node_id(a), graph.node_id(b)));
                if sector != entered || traversal {
                    let rest = remaining.get(a).unwrap_or(u32::MAX);
                    let node = graph.node_id(a);
                    let list: &mut Vec<(u32, u32)> = p.exits.entry(sector).or_default();
                    if !list.iter().any(|&(_, n)| n == node) {
                        list.push((rest, node));
                        list.sort_unstable();
                    }
                }
            }
            if let (false, Some(h)) = (far.is_empty(), hierarchy) {
                let plan = LazyPlan {
                    graph,
                    tables: h,
                    levels,
                    open: open.as_slice(),
                    open_cells: crate::route::open_cells(&self.scratch),
                    goal_sectors: goal_sectors.keys().copied().collect(),
                    detour,
                };
                let far = far.to_vec();
                p.lazy = Some(Arc::new(LazyRoute::new(plan, far, p, total, end_rest)));
            }
            p.routes.push(route);
        }
        Ok(true)
    }

    /// The last part of [`Self::route_sources`], once the routes of `p` are found: reads the
    /// flow tiles of every sector the routes leave (region by region under a budgeted
    /// call's `clock`, `Ok(false)` when it stopped with regions left) and builds the
    /// path's seamless corridor.
    pub(super) fn finish_routes(
        &mut self,
        p: &mut PathState,
        clock: Option<&mut Slice>,
    ) -> Result<bool, PathError> {
        let layer = p.layer;
        let spec = self.nav.layers[layer].cost.spec;
        // The flow tiles of every sector the routes leave, for sampling and tracing. A
        // world whose reads are prepared reads them, and the costs, when a read of the path
        // first needs them (`prepare_read`): here only a corridor would read the costs, and
        // a plan that no agent follows reads no region beyond its ends.
        let mut clock = clock;
        let corridor = self.seamless || self.seamless_where_split;
        let exits_now = corridor || !self.reads_prepared();
        if (exits_now
            && !self.ensure_sectors_sliced(layer, p.exits.keys().copied(), clock.as_deref_mut())?)
            || !self.ensure_path_ring(p, clock)?
        {
            return Ok(false);
        }
        let l = &self.nav.layers[layer];
        let everywhere = self.seamless;
        // Where only sectors with several ways out use it, a path without one needs none
        // (and keeps the cheap in-sector goal moves of `move_goal`).
        let split = self.seamless_where_split;
        // The links the routes take (their entries are exits of their sectors).
        let taken: Vec<u32> = p.links.as_ref().map_or_else(Vec::new, |ll| {
            p.exits
                .values()
                .flatten()
                .map(|&(_, n)| n)
                .filter(|&n| ll.end(n).is_some())
                .collect()
        });
        p.corridor = if everywhere {
            let around_goals = p
                .goal_fields
                .iter()
                .flat_map(|gf| sectors_in(spec, gf.rect))
                .collect::<Vec<_>>();
            let starts = p.sources.iter().map(|&(x, y)| spec.sector_of(x, y));
            Some(crate::corridor::Corridor::build(
                l,
                p.exits.keys().copied().chain(around_goals).chain(starts),
                &p.goals,
                everywhere,
                p.links.as_deref().map(|ll| (ll, taken.as_slice())),
            ))
        } else if split && taken.is_empty() {
            // The split-sector form integrates over the ground: a route over a link keeps
            // the tiles. The windows downstream that some cell leaves by are exits too: the
            // flow reads the integration in every sector with more than one.
            let (c, side) = crate::corridor::Corridor::from_exits(l, &p.exits, &p.goals);
            for (sector, rest, node) in side {
                let list = p.exits.entry(sector).or_default();
                list.push((rest, node));
                list.sort_unstable();
            }
            Some(c)
        } else {
            None
        }
        .filter(|c| !c.is_empty());
        p.steer = SteerCache::default();
        Ok(true)
    }

    /// The goal field for `(layer, goals)` (goals of one sector, sorted), from the cache or
    /// built; `None` for a layer that does not exist.
    pub(super) fn goal_field(
        &mut self,
        layer: usize,
        goals: &[(u32, u32)],
    ) -> Option<Arc<GoalField>> {
        self.search_graph(layer);
        let graph = self.search_graphs[layer].as_ref()?;
        let links = self.links.layers.get(layer).and_then(Option::as_deref);
        Some(self.goal_cache.get_or_build(
            &self.nav.layers[layer],
            graph,
            layer,
            goals,
            links,
            &mut self.integ,
        ))
    }

    /// Least-recently-used eviction of fields no live path holds, beyond the capacity.
    pub(super) fn evict(&mut self) {
        self.goal_cache.evict();
    }
}

/// Adds the goal field of `goals` to path `p` (taken from the cache, or built and its time
/// counted on `clock`), unless `clock`'s budget leaves no time to build one: then `false`,
/// nothing is added, and the caller waits for its next call.
fn add_goal_field_in_time(
    cache: &mut GoalFieldCache,
    scratch: &mut crate::integrate::IntegratorScratch,
    costs: &mut UnitCosts,
    clock: Option<&mut Slice>,
    (l, graph, layer): (&crate::NavLayer, &crate::search_graph::SearchGraph, usize),
    goals: &[(u32, u32)],
    (p, spec): (&mut PathState, crate::grid::GridSpec),
) -> bool {
    let fits = |c: &Slice| cache.contains(layer, goals) || c.may_start(costs, Unit::GoalField);
    if !clock.as_deref().is_none_or(fits) {
        return false;
    }
    let at = Instant::now();
    let field = cache.get_or_build(l, graph, layer, goals, p.links.as_deref(), scratch);
    if let Some(c) = clock {
        c.done(costs, Unit::GoalField, at);
    }
    p.add_goal_field(spec, field);
    true
}
