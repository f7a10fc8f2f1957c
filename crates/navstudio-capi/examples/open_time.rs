//! Times the ways a game starts on a package: a world from memory and from a file (both
//! streamed), and shared data for worker threads (read whole), each with the first request
//! after it, which reads the movement type's graph and the regions it crosses: the calls
//! whose time grows with the map.
//!
//! `cargo run --release -p navstudio-capi --example open_time -- PKG`
//!
//! Each time comes with the process's CPU time over the call (all threads: the decoding
//! runs on the worker pool), which a machine busy with other work does not inflate.

use std::ptr::null_mut;
use std::time::Instant;

use navstudio_capi::*;

#[path = "support/cpu_clock.rs"]
mod cpu_clock;

/// `f`'s result and the process's CPU seconds over it.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let c = cpu_clock::process_s();
    let out = f();
    (out, cpu_clock::process_s() - c)
}

/// Times the first request across the map: from an eighth in along the diagonal to the
/// first goal further along it that is not walled off or on another island (those answers
/// come from the island ids and cost nothing). `request(from, goal)` asks for the path.
fn first_request(
    info: &NavstudioWorldInfo,
    mut request: impl FnMut(NavstudioCell, NavstudioCell) -> NavstudioStatus,
) -> (NavstudioStatus, std::time::Duration) {
    let from = NavstudioCell {
        x: info.width / 8,
        y: info.height / 8,
    };
    let (mut status, mut time) = (NavstudioStatus::Unreachable, Default::default());
    for eighth in (2..8).rev() {
        let goal = NavstudioCell {
            x: info.width * eighth / 8,
            y: info.height * eighth / 8,
        };
        let t = Instant::now();
        status = request(from, goal);
        time = t.elapsed();
        if !matches!(status, NavstudioStatus::Unreachable | NavstudioStatus::Wall) {
            break;
        }
    }
    (status, time)
}

/// Opens with `open`, then asks movement type 0 for a path across the map's diagonal;
/// prints the two times and statuses.
fn time_start(how: &str, open: impl FnOnce(*mut *mut NavstudioWorld) -> NavstudioStatus) {
    let mut w = null_mut();
    let t = Instant::now();
    let (opened, open_cpu) = timed(|| open(&raw mut w));
    let open_time = t.elapsed();
    let mut info = NavstudioWorldInfo::default();
    // SAFETY: a live handle or null (refused); writable output.
    let _ = unsafe { navstudio_world_info(w, &raw mut info) };
    let mut path = 0u32;
    let ((requested, request_time), request_cpu) = timed(|| {
        first_request(&info, |from, goal| {
            // SAFETY: a live handle or null (refused); one readable source; writable output.
            unsafe { navstudio_request_path(w, 0, &raw const from, 1, goal, &raw mut path) }
        })
    });
    // SAFETY: a live handle or null, freed once.
    unsafe { navstudio_world_free(w) };
    println!(
        "  {how}: open {:.3} s (cpu {open_cpu:.3} s, {opened:?}), first request across the map {:.3} s (cpu {request_cpu:.3} s, {requested:?})",
        open_time.as_secs_f64(),
        request_time.as_secs_f64()
    );
}

/// Opens the package as shared data and answers one request across the map with a query.
fn time_shared(path: &std::ffi::CStr) {
    let mut data = null_mut();
    let t = Instant::now();
    // SAFETY: NUL-terminated path, writable output.
    let (opened, open_cpu) = timed(|| unsafe { navstudio_data_open(path.as_ptr(), &raw mut data) });
    let open_time = t.elapsed();
    let mut info = NavstudioWorldInfo::default();
    // SAFETY: a live handle or null (refused); writable output.
    let _ = unsafe { navstudio_data_info(data, &raw mut info) };
    let mut query = null_mut();
    // SAFETY: writable output.
    let _ = unsafe { navstudio_query_create(&raw mut query) };
    let ((requested, request_time), request_cpu) = timed(|| {
        first_request(&info, |from, goal| {
            let mut shared = null_mut();
            // SAFETY: live or null handles (refused); one readable source; writable output.
            let status = unsafe {
                navstudio_query_request_path(
                    query,
                    data,
                    0,
                    &raw const from,
                    1,
                    goal,
                    &raw mut shared,
                )
            };
            // SAFETY: a live handle or null, freed once.
            unsafe { navstudio_shared_path_free(shared) };
            status
        })
    });
    // SAFETY: live handles or null, freed once.
    unsafe { navstudio_query_free(query) };
    // SAFETY: as above.
    unsafe { navstudio_data_free(data) };
    println!(
        "  shared data: open {:.3} s (cpu {open_cpu:.3} s, {opened:?}), first request across the map {:.3} s (cpu {request_cpu:.3} s, {requested:?})",
        open_time.as_secs_f64(),
        request_time.as_secs_f64()
    );
}

fn main() {
    let Some(pkg) = std::env::args().nth(1) else {
        eprintln!("usage: open_time PKG");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&pkg) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{pkg}: {e}");
            std::process::exit(1);
        }
    };
    let Ok(path) = std::ffi::CString::new(pkg.as_str()) else {
        eprintln!("{pkg}: a path with a NUL byte");
        std::process::exit(2);
    };
    println!("{pkg} ({} MB)", bytes.len() / 1_000_000);
    for _ in 0..3 {
        // SAFETY: `bytes` is readable for its length; writable output.
        time_start("from memory", |w| unsafe {
            navstudio_world_open_bytes(bytes.as_ptr(), bytes.len(), w)
        });
        // SAFETY: NUL-terminated path, writable output.
        time_start("from a file", |w| unsafe {
            navstudio_world_open(path.as_ptr(), w)
        });
        time_shared(&path);
    }
}
