//! ALT landmark tables over a hierarchy's border nodes: the flat tables' bounds for the nodes
//! a hierarchical search mostly expands, at a fraction of the size (border nodes are about
//! an eighth of the portal nodes with clusters of 8 × 8 sectors) and built over the smaller
//! border graph.
//!
//! A finishing node that is no border node has no entry. Its forward term takes the least
//! distance from the landmark to any border node of its cluster: a route from outside enters
//! the cluster through one, and a landmark inside the cluster is itself a border node at
//! distance 0. Its backward term (`d(f, L)`, needed from above) comes from a search inside
//! its cluster to the cluster's border nodes, for goal nodes; a node of an earlier route needs
//! none, because its route reaches a goal node, which bounds it (see
//! [`ClusterLandmarks::add_finish`]).

use super::{Hierarchy, LocalSearch};
use crate::landmarks::{
    LANDMARK_COUNT, LandmarkBounds, LandmarkBuilder, Landmarks, pick_near_perimeter,
};
use crate::layer::NavLayer;
use crate::search_graph::SearchGraph;

/// Landmark tables over border nodes, with each cluster's least forward distance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterLandmarks {
    /// Tables in border indices.
    tables: Landmarks,
    /// Per cluster (in the hierarchy's cluster order) and landmark, the least forward cost
    /// from the landmark to a border node of the cluster, in the tables' stored units.
    cluster_min: Vec<u16>,
}

impl ClusterLandmarks {
    /// Bytes of the tables.
    pub(crate) fn memory(&self) -> usize {
        self.tables.memory() + 2 * self.cluster_min.capacity()
    }

    /// Picks landmarks among the border nodes of the largest island near the map's perimeter
    /// and runs their Dijkstras over the border graph (all on all cores).
    #[must_use]
    pub fn build(hierarchy: &Hierarchy, layer: &NavLayer, graph: &SearchGraph) -> Option<Self> {
        let mut builder = Self::builder(hierarchy, layer, graph)?;
        while !builder.step(layer) {}
        Some(Self::from_tables(hierarchy, builder.finish(layer)?))
    }

    /// The same build a few Dijkstras at a time (for [`crate::NavWorld::rebuild`]); finish it
    /// with [`Self::from_tables`]. `None` without border nodes.
    #[must_use]
    pub fn builder(
        hierarchy: &Hierarchy,
        layer: &NavLayer,
        graph: &SearchGraph,
    ) -> Option<LandmarkBuilder> {
        if hierarchy.border.is_empty() {
            return None;
        }
        let candidates: Vec<(u32, (u32, u32), u32)> = hierarchy
            .border
            .iter()
            .enumerate()
            .map(|(b, &id)| {
                // A link end node has no portal node: its centre's island.
                match layer.nodes.get(graph.node_id(id) as usize) {
                    Some(node) => (b as u32, node.center(), node.island),
                    None => {
                        let c = graph.center(id);
                        (b as u32, c, layer.islands.island_at(c.0, c.1))
                    }
                }
            })
            .collect();
        let sources = pick_near_perimeter(layer.cost.spec, &candidates, LANDMARK_COUNT);
        Some(LandmarkBuilder::over_graph(hierarchy.border_csr(), sources))
    }

    /// Wraps tables in border indices, computing the clusters' least forward distances.
    #[must_use]
    pub fn from_tables(hierarchy: &Hierarchy, tables: Landmarks) -> Self {
        let count = tables.count();
        let mut cluster_min = Vec::with_capacity(hierarchy.clusters.len() * count);
        for &(key, _, _) in &hierarchy.clusters {
            let borders = hierarchy.cluster_borders(key);
            for k in 0..count {
                let least = borders
                    .clone()
                    .filter_map(|b| tables.forward_stored(k, b))
                    .min()
                    .unwrap_or(u16::MAX);
                cluster_min.push(least);
            }
        }
        Self {
            tables,
            cluster_min,
        }
    }

    /// The tables, in border indices.
    #[must_use]
    pub fn tables(&self) -> &Landmarks {
        &self.tables
    }

    /// Bounds of one search with no finishing node yet.
    #[must_use]
    pub fn bounds(&self) -> LandmarkBounds<'_> {
        self.tables.bounds()
    }

    /// Adds finishing node `id` (a search id) with remaining cost `rest` to `bounds`. A
    /// border node adds its own entries. Any other adds its cluster's least forward
    /// distance, and, when `goal` (a goal sector's node), a backward term through the
    /// cluster's border nodes it reaches. A node of an earlier route needs no backward term:
    /// its route reaches a goal node `g` at cost `rest(f) − rest(g)`, so
    /// `d(f, L) − rest(f) ≤ d(g, L) − rest(g)`, which `g` already contributes.
    #[allow(clippy::too_many_arguments)]
    pub fn add_finish(
        &self,
        bounds: &mut LandmarkBounds<'_>,
        hierarchy: &Hierarchy,
        graph: &SearchGraph,
        id: u32,
        rest: u32,
        goal: bool,
        local: &mut LocalSearch,
    ) {
        if let Some(b) = hierarchy.border_index(id) {
            bounds.add_finish(b, rest);
            return;
        }
        let key = graph.cluster_key(id);
        let Ok(c) = hierarchy
            .clusters
            .binary_search_by_key(&key, |&(k, _, _)| k)
        else {
            return;
        };
        let count = self.tables.count();
        bounds.add_finish_forward(&self.cluster_min[c * count..(c + 1) * count], rest);
        if goal {
            let (lo, hi) = (hierarchy.clusters[c].1, hierarchy.clusters[c].2);
            let borders = hierarchy.cluster_borders(key);
            let is_border = |v: u32| hierarchy.border_index(v).is_some();
            local.run_marking(graph, (lo, hi), id, &is_border, borders.len());
            let via: Vec<(u32, u32)> = borders
                .filter_map(|b| Some((b, local.cost(lo, hierarchy.border[b as usize])?)))
                .collect();
            bounds.add_finish_backward_via(&via, rest);
        }
    }
}
