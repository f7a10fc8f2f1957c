//! Crowd behaviour on hand-built maps, with `GridNavigator` as the navigation stand-in and
//! the `pathfinding` crate as the independent path-length oracle.
//!
//! This module holds the shared maps, navigator builders and the path-length oracle; the tests
//! are grouped by concern in the submodules.

mod crossing;
mod determinism;
mod orders;
mod params;
mod rebuilds;
mod showcase;
mod walls;

use navstudio::crowd::WorldNavigator;
use navstudio::crowd::testing::{GridNavigator, buffer_walls};
use navstudio::crowd::{
    AgentArchetype, AgentId, AgentState, AvoidanceMode, FlowSample, NavGrid, Navigator, Order,
    PathId, Scenario, SimConfig, Simulation, Spawn, SpawnArea, Vec2, default_archetypes,
};
use navstudio::map::MapKind;
use navstudio::nav::NavWorld;
use pathfinding::prelude::dijkstra;
use proptest::prelude::*;
use std::time::Duration;

use crate::common;

const WALL: u8 = 255;

fn archetype(name: &str) -> AgentArchetype {
    default_archetypes()
        .into_iter()
        .find(|a| a.name == name)
        .unwrap()
}

/// 100 × 60 map: border walls, a wall across x = 50 with two gaps, and pillars.
fn obstacle_map() -> (u32, u32, Vec<u8>) {
    let (w, h) = (100u32, 60u32);
    let mut c = vec![1u8; (w * h) as usize];
    let mut set = |x: u32, y: u32| c[(y * w + x) as usize] = WALL;
    for x in 0..w {
        set(x, 0);
        set(x, h - 1);
    }
    for y in 0..h {
        set(0, y);
        set(w - 1, y);
        if !(10..18).contains(&y) && !(40..47).contains(&y) {
            set(50, y);
            set(51, y);
        }
    }
    for (px, py) in [(30, 20), (30, 40), (70, 15), (72, 35), (80, 50)] {
        for dy in 0..3 {
            for dx in 0..3 {
                set(px + dx, py + dy);
            }
        }
    }
    (w, h, c)
}

fn nav_for(w: u32, h: u32, costs: &[u8]) -> GridNavigator {
    let mut nav = GridNavigator::new(1.0, w, h);
    nav.add_type("land", costs.to_vec()).unwrap();
    nav.add_type("hover", costs.to_vec()).unwrap();
    nav.add_buffered_type("large", buffer_walls(costs, w, h, 2.5), 2.5)
        .unwrap();
    nav
}

/// Shortest 8-neighbour, no-corner-cutting path length in cells (pathfinding crate).
fn oracle_path_len(costs: &[u8], w: u32, h: u32, from: (i32, i32), to: (i32, i32)) -> f64 {
    let wall = |x: i32, y: i32| {
        x < 0
            || y < 0
            || x >= w as i32
            || y >= h as i32
            || costs[(y as u32 * w + x as u32) as usize] == WALL
    };
    let (_, cost) = dijkstra(
        &from,
        |&(x, y)| {
            let mut next = Vec::new();
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if (dx, dy) == (0, 0) || wall(x + dx, y + dy) {
                        continue;
                    }
                    if dx != 0 && dy != 0 && (wall(x + dx, y) || wall(x, y + dy)) {
                        continue;
                    }
                    next.push((
                        (x + dx, y + dy),
                        if dx != 0 && dy != 0 { 1414u64 } else { 1000 },
                    ));
                }
            }
            next
        },
        |&p| p == to,
    )
    .unwrap();
    cost as f64 / 1000.0
}

/// A `NavWorld` (the real run time, not the stand-in) over a hand-built land grid.
fn world_navigator(w: u32, h: u32, costs: &[u8]) -> WorldNavigator {
    WorldNavigator::new(common::world_from_cells("land", w, h, 16, costs), vec![0.0])
}
