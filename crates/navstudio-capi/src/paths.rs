//! Paths on a world: requests (one goal or a goal set), moving goals and added sources,
//! release, flow sampling, line of sight and tracing.

use navstudio_nav::world::PathId;

use crate::ffi::*;
use crate::world::*;
// Doc links by plain name: cbindgen copies the docs into the C header as written.
use crate::{NavstudioCell, NavstudioVec2};
#[cfg(doc)]
use crate::{navstudio_cell_cost, navstudio_rebuild};

/// Plans a path for `source_count` sources (an array of cells) to `goal` for one movement
/// type, and writes its handle to `*out_path`. Sources on other islands than the goal are
/// left out; the first reachable one runs a full portal A*, later ones a merging A*. The
/// path lives until [`navstudio_path_release`] (or the world is freed); after a rebuild it is
/// re-planned from the same sources under the same handle.
///
/// Errors: `UNKNOWN_MOVEMENT_TYPE`, `OFF_MAP`, `WALL` (the goal is a wall, or every source
/// is), `UNREACHABLE` (no source shares the goal's island), `INVALID_ARGUMENT` (no sources).
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
    // One goal is a goal set of one: the same checks, refusals and path.
    // SAFETY: the caller's contract is this function's, and `goal` outlives the call.
    unsafe {
        navstudio_request_path_to_any(
            world,
            movement_type,
            sources,
            source_count,
            &raw const goal,
            1,
            out_path,
        )
    }
}

/// Plans one path for `source_count` sources to the nearest of `goal_count` goal cells (by
/// integrated cost: a depot, any of a building's entrances, a tower-defence exit) and
/// writes its handle to `*out_path`. Every source's flow leads to its nearest goal; the
/// handle works with every path function, as [`navstudio_request_path`]'s does, and one goal
/// gives exactly that function's path. Goals that are walls or on islands no source stands
/// on are left out.
///
/// Errors: `UNKNOWN_MOVEMENT_TYPE`, `OFF_MAP`, `WALL` (every goal is a wall, or every
/// source is), `UNREACHABLE` (no source shares an island with a goal), `INVALID_ARGUMENT`
/// (no sources or no goals).
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
/// Errors: `NO_SUCH_HANDLE`, `OFF_MAP`, `WALL`, `UNREACHABLE` (the goal is on no
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
/// `NAVSTUDIO_STATUS_NO_SUCH_HANDLE` for a handle not live in this world, including a path a
/// rebuild dropped (the handle is forgotten all the same, as by a release).
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
            // A path the rebuild dropped is refused as every call on it is, and forgotten.
            let live = w.live_path(path);
            if w.paths.remove(&path) {
                w.nav.world.release_path(PathId(path));
            }
            live.map(|_| ())
        })
    })
}

/// The unit direction to steer in at `position` (cell units: `(x + 0.5, y + 0.5)` is the
/// centre of cell `(x, y)`) on `path`: straight at the goal in line of sight, else at the
/// furthest flow cell ahead in plain sight (look-ahead, see [`navstudio_steer_target`]),
/// else the bilinear blend of the four nearest flow directions; off the route, toward the
/// nearest routed portal. It never leads into a wall: a step of up to half a cell along it
/// from a passable cell stays out of wall cells and never squeezes between two walls meeting
/// at a corner (near a wall it slides along it). A wall cell answers as any other (from the
/// flow around it, or toward the route), so an agent pushed into a wall is led out; use
/// [`navstudio_cell_cost`] to tell walls apart.
///
/// Errors: `NO_SUCH_HANDLE`, `INVALID_ARGUMENT` (a NaN or infinite position), `OFF_MAP`,
/// `NO_FLOW` when there is no direction to give.
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
        let (px, py) = on_map(w, position)?;
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

/// `position` as cell units when it is finite and on the map: `INVALID_ARGUMENT` for NaN or
/// infinity, `OFF_MAP` outside, as every call taking a position answers.
pub(crate) fn on_map(w: &NavstudioWorld, position: NavstudioVec2) -> Result<(f32, f32), Failure> {
    position_on(w.world().nav().spec, position)
}

/// [`on_map`] for a map of `spec`.
pub(crate) fn position_on(
    spec: navstudio_nav::GridSpec,
    position: NavstudioVec2,
) -> Result<(f32, f32), Failure> {
    let (px, py) = (position.x, position.y);
    if !(px.is_finite() && py.is_finite()) {
        return Err(Failure::invalid(format!(
            "position ({px}, {py}) is not a finite position; pass finite cell units"
        )));
    }
    if px < 0.0 || py < 0.0 || px >= spec.width as f32 || py >= spec.height as f32 {
        return Err(Failure::new(
            NavstudioStatus::OffMap,
            format!(
                "position ({px}, {py}) lies off the {}×{} map",
                spec.width, spec.height
            ),
        ));
    }
    Ok((px, py))
}

/// The point to steer at from `position` on `path` (cell units, as for
/// [`navstudio_sample_flow`]): the goal's centre when the position's cell sees the goal;
/// else the farthest cell of the flow ahead, within the look-ahead, that the cell reaches
/// in a straight line without crossing a wall or a cell costlier than the flow crosses
/// (string pulling); else the centre of the next cell of the flow. An agent that heads for
/// this point, asking again as it moves, walks the route [`navstudio_trace_path`] measures.
/// Answers are cached per cell.
///
/// Errors: `NO_SUCH_HANDLE`, `INVALID_ARGUMENT` (a NaN or infinite position), `OFF_MAP`,
/// `NO_FLOW` where the path gives no target (off its route).
///
/// Threading: read-only (see [`navstudio_sample_flow`]).
///
/// # Safety
/// `world` must be a live handle; `out_target` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_steer_target(
    world: *const NavstudioWorld,
    path: u32,
    position: NavstudioVec2,
    out_target: *mut NavstudioVec2,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let id = w.live_path(path)?;
        let (px, py) = on_map(w, position)?;
        let (x, y) = w.world().steer_target(id, (px, py)).ok_or_else(|| {
            Failure::new(
                NavstudioStatus::NoFlow,
                format!(
                    "path {path} gives no target at ({px}, {py}): the position is off its route"
                ),
            )
        })?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_target, NavstudioVec2 { x, y }, "out_target") }
    })
}

/// Whether the whole of `cell` sees the goal of `path` in a straight line over clear
/// ground, however far: an agent there steers straight at it. False off the route.
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
/// the goal, and writes the length walked to `*out_length_cells`: the pulled string, straight
/// segments from the source to each look-ahead target ([`navstudio_steer_target`]) in turn
/// and to the goal once in sight, then pulled taut round the wall corners it turns at, each
/// segment counted by its Euclidean length (the number `navstudio path` prints as "traced").
/// The cells that string runs through (source first) go to `out_cells`
/// when it is not NULL: `*out_cell_count` always receives how many there are, and when
/// `cells_capacity` is smaller nothing is copied and the status is
/// `NAVSTUDIO_STATUS_BUFFER_TOO_SMALL` (the length is written all the same).
///
/// `source` need not be one of the path's sources: from any cell on the goal's island the
/// trace walks as `navstudio_sample_flow` steers (quarter-cell steps off the route) until it
/// is on the route, then follows the flow.
///
/// Errors: `NO_SUCH_HANDLE`, `OFF_MAP`, `WALL` (the source is a wall), `UNREACHABLE` (the
/// source is on another island than the goal), `NO_FLOW` (the walk from it enters a wall or
/// does not reach the goal).
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
            let (x, y) = from;
            let island = w.world().island_at(layer_of(w, id), from);
            if island == 0 {
                Failure::new(
                    NavstudioStatus::Wall,
                    format!("the source ({x}, {y}) is a wall for the path's movement type"),
                )
            } else if !w.world().path_reaches(id, from) {
                Failure::new(
                    NavstudioStatus::Unreachable,
                    format!(
                        "the source ({x}, {y}) is on another island than path {path}'s goal: \
                         nothing leads from it there"
                    ),
                )
            } else {
                Failure::new(
                    NavstudioStatus::NoFlow,
                    format!(
                        "following path {path} from ({x}, {y}) does not reach its goal (the \
                         way to its route is blocked); add the cell as a source with \
                         navstudio_add_sources"
                    ),
                )
            }
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

/// The movement type a live path was planned for.
fn layer_of(w: &NavstudioWorld, id: PathId) -> usize {
    w.world().path(id).map_or(0, |p| p.layer)
}
