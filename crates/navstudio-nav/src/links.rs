//! Nav links: first-class connections between two places of the map that the ground does
//! not offer — bridges over navigable water, ramps, ladders, ferries, teleporters and
//! one-way drops (Recast's off-mesh connections, Unity's `NavMeshLink`).
//!
//! A link joins two **ends** (a cell, or a small area of cells inside one sector) for the
//! movement types it names, one way or both, at a traversal cost. The run time adds one
//! portal-graph node per end of every link a movement type may use (see [`overlay`]): edges
//! from the sector's portal nodes to the end and back (the usual in-sector integration) and
//! the traversal edge between the two ends, so the portal search routes over links when they
//! are cheaper. Islands stay the ground's connected parts; [`reach`] answers reachability
//! across links, respecting their direction.

use serde::{Deserialize, Serialize};

pub mod codec;
pub mod overlay;
pub mod reach;

/// Cost units of a link's traversal time: seconds × this speed in metres per second, over
/// the cell size (a cost unit is one clear cell crossed). A walking infantry unit's speed.
pub const REFERENCE_SPEED_M_S: f32 = 4.0;

/// Largest side of an area end, in cells.
pub const MAX_END_SIDE: u32 = 16;

/// One end of a link: a block of cells `(x, y, w, h)`; a single cell is `w = h = 1`. The
/// cells that lie in the sector of the block's centre cell and are not walls for a movement
/// type are that type's entry (and exit) cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkEnd {
    /// First column.
    pub x: u32,
    /// First row.
    pub y: u32,
    /// Columns. `[Limit: 1..=16]`
    pub w: u32,
    /// Rows. `[Limit: 1..=16]`
    pub h: u32,
}

impl LinkEnd {
    /// A single-cell end.
    #[must_use]
    pub fn cell(x: u32, y: u32) -> Self {
        Self { x, y, w: 1, h: 1 }
    }

    /// The centre cell (rounded down).
    #[must_use]
    pub fn center(&self) -> (u32, u32) {
        (self.x + (self.w - 1) / 2, self.y + (self.h - 1) / 2)
    }

    /// Whether `cell` is one of the end's cells.
    #[must_use]
    pub fn contains(&self, cell: (u32, u32)) -> bool {
        cell.0 >= self.x && cell.1 >= self.y && cell.0 < self.x + self.w && cell.1 < self.y + self.h
    }

    /// The end's cells, row by row.
    pub fn cells(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (self.y..self.y + self.h).flat_map(move |y| (self.x..self.x + self.w).map(move |x| (x, y)))
    }
}

/// How agents traverse a link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum LinkKind {
    /// Walked along (a bridge, ramp or ladder); agents file through its width.
    Walk,
    /// Ridden (a ferry): agents wait at the entry, board up to `capacity` per departure,
    /// one departure every `period_s` seconds, and leave at the exit.
    Ride {
        /// Agents per departure. `[Limit: >= 1]`
        capacity: u32,
        /// Seconds between departures (and the crossing time). `[Units: s] [Limit: > 0]`
        period_s: f32,
    },
    /// Agents vanish at the entry and appear at the exit after `time_s`.
    Teleport {
        /// Seconds in transit. `[Units: s] [Limit: >= 0]`
        time_s: f32,
    },
    /// A one-way drop: agents fall from the entry to the exit (a cliff, a ledge).
    Drop,
}

impl LinkKind {
    /// The kind's name as documents and the C API spell it.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Walk => "walk",
            Self::Ride { .. } => "ride",
            Self::Teleport { .. } => "teleport",
            Self::Drop => "drop",
        }
    }
}

/// How a link's traversal cost is given.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum LinkCost {
    /// The straight distance between the ends' centres in metres times this cost per metre,
    /// where 1 is clear ground (a cost unit per cell crossed).
    PerMetre(f32),
    /// A cost in cost units (clear cells crossed), whatever the length.
    Direct(u32),
    /// A traversal time in seconds, costed at [`REFERENCE_SPEED_M_S`].
    Time(f32),
}

/// A link between two ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavLink {
    /// Id chosen by the author (the map document, or the game at run time); unique per map.
    pub id: u32,
    /// The entry end of a one-way link.
    pub a: LinkEnd,
    /// The exit end of a one-way link.
    pub b: LinkEnd,
    /// Movement types that may use it: bit `i` for type `i`.
    pub types: u32,
    /// Whether agents may also go from `b` to `a`.
    pub two_way: bool,
    /// A disabled link (a bridge destroyed) is kept but taken by nobody.
    pub enabled: bool,
    /// How agents traverse it.
    pub kind: LinkKind,
    /// The traversal cost.
    pub cost: LinkCost,
    /// Width in metres: how many agents use it side by side. `[Units: m] [Limit: > 0]`
    pub width_m: f32,
}

/// Why a link was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// An end lies (partly) off the map.
    #[error(
        "link {id}: end {end} {rect:?} lies off the {width} × {height} map; move it onto the map"
    )]
    OffMap {
        /// Link id.
        id: u32,
        /// `"a"` or `"b"`.
        end: &'static str,
        /// The end's block.
        rect: (u32, u32, u32, u32),
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// An area end is empty or larger than [`MAX_END_SIDE`].
    #[error("link {id}: end {end} is {w} × {h} cells; an end is 1 to {MAX_END_SIDE} cells a side")]
    EndSize {
        /// Link id.
        id: u32,
        /// `"a"` or `"b"`.
        end: &'static str,
        /// Columns.
        w: u32,
        /// Rows.
        h: u32,
    },
    /// A number is out of its range.
    #[error("link {id}: {what}")]
    Value {
        /// Link id.
        id: u32,
        /// Which field and its range.
        what: String,
    },
    /// Two links share an id.
    #[error("link id {0} is used twice; give every link its own id")]
    DuplicateId(u32),
    /// No link has this id.
    #[error("no link has id {0}")]
    Unknown(u32),
}

impl NavLink {
    /// A two-way walk link between two cells for every movement type, costed as clear
    /// ground, 2 m wide.
    #[must_use]
    pub fn walk(id: u32, a: (u32, u32), b: (u32, u32)) -> Self {
        Self {
            id,
            a: LinkEnd::cell(a.0, a.1),
            b: LinkEnd::cell(b.0, b.1),
            types: u32::MAX,
            two_way: true,
            enabled: true,
            kind: LinkKind::Walk,
            cost: LinkCost::PerMetre(1.0),
            width_m: 2.0,
        }
    }

    /// Whether movement type `layer` may use the link (enabled and named).
    #[must_use]
    pub fn allows(&self, layer: usize) -> bool {
        self.enabled && layer < 32 && self.types & (1 << layer) != 0
    }

    /// Length between the ends' centres in metres.
    #[must_use]
    pub fn length_m(&self, cell_size_m: f32) -> f32 {
        let (a, b) = (self.a.center(), self.b.center());
        let dx = a.0 as f32 - b.0 as f32;
        let dy = a.1 as f32 - b.1 as f32;
        (dx * dx + dy * dy).sqrt() * cell_size_m
    }

    /// The traversal cost in cost units (at least 1).
    #[must_use]
    pub fn traversal_cost(&self, cell_size_m: f32) -> u32 {
        let cell = cell_size_m.max(1e-6);
        let units = match self.cost {
            LinkCost::PerMetre(per_m) => self.length_m(cell_size_m) * per_m / cell,
            LinkCost::Direct(c) => c as f32,
            LinkCost::Time(s) => s * REFERENCE_SPEED_M_S / cell,
        };
        (units.round() as u32).clamp(1, 1 << 24)
    }

    /// Agents that fit side by side: the width over an infantry unit's 1 m lane, at least 1.
    #[must_use]
    pub fn lanes(&self) -> u32 {
        (self.width_m.floor() as u32).max(1)
    }

    /// Checks the link against a `width × height` map.
    ///
    /// # Errors
    /// [`LinkError`] naming the link and the field.
    pub fn validate(&self, width: u32, height: u32) -> Result<(), LinkError> {
        for (end, e) in [("a", &self.a), ("b", &self.b)] {
            if e.w == 0 || e.h == 0 || e.w > MAX_END_SIDE || e.h > MAX_END_SIDE {
                return Err(LinkError::EndSize {
                    id: self.id,
                    end,
                    w: e.w,
                    h: e.h,
                });
            }
            if e.x.saturating_add(e.w) > width || e.y.saturating_add(e.h) > height {
                return Err(LinkError::OffMap {
                    id: self.id,
                    end,
                    rect: (e.x, e.y, e.w, e.h),
                    width,
                    height,
                });
            }
        }
        let bad = |what: &str| {
            Err(LinkError::Value {
                id: self.id,
                what: what.to_owned(),
            })
        };
        if !(self.width_m.is_finite() && self.width_m > 0.0 && self.width_m <= 1000.0) {
            return bad("width_m must be above 0 and at most 1000 metres");
        }
        match self.cost {
            LinkCost::PerMetre(v) | LinkCost::Time(v)
                if !(v.is_finite() && (0.0..=1e6).contains(&v)) =>
            {
                return bad("the cost per metre or time must be a number from 0 to 1,000,000");
            }
            LinkCost::Direct(c) if c > 1 << 24 => {
                return bad("a direct cost must be at most 16,777,216");
            }
            _ => {}
        }
        match self.kind {
            LinkKind::Ride { capacity, period_s } => {
                if capacity == 0 || capacity > 100_000 {
                    return bad("a ride's capacity must be 1 to 100,000 agents");
                }
                if !(period_s.is_finite() && period_s > 0.0 && period_s <= 86_400.0) {
                    return bad("a ride's period must be above 0 and at most 86,400 seconds");
                }
            }
            LinkKind::Teleport { time_s }
                if !(time_s.is_finite() && (0.0..=86_400.0).contains(&time_s)) =>
            {
                return bad("a teleport's time must be 0 to 86,400 seconds");
            }
            LinkKind::Drop if self.two_way => {
                return bad("a drop is one-way; set two_way to false");
            }
            _ => {}
        }
        Ok(())
    }
}

/// Checks every link of a map and that ids are unique.
///
/// # Errors
/// The first [`LinkError`].
pub fn validate_links(links: &[NavLink], width: u32, height: u32) -> Result<(), LinkError> {
    let mut ids: Vec<u32> = links.iter().map(|l| l.id).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(LinkError::DuplicateId(w[0]));
    }
    links.iter().try_for_each(|l| l.validate(width, height))
}
