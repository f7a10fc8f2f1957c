//! The crowd benchmark: how *well* a crowd moves, case by case.
//!
//! A case is a map and a scenario ([`cases`]). [`run`] plays it to the end with one
//! avoidance mode and reports arrival, time against the geometric lower bound ([`bound`]),
//! agents stuck, overlap between agents, wall penetrations, path efficiency, jitter and step
//! time ([`measure`]). The same seed gives the same report on any number of threads (step
//! time aside). `navstudio crowd-bench` prints the table; the tests run every case kind at a
//! reduced agent count.

pub mod bound;
pub mod cases;
pub mod measure;
pub mod random;

use std::time::Instant;

use serde::Serialize;

use super::{AgentArchetype, AvoidanceMode, CrowdError, Navigator, Scenario, Simulation};
pub use bound::{Geodesics, LowerBound, lower_bound};
pub use cases::{CaseMap, CrowdCase, builtin_cases};
pub use measure::{Measures, Recorder};

/// The crowd target: every agent arrives within this multiple of the lower bound.
pub const TARGET_RATIO: f64 = 2.0;

/// A run stops when every ordered agent has arrived, or at this multiple of the lower
/// bound (plus `GRACE_SECS`), whichever comes first.
const LIMIT_BOUND_FACTOR: f64 = 4.0;
/// Extra time every run gets beyond the bound factor. `[Units: s]`
const GRACE_SECS: f64 = 30.0;
/// No run goes longer than this. `[Units: s]`
const MAX_SECS: f64 = 600.0;

/// One row of the benchmark table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseReport {
    /// Case name.
    pub case: String,
    /// Avoidance mode.
    pub mode: String,
    /// Agents placed.
    pub agents: u32,
    /// Share arrived at the end. `[Units: %]`
    pub arrived_pct: f64,
    /// Time until 95 % had arrived. `[Units: s]`
    pub t95_s: Option<f64>,
    /// Time until all had arrived. `[Units: s]`
    pub t100_s: Option<f64>,
    /// The geometric lower bound ([`bound`]). `[Units: s]`
    pub bound_s: f64,
    /// `t95_s / bound_s`.
    pub ratio95: Option<f64>,
    /// `t100_s / bound_s`.
    pub ratio100: Option<f64>,
    /// Width of the gap the bound's queue term is for (0: none). `[Units: m]`
    pub gap_m: f32,
    /// Agents in the `Stuck` state at the end.
    pub stuck: u32,
    /// Mean overlap of touching agents, share of the smaller radius. `[Units: %]`
    pub overlap_mean_pct: f64,
    /// Deepest overlap, share of the smaller radius. `[Units: %]`
    pub overlap_max_pct: f64,
    /// Agent-steps with a collision disc in a wall.
    pub wall_penetrations: u64,
    /// Mean over arrived agents of distance walked ÷ shortest-path progress.
    pub path_efficiency: f64,
    /// Mean heading change of moving agents. `[Units: deg/s]`
    pub jitter_deg_s: f64,
    /// Median step time. `[Units: ms]`
    pub step_ms: f64,
    /// Simulated time. `[Units: s]`
    pub simulated_s: f64,
}

impl CaseReport {
    /// Whether the row meets the crowd targets: everyone arrived, nobody stuck, all within
    /// `ratio_limit` × the bound, mean overlap ≤ 5 %, max ≤ 30 %, no wall penetration.
    #[must_use]
    pub fn meets(&self, ratio_limit: f64) -> bool {
        self.arrived_pct >= 100.0
            && self.stuck == 0
            && self.ratio100.is_some_and(|r| r <= ratio_limit)
            && self.overlap_mean_pct <= 5.0
            && self.overlap_max_pct <= 30.0
            && self.wall_penetrations == 0
    }
}

/// Name of an avoidance mode as the CLI and the table spell it.
#[must_use]
pub fn mode_name(mode: AvoidanceMode) -> &'static str {
    match mode {
        AvoidanceMode::Boids => "boids",
        AvoidanceMode::Orca => "orca",
        AvoidanceMode::Context => "context",
    }
}

/// Plays `scenario` on `nav` until everyone arrived or the time limit, and measures it.
/// `label` names the case in the report. The scenario's own `config` is used as is.
///
/// # Errors
/// As [`Simulation::from_scenario`] (an unknown archetype or movement type).
pub fn run<N: Navigator + ?Sized>(
    label: &str,
    scenario: &Scenario,
    archetypes: &[AgentArchetype],
    nav: &mut N,
) -> Result<CaseReport, CrowdError> {
    run_watched(label, scenario, archetypes, nav, &mut |_, _| {})
}

/// How long a run may last: `bound_factor` × the lower bound plus `grace_secs` (at most
/// 600 s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunLimit {
    /// Multiple of the lower bound. `[Units: s/s]`
    pub bound_factor: f64,
    /// Extra time. `[Units: s]`
    pub grace_secs: f64,
}

impl Default for RunLimit {
    /// The built-in cases' limit: 4 × the bound + 30 s.
    fn default() -> Self {
        Self {
            bound_factor: LIMIT_BOUND_FACTOR,
            grace_secs: GRACE_SECS,
        }
    }
}

/// As [`run`], calling `watch(simulation, navigator)` after every step (to draw frames).
///
/// # Errors
/// As [`run`].
pub fn run_watched<N: Navigator + ?Sized>(
    label: &str,
    scenario: &Scenario,
    archetypes: &[AgentArchetype],
    nav: &mut N,
    watch: &mut dyn FnMut(&Simulation, &N),
) -> Result<CaseReport, CrowdError> {
    run_limited(label, scenario, archetypes, nav, RunLimit::default(), watch)
}

/// As [`run_watched`], stopping at `limit` instead of the built-in cases' limit.
///
/// # Errors
/// As [`run`].
pub fn run_limited<N: Navigator + ?Sized>(
    label: &str,
    scenario: &Scenario,
    archetypes: &[AgentArchetype],
    nav: &mut N,
    limit: RunLimit,
    watch: &mut dyn FnMut(&Simulation, &N),
) -> Result<CaseReport, CrowdError> {
    let mut sim = Simulation::from_scenario(scenario, archetypes, &*nav)?;
    let mut recorder = Recorder::new(&sim);
    let starts = sim.agents().pos_world.clone();
    let mut geodesics = Geodesics::new(&*nav);
    let mut bound = None;
    let mut shortest = Vec::new();
    let mut limit_secs = MAX_SECS;
    loop {
        let t = Instant::now();
        sim.step(nav);
        recorder.observe(&sim, &*nav, t.elapsed().as_secs_f64() * 1000.0);
        watch(&sim, &*nav);
        if bound.is_none() {
            // The scenario's step-0 orders are issued by the first step.
            let (b, s) = lower_bound(&sim, &*nav, &starts, &mut geodesics);
            shortest = s;
            limit_secs = (b.total_secs() * limit.bound_factor + limit.grace_secs).min(MAX_SECS);
            bound = Some(b);
        }
        let a = sim.agents();
        let travelling = a.state.iter().any(|s| s.is_travelling());
        if !travelling || recorder.elapsed_secs() >= limit_secs {
            break;
        }
    }
    let bound = bound.unwrap_or_default();
    let a = sim.agents();
    let progress: Vec<Option<f64>> = (0..a.len())
        .map(|i| {
            let from_start = shortest.get(i).copied().flatten()?;
            let dest = sim.order_destination(a.order[i])?;
            let t = a.move_type[i];
            let left = geodesics.distance(&*nav, t, a.pos_world[i], dest)?;
            Some(f64::from(from_start - left))
        })
        .collect();
    let m = recorder.finish(&sim, &progress);
    let bound_s = bound.total_secs();
    let ratio = |t: Option<f64>| t.map(|t| if bound_s > 0.0 { t / bound_s } else { 0.0 });
    Ok(CaseReport {
        case: label.to_owned(),
        mode: mode_name(sim.config().avoidance).to_owned(),
        agents: m.agents,
        arrived_pct: if m.agents > 0 {
            100.0 * f64::from(m.arrived) / f64::from(m.agents)
        } else {
            100.0
        },
        t95_s: m.t95_secs,
        t100_s: m.t100_secs,
        bound_s,
        ratio95: ratio(m.t95_secs),
        ratio100: ratio(m.t100_secs),
        gap_m: bound.gap_m,
        stuck: m.stuck_at_end,
        overlap_mean_pct: 100.0 * m.overlap_mean,
        overlap_max_pct: 100.0 * f64::from(m.overlap_max),
        wall_penetrations: m.wall_penetrations,
        path_efficiency: m.path_efficiency,
        jitter_deg_s: m.jitter_deg_per_sec,
        step_ms: m.step_ms,
        simulated_s: recorder.elapsed_secs(),
    })
}

/// The table header matching [`table_row`].
#[must_use]
pub fn table_header() -> String {
    format!(
        "{:<14} {:<8} {:>6} {:>8} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>7} {:>7} {:>5} {:>6} {:>7} {:>7}",
        "case",
        "mode",
        "agents",
        "arrived",
        "t95 s",
        "t100 s",
        "bound s",
        "x95",
        "x100",
        "stuck",
        "ovl avg",
        "ovl max",
        "wall",
        "effic",
        "jit d/s",
        "step ms"
    )
}

/// One report as a fixed-width table row.
#[must_use]
pub fn table_row(r: &CaseReport) -> String {
    let opt =
        |v: Option<f64>, prec: usize| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.prec$}"));
    format!(
        "{:<14} {:<8} {:>6} {:>7.1}% {:>7} {:>7} {:>7.1} {:>6} {:>6} {:>6} {:>6.1}% {:>6.1}% {:>5} {:>6.2} {:>7.1} {:>7.3}",
        r.case,
        r.mode,
        r.agents,
        r.arrived_pct,
        opt(r.t95_s, 1),
        opt(r.t100_s, 1),
        r.bound_s,
        opt(r.ratio95, 2),
        opt(r.ratio100, 2),
        r.stuck,
        r.overlap_mean_pct,
        r.overlap_max_pct,
        r.wall_penetrations,
        r.path_efficiency,
        r.jitter_deg_s,
        r.step_ms
    )
}
