//! Per-step crowd metrics for the editor's plots and for tests.

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepMetrics {
    /// Index of the step these numbers describe (first step = 0).
    pub step: u64,
    /// Agents in the `Arrived` state.
    pub arrived: u32,
    /// Agents in the `Moving` state.
    pub moving: u32,
    /// Agents in the `Stuck` state (neither they nor the agents ahead of them made
    /// progress for `SimConfig::stuck_secs`: a jam).
    pub stuck: u32,
    /// Agents in the `Queued` state (waiting behind agents that make progress).
    pub queued: u32,
    /// Mean speed over all agents. `[Units: m/s]`
    pub mean_speed_mps: f32,
    /// Wall contacts resolved this step (push-outs plus refused sub-steps).
    pub wall_contacts: u32,
    /// Agents whose next stretch of movement still runs into a neighbour
    /// ([`crate::Collision::Unresolved`]).
    pub collisions_unresolved: u32,
    /// Agents avoiding a collision their path leads into ([`crate::Collision::Resolving`]).
    pub collisions_resolving: u32,
    /// Agents that resolved one lately ([`crate::Collision::Resolved`]).
    pub collisions_resolved: u32,
    /// Mean overlap of touching agent pairs, as a share of the smaller radius (0 when no
    /// pair touches).
    pub overlap_mean: f32,
    /// Deepest overlap between two agents this step, as a share of the smaller radius.
    pub overlap_max: f32,
    /// Wall-clock time of the step; the only number that differs between identical runs.
    /// `[Units: s]`
    pub step_secs: f64,
}

/// Where a crowd jams: per nav cell, the agent-seconds that travelling agents (moving or
/// stuck, not idle or arrived) spent there slower than `slow_share` of their top speed.
/// The editor's congestion overlay draws it; it is cleared with the crowd.
#[derive(Clone, Debug, PartialEq)]
pub struct CongestionMap {
    /// Columns. `[Units: cells]`
    pub width: u32,
    /// Rows. `[Units: cells]`
    pub height: u32,
    /// An agent below this share of its top speed counts as held up. `[Limit: 0..=1]`
    pub slow_share: f32,
    /// Agent-seconds per cell, row-major. `[Units: s]`
    pub secs: Vec<f32>,
    /// Bumped on every step that added time, so a viewer knows when to redraw.
    pub version: u64,
}

impl CongestionMap {
    /// Share of the top speed below which an agent counts as held up.
    pub const DEFAULT_SLOW_SHARE: f32 = 0.25;

    /// An empty map for a `width × height` grid.
    #[must_use]
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            slow_share: Self::DEFAULT_SLOW_SHARE,
            secs: vec![0.0; width as usize * height as usize],
            version: 0,
        }
    }

    /// Adds `secs` to the cell, if it is on the map.
    pub fn add(&mut self, cell: (i32, i32), secs: f32) {
        let (x, y) = cell;
        if x >= 0 && y >= 0 && (x as u32) < self.width && (y as u32) < self.height {
            self.secs[y as usize * self.width as usize + x as usize] += secs;
        }
    }

    /// Agent-seconds in a cell (0 off the map). `[Units: s]`
    #[must_use]
    pub fn at(&self, x: u32, y: u32) -> f32 {
        if x < self.width && y < self.height {
            self.secs[y as usize * self.width as usize + x as usize]
        } else {
            0.0
        }
    }

    /// The most agent-seconds in any cell. `[Units: s]`
    #[must_use]
    pub fn peak(&self) -> f32 {
        self.secs.iter().copied().fold(0.0, f32::max)
    }
}
