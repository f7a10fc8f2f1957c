//! The cost of the C boundary: the same work through the C API and through the Rust API
//! (`NavWorld`) on the same package bytes.
//! - `request`: one of 32 reachable requests across a 512² map in turn, planned, traced
//!   from its source and released (distinct goals, so the goal-field cache works as in a
//!   game where goals change).
//! - `sample_flow`: 4096 flow samples at points along one path's route, the call a crowd
//!   makes per agent per step, where a fixed per-call cost would show most.
//!
//! `cargo bench -p navstudio-capi --bench capi`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use navstudio_nav::{NavWorld, package};

#[path = "../tests/common/mod.rs"]
mod common;
use common::{Rng, World, package_bytes, random_nav};

const SIZE: u32 = 512;

fn bench_capi(c: &mut Criterion) {
    let bytes = package_bytes(&random_nav(4, SIZE, SIZE));
    let mut rust = NavWorld::from_nav(package::from_bytes(&bytes).unwrap().nav);
    let mut capi = World::from_bytes(&bytes).unwrap();
    let mut rng = Rng::new(9);
    let mut pairs = Vec::new();
    while pairs.len() < 32 {
        let a = (rng.below(SIZE), rng.below(SIZE));
        let b = (rng.below(SIZE), rng.below(SIZE));
        if a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= SIZE / 3
            && rust.is_reachable(0, a, b)
            && rust.nav().layers[0].cost.get(b.0, b.1) != navstudio_nav::grid::WALL
        {
            pairs.push((a, b));
        }
    }
    // Landmark tables are built on a layer's first request: build them outside the timing.
    for (a, b) in &pairs {
        let id = rust.request_path(0, &[*a], *b).unwrap();
        rust.release_path(id);
        let p = capi.request(0, &[*a], *b).unwrap();
        capi.release(p).unwrap();
    }

    // The machine this runs on is shared: its load swings by tens of percent within a
    // second. So each benchmark runs both sides in alternation, every iteration the same
    // work through Rust then through C, and times only its own side: both then see the same
    // load, and their medians compare. Which side goes first alternates, since the second
    // finds the CPU caches warm.
    let mut cells = vec![navstudio_capi::NavstudioCell::default(); 1 << 16];
    let mut rust_request = |k: usize| {
        let (a, b) = pairs[k % pairs.len()];
        let id = rust.request_path(0, &[a], b).unwrap();
        black_box(rust.trace_path(id, a).unwrap().length);
        rust.release_path(id);
    };
    let mut c_request = |k: usize| {
        let (a, b) = pairs[k % pairs.len()];
        let p = capi.request(0, &[a], b).unwrap();
        black_box(capi.trace_into(p, a, &mut cells).unwrap().0);
        capi.release(p).unwrap();
    };
    let mut group = c.benchmark_group("request");
    group.sample_size(30);
    for side in ["rust", "c_api"] {
        group.bench_function(side, |bench| {
            bench.iter_custom(|iters| {
                let mut mine = Duration::ZERO;
                for k in 0..iters as usize {
                    // Which side goes first alternates: the second finds caches warm.
                    let mut time = |rust_side: bool| {
                        let t = Instant::now();
                        if rust_side {
                            rust_request(k);
                        } else {
                            c_request(k);
                        }
                        (rust_side, t.elapsed())
                    };
                    let first = time(k % 2 == 0);
                    let second = time(k % 2 != 0);
                    for (rust_side, d) in [first, second] {
                        if rust_side == (side == "rust") {
                            mine += d;
                        }
                    }
                }
                mine
            });
        });
    }
    group.finish();

    let (a, b) = pairs[0];
    let id = rust.request_path(0, &[a], b).unwrap();
    let p = capi.request(0, &[a], b).unwrap();
    // Where agents sample: along the route (the traced cells, at random points inside).
    let route = rust.trace_path(id, a).unwrap().cells;
    let positions: Vec<(f32, f32)> = (0..4096)
        .map(|k| {
            let c = route[k % route.len()];
            (
                c.0 as f32 + rng.below(100) as f32 / 100.0,
                c.1 as f32 + rng.below(100) as f32 / 100.0,
            )
        })
        .collect();
    let mut group = c.benchmark_group("sample_flow");
    for side in ["rust", "c_api"] {
        group.bench_function(side, |bench| {
            bench.iter_custom(|iters| {
                let mut mine = Duration::ZERO;
                for k in 0..iters {
                    let time = |rust_side: bool| {
                        let t = Instant::now();
                        for &pos in &positions {
                            if rust_side {
                                black_box(rust.sample_flow(id, pos));
                            } else {
                                black_box(capi.sample(p, pos).ok());
                            }
                        }
                        (rust_side, t.elapsed())
                    };
                    let first = time(k % 2 == 0);
                    let second = time(k % 2 != 0);
                    for (rust_side, d) in [first, second] {
                        if rust_side == (side == "rust") {
                            mine += d;
                        }
                    }
                }
                mine
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_capi);
criterion_main!(benches);
