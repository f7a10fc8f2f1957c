//! The C boundary's cost in instructions, which a shared machine's load does not blur (the
//! criterion bench `benches/capi.rs` measures time). Runs the bench's work through one side:
//!
//! `overhead rust|c REQUESTS SAMPLES`: REQUESTS requests (plan, trace, release) in turn over
//! 32 pairs on a 512² map, then SAMPLES flow samples along one route.
//!
//! Count with valgrind, and subtract a run with `0 0` (the set-up):
//! `valgrind --tool=cachegrind --cache-sim=no target/release/examples/overhead c 320 40960`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use navstudio_nav::{NavWorld, package};

#[path = "../tests/common/mod.rs"]
mod common;
use common::{Rng, World, package_bytes, random_nav};

const SIZE: u32 = 512;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let side = args.get(1).map_or("rust", String::as_str);
    let requests: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(32);
    let samples: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(4096);
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
    // Set-up on both sides (landmarks, the sample positions), so `0 0` subtracts it all.
    for (a, b) in &pairs {
        let id = rust.request_path(0, &[*a], *b).unwrap();
        rust.release_path(id);
        let p = capi.request(0, &[*a], *b).unwrap();
        capi.release(p).unwrap();
    }
    let (a, b) = pairs[0];
    let id = rust.request_path(0, &[a], b).unwrap();
    let p = capi.request(0, &[a], b).unwrap();
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
    let mut cells = vec![navstudio_capi::NavstudioCell::default(); 1 << 16];

    for k in 0..requests {
        let (a, b) = pairs[k % pairs.len()];
        if side == "c" {
            let p = capi.request(0, &[a], b).unwrap();
            black_box(capi.trace_into(p, a, &mut cells).unwrap().0);
            capi.release(p).unwrap();
        } else {
            let id = rust.request_path(0, &[a], b).unwrap();
            black_box(rust.trace_path(id, a).unwrap().length);
            rust.release_path(id);
        }
    }
    for k in 0..samples {
        let pos = positions[k % positions.len()];
        if side == "c" {
            black_box(capi.sample(p, pos).ok());
        } else {
            black_box(rust.sample_flow(id, pos));
        }
    }
}
