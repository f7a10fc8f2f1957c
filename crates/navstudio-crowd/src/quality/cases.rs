//! The crowd benchmark's built-in cases: small maps drawn in code, each with a scenario of
//! the kind that jams crowds (a door, a head-on swap, crossing streams, the RVO2 circle,
//! mixed radii through narrow gaps, rooms joined by doors, a dense spawn at a choke).
//!
//! Every case map has three movement types, as the default document does: `land`, `hover`
//! (the same walls) and `large` (walls pushed out by the large walker's radius, 2.5 m, so
//! its layer is where its body fits), so the default archetypes — infantry, tank,
//! hovercraft, large walker — all have a layer.

use std::sync::atomic::AtomicBool;

use crate::testing::buffer_walls;
use crate::{Order, Scenario, SimConfig, Spawn, SpawnArea, Vec2, WorldNavigator};
use navstudio_nav::grid::WALL;
use navstudio_nav::{CostField, GridSpec, NavData, NavWorld, build_layer};

/// Wall buffer of the cases' `large` movement type: the default large walker's radius, so
/// the layer closes every gap its body does not fit (the 3 m gap of `mixed_radii`).
/// `[Units: m]`
pub const LARGE_WALL_BUFFER_M: f32 = 2.5;
/// Sector edge of the case maps. `[Units: cells]`
const SECTOR_CELLS: u32 = 16;

/// A map drawn in code: 1 m cells, row-major land costs (255 = wall).
#[derive(Clone, Debug, PartialEq)]
pub struct CaseMap {
    /// Columns. `[Units: cells]`
    pub width: u32,
    /// Rows. `[Units: cells]`
    pub height: u32,
    /// Land costs, row-major.
    pub cells: Vec<u8>,
}

impl CaseMap {
    /// An open map with a wall all round its border.
    #[must_use]
    pub fn walled(width: u32, height: u32) -> Self {
        let mut map = Self {
            width,
            height,
            cells: vec![1; (width * height) as usize],
        };
        map.fill(0, 0, width, 1, WALL);
        map.fill(0, height - 1, width, 1, WALL);
        map.fill(0, 0, 1, height, WALL);
        map.fill(width - 1, 0, 1, height, WALL);
        map
    }

    /// Sets a `w × h` block of cells at `(x, y)` (clipped to the map).
    pub fn fill(&mut self, x: u32, y: u32, w: u32, h: u32, cost: u8) {
        for cy in y..(y + h).min(self.height) {
            for cx in x..(x + w).min(self.width) {
                self.cells[(cy * self.width + cx) as usize] = cost;
            }
        }
    }

    /// The navigator a game would use on this map: `land`, `hover` and `large` layers
    /// through the real run time.
    ///
    /// # Panics
    /// Never for the built-in maps (each is a valid grid); `build_layer` only returns `None`
    /// when cancelled, and nothing cancels it here.
    #[must_use]
    pub fn navigator(&self) -> WorldNavigator {
        let spec = GridSpec {
            width: self.width,
            height: self.height,
            sector_size: SECTOR_CELLS,
        };
        let large = buffer_walls(&self.cells, self.width, self.height, LARGE_WALL_BUFFER_M);
        let cancel = AtomicBool::new(false);
        let layers = [
            ("land", &self.cells),
            ("hover", &self.cells),
            ("large", &large),
        ]
        .into_iter()
        .filter_map(|(name, cells)| {
            build_layer(name, CostField::from_cells(spec, cells), &|_| {}, &cancel)
        })
        .collect();
        let nav = NavData::new(spec, 1.0, layers);
        WorldNavigator::new(NavWorld::from_nav(nav), vec![0.0, 0.0, LARGE_WALL_BUFFER_M])
    }
}

/// One benchmark case: a map and a scenario on it.
#[derive(Clone, Debug)]
pub struct CrowdCase {
    /// Short name, e.g. `bottleneck`.
    pub name: String,
    /// What the case tests, in a few words.
    pub about: String,
    /// The map.
    pub map: CaseMap,
    /// Spawns and orders (its `config` is replaced by the benchmark's mode and settings).
    pub scenario: Scenario,
}

/// The built-in cases at `scale` × their full agent counts (at least 4 agents per group);
/// `scale = 1` gives 100–1,000 agents per case.
#[must_use]
pub fn builtin_cases(scale: f32) -> Vec<CrowdCase> {
    let n = |full: u32| ((full as f32 * scale).round() as u32).max(4);
    vec![
        bottleneck(n(300)),
        head_on(n(120)),
        crossing(n(200)),
        circle(n(100)),
        mixed_radii(n(40), n(150), n(10)),
        rooms(n(200)),
        dense_choke(n(500)),
    ]
}

fn center_spawn(archetype: &str, at: Vec2, count: u32, group: u32) -> Spawn {
    Spawn {
        archetype: archetype.to_owned(),
        area: SpawnArea::Center { center_world: at },
        count,
        group,
    }
}

pub(super) fn rect_spawn(archetype: &str, min: Vec2, max: Vec2, count: u32, group: u32) -> Spawn {
    Spawn {
        archetype: archetype.to_owned(),
        area: SpawnArea::Rect {
            min_world: min,
            max_world: max,
        },
        count,
        group,
    }
}

pub(super) fn order(group: u32, goal: Vec2) -> Order {
    Order {
        group,
        goal_world: goal,
        more_goals_world: Vec::new(),
        at_step: 0,
    }
}

fn scenario(spawns: Vec<Spawn>, orders: Vec<Order>) -> Scenario {
    Scenario {
        seed: 7,
        config: SimConfig::default(),
        spawns,
        orders,
    }
}

/// A room split by a wall with one 4 m door; one group goes through it.
fn bottleneck(agents: u32) -> CrowdCase {
    let mut map = CaseMap::walled(96, 48);
    map.fill(48, 0, 2, 48, WALL);
    map.fill(48, 22, 2, 4, 1);
    CrowdCase {
        name: "bottleneck".into(),
        about: "one group through a 4 m door".into(),
        map,
        scenario: scenario(
            vec![rect_spawn(
                "infantry",
                Vec2::new(8.0, 6.0),
                Vec2::new(36.0, 42.0),
                agents,
                0,
            )],
            vec![order(0, Vec2::new(80.0, 24.0))],
        ),
    }
}

/// A 6 m corridor between two halls; two groups trade ends.
fn head_on(agents: u32) -> CrowdCase {
    let mut map = CaseMap::walled(112, 40);
    // Halls at both ends, the corridor between them.
    map.fill(30, 1, 52, 16, WALL);
    map.fill(30, 23, 52, 16, WALL);
    let half = agents / 2;
    CrowdCase {
        name: "head_on".into(),
        about: "two groups swap ends of a 6 m corridor".into(),
        map,
        scenario: scenario(
            vec![
                rect_spawn(
                    "infantry",
                    Vec2::new(4.0, 6.0),
                    Vec2::new(24.0, 34.0),
                    half,
                    0,
                ),
                rect_spawn(
                    "infantry",
                    Vec2::new(88.0, 6.0),
                    Vec2::new(108.0, 34.0),
                    agents - half,
                    1,
                ),
            ],
            vec![
                order(0, Vec2::new(98.0, 20.0)),
                order(1, Vec2::new(14.0, 20.0)),
            ],
        ),
    }
}

/// Two streams crossing at right angles in an open field.
fn crossing(agents: u32) -> CrowdCase {
    let map = CaseMap::walled(96, 96);
    let half = agents / 2;
    CrowdCase {
        name: "crossing".into(),
        about: "two streams cross at right angles".into(),
        map,
        scenario: scenario(
            vec![
                rect_spawn(
                    "infantry",
                    Vec2::new(4.0, 36.0),
                    Vec2::new(22.0, 60.0),
                    half,
                    0,
                ),
                rect_spawn(
                    "infantry",
                    Vec2::new(36.0, 4.0),
                    Vec2::new(60.0, 22.0),
                    agents - half,
                    1,
                ),
            ],
            vec![
                order(0, Vec2::new(86.0, 48.0)),
                order(1, Vec2::new(48.0, 86.0)),
            ],
        ),
    }
}

/// RVO2's classic: agents on a circle each walk to the opposite point.
fn circle(agents: u32) -> CrowdCase {
    let map = CaseMap::walled(96, 96);
    let center = Vec2::new(48.0, 48.0);
    // About 1.5 m of arc per agent, at least 20 m across.
    let radius = (agents as f32 * 1.5 / std::f32::consts::TAU).max(20.0);
    let mut spawns = Vec::new();
    let mut orders = Vec::new();
    for k in 0..agents {
        let dir = Vec2::from_angle(k as f32 / agents as f32 * std::f32::consts::TAU);
        spawns.push(center_spawn("infantry", center + dir * radius, 1, k));
        orders.push(order(k, center - dir * radius));
    }
    CrowdCase {
        name: "circle".into(),
        about: "each agent to the opposite point of a circle".into(),
        map,
        scenario: scenario(spawns, orders),
    }
}

/// Tanks, infantry and large walkers through a wall with a 3 m and an 8 m gap (only the wide
/// one lets large walkers through).
fn mixed_radii(tanks: u32, infantry: u32, walkers: u32) -> CrowdCase {
    let mut map = CaseMap::walled(112, 64);
    map.fill(56, 0, 2, 64, WALL);
    map.fill(56, 16, 2, 3, 1);
    map.fill(56, 40, 2, 8, 1);
    let (lo, hi) = (Vec2::new(6.0, 6.0), Vec2::new(44.0, 58.0));
    CrowdCase {
        name: "mixed_radii".into(),
        about: "tanks, infantry and large walkers through 3 m and 8 m gaps".into(),
        map,
        scenario: scenario(
            vec![
                rect_spawn("large walker", lo, hi, walkers, 0),
                rect_spawn("tank", lo, hi, tanks, 0),
                rect_spawn("infantry", lo, hi, infantry, 0),
            ],
            vec![order(0, Vec2::new(92.0, 32.0))],
        ),
    }
}

/// Three by three rooms joined by 3 m doors; a group crosses from one corner room to the
/// opposite one.
fn rooms(agents: u32) -> CrowdCase {
    const ROOM: u32 = 24;
    let size = 3 * ROOM + 1;
    let mut map = CaseMap::walled(size, size);
    for k in 1..3 {
        map.fill(k * ROOM, 0, 1, size, WALL);
        map.fill(0, k * ROOM, size, 1, WALL);
    }
    for row in 0..3 {
        for k in 1..3 {
            // A door in each wall segment, off centre so rooms do not line up.
            let along = row * ROOM + 7 + (row + k) % 2 * 10;
            map.fill(k * ROOM, along, 1, 3, 1);
            map.fill(along, k * ROOM, 3, 1, 1);
        }
    }
    CrowdCase {
        name: "rooms".into(),
        about: "3 x 3 rooms joined by 3 m doors, corner to corner".into(),
        map,
        scenario: scenario(
            vec![rect_spawn(
                "infantry",
                Vec2::new(3.0, 3.0),
                Vec2::new(21.0, 21.0),
                agents,
                0,
            )],
            vec![order(0, Vec2::new(60.0, 60.0))],
        ),
    }
}

/// A dense block spawned right against a wall with a 3 m choke.
fn dense_choke(agents: u32) -> CrowdCase {
    let mut map = CaseMap::walled(96, 64);
    map.fill(40, 0, 2, 64, WALL);
    map.fill(40, 30, 2, 3, 1);
    CrowdCase {
        name: "dense_choke".into(),
        about: "a dense block at a wall, out through a 3 m choke".into(),
        map,
        scenario: scenario(
            vec![center_spawn("infantry", Vec2::new(24.0, 32.0), agents, 0)],
            vec![order(0, Vec2::new(76.0, 32.0))],
        ),
    }
}
