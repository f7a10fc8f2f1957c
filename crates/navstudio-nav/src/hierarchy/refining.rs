//! Refining a route found over the hierarchy one hop at a time, so the work can stop at a
//! frame's deadline and go on in the next call: a hop of a level above the clusters is
//! unpacked into hops of the level below (see [`Levels`]), and a cluster's shortcut into the
//! portal nodes of its cheapest stretch (see [`Hierarchy`]). Every hop's refinement depends
//! on its two ends and its level alone, so the order of the steps, and where the calls stop,
//! change nothing in the route.

use super::{ClusterLandmarks, Hierarchy, Levels, LocalSearch, OpenCells, UnpackScratch};
use crate::search_graph::SearchGraph;

/// A hop of a route being refined: `(from, to, level of its edge)`, each end as
/// `(search id, cost from the source)`; level 0 is the hierarchy's own edges.
pub type Hop = ((u32, u32), (u32, u32), usize);

/// What a route is refined over.
pub struct RefineOver<'a> {
    /// The layout the route's search ids belong to.
    pub graph: &'a SearchGraph,
    /// The cluster graph the route was found on.
    pub hierarchy: &'a Hierarchy,
    /// The levels the search crossed, if any.
    pub levels: Option<&'a Levels>,
    /// The landmark tables that guide the levels' unpacking.
    pub landmarks: Option<&'a ClusterLandmarks>,
    /// The cells holding opened clusters, as the search left them.
    pub open_cells: &'a OpenCells,
    /// Whether a cluster (by key) was opened: its nodes were expanded one by one.
    pub is_open: &'a dyn Fn(u32) -> bool,
}

/// A route under refinement, with the memory of its searches.
#[derive(Debug, Default)]
pub struct Refining {
    /// The route as the search found it.
    coarse: Vec<(u32, u32)>,
    /// Index in `coarse` of the end of the next hop to take from it.
    next: usize,
    /// Index in `coarse` of the end of the first hop left unrefined (see [`Self::start`]).
    stop: usize,
    /// Hops of the current one still to refine, next at the back.
    hops: Vec<Hop>,
    /// The refined route so far.
    out: Vec<(u32, u32)>,
    unpack: UnpackScratch,
    local: LocalSearch,
}

impl Refining {
    /// Starts refining `route` (`(search id, cost from the source)`), its hops up to the
    /// one ending at index `stop` excluded: [`Self::far_hops`] gives the rest.
    pub fn start(&mut self, route: &[(u32, u32)], stop: usize) {
        self.coarse.clear();
        self.coarse.extend_from_slice(route);
        self.next = 1;
        self.stop = stop;
        self.hops.clear();
        self.out.clear();
        self.out.extend(route.first());
    }

    /// Starts refining the one hop `hop` (of a route's far part, see [`Self::far_hops`]).
    pub fn start_hop(&mut self, hop: Hop) {
        self.coarse.clear();
        self.next = 1;
        self.stop = usize::MAX;
        self.hops.clear();
        self.hops.push(hop);
        self.out.clear();
        self.out.push(hop.0);
    }

    /// The hops of the route [`Self::start`] left unrefined, in travel order, with the
    /// level each is refined from.
    #[must_use]
    pub fn far_hops(&self, over: &RefineOver<'_>) -> Vec<Hop> {
        let from = self.next.max(1);
        self.coarse
            .get(from - 1..)
            .unwrap_or(&[])
            .windows(2)
            .map(|pair| (pair[0], pair[1], coarse_level(over, pair[0].0)))
            .collect()
    }

    /// Refines one hop (one search at most); `false` once the route is refined.
    pub fn step(&mut self, over: &RefineOver<'_>) -> bool {
        let hop = match self.hops.pop() {
            Some(hop) => hop,
            None => {
                if self.next >= self.stop {
                    return false;
                }
                let (Some(&a), Some(&b)) = (
                    self.coarse.get(self.next.wrapping_sub(1)),
                    self.coarse.get(self.next),
                ) else {
                    return false;
                };
                self.next += 1;
                (a, b, coarse_level(over, a.0))
            }
        };
        let (a, b, level) = hop;
        if level > 0
            && let Some(levels) = over.levels
        {
            let before = self.hops.len();
            levels.unpack_hop(
                over.hierarchy,
                over.landmarks,
                hop,
                &mut self.unpack,
                &mut self.hops,
            );
            if self.hops.len() > before {
                return true;
            }
        }
        over.hierarchy.refine_hop(
            over.graph,
            a,
            b,
            over.is_open,
            &mut self.local,
            &mut self.out,
        );
        true
    }

    /// Refines to the end, or until `deadline` (looked at after every hop): whether done.
    pub fn run(&mut self, over: &RefineOver<'_>, deadline: Option<std::time::Instant>) -> bool {
        while self.step(over) {
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return !self.step_left();
            }
        }
        true
    }

    /// Whether hops are left to refine.
    fn step_left(&self) -> bool {
        !self.hops.is_empty() || self.next < self.coarse.len().min(self.stop)
    }

    /// The refined route (once [`Self::run`] says done).
    #[must_use]
    pub fn route(&self) -> &[(u32, u32)] {
        &self.out
    }
}

/// The level of a hop of the search's route from search id `a`: the one its search
/// expanded `a` at (see [`Levels::level_of`]), 0 in an opened cluster or off the border.
fn coarse_level(over: &RefineOver<'_>, a: u32) -> usize {
    let Some(levels) = over.levels else {
        return 0;
    };
    let Some(ba) = over.hierarchy.border_index(a) else {
        return 0;
    };
    let key = over.hierarchy.border_key(ba);
    if (over.is_open)(key) {
        0
    } else {
        levels.level_of(over.hierarchy, ba, key, over.open_cells)
    }
}
