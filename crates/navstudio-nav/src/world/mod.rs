//! `NavWorld`: what a game calls at run time — reachability by island ids, path requests
//! (portal A*, merging A* for further sources, precomputed permutation tiles on the way, a
//! custom line-of-sight field around the goal), flow sampling for steering, a ref-counted
//! goal-field cache, and dynamic cost changes rebuilt through a time-sliced queue.
//!
//! A request may name a goal set ([`NavWorld::request_path_to_any`]): the portal search
//! finishes at any goal sector's nodes (a virtual sink), each goal sector gets one goal field
//! integrated from all of its goals, and where the fields' windows overlap a cell follows
//! the field that is cheapest there, so every source flows to its nearest goal.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::NavData;
use super::cost::SectorCost;
use super::grid::{GridSpec, WALL};
use super::integrate::IntegratorScratch;
use super::islands::{IslandField, MIXED, field_of};
use super::landmarks::{LandmarkBuilder, Landmarks};
use super::layer::NavLayer;
use crate::route::{FinishCosts, Route, SearchGraph, SearchScratch};

mod budget;
mod cheapest;
mod clusters;
mod goal_field;
#[cfg(test)]
mod kept_tests;
mod landmark_builds;
mod lazy;
mod links;
#[cfg(test)]
mod links_tests;
mod moving;
mod pending;
mod replan;
mod request;
mod sample;
mod shared;
mod shared_stream;
#[cfg(test)]
mod slicing_tests;
mod stamps;
mod streaming;

pub(crate) use clusters::LayerHierarchy;
pub use clusters::{ClusterStats, SearchMode};
pub use goal_field::GoalField;
use goal_field::{GoalFieldCache, cheapest_field};
pub use links::LinkStep;
pub use moving::{GoalMove, GoalMoveStats};
pub use pending::PendingPath;
use sample::SteerCache;
pub(crate) use shared::build_layer_tables;
pub(crate) use shared_stream::SharedStream;
use stamps::AppliedStamp;
use streaming::damaged;
pub use streaming::{DEFAULT_CACHE_BUDGET, StreamOptions, StreamStats};

/// Default A* heuristic inflation of the sector hierarchy's search (weighted A*, expanded
/// nodes not reopened, so routes cost at most 1.1 × the optimum); the flat portal search,
/// which runs on maps below the hierarchy's size, finds optimal routes. On the 2048² benchmark map, with landmarks, 1.1 expands 1.6×
/// fewer nodes than 1.0 for routes 2.6 % costlier (`cargo bench --bench path`); the flow field,
/// not the portal route, shapes most of the walked path.
pub const DEFAULT_HEURISTIC_WEIGHT: f32 = 1.1;

/// Default look-ahead of flow following, in cells along the flow (see
/// [`NavWorld::set_flow_lookahead`]).
pub const DEFAULT_FLOW_LOOKAHEAD: u32 = 24;

/// Upper bound of the flow look-ahead (it walks a stack array of this many cells).
pub const MAX_FLOW_LOOKAHEAD: usize = 64;

/// Landmarks a search reads, of [`super::landmarks::LANDMARK_COUNT`]: the ones with the
/// best bound at its source. More expand fewer nodes but read more of the table per node,
/// which the flat search's per-node tables do not repay.
const ACTIVE_LANDMARKS: usize = 4;

/// Landmarks a search over the sector hierarchy reads: its tables cover border nodes only
/// and stay in cache, so reading more is cheap, and the slow requests are those whose bound
/// falls far short: more landmarks raise the best of them (`cargo bench --bench scale`
/// times the tail).
const CLUSTER_ACTIVE_LANDMARKS: usize = 12;

pub use crate::vocab::PathId;
use crate::vocab::{Cell, MoveType};

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
    /// Every source is a wall for this movement type.
    #[error("the source {0:?} is a wall for this movement type; start from a cell it can stand on")]
    SourceIsWall((u32, u32)),
    /// No source can reach the goal (island ids differ); A* was not run.
    #[error("no source can reach the goal {0:?} (different islands)")]
    Unreachable((u32, u32)),
    /// A goal set without a goal.
    #[error("the goal set is empty: name at least one goal cell")]
    NoGoal,
    /// The path id names no live path (never requested, or released).
    #[error("path {0} does not exist (never requested, or released)")]
    UnknownPath(u32),
    /// A streamed world could not read data it needs from its package file: a region, or
    /// (`region: None`) the movement type's portal graph.
    #[error("movement type {layer} could not be read ({why}); the rest of the map still answers")]
    Damaged {
        /// Movement type index.
        layer: usize,
        /// Region index (see `package::RegionGrid`), or `None` for the type's graph.
        region: Option<u32>,
        /// What is wrong, naming the file and the chunk.
        why: String,
    },
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

/// Where a path's route goes before its goal field: `(sector, cell)`, a cell where a route
/// enters the sector (or a source's cell in it). The route goes first in the part of the
/// sector connected to that cell inside it, and only there: a wall can split a sector
/// (the last rows of a corridor beside the goal, under a bar whose other side the route
/// walks), and in its other parts the goal field, which is exact there, still leads.
pub type RouteFirst = BTreeSet<(u32, (u32, u32))>;

/// The cells of `route_first` in `sector`.
pub(crate) fn route_first_in(route_first: &RouteFirst, sector: u32) -> Vec<(u32, u32)> {
    route_first
        .range((sector, (0, 0))..=(sector, (u32::MAX, u32::MAX)))
        .map(|&(_, cell)| cell)
        .collect()
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
    /// different parts; a cell uses the first exit whose tile reaches it, or, where
    /// [`NavWorld::set_seamless_where_split`] is on, the exit of least total cost (which may
    /// add windows into a routed sector downstream that no route crosses).
    pub exits: BTreeMap<u32, Vec<(u32, u32)>>,
    /// The route of each source (portal nodes in travel order), for reports and for agents
    /// not yet on a routed sector.
    pub routes: Vec<Route>,
    /// Routed sectors inside the goal field's window where the route beats the goal field,
    /// each with a cell where the route enters it (or its source): the field only knows
    /// paths inside its window, and where the way round leaves it (rooms whose connecting
    /// corridor runs just outside) its flow takes a long detour. There cells follow the
    /// route's tiles instead, but only in the part of the sector the route walks through
    /// (see [`RouteFirst`]).
    pub route_first: RouteFirst,
    /// One goal field per goal sector that serves a source (see
    /// [`NavWorld::request_path_to_any`]), in the order built (shared through the cache).
    pub goal_fields: Vec<Arc<GoalField>>,
    /// Per sector some goal field's window covers, the indices of those fields.
    field_cover: BTreeMap<u32, Vec<u32>>,
    /// Seamless mode only: one integration from the goal over all routed sectors.
    pub corridor: Option<crate::corridor::Corridor>,
    /// Look-ahead targets and line of sight beyond the goal fields' windows, by cell, as
    /// steering found them (see [`NavWorld::sample_flow`]).
    steer: SteerCache,
    /// `(portal node, remaining cost to the goal)` of the goal sectors' nodes and of every
    /// node on a route, in the order found: where a source added later merges in.
    finishes: Vec<(u32, u32)>,
    /// The movement type's link end nodes the routes were planned over (their flow tiles,
    /// and which exits are link entries); `None` for a type without links.
    pub links: Option<Arc<crate::links::overlay::LayerLinks>>,
    /// The part of the last source's route still as the search found it, when refined
    /// lazily (see [`NavWorld::set_lazy_refinement`]): the fields above hold the rest.
    pub(crate) lazy: Option<Arc<lazy::LazyRoute>>,
}

/// A path as an agent steered by [`NavWorld::sample_flow`] walks it: the pulled string.
#[derive(Clone, Debug, PartialEq)]
pub struct TracedPath {
    /// The cells the string ([`Self::points`]) runs through, source first, goal last; a
    /// link's entry and exit are consecutive.
    pub cells: Vec<(u32, u32)>,
    /// The string pulled through cell centres, source first, then each cell it turns at,
    /// then the goal ([`NavWorld::steer_target`]'s rule over the whole trace).
    pub waypoints: Vec<(u32, u32)>,
    /// The same string pulled taut round the wall corners it passes (cell units: a cell
    /// `(x, y)` spans `[x, x + 1) × [y, y + 1)`): the source's centre, each wall corner it
    /// turns at, the goal's centre. Equal to the waypoints' centres when the string crosses
    /// a link or is followed cell by cell (a look-ahead below 2).
    pub points: Vec<(f64, f64)>,
    /// The string's length: the Euclidean lengths of the segments between the points.
    pub length: f64,
    /// The goal the path arrives at (of a goal set: the one this source flows to).
    pub goal: (u32, u32),
    /// The links traversed, in order: `(index into cells of the entry cell, link id)`; the
    /// next cell is on the link's exit.
    pub links: Vec<(usize, u32)>,
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

    /// Adds a goal field (of a goal sector not served yet) and the sectors its window covers.
    fn add_goal_field(&mut self, spec: GridSpec, field: Arc<GoalField>) {
        if self.goal_fields.iter().any(|f| f.goals == field.goals) {
            return;
        }
        let k = self.goal_fields.len() as u32;
        for sector in goal_field::sectors_in(spec, field.rect) {
            self.field_cover.entry(sector).or_default().push(k);
        }
        self.goal_fields.push(field);
    }

    /// The indices of the goal fields whose windows cover `sector`.
    fn cover(&self, sector: u32) -> &[u32] {
        self.field_cover.get(&sector).map_or(&[], Vec::as_slice)
    }
}

/// The run-time navigation world.
pub struct NavWorld {
    /// Shared with whoever else reads it (an editor's overlays, a second world): the first
    /// change at run time (a stamp, a streamed region) copies it if it is shared.
    nav: Arc<NavData>,
    paths: BTreeMap<PathId, PathState>,
    next_path: u32,
    goal_cache: GoalFieldCache,
    stamps: BTreeMap<u32, AppliedStamp>,
    next_stamp: u32,
    dirty: BTreeSet<(usize, u32)>,
    a_star_runs: u64,
    seamless: bool,
    seamless_where_split: bool,
    lazy_refinement: bool,
    flow_lookahead: u32,
    heuristic_weight: f32,
    /// ALT landmark tables per layer, built on a layer's first request (see
    /// [`NavWorld::prepare_landmarks`]) and dropped when its graph is rebuilt.
    landmarks: Vec<Option<Arc<Landmarks>>>,
    /// Per layer, the tables its package stores, until the layer's first request decodes
    /// them; dropped when the layer's graph is rebuilt.
    stored_landmarks: Vec<Option<crate::package::StoredLandmarks>>,
    /// Layers whose landmark tables the rebuild queue is recomputing (build not started:
    /// `None`); their requests use the octile heuristic meanwhile.
    landmark_builds: BTreeMap<usize, Option<LandmarkBuilder>>,
    use_landmarks: bool,
    /// Whether a drained rebuild queue re-plans the live paths (see
    /// [`NavWorld::set_replan_on_rebuild`]).
    replan_on_rebuild: bool,
    /// Goals moved across a sector border, waiting for their re-plan in [`Self::rebuild`].
    goal_moves: BTreeMap<PathId, (u32, u32)>,
    move_stats: GoalMoveStats,
    /// Costs changed since the rebuild queue last drained: live paths are re-planned and
    /// cached goal fields dropped when it does.
    costs_changed: bool,
    /// Live paths still to re-plan after a drained rebuild queue, taken from the back.
    replans: Vec<PathId>,
    /// The path at the back of `replans` once its goal field is built (see `replan.rs`).
    replan_ready: Option<PathId>,
    /// What each kind of rebuild unit took lately, to stop a call before one that would
    /// overrun its budget.
    unit_costs: budget::UnitCosts,
    /// Per layer, its portal graph laid out for the search (see [`SearchGraph`]), built on
    /// the layer's first request and dropped when its graph is rebuilt. Landmark tables and
    /// finishing costs are kept in its search ids.
    search_graphs: Vec<Option<Arc<SearchGraph>>>,
    /// Per layer, its sector hierarchy when its requests use one (see [`SearchMode`]); in
    /// its layer's search ids, so dropped with the search layout.
    hierarchies: Vec<Option<Arc<LayerHierarchy>>>,
    /// Per layer, the hierarchy its package stores, until the layer's first request
    /// decodes it; dropped when the layer's graph is rebuilt.
    stored_hierarchies: Vec<Option<crate::package::StoredHierarchy>>,
    /// Per layer, its hierarchy from before the last rebuild with the keys of the clusters
    /// the rebuild may have changed, until the next one is made from it.
    stale_hierarchies: Vec<Option<(crate::hierarchy::Hierarchy, BTreeSet<u32>)>>,
    search_mode: SearchMode,
    /// Per cluster key, whether the current request has opened the cluster.
    cluster_open: Vec<bool>,
    /// Searches inside one cluster for the hierarchy's landmark bounds.
    cluster_local: crate::hierarchy::LocalSearch,
    /// The package file and region residency of a world opened with [`NavWorld::open`].
    streamed: Option<streaming::Streamed>,
    /// The links, their end nodes per movement type and reachability across them.
    links: links::WorldLinks,
    /// The last version [`Self::data`] handed out.
    published: Option<Arc<NavData>>,
    finish: FinishCosts,
    scratch: SearchScratch,
    integ: IntegratorScratch,
}

impl NavWorld {
    /// A world over a read package, with the landmark tables it stores: each layer's are
    /// decoded on its first request (or by [`Self::prepare_landmarks`]) instead of computed.
    /// Tables that do not decode or no longer fit their graph are built as for a package
    /// without them.
    #[must_use]
    pub fn from_package(package: crate::package::Package) -> Self {
        let mut world = Self::from_nav(package.nav);
        // The reader checked them against the map. Set first: a change of links drops
        // the stored tables, and these were built with them.
        if world.set_links(package.links).is_err() {
            world.links = links::WorldLinks::default();
        }
        world.stored_landmarks = package.landmarks;
        world.stored_hierarchies = package.hierarchies;
        world
    }

    /// A world over baked navigation data (fresh from the bake or `package::read(..)?.nav`),
    /// owned or shared: a shared `Arc<NavData>` is copied only when the world first changes
    /// it (a run-time stamp), so an editor's previews read the editor's own copy.
    ///
    /// Data read with [`NavData::read`] brings its links and stored tables along.
    #[must_use]
    pub fn from_nav(nav: impl Into<Arc<NavData>>) -> Self {
        let nav = nav.into();
        if let Some(shared) = nav.shared_stream() {
            return Self::over_shared(&nav, shared);
        }
        let mut world = Self::bare(nav);
        if !world.nav.links().is_empty() {
            // Checked when the data was read.
            let _ = world.set_links(world.nav.links().to_vec());
        }
        let stored = world.nav.stored();
        if !stored.landmarks.is_empty() || !stored.hierarchies.is_empty() {
            world.stored_landmarks = stored.landmarks.clone();
            world.stored_hierarchies = stored.hierarchies.clone();
        }
        world
    }

    /// A world over `nav` alone: without its links and stored tables.
    fn bare(nav: Arc<NavData>) -> Self {
        Self {
            nav,
            paths: BTreeMap::new(),
            next_path: 0,
            goal_cache: GoalFieldCache::default(),
            stamps: BTreeMap::new(),
            next_stamp: 0,
            dirty: BTreeSet::new(),
            a_star_runs: 0,
            seamless: false,
            seamless_where_split: false,
            lazy_refinement: false,
            flow_lookahead: DEFAULT_FLOW_LOOKAHEAD,
            heuristic_weight: DEFAULT_HEURISTIC_WEIGHT,
            landmarks: Vec::new(),
            stored_landmarks: Vec::new(),
            landmark_builds: BTreeMap::new(),
            use_landmarks: true,
            replan_on_rebuild: true,
            goal_moves: BTreeMap::new(),
            move_stats: GoalMoveStats::default(),
            costs_changed: false,
            replans: Vec::new(),
            replan_ready: None,
            unit_costs: budget::UnitCosts::default(),
            search_graphs: Vec::new(),
            hierarchies: Vec::new(),
            stored_hierarchies: Vec::new(),
            stale_hierarchies: Vec::new(),
            search_mode: SearchMode::Auto,
            cluster_open: Vec::new(),
            cluster_local: crate::hierarchy::LocalSearch::default(),
            streamed: None,
            links: links::WorldLinks::default(),
            published: None,
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

    /// Where a path can leave a routed sector by more than one way (a room with two doors
    /// that different routes take, or a window into another routed sector beside cells
    /// whose route exit lies round a wall), each cell takes the way of least total
    /// remaining cost (its way to the window plus the cost to the goal from there, see
    /// [`crate::corridor::Corridor::from_exits`]), where the tiles would send every cell the
    /// first exit's tile reaches to that exit. Elsewhere the shared tiles steer, which keep a
    /// crowd spread over each portal window (the integration from one goal cell draws
    /// open-ground flow together onto the lines through the goal). [`Self::set_seamless`]
    /// on uses the integration from the goal everywhere.
    pub fn set_seamless_where_split(&mut self, on: bool) {
        self.seamless_where_split = on;
    }

    /// Lazy refinement (default off here, on for a [`crate::PathQuery`]): a request over
    /// the hierarchy refines its route through the clusters around its source only, and
    /// the rest a stretch at a time when [`Self::sample_flow`], [`Self::trace_path`] or
    /// another read of the path first reaches it, answering exactly as a route refined
    /// whole. It applies to the last source of a request, on a world held whole (a
    /// streamed one reads the tiles of the route's sectors when it plans), without
    /// seamless flow or links. [`PathState`]'s public fields then hold the refined part.
    pub fn set_lazy_refinement(&mut self, on: bool) {
        self.lazy_refinement = on;
    }

    /// Refines the whole route of path `id` into its public fields (see
    /// [`Self::set_lazy_refinement`]), for a caller that reads them all: an overlay
    /// drawing every exit. No-op for a path refined whole or released.
    pub fn refine_path(&mut self, id: PathId) {
        if let Some(p) = self.paths.get_mut(&id) {
            p.refine_whole();
        }
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

    /// A* heuristic inflation of the hierarchy search (1.0 = optimal portal routes; see
    /// [`DEFAULT_HEURISTIC_WEIGHT`]). The flat search always finds optimal routes.
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
        self.published = None;
        if !on {
            self.landmarks.clear();
            self.landmark_builds.clear();
        }
    }

    /// Builds the landmark tables of every layer now (one Dijkstra per landmark over each
    /// portal graph) instead of on each layer's first path request: call it at load time.
    pub fn prepare_landmarks(&mut self) {
        for layer in 0..self.nav.layers.len() {
            // A streamed type whose graph cannot be read gets its error on its requests.
            if self.ensure_graph(layer).is_ok() {
                self.prepare_layer_search(layer);
            }
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
        if self.layer_has_links(layer) {
            self.ensure_link_landmarks(layer);
            return;
        }
        let l = &self.nav.layers[layer];
        let stale = self.landmarks[layer]
            .as_ref()
            .is_none_or(|t| t.node_count() != l.nodes.len());
        if stale {
            let stored = self.stored_landmarks.get_mut(layer).and_then(Option::take);
            self.search_graph(layer);
            let l = &self.nav.layers[layer];
            let Some(graph) = self.search_graphs[layer].as_ref() else {
                return;
            };
            // Stored tables decode straight into the search's node order.
            let decoded = stored
                .and_then(|s| s.decode_ranked(Some(graph.search_ids())).ok())
                .filter(|m| m.node_count() == l.nodes.len());
            if decoded.is_none() {
                // Built over the layer's own edges, which a streamed world may have let go.
                self.restore_portal_edges(layer);
            }
            let l = &self.nav.layers[layer];
            let Some(graph) = self.search_graphs[layer].as_ref() else {
                return;
            };
            self.landmarks[layer] = decoded
                .or_else(|| Landmarks::build(l).map(|m| m.reordered(graph.search_ids())))
                .map(Arc::new);
        }
    }

    /// The search layout of `layer` (which must exist), built if missing. A streamed world
    /// then lets the layer's own windows and edges go (see `release_portal_edges`), whoever
    /// built the layout.
    fn search_graph(&mut self, layer: usize) -> &SearchGraph {
        if self.search_graphs.len() < self.nav.layers.len() {
            self.search_graphs
                .resize_with(self.nav.layers.len(), || None);
        }
        if self.search_graphs[layer].is_none() {
            let mut graph = SearchGraph::new(&self.nav.layers[layer]);
            if self.layer_has_links(layer) {
                // The end nodes follow the layer's nodes as they are now.
                graph = graph.with_links(&self.build_layer_links(layer));
            }
            self.search_graphs[layer] = Some(Arc::new(graph));
        }
        self.release_portal_edges(layer);
        let l = &self.nav.layers[layer];
        // Built by now: the closure only gives the borrow a value.
        self.search_graphs[layer].get_or_insert_with(|| Arc::new(SearchGraph::new(l)))
    }

    /// The navigation data (read-only). A streamed world ([`Self::open`]) holds what it
    /// has read: the cost tiles and flow tiles of loaded regions only (other sectors read
    /// as clear, their nodes' tiles as not loaded), and a movement type's portal windows and
    /// edges only in its nodes and search layout once it has been searched (its `windows`
    /// and `graph.offsets`, `targets` and `weights` stay empty until a run-time cost change
    /// reads the type whole; before that search, its edges are in `graph.stream`). A type's island fields are empty until its first request
    /// (ask [`Self::island_at`], which reads them when needed).
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
        self.goal_cache.stats()
    }

    /// Whether `b` can be reached from `a` by movement type `layer`: equal non-zero island
    /// ids, or islands a chain of links the type may use joins in that direction (a one-way
    /// drop reaches the foot of the cliff from the top, not the top from the foot). Two
    /// binary searches over the islands links touch and one bit.
    #[must_use]
    pub fn is_reachable(
        &self,
        move_type: impl Into<MoveType>,
        a: impl Into<Cell>,
        b: impl Into<Cell>,
    ) -> bool {
        let layer = move_type.into().index();
        self.island_reaches(layer, self.island_at(layer, a), self.island_at(layer, b))
    }

    /// Island id of `cell` for movement type `layer` (0 for walls, cells off the map and
    /// unknown types). A streamed world reads the type's island fields on the first call
    /// that needs them.
    #[must_use]
    pub fn island_at(&self, move_type: impl Into<MoveType>, cell: impl Into<Cell>) -> u32 {
        let (layer, Cell { x, y }) = (move_type.into().index(), cell.into());
        let Some(l) = self.nav.layers.get(layer) else {
            return 0;
        };
        l.islands.island_at_in(self.island_fields(layer, l), x, y)
    }

    /// `l`'s (layer `layer`'s) island fields, from the layer or, in a streamed world before
    /// the type's first request, read aside (see `pending_fields`).
    fn island_fields<'a>(&'a self, layer: usize, l: &'a NavLayer) -> &'a [(u32, IslandField)] {
        self.pending_fields(layer).unwrap_or(&l.islands.fields)
    }

    /// Whether each cell of `sector` of movement type `layer` is a wall, row-major over the
    /// sector's rectangle, into `out` (emptied first; left empty for an unknown type or
    /// sector). Exact in a streamed world too: where its regions are not read yet the walls
    /// come from the island ids (a wall is a cell of no island), so nothing is read from the
    /// file but the type's island fields, once.
    pub fn walls_in_sector(
        &self,
        move_type: impl Into<MoveType>,
        sector: u32,
        out: &mut Vec<bool>,
    ) {
        let layer = move_type.into().index();
        out.clear();
        let Some(l) = self.nav.layers.get(layer) else {
            return;
        };
        let spec = self.nav.spec;
        if sector as usize >= spec.sector_count() {
            return;
        }
        let (_, _, w, h) = spec.sector_rect(sector);
        let cells = (w * h) as usize;
        if self.holds_costs(layer, sector) {
            match &l.cost.sectors[sector as usize] {
                SectorCost::Clear => out.resize(cells, false),
                SectorCost::Tile(tile) => out.extend(tile.iter().map(|&c| c == WALL)),
            }
            return;
        }
        match l.islands.sector_island[sector as usize] {
            MIXED => match field_of(self.island_fields(layer, l), sector) {
                Some(field) => out.extend((0..cells).map(|c| field.get(c) == 0)),
                // A damaged island-fields chunk: walls, as `island_at` reads them.
                None => out.resize(cells, true),
            },
            id => out.resize(cells, id == 0),
        }
    }

    /// The cost of `cell` for movement type `layer` as the world holds it now (1..=254,
    /// [`WALL`] = 255), after run-time cost changes and stamps. A streamed world reads the
    /// cell's region from its file first if it has not yet.
    ///
    /// # Errors
    /// [`PathError::UnknownType`], [`PathError::OffMap`], or [`PathError::Damaged`] when the
    /// region cannot be read.
    pub fn cell_cost(
        &mut self,
        move_type: impl Into<MoveType>,
        cell: impl Into<Cell>,
    ) -> Result<u8, PathError> {
        let (layer, cell) = (move_type.into().index(), <(u32, u32)>::from(cell.into()));
        if layer >= self.nav.layers.len() {
            return Err(PathError::UnknownType(layer));
        }
        let spec = self.nav.spec;
        if cell.0 >= spec.width || cell.1 >= spec.height {
            return Err(PathError::OffMap(cell));
        }
        self.ensure_sectors(layer, [spec.sector_of(cell.0, cell.1)])?;
        Ok(self.nav.layers[layer].cost.get(cell.0, cell.1))
    }

    /// A planned path.
    #[must_use]
    pub fn path(&self, id: PathId) -> Option<&PathState> {
        self.paths.get(&id)
    }

    /// Drops a path (its goal field stays cached until evicted).
    pub fn release_path(&mut self, id: PathId) {
        self.paths.remove(&id);
        self.goal_moves.remove(&id);
        self.evict();
    }
}

/// Cells as the world's internals hold them, from whatever a caller names them with
/// ([`Cell`]s or `(x, y)` pairs).
fn tuples(cells: &[impl Into<Cell> + Copy]) -> Vec<(u32, u32)> {
    cells.iter().map(|&c| c.into().into()).collect()
}
