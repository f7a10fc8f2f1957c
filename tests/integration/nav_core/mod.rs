//! Property tests of the run-time navigation core against independent oracles: the
//! `pathfinding` crate's Dijkstra, a breadth-first flood fill, a brute-force border scan,
//! an exact segment/square intersection test and a full rebuild.
//!
//! This module holds the shared generator, random maps, the Dijkstra oracle and the flow
//! property check; the tests are grouped by navigation stage in the submodules.

mod flow;
mod integrate;
mod islands_portals;
mod layers;

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;

use navstudio::nav::flow::flow_from_integration;
use navstudio::nav::grid::{DIR_NONE, DIRECTIONS, FLOW_LOS, FLOW_PATHABLE, WALL};
use navstudio::nav::integrate::{
    INT_LOS, IntegrationField, IntegratorScratch, UNREACHED, integrate_costs, integrate_with_los,
};
use navstudio::nav::islands::find_islands;
use navstudio::nav::permutations::canonical_flows;
use navstudio::nav::portals::{PortalWindow, find_windows};
use navstudio::nav::{CostField, GridSpec, build_layer, rebuild_sectors};
use pathfinding::directed::dijkstra::dijkstra_all;

/// xorshift64*: a tiny deterministic generator so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Random costs: `wall_p` walls, `cost_p` costed cells (1..=max_cost), clear elsewhere; walls
/// come in small blobs so there are corridors and corners.
fn random_map(
    rng: &mut Rng,
    w: usize,
    h: usize,
    wall_p: f64,
    cost_p: f64,
    max_cost: u8,
) -> Vec<u8> {
    let mut c = vec![1_u8; w * h];
    for v in c.iter_mut() {
        if rng.chance(cost_p) {
            *v = 1 + rng.below(u64::from(max_cost)) as u8;
        }
    }
    let blobs = ((w * h) as f64 * wall_p / 3.0).ceil() as usize;
    for _ in 0..blobs {
        let (x, y) = (rng.below(w as u64) as usize, rng.below(h as u64) as usize);
        for _ in 0..3 {
            let (dx, dy) = DIRECTIONS[rng.below(8) as usize];
            let (nx, ny) = (x as i32 + dx, y as i32 + dy);
            if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                c[ny as usize * w + nx as usize] = WALL;
            }
        }
        c[y * w + x] = WALL;
    }
    c
}

fn succ4(costs: &[u8], w: usize, h: usize, c: usize) -> Vec<(usize, u32)> {
    let (x, y) = (c % w, c / w);
    let mut v = Vec::new();
    let mut push = |n: usize| {
        if costs[n] != WALL {
            v.push((n, u32::from(costs[n])));
        }
    };
    if y > 0 {
        push(c - w);
    }
    if x + 1 < w {
        push(c + 1);
    }
    if y + 1 < h {
        push(c + w);
    }
    if x > 0 {
        push(c - 1);
    }
    v
}

/// Oracle: Dijkstra from a virtual source joined to each seed by its start cost.
fn oracle_costs(
    costs: &[u8],
    w: usize,
    h: usize,
    seeds: &[(usize, u32)],
    blocked: &dyn Fn(usize) -> bool,
) -> Vec<u32> {
    const SRC: usize = usize::MAX;
    let all = dijkstra_all(&SRC, |&c| {
        if c == SRC {
            seeds.to_vec()
        } else {
            succ4(costs, w, h, c)
                .into_iter()
                .filter(|&(n, _)| !blocked(n))
                .collect()
        }
    });
    (0..w * h)
        .map(|c| all.get(&c).map_or(UNREACHED, |&(_, d)| d))
        .collect()
}

const SIZES: [(usize, usize); 7] = [
    (1, 1),
    (3, 7),
    (10, 10),
    (17, 23),
    (40, 31),
    (64, 5),
    (33, 33),
];

/// Flow properties: walls unpathable, every reached cell reaches a goal by strictly cheaper,
/// non-corner-cutting steps; unreached cells have no direction; LOS flag mirrors the field.
fn check_flow(costs: &[u8], w: usize, h: usize, field: &IntegrationField, exits: &[(usize, u8)]) {
    let mut out = vec![0_u8; w * h];
    flow_from_integration(costs, w as u32, h as u32, field, exits, &mut out);
    let pass = |x: i32, y: i32| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && costs[y as usize * w + x as usize] != WALL
    };
    for c in 0..w * h {
        if costs[c] == WALL {
            assert_eq!(out[c] & FLOW_PATHABLE, 0);
            continue;
        }
        assert_ne!(out[c] & FLOW_PATHABLE, 0);
        assert_eq!(out[c] & FLOW_LOS != 0, field.flags[c] & INT_LOS != 0);
        if let Some(&(_, d)) = exits.iter().find(|e| e.0 == c) {
            assert_eq!(out[c] & 0x0F, d);
            continue;
        }
        if field.cost[c] == UNREACHED {
            assert_eq!(out[c] & 0x0F, DIR_NONE);
            continue;
        }
        let mut cur = c;
        let mut steps = 0;
        while !exits.iter().any(|e| e.0 == cur) {
            let d = out[cur] & 0x0F;
            assert_ne!(d, DIR_NONE, "reached cell {cur} without direction");
            let (dx, dy) = DIRECTIONS[d as usize];
            let (x, y) = ((cur % w) as i32, (cur / w) as i32);
            assert!(pass(x + dx, y + dy), "flow steps into a wall");
            if dx != 0 && dy != 0 {
                assert!(pass(x + dx, y) && pass(x, y + dy), "flow cuts a corner");
            }
            let next = (y + dy) as usize * w + (x + dx) as usize;
            assert!(field.cost[next] < field.cost[cur]);
            cur = next;
            steps += 1;
            assert!(steps <= w * h, "cycle");
        }
    }
}
