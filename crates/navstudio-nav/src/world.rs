//! `NavWorld`: what a game calls at run time — reachability by island ids, path requests
//! (portal A*, merging A* for further sources, precomputed permutation tiles on the way, a
//! custom line-of-sight field around the goal), flow sampling for steering, a ref-counted
//! goal-field cache, and dynamic cost changes rebuilt through a time-sliced queue.
//!
//! A request may name a goal set ([`NavWorld::request_path_to_any`]): the portal search
//! finishes at any goal sector's nodes (a virtual sink), each goal sector gets one goal field
//! integrated from all of its goals, and where the fields' windows overlap a cell follows
//! the field that is cheapest there, so every source flows to its nearest goal.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::NavData;
use super::flow::flow_from_integration;
use super::grid::{DIR_NONE, DIRECTIONS, FLOW_LOS, GridSpec, WALL};
use super::integrate::{
    INT_LOS, IntegrationField, IntegratorScratch, UNREACHED, integrate_costs,
    integrate_with_los_set,
};
use super::landmarks::{LandmarkBuilder, Landmarks};
use super::layer::{NavLayer, rebuild_sectors};
use super::route::{FinishCosts, Route, SearchEnds, SearchGraph, SearchScratch, search};

/// Default A* heuristic inflation (weighted A*, expanded nodes not reopened, so routes cost
/// at most 1.1 × the optimum). On the 2048² benchmark map, with landmarks, 1.1 expands 1.6×
/// fewer nodes than 1.0 for routes 2.6 % costlier (`cargo bench --bench path`); the flow field,
/// not the portal route, shapes most of the walked path.
pub const DEFAULT_HEURISTIC_WEIGHT: f32 = 1.1;

/// Default look-ahead of flow following, in cells along the flow (see
/// [`NavWorld::set_flow_lookahead`]).
pub const DEFAULT_FLOW_LOOKAHEAD: u32 = 24;

/// Upper bound of the flow look-ahead (it walks a stack array of this many cells).
pub const MAX_FLOW_LOOKAHEAD: usize = 64;

/// Landmarks a search reads, of [`super::landmarks::LANDMARK_COUNT`]: the ones with the
/// best bound at its source. Reading 8 of 16 expands 13 % fewer nodes than 4 on the 2048²
/// benchmark map but reads twice the table per node, for no faster requests.
const ACTIVE_LANDMARKS: usize = 4;

/// A live path request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathId(pub u32);

/// A stamp applied at run time, to remove it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StampHandle(pub u32);

/// Why a path request was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The movement type index does not exist.
    #[error("movement type {0} does not exist in this package")]
    UnknownType(usize),
    /// A cell lies off the map.
    #[error("cell {0:?} lies off the map")]
    OffMap((u32, u32)),
    /// The goal is a wall for this movement type.
    #[error("the goal {0:?} is a wall for this movement type")]
    GoalIsWall((u32, u32)),
    /// No source can reach the goal (island ids differ); A* was not run.
    #[error("no source can reach the goal {0:?} (different islands)")]
    Unreachable((u32, u32)),
    /// A goal set without a goal.
    #[error("the goal set is empty: name at least one goal cell")]
    NoGoal,
}

/// The goal field: an integration with the line-of-sight pass over the goal sector and its
/// neighbours, so LOS continues across sector borders.
#[derive(Debug)]
pub struct GoalField {
    /// Window `(x0, y0, w, h)` in cells.
    pub rect: (u32, u32, u32, u32),
    /// Integrated costs and flags over the window.
    pub field: IntegrationField,
    /// Flow over the window.
    pub flow: Vec<u8>,
    /// `(node, cost)` for the portal nodes of the window's sectors, by node id: the graph
    /// cost to the goal by paths inside the window ([`UNREACHED`] when none), what the
    /// field can offer in the graph's own measure (see [`PathState::route_first`]).
    pub within: Vec<(u32, u32)>,
    /// The goals the field was integrated from (all in one sector), sorted.
    pub goals: Vec<(u32, u32)>,
    /// With several goals, per window cell the index into `goals` of the goal a
    /// line-of-sight cell sees; empty with one goal.
    pub los_owner: Vec<u32>,
}

impl GoalField {
    /// [`GoalField::within`] of `node`, if it lies in the window.
    fn within(&self, node: u32) -> Option<u32> {
        let i = self.within.binary_search_by_key(&node, |&(n, _)| n).ok()?;
        Some(self.within[i].1)
    }

    /// The goal the line-of-sight cell at window index `i` sees.
    fn los_goal(&self, i: usize) -> Option<(u32, u32)> {
        let k = self.los_owner.get(i).copied().unwrap_or(0);
        self.goals.get(k as usize).copied()
    }
}

/// Cache hit/miss counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Goal fields served from the cache.
    pub hits: u64,
    /// Goal fields built.
    pub misses: u64,
    /// Unreferenced fields dropped by the LRU policy.
    pub evictions: u64,
    /// Fields held now.
    pub entries: usize,
}

/// A planned path: the route tree toward one goal (or the nearest of a goal set) shared by
/// all its sources.
#[derive(Debug)]
pub struct PathState {
    /// Movement type index.
    pub layer: usize,
    /// Goal cell; of a goal set, the first goal named that a source can reach.
    pub goal: (u32, u32),
    /// Every goal of the path (one for [`NavWorld::request_path`]), sorted: the goals a
    /// source can reach.
    pub goals: Vec<(u32, u32)>,
    /// Island ids of the goals, sorted.
    goal_islands: Vec<u32>,
    /// Sources the path was planned for (re-planned after dynamic changes).
    pub sources: Vec<(u32, u32)>,
    /// Per routed sector, the portal nodes to leave it through as `(remaining cost to the
    /// goal, node)`, cheapest first. A sector split by walls can be crossed several times in
    /// different parts; a cell uses the first exit whose tile reaches it.
    pub exits: BTreeMap<u32, Vec<(u32, u32)>>,
    /// The route of each source (portal nodes in travel order), for reports and for agents
    /// not yet on a routed sector.
    pub routes: Vec<Route>,
    /// Routed sectors inside the goal field's window where the route beats the goal field:
    /// the field only knows paths inside its window, and where the way round leaves it
    /// (rooms whose connecting corridor runs just outside) its flow takes a long detour.
    /// There cells follow the route's tiles instead.
    pub route_first: BTreeSet<u32>,
    /// One goal field per goal sector, in sector order (shared through the cache).
    pub goal_fields: Vec<Arc<GoalField>>,
    /// Per sector some goal field's window covers, the indices of those fields.
    field_cover: BTreeMap<u32, Vec<u32>>,
    /// Seamless mode only: one integration from the goal over all routed sectors.
    pub corridor: Option<super::corridor::Corridor>,
    /// Look-ahead targets already found, by cell (see [`NavWorld::set_flow_lookahead`]).
    pulled: PulledCache,
}

/// Look-ahead targets by cell, filled by [`NavWorld::sample_flow`] on first use: a
/// direct-mapped table of atomic entries, so threads sampling one path share it without a
/// lock. A target is a pure function of the path and the cell (and the look-ahead, whose
/// setting is part of each entry), so a race only computes one twice.
#[derive(Debug, Default)]
struct PulledCache(std::sync::OnceLock<Box<[AtomicU64]>>);

/// Entries of a [`PulledCache`].
const PULLED_SLOTS: usize = 4096;

/// A path followed cell by cell.
#[derive(Clone, Debug, PartialEq)]
pub struct TracedPath {
    /// Cells visited, source first; ends at the goal or at the first LOS cell.
    pub cells: Vec<(u32, u32)>,
    /// 1 per straight step, √2 per diagonal, straight-line distance once in LOS.
    pub length: f64,
    /// The goal the path arrives at (of a goal set: the one this source flows to).
    pub goal: (u32, u32),
}

impl PathState {
    /// Whether `cell` is one of the path's goals.
    #[must_use]
    pub fn is_goal(&self, cell: (u32, u32)) -> bool {
        if self.goals.len() == 1 {
            return self.goals[0] == cell;
        }
        self.goals.binary_search(&cell).is_ok()
    }

    /// The cheapest goal field reaching `cell`: `(field, window index, cost)`. Ties go to the
    /// lower field index.
    fn field_at(&self, cover: &[u32], cell: (u32, u32)) -> Option<(&GoalField, usize, u32)> {
        cheapest_field(&self.goal_fields, cover, cell)
    }

    /// The indices of the goal fields whose windows cover `sector`.
    fn cover(&self, sector: u32) -> &[u32] {
        self.field_cover.get(&sector).map_or(&[], Vec::as_slice)
    }
}

/// Cached goal fields by (movement type, goal cells of one sector), with the clock of their
/// last use.
type GoalCache = HashMap<(usize, Vec<(u32, u32)>), (Arc<GoalField>, u64)>;

/// The run-time navigation world.
pub struct NavWorld {
    nav: NavData,
    paths: BTreeMap<PathId, PathState>,
    next_path: u32,
    goal_cache: GoalCache,
    cache_capacity: usize,
    cache_clock: u64,
    stats: CacheStats,
    stamps: BTreeMap<u32, AppliedStamp>,
    next_stamp: u32,
    dirty: BTreeSet<(usize, u32)>,
    a_star_runs: u64,
    seamless: bool,
    flow_lookahead: u32,
    heuristic_weight: f32,
    /// ALT landmark tables per layer, built on a layer's first request (see
    /// [`NavWorld::prepare_landmarks`]) and dropped when its graph is rebuilt.
    landmarks: Vec<Option<Landmarks>>,
    /// Layers whose landmark tables the rebuild queue is recomputing (build not started:
    /// `None`); their requests use the octile heuristic meanwhile.
    landmark_builds: BTreeMap<usize, Option<LandmarkBuilder>>,
    use_landmarks: bool,
    /// Whether a drained rebuild queue re-plans the live paths (see
    /// [`NavWorld::set_replan_on_rebuild`]).
    replan_on_rebuild: bool,
    /// Per layer, its portal graph laid out for the search (see [`SearchGraph`]), built on
    /// the layer's first request and dropped when its graph is rebuilt. Landmark tables and
    /// finishing costs are kept in its search ids.
    search_graphs: Vec<Option<SearchGraph>>,
    finish: FinishCosts,
    scratch: SearchScratch,
    integ: IntegratorScratch,
}

struct AppliedStamp {
    layers: Vec<usize>,
    rect: (u32, u32, u32, u32),
    original: Vec<Vec<u8>>,
}

impl NavWorld {
    /// A world over baked navigation data (fresh from the bake or `package::read(..)?.nav`).
    #[must_use]
    pub fn from_nav(nav: NavData) -> Self {
        Self {
            nav,
            paths: BTreeMap::new(),
            next_path: 0,
            goal_cache: HashMap::new(),
            cache_capacity: 64,
            cache_clock: 0,
            stats: CacheStats::default(),
            stamps: BTreeMap::new(),
            next_stamp: 0,
            dirty: BTreeSet::new(),
            a_star_runs: 0,
            seamless: false,
            flow_lookahead: DEFAULT_FLOW_LOOKAHEAD,
            heuristic_weight: DEFAULT_HEURISTIC_WEIGHT,
            landmarks: Vec::new(),
            landmark_builds: BTreeMap::new(),
            use_landmarks: true,
            replan_on_rebuild: true,
            search_graphs: Vec::new(),
            finish: FinishCosts::default(),
            scratch: SearchScratch::default(),
            integ: IntegratorScratch::new(),
        }
    }

    /// Quality mode: when on, each path also integrates its whole route from the goal
    /// (costs carried across portal windows) for seamless flow; off, routes use the
    /// precomputed permutation tiles (the default, shared between requests).
    pub fn set_seamless(&mut self, on: bool) {
        self.seamless = on;
    }

    /// Look-ahead of flow following (string pulling), in cells: [`Self::sample_flow`] and
    /// [`Self::trace_path`] follow the flow from the agent's cell up to this many cells ahead
    /// and steer straight at the furthest of those cells in plain sight — a straight segment
    /// over cells that are on the route and no costlier than the flow's own cells on the way.
    /// This cuts the sector-sized staircases of tiles that each lead to the nearest cell of
    /// their portal window. 0 follows the flow cell by cell. Default
    /// [`DEFAULT_FLOW_LOOKAHEAD`].
    pub fn set_flow_lookahead(&mut self, cells: u32) {
        self.flow_lookahead = cells;
    }

    /// A* heuristic inflation (1.0 = optimal portal routes; see
    /// [`DEFAULT_HEURISTIC_WEIGHT`]).
    pub fn set_heuristic_weight(&mut self, weight: f32) {
        self.heuristic_weight = weight.max(1.0);
    }

    /// Whether [`Self::rebuild`] re-plans every live path from its original sources when
    /// the queue drains (the default). A caller that re-plans its paths itself from where
    /// its agents are now (the crowd) turns it off so the work is not done twice; until it
    /// does, the old paths may name portal nodes the rebuilt graph renumbered.
    pub fn set_replan_on_rebuild(&mut self, on: bool) {
        self.replan_on_rebuild = on;
    }

    /// Whether path requests use ALT landmark bounds besides the octile heuristic (on by
    /// default). Off, no tables are built: for short-lived worlds on small maps.
    pub fn set_landmarks(&mut self, on: bool) {
        self.use_landmarks = on;
        if !on {
            self.landmarks.clear();
            self.landmark_builds.clear();
        }
    }

    /// Builds the landmark tables of every layer now (one Dijkstra per landmark over each
    /// portal graph) instead of on each layer's first path request: call it at load time.
    pub fn prepare_landmarks(&mut self) {
        for layer in 0..self.nav.layers.len() {
            self.ensure_landmarks(layer);
        }
    }

    fn ensure_landmarks(&mut self, layer: usize) {
        if !self.use_landmarks
            || layer >= self.nav.layers.len()
            || self.landmark_builds.contains_key(&layer)
        {
            return;
        }
        if self.landmarks.len() < self.nav.layers.len() {
            self.landmarks.resize_with(self.nav.layers.len(), || None);
        }
        let l = &self.nav.layers[layer];
        let stale = self.landmarks[layer]
            .as_ref()
            .is_none_or(|t| t.node_count() != l.nodes.len());
        if stale {
            let marks = Landmarks::build(l);
            let graph = self.search_graph(layer);
            self.landmarks[layer] = marks.map(|m| m.reordered(graph.search_ids()));
        }
    }

    /// The search layout of `layer` (which must exist), built if missing.
    fn search_graph(&mut self, layer: usize) -> &SearchGraph {
        if self.search_graphs.len() < self.nav.layers.len() {
            self.search_graphs
                .resize_with(self.nav.layers.len(), || None);
        }
        let l = &self.nav.layers[layer];
        self.search_graphs[layer].get_or_insert_with(|| SearchGraph::new(l))
    }

    /// The navigation data (read-only).
    #[must_use]
    pub fn nav(&self) -> &NavData {
        &self.nav
    }

    /// Number of A* searches run so far (rejected requests run none).
    #[must_use]
    pub fn a_star_runs(&self) -> u64 {
        self.a_star_runs
    }

    /// Portal nodes expanded by all A* searches so far.
    #[must_use]
    pub fn a_star_expansions(&self) -> u64 {
        self.scratch.expanded
    }

    /// Goal-field cache counters.
    #[must_use]
    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            entries: self.goal_cache.len(),
            ..self.stats
        }
    }

    /// Whether `b` can be reached from `a` by movement type `layer`: equal non-zero island ids.
    #[must_use]
    pub fn is_reachable(&self, layer: usize, a: (u32, u32), b: (u32, u32)) -> bool {
        let Some(l) = self.nav.layers.get(layer) else {
            return false;
        };
        let ia = l.islands.island_at(a.0, a.1);
        ia != 0 && ia == l.islands.island_at(b.0, b.1)
    }

    /// A planned path.
    #[must_use]
    pub fn path(&self, id: PathId) -> Option<&PathState> {
        self.paths.get(&id)
    }

    /// Drops a path (its goal field stays cached until evicted).
    pub fn release_path(&mut self, id: PathId) {
        self.paths.remove(&id);
        self.evict();
    }

    /// Plans a path from `sources` to `goal` for movement type `layer`. Sources on other
    /// islands than the goal are left out (no A* for them); the first reachable source runs
    /// a full A*, later ones a merging A* that may finish on the earlier routes.
    ///
    /// # Errors
    /// [`PathError`] when the type does not exist, a cell is off the map, the goal is a wall,
    /// or no source shares the goal's island.
    pub fn request_path(
        &mut self,
        layer: usize,
        sources: &[(u32, u32)],
        goal: (u32, u32),
    ) -> Result<PathId, PathError> {
        self.request_path_to_any(layer, sources, &[goal])
    }

    /// Plans one path from `sources` to the nearest of `goals` (by integrated cost) for
    /// movement type `layer`: every source's flow leads to its nearest goal (SEEDS §002's
    /// goal sets: exits, depots, a building's entrances). The portal search finishes at any
    /// goal sector's nodes at their cost to that sector's nearest goal, landmark bounds take
    /// the minimum over all of them, and each goal sector gets one goal field integrated from
    /// all of its goals, with line of sight per goal. Goals on walls, and goals on islands no
    /// source stands on, are left out; sources on islands without a goal likewise. One goal
    /// gives exactly [`Self::request_path`]'s path. [`Self::sample_flow`],
    /// [`Self::trace_path`] (whose [`TracedPath::goal`] names the goal reached) and
    /// [`Self::has_line_of_sight`] work on it unchanged.
    ///
    /// # Errors
    /// [`PathError::NoGoal`] for an empty set, [`PathError::OffMap`] for a cell off the map,
    /// [`PathError::GoalIsWall`] (naming the first goal) when every goal is a wall,
    /// [`PathError::Unreachable`] when no source shares an island with a goal, and
    /// [`PathError::UnknownType`].
    pub fn request_path_to_any(
        &mut self,
        layer: usize,
        sources: &[(u32, u32)],
        goals: &[(u32, u32)],
    ) -> Result<PathId, PathError> {
        let state = self.plan(layer, sources, goals)?;
        let id = PathId(self.next_path);
        self.next_path = self.next_path.wrapping_add(1);
        self.paths.insert(id, state);
        Ok(id)
    }

    /// Whether an agent at `cell` can follow path `id` to one of its goals: the cell lies on
    /// the island of one of them.
    #[must_use]
    pub fn path_reaches(&self, id: PathId, cell: (u32, u32)) -> bool {
        let Some(p) = self.paths.get(&id) else {
            return false;
        };
        let Some(l) = self.nav.layers.get(p.layer) else {
            return false;
        };
        if cell.0 >= l.cost.spec.width || cell.1 >= l.cost.spec.height {
            return false;
        }
        let island = l.islands.island_at(cell.0, cell.1);
        island != 0 && p.goal_islands.binary_search(&island).is_ok()
    }

    fn plan(
        &mut self,
        layer: usize,
        sources: &[(u32, u32)],
        goals: &[(u32, u32)],
    ) -> Result<PathState, PathError> {
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
        let reachable: Vec<(u32, u32)> = sources
            .iter()
            .copied()
            .filter(|&c| goal_islands.binary_search(&island(c)).is_ok())
            .collect();
        if reachable.is_empty() {
            return Err(PathError::Unreachable(first_goal));
        }
        // Goals no source can reach would only cost goal fields.
        let mut source_islands: Vec<u32> = reachable.iter().map(|&c| island(c)).collect();
        source_islands.sort_unstable();
        source_islands.dedup();
        goal_islands.retain(|i| source_islands.binary_search(i).is_ok());
        let kept = |g: &(u32, u32)| source_islands.binary_search(&island(*g)).is_ok();
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
        let goal_fields: Vec<Arc<GoalField>> = by_sector
            .values()
            .map(|cells| self.goal_field(layer, cells))
            .collect();
        let mut field_cover: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (k, gf) in goal_fields.iter().enumerate() {
            for sector in sectors_in(spec, gf.rect) {
                field_cover.entry(sector).or_default().push(k as u32);
            }
        }
        // The octile heuristic's target: the goals' bounding box (a point for one goal).
        let goal_box = goal_cells.iter().fold(
            ((u32::MAX, u32::MAX), (0, 0)),
            |((x0, y0), (x1, y1)), &(x, y)| ((x0.min(x), y0.min(y)), (x1.max(x), y1.max(y))),
        );
        self.ensure_landmarks(layer);
        self.search_graph(layer);
        let l = &self.nav.layers[layer];
        let Some(graph) = self.search_graphs.get(layer).and_then(Option::as_ref) else {
            return Err(PathError::UnknownType(layer));
        };
        let remaining = &mut self.finish;
        remaining.reset(l.nodes.len());
        let mut bounds = self
            .landmarks
            .get(layer)
            .and_then(Option::as_ref)
            .map(Landmarks::bounds);
        // Cost from each goal-sector node to its sector's nearest goal, by integrating the
        // sector from all of them: the search's finishes (a virtual sink behind them).
        for (&sector, cells) in &by_sector {
            let mut goal_costs = sector_costs_from(l, sector, cells, &mut self.integ);
            for (node, _) in &mut goal_costs {
                *node = graph.search_id(*node);
            }
            for &(node, rest) in &goal_costs {
                remaining.insert_absent(node, rest);
            }
            if let Some(b) = bounds.as_mut() {
                for &(node, rest) in &goal_costs {
                    b.add_finish(node, rest);
                }
            }
        }
        let one_goal_sector = by_sector.len() == 1;
        let mut exits = BTreeMap::new();
        let mut routes = Vec::with_capacity(reachable.len());
        let mut route_first = BTreeSet::new();
        for (i, &src) in reachable.iter().enumerate() {
            let src_sector = spec.sector_of(src.0, src.1);
            let in_goal_sector = by_sector.contains_key(&src_sector);
            let cover = field_cover.get(&src_sector).map_or(&[][..], Vec::as_slice);
            // Inside a goal field's window with a goal reached locally: no portals needed in
            // the goal sector (with one goal sector); elsewhere in the window only if no
            // route beats the field.
            let local_cost = cheapest_field(&goal_fields, cover, src).map(|(_, _, c)| c);
            if let Some(cost) = local_cost
                && in_goal_sector
                && one_goal_sector
            {
                routes.push(Route {
                    nodes: Vec::new(),
                    cost,
                });
                continue;
            }
            let mut starts = sector_costs_from(l, src_sector, &[src], &mut self.integ);
            // What the window offers from the source, in the graph's measure.
            let start_in_window = starts
                .iter()
                .filter_map(|&(node, c)| {
                    Some(c.saturating_add(within_any(
                        &goal_fields,
                        &field_cover,
                        src_sector,
                        node,
                    )?))
                })
                .min()
                .unwrap_or(UNREACHED);
            for (node, _) in &mut starts {
                *node = graph.search_id(*node);
            }
            if let (Some(b), Some(&(first, _))) = (bounds.as_mut(), starts.first()) {
                b.focus(first, ACTIVE_LANDMARKS);
            }
            // Tie-breaking leans toward the straight line to the nearest goal.
            let toward = if goal_cells.len() == 1 {
                goal
            } else {
                goal_cells
                    .iter()
                    .copied()
                    .min_by_key(|&g| super::route::octile(src, g))
                    .unwrap_or(goal)
            };
            self.a_star_runs += 1;
            let ends = SearchEnds {
                starts: &starts,
                finishes: remaining,
                goal: toward,
                goal_box,
                source: src,
                heuristic_weight: self.heuristic_weight,
                landmarks: bounds.as_ref(),
            };
            let Some(route) = search(graph, &ends, &mut self.scratch) else {
                routes.push(Route {
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
                routes.push(Route {
                    nodes: Vec::new(),
                    cost,
                });
                continue;
            }
            if local_cost.is_some() {
                route_first.insert(src_sector);
            }
            // Remaining cost of every node on this route, so later sources can merge into it.
            let steps = super::route::last_route(&self.scratch);
            let end_rest = steps
                .last()
                .and_then(|&(id, _)| remaining.get(id))
                .unwrap_or(0);
            let total = route.cost;
            let more_sources = i + 1 < reachable.len();
            for &(id, g) in steps {
                // Nodes already on an earlier route keep their cost and are in the bounds.
                if remaining.get(id).is_some() {
                    continue;
                }
                let rest =
                    remaining.insert_absent(id, total.saturating_sub(g).max(end_rest.min(total)));
                if let Some(b) = bounds.as_mut().filter(|_| more_sources) {
                    b.add_finish(id, rest);
                }
            }
            // Consecutive nodes in different sectors cross a window: the first is its
            // sector's exit, the second where the route enters the next sector.
            for pair in steps.windows(2) {
                let (a, b) = (pair[0].0, pair[1].0);
                let sector = graph.sector(a);
                let entered = graph.sector(b);
                if entered != sector && !by_sector.contains_key(&entered) {
                    let rest = total.saturating_sub(pair[1].1);
                    let within = within_any(&goal_fields, &field_cover, entered, graph.node_id(b));
                    if within.is_some_and(|c| c > rest.saturating_add(detour)) {
                        route_first.insert(entered);
                    }
                }
                if sector != entered {
                    let rest = remaining.get(a).unwrap_or(u32::MAX);
                    let node = graph.node_id(a);
                    let list: &mut Vec<(u32, u32)> = exits.entry(sector).or_default();
                    if !list.iter().any(|&(_, n)| n == node) {
                        list.push((rest, node));
                        list.sort_unstable();
                    }
                }
            }
            routes.push(route);
        }
        let corridor = self.seamless.then(|| {
            let around_goals = goal_fields
                .iter()
                .flat_map(|gf| sectors_in(spec, gf.rect))
                .collect::<Vec<_>>();
            let starts = reachable.iter().map(|&(x, y)| spec.sector_of(x, y));
            super::corridor::Corridor::build(
                l,
                exits.keys().copied().chain(around_goals).chain(starts),
                &goal_cells,
            )
        });
        Ok(PathState {
            layer,
            goal,
            goals: goal_cells,
            goal_islands,
            sources: reachable,
            exits,
            routes,
            route_first,
            goal_fields,
            field_cover,
            corridor,
            pulled: PulledCache::default(),
        })
    }

    /// The goal field for `(layer, goals)` (goals of one sector, sorted), from the cache or
    /// built.
    fn goal_field(&mut self, layer: usize, goals: &[(u32, u32)]) -> Arc<GoalField> {
        self.cache_clock += 1;
        let key = (layer, goals.to_vec());
        if let Some((field, used)) = self.goal_cache.get_mut(&key) {
            *used = self.cache_clock;
            self.stats.hits += 1;
            return Arc::clone(field);
        }
        self.stats.misses += 1;
        let field = Arc::new(build_goal_field(
            &self.nav.layers[layer],
            goals,
            &mut self.integ,
        ));
        self.goal_cache
            .insert(key, (Arc::clone(&field), self.cache_clock));
        self.evict();
        field
    }

    /// Least-recently-used eviction of fields no live path holds, beyond the capacity.
    fn evict(&mut self) {
        while self.goal_cache.len() > self.cache_capacity {
            let victim = self
                .goal_cache
                .iter()
                .filter(|(_, (f, _))| Arc::strong_count(f) == 1)
                .min_by(|(ka, (_, ua)), (kb, (_, ub))| (ua, ka).cmp(&(ub, kb)))
                .map(|(k, _)| k.clone());
            let Some(k) = victim else { break };
            self.goal_cache.remove(&k);
            self.stats.evictions += 1;
        }
    }

    /// Flow byte at a cell for a path (see [`FlowCursor::at`]); `None` off the route.
    fn flow_at(&self, p: &PathState, cell: (u32, u32)) -> Option<u8> {
        FlowCursor::new(&self.nav.layers[p.layer], p).at(cell)
    }

    /// The goal a line-of-sight cell (or a goal cell) of path `p` sees (see
    /// [`FlowCursor::seen_goal`]).
    fn seen_goal(&self, p: &PathState, cell: (u32, u32)) -> (u32, u32) {
        FlowCursor::new(&self.nav.layers[p.layer], p).seen_goal(cell)
    }

    /// Desired unit direction at `pos` (cell units, `(x + 0.5, y + 0.5)` is a cell centre):
    /// in line of sight → straight at the goal; on the route → bilinear interpolation of the
    /// 4 nearest cells' flow directions; off the route → toward the nearest routed portal.
    #[must_use]
    pub fn sample_flow(&self, id: PathId, pos: (f32, f32)) -> Option<(f32, f32)> {
        let p = self.paths.get(&id)?;
        let spec = self.nav.layers[p.layer].cost.spec;
        let (px, py) = pos;
        if px < 0.0 || py < 0.0 || px >= spec.width as f32 || py >= spec.height as f32 {
            return None;
        }
        let cell = (px as u32, py as u32);
        if let Some(f) = self.flow_at(p, cell)
            && (f & FLOW_LOS != 0 || p.is_goal(cell))
        {
            let goal = self.seen_goal(p, cell);
            return normalise(goal.0 as f32 + 0.5 - px, goal.1 as f32 + 0.5 - py);
        }
        // Look-ahead: straight at the furthest flow cell ahead in plain sight.
        if let Some(to) = self.pulled_target_cached(p, cell) {
            return normalise(to.0 as f32 + 0.5 - px, to.1 as f32 + 0.5 - py);
        }
        // Bilinear over the 4 cell centres around pos.
        let (fx, fy) = (px - 0.5, py - 0.5);
        let (x0, y0) = (fx.floor(), fy.floor());
        let (tx, ty) = (fx - x0, fy - y0);
        let mut sum = (0.0_f32, 0.0_f32);
        for (dx, dy, wgt) in [
            (0, 0, (1.0 - tx) * (1.0 - ty)),
            (1, 0, tx * (1.0 - ty)),
            (0, 1, (1.0 - tx) * ty),
            (1, 1, tx * ty),
        ] {
            let (cx, cy) = (x0 as i64 + dx, y0 as i64 + dy);
            if !spec.contains(cx, cy) {
                continue;
            }
            if let Some(f) = self.flow_at(p, (cx as u32, cy as u32)) {
                let d = f & 0x0F;
                if let Some(&(vx, vy)) = DIRECTIONS.get(d as usize) {
                    let n = ((vx * vx + vy * vy) as f32).sqrt();
                    sum.0 += wgt * vx as f32 / n;
                    sum.1 += wgt * vy as f32 / n;
                }
            }
        }
        if let Some(v) = normalise(sum.0, sum.1) {
            return Some(v);
        }
        // Off the route: head for the nearest routed portal centre.
        let l = &self.nav.layers[p.layer];
        let target = p
            .exits
            .values()
            .flatten()
            // Node ids may have moved under a path whose re-plan waits for the rebuild queue.
            .filter_map(|&(_, n)| l.nodes.get(n as usize).map(|node| node.center))
            .min_by_key(|c| {
                let (dx, dy) = (c.0 as f32 + 0.5 - px, c.1 as f32 + 0.5 - py);
                ((dx * dx + dy * dy) * 16.0) as u64
            })?;
        normalise(target.0 as f32 + 0.5 - px, target.1 as f32 + 0.5 - py)
    }

    /// Whether `cell` sees the goal of path `id` (of a goal set: the goal its flow leads to)
    /// in a straight line.
    #[must_use]
    pub fn has_line_of_sight(&self, id: PathId, cell: (u32, u32)) -> bool {
        self.paths
            .get(&id)
            .and_then(|p| self.flow_at(p, cell))
            .is_some_and(|f| f & FLOW_LOS != 0)
    }

    /// The furthest cell of the flow from `cell`, at most the look-ahead (see
    /// [`Self::set_flow_lookahead`]) steps along it, that `cell` reaches by a straight segment
    /// in plain sight: every cell the segment touches is on the route (has flow for this
    /// path) and costs no more than the dearest flow cell up to the target. `None` when only
    /// the next flow cell qualifies or the flow stops at once.
    fn pulled_target(&self, p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
        let k = (self.flow_lookahead as usize).min(MAX_FLOW_LOOKAHEAD);
        if k < 2 {
            return None;
        }
        let l = &self.nav.layers[p.layer];
        let (cost, spec) = (&l.cost, l.cost.spec);
        let mut flow = FlowCursor::new(l, p);
        // The flow cells ahead, each with the dearest cost on the way to it.
        let mut chain = [((0_u32, 0_u32), 0_u8); MAX_FLOW_LOOKAHEAD];
        let mut len = 0;
        let mut dearest = cost.get(cell.0, cell.1);
        let mut at = cell;
        while len < k && !p.is_goal(at) {
            let Some(f) = flow.at(at) else {
                break;
            };
            if f & FLOW_LOS != 0 && at != cell {
                break; // from here the goal is in plain sight
            }
            let Some(&(dx, dy)) = DIRECTIONS.get((f & 0x0F) as usize) else {
                break;
            };
            let (nx, ny) = (
                i64::from(at.0) + i64::from(dx),
                i64::from(at.1) + i64::from(dy),
            );
            if !spec.contains(nx, ny) {
                break;
            }
            at = (nx as u32, ny as u32);
            dearest = dearest.max(cost.get(at.0, at.1));
            chain[len] = (at, dearest);
            len += 1;
        }
        // Candidates from the furthest back, a few cells apart (any one in sight will do),
        // so a blocked look-ahead costs a handful of segment tests rather than one per cell.
        let open = |x: i64, y: i64, limit: u8, flow: &mut FlowCursor<'_>| {
            spec.contains(x, y) && {
                let c = (x as u32, y as u32);
                cost.get(c.0, c.1) <= limit && flow.at(c).is_some()
            }
        };
        (1..len).rev().map(|j| chain[j]).find_map(|(to, limit)| {
            (limit != WALL && segment_clear(cell, to, |x, y, _| open(x, y, limit, &mut flow)))
                .then_some(to)
        })
    }

    /// [`Self::pulled_target`] through the path's cache.
    fn pulled_target_cached(&self, p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
        if self.flow_lookahead < 2 {
            return None;
        }
        let width = u64::from(self.nav.spec.width);
        let index = u64::from(cell.1) * width + u64::from(cell.0);
        // Entry: cell + 1 (27 bits), look-ahead (7 bits), target + 1 (30 bits; 0 = none).
        let look = u64::from(self.flow_lookahead.min(MAX_FLOW_LOOKAHEAD as u32));
        let key = ((index + 1) << 37) | (look << 30);
        let table = p.pulled.0.get_or_init(|| {
            (0..PULLED_SLOTS)
                .map(|_| AtomicU64::new(0))
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        let slot =
            &table[(index.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % PULLED_SLOTS];
        let entry = slot.load(Ordering::Relaxed);
        if entry & !((1 << 30) - 1) == key {
            let t = entry & ((1 << 30) - 1);
            return (t != 0).then(|| (((t - 1) % width) as u32, ((t - 1) / width) as u32));
        }
        let target = self.pulled_target(p, cell);
        let t = target.map_or(0, |(x, y)| u64::from(y) * width + u64::from(x) + 1);
        slot.store(key | t, Ordering::Relaxed);
        target
    }

    /// Follows the path from `source` until the goal or line of sight, as an agent steered by
    /// [`Self::sample_flow`] does: straight at the look-ahead target where there is one (the
    /// segment counted by its octile length — 1 per straight, √2 per diagonal step of the
    /// 8-connected line, never less than the Euclidean length), else one flow step.
    #[must_use]
    pub fn trace_path(&self, id: PathId, source: (u32, u32)) -> Option<TracedPath> {
        let p = self.paths.get(&id)?;
        let spec = self.nav.layers[p.layer].cost.spec;
        let mut cell = source;
        let mut cells = vec![cell];
        let mut length = 0.0;
        let cap = 4 * (spec.width as usize + spec.height as usize) + spec.cell_count() / 8;
        for _ in 0..cap {
            if p.is_goal(cell) {
                return Some(TracedPath {
                    cells,
                    length,
                    goal: cell,
                });
            }
            let f = self.flow_at(p, cell)?;
            if f & FLOW_LOS != 0 {
                let goal = self.seen_goal(p, cell);
                let (dx, dy) = (
                    f64::from(goal.0) - f64::from(cell.0),
                    f64::from(goal.1) - f64::from(cell.1),
                );
                length += (dx * dx + dy * dy).sqrt();
                return Some(TracedPath {
                    cells,
                    length,
                    goal,
                });
            }
            if let Some(to) = self.pulled_target(p, cell) {
                length += octile_length(cell, to);
                push_line(&mut cells, cell, to);
                cell = to;
                continue;
            }
            let &(dx, dy) = DIRECTIONS.get((f & 0x0F) as usize)?;
            let (nx, ny) = (
                i64::from(cell.0) + i64::from(dx),
                i64::from(cell.1) + i64::from(dy),
            );
            if !spec.contains(nx, ny) {
                return None;
            }
            length += if dx != 0 && dy != 0 {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            cell = (nx as u32, ny as u32);
            cells.push(cell);
        }
        None
    }

    /// Sets one cell's cost at run time (255 = wall); the rebuild happens in [`Self::rebuild`].
    pub fn set_cost(&mut self, layer: usize, x: u32, y: u32, cost: u8) {
        self.write_costs(&[layer], (x, y, 1, 1), &[cost.max(1)]);
    }

    /// Stamps a `w × h` block of costs at `(x, y)` into the given movement types, recording the
    /// original costs so [`Self::remove_stamp`] can restore them.
    pub fn apply_stamp(
        &mut self,
        layers: &[usize],
        rect: (u32, u32, u32, u32),
        costs: &[u8],
    ) -> StampHandle {
        let (x, y, w, h) = rect;
        let spec = self.nav.spec;
        let rect = (
            x.min(spec.width),
            y.min(spec.height),
            w.min(spec.width.saturating_sub(x)),
            h.min(spec.height.saturating_sub(y)),
        );
        let layers: Vec<usize> = layers
            .iter()
            .copied()
            .filter(|&l| l < self.nav.layers.len())
            .collect();
        let original = layers
            .iter()
            .map(|&l| {
                let mut out = Vec::new();
                self.nav.layers[l]
                    .cost
                    .copy_window(rect.0, rect.1, rect.2, rect.3, &mut out);
                out
            })
            .collect();
        // Costs are given for the unclipped block: take the clipped part row by row.
        let mut clipped = Vec::with_capacity((rect.2 * rect.3) as usize);
        for row in 0..rect.3 {
            for col in 0..rect.2 {
                clipped.push(
                    costs
                        .get((row * w + col) as usize)
                        .copied()
                        .unwrap_or(WALL)
                        .max(1),
                );
            }
        }
        self.write_costs(&layers, rect, &clipped);
        let handle = StampHandle(self.next_stamp);
        self.next_stamp += 1;
        self.stamps.insert(
            handle.0,
            AppliedStamp {
                layers,
                rect,
                original,
            },
        );
        handle
    }

    /// Restores the costs a stamp replaced.
    pub fn remove_stamp(&mut self, handle: StampHandle) {
        if let Some(s) = self.stamps.remove(&handle.0) {
            for (i, &l) in s.layers.iter().enumerate() {
                self.write_costs(&[l], s.rect, &s.original[i]);
            }
        }
    }

    /// Drops every live path's look-ahead targets. A target is a pure function of the path
    /// and the cell only while costs and flow tiles stay put; kept across a change, which
    /// stale entries survive would depend on which thread wrote a slot last, and the crowd
    /// would stop being the same on any number of threads.
    fn forget_pulled(&mut self) {
        for p in self.paths.values_mut() {
            p.pulled = PulledCache::default();
        }
    }

    fn write_costs(&mut self, layers: &[usize], rect: (u32, u32, u32, u32), costs: &[u8]) {
        self.forget_pulled();
        let (x0, y0, w, h) = rect;
        for &li in layers {
            let Some(l) = self.nav.layers.get_mut(li) else {
                continue;
            };
            let spec = l.cost.spec;
            let mut touched = BTreeSet::new();
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    touched.insert(spec.sector_of(x, y));
                }
            }
            for s in touched {
                let (sx, sy, sw, sh) = spec.sector_rect(s);
                let mut tile = Vec::new();
                l.cost.sector_cells(s, &mut tile);
                for y in sy.max(y0)..(sy + sh).min(y0 + h) {
                    for x in sx.max(x0)..(sx + sw).min(x0 + w) {
                        tile[((y - sy) * sw + (x - sx)) as usize] =
                            costs[((y - y0) * w + (x - x0)) as usize];
                    }
                }
                l.cost.set_sector(s, &tile);
                self.dirty.insert((li, s));
            }
        }
    }

    /// Work left in the rebuild queue: dirty sectors, plus layers whose landmark tables are
    /// being recomputed.
    #[must_use]
    pub fn pending_rebuilds(&self) -> usize {
        self.dirty.len() + self.landmark_builds.len()
    }

    /// Drains the rebuild queue for about `budget`: dirty sectors are rebuilt in batches
    /// (portals, graph edges, islands, flow tiles of them and their neighbours), in sector
    /// order. When the queue empties, live paths are re-planned and cached goal fields
    /// dropped. Returns `true` when nothing is left.
    pub fn rebuild(&mut self, budget: Duration) -> bool {
        let start = Instant::now();
        const BATCH: usize = 64;
        while !self.dirty.is_empty() {
            let Some(&(layer, _)) = self.dirty.iter().next() else {
                break;
            };
            let batch: Vec<u32> = self
                .dirty
                .iter()
                .filter(|(l, _)| *l == layer)
                .take(BATCH)
                .map(|&(_, s)| s)
                .collect();
            for &s in &batch {
                self.dirty.remove(&(layer, s));
            }
            rebuild_sectors(&mut self.nav.layers[layer], &batch);
            self.forget_pulled();
            if let Some(graph) = self.search_graphs.get_mut(layer) {
                *graph = None;
            }
            // Landmark tables are indexed by node id and hold the old costs: recompute them
            // (below, time-sliced too) for layers that had them.
            let had = self
                .landmarks
                .get_mut(layer)
                .and_then(Option::take)
                .is_some();
            if had || self.landmark_builds.contains_key(&layer) {
                self.landmark_builds.insert(layer, None);
            }
            if start.elapsed() >= budget && !self.dirty.is_empty() {
                return false;
            }
        }
        let mut builds = std::mem::take(&mut self.landmark_builds);
        while let Some((&layer, slot)) = builds.iter_mut().next() {
            let l = &self.nav.layers[layer];
            let builder = slot.get_or_insert_with(|| LandmarkBuilder::new(l));
            while !builder.step(l) {
                if start.elapsed() >= budget {
                    self.landmark_builds = builds;
                    return false;
                }
            }
            if let Some(done) = builds.remove(&layer).flatten() {
                if self.landmarks.len() <= layer {
                    self.landmarks.resize_with(layer + 1, || None);
                }
                if self.search_graphs.len() <= layer {
                    self.search_graphs.resize_with(layer + 1, || None);
                }
                let graph = self.search_graphs[layer].get_or_insert_with(|| SearchGraph::new(l));
                self.landmarks[layer] = done.finish(l).map(|m| m.reordered(graph.search_ids()));
            }
        }
        self.goal_cache.clear();
        if !self.replan_on_rebuild {
            return true;
        }
        let ids: Vec<PathId> = self.paths.keys().copied().collect();
        for id in ids {
            let Some(old) = self.paths.get(&id) else {
                continue;
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
        true
    }
}

/// Flow reads of one path, as [`NavWorld::flow_at`] gives them, remembering the last
/// sector's exits: the look-ahead reads runs of neighbouring cells.
struct FlowCursor<'a> {
    layer: &'a NavLayer,
    path: &'a PathState,
    sector: u32,
    origin: (u32, u32, u32),
    exits: &'a [(u32, u32)],
    /// Whether the goal field may steer in `sector` (see [`PathState::route_first`]).
    field_here: bool,
    /// The goal fields whose windows cover `sector`.
    cover: &'a [u32],
}

impl<'a> FlowCursor<'a> {
    fn new(layer: &'a NavLayer, path: &'a PathState) -> Self {
        Self {
            layer,
            path,
            sector: u32::MAX,
            origin: (0, 0, 0),
            exits: &[],
            field_here: true,
            cover: &[],
        }
    }

    /// Moves the cursor to the sector of `cell`.
    fn enter(&mut self, cell: (u32, u32)) {
        let spec = self.layer.cost.spec;
        let sector = spec.sector_of(cell.0, cell.1);
        if sector != self.sector {
            let (x0, y0, w, _) = spec.sector_rect(sector);
            self.sector = sector;
            self.origin = (x0, y0, w);
            self.exits = self.path.exits.get(&sector).map_or(&[], Vec::as_slice);
            self.field_here = !self.path.route_first.contains(&sector);
            self.cover = self.path.cover(sector);
        }
    }

    /// The goal `cell` steers straight at: itself on a goal, else the goal the cheapest goal
    /// field's line of sight there refers to (the path's first goal when none does).
    fn seen_goal(&mut self, cell: (u32, u32)) -> (u32, u32) {
        if self.path.is_goal(cell) {
            return cell;
        }
        self.enter(cell);
        self.path
            .field_at(self.cover, cell)
            .and_then(|(gf, i, _)| gf.los_goal(i))
            .unwrap_or(self.path.goal)
    }

    /// The flow byte at `cell`: the goal field where it reaches the cell, else the seamless
    /// corridor, else the permutation tile of the first exit of the cell's sector whose tile
    /// reaches the cell; in sectors where the route goes first (see
    /// [`PathState::route_first`]) the goal field comes last. `None` off the route.
    fn at(&mut self, cell: (u32, u32)) -> Option<u8> {
        let l = self.layer;
        self.enter(cell);
        // Where the route goes first, its flow; the goal field still covers cells it misses.
        let corridor = |cell| self.path.corridor.as_ref()?.flow_at(l, cell);
        if !self.field_here
            && let Some(f) = corridor(cell).or_else(|| self.tile_flow(cell))
        {
            return Some(f);
        }
        if let Some((gf, i, _)) = self.path.field_at(self.cover, cell) {
            return Some(gf.flow[i]);
        }
        corridor(cell).or_else(|| self.tile_flow(cell))
    }

    /// The flow byte of the first exit tile of the cursor's sector that reaches `cell`.
    fn tile_flow(&self, cell: (u32, u32)) -> Option<u8> {
        let l = self.layer;
        let (x0, y0, w) = self.origin;
        let i = ((cell.1 - y0) * w + (cell.0 - x0)) as usize;
        self.exits.iter().find_map(|&(_, node)| {
            let tile = l
                .flows
                .tiles
                .get(*l.flows.node_tile.get(node as usize)? as usize)?;
            let f = *tile.get(i)?;
            (f & 0x0F != DIR_NONE).then_some(f)
        })
    }
}

/// [`super::integrate::segment_clear`] over map coordinates.
fn segment_clear(
    from: (u32, u32),
    to: (u32, u32),
    open: impl FnMut(i64, i64, bool) -> bool,
) -> bool {
    super::integrate::segment_clear(
        (i64::from(from.0), i64::from(from.1)),
        (i64::from(to.0), i64::from(to.1)),
        open,
    )
}

/// Octile length between two cells: the length of an 8-connected line between them.
fn octile_length(a: (u32, u32), b: (u32, u32)) -> f64 {
    let dx = f64::from(a.0.abs_diff(b.0));
    let dy = f64::from(a.1.abs_diff(b.1));
    dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy)
}

/// Appends the cells the straight segment from `a` (excluded) to `b` (included) touches, in
/// order (the side cells of a corner crossing left out): each step is orthogonal, or a
/// diagonal through a corner whose two side cells [`segment_clear`] found open.
fn push_line(cells: &mut Vec<(u32, u32)>, a: (u32, u32), b: (u32, u32)) {
    segment_clear(a, b, |x, y, side| {
        if !side {
            cells.push((x as u32, y as u32));
        }
        true
    });
}

fn normalise(x: f32, y: f32) -> Option<(f32, f32)> {
    let n = (x * x + y * y).sqrt();
    (n > 1e-6).then(|| (x / n, y / n))
}

fn in_rect(r: (u32, u32, u32, u32), c: (u32, u32)) -> bool {
    c.0 >= r.0 && c.1 >= r.1 && c.0 < r.0 + r.2 && c.1 < r.1 + r.3
}

fn local(r: (u32, u32, u32, u32), c: (u32, u32)) -> usize {
    ((c.1 - r.1) * r.2 + (c.0 - r.0)) as usize
}

/// `(node, integrated cost between the nearest of `cells` and the node's centre)` for the
/// nodes of `sector`, integrating the sector from `cells` (all inside it).
fn sector_costs_from(
    l: &NavLayer,
    sector: u32,
    cells: &[(u32, u32)],
    scratch: &mut IntegratorScratch,
) -> Vec<(u32, u32)> {
    let spec = l.cost.spec;
    let (x0, y0, w, h) = spec.sector_rect(sector);
    let mut costs = Vec::new();
    l.cost.sector_cells(sector, &mut costs);
    let mut field = IntegrationField::new();
    let seeds: Vec<(usize, u32)> = cells
        .iter()
        .map(|c| (((c.1 - y0) * w + (c.0 - x0)) as usize, 0))
        .collect();
    integrate_costs(&costs, w, h, &seeds, &mut field, scratch);
    l.graph
        .nodes_of_sector(sector)
        .iter()
        .filter_map(|&n| {
            let c = l.nodes[n as usize].center;
            let v = field.cost[((c.1 - y0) * w + (c.0 - x0)) as usize];
            (v != UNREACHED).then_some((n, v))
        })
        .collect()
}

/// The sectors a cell rectangle `(x0, y0, w, h)` overlaps.
fn sectors_in(spec: GridSpec, rect: (u32, u32, u32, u32)) -> impl Iterator<Item = u32> {
    let (x0, y0, w, h) = rect;
    let ss = spec.sector_size.max(1);
    (y0 / ss..(y0 + h).div_ceil(ss)).flat_map(move |sy| {
        (x0 / ss..(x0 + w).div_ceil(ss)).map(move |sx| sy * spec.sectors_x() + sx)
    })
}

/// [`GoalField::within`]: graph cost to the goal from the nodes of the sectors inside
/// `rect` by paths that stay inside it, sorted by node id. `goal_costs` are the goal sector's
/// nodes with their cost to the goal.
fn costs_within(
    l: &NavLayer,
    rect: (u32, u32, u32, u32),
    goal_costs: &[(u32, u32)],
) -> Vec<(u32, u32)> {
    let mut nodes: Vec<u32> = sectors_in(l.cost.spec, rect)
        .flat_map(|sector| l.graph.nodes_of_sector(sector).iter().copied())
        .collect();
    nodes.sort_unstable();
    let index = |n: u32| nodes.binary_search(&n).ok();
    let mut cost = vec![UNREACHED; nodes.len()];
    for &(node, c) in goal_costs {
        if let Some(i) = index(node) {
            cost[i] = cost[i].min(c);
        }
    }
    // Bellman–Ford over a few dozen nodes: relax until nothing improves.
    for _ in 0..nodes.len() {
        let mut changed = false;
        for (i, &node) in nodes.iter().enumerate() {
            for (t, w) in l.graph.edges(node) {
                let through = index(t).map_or(UNREACHED, |j| cost[j].saturating_add(w));
                if through < cost[i] {
                    cost[i] = through;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    nodes.into_iter().zip(cost).collect()
}

/// The cheapest of the goal fields `cover` names that reaches `cell`, as
/// [`PathState::field_at`] (before the path exists).
fn cheapest_field<'a>(
    fields: &'a [Arc<GoalField>],
    cover: &[u32],
    cell: (u32, u32),
) -> Option<(&'a GoalField, usize, u32)> {
    let mut best: Option<(&GoalField, usize, u32)> = None;
    for &k in cover {
        let gf = &*fields[k as usize];
        if !in_rect(gf.rect, cell) {
            continue;
        }
        let i = local(gf.rect, cell);
        let c = gf.field.cost[i];
        if c != UNREACHED && best.is_none_or(|(_, _, b)| c < b) {
            best = Some((gf, i, c));
        }
    }
    best
}

/// [`GoalField::within`] of `node` (in `sector`), the cheapest over the fields whose windows
/// cover the sector.
fn within_any(
    fields: &[Arc<GoalField>],
    cover: &BTreeMap<u32, Vec<u32>>,
    sector: u32,
    node: u32,
) -> Option<u32> {
    cover
        .get(&sector)?
        .iter()
        .filter_map(|&k| fields[k as usize].within(node))
        .min()
}

/// The goal field over the goal sector and its 8 neighbours (clipped to the map),
/// integrated from `goals` (one or more cells of that sector, sorted).
fn build_goal_field(
    l: &NavLayer,
    goals: &[(u32, u32)],
    scratch: &mut IntegratorScratch,
) -> GoalField {
    let spec = l.cost.spec;
    let ss = spec.sector_size;
    let goal = goals.first().copied().unwrap_or_default();
    let (gx, gy) = (goal.0 / ss, goal.1 / ss);
    let x0 = gx.saturating_sub(1) * ss;
    let y0 = gy.saturating_sub(1) * ss;
    let x1 = ((gx + 2) * ss).min(spec.width);
    let y1 = ((gy + 2) * ss).min(spec.height);
    let rect = (x0, y0, x1 - x0, y1 - y0);
    let mut costs = Vec::new();
    l.cost
        .copy_window(rect.0, rect.1, rect.2, rect.3, &mut costs);
    let mut field = IntegrationField::new();
    let goals_local: Vec<usize> = goals.iter().map(|&g| local(rect, g)).collect();
    integrate_with_los_set(&costs, rect.2, rect.3, &goals_local, &mut field, scratch);
    let los_owner = scratch.los_owner().to_vec();
    let mut flow = vec![0; costs.len()];
    let exits: Vec<(usize, u8)> = goals_local.iter().map(|&g| (g, DIR_NONE)).collect();
    flow_from_integration(&costs, rect.2, rect.3, &field, &exits, &mut flow);
    debug_assert!(goals_local.iter().all(|&g| {
        field
            .flags
            .get(g)
            .is_none_or(|f| f & INT_LOS != 0 || costs[g] == WALL)
    }));
    let goal_costs = sector_costs_from(l, spec.sector_of(goal.0, goal.1), goals, scratch);
    let within = costs_within(l, rect, &goal_costs);
    GoalField {
        rect,
        field,
        flow,
        within,
        goals: goals.to_vec(),
        los_owner,
    }
}
