//! Nav links as the map document holds them (see `docs/map-format.md`): the run time's
//! [`NavLink`] with movement types named instead of numbered, and defaults for the fields a
//! designer seldom sets.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{MapDocument, MapError};
use crate::nav::links::{LinkCost, LinkEnd, LinkKind, NavLink};

/// A link in the map document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapLink {
    /// Unique id: what the run time reports when an agent takes the link.
    pub id: u32,
    /// The entry end (of a one-way link): `(x: 10, y: 4, w: 1, h: 1)`.
    pub a: LinkEnd,
    /// The exit end.
    pub b: LinkEnd,
    /// Movement types that may use it, by name; empty: every type.
    #[serde(default)]
    pub types: Vec<String>,
    /// Whether agents may also go from `b` to `a`.
    #[serde(default = "yes")]
    pub two_way: bool,
    /// A disabled link is kept but taken by nobody.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// `Walk`, `Ride(capacity: 10, period_s: 30.0)`, `Teleport(time_s: 2.0)` or `Drop`.
    #[serde(default = "walk")]
    pub kind: LinkKind,
    /// `PerMetre(1.0)` (clear ground), `Direct(40)` or `Time(5.0)`.
    #[serde(default = "per_metre")]
    pub cost: LinkCost,
    /// Width in metres. `[Units: m] [Limit: > 0]`
    #[serde(default = "two_metres")]
    pub width_m: f32,
}

fn yes() -> bool {
    true
}
fn walk() -> LinkKind {
    LinkKind::Walk
}
fn per_metre() -> LinkCost {
    LinkCost::PerMetre(1.0)
}
fn two_metres() -> f32 {
    2.0
}

impl MapLink {
    /// A two-way walk link between two cells for every movement type.
    #[must_use]
    pub fn walk(id: u32, a: (u32, u32), b: (u32, u32)) -> Self {
        Self::from_nav(&NavLink::walk(id, a, b), &[])
    }

    /// The run-time link for the baked movement types `baked` (names in package layer
    /// order): bit `i` of its type mask stands for `baked[i]`.
    #[must_use]
    pub fn to_nav(&self, baked: &[&str]) -> NavLink {
        let types = baked
            .iter()
            .enumerate()
            .filter(|(_, name)| self.types.is_empty() || self.types.iter().any(|t| t == *name))
            .fold(0_u32, |m, (i, _)| if i < 32 { m | 1 << i } else { m });
        NavLink {
            id: self.id,
            a: self.a,
            b: self.b,
            types,
            two_way: self.two_way,
            enabled: self.enabled,
            kind: self.kind,
            cost: self.cost,
            width_m: self.width_m,
        }
    }

    /// The document's form of a run-time link whose type mask refers to `names`.
    #[must_use]
    pub fn from_nav(link: &NavLink, names: &[&str]) -> Self {
        let all = names
            .iter()
            .enumerate()
            .all(|(i, _)| link.types & (1 << i) != 0);
        Self {
            id: link.id,
            a: link.a,
            b: link.b,
            types: if all {
                Vec::new()
            } else {
                names
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| link.types & (1 << i) != 0)
                    .map(|(_, n)| (*n).to_owned())
                    .collect()
            },
            two_way: link.two_way,
            enabled: link.enabled,
            kind: link.kind,
            cost: link.cost,
            width_m: link.width_m,
        }
    }
}

impl MapDocument {
    /// Checks the links: unique ids, known movement type names, and every value in range
    /// (whether the ends lie on the map is checked when the heightmap's size is known).
    pub(super) fn validate_links(&self, path: &Path) -> Result<(), MapError> {
        let invalid = |field: String, problem: String| MapError::InvalidValue {
            path: path.to_path_buf(),
            field,
            problem,
        };
        let mut ids: Vec<u32> = self.links.iter().map(|l| l.id).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(invalid(
                format!("link {}", w[0]),
                "id is used twice; give every link its own id".to_owned(),
            ));
        }
        for link in &self.links {
            if let Some(t) = link
                .types
                .iter()
                .find(|t| !self.movement_types.iter().any(|m| &m.name == *t))
            {
                return Err(invalid(
                    format!("link {}", link.id),
                    format!("names movement type `{t}`, which the map does not have"),
                ));
            }
            link.to_nav(&[])
                .validate(u32::MAX, u32::MAX)
                .map_err(|e| invalid(format!("link {}", link.id), e.to_string()))?;
        }
        Ok(())
    }

    /// The document's links as the run time takes them, for the baked movement types
    /// `type_indices` (package layer order).
    #[must_use]
    pub fn nav_links(&self, type_indices: &[usize]) -> Vec<NavLink> {
        let names: Vec<&str> = type_indices
            .iter()
            .filter_map(|&t| self.movement_types.get(t))
            .map(|m| m.name.as_str())
            .collect();
        self.links.iter().map(|l| l.to_nav(&names)).collect()
    }
}
