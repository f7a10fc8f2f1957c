//! Agent archetypes: the physical parameters of one kind of unit (Fieldrunners' point-mass
//! boids). They live in `assets/archetypes.ron` so designers can tune them.
//!
//! Tuning order (from Fieldrunners 2): max speed first, then max force, then neighbour
//! radius, then masses relative to each other keeping agility (`max_force / mass`) fixed.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::CrowdError;

/// One kind of unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentArchetype {
    /// Unique name used by scenarios and the editor's spawn tool.
    pub name: String,
    /// The movement type whose walls and flow fields this unit uses.
    pub movement_type: String,
    /// Collision disc radius. `[Units: m] [Limit: > 0]`
    pub radius_m: f32,
    /// Mass; heavy units push light ones aside. `[Units: kg] [Limit: > 0]`
    pub mass: f32,
    /// Largest steering force; `max_force / mass` is the agility. `[Units: N] [Limit: > 0]`
    pub max_force: f32,
    /// Top speed. `[Units: m/s] [Limit: > 0]`
    pub max_speed: f32,
    /// Neighbours within this distance influence steering. `[Units: m] [Limit: > 0]`
    pub neighbour_radius_m: f32,
}

impl AgentArchetype {
    /// Checks that every parameter is a finite positive number.
    ///
    /// # Errors
    /// [`CrowdError::InvalidArchetype`] naming the first bad field.
    pub fn validate(&self) -> Result<(), CrowdError> {
        for (field, value) in [
            ("radius_m", self.radius_m),
            ("mass", self.mass),
            ("max_force", self.max_force),
            ("max_speed", self.max_speed),
            ("neighbour_radius_m", self.neighbour_radius_m),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(CrowdError::InvalidArchetype {
                    name: self.name.clone(),
                    field,
                    value,
                });
            }
        }
        Ok(())
    }
}

/// The default archetypes: infantry, tank, hovercraft and large walker.
#[must_use]
pub fn default_archetypes() -> Vec<AgentArchetype> {
    vec![
        AgentArchetype {
            name: "infantry".to_owned(),
            movement_type: "land".to_owned(),
            radius_m: 0.4,
            mass: 80.0,
            max_force: 1600.0,
            max_speed: 4.0,
            neighbour_radius_m: 3.0,
        },
        AgentArchetype {
            name: "tank".to_owned(),
            movement_type: "land".to_owned(),
            radius_m: 1.2,
            mass: 30_000.0,
            max_force: 180_000.0,
            max_speed: 6.0,
            neighbour_radius_m: 6.0,
        },
        AgentArchetype {
            name: "hovercraft".to_owned(),
            movement_type: "hover".to_owned(),
            radius_m: 1.0,
            mass: 4_000.0,
            max_force: 32_000.0,
            max_speed: 10.0,
            neighbour_radius_m: 6.0,
        },
        AgentArchetype {
            name: "large walker".to_owned(),
            movement_type: "large".to_owned(),
            radius_m: 2.5,
            mass: 60_000.0,
            max_force: 180_000.0,
            max_speed: 3.0,
            neighbour_radius_m: 8.0,
        },
    ]
}

/// Parses an archetype list (RON: a list of [`AgentArchetype`]) and validates each entry.
///
/// # Errors
/// [`CrowdError::Ron`] on a syntax or field error, [`CrowdError::InvalidArchetype`] on a bad value.
pub fn archetypes_from_ron(text: &str, path: &Path) -> Result<Vec<AgentArchetype>, CrowdError> {
    let list: Vec<AgentArchetype> = ron::from_str(text).map_err(|e| CrowdError::Ron {
        what: "archetype file",
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    for a in &list {
        a.validate()?;
    }
    Ok(list)
}

/// Loads an archetype file such as `assets/archetypes.ron`.
///
/// # Errors
/// [`CrowdError::Io`] when the file cannot be read, otherwise as [`archetypes_from_ron`].
pub fn load_archetypes(path: &Path) -> Result<Vec<AgentArchetype>, CrowdError> {
    let text = std::fs::read_to_string(path).map_err(|source| CrowdError::Io {
        path: path.to_owned(),
        source,
    })?;
    archetypes_from_ron(&text, path)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn asset_file_matches_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/archetypes.ron");
        assert_eq!(load_archetypes(&path).unwrap(), default_archetypes());
    }

    #[test]
    fn bad_values_are_rejected() {
        let mut a = default_archetypes().remove(0);
        a.mass = 0.0;
        assert!(matches!(
            a.validate(),
            Err(CrowdError::InvalidArchetype { field: "mass", .. })
        ));
        assert!(archetypes_from_ron("[(name: 1)]", Path::new("x.ron")).is_err());
    }
}
