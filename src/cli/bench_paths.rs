//! `navstudio bench-paths`: what a game meets on any map — open a package streamed, time the
//! first request, then answer random reachable requests across the map, warm, on one or more
//! threads, and report the request times, the wall time and the process's memory.
//!
//! Each thread opens its own streamed `NavWorld` (a world answers one request at a time), so
//! `--threads T` shows the throughput of T independent worlds and the memory of all of them.

use std::path::Path;
use std::time::{Duration, Instant};

use navstudio::crowd::rng::SplitMix64;
use navstudio::nav::{NavWorld, SearchMode, StreamOptions};

/// What `navstudio bench-paths` measures.
pub struct BenchPathsArgs<'a> {
    /// The package.
    pub package: &'a Path,
    /// Movement type name; the package's first type when `None`.
    pub type_name: Option<&'a str>,
    /// Warm requests to answer after the first.
    pub requests: usize,
    /// Threads, each with its own world.
    pub threads: usize,
    /// Seed of the random pairs.
    pub seed: u64,
    /// Print one JSON object instead of text.
    pub json: bool,
    /// The portal search; the package's choice when `None`.
    pub search: Option<SearchMode>,
    /// Answer each request in calls of this budget (`NavWorld::advance_path`), as a game
    /// spreads requests over frames. `[Units: ms]`
    pub budget_ms: Option<f64>,
}

/// Runs the benchmark and prints its figures.
pub fn bench_paths_cmd(args: &BenchPathsArgs<'_>) -> Result<(), String> {
    if let Some(b) = args.budget_ms
        && !(b.is_finite() && b > 0.0)
    {
        return Err(format!(
            "--budget-ms {b}: give a positive number of milliseconds per call, such as 1"
        ));
    }
    let name = args.package.display();
    let open = |what: &str| -> Result<NavWorld, String> {
        let mut world = NavWorld::open(args.package, StreamOptions::default())
            .map_err(|e| format!("{name}: {e} ({what})"))?;
        if let Some(mode) = args.search {
            world.set_search_mode(mode);
        }
        Ok(world)
    };
    let start = Instant::now();
    let mut world = open("opening it")?;
    let layer = match args.type_name {
        None => 0,
        Some(t) => world
            .nav()
            .layers
            .iter()
            .position(|l| l.name == t)
            .ok_or_else(|| {
                let names: Vec<&str> = world.nav().layers.iter().map(|l| l.name.as_str()).collect();
                format!(
                    "{name}: no movement type '{t}'; the package has {}",
                    names.join(", ")
                )
            })?,
    };
    let type_name = world
        .nav()
        .layers
        .get(layer)
        .map(|l| l.name.clone())
        .ok_or_else(|| format!("{name}: the package has no movement types"))?;
    let pairs = far_pairs(&world, layer, args.requests + 1, args.seed)
        .ok_or_else(|| {
            format!(
                "{name}: found too few pairs of '{type_name}' cells on one island at least half the map apart; bench a map with more open ground"
            )
        })?;
    let budget = args.budget_ms.map(|ms| Duration::from_secs_f64(ms / 1e3));
    // A request's time (over all its calls when budgeted) and each call's.
    let request = |world: &mut NavWorld, (a, b): CellPair| -> Result<Timed, String> {
        let refused = |e| format!("{name}: request ({},{}) → ({},{}): {e}", a.0, a.1, b.0, b.1);
        let Some(budget) = budget else {
            let t = Instant::now();
            let id = world.request_path(layer, &[a], b).map_err(refused)?;
            let took = t.elapsed();
            world.release_path(id);
            return Ok((took, Vec::new()));
        };
        let mut pending = world.start_path(layer, &[a], &[b]);
        let mut calls = Vec::new();
        let id = loop {
            let t = Instant::now();
            let answer = world.advance_path(&mut pending, budget);
            calls.push(t.elapsed());
            if let Some(answer) = answer {
                break answer.map_err(refused)?;
            }
        };
        world.release_path(id);
        Ok((calls.iter().sum(), calls))
    };
    request(&mut world, pairs[0])?;
    let first = start.elapsed();

    let threads = args.threads.max(1);
    let (first_pair, warm) = (pairs[0], &pairs[1..]);
    let wall = Instant::now();
    let mut timed: Vec<Timed> = Vec::with_capacity(warm.len());
    if threads == 1 {
        for &p in warm {
            timed.push(request(&mut world, p)?);
        }
    } else {
        let chunk = warm.len().div_ceil(threads);
        let results: Vec<Result<Vec<Timed>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = warm
                .chunks(chunk)
                .map(|part| {
                    let (open, request) = (&open, &request);
                    s.spawn(move || {
                        let mut world = open("opening it on a worker thread")?;
                        // Warm this world's regions as the main one was.
                        request(&mut world, first_pair)?;
                        part.iter().map(|&p| request(&mut world, p)).collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a worker thread panicked".to_owned()))
                })
                .collect()
        });
        for r in results {
            timed.extend(r?);
        }
    }
    let wall = wall.elapsed();
    let mut times: Vec<Duration> = timed.iter().map(|t| t.0).collect();
    let mut calls: Vec<Duration> = timed.iter().flat_map(|t| t.1.iter().copied()).collect();
    let mut per_request: Vec<usize> = timed.iter().map(|t| t.1.len()).collect();
    times.sort_unstable();
    calls.sort_unstable();
    per_request.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let quantile = |v: &[Duration], q: f64| {
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .map_or(f64::NAN, ms)
    };
    let (median, p99, max) = (
        quantile(&times, 0.5),
        quantile(&times, 0.99),
        times.last().copied().map_or(f64::NAN, ms),
    );
    // Budgeted: each call's time and its overrun of the budget.
    let budget_ms = budget.map_or(0.0, ms);
    let (call_median, call_p99, call_max) = (
        quantile(&calls, 0.5),
        quantile(&calls, 0.99),
        calls.last().copied().map_or(f64::NAN, ms),
    );
    let overrun_p99 = (call_p99 - budget_ms).max(0.0);
    let calls_median = per_request.get(per_request.len() / 2).copied().unwrap_or(0);
    let calls_max = per_request.last().copied().unwrap_or(0);
    let resident = resident_mib();
    let spec = world.nav().spec;
    if args.json {
        println!(
            "{{\"package\":{:?},\"type\":{:?},\"width\":{},\"height\":{},\"requests\":{},\"threads\":{threads},\"seed\":{},\"open_and_first_ms\":{:.3},\"median_ms\":{median:.4},\"p99_ms\":{p99:.4},\"max_ms\":{max:.4},\"wall_s\":{:.4},\"resident_mib\":{resident:.1}{}}}",
            name.to_string(),
            type_name,
            spec.width,
            spec.height,
            times.len(),
            args.seed,
            ms(first),
            wall.as_secs_f64(),
            if budget.is_some() {
                format!(
                    ",\"budget_ms\":{budget_ms},\"call_median_ms\":{call_median:.4},\"call_p99_ms\":{call_p99:.4},\"call_max_ms\":{call_max:.4},\"overrun_p99_ms\":{overrun_p99:.4},\"calls_median\":{calls_median},\"calls_max\":{calls_max}"
                )
            } else {
                String::new()
            }
        );
    } else {
        println!(
            "{name}: {} × {} cells, type '{type_name}'",
            spec.width, spec.height
        );
        println!("open and first request  {:.1} ms", ms(first));
        println!(
            "{} warm requests across the map (pairs at least half the map apart, seed {}) on {threads} thread(s)",
            times.len(),
            args.seed
        );
        println!("request  median {median:.3} ms   p99 {p99:.3} ms   max {max:.3} ms");
        if budget.is_some() {
            println!(
                "calls    budget {budget_ms:.3} ms: median {call_median:.3} ms   p99 {call_p99:.3} ms (overrun {overrun_p99:.3} ms)   max {call_max:.3} ms; {calls_median} per request (median), {calls_max} at most"
            );
        }
        println!("wall     {:.3} s", wall.as_secs_f64());
        println!("resident {resident:.0} MiB (the whole process)");
    }
    Ok(())
}

/// A request's source and goal cells.
type CellPair = ((u32, u32), (u32, u32));

/// A request's time (all its calls when budgeted) and each budgeted call's.
type Timed = (Duration, Vec<Duration>);

/// `count` random pairs of cells on one island of `layer`, at least half the map apart along
/// one axis; `None` when the map gives too few (a tenth of a million tries each).
fn far_pairs(world: &NavWorld, layer: usize, count: usize, seed: u64) -> Option<Vec<CellPair>> {
    let spec = world.nav().spec;
    let mut rng = SplitMix64::new(seed);
    let mut below = |n: u32| rng.below(n);
    let mut pairs = Vec::with_capacity(count);
    let mut tries = 0usize;
    while pairs.len() < count {
        tries += 1;
        if tries > count.saturating_mul(100_000) {
            return None;
        }
        let a = (below(spec.width), below(spec.height));
        let b = (below(spec.width), below(spec.height));
        let apart = a.0.abs_diff(b.0) >= spec.width / 2 || a.1.abs_diff(b.1) >= spec.height / 2;
        if apart && world.is_reachable(layer, a, b) {
            pairs.push((a, b));
        }
    }
    Some(pairs)
}

/// The process's resident memory (`VmRSS`), where the system reports it. `[Units: MiB]`
fn resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}
