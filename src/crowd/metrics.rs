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
    /// Agents in the `Stuck` state (no progress for `SimConfig::stuck_secs`).
    pub stuck: u32,
    /// Mean speed over all agents. `[Units: m/s]`
    pub mean_speed_mps: f32,
    /// Wall contacts resolved this step (push-outs plus refused sub-steps).
    pub collisions_resolved: u32,
    /// Wall-clock time of the step; the only number that differs between identical runs.
    /// `[Units: s]`
    pub step_secs: f64,
}
