//! How long `navstudio_rebuild` runs past its budget, as a game calling it once per frame
//! sees it: a 1024² map with 64 live paths; each frame applies a stamp of walls (8–24
//! cells a side) or removes an old one, then calls `navstudio_rebuild(world, BUDGET_US)`
//! until the queue is empty. Prints every call's time as percentiles: wall time, and on
//! Linux the calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), which a loaded
//! machine's waits for a core do not inflate. Run it with `RAYON_NUM_THREADS=1` so all the
//! work is on the calling thread.
//!
//! `RAYON_NUM_THREADS=1 cargo run --release -p navstudio-capi --example rebuild_budget -- [BUDGET_US] [FRAMES]`
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Instant;

use navstudio_capi::*;

#[path = "../tests/common/mod.rs"]
mod common;
use common::{Rng, World, package_bytes, random_nav};

const SIZE: u32 = 1024;

#[path = "support/cpu_clock.rs"]
mod cpu_clock;

fn percentiles(mut v: Vec<u64>) -> String {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!(
        "p50 {} µs, p90 {} µs, p99 {} µs, max {} µs",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let budget_us: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let frames: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(300);
    let bytes = package_bytes(&random_nav(5, SIZE, SIZE));
    let mut world = World::from_bytes(&bytes).unwrap();
    let mut rng = Rng::new(17);
    let mut paths = 0;
    while paths < 64 {
        let a = (rng.below(SIZE), rng.below(SIZE));
        let b = (rng.below(SIZE), rng.below(SIZE));
        if world.request(0, &[a], b).is_ok() {
            paths += 1;
        }
    }
    let mut stamps: Vec<u32> = Vec::new();
    let mut calls_us: Vec<u64> = Vec::new();
    let mut cpu_us: Vec<u64> = Vec::new();
    let start = Instant::now();
    for _ in 0..frames {
        if stamps.len() > 20 || (!stamps.is_empty() && rng.below(3) == 0) {
            let s = stamps.remove(rng.below(stamps.len() as u32) as usize);
            // SAFETY: live handle.
            let st = unsafe { navstudio_remove_stamp(world.0, s) };
            assert_eq!(st, NavstudioStatus::Ok);
        } else {
            let (w, h) = (8 + rng.below(17), 8 + rng.below(17));
            let (x, y) = (rng.below(SIZE - w), rng.below(SIZE - h));
            let walls = vec![255u8; (w * h) as usize];
            stamps.push(world.stamp(&[0, 1], (x, y, w, h), &walls).unwrap());
        }
        loop {
            let mut done = false;
            let (t, c) = (Instant::now(), cpu_clock::thread_us());
            // SAFETY: live handle, writable out.
            let st = unsafe { navstudio_rebuild(world.0, budget_us, &raw mut done) };
            calls_us.push(t.elapsed().as_micros() as u64);
            cpu_us.push(cpu_clock::thread_us() - c);
            assert_eq!(st, NavstudioStatus::Ok);
            if done {
                break;
            }
        }
    }
    println!(
        "budget {budget_us} µs, {frames} frames, {} calls in {:.1} s",
        calls_us.len(),
        start.elapsed().as_secs_f64()
    );
    let cpu_total: u64 = cpu_us.iter().sum();
    println!("wall: {}", percentiles(calls_us));
    println!(
        "cpu:  {}; all calls {:.1} ms",
        percentiles(cpu_us),
        cpu_total as f64 / 1000.0
    );
}
