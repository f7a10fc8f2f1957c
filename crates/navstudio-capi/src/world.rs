//! The world: a package opened into a [`NavWorld`] (wrapped in the crowd's
//! [`WorldNavigator`], so a crowd on it sees every stamp and rebuild), its handle checks,
//! sizes, movement types and reachability. Paths are in `paths.rs`, run-time changes in
//! `changes.rs`.

use std::collections::BTreeSet;
use std::ffi::c_char;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use navstudio_crowd::WorldNavigator;
use navstudio_nav::world::{PathError, PathId};
use navstudio_nav::{NavData, NavWorld, StreamOptions, package};

use crate::NavstudioCell;
use crate::ffi::{
    Failure, NavstudioStatus, Outcome, guard, poison_on_panic, slice_from, str_from, write_array,
    write_out,
};
// Doc links by plain name: cbindgen copies the docs into the C header as written.
#[cfg(doc)]
use crate::navstudio_last_error;
#[cfg(doc)]
use crate::{navstudio_crowd_create, navstudio_set_cost};

/// Ids of worlds, so a crowd can tell the world it was made on from another.
static NEXT_WORLD_ID: AtomicU64 = AtomicU64::new(1);

/// An opened nav package: the run-time world. Opaque; made by [`navstudio_world_open`] or
/// [`navstudio_world_open_bytes`], freed by [`navstudio_world_free`].
pub struct NavstudioWorld {
    pub(crate) nav: WorldNavigator,
    pub(crate) id: u64,
    /// Path handles issued through this API and not released (the crowd's own paths live in
    /// the same world and must not be reachable through them).
    pub(crate) paths: BTreeSet<u32>,
    /// Stamps applied through this API and not removed.
    pub(crate) stamps: BTreeSet<u32>,
    pub(crate) poisoned: AtomicBool,
}

/// The map's sizes, from [`navstudio_world_info`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NavstudioWorldInfo {
    /// Columns. `[Units: cells]`
    pub width: u32,
    /// Rows. `[Units: cells]`
    pub height: u32,
    /// Sector edge length. `[Units: cells]`
    pub sector_size: u32,
    /// Edge length of one cell. `[Units: m]`
    pub cell_size_m: f32,
    /// Movement types (layers), indexed `0..movement_type_count`.
    pub movement_type_count: u32,
}

impl NavstudioWorld {
    pub(crate) fn new(world: NavWorld, wall_buffer_m: Vec<f32>) -> Self {
        // The walls are read when a crowd first needs them (`pair_mut` in crowd.rs): opening
        // a map at the size limit makes no pass over its cells.
        let mut nav = WorldNavigator::with_walls_on_demand(world, wall_buffer_m);
        // Paths handed to C stay valid across rebuilds: the world re-plans them from their
        // sources when the queue drains (the navigator turns that off for its crowd, which
        // re-plans its own paths from where the agents are; those are then planned twice).
        nav.world.set_replan_on_rebuild(true);
        // Paths asked for from C are planned as the Rust API's `NavWorld` plans them, so
        // the navigator's exact A* and split-sector flow (for group orders in the editor's
        // crowd) are turned back off; a crowd run from C plans with these defaults too.
        nav.world
            .set_heuristic_weight(navstudio_nav::world::DEFAULT_HEURISTIC_WEIGHT);
        nav.world.set_seamless_where_split(false);
        Self {
            nav,
            id: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            paths: BTreeSet::new(),
            stamps: BTreeSet::new(),
            poisoned: AtomicBool::new(false),
        }
    }

    pub(crate) fn world(&self) -> &NavWorld {
        &self.nav.world
    }

    pub(crate) fn layer(&self, movement_type: u32) -> Result<usize, Failure> {
        let count = self.world().nav().layers.len();
        let layer = movement_type as usize;
        if layer < count {
            Ok(layer)
        } else {
            Err(Failure::new(
                NavstudioStatus::UnknownMovementType,
                format!("movement type {movement_type} does not exist (the package has {count})"),
            ))
        }
    }

    pub(crate) fn cell(&self, c: NavstudioCell, what: &str) -> Result<(u32, u32), Failure> {
        let spec = self.world().nav().spec;
        if c.x < spec.width && c.y < spec.height {
            Ok(c.pair())
        } else {
            Err(Failure::new(
                NavstudioStatus::OffMap,
                format!(
                    "{what} ({}, {}) lies off the {}×{} map",
                    c.x, c.y, spec.width, spec.height
                ),
            ))
        }
    }

    /// The world path of a live handle issued here.
    pub(crate) fn live_path(&self, path: u32) -> Result<PathId, Failure> {
        if !self.paths.contains(&path) {
            return Err(Failure::new(
                NavstudioStatus::NoSuchHandle,
                format!("path {path} was never issued by this world or was released"),
            ));
        }
        let id = PathId(path);
        if self.world().path(id).is_none() {
            return Err(Failure::new(
                NavstudioStatus::NoSuchHandle,
                format!(
                    "path {path} could not be routed again after the rebuild; release it and request a new one"
                ),
            ));
        }
        Ok(id)
    }

    /// Checks and converts request sources (shared with goal-set requests).
    pub(crate) fn sources(&self, sources: &[NavstudioCell]) -> Result<Vec<(u32, u32)>, Failure> {
        if sources.is_empty() {
            return Err(Failure::invalid("a path request needs at least one source"));
        }
        sources.iter().map(|&c| self.cell(c, "source")).collect()
    }

    /// Records a planned path as a handle, or turns the world's refusal into a status
    /// (shared with goal-set requests).
    pub(crate) fn issue(&mut self, planned: Result<PathId, PathError>) -> Result<u32, Failure> {
        let id = planned.map_err(|e| Failure::new(path_status(&e), e.to_string()))?;
        self.paths.insert(id.0);
        Ok(id.0)
    }
}

/// The status of a refused request; a refusal the run time adds later (goal sets' empty
/// set) reads as an invalid argument instead of breaking the build.
pub(crate) fn path_status(e: &PathError) -> NavstudioStatus {
    match e {
        PathError::UnknownType(_) => NavstudioStatus::UnknownMovementType,
        PathError::OffMap(_) => NavstudioStatus::OffMap,
        PathError::GoalIsWall(_) | PathError::SourceIsWall(_) => NavstudioStatus::Wall,
        PathError::Unreachable(_) => NavstudioStatus::Unreachable,
        PathError::UnknownPath(_) => NavstudioStatus::NoSuchHandle,
        PathError::Damaged { .. } => NavstudioStatus::Package,
        #[allow(unreachable_patterns, reason = "goal sets add a refusal")]
        _ => NavstudioStatus::InvalidArgument,
    }
}

/// A world handle for reading; refuses null and poisoned handles.
///
/// # Safety
/// `world`, when non-null, must come from `navstudio_world_open*` and not be freed, and no
/// call with write access may run on it meanwhile.
pub(crate) unsafe fn world_ref<'a>(
    world: *const NavstudioWorld,
) -> Result<&'a NavstudioWorld, Failure> {
    // SAFETY: a non-null handle is a live `Box<NavstudioWorld>` per this function's contract,
    // shared with readers only.
    let w = unsafe { world.as_ref() }.ok_or_else(|| Failure::null("world"))?;
    if w.poisoned.load(Ordering::Relaxed) {
        return Err(poisoned("world"));
    }
    Ok(w)
}

/// A world handle for writing; refuses null and poisoned handles.
///
/// # Safety
/// `world`, when non-null, must come from `navstudio_world_open*`, not be freed, and not be
/// used by any other call meanwhile.
pub(crate) unsafe fn world_mut<'a>(
    world: *mut NavstudioWorld,
) -> Result<&'a mut NavstudioWorld, Failure> {
    // SAFETY: a non-null handle is a live `Box<NavstudioWorld>` used by this call alone, per
    // this function's contract.
    let w = unsafe { world.as_mut() }.ok_or_else(|| Failure::null("world"))?;
    if w.poisoned.load(Ordering::Relaxed) {
        return Err(poisoned("world"));
    }
    Ok(w)
}

pub(crate) fn poisoned(what: &str) -> Failure {
    Failure::new(
        NavstudioStatus::Poisoned,
        format!("this {what} was left half-changed by an earlier internal error; free it"),
    )
}

/// Runs a writing call on a world, poisoning it if the call panics half-way.
pub(crate) fn mutate(
    w: &mut NavstudioWorld,
    body: impl FnOnce(&mut NavstudioWorld) -> Outcome,
) -> Outcome {
    poison_on_panic(w, |w| w.poisoned.store(true, Ordering::Relaxed), body)
}

fn open_into(
    out_world: *mut *mut NavstudioWorld,
    open: impl FnOnce() -> Result<(NavWorld, Vec<f32>), package::PackageError>,
) -> Outcome {
    if out_world.is_null() {
        return Err(Failure::null("out_world"));
    }
    if !out_world.is_aligned() {
        return Err(Failure::invalid("out_world is not aligned"));
    }
    // SAFETY: non-null and aligned (checked); the caller hands a writable slot. Cleared first
    // so a failed open leaves null there, never a stale handle.
    unsafe { out_world.write(std::ptr::null_mut()) };
    let (world, wall_buffer_m) =
        open().map_err(|e| Failure::new(NavstudioStatus::Package, e.to_string()))?;
    let world = Box::new(NavstudioWorld::new(world, wall_buffer_m));
    // SAFETY: as above.
    unsafe { out_world.write(Box::into_raw(world)) };
    Ok(())
}

/// Each movement type's wall buffer as the manifest records it: a version 2 manifest keeps
/// each type's parameters as the bake saw them; version 1 kept them as RON text, read as 0.
fn wall_buffers(manifest: Option<&package::Manifest>, layers: usize) -> Vec<f32> {
    let Some(manifest) = manifest else {
        return vec![0.0; layers];
    };
    manifest
        .layers
        .iter()
        .map(|l| {
            l.params
                .get("wall_buffer_m")
                .and_then(serde_json::Value::as_f64)
                .filter(|m| m.is_finite() && *m >= 0.0)
                .map_or(0.0, |m| m as f32)
        })
        .collect()
}

/// Opens a nav package (`NAME.navpkg`) from a file, streamed: opening reads the island ids,
/// a movement type's graph is read on its first request and a region's tiles when a request
/// first needs them (kept within 256 MiB of decoded tiles), so a map at the 8192² limit
/// opens in well under a second. The file must stay in place while the world is open; a
/// region found damaged on first use refuses that request with `NAVSTUDIO_STATUS_PACKAGE`
/// and the rest of the map still answers.
///
/// `path` is a NUL-terminated UTF-8 path. On success `*out_world` holds a new world, to be
/// freed with [`navstudio_world_free`]; on failure it holds NULL, the status is
/// `NAVSTUDIO_STATUS_PACKAGE` (or a pointer error, or `INVALID_ARGUMENT` for an empty path)
/// and [`navstudio_last_error`] names the file and what is wrong with it.
///
/// Damage: opening a file checks the header, the manifest and the
/// island chunks; a damaged movement-type graph or region chunk is found when a call first
/// needs it, and that call (a request, a cost change there) fails with
/// `NAVSTUDIO_STATUS_PACKAGE` naming the chunk while the rest of the map answers.
/// [`navstudio_world_open_bytes`] behaves the same on the same bytes.
///
/// Threading: any thread; it shares nothing with other worlds.
///
/// # Safety
/// `path` must be NUL-terminated; `out_world` must point at writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_world_open(
    path: *const c_char,
    out_world: *mut *mut NavstudioWorld,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a NUL-terminated string (contract above).
        let path = unsafe { str_from(path, "path") }?;
        if path.is_empty() {
            // Cleared to NULL as on every failure.
            if !out_world.is_null() && out_world.is_aligned() {
                // SAFETY: non-null and aligned; the caller hands a writable slot.
                unsafe { out_world.write(std::ptr::null_mut()) };
            }
            return Err(Failure::invalid(
                "the package path is empty: pass the path of a .navpkg file",
            ));
        }
        // Streamed: regions are read from the file as requests need them, so the file must
        // stay in place while the world is open.
        open_into(out_world, || {
            let world = NavWorld::open(Path::new(path), StreamOptions::default())?;
            let layers = world.nav().layers.len();
            let buffers = wall_buffers(world.stream_manifest(), layers);
            Ok((world, buffers))
        })
    })
}

/// Opens a nav package held in memory (`len` bytes at `bytes`; the library copies them, so
/// the buffer may be freed when the call returns). Exactly as [`navstudio_world_open`]
/// otherwise: the same checks on opening, regions decoded when first needed, the same
/// failures for the same damage; errors name `<memory>` where the file's would name it.
///
/// Threading: any thread.
///
/// # Safety
/// `bytes` must point at `len` readable bytes; `out_world` at writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_world_open_bytes(
    bytes: *const u8,
    len: usize,
    out_world: *mut *mut NavstudioWorld,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes `len` readable bytes (contract above).
        let bytes = unsafe { slice_from(bytes, len, "bytes") }?;
        // Streamed from a copy of the bytes, as `navstudio_world_open` streams a file.
        open_into(out_world, || {
            let world = NavWorld::open_bytes(bytes, StreamOptions::default())?;
            let layers = world.nav().layers.len();
            let buffers = wall_buffers(world.stream_manifest(), layers);
            Ok((world, buffers))
        })
    })
}

/// Frees a world and every path and stamp in it. NULL is ignored. A crowd made on this world
/// may still be read and freed afterwards, but not given the world again: add, order, step
/// and advance need it live (see [`navstudio_crowd_create`]).
///
/// Threading: no other call may use the world during or after this one.
///
/// # Safety
/// `world` must be NULL or a handle from `navstudio_world_open*` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_world_free(world: *mut NavstudioWorld) {
    if world.is_null() {
        return;
    }
    // Nothing useful can be reported from a free; a panicking drop is contained here.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: a non-null handle came from `Box::into_raw` in `open_into` and is freed
        // once (contract above).
        drop(unsafe { Box::from_raw(world) });
    }));
}

/// The map's sizes and the number of movement types.
///
/// Threading: read-only; any number of threads may make read-only calls on one world at
/// once, but none while a call that changes it runs (those take a non-const world).
///
/// # Safety
/// `world` must be a live handle; `out_info` must point at a writable `NavstudioWorldInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_world_info(
    world: *const NavstudioWorld,
    out_info: *mut NavstudioWorldInfo,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_info, info_of(w.world().nav()), "out_info") }
    })
}

/// What [`navstudio_world_info`] and `navstudio_data_info` answer for one version of a map.
pub(crate) fn info_of(nav: &NavData) -> NavstudioWorldInfo {
    NavstudioWorldInfo {
        width: nav.spec.width,
        height: nav.spec.height,
        sector_size: nav.spec.sector_size,
        cell_size_m: nav.cell_size_m,
        movement_type_count: nav.layers.len() as u32,
    }
}

/// The index of the movement type called `name`; `UNKNOWN_MOVEMENT_TYPE` naming the types
/// there are when there is none.
pub(crate) fn move_type_index(nav: &NavData, name: &str) -> Result<u32, Failure> {
    let ty = nav.move_type(name).ok_or_else(|| {
        let known: Vec<&str> = nav.move_types().map(|(_, n)| n).collect();
        Failure::new(
            NavstudioStatus::UnknownMovementType,
            format!(
                "no movement type '{name}' in this package (it has: {})",
                known.join(", ")
            ),
        )
    })?;
    Ok(ty.index() as u32)
}

/// The index of the movement type called `name` (NUL-terminated UTF-8, e.g. `"land"`), for
/// every call that takes a `movement_type`. `NAVSTUDIO_STATUS_UNKNOWN_MOVEMENT_TYPE` when the
/// package has none by that name.
///
/// Threading: read-only (see [`navstudio_world_info`]).
///
/// # Safety
/// `world` must be a live handle, `name` NUL-terminated, `out_index` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_movement_type_index(
    world: *const NavstudioWorld,
    name: *const c_char,
    out_index: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        // SAFETY: the caller passes a NUL-terminated string (contract above).
        let name = unsafe { str_from(name, "name") }?;
        let index = move_type_index(w.world().nav(), name)?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_index, index, "out_index") }
    })
}

/// Copies the name of movement type `movement_type` into `buf` (`buf_len` bytes, NUL
/// included) and its length in bytes without the NUL into `*out_len`. When `buf_len` is too
/// small nothing is copied, `*out_len` is still written and the status is
/// `NAVSTUDIO_STATUS_BUFFER_TOO_SMALL`; `buf` may be NULL when `buf_len` is 0.
///
/// Threading: read-only (see [`navstudio_world_info`]).
///
/// # Safety
/// `world` must be a live handle; `buf` must hold `buf_len` writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_movement_type_name(
    world: *const NavstudioWorld,
    movement_type: u32,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let layer = w.layer(movement_type)?;
        let name = w.world().nav().layers[layer].name.as_bytes();
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_len, name.len(), "out_len") }?;
        let mut with_nul = name.to_vec();
        with_nul.push(0);
        // SAFETY: the caller passes `buf_len` writable bytes (contract above).
        unsafe { write_array(buf.cast::<u8>(), buf_len, &with_nul, "buf") }
    })
}

/// Whether `to` can be reached from `from` by movement type `movement_type` (equal island
/// ids; constant time, no search). Both cells must lie on the map (else `OFF_MAP`). A wall
/// is on no island: `*out_reachable` is false whenever either cell is a wall (a status of
/// `OK`, not `WALL`: the question has an answer). A world opened on a version 2 package
/// reads the type's island fields from the file on its first use.
///
/// Threading: read-only (see [`navstudio_world_info`]).
///
/// # Safety
/// `world` must be a live handle; `out_reachable` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_is_reachable(
    world: *const NavstudioWorld,
    movement_type: u32,
    from: NavstudioCell,
    to: NavstudioCell,
    out_reachable: *mut bool,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let layer = w.layer(movement_type)?;
        let (a, b) = (w.cell(from, "from")?, w.cell(to, "to")?);
        let reachable = w.world().is_reachable(layer, a, b);
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_reachable, reachable, "out_reachable") }
    })
}

/// The cost of `cell` for movement type `movement_type` as the world holds it now, after
/// [`navstudio_set_cost`] and stamps, into `*out_cost`: 1..=254, 255 = wall (a wall is a cell
/// of no island, so [`navstudio_is_reachable`] is false from and to it). A world opened from
/// a file reads the cell's region first if no call has yet.
///
/// Errors: `UNKNOWN_MOVEMENT_TYPE`, `OFF_MAP`, `PACKAGE` (the region is damaged).
///
/// Threading: changes the world (it may read a region into it): no other call on it at the
/// same time.
///
/// # Safety
/// `world` must be a live handle; `out_cost` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_cell_cost(
    world: *mut NavstudioWorld,
    movement_type: u32,
    cell: NavstudioCell,
    out_cost: *mut u8,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            let layer = w.layer(movement_type)?;
            let at = w.cell(cell, "cell")?;
            let cost = w
                .nav
                .world
                .cell_cost(layer, at)
                .map_err(|e| Failure::new(path_status(&e), e.to_string()))?;
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_cost, cost, "out_cost") }
        })
    })
}
