//! Movement types: how one class of unit reads the terrain (slope limits, the slope→cost
//! curve, water, wall buffering for large units, the wall blur gradient).

use serde::{Deserialize, Serialize};

/// What a movement type does with cells below the map's water level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum WaterRule {
    /// Water is a wall (land units).
    Impassable,
    /// Water is passable at this cost per cell (hover units). `[Limit: 1..=254]`
    Cost(u8),
}

/// One movement type (land, hover, large …). Every type gets its own cost field, portal
/// graph, islands and flow permutations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementType {
    /// Unique name, shown in the editor and used by `--types` and paint targets.
    pub name: String,
    /// Cells steeper than this become walls. `[Units: degrees] [Limit: 0..=90]`
    pub max_slope_deg: f32,
    /// Slope→cost curve as `(slope_deg, cost)` points, strictly increasing in degrees,
    /// evaluated piecewise linearly and held flat beyond its ends. `[Limit: cost 1..=254]`
    pub slope_cost: Vec<(f32, f32)>,
    /// What water does to this type.
    pub water: WaterRule,
    /// Cells closer than this to a wall become walls (large units). `[Units: m] [Limit: >= 0]`
    pub wall_buffer_m: f32,
    /// Cost is added to cells closer than this to a wall. `[Units: m] [Limit: >= 0]`
    pub blur_radius_m: f32,
    /// Cost added right next to a wall, falling linearly to 0 at `blur_radius_m`.
    /// `[Units: cost] [Limit: 0..=253]`
    pub blur_strength: f32,
    /// Pockets of passable ground this small or smaller, walled in on every side, become
    /// walls (Recast's "min region area"): on real terrain, steep ground leaves hundreds of
    /// one-to-few-cell flat spots no unit can reach or leave, and each would be an island.
    /// 0 keeps every pocket. `[Units: cells] [Limit: 0..=1024]`
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_island_cells: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Default for MovementType {
    fn default() -> Self {
        Self {
            name: "land".to_owned(),
            max_slope_deg: 35.0,
            slope_cost: vec![(0.0, 1.0), (5.0, 1.0), (20.0, 8.0), (35.0, 30.0)],
            water: WaterRule::Impassable,
            wall_buffer_m: 0.0,
            blur_radius_m: 3.0,
            blur_strength: 6.0,
            min_island_cells: 0,
        }
    }
}

/// The three movement types every sample map ships with: `land` (tanks), `hover` (crosses
/// water at a small cost, but dislikes slopes) and `large` (keeps 1.5 m clear of walls, so
/// it cannot squeeze through gaps narrower than about three cells).
#[must_use]
pub fn default_movement_types() -> Vec<MovementType> {
    vec![
        MovementType::default(),
        MovementType {
            name: "hover".to_owned(),
            max_slope_deg: 25.0,
            slope_cost: vec![(0.0, 1.0), (8.0, 1.0), (25.0, 20.0)],
            water: WaterRule::Cost(2),
            wall_buffer_m: 0.0,
            blur_radius_m: 2.0,
            blur_strength: 4.0,
            min_island_cells: 0,
        },
        MovementType {
            name: "large".to_owned(),
            max_slope_deg: 30.0,
            slope_cost: vec![(0.0, 1.0), (5.0, 1.0), (20.0, 10.0), (30.0, 40.0)],
            water: WaterRule::Impassable,
            wall_buffer_m: 1.5,
            blur_radius_m: 4.0,
            blur_strength: 8.0,
            min_island_cells: 0,
        },
    ]
}
