//! Cost stamps: small cost grids (buildings, walls, bridges) placed on the map by designers,
//! with transparent cells that keep what was underneath.

use serde::{Deserialize, Serialize};

/// One cell of a stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampCell {
    /// Keeps whatever cost was there.
    Transparent,
    /// A wall (cost 255).
    Wall,
    /// Replaces the cost with this value, clearing any terrain wall under it (e.g. a bridge).
    /// `[Limit: 1..=254]`
    Cost(u8),
}

/// A stamp as defined in the stamp library (`assets/stamps.ron`).
///
/// `rows` is a picture of the stamp, one string per row, top row first:
/// `.` transparent, `#` wall, `1`–`9` a cost of 1–9, and any other character looked up in
/// `legend` (e.g. `'s': 40` for a slow surface).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stamp {
    /// Identifier that placements refer to.
    pub id: String,
    /// Name shown to designers.
    pub name: String,
    /// The stamp's picture, top row first.
    pub rows: Vec<String>,
    /// Extra cost characters.
    #[serde(default)]
    pub legend: Vec<(char, u8)>,
}

/// A stamp placed on the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StampPlacement {
    /// The `Stamp::id` this places.
    pub stamp: String,
    /// Cell column of the top-left corner of the rotated footprint.
    pub x: i32,
    /// Cell row of the top-left corner of the rotated footprint.
    pub y: i32,
    /// Clockwise rotation in quarter turns. `[Limit: 0..=3]`
    pub rotation: u8,
}

/// The stamp library: every stamp a map can place.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StampLibrary {
    /// The stamps, in the order the editor lists them.
    pub stamps: Vec<Stamp>,
}
