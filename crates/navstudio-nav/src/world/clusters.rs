//! Which search a layer's requests run — the flat portal A* with ALT tables per portal node,
//! or the sector hierarchy with tables per border node (see [`crate::hierarchy`]) — and the
//! hierarchy's life: read from the package or built on a layer's first request, dropped when
//! its graph is rebuilt.

use super::NavWorld;
use crate::hierarchy::{ClusterLandmarks, Hierarchy, pays_off};

/// Which portal search path requests run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// The hierarchy on maps of at least [`crate::hierarchy::CLUSTER_MIN_SECTORS`] sectors, or when the
    /// package stores one; the flat search otherwise.
    #[default]
    Auto,
    /// Always the flat portal A*.
    Flat,
    /// Always the sector hierarchy (built on a layer's first request if not stored).
    Clusters,
}

/// One layer's sector hierarchy with its landmark tables.
#[derive(Clone, Debug)]
pub struct LayerHierarchy {
    /// Clusters, border nodes and shortcuts.
    pub hierarchy: Hierarchy,
    /// Landmark tables over the border nodes (`None` when off or the layer has none).
    pub landmarks: Option<ClusterLandmarks>,
}

impl NavWorld {
    /// Chooses the portal search (default [`SearchMode::Auto`]). Both find routes of the same
    /// cost bound; the hierarchy expands far fewer nodes across big maps.
    pub fn set_search_mode(&mut self, mode: SearchMode) {
        self.search_mode = mode;
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
            SearchMode::Clusters => true,
            SearchMode::Auto => {
                let stored = self
                    .stored_hierarchies
                    .get(layer)
                    .is_some_and(Option::is_some)
                    || self.hierarchies.get(layer).is_some_and(Option::is_some);
                stored || pays_off(self.nav.spec)
            }
        }
    }

    /// `layer`'s hierarchy, built now if missing (one Dijkstra per border node inside its
    /// cluster, and the landmark Dijkstras over the border graph).
    pub(super) fn ensure_hierarchy(&mut self, layer: usize) {
        if self.hierarchies.len() < self.nav.layers.len() {
            self.hierarchies.resize_with(self.nav.layers.len(), || None);
        }
        if self.hierarchies[layer].is_some() {
            return;
        }
        self.search_graph(layer);
        let l = &self.nav.layers[layer];
        let Some(graph) = self.search_graphs[layer].as_ref() else {
            return;
        };
        // A stored hierarchy that does not decode (only a faulty writer makes one: its
        // checksum matched) is built as for a package without one.
        let stored = self
            .stored_hierarchies
            .get_mut(layer)
            .and_then(Option::take);
        let (hierarchy, landmarks) =
            stored
                .and_then(|s| s.decode(graph).ok())
                .unwrap_or_else(|| {
                    let hierarchy = Hierarchy::build(graph);
                    let landmarks = hierarchy.landmarks(l, graph);
                    (hierarchy, landmarks)
                });
        let landmarks = landmarks.filter(|_| self.use_landmarks);
        self.hierarchies[layer] = Some(LayerHierarchy {
            hierarchy,
            landmarks,
        });
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

    /// The hierarchy of `layer`, if built.
    #[must_use]
    pub fn hierarchy(&self, layer: usize) -> Option<&LayerHierarchy> {
        self.hierarchies.get(layer).and_then(Option::as_ref)
    }
}
