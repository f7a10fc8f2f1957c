//! Costs changed at run time: single cells and stamps, and the time-sliced rebuild queue
//! that brings sectors, landmark tables and live paths up to date.

use crate::vocab::{Cell, MoveType};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::budget::{Slice, Unit};
use super::sample::SteerCache;
use super::{NavWorld, StampHandle};
use crate::grid::{CellRect, WALL};
use crate::layer::rebuild_sectors;

/// A record of costs written over others: a stamp, or a cost change made on top of one.
///
/// Records stack per cell in the order written (their ids). Each keeps the costs that were
/// under it when it was written, so removing one anywhere in the stack hands those costs to
/// the next record above it at each cell, or shows them where it was on top: any order of
/// applying and removing gives the costs of the remaining writes replayed in order.
pub(super) struct AppliedStamp {
    layers: Vec<usize>,
    rect: (u32, u32, u32, u32),
    /// Per layer (as in `layers`), the costs under the record, row by row.
    original: Vec<Vec<u8>>,
    /// A cell cost set over a stamp ([`NavWorld::set_cost`], [`NavWorld::set_costs`]):
    /// never removed, recorded only so stamps under it hand their costs up instead of
    /// overwriting it; dropped once no stamp lies under it.
    pinned: bool,
}

impl AppliedStamp {
    fn overlaps(&self, layer: usize, rect: StampRect) -> bool {
        self.layers.contains(&layer) && intersect(self.rect, rect).is_some()
    }
}

/// Dirty sectors one rebuild batch takes (see [`NavWorld::rebuild`]). Fixed, not fitted to
/// the budget: the batches decide how portals are renumbered, and a drained queue must give
/// the same world however fast the machine ran.
const BATCH: usize = 64;

/// A block of cells `(x, y, w, h)`, as the stamp records keep it.
type StampRect = (u32, u32, u32, u32);

/// The layer indices of `move_types` (a slice of [`MoveType`]s or of indices).
fn indices(move_types: &[impl Into<MoveType> + Copy]) -> Vec<usize> {
    move_types.iter().map(|&t| t.into().index()).collect()
}

/// `rect` as `(x, y, w, h)`.
fn xywh(rect: CellRect) -> StampRect {
    (rect.x0, rect.y0, rect.width(), rect.height())
}

/// The common part of two rectangles, if they share a cell.
fn intersect(a: StampRect, b: StampRect) -> Option<StampRect> {
    let x0 = a.0.max(b.0);
    let y0 = a.1.max(b.1);
    let x1 = (a.0 + a.2).min(b.0 + b.2);
    let y1 = (a.1 + a.3).min(b.1 + b.3);
    (x0 < x1 && y0 < y1).then(|| (x0, y0, x1 - x0, y1 - y0))
}

impl NavWorld {
    /// Sets one cell's cost at run time (255 = wall); the rebuild happens in [`Self::rebuild`].
    /// Over a stamp the new cost shows at once and stays when the stamp is removed, as if
    /// written after it (see [`Self::apply_stamp`]).
    pub fn set_cost(&mut self, move_type: impl Into<MoveType>, cell: impl Into<Cell>, cost: u8) {
        let (layer, Cell { x, y }) = (move_type.into().index(), cell.into());
        let spec = self.nav.spec;
        if x >= spec.width || y >= spec.height {
            return;
        }
        self.write_over_stamps(&[layer], (x, y, 1, 1), &[cost.max(1)]);
    }

    /// Writes the costs of block `rect` (row by row) into the given movement types (255 =
    /// wall), keeping no record to undo it (a re-bake's new costs); the rebuild happens in
    /// [`Self::rebuild`]. The block must lie on the map. Over stamps it behaves as
    /// [`Self::set_cost`] does.
    pub fn set_costs(
        &mut self,
        move_types: &[impl Into<MoveType> + Copy],
        rect: CellRect,
        costs: &[u8],
    ) {
        let layers = indices(move_types);
        let spec = self.nav.spec;
        let rect = xywh(rect);
        let (x, y, w, h) = rect;
        if x.saturating_add(w) > spec.width
            || y.saturating_add(h) > spec.height
            || costs.len() != (w * h) as usize
        {
            return;
        }
        let costs: Vec<u8> = costs.iter().map(|&c| c.max(1)).collect();
        self.write_over_stamps(&layers, rect, &costs);
    }

    /// Writes costs that are never removed; where a stamp lies under them they are recorded
    /// (pinned) so that removing the stamp keeps them.
    fn write_over_stamps(&mut self, layers: &[usize], rect: StampRect, costs: &[u8]) {
        let layers: Vec<usize> = layers
            .iter()
            .copied()
            .filter(|&l| l < self.nav.layers.len())
            .collect();
        let covered = self
            .stamps
            .values()
            .any(|s| !s.pinned && layers.iter().any(|&l| s.overlaps(l, rect)));
        if covered {
            self.record(&layers, rect, costs, true);
        } else {
            self.write_costs(&layers, rect, costs);
        }
    }

    /// The movement types and the block of cells an applied stamp covers.
    #[must_use]
    pub fn stamp_area(&self, handle: StampHandle) -> Option<(&[usize], CellRect)> {
        self.stamps.get(&handle.0).filter(|s| !s.pinned).map(|s| {
            let (x, y, w, h) = s.rect;
            (s.layers.as_slice(), CellRect::at(x, y, w, h))
        })
    }

    /// Stamps the costs of block `rect` (row by row) into the given movement types, recording
    /// the costs under it so [`Self::remove_stamp`] can restore them.
    ///
    /// Stamps compose: where they overlap the one applied last shows, and after any sequence
    /// of applying and removing, every cell has the cost it would have had if only the
    /// remaining stamps (and the cost changes made meanwhile) had been written, in the order
    /// they were.
    pub fn apply_stamp(
        &mut self,
        move_types: &[impl Into<MoveType> + Copy],
        rect: CellRect,
        costs: &[u8],
    ) -> StampHandle {
        let layers = indices(move_types);
        let (x, y, w, h) = xywh(rect);
        let spec = self.nav.spec;
        let clipped_rect = (
            x.min(spec.width),
            y.min(spec.height),
            w.min(spec.width.saturating_sub(x)),
            h.min(spec.height.saturating_sub(y)),
        );
        let layers: Vec<usize> = layers
            .into_iter()
            .filter(|&l| l < self.nav.layers.len())
            .collect();
        // Costs are given for the unclipped block: take the clipped part row by row.
        let mut clipped = Vec::with_capacity((clipped_rect.2 * clipped_rect.3) as usize);
        for row in 0..clipped_rect.3 {
            for col in 0..clipped_rect.2 {
                clipped.push(
                    costs
                        .get((row * w + col) as usize)
                        .copied()
                        .unwrap_or(WALL)
                        .max(1),
                );
            }
        }
        self.record(&layers, clipped_rect, &clipped, false)
    }

    /// Writes `costs` over `rect` and keeps a record of what was under them.
    fn record(
        &mut self,
        layers: &[usize],
        rect: StampRect,
        costs: &[u8],
        pinned: bool,
    ) -> StampHandle {
        let layers = self.keep_layers(layers);
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
        self.write_costs(&layers, rect, costs);
        let handle = StampHandle(self.next_stamp);
        self.next_stamp += 1;
        self.stamps.insert(
            handle.0,
            AppliedStamp {
                layers,
                rect,
                original,
                pinned,
            },
        );
        handle
    }

    /// Removes a stamp: at each cell it covered, what was under it goes to the record written
    /// next above it there, or, where it was on top, back onto the map. Handles not applied
    /// (or removed already) are ignored.
    pub fn remove_stamp(&mut self, handle: StampHandle) {
        if self.stamps.get(&handle.0).is_none_or(|s| s.pinned) {
            return;
        }
        let Some(s) = self.stamps.remove(&handle.0) else {
            return;
        };
        let (rx, ry, rw, rh) = s.rect;
        for (i, &l) in s.layers.iter().enumerate() {
            let under = &s.original[i];
            // Cells a later record covers: they keep showing it, which now lies on `under`.
            let mut claimed = vec![false; under.len()];
            for later in self.stamps.range_mut(handle.0 + 1..).map(|(_, t)| t) {
                let Some(k) = later.layers.iter().position(|&t| t == l) else {
                    continue;
                };
                let Some((ix, iy, iw, ih)) = intersect(later.rect, s.rect) else {
                    continue;
                };
                let (lx, ly, lw, _) = later.rect;
                for y in iy..iy + ih {
                    for x in ix..ix + iw {
                        let mine = ((y - ry) * rw + (x - rx)) as usize;
                        if !claimed[mine] {
                            claimed[mine] = true;
                            later.original[k][((y - ly) * lw + (x - lx)) as usize] = under[mine];
                        }
                    }
                }
            }
            if claimed.iter().all(|&c| c) {
                continue;
            }
            let mut shown = Vec::new();
            self.nav.layers[l]
                .cost
                .copy_window(rx, ry, rw, rh, &mut shown);
            for (j, c) in shown.iter_mut().enumerate() {
                if !claimed[j] {
                    *c = under[j];
                }
            }
            self.write_costs(&[l], s.rect, &shown);
        }
        // Pinned costs with no stamp left under them need no record.
        let free: Vec<u32> =
            self.stamps
                .iter()
                .filter(|&(&id, p)| {
                    p.pinned
                        && id > handle.0
                        && s.layers.iter().any(|&l| p.overlaps(l, s.rect))
                        && !self.stamps.range(..id).any(|(_, t)| {
                            !t.pinned && p.layers.iter().any(|&l| t.overlaps(l, p.rect))
                        })
                })
                .map(|(&id, _)| id)
                .collect();
        for id in free {
            self.stamps.remove(&id);
        }
    }

    /// Drops every live path's steering answers (look-ahead targets, line of sight). Each is
    /// a pure function of the path and the cell only while costs and flow tiles stay put; kept across a change, which
    /// stale entries survive would depend on which thread wrote a slot last, and the crowd
    /// would stop being the same on any number of threads.
    fn forget_steering(&mut self) {
        for p in self.paths.values_mut() {
            p.steer = SteerCache::default();
        }
    }

    fn write_costs(&mut self, layers: &[usize], rect: (u32, u32, u32, u32), costs: &[u8]) {
        self.forget_steering();
        let layers = self.keep_layers(layers);
        let (x0, y0, w, h) = rect;
        for &li in &layers {
            let Some(l) = Arc::make_mut(&mut self.nav).layers.get_mut(li) else {
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
                self.costs_changed = true;
            }
        }
    }

    /// Work left in the rebuild queue: dirty sectors, layers whose landmark tables are
    /// being recomputed, and goals moved across a sector border (see [`Self::move_goal`]).
    #[must_use]
    pub fn pending_rebuilds(&self) -> usize {
        self.dirty.len()
            + self.landmark_builds.len()
            + self.goal_moves.len()
            + self.replans.len()
            + usize::from(self.links_pending())
    }

    /// Drains the rebuild queue for about `budget`. Moved goals are re-planned first (at
    /// least one per call), as they are what agents wait on. Then dirty sectors are rebuilt
    /// in batches (portals, graph edges, islands, flow tiles of them and their neighbours),
    /// in sector order, and landmark tables recomputed a piece at a time (picking the
    /// landmarks, searches, storing the tables); when they are done, cached goal fields are
    /// dropped and live paths re-planned, one at a time, each in two units (its goal field,
    /// then its route), published whole. Work that runs whole starts only when what is left
    /// of the budget is expected to hold it (see `budget.rs`); sliced work checks the clock
    /// every few thousand nodes; each call does at least one unit. Where a call stops
    /// depends on the clock, what a drained queue leaves does not. Returns `true` when
    /// nothing is left.
    pub fn rebuild(&mut self, budget: Duration) -> bool {
        let mut clock = Slice::new(budget);
        if !self.replan_moved_goals(&mut clock) {
            return false;
        }
        // Link changes: one unit of their own (see `links.rs`).
        if self.links_pending() {
            if !clock.may_start(&self.unit_costs, Unit::Links) {
                return false;
            }
            let at = Instant::now();
            self.apply_link_changes();
            clock.done(&mut self.unit_costs, Unit::Links, at);
        }
        if !self.costs_changed {
            return self.replan_live_paths(&mut clock);
        }
        while !self.dirty.is_empty() {
            if !clock.may_start(&self.unit_costs, Unit::Batch) {
                return false;
            }
            let at = Instant::now();
            self.rebuild_batch();
            clock.done(&mut self.unit_costs, Unit::Batch, at);
        }
        // Island ids may have been renumbered: reachability across links follows them.
        self.refresh_link_reach();
        if !self.advance_landmark_builds(&mut clock) {
            return false;
        }
        self.costs_changed = false;
        self.goal_cache.clear();
        if self.replan_on_rebuild {
            self.replans = self.paths.keys().rev().copied().collect();
            self.replan_ready = None;
        }
        self.replan_live_paths(&mut clock)
    }

    /// Rebuilds the next batch of dirty sectors (of the first layer with any).
    fn rebuild_batch(&mut self) {
        let Some(&(layer, _)) = self.dirty.iter().next() else {
            return;
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
        // The hierarchy is in the old search ids: its clusters around the batch are
        // recomputed on the layer's next request or below, the others moved.
        let had_hierarchy = self.mark_clusters_dirty(layer, &batch);
        rebuild_sectors(&mut Arc::make_mut(&mut self.nav).layers[layer], &batch);
        self.forget_steering();
        if let Some(graph) = self.search_graphs.get_mut(layer) {
            *graph = None;
        }
        // Landmark tables are indexed by node id and hold the old costs: recompute them
        // (in the queue, time-sliced too) for layers that had them.
        let stored = self
            .stored_landmarks
            .get_mut(layer)
            .and_then(Option::take)
            .is_some();
        let built = self
            .landmarks
            .get_mut(layer)
            .and_then(Option::take)
            .is_some();
        if stored || built || had_hierarchy || self.landmark_builds.contains_key(&layer) {
            self.landmark_builds.insert(layer, None);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;
    use std::time::Duration;

    use super::super::NavWorld;
    use crate::NavData;
    use crate::grid::{CellRect, WALL};
    use crate::landmarks::tests::random_layer;

    /// One run-time change, as replayed on the fresh world.
    #[derive(Clone, Debug)]
    enum Op {
        Stamp {
            layers: Vec<usize>,
            rect: CellRect,
            costs: Vec<u8>,
        },
        Cost {
            layer: usize,
            cell: (u32, u32),
            cost: u8,
        },
    }

    fn base() -> Arc<NavData> {
        let layers = vec![random_layer(11), random_layer(12)];
        Arc::new(NavData::new(layers[0].cost.spec, 1.0, layers))
    }

    fn apply(world: &mut NavWorld, op: &Op) -> Option<super::StampHandle> {
        match op {
            Op::Stamp {
                layers,
                rect,
                costs,
            } => Some(world.apply_stamp(layers, *rect, costs)),
            Op::Cost { layer, cell, cost } => {
                world.set_cost(*layer, *cell, *cost);
                None
            }
        }
    }

    /// Random overlapping stamps (some hanging off the map) and cell costs, applied and
    /// removed in random order with part-drained rebuilds between, then drained: every cost,
    /// every island answer and every traced path equals a fresh world's that was given only
    /// the changes still in place, in the order they were made.
    #[test]
    fn stamps_removed_in_any_order_give_a_fresh_worlds_costs() {
        let seeds: Vec<u64> = match std::env::var("NAVSTUDIO_SEED") {
            Ok(s) => vec![s.parse().unwrap()],
            Err(_) => (0..24).collect(),
        };
        let nav = base();
        let spec = nav.spec;
        for seed in seeds {
            let mut rng = crate::rng::SplitMix64::new(seed);
            let mut next = move |n: u32| rng.below(n);
            let mut world = NavWorld::from_nav(nav.clone());
            // (op, live handle or None once removed / for a cost)
            let mut log: Vec<(Op, Option<super::StampHandle>, bool)> = Vec::new();
            for _ in 0..40 {
                match next(10) {
                    0..=4 => {
                        // Stamps cluster in one corner so that most overlap.
                        let (w, h) = (1 + next(12), 1 + next(12));
                        let rect = CellRect::at(20 + next(spec.width - 20), 20 + next(20), w, h);
                        let layers = match next(3) {
                            0 => vec![0],
                            1 => vec![1],
                            _ => vec![0, 1],
                        };
                        let costs = (0..w * h)
                            .map(|_| {
                                if next(3) == 0 {
                                    WALL
                                } else {
                                    1 + next(254) as u8
                                }
                            })
                            .collect();
                        let op = Op::Stamp {
                            layers,
                            rect,
                            costs,
                        };
                        let handle = apply(&mut world, &op);
                        log.push((op, handle, true));
                    }
                    5..=7 => {
                        let live: Vec<usize> = (0..log.len())
                            .filter(|&i| log[i].1.is_some() && log[i].2)
                            .collect();
                        if !live.is_empty() {
                            let i = live[next(live.len() as u32) as usize];
                            world.remove_stamp(log[i].1.unwrap());
                            log[i].2 = false;
                        }
                    }
                    8 => {
                        let op = Op::Cost {
                            layer: next(2) as usize,
                            cell: (20 + next(spec.width - 20), 20 + next(20)),
                            cost: 1 + next(255) as u8,
                        };
                        apply(&mut world, &op);
                        log.push((op, None, true));
                    }
                    _ => {
                        world.rebuild(Duration::ZERO);
                    }
                }
            }
            while !world.rebuild(Duration::from_millis(5)) {}
            let mut fresh = NavWorld::from_nav(nav.clone());
            for (op, _, kept) in &log {
                if *kept {
                    apply(&mut fresh, op);
                }
            }
            while !fresh.rebuild(Duration::from_millis(5)) {}
            for l in 0..2 {
                let (a, b) = (&world.nav().layers[l], &fresh.nav().layers[l]);
                let (ca, cb) = (a.cost.to_cells(), b.cost.to_cells());
                if let Some(i) = (0..ca.len()).find(|&i| ca[i] != cb[i]) {
                    panic!(
                        "seed {seed} (rerun with NAVSTUDIO_SEED={seed}): movement type {l}, \
                         cell ({}, {}) costs {} after the changes, {} in a fresh world; \
                         changes: {log:?}",
                        i as u32 % spec.width,
                        i as u32 / spec.width,
                        ca[i],
                        cb[i]
                    );
                }
                for _ in 0..40 {
                    let from = (next(spec.width), next(spec.height));
                    let to = (next(spec.width), next(spec.height));
                    assert_eq!(
                        world.is_reachable(l, from, to),
                        fresh.is_reachable(l, from, to),
                        "seed {seed}: type {l}, {from:?} → {to:?}"
                    );
                    let (pa, pb) = (
                        world.request_path(l, &[from], to),
                        fresh.request_path(l, &[from], to),
                    );
                    assert_eq!(
                        pa.is_ok(),
                        pb.is_ok(),
                        "seed {seed}: type {l}, {from:?} → {to:?}"
                    );
                    if let (Ok(pa), Ok(pb)) = (pa, pb) {
                        let ta = world.trace_path(pa, from).map(|t| t.cells);
                        let tb = fresh.trace_path(pb, from).map(|t| t.cells);
                        assert_eq!(ta, tb, "seed {seed}: type {l}, {from:?} → {to:?}");
                        world.release_path(pa);
                        fresh.release_path(pb);
                    }
                }
            }
        }
    }
}
