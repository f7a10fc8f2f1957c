//! A world opened on a package file ([`NavWorld::open`]) instead of a package read whole:
//! regions (16 × 16 sectors) are decoded on first use and dropped, least recently used
//! first, when the decoded regions exceed the cache budget and no live path needs them.
//!
//! A movement type's island ids per sector are read at open. Its island fields (the cells'
//! ids in sectors that hold walls or several islands) are read on its first use, which may
//! be a reachability query (`&self`, through a `OnceLock`); its windows and portal graph on
//! its first request.
//!
//! Residency is kept by the `&mut` calls: a request loads the regions of its sources, of
//! the sectors around its goals (their goal fields) and of every sector its routes cross,
//! before anything reads them, so sampling and tracing (`&self`) find them loaded. A region
//! a live path needs is never dropped. Run-time cost changes load the whole movement type
//! and keep it, because the rebuild reads and rewrites the layer as a whole.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use super::budget::{Slice, Unit};
use super::{NavWorld, PathError, PathState, SharedStream};
use crate::NavData;
use crate::islands::{IslandField, Islands};
use crate::package::stream::{self, PackageStream, RegionPart};
use crate::package::{self, PackageError};
use crate::portals::PortalWindow;

/// Default budget of decoded region data (cost tiles and flow tiles): one movement type of
/// a map at the 8192² limit holds about 200 MiB of them, so a game that roams the whole map
/// with one type reads each region once. Below it, requests across the map re-read regions
/// (at 8192² with 64 MiB: 25 reads per request, a 25 ms median).
pub const DEFAULT_CACHE_BUDGET: usize = 256 << 20;

/// A movement type's island fields, by sector (see [`crate::islands::Islands::fields`]).
type IslandFields = Vec<(u32, IslandField)>;

/// How [`NavWorld::open`] streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOptions {
    /// Bytes of decoded cost and flow tiles kept once no live path needs them; beyond it the
    /// least recently used regions are dropped (and read again when needed).
    pub cache_budget: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            cache_budget: DEFAULT_CACHE_BUDGET,
        }
    }
}

/// What a streamed world holds and has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Regions decoded from the file (again after being dropped, too).
    pub loads: u64,
    /// Regions dropped to stay within the budget.
    pub evictions: u64,
    /// Regions held now, over all movement types.
    pub resident_regions: usize,
    /// Bytes of decoded tiles held now.
    pub resident_bytes: usize,
}

#[derive(Clone, Copy, Debug, Default)]
struct RegionSlot {
    /// Its cost tiles are installed.
    resident: bool,
    /// Its flow tiles are installed too (a world whose reads are prepared reads them only
    /// for a read of a path).
    flows: bool,
    /// Changed at run time: never dropped (the file no longer holds it).
    kept: bool,
    last_use: u64,
    bytes: usize,
}

/// The file and the residency of each region of each movement type.
#[derive(Debug)]
pub(super) struct Streamed {
    package: Arc<PackageStream>,
    /// The shared data the world reads through (a [`crate::PathQuery`]'s world over data
    /// from [`crate::NavData::open`]): its islands, nodes, tables and decoded regions.
    shared: Option<Arc<SharedStream>>,
    /// Whether every read of a path goes through [`NavWorld::prepare_read`] first (a
    /// query's world), so that paths may be refined lazily.
    reads_prepared: bool,
    /// The last path [`NavWorld::prepare_read`] loaded the regions of, with the evictions
    /// counted then: until either changes, they are still loaded.
    prepared: Option<(u64, u64)>,
    /// Per movement type, per region: where its flow tiles start in the layer's tile store
    /// once it has been loaded (a region loaded again reuses its slots).
    tile_base: Vec<Vec<Option<u32>>>,
    /// Per movement type: whether its windows and graph are read.
    graph_loaded: Vec<bool>,
    /// Per movement type: its island fields once read by a `&self` call, until
    /// [`NavWorld::ensure_islands`] moves them into the layer.
    pending_fields: Vec<OnceLock<Result<IslandFields, PathError>>>,
    /// Per movement type: whether the layer holds its island fields.
    fields_loaded: Vec<bool>,
    slots: Vec<Vec<RegionSlot>>,
    budget: usize,
    clock: u64,
    stats: StreamStats,
    last_error: Option<PathError>,
}

impl NavWorld {
    /// Opens a package for streaming: reads what a request needs before it touches any
    /// region (the portal graph, the island ids) and nothing else, so a map at the size
    /// limit opens in well under a second; regions are decoded on first use. A version 1
    /// package is read whole, as [`Self::from_package`] does.
    ///
    /// # Errors
    /// A [`PackageError`] naming the file, as [`package::read`]; a damaged region chunk is
    /// found when the region is first used ([`PathError::Damaged`]).
    pub fn open(path: &Path, options: StreamOptions) -> Result<Self, PackageError> {
        if !stream::is_streamable(path)? {
            return Ok(Self::from_package(package::read(path)?));
        }
        Ok(Self::streaming(stream::open(path)?, options))
    }

    /// Opens a package held in memory as [`Self::open`] opens a file: the bytes are copied
    /// once, and regions are checked and decoded on first use, so opening takes no longer
    /// than from a file and a damaged region fails the calls that need it, as from a file.
    /// A version 1 package is read whole.
    ///
    /// # Errors
    /// A [`PackageError`] naming `<memory>`, as [`Self::open`].
    pub fn open_bytes(bytes: &[u8], options: StreamOptions) -> Result<Self, PackageError> {
        if !stream::is_streamable_bytes(bytes) {
            return Ok(Self::from_package(package::from_bytes(bytes)?));
        }
        Ok(Self::streaming(stream::open_bytes(bytes)?, options))
    }

    fn streaming(opened: stream::OpenedPackage, options: StreamOptions) -> Self {
        let nav = Arc::new(opened.nav.with_links(opened.links));
        Self::streaming_over(Arc::new(opened.stream), nav, options)
    }

    /// A world over `nav` (as `package` opened it, with its links) reading the rest of
    /// `package` on demand.
    pub(super) fn streaming_over(
        package: Arc<PackageStream>,
        nav: Arc<NavData>,
        options: StreamOptions,
    ) -> Self {
        let regions = package.regions().count() as usize;
        let layers = nav.layers.len();
        let mut world = Self::bare(nav);
        if !world.nav.links().is_empty() {
            // The reader checked them against the map.
            let _ = world.set_links(world.nav.links().to_vec());
        }
        world.stored_landmarks = vec![None; layers];
        world.stored_hierarchies = vec![None; layers];
        world.streamed = Some(Streamed {
            package,
            shared: None,
            reads_prepared: false,
            prepared: None,
            tile_base: vec![vec![None; regions]; layers],
            graph_loaded: vec![false; layers],
            pending_fields: (0..layers).map(|_| OnceLock::new()).collect(),
            fields_loaded: vec![false; layers],
            slots: vec![vec![RegionSlot::default(); regions]; layers],
            budget: options.cache_budget,
            clock: 0,
            stats: StreamStats::default(),
            last_error: None,
        });
        world
    }

    /// A world over shared data `data` from [`NavData::open`]: it reads the islands,
    /// nodes, tables and regions the threads share (see `shared_stream.rs`).
    pub(super) fn over_shared(data: &Arc<NavData>, shared: &Arc<SharedStream>) -> Self {
        // The version's own `Arc`: the world copies it when it first installs a region.
        let mut world = Self::streaming_over(
            Arc::clone(&shared.package),
            Arc::clone(data),
            shared.options,
        );
        if let Some(s) = world.streamed.as_mut() {
            s.shared = Some(Arc::clone(shared));
        }
        world
    }

    /// Every read of a path in this world is prepared with [`Self::prepare_read`]: its paths
    /// may then be refined lazily.
    pub(crate) fn set_reads_prepared(&mut self) {
        if let Some(s) = self.streamed.as_mut() {
            s.reads_prepared = true;
        }
    }

    /// Whether this world streams its data and prepares every read of a path (see
    /// [`Self::set_reads_prepared`]).
    pub(super) fn reads_prepared(&self) -> bool {
        self.streamed.as_ref().is_some_and(|s| s.reads_prepared)
    }

    /// Whether requests may refine lazily as far as streaming goes: a world holding its
    /// data whole, or one whose reads are prepared.
    pub(super) fn may_refine_lazily(&self) -> bool {
        self.streamed.as_ref().is_none_or(|s| s.reads_prepared)
    }

    /// Puts `islands` (with their fields) in `layer` (a streamed world's).
    pub(super) fn put_islands(&mut self, layer: usize, islands: Arc<Islands>) {
        if let Some(s) = self.streamed.as_mut()
            && let Some(l) = Arc::make_mut(&mut self.nav).layers.get_mut(layer)
        {
            l.islands = islands;
            s.fields_loaded[layer] = true;
        }
    }

    /// Loads the regions a read of path `p` (numbered `serial`) reads: its own sectors (as
    /// a request loads them), the sectors within the look-ahead of `around` (a sample's
    /// position), and with `whole` every sector of the route refined whole (a trace).
    /// No-op for a world held whole.
    ///
    /// # Errors
    /// [`PathError::Damaged`] for a region that cannot be read.
    pub(crate) fn prepare_read(
        &mut self,
        p: &PathState,
        serial: u64,
        around: Option<(f32, f32)>,
        whole: bool,
    ) -> Result<(), PathError> {
        let Some(s) = self.streamed.as_ref() else {
            return Ok(());
        };
        let key = (serial, s.stats.evictions);
        if s.prepared != Some(key) {
            let sectors = path_sectors(p, self);
            self.ensure_regions(p.layer, sectors, None, true)?;
            if let Some(s) = self.streamed.as_mut() {
                s.prepared = Some(key);
            }
        }
        if let Some((x, y)) = around {
            let spec = self.nav.spec;
            let reach = self.flow_lookahead.min(super::MAX_FLOW_LOOKAHEAD as u32) as f32 + 2.0;
            let clamp_x = |v: f32| v.clamp(0.0, spec.width.saturating_sub(1) as f32) as u32;
            let clamp_y = |v: f32| v.clamp(0.0, spec.height.saturating_sub(1) as f32) as u32;
            let (x0, x1) = (clamp_x(x - reach), clamp_x(x + reach));
            let (y0, y1) = (clamp_y(y - reach), clamp_y(y + reach));
            let corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)];
            let sectors = corners.map(|(cx, cy)| spec.sector_of(cx, cy));
            // Corners span every region the box touches: a region is larger than the box.
            if sectors
                .iter()
                .any(|&sector| !self.holds_region(p.layer, sector, RegionPart::Flows))
            {
                let (sx0, sy0) = (x0 / spec.sector_size, y0 / spec.sector_size);
                let (sx1, sy1) = (x1 / spec.sector_size, y1 / spec.sector_size);
                let all: Vec<u32> = (sy0..=sy1)
                    .flat_map(|gy| (sx0..=sx1).map(move |gx| gy * spec.sectors_x() + gx))
                    .collect();
                self.ensure_regions(p.layer, all, None, true)?;
            }
        }
        if whole {
            let exits: Vec<u32> = p.all_exits().keys().copied().collect();
            self.ensure_regions(p.layer, exits.iter().copied(), None, true)?;
            // The trace's corridor reads the ring round them.
            let mut sectors = path_sectors(p, self);
            sectors.extend(exits);
            self.ensure_ring_costs(p.layer, sectors, None)?;
        }
        Ok(())
    }

    /// The manifest of the package a streamed world reads; `None` for a world held whole.
    #[must_use]
    pub fn stream_manifest(&self) -> Option<&crate::package::Manifest> {
        self.streamed.as_ref().map(|s| s.package.manifest())
    }

    /// Residency figures of a streamed world; `None` for one that holds its whole package.
    #[must_use]
    pub fn stream_stats(&self) -> Option<StreamStats> {
        self.streamed.as_ref().map(|s| s.stats)
    }

    /// The island fields of `layer` when the layer does not hold them yet (a streamed world
    /// before the type's first `&mut` use), read now if need be; `None` when the layer holds
    /// its own. A damaged chunk reads as no fields, so mixed sectors read as walls until a
    /// `&mut` call reports the damage.
    pub(super) fn pending_fields(&self, layer: usize) -> Option<&[(u32, IslandField)]> {
        let s = self.streamed.as_ref()?;
        if s.fields_loaded.get(layer).copied().unwrap_or(true) {
            return None;
        }
        if let Some(shared) = &s.shared {
            return Some(shared.islands(layer).map_or(&[][..], |i| &i.fields));
        }
        let l = self.nav.layers.get(layer)?;
        let read = s.pending_fields[layer].get_or_init(|| {
            s.package
                .load_island_fields(layer, &l.islands)
                .map_err(|e| damaged(layer, None, &e))
        });
        Some(read.as_deref().unwrap_or(&[]))
    }

    /// Puts `layer`'s island fields in the layer if they are not yet (no-op for a world held
    /// whole).
    pub(super) fn ensure_islands(&mut self, layer: usize) -> Result<(), PathError> {
        let Some(s) = self.streamed.as_mut() else {
            return Ok(());
        };
        if s.fields_loaded.get(layer).copied().unwrap_or(true) {
            return Ok(());
        }
        if let Some(shared) = &s.shared {
            let islands = Arc::clone(shared.islands(layer)?);
            self.put_islands(layer, islands);
            return Ok(());
        }
        let l = &mut Arc::make_mut(&mut self.nav).layers[layer];
        let read = match s.pending_fields[layer].take() {
            Some(read) => read,
            None => s
                .package
                .load_island_fields(layer, &l.islands)
                .map_err(|e| damaged(layer, None, &e)),
        };
        Arc::make_mut(&mut l.islands).fields = read?;
        s.fields_loaded[layer] = true;
        Ok(())
    }

    /// Reads `layer`'s windows and portal graph if they are not yet (no-op for a world held
    /// whole).
    pub(super) fn ensure_graph(&mut self, layer: usize) -> Result<(), PathError> {
        // The nodes' island ids come from the fields.
        self.ensure_islands(layer)?;
        let Some(s) = self.streamed.as_mut() else {
            return Ok(());
        };
        if s.graph_loaded.get(layer).copied().unwrap_or(true) {
            return Ok(());
        }
        if let Some(shared) = s.shared.clone() {
            return self.install_shared_layer(&shared, layer);
        }
        let l = &mut Arc::make_mut(&mut self.nav).layers[layer];
        let (landmarks, hierarchy) = s
            .package
            .load_globals(layer, l)
            .map_err(|e| damaged(layer, None, &e))?;
        s.graph_loaded[layer] = true;
        if self.stored_landmarks.len() <= layer {
            self.stored_landmarks.resize_with(layer + 1, || None);
        }
        self.stored_landmarks[layer] = landmarks;
        if self.stored_hierarchies.len() <= layer {
            self.stored_hierarchies.resize_with(layer + 1, || None);
        }
        self.stored_hierarchies[layer] = hierarchy;
        Ok(())
    }

    /// Puts `shared`'s nodes and search tables of `layer` in this world, as reading the
    /// type's graph and searching it once would leave them (windows and edges let go).
    fn install_shared_layer(
        &mut self,
        shared: &SharedStream,
        layer: usize,
    ) -> Result<(), PathError> {
        let sl = shared.layer(layer)?;
        let l = &mut Arc::make_mut(&mut self.nav).layers[layer];
        l.islands = Arc::clone(&sl.islands);
        l.nodes = Arc::clone(&sl.nodes);
        l.windows = Arc::default();
        l.graph = crate::portals::PortalGraph {
            sector_offsets: Arc::clone(&sl.sector_offsets),
            sector_nodes: Arc::clone(&sl.sector_nodes),
            ..crate::portals::PortalGraph::default()
        };
        // Listed on the first read of a region's flow tiles, as in a streamed world.
        l.flows = crate::permutations::FlowPermutations::default();
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
        self.search_graphs[layer].clone_from(&sl.tables.graph);
        self.landmarks[layer].clone_from(&sl.tables.landmarks);
        self.hierarchies[layer].clone_from(&sl.tables.hierarchy);
        self.links.layers[layer].clone_from(&sl.tables.links);
        if let Some(s) = self.streamed.as_mut() {
            s.graph_loaded[layer] = true;
            s.fields_loaded[layer] = true;
        }
        Ok(())
    }

    /// Whether the layer holds `sector`'s cost tile: always in a world held whole, in a
    /// streamed one once its region is read.
    pub(super) fn holds_costs(&self, layer: usize, sector: u32) -> bool {
        self.holds_region(layer, sector, RegionPart::Costs)
    }

    /// Whether the layer holds `part` of `sector`'s region (always in a world held whole).
    fn holds_region(&self, layer: usize, sector: u32, part: RegionPart) -> bool {
        let Some(s) = self.streamed.as_ref() else {
            return true;
        };
        let region = s.package.regions().region_of_sector(sector);
        s.slots
            .get(layer)
            .and_then(|slots| slots.get(region as usize))
            .is_some_and(|slot| match part {
                RegionPart::Costs => slot.resident,
                RegionPart::Flows => slot.flows,
            })
    }

    /// Loads the regions holding `sectors` of `layer`, and its graph first (no-op for a
    /// world held whole).
    pub(super) fn ensure_sectors(
        &mut self,
        layer: usize,
        sectors: impl IntoIterator<Item = u32>,
    ) -> Result<(), PathError> {
        self.ensure_sectors_sliced(layer, sectors, None).map(|_| ())
    }

    /// Loads the cost tiles of the sectors holding `cells` of `layer` and of the ring of
    /// sectors around them; whether a region was read (always `false` for a world held
    /// whole). A trace's string pulled over regions not read yet (read as clear) is
    /// traced again over the regions it crossed until it crosses no new one.
    pub(crate) fn load_costs_around(
        &mut self,
        layer: usize,
        cells: &[(u32, u32)],
    ) -> Result<bool, PathError> {
        if self.streamed.is_none() {
            return Ok(false);
        }
        let spec = self.nav.spec;
        let sectors: BTreeSet<u32> = cells.iter().map(|&(x, y)| spec.sector_of(x, y)).collect();
        self.loads_any(layer, with_ring(spec, sectors))
    }

    /// Loads the cost tiles of the ring of sectors round those path `p` reads, for a
    /// trace: its corridor reaches one sector past the sectors its string crosses (see
    /// `sample.rs`). Region by region under a budgeted call's `slice`; `Ok(false)` when it
    /// stopped with regions left. No-op for a world held whole, and for one whose reads are
    /// prepared, whose trace reads the ring then ([`Self::prepare_read`]).
    pub(super) fn ensure_path_ring(
        &mut self,
        p: &PathState,
        slice: Option<&mut Slice>,
    ) -> Result<bool, PathError> {
        if self.may_refine_lazily() {
            return Ok(true);
        }
        let sectors = path_sectors(p, self);
        self.ensure_ring_costs(p.layer, sectors, slice)
    }

    /// Loads the cost tiles of `sectors` of `layer` and of the ring round them (no-op for
    /// a world held whole); under `slice` as [`Self::ensure_path_ring`].
    pub(super) fn ensure_ring_costs(
        &mut self,
        layer: usize,
        sectors: impl IntoIterator<Item = u32>,
        slice: Option<&mut Slice>,
    ) -> Result<bool, PathError> {
        let Some(s) = self.streamed.as_ref() else {
            return Ok(true);
        };
        let grid = s.package.regions();
        let (sx, sy, rs) = (
            grid.spec.sectors_x(),
            grid.spec.sectors_y(),
            grid.region_sectors,
        );
        // The ring leaves a sector's region only from its region's edge: most sectors add
        // their own region alone (per request at 2048², a ring of every sector put through
        // a set cost a sixth of the request).
        let mut regions: Vec<u32> = Vec::new();
        for sector in sectors {
            let (cx, cy) = (sector % sx, sector / sx);
            if (1..rs - 1).contains(&(cx % rs)) && (1..rs - 1).contains(&(cy % rs)) {
                regions.push(grid.region_of_sector(sector));
                continue;
            }
            for gy in cy.saturating_sub(1)..=(cy + 1).min(sy - 1) {
                for gx in cx.saturating_sub(1)..=(cx + 1).min(sx - 1) {
                    regions.push(grid.region_of_sector(gy * sx + gx));
                }
            }
        }
        regions.sort_unstable();
        regions.dedup();
        let firsts: Vec<u32> = regions
            .into_iter()
            .filter_map(|r| grid.sectors(r).next())
            .collect();
        self.ensure_regions(layer, firsts, slice, false)
    }

    /// Of `wanted` (one flag per sector of `layer`), those the world holds the cost tiles
    /// of: all of them in a world held whole. A read of a streamed world's costs keeps to
    /// these, as a sector not read yet reads as clear ground.
    pub(super) fn held_of(&self, layer: usize, mut wanted: Vec<bool>) -> Vec<bool> {
        if self.streamed.is_some() {
            for (sector, want) in wanted.iter_mut().enumerate().filter(|(_, w)| **w) {
                *want = self.holds_costs(layer, sector as u32);
            }
        }
        wanted
    }

    /// Loads the cost tiles of every region the box around path `p`'s sources, goals and
    /// route sectors touches; whether a region was read. For a trace that found no way
    /// over the regions its route crosses.
    pub(crate) fn load_route_box(&mut self, p: &PathState) -> Result<bool, PathError> {
        if self.streamed.is_none() {
            return Ok(false);
        }
        let spec = self.nav.spec;
        let sx = spec.sectors_x();
        let mut sectors = path_sectors(p, self);
        sectors.extend(p.all_exits().keys().copied());
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for s in sectors {
            let (x, y) = (s % sx, s / sx);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        if x0 > x1 {
            return Ok(false);
        }
        let all: Vec<u32> = (y0..=y1)
            .flat_map(|gy| (x0..=x1).map(move |gx| gy * sx + gx))
            .collect();
        self.loads_any(p.layer, all)
    }

    /// Loads the cost tiles of `sectors`' regions; whether one was read.
    fn loads_any(
        &mut self,
        layer: usize,
        sectors: impl IntoIterator<Item = u32>,
    ) -> Result<bool, PathError> {
        let before = self.streamed.as_ref().map_or(0, |s| s.stats.loads);
        self.ensure_regions(layer, sectors, None, false)?;
        Ok(self.streamed.as_ref().map_or(0, |s| s.stats.loads) > before)
    }

    /// [`Self::ensure_sectors`] under a budgeted call's clock `slice`: a region is read only when
    /// the budget left is expected to hold it (the call's first always is). `Ok(false)`
    /// when it stopped with regions left to read (a later call reads them).
    pub(super) fn ensure_sectors_sliced(
        &mut self,
        layer: usize,
        sectors: impl IntoIterator<Item = u32>,
        slice: Option<&mut Slice>,
    ) -> Result<bool, PathError> {
        // A world whose reads are prepared reads flow tiles for the reads alone.
        let flows = self.streamed.as_ref().is_some_and(|s| !s.reads_prepared);
        self.ensure_regions(layer, sectors, slice, flows)
    }

    /// Loads the cost tiles of the regions holding `sectors` of `layer`, with `flows` their
    /// flow tiles too, and the type's graph first; under `slice` as
    /// [`Self::ensure_sectors_sliced`].
    fn ensure_regions(
        &mut self,
        layer: usize,
        sectors: impl IntoIterator<Item = u32>,
        mut slice: Option<&mut Slice>,
        flows: bool,
    ) -> Result<bool, PathError> {
        self.ensure_graph(layer)?;
        let Some(s) = self.streamed.as_mut() else {
            return Ok(true);
        };
        let grid = s.package.regions();
        let wanted: BTreeSet<u32> = sectors
            .into_iter()
            .filter(|&sector| (sector as usize) < grid.spec.sector_count())
            .map(|sector| grid.region_of_sector(sector))
            .collect();
        s.clock += 1;
        let clock = s.clock;
        let Some(l) = Arc::make_mut(&mut self.nav).layers.get_mut(layer) else {
            return Err(PathError::UnknownType(layer));
        };
        for region in wanted {
            let slot = &mut s.slots[layer][region as usize];
            slot.last_use = clock;
            let parts = [
                (!slot.resident).then_some(RegionPart::Costs),
                (flows && !slot.flows).then_some(RegionPart::Flows),
            ];
            for part in parts.into_iter().flatten() {
                if slice
                    .as_deref()
                    .is_some_and(|c| !c.may_start(&self.unit_costs, Unit::Region))
                {
                    return Ok(false);
                }
                let at = Instant::now();
                let decoded = match &s.shared {
                    Some(shared) => shared.region(layer, region, part, l)?,
                    None => Arc::new(
                        s.package
                            .decode_region(layer, region, part, l)
                            .map_err(|e| damaged(layer, Some(region), &e))?,
                    ),
                };
                let base = &mut s.tile_base[layer][region as usize];
                let bytes = s.package.install_region(&decoded, region, l, base);
                if let Some(c) = slice.as_deref_mut() {
                    c.done(&mut self.unit_costs, Unit::Region, at);
                }
                let slot = &mut s.slots[layer][region as usize];
                match part {
                    RegionPart::Costs => {
                        slot.resident = true;
                        s.stats.resident_regions += 1;
                    }
                    RegionPart::Flows => slot.flows = true,
                }
                slot.bytes += bytes;
                s.stats.loads += 1;
                s.stats.resident_bytes += bytes;
            }
        }
        Ok(true)
    }

    /// Loads what a search from `sources` to `goals` reads before its route is known: the
    /// sources' sectors and the goal fields' windows (no-op for a world held whole).
    pub(super) fn ensure_request_sectors(
        &mut self,
        layer: usize,
        sources: &[(u32, u32)],
        goals: &[(u32, u32)],
    ) -> Result<(), PathError> {
        if self.streamed.is_none() {
            return Ok(());
        }
        let spec = self.nav.spec;
        let mut need = self.sectors_around(goals);
        need.extend(sources.iter().map(|&(x, y)| spec.sector_of(x, y)));
        self.ensure_sectors(layer, need)
    }

    /// The 3 × 3 sectors around each of `cells` (a goal field's window) and their own.
    /// Empty for a world held whole, which needs no loading.
    pub(super) fn sectors_around(&self, cells: &[(u32, u32)]) -> Vec<u32> {
        if self.streamed.is_none() {
            return Vec::new();
        }
        let spec = self.nav.spec;
        let (sx, sy) = (spec.sectors_x(), spec.sectors_y());
        let mut out = Vec::with_capacity(cells.len() * 9);
        for &(x, y) in cells {
            let (cx, cy) = (x / spec.sector_size, y / spec.sector_size);
            for gy in cy.saturating_sub(1)..=(cy + 1).min(sy - 1) {
                for gx in cx.saturating_sub(1)..=(cx + 1).min(sx - 1) {
                    out.push(gy * sx + gx);
                }
            }
        }
        out
    }

    /// Loads every region of `layer` and keeps them: before its costs change at run time.
    pub(super) fn keep_layer(&mut self, layer: usize) -> Result<(), PathError> {
        let Some(regions) = self.streamed.as_ref().map(|s| s.package.regions()) else {
            return Ok(());
        };
        let all: Vec<u32> = (0..regions.count())
            .flat_map(|r| regions.sectors(r).take(1))
            .collect();
        self.ensure_regions(layer, all, None, true)?;
        if let Some(s) = self.streamed.as_mut() {
            for slot in &mut s.slots[layer] {
                slot.kept = true;
            }
        }
        self.restore_portal_edges(layer);
        Ok(())
    }

    /// Lets `layer`'s portal windows and edges go once its search layout holds them, in a
    /// streamed world whose costs have not changed at run time: at 8192² the edges' two
    /// copies were 74 and 64 MB per movement type, and the windows (31 MB) are the nodes'
    /// pairs. The layout is dropped only by a rebuild, which runs on kept layers, and
    /// [`Self::keep_layer`] gives them back first.
    pub(super) fn release_portal_edges(&mut self, layer: usize) {
        let Some(s) = self.streamed.as_ref() else {
            return;
        };
        let kept = s
            .slots
            .get(layer)
            .is_none_or(|slots| slots.iter().any(|slot| slot.kept));
        if kept || self.search_graphs.get(layer).is_none_or(Option::is_none) {
            return;
        }
        if let Some(l) = Arc::make_mut(&mut self.nav).layers.get_mut(layer) {
            let g = &mut l.graph;
            let released = (
                std::mem::take(&mut l.windows),
                std::mem::take(&mut g.offsets),
                std::mem::take(&mut g.targets),
                std::mem::take(&mut g.weights),
                g.stream.take(),
            );
            // Handing 100 MB back to the system takes 5 ms at 8192²: not on the request.
            if !released.2.is_empty() || released.4.is_some() {
                rayon::spawn(move || drop(released));
            }
        }
    }

    /// Gives `layer` back the portal windows and edges [`Self::release_portal_edges`] let
    /// go, from its nodes and search layout (no-op for a layer that holds them).
    pub(super) fn restore_portal_edges(&mut self, layer: usize) {
        // Asked before taking the data for writing, which would copy shared data.
        let holds_edges = |l: &crate::layer::NavLayer| l.graph.offsets.len() == l.nodes.len() + 1;
        if self.nav.layers.get(layer).is_none_or(holds_edges) {
            return;
        }
        let Some(l) = Arc::make_mut(&mut self.nav).layers.get_mut(layer) else {
            return;
        };
        if let Some(stream) = l.graph.stream.take() {
            // Read, not searched yet: the windows are still held.
            let g = &mut l.graph;
            let (offsets, targets, weights) = stream.to_csr();
            (g.offsets, g.targets, g.weights) = (Arc::new(offsets), Arc::new(targets), weights);
        } else if let Some(graph) = self.search_graphs.get(layer).and_then(Option::as_ref) {
            let g = &mut l.graph;
            let (offsets, targets, weights) = graph.portal_csr();
            (g.offsets, g.targets, g.weights) = (Arc::new(offsets), Arc::new(targets), weights);
            l.windows = l
                .nodes
                .chunks_exact(2)
                .map(|pair| PortalWindow::from_sides(&pair[0], &pair[1]))
                .collect::<Vec<_>>()
                .into();
        }
    }

    /// [`Self::keep_layer`] for each of `layers`; returns those whose every region loaded. A
    /// layer with a damaged region is left out of the cost change (it cannot be rebuilt
    /// whole), and the error is kept for [`Self::stream_error`].
    pub(super) fn keep_layers(&mut self, layers: &[usize]) -> Vec<usize> {
        let mut ready = Vec::with_capacity(layers.len());
        for &layer in layers {
            match self.keep_layer(layer) {
                Ok(()) => ready.push(layer),
                Err(e) => {
                    if let Some(s) = self.streamed.as_mut() {
                        s.last_error = Some(e);
                    }
                }
            }
        }
        ready
    }

    /// Whether a streamed world holds every region of every type and keeps them (true for
    /// a world held whole).
    pub(super) fn holds_everything(&self) -> bool {
        self.streamed.as_ref().is_none_or(|s| {
            s.slots
                .iter()
                .all(|slots| slots.iter().all(|slot| slot.kept))
        })
    }

    /// The last damaged region a run-time cost change could not load (its movement type was
    /// left unchanged); `None` if there was none, or the world holds its whole package.
    #[must_use]
    pub fn stream_error(&self) -> Option<&PathError> {
        self.streamed.as_ref()?.last_error.as_ref()
    }

    /// Drops least recently used regions no live path needs until the decoded regions fit
    /// the budget.
    pub(super) fn evict_regions(&mut self) {
        let Some(s) = self.streamed.as_ref() else {
            return;
        };
        if s.stats.resident_bytes <= s.budget {
            return;
        }
        let grid = s.package.regions();
        let needed: BTreeSet<(usize, u32)> = self
            .paths
            .values()
            .flat_map(|p| {
                // A trace reads the ring round them too.
                with_ring(self.nav.spec, path_sectors(p, self))
                    .into_iter()
                    .map(move |sector| (p.layer, grid.region_of_sector(sector)))
            })
            .collect();
        let Some(s) = self.streamed.as_mut() else {
            return;
        };
        let mut candidates: Vec<(u64, usize, u32)> = s
            .slots
            .iter()
            .enumerate()
            .flat_map(|(layer, slots)| {
                slots.iter().enumerate().filter_map(move |(r, slot)| {
                    (slot.resident && !slot.kept).then_some((slot.last_use, layer, r as u32))
                })
            })
            .filter(|&(_, layer, r)| !needed.contains(&(layer, r)))
            .collect();
        candidates.sort_unstable();
        for (_, layer, region) in candidates {
            if s.stats.resident_bytes <= s.budget {
                break;
            }
            let l = &mut Arc::make_mut(&mut self.nav).layers[layer];
            let slot = &mut s.slots[layer][region as usize];
            s.package.unload_region(region, RegionPart::Costs, l);
            if slot.flows {
                s.package.unload_region(region, RegionPart::Flows, l);
            }
            slot.resident = false;
            slot.flows = false;
            s.stats.resident_bytes -= slot.bytes;
            slot.bytes = 0;
            s.stats.resident_regions -= 1;
            s.stats.evictions += 1;
        }
    }
}

/// The sectors whose data path `p` reads: its sources', its routes' exits and its goal
/// fields' windows (those around its goals and around the link entries it takes).
pub(super) fn path_sectors(p: &PathState, world: &NavWorld) -> Vec<u32> {
    let spec = world.nav.spec;
    let mut out: Vec<u32> = p.exits.keys().copied().collect();
    out.extend(p.sources.iter().map(|&(x, y)| spec.sector_of(x, y)));
    out.extend(world.sectors_around(&p.goals));
    out.extend(p.field_cover.keys().copied());
    out
}

/// `sectors` and the ring of sectors round each (its eight neighbours on the map).
pub(super) fn with_ring(
    spec: crate::grid::GridSpec,
    sectors: impl IntoIterator<Item = u32>,
) -> BTreeSet<u32> {
    let (sx, sy) = (spec.sectors_x(), spec.sectors_y());
    let mut out = BTreeSet::new();
    for sector in sectors {
        let (cx, cy) = (sector % sx, sector / sx);
        for gy in cy.saturating_sub(1)..=(cy + 1).min(sy - 1) {
            for gx in cx.saturating_sub(1)..=(cx + 1).min(sx - 1) {
                out.insert(gy * sx + gx);
            }
        }
    }
    out
}

/// A damaged chunk of `layer` (of `region`, for a regional one) as a path error.
pub(super) fn damaged(layer: usize, region: Option<u32>, e: &PackageError) -> PathError {
    PathError::Damaged {
        layer,
        region,
        why: e.to_string(),
    }
}
