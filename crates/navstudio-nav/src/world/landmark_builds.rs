//! The rebuild queue's landmark work: per rebuilt layer, starting the build, its pieces
//! (picking the landmarks, reversing the graph, the searches), the layer's search layout,
//! and storing the tables a landmark at a time, each checking the call's clock.

use std::collections::BTreeMap;
use std::time::Instant;

use super::NavWorld;
use super::budget::{Slice, Unit};
use crate::landmarks::LandmarkBuilder;
use crate::search_graph::SearchGraph;

impl NavWorld {
    /// Advances the landmark builds of rebuilt layers while `clock` allows; `true` when
    /// every one is done and its tables are in place.
    pub(super) fn advance_landmark_builds(&mut self, clock: &mut Slice) -> bool {
        let mut builds = std::mem::take(&mut self.landmark_builds);
        let drained = self.advance_builds(&mut builds, clock);
        self.landmark_builds = builds;
        drained
    }

    fn advance_builds(
        &mut self,
        builds: &mut BTreeMap<usize, Option<LandmarkBuilder>>,
        clock: &mut Slice,
    ) -> bool {
        while let Some((&layer, slot)) = builds.iter_mut().next() {
            if slot.is_none() {
                if !clock.may_start(&self.unit_costs, Unit::LandmarkStart) {
                    return false;
                }
                let at = Instant::now();
                *slot = self.start_landmark_build(layer);
                clock.done(&mut self.unit_costs, Unit::LandmarkStart, at);
            }
            let Some(builder) = slot.as_mut() else {
                builds.remove(&layer);
                continue;
            };
            let deadline = clock.deadline();
            if !builder.is_done() {
                if clock.spent() {
                    return false;
                }
                let l = &self.nav.layers[layer];
                // Without a deadline each step is one table: run them all.
                while !builder.step_until(l, deadline) {
                    if deadline.is_some() {
                        clock.worked();
                        return false;
                    }
                }
                clock.worked();
            }
            // The tables are stored in the search graph's order: laying it out is a unit of
            // its own.
            let flat = !builder.is_over_own_graph();
            if flat && self.search_graphs.get(layer).is_none_or(Option::is_none) {
                if !clock.may_start(&self.unit_costs, Unit::Layout) {
                    return false;
                }
                let at = Instant::now();
                self.search_graph(layer);
                clock.done(&mut self.unit_costs, Unit::Layout, at);
            }
            if clock.spent() {
                return false;
            }
            let rank = if flat {
                self.search_graphs
                    .get(layer)
                    .and_then(Option::as_deref)
                    .map(SearchGraph::search_ids)
            } else {
                None
            };
            let stored = builder.finish_until(&self.nav.layers[layer], rank, deadline);
            clock.worked();
            if !stored {
                return false;
            }
            if let Some(done) = builds.remove(&layer).flatten() {
                self.finish_landmark_build(layer, done);
            }
        }
        true
    }
}
