//! The world's side of the split between shared data and per-thread queries: publishing
//! the world's current version as [`NavData`] with its search tables, building a type's
//! tables for a version nobody has searched, and a reader world over one version (what a
//! [`crate::PathQuery`] runs its requests in).

use std::sync::Arc;

use super::NavWorld;
use crate::NavData;
use crate::data::{LayerTables, StoredTables};

impl NavWorld {
    /// The world's data as it stands, as a version threads can share: give it to
    /// [`crate::PathQuery`]s on other threads. Changes the world makes later (costs, stamps,
    /// links) never show in a version already handed out; the next call returns the next
    /// version once the rebuild queue has rebuilt the graph and tables they touch (until
    /// then, the last version published). Copies no tiles: the version and the world share
    /// them until the world changes one. A streamed world ([`Self::open`]) reads every
    /// region of its package first and keeps them: a version holds the whole map (a type
    /// with a damaged region is published as far as it was read; [`Self::stream_error`]
    /// names the region).
    pub fn data(&mut self) -> Arc<NavData> {
        if !self.holds_everything() {
            let all: Vec<usize> = (0..self.nav.layers.len()).collect();
            self.keep_layers(&all);
        }
        let settled = self.dirty.is_empty()
            && self.landmark_builds.is_empty()
            && !self.links_pending()
            && !self.costs_changed;
        if let Some(published) = &self.published
            && (!settled || Arc::ptr_eq(published, &self.nav))
        {
            return Arc::clone(published);
        }
        // Tables for every type the world has searched (a rebuilt hierarchy is finished
        // from the old one here, cheaper than a reader building it from scratch).
        for layer in 0..self.nav.layers.len() {
            let searched = self.search_graphs.get(layer).is_some_and(Option::is_some)
                || self
                    .stale_hierarchies
                    .get(layer)
                    .is_some_and(Option::is_some);
            if searched && self.ensure_graph(layer).is_ok() {
                self.prepare_layer_search(layer);
                self.search_graph(layer);
            }
        }
        let stored = StoredTables {
            landmarks: self.stored_landmarks.clone(),
            hierarchies: self.stored_hierarchies.clone(),
        };
        let version = NavData::clone(&self.nav).with_tables(self.links.links.clone(), stored);
        for layer in 0..version.layers.len() {
            if let Some(tables) = self.complete_tables(layer) {
                version.put_layer_tables(layer, tables);
            }
        }
        let version = Arc::new(version);
        // The world reads the version's layers from now on: its next change copies what it
        // rewrites, and the version keeps the rest shared.
        self.nav = Arc::clone(&version);
        self.published = Some(Arc::clone(&version));
        version
    }

    /// `layer`'s search tables when they are what a fresh world's first request would build
    /// (search layout, and the hierarchy or the landmark tables its search mode reads).
    fn complete_tables(&self, layer: usize) -> Option<LayerTables> {
        let graph = self.search_graphs.get(layer)?.clone()?;
        let hierarchy = self.hierarchies.get(layer).cloned().flatten();
        let landmarks = self.landmarks.get(layer).cloned().flatten();
        let complete = if self.uses_clusters(layer) {
            hierarchy.is_some()
        } else {
            landmarks.is_some() || !self.use_landmarks
        };
        complete.then(|| LayerTables {
            graph: Some(graph),
            landmarks,
            hierarchy,
            links: self.links.layers.get(layer).cloned().flatten(),
        })
    }

    /// A world over version `data` that builds no tables of its own: a query's.
    pub(crate) fn reader(data: &Arc<NavData>) -> Self {
        if let Some(shared) = data.shared_stream() {
            return Self::over_shared(data, shared);
        }
        let mut world = Self::bare(Arc::clone(data));
        if !data.links().is_empty() {
            // Checked when the version was made.
            let _ = world.set_links(data.links().to_vec());
        }
        world
    }

    /// Puts `data`'s tables for `layer` (built now if no thread has) in this reader.
    pub(crate) fn adopt_tables(&mut self, data: &NavData, layer: usize) {
        let Some(t) = data.layer_tables(layer) else {
            return;
        };
        let n = self.nav.layers.len();
        self.search_graphs
            .resize_with(n.max(self.search_graphs.len()), || None);
        self.landmarks
            .resize_with(n.max(self.landmarks.len()), || None);
        self.hierarchies
            .resize_with(n.max(self.hierarchies.len()), || None);
        self.links
            .layers
            .resize_with(n.max(self.links.layers.len()), || None);
        self.search_graphs[layer].clone_from(&t.graph);
        self.landmarks[layer].clone_from(&t.landmarks);
        self.hierarchies[layer].clone_from(&t.hierarchy);
        self.links.layers[layer].clone_from(&t.links);
    }
}

/// Builds `layer`'s search tables for `data` as a fresh world's first request would: the
/// stored tables decoded, the others computed.
pub(crate) fn build_layer_tables(data: &NavData, layer: usize) -> LayerTables {
    let mut world = NavWorld::from_nav(NavData::clone(data));
    if !data.links().is_empty() {
        let _ = world.set_links(data.links().to_vec());
    }
    let stored = data.stored();
    world.stored_landmarks = stored.landmarks.clone();
    world.stored_hierarchies = stored.hierarchies.clone();
    if world.ensure_graph(layer).is_err() {
        return LayerTables::default();
    }
    world.prepare_layer_search(layer);
    world.search_graph(layer);
    LayerTables {
        graph: world.search_graphs.get(layer).cloned().flatten(),
        landmarks: world.landmarks.get(layer).cloned().flatten(),
        hierarchy: world.hierarchies.get(layer).cloned().flatten(),
        links: world.links.layers.get(layer).cloned().flatten(),
    }
}

impl NavWorld {
    /// Takes `old`'s search scratch (a query moving to the next version keeps its
    /// allocations).
    pub(crate) fn take_scratch(&mut self, old: NavWorld) {
        self.finish = old.finish;
        self.scratch = old.scratch;
        self.integ = old.integ;
        self.cluster_local = old.cluster_local;
    }
}
