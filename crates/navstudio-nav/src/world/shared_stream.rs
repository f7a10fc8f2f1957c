//! Shared data over a package file ([`NavData::open`]): what threads share instead of each
//! decoding the package. A movement type's island fields, its portal nodes and its search
//! tables are decoded once, by the first thread that needs them (`OnceLock`s); regions
//! (cost and flow tiles) are decoded on first use into a cache every thread reads, which
//! drops the least recently used regions beyond its budget.
//!
//! Each [`crate::PathQuery`] runs its requests in a streamed world of its own that installs
//! the cache's regions (their tiles are `Arc`s, so installing copies no tile) and drops them
//! as a streamed world does. A region the cache drops stays alive in every world that holds
//! it, so a query in flight never loses its tiles; memory is then at most the cache's budget
//! plus what the threads' worlds still hold beyond it (the same tiles while they read the
//! same part of the map).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::{NavWorld, PathError, StreamOptions, damaged};
use crate::data::LayerTables;
use crate::grid::GridSpec;
use crate::islands::Islands;
use crate::layer::NavLayer;
use crate::links::NavLink;
use crate::package::stream::{DecodedRegion, PackageStream, RegionPart};
use crate::portals::PortalNode;

/// The package every thread reads, with what has been decoded from it.
#[derive(Debug)]
pub(crate) struct SharedStream {
    pub(super) package: Arc<PackageStream>,
    pub(super) options: StreamOptions,
    /// The layers as the package was opened (island ids per sector only).
    skeleton: Vec<NavLayer>,
    spec: GridSpec,
    cell_size_m: f32,
    links: Vec<NavLink>,
    /// Per movement type, its island ids with the fields of mixed sectors.
    islands: Box<[OnceLock<IslandsRead>]>,
    /// Per movement type, its nodes and search tables.
    layers: Box<[OnceLock<Result<SharedLayer, PathError>>]>,
    cache: RegionCache,
}

/// A movement type's islands with their fields, or why they could not be read.
type IslandsRead = Result<Arc<Islands>, PathError>;

/// What a world reading movement type `layer` installs before its first request: the
/// nodes (with their island ids) and the sector index of the portal graph, and the search
/// tables over them. The portal windows and edges are not kept: the search layout holds
/// them, as in a streamed world.
#[derive(Debug)]
pub(crate) struct SharedLayer {
    pub(crate) islands: Arc<Islands>,
    pub(crate) nodes: Arc<Vec<PortalNode>>,
    pub(crate) sector_offsets: Arc<Vec<u32>>,
    pub(crate) sector_nodes: Arc<Vec<u32>>,
    pub(crate) tables: LayerTables,
}

/// Decoded regions shared by every thread, least recently used dropped beyond the budget.
#[derive(Debug)]
struct RegionCache {
    /// Per movement type, region and part (`(layer * regions + region) * 2 + part`).
    slots: Box<[Mutex<Slot>]>,
    regions: usize,
    budget: usize,
    bytes: AtomicUsize,
    clock: AtomicU64,
    loads: AtomicU64,
    evictions: AtomicU64,
    /// One thread evicts at a time (it takes the slots' locks one by one).
    evicting: Mutex<()>,
}

#[derive(Debug, Default)]
struct Slot {
    region: Option<Arc<DecodedRegion>>,
    last_use: u64,
}

impl SharedStream {
    /// Shares `package`, opened as `opened` gave it, with `layers` (island ids only).
    pub(crate) fn new(
        package: PackageStream,
        data: &crate::NavData,
        options: StreamOptions,
    ) -> Self {
        let types = data.layers.len();
        let regions = package.regions().count() as usize;
        Self {
            package: Arc::new(package),
            options,
            skeleton: data.layers.clone(),
            spec: data.spec,
            cell_size_m: data.cell_size_m,
            links: data.links().to_vec(),
            islands: (0..types).map(|_| OnceLock::new()).collect(),
            layers: (0..types).map(|_| OnceLock::new()).collect(),
            cache: RegionCache {
                slots: (0..types * regions * 2)
                    .map(|_| Mutex::new(Slot::default()))
                    .collect(),
                regions,
                budget: options.cache_budget,
                bytes: AtomicUsize::new(0),
                clock: AtomicU64::new(0),
                loads: AtomicU64::new(0),
                evictions: AtomicU64::new(0),
                evicting: Mutex::new(()),
            },
        }
    }

    /// `layer`'s islands with the fields of its mixed sectors, read by the first caller.
    pub(super) fn islands(&self, layer: usize) -> Result<&Arc<Islands>, PathError> {
        let slot = self
            .islands
            .get(layer)
            .ok_or(PathError::UnknownType(layer))?;
        slot.get_or_init(|| {
            let skeleton = &self.skeleton[layer].islands;
            let fields = self
                .package
                .load_island_fields(layer, skeleton)
                .map_err(|e| damaged(layer, None, &e))?;
            Ok(Arc::new(Islands {
                fields,
                ..(**skeleton).clone()
            }))
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// `layer`'s nodes and search tables if a thread has built them.
    pub(crate) fn built_layer(&self, layer: usize) -> Option<&SharedLayer> {
        self.layers.get(layer)?.get()?.as_ref().ok()
    }

    /// `layer`'s nodes and search tables, built by the first caller (the others wait).
    pub(crate) fn layer(&self, layer: usize) -> Result<&SharedLayer, PathError> {
        let slot = self
            .layers
            .get(layer)
            .ok_or(PathError::UnknownType(layer))?;
        slot.get_or_init(|| self.build_layer(layer))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Builds `layer`'s tables in a streamed world of its own over the package (reading the
    /// type's graph and stored tables, as that world's first request would).
    fn build_layer(&self, layer: usize) -> Result<SharedLayer, PathError> {
        let islands = Arc::clone(self.islands(layer)?);
        let nav = crate::NavData::new(self.spec, self.cell_size_m, self.skeleton.clone())
            .with_links(self.links.clone());
        let mut world =
            NavWorld::streaming_over(Arc::clone(&self.package), Arc::new(nav), self.options);
        world.put_islands(layer, Arc::clone(&islands));
        world.ensure_graph(layer)?;
        // The link end nodes are built from the costs where the links end.
        world.ensure_link_sectors(layer)?;
        world.prepare_layer_search(layer);
        world.search_graph(layer);
        let l = &world.nav.layers[layer];
        Ok(SharedLayer {
            islands,
            nodes: Arc::clone(&l.nodes),
            sector_offsets: Arc::clone(&l.graph.sector_offsets),
            sector_nodes: Arc::clone(&l.graph.sector_nodes),
            tables: LayerTables {
                graph: world.search_graphs.get(layer).cloned().flatten(),
                landmarks: world.landmarks.get(layer).cloned().flatten(),
                hierarchy: world.hierarchies.get(layer).cloned().flatten(),
                links: world.links.layers.get(layer).cloned().flatten(),
            },
        })
    }

    /// `part` of region `region` of movement type `layer`, decoded by the first caller
    /// (checked against `l`, a layer holding the type's nodes); a region another thread is
    /// decoding is waited for, not decoded twice. May drop other regions beyond the budget.
    pub(super) fn region(
        &self,
        layer: usize,
        region: u32,
        part: RegionPart,
        l: &NavLayer,
    ) -> Result<Arc<DecodedRegion>, PathError> {
        let c = &self.cache;
        let index =
            (layer * c.regions + region as usize) * 2 + usize::from(part == RegionPart::Flows);
        let now = c.clock.fetch_add(1, Ordering::Relaxed) + 1;
        let decoded = {
            let mut slot = lock(&c.slots[index]);
            slot.last_use = now;
            if let Some(r) = &slot.region {
                return Ok(Arc::clone(r));
            }
            let r = Arc::new(
                self.package
                    .decode_region(layer, region, part, l)
                    .map_err(|e| damaged(layer, Some(region), &e))?,
            );
            slot.region = Some(Arc::clone(&r));
            c.bytes.fetch_add(r.bytes(), Ordering::Relaxed);
            c.loads.fetch_add(1, Ordering::Relaxed);
            r
        };
        if c.bytes.load(Ordering::Relaxed) > c.budget {
            c.evict(index);
        }
        Ok(decoded)
    }

    /// The cache's figures: region parts (costs, flows) decoded and dropped, regions whose
    /// costs it holds now, and the bytes of every part it holds.
    pub(crate) fn stats(&self) -> super::StreamStats {
        let c = &self.cache;
        super::StreamStats {
            loads: c.loads.load(Ordering::Relaxed),
            evictions: c.evictions.load(Ordering::Relaxed),
            resident_regions: c
                .slots
                .iter()
                .step_by(2)
                .filter(|s| lock(s).region.is_some())
                .count(),
            resident_bytes: c.bytes.load(Ordering::Relaxed),
        }
    }
}

impl RegionCache {
    /// Drops the least recently used regions, but not slot `keep`, until the bytes fit an
    /// eighth below the budget: a scan visits every slot (16,000 at 8192² × 3), so it
    /// makes room for many loads, not one.
    fn evict(&self, keep: usize) {
        let target = self.budget - self.budget / 8;
        let Ok(_one) = self.evicting.try_lock() else {
            // Another thread is evicting: it brings the bytes down.
            return;
        };
        let mut held: Vec<(u64, usize)> = self
            .slots
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != keep)
            .filter_map(|(i, s)| {
                let s = lock(s);
                s.region.as_ref().map(|_| (s.last_use, i))
            })
            .collect();
        held.sort_unstable();
        for (_, i) in held {
            if self.bytes.load(Ordering::Relaxed) <= target {
                break;
            }
            if let Some(r) = lock(&self.slots[i]).region.take() {
                self.bytes.fetch_sub(r.bytes(), Ordering::Relaxed);
                self.evictions.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// A slot's lock; a thread that panicked holding it left the slot whole (one assignment).
fn lock(slot: &Mutex<Slot>) -> std::sync::MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}
