//! Reading a path: flow sampling for steering (line of sight, look-ahead, bilinear flow),
//! line-of-sight queries and tracing a path cell by cell.

use crate::vocab::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::cheapest::segment_price;
use super::{MAX_FLOW_LOOKAHEAD, NavWorld, PathId, PathState, TracedPath};
use crate::grid::{CLEAR, DIR_NONE, DIRECTIONS, FLOW_LOS, FLOW_PATHABLE, WALL};
use crate::layer::NavLayer;
use crate::taut::{Half, centre};

/// Steering answers by cell, filled by [`NavWorld::sample_flow`] on first use in
/// direct-mapped tables of atomic entries, so threads sampling one path share them without a
/// lock. Each answer is a pure function of the path and the cell (and the look-ahead, whose
/// setting is part of each target entry), so a race only computes one twice.
#[derive(Debug, Default)]
pub(super) struct SteerCache {
    /// Look-ahead targets (see [`NavWorld::set_flow_lookahead`]).
    pulled: OnceLock<Box<[AtomicU64]>>,
    /// Line of sight beyond the goal fields' windows per sector: `(sector + 1) << 2 |`
    /// [`SIGHT_WHOLE`] or [`SIGHT_PER_CELL`] (a table of constant size, where one entry
    /// per sector would take most of a megabyte per path on a big map).
    sight_sectors: OnceLock<Box<[AtomicU64]>>,
    /// Per cell of a [`SIGHT_PER_CELL`] sector: `(cell index + 1) << 1 | sees`.
    sight_cells: OnceLock<Box<[AtomicU64]>>,
    /// Per cell that sees its goal beyond the goal fields' windows: `(cell index + 1) << 1
    /// | kept`, whether the line to the goal keeps with the flow it crosses first
    /// ([`NavWorld::keeps_with_flow`]).
    sight_kept: OnceLock<Box<[AtomicU64]>>,
}

/// Entries of each of a [`SteerCache`]'s tables.
const PULLED_SLOTS: usize = 4096;

/// A sector's line of sight not looked at yet.
const SIGHT_UNKNOWN: u8 = 0;
/// Every cell of the sector sees the goal nearest it ([`crate::los::rect_sees`]).
const SIGHT_WHOLE: u8 = 1;
/// Some cell of the sector may not: each cell is asked on its own.
const SIGHT_PER_CELL: u8 = 2;

/// A table of `n` empty atomic entries.
fn atomic_table<T: Default>(n: usize) -> Box<[T]> {
    (0..n).map(|_| T::default()).collect()
}

/// The goal of path `p` nearest `cell` in a straight line (the first of equals).
fn nearest_goal(p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
    let d2 = |g: &&(u32, u32)| {
        let (dx, dy) = (
            i64::from(g.0) - i64::from(cell.0),
            i64::from(g.1) - i64::from(cell.1),
        );
        dx * dx + dy * dy
    };
    p.goals.iter().min_by_key(d2).copied()
}

/// A flag of cell `index` from a [`SteerCache`] table of `(index + 1) << 1 | flag`
/// entries, else `compute`d: `(flag, keep)`, stored when `keep`.
fn cached_flag(
    table: &OnceLock<Box<[AtomicU64]>>,
    index: u64,
    compute: impl FnOnce() -> (bool, bool),
) -> bool {
    let slot = &table.get_or_init(|| atomic_table(PULLED_SLOTS))[slot_of(index)];
    let entry = slot.load(Ordering::Relaxed);
    if entry >> 1 == index + 1 {
        return entry & 1 == 1;
    }
    let (flag, keep) = compute();
    if keep {
        slot.store((index + 1) << 1 | u64::from(flag), Ordering::Relaxed);
    }
    flag
}

/// The slot of cell or sector `index` in a direct-mapped table of [`PULLED_SLOTS`] entries.
fn slot_of(index: u64) -> usize {
    (index.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % PULLED_SLOTS
}

impl NavWorld {
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
    /// in line of sight → straight at the goal; where the flow ahead is in plain sight →
    /// straight at [`Self::steer_target`]; else on the route → bilinear interpolation of the
    /// 4 nearest cells' flow directions; off the route → toward the nearest routed portal.
    ///
    /// It never leads into a wall: a step of up to half a cell along it stays out of wall
    /// cells (and off the map) and never squeezes between two walls meeting at a corner;
    /// where the wanted direction would, it slides along the wall, or heads back to the
    /// cell's centre when it cannot slide.
    #[must_use]
    pub fn sample_flow(&self, id: PathId, pos: (f32, f32)) -> Option<(f32, f32)> {
        self.sample_flow_on(self.paths.get(&id)?, pos)
    }

    /// [`Self::sample_flow`] on a path held outside the world (a query's).
    pub(crate) fn sample_flow_on(&self, p: &PathState, pos: (f32, f32)) -> Option<(f32, f32)> {
        let wanted = self.wanted_direction(p, pos)?;
        Some(keep_off_walls(&self.nav.layers[p.layer].cost, pos, wanted))
    }

    /// The point an agent at `pos` (cell units) on path `id` steers at: the goal's centre
    /// when its cell sees the goal; else the farthest cell of its flow trace within the
    /// look-ahead (see [`Self::set_flow_lookahead`]) that its cell reaches in a straight line
    /// over on-route cells no costlier than the trace crosses, none of whose flow leads back
    /// onto the line (string pulling); else the centre of the next cell of the flow. `None`
    /// off the map or off the route. Answers are cached per cell, so a crowd asks this
    /// cheaply every step.
    #[must_use]
    pub fn steer_target(&self, id: PathId, pos: (f32, f32)) -> Option<(f32, f32)> {
        self.steer_target_on(self.paths.get(&id)?, pos)
    }

    /// [`Self::steer_target`] on a path held outside the world (a query's).
    pub(crate) fn steer_target_on(&self, p: &PathState, pos: (f32, f32)) -> Option<(f32, f32)> {
        let spec = self.nav.layers[p.layer].cost.spec;
        let (px, py) = pos;
        if !(px >= 0.0 && py >= 0.0 && px < spec.width as f32 && py < spec.height as f32) {
            return None;
        }
        let cell = (px as u32, py as u32);
        let f = self.flow_at(p, cell)?;
        let to = if let Some(goal) = self.sight(p, cell, f) {
            goal
        } else if let Some(to) = self.pulled_target_cached(p, cell) {
            to
        } else {
            let (dx, dy) = flow_step(f)?;
            (
                cell.0.checked_add_signed(dx)?,
                cell.1.checked_add_signed(dy)?,
            )
        };
        Some((to.0 as f32 + 0.5, to.1 as f32 + 0.5))
    }

    /// [`Self::sample_flow`]'s direction before it is kept off walls.
    fn wanted_direction(&self, p: &PathState, pos: (f32, f32)) -> Option<(f32, f32)> {
        let spec = self.nav.layers[p.layer].cost.spec;
        let (px, py) = pos;
        if px < 0.0 || py < 0.0 || px >= spec.width as f32 || py >= spec.height as f32 {
            return None;
        }
        let cell = (px as u32, py as u32);
        if let Some(goal) = self.flow_at(p, cell).and_then(|f| self.sight(p, cell, f)) {
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
            if let Some((vx, vy)) = self.flow_at(p, (cx as u32, cy as u32)).and_then(flow_step) {
                let n = ((vx * vx + vy * vy) as f32).sqrt();
                sum.0 += wgt * vx as f32 / n;
                sum.1 += wgt * vy as f32 / n;
            }
        }
        if let Some(v) = normalise(sum.0, sum.1) {
            return Some(v);
        }
        // Off the route: head for the nearest routed portal centre.
        let l = &self.nav.layers[p.layer];
        let target = p
            .all_exits()
            .values()
            .flatten()
            // Node ids may have moved under a path whose re-plan waits for the rebuild queue.
            .filter_map(|&(_, n)| l.nodes.get(n as usize).map(|node| node.center()))
            .min_by_key(|c| {
                let (dx, dy) = (c.0 as f32 + 0.5 - px, c.1 as f32 + 0.5 - py);
                ((dx * dx + dy * dy) * 16.0) as u64
            })?;
        normalise(target.0 as f32 + 0.5 - px, target.1 as f32 + 0.5 - py)
    }

    /// Whether `cell`, on path `id`'s route, sees its goal (of a goal set: the goal its flow
    /// leads to) in a straight line, however far: an agent there steers straight at it.
    #[must_use]
    pub fn has_line_of_sight(&self, id: PathId, cell: impl Into<Cell>) -> bool {
        let cell = cell.into().into();
        self.paths
            .get(&id)
            .is_some_and(|p| self.has_line_of_sight_on(p, cell))
    }

    /// Whether the whole of `cell` sees the goal of path `id` (of a goal set: the goal
    /// nearest it) in a straight line over clear ground, wherever the cell lies: where the
    /// path's flow covers the cell, [`Self::has_line_of_sight`]. For drawing line of sight
    /// over the map without a route through every sector.
    #[must_use]
    pub fn sees_goal(&self, id: PathId, cell: impl Into<Cell>) -> bool {
        let cell: (u32, u32) = cell.into().into();
        let Some(p) = self.paths.get(&id) else {
            return false;
        };
        let spec = self.nav.layers[p.layer].cost.spec;
        if !spec.contains(i64::from(cell.0), i64::from(cell.1)) {
            return false;
        }
        // Beyond the goal fields' windows no flow byte is asked: the whole map's cells go
        // through here when the editor draws line of sight.
        if p.field_cover.contains_key(&spec.sector_of(cell.0, cell.1)) {
            self.flow_at(p, cell)
                .is_some_and(|f| self.sight(p, cell, f).is_some())
        } else {
            self.sight_beyond(p, cell).is_some()
        }
    }

    /// [`Self::has_line_of_sight`] on a path held outside the world (a query's).
    pub(crate) fn has_line_of_sight_on(&self, p: &PathState, cell: (u32, u32)) -> bool {
        self.flow_at(p, cell)
            .is_some_and(|f| self.sight(p, cell, f).is_some())
    }

    /// The goal `cell` (flow byte `f`) steers straight at, if it sees one: a goal cell
    /// itself; inside a goal field's window, where the field's LOS pass flagged the cell;
    /// beyond every window, the goal nearest in a straight line where the whole cell sees it
    /// ([`Self::sight_beyond`]). So line of sight carries across portal windows as far as
    /// the goal is visible (seed 000), not only over the goal's 3 × 3 sectors.
    fn sight(&self, p: &PathState, cell: (u32, u32), f: u8) -> Option<(u32, u32)> {
        if f & FLOW_LOS != 0 || p.is_goal(cell) {
            return Some(self.seen_goal(p, cell));
        }
        let spec = self.nav.layers[p.layer].cost.spec;
        if p.field_cover.contains_key(&spec.sector_of(cell.0, cell.1)) {
            return None; // the window's own LOS pass answered
        }
        self.sight_beyond(p, cell)
            .filter(|&goal| self.keeps_with_flow_cached(p, cell, goal))
    }

    /// Whether the straight line from `cell` toward `to`, over its first look-ahead of
    /// cells (at least two), crosses no cell of the route whose flow leads back onto the
    /// line ([`leads_back`]). Beyond the goal fields a cell's flow leads to its sector's
    /// exit, which need not be toward the goal: a cell that sees the goal while the next
    /// cell on the line does not, and flows back, would send an agent back and forth
    /// between the two for good. Such a cell follows its flow instead.
    fn keeps_with_flow(&self, p: &PathState, cell: (u32, u32), to: (u32, u32)) -> bool {
        let mut flow = FlowCursor::new(&self.nav.layers[p.layer], p);
        let mut passed = vec![cell];
        let cells = (self.flow_lookahead as usize).clamp(2, MAX_FLOW_LOOKAHEAD);
        segment_clear_on(cell, to, |x, y, side| {
            let at = (x as u32, y as u32);
            side || passed.len() > cells
                || !flow.at(at).is_some_and(|f| leads_back(f, at, &mut passed))
        })
    }

    /// [`Self::keeps_with_flow`] through the path's cache.
    fn keeps_with_flow_cached(&self, p: &PathState, cell: (u32, u32), to: (u32, u32)) -> bool {
        let index = u64::from(cell.1) * u64::from(self.nav.spec.width) + u64::from(cell.0);
        cached_flag(&p.steer.sight_kept, index, || {
            (self.keeps_with_flow(p, cell, to), true)
        })
    }

    /// [`Self::goal_in_sight`] through the path's cache, for cells beyond the goal fields'
    /// windows: first for the whole of the cell's sector at once ([`crate::los::rect_sees`],
    /// one scan of the cells between it and the goal), then, where that fails, per cell.
    /// Answers that met a sector a streamed world has not read are not kept: those cells
    /// count as walls until it does.
    fn sight_beyond(&self, p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
        let cost = &self.nav.layers[p.layer].cost;
        let spec = cost.spec;
        if cost.get(cell.0, cell.1) != CLEAR {
            return None; // only clear ground sees (the cell's own walk starts there)
        }
        let goal = nearest_goal(p, cell)?;
        let sector = spec.sector_of(cell.0, cell.1);
        let states = p
            .steer
            .sight_sectors
            .get_or_init(|| atomic_table(PULLED_SLOTS));
        let state = &states[slot_of(u64::from(sector))];
        let key = (u64::from(sector) + 1) << 2;
        let unheld = std::cell::Cell::new(false);
        let clear = self.clear_held(p.layer, &unheld);
        let wide = |c: (u32, u32)| (i64::from(c.0), i64::from(c.1));
        let entry = state.load(Ordering::Relaxed);
        let mut known = if entry & !3 == key {
            (entry & 3) as u8
        } else {
            SIGHT_UNKNOWN
        };
        if known == SIGHT_UNKNOWN {
            let (x, y, w, h) = spec.sector_rect(sector);
            let corners = [
                (x, y),
                (x + w - 1, y),
                (x, y + h - 1),
                (x + w - 1, y + h - 1),
            ];
            // Cells nearer one goal than another lie on one side of a line, so a sector
            // whose corners share their nearest goal shares it throughout.
            let one_goal = corners.iter().all(|&c| nearest_goal(p, c) == Some(goal));
            let rect = (i64::from(x), i64::from(y), i64::from(w), i64::from(h));
            let whole = one_goal && crate::los::rect_sees(&clear, wide(goal), rect);
            known = if whole { SIGHT_WHOLE } else { SIGHT_PER_CELL };
            state.store(key | u64::from(known), Ordering::Relaxed);
        }
        if known == SIGHT_WHOLE {
            return Some(goal);
        }
        let index = u64::from(cell.1) * u64::from(spec.width) + u64::from(cell.0);
        let sees = cached_flag(&p.steer.sight_cells, index, || {
            unheld.set(false);
            let sees = crate::los::cell_sees(&clear, wide(goal), wide(cell));
            (sees, !unheld.get())
        });
        sees.then_some(goal)
    }

    /// Whether a cell of `layer` is clear ground, for line of sight: off the map, and in a
    /// streamed world in sectors whose cost tiles it does not hold (noted in `unheld`), it
    /// is not.
    fn clear_held<'a>(
        &'a self,
        layer: usize,
        unheld: &'a std::cell::Cell<bool>,
    ) -> impl Fn(i64, i64) -> bool + 'a {
        let cost = &self.nav.layers[layer].cost;
        let spec = cost.spec;
        let whole = self.streamed.is_none();
        move |x, y| {
            if !spec.contains(x, y) {
                return false;
            }
            let (x, y) = (x as u32, y as u32);
            if !whole && !self.holds_costs(layer, spec.sector_of(x, y)) {
                unheld.set(true);
                return false;
            }
            cost.get(x, y) == CLEAR
        }
    }

    /// The goal `cell` (outside the goal field's line of sight) sees over clear
    /// cells from anywhere in the cell ([`crate::los::cell_sees`], the goal field's own test),
    /// if that goal is one the path's flow leads there: the goal nearest in a straight line.
    /// A straight line over cells of the least cost is the cheapest way there, and no other
    /// goal can be reached for less than its straight-line distance.
    fn goal_in_sight(&self, p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
        let cost = &self.nav.layers[p.layer].cost;
        let spec = cost.spec;
        let goal = nearest_goal(p, cell)?;
        let clear = |x: i64, y: i64| spec.contains(x, y) && cost.get(x as u32, y as u32) == CLEAR;
        let c = |c: (u32, u32)| (i64::from(c.0), i64::from(c.1));
        crate::los::cell_sees(clear, c(goal), c(cell)).then_some(goal)
    }

    /// The furthest cell of the flow from `cell`, at most the look-ahead (see
    /// [`Self::set_flow_lookahead`]) steps along it, that `cell` reaches in plain sight and no
    /// dearer than the flow (see [`farthest_in_sight`]). `None` when only the next flow
    /// cell qualifies or the flow stops at once.
    fn pulled_target(&self, p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
        let k = (self.flow_lookahead as usize).min(MAX_FLOW_LOOKAHEAD);
        if k < 2 {
            return None;
        }
        let l = &self.nav.layers[p.layer];
        let (cost, spec) = (&l.cost, l.cost.spec);
        let mut flow = FlowCursor::new(l, p);
        let mut chain = [((0_u32, 0_u32), 0.0_f32); MAX_FLOW_LOOKAHEAD];
        let mut len = 0;
        let mut at = cell;
        while len < k && !p.is_goal(at) {
            let Some(f) = flow.at(at) else {
                break;
            };
            if at != cell && self.sight(p, at, f).is_some() {
                break; // from here the goal is in plain sight
            }
            let Some((dx, dy)) = flow_step(f) else {
                break;
            };
            let (nx, ny) = (
                i64::from(at.0) + i64::from(dx),
                i64::from(at.1) + i64::from(dy),
            );
            if !spec.contains(nx, ny) {
                break;
            }
            let from = at;
            at = (nx as u32, ny as u32);
            chain[len] = (at, step_price(cost, from, at));
            len += 1;
        }
        let j = farthest_in_sight(cost, &mut flow, cell, &chain[..len], true, |_| false)?;
        Some(chain[j].0)
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
        let table = p.steer.pulled.get_or_init(|| atomic_table(PULLED_SLOTS));
        let slot = &table[slot_of(index)];
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

    /// Follows the path from `source` to its goal and pulls the string: the flow's cell steps
    /// (walking off the route as [`Self::sample_flow`] steers, in quarter-cell steps, sliding
    /// along walls, until on the route), then from the source the straight segment to the
    /// furthest cell of that trace in plain sight and no dearer than the trace (the rule
    /// [`Self::steer_target`] applies over its look-ahead, here over the whole trace, as
    /// Detour pulls a corridor, and across any cell no dearer than the trace, where an agent's
    /// look-ahead keeps to the route's sectors so that the flow covers every cell it
    /// enters), from there the next, and straight at the goal from the first point that sees
    /// it (inside the goal field its line-of-sight flag, beyond it the same whole-cell test
    /// per point, so the trace's line of sight carries across portal windows); that string
    /// is then pulled twice more over its own cells, back then forth. The result is the
    /// string: its waypoints, the cells its segments touch and its Euclidean length. `None` for a source
    /// that is a wall or on an island without the path's goal, and when the walk is stuck or
    /// does not reach the goal.
    #[must_use]
    pub fn trace_path(&self, id: PathId, source: impl Into<Cell>) -> Option<TracedPath> {
        self.trace_path_on(self.paths.get(&id)?, source.into().into())
    }

    /// [`Self::trace_path`] on a path held outside the world (a query's).
    pub(crate) fn trace_path_on(&self, p: &PathState, source: (u32, u32)) -> Option<TracedPath> {
        let l = &self.nav.layers[p.layer];
        let (cost, spec) = (&l.cost, l.cost.spec);
        if !self.state_reaches(p, source) {
            return None;
        }
        let mut string = Pulled {
            cells: vec![source],
            waypoints: vec![source],
            length: 0.0,
            links: Vec::new(),
        };
        // The flow's steps since the last point fixed (the source, the end of a walk or of a
        // link).
        let mut anchor = source;
        let mut run: Vec<((u32, u32), f32)> = Vec::new();
        let mut cell = source;
        let cap = 4 * (spec.width as usize + spec.height as usize) + spec.cell_count() / 8;
        // Quarter-cell steps off the route: twice across the map at most, so a walk that
        // slides back and forth in a corner ends (as `None`) within the call's bound.
        let mut walk_steps = 8 * (spec.width as usize + spec.height as usize);
        for _ in 0..cap {
            // At a link the route takes: across it to its exit (a jump in the string).
            let link = self.link_step_at(p, cell);
            let f = self.flow_at(p, cell);
            let end = p.is_goal(cell) || f.is_some_and(|f| f & FLOW_LOS != 0);
            if end || f.is_none() || link.is_some() {
                if let Some(goal) = self.pull_run(p, anchor, &run, &mut string) {
                    // Relaxing runs over the string's cells, which a link's jump breaks.
                    let passes = if self.flow_lookahead < 2 || !string.links.is_empty() {
                        0
                    } else {
                        RELAX_PASSES
                    };
                    for pass in 0..passes {
                        string = self.relax(p, &string, pass % 2 == 0);
                    }
                    let taut = (passes > 0).then_some(cost);
                    // The cheapest string and the taut one keep to the sectors the pulled
                    // string crosses, whose costs a streamed world has read for it, so it
                    // answers as a world read whole.
                    let mut crossed = vec![false; spec.sector_count()];
                    for &(x, y) in &string.cells {
                        crossed[spec.sector_of(x, y) as usize] = true;
                    }
                    if passes > 0 {
                        let on_route = |x: u32, y: u32| crossed[spec.sector_of(x, y) as usize];
                        string = cheapest_over(cost, string, on_route);
                        // The corridor reaches one sector further, which a streamed world
                        // reads for its paths too (`streaming.rs`, `ensure_path_ring`).
                        let ring = self.held_of(p.layer, sector_ring(spec, &crossed));
                        if let Some(walked) = corridor_over(cost, &string, goal, &ring) {
                            string = walked;
                        }
                    }
                    let on_route = |x: u32, y: u32| crossed[spec.sector_of(x, y) as usize];
                    return Some(string.into_traced(goal, taut, on_route));
                }
                run.clear();
                anchor = cell;
            }
            if let Some(step) = link {
                string.links.push((string.cells.len() - 1, step.id));
                string.length += euclidean(cell, step.exit);
                string.cells.push(step.exit);
                string.waypoints.push(step.exit);
                cell = step.exit;
                anchor = cell;
                continue;
            }
            let Some(f) = f else {
                let walked = string.cells.len();
                cell = self.walk_to_route(
                    p,
                    cell,
                    &mut string.cells,
                    &mut string.length,
                    &mut walk_steps,
                )?;
                for i in walked..string.cells.len() {
                    push_waypoint(&mut string.waypoints, string.cells[i]);
                }
                anchor = cell;
                continue;
            };
            let (dx, dy) = flow_step(f)?;
            let (nx, ny) = (
                i64::from(cell.0) + i64::from(dx),
                i64::from(cell.1) + i64::from(dy),
            );
            if !spec.contains(nx, ny) {
                return None;
            }
            let to = (nx as u32, ny as u32);
            run.push((to, step_price(cost, cell, to)));
            cell = to;
        }
        None
    }

    /// Pulls the string from `anchor` (its last point) along `run` (the flow's steps from
    /// there), appending to `string`: from each point straight at the goal if it sees one
    /// (returned), else to the furthest cell of the run in plain sight
    /// ([`farthest_in_sight`]), else to the next cell.
    fn pull_run(
        &self,
        p: &PathState,
        anchor: (u32, u32),
        run: &[((u32, u32), f32)],
        string: &mut Pulled,
    ) -> Option<(u32, u32)> {
        let l = &self.nav.layers[p.layer];
        let mut flow = FlowCursor::new(l, p);
        let mut at = anchor;
        let mut i = 0;
        loop {
            let goal = if p.is_goal(at) {
                Some(at)
            } else {
                match flow.at(at) {
                    Some(f) if f & FLOW_LOS != 0 => Some(flow.seen_goal(at)),
                    Some(_) => self.goal_in_sight(p, at),
                    None => None,
                }
            };
            if let Some(goal) = goal {
                if goal != at {
                    push_line(&mut string.cells, at, goal);
                    string.length += euclidean(at, goal);
                    string.waypoints.push(goal);
                }
                return Some(goal);
            }
            if i >= run.len() {
                return None;
            }
            // A look-ahead below 2 follows the flow cell by cell, as agents then do.
            let j = if self.flow_lookahead < 2 {
                0
            } else {
                farthest_in_sight(&l.cost, &mut flow, at, &run[i..], false, |_| true).unwrap_or(0)
            };
            let to = run[i + j].0;
            push_line(&mut string.cells, at, to);
            string.length += euclidean(at, to);
            push_waypoint(&mut string.waypoints, to);
            at = to;
            i += j + 1;
        }
    }
}

impl NavWorld {
    /// The string pulled again over its own cells (the same rule as the first pull,
    /// [`farthest_in_sight`]), from its end back to its start when `backward`: a bend the
    /// first pull left at a trace cell past the corner it turns at moves back to that corner
    /// (pulled from the other side), and a forward pass then cuts what is left, as an agent
    /// steering at the target ahead of each cell it enters does. Never longer than `string`.
    fn relax(&self, p: &PathState, string: &Pulled, backward: bool) -> Pulled {
        let l = &self.nav.layers[p.layer];
        let cost = &l.cost;
        let mut flow = FlowCursor::new(l, p);
        let mut cells = string.cells.clone();
        if backward {
            cells.reverse();
        }
        let chain: Vec<((u32, u32), f32)> = cells
            .windows(2)
            .map(|w| (w[1], step_price(cost, w[0], w[1])))
            .collect();
        let Some(&first) = cells.first() else {
            return Pulled {
                cells: Vec::new(),
                waypoints: Vec::new(),
                length: 0.0,
                links: Vec::new(),
            };
        };
        let mut out = Pulled {
            cells: vec![first],
            waypoints: vec![first],
            length: 0.0,
            links: Vec::new(),
        };
        let (mut at, mut i) = (first, 0);
        while i < chain.len() {
            let j =
                farthest_in_sight(cost, &mut flow, at, &chain[i..], false, |_| true).unwrap_or(0);
            let to = chain[i + j].0;
            push_line(&mut out.cells, at, to);
            out.length += euclidean(at, to);
            push_waypoint(&mut out.waypoints, to);
            at = to;
            i += j + 1;
        }
        if backward {
            out.cells.reverse();
            out.waypoints.reverse();
        }
        // Each pulled segment costs no more than the cells it replaces, but those cells'
        // own price is by flow steps, not the string's segments: keep the cheaper string.
        let (new_price, old_price) = (
            string_price(cost, &out.waypoints),
            string_price(cost, &string.waypoints),
        );
        if new_price < old_price || (new_price == old_price && out.length <= string.length) {
            out
        } else {
            Pulled {
                cells: string.cells.clone(),
                waypoints: string.waypoints.clone(),
                length: string.length,
                links: string.links.clone(),
            }
        }
    }
}

/// `string` replaced by the cheapest string through its cells
/// ([`super::cheapest::cheapest_string`], segments over cells `open` accepts) when that is
/// cheaper; on cells of one cost the pulls have already made it straight, so it stays.
fn cheapest_over(
    cost: &crate::CostField,
    string: Pulled,
    open: impl Fn(u32, u32) -> bool,
) -> Pulled {
    let first = string.cells.first().map(|&(x, y)| cost.get(x, y));
    if string
        .cells
        .iter()
        .all(|&(x, y)| Some(cost.get(x, y)) == first)
    {
        return string;
    }
    let kept = super::cheapest::cheapest_string(cost, &string.cells, open);
    let mut out = Pulled {
        cells: vec![string.cells[0]],
        waypoints: vec![string.cells[0]],
        length: 0.0,
        links: Vec::new(),
    };
    for w in kept.windows(2) {
        let (a, b) = (string.cells[w[0]], string.cells[w[1]]);
        push_line(&mut out.cells, a, b);
        out.length += euclidean(a, b);
        push_waypoint(&mut out.waypoints, b);
    }
    if string_price(cost, &out.waypoints) < string_price(cost, &string.waypoints) {
        out
    } else {
        string
    }
}

/// `crossed` (one flag per sector) and the ring of sectors round those it marks.
fn sector_ring(spec: crate::grid::GridSpec, crossed: &[bool]) -> Vec<bool> {
    let (sx, sy) = (spec.sectors_x() as usize, spec.sectors_y() as usize);
    let mut out = vec![false; crossed.len()];
    for sector in (0..crossed.len()).filter(|&s| crossed[s]) {
        let (cx, cy) = (sector % sx, sector / sx);
        for gy in cy.saturating_sub(1)..=(cy + 1).min(sy - 1) {
            out[gy * sx + cx.saturating_sub(1)..=gy * sx + (cx + 1).min(sx - 1)].fill(true);
        }
    }
    out
}

/// The cheapest string through the cells of the steepest descent over the sectors `crossed`
/// marks ([`super::cheapest::corridor_descent`], cells elsewhere walls), when it is cheaper
/// than `string`; `None` otherwise, and on cells of one cost, where the pulls have already
/// made the string straight. The trace passes the sectors its pulled string crosses and the
/// ring round them: a flow that climbs a slope inside the sectors the route crosses is
/// often cheaper beside them (an SRTM tile's mean against the fine-direction reference is
/// 1.06 over the crossed sectors alone).
fn corridor_over(
    cost: &crate::CostField,
    string: &Pulled,
    goal: (u32, u32),
    crossed: &[bool],
) -> Option<Pulled> {
    let spec = cost.spec;
    let &source = string.cells.first()?;
    let first = cost.get(source.0, source.1);
    if string.cells.iter().all(|&(x, y)| cost.get(x, y) == first) {
        return None;
    }
    let open = |x: u32, y: u32| crossed[spec.sector_of(x, y) as usize];
    let cells = super::cheapest::corridor_descent(cost, source, goal, open)?;
    let mut walked = Pulled {
        cells: vec![source],
        waypoints: vec![source],
        length: 0.0,
        links: Vec::new(),
    };
    for w in cells.windows(2) {
        walked.cells.push(w[1]);
        walked.length += euclidean(w[0], w[1]);
        push_waypoint(&mut walked.waypoints, w[1]);
    }
    let walked = cheapest_over(cost, walked, open);
    (string_price(cost, &walked.waypoints) < string_price(cost, &string.waypoints))
        .then_some(walked)
}

/// Passes of [`NavWorld::relax`] after the first pull of a trace.
const RELAX_PASSES: usize = 2;

/// A string being pulled by [`NavWorld::trace_path`].
struct Pulled {
    cells: Vec<(u32, u32)>,
    waypoints: Vec<(u32, u32)>,
    length: f64,
    /// As [`TracedPath::links`].
    links: Vec<(usize, u32)>,
}

impl Pulled {
    /// The traced path of this string; with `taut` (the layer's costs) pulled taut round
    /// the wall corners it turns at ([`crate::taut::tighten`]) over the cells `on_route`
    /// accepts (cells outside count as walls), its cells and length those of the taut
    /// string.
    fn into_traced(
        self,
        goal: (u32, u32),
        taut: Option<&crate::CostField>,
        on_route: impl Fn(u32, u32) -> bool,
    ) -> TracedPath {
        let mut points: Vec<Half> = self.waypoints.iter().map(|&c| centre(c)).collect();
        if points.last() != Some(&centre(goal)) {
            points.push(centre(goal));
        }
        let (mut cells, mut length) = (self.cells, self.length);
        if let Some(cost) = taut {
            let spec = cost.spec;
            let price = |x: i64, y: i64| {
                (spec.contains(x, y) && on_route(x as u32, y as u32))
                    .then(|| cost.get(x as u32, y as u32))
                    .filter(|&c| c != WALL)
            };
            let mut pulled = points.clone();
            crate::taut::tighten(&mut pulled, &price, TAUT_PASSES);
            let mut taut_cells = vec![cells[0]];
            let mut free = true;
            for w in pulled.windows(2) {
                free &=
                    crate::taut::walk(w[0], w[1], &|x, y| price(x, y).is_none(), |(x, y), _| {
                        let c = (x as u32, y as u32);
                        if taut_cells.last() != Some(&c) {
                            taut_cells.push(c);
                        }
                    });
            }
            if free {
                length = pulled
                    .windows(2)
                    .map(|w| crate::taut::length(w[0], w[1]))
                    .sum();
                cells = taut_cells;
                points = pulled;
            }
        }
        TracedPath {
            cells,
            waypoints: self.waypoints,
            points: points
                .iter()
                .map(|&(x, y)| (x as f64 / 2.0, y as f64 / 2.0))
                .collect(),
            length,
            goal,
            links: self.links,
        }
    }
}

/// Passes of [`crate::taut::tighten`] over a traced string: each moves every turn to the
/// corners it wraps; a few settle the turns that move their neighbours.
const TAUT_PASSES: usize = 8;

/// How many cells past the last one in sight [`farthest_in_sight`] keeps looking: the
/// cells a trace hidden behind a corner needs to come back into view after a small wiggle.
const PULL_SLACK: usize = 12;

/// The price of one flow step from `a` to its neighbour `b`: its length times the mean cost
/// of its two cells.
fn step_price(cost: &crate::CostField, a: (u32, u32), b: (u32, u32)) -> f32 {
    let step = if a.0 != b.0 && a.1 != b.1 {
        std::f32::consts::SQRT_2
    } else {
        1.0
    };
    step * 0.5 * (f32::from(cost.get(a.0, a.1)) + f32::from(cost.get(b.0, b.1)))
}

/// The price of a string through the centres of `waypoints` ([`segment_price`] summed).
fn string_price(cost: &crate::CostField, waypoints: &[(u32, u32)]) -> f32 {
    waypoints
        .windows(2)
        .map(|w| segment_price(cost, w[0], w[1], false))
        .sum()
}

/// String pulling, shared by [`NavWorld::steer_target`] (over the look-ahead) and
/// [`NavWorld::trace_path`] (over the whole trace): the index of the furthest cell of `chain`
/// (the trace after `from`, each cell with the price of the step into it) that `from` reaches by a straight segment in plain sight and no dearer than the
/// trace: every cell the segment touches is open to it (`open_anywhere` says so, else it
/// must be on the route: have flow for this path) and costs no more than the dearest trace cell
/// up to the target (through a cell corner, both side cells), and the segment's price (its
/// length times the mean cost of the cells it passes through) is no more than the trace's
/// own up to the target. With `scan_back` (an agent's short look-ahead) it tries from the
/// chain's end back, and the segment must also not cross a cell whose flow leads back
/// onto it ([`leads_back`]). Without, it tries forward, stopping [`PULL_SLACK`]
/// cells after the last cell in sight. `None` when only the first cell qualifies.
fn farthest_in_sight(
    cost: &crate::CostField,
    flow: &mut FlowCursor,
    from: (u32, u32),
    chain: &[((u32, u32), f32)],
    scan_back: bool,
    open_anywhere: impl Fn((u32, u32)) -> bool,
) -> Option<usize> {
    let spec = cost.spec;
    // Per chain cell: the dearest cost on the trace up to it and the trace's price to it.
    let mut dearest = cost.get(from.0, from.1);
    let mut price = 0.0_f32;
    let limits: Vec<(u8, f32)> = chain
        .iter()
        .map(|&(to, step)| {
            dearest = dearest.max(cost.get(to.0, to.1));
            price += step;
            (dearest, price)
        })
        .collect();
    // The look-ahead's cells so far on the segment being tried, for a flow that leads back
    // onto them; one buffer for every segment (a trace does not look, and leaves it empty).
    let mut passed = Vec::new();
    let mut sees = |j: usize| {
        let (to, (limit, trace_price)) = (chain[j].0, limits[j]);
        if limit == WALL {
            return false;
        }
        let start = cost.get(from.0, from.1);
        let (mut lo, mut hi) = (start, start);
        passed.clear();
        if scan_back {
            passed.push(from);
        }
        // Through a cell corner both side cells must be open: an agent has a body, so the
        // string keeps off wall corners (the crowd's corner clearance relies on it).
        let clear = segment_clear_on(from, to, |x, y, side| {
            spec.contains(x, y) && {
                let c = cost.get(x as u32, y as u32);
                if !side {
                    (lo, hi) = (lo.min(c), hi.max(c));
                }
                let cell = (x as u32, y as u32);
                c <= limit
                    && (open_anywhere(cell)
                        || flow.at(cell).is_some_and(|f| {
                            side || !scan_back || !leads_back(f, cell, &mut passed)
                        }))
            }
        });
        clear && segment_price(cost, from, to, lo == hi) <= trace_price * (1.0 + 1e-5)
    };
    if scan_back {
        return (1..chain.len()).rev().find(|&j| sees(j));
    }
    let mut best = None;
    let mut last_seen = 0;
    for j in 1..chain.len() {
        if j - last_seen > PULL_SLACK {
            break;
        }
        if sees(j) {
            best = Some(j);
            last_seen = j;
        }
    }
    best
}

/// Appends `to` to a string of waypoints, dropping the last point when it lies on the
/// straight segment from the one before it to `to` (a run of flow steps in one direction is
/// one segment).
fn push_waypoint(waypoints: &mut Vec<(u32, u32)>, to: (u32, u32)) {
    if let [.., a, b] = waypoints.as_slice() {
        let (ax, ay) = (i64::from(a.0), i64::from(a.1));
        let (bx, by) = (i64::from(b.0) - ax, i64::from(b.1) - ay);
        let (cx, cy) = (i64::from(to.0) - ax, i64::from(to.1) - ay);
        if bx * cy == by * cx && bx * cx + by * cy > 0 {
            waypoints.pop();
        }
    }
    waypoints.push(to);
}

/// Whether the flow byte `f` of `cell`, the next cell a straight line enters after the
/// cells it `passed` (which this extends), leads back onto one of those: an agent that
/// follows the line into `cell` is turned round there toward where it came from, and the
/// answers of the two cells would send it back and forth for good (a pocket beside the
/// route whose flow leaves by the way the line enters it). A flow that leads off the line
/// elsewhere (a watershed the line clips) lets it go on.
fn leads_back(f: u8, cell: (u32, u32), passed: &mut Vec<(u32, u32)>) -> bool {
    let back = flow_step(f).is_some_and(|(dx, dy)| {
        let next = (
            i64::from(cell.0) + i64::from(dx),
            i64::from(cell.1) + i64::from(dy),
        );
        passed
            .iter()
            .any(|&(x, y)| (i64::from(x), i64::from(y)) == next)
    });
    passed.push(cell);
    back
}

/// The step to the neighbouring cell a flow byte points at; `None` for no direction.
fn flow_step(f: u8) -> Option<(i32, i32)> {
    DIRECTIONS.get((f & 0x0F) as usize).copied()
}

/// Half the longest step an agent takes between two samples, in cells: the distance
/// [`keep_off_walls`] looks ahead.
const SAFE_STEP: f32 = 0.5;

/// How far short of a wall the look-ahead stops, in cells: an agent's position is rounded
/// to `f32` after each step, which must not carry it over a wall's edge.
const WALL_MARGIN: f32 = 1e-3;

/// `wanted` if a step of [`SAFE_STEP`] along it from `pos` (in a passable cell) stays clear
/// of the walls of `cost` (see [`step_clear`]); else the wanted direction's component along whichever axis
/// is clear (sliding along the wall), the larger first; else straight back to the centre of
/// `pos`'s cell, which a step of that length never leaves.
fn keep_off_walls(cost: &crate::CostField, pos: (f32, f32), wanted: (f32, f32)) -> (f32, f32) {
    let spec = cost.spec;
    let (cx, cy) = (pos.0.floor() as i64, pos.1.floor() as i64);
    let wall = |x: i64, y: i64| !spec.contains(x, y) || cost.get(x as u32, y as u32) == WALL;
    // The 3 × 3 cells a half-cell step can reach, read once.
    let mut around = [[false; 3]; 3];
    let mut any = false;
    for (j, row) in around.iter_mut().enumerate() {
        for (i, w) in row.iter_mut().enumerate() {
            *w = wall(cx + i as i64 - 1, cy + j as i64 - 1);
            any |= *w;
        }
    }
    // In a wall (pushed there), the flow around leads out: nothing to keep off.
    if !any || around[1][1] {
        return wanted;
    }
    let clear = |d: (f32, f32)| step_clear(&around, (cx, cy), pos, d);
    if clear(wanted) {
        return wanted;
    }
    let along_x = (wanted.0.signum(), 0.0);
    let along_y = (0.0, wanted.1.signum());
    let slides = if wanted.0.abs() >= wanted.1.abs() {
        [along_x, along_y]
    } else {
        [along_y, along_x]
    };
    for d in slides {
        if d != (0.0, 0.0) && clear(d) {
            return d;
        }
    }
    normalise(cx as f32 + 0.5 - pos.0, cy as f32 + 0.5 - pos.1).unwrap_or(wanted)
}

/// Whether the segment from `pos` to `pos + SAFE_STEP · d` keeps [`WALL_MARGIN`] away from
/// every wall among `around` (the 3 × 3 cells centred on cell `c`, `around[row][column]`),
/// and does not pass between two walls that meet at a corner.
fn step_clear(around: &[[bool; 3]; 3], c: (i64, i64), pos: (f32, f32), d: (f32, f32)) -> bool {
    let (px, py) = (f64::from(pos.0), f64::from(pos.1));
    let (dx, dy) = (
        f64::from(d.0) * f64::from(SAFE_STEP),
        f64::from(d.1) * f64::from(SAFE_STEP),
    );
    let m = f64::from(WALL_MARGIN);
    for (j, row) in around.iter().enumerate() {
        for (i, &w) in row.iter().enumerate() {
            if !w {
                continue;
            }
            let (x0, y0) = ((c.0 + i as i64 - 1) as f64, (c.1 + j as i64 - 1) as f64);
            // Liang–Barsky against the wall square grown by the margin: any overlap of
            // positive length blocks.
            let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
            let mut inside = true;
            for (p, q) in [
                (-dx, px - (x0 - m)),
                (dx, (x0 + 1.0 + m) - px),
                (-dy, py - (y0 - m)),
                (dy, (y0 + 1.0 + m) - py),
            ] {
                if p == 0.0 {
                    if q <= 0.0 {
                        inside = false;
                        break;
                    }
                } else {
                    let r = q / p;
                    if p < 0.0 {
                        t0 = t0.max(r);
                    } else {
                        t1 = t1.min(r);
                    }
                }
            }
            if inside && t1 > t0 {
                return false;
            }
        }
    }
    // A step into a diagonal neighbour between two walls would squeeze through their corner.
    let (ex, ey) = ((px + dx).floor() as i64, (py + dy).floor() as i64);
    let (ox, oy) = (ex - c.0, ey - c.1);
    if ox != 0 && oy != 0 {
        let side_x = around[1][(1 + ox) as usize];
        let side_y = around[(1 + oy) as usize][1];
        if side_x || side_y {
            return false;
        }
    }
    true
}

/// Euclidean distance between two cell centres.
fn euclidean(a: (u32, u32), b: (u32, u32)) -> f64 {
    let dx = f64::from(a.0) - f64::from(b.0);
    let dy = f64::from(a.1) - f64::from(b.1);
    (dx * dx + dy * dy).sqrt()
}

impl NavWorld {
    /// Walks from the centre of `cell`, off the route of path `p`, in quarter-cell steps the
    /// way [`Self::sample_flow`] steers, until a cell on the route (or a goal); returns that
    /// cell, having added the cells crossed and the distance. Into a wall it slides along it;
    /// `None` when it can move neither way, leaves the map, or runs out of `steps`.
    fn walk_to_route(
        &self,
        p: &PathState,
        cell: (u32, u32),
        cells: &mut Vec<(u32, u32)>,
        length: &mut f64,
        steps: &mut usize,
    ) -> Option<(u32, u32)> {
        const STEP: f32 = 0.25;
        let cost = &self.nav.layers[p.layer].cost;
        let spec = cost.spec;
        let mut pos = (cell.0 as f32 + 0.5, cell.1 as f32 + 0.5);
        let mut at = cell;
        let open = |p: (f32, f32)| {
            let (fx, fy) = (p.0.floor(), p.1.floor());
            spec.contains(fx as i64, fy as i64) && cost.get(fx as u32, fy as u32) != WALL
        };
        while *steps > 0 {
            *steps -= 1;
            let (dx, dy) = self.sample_flow_on(p, pos)?;
            // Into a wall the walk slides along it, as an agent's disc does: the part of
            // the step along the wall is kept.
            let step = [(dx, dy), (dx, 0.0), (0.0, dy)]
                .into_iter()
                .map(|(sx, sy)| (pos.0 + sx * STEP, pos.1 + sy * STEP))
                .find(|&p| open(p))?;
            *length += f64::from(((step.0 - pos.0).powi(2) + (step.1 - pos.1).powi(2)).sqrt());
            pos = step;
            let next = (pos.0.floor() as u32, pos.1.floor() as u32);
            if next == at {
                continue;
            }
            at = next;
            cells.push(at);
            if p.is_goal(at) || self.flow_at(p, at).is_some() {
                return Some(at);
            }
        }
        None
    }
}

/// Flow reads of one path, as [`NavWorld::flow_at`] gives them, remembering the last
/// sector's exits: the look-ahead reads runs of neighbouring cells.
pub(super) struct FlowCursor<'a> {
    layer: &'a NavLayer,
    path: &'a PathState,
    sector: u32,
    origin: (u32, u32, u32),
    exits: std::borrow::Cow<'a, [(u32, u32)]>,
    /// Where routes that go before the goal field enter `sector` (see
    /// [`PathState::route_first`]); empty where the goal field steers first.
    route_entries: Vec<(u32, u32)>,
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
            exits: std::borrow::Cow::Borrowed(&[]),
            route_entries: Vec::new(),
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
            self.exits = self.path.exits_in(sector);
            self.route_entries = self.path.route_first_entries(sector);
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
    /// corridor (only in sectors with several exits unless it steers everywhere), else the
    /// permutation tile of the first exit of the cell's sector whose tile
    /// reaches the cell; in the parts of sectors where the route goes first (see
    /// [`PathState::route_first`]) the goal field comes last. `None` off the route.
    fn at(&mut self, cell: (u32, u32)) -> Option<u8> {
        let l = self.layer;
        self.enter(cell);
        let field_here = !self.route_first_at(cell);
        // Where the route goes first, its flow; the goal field still covers cells it misses.
        let split = self.exits.len() > 1;
        let corridor = |cell| {
            let c = self
                .path
                .corridor
                .as_ref()
                .filter(|c| c.everywhere || split)?;
            c.flow_at(l, cell)
        };
        if !field_here && let Some(f) = corridor(cell).or_else(|| self.tile_flow(cell)) {
            return Some(f);
        }
        if let Some((gf, i, _)) = self.path.field_at(self.cover, cell) {
            return Some(gf.flow[i]);
        }
        corridor(cell).or_else(|| self.tile_flow(cell))
    }

    /// Whether `cell` (in the cursor's sector) lies where a route goes before the goal
    /// field: some exit's tile reaches both it and a cell where such a route enters. A
    /// tile reaches exactly the cells joined to its exit inside the sector, so this is
    /// "in the same part of the sector as the route".
    fn route_first_at(&self, cell: (u32, u32)) -> bool {
        if self.route_entries.is_empty() {
            return false;
        }
        let reached = |tile: &[u8], c: (u32, u32)| {
            self.index(c)
                .and_then(|i| tile.get(i))
                .is_some_and(|&f| f & 0x0F != DIR_NONE)
        };
        self.exits.iter().any(|&(_, node)| {
            self.exit_tile(node).is_some_and(|tile| {
                reached(tile, cell) && self.route_entries.iter().any(|&e| reached(tile, e))
            })
        })
    }

    /// Index of `cell` in the cursor's sector's tiles (`None` outside the sector).
    fn index(&self, cell: (u32, u32)) -> Option<usize> {
        let (x0, y0, w) = self.origin;
        let (dx, dy) = (cell.0.checked_sub(x0)?, cell.1.checked_sub(y0)?);
        (dx < w).then_some((dy * w + dx) as usize)
    }

    /// The flow tile of exit `node`: its link's where it is a link's entry, else its
    /// permutation tile.
    fn exit_tile(&self, node: u32) -> Option<&'a [u8]> {
        let l = self.layer;
        match self.path.links.as_ref().and_then(|ll| ll.end(node)) {
            Some(end) => Some(&end.tile),
            None => l
                .flows
                .tiles
                .get(*l.flows.node_tile.get(node as usize)? as usize)
                .map(|t| &t[..]),
        }
    }

    /// The flow byte of the first exit tile of the cursor's sector that reaches `cell`.
    fn tile_flow(&self, cell: (u32, u32)) -> Option<u8> {
        let i = self.index(cell)?;
        self.exits.iter().find_map(|&(_, node)| {
            // A link's entry: the flow ends there (see `NavWorld::link_at`).
            if let Some(end) = self.path.links.as_ref().and_then(|ll| ll.end(node))
                && end.cells.contains(&cell)
            {
                return Some(FLOW_PATHABLE | DIR_NONE);
            }
            let f = *self.exit_tile(node)?.get(i)?;
            (f & 0x0F != DIR_NONE).then_some(f)
        })
    }
}

/// [`crate::integrate::segment_clear`] over map coordinates.
fn segment_clear_on(
    from: (u32, u32),
    to: (u32, u32),
    open: impl FnMut(i64, i64, bool) -> bool,
) -> bool {
    crate::integrate::segment_clear(
        (i64::from(from.0), i64::from(from.1)),
        (i64::from(to.0), i64::from(to.1)),
        open,
    )
}

/// Appends the cells the straight segment from `a` (excluded) to `b` (included) touches, in
/// order (the side cells of a corner crossing left out): each step is orthogonal, or a
/// diagonal through a corner whose two side cells [`segment_clear_on`] found open.
fn push_line(cells: &mut Vec<(u32, u32)>, a: (u32, u32), b: (u32, u32)) {
    segment_clear_on(a, b, |x, y, side| {
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
