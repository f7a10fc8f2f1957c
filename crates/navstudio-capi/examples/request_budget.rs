//! How long budgeted path requests run past their budget, as a game calling
//! `advance_path` once per frame sees it: opens a package streamed, answers N requests
//! across the map (reachable pairs at least half the map apart, after one request to warm
//! up) in calls of BUDGET_MS, and prints every call's time as percentiles: wall time, and
//! on Linux the calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), which a loaded
//! machine's waits for a core do not inflate. Then the same requests without a budget,
//! for their whole time, and through a `PathQuery` on the data read whole, refining
//! lazily and eagerly. Run it with `RAYON_NUM_THREADS=1` so all the work is on the
//! calling thread.
//!
//! `RAYON_NUM_THREADS=1 cargo run --release -p navstudio-capi --example request_budget -- PKG [BUDGET_MS] [REQUESTS]`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use navstudio_nav::rng::SplitMix64;
use navstudio_nav::{Cell, MoveType, NavData, NavWorld, PathQuery, QueryOptions, StreamOptions};

#[path = "support/cpu_clock.rs"]
mod cpu_clock;

fn percentiles(mut v: Vec<u64>) -> String {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!(
        "p50 {} µs, p90 {} µs, p99 {} µs, max {} µs ({} calls)",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0),
        v.len()
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(package) = args.get(1) else {
        eprintln!("usage: request_budget PKG [BUDGET_MS] [REQUESTS]");
        std::process::exit(2);
    };
    let budget_ms: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let requests: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(500);
    let budget = Duration::from_secs_f64(budget_ms / 1e3);
    let mut world = NavWorld::open(std::path::Path::new(package), StreamOptions::default())
        .unwrap_or_else(|e| {
            eprintln!("{package}: {e}");
            std::process::exit(1);
        });
    let spec = world.nav().spec;
    let mut rng = SplitMix64::new(1);
    let mut pairs = Vec::with_capacity(requests + 1);
    for _ in 0..requests * 1000 {
        if pairs.len() > requests {
            break;
        }
        let a = (rng.below(spec.width), rng.below(spec.height));
        let b = (rng.below(spec.width), rng.below(spec.height));
        let apart = a.0.abs_diff(b.0) >= spec.width / 2 || a.1.abs_diff(b.1) >= spec.height / 2;
        if apart && world.is_reachable(0, a, b) {
            pairs.push((a, b));
        }
    }
    assert!(pairs.len() > 1, "{package}: too few reachable pairs");
    let first = world.request_path(0, &[pairs[0].0], pairs[0].1).unwrap();
    world.release_path(first);
    let (mut wall_us, mut cpu_us, mut calls) = (Vec::new(), Vec::new(), Vec::new());
    for &(a, b) in &pairs[1..] {
        let mut pending = world.start_path(0, &[a], &[b]);
        let id = loop {
            let (t, c) = (Instant::now(), cpu_clock::thread_us());
            let answer = world.advance_path(&mut pending, budget);
            cpu_us.push(cpu_clock::thread_us() - c);
            wall_us.push(t.elapsed().as_micros() as u64);
            if let Some(answer) = answer {
                break answer.unwrap();
            }
        };
        calls.push(u64::from(pending.calls()));
        world.release_path(id);
    }
    println!(
        "{package}: {} requests in calls of {budget_ms} ms",
        pairs.len() - 1
    );
    println!("wall: {}", percentiles(wall_us));
    println!("cpu:  {}", percentiles(cpu_us));
    println!(
        "calls per request: {}",
        percentiles(calls).replace(" µs", "")
    );
    let mut whole = Vec::new();
    for &(a, b) in &pairs[1..] {
        let c = cpu_clock::thread_us();
        let id = world.request_path(0, &[a], b).unwrap();
        whole.push(cpu_clock::thread_us() - c);
        world.release_path(id);
    }
    println!(
        "unbudgeted request cpu: {}",
        percentiles(whole).replace(" calls", " requests")
    );
    drop(world);
    // The same requests through a query on the data read whole: refined lazily (its
    // default) and eagerly.
    let data = std::sync::Arc::new(NavData::read(std::path::Path::new(package)).unwrap());
    for lazy in [true, false] {
        let mut query = PathQuery::new(QueryOptions {
            lazy_refinement: lazy,
            ..QueryOptions::default()
        });
        let ty = MoveType::from(0);
        let ask = |q: &mut PathQuery, (a, b): ((u32, u32), (u32, u32))| {
            q.request_path(&data, ty, &[Cell::from(a)], Cell::from(b))
                .unwrap()
        };
        drop(ask(&mut query, pairs[0]));
        let mut cpu = Vec::new();
        for &pair in &pairs[1..] {
            let c = cpu_clock::thread_us();
            drop(ask(&mut query, pair));
            cpu.push(cpu_clock::thread_us() - c);
        }
        let how = if lazy { "lazy" } else { "eager" };
        println!(
            "query ({how}) request cpu: {}",
            percentiles(cpu).replace(" calls", " requests")
        );
    }
}
