//! `navstudio bench-paths`: what a game meets on any map — open a package, time the first
//! request, wait for the work it left in the background (timed apart), then answer random
//! reachable requests across the map, warm, on one or more threads, and report the request
//! times, the wall time and the process's memory.
//!
//! Without `--threads` one streamed `NavWorld` answers, as a single-threaded game would run
//! it. `--threads T` reads the package whole into one shared `NavData` and answers on T
//! threads, each with its own `PathQuery`, as a game's job threads would: `--threads 1`
//! against `--threads 2` is what a second thread buys.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use navstudio::nav::rng::SplitMix64;
use navstudio::nav::{
    Cell, GridSpec, MoveType, NavData, NavWorld, PathQuery, QueryOptions, SearchMode, StreamOptions,
};

/// What `navstudio bench-paths` measures.
pub struct BenchPathsArgs<'a> {
    /// The package.
    pub package: &'a Path,
    /// Movement type name; the package's first type when `None`.
    pub type_name: Option<&'a str>,
    /// Warm requests to answer after the first.
    pub requests: usize,
    /// Threads sharing one `NavData`, each with its own query; `None`: one streamed world.
    pub threads: Option<usize>,
    /// Seed of the random pairs.
    pub seed: u64,
    /// Print one JSON object instead of text.
    pub json: bool,
    /// The portal search; the package's choice when `None`.
    pub search: Option<SearchMode>,
    /// Answer each request in calls of this budget (`advance_path`), as a game spreads
    /// requests over frames. `[Units: ms]`
    pub budget_ms: Option<f64>,
    /// Print what the shared data holds, by table (with `threads`).
    pub memory: bool,
    /// Print this many of the slowest warm requests, to plan again with `navstudio path`.
    pub slowest: usize,
}

/// A request's time (over all its calls when budgeted) and each budgeted call's.
type Timed = (Duration, Vec<Duration>);

/// Times a request answered by `call` (one call without a budget; with one, calls until it
/// says the path is ready).
fn timed<E>(budgeted: bool, mut call: impl FnMut() -> Option<Result<(), E>>) -> Result<Timed, E> {
    let mut calls = Vec::new();
    loop {
        let t = Instant::now();
        let answer = call();
        calls.push(t.elapsed());
        if let Some(answer) = answer {
            answer?;
            let total = calls.iter().sum();
            if !budgeted {
                calls.clear();
            }
            return Ok((total, calls));
        }
    }
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
    match args.threads {
        None => streamed(args),
        Some(threads) => shared(args, threads.max(1)),
    }
}

/// One streamed world answers every request.
fn streamed(args: &BenchPathsArgs<'_>) -> Result<(), String> {
    let name = args.package.display();
    let open = |what: &str| -> Result<NavWorld, String> {
        let mut world = NavWorld::open(args.package, StreamOptions::default())
            .map_err(|e| format!("{name}: {e} ({what})"))?;
        if let Some(mode) = args.search {
            world.set_search_mode(mode);
        }
        Ok(world)
    };
    let budget = budget_of(args);
    let start = Instant::now();
    let mut world = open("opening it")?;
    let layer = match args.type_name {
        None => 0,
        Some(t) => world
            .nav()
            .move_type(t)
            .map(MoveType::index)
            .ok_or_else(|| {
                let names: Vec<&str> = world.nav().move_types().map(|(_, n)| n).collect();
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
    let spec = world.nav().spec;
    let pairs = far_pairs(spec, |a, b| world.is_reachable(layer, a, b), args.requests + 1, args.seed)
        .ok_or_else(|| {
            format!(
                "{name}: found too few pairs of '{type_name}' cells on one island at least half the map apart; bench a map with more open ground"
            )
        })?;
    let request = |world: &mut NavWorld, (a, b): CellPair| -> Result<Timed, String> {
        let refused = |e| format!("{name}: request ({},{}) → ({},{}): {e}", a.0, a.1, b.0, b.1);
        let mut pending = budget.map(|_| world.start_path(layer, &[a], &[b]));
        let mut answered = None;
        let times = timed(budget.is_some(), || {
            let answer = match (&mut pending, budget) {
                (Some(p), Some(b)) => world.advance_path(p, b)?,
                _ => world.request_path(layer, &[a], b),
            };
            Some(answer.map(|id| answered = Some(id)))
        })
        .map_err(refused)?;
        if let Some(id) = answered {
            world.release_path(id);
        }
        Ok(times)
    };
    request(&mut world, pairs[0])?;
    let first = start.elapsed();
    let background = waited(|| world.wait_for_background());

    let warm = &pairs[1..];
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let mut times: Vec<Timed> = Vec::with_capacity(warm.len());
    for &p in warm {
        times.push(request(&mut world, p)?);
    }
    let (wall, cpu) = (wall.elapsed(), cpu_seconds() - cpu);
    report(
        args,
        &type_name,
        spec,
        (first, background),
        (wall, cpu),
        (warm, times),
        "streamed",
    );
    Ok(())
}

/// T threads share one `NavData`, each answering its share of the requests with its own
/// `PathQuery`.
fn shared(args: &BenchPathsArgs<'_>, threads: usize) -> Result<(), String> {
    let name = args.package.display();
    let start = Instant::now();
    let data = Arc::new(
        NavData::open(args.package, StreamOptions::default())
            .map_err(|e| format!("{name}: {e}"))?,
    );
    let ty = match args.type_name {
        None if data.layers.is_empty() => {
            return Err(format!("{name}: the package has no movement types"));
        }
        None => MoveType::new(0),
        Some(t) => data.move_type(t).ok_or_else(|| {
            let names: Vec<&str> = data.move_types().map(|(_, n)| n).collect();
            format!(
                "{name}: no movement type '{t}'; the package has {}",
                names.join(", ")
            )
        })?,
    };
    let type_name = data.layers[ty.index()].name.clone();
    let budget = budget_of(args);
    let request = |q: &mut PathQuery, (a, b): CellPair| -> Result<Timed, String> {
        let refused = |e| format!("{name}: request ({},{}) → ({},{}): {e}", a.0, a.1, b.0, b.1);
        let (a, b) = (Cell::from(a), Cell::from(b));
        let mut pending = budget.map(|_| q.start_path(&data, ty, &[a], &[b]));
        timed(budget.is_some(), || {
            let answer = match (&mut pending, budget) {
                (Some(p), Some(budget)) => q.advance_path(p, budget)?,
                _ => q.request_path(&data, ty, &[a], b),
            };
            // Dropped at once: a game would keep it in its path table.
            Some(answer.map(drop))
        })
        .map_err(refused)
    };
    let options = QueryOptions {
        search_mode: args.search.unwrap_or_default(),
        ..QueryOptions::default()
    };
    let mut query = PathQuery::new(options);
    let pairs = far_pairs(
        data.spec,
        |a, b| query.is_reachable(&data, ty, Cell::from(a), Cell::from(b)),
        args.requests + 1,
        args.seed,
    )
    .ok_or_else(|| {
        format!(
            "{name}: found too few pairs of '{type_name}' cells on one island at least half the map apart; bench a map with more open ground"
        )
    })?;
    request(&mut query, pairs[0])?;
    let first = start.elapsed();
    let background = waited(|| data.wait_for_background());
    if args.memory {
        print_memory(&data, "after the first request");
    }
    let (first_pair, warm) = (pairs[0], &pairs[1..]);
    let chunk = warm.len().div_ceil(threads).max(1);
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let results: Vec<Result<Vec<Timed>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = warm
            .chunks(chunk)
            .map(|part| {
                let request = &request;
                s.spawn(move || {
                    let mut q = PathQuery::new(options);
                    // The tables are built; this warms the query's own scratch.
                    request(&mut q, first_pair)?;
                    part.iter().map(|&p| request(&mut q, p)).collect()
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
    let (wall, cpu) = (wall.elapsed(), cpu_seconds() - cpu);
    if args.memory {
        print_memory(&data, "after the warm requests");
    }
    let mut times = Vec::with_capacity(warm.len());
    for r in results {
        times.extend(r?);
    }
    report(
        args,
        &type_name,
        data.spec,
        (first, background),
        (wall, cpu),
        (warm, times),
        "shared",
    );
    Ok(())
}

/// Prints to stderr what `data` holds, by table ([`NavData::memory`]), with the process's
/// resident memory for comparison.
fn print_memory(data: &NavData, when: &str) {
    let rows = data.memory();
    let mib = |bytes: usize| bytes as f64 / f64::from(1 << 20);
    eprintln!(
        "memory {when}: resident {:.0} MiB, of which the data's tables:",
        resident_mib()
    );
    for (what, bytes) in &rows {
        eprintln!("  {:>8.1} MiB  {what}", mib(*bytes));
    }
    let total: usize = rows.iter().map(|r| r.1).sum();
    eprintln!("  {:>8.1} MiB  in all", mib(total));
}

/// Prints the figures (text or one JSON object).
fn report(
    args: &BenchPathsArgs<'_>,
    type_name: &str,
    spec: GridSpec,
    (first, background): (Duration, Duration),
    (wall, cpu): (Duration, f64),
    (pairs, timed): (&[CellPair], Vec<Timed>),
    data: &str,
) {
    let name = args.package.display();
    // `timed[k]` answered `pairs[k]`: both modes keep the pairs' order.
    let mut slowest: Vec<(Duration, CellPair)> = timed
        .iter()
        .map(|t| t.0)
        .zip(pairs.iter().copied())
        .collect();
    slowest.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    slowest.truncate(args.slowest);
    let threads = args.threads.unwrap_or(1);
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
    // Budgeted: each call's time, and its overrun of the budget at the p99.
    let budget_ms = args.budget_ms.unwrap_or(0.0);
    let (call_median, call_p99, call_max) = (
        quantile(&calls, 0.5),
        quantile(&calls, 0.99),
        calls.last().copied().map_or(f64::NAN, ms),
    );
    let overrun_p99 = (call_p99 - budget_ms).max(0.0);
    let calls_median = per_request.get(per_request.len() / 2).copied().unwrap_or(0);
    let calls_max = per_request.last().copied().unwrap_or(0);
    let budgeted = args.budget_ms.is_some();
    let resident = resident_mib();
    if args.json {
        let slowest_json = if args.slowest == 0 {
            String::new()
        } else {
            let rows: Vec<String> = slowest
                .iter()
                .map(|&(t, ((ax, ay), (bx, by)))| {
                    format!(
                        "{{\"from\":[{ax},{ay}],\"to\":[{bx},{by}],\"ms\":{:.4}}}",
                        ms(t)
                    )
                })
                .collect();
            format!(",\"slowest\":[{}]", rows.join(","))
        };
        println!(
            "{{\"package\":{:?},\"type\":{:?},\"width\":{},\"height\":{},\"requests\":{},\"threads\":{threads},\"data\":{data:?},\"seed\":{},\"open_and_first_ms\":{:.3},\"background_ms\":{:.3},\"median_ms\":{median:.4},\"p99_ms\":{p99:.4},\"max_ms\":{max:.4},\"wall_s\":{:.4},\"cpu_s\":{cpu:.3},\"resident_mib\":{resident:.1}{}{slowest_json}}}",
            name.to_string(),
            type_name,
            spec.width,
            spec.height,
            times.len(),
            args.seed,
            ms(first),
            ms(background),
            wall.as_secs_f64(),
            if budgeted {
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
            "then waited {:.1} ms for the work it left in the background (the levels' other cells)",
            ms(background)
        );
        println!(
            "{} warm requests across the map (pairs at least half the map apart, seed {}) on {threads} thread(s), {data} data",
            times.len(),
            args.seed
        );
        println!("request  median {median:.3} ms   p99 {p99:.3} ms   max {max:.3} ms");
        if budgeted {
            println!(
                "calls    budget {budget_ms:.3} ms: median {call_median:.3} ms   p99 {call_p99:.3} ms (overrun {overrun_p99:.3} ms)   max {call_max:.3} ms; {calls_median} per request (median), {calls_max} at most"
            );
        }
        println!(
            "wall     {:.3} s ({cpu:.2} s of CPU over all threads)",
            wall.as_secs_f64()
        );
        println!("resident {resident:.0} MiB (the whole process)");
        if !slowest.is_empty() {
            println!(
                "slowest warm requests (plan one again: navstudio path {name} --type {type_name} --from X,Y --to X,Y):"
            );
            for &(t, ((ax, ay), (bx, by))) in &slowest {
                println!("  {:>8.3} ms  --from {ax},{ay} --to {bx},{by}", ms(t));
            }
        }
    }
}

/// How long `wait` took: after the first request, the wait for the work it left in the
/// background (decoding the levels' other cells), so that the warm requests are timed
/// apart from it.
fn waited(wait: impl FnOnce()) -> Duration {
    let start = Instant::now();
    wait();
    start.elapsed()
}

/// A request's source and goal cells.
type CellPair = ((u32, u32), (u32, u32));

/// The budget per call `--budget-ms` asks for.
fn budget_of(args: &BenchPathsArgs<'_>) -> Option<Duration> {
    args.budget_ms.map(|ms| Duration::from_secs_f64(ms / 1e3))
}

/// `count` random pairs of cells one can reach from the other, at least half the map apart along
/// one axis; `None` when the map gives too few (a tenth of a million tries each).
fn far_pairs(
    spec: GridSpec,
    mut reachable: impl FnMut((u32, u32), (u32, u32)) -> bool,
    count: usize,
    seed: u64,
) -> Option<Vec<CellPair>> {
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
        if apart && reachable(a, b) {
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

/// CPU seconds (user + system) the process has used, all threads, where the system reports
/// them (NaN elsewhere): with the wall time, what the threads did in parallel.
fn cpu_seconds() -> f64 {
    // Fields 14 and 15 of /proc/self/stat, in clock ticks (100 a second on Linux); the
    // command name (field 2) may hold spaces, so count from its closing parenthesis.
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = &s[s.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(f64::NAN)
}
