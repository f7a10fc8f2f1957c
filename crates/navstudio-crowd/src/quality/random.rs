//! Random crowd cases: instead of a fixed list that steering can be tuned for, cases drawn
//! from families of the kinds that jam crowds, each with random sizes, widths, counts and
//! angles (`navstudio crowd-bench --random N --seed S`).
//!
//! Case `k` of seed `S` is drawn by its own generator (seeded from `S` and `k`), from family
//! `k mod 10`, so a failing case is reproduced by its seed and index alone, and any `N`
//! covers the families evenly. Only feasible cases are kept: every gap a case draws is at
//! least the widest agent's diameter plus half a metre, and a drawn case whose agents do not
//! all spawn, or whose movement types cannot reach their goals, is drawn again.

use navstudio_nav::grid::WALL;
use serde::Serialize;

use super::bound::{Geodesics, lower_bound};
use super::cases::{CaseMap, CrowdCase, order, rect_spawn as rect};
use super::{CaseReport, RunLimit, run_limited};
use crate::rng::{SplitMix64, mix64};
use crate::{
    AgentArchetype, AvoidanceMode, CrowdError, Order, Scenario, SimConfig, Simulation, Spawn,
    SpawnArea, Techniques, Vec2,
};

/// The families, in the order case indices cycle through them.
pub const FAMILIES: [&str; 10] = [
    "door_swap",
    "one_way_gap",
    "crossing",
    "antipodes",
    "mixed_gaps",
    "room_chain",
    "serpentine",
    "pillars",
    "obstacle_field",
    "open_ground",
];

/// Draws before a family gives up on finding a feasible case (never reached in practice:
/// the constructions are feasible by design and the check is a safety net).
const MAX_DRAWS: u32 = 16;

/// A group whose width the benchmark follows across open ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WidthCheck {
    /// The group.
    pub group: u32,
    /// Unit vector of its march. `[Units: m/m]`
    pub along: Vec2,
    /// Its destination. `[Units: m]`
    pub goal: Vec2,
}

/// One drawn case.
#[derive(Clone, Debug)]
pub struct RandomCase {
    /// Its family ([`FAMILIES`]).
    pub family: &'static str,
    /// The seed it was drawn from (0 for a case built directly).
    pub seed: u64,
    /// Index within the draw (with the seed, what reproduces it).
    pub index: u32,
    /// The map and scenario; its name is `family-index`.
    pub case: CrowdCase,
    /// For group moves across open ground: the group whose width is measured.
    pub width: Option<WidthCheck>,
}

/// `count` random cases from `seed`, agent counts at `scale` × their drawn values (at
/// least 4 per group).
#[must_use]
pub fn random_cases(
    count: u32,
    seed: u64,
    scale: f32,
    archetypes: &[AgentArchetype],
) -> Vec<RandomCase> {
    (0..count)
        .map(|k| random_case(seed, k, scale, archetypes))
        .collect()
}

/// Case `index` of `seed` (as [`random_cases`] draws it).
#[must_use]
pub fn random_case(seed: u64, index: u32, scale: f32, archetypes: &[AgentArchetype]) -> RandomCase {
    let family = FAMILIES[index as usize % FAMILIES.len()];
    let mut last = None;
    for draw in 0..MAX_DRAWS {
        let mut rng = SplitMix64::new(mix64(seed ^ mix64(u64::from(index) << 8 | u64::from(draw))));
        let mut g = Draw {
            rng: &mut rng,
            scale,
        };
        let (map, spawns, orders, width) = match family {
            "door_swap" => g.door_swap(),
            "one_way_gap" => g.one_way_gap(),
            "crossing" => g.crossing(),
            "antipodes" => g.antipodes(),
            "mixed_gaps" => g.mixed_gaps(),
            "room_chain" => g.room_chain(),
            "serpentine" => g.serpentine(),
            "pillars" => g.pillars(),
            "obstacle_field" => g.obstacle_field(),
            _ => g.open_ground(),
        };
        let case = CrowdCase {
            name: format!("{family}-{index}"),
            about: format!("random {family}, seed {seed}, case {index}"),
            map,
            scenario: Scenario {
                seed: mix64(seed ^ u64::from(index)),
                config: SimConfig::default(),
                spawns,
                orders,
            },
        };
        let drawn = RandomCase {
            family,
            seed,
            index,
            case,
            width,
        };
        if is_feasible(&drawn.case, archetypes) {
            return drawn;
        }
        last = Some(drawn);
    }
    last.expect("MAX_DRAWS > 0")
}

/// Whether every agent of the case spawns clear of every other and its movement type
/// reaches its goal. (A spawn area too full places the rest pressed into each other, an
/// overlap the benchmark would count against the steering.)
#[must_use]
pub fn is_feasible(case: &CrowdCase, archetypes: &[AgentArchetype]) -> bool {
    let mut nav = case.map.navigator();
    let Ok(mut sim) = Simulation::from_scenario(&case.scenario, archetypes, &nav) else {
        return false;
    };
    let wanted: u32 = case.scenario.spawns.iter().map(|s| s.count).sum();
    if sim.agents().len() as u32 != wanted || sim.agents().pressed_count(0..wanted as usize) > 0 {
        return false;
    }
    let starts = sim.agents().pos_world.clone();
    sim.step(&mut nav);
    let mut geodesics = Geodesics::new(&nav);
    let (_, shortest) = lower_bound(&sim, &nav, &starts, &mut geodesics);
    shortest.iter().all(Option::is_some)
}

type Drawn = (CaseMap, Vec<Spawn>, Vec<Order>, Option<WidthCheck>);

struct Draw<'a> {
    rng: &'a mut SplitMix64,
    scale: f32,
}

fn rect_for(count: u32, depth: f32) -> f32 {
    (count as f32 * 2.5 / depth).max(4.0)
}

/// At most as many agents as a spawn rectangle of `area_m2` holds at [`rect_for`]'s
/// 2.5 m² each (at least 4): random placement jams at about half the area covered, and
/// the agents it cannot place apart start pressed into each other, an overlap no
/// steering made.
fn fitting(count: u32, area_m2: f32) -> u32 {
    count.min((area_m2 / 2.5) as u32).max(4)
}

impl Draw<'_> {
    /// An integer in `lo..=hi`.
    fn int(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.rng.next_u64() % u64::from(hi - lo + 1)) as u32
    }

    fn real(&mut self, lo: f32, hi: f32) -> f32 {
        self.rng.range_f32(lo, hi)
    }

    /// A drawn agent count at the benchmark's scale.
    fn agents(&mut self, lo: u32, hi: u32) -> u32 {
        ((self.int(lo, hi) as f32 * self.scale).round() as u32).max(4)
    }

    /// Two groups swap the rooms either side of a wall through one door 2–6 m wide.
    fn door_swap(&mut self) -> Drawn {
        let per_side = self.agents(20, 200);
        let door = self.int(2, 6);
        let along = self.real(0.0, 1.0);
        door_swap_parts(per_side, door, along)
    }

    /// One group through a gap 2–8 m wide in a wall at a random slant of the room.
    fn one_way_gap(&mut self) -> Drawn {
        let n = self.agents(40, 300);
        let gap = self.int(2, 8);
        let h = 56;
        let spawn_w = rect_for(n, 40.0).ceil() as u32 + 4;
        let wall_x = spawn_w + 8;
        let w = wall_x + 40;
        let mut map = CaseMap::walled(w, h);
        map.fill(wall_x, 0, 2, h, WALL);
        let at = self.int(4, h - 4 - gap);
        map.fill(wall_x, at, 2, gap, 1);
        let goal = Vec2::new(wall_x as f32 + self.real(15.0, 34.0), self.real(10.0, 46.0));
        (
            map,
            vec![rect(
                "infantry",
                Vec2::new(3.0, 6.0),
                Vec2::new(3.0 + spawn_w as f32, 50.0),
                n,
                0,
            )],
            vec![order(0, goal)],
            None,
        )
    }

    /// Two streams crossing in open ground at 30–150°.
    fn crossing(&mut self) -> Drawn {
        let size = 110;
        let map = CaseMap::walled(size, size);
        let c = Vec2::new(size as f32 / 2.0, size as f32 / 2.0);
        let base = self.real(0.0, std::f32::consts::TAU);
        let angle = self.real(30f32.to_radians(), 150f32.to_radians());
        let mut spawns = Vec::new();
        let mut orders = Vec::new();
        for (g, a) in [base, base + angle].into_iter().enumerate() {
            let n = self.agents(30, 150);
            let d = Vec2::from_angle(a);
            let half = (n as f32 * 2.5).sqrt() / 2.0 + 1.0;
            let from = c - d * 38.0;
            spawns.push(rect(
                "infantry",
                from - Vec2::new(half, half),
                from + Vec2::new(half, half),
                n,
                g as u32,
            ));
            orders.push(order(g as u32, c + d * 40.0));
        }
        (map, spawns, orders, None)
    }

    /// RVO2's circle (each agent to the antipode, or eight groups to theirs) or its Blocks
    /// (four corner groups to the opposite corners between four blocks).
    fn antipodes(&mut self) -> Drawn {
        let variant = self.int(0, 2);
        if variant == 2 {
            // RVO2's circle as the issue ran it: eight groups on a circle, each to the
            // antipode.
            let per = self.agents(6, 30);
            let map = CaseMap::walled(100, 100);
            let c = Vec2::new(50.0, 50.0);
            let radius = self.real(28.0, 40.0);
            let turn = self.real(0.0, std::f32::consts::TAU);
            let mut spawns = Vec::new();
            let mut orders = Vec::new();
            for k in 0..8u32 {
                let dir = Vec2::from_angle(turn + k as f32 / 8.0 * std::f32::consts::TAU);
                spawns.push(Spawn {
                    archetype: "infantry".into(),
                    area: SpawnArea::Center {
                        center_world: c + dir * radius,
                    },
                    count: per,
                    group: k,
                });
                orders.push(order(k, c - dir * radius));
            }
            (map, spawns, orders, None)
        } else if variant == 0 {
            let n = self.agents(20, 120);
            let map = CaseMap::walled(100, 100);
            let c = Vec2::new(50.0, 50.0);
            let radius = (n as f32 * 1.5 / std::f32::consts::TAU).clamp(12.0, 44.0);
            let turn = self.real(0.0, std::f32::consts::TAU);
            let mut spawns = Vec::new();
            let mut orders = Vec::new();
            for k in 0..n {
                let dir = Vec2::from_angle(turn + k as f32 / n as f32 * std::f32::consts::TAU);
                spawns.push(Spawn {
                    archetype: "infantry".into(),
                    area: SpawnArea::Center {
                        center_world: c + dir * radius,
                    },
                    count: 1,
                    group: k,
                });
                orders.push(order(k, c - dir * radius));
            }
            (map, spawns, orders, None)
        } else {
            let per = self.agents(10, 40);
            let map_size = 100;
            let mut map = CaseMap::walled(map_size, map_size);
            let block = self.int(6, 12);
            let spread = self.int(14, 20);
            let c = map_size / 2;
            for (sx, sy) in [(-1i32, -1i32), (1, -1), (-1, 1), (1, 1)] {
                let x = (c as i32 + sx * spread as i32 - block as i32 / 2) as u32;
                let y = (c as i32 + sy * spread as i32 - block as i32 / 2) as u32;
                map.fill(x, y, block, block, WALL);
            }
            let mut spawns = Vec::new();
            let mut orders = Vec::new();
            let half = (per as f32 * 2.5).sqrt() / 2.0 + 1.0;
            for (g, (sx, sy)) in [(-1.0f32, -1.0f32), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
                .into_iter()
                .enumerate()
            {
                let corner = Vec2::new(50.0 + sx * 38.0, 50.0 + sy * 38.0);
                let opposite = Vec2::new(50.0 - sx * 38.0, 50.0 - sy * 38.0);
                spawns.push(rect(
                    "infantry",
                    corner - Vec2::new(half, half),
                    corner + Vec2::new(half, half),
                    per,
                    g as u32,
                ));
                orders.push(order(g as u32, opposite));
            }
            (map, spawns, orders, None)
        }
    }

    /// Tanks, infantry and (sometimes) large walkers through a wall with a narrow gap that
    /// fits tanks (3–5 m) and a wide one that fits walkers (8–11 m).
    fn mixed_gaps(&mut self) -> Drawn {
        let tanks = self.agents(5, 40);
        let infantry = self.agents(30, 150);
        let walkers = if self.int(0, 1) == 0 {
            0
        } else {
            self.agents(2, 10)
        };
        let (w, h) = (110, 64);
        let mut map = CaseMap::walled(w, h);
        map.fill(55, 0, 2, h, WALL);
        let narrow = self.int(3, 5);
        let wide = self.int(8, 11);
        let (a, b) = if self.int(0, 1) == 0 {
            (self.int(6, 20), self.int(36, 50))
        } else {
            (self.int(40, 56), self.int(6, 20))
        };
        map.fill(55, a, 2, narrow, 1);
        map.fill(55, b, 2, wide, 1);
        let (lo, hi) = (Vec2::new(6.0, 6.0), Vec2::new(44.0, 58.0));
        let mut spawns = vec![
            rect("tank", lo, hi, tanks, 0),
            rect("infantry", lo, hi, infantry, 0),
        ];
        if walkers > 0 {
            spawns.insert(0, rect("large walker", lo, hi, walkers, 0));
        }
        let goal = Vec2::new(self.real(80.0, 96.0), self.real(20.0, 44.0));
        (map, spawns, vec![order(0, goal)], None)
    }

    /// Two to five rooms in a row joined by doors 2–5 m wide at random places.
    fn room_chain(&mut self) -> Drawn {
        let rooms = self.int(2, 5);
        let n = self.agents(30, 200);
        let room_w = self.int(16, 26);
        let h = self.int(20, 36);
        let n = fitting(n, (room_w as f32 - 4.0) * (h as f32 - 5.0));
        let w = rooms * room_w + 1;
        let mut map = CaseMap::walled(w, h);
        for k in 1..rooms {
            let x = k * room_w;
            map.fill(x, 0, 1, h, WALL);
            let door = self.int(2, 5);
            let at = self.int(2, h - 2 - door);
            map.fill(x, at, 1, door, 1);
        }
        let far = (w - room_w / 2) as f32;
        (
            map,
            vec![rect(
                "infantry",
                Vec2::new(2.5, 2.5),
                Vec2::new(room_w as f32 - 1.5, h as f32 - 2.5),
                n,
                0,
            )],
            vec![order(0, Vec2::new(far, h as f32 / 2.0))],
            None,
        )
    }

    /// A corridor 3–8 m wide winding back and forth two to five times.
    fn serpentine(&mut self) -> Drawn {
        let lanes = self.int(3, 6);
        let width = self.int(3, 8);
        let n = self.agents(30, 150);
        let run = self.int(40, 70);
        let h = lanes * (width + 1) + 1;
        let w = run + 2 * width + 2;
        let mut map = CaseMap::walled(w, h);
        for k in 1..lanes {
            let y = k * (width + 1);
            // Inner walls leave the turn at alternate ends.
            if k % 2 == 1 {
                map.fill(0, y, w - width - 1, 1, WALL);
            } else {
                map.fill(width + 1, y, w - width - 1, 1, WALL);
            }
        }
        let start_hi = Vec2::new((w - width - 2) as f32, width as f32 + 0.5);
        let n = fitting(n, (start_hi.x - 1.5) * (start_hi.y - 1.5));
        let end_y = (h - 1 - width) as f32 + width as f32 / 2.0;
        let goal_x = if lanes % 2 == 1 { (w - 4) as f32 } else { 4.0 };
        (
            map,
            vec![rect("infantry", Vec2::new(1.5, 1.5), start_hi, n, 0)],
            vec![order(0, Vec2::new(goal_x, end_y))],
            None,
        )
    }

    /// A corridor 8–16 m wide with square pillars and round obstacles; one group, or two
    /// from opposite ends.
    fn pillars(&mut self) -> Drawn {
        let corridor = self.int(8, 16);
        let len = self.int(70, 110);
        let (w, h) = (len, corridor + 2);
        let mut map = CaseMap::walled(w, h);
        let count = self.int(3, 10);
        for _ in 0..count {
            let size = self.int(1, 4).min(corridor - 4);
            let x = self.int(20, len - 22);
            // Keep at least 2 m free on one side of every pillar.
            let y = self.int(1, corridor + 1 - size);
            if self.int(0, 1) == 0 {
                map.fill(x, y, size, size, WALL);
            } else {
                let c = Vec2::new(x as f32 + 0.5 * size as f32, y as f32 + 0.5 * size as f32);
                let r = 0.5 * size as f32 + 0.5;
                for cy in y.saturating_sub(1)..y + size + 1 {
                    for cx in x.saturating_sub(1)..x + size + 1 {
                        let d = Vec2::new(cx as f32 + 0.5, cy as f32 + 0.5) - c;
                        if d.length() <= r && cy >= 1 && cy <= corridor {
                            map.fill(cx, cy, 1, 1, WALL);
                        }
                    }
                }
            }
        }
        // No pillar may close the corridor: keep a free lane along one wall or the other.
        let lane_row = if self.int(0, 1) == 0 { 1 } else { corridor - 1 };
        map.fill(1, lane_row, w - 2, 2, 1);
        let two_way = self.int(0, 1) == 1;
        let (y0, y1) = (1.5, h as f32 - 1.5);
        let spawn_area = (16.0 - 1.5) * (y1 - y0);
        let n = fitting(self.agents(30, 150), spawn_area);
        let mut spawns = vec![rect(
            "infantry",
            Vec2::new(1.5, y0),
            Vec2::new(16.0, y1),
            n,
            0,
        )];
        let mut orders = vec![order(0, Vec2::new(w as f32 - 8.0, h as f32 / 2.0))];
        if two_way {
            let m = fitting(self.agents(30, 150), spawn_area);
            spawns.push(rect(
                "infantry",
                Vec2::new(w as f32 - 16.0, y0),
                Vec2::new(w as f32 - 1.5, y1),
                m,
                1,
            ));
            orders.push(order(1, Vec2::new(8.0, h as f32 / 2.0)));
        }
        (map, spawns, orders, None)
    }

    /// Open ground strewn with random blocks (5–15 % of the middle); two groups cross it.
    fn obstacle_field(&mut self) -> Drawn {
        let size = 96;
        let mut map = CaseMap::walled(size, size);
        let density = self.real(0.05, 0.15);
        let area = (size - 40) * (size - 40);
        let mut covered = 0.0;
        while covered < density * area as f32 {
            let (bw, bh) = (self.int(1, 4), self.int(1, 4));
            let (x, y) = (self.int(20, size - 24), self.int(20, size - 24));
            map.fill(x, y, bw, bh, WALL);
            covered += (bw * bh) as f32;
        }
        let n0 = self.agents(30, 120);
        let n1 = self.agents(30, 120);
        let vertical = self.int(0, 1) == 1;
        let (a_lo, a_hi, a_goal, b_lo, b_hi, b_goal) = if vertical {
            (
                Vec2::new(30.0, 3.0),
                Vec2::new(66.0, 16.0),
                Vec2::new(48.0, 88.0),
                Vec2::new(3.0, 30.0),
                Vec2::new(16.0, 66.0),
                Vec2::new(88.0, 48.0),
            )
        } else {
            (
                Vec2::new(3.0, 30.0),
                Vec2::new(16.0, 66.0),
                Vec2::new(88.0, 48.0),
                Vec2::new(80.0, 30.0),
                Vec2::new(93.0, 66.0),
                Vec2::new(8.0, 48.0),
            )
        };
        (
            map,
            vec![
                rect("infantry", a_lo, a_hi, n0, 0),
                rect("infantry", b_lo, b_hi, n1, 1),
            ],
            vec![order(0, a_goal), order(1, b_goal)],
            None,
        )
    }

    /// One group 15–30 m wide marching 60–90 m across open ground; its width is measured.
    fn open_ground(&mut self) -> Drawn {
        let n = self.agents(50, 200);
        let width = self.real(15.0, 30.0);
        let march = self.real(60.0, 90.0);
        open_ground_parts(n, width, march)
    }
}

/// `count` infantry in a block `width_m` wide march `march_m` across open ground: the
/// open-ground family's case, with the group whose width is measured.
#[must_use]
pub fn open_ground_case(count: u32, width_m: f32, march_m: f32) -> RandomCase {
    let (map, spawns, orders, width) = open_ground_parts(count, width_m, march_m);
    RandomCase {
        family: "open_ground",
        seed: 0,
        index: 0,
        case: CrowdCase {
            name: format!("open_ground_{count}"),
            about: format!("{count} infantry {width_m} m abreast march {march_m} m"),
            map,
            scenario: Scenario {
                seed: 1,
                config: SimConfig::default(),
                spawns,
                orders,
            },
        },
        width,
    }
}

fn open_ground_parts(n: u32, width: f32, march: f32) -> Drawn {
    let depth = (n as f32 * 2.5 / width).max(3.0);
    let (w, h) = ((march + depth + 30.0) as u32, (width + 30.0) as u32);
    let map = CaseMap::walled(w, h);
    let y = h as f32 / 2.0;
    let x0 = 6.0;
    let goal = Vec2::new(x0 + depth / 2.0 + march, y);
    (
        map,
        vec![rect(
            "infantry",
            Vec2::new(x0, y - width / 2.0),
            Vec2::new(x0 + depth, y + width / 2.0),
            n,
            0,
        )],
        vec![order(0, goal)],
        Some(WidthCheck {
            group: 0,
            along: Vec2::new(1.0, 0.0),
            goal,
        }),
    )
}

/// Two groups of `per_side` infantry swap the rooms either side of a wall through one door
/// `door_m` wide, `along` (0–1) of the way down the wall: the door-swap family's case.
#[must_use]
pub fn door_swap_case(per_side: u32, door_m: u32, along: f32, seed: u64) -> CrowdCase {
    let (map, spawns, orders, _) = door_swap_parts(per_side, door_m, along);
    CrowdCase {
        name: format!("door_swap_{door_m}m"),
        about: format!("{per_side} infantry a side swap rooms through a {door_m} m door"),
        map,
        scenario: Scenario {
            seed,
            config: SimConfig::default(),
            spawns,
            orders,
        },
    }
}

fn door_swap_parts(per_side: u32, door: u32, along: f32) -> Drawn {
    let room = (rect_for(per_side, 16.0) / 2.0).ceil() as u32 + 10;
    let (w, h) = (2 * room + 2, 48.max(24 + door));
    let mut map = CaseMap::walled(w, h);
    map.fill(room, 0, 2, h, WALL);
    let at = 6 + ((h - 12 - door) as f32 * along.clamp(0.0, 1.0)).round() as u32;
    map.fill(room, at, 2, door, 1);
    let depth = (room as f32 - 8.0).max(6.0);
    let y_lo = 3.0;
    let y_hi = h as f32 - 3.0;
    let left = (Vec2::new(3.0, y_lo), Vec2::new(3.0 + depth, y_hi));
    let right = (
        Vec2::new(w as f32 - 3.0 - depth, y_lo),
        Vec2::new(w as f32 - 3.0, y_hi),
    );
    let mid = |r: (Vec2, Vec2)| (r.0 + r.1) * 0.5;
    (
        map,
        vec![
            rect("infantry", left.0, left.1, per_side, 0),
            rect("infantry", right.0, right.1, per_side, 1),
        ],
        vec![order(0, mid(right)), order(1, mid(left))],
        None,
    )
}

/// Width of a group across its march: the spread between the 5th and 95th percentile of
/// its members' offsets across `along`, over members still travelling. `None` with fewer
/// than four. `[Units: m]`
#[must_use]
pub fn group_width(sim: &Simulation, check: &WidthCheck) -> Option<f32> {
    let a = sim.agents();
    let across = check.along.perp();
    let mut offsets: Vec<f32> = (0..a.len())
        .filter(|&i| a.group[i] == check.group)
        .map(|i| a.pos_world[i].dot(across))
        .collect();
    if offsets.len() < 4 {
        return None;
    }
    offsets.sort_by(f32::total_cmp);
    let at = |q: f32| offsets[((offsets.len() - 1) as f32 * q).round() as usize];
    Some(at(0.95) - at(0.05))
}

/// The random benchmark's runs end at 5 × the bound: everyone must be home by then.
pub const RANDOM_LIMIT: RunLimit = RunLimit {
    bound_factor: 5.0,
    grace_secs: 0.0,
};

/// One random case in one mode.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RandomRow {
    /// Its family.
    pub family: String,
    /// The seed its case was drawn from.
    pub seed: u64,
    /// Its index in the draw.
    pub index: u32,
    /// The benchmark row (its `case` is `family-index`).
    pub report: CaseReport,
    /// For open-ground marches: the narrowest the group became before reaching the goal
    /// area, as a share of its starting width. `[Units: %]`
    pub width_kept_pct: Option<f64>,
}

impl RandomRow {
    /// Everyone home and nobody stuck at the end of the run (5 × the bound), overlap mean
    /// ≤ 5 % and max ≤ 30 %, and no wall penetration.
    #[must_use]
    pub fn all_home(&self) -> bool {
        self.report.meets(RANDOM_LIMIT.bound_factor)
    }

    /// As [`Self::all_home`], everyone home within `ratio` × the bound.
    #[must_use]
    pub fn within(&self, ratio: f64) -> bool {
        self.report.meets(ratio)
    }
}

/// Plays `case` in `mode` with `techniques` until everyone is home or 5 × the bound.
///
/// # Errors
/// As [`super::run`].
pub fn run_random(
    case: &RandomCase,
    mode: AvoidanceMode,
    techniques: Techniques,
    archetypes: &[AgentArchetype],
) -> Result<RandomRow, CrowdError> {
    let config = SimConfig {
        avoidance: mode,
        techniques,
        ..SimConfig::default()
    };
    run_random_watched(case, &config, archetypes, &mut |_, _| {})
}

/// As [`run_random`], calling `watch(simulation, navigator)` after every step (to draw
/// frames).
///
/// # Errors
/// As [`super::run`].
pub fn run_random_watched(
    case: &RandomCase,
    config: &SimConfig,
    archetypes: &[AgentArchetype],
    frames: &mut dyn FnMut(&Simulation, &crate::WorldNavigator),
) -> Result<RandomRow, CrowdError> {
    let mut scenario = case.case.scenario.clone();
    scenario.config = config.clone();
    let mut nav = case.case.map.navigator();
    let mut start_width = None;
    let mut narrowest: Option<f32> = None;
    let mut watch = |sim: &Simulation, nav: &crate::WorldNavigator| {
        frames(sim, nav);
        let Some(check) = &case.width else {
            return;
        };
        let Some(width) = group_width(sim, check) else {
            return;
        };
        let start = *start_width.get_or_insert(width);
        // The goal area: within the group's starting half-width of the goal, it may close up.
        if group_distance(sim, check) > 0.5 * start && start > 0.0 {
            narrowest = Some(narrowest.map_or(width / start, |n: f32| n.min(width / start)));
        }
    };
    let report = run_limited(
        &case.case.name,
        &scenario,
        archetypes,
        &mut nav,
        RANDOM_LIMIT,
        &mut watch,
    )?;
    Ok(RandomRow {
        family: case.family.to_owned(),
        seed: case.seed,
        index: case.index,
        report,
        width_kept_pct: narrowest.map(|n| 100.0 * f64::from(n)),
    })
}

/// Distance from the group's mean position to its goal along its march. `[Units: m]`
fn group_distance(sim: &Simulation, check: &WidthCheck) -> f32 {
    let a = sim.agents();
    let (mut sum, mut n) = (0.0f32, 0u32);
    for i in 0..a.len() {
        if a.group[i] == check.group {
            sum += (check.goal - a.pos_world[i]).dot(check.along);
            n += 1;
        }
    }
    if n == 0 { 0.0 } else { sum / n as f32 }
}

/// One family in one mode, over all its cases.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FamilySummary {
    /// The family.
    pub family: String,
    /// The avoidance mode.
    pub mode: String,
    /// Cases run.
    pub cases: u32,
    /// Cases with everyone home at 5 × the bound, nobody stuck, overlap and walls clean.
    pub all_home: u32,
    /// As `all_home`, everyone home within 2 × the bound.
    pub within_2x: u32,
    /// As `all_home`, everyone home within 3 × the bound.
    pub within_3x: u32,
    /// Agents stuck at the end, summed over the cases.
    pub stuck: u32,
    /// Agents not home at the end, summed over the cases.
    pub not_home: u32,
    /// Worst case's mean overlap. `[Units: %]`
    pub overlap_mean_pct: f64,
    /// Deepest overlap of any case. `[Units: %]`
    pub overlap_max_pct: f64,
    /// Wall penetrations, summed.
    pub wall_penetrations: u64,
    /// Worst case's x100 (all home ÷ bound; `None` when some case never got all home).
    pub worst_ratio: Option<f64>,
    /// Narrowest kept width of any open-ground march. `[Units: %]`
    pub width_kept_pct: Option<f64>,
    /// The random benchmark's targets, met by this family in this mode
    /// ([`meets_family_targets`]).
    pub meets_targets: bool,
}

/// The random benchmark's targets for one family in one mode: every case clean at 5 × the
/// bound (everyone home, nobody stuck, overlap mean ≤ 5 % and max ≤ 30 %, no wall
/// penetration), at least 95 % of the cases within 2 × the bound and 99 % within 3 ×.
#[must_use]
pub fn meets_family_targets(cases: u32, all_home: u32, within_2x: u32, within_3x: u32) -> bool {
    let share = |n: u32, pct: u64| u64::from(n) * 100 >= pct * u64::from(cases);
    cases > 0 && all_home == cases && share(within_2x, 95) && share(within_3x, 99)
}

/// Rows grouped by family and mode, families in [`FAMILIES`] order.
#[must_use]
pub fn summarise(rows: &[RandomRow]) -> Vec<FamilySummary> {
    let mut out = Vec::new();
    for family in FAMILIES {
        for mode in ["boids", "orca", "context"] {
            let mine: Vec<&RandomRow> = rows
                .iter()
                .filter(|r| r.family == family && r.report.mode == mode)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let count =
                |f: &dyn Fn(&RandomRow) -> bool| mine.iter().filter(|r| f(r)).count() as u32;
            let worst_ratio = mine.iter().try_fold(0.0f64, |w, r| {
                (r.report.arrived_pct >= 100.0)
                    .then_some(r.report.ratio100)
                    .flatten()
                    .map(|x| w.max(x))
            });
            let (cases, all_home) = (mine.len() as u32, count(&RandomRow::all_home));
            let (within_2x, within_3x) = (count(&|r| r.within(2.0)), count(&|r| r.within(3.0)));
            out.push(FamilySummary {
                family: family.to_owned(),
                mode: mode.to_owned(),
                cases,
                all_home,
                within_2x,
                within_3x,
                meets_targets: meets_family_targets(cases, all_home, within_2x, within_3x),
                stuck: mine.iter().map(|r| r.report.stuck).sum(),
                not_home: mine
                    .iter()
                    .map(|r| {
                        let home = (r.report.arrived_pct / 100.0 * f64::from(r.report.agents))
                            .round() as u32;
                        r.report.agents.saturating_sub(home)
                    })
                    .sum(),
                overlap_mean_pct: mine
                    .iter()
                    .map(|r| r.report.overlap_mean_pct)
                    .fold(0.0, f64::max),
                overlap_max_pct: mine
                    .iter()
                    .map(|r| r.report.overlap_max_pct)
                    .fold(0.0, f64::max),
                wall_penetrations: mine.iter().map(|r| r.report.wall_penetrations).sum(),
                worst_ratio,
                width_kept_pct: mine
                    .iter()
                    .filter_map(|r| r.width_kept_pct)
                    .reduce(f64::min),
            });
        }
    }
    out
}

/// The header matching [`summary_row`].
#[must_use]
pub fn summary_header() -> String {
    format!(
        "{:<15} {:<8} {:>5} {:>6} {:>6} {:>6} {:>6} {:>8} {:>7} {:>7} {:>5} {:>7} {:>7} {:>7}",
        "family",
        "mode",
        "cases",
        "home",
        "<=2x",
        "<=3x",
        "stuck",
        "not home",
        "ovl avg",
        "ovl max",
        "wall",
        "worst x",
        "width %",
        "targets"
    )
}

/// One family summary as a fixed-width row (`home`, `<=2x` and `<=3x` count cases).
#[must_use]
pub fn summary_row(s: &FamilySummary) -> String {
    let opt = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.2}"));
    format!(
        "{:<15} {:<8} {:>5} {:>6} {:>6} {:>6} {:>6} {:>8} {:>6.1}% {:>6.1}% {:>5} {:>7} {:>7} {:>7}",
        s.family,
        s.mode,
        s.cases,
        s.all_home,
        s.within_2x,
        s.within_3x,
        s.stuck,
        s.not_home,
        s.overlap_mean_pct,
        s.overlap_max_pct,
        s.wall_penetrations,
        opt(s.worst_ratio),
        s.width_kept_pct
            .map_or_else(|| "—".to_owned(), |w| format!("{w:.0}")),
        if s.meets_targets { "met" } else { "MISSED" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand counts: of 120 cases, 6 over 2 × is 95 % within (met), 7 is not; one case
    /// over 3 × is 99.2 % within (met), two is 98.3 % (not); one case not clean at 5 × the
    /// bound misses whatever the rest.
    #[test]
    fn a_family_meets_its_targets_at_95_percent_within_2x_and_99_within_3x() {
        assert!(meets_family_targets(120, 120, 114, 119));
        assert!(!meets_family_targets(120, 120, 113, 120));
        assert!(!meets_family_targets(120, 120, 120, 118));
        assert!(!meets_family_targets(120, 119, 119, 119));
        assert!(meets_family_targets(30, 30, 29, 30));
        assert!(!meets_family_targets(30, 30, 29, 29));
        assert!(!meets_family_targets(0, 0, 0, 0));
    }

    /// 90 infantry from a room into a dead-end corridor 3 m wide and 50 m long, the goal
    /// at its end: the group fills some 20 m of it, beyond the reach of a group of that
    /// size in open ground (2 × 4.3 m). The tail must arrive by touching the group, not
    /// press into its arrived end: everyone home within 1.25 × the bound, overlap mean
    /// ≤ 5 % and max ≤ 30 %, in every mode (0.63–0.78 ×; with the open-ground reach
    /// 1.40–2.02 ×, overlap mean up to 5.7 %).
    #[test]
    fn a_group_sent_into_a_dead_end_corridor_all_arrive_uncrushed() {
        let mut map = CaseMap::walled(74, 24);
        map.fill(1, 1, 50, 9, WALL);
        map.fill(1, 13, 50, 10, WALL);
        let case = RandomCase {
            family: "serpentine",
            seed: 0,
            index: 0,
            case: CrowdCase {
                name: "dead_end".to_owned(),
                about: "90 infantry into a dead-end corridor".to_owned(),
                map,
                scenario: Scenario {
                    seed: 5,
                    config: SimConfig::default(),
                    spawns: vec![rect(
                        "infantry",
                        Vec2::new(53.0, 2.0),
                        Vec2::new(72.0, 22.0),
                        90,
                        0,
                    )],
                    orders: vec![order(0, Vec2::new(2.5, 11.5))],
                },
            },
            width: None,
        };
        let archetypes = crate::default_archetypes();
        for mode in [
            AvoidanceMode::Boids,
            AvoidanceMode::Orca,
            AvoidanceMode::Context,
        ] {
            let row = run_random(&case, mode, Techniques::default(), &archetypes)
                .expect("the dead end runs");
            let r = &row.report;
            eprintln!("{}", super::super::table_row(r));
            assert!(r.meets(1.25), "{mode:?}: {}", super::super::table_row(r));
        }
    }

    /// Case 177 of seed 1201 (pillars; 116 infantry in two groups from the ends of a
    /// corridor): the queue behind pressed two agents into a pillar's corner, where only
    /// the free side can give way, 30.4 % (boids) and 31.4 % (ORCA) of a radius deep after
    /// three position passes. Passes go on for the agents still deeper than the hard share:
    /// everyone home within 2 × the bound and the deepest overlap ≤ 30 % (27.7 and 26.3 %).
    #[test]
    fn a_queue_pressed_into_a_pillar_corner_stays_within_the_overlap_limit() {
        drawn_case_meets_2x(
            1201,
            177,
            "pillars-177",
            &[AvoidanceMode::Boids, AvoidanceMode::Orca],
        );
    }

    /// Seed 4477's pillars-87 in context steering: two agents pressed into a wall corner
    /// by each other, one sliding along each wall into the other (31.2 %). The contact
    /// rule's ORCA answered the neighbour by a velocity into the wall, which the move slid
    /// along it into the neighbour; the wall it stands against is now a hard line.
    #[test]
    fn two_agents_in_a_wall_corner_do_not_slide_into_each_other() {
        drawn_case_meets_2x(4477, 87, "pillars-87", &[AvoidanceMode::Context]);
    }

    /// Seed 4477's field of blocks held one agent of 175 for good (not home at 5 × the
    /// bound, boids): beside a block, two cells whose flow left upward by the way in, and
    /// the look-ahead from the cell above steered down through them. The look-ahead now
    /// keeps off lines that a cell's flow leads back along.
    #[test]
    fn an_agent_beside_a_pocket_of_backward_flow_comes_home() {
        drawn_case_meets_2x(4477, 248, "obstacle_field-248", &[AvoidanceMode::Boids]);
    }

    /// Seed 8123's antipodes of 224 agents in ORCA took 2.24 × the bound: a big group
    /// streaming past carried a straggler of another group off with it for seconds, each
    /// of them taking half of avoiding it. Agents that wait weigh more the longer they
    /// wait ([`crate::resolve::DELAYED_FACTOR`]), and the stream gives way.
    #[test]
    fn a_straggler_is_not_carried_off_by_another_groups_stream() {
        drawn_case_meets_2x(8123, 193, "antipodes-193", &[AvoidanceMode::Orca]);
    }

    /// Seed 1's mixed_gaps-14 in ORCA (delays weighed): a large walker whose body touched
    /// the wide gap's jamb was stalled there for good, its stuck recovery backing it off
    /// up the wall and the flow leading it in again. The recovery goes round the jamb
    /// (`a_stalled_agent_at_a_corner_goes_round_it_not_back`), and it is home in 1.31 ×.
    #[test]
    fn a_walker_stalled_at_a_gaps_jamb_goes_round_it() {
        drawn_case_meets_2x(1, 14, "mixed_gaps-14", &[AvoidanceMode::Orca]);
    }

    /// Case `index` of `seed` (named `name`) in each of `modes`: everyone home within 2 ×
    /// the bound, nobody stuck, overlaps and walls within the limits.
    fn drawn_case_meets_2x(seed: u64, index: u32, name: &str, modes: &[AvoidanceMode]) {
        let archetypes = crate::default_archetypes();
        let case = random_case(seed, index, 1.0, &archetypes);
        assert_eq!(case.case.name, name);
        for &mode in modes {
            let row =
                run_random(&case, mode, Techniques::default(), &archetypes).expect("the case runs");
            let r = &row.report;
            eprintln!("{}", super::super::table_row(r));
            assert!(r.meets(2.0), "{mode:?}: {}", super::super::table_row(r));
        }
    }

    /// A sparse block 28 m wide across three rows of sectors (70 infantry, 74 m march):
    /// the route runs through the middle row, and each member following the flow at its
    /// own place was led by the outer rows' flow toward the middle row's portals, the
    /// block funnelling to 58 % of its width (boids). Following the flow at its
    /// place in the group's centre (its lane offset back), it keeps at least 65 %, and
    /// everyone is home within 1.2 × the bound.
    #[test]
    fn a_sparse_wide_block_keeps_its_width_across_the_routes_sectors() {
        let case = open_ground_case(70, 28.0, 74.0);
        let archetypes = crate::default_archetypes();
        for mode in [
            AvoidanceMode::Boids,
            AvoidanceMode::Orca,
            AvoidanceMode::Context,
        ] {
            let row = run_random(&case, mode, Techniques::default(), &archetypes)
                .expect("the march runs");
            let kept = row.width_kept_pct.expect("the width is measured");
            eprintln!(
                "{} width kept {kept:.0} %",
                super::super::table_row(&row.report)
            );
            assert!(
                row.report.meets(1.2),
                "{mode:?}: {}",
                super::super::table_row(&row.report)
            );
            assert!(
                kept >= 65.0,
                "{mode:?}: the block kept {kept:.0} % of its width"
            );
        }
    }
}
