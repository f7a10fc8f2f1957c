//! Our navigation core measured against outside references.
//!
//! a. **Integrator vs `pathfinding::dijkstra_all`**: one goal, the whole 1024 × 1024 grid
//!    (a Fieldrunners-style full-map integration field). Random costs 1..=4 with ~15 % walls,
//!    fixed seed. Dijkstra runs on the 4-neighbour graph (entering cell `c` costs `costs[c]`,
//!    walls (255) never entered); the integrator solves the Eikonal equation on the same
//!    costs by fast marching, which is more work per cell. The bench asserts, before
//!    measuring, that both reach the same cells and that at 400 random cells the integrator's
//!    distance is no more than Dijkstra's and no less than the straight line.
//! b. **Tiled path request vs whole-map integration**: `NavWorld::request_path` (portal A* +
//!    precomputed permutation tiles + line-of-sight goal field) against `integrate_costs` over
//!    the whole map from the same goal, for the same random reachable pairs (≥ 1000 cells
//!    apart) on the generated 2048 × 2048 benchmark map (land type, as in `benches/path.rs`).
//!    256 pairs are cycled, more than the world's 64-entry goal-field cache, so every request
//!    builds its goal field afresh (no cache hits flatter the tiled side).
//!
//! After the measurements the bench prints the ratios of the criterion medians.
//!
//! `cargo bench --no-default-features --bench compare`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use navstudio::nav::NavWorld;
use navstudio::nav::flow::flow_from_integration;
use navstudio::nav::grid::WALL;
use navstudio::nav::integrate::{IntegrationField, IntegratorScratch, UNREACHED, integrate_costs};
use pathfinding::directed::dijkstra::dijkstra_all;

mod common;
use common::Rng;

const GRID: usize = 1024;

/// Random costs 1..=4 with ~15 % walls.
fn random_grid(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..GRID * GRID)
        .map(|_| {
            if rng.below(100) < 15 {
                WALL
            } else {
                1 + rng.below(4) as u8
            }
        })
        .collect()
}

/// The integrator's graph for `pathfinding`: 4 neighbours, entering a cell costs its value.
/// A fixed-size iterator, so the reference pays no allocation per expanded node.
fn successors(costs: &[u8], c: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
    let (x, y) = (c % GRID, c / GRID);
    [
        (x > 0).then(|| c - 1),
        (x + 1 < GRID).then(|| c + 1),
        (y > 0).then(|| c - GRID),
        (y + 1 < GRID).then(|| c + GRID),
    ]
    .into_iter()
    .flatten()
    .filter(move |&n| costs[n] != WALL)
    .map(move |n| (n, u32::from(costs[n])))
}

fn bench_integrator_vs_dijkstra(c: &mut Criterion) {
    let costs = random_grid(7);
    let mut rng = Rng::new(11);
    let goal = loop {
        let g = (GRID / 2 - 50 + rng.below(100) as usize) * GRID + GRID / 2 - 50
            + rng.below(100) as usize;
        if costs[g] != WALL {
            break g;
        }
    };
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();

    // Honesty check: same costs on the same graph.
    integrate_costs(
        &costs,
        GRID as u32,
        GRID as u32,
        &[(goal, 0)],
        &mut field,
        &mut scratch,
    );
    let reference = dijkstra_all(&goal, |&n| successors(&costs, n));
    let reached = field.cost.iter().filter(|&&v| v != UNREACHED).count();
    assert_eq!(reached, reference.len() + 1, "reached cell counts differ");
    for _ in 0..400 {
        let cell = rng.below((GRID * GRID) as u32) as usize;
        let expected = if cell == goal {
            0
        } else {
            reference.get(&cell).map_or(UNREACHED, |&(_, d)| d)
        };
        assert_eq!(
            field.cost[cell] == UNREACHED,
            expected == UNREACHED,
            "cell {cell}"
        );
        if expected != UNREACHED {
            let (dx, dy) = (
                (cell % GRID).abs_diff(goal % GRID) as f32,
                (cell / GRID).abs_diff(goal / GRID) as f32,
            );
            let d = field.dist[cell];
            assert!(
                d <= expected as f32 + 1e-2,
                "cell {cell}: {d} above {expected}"
            );
            assert!(
                d >= (dx * dx + dy * dy).sqrt() - 1e-2,
                "cell {cell}: {d} below the line"
            );
        }
    }
    eprintln!(
        "compare: pathfinding::dijkstra_all >= integrator >= straight line at 400 sampled cells; {reached} of {} cells reached",
        GRID * GRID
    );
    drop(reference);

    let mut group = c.benchmark_group("full_map_1024");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("integrate_costs", |b| {
        b.iter(|| {
            integrate_costs(
                black_box(&costs),
                GRID as u32,
                GRID as u32,
                &[(goal, 0)],
                &mut field,
                &mut scratch,
            );
            black_box(field.cost[0])
        });
    });
    group.bench_function("pathfinding_dijkstra_all", |b| {
        b.iter(|| dijkstra_all(black_box(&goal), |&n| successors(&costs, n)).len());
    });
    group.finish();
}

const MAP: u32 = 2048;

fn bench_tiled_vs_whole_map(c: &mut Criterion) {
    let baked = common::baked_benchmark_map(MAP, Some(vec!["land".into()]));
    let costs = baked.nav.layers[0].cost.to_cells();
    let mut world = NavWorld::from_nav(baked.nav);
    let mut rng = Rng::new(1);
    let passable = |rng: &mut Rng| loop {
        let c = (rng.below(MAP), rng.below(MAP));
        if costs[(c.1 * MAP + c.0) as usize] != WALL {
            return c;
        }
    };
    let mut pairs = Vec::new();
    while pairs.len() < 256 {
        let (a, b) = (passable(&mut rng), passable(&mut rng));
        if a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= 1000 && world.is_reachable(0, a, b) {
            pairs.push((a, b));
        }
    }
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    let mut flow = vec![0u8; (MAP * MAP) as usize];

    let mut group = c.benchmark_group("tiled_vs_whole_2048");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    let mut i = 0;
    group.bench_function("request_path", |b| {
        b.iter(|| {
            i = (i + 1) % pairs.len();
            let (a, g) = pairs[i];
            let id = world.request_path(0, &[a], g).unwrap();
            world.release_path(id);
        });
    });
    let mut j = 0;
    group.bench_function("whole_map_integrate_costs", |b| {
        b.iter(|| {
            j = (j + 1) % pairs.len();
            let g = pairs[j].1;
            let goal = (g.1 * MAP + g.0) as usize;
            integrate_costs(&costs, MAP, MAP, &[(goal, 0)], &mut field, &mut scratch);
            black_box(field.cost[0])
        });
    });
    let mut k = 0;
    group.bench_function("whole_map_integrate_and_flow", |b| {
        b.iter(|| {
            k = (k + 1) % pairs.len();
            let g = pairs[k].1;
            let goal = (g.1 * MAP + g.0) as usize;
            integrate_costs(&costs, MAP, MAP, &[(goal, 0)], &mut field, &mut scratch);
            flow_from_integration(&costs, MAP, MAP, &field, &[], &mut flow);
            black_box(flow[0])
        });
    });
    group.finish();
}

/// Median of one benchmark from criterion's saved estimates, in nanoseconds.
fn median_ns(group: &str, id: &str) -> Option<f64> {
    let root = std::env::var_os("CRITERION_HOME").map_or_else(
        || {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(
                    || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
                    PathBuf::from,
                )
                .join("criterion")
        },
        PathBuf::from,
    );
    let text =
        std::fs::read_to_string(root.join(group).join(id).join("new/estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn print_ratios() {
    let ratios = [
        (
            "pathfinding dijkstra_all / our integrate_costs (1024², same costs)",
            ("full_map_1024", "pathfinding_dijkstra_all"),
            ("full_map_1024", "integrate_costs"),
        ),
        (
            "whole-map integration / tiled request_path (2048², same goals)",
            ("tiled_vs_whole_2048", "whole_map_integrate_costs"),
            ("tiled_vs_whole_2048", "request_path"),
        ),
        (
            "whole-map integration + flow / tiled request_path (2048², same goals)",
            ("tiled_vs_whole_2048", "whole_map_integrate_and_flow"),
            ("tiled_vs_whole_2048", "request_path"),
        ),
    ];
    for (label, (g1, a), (g2, b)) in ratios {
        if let (Some(x), Some(y)) = (median_ns(g1, a), median_ns(g2, b)) {
            println!(
                "ratio {label}: {:.1}× ({:.3} ms / {:.3} ms, criterion medians)",
                x / y,
                x / 1e6,
                y / 1e6
            );
        }
    }
}

criterion_group!(
    benches,
    bench_integrator_vs_dijkstra,
    bench_tiled_vs_whole_map
);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    print_ratios();
}
