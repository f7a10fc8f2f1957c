//! [`NavData`]: one version of a map's navigation data, read-only and shared between
//! threads through an `Arc`, as Detour's `dtNavMesh` is shared by its `dtNavMeshQuery`s.
//!
//! It holds the baked layers (cost tiles, portal graph, islands, flow tiles), the links,
//! and the search tables each movement type's requests read (search layout, landmark
//! tables, sector hierarchy). A table is built once, by the first query that needs it,
//! and every thread then reads the same copy ([`std::sync::OnceLock`]). Run-time changes
//! never write to a version: [`crate::NavWorld`] builds the next one, copying only the
//! tiles it rewrites (they sit behind `Arc`s), and publishes it with
//! [`crate::NavWorld::data`]; a query that started on a version finishes on it.
//!
//! Data opened on a package ([`NavData::open`]) holds the package instead of its decoded
//! layers: each movement type's islands, nodes and tables are decoded by the first thread
//! that needs them, and regions of cost and flow tiles into a cache the threads share, as
//! a streamed [`crate::NavWorld`] reads them.

use std::sync::{Arc, OnceLock};

use crate::grid::GridSpec;
use crate::hierarchy::ClusterLandmarks;
use crate::landmarks::Landmarks;
use crate::layer::NavLayer;
use crate::links::NavLink;
use crate::links::overlay::LayerLinks;
use crate::package::{StoredHierarchy, StoredLandmarks};
use crate::portals::PortalNode;
use crate::search_graph::SearchGraph;
use crate::vocab::MoveType;
use crate::world::{LayerHierarchy, SharedStream, StreamOptions, StreamStats};

/// Everything a game needs to navigate one map: the grid, the cell size, one layer per
/// movement type, the links, and the search tables built from them.
///
/// `Send + Sync`: share it through an `Arc` and give each thread its own
/// [`crate::PathQuery`]. Its fields are public for the bake and the editor, which build and
/// change layers; a clone is made to be changed, so it starts without search tables.
#[derive(Debug)]
pub struct NavData {
    /// Map and sector sizes.
    pub spec: GridSpec,
    /// Edge length of one cell. `[Units: m] [Limit: > 0]`
    pub cell_size_m: f32,
    /// One layer per movement type, in the document's movement-type order.
    pub layers: Vec<NavLayer>,
    /// The links requests use.
    links: Arc<Vec<NavLink>>,
    /// Per movement type, the tables a package stores, decoded by the first search of the
    /// type instead of computed.
    stored: Arc<StoredTables>,
    /// Per movement type, the search tables once built.
    tables: SearchTables,
    /// The package the data reads on demand ([`Self::open`]); `None` for data held whole.
    stream: Option<Arc<SharedStream>>,
}

/// The landmark tables and sector hierarchies a package stores, per movement type.
#[derive(Debug, Default)]
pub(crate) struct StoredTables {
    pub(crate) landmarks: Vec<Option<StoredLandmarks>>,
    pub(crate) hierarchies: Vec<Option<StoredHierarchy>>,
}

/// Per movement type, its search tables, built once and read by every thread.
#[derive(Debug, Default)]
pub(crate) struct SearchTables {
    layers: Box<[OnceLock<LayerTables>]>,
}

/// What one movement type's requests read besides its layer.
#[derive(Clone, Debug, Default)]
pub(crate) struct LayerTables {
    /// The portal graph laid out for the search (`None` when the type cannot be searched).
    pub(crate) graph: Option<Arc<SearchGraph>>,
    /// ALT tables over the portal graph (flat search).
    pub(crate) landmarks: Option<Arc<Landmarks>>,
    /// Sector hierarchy with its tables (clustered search).
    pub(crate) hierarchy: Option<Arc<LayerHierarchy>>,
    /// The type's link end nodes.
    pub(crate) links: Option<Arc<LayerLinks>>,
}

impl NavData {
    /// Navigation data over baked layers, without links.
    #[must_use]
    pub fn new(spec: GridSpec, cell_size_m: f32, layers: Vec<NavLayer>) -> Self {
        let tables = SearchTables::new(layers.len());
        Self {
            spec,
            cell_size_m,
            layers,
            links: Arc::default(),
            stored: Arc::default(),
            tables,
            stream: None,
        }
    }

    /// Opens a package file for threads to share without decoding it: a map at the size
    /// limit opens in a few milliseconds. Each movement type's portal graph and search
    /// tables are decoded by its first request, and regions (16 × 16 sectors of cost and
    /// flow tiles) when a request first reads them, into a cache of `options.cache_budget`
    /// bytes that every thread reads (least recently used regions beyond it are dropped;
    /// a query still reading one keeps it). Answers are those of the package read whole.
    /// A version 1 package is read whole.
    ///
    /// Until then [`Self::layers`] holds each type's island ids per sector only (no cost
    /// tiles, nodes or flow tiles): read the map through a [`crate::PathQuery`].
    ///
    /// # Errors
    /// A [`crate::package::PackageError`] naming the file when its header, manifest, index
    /// or island ids are damaged. A damaged region or graph is found by the request that
    /// reads it ([`crate::PathError::Damaged`]), and the rest of the map stays usable.
    pub fn open(
        path: &std::path::Path,
        options: StreamOptions,
    ) -> Result<Self, crate::package::PackageError> {
        if !crate::package::stream::is_streamable(path)? {
            return Self::read(path);
        }
        Ok(Self::sharing(crate::package::stream::open(path)?, options))
    }

    /// [`Self::open`] on a package held in memory (the bytes are copied once); errors name
    /// `<memory>`.
    ///
    /// # Errors
    /// As [`Self::open`].
    pub fn open_bytes(
        bytes: &[u8],
        options: StreamOptions,
    ) -> Result<Self, crate::package::PackageError> {
        if !crate::package::stream::is_streamable_bytes(bytes) {
            return Ok(Self::from_package(crate::package::from_bytes(bytes)?));
        }
        Ok(Self::sharing(
            crate::package::stream::open_bytes(bytes)?,
            options,
        ))
    }

    fn sharing(opened: crate::package::stream::OpenedPackage, options: StreamOptions) -> Self {
        let mut data = opened.nav.with_links(opened.links);
        data.stream = Some(Arc::new(SharedStream::new(opened.stream, &data, options)));
        data
    }

    /// Whether the data reads its package on demand ([`Self::open`]).
    #[must_use]
    pub fn is_streamed(&self) -> bool {
        self.stream.is_some()
    }

    /// Of data that reads its package on demand, the shared region cache's figures
    /// (regions decoded and dropped, held now and their bytes); `None` for data held whole.
    #[must_use]
    pub fn stream_stats(&self) -> Option<StreamStats> {
        self.stream.as_ref().map(|s| s.stats())
    }

    /// What the data holds, in bytes by table: per movement type whose search tables are
    /// built, its portal nodes, their index by sector, its island ids and fields, and each
    /// table of its search (layout, landmark tables, hierarchy and levels); of data read on
    /// demand ([`Self::open`]), the decoded regions its cache holds (the tiles of data held
    /// whole are not counted). Rows are `("type: table", bytes)`, for tools that report
    /// where memory goes (`navstudio bench-paths --threads 1 --memory`).
    #[must_use]
    pub fn memory(&self) -> Vec<(String, usize)> {
        let mut rows = Vec::new();
        for (index, layer) in self.layers.iter().enumerate() {
            let parts = match &self.stream {
                Some(s) => s.built_layer(index).map(|l| {
                    let sectors = (&*l.sector_offsets, &*l.sector_nodes);
                    (&*l.nodes, sectors, &*l.islands, &l.tables)
                }),
                None => self
                    .tables
                    .layers
                    .get(index)
                    .and_then(OnceLock::get)
                    .map(|t| {
                        let sectors = (&*layer.graph.sector_offsets, &*layer.graph.sector_nodes);
                        (&*layer.nodes, sectors, &*layer.islands, t)
                    }),
            };
            let Some((nodes, (offsets, by_sector), islands, tables)) = parts else {
                continue;
            };
            let mut row = |what: &str, bytes: usize| {
                rows.push((format!("{}: {what}", layer.name), bytes));
            };
            row("portal nodes", size_of::<PortalNode>() * nodes.capacity());
            row(
                "portal nodes by sector",
                4 * (offsets.capacity() + by_sector.capacity()),
            );
            let fields: usize = islands.fields.iter().map(|(_, f)| f.memory()).sum();
            row(
                "island ids and fields",
                4 * islands.sector_island.capacity()
                    + size_of::<(u32, crate::islands::IslandField)>() * islands.fields.capacity()
                    + fields,
            );
            if let Some(graph) = &tables.graph {
                for (what, bytes) in graph.memory() {
                    row(what, bytes);
                }
            }
            if let Some(landmarks) = &tables.landmarks {
                row("landmark tables", landmarks.memory());
            }
            if let Some(h) = &tables.hierarchy {
                for (what, bytes) in h.hierarchy.memory() {
                    row(what, bytes);
                }
                let marks = h.landmarks.as_ref().map_or(0, ClusterLandmarks::memory);
                row("hierarchy: landmark tables", marks);
            }
        }
        if let Some(s) = &self.stream {
            rows.push(("decoded regions".to_owned(), s.stats().resident_bytes));
        }
        rows
    }

    /// Returns once the work its requests left running in the background has ended: the
    /// decoding of the cells of each movement type's levels (above the hierarchy's
    /// clusters) that no request had read, started once a request of the type had been
    /// answered. A game need not
    /// call it (a request reading a cell being decoded waits for that cell); a benchmark
    /// does, to time warm requests apart from that work.
    pub fn wait_for_background(&self) {
        for index in 0..self.layers.len() {
            let tables = match &self.stream {
                Some(s) => s.built_layer(index).map(|l| &l.tables),
                None => self.tables.layers.get(index).and_then(OnceLock::get),
            };
            if let Some(levels) = tables
                .and_then(|t| t.hierarchy.as_ref())
                .and_then(|h| h.hierarchy.levels())
            {
                levels.wait_for_background();
            }
        }
    }

    pub(crate) fn shared_stream(&self) -> Option<&Arc<SharedStream>> {
        self.stream.as_ref()
    }

    /// This data with `links`.
    pub(crate) fn with_links(mut self, links: Vec<NavLink>) -> Self {
        self.links = Arc::new(links);
        self
    }

    /// A package read whole ([`crate::package::read`]) as shared data: its links, and the
    /// tables it stores (decoded by each type's first search).
    #[must_use]
    pub fn from_package(package: crate::package::Package) -> Self {
        let mut data = package.nav;
        data.links = Arc::new(package.links);
        data.stored = Arc::new(StoredTables {
            landmarks: package.landmarks,
            hierarchies: package.hierarchies,
        });
        data.tables = SearchTables::new(data.layers.len());
        data
    }

    /// Reads a package file whole (see [`crate::package::read`]).
    ///
    /// # Errors
    /// A [`crate::package::PackageError`] naming the file.
    pub fn read(path: &std::path::Path) -> Result<Self, crate::package::PackageError> {
        Ok(Self::from_package(crate::package::read(path)?))
    }

    /// The movement type called `name` (as the document names it), if the map has one.
    #[must_use]
    pub fn move_type(&self, name: &str) -> Option<MoveType> {
        self.layers
            .iter()
            .position(|l| l.name == name)
            .map(MoveType::new)
    }

    /// The map's movement types with their names, in order.
    pub fn move_types(&self) -> impl Iterator<Item = (MoveType, &str)> {
        self.layers
            .iter()
            .enumerate()
            .map(|(i, l)| (MoveType::new(i), l.name.as_str()))
    }

    /// The links requests use.
    #[must_use]
    pub fn links(&self) -> &[NavLink] {
        &self.links
    }

    /// Builds every movement type's search tables now, on this thread (at load time),
    /// instead of in the first request of each type.
    pub fn prepare(&self) {
        for layer in 0..self.layers.len() {
            let _ = self.layer_tables(layer);
        }
    }

    /// `layer`'s search tables, built now by this thread if no thread has yet (the others
    /// wait for it); `None` for a type out of range.
    pub(crate) fn layer_tables(&self, layer: usize) -> Option<&LayerTables> {
        if let Some(stream) = &self.stream {
            // A type whose graph is damaged has no tables; its requests report the damage.
            return Some(stream.layer(layer).map_or(&NO_TABLES, |l| &l.tables));
        }
        let slot = self.tables.layers.get(layer)?;
        Some(slot.get_or_init(|| crate::world::build_layer_tables(self, layer)))
    }

    /// Sets the tables `layer`'s requests read (a world publishing its version); no-op if
    /// a thread built them first.
    pub(crate) fn put_layer_tables(&self, layer: usize, tables: LayerTables) {
        if let Some(slot) = self.tables.layers.get(layer) {
            let _ = slot.set(tables);
        }
    }

    pub(crate) fn stored(&self) -> &StoredTables {
        &self.stored
    }

    /// This data with `links` and `stored` tables, and no search tables yet; held whole
    /// (a world publishes a version after reading every region).
    pub(crate) fn with_tables(mut self, links: Vec<NavLink>, stored: StoredTables) -> Self {
        self.links = Arc::new(links);
        self.stored = Arc::new(stored);
        self.tables = SearchTables::new(self.layers.len());
        self.stream = None;
        self
    }
}

impl SearchTables {
    fn new(layers: usize) -> Self {
        Self {
            layers: (0..layers).map(|_| OnceLock::new()).collect(),
        }
    }
}

impl Clone for NavData {
    /// The same layers and links, without the search tables and stored tables (a clone is
    /// made to be changed, and tables of the old layers would not fit the new ones); a
    /// clone of data that reads its package on demand reads the same package.
    fn clone(&self) -> Self {
        Self {
            spec: self.spec,
            cell_size_m: self.cell_size_m,
            layers: self.layers.clone(),
            links: Arc::clone(&self.links),
            stored: Arc::default(),
            tables: SearchTables::new(self.layers.len()),
            stream: self.stream.clone(),
        }
    }
}

/// The tables of a movement type that has none (its graph could not be read).
static NO_TABLES: LayerTables = LayerTables {
    graph: None,
    landmarks: None,
    hierarchy: None,
    links: None,
};

impl PartialEq for NavData {
    /// Equal maps: grid, cell size, layers and links (tables are derived from them).
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
            && self.cell_size_m == other.cell_size_m
            && self.layers == other.layers
            && self.links == other.links
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_types_are_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<NavData>();
        shared::<crate::PathTable>();
        fn sent<T: Send>() {}
        sent::<crate::PathQuery>();
        sent::<crate::Path>();
    }
}
