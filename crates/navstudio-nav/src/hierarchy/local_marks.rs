//! Landmarks inside each cluster, for the searches that refine a hierarchical route: the
//! costs from a few of the cluster's border nodes (those nearest its corners) to each of its
//! nodes. For a stretch to border node `b`, `d(ℓ, b) − d(ℓ, v)` bounds what is left from `v`
//! (the triangle inequality, Goldberg & Harrelson's ALT), so the refining search runs as A*
//! toward `b` instead of a Dijkstra that settles every node closer to `a` than `b` is.
//!
//! A cluster's marks are computed on the first search that refines through it (a Dijkstra
//! per mark over the cluster), so opening a package costs nothing and a game pays per
//! cluster it routes through (at 8192², 8 bytes per portal node once it has been everywhere).

use std::sync::OnceLock;

use super::{Hierarchy, LocalSearch};
use crate::search_graph::SearchGraph;

/// Marks per cluster.
pub const LOCAL_MARKS: usize = 4;

/// Stored cost of a node a mark does not reach, or of every node of a mark whose costs
/// exceed 16 bits (the mark is then left out, so the bound stays consistent).
const UNKNOWN: u16 = u16::MAX;

/// One cluster's marks.
#[derive(Debug)]
pub(super) struct ClusterMarks {
    /// Per node of the cluster (by search id minus the cluster's first), per mark: the
    /// cost from the mark.
    dist: Vec<[u16; LOCAL_MARKS]>,
}

impl ClusterMarks {
    /// A consistent lower bound on the cost from `v` to `b` inside the cluster whose first
    /// search id is `lo`: the largest `d(ℓ, b) − d(ℓ, v)` over marks `ℓ` reaching both.
    pub(super) fn bound(&self, lo: u32, v: u32, b: u32) -> u32 {
        let (Some(at_v), Some(at_b)) = (
            self.dist.get((v - lo) as usize),
            self.dist.get((b - lo) as usize),
        ) else {
            return 0;
        };
        at_v.iter()
            .zip(at_b)
            .filter(|&(&dv, &db)| dv != UNKNOWN && db != UNKNOWN)
            .map(|(&dv, &db)| u32::from(db.saturating_sub(dv)))
            .max()
            .unwrap_or(0)
    }
}

/// Per cluster of a [`Hierarchy`], its marks once a search has needed them. Derived data:
/// two hierarchies compare equal whatever their caches hold, and a clone starts empty.
#[derive(Debug, Default)]
pub(super) struct LocalMarks {
    clusters: Vec<OnceLock<ClusterMarks>>,
}

impl LocalMarks {
    /// Bytes of the marks computed so far.
    pub(super) fn memory(&self) -> usize {
        let marks: usize = self
            .clusters
            .iter()
            .filter_map(OnceLock::get)
            .map(|m| size_of::<[u16; LOCAL_MARKS]>() * m.dist.capacity())
            .sum();
        marks + size_of_val(&*self.clusters)
    }

    /// An empty cache for `clusters` clusters.
    pub(super) fn new(clusters: usize) -> Self {
        Self {
            clusters: (0..clusters).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The marks of cluster `c` (its index in the hierarchy's clusters), computed now if
    /// missing, with `local`'s memory; `None` for an index out of range.
    pub(super) fn get(
        &self,
        c: usize,
        hierarchy: &Hierarchy,
        graph: &SearchGraph,
        local: &mut LocalSearch,
    ) -> Option<&ClusterMarks> {
        let slot = self.clusters.get(c)?;
        Some(slot.get_or_init(|| compute(c, hierarchy, graph, local)))
    }
}

impl Clone for LocalMarks {
    fn clone(&self) -> Self {
        Self::new(self.clusters.len())
    }
}

impl PartialEq for LocalMarks {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for LocalMarks {}

/// Picks cluster `c`'s marks (the border nodes with the least and largest `x + y` and
/// `x − y` of their centres) and runs a Dijkstra inside the cluster from each.
fn compute(
    c: usize,
    hierarchy: &Hierarchy,
    graph: &SearchGraph,
    local: &mut LocalSearch,
) -> ClusterMarks {
    let (key, lo, hi) = hierarchy.clusters[c];
    let borders: Vec<u32> = hierarchy
        .cluster_borders(key)
        .map(|b| hierarchy.border[b as usize])
        .collect();
    let corner = |score: &dyn Fn((u32, u32)) -> i64| {
        borders
            .iter()
            .copied()
            .min_by_key(|&id| score(graph.center(id)))
    };
    let (x, y) = (
        |p: (u32, u32)| i64::from(p.0),
        |p: (u32, u32)| i64::from(p.1),
    );
    let mut marks: Vec<u32> = [
        corner(&|p| x(p) + y(p)),
        corner(&|p| -(x(p) + y(p))),
        corner(&|p| x(p) - y(p)),
        corner(&|p| y(p) - x(p)),
    ]
    .into_iter()
    .flatten()
    .collect();
    marks.sort_unstable();
    marks.dedup();
    let mut dist = vec![[UNKNOWN; LOCAL_MARKS]; (hi - lo) as usize];
    for (k, &mark) in marks.iter().enumerate() {
        local.run(graph, (lo, hi), mark, None);
        let fits = (lo..hi).all(|id| local.cost(lo, id).is_none_or(|d| d < u32::from(UNKNOWN)));
        if !fits {
            continue;
        }
        for (i, row) in dist.iter_mut().enumerate() {
            if let Some(d) = local.cost(lo, lo + i as u32) {
                row[k] = u16::try_from(d).unwrap_or(UNKNOWN);
            }
        }
    }
    ClusterMarks { dist }
}
