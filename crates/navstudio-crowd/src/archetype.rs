//! Agent archetypes: the physical parameters of one kind of unit (Fieldrunners' point-mass
//! boids). They live in `assets/archetypes.ron` so designers can tune them.
//!
//! Tuning order (from Fieldrunners 2): max speed first, then max force, then neighbour
//! radius, then masses relative to each other keeping agility (`max_force / mass`) fixed.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::CrowdError;

/// Largest collision radius, in cells of the map the agent walks on: wall contacts scan the
/// cells under the disc, so the work per step grows with the radius in cells squared.
pub const MAX_RADIUS_CELLS: f32 = 8.0;
/// Largest top speed. `[Units: m/s]`
pub const MAX_SPEED_M_S: f32 = 100.0;
/// Mass range. `[Units: kg]`
pub const MASS_RANGE_KG: (f32, f32) = (0.1, 1.0e7);
/// Largest agility, `max_force / mass` (a hundred times gravity). `[Units: m/s²]`
pub const MAX_AGILITY_M_S2: f32 = 1000.0;
/// Largest neighbour radius: neighbour queries visit every agent within it, so the work per
/// step grows with the agents it holds. `[Units: m]`
pub const MAX_NEIGHBOUR_RADIUS_M: f32 = 100.0;

/// One kind of unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentArchetype {
    /// Unique name used by scenarios and the editor's spawn tool.
    pub name: String,
    /// The movement type whose walls and flow fields this unit uses.
    pub movement_type: String,
    /// Collision disc radius. `[Units: m] [Limit: > 0, <= MAX_RADIUS_CELLS cells of the map]`
    pub radius_m: f32,
    /// Mass; heavy units push light ones aside. `[Units: kg] [Limit: 0.1 ..= 1e7]`
    pub mass: f32,
    /// Largest steering force; `max_force / mass` is the agility. `[Units: N] [Limit: > 0,
    /// max_force / mass <= 1000 m/s²]`
    pub max_force: f32,
    /// Top speed. `[Units: m/s] [Limit: > 0, <= 100]`
    pub max_speed: f32,
    /// Neighbours within this distance influence steering. `[Units: m] [Limit: > 0, <= 100]`
    pub neighbour_radius_m: f32,
}

impl AgentArchetype {
    /// Checks every parameter against its documented range but the radius's upper bound,
    /// which depends on the map (see [`Self::validate_for_cell_size`]).
    ///
    /// # Errors
    /// [`CrowdError::InvalidArchetype`] naming the first bad field and its range.
    pub fn validate(&self) -> Result<(), CrowdError> {
        self.check(f32::INFINITY)
    }

    /// [`Self::validate`], and the radius at most [`MAX_RADIUS_CELLS`] cells of
    /// `cell_size_m`.
    ///
    /// # Errors
    /// [`CrowdError::InvalidArchetype`] naming the first bad field and its range.
    pub fn validate_for_cell_size(&self, cell_size_m: f32) -> Result<(), CrowdError> {
        self.check(MAX_RADIUS_CELLS * cell_size_m)
    }

    fn check(&self, max_radius_m: f32) -> Result<(), CrowdError> {
        let radius_range = if max_radius_m.is_finite() {
            format!("above 0 and at most {max_radius_m} m ({MAX_RADIUS_CELLS} cells of this map)")
        } else {
            "above 0".to_owned()
        };
        let agility = self.max_force / self.mass;
        for (field, value, ok, range) in [
            (
                "radius_m",
                self.radius_m,
                self.radius_m > 0.0 && self.radius_m <= max_radius_m,
                radius_range,
            ),
            (
                "mass",
                self.mass,
                (MASS_RANGE_KG.0..=MASS_RANGE_KG.1).contains(&self.mass),
                format!("{} to {} kg", MASS_RANGE_KG.0, MASS_RANGE_KG.1),
            ),
            (
                "max_force",
                self.max_force,
                self.max_force > 0.0 && agility <= MAX_AGILITY_M_S2,
                format!("above 0 and at most {MAX_AGILITY_M_S2} m/s² times the mass"),
            ),
            (
                "max_speed",
                self.max_speed,
                self.max_speed > 0.0 && self.max_speed <= MAX_SPEED_M_S,
                format!("above 0 and at most {MAX_SPEED_M_S} m/s"),
            ),
            (
                "neighbour_radius_m",
                self.neighbour_radius_m,
                self.neighbour_radius_m > 0.0 && self.neighbour_radius_m <= MAX_NEIGHBOUR_RADIUS_M,
                format!("above 0 and at most {MAX_NEIGHBOUR_RADIUS_M} m"),
            ),
        ] {
            // NaN fails every comparison above.
            if !(value.is_finite() && ok) {
                return Err(CrowdError::InvalidArchetype {
                    name: self.name.clone(),
                    field,
                    value,
                    range,
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

    #[test]
    fn values_outside_their_ranges_are_rejected_with_the_range() {
        let base = default_archetypes().remove(0);
        for a in default_archetypes() {
            a.validate_for_cell_size(0.5).unwrap();
        }
        type Spoil = fn(&mut AgentArchetype);
        let cases: [(&str, Spoil); 7] = [
            ("radius_m", |a| a.radius_m = 1e6),
            ("radius_m", |a| a.radius_m = f32::NAN),
            ("mass", |a| a.mass = 1e9),
            ("max_force", |a| a.max_force = 1e12),
            ("max_speed", |a| a.max_speed = 1e4),
            ("neighbour_radius_m", |a| a.neighbour_radius_m = 1e6),
            ("neighbour_radius_m", |a| {
                a.neighbour_radius_m = f32::INFINITY
            }),
        ];
        for (field, bad) in cases {
            let mut a = base.clone();
            bad(&mut a);
            let e = a.validate_for_cell_size(1.0).unwrap_err();
            assert!(
                matches!(&e, CrowdError::InvalidArchetype { field: f, .. } if *f == field),
                "{field}: {e}"
            );
            assert!(e.to_string().contains("it must be"), "{e}");
        }
        let mut a = base;
        a.radius_m = 8.0;
        a.validate_for_cell_size(1.0).unwrap();
        a.radius_m = 8.01;
        assert!(a.validate_for_cell_size(1.0).is_err());
        a.validate().unwrap();
    }
}
