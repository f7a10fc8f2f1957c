//! The world: a package opened into a [`NavWorld`] (wrapped in the crowd's
//! [`WorldNavigator`], so a crowd on it sees every stamp and rebuild), with path requests,
//! flow sampling, line of sight, tracing, run-time cost changes and the rebuild queue.

use std::collections::BTreeSet;
use std::ffi::c_char;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use navstudio_crowd::WorldNavigator;
use navstudio_nav::world::{PathError, PathId, StampHandle};
use navstudio_nav::{NavWorld, package};

use crate::ffi::{
    Failure, NavstudioStatus, Outcome, guard, poison_on_panic, slice_from, str_from, write_array,
    write_out,
};
use crate::{NavstudioCell, NavstudioRect, NavstudioVec2};

/// Ids of worlds, so a crowd can tell the world it was made on from another.
static NEXT_WORLD_ID: AtomicU64 = AtomicU64::new(1);

/// An opened nav package: the run-time world. Opaque; made by [`navstudio_world_open`] or
/// [`navstudio_world_open_bytes`], freed by [`navstudio_world_free`].
pub struct NavstudioWorld {
    pub(crate) nav: WorldNavigator,
    pub(crate) id: u64,
    /// Path handles issued through this API and not released (the crowd's own paths live in
    /// the same world and must not be reachable through them).
    paths: BTreeSet<u32>,
    /// Stamps applied through this API and not removed.
    stamps: BTreeSet<u32>,
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
    fn new(world: NavWorld, wall_buffer_m: Vec<f32>) -> Self {
        let mut nav = WorldNavigator::new(world, wall_buffer_m);
        // Paths handed to C stay valid across rebuilds: the world re-plans them from their
        // sources when the queue drains (the navigator turns that off for its crowd, which
        // re-plans its own paths from where the agents are; those are then planned twice).
        nav.world.set_replan_on_rebuild(true);
        Self {
            nav,
            id: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            paths: BTreeSet::new(),
            stamps: BTreeSet::new(),
            poisoned: AtomicBool::new(false),
        }
    }

    fn world(&self) -> &NavWorld {
        &self.nav.world
    }

    fn layer(&self, movement_type: u32) -> Result<usize, Failure> {
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

    fn cell(&self, c: NavstudioCell, what: &str) -> Result<(u32, u32), Failure> {
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
    fn live_path(&self, path: u32) -> Result<PathId, Failure> {
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
    fn sources(&self, sources: &[NavstudioCell]) -> Result<Vec<(u32, u32)>, Failure> {
        if sources.is_empty() {
            return Err(Failure::invalid("a path request needs at least one source"));
        }
        sources.iter().map(|&c| self.cell(c, "source")).collect()
    }

    /// Records a planned path as a handle, or turns the world's refusal into a status
    /// (shared with goal-set requests).
    fn issue(&mut self, planned: Result<PathId, PathError>) -> Result<u32, Failure> {
        let id = planned.map_err(|e| Failure::new(path_status(&e), e.to_string()))?;
        self.paths.insert(id.0);
        Ok(id.0)
    }
}

/// The status of a refused request; a refusal the run time adds later (goal sets' empty
/// set) reads as an invalid argument instead of breaking the build.
fn path_status(e: &PathError) -> NavstudioStatus {
    match e {
        PathError::UnknownType(_) => NavstudioStatus::UnknownMovementType,
        PathError::OffMap(_) => NavstudioStatus::OffMap,
        PathError::GoalIsWall(_) => NavstudioStatus::GoalIsWall,
        PathError::Unreachable(_) => NavstudioStatus::Unreachable,
        PathError::UnknownPath(_) => NavstudioStatus::NoSuchHandle,
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
fn mutate(w: &mut NavstudioWorld, body: impl FnOnce(&mut NavstudioWorld) -> Outcome) -> Outcome {
    poison_on_panic(w, |w| w.poisoned.store(true, Ordering::Relaxed), body)
}

fn open_into(
    out_world: *mut *mut NavstudioWorld,
    read: impl FnOnce() -> Result<package::Package, package::PackageError>,
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
    let pkg = read().map_err(|e| Failure::new(NavstudioStatus::Package, e.to_string()))?;
    // A version 2 manifest records each movement type as the bake saw it, wall buffer
    // included; version 1 recorded it as RON text, read here as 0.
    let wall_buffer_m = pkg
        .manifest
        .layers
        .iter()
        .map(|l| {
            l.params
                .get("wall_buffer_m")
                .and_then(serde_json::Value::as_f64)
                .filter(|m| m.is_finite() && *m >= 0.0)
                .map_or(0.0, |m| m as f32)
        })
        .collect();
    // With the package's landmark tables, the first request computes none.
    let world = Box::new(NavstudioWorld::new(
        NavWorld::from_package(pkg),
        wall_buffer_m,
    ));
    // SAFETY: as above.
    unsafe { out_world.write(Box::into_raw(world)) };
    Ok(())
}

/// Opens a nav package (`NAME.navpkg`) from a file.
///
/// `path` is a NUL-terminated UTF-8 path. On success `*out_world` holds a new world, to be
/// freed with [`navstudio_world_free`]; on failure it holds NULL, the status is
/// `NAVSTUDIO_STATUS_PACKAGE` (or a pointer error) and [`navstudio_last_error`] names the
/// file and what is wrong with it.
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
        open_into(out_world, || package::read(Path::new(path)))
    })
}

/// Opens a nav package held in memory (`len` bytes at `bytes`; the library copies what it
/// needs, so the buffer may be freed when the call returns). Otherwise as
/// [`navstudio_world_open`].
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
        open_into(out_world, || package::from_bytes(bytes))
    })
}

/// Frees a world and every path and stamp in it. NULL is ignored. A crowd made on this world
/// must not be stepped afterwards (free it too).
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
        let nav = w.world().nav();
        let info = NavstudioWorldInfo {
            width: nav.spec.width,
            height: nav.spec.height,
            sector_size: nav.spec.sector_size,
            cell_size_m: nav.cell_size_m,
            movement_type_count: nav.layers.len() as u32,
        };
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_info, info, "out_info") }
    })
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
        let layers = &w.world().nav().layers;
        let index = layers.iter().position(|l| l.name == name).ok_or_else(|| {
            let known: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
            Failure::new(
                NavstudioStatus::UnknownMovementType,
                format!(
                    "no movement type '{name}' in this package (it has: {})",
                    known.join(", ")
                ),
            )
        })?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_index, index as u32, "out_index") }
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
/// ids; constant time, no search). Both cells must lie on the map.
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

/// Plans a path for `source_count` sources (an array of cells) to `goal` for one movement
/// type, and writes its handle to `*out_path`. Sources on other islands than the goal are
/// left out; the first reachable one runs a full portal A*, later ones a merging A*. The
/// path lives until [`navstudio_path_release`] (or the world is freed); after a rebuild it is
/// re-planned from the same sources under the same handle.
///
/// Errors: `UNKNOWN_MOVEMENT_TYPE`, `OFF_MAP`, `GOAL_IS_WALL`, `UNREACHABLE` (no source shares
/// the goal's island), `INVALID_ARGUMENT` (no sources).
///
/// For a goal set (several goal cells, each source led to its nearest) see
/// [`navstudio_request_path_to_any`].
///
/// Threading: changes the world (the path table and its caches): no other call on this
/// world may run at the same time.
///
/// # Safety
/// `world` must be a live handle; `sources` must point at `source_count` cells; `out_path`
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_request_path(
    world: *mut NavstudioWorld,
    movement_type: u32,
    sources: *const NavstudioCell,
    source_count: usize,
    goal: NavstudioCell,
    out_path: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            if out_path.is_null() {
                return Err(Failure::null("out_path"));
            }
            // SAFETY: the caller passes `source_count` cells (contract above).
            let sources = unsafe { slice_from(sources, source_count, "sources") }?;
            let layer = w.layer(movement_type)?;
            let sources = w.sources(sources)?;
            let goal = w.cell(goal, "goal")?;
            let planned = w.nav.world.request_path(layer, &sources, goal);
            let handle = w.issue(planned)?;
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_path, handle, "out_path") }
        })
    })
}

/// Plans one path for `source_count` sources to the nearest of `goal_count` goal cells (by
/// integrated cost: a depot, any of a building's entrances, a tower-defence exit) and
/// writes its handle to `*out_path`. Every source's flow leads to its nearest goal; the
/// handle works with every path function, as [`navstudio_request_path`]'s does, and one goal
/// gives exactly that function's path. Goals that are walls or on islands no source stands
/// on are left out.
///
/// Errors: `UNKNOWN_MOVEMENT_TYPE`, `OFF_MAP`, `GOAL_IS_WALL` (every goal is a wall),
/// `UNREACHABLE` (no source shares an island with a goal), `INVALID_ARGUMENT` (no sources or
/// no goals).
///
/// Threading: changes the world (the path table and its caches): no other call on this
/// world may run at the same time.
///
/// # Safety
/// `world` must be a live handle; `sources` must point at `source_count` cells and `goals` at
/// `goal_count` cells; `out_path` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_request_path_to_any(
    world: *mut NavstudioWorld,
    movement_type: u32,
    sources: *const NavstudioCell,
    source_count: usize,
    goals: *const NavstudioCell,
    goal_count: usize,
    out_path: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            if out_path.is_null() {
                return Err(Failure::null("out_path"));
            }
            // SAFETY: the caller passes `source_count` cells (contract above).
            let sources = unsafe { slice_from(sources, source_count, "sources") }?;
            // SAFETY: the caller passes `goal_count` cells (contract above).
            let goals = unsafe { slice_from(goals, goal_count, "goals") }?;
            let layer = w.layer(movement_type)?;
            let sources = w.sources(sources)?;
            if goals.is_empty() {
                return Err(Failure::invalid("a goal set needs at least one goal"));
            }
            let goals = goals
                .iter()
                .map(|&g| w.cell(g, "goal"))
                .collect::<Result<Vec<_>, _>>()?;
            let planned = w.nav.world.request_path_to_any(layer, &sources, &goals);
            let handle = w.issue(planned)?;
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_path, handle, "out_path") }
        })
    })
}

/// Moves the goal of `path` to `goal` (a unit chased, a rally point dragged). Inside the
/// goal's sector only the goal field is rebuilt and the path leads to the new goal at once
/// (`*out_queued = 0`). Across a sector border the route is re-planned by
/// [`navstudio_rebuild`] within its time budget (`*out_queued = 1`): until then the path keeps
/// leading to the old goal, then switches under the same handle, so agents never stop. A
/// goal set becomes the single goal. `out_queued` may be null.
///
/// Errors: `NO_SUCH_HANDLE`, `OFF_MAP`, `GOAL_IS_WALL`, `UNREACHABLE` (the goal is on no
/// island the path's sources stand on); the path is left as it was.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle; `out_queued` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_move_goal(
    world: *mut NavstudioWorld,
    path: u32,
    goal: NavstudioCell,
    out_queued: *mut u8,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            let id = w.live_path(path)?;
            let goal = w.cell(goal, "goal")?;
            let how = w
                .nav
                .world
                .move_goal(id, goal)
                .map_err(|e| Failure::new(path_status(&e), e.to_string()))?;
            if out_queued.is_null() {
                return Ok(());
            }
            let queued = u8::from(how == navstudio_nav::GoalMove::RouteQueued);
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_queued, queued, "out_queued") }
        })
    })
}

/// Adds `source_count` sources to `path` after it was planned (units joining a group, a unit
/// that left the route): each runs a merging A* that finishes on the routes already
/// planned, exactly as if it had been named in the request. Sources on islands without the
/// path's goal, and sources already routed, are left out; `*out_added` (may be null) gets
/// how many were added.
///
/// Errors: `NO_SUCH_HANDLE`, `OFF_MAP` (nothing added), `INVALID_ARGUMENT` (no sources).
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle; `sources` must point at `source_count` cells; `out_added`
/// null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_add_sources(
    world: *mut NavstudioWorld,
    path: u32,
    sources: *const NavstudioCell,
    source_count: usize,
    out_added: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            let id = w.live_path(path)?;
            // SAFETY: the caller passes `source_count` cells (contract above).
            let sources = unsafe { slice_from(sources, source_count, "sources") }?;
            let sources = w.sources(sources)?;
            let added = w
                .nav
                .world
                .add_sources(id, &sources)
                .map_err(|e| Failure::new(path_status(&e), e.to_string()))?;
            if out_added.is_null() {
                return Ok(());
            }
            let added = u32::try_from(added).unwrap_or(u32::MAX);
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_added, added, "out_added") }
        })
    })
}

/// Releases a path handle (its goal field may stay cached until evicted).
/// `NAVSTUDIO_STATUS_NO_SUCH_HANDLE` for a handle not live in this world.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_path_release(
    world: *mut NavstudioWorld,
    path: u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            if !w.paths.remove(&path) {
                return Err(Failure::new(
                    NavstudioStatus::NoSuchHandle,
                    format!("path {path} was never issued by this world or was released"),
                ));
            }
            w.nav.world.release_path(PathId(path));
            Ok(())
        })
    })
}

/// The unit direction to steer in at `position` (cell units: `(x + 0.5, y + 0.5)` is the
/// centre of cell `(x, y)`) on `path`: straight at the goal in line of sight, else at the
/// furthest flow cell ahead in plain sight (look-ahead), else the bilinear blend of the four
/// nearest flow directions; off the route, toward the nearest routed portal.
/// `NAVSTUDIO_STATUS_NO_FLOW` when there is no direction to give.
///
/// Threading: read-only, and built for it: many threads may sample one world at once (each
/// agent of a crowd, say), but not while a call that changes the world runs.
///
/// # Safety
/// `world` must be a live handle; `out_direction` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_sample_flow(
    world: *const NavstudioWorld,
    path: u32,
    position: NavstudioVec2,
    out_direction: *mut NavstudioVec2,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        // The hot call of a crowd: one look-up here, the full diagnosis only on failure.
        if !w.paths.contains(&path) {
            return Err(w
                .live_path(path)
                .err()
                .unwrap_or_else(|| Failure::invalid("path")));
        }
        let id = PathId(path);
        let spec = w.world().nav().spec;
        let (px, py) = (position.x, position.y);
        if !(px.is_finite() && py.is_finite())
            || px < 0.0
            || py < 0.0
            || px >= spec.width as f32
            || py >= spec.height as f32
        {
            return Err(Failure::new(
                NavstudioStatus::OffMap,
                format!("position ({px}, {py}) lies off the map"),
            ));
        }
        let (x, y) = w.world().sample_flow(id, (px, py)).ok_or_else(|| {
            // A path re-planning dropped after a rebuild also samples as nothing.
            w.live_path(path).err().unwrap_or_else(|| {
                Failure::new(
                    NavstudioStatus::NoFlow,
                    format!("path {path} has no direction at ({px}, {py})"),
                )
            })
        })?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_direction, NavstudioVec2 { x, y }, "out_direction") }
    })
}

/// Whether `cell` sees the goal of `path` in a straight line (its flow carries the
/// line-of-sight flag). False off the route.
///
/// Threading: read-only (see [`navstudio_sample_flow`]).
///
/// # Safety
/// `world` must be a live handle; `out_visible` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_line_of_sight(
    world: *const NavstudioWorld,
    path: u32,
    cell: NavstudioCell,
    out_visible: *mut bool,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let id = w.live_path(path)?;
        let cell = w.cell(cell, "cell")?;
        let visible = w.world().has_line_of_sight(id, cell);
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_visible, visible, "out_visible") }
    })
}

/// Follows `path` from `source` as an agent steered by [`navstudio_sample_flow`] does, until
/// the goal or line of sight, and writes the length walked to `*out_length_cells` (1 per
/// straight step, √2 per diagonal, straight-line distance once in sight: the number
/// `navstudio path` prints as "traced"). The cells visited (source first) go to `out_cells`
/// when it is not NULL: `*out_cell_count` always receives how many there are, and when
/// `cells_capacity` is smaller nothing is copied and the status is
/// `NAVSTUDIO_STATUS_BUFFER_TOO_SMALL` (the length is written all the same).
/// `NAVSTUDIO_STATUS_NO_FLOW` when following the flow does not reach the goal.
///
/// Threading: read-only (see [`navstudio_sample_flow`]).
///
/// # Safety
/// `world` must be a live handle; `out_cells` NULL or `cells_capacity` writable cells;
/// `out_length_cells` and `out_cell_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_trace_path(
    world: *const NavstudioWorld,
    path: u32,
    source: NavstudioCell,
    out_length_cells: *mut f64,
    out_cells: *mut NavstudioCell,
    cells_capacity: usize,
    out_cell_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let id = w.live_path(path)?;
        let from = w.cell(source, "source")?;
        if out_length_cells.is_null() {
            return Err(Failure::null("out_length_cells"));
        }
        if out_cell_count.is_null() {
            return Err(Failure::null("out_cell_count"));
        }
        let traced = w.world().trace_path(id, from).ok_or_else(|| {
            Failure::new(
                NavstudioStatus::NoFlow,
                format!(
                    "following path {path} from ({}, {}) does not reach its goal",
                    from.0, from.1
                ),
            )
        })?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_length_cells, traced.length, "out_length_cells") }?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_cell_count, traced.cells.len(), "out_cell_count") }?;
        if out_cells.is_null() {
            return Ok(());
        }
        let cells: Vec<NavstudioCell> = traced
            .cells
            .iter()
            .map(|&(x, y)| NavstudioCell { x, y })
            .collect();
        // SAFETY: the caller passes `cells_capacity` writable cells (contract above).
        unsafe { write_array(out_cells, cells_capacity, &cells, "out_cells") }
    })
}

/// Sets one cell's cost for one movement type (1..=254, 255 = wall). Walls change at once
/// for a crowd on this world; portals, islands and routes once [`navstudio_rebuild`] has
/// drained the queue.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_set_cost(
    world: *mut NavstudioWorld,
    movement_type: u32,
    cell: NavstudioCell,
    cost: u8,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            let layer = w.layer(movement_type)?;
            let (x, y) = w.cell(cell, "cell")?;
            if cost == 0 {
                return Err(Failure::invalid(
                    "cost 0 is not a cost: 1..=254, 255 = wall",
                ));
            }
            w.nav.set_cost(layer, x, y, cost);
            Ok(())
        })
    })
}

/// Stamps a block of costs (`rect.width × rect.height` bytes, row by row, each 1..=254 or
/// 255 = wall) into the movement types listed in `movement_types`, remembering what it
/// covered so [`navstudio_remove_stamp`] can restore it. The part of the block past the
/// map's right or bottom edge is dropped; its corner must lie on the map. Takes effect as
/// [`navstudio_set_cost`] does. Writes the stamp's handle to `*out_stamp`.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle; `movement_types` must point at `type_count` u32s, `costs`
/// at `cost_count` bytes; `out_stamp` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_apply_stamp(
    world: *mut NavstudioWorld,
    movement_types: *const u32,
    type_count: usize,
    rect: NavstudioRect,
    costs: *const u8,
    cost_count: usize,
    out_stamp: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            if out_stamp.is_null() {
                return Err(Failure::null("out_stamp"));
            }
            // SAFETY: the caller passes `type_count` u32s (contract above).
            let types = unsafe { slice_from(movement_types, type_count, "movement_types") }?;
            // SAFETY: the caller passes `cost_count` bytes (contract above).
            let costs = unsafe { slice_from(costs, cost_count, "costs") }?;
            if types.is_empty() {
                return Err(Failure::invalid("a stamp needs at least one movement type"));
            }
            let layers = types
                .iter()
                .map(|&t| w.layer(t))
                .collect::<Result<Vec<_>, _>>()?;
            w.cell(
                NavstudioCell {
                    x: rect.x,
                    y: rect.y,
                },
                "stamp corner",
            )?;
            let cells = (rect.width as usize).checked_mul(rect.height as usize);
            if rect.width == 0 || rect.height == 0 || cells != Some(costs.len()) {
                return Err(Failure::invalid(format!(
                    "a {}×{} stamp needs {} costs, {} were given",
                    rect.width,
                    rect.height,
                    cells.map_or_else(|| "too many".to_owned(), |c| c.to_string()),
                    costs.len()
                )));
            }
            if costs.contains(&0) {
                return Err(Failure::invalid(
                    "cost 0 is not a cost: 1..=254, 255 = wall",
                ));
            }
            let handle =
                w.nav
                    .apply_stamp(&layers, (rect.x, rect.y, rect.width, rect.height), costs);
            w.stamps.insert(handle.0);
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_stamp, handle.0, "out_stamp") }
        })
    })
}

/// Restores the costs a stamp covered. `NAVSTUDIO_STATUS_NO_SUCH_HANDLE` for a stamp not
/// applied on this world or already removed.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_remove_stamp(
    world: *mut NavstudioWorld,
    stamp: u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            if !w.stamps.remove(&stamp) {
                return Err(Failure::new(
                    NavstudioStatus::NoSuchHandle,
                    format!("stamp {stamp} was never applied on this world or was removed"),
                ));
            }
            w.nav.remove_stamp(StampHandle(stamp));
            Ok(())
        })
    })
}

/// Drains the rebuild queue for about `budget_us` microseconds (call it once per frame
/// after cost changes or a queued [`navstudio_move_goal`]): first the re-plans of goals
/// moved across a sector border (one at least), then dirty sectors' portals, graph edges,
/// islands and flow tiles, then landmark tables. When the queue empties, live paths are re-planned under their handles
/// (a path that can no longer be routed is dropped: its calls then return
/// `NAVSTUDIO_STATUS_NO_SUCH_HANDLE`). `*out_done` (may be NULL) is true when nothing is
/// left. A budget of 0 still does one batch, so a loop always finishes.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle; `out_done` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_rebuild(
    world: *mut NavstudioWorld,
    budget_us: u64,
    out_done: *mut bool,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            let done = w.nav.rebuild(Duration::from_micros(budget_us));
            if out_done.is_null() {
                return Ok(());
            }
            // SAFETY: non-null here; the caller passes writable storage (contract above).
            unsafe { write_out(out_done, done, "out_done") }
        })
    })
}

/// Work left in the rebuild queue (dirty sectors plus landmark tables being recomputed).
///
/// Threading: read-only (see [`navstudio_world_info`]).
///
/// # Safety
/// `world` must be a live handle; `out_pending` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_pending_rebuilds(
    world: *const NavstudioWorld,
    out_pending: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let pending = w.nav.pending_rebuilds();
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_pending, pending, "out_pending") }
    })
}

/// Sets how far movement type `movement_type`'s walls were pushed outward by the bake's
/// wall buffer (the map's `wall_buffer_m`; opening a version 2 package sets it from the
/// manifest, a version 1 package leaves 0). Crowd agents of that type collide a disc of `radius − buffer` with the walls.
/// `[Units: m] [Limit: >= 0, finite]`
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_world_set_wall_buffer(
    world: *mut NavstudioWorld,
    movement_type: u32,
    wall_buffer_m: f32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            let layer = w.layer(movement_type)?;
            if !(wall_buffer_m.is_finite() && wall_buffer_m >= 0.0) {
                return Err(Failure::invalid(format!(
                    "wall buffer {wall_buffer_m} m is not a finite distance >= 0"
                )));
            }
            if w.nav.wall_buffer_m.len() <= layer {
                w.nav.wall_buffer_m.resize(layer + 1, 0.0);
            }
            w.nav.wall_buffer_m[layer] = wall_buffer_m;
            Ok(())
        })
    })
}
