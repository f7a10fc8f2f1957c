//! One 60 Hz crowd step on a 2048 × 2048 open map with scattered walls, one goal: flow
//! following and separation alone (10k, 50k agents), the same with the contact rule, and
//! each avoidance mode with its defaults.
//! Targets on the 2-core reference machine: 10k agents ≤ 4 ms, 50k agents ≤ 16 ms.
#![allow(missing_docs)] // criterion_group! generates an undocumented function.

use criterion::{Criterion, criterion_group};
use navstudio::crowd::rng::SplitMix64;
use navstudio::crowd::testing::GridNavigator;
use navstudio::crowd::{
    AvoidanceMode, Order, Scenario, SimConfig, Simulation, Spawn, SpawnArea, SteeringWeights,
    Techniques, Vec2, default_archetypes,
};

const SIZE: u32 = 2048;
const GOAL: Vec2 = Vec2::new(1800.5, 1700.5);

fn scattered_walls() -> Vec<u8> {
    let mut rng = SplitMix64::new(2048);
    let mut costs = vec![1u8; (SIZE * SIZE) as usize];
    for _ in 0..20_000 {
        let x0 = (rng.next_u64() % u64::from(SIZE)) as u32;
        let y0 = (rng.next_u64() % u64::from(SIZE)) as u32;
        let (w, h) = (1 + rng.next_u64() % 4, 1 + rng.next_u64() % 4);
        for y in y0..(y0 + h as u32).min(SIZE) {
            for x in x0..(x0 + w as u32).min(SIZE) {
                costs[(y * SIZE + x) as usize] = 255;
            }
        }
    }
    let g = (GOAL.y as u32 * SIZE + GOAL.x as u32) as usize;
    costs[g] = 1;
    costs
}

fn simulation(nav: &mut GridNavigator, agents: u32, mut config: SimConfig) -> Simulation {
    // `CROWD_TECHNIQUES_OFF=1`: the crowd without the movement techniques, to see their cost.
    if std::env::var_os("CROWD_TECHNIQUES_OFF").is_some() {
        config.techniques = navstudio::crowd::Techniques::none();
    }
    // About 0.3 agents per square metre: a dense column, not a sparse sprinkle.
    let side_m = (agents as f32 / 0.3).sqrt();
    let scenario = Scenario {
        seed: 1,
        config,
        spawns: vec![Spawn {
            archetype: "infantry".into(),
            area: SpawnArea::Rect {
                min_world: Vec2::new(200.0, 200.0),
                max_world: Vec2::new(200.0 + side_m, 200.0 + side_m),
            },
            count: agents,
            group: 0,
        }],
        orders: vec![Order {
            group: 0,
            goal_world: GOAL,
            more_goals_world: Vec::new(),
            at_step: 0,
        }],
    };
    let mut sim = match Simulation::from_scenario(&scenario, &default_archetypes(), nav) {
        Ok(sim) => sim,
        Err(e) => panic!("bench scenario: {e}"),
    };
    // Issue the order and let the crowd get going before timing.
    for _ in 0..30 {
        sim.step(nav);
    }
    sim
}

fn cases() -> Vec<(&'static str, u32, SimConfig)> {
    // Flow following and separation alone: no contact rule or other technique
    // (`Techniques::none()`), the crowd's floor and the step-time baseline.
    let flow_separation = SimConfig {
        weights: SteeringWeights {
            avoidance: 0.0,
            alignment: 0.0,
            cohesion: 0.0,
            ..SteeringWeights::default()
        },
        techniques: Techniques::none(),
        ..SimConfig::default()
    };
    // The same with the default techniques (the contact rule): what resolving contacts costs.
    let with_contacts = SimConfig {
        techniques: Techniques::default(),
        ..flow_separation.clone()
    };
    vec![
        ("flow_separation_10k", 10_000, flow_separation.clone()),
        ("flow_separation_50k", 50_000, flow_separation),
        ("separation_contacts_10k", 10_000, with_contacts.clone()),
        ("separation_contacts_50k", 50_000, with_contacts),
        ("boids_full_10k", 10_000, SimConfig::default()),
        (
            "orca_10k",
            10_000,
            SimConfig {
                avoidance: AvoidanceMode::Orca,
                ..SimConfig::default()
            },
        ),
        (
            "context_10k",
            10_000,
            SimConfig {
                avoidance: AvoidanceMode::Context,
                ..SimConfig::default()
            },
        ),
    ]
}

/// The bench map with the goal's field built once and its line-of-sight cache filled, so
/// the timings are the crowd's and not the stand-in navigator's.
fn bench_nav() -> GridNavigator {
    let mut nav = GridNavigator::new(1.0, SIZE, SIZE);
    if let Err(e) = nav.add_type("land", scattered_walls()) {
        panic!("bench map: {e}");
    }
    let Some(path) = navstudio::crowd::Navigator::request_path(
        &mut nav,
        navstudio::nav::MoveType::default(),
        &[],
        GOAL,
    ) else {
        panic!("bench goal unreachable");
    };
    nav.warm_line_of_sight(path);
    nav
}

fn bench(c: &mut Criterion) {
    let mut nav = bench_nav();

    let mut group = c.benchmark_group("crowd_step");
    group.sample_size(20);
    for (name, agents, config) in cases() {
        let mut sim = simulation(&mut nav, agents, config);
        group.bench_function(name, |b| b.iter(|| sim.step(&mut nav)));
    }
    group.finish();
}

criterion_group!(benches, bench);

/// `CROWD_FIXED_STEPS=N cargo bench --no-default-features --bench crowd` runs N steps of
/// each case (`CROWD_CASE=NAME`: those whose name contains it) instead of criterion and
/// prints the median step and a checksum of the agents' positions: a fixed amount of work,
/// for `perf` and `tools/crowd_step_cmp.sh`.
fn main() {
    if let Some(steps) = std::env::var("CROWD_FIXED_STEPS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        fixed_steps(steps);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

fn fixed_steps(steps: usize) {
    let mut nav = bench_nav();
    let only = std::env::var("CROWD_CASE").ok();
    for (name, agents, config) in cases() {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut sim = simulation(&mut nav, agents, config);
        let cpu_before = cpu_ns();
        let mut times: Vec<f64> = (0..steps)
            .map(|_| {
                let t = std::time::Instant::now();
                sim.step(&mut nav);
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        let cpu_ms = (cpu_ns() - cpu_before) as f64 / 1e6 / steps.max(1) as f64;
        times.sort_by(f64::total_cmp);
        println!(
            "{name}: median {:.2} ms over {steps} steps, {cpu_ms:.2} ms CPU per step (all threads)",
            times[steps / 2]
        );
        // A fingerprint of every agent's position: a change meant to make the step faster
        // and change nothing must leave it as it was.
        let checksum = sim.agents().pos_world.iter().fold(0u64, |h, p| {
            (h.rotate_left(7) ^ ((u64::from(p.x.to_bits()) << 32) | u64::from(p.y.to_bits())))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        });
        println!("  positions checksum {checksum:016x}");
    }
}

/// CPU time of every thread of this process so far (Linux schedstat; 0 elsewhere).
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}
