//! Reading a path: flow sampling for steering (line of sight, look-ahead, bilinear flow),
//! line-of-sight queries and tracing a path cell by cell.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{MAX_FLOW_LOOKAHEAD, NavWorld, PathId, PathState, TracedPath};
use crate::grid::{DIR_NONE, DIRECTIONS, FLOW_LOS, WALL};
use crate::layer::NavLayer;

/// Look-ahead targets by cell, filled by [`NavWorld::sample_flow`] on first use: a
/// direct-mapped table of atomic entries, so threads sampling one path share it without a
/// lock. A target is a pure function of the path and the cell (and the look-ahead, whose
/// setting is part of each entry), so a race only computes one twice.
#[derive(Debug, Default)]
pub(super) struct PulledCache(std::sync::OnceLock<Box<[AtomicU64]>>);

/// Entries of a [`PulledCache`].
const PULLED_SLOTS: usize = 4096;

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
    /// 8-connected line, never less than the Euclidean length), else one flow step. Off the
    /// path's route (a cell that is not one of its sources, nor on the sectors its flow
    /// covers) it walks as `sample_flow` steers, in steps of a quarter cell, until it is on
    /// the route (sliding along walls it meets). `None` for a source that is a wall or on an
    /// island without the path's goal, and when the walk is stuck or does not reach the goal.
    #[must_use]
    pub fn trace_path(&self, id: PathId, source: (u32, u32)) -> Option<TracedPath> {
        let p = self.paths.get(&id)?;
        let spec = self.nav.layers[p.layer].cost.spec;
        let island = self.island_at(p.layer, source);
        if island == 0 || p.goal_islands.binary_search(&island).is_err() {
            return None;
        }
        let mut cell = source;
        let mut cells = vec![cell];
        let mut length = 0.0;
        let cap = 4 * (spec.width as usize + spec.height as usize) + spec.cell_count() / 8;
        // Quarter-cell steps off the route: twice across the map at most, so a walk that
        // slides back and forth in a corner ends (as `None`) within the call's bound.
        let mut walk_steps = 8 * (spec.width as usize + spec.height as usize);
        for _ in 0..cap {
            if p.is_goal(cell) {
                return Some(TracedPath {
                    cells,
                    length,
                    goal: cell,
                });
            }
            let Some(f) = self.flow_at(p, cell) else {
                cell = self.walk_to_route(id, p, cell, &mut cells, &mut length, &mut walk_steps)?;
                continue;
            };
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
}

impl NavWorld {
    /// Walks from the centre of `cell`, off the route of path `p`, in quarter-cell steps the
    /// way [`Self::sample_flow`] steers, until a cell on the route (or a goal); returns that
    /// cell, having added the cells crossed and the distance. Into a wall it slides along it;
    /// `None` when it can move neither way, leaves the map, or runs out of `steps`.
    fn walk_to_route(
        &self,
        id: PathId,
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
            let (dx, dy) = self.sample_flow(id, pos)?;
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
    /// corridor (only in sectors with several exits unless it steers everywhere), else the
    /// permutation tile of the first exit of the cell's sector whose tile
    /// reaches the cell; in sectors where the route goes first (see
    /// [`PathState::route_first`]) the goal field comes last. `None` off the route.
    fn at(&mut self, cell: (u32, u32)) -> Option<u8> {
        let l = self.layer;
        self.enter(cell);
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

/// [`crate::integrate::segment_clear`] over map coordinates.
fn segment_clear(
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
