//! Run-time changes to a world: single cell costs, stamps, the time-sliced rebuild queue,
//! and the crowd's wall buffers.

use std::time::Duration;

use navstudio_nav::CellRect;
use navstudio_nav::world::StampHandle;

use crate::ffi::*;
// Doc links by plain name: cbindgen copies the docs into the C header as written.
use crate::world::*;
use crate::{NavstudioCell, NavstudioRect};
#[cfg(doc)]
use crate::{navstudio_move_goal, navstudio_path_release};

/// Sets one cell's cost for one movement type (1..=254, 255 = wall). Walls change at once
/// for a crowd on this world; portals, islands and routes once [`navstudio_rebuild`] has
/// drained the queue. On a stamped cell the new cost shows at once and stays when the
/// stamp is removed (it counts as written after the stamp).
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
            w.nav.set_cost(layer, (x, y), cost);
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
/// Stamps compose: where stamps overlap, the one applied last shows. Removing stamps in
/// any order leaves every cell as if only the stamps still applied (and the
/// [`navstudio_set_cost`] calls made meanwhile) had been written, in the order they were:
/// buildings may go up and come down in any order and the map comes back exactly.
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
            let handle = w.nav.apply_stamp(
                &layers,
                CellRect::at(rect.x, rect.y, rect.width, rect.height),
                costs,
            );
            w.stamps.insert(handle.0);
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_stamp, handle.0, "out_stamp") }
        })
    })
}

/// Removes a stamp: each cell it covered shows what it would if the stamp had never been
/// applied (the cost from before it, or a later stamp or cost change over it; see
/// [`navstudio_apply_stamp`]). `NAVSTUDIO_STATUS_NO_SUCH_HANDLE` for a stamp not applied on
/// this world or already removed.
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
/// islands and flow tiles, then landmark tables (their searches pause mid-way when the
/// budget is spent). When the queue empties, live paths are re-planned under their handles,
/// one at a time within the budget (a path that can no longer be routed is dropped: its
/// calls, [`navstudio_path_release`] included, then return
/// `NAVSTUDIO_STATUS_NO_SUCH_HANDLE`). `*out_done` (may be NULL) is true when nothing is
/// left. The clock is read between units of work (a batch of 64 dirty sectors, a slice of a
/// landmark search, one path's re-plan), so a call overruns its budget by at most one unit;
/// a budget of 0 still does one unit, so a loop always finishes.
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
