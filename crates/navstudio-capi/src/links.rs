//! Nav links through the C API: adding, removing, enabling and listing links (changes wait
//! for `navstudio_rebuild`, as cost changes do), and what a path says about them: where an
//! agent stands at a link it must take, and the links a traced path takes.

use navstudio_nav::links::{LinkCost, LinkEnd, LinkKind, NavLink};

use crate::ffi::*;
use crate::paths_on_map;
// Doc links by plain name: cbindgen copies the docs into the C header as written.
use crate::world::*;
use crate::{NavstudioCell, NavstudioRect, NavstudioVec2};
#[cfg(doc)]
use crate::{navstudio_rebuild, navstudio_sample_flow, navstudio_trace_path};

/// How agents traverse a link.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavstudioLinkKind {
    /// Walked along: a bridge, a ramp, a ladder.
    Walk = 0,
    /// Ridden: a ferry with `capacity` seats leaving every `period_s` seconds.
    Ride = 1,
    /// The agent vanishes at the entry and appears at the exit after `period_s` seconds.
    Teleport = 2,
    /// A one-way drop (a cliff, a ledge).
    Drop = 3,
}

/// How a link's traversal cost is given.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavstudioLinkCostMode {
    /// `cost_value` per metre of the straight line between the ends' centres, 1 being
    /// clear ground.
    PerMetre = 0,
    /// `cost_value` cost units (clear cells crossed), whatever the length.
    Direct = 1,
    /// `cost_value` seconds, costed at a walking unit's 4 m/s.
    Time = 2,
}

/// A nav link: a connection between two ends (a cell, or a block of up to 16 × 16 cells in
/// one sector) that the ground does not offer.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavstudioLink {
    /// Unique id, reported when an agent takes the link.
    pub id: u32,
    /// The entry end of a one-way link. `[Units: cells]`
    pub a: NavstudioRect,
    /// The exit end. `[Units: cells]`
    pub b: NavstudioRect,
    /// Movement types that may use it: bit `i` for type `i`.
    pub movement_types: u32,
    /// Whether agents may also go from `b` to `a` (false for a drop).
    pub two_way: bool,
    /// A disabled link (a destroyed bridge) is kept but taken by nobody.
    pub enabled: bool,
    /// How agents traverse it.
    pub kind: NavstudioLinkKind,
    /// How `cost_value` is meant.
    pub cost_mode: NavstudioLinkCostMode,
    /// The traversal cost, per `cost_mode`. `[Limit: >= 0]`
    pub cost_value: f32,
    /// Width: how many agents use it side by side. `[Units: m] [Limit: > 0]`
    pub width_m: f32,
    /// A ride's seats per departure (ignored for other kinds). `[Limit: >= 1]`
    pub capacity: u32,
    /// A ride's seconds between departures, a teleport's seconds in transit. `[Units: s]`
    pub period_s: f32,
}

/// Where an agent on a path stands at a link it must take now, from [`navstudio_link_at`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NavstudioLinkStep {
    /// The link's id.
    pub link_id: u32,
    /// How to traverse it.
    pub kind: u32,
    /// The cell to arrive at: on the link's other end.
    pub exit: NavstudioCell,
    /// The link's width. `[Units: m]`
    pub width_m: f32,
}

/// One link a traced path takes, from [`navstudio_trace_links`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NavstudioLinkTraversal {
    /// The link's id.
    pub link_id: u32,
    /// The cell the trace leaves the ground at.
    pub entry: NavstudioCell,
    /// The cell it arrives at.
    pub exit: NavstudioCell,
    /// Index of `entry` among the cells [`navstudio_trace_path`] gives.
    pub cell_index: u32,
}

fn rect_end(r: NavstudioRect) -> LinkEnd {
    LinkEnd {
        x: r.x,
        y: r.y,
        w: r.width,
        h: r.height,
    }
}

fn end_rect(e: LinkEnd) -> NavstudioRect {
    NavstudioRect {
        x: e.x,
        y: e.y,
        width: e.w,
        height: e.h,
    }
}

fn to_nav(l: &NavstudioLink) -> NavLink {
    NavLink {
        id: l.id,
        a: rect_end(l.a),
        b: rect_end(l.b),
        types: l.movement_types,
        two_way: l.two_way,
        enabled: l.enabled,
        kind: match l.kind {
            NavstudioLinkKind::Walk => LinkKind::Walk,
            NavstudioLinkKind::Ride => LinkKind::Ride {
                capacity: l.capacity,
                period_s: l.period_s,
            },
            NavstudioLinkKind::Teleport => LinkKind::Teleport { time_s: l.period_s },
            NavstudioLinkKind::Drop => LinkKind::Drop,
        },
        cost: match l.cost_mode {
            NavstudioLinkCostMode::PerMetre => LinkCost::PerMetre(l.cost_value),
            NavstudioLinkCostMode::Direct => LinkCost::Direct(l.cost_value.max(0.0) as u32),
            NavstudioLinkCostMode::Time => LinkCost::Time(l.cost_value),
        },
        width_m: l.width_m,
    }
}

fn from_nav(l: &NavLink) -> NavstudioLink {
    let (kind, capacity, period_s) = match l.kind {
        LinkKind::Walk => (NavstudioLinkKind::Walk, 0, 0.0),
        LinkKind::Ride { capacity, period_s } => (NavstudioLinkKind::Ride, capacity, period_s),
        LinkKind::Teleport { time_s } => (NavstudioLinkKind::Teleport, 0, time_s),
        LinkKind::Drop => (NavstudioLinkKind::Drop, 0, 0.0),
    };
    let (cost_mode, cost_value) = match l.cost {
        LinkCost::PerMetre(v) => (NavstudioLinkCostMode::PerMetre, v),
        LinkCost::Direct(c) => (NavstudioLinkCostMode::Direct, c as f32),
        LinkCost::Time(s) => (NavstudioLinkCostMode::Time, s),
    };
    NavstudioLink {
        id: l.id,
        a: end_rect(l.a),
        b: end_rect(l.b),
        movement_types: l.types,
        two_way: l.two_way,
        enabled: l.enabled,
        kind,
        cost_mode,
        cost_value,
        width_m: l.width_m,
        capacity,
        period_s,
    }
}

/// A two-way walk link between cells `a` and `b` for every movement type, costed as clear
/// ground, 2 m wide, with id `id`: a starting point to change fields of.
///
/// Threading: any thread.
///
/// # Safety
/// `out_link` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_link_default(
    id: u32,
    a: NavstudioCell,
    b: NavstudioCell,
    out_link: *mut NavstudioLink,
) -> NavstudioStatus {
    guard(|| {
        let link = from_nav(&NavLink::walk(id, (a.x, a.y), (b.x, b.y)));
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_link, link, "out_link") }
    })
}

/// Adds a link. Requests take it once [`navstudio_rebuild`] has run (live paths are then
/// re-planned, as after cost changes). `INVALID_ARGUMENT` (with the field named) for an end
/// off the map or larger than 16 cells a side, a width, cost, capacity or period out of
/// range, a two-way drop, or an id already used.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle; `link` readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_add_link(
    world: *mut NavstudioWorld,
    link: *const NavstudioLink,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        // SAFETY: the caller passes one readable link (contract above).
        let link = unsafe { slice_from(link, 1, "link") }?
            .first()
            .copied()
            .ok_or_else(|| Failure::null("link"))?;
        mutate(w, |w| {
            w.nav
                .world
                .add_link(to_nav(&link))
                .map_err(|e| Failure::invalid(e.to_string()))
        })
    })
}

/// Removes link `id` (effective after [`navstudio_rebuild`]). `NO_SUCH_HANDLE` when no link
/// has that id.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_remove_link(
    world: *mut NavstudioWorld,
    id: u32,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            w.nav
                .world
                .remove_link(id)
                .map_err(|e| Failure::new(NavstudioStatus::NoSuchHandle, e.to_string()))
        })
    })
}

/// Enables or disables link `id` (a bridge destroyed or rebuilt), effective after
/// [`navstudio_rebuild`]. `NO_SUCH_HANDLE` when no link has that id.
///
/// Threading: changes the world: no other call on it at the same time.
///
/// # Safety
/// `world` must be a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_set_link_enabled(
    world: *mut NavstudioWorld,
    id: u32,
    enabled: bool,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle used by this call alone (contract above).
        let w = unsafe { world_mut(world) }?;
        mutate(w, |w| {
            w.nav
                .world
                .set_link_enabled(id, enabled)
                .map_err(|e| Failure::new(NavstudioStatus::NoSuchHandle, e.to_string()))
        })
    })
}

/// The links requests use now (the package's, with the changes a rebuild has taken):
/// `*out_count` always receives how many; they are copied to `out_links` when it is not
/// NULL, or `BUFFER_TOO_SMALL` when `capacity` is smaller.
///
/// Threading: read-only (see [`navstudio_world_info`]).
///
/// # Safety
/// `world` must be a live handle; `out_links` NULL or `capacity` writable links;
/// `out_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_links(
    world: *const NavstudioWorld,
    out_links: *mut NavstudioLink,
    capacity: usize,
    out_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let links: Vec<NavstudioLink> = w.world().links().iter().map(from_nav).collect();
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_count, links.len(), "out_count") }?;
        if out_links.is_null() {
            return Ok(());
        }
        // SAFETY: the caller passes `capacity` writable links (contract above).
        unsafe { write_array(out_links, capacity, &links, "out_links") }
    })
}

/// Whether an agent at `position` (cell units) on `path` stands on the entry of a link its
/// route takes next: then `*out_at_link` is true and `*out_step` says which link and where it
/// leads, and the agent traverses it (walks along it, boards, teleports or drops, by its
/// kind) instead of following [`navstudio_sample_flow`], whose flow ends there. Elsewhere
/// `*out_at_link` is false and `*out_step` is zeroed.
///
/// Errors: `NO_SUCH_HANDLE`, `INVALID_ARGUMENT` (NaN), `OFF_MAP`.
///
/// Threading: read-only (see [`navstudio_sample_flow`]).
///
/// # Safety
/// `world` must be a live handle; `out_at_link` and `out_step` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_link_at(
    world: *const NavstudioWorld,
    path: u32,
    position: NavstudioVec2,
    out_at_link: *mut bool,
    out_step: *mut NavstudioLinkStep,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let id = w.live_path(path)?;
        let pos = paths_on_map(w, position)?;
        let step = w.world().link_at(id, pos);
        let out = step
            .as_ref()
            .map_or_else(NavstudioLinkStep::default, |s| NavstudioLinkStep {
                link_id: s.id,
                kind: match s.kind {
                    LinkKind::Walk => NavstudioLinkKind::Walk,
                    LinkKind::Ride { .. } => NavstudioLinkKind::Ride,
                    LinkKind::Teleport { .. } => NavstudioLinkKind::Teleport,
                    LinkKind::Drop => NavstudioLinkKind::Drop,
                } as u32,
                exit: NavstudioCell {
                    x: s.exit.0,
                    y: s.exit.1,
                },
                width_m: s.width_m,
            });
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_at_link, step.is_some(), "out_at_link") }?;
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_step, out, "out_step") }
    })
}

/// The links [`navstudio_trace_path`] from `source` takes, in order: `*out_count` always
/// receives how many; they are copied to `out_links` when it is not NULL, or
/// `BUFFER_TOO_SMALL` when `capacity` is smaller. Errors as [`navstudio_trace_path`].
///
/// Threading: read-only (see [`navstudio_sample_flow`]).
///
/// # Safety
/// `world` must be a live handle; `out_links` NULL or `capacity` writable traversals;
/// `out_count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn navstudio_trace_links(
    world: *const NavstudioWorld,
    path: u32,
    source: NavstudioCell,
    out_links: *mut NavstudioLinkTraversal,
    capacity: usize,
    out_count: *mut usize,
) -> NavstudioStatus {
    guard(|| {
        // SAFETY: the caller passes a live handle (contract above).
        let w = unsafe { world_ref(world) }?;
        let id = w.live_path(path)?;
        let from = w.cell(source, "source")?;
        let traced = w.world().trace_path(id, from).ok_or_else(|| {
            Failure::new(
                NavstudioStatus::NoFlow,
                format!(
                    "following path {path} from ({}, {}) does not reach its goal; \
                     navstudio_trace_path says why",
                    from.0, from.1
                ),
            )
        })?;
        let cell = |c: (u32, u32)| NavstudioCell { x: c.0, y: c.1 };
        let links: Vec<NavstudioLinkTraversal> = traced
            .links
            .iter()
            .map(|&(at, link_id)| NavstudioLinkTraversal {
                link_id,
                entry: cell(traced.cells[at]),
                exit: cell(traced.cells[at + 1]),
                cell_index: at as u32,
            })
            .collect();
        // SAFETY: the caller passes writable storage (contract above).
        unsafe { write_out(out_count, links.len(), "out_count") }?;
        if out_links.is_null() {
            return Ok(());
        }
        // SAFETY: the caller passes `capacity` writable traversals (contract above).
        unsafe { write_array(out_links, capacity, &links, "out_links") }
    })
}
