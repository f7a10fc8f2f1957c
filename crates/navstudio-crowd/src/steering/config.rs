//! Simulation settings: the avoidance mode, behaviour weights and the switchable
//! movement techniques.

use serde::{Deserialize, Serialize};

use crate::CrowdError;

/// Local avoidance method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AvoidanceMode {
    /// Reynolds boids with Fieldrunners' side-step avoidance.
    #[default]
    Boids,
    /// Optimal reciprocal collision avoidance (RVO2), on the flow velocity.
    Orca,
    /// Context steering: interest and danger per direction slot, sub-slot interpolation.
    Context,
}

/// Weights of the steering behaviours (dimensionless multipliers on each force).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SteeringWeights {
    /// Flow following. `[Limit: >= 0]`
    pub flow: f32,
    /// Side-step avoidance. `[Limit: >= 0]`
    pub avoidance: f32,
    /// Separation. `[Limit: >= 0]`
    pub separation: f32,
    /// Alignment with same-order neighbours. `[Limit: >= 0]`
    pub alignment: f32,
    /// Cohesion with same-order neighbours. `[Limit: >= 0]`
    pub cohesion: f32,
}

impl Default for SteeringWeights {
    fn default() -> Self {
        Self {
            flow: 1.0,
            avoidance: 0.6,
            separation: 1.0,
            alignment: 0.1,
            cohesion: 0.05,
        }
    }
}

/// The crowd's remaining switches (`navstudio crowd-bench --off NAME` / `--on NAME`): the
/// contact rule, which the flow-and-separation baseline runs without, and the techniques
/// that are off by default because they cost more than they buy on the benchmarks but
/// change rows there. Everything the crowd does always is the algorithm, not a switch
/// (docs/crowd.md lists it).
///
/// Files saved before the other techniques became the algorithm name them; they are read
/// and ignored (so this struct does not deny unknown fields).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Techniques {
    /// Priority-based contact resolution (Age of Empires; The Maestros' pushing): closing
    /// speed that would overlap two agents is removed — by ORCA over every neighbour in
    /// boids and context steering — the lighter, the stationary and the follower giving
    /// way ([`crate::resolve`]), and position passes open what overlap is left. Off, the
    /// crowd is flow following and separation alone (the step-time baseline).
    pub resolve_contacts: bool,
    /// ORCA as one behaviour inside context steering (seed §004): each neighbour's RVO2
    /// half-plane writes danger into the direction slots (the share of speed a slot must
    /// give up to stay collision-free), instead of danger growing with mere closeness
    /// ([`crate::half_planes`]). Context mode only. Off by default: in every benchmark
    /// case it was slower than the proximity danger, and head-on crowds deadlock in it.
    pub context_orca: bool,
    /// Corner clearance (The Maestros): an agent keeps about one radius off the corners
    /// its route turns round. The flow field leads along the shortest path, which touches
    /// every corner it turns round, so without this a whole group files past a door post
    /// in one lane, brushing it. Only corners on the inside of a turn count: a straight
    /// way through a door keeps the door's whole width. Off by default: it speeds groups
    /// into a corridor but narrows the doors where a route turns.
    pub corner_clearance: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Self {
            resolve_contacts: true,
            context_orca: false,
            corner_clearance: false,
        }
    }
}

impl Techniques {
    /// Every switch off: flow following and separation alone.
    #[must_use]
    pub fn none() -> Self {
        Self {
            resolve_contacts: false,
            context_orca: false,
            corner_clearance: false,
        }
    }

    /// Names accepted by [`Self::set`].
    pub const NAMES: [&'static str; 3] = ["resolve_contacts", "context_orca", "corner_clearance"];

    /// Turns one technique on or off by name; `false` for an unknown name.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        self.flag_mut(name).map(|flag| *flag = on).is_some()
    }

    /// The switch named `name` ([`Self::NAMES`]), for a settings panel.
    pub fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "resolve_contacts" => &mut self.resolve_contacts,
            "context_orca" => &mut self.context_orca,
            "corner_clearance" => &mut self.corner_clearance,
            _ => return None,
        })
    }

    /// What the technique named `name` does, in one line (empty for an unknown name).
    #[must_use]
    pub fn about(name: &str) -> &'static str {
        match name {
            "resolve_contacts" => {
                "Who yields, waits or pushes when agents meet (Age of Empires, The Maestros)"
            }
            "context_orca" => "Context steering: neighbours' ORCA half-planes write the danger",
            "corner_clearance" => {
                "Agents keep about a radius off the corners their route turns round"
            }
            _ => "",
        }
    }
}

/// Simulation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Fixed step length. `[Units: s] [Limit: > 0]`
    pub step_secs: f32,
    /// Most steps one `advance` call takes; extra time is dropped so a slow frame cannot
    /// snowball. `[Limit: >= 1]`
    pub max_steps_per_advance: u32,
    /// Local avoidance method.
    pub avoidance: AvoidanceMode,
    /// Behaviour weights.
    pub weights: SteeringWeights,
    /// Time to reach the desired velocity if force allowed it. `[Units: s] [Limit: > 0]`
    pub reaction_secs: f32,
    /// Nearest neighbours considered. `[Limit: 1..=16]`
    pub max_neighbours: usize,
    /// Side-step avoidance looks this far ahead. `[Units: s] [Limit: > 0]`
    pub avoidance_horizon_secs: f32,
    /// Extra gap separation keeps between discs; also the "touching" slack for group
    /// arrival. `[Units: m] [Limit: >= 0]`
    pub separation_margin_m: f32,
    /// Share of an overlap between two discs removed per step by pushing. `[Limit: 0..=1]`
    pub contact_relaxation: f32,
    /// An agent that gets no `stuck_progress_m` closer to its goal in this time is stuck.
    /// `[Units: s] [Limit: > 0]`
    pub stuck_secs: f32,
    /// Progress that resets the stuck timer. `[Units: m] [Limit: > 0]`
    pub stuck_progress_m: f32,
    /// Direction slots for context steering. `[Limit: 4..=256]`
    pub context_slots: usize,
    /// ORCA looks this far ahead for other agents. A longer look slows every agent
    /// converging on one spot while the others are still metres away: a ring of 35–50
    /// swapping to the antipodes crawls in from the start (docs/crowd.md, Parameters).
    /// `[Units: s] [Limit: > 0]`
    pub orca_time_horizon_secs: f32,
    /// With `resolve_contacts`, boids and context steering keep clear of neighbours for this
    /// long (their steering already avoids farther ahead). `[Units: s] [Limit: > 0]`
    pub contact_horizon_secs: f32,
    /// How often ORCA and context steering decide (seed §004: e.g. 0.1 s, 10 Hz decisions
    /// with 60 Hz movement): between its decisions an agent keeps the velocity it chose,
    /// while following, contacts and walls run every step. 0 (or one step or less):
    /// every step. Boids' forces are summed every step. `[Units: s] [Limit: >= 0]`
    pub decision_secs: f32,
    /// The switchable techniques.
    pub techniques: Techniques,
}

impl SimConfig {
    /// Steps per decision ([`Self::decision_secs`]), at least 1.
    #[must_use]
    pub fn decision_steps(&self) -> u64 {
        let steps = self.decision_secs / self.step_secs.max(1e-6);
        if steps.is_finite() && steps > 1.0 {
            (steps.round() as u64).min(600)
        } else {
            1
        }
    }

    /// Whether separation and the contact push are the only behaviours that read
    /// neighbours: boids with avoidance, alignment and cohesion weighted 0 (ORCA and
    /// context steering look at every neighbour in the neighbour radius).
    #[must_use]
    pub fn uses_separation_only(&self) -> bool {
        let w = self.weights;
        self.avoidance == AvoidanceMode::Boids
            && w.avoidance == 0.0
            && w.alignment == 0.0
            && w.cohesion == 0.0
    }
}

/// One tunable movement parameter of [`SimConfig`], as the editor's Crowd panel and
/// `navstudio crowd-bench --set NAME=VALUE` show it (DetourCrowd's avoidance parameters are
/// the model: a handful, each with a unit and the modes it acts in).
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The field's name in [`SimConfig`] (and in a scenario file's `config`).
    pub name: &'static str,
    /// Unit of the value ("s", "m", or "" for a count or a share).
    pub unit: &'static str,
    /// Values accepted, inclusive.
    pub range: (f32, f32),
    /// A whole number (a count).
    pub whole: bool,
    /// The avoidance modes it acts in.
    pub modes: &'static [AvoidanceMode],
    /// What it does, in one line.
    pub about: &'static str,
}

const ALL_MODES: &[AvoidanceMode] = &[
    AvoidanceMode::Boids,
    AvoidanceMode::Orca,
    AvoidanceMode::Context,
];
const STEERED: &[AvoidanceMode] = &[AvoidanceMode::Boids, AvoidanceMode::Context];

/// A parameter's field, for reading and writing it.
enum Slot<'a> {
    Real(&'a mut f32),
    Count(&'a mut usize),
}

impl SimConfig {
    /// The movement parameters a designer tunes; docs/crowd.md says what each buys.
    pub const PARAMS: [Param; 8] = [
        Param {
            name: "reaction_secs",
            unit: "s",
            range: (0.02, 2.0),
            whole: false,
            modes: STEERED,
            about: "Time to reach the velocity the agent wants, force allowing: shorter, and a queue closes up and gets going sooner",
        },
        Param {
            name: "separation_margin_m",
            unit: "m",
            range: (0.0, 1.0),
            whole: false,
            modes: ALL_MODES,
            about: "Gap separation keeps between bodies; also how near counts as touching an arrived group member",
        },
        Param {
            name: "max_neighbours",
            unit: "",
            range: (1.0, 16.0),
            whole: true,
            modes: ALL_MODES,
            about: "Nearest neighbours an agent steers by each step",
        },
        Param {
            name: "contact_relaxation",
            unit: "",
            range: (0.0, 1.0),
            whole: false,
            modes: ALL_MODES,
            about: "Share of an overlap between two bodies pushed apart per step",
        },
        Param {
            name: "avoidance_horizon_secs",
            unit: "s",
            range: (0.1, 10.0),
            whole: false,
            modes: &[AvoidanceMode::Boids],
            about: "Boids side-step: how far ahead a collision is seen and stepped round",
        },
        Param {
            name: "contact_horizon_secs",
            unit: "s",
            range: (0.1, 10.0),
            whole: false,
            modes: STEERED,
            about: "The contact rule keeps each agent clear of its neighbours for this long",
        },
        Param {
            name: "orca_time_horizon_secs",
            unit: "s",
            range: (0.1, 10.0),
            whole: false,
            modes: &[AvoidanceMode::Orca],
            about: "ORCA avoids neighbours it would meet within this time",
        },
        Param {
            name: "context_slots",
            unit: "",
            range: (4.0, 256.0),
            whole: true,
            modes: &[AvoidanceMode::Context],
            about: "Directions context steering weighs interest and danger in",
        },
    ];

    fn slot(&mut self, name: &str) -> Option<Slot<'_>> {
        Some(match name {
            "reaction_secs" => Slot::Real(&mut self.reaction_secs),
            "separation_margin_m" => Slot::Real(&mut self.separation_margin_m),
            "max_neighbours" => Slot::Count(&mut self.max_neighbours),
            "contact_relaxation" => Slot::Real(&mut self.contact_relaxation),
            "avoidance_horizon_secs" => Slot::Real(&mut self.avoidance_horizon_secs),
            "contact_horizon_secs" => Slot::Real(&mut self.contact_horizon_secs),
            "orca_time_horizon_secs" => Slot::Real(&mut self.orca_time_horizon_secs),
            "context_slots" => Slot::Count(&mut self.context_slots),
            _ => return None,
        })
    }

    /// The parameter named `name` ([`Self::PARAMS`]).
    #[must_use]
    pub fn param_by_name(name: &str) -> Option<&'static Param> {
        Self::PARAMS.iter().find(|p| p.name == name)
    }

    /// The value of the parameter named `name` (`None` for an unknown name).
    #[must_use]
    pub fn param(&self, name: &str) -> Option<f32> {
        Some(match self.clone().slot(name)? {
            Slot::Real(v) => *v,
            Slot::Count(v) => *v as f32,
        })
    }

    /// Sets the parameter named `name`.
    ///
    /// # Errors
    /// [`CrowdError::InvalidParameter`] for an unknown name, or a value outside the
    /// parameter's range or not whole where it counts; nothing is changed then.
    pub fn set_param(&mut self, name: &str, value: f32) -> Result<(), CrowdError> {
        let Some(p) = Self::param_by_name(name) else {
            let names: Vec<&str> = Self::PARAMS.iter().map(|p| p.name).collect();
            return Err(invalid(
                name,
                value,
                format!("no such parameter; use one of {}", names.join(", ")),
            ));
        };
        in_range(p, value)?;
        match self.slot(name) {
            Some(Slot::Real(v)) => *v = value,
            Some(Slot::Count(v)) => *v = value as usize,
            None => {
                return Err(invalid(
                    name,
                    value,
                    "no such field in the settings".to_owned(),
                ));
            }
        }
        Ok(())
    }

    /// Checks every parameter against its range (a scenario file can hold any number).
    ///
    /// # Errors
    /// [`CrowdError::InvalidParameter`] for the first one out of range.
    pub fn check(&self) -> Result<(), CrowdError> {
        for p in &Self::PARAMS {
            if let Some(v) = self.param(p.name) {
                in_range(p, v)?;
            }
        }
        Ok(())
    }
}

fn invalid(name: &str, value: f32, problem: String) -> CrowdError {
    CrowdError::InvalidParameter {
        name: name.to_owned(),
        value,
        problem,
    }
}

/// `value` lies in `p`'s range (and is whole where `p` counts).
fn in_range(p: &Param, value: f32) -> Result<(), CrowdError> {
    let (lo, hi) = p.range;
    if (lo..=hi).contains(&value) && !(p.whole && value.fract() != 0.0) {
        return Ok(());
    }
    let kind = if p.whole { "a whole number" } else { "a value" };
    let unit = if p.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", p.unit)
    };
    Err(invalid(
        p.name,
        value,
        format!("it must be {kind} from {lo} to {hi}{unit}"),
    ))
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            step_secs: 1.0 / 60.0,
            max_steps_per_advance: 8,
            avoidance: AvoidanceMode::Boids,
            weights: SteeringWeights::default(),
            reaction_secs: 0.15,
            max_neighbours: 10,
            avoidance_horizon_secs: 1.5,
            separation_margin_m: 0.1,
            contact_relaxation: 0.5,
            stuck_secs: 3.0,
            stuck_progress_m: 0.5,
            context_slots: 12,
            orca_time_horizon_secs: 1.0,
            contact_horizon_secs: 1.0,
            decision_secs: 0.0,
            techniques: Techniques::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_parameter_reads_back_what_was_set_and_its_default_is_in_range() {
        let defaults = SimConfig::default();
        defaults.check().unwrap();
        for p in &SimConfig::PARAMS {
            let (lo, hi) = p.range;
            let mut c = SimConfig::default();
            let v = if p.whole { hi.floor() } else { 0.5 * (lo + hi) };
            c.set_param(p.name, v).unwrap();
            assert_eq!(c.param(p.name), Some(v), "{}", p.name);
            // Only that field moved.
            for q in SimConfig::PARAMS.iter().filter(|q| q.name != p.name) {
                assert_eq!(
                    c.param(q.name),
                    defaults.param(q.name),
                    "{} moved {}",
                    p.name,
                    q.name
                );
            }
        }
        let mut c = SimConfig::default();
        c.set_param("reaction_secs", 0.3).unwrap();
        assert_eq!(c.reaction_secs, 0.3);
        c.set_param("context_slots", 24.0).unwrap();
        assert_eq!(c.context_slots, 24);
    }

    #[test]
    fn a_parameter_out_of_range_or_unknown_is_refused_and_nothing_changes() {
        let mut c = SimConfig::default();
        for (name, value, says) in [
            ("reaction_secs", -1.0, "from 0.02 to 2 s"),
            ("reaction_secs", f32::NAN, "from 0.02 to 2 s"),
            ("max_neighbours", 3.5, "a whole number from 1 to 16"),
            ("context_slots", 300.0, "a whole number from 4 to 256"),
            (
                "reaction",
                0.2,
                "no such parameter; use one of reaction_secs",
            ),
        ] {
            let e = c.set_param(name, value).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(says), "{e}");
            assert_eq!(c, SimConfig::default());
        }
        c.orca_time_horizon_secs = 0.0;
        let e = c.check().unwrap_err().to_string();
        assert!(e.contains("orca_time_horizon_secs = 0"), "{e}");
    }
}
