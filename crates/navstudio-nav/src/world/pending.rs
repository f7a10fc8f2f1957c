//! Requests that fit a frame: a path request started now and advanced under a time budget
//! per call, as seed 000 spreads its integrator over ticks. The portal search, which is
//! most of a request across a big map, stops at the call's deadline and goes on from there
//! in the next call; a call says when the path is ready. The path is the one
//! [`NavWorld::request_path_to_any`] plans: stopping changes when the work is done, not
//! what it finds.

use super::tuples;
use crate::vocab::{Cell, MoveType};
use std::time::{Duration, Instant};

use super::budget::Slice;
use super::{NavWorld, PathError, PathId, PathState};
use crate::route::SearchScratch;

/// A path request under way (see [`NavWorld::start_path`]).
#[derive(Debug)]
pub struct PendingPath {
    layer: usize,
    sources: Vec<(u32, u32)>,
    goals: Vec<(u32, u32)>,
    /// The path planned so far and the sources to route, once the request is checked.
    planned: Option<(PathState, Vec<(u32, u32)>)>,
    /// Whether every source is routed (what is left: reading the routes' tiles).
    routed: bool,
    /// Between calls, the search state of the source being routed, and the clusters the
    /// request has opened (the world's own scratch while a call runs).
    scratch: SearchScratch,
    open: Vec<bool>,
    /// Calls made so far.
    calls: u32,
}

impl PendingPath {
    /// A request not started.
    pub(crate) fn new(layer: usize, sources: &[(u32, u32)], goals: &[(u32, u32)]) -> Self {
        Self {
            layer,
            sources: sources.to_vec(),
            goals: goals.to_vec(),
            planned: None,
            routed: false,
            scratch: SearchScratch::default(),
            open: Vec::new(),
            calls: 0,
        }
    }

    /// The movement type requested.
    #[must_use]
    pub fn layer(&self) -> usize {
        self.layer
    }

    /// Calls of [`NavWorld::advance_path`] made so far.
    #[must_use]
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// The sources routed so far, of those that can reach a goal.
    #[must_use]
    pub fn sources_routed(&self) -> usize {
        self.planned.as_ref().map_or(0, |(p, _)| p.routes.len())
    }
}

impl NavWorld {
    /// Starts a request for a path from `sources` to the nearest of `goals` for movement
    /// type `layer`, doing no work yet: give it to [`Self::advance_path`] each frame. A
    /// rebuild between its calls (see [`Self::rebuild`]) makes it plan on the data as it
    /// is then; start it again after one to be sure.
    #[must_use]
    pub fn start_path(
        &self,
        move_type: impl Into<MoveType>,
        sources: &[impl Into<Cell> + Copy],
        goals: &[impl Into<Cell> + Copy],
    ) -> PendingPath {
        PendingPath::new(move_type.into().index(), &tuples(sources), &tuples(goals))
    }

    /// Works on `pending` for about `budget`: `None` while the path is not ready,
    /// `Some(Ok(id))` once it is planned (the same path [`Self::request_path_to_any`]
    /// plans), `Some(Err(..))` for a request it refuses. A call stops its search, and the
    /// refinement of its route, at the budget, and starts a goal field or a streamed
    /// region's read only when the budget left is expected to hold it (by what the last
    /// ones took; a call's first work always runs, so a loop of calls finishes). Work that
    /// runs whole — checking the request and the integrations of its sources' and goals'
    /// sectors — can make a call overrun its budget by that much. A call after the answer
    /// gives the answer's error again or `None`.
    pub fn advance_path(
        &mut self,
        pending: &mut PendingPath,
        budget: Duration,
    ) -> Option<Result<PathId, PathError>> {
        let state = match self.advance_plan(pending, Instant::now(), budget)? {
            Ok(state) => state,
            Err(e) => return Some(Err(e)),
        };
        let id = PathId(self.next_path);
        self.next_path = self.next_path.wrapping_add(1);
        self.paths.insert(id, state);
        Some(Ok(id))
    }

    /// Of a streamed world, reads the regions a request's check reads (its sources' sectors
    /// and its goal fields' windows) a region at a time under `clock`: whether all are in.
    fn preload_request(&mut self, pending: &PendingPath, clock: &mut Slice) -> bool {
        if self.streamed.is_none() {
            return true;
        }
        let spec = self.nav.spec;
        let mut need = self.sectors_around(&pending.goals);
        need.extend(
            pending
                .sources
                .iter()
                .filter(|c| c.0 < spec.width && c.1 < spec.height)
                .map(|&(x, y)| spec.sector_of(x, y)),
        );
        // A request the check refuses (an unknown type) gets its answer from the check.
        self.ensure_sectors_sliced(pending.layer, need, Some(clock))
            .unwrap_or(true)
    }

    /// [`Self::advance_path`] without keeping the path: the planned state once ready, the
    /// call's budget counted from `start`.
    pub(crate) fn advance_plan(
        &mut self,
        pending: &mut PendingPath,
        start: Instant,
        budget: Duration,
    ) -> Option<Result<PathState, PathError>> {
        let mut clock = Slice::since(start, budget);
        let first = pending.calls == 0;
        pending.calls += 1;
        // A later call goes on with the scratch and opened clusters the last one left.
        if !first {
            std::mem::swap(&mut self.scratch, &mut pending.scratch);
            std::mem::swap(&mut self.cluster_open, &mut pending.open);
        } else {
            self.scratch.abandon();
        }
        let fresh = pending.planned.is_none();
        if fresh && !self.preload_request(pending, &mut clock) {
            std::mem::swap(&mut self.scratch, &mut pending.scratch);
            std::mem::swap(&mut self.cluster_open, &mut pending.open);
            return None;
        }
        if fresh {
            match self.plan_start(pending.layer, &pending.sources, &pending.goals) {
                Ok(planned) => pending.planned = Some(planned),
                Err(e) => return Some(Err(e)),
            }
            clock.worked();
        }
        let (state, reachable) = pending.planned.as_mut()?;
        let routed = state.routes.len();
        let done = if pending.routed {
            Ok(true)
        } else {
            self.route_sources_until(state, &reachable[routed..], Some(&mut clock), fresh)
        };
        let done = done.and_then(|routed| {
            pending.routed = routed;
            if routed {
                self.finish_routes(state, Some(&mut clock))
            } else {
                Ok(false)
            }
        });
        match done {
            Ok(false) => {
                std::mem::swap(&mut self.scratch, &mut pending.scratch);
                std::mem::swap(&mut self.cluster_open, &mut pending.open);
                None
            }
            Ok(true) => {
                self.decode_levels_in_background(pending.layer);
                pending.planned.take().map(|(state, _)| Ok(state))
            }
            Err(e) => {
                pending.planned = None;
                Some(Err(e))
            }
        }
    }
}
