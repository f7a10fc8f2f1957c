//! Costs changed at run time: single cells and stamps, and the time-sliced rebuild queue
//! that brings sectors, landmark tables and live paths up to date.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::sample::PulledCache;
use super::{NavWorld, PathId, StampHandle};
use crate::grid::WALL;
use crate::layer::rebuild_sectors;

pub(super) struct AppliedStamp {
    layers: Vec<usize>,
    rect: (u32, u32, u32, u32),
    original: Vec<Vec<u8>>,
}

/// A block of cells `(x, y, w, h)`, as stamps take it.
pub type StampRect = (u32, u32, u32, u32);

impl NavWorld {
    /// Sets one cell's cost at run time (255 = wall); the rebuild happens in [`Self::rebuild`].
    pub fn set_cost(&mut self, layer: usize, x: u32, y: u32, cost: u8) {
        self.write_costs(&[layer], (x, y, 1, 1), &[cost.max(1)]);
    }

    /// Writes a `w × h` block of costs at `(x, y)` into the given movement types (255 =
    /// wall), keeping no record to undo it (a re-bake's new costs); the rebuild happens in
    /// [`Self::rebuild`]. The block must lie on the map.
    pub fn set_costs(&mut self, layers: &[usize], rect: (u32, u32, u32, u32), costs: &[u8]) {
        let spec = self.nav.spec;
        let (x, y, w, h) = rect;
        if x.saturating_add(w) > spec.width
            || y.saturating_add(h) > spec.height
            || costs.len() != (w * h) as usize
        {
            return;
        }
        let costs: Vec<u8> = costs.iter().map(|&c| c.max(1)).collect();
        self.write_costs(layers, rect, &costs);
    }

    /// The movement types and cell rectangle `(x, y, w, h)` an applied stamp covers.
    #[must_use]
    pub fn stamp_area(&self, handle: StampHandle) -> Option<(&[usize], StampRect)> {
        self.stamps
            .get(&handle.0)
            .map(|s| (s.layers.as_slice(), s.rect))
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
        let layers = self.keep_layers(&layers);
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
        self.dirty.len() + self.landmark_builds.len() + self.goal_moves.len()
    }

    /// Drains the rebuild queue for about `budget`. Moved goals are re-planned first (at
    /// least one per call), as they are what agents wait on. Then dirty sectors are rebuilt
    /// in batches (portals, graph edges, islands, flow tiles of them and their neighbours),
    /// in sector order; when they are done, live paths are re-planned and cached goal fields
    /// dropped. Returns `true` when nothing is left.
    pub fn rebuild(&mut self, budget: Duration) -> bool {
        let start = Instant::now();
        if !self.replan_moved_goals(start, budget) {
            return false;
        }
        if !self.costs_changed {
            return true;
        }
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
            // The hierarchy is in the old search ids: its clusters around the batch are
            // recomputed on the layer's next request or below, the others moved.
            let had_hierarchy = self.mark_clusters_dirty(layer, &batch);
            rebuild_sectors(&mut Arc::make_mut(&mut self.nav).layers[layer], &batch);
            self.forget_pulled();
            if let Some(graph) = self.search_graphs.get_mut(layer) {
                *graph = None;
            }
            // Landmark tables are indexed by node id and hold the old costs: recompute them
            // (below, time-sliced too) for layers that had them.
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
            if start.elapsed() >= budget && !self.dirty.is_empty() {
                return false;
            }
        }
        let mut builds = std::mem::take(&mut self.landmark_builds);
        while let Some((&layer, slot)) = builds.iter_mut().next() {
            if slot.is_none() {
                *slot = self.start_landmark_build(layer);
            }
            let Some(builder) = slot.as_mut() else {
                builds.remove(&layer);
                continue;
            };
            let l = &self.nav.layers[layer];
            while !builder.step(l) {
                if start.elapsed() >= budget {
                    self.landmark_builds = builds;
                    return false;
                }
            }
            if let Some(done) = builds.remove(&layer).flatten() {
                self.finish_landmark_build(layer, done);
            }
        }
        self.costs_changed = false;
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
