//! Which search a layer's requests run — the flat portal A* with ALT tables per portal node,
//! or the sector hierarchy with tables per border node (see [`crate::hierarchy`]) — and the
//! hierarchy's life: read from the package or built on a layer's first request, dropped when
//! its graph is rebuilt.

use crate::vocab::MoveType;
use std::collections::BTreeSet;
use std::sync::Arc;

use super::NavWorld;
use crate::hierarchy::{ClusterLandmarks, Hierarchy, Levels, pays_off};
use crate::landmarks::LandmarkBuilder;
use crate::search_graph::{SearchGraph, sector_cluster_key};

/// Which portal search path requests run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// The hierarchy with its levels on maps of at least 200 × 200 sectors, or when the package stores one;
    /// the flat search otherwise.
    #[default]
    Auto,
    /// Always the flat portal A*.
    Flat,
    /// Always the sector hierarchy, its clusters only (built on a layer's first request if
    /// not stored).
    Clusters,
    /// Always the sector hierarchy with its levels above the clusters: each level's cells
    /// group 2 × 2 cells of the level below, and a route is searched top-down.
    Levels,
}

/// One layer's sector hierarchy with its landmark tables.
#[derive(Clone, Debug)]
pub struct LayerHierarchy {
    /// Clusters, border nodes and shortcuts.
    pub hierarchy: Hierarchy,
    /// Landmark tables over the border nodes (`None` when off or the layer has none).
    pub landmarks: Option<ClusterLandmarks>,
}

/// The size of a layer's search hierarchy, as tools report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterStats {
    /// Clusters of sectors.
    pub clusters: usize,
    /// Portal nodes on cluster borders.
    pub border_nodes: usize,
    /// Levels of clusters above the first (0 when the search uses clusters alone).
    pub levels: usize,
}

impl NavWorld {
    /// Chooses the portal search (default [`SearchMode::Auto`]). Both find routes of the same
    /// cost bound; the hierarchy expands far fewer nodes across big maps.
    pub fn set_search_mode(&mut self, mode: SearchMode) {
        self.search_mode = mode;
        self.published = None;
    }

    /// The portal search chosen.
    #[must_use]
    pub fn search_mode(&self) -> SearchMode {
        self.search_mode
    }

    /// Whether `layer`'s requests search over the sector hierarchy.
    pub(super) fn uses_clusters(&self, layer: usize) -> bool {
        match self.search_mode {
            SearchMode::Flat => false,
            SearchMode::Clusters | SearchMode::Levels => true,
            SearchMode::Auto => {
                let stored = self
                    .stored_hierarchies
                    .get(layer)
                    .is_some_and(Option::is_some)
                    || self.hierarchies.get(layer).is_some_and(Option::is_some)
                    || self
                        .stale_hierarchies
                        .get(layer)
                        .is_some_and(Option::is_some);
                stored || pays_off(self.nav.spec)
            }
        }
    }

    /// `layer`'s hierarchy, built now if missing: moved from the one before the last
    /// rebuild (its dirty clusters recomputed; landmark tables follow in the rebuild queue),
    /// decoded from the package, or built whole (one Dijkstra per border node inside its
    /// cluster, and the landmark Dijkstras over the border graph).
    pub(super) fn ensure_hierarchy(&mut self, layer: usize) {
        self.ensure_hierarchy_with(layer, true);
    }

    /// [`Self::ensure_hierarchy`]; a hierarchy moved from the one before a rebuild gets its
    /// landmark tables now only if `landmarks` and the rebuild queue is not computing them.
    fn ensure_hierarchy_with(&mut self, layer: usize, landmarks: bool) {
        if self.hierarchies.len() < self.nav.layers.len() {
            self.hierarchies.resize_with(self.nav.layers.len(), || None);
        }
        if self.hierarchies[layer].is_some() {
            return;
        }
        let stale = self
            .stale_hierarchies
            .get(layer)
            .is_some_and(Option::is_some);
        let stored = if stale {
            None
        } else {
            self.stored_hierarchies
                .get_mut(layer)
                .and_then(Option::take)
        };
        // A type with links lays its graph out with their end nodes first: the stored
        // hierarchy (built with the package's links) covers them.
        if self.layer_has_links(layer) {
            self.search_graph(layer);
        }
        let unsorted = self.search_graphs.get(layer).is_none_or(Option::is_none);
        let l = &self.nav.layers[layer];
        let nodes = self
            .search_graphs
            .get(layer)
            .and_then(Option::as_ref)
            .map_or(l.nodes.len(), |g| g.len());
        // The hierarchy and its levels decode as they decompress, one stream each, side by
        // side with the layout. The longer stream starts first; the other core reads the
        // shorter one, then lays the graph out, in parallel pieces the first core joins
        // once its stream is read. Levels stored by cell read their top level alone here,
        // in a fraction of the hierarchy's time; levels stored whole (earlier builds, at
        // 8192² twice the hierarchy's bytes) take longest.
        let read_hierarchy = |s: &crate::package::StoredHierarchy| s.parse(nodes).ok();
        let read_levels =
            |s: &crate::package::StoredHierarchy| s.parse_levels(nodes).and_then(Result::ok);
        let (graph, parsed, stored_levels) = match stored {
            Some(s) if unsorted && s.levels_whole() => {
                let (levels, (parsed, graph)) = rayon::join(
                    || read_levels(&s),
                    || rayon::join(|| read_hierarchy(&s), || SearchGraph::new(l)),
                );
                (Some(graph), parsed, levels)
            }
            Some(s) if unsorted => {
                let (parsed, (levels, graph)) = rayon::join(
                    || read_hierarchy(&s),
                    || rayon::join(|| read_levels(&s), || SearchGraph::new(l)),
                );
                (Some(graph), parsed, levels)
            }
            Some(s) => {
                let (levels, parsed) = rayon::join(|| read_levels(&s), || read_hierarchy(&s));
                (None, parsed, levels)
            }
            None => (None, None, None),
        };
        if let Some(graph) = graph {
            if self.search_graphs.len() < self.nav.layers.len() {
                self.search_graphs
                    .resize_with(self.nav.layers.len(), || None);
            }
            self.search_graphs[layer] = Some(Arc::new(graph));
        }
        self.search_graph(layer);
        let l = &self.nav.layers[layer];
        let Some(graph) = self.search_graphs[layer].as_ref() else {
            return;
        };
        if let Some((old, dirty)) = self.stale_hierarchies.get_mut(layer).and_then(Option::take) {
            let hierarchy = Hierarchy::rebuild(&old, graph, &|key| dirty.contains(&key));
            let landmarks =
                if landmarks && self.use_landmarks && !self.landmark_builds.contains_key(&layer) {
                    hierarchy.landmarks(l, graph)
                } else {
                    None
                };
            self.hierarchies[layer] = Some(Arc::new(LayerHierarchy {
                hierarchy,
                landmarks,
            }));
            return;
        }
        // A stored hierarchy that does not decode (only a faulty writer makes one: its
        // checksum matched) is built as for a package without one.
        let read = parsed.and_then(|parsed| Hierarchy::from_parsed(parsed, graph).ok());
        let built_here = read.is_none();
        let (mut hierarchy, landmarks) = read.unwrap_or_else(|| {
            let hierarchy = Hierarchy::build(graph);
            let landmarks = hierarchy.landmarks(l, graph);
            (hierarchy, landmarks)
        });
        // A hierarchy built here gets its levels too. One a package stores without them
        // (version 2, or written before them) is searched over its clusters alone, as
        // before levels existed: building them would hold up the first request for
        // seconds at 4096², inside a call a game makes in its frame.
        match stored_levels.and_then(|parsed| Levels::from_parsed(parsed, &hierarchy).ok()) {
            Some(levels) => hierarchy.set_levels(levels),
            None if built_here => hierarchy.build_levels(),
            None => {}
        }
        let landmarks = landmarks.filter(|_| self.use_landmarks);
        self.hierarchies[layer] = Some(Arc::new(LayerHierarchy {
            hierarchy,
            landmarks,
        }));
    }

    /// Before sectors `batch` of `layer` are rebuilt: keeps the layer's hierarchy (decoding a
    /// stored one first) as the base of the next, with the clusters of the batch and of its
    /// neighbouring sectors (whose windows and edges the rebuild may change) marked dirty.
    /// Returns whether the layer has a hierarchy, whose landmark tables must be rebuilt.
    pub(super) fn mark_clusters_dirty(&mut self, layer: usize, batch: &[u32]) -> bool {
        if self.stale_hierarchies.len() < self.nav.layers.len() {
            self.stale_hierarchies
                .resize_with(self.nav.layers.len(), || None);
        }
        let stored = self
            .stored_hierarchies
            .get(layer)
            .is_some_and(Option::is_some);
        if stored && self.stale_hierarchies[layer].is_none() {
            self.ensure_hierarchy(layer);
        }
        if let Some(h) = self.hierarchies.get_mut(layer).and_then(Option::take) {
            let h = Arc::unwrap_or_clone(h);
            self.stale_hierarchies[layer] = Some((h.hierarchy, BTreeSet::new()));
        }
        let Some((_, dirty)) = self.stale_hierarchies[layer].as_mut() else {
            return false;
        };
        let spec = self.nav.spec;
        let (sx, sy) = (spec.sectors_x(), spec.sectors_y());
        for &s in batch {
            let (x, y) = (s % sx, s / sx);
            for ny in y.saturating_sub(1)..=(y + 1).min(sy - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(sx - 1) {
                    dirty.insert(sector_cluster_key(nx, ny));
                }
            }
        }
        true
    }

    /// Starts recomputing `layer`'s landmark tables after a rebuild: over the hierarchy's
    /// border graph when its requests use one, over the portal graph otherwise (picking
    /// the landmarks in the build's first pieces).
    pub(super) fn start_landmark_build(&mut self, layer: usize) -> Option<LandmarkBuilder> {
        if self.uses_clusters(layer) {
            self.ensure_hierarchy_with(layer, false);
            let l = &self.nav.layers[layer];
            let graph = self.search_graphs.get(layer)?.as_ref()?;
            let h = self.hierarchies.get(layer)?.as_ref()?;
            return ClusterLandmarks::builder(&h.hierarchy, l, graph);
        }
        if self.layer_has_links(layer) {
            // Its tables cover the end nodes: the type's next request builds them.
            return None;
        }
        Some(LandmarkBuilder::start(&self.nav.layers[layer]))
    }

    /// Puts the tables of a build whose tables are stored
    /// ([`LandmarkBuilder::finish_until`], over the portal graph in the search's order) in
    /// place.
    pub(super) fn finish_landmark_build(&mut self, layer: usize, done: LandmarkBuilder) {
        if done.is_over_own_graph() {
            if let Some(h) = self.hierarchies.get_mut(layer).and_then(Option::as_mut) {
                let h = Arc::make_mut(h);
                h.landmarks = done
                    .into_landmarks()
                    .map(|tables| ClusterLandmarks::from_tables(&h.hierarchy, tables));
            }
            return;
        }
        if self.landmarks.len() <= layer {
            self.landmarks.resize_with(layer + 1, || None);
        }
        self.landmarks[layer] = done.into_landmarks().map(Arc::new);
    }

    /// Builds every layer's search structures now — landmark tables, or the hierarchy where
    /// requests use it — instead of on each layer's first request.
    pub(super) fn prepare_layer_search(&mut self, layer: usize) {
        if self.uses_clusters(layer) {
            self.ensure_hierarchy(layer);
        } else {
            self.ensure_landmarks(layer);
        }
    }

    /// Once a request of `layer` has been answered: decodes the cells of its levels that no
    /// request has read yet on a thread of their own (see
    /// [`Levels::decode_rest_in_background`]), unless the search leaves the levels unread.
    pub(super) fn decode_levels_in_background(&self, layer: usize) {
        if self.search_mode == SearchMode::Clusters {
            return;
        }
        if let Some(levels) = self.hierarchy(layer).and_then(|h| h.hierarchy.levels()) {
            levels.decode_rest_in_background();
        }
    }

    /// Returns once the work its requests left running in the background has ended (see
    /// [`crate::NavData::wait_for_background`]).
    pub fn wait_for_background(&self) {
        for h in self.hierarchies.iter().flatten() {
            if let Some(levels) = h.hierarchy.levels() {
                levels.wait_for_background();
            }
        }
    }

    /// The hierarchy of `layer`, if built.
    #[must_use]
    pub(crate) fn hierarchy(&self, layer: usize) -> Option<&LayerHierarchy> {
        self.hierarchies.get(layer).and_then(Option::as_deref)
    }

    /// What the hierarchy of `layer` holds, once a request has built or read it (`None`
    /// while the layer searches flat).
    #[must_use]
    pub fn cluster_stats(&self, move_type: impl Into<MoveType>) -> Option<ClusterStats> {
        self.hierarchy(move_type.into().index())
            .map(|h| ClusterStats {
                clusters: h.hierarchy.cluster_count(),
                border_nodes: h.hierarchy.border_count(),
                levels: h
                    .hierarchy
                    .levels()
                    .map_or(0, crate::hierarchy::Levels::count),
            })
    }
}
