//! The crowd on maps of any cell size (issue 48): arrival, slow-down and contact work in
//! metres and agent radii, so a group of infantry sent 30 m arrives whether a cell is half a
//! metre or 83 m (a real-scale heightmap), in every avoidance mode. The map is a
//! `NavWorld` (through `WorldNavigator`), as a game runs it.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::AtomicBool;

use navstudio_crowd::{
    AgentState, AvoidanceMode, SimConfig, Simulation, Vec2, WorldNavigator, default_archetypes,
};
use navstudio_nav::grid::WALL;
use navstudio_nav::{CostField, GridSpec, NavData, NavWorld, build_layer};

/// Agents per run, as the issue asks.
const AGENTS: usize = 200;

/// An open map of at least 160 m a side in cells of `cell_m`, with a wall block in one
/// corner (so there are walls to stay off) away from the walk.
fn world(cell_m: f32) -> WorldNavigator {
    let side = ((160.0 / cell_m).ceil() as u32).max(8);
    let mut cells = vec![1u8; (side * side) as usize];
    let block = (side / 6).max(1);
    for y in 0..block {
        for x in 0..block {
            cells[(y * side + x) as usize] = WALL;
        }
    }
    let spec = GridSpec {
        width: side,
        height: side,
        sector_size: 16.min(side),
    };
    let layer = build_layer(
        "land",
        CostField::from_cells(spec, &cells),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let nav = NavData::new(spec, cell_m, vec![layer]);
    WorldNavigator::new(NavWorld::from_nav(nav), vec![0.0])
}

#[test]
fn infantry_arrives_30_m_away_on_every_cell_size_in_every_avoidance_mode() {
    let infantry = default_archetypes().remove(0);
    for cell_m in [0.5_f32, 1.0, 4.0, 30.0, 83.0] {
        for mode in [
            AvoidanceMode::Boids,
            AvoidanceMode::Orca,
            AvoidanceMode::Context,
        ] {
            let mut nav = world(cell_m);
            let config = SimConfig {
                avoidance: mode,
                ..SimConfig::default()
            };
            let mut sim = Simulation::new(config, 11);
            // A block of agents 1.2 m apart around the map's centre, sent 30 m along x.
            let half = nav.world.nav().spec.width as f32 * cell_m / 2.0;
            let centre = Vec2::new(half, half);
            let row = (AGENTS as f32).sqrt().ceil() as usize;
            let ids: Vec<_> = (0..AGENTS)
                .map(|k| {
                    let p = centre
                        + Vec2::new((k % row) as f32 * 1.2 - 6.0, (k / row) as f32 * 1.2 - 6.0);
                    sim.add_agent(&nav, &infantry, p, 0).unwrap().unwrap()
                })
                .collect();
            let goal = centre + Vec2::new(30.0, 0.0);
            let report = sim.order_move(&mut nav, &ids, goal);
            assert_eq!(report.moving as usize, AGENTS, "{cell_m} m, {mode:?}");
            let mut steps = 0;
            while steps < 60 * 60 && !sim.agents().state.iter().all(|&s| s == AgentState::Arrived) {
                sim.step(&mut nav);
                steps += 1;
            }
            let a = sim.agents();
            let arrived = a
                .state
                .iter()
                .filter(|&&s| s == AgentState::Arrived)
                .count();
            let nearest_open = (0..a.len())
                .filter(|&i| a.state[i] != AgentState::Arrived)
                .map(|i| (a.pos_world[i] - goal).length())
                .fold(f32::INFINITY, f32::min);
            println!("cells of {cell_m} m, {mode:?}: {arrived} arrived in {steps} steps");
            assert_eq!(
                arrived, AGENTS,
                "cells of {cell_m} m, {mode:?}: {arrived} of {AGENTS} arrived in {steps} steps; \
                 the nearest that did not is {nearest_open} m from the goal"
            );
        }
    }
}

/// One infantryman sent to a point a metre from a wall arrives there on every cell size: it
/// collides with walls as a disc of its own radius, not of a share of a cell (a tenth of an
/// 83 m cell kept it 8 m off the wall).
#[test]
fn a_goal_a_metre_from_a_wall_is_reached_on_every_cell_size() {
    let infantry = default_archetypes().remove(0);
    for cell_m in [0.5_f32, 1.0, 4.0, 30.0, 83.0] {
        let mut nav = world(cell_m);
        let side = nav.world.nav().spec.width;
        // The wall block covers cells 0..side/6 in x and y: its right face is at x = edge.
        let edge = (side / 6).max(1) as f32 * cell_m;
        let goal = Vec2::new(edge + 1.0, edge * 0.5);
        let start = Vec2::new(edge + 30.0, edge * 0.5 + 10.0);
        let mut sim = Simulation::new(SimConfig::default(), 5);
        let id = sim.add_agent(&nav, &infantry, start, 0).unwrap().unwrap();
        assert_eq!(sim.order_move(&mut nav, &[id], goal).moving, 1);
        let mut steps = 0;
        while steps < 60 * 60 && sim.agents().state[0] != AgentState::Arrived {
            sim.step(&mut nav);
            steps += 1;
        }
        let left = (sim.agents().pos_world[0] - goal).length();
        assert_eq!(
            sim.agents().state[0],
            AgentState::Arrived,
            "cells of {cell_m} m: {left} m short after {steps} steps"
        );
    }
}
