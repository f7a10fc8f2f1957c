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

/// Throughput is measured over this much simulated time. `[Units: s]`
pub const THROUGHPUT_WINDOW_SECS: f64 = 10.0;

/// Agents through something — a gate line the designer drew, a nav link — counted over
/// simulated time: the total, and the rate over the last [`THROUGHPUT_WINDOW_SECS`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Throughput {
    /// Agents through since counting started.
    total: u64,
    /// Simulated times of the crossings within the window of the latest one, oldest first.
    /// `[Units: s]`
    recent_secs: std::collections::VecDeque<f64>,
    /// Simulated time counting started. `[Units: s]`
    since_secs: f64,
}

impl Throughput {
    /// Counting from simulated time `now_secs`.
    #[must_use]
    pub fn new(now_secs: f64) -> Self {
        Self {
            since_secs: now_secs,
            ..Self::default()
        }
    }

    /// One agent through at simulated time `now_secs`.
    pub fn record(&mut self, now_secs: f64) {
        self.total += 1;
        self.recent_secs.push_back(now_secs);
        while self
            .recent_secs
            .front()
            .is_some_and(|&t| t <= now_secs - THROUGHPUT_WINDOW_SECS)
        {
            self.recent_secs.pop_front();
        }
    }

    /// Agents through since counting started.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Agents per second over the last ten simulated seconds before `now_secs` (or since
    /// counting started, if that is shorter). `[Units: 1/s]`
    #[must_use]
    pub fn per_sec(&self, now_secs: f64) -> f64 {
        let window = THROUGHPUT_WINDOW_SECS.min(now_secs - self.since_secs);
        if window <= 0.0 {
            return 0.0;
        }
        let recent = self
            .recent_secs
            .iter()
            .rev()
            .take_while(|&&t| t > now_secs - window)
            .count();
        recent as f64 / window
    }
}

/// Traffic on one nav link ([`crate::Simulation::link_flows`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkFlow {
    /// Agents carried across (counted when they reach the exit).
    pub crossed: Throughput,
    /// Agents on the link now (walking it, dropping, riding, or waiting out a teleport).
    pub on_link: u32,
    /// Agents waiting at its entrance now: for a free lane of a walk link or a drop, or
    /// for the next departure of a ride.
    pub waiting: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_counts_the_last_ten_seconds() {
        let mut t = Throughput::new(0.0);
        t.record(1.0);
        t.record(1.0);
        assert_eq!(t.total(), 2);
        // Two in the first second: 2 per second; five seconds later, 2 in 6 s.
        assert!((t.per_sec(1.0) - 2.0).abs() < 1e-9);
        assert!((t.per_sec(6.0) - 2.0 / 6.0).abs() < 1e-9);
        // Past the ten-second window they no longer count; the total stays.
        assert_eq!(t.per_sec(12.0), 0.0);
        t.record(20.0);
        assert_eq!(t.total(), 3);
        assert!((t.per_sec(20.0) - 0.1).abs() < 1e-9);
        assert_eq!(t.recent_secs.len(), 1, "older crossings are let go");
    }
}
