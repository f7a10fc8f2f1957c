//! Requests from many threads: a data handle shared between threads (one version of a map,
//! read-only) and one query handle per thread, as Detour shares a `dtNavMesh` between
//! `dtNavMeshQuery`s. Paths planned by a query are handles of their own, read-only once
//! made, so any thread may sample or trace them with its own query.
//!
//! Threading rules (also in the header, on each function):
//! - a `NavstudioData` is never changed: any number of threads may pass it to any function
//!   at once; free it when no call uses it (paths made on it keep their own reference);
//! - a `NavstudioQuery` holds one thread's scratch: one call at a time on it (one query per
//!   worker thread); it may move between threads between calls;
//! - a `NavstudioSharedPath` is never changed: any number of threads may sample and trace it at
//!   once, each with its own query; free it when no call uses it.

use std::ffi::c_char;
use std::path::Path as FsPath;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use navstudio_nav::{Cell, MoveType, NavData, Path, PathQuery, StreamOptions};

use crate::ffi::{
    Failure, NavstudioStatus, Outcome, guard, poison_on_panic, slice_from, str_from, write_array,
    write_out,
};
use crate::paths::position_on;
use crate::world::{
    NavstudioWorld, NavstudioWorldInfo, info_of, move_type_index, path_status, poisoned, world_mut,
};
use crate::{NavstudioCell, NavstudioVec2};
// Doc links by plain name: cbindgen copies the docs into the C header as written.
#[cfg(doc)]
use crate::{navstudio_last_error, navstudio_rebuild, navstudio_trace_path};

/// One version of a map's navigation data, shared read-only between threads. Opaque; made
/// by [`navstudio_data_open`] or [`navstudio_world_data`], freed by [`navstudio_data_free`].
pub struct NavstudioData {
    data: Arc<NavData>,
}

/// One thread's path queries: search scratch and goal fields. Opaque; made by
/// [`navstudio_query_create`], freed by [`navstudio_query_free`]. One call at a time.
pub struct NavstudioQuery {
    query: PathQuery,
    poisoned: AtomicBool,
}

/// A path planned by a query, on the data version it was planned on. Opaque and never
/// changed: any thread may sample or trace it with its own query. Freed by
/// [`navstudio_shared_path_free`].
pub struct NavstudioSharedPath {
    path: Path,
}

/// Opens a nav package file as a data handle threads share, without decoding it: a map at
/// the size limit opens in milliseconds. A movement type's portal graph and search tables
/// are decoded by its first request, and regions of cost and flow tiles when a request
/// first reads them, into a cache every thread reads (at most 256 MiB of tiles, least
/// recently used dropped first; a path still read keeps its own). Answers are those of the
/// package read whole. `*out_data` holds the handle, or NULL on failure
/// (`NAVSTUDIO_STATUS_PACKAGE` naming the file and what is wrong with its header, index or
/// island ids; `INVALID_ARGUMENT` for an empty path). Damage in a region or a movement
/// type's graph is found by the call that reads it: that call gives
/// `NAVSTUDIO_STATUS_PACKAGE` naming the chunk, and the rest of the map stays usable, as
/// with [`crate::navstudio_world_open`]. Free it with [`navstudio_data_free`].
///
/// Threading: any thread.
///
/// # Safety
/// `path` must be NUL-terminated; `out_data` must point at writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_data_open(
    path: *const c_char,
    out_data: *mut *mut NavstudioData,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller hands a writable slot (contract above).
        unsafe { write_out(out_data, std::ptr::null_mut(), "out_data") }?;
        // SAFETY: the caller passes a NUL-terminated string (contract above).
        let path = unsafe { str_from(path, "path") }?;
        if path.is_empty() {
            return Err(Failure::invalid(
                "the package path is empty: pass the path of a .navpkg file",
            ));
        }
        let data = NavData::open(FsPath::new(path), StreamOptions::default())
            .map_err(|e| Failure::new(NavstudioStatus::Package, e.to_string()))?;
        let handle = Box::new(NavstudioData {
            data: Arc::new(data),
        });
        // SAFETY: as above.
        unsafe { write_out(out_data, Box::into_raw(handle), "out_data") }
    })
}

/// The world's current version as a data handle threads share: the costs, stamps and links
/// the world's rebuild queue has finished with (while [`navstudio_rebuild`] still has work,
/// the version before). Later changes to the world do not show in it; ask again after the
/// next rebuild. A world opened from a file reads its whole package the first time.
///
/// Threading: uses the world as a writing call does (no other call on the world at the
/// same time); the handle it gives is then free of the world, and may outlive it.
///
/// # Safety
/// `world` must be a live handle; `out_data` must point at writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_world_data(
    world: *mut NavstudioWorld,
    out_data: *mut *mut NavstudioData,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller hands a writable slot (contract above).
        unsafe { write_out(out_data, std::ptr::null_mut(), "out_data") }?;
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        let data = w.nav.world.data();
        let handle = Box::new(NavstudioData { data });
        // SAFETY: as above.
        unsafe { write_out(out_data, Box::into_raw(handle), "out_data") }
    })
}

/// Frees a data handle. NULL is ignored. Paths planned on it keep what they need.
///
/// Threading: no other call may use this handle during or after this one.
///
/// # Safety
/// `data` must be NULL or a handle from `navstudio_data_open` / `navstudio_world_data` not
/// freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_data_free(data: *mut NavstudioData) {
    if data.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once (contract above).
    drop(unsafe { Box::from_raw(data) });
}

/// The map's sizes, as [`crate::navstudio_world_info`] gives them.
///
/// Threading: any number of threads at once.
///
/// # Safety
/// `data` must be a live handle; `out_info` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_data_info(
    data: *const NavstudioData,
    out_info: *mut NavstudioWorldInfo,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let d = unsafe { data_ref(data) }?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_info, info_of(d), "out_info") }
    })
}

/// The index of the movement type called `name` (NUL-terminated UTF-8), for the query
/// functions. `UNKNOWN_MOVEMENT_TYPE` (naming the types there are) when there is none.
///
/// Threading: any number of threads at once.
///
/// # Safety
/// `data` must be a live handle, `name` NUL-terminated, `out_index` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_data_movement_type_index(
    data: *const NavstudioData,
    name: *const c_char,
    out_index: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let d = unsafe { data_ref(data) }?;
        // SAFETY: the caller passes a NUL-terminated string (contract above).
        let name = unsafe { str_from(name, "name") }?;
        let index = move_type_index(d, name)?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_index, index, "out_index") }
    })
}

/// A new query handle: one thread's search scratch. Make one per worker thread; free it
/// with [`navstudio_query_free`].
///
/// Threading: any thread.
///
/// # Safety
/// `out_query` must point at writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_query_create(
    out_query: *mut *mut NavstudioQuery,
) -> NavstudioStatus {
    guard(|| {
        let handle = Box::new(NavstudioQuery {
            query: PathQuery::default(),
            poisoned: AtomicBool::new(false),
        });
        let raw = Box::into_raw(handle);
        // SAFETY: the caller hands a writable slot (contract above).
        let written = unsafe { write_out(out_query, raw, "out_query") };
        if written.is_err() {
            // SAFETY: made just above and handed to nobody.
            drop(unsafe { Box::from_raw(raw) });
        }
        written
    })
}

/// Frees a query handle. NULL is ignored.
///
/// Threading: no other call may use this handle during or after this one.
///
/// # Safety
/// `query` must be NULL or a handle from `navstudio_query_create` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_query_free(query: *mut NavstudioQuery) {
    if query.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once (contract above).
    drop(unsafe { Box::from_raw(query) });
}

/// Plans a path for `source_count` sources to `goal` for one movement type on `data`, with
/// `query`'s scratch, and writes a new path handle to `*out_path` (NULL on failure). The
/// path is the one [`crate::navstudio_request_path`] plans on a world holding the same
/// data. Free it with [`navstudio_shared_path_free`].
///
/// Errors: as [`crate::navstudio_request_path`]: `UNKNOWN_MOVEMENT_TYPE`, `OFF_MAP`,
/// `WALL`, `UNREACHABLE`, `INVALID_ARGUMENT` (no sources).
///
/// Threading: any number of threads at once on the same `data`, each with its own `query`.
///
/// # Safety
/// `query` and `data` must be live handles; `sources` must point at `source_count` cells;
/// `out_path` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_query_request_path(
    query: *mut NavstudioQuery,
    data: *const NavstudioData,
    movement_type: u32,
    sources: *const NavstudioCell,
    source_count: usize,
    goal: NavstudioCell,
    out_path: *mut *mut NavstudioSharedPath,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller hands a writable slot (contract above).
        unsafe { write_out(out_path, std::ptr::null_mut(), "out_path") }?;
        // SAFETY: the caller passes a live handle (contract above).
        let d = unsafe { data_ref(data) }?;
        // SAFETY: the caller passes `source_count` cells (contract above).
        let sources = unsafe { slice_from(sources, source_count, "sources") }?;
        if sources.is_empty() {
            return Err(Failure::invalid(
                "no sources: pass at least one cell to plan from",
            ));
        }
        if movement_type as usize >= d.layers.len() {
            return Err(Failure::new(
                NavstudioStatus::UnknownMovementType,
                format!(
                    "movement type {movement_type} does not exist (the package has {})",
                    d.layers.len()
                ),
            ));
        }
        let sources: Vec<Cell> = sources.iter().map(|c| Cell::new(c.x, c.y)).collect();
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let q = unsafe { query_mut(query) }?;
        let planned = with_query(q, |q| {
            q.request_path(
                d,
                MoveType::new(movement_type as usize),
                &sources,
                Cell::new(goal.x, goal.y),
            )
            .map_err(|e| Failure::new(path_status(&e), e.to_string()))
        })?;
        let handle = Box::into_raw(Box::new(NavstudioSharedPath { path: planned }));
        // SAFETY: checked writable above.
        unsafe { write_out(out_path, handle, "out_path") }
    })
}

/// Frees a path handle. NULL is ignored.
///
/// Threading: no other call may use this handle during or after this one.
///
/// # Safety
/// `path` must be NULL or a handle from `navstudio_query_request_path` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_shared_path_free(path: *mut NavstudioSharedPath) {
    if path.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once (contract above).
    drop(unsafe { Box::from_raw(path) });
}

/// Desired unit direction at `position` (cell units) on `path`, as
/// [`crate::navstudio_sample_flow`] gives it for a world's path.
///
/// Errors: `INVALID_ARGUMENT` (NaN or infinite position), `OFF_MAP`, `NO_FLOW`, `PACKAGE`
/// (data from [`navstudio_data_open`] could not read a region the sample needs: the
/// sentence names the chunk).
///
/// Threading: any number of threads at once on the same path, each with its own `query`.
///
/// # Safety
/// `query` and `path` must be live handles; `out_direction` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_query_sample_flow(
    query: *mut NavstudioQuery,
    path: *const NavstudioSharedPath,
    position: NavstudioVec2,
    out_direction: *mut NavstudioVec2,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let p = unsafe { path_ref(path) }?;
        let pos = on_map(&p.path, position)?;
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let q = unsafe { query_mut(query) }?;
        let dir = with_query(q, |q| {
            q.sample_flow(&p.path, pos)
                .ok_or_else(|| match q.read_error() {
                    Some(e) => Failure::new(path_status(e), e.to_string()),
                    None => Failure::new(
                        NavstudioStatus::NoFlow,
                        format!("the path has no direction at ({}, {})", pos.0, pos.1),
                    ),
                })
        })?;
        let v = NavstudioVec2 { x: dir.0, y: dir.1 };
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_direction, v, "out_direction") }
    })
}

/// The path as an agent from `source` walks it, as [`navstudio_trace_path`] gives it for a
/// world's path: its length in cells, and its cells into `out_cells` (`cells_capacity` of
/// them; NULL with 0 asks for the count only, written to `*out_cell_count`).
///
/// Errors: `OFF_MAP`, `WALL` (the source is a wall), `UNREACHABLE` (another island),
/// `NO_FLOW` (the walk does not reach the goal), `BUFFER_TOO_SMALL` (the count is written),
/// `PACKAGE` (data from [`navstudio_data_open`] could not read a region the route crosses:
/// the sentence names the chunk).
///
/// Threading: any number of threads at once on the same path, each with its own `query`.
///
/// # Safety
/// `query` and `path` must be live handles; `out_cells` NULL or `cells_capacity` writable
/// cells; `out_length_cells` and `out_cell_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_query_trace_path(
    query: *mut NavstudioQuery,
    path: *const NavstudioSharedPath,
    source: NavstudioCell,
    out_length_cells: *mut f64,
    out_cells: *mut NavstudioCell,
    cells_capacity: usize,
    out_cell_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let p = unsafe { path_ref(path) }?;
        let spec = p.path.data().spec;
        let (x, y) = (source.x, source.y);
        if x >= spec.width || y >= spec.height {
            return Err(Failure::new(
                NavstudioStatus::OffMap,
                format!(
                    "source ({x}, {y}) lies off the {}×{} map",
                    spec.width, spec.height
                ),
            ));
        }
        if out_length_cells.is_null() {
            return Err(Failure::null("out_length_cells"));
        }
        if out_cell_count.is_null() {
            return Err(Failure::null("out_cell_count"));
        }
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let q = unsafe { query_mut(query) }?;
        let from = Cell::new(x, y);
        let traced = with_query(q, |q| {
            q.trace_path(&p.path, from).ok_or_else(|| {
                let ty = p.path.move_type();
                if let Some(e) = q.read_error() {
                    Failure::new(path_status(e), e.to_string())
                } else if q.island_at(p.path.data(), ty, from) == 0 {
                    Failure::new(
                        NavstudioStatus::Wall,
                        format!("the source ({x}, {y}) is a wall for the path's movement type"),
                    )
                } else if !q.path_reaches(&p.path, from) {
                    Failure::new(
                        NavstudioStatus::Unreachable,
                        format!("the source ({x}, {y}) is on another island than the path's goal"),
                    )
                } else {
                    Failure::new(
                        NavstudioStatus::NoFlow,
                        format!("following the path from ({x}, {y}) does not reach its goal"),
                    )
                }
            })
        })?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_length_cells, traced.length, "out_length_cells") }?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_cell_count, traced.cells.len(), "out_cell_count") }?;
        if out_cells.is_null() && cells_capacity == 0 {
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

/// A data handle for reading.
///
/// # Safety
/// `data`, when non-null, must be a live handle.
unsafe fn data_ref<'a>(data: *const NavstudioData) -> Result<&'a Arc<NavData>, Failure> {
    // SAFETY: a non-null handle is a live `Box<NavstudioData>`, never written (contract).
    let d = unsafe { data.as_ref() }.ok_or_else(|| Failure::null("data"))?;
    Ok(&d.data)
}

/// A path handle for reading.
///
/// # Safety
/// `path`, when non-null, must be a live handle.
unsafe fn path_ref<'a>(
    path: *const NavstudioSharedPath,
) -> Result<&'a NavstudioSharedPath, Failure> {
    // SAFETY: a non-null handle is a live `Box<NavstudioSharedPath>`, never written (contract).
    unsafe { path.as_ref() }.ok_or_else(|| Failure::null("path"))
}

/// A query handle for this call alone; refuses null and poisoned handles.
///
/// # Safety
/// `query`, when non-null, must be a live handle no other call uses meanwhile.
unsafe fn query_mut<'a>(query: *mut NavstudioQuery) -> Result<&'a mut NavstudioQuery, Failure> {
    // SAFETY: a non-null handle is a live `Box<NavstudioQuery>` used by this call alone.
    let q = unsafe { query.as_mut() }.ok_or_else(|| Failure::null("query"))?;
    if q.poisoned.load(Ordering::Relaxed) {
        return Err(poisoned("query"));
    }
    Ok(q)
}

/// Runs `body` on the query, poisoning it if it panics half-way.
fn with_query<T>(
    q: &mut NavstudioQuery,
    body: impl FnOnce(&mut PathQuery) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut out = None;
    let outcome: Outcome = poison_on_panic(
        q,
        |q| q.poisoned.store(true, Ordering::Relaxed),
        |q| {
            out = Some(body(&mut q.query)?);
            Ok(())
        },
    );
    outcome?;
    out.ok_or_else(|| Failure::invalid("query"))
}

/// `position` in cell units when finite and on the path's map.
fn on_map(path: &Path, position: NavstudioVec2) -> Result<(f32, f32), Failure> {
    position_on(path.data().spec, position)
}
