//! Determinism and stepping: trajectories repeat across runs and thread counts, scenarios
//! round-trip through RON, `advance` takes fixed steps, a frame budget changes no result.

use super::*;

fn mixed_scenario(mode: AvoidanceMode) -> Scenario {
    let mut spawns = Vec::new();
    for (k, name) in ["infantry", "tank", "hovercraft", "large walker"]
        .iter()
        .enumerate()
    {
        spawns.push(Spawn {
            archetype: (*name).into(),
            area: SpawnArea::Rect {
                min_world: Vec2::new(5.0, 5.0 + 12.0 * k as f32),
                max_world: Vec2::new(40.0, 15.0 + 12.0 * k as f32),
            },
            count: if k == 0 { 150 } else { 25 },
            group: k as u32,
        });
    }
    Scenario {
        seed: 99,
        config: SimConfig {
            avoidance: mode,
            ..SimConfig::default()
        },
        spawns,
        orders: (0..4)
            .map(|g| Order {
                group: g,
                goal_world: Vec2::new(88.5, 10.5 + 12.0 * g as f32),
                more_goals_world: Vec::new(),
                at_step: u64::from(g) * 20,
            })
            .collect(),
    }
}

fn run_trajectory(mode: AvoidanceMode, threads: usize) -> Vec<u32> {
    let (w, h, costs) = obstacle_map();
    let mut nav = nav_for(w, h, &costs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut sim =
        Simulation::from_scenario(&mixed_scenario(mode), &default_archetypes(), &nav).unwrap();
    let mut bits = Vec::new();
    pool.install(|| {
        for s in 0..240 {
            sim.step(&mut nav);
            if s % 40 == 39 {
                for (p, v) in sim.agents().pos_world.iter().zip(&sim.agents().vel) {
                    bits.extend([p.x.to_bits(), p.y.to_bits(), v.x.to_bits(), v.y.to_bits()]);
                }
            }
        }
    });
    assert!(sim.metrics().mean_speed_mps > 0.1, "{mode:?} did not move");
    bits
}

#[test]
fn trajectories_repeat_across_runs_and_thread_counts() {
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let one = run_trajectory(mode, 1);
        let two = run_trajectory(mode, 2);
        let again = run_trajectory(mode, 2);
        assert!(one == two, "{mode:?}: 1 thread and 2 threads differ");
        assert!(two == again, "{mode:?}: two runs differ");
    }
}

#[test]
fn scenario_round_trips_through_ron_and_rejects_unknown_archetypes() {
    let s = mixed_scenario(AvoidanceMode::Context);
    let text = s.to_ron_string();
    let back = Scenario::from_ron_str(&text, std::path::Path::new("mem.ron")).unwrap();
    assert_eq!(back, s);
    let mut bad = s;
    bad.spawns[0].archetype = "dragon".into();
    let nav = nav_for(10, 10, &[1; 100]);
    let err = Simulation::from_scenario(&bad, &default_archetypes(), &nav).unwrap_err();
    assert!(err.to_string().contains("dragon"));
}

#[test]
fn advance_takes_fixed_steps_and_keeps_the_remainder() {
    let mut nav = nav_for(10, 10, &[1; 100]);
    let mut sim = Simulation::new(SimConfig::default(), 0);
    assert_eq!(sim.advance(&mut nav, 0.051), 3);
    assert_eq!(sim.advance(&mut nav, 0.01), 0);
    assert_eq!(sim.advance(&mut nav, 0.01), 1);
    // A stalled frame is capped, not owed.
    assert_eq!(sim.advance(&mut nav, 10.0), 8);
    assert!(sim.advance(&mut nav, 0.0) <= 1);
}

#[test]
fn a_frame_budget_limits_steps_but_not_what_they_compute() {
    let scenario = mixed_scenario(AvoidanceMode::Boids);
    let (w, h, costs) = obstacle_map();
    let mut nav = nav_for(w, h, &costs);
    let mut budgeted = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
    let mut free = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
    // Zero budget: one step per frame however much time is owed; the rest is dropped.
    for _ in 0..20 {
        assert_eq!(
            budgeted.advance_within(&mut nav, 0.1, Some(Duration::ZERO)),
            1
        );
    }
    assert_eq!(budgeted.step_index(), 20);
    // A generous budget takes what is owed, up to the cap, like `advance`.
    assert_eq!(
        budgeted.advance_within(&mut nav, 1.0, Some(Duration::from_secs(60))),
        8
    );
    for _ in 0..28 {
        free.step(&mut nav);
    }
    assert_eq!(budgeted.step_index(), 28);
    assert_eq!(budgeted.agents().pos_world, free.agents().pos_world);
}
