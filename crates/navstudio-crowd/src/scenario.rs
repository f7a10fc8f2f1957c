//! Scenarios: spawns and timed orders in RON, so a crowd preview repeats exactly.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::CrowdError;
use super::steering::SimConfig;
use super::vec2::Vec2;

/// Where a spawn places its agents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpawnArea {
    /// Uniformly random positions in the rectangle (seeded), skipping wall cells.
    Rect {
        /// Top-left corner. `[Units: m]`
        min_world: Vec2,
        /// Bottom-right corner. `[Units: m]`
        max_world: Vec2,
    },
    /// A tight sunflower-spiral block around a centre, about 2.2 radii apart, skipping
    /// wall cells.
    Center {
        /// Centre of the block. `[Units: m]`
        center_world: Vec2,
    },
}

/// A batch of agents of one archetype.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spawn {
    /// Archetype name.
    pub archetype: String,
    /// Where.
    pub area: SpawnArea,
    /// How many. Fewer are placed if the area has too little free ground.
    pub count: u32,
    /// Group number that orders address.
    pub group: u32,
}

/// A move order for every agent of a group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// The group to move.
    pub group: u32,
    /// Destination. `[Units: m]`
    pub goal_world: Vec2,
    /// Further destinations: with any, the order names a goal set and each agent goes to
    /// the nearest of `goal_world` and these (by path cost). Older scenario files without
    /// the field load as single-goal orders. `[Units: m]`
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_goals_world: Vec<Vec2>,
    /// Issued at the start of this step (0 = before the first step).
    pub at_step: u64,
}

/// A repeatable crowd preview.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// RNG seed: same seed, same spawns, same trajectories.
    pub seed: u64,
    /// Simulation settings.
    #[serde(default)]
    pub config: SimConfig,
    /// Agents to create.
    pub spawns: Vec<Spawn>,
    /// Orders to issue.
    #[serde(default)]
    pub orders: Vec<Order>,
}

impl Scenario {
    /// Parses a scenario from RON text; `path` is only used in the error.
    ///
    /// # Errors
    /// [`CrowdError::Ron`] when the text is not a valid scenario,
    /// [`CrowdError::ScenarioConfig`] when a parameter of its config is out of range.
    pub fn from_ron_str(text: &str, path: &Path) -> Result<Self, CrowdError> {
        let scenario: Self = ron::from_str(text).map_err(|e| CrowdError::Ron {
            what: "scenario",
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        scenario
            .config
            .check()
            .map_err(|e| CrowdError::ScenarioConfig {
                path: path.to_owned(),
                source: Box::new(e),
            })?;
        Ok(scenario)
    }

    /// Loads a scenario file.
    ///
    /// # Errors
    /// [`CrowdError::Io`] when the file cannot be read, [`CrowdError::Ron`] when it does not parse.
    pub fn load(path: &Path) -> Result<Self, CrowdError> {
        let text = std::fs::read_to_string(path).map_err(|source| CrowdError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_ron_str(&text, path)
    }

    /// The scenario as pretty RON.
    #[must_use]
    pub fn to_ron_string(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_scenario_with_a_parameter_out_of_range_is_refused_naming_file_and_parameter() {
        let path = Path::new("maps/door.scenario.ron");
        let good = "(seed: 3, config: (reaction_secs: 0.3), spawns: [])";
        let s = Scenario::from_ron_str(good, path).unwrap();
        assert_eq!(s.config.reaction_secs, 0.3);
        let bad = "(seed: 3, config: (separation_margin_m: -0.5), spawns: [])";
        let e = Scenario::from_ron_str(bad, path).unwrap_err().to_string();
        assert!(
            e.starts_with("scenario maps/door.scenario.ron: crowd parameter separation_margin_m = -0.5: it must be a value from 0 to 1 m"),
            "{e}"
        );
    }
}
