//! Per-thread path queries over shared [`NavData`], as Detour's `dtNavMeshQuery` over a
//! shared `dtNavMesh`: a [`PathQuery`] holds one thread's search scratch and goal-field
//! cache, answers requests into [`Path`]s, and samples and traces them. Any number of
//! queries answer at once over the same data; a [`PathTable`] keeps paths for every thread.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::data::NavData;
use crate::links::NavLink;
use crate::vocab::{Cell, MoveType, PathId};
use crate::world::{
    DEFAULT_FLOW_LOOKAHEAD, DEFAULT_HEURISTIC_WEIGHT, LinkStep, NavWorld, PathError, PathState,
    SearchMode, TracedPath,
};

/// How a [`PathQuery`] searches and follows paths (the same settings as a
/// [`NavWorld`]'s, with the same defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryOptions {
    /// Portal search: flat, over the sector hierarchy, or chosen by the map.
    pub search_mode: SearchMode,
    /// A* heuristic inflation (see [`DEFAULT_HEURISTIC_WEIGHT`]). `[Limit: >= 1]`
    pub heuristic_weight: f32,
    /// Look-ahead of flow following in cells (see [`NavWorld::set_flow_lookahead`]).
    pub flow_lookahead: u32,
    /// Seamless flow everywhere (see [`NavWorld::set_seamless`]).
    pub seamless: bool,
    /// Seamless flow where a path leaves a sector by several exits (see
    /// [`NavWorld::set_seamless_where_split`]).
    pub seamless_where_split: bool,
    /// Refine a route through the clusters around its source at once and the rest when a
    /// read reaches it (see [`NavWorld::set_lazy_refinement`]; on by default here, since a
    /// [`Path`]'s state is read through its accessors only).
    pub lazy_refinement: bool,
}

impl Default for QueryOptions {
    fn default() -> Self {
        Self {
            search_mode: SearchMode::Auto,
            heuristic_weight: DEFAULT_HEURISTIC_WEIGHT,
            flow_lookahead: DEFAULT_FLOW_LOOKAHEAD,
            seamless: false,
            seamless_where_split: false,
            lazy_refinement: true,
        }
    }
}

/// One thread's path queries: its search scratch, and the goal fields it has built for
/// the version it last answered on. Not shared: make one per worker thread.
pub struct PathQuery {
    options: QueryOptions,
    /// A world over the version last answered on, holding nothing of its own but scratch
    /// and goal fields: its tables are the version's.
    reader: Option<Reader>,
    /// Why the last read of a path could not read the regions it needs (see
    /// [`Self::read_error`]).
    read_error: Option<PathError>,
}

struct Reader {
    data: Arc<NavData>,
    world: NavWorld,
    /// Per movement type, whether the world holds the version's tables.
    adopted: Vec<bool>,
}

/// A planned path: the route tree toward its goal (or the nearest of its goals) shared by
/// all its sources, on the data version it was planned on. Sample and trace it with any
/// [`PathQuery`].
pub struct Path {
    data: Arc<NavData>,
    state: PathState,
    /// Unique over the process: a query's world knows which path it last loaded the
    /// regions of (data read on demand).
    serial: u64,
}

/// The next [`Path::serial`].
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(0);

impl Path {
    fn new(data: Arc<NavData>, state: PathState) -> Self {
        Self {
            data,
            state,
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// A path request under way on a [`PathQuery`] (see [`PathQuery::start_path`]), on the
/// data version it was started on.
#[derive(Debug)]
pub struct PendingRequest {
    data: Arc<NavData>,
    pending: crate::world::PendingPath,
}

impl PendingRequest {
    /// Calls of [`PathQuery::advance_path`] made so far.
    #[must_use]
    pub fn calls(&self) -> u32 {
        self.pending.calls()
    }
}

/// Paths shared between threads by id: any thread inserts, reads and removes.
#[derive(Default)]
pub struct PathTable {
    paths: RwLock<BTreeMap<PathId, Arc<Path>>>,
    next: AtomicU32,
}

impl Default for PathQuery {
    fn default() -> Self {
        Self::new(QueryOptions::default())
    }
}

impl PathQuery {
    /// A query with `options`.
    #[must_use]
    pub fn new(options: QueryOptions) -> Self {
        Self {
            options,
            reader: None,
            read_error: None,
        }
    }

    /// Plans a path from `sources` to `goal` for movement type `ty` on version `data`
    /// (as [`NavWorld::request_path`]).
    ///
    /// # Errors
    /// As [`NavWorld::request_path`].
    pub fn request_path(
        &mut self,
        data: &Arc<NavData>,
        ty: MoveType,
        sources: &[Cell],
        goal: Cell,
    ) -> Result<Path, PathError> {
        self.request_path_to_any(data, ty, sources, &[goal])
    }

    /// Plans one path from `sources` to the nearest of `goals` (as
    /// [`NavWorld::request_path_to_any`]).
    ///
    /// # Errors
    /// As [`NavWorld::request_path_to_any`].
    pub fn request_path_to_any(
        &mut self,
        data: &Arc<NavData>,
        ty: MoveType,
        sources: &[Cell],
        goals: &[Cell],
    ) -> Result<Path, PathError> {
        let layer = ty.index();
        if layer >= data.layers.len() {
            return Err(PathError::UnknownType(layer));
        }
        let sources: Vec<(u32, u32)> = sources.iter().map(|&c| c.into()).collect();
        let goals: Vec<(u32, u32)> = goals.iter().map(|&c| c.into()).collect();
        let world = self.world(data, Some(layer));
        let state = world.plan(layer, &sources, &goals)?;
        Ok(Path::new(Arc::clone(data), state))
    }

    /// Whether `b` can be reached from `a` by movement type `ty` on version `data` (see
    /// [`NavWorld::is_reachable`]): no search, two island look-ups.
    pub fn is_reachable(&mut self, data: &Arc<NavData>, ty: MoveType, a: Cell, b: Cell) -> bool {
        self.world(data, None).is_reachable(ty, a, b)
    }

    /// Island id of `cell` for movement type `ty` on version `data` (0 for walls and cells
    /// off the map; see [`NavWorld::island_at`]).
    pub fn island_at(&mut self, data: &Arc<NavData>, ty: MoveType, cell: Cell) -> u32 {
        self.world(data, None).island_at(ty, cell)
    }

    /// Starts a request for a path from `sources` to the nearest of `goals` for movement
    /// type `ty` on version `data`, doing no work yet: give it to [`Self::advance_path`]
    /// each frame (as [`NavWorld::start_path`]).
    #[must_use]
    pub fn start_path(
        &self,
        data: &Arc<NavData>,
        ty: MoveType,
        sources: &[Cell],
        goals: &[Cell],
    ) -> PendingRequest {
        let sources: Vec<(u32, u32)> = sources.iter().map(|&c| c.into()).collect();
        let goals: Vec<(u32, u32)> = goals.iter().map(|&c| c.into()).collect();
        PendingRequest {
            data: Arc::clone(data),
            pending: crate::world::PendingPath::new(ty.index(), &sources, &goals),
        }
    }

    /// Works on `request` for about `budget`: `None` while the path is not ready, then the
    /// path (the one [`Self::request_path_to_any`] plans) or why it was refused (as
    /// [`NavWorld::advance_path`]). Other requests may run on this query between calls.
    pub fn advance_path(
        &mut self,
        request: &mut PendingRequest,
        budget: std::time::Duration,
    ) -> Option<Result<Path, PathError>> {
        let start = std::time::Instant::now();
        let layer = request.pending.layer();
        if layer >= request.data.layers.len() {
            return Some(Err(PathError::UnknownType(layer)));
        }
        let data = Arc::clone(&request.data);
        let world = self.world(&data, Some(layer));
        let state = world.advance_plan(&mut request.pending, start, budget)?;
        Some(state.map(|state| Path::new(data, state)))
    }

    /// Desired unit direction at `pos` on `path` (see [`NavWorld::sample_flow`]); `None`
    /// also when data read on demand cannot read a region the sample needs.
    pub fn sample_flow(&mut self, path: &Path, pos: (f32, f32)) -> Option<(f32, f32)> {
        self.read(path, Some(pos), false)?
            .sample_flow_on(&path.state, pos)
    }

    /// The point an agent at `pos` steers at (see [`NavWorld::steer_target`]).
    pub fn steer_target(&mut self, path: &Path, pos: (f32, f32)) -> Option<(f32, f32)> {
        self.read(path, Some(pos), false)?
            .steer_target_on(&path.state, pos)
    }

    /// Whether `cell` sees the path's goal (see [`NavWorld::has_line_of_sight`]).
    pub fn has_line_of_sight(&mut self, path: &Path, cell: Cell) -> bool {
        self.read(path, Some(centre(cell)), false)
            .is_some_and(|w| w.has_line_of_sight_on(&path.state, cell.into()))
    }

    /// The path as an agent from `source` walks it (see [`NavWorld::trace_path`]).
    pub fn trace_path(&mut self, path: &Path, source: Cell) -> Option<TracedPath> {
        let mut widened = false;
        loop {
            let traced = self
                .read(path, Some(centre(source)), true)?
                .trace_path_on(&path.state, source.into());
            // On data read on demand the string may have been pulled across regions not
            // read yet, which read as clear: read those it crossed (or, without a string,
            // the route's whole box) and trace again. A region read only ever rules a
            // straight segment out, so this ends with the answer of the data read whole.
            let world = self.world(&path.data, None);
            let more = match &traced {
                Some(t) => world.load_costs_around(path.state.layer, &t.cells),
                None if !widened => {
                    widened = true;
                    world.load_route_box(&path.state)
                }
                None => Ok(false),
            };
            match more {
                Ok(true) => {}
                Ok(false) => return traced,
                Err(e) => {
                    self.read_error = Some(e);
                    return None;
                }
            }
        }
    }

    /// The link an agent at `pos` must take now (see [`NavWorld::link_at`]).
    pub fn link_at(&mut self, path: &Path, pos: (f32, f32)) -> Option<LinkStep> {
        self.read(path, Some(pos), false)?
            .link_at_on(&path.state, pos)
    }

    /// Whether an agent at `cell` can follow `path` to one of its goals.
    pub fn path_reaches(&mut self, path: &Path, cell: Cell) -> bool {
        self.read(path, Some(centre(cell)), false)
            .is_some_and(|w| w.state_reaches(&path.state, cell.into()))
    }

    /// The reader world over `path`'s version with the regions a read of `path` around
    /// `pos` needs (with `whole`, those of its whole route) loaded; `None` when data read
    /// on demand cannot read one.
    fn read(&mut self, path: &Path, pos: Option<(f32, f32)>, whole: bool) -> Option<&NavWorld> {
        let world = self.world(&path.data, None);
        match world.prepare_read(&path.state, path.serial, pos, whole) {
            Ok(()) => {
                self.read_error = None;
                self.reader.as_ref().map(|r| &r.world)
            }
            Err(e) => {
                self.read_error = Some(e);
                None
            }
        }
    }

    /// Why the last read of a path ([`Self::sample_flow`], [`Self::trace_path`] and the
    /// others taking a [`Path`]) answered nothing because it could not read a region it
    /// needs ([`PathError::Damaged`], on data opened with [`NavData::open`]); `None` after a
    /// read that could.
    #[must_use]
    pub fn read_error(&self) -> Option<&PathError> {
        self.read_error.as_ref()
    }

    /// Portal nodes this query's searches expanded on the version it last answered on.
    #[must_use]
    pub fn a_star_expansions(&self) -> u64 {
        self.reader
            .as_ref()
            .map_or(0, |r| r.world.a_star_expansions())
    }

    /// The reader world over `data`, made if the query last answered on another version,
    /// with `layer`'s tables in place.
    fn world(&mut self, data: &Arc<NavData>, layer: Option<usize>) -> &mut NavWorld {
        let stale = self
            .reader
            .as_ref()
            .is_none_or(|r| !Arc::ptr_eq(&r.data, data));
        if stale {
            let mut world = NavWorld::reader(data);
            // Every read of a path goes through `read`, which loads its regions first.
            world.set_reads_prepared();
            let o = self.options;
            world.set_search_mode(o.search_mode);
            world.set_heuristic_weight(o.heuristic_weight);
            world.set_flow_lookahead(o.flow_lookahead);
            world.set_seamless(o.seamless);
            world.set_seamless_where_split(o.seamless_where_split);
            world.set_lazy_refinement(o.lazy_refinement);
            if let Some(old) = self.reader.take() {
                world.take_scratch(old.world);
            }
            self.reader = Some(Reader {
                data: Arc::clone(data),
                world,
                adopted: vec![false; data.layers.len()],
            });
        }
        let reader = self.reader.as_mut().expect("made above");
        if let Some(layer) = layer
            && reader.adopted.get(layer) == Some(&false)
        {
            reader.world.adopt_tables(data, layer);
            reader.adopted[layer] = true;
        }
        &mut reader.world
    }
}

impl Path {
    /// The data version the path was planned on (its samples and traces read it).
    #[must_use]
    pub fn data(&self) -> &Arc<NavData> {
        &self.data
    }

    /// The movement type it was planned for.
    #[must_use]
    pub fn move_type(&self) -> MoveType {
        MoveType::new(self.state.layer)
    }

    /// Its goal; of a goal set, the first goal named that a source can reach.
    #[must_use]
    pub fn goal(&self) -> Cell {
        self.state.goal.into()
    }

    /// Every goal a source can reach, sorted.
    pub fn goals(&self) -> impl Iterator<Item = Cell> + '_ {
        self.state.goals.iter().map(|&g| g.into())
    }

    /// The sources routed, in the order given (those that can reach a goal).
    pub fn sources(&self) -> impl Iterator<Item = Cell> + '_ {
        self.state.sources.iter().map(|&s| s.into())
    }

    /// Per source, the portal nodes of its route in travel order and the route's cost
    /// (refining the whole route if it was refined lazily).
    pub fn routes(&self) -> impl Iterator<Item = (Vec<u32>, u32)> + '_ {
        let nodes = self.state.route_nodes();
        self.state
            .routes
            .iter()
            .zip(nodes)
            .map(|(r, nodes)| (nodes, r.cost))
    }

    /// The links of the version (of a type without links, none are taken).
    #[must_use]
    pub fn links(&self) -> &[NavLink] {
        self.data.links()
    }
}

/// The centre of `cell`, as a position.
fn centre(cell: Cell) -> (f32, f32) {
    let (x, y): (u32, u32) = cell.into();
    (x as f32 + 0.5, y as f32 + 0.5)
}

impl std::fmt::Debug for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Path")
            .field("move_type", &self.move_type())
            .field("goal", &self.goal())
            .field("sources", &self.state.sources.len())
            .finish_non_exhaustive()
    }
}

impl PathTable {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps `path` under a new id.
    pub fn insert(&self, path: Path) -> PathId {
        let id = PathId(self.next.fetch_add(1, Ordering::Relaxed));
        self.write().insert(id, Arc::new(path));
        id
    }

    /// The path `id`, if kept.
    #[must_use]
    pub fn get(&self, id: PathId) -> Option<Arc<Path>> {
        self.read().get(&id).cloned()
    }

    /// Replaces path `id` (a re-plan keeps the id agents hold); returns whether it was kept.
    pub fn replace(&self, id: PathId, path: Path) -> bool {
        match self.write().get_mut(&id) {
            Some(slot) => {
                *slot = Arc::new(path);
                true
            }
            None => false,
        }
    }

    /// Drops path `id`; threads still holding it keep their copy.
    pub fn remove(&self, id: PathId) -> Option<Arc<Path>> {
        self.write().remove(&id)
    }

    /// Number of paths kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether no path is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ids kept, in order.
    #[must_use]
    pub fn ids(&self) -> Vec<PathId> {
        self.read().keys().copied().collect()
    }

    // A thread that panicked while holding the lock left the map whole (every write is
    // one insert or remove), so a poisoned lock is still read.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<PathId, Arc<Path>>> {
        self.paths
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<PathId, Arc<Path>>> {
        self.paths
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
