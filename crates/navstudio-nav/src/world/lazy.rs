//! Lazy refinement: a path keeps the part of its route beyond the source's neighbouring
//! clusters as the search found it (hops over the hierarchy's levels and clusters), and
//! refines a hop only when something reads a sector the hop may cross: an agent's flow
//! sample there, a trace through it. A hop's refinement depends on its ends and its level
//! alone (see [`crate::hierarchy::Refining`]), and stays inside its cell or cluster, so a
//! path refined this way answers exactly as one refined whole; a request across a big map
//! then pays for the search and the first few clusters only.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use super::clusters::LayerHierarchy;
use super::goal_field::within_any;
use super::{PathState, RouteFirst, route_first_in};
use crate::hierarchy::{Hop, LEVEL_SHIFTS, OpenCells, RefineOver, Refining};
use crate::search_graph::{SearchGraph, sector_cluster_key};

/// Cluster rings around the source's cluster whose hops a request refines at once: the
/// stretch an agent starting there follows first.
pub(super) const EAGER_RING: u32 = 1;

/// The unrefined part of one route.
pub(crate) struct LazyRoute {
    graph: Arc<SearchGraph>,
    tables: Arc<LayerHierarchy>,
    /// Whether the route was found over the levels above the clusters.
    levels: bool,
    /// Which clusters (by key) and level cells the search had opened.
    open: Vec<bool>,
    open_cells: OpenCells,
    /// Hops still as the search found them, in travel order, with the cluster keys their
    /// refinement can reach: `(hop, key of its start, key of its end, key bits of its
    /// level's cell)`.
    hops: Vec<(Hop, u32, u32, u32)>,
    /// The route's cost, and what its last node has left to the goal.
    total: u32,
    end_rest: u32,
    /// Remaining costs the request knew before this route (the goal sectors' nodes), by
    /// node id: they stand over the route's own.
    known: BTreeMap<u32, u32>,
    goal_sectors: BTreeSet<u32>,
    /// A sector's width: graph costs run that much low against a goal field's.
    detour: u32,
    state: Mutex<LazyState>,
}

/// What has been refined of a [`LazyRoute`].
#[derive(Debug, Default)]
struct LazyState {
    /// Per hop, its nodes after its start once refined.
    refined: Vec<Option<Vec<(u32, u32)>>>,
    exits: BTreeMap<u32, Vec<(u32, u32)>>,
    route_first: RouteFirst,
    refining: Refining,
}

/// How a request leaves a route's far part unrefined.
pub(super) struct LazyPlan<'a> {
    pub graph: &'a Arc<SearchGraph>,
    pub tables: &'a Arc<LayerHierarchy>,
    pub levels: bool,
    pub open: &'a [bool],
    pub open_cells: &'a OpenCells,
    pub goal_sectors: BTreeSet<u32>,
    pub detour: u32,
}

impl LazyRoute {
    /// The far part of a route: `hops` (as [`crate::route::lazy_hops`] gives them) of a
    /// route of cost `total` whose last node has `end_rest` left, planned for path `p`.
    pub(super) fn new(
        plan: LazyPlan<'_>,
        hops: Vec<Hop>,
        p: &PathState,
        total: u32,
        end_rest: u32,
    ) -> Self {
        let h = &plan.tables.hierarchy;
        let levels = plan.levels.then(|| h.levels()).flatten();
        let bits = |level: usize| match level {
            0 => 0,
            j => LEVEL_SHIFTS[j - 1],
        };
        let hops: Vec<_> = hops
            .into_iter()
            .map(|hop| {
                let shift = if levels.is_some() { bits(hop.2) } else { 0 };
                let (ka, kb) = (
                    plan.graph.cluster_key(hop.0.0),
                    plan.graph.cluster_key(hop.1.0),
                );
                (hop, ka, kb, shift)
            })
            .collect();
        let mut known = BTreeMap::new();
        for &(node, rest) in &p.finishes {
            known.entry(node).or_insert(rest);
        }
        let state = LazyState {
            refined: vec![None; hops.len()],
            ..LazyState::default()
        };
        Self {
            graph: Arc::clone(plan.graph),
            tables: Arc::clone(plan.tables),
            levels: plan.levels,
            open: plan.open.to_vec(),
            open_cells: plan.open_cells.clone(),
            hops,
            total,
            end_rest,
            known,
            goal_sectors: plan.goal_sectors,
            detour: plan.detour,
            state: Mutex::new(state),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LazyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Refines the hops for which `wanted` holds (by index), with `p` the path (its goal
    /// fields decide where the route comes first).
    fn refine(
        &self,
        p: &PathState,
        wanted: impl Fn(usize) -> bool,
    ) -> std::sync::MutexGuard<'_, LazyState> {
        let mut state = self.lock();
        let h = &self.tables.hierarchy;
        let open = |key: u32| self.open.get(key as usize).copied().unwrap_or(true);
        let over = RefineOver {
            graph: &self.graph,
            hierarchy: h,
            levels: self.levels.then(|| h.levels()).flatten(),
            landmarks: self.tables.landmarks.as_ref(),
            open_cells: &self.open_cells,
            is_open: &open,
        };
        for (i, &(hop, ..)) in self.hops.iter().enumerate() {
            if state.refined[i].is_some() || !wanted(i) {
                continue;
            }
            let st = &mut *state;
            st.refining.start_hop(hop);
            st.refining.run(&over, None);
            let nodes = st.refining.route()[1..].to_vec();
            self.note_exits(p, hop.0, &nodes, &mut st.exits, &mut st.route_first);
            st.refined[i] = Some(nodes);
        }
        state
    }

    /// The exits and route-first sectors of the stretch `from`, `nodes…`, as the request
    /// notes them for a route refined whole.
    fn note_exits(
        &self,
        p: &PathState,
        from: (u32, u32),
        nodes: &[(u32, u32)],
        exits: &mut BTreeMap<u32, Vec<(u32, u32)>>,
        route_first: &mut RouteFirst,
    ) {
        let g = &self.graph;
        let rest_of = |(id, cost): (u32, u32)| {
            self.known.get(&g.node_id(id)).copied().unwrap_or_else(|| {
                self.total
                    .saturating_sub(cost)
                    .max(self.end_rest.min(self.total))
            })
        };
        let mut a = from;
        for &b in nodes {
            let (sector, entered) = (g.sector(a.0), g.sector(b.0));
            if entered != sector && !self.goal_sectors.contains(&entered) {
                let rest = self.total.saturating_sub(b.1);
                let within = within_any(&p.goal_fields, &p.field_cover, entered, g.node_id(b.0));
                if within.is_some_and(|c| c > rest.saturating_add(self.detour)) {
                    route_first.insert((entered, g.center(b.0)));
                }
            }
            if sector != entered {
                let node = g.node_id(a.0);
                let list = exits.entry(sector).or_default();
                if !list.iter().any(|&(_, n)| n == node) {
                    list.push((rest_of(a), node));
                    list.sort_unstable();
                }
            }
            a = b;
        }
    }

    /// Whether hop `i`'s refinement can reach the sector whose cluster key is `key`.
    fn reaches(&self, i: usize, key: u32) -> bool {
        let (_, ka, kb, shift) = self.hops[i];
        key >> shift == ka >> shift || key >> shift == kb >> shift
    }
}

impl PathState {
    /// The exits of `sector`, `(remaining cost, portal node)` cheapest first, refining the
    /// hops of a lazily refined route that may cross it.
    pub(crate) fn exits_in(&self, sector: u32) -> Cow<'_, [(u32, u32)]> {
        let eager = self.exits.get(&sector).map_or(&[][..], Vec::as_slice);
        let Some(lazy) = &self.lazy else {
            return Cow::Borrowed(eager);
        };
        let key = lazy.sector_key(sector);
        // No far hop reaches the sector: nothing to refine, no lock to take.
        if !(0..lazy.hops.len()).any(|i| lazy.reaches(i, key)) {
            return Cow::Borrowed(eager);
        }
        let state = lazy.refine(self, |i| lazy.reaches(i, key));
        match state.exits.get(&sector) {
            None => Cow::Borrowed(eager),
            Some(more) => {
                let mut all = eager.to_vec();
                for &(rest, node) in more {
                    if !all.iter().any(|&(_, n)| n == node) {
                        all.push((rest, node));
                    }
                }
                all.sort_unstable();
                Cow::Owned(all)
            }
        }
    }

    /// The cells where a route that comes before the goal field enters `sector` (see
    /// [`Self::route_first`]), refining as [`Self::exits_in`] does; empty where the goal
    /// field goes first.
    pub(crate) fn route_first_entries(&self, sector: u32) -> Vec<(u32, u32)> {
        let mut entries = route_first_in(&self.route_first, sector);
        let Some(lazy) = &self.lazy else {
            return entries;
        };
        let key = lazy.sector_key(sector);
        if !(0..lazy.hops.len()).any(|i| lazy.reaches(i, key)) {
            return entries;
        }
        let state = lazy.refine(self, |i| lazy.reaches(i, key));
        entries.extend(route_first_in(&state.route_first, sector));
        entries
    }

    /// Every exit of the path, by sector, the whole route refined.
    pub(crate) fn all_exits(&self) -> Cow<'_, BTreeMap<u32, Vec<(u32, u32)>>> {
        let Some(lazy) = &self.lazy else {
            return Cow::Borrowed(&self.exits);
        };
        let state = lazy.refine(self, |_| true);
        let mut all = self.exits.clone();
        for (&sector, more) in &state.exits {
            let list = all.entry(sector).or_default();
            for &(rest, node) in more {
                if !list.iter().any(|&(_, n)| n == node) {
                    list.push((rest, node));
                }
            }
            list.sort_unstable();
        }
        Cow::Owned(all)
    }

    /// Per source, the portal nodes of its route, the whole route refined.
    pub(crate) fn route_nodes(&self) -> Vec<Vec<u32>> {
        let mut all: Vec<Vec<u32>> = self.routes.iter().map(|r| r.nodes.clone()).collect();
        if let (Some(lazy), Some(last)) = (&self.lazy, all.last_mut()) {
            let state = lazy.refine(self, |_| true);
            let g = &lazy.graph;
            for nodes in state.refined.iter().flatten() {
                last.extend(nodes.iter().map(|&(id, _)| g.node_id(id)));
            }
        }
        all
    }

    /// Refines the whole route into the path's own fields, as a request refining eagerly
    /// leaves them (before a change that reads them: sources added, a re-plan).
    pub(crate) fn refine_whole(&mut self) {
        let Some(lazy) = self.lazy.take() else {
            return;
        };
        let state = lazy.refine(self, |_| true);
        let g = &lazy.graph;
        for (sector, more) in &state.exits {
            let list = self.exits.entry(*sector).or_default();
            for &(rest, node) in more {
                if !list.iter().any(|&(_, n)| n == node) {
                    list.push((rest, node));
                }
            }
            list.sort_unstable();
        }
        self.route_first.extend(state.route_first.iter().copied());
        let mut seen: BTreeSet<u32> = self.finishes.iter().map(|&(n, _)| n).collect();
        let rest_of = |(id, cost): (u32, u32)| {
            lazy.known.get(&g.node_id(id)).copied().unwrap_or_else(|| {
                lazy.total
                    .saturating_sub(cost)
                    .max(lazy.end_rest.min(lazy.total))
            })
        };
        if let Some(route) = self.routes.last_mut() {
            for nodes in state.refined.iter().flatten() {
                for &step in nodes {
                    let node = g.node_id(step.0);
                    if seen.insert(node) {
                        self.finishes.push((node, rest_of(step)));
                    }
                    route.nodes.push(node);
                }
            }
        }
    }
}

impl std::fmt::Debug for LazyRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `try_lock`: a path printed while a read refines it shows no count.
        let refined = self
            .state
            .try_lock()
            .map(|s| s.refined.iter().filter(|r| r.is_some()).count())
            .ok();
        f.debug_struct("LazyRoute")
            .field("hops", &self.hops.len())
            .field("refined", &refined)
            .finish_non_exhaustive()
    }
}

impl LazyRoute {
    /// The cluster key of `sector`.
    fn sector_key(&self, sector: u32) -> u32 {
        let sx = self.graph.sectors_x();
        sector_cluster_key(sector % sx, sector / sx)
    }
}
