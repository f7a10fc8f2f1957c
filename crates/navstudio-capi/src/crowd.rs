//! The crowd: a [`Simulation`] stepped on a world's navigator. A crowd remembers the world it
//! was made on and refuses any other; every call that moves agents takes that world too,
//! since the crowd plans its paths and reads walls through it.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};

use navstudio_crowd::{
    AgentArchetype, AgentId, AgentState, CrowdError, SimConfig, Simulation, Vec2,
    default_archetypes,
};

use crate::NavstudioVec2;
use crate::ffi::{
    Failure, NavstudioStatus, Outcome, guard, poison_on_panic, slice_from, str_from, write_array,
    write_out,
};
use crate::world::{NavstudioWorld, poisoned, world_mut, world_ref};

/// Most steps one [`navstudio_crowd_step`] call runs.
const MAX_STEPS_PER_CALL: u32 = 60;

/// Most agent-steps (agents × steps) one call runs. A step costs up to about 6 µs of CPU per
/// agent, in a pile of agents added on one spot (`cargo run --release -p navstudio-capi
/// --example crowd_extreme`), so a call stays well under the header's second on one core.
const MAX_AGENT_STEPS_PER_CALL: u64 = 120_000;

/// Most agents one crowd holds: one step of the whole crowd fits in one call.
const MAX_AGENTS: usize = 100_000;

/// Most steps one [`navstudio_crowd_advance`] call takes (a stalled frame must not snowball).
const MAX_STEPS_PER_ADVANCE: u32 = 8;

/// How many steps of a crowd of `agents` fit in one call: at least one (a crowd is capped
/// at [`MAX_AGENTS`]), at most [`MAX_STEPS_PER_CALL`].
fn steps_within_a_call(agents: u64) -> u32 {
    let steps = MAX_AGENT_STEPS_PER_CALL / agents.max(1);
    u32::try_from(steps).map_or(MAX_STEPS_PER_CALL, |s| s.clamp(1, MAX_STEPS_PER_CALL))
}

/// A crowd simulation. Opaque; made by [`navstudio_crowd_create`], freed by
/// [`navstudio_crowd_free`].
pub struct NavstudioCrowd {
    sim: Simulation,
    world_id: u64,
    poisoned: AtomicBool,
}

/// One kind of unit, as [`navstudio_crowd_add_agent`] takes it.
/// [`navstudio_archetype_default`] fills one with a built-in kind. Every number must be
/// finite and within the limit written beside it; [`navstudio_crowd_add_agent`] refuses
/// anything else with `NAVSTUDIO_STATUS_INVALID_ARGUMENT` and a sentence naming the field
/// and its range. Within the limits no call runs unbounded.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NavstudioArchetype {
    /// Name (NUL-terminated UTF-8); agents of equal archetypes share one record. May be NULL.
    pub name: *const c_char,
    /// The movement type whose walls and flow this unit uses (NUL-terminated UTF-8).
    pub movement_type: *const c_char,
    /// Collision disc radius. `[Units: m] [Limit: > 0, <= 8 cells of the world's map (8 ×
    /// cell_size_m)]`: wall contacts scan the cells under the disc, so a step's work grows with
    /// the radius in cells squared.
    pub radius_m: f32,
    /// Mass; heavy units push light ones aside. `[Units: kg] [Limit: 0.1 ..= 1e7]`
    pub mass: f32,
    /// Largest steering force. `[Units: N] [Limit: > 0, max_force / mass <= 1000 m/s²]`
    pub max_force: f32,
    /// Top speed. `[Units: m/s] [Limit: > 0, <= 100]`
    pub max_speed: f32,
    /// Neighbours within this distance influence steering. `[Units: m] [Limit: > 0, <= 100]`:
    /// neighbour queries visit every agent within it.
    pub neighbour_radius_m: f32,
}

/// What an order did, from [`navstudio_crowd_order`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NavstudioOrderReport {
    /// Id of the order.
    pub order: u32,
    /// Agents now moving.
    pub moving: u32,
    /// Agents whose movement type cannot reach the goal from where they stand; now idle.
    pub unreachable: u32,
    /// Whether the group spread over lanes (otherwise every agent heads for the goal).
    pub lanes: bool,
}

/// What an agent is doing, from [`navstudio_crowd_states`].
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavstudioAgentState {
    /// No order: holds position.
    Idle = 0,
    /// Following its order's path.
    Moving = 1,
    /// Reached its goal: its centre came within its own radius of its goal point (its lane
    /// target in a group order), or, near the goal, it touched an agent of the same order
    /// that had arrived (a group fills the space round its goal; touching is within 1.25 ×
    /// the two radii plus the separation margin), or a standing agent it touches holds its
    /// goal. Distances are metres and radii, the same on any cell size. An arrived agent
    /// holds position until its next order.
    Arrived = 2,
    /// Has an order, but neither it nor the agents ahead of it came 0.5 m nearer their goals
    /// in the last 3 s (a jam); keeps trying.
    Stuck = 3,
    /// Has an order and came no 0.5 m nearer its goal in the last 3 s, but waits behind
    /// agents that do (a queue that moves).
    Queued = 4,
}

/// The crowd and its world, checked to belong together, for a call that changes both.
///
/// # Safety
/// Both must be live handles used by this call alone.
unsafe fn pair_mut<'a>(
    crowd: *mut NavstudioCrowd,
    world: *mut NavstudioWorld,
) -> Result<(&'a mut NavstudioCrowd, &'a mut NavstudioWorld), Failure> {
    // SAFETY: a non-null crowd handle is a live `Box<NavstudioCrowd>` used by this call alone
    // (this function's contract).
    let c = unsafe { crowd.as_mut() }.ok_or_else(|| Failure::null("crowd"))?;
    if c.poisoned.load(Ordering::Relaxed) {
        return Err(poisoned("crowd"));
    }
    // SAFETY: forwarded from this function's contract.
    let w = unsafe { world_mut(world) }?;
    if w.id != c.world_id {
        return Err(wrong_world());
    }
    // Once per world: the first crowd call reads its walls (see `NavstudioWorld::new`).
    w.nav.load_walls();
    Ok((c, w))
}

fn wrong_world() -> Failure {
    Failure::new(
        NavstudioStatus::WrongWorld,
        "this crowd was created on another world; pass that one",
    )
}

/// Runs a call that changes a crowd and its world, poisoning both if it panics half-way.
fn mutate(
    c: &mut NavstudioCrowd,
    w: &mut NavstudioWorld,
    body: impl FnOnce(&mut NavstudioCrowd, &mut NavstudioWorld) -> Outcome,
) -> Outcome {
    let mut both = (c, w);
    poison_on_panic(
        &mut both,
        |(c, w)| {
            c.poisoned.store(true, Ordering::Relaxed);
            w.poisoned.store(true, Ordering::Relaxed);
        },
        |(c, w)| body(c, w),
    )
}

/// A crowd handle for reading.
///
/// # Safety
/// `crowd`, when non-null, must be a live handle no call changes meanwhile.
unsafe fn crowd_ref<'a>(crowd: *const NavstudioCrowd) -> Result<&'a NavstudioCrowd, Failure> {
    // SAFETY: a non-null handle is a live `Box<NavstudioCrowd>` shared with readers only
    // (this function's contract).
    let c = unsafe { crowd.as_ref() }.ok_or_else(|| Failure::null("crowd"))?;
    if c.poisoned.load(Ordering::Relaxed) {
        return Err(poisoned("crowd"));
    }
    Ok(c)
}

/// Creates an empty crowd on `world` with the default settings (60 Hz fixed step, boids
/// avoidance) and a seed for its random numbers: the same seed, world and calls give the
/// same positions bit for bit, on any number of threads. Free it with
/// [`navstudio_crowd_free`] before or after the world. After its world is freed the crowd
/// may still be read ([`navstudio_crowd_agent_count`], [`navstudio_crowd_positions`],
/// [`navstudio_crowd_states`]: they read the crowd alone) and freed; every call that takes a
/// world (add, order, step, advance) needs the world it was made on, alive.
///
/// Threading: reads the world (see `navstudio_world_info`).
///
/// # Safety
/// `world` must be a live handle; `out_crowd` writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_create(
    world: *const NavstudioWorld,
    seed: u64,
    out_crowd: *mut *mut NavstudioCrowd,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let crowd = NavstudioCrowd {
            sim: Simulation::new(SimConfig::default(), seed),
            world_id: w.id,
            poisoned: AtomicBool::new(false),
        };
        let ptr = Box::into_raw(Box::new(crowd));
        // SAFETY: the caller passes writable storage (contract above).
        let written = unsafe { write_out(out_crowd, ptr, "out_crowd") };
        if written.is_err() {
            // SAFETY: `ptr` came from `Box::into_raw` just above and was handed to no one.
            drop(unsafe { Box::from_raw(ptr) });
        }
        written
    })
}

/// Frees a crowd. NULL is ignored. Its paths stay in the world until the world is freed.
///
/// Threading: no other call may use the crowd during or after this one.
///
/// # Safety
/// `crowd` must be NULL or a handle from [`navstudio_crowd_create`] not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_free(crowd: *mut NavstudioCrowd) {
    if crowd.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: a non-null handle came from `Box::into_raw` in `navstudio_crowd_create`
        // and is freed once (contract above).
        drop(unsafe { Box::from_raw(crowd) });
    }));
}

/// Fills `*out` with a built-in archetype: "infantry", "tank", "hovercraft" or
/// "large walker". Its strings are static.
///
/// Threading: any thread.
///
/// # Safety
/// `name` must be NUL-terminated; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_archetype_default(
    name: *const c_char,
    out: *mut NavstudioArchetype,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a NUL-terminated string (contract above).
        let name = unsafe { str_from(name, "name") }?;
        let (c_name, c_type) = match name {
            "infantry" => (c"infantry", c"land"),
            "tank" => (c"tank", c"land"),
            "hovercraft" => (c"hovercraft", c"hover"),
            "large walker" => (c"large walker", c"large"),
            _ => {
                return Err(Failure::invalid(format!(
                    "no built-in archetype '{name}' (infantry, tank, hovercraft, large walker)"
                )));
            }
        };
        let a = default_archetypes()
            .into_iter()
            .find(|a| a.name == name)
            .ok_or_else(|| Failure::invalid(format!("no built-in archetype '{name}'")))?;
        let out_value = NavstudioArchetype {
            name: c_name.as_ptr(),
            movement_type: c_type.as_ptr(),
            radius_m: a.radius_m,
            mass: a.mass,
            max_force: a.max_force,
            max_speed: a.max_speed,
            neighbour_radius_m: a.neighbour_radius_m,
        };
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out, out_value, "out") }
    })
}

/// Adds one idle agent of `archetype` at `position_world` (metres) in `group`, and writes
/// its id (0, 1, 2 … in order of adding) to `*out_agent`.
///
/// A crowd holds at most 100,000 agents (`[Limit: agents per crowd <= 100 000]`): one step
/// of the whole crowd is then one call's work (see [`navstudio_crowd_step`]).
///
/// Errors: `INVALID_ARGUMENT` for an archetype value outside its range (see
/// [`NavstudioArchetype`]), a NaN or infinite position, or a crowd already at 100,000
/// agents, `UNKNOWN_MOVEMENT_TYPE`,
/// `OFF_MAP` for a position off the map, `WALL` for a position in a wall for the
/// archetype's movement type.
///
/// Threading: changes the crowd, reads the world: no other call on either at the same time.
///
/// # Safety
/// `crowd` and `world` must be live handles; `archetype` must point at a
/// `NavstudioArchetype` whose strings are NUL-terminated; `out_agent` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_add_agent(
    crowd: *mut NavstudioCrowd,
    world: *mut NavstudioWorld,
    archetype: *const NavstudioArchetype,
    position_world: NavstudioVec2,
    group: u32,
    out_agent: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes live handles used by this call alone (contract above).
        let (c, w) = unsafe { pair_mut(crowd, world) }?;
        if out_agent.is_null() {
            return Err(Failure::null("out_agent"));
        }
        // SAFETY: the caller passes one readable archetype (contract above).
        let a = unsafe { slice_from(archetype, 1, "archetype") }?[0];
        let name = if a.name.is_null() {
            "custom"
        } else {
            // SAFETY: non-null; NUL-terminated per the contract above.
            unsafe { str_from(a.name, "archetype name") }?
        };
        // SAFETY: NUL-terminated per the contract above (null is refused inside).
        let movement_type = unsafe { str_from(a.movement_type, "archetype movement_type") }?;
        let archetype = AgentArchetype {
            name: name.to_owned(),
            movement_type: movement_type.to_owned(),
            radius_m: a.radius_m,
            mass: a.mass,
            max_force: a.max_force,
            max_speed: a.max_speed,
            neighbour_radius_m: a.neighbour_radius_m,
        };
        let pos = Vec2::new(position_world.x, position_world.y);
        if c.sim.agents().len() >= MAX_AGENTS {
            return Err(Failure::invalid(format!(
                "the crowd holds {MAX_AGENTS} agents, the most one crowd holds; make another \
                 crowd for more"
            )));
        }
        mutate(c, w, |c, w| {
            let id = c
                .sim
                .add_agent(&w.nav, &archetype, pos, group)
                .map_err(|e| {
                    let status = match e {
                        CrowdError::UnknownMovementType { .. } => {
                            NavstudioStatus::UnknownMovementType
                        }
                        _ => NavstudioStatus::InvalidArgument,
                    };
                    Failure::new(status, e.to_string())
                })?
                .ok_or_else(|| position_failure(&w.nav, pos, "agent position", movement_type))?;
            // SAFETY: the caller passes writable storage (contract above).
            unsafe { write_out(out_agent, id.0, "out_agent") }
        })
    })
}

/// Why an agent cannot stand at (or an order go to) a finite position: off the map, or a
/// wall for `movement_type`.
fn position_failure(
    nav: &navstudio_crowd::WorldNavigator,
    pos: Vec2,
    what: &str,
    movement_type: &str,
) -> Failure {
    use navstudio_crowd::Navigator;
    let grid = nav.grid();
    let (cx, cy) = grid.cell_from_world(pos);
    let (w_m, h_m) = (
        grid.width_cells as f32 * grid.cell_size_m,
        grid.height_cells as f32 * grid.cell_size_m,
    );
    if cx < 0 || cy < 0 || cx as u32 >= grid.width_cells || cy as u32 >= grid.height_cells {
        Failure::new(
            NavstudioStatus::OffMap,
            format!(
                "the {what} ({}, {}) m lies off the map (0..{w_m} m × 0..{h_m} m)",
                pos.x, pos.y
            ),
        )
    } else {
        Failure::new(
            NavstudioStatus::Wall,
            format!(
                "the {what} ({}, {}) m is in cell ({cx}, {cy}), a wall for movement type '{movement_type}'",
                pos.x, pos.y
            ),
        )
    }
}

/// Orders `agent_count` agents (ids from [`navstudio_crowd_add_agent`]) to `goal_world`
/// (metres): one path per movement type, shared, with lanes for a group. Agents that cannot
/// reach the goal become idle and are counted in the report. `out_report` may be NULL.
///
/// Errors, nothing ordered: `INVALID_ARGUMENT` for ids the crowd does not have or a NaN or
/// infinite goal, `OFF_MAP` for a goal off the map, `WALL` for a goal in a wall for every
/// ordered agent's movement type. `UNREACHABLE` when no agent can reach the goal: then the
/// order was given and every agent is idle (the report, if asked for, says so).
///
/// Threading: changes the crowd and the world: no other call on either at the same time.
///
/// # Safety
/// `crowd` and `world` must be live handles; `agents` must point at `agent_count` u32s;
/// `out_report` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_order(
    crowd: *mut NavstudioCrowd,
    world: *mut NavstudioWorld,
    agents: *const u32,
    agent_count: usize,
    goal_world: NavstudioVec2,
    out_report: *mut NavstudioOrderReport,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes live handles used by this call alone (contract above).
        let (c, w) = unsafe { pair_mut(crowd, world) }?;
        // SAFETY: the caller passes `agent_count` u32s (contract above).
        let agents = unsafe { slice_from(agents, agent_count, "agents") }?;
        let count = c.sim.agents().len();
        if let Some(bad) = agents.iter().find(|&&a| a as usize >= count) {
            return Err(Failure::invalid(format!(
                "agent {bad} does not exist (the crowd has {count})"
            )));
        }
        let goal = Vec2::new(goal_world.x, goal_world.y);
        if !goal.is_finite() {
            return Err(Failure::invalid("the goal is not a finite position"));
        }
        let selection: Vec<AgentId> = agents.iter().map(|&a| AgentId(a)).collect();
        mutate(c, w, |c, w| {
            refuse_goal(c, w, agents, goal)?;
            let r = c.sim.order_move(&mut w.nav, &selection, goal);
            if !out_report.is_null() {
                let report = NavstudioOrderReport {
                    order: r.order,
                    moving: r.moving,
                    unreachable: r.unreachable,
                    lanes: r.lanes,
                };
                // SAFETY: non-null here; the caller passes writable storage (contract above).
                unsafe { write_out(out_report, report, "out_report") }?;
            }
            if r.moving == 0 && r.unreachable > 0 {
                return Err(Failure::new(
                    NavstudioStatus::Unreachable,
                    format!(
                        "none of the {} agents can reach ({}, {}) m: it is on another island \
                         than each of them for its movement type; they are idle now",
                        r.unreachable, goal.x, goal.y
                    ),
                ));
            }
            Ok(())
        })
    })
}

/// Refuses an order's goal that is off the map, or a wall for every movement type of the
/// agents ordered, before anything changes.
fn refuse_goal(
    c: &NavstudioCrowd,
    w: &NavstudioWorld,
    agents: &[u32],
    goal: Vec2,
) -> Result<(), Failure> {
    use navstudio_crowd::Navigator;
    let (cx, cy) = w.nav.grid().cell_from_world(goal);
    let a = c.sim.agents();
    let mut types: Vec<navstudio_nav::MoveType> =
        agents.iter().map(|&i| a.move_type[i as usize]).collect();
    types.sort_unstable();
    types.dedup();
    let first = types.first().copied().unwrap_or_default();
    let name = w
        .world()
        .nav()
        .layers
        .get(first.index())
        .map_or("?", |l| l.name.as_str());
    let failure = position_failure(&w.nav, goal, "goal", name);
    if failure.status == NavstudioStatus::OffMap {
        return Err(failure);
    }
    if !types.is_empty() && types.iter().all(|&t| w.nav.is_wall(t, cx, cy)) {
        return Err(failure);
    }
    Ok(())
}

/// Runs `steps` fixed steps of the simulation (1/60 s each).
/// `[Limit: steps <= 60 and steps × agents <= 120 000]` (one second of game time, and a
/// bounded amount of work, per call, so no call runs unbounded: 60 steps of up to 2,000
/// agents, 12 steps of 10,000, 1 step of 100,000; call again for more): more is
/// `INVALID_ARGUMENT`, and the sentence says how many steps fit. Steps use the process-wide thread pool (as many threads as cores, or
/// `RAYON_NUM_THREADS`); the result does not depend on how many.
///
/// Threading: changes the crowd and the world: no other call on either at the same time.
///
/// # Safety
/// `crowd` and `world` must be live handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_step(
    crowd: *mut NavstudioCrowd,
    world: *mut NavstudioWorld,
    steps: u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes live handles used by this call alone (contract above).
        let (c, w) = unsafe { pair_mut(crowd, world) }?;
        if steps > MAX_STEPS_PER_CALL {
            return Err(Failure::invalid(format!(
                "{steps} steps in one call is more than {MAX_STEPS_PER_CALL} (one second of \
                 game time); call navstudio_crowd_step again for more"
            )));
        }
        let agents = c.sim.agents().len() as u64;
        if u64::from(steps) * agents > MAX_AGENT_STEPS_PER_CALL {
            return Err(Failure::invalid(format!(
                "{steps} steps of {agents} agents in one call is more than \
                 {MAX_AGENT_STEPS_PER_CALL} agent-steps; step this crowd at most {} at a time",
                steps_within_a_call(agents)
            )));
        }
        mutate(c, w, |c, w| {
            for _ in 0..steps {
                c.sim.step(&mut w.nav);
            }
            Ok(())
        })
    })
}

/// Advances the simulation by `dt_secs` of game time in fixed steps of 1/60 s and writes the
/// steps taken to `*out_steps` (may be NULL). Time is kept exactly: what is left under a
/// step carries over to the next call, so 600 calls of 1/60 s take 600 steps and 1440
/// calls of 1/144 s take 600. At most 8 steps per call (a stalled frame must not snowball),
/// and at most 120 000 / agents (the work bound of [`navstudio_crowd_step`]; from 15,001
/// agents fewer than 8). Of the time beyond the last step allowed one step's worth is kept
/// for the next call and the rest is dropped, so after a stall the crowd runs behind game time rather than catching up;
/// `*out_steps` says how many were taken. `dt_secs` must be finite and >= 0
/// (`INVALID_ARGUMENT`).
///
/// Threading: as [`navstudio_crowd_step`].
///
/// # Safety
/// `crowd` and `world` must be live handles; `out_steps` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_advance(
    crowd: *mut NavstudioCrowd,
    world: *mut NavstudioWorld,
    dt_secs: f64,
    out_steps: *mut u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes live handles used by this call alone (contract above).
        let (c, w) = unsafe { pair_mut(crowd, world) }?;
        if !(dt_secs.is_finite() && dt_secs >= 0.0) {
            return Err(Failure::invalid(format!(
                "dt_secs {dt_secs} is not a finite time >= 0"
            )));
        }
        let cap = steps_within_a_call(c.sim.agents().len() as u64).min(MAX_STEPS_PER_ADVANCE);
        c.sim.config_mut().max_steps_per_advance = cap;
        mutate(c, w, |c, w| {
            let taken = c.sim.advance(&mut w.nav, dt_secs);
            if out_steps.is_null() {
                return Ok(());
            }
            // SAFETY: non-null here; the caller passes writable storage (contract above).
            unsafe { write_out(out_steps, taken, "out_steps") }
        })
    })
}

/// The number of agents.
///
/// Threading: reads the crowd: any number of read-only calls on it at once, none while a
/// call changes it.
///
/// # Safety
/// `crowd` must be a live handle; `out_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_agent_count(
    crowd: *const NavstudioCrowd,
    out_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let c = unsafe { crowd_ref(crowd) }?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_count, c.sim.agents().len(), "out_count") }
    })
}

/// Copies every agent's position (metres, in id order) into the caller's `out_positions`
/// (room for `capacity`) and the agent count into `*out_count`. When `capacity` is smaller
/// than the count nothing is copied and the status is `NAVSTUDIO_STATUS_BUFFER_TOO_SMALL`.
///
/// Threading: reads the crowd (see [`navstudio_crowd_agent_count`]).
///
/// # Safety
/// `crowd` must be a live handle; `out_positions` must hold `capacity` writable
/// `NavstudioVec2`s; `out_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_positions(
    crowd: *const NavstudioCrowd,
    out_positions: *mut NavstudioVec2,
    capacity: usize,
    out_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let c = unsafe { crowd_ref(crowd) }?;
        let pos = &c.sim.agents().pos_world;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_count, pos.len(), "out_count") }?;
        let values: Vec<NavstudioVec2> = pos
            .iter()
            .map(|p| NavstudioVec2 { x: p.x, y: p.y })
            .collect();
        // SAFETY: the caller passes `capacity` writable elements (contract above).
        unsafe { write_array(out_positions, capacity, &values, "out_positions") }
    })
}

/// Copies every agent's state (in id order) into `out_states`, as
/// [`navstudio_crowd_positions`] does positions.
///
/// Threading: reads the crowd (see [`navstudio_crowd_agent_count`]).
///
/// # Safety
/// `crowd` must be a live handle; `out_states` must hold `capacity` writable bytes;
/// `out_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_crowd_states(
    crowd: *const NavstudioCrowd,
    out_states: *mut NavstudioAgentState,
    capacity: usize,
    out_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let c = unsafe { crowd_ref(crowd) }?;
        let states = &c.sim.agents().state;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_count, states.len(), "out_count") }?;
        let values: Vec<NavstudioAgentState> = states
            .iter()
            .map(|s| match s {
                AgentState::Idle => NavstudioAgentState::Idle,
                AgentState::Moving => NavstudioAgentState::Moving,
                AgentState::Arrived => NavstudioAgentState::Arrived,
                AgentState::Stuck => NavstudioAgentState::Stuck,
                AgentState::Queued => NavstudioAgentState::Queued,
            })
            .collect();
        // SAFETY: the caller passes `capacity` writable elements (contract above).
        unsafe { write_array(out_states, capacity, &values, "out_states") }
    })
}
