//! The crowd on the real run time: [`WorldNavigator`] implements [`Navigator`] over
//! [`NavWorld`], so the preview moves agents exactly as a game loading the package would.
//!
//! Run-time changes go through the world's time-sliced queue, as in a game: a stamp or cost
//! change takes effect on the walls at once ([`Navigator::walls_version`] moves), the rebuild
//! drains over frames ([`WorldNavigator::rebuild`]) while agents keep their last directions
//! ([`Navigator::replanning`]), and when it is done the crowd re-plans from where the agents
//! are ([`Navigator::routes_version`]).

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use super::navigator::{FlowSample, NavGrid, Navigator, PathId};
use super::vec2::Vec2;
use navstudio_nav::grid::DIR_NONE;
use navstudio_nav::integrate::UNREACHED;
use navstudio_nav::layer::NavLayer;
use navstudio_nav::world::{PathState, StampHandle};
use navstudio_nav::{Cell, CellRect, MoveType, NavData, NavWorld, world};

/// [`NavWorld`] plus what the crowd needs beside it (names and wall buffers per type).
pub struct WorldNavigator {
    /// The run-time world.
    pub world: NavWorld,
    /// Wall buffer of each movement type, in layer order. `[Units: m]`
    pub wall_buffer_m: Vec<f32>,
    /// Crowd path id → world path id.
    paths: BTreeMap<u32, world::PathId>,
    walls_version: u64,
    routes_version: u64,
    /// A rebuild ran part of the queue: the graph may have new node ids that the live paths
    /// (re-planned only when the queue empties) do not know yet.
    part_rebuilt: bool,
    /// Per layer, one bit per cell (row-major): wall. `is_wall` runs for every cell around
    /// every agent every step; a bit test beats reading the sector-tiled cost field. Empty
    /// until [`Self::load_walls`].
    wall_bits: Vec<Vec<u64>>,
    /// Per layer, [`Navigator::body_walls_type`], recomputed whenever walls change.
    body_type: Vec<Option<MoveType>>,
}

impl WorldNavigator {
    /// Wraps a world; `wall_buffer_m` per layer (missing entries read as 0).
    #[must_use]
    pub fn new(world: NavWorld, wall_buffer_m: Vec<f32>) -> Self {
        let mut navigator = Self::with_walls_on_demand(world, wall_buffer_m);
        navigator.load_walls();
        navigator
    }

    /// [`Self::new`] without reading the walls yet: a pass over every cell of every movement
    /// type, a second at the 8192² size limit, which a world that only answers path
    /// requests never needs. Call [`Self::load_walls`] before the navigator serves a crowd;
    /// until then every cell reads as a wall.
    #[must_use]
    pub fn with_walls_on_demand(mut world: NavWorld, wall_buffer_m: Vec<f32>) -> Self {
        // The crowd re-plans its live paths from where the agents are when the queue
        // drains (`routes_version`); the world re-planning them from the order-time sources
        // first would be thrown away.
        world.set_replan_on_rebuild(false);
        // In a sector a group's routes leave by two ways (two doors of one room) every cell
        // takes its nearer one, so the group splits between them; with the shared tiles
        // alone a sector has one exit for all its cells.
        world.set_seamless_where_split(true);
        // Exact A*: weighted, a later source of a group merges into an earlier route that is
        // up to a tenth longer than its own way (through the room's other door), and the
        // whole group queues at one door. The crowd's maps are the editor's, and a group
        // asks once per order.
        world.set_heuristic_weight(1.0);
        Self {
            world,
            wall_buffer_m,
            paths: BTreeMap::new(),
            walls_version: 0,
            routes_version: 0,
            part_rebuilt: false,
            wall_bits: Vec::new(),
            body_type: Vec::new(),
        }
    }

    /// Reads every movement type's walls, once (later changes keep them current).
    pub fn load_walls(&mut self) {
        if !self.wall_bits.is_empty() {
            return;
        }
        let nav = self.world.nav();
        let (w, h) = (nav.spec.width, nav.spec.height);
        self.wall_bits = vec![vec![0u64; (w as usize * h as usize).div_ceil(64)]; nav.layers.len()];
        let layers: Vec<usize> = (0..self.wall_bits.len()).collect();
        self.refresh_walls(&layers, CellRect::full(w, h));
        self.walls_version += 1;
    }

    /// Re-reads the wall bits of a rectangle of cells from the world's cost fields.
    fn refresh_walls(&mut self, layers: &[usize], rect: CellRect) {
        let nav = self.world.nav();
        let (w, h) = (nav.spec.width, nav.spec.height);
        let (x0, y0) = (rect.x0.min(w), rect.y0.min(h));
        let (x1, y1) = (rect.x1.min(w), rect.y1.min(h));
        if x0 >= x1 || y0 >= y1 {
            return;
        }
        // Sector by sector from the world, which knows the walls of a streamed world's
        // regions it has not read (a layer's cost fields there hold no tiles yet).
        let spec = nav.spec;
        let ss = spec.sector_size;
        let mut walls = Vec::new();
        for &li in layers {
            let Some(bits) = self.wall_bits.get_mut(li) else {
                continue;
            };
            for sy in y0 / ss..=(y1 - 1) / ss {
                for sx in x0 / ss..=(x1 - 1) / ss {
                    let sector = sy * spec.sectors_x() + sx;
                    self.world.walls_in_sector(li, sector, &mut walls);
                    let (rx, ry, rw, rh) = spec.sector_rect(sector);
                    for y in ry.max(y0)..(ry + rh).min(y1) {
                        for x in rx.max(x0)..(rx + rw).min(x1) {
                            let i = y as usize * w as usize + x as usize;
                            let mask = 1u64 << (i % 64);
                            let wall = walls
                                .get(((y - ry) * rw + (x - rx)) as usize)
                                .copied()
                                .unwrap_or(true);
                            if wall {
                                bits[i / 64] |= mask;
                            } else {
                                bits[i / 64] &= !mask;
                            }
                        }
                    }
                }
            }
        }
        self.body_type = (0..self.wall_bits.len())
            .map(|t| self.find_body_type(MoveType::new(t)))
            .collect();
    }

    /// For a buffered type, the most restrictive unbuffered type whose passable cells hold
    /// all of its own: the walls its buffer was grown from.
    fn find_body_type(&self, t: MoveType) -> Option<MoveType> {
        if self.wall_buffer_m(t) <= 0.0 {
            return None;
        }
        (0..self.wall_bits.len())
            .map(MoveType::new)
            .filter(|&u| u != t && self.wall_buffer_m(u) <= 0.0 && self.passable_subset(t, u))
            .min_by_key(|&u| (self.passable_cells(u), u))
    }

    /// Stamps the costs of block `rect` (row by row) into the given movement types
    /// through [`NavWorld::apply_stamp`]; the walls change now, routes once
    /// [`Self::rebuild`] has drained the queue.
    pub fn apply_stamp(&mut self, layers: &[usize], rect: CellRect, costs: &[u8]) -> StampHandle {
        let handle = self.world.apply_stamp(layers, rect, costs);
        self.refresh_walls(layers, rect);
        self.walls_version += 1;
        handle
    }

    /// Restores what a stamp replaced ([`NavWorld::remove_stamp`]); see [`Self::apply_stamp`].
    pub fn remove_stamp(&mut self, handle: StampHandle) {
        // The world's stamp record says which walls to refresh.
        let area = self
            .world
            .stamp_area(handle)
            .map(|(layers, rect)| (layers.to_vec(), rect));
        self.world.remove_stamp(handle);
        if let Some((layers, rect)) = area {
            self.refresh_walls(&layers, rect);
        }
        self.walls_version += 1;
    }

    /// Sets one cell's cost ([`NavWorld::set_cost`]); see [`Self::apply_stamp`].
    pub fn set_cost(&mut self, move_type: impl Into<MoveType>, cell: impl Into<Cell>, cost: u8) {
        let (layer, cell) = (move_type.into().index(), cell.into());
        self.world.set_cost(layer, cell, cost);
        self.refresh_walls(&[layer], CellRect::cell(cell.x, cell.y));
        self.walls_version += 1;
    }

    /// Brings the world to `nav` (a re-bake of the same map after an edit) through the
    /// time-sliced queue, so live paths and agents carry on: every sector whose costs differ
    /// is written with [`NavWorld::apply_stamp`] and queued. Returns `false`, changing
    /// nothing, when `nav` is not the same map (grid, cell size, movement types) or more than
    /// a quarter of its sectors changed; the caller then builds a new navigator.
    pub fn update_from(&mut self, nav: &NavData, wall_buffer_m: Vec<f32>) -> bool {
        let old = self.world.nav();
        let same_map = old.spec == nav.spec
            && old.cell_size_m == nav.cell_size_m
            && old.layers.len() == nav.layers.len()
            && old
                .layers
                .iter()
                .zip(&nav.layers)
                .all(|(a, b)| a.name == b.name);
        if !same_map {
            return false;
        }
        let mut changed = Vec::new();
        for (li, (a, b)) in old.layers.iter().zip(&nav.layers).enumerate() {
            for (s, (sa, sb)) in a.cost.sectors.iter().zip(b.cost.sectors.iter()).enumerate() {
                if sa != sb {
                    changed.push((li, s as u32));
                }
            }
        }
        let sectors = nav.spec.sector_count() * nav.layers.len();
        if changed.len() * 4 > sectors {
            return false;
        }
        let mut tile = Vec::new();
        for (li, s) in changed {
            let cost = &nav.layers[li].cost;
            cost.sector_cells(s, &mut tile);
            let (x, y, w, h) = cost.spec.sector_rect(s);
            let rect = CellRect::at(x, y, w, h);
            self.world.set_costs(&[li], rect, &tile);
            self.refresh_walls(&[li], rect);
            self.walls_version += 1;
        }
        self.wall_buffer_m = wall_buffer_m;
        true
    }

    /// Dirty sectors still queued.
    #[must_use]
    pub fn pending_rebuilds(&self) -> usize {
        self.world.pending_rebuilds()
    }

    /// Drains the world's rebuild queue for about `budget` ([`NavWorld::rebuild`]); call it
    /// once per frame. Returns `true` when nothing is left; the crowd then re-plans its paths
    /// on its next step.
    pub fn rebuild(&mut self, budget: Duration) -> bool {
        if self.world.pending_rebuilds() == 0 && !self.part_rebuilt {
            return true;
        }
        let done = self.world.rebuild(budget);
        self.part_rebuilt = !done;
        if done {
            self.routes_version += 1;
        }
        done
    }

    /// Whether the path's routed portals exist in the current graph. After part of a
    /// rebuild they may not (node ids are renumbered per layer), and the world's off-route
    /// fallback indexes nodes by them.
    fn route_is_current(&self, id: world::PathId) -> bool {
        let Some(p) = self.world.path(id) else {
            return false;
        };
        let Some(layer) = self.world.nav().layers.get(p.layer) else {
            return false;
        };
        p.exits.values().flatten().all(|&(_, node)| {
            // A link's end node follows the portal nodes the path was planned over.
            (node as usize) < layer.nodes.len()
                || p.links.as_ref().is_some_and(|ll| {
                    ll.base as usize == layer.nodes.len() && ll.end(node).is_some()
                })
        })
    }

    fn cell_of(&self, p: Vec2) -> Option<(u32, u32)> {
        let g = self.grid();
        let (x, y) = g.cell_from_world(p);
        (x >= 0 && y >= 0 && (x as u32) < g.width_cells && (y as u32) < g.height_cells)
            .then_some((x as u32, y as u32))
    }

    /// Sources among `cells` the route of `id` does not pass yet join it by merging A*
    /// (one per sector), until every one stands on it; `tried` are sources already given.
    /// For the cells of one request this is the path requesting them all at once gives.
    fn join_sources(
        &mut self,
        id: world::PathId,
        cells: &[(u32, u32)],
        mut tried: HashSet<(u32, u32)>,
    ) -> Option<()> {
        let spec = self.world.nav().spec;
        loop {
            let path = self.world.path(id)?;
            let layer = &self.world.nav().layers[path.layer];
            let mut missed_sectors = HashSet::new();
            let missed: Vec<(u32, u32)> = cells
                .iter()
                .copied()
                .filter(|c| !tried.contains(c) && !on_route(layer, path, *c))
                .filter(|&(x, y)| missed_sectors.insert(spec.sector_of(x, y)))
                .collect();
            if missed.is_empty() {
                return Some(());
            }
            tried.extend(missed.iter().copied());
            self.world.add_sources(id, &missed).ok()?;
        }
    }

    /// [`Self::join_sources`] for the agents at `sources_world` on the path's islands.
    fn join_reachable(&mut self, id: world::PathId, sources_world: &[Vec2]) -> bool {
        let cells: Vec<(u32, u32)> = sources_world
            .iter()
            .filter_map(|&p| self.cell_of(p))
            .filter(|&c| self.world.path_reaches(id, c))
            .collect();
        self.join_sources(id, &cells, HashSet::new()).is_some()
    }
}

impl Navigator for WorldNavigator {
    fn grid(&self) -> NavGrid {
        let nav = self.world.nav();
        NavGrid {
            cell_size_m: nav.cell_size_m,
            width_cells: nav.spec.width,
            height_cells: nav.spec.height,
        }
    }

    fn move_type(&self, name: &str) -> Option<MoveType> {
        self.world
            .nav()
            .layers
            .iter()
            .position(|l| l.name == name)
            .map(MoveType::new)
    }

    /// One world request for a whole group, with one source per sector rather than one per
    /// agent: the world runs an A* per source, and agents in a sector share its exit tiles
    /// anyway. Sources on other islands than the goal are left out (they share no route);
    /// source cells the planned flow then misses (a sector split by walls, whose other part
    /// is reached from outside) are added and the path planned again.
    fn request_path(
        &mut self,
        move_type: MoveType,
        sources_world: &[Vec2],
        goal_world: Vec2,
    ) -> Option<PathId> {
        self.request_path_to_any(move_type, sources_world, &[goal_world])
    }

    /// As [`Self::request_path`], to the nearest of a goal set
    /// ([`NavWorld::request_path_to_any`]).
    fn request_path_to_any(
        &mut self,
        move_type: MoveType,
        sources_world: &[Vec2],
        goals_world: &[Vec2],
    ) -> Option<PathId> {
        // Goals off the map are left out, as the world leaves out walls.
        let goals: Vec<(u32, u32)> = goals_world
            .iter()
            .filter_map(|&g| self.cell_of(g))
            .collect();
        if goals.is_empty() {
            return None;
        }
        let mut cells: Vec<(u32, u32)> = sources_world
            .iter()
            .filter_map(|&p| self.cell_of(p))
            .collect();
        // On a goal's island, or on one that links lead from to a goal's.
        cells.retain(|&c| {
            goals
                .iter()
                .any(|&g| self.world.is_reachable(move_type, c, g))
        });
        let mut seen = HashSet::new();
        cells.retain(|&c| seen.insert(c));
        let spec = self.world.nav().spec;
        let mut sectors = HashSet::new();
        let chosen: Vec<(u32, u32)> = cells
            .iter()
            .copied()
            .filter(|&(x, y)| sectors.insert(spec.sector_of(x, y)))
            .collect();
        // An empty list lets the world say why (goal a wall, no source reachable).
        let id = self
            .world
            .request_path_to_any(move_type, &chosen, &goals)
            .ok()?;
        self.join_sources(id, &cells, chosen.iter().copied().collect())?;
        self.paths.insert(id.0, id);
        Some(PathId(id.0))
    }

    /// [`NavWorld::move_goal`]; a move across a sector border is re-planned at once (the
    /// crowd steps no rebuild queue of its own), and followers the new route misses join it.
    fn move_goal(&mut self, path: PathId, goal_world: Vec2, sources_world: &[Vec2]) -> bool {
        let (Some(&id), Some(cell)) = (self.paths.get(&path.0), self.cell_of(goal_world)) else {
            return false;
        };
        match self.world.move_goal(id, cell) {
            Ok(world::GoalMove::RouteQueued) => {
                if !self.world.replan_moved_goal(id) {
                    return false;
                }
                self.join_reachable(id, sources_world)
            }
            Ok(_) => true,
            Err(_) => false,
        }
    }

    /// Whether the path's flow covers the cell at `pos_world`: the agent there follows the
    /// goal field or a routed exit tile, not the world's off-route fallback (head for the
    /// nearest routed portal).
    fn covers(&self, path: PathId, pos_world: Vec2) -> bool {
        let Some(p) = self.paths.get(&path.0).and_then(|&id| self.world.path(id)) else {
            return false;
        };
        let Some(layer) = self.world.nav().layers.get(p.layer) else {
            return false;
        };
        self.cell_of(pos_world)
            .is_some_and(|c| on_route(layer, p, c))
    }

    fn join_path(&mut self, path: PathId, sources_world: &[Vec2]) -> bool {
        let Some(&id) = self.paths.get(&path.0) else {
            return false;
        };
        self.join_reachable(id, sources_world)
            && sources_world.iter().all(|&p| self.covers(path, p))
    }

    fn reaches(&self, path: PathId, pos_world: Vec2) -> bool {
        let Some(&id) = self.paths.get(&path.0) else {
            return false;
        };
        self.cell_of(pos_world)
            .is_some_and(|c| self.world.path_reaches(id, c))
    }

    fn goal_reached(&self, path: PathId, pos_world: Vec2) -> Option<Vec2> {
        let id = *self.paths.get(&path.0)?;
        let goal = self.world.trace_path(id, self.cell_of(pos_world)?)?.goal;
        Some(self.grid().world_from_cell(goal.0 as i32, goal.1 as i32))
    }

    fn sample_flow(&self, path: PathId, pos_world: Vec2) -> Option<FlowSample> {
        let id = *self.paths.get(&path.0)?;
        let s = self.world.nav().cell_size_m;
        let (px, py) = (pos_world.x / s, pos_world.y / s);
        if self.part_rebuilt && !self.route_is_current(id) {
            return None;
        }
        let p = self.world.path(id)?;
        let cell = (px.max(0.0) as u32, py.max(0.0) as u32);
        // The goal cell sees the goal: an agent there whose lane target lies elsewhere
        // heads for it (steering goes straight at lane targets in line of sight).
        let (dx, dy) = self.world.sample_flow(id, (px, py))?;
        Some(FlowSample {
            direction: Vec2::new(dx, dy),
            line_of_sight: p.is_goal(cell) || self.world.has_line_of_sight(id, cell),
        })
    }

    fn link_at(&self, path: PathId, pos_world: Vec2) -> Option<crate::navigator::LinkCrossing> {
        let id = *self.paths.get(&path.0)?;
        let s = self.world.nav().cell_size_m;
        let step = self.world.link_at(id, (pos_world.x / s, pos_world.y / s))?;
        let area = step.exit_area;
        Some(crate::navigator::LinkCrossing {
            id: step.id,
            kind: step.kind,
            exit_min: Vec2::new(area.x as f32 * s, area.y as f32 * s),
            exit_max: Vec2::new((area.x + area.w) as f32 * s, (area.y + area.h) as f32 * s),
            exit_world: Vec2::new(
                (step.exit.0 as f32 + 0.5) * s,
                (step.exit.1 as f32 + 0.5) * s,
            ),
            width_m: step.width_m,
        })
    }

    fn is_wall(&self, move_type: MoveType, cell_x: i32, cell_y: i32) -> bool {
        let spec = self.world.nav().spec;
        let Some(bits) = self.wall_bits.get(move_type.index()) else {
            return true;
        };
        if cell_x < 0 || cell_y < 0 || cell_x as u32 >= spec.width || cell_y as u32 >= spec.height {
            return true;
        }
        let i = cell_y as usize * spec.width as usize + cell_x as usize;
        bits.get(i / 64).is_none_or(|b| b & (1u64 << (i % 64)) != 0)
    }

    fn any_wall_in(&self, move_type: MoveType, x0: i32, y0: i32, x1: i32, y1: i32) -> bool {
        let spec = self.world.nav().spec;
        if x0 > x1 || y0 > y1 {
            return false;
        }
        let Some(bits) = self.wall_bits.get(move_type.index()) else {
            return true;
        };
        if x0 < 0 || y0 < 0 || x1 as u32 >= spec.width || y1 as u32 >= spec.height {
            return true;
        }
        let w = spec.width as usize;
        (y0..=y1).any(|y| {
            let (first, last) = (y as usize * w + x0 as usize, y as usize * w + x1 as usize);
            (first / 64..=last / 64).any(|k| {
                let lo = if k == first / 64 { first % 64 } else { 0 };
                let hi = if k == last / 64 { last % 64 } else { 63 };
                let mask = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
                bits.get(k).is_none_or(|b| b & mask != 0)
            })
        })
    }

    /// From the wall bits of the baked layers: no cell is open for `a` and a wall for `b`.
    fn passable_subset(&self, a: MoveType, b: MoveType) -> bool {
        match (self.wall_bits.get(a.index()), self.wall_bits.get(b.index())) {
            (Some(wa), Some(wb)) => wa.iter().zip(wb).all(|(&wa, &wb)| !wa & wb == 0),
            _ => a == b,
        }
    }

    fn passable_cells(&self, move_type: MoveType) -> u64 {
        let spec = self.world.nav().spec;
        let walls: u64 = self.wall_bits.get(move_type.index()).map_or(0, |bits| {
            bits.iter().map(|w| u64::from(w.count_ones())).sum()
        });
        (spec.width as u64 * spec.height as u64).saturating_sub(walls)
    }

    fn wall_buffer_m(&self, move_type: MoveType) -> f32 {
        self.wall_buffer_m
            .get(move_type.index())
            .copied()
            .unwrap_or(0.0)
    }

    fn body_walls_type(&self, move_type: MoveType) -> Option<MoveType> {
        self.body_type.get(move_type.index()).copied().flatten()
    }

    fn release_path(&mut self, path: PathId) {
        if let Some(id) = self.paths.remove(&path.0) {
            self.world.release_path(id);
        }
    }

    fn walls_version(&self) -> u64 {
        self.walls_version
    }

    fn routes_version(&self) -> u64 {
        self.routes_version
    }

    fn replanning(&self) -> bool {
        self.part_rebuilt || self.world.pending_rebuilds() > 0
    }
}

/// Whether the path's flow covers `cell` (the cells [`NavWorld::sample_flow`] follows
/// without its off-route fallback): the goal field reaches it, the seamless corridor covers
/// it, or one of its sector's routed exit tiles has a direction there.
fn on_route(layer: &NavLayer, path: &PathState, cell: (u32, u32)) -> bool {
    for gf in &path.goal_fields {
        let (x0, y0, w, h) = gf.rect;
        if cell.0 >= x0 && cell.1 >= y0 && cell.0 < x0 + w && cell.1 < y0 + h {
            let i = ((cell.1 - y0) * w + (cell.0 - x0)) as usize;
            if gf.field.cost.get(i).is_some_and(|&c| c != UNREACHED) {
                return true;
            }
        }
    }
    let spec = layer.cost.spec;
    let sector = spec.sector_of(cell.0, cell.1);
    let split = path.exits.get(&sector).is_some_and(|e| e.len() > 1);
    if path
        .corridor
        .as_ref()
        .is_some_and(|c| (c.everywhere || split) && c.flow_at(layer, cell).is_some())
    {
        return true;
    }
    let (sx, sy, sw, _) = spec.sector_rect(sector);
    let i = ((cell.1 - sy) * sw + (cell.0 - sx)) as usize;
    path.exits.get(&sector).is_some_and(|exits| {
        exits.iter().any(|&(_, node)| {
            layer
                .flows
                .node_tile
                .get(node as usize)
                .and_then(|&t| layer.flows.tiles.get(t as usize))
                .and_then(|tile| tile.get(i))
                .is_some_and(|&f| f & 0x0F != DIR_NONE)
        })
    })
}
