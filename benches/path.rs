//! Run-time path requests on the generated 2048 × 2048 benchmark map (land type):
//! `request_path` for random reachable pairs across the map (the default: landmark bounds,
//! weight 1.1; beside it exact A* with landmarks and plain octile A*, with the nodes each
//! expands and the cost of the routes), building the landmark tables, 1,000 sources to one
//! goal with merging A*, `request_path_to_any` with 16 goals spread over the map beside a
//! single-goal request from the same sources, `move_goal` inside a sector and across a
//! border, and `is_reachable`.
//!
//! `cargo bench --no-default-features --bench path`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use navstudio::nav::NavWorld;
use navstudio::nav::grid::WALL;

mod common;
use common::Rng;

fn bench_path(c: &mut Criterion) {
    let baked = common::baked_benchmark_map(2048, Some(vec!["land".into()]));
    let costs = baked.nav.layers[0].cost.to_cells();
    let mut world = NavWorld::from_nav(baked.nav);
    let mut rng = Rng::new(1);
    let passable = |rng: &mut Rng| loop {
        let c = (rng.below(2048), rng.below(2048));
        if costs[(c.1 * 2048 + c.0) as usize] != WALL {
            return c;
        }
    };
    // Random reachable pairs across the map (at least 1000 cells apart on one axis).
    let mut pairs = Vec::new();
    while pairs.len() < 64 {
        let (a, b) = (passable(&mut rng), passable(&mut rng));
        if a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= 1000 && world.is_reachable(0, a, b) {
            pairs.push((a, b));
        }
    }
    let goal = pairs[0].1;
    let mut sources = Vec::new();
    while sources.len() < 1000 {
        let s = (200 + rng.below(200), 200 + rng.below(200));
        if costs[(s.1 * 2048 + s.0) as usize] != WALL && world.is_reachable(0, s, goal) {
            sources.push(s);
        }
    }
    let mut group = c.benchmark_group("path_2048");
    let mut i = 0;
    group.bench_function("request_path, random reachable pair across the map", |b| {
        b.iter(|| {
            i = (i + 1) % pairs.len();
            let (a, g) = pairs[i];
            let id = world.request_path(0, &[a], g).unwrap();
            world.release_path(id);
        });
    });
    // The same pairs with exact A* (weight 1) with and without landmark bounds.
    for (name, landmarks) in [
        ("request_path, exact A* with landmarks", true),
        ("request_path, exact A*, octile only", false),
    ] {
        let mut other = NavWorld::from_nav(world.nav().clone());
        other.set_heuristic_weight(1.0);
        other.set_landmarks(landmarks);
        let mut k = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                k = (k + 1) % pairs.len();
                let (a, g) = pairs[k];
                let id = other.request_path(0, &[a], g).unwrap();
                other.release_path(id);
            });
        });
    }
    // What each variant expands and what its routes cost (printed once, for the README).
    for (name, weight, landmarks) in [
        ("default (landmarks, weight 1.1)", 1.1, true),
        ("exact A* with landmarks", 1.0, true),
        ("exact A*, octile only", 1.0, false),
    ] {
        let mut probe = NavWorld::from_nav(world.nav().clone());
        probe.set_heuristic_weight(weight);
        probe.set_landmarks(landmarks);
        probe.prepare_landmarks();
        let mut cost = 0u64;
        for &(a, g) in &pairs {
            let id = probe.request_path(0, &[a], g).unwrap();
            cost += u64::from(probe.path(id).unwrap().routes[0].cost);
            probe.release_path(id);
        }
        println!(
            "{name}: {} nodes expanded per request, route cost sum {cost} over {} pairs",
            probe.a_star_expansions() / pairs.len() as u64,
            pairs.len()
        );
    }
    group.sample_size(10);
    // Two Dijkstras over the portal graph per landmark.
    group.bench_function("prepare_landmarks", |b| {
        b.iter_batched(
            || NavWorld::from_nav(world.nav().clone()),
            |mut fresh| {
                fresh.prepare_landmarks();
                fresh
            },
            BatchSize::LargeInput,
        );
    });
    group.sample_size(100);
    group.sample_size(20);
    group.bench_function("request_path, 1000 sources to one goal (merging A*)", |b| {
        b.iter(|| {
            let id = world.request_path(0, &sources, goal).unwrap();
            world.release_path(id);
        });
    });
    group.sample_size(100);
    // Goal sets: 16 goals on a 4 × 4 lattice over the map (each near a lattice point, on
    // reachable ground), against a single goal (the first of them), from the same random
    // sources. Cached: the same goals every time, so their goal fields stay in the cache, as
    // for a game's repeated orders. Built: a new goal set (new single goal) every
    // iteration, 128 of them in turn (more than the cache's 64 fields), so every goal field
    // is built.
    let near = |rng: &mut Rng, gx: u32, gy: u32| loop {
        let g = (
            (192 + 512 * gx + rng.below(128)) % 2048,
            (192 + 512 * gy + rng.below(128)) % 2048,
        );
        if costs[(g.1 * 2048 + g.0) as usize] != WALL && world.is_reachable(0, g, goal) {
            return g;
        }
    };
    let goal_sets: Vec<Vec<(u32, u32)>> = (0..128)
        .map(|_| {
            (0..16)
                .map(|i| near(&mut rng, i % 4, i / 4))
                .collect::<Vec<_>>()
        })
        .collect();
    let goals = &goal_sets[0];
    let set_sources: Vec<(u32, u32)> = pairs.iter().map(|&(a, _)| a).collect();
    for (name, n, fresh) in [
        ("goal set cached: request_path, 1 goal", 1, false),
        ("goal set cached: request_path_to_any, 16 goals", 16, false),
        ("goal set built: request_path, 1 goal", 1, true),
        ("goal set built: request_path_to_any, 16 goals", 16, true),
    ] {
        let mut k = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                k += 1;
                let s = set_sources[k % set_sources.len()];
                let set = if fresh {
                    &goal_sets[k % goal_sets.len()]
                } else {
                    goals
                };
                let id = world.request_path_to_any(0, &[s], &set[..n]).unwrap();
                world.release_path(id);
            });
        });
    }
    // Moving goals: a path from one source, its goal stepped one cell inside its sector
    // (one goal field), or moved one sector over and re-planned by `rebuild` (the call a
    // game makes each frame, within its time slice; here with a zero budget, which still
    // re-plans one path).
    let chase_from = pairs[1].0;
    let walk: Vec<(u32, u32)> = {
        let id = world.request_path(0, &[chase_from], pairs[1].1).unwrap();
        let t = world.trace_path(id, chase_from).unwrap();
        world.release_path(id);
        t.cells
    };
    let ss = world.nav().spec.sector_size;
    let sector = |c: (u32, u32)| world.nav().spec.sector_of(c.0, c.1);
    // Pairs of neighbouring walk cells in one sector, and pairs a sector apart.
    let inside: Vec<((u32, u32), (u32, u32))> = walk
        .windows(2)
        .filter(|w| sector(w[0]) == sector(w[1]))
        .map(|w| (w[0], w[1]))
        .collect();
    let across: Vec<((u32, u32), (u32, u32))> = walk
        .iter()
        .zip(walk.iter().skip(ss as usize))
        .filter(|(a, b)| sector(**a) != sector(**b))
        .map(|(&a, &b)| (a, b))
        .collect();
    for (name, moves) in [
        ("move_goal inside a sector (one goal field)", &inside),
        (
            "move_goal across a border, then rebuild (one re-plan)",
            &across,
        ),
    ] {
        let mut k = 0;
        group.bench_function(name, |b| {
            // Only the move (and its re-plan) is timed, not the request before it.
            b.iter_custom(|iters| {
                let mut timed = std::time::Duration::ZERO;
                for _ in 0..iters {
                    k = (k + 1) % moves.len();
                    let (from, to) = moves[k];
                    let id = world.request_path(0, &[chase_from], from).unwrap();
                    let start = std::time::Instant::now();
                    black_box(world.move_goal(id, to).unwrap());
                    world.rebuild(std::time::Duration::ZERO);
                    timed += start.elapsed();
                    world.release_path(id);
                }
                timed
            });
        });
    }
    group.sample_size(100);
    let mut j = 0;
    group.bench_function("is_reachable", |b| {
        b.iter(|| {
            j = (j + 1) % pairs.len();
            black_box(world.is_reachable(0, black_box(pairs[j].0), black_box(pairs[j].1)))
        });
    });
    group.finish();
}

criterion_group!(benches, bench_path);
criterion_main!(benches);
