//! The most work one `navstudio_crowd_step` call may do, on the worst input for it: a crowd
//! started in a small square (0 m piles every agent on one spot), ordered across the map,
//! stepped in calls of its share of agent-steps (120,000 / agents, at most 60). Prints each
//! call's wall and CPU time (the process's, all threads).
//!
//! `cargo run --release -p navstudio-capi --example crowd_extreme -- PKG AGENTS SIDE_M [big][mix]`
//! (`big`: the largest neighbour radius, 100 m; `mix`: one agent in 50 of 8 m radius).

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "an example makes many C calls under one stated contract"
)]

use std::ptr::null_mut;

use navstudio_capi::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(pkg), Some(Ok(n)), Some(Ok(side_m))) = (
        args.get(1),
        args.get(2).map(|s| s.parse::<usize>()),
        args.get(3).map(|s| s.parse::<f32>()),
    ) else {
        eprintln!("usage: crowd_extreme PKG AGENTS SIDE_M [big][mix]");
        std::process::exit(2);
    };
    let flags = args.get(4).map_or("", String::as_str);
    let Ok(path) = std::ffi::CString::new(pkg.as_str()) else {
        eprintln!("{pkg}: a path with a NUL byte");
        std::process::exit(2);
    };
    // SAFETY: NUL-terminated strings, writable outputs, live handles used by this thread.
    unsafe {
        let mut w = null_mut();
        if navstudio_world_open(path.as_ptr(), &raw mut w) != NavstudioStatus::Ok {
            eprintln!("{pkg}: could not open the package");
            std::process::exit(1);
        }
        let mut crowd = null_mut();
        navstudio_crowd_create(w, 7, &raw mut crowd);
        let mut a = std::mem::MaybeUninit::<NavstudioArchetype>::uninit();
        navstudio_archetype_default(c"infantry".as_ptr(), a.as_mut_ptr());
        let mut a = a.assume_init();
        if flags.contains("big") {
            a.max_speed = 100.0;
            a.mass = 0.1;
            a.max_force = 100.0;
            a.neighbour_radius_m = 100.0;
        }
        let k = (n as f32).sqrt().ceil() as usize;
        let mut ids = Vec::new();
        for i in 0..n * 4 {
            if ids.len() == n {
                break;
            }
            let (x, y) = ((i % k) as f32, (i / k) as f32);
            let p = NavstudioVec2 {
                x: 300.0 + x / k as f32 * side_m,
                y: 300.0 + y / k as f32 * side_m,
            };
            let mut b = a;
            if flags.contains("mix") && i % 50 == 0 {
                b.radius_m = 8.0;
                b.mass = 1e7;
            }
            let mut id = 0;
            if navstudio_crowd_add_agent(crowd, w, &raw const b, p, 0, &raw mut id)
                == NavstudioStatus::Ok
            {
                ids.push(id);
            }
        }
        let goal = NavstudioVec2 { x: 100.5, y: 100.5 };
        navstudio_crowd_order(crowd, w, ids.as_ptr(), ids.len(), goal, null_mut());
        let steps = (120_000 / ids.len().max(1)).clamp(1, 60) as u32;
        for call in 0..4 {
            let (t, cpu) = (std::time::Instant::now(), cpu_secs());
            let s = navstudio_crowd_step(crowd, w, steps);
            println!(
                "{} agents from a {side_m} m square, call {call} of {steps} steps: {:.2} s wall, \
                 {:.2} s cpu, {s:?}",
                ids.len(),
                t.elapsed().as_secs_f64(),
                cpu_secs() - cpu
            );
        }
        navstudio_crowd_free(crowd);
        navstudio_world_free(w);
    }
}

/// CPU time of the process so far, all threads (Linux `/proc/self/stat`; 0 elsewhere).
fn cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
