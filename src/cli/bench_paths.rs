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
}

/// Runs the benchmark and prints its figures.
pub fn bench_paths_cmd(args: &BenchPathsArgs<'_>) -> Result<(), String> {
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
    let request = |world: &mut NavWorld, (a, b): CellPair| -> Result<Duration, String> {
        let t = Instant::now();
        let id = world
            .request_path(layer, &[a], b)
            .map_err(|e| format!("{name}: request ({},{}) → ({},{}): {e}", a.0, a.1, b.0, b.1))?;
        let took = t.elapsed();
        world.release_path(id);
        Ok(took)
    };
    request(&mut world, pairs[0])?;
    let first = start.elapsed();

    let threads = args.threads.max(1);
    let (first_pair, warm) = (pairs[0], &pairs[1..]);
    let wall = Instant::now();
    let mut times: Vec<Duration> = Vec::with_capacity(warm.len());
    if threads == 1 {
        for &p in warm {
            times.push(request(&mut world, p)?);
        }
    } else {
        let chunk = warm.len().div_ceil(threads);
        let results: Vec<Result<Vec<Duration>, String>> = std::thread::scope(|s| {
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
            times.extend(r?);
        }
    }
    let wall = wall.elapsed();
    times.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let at = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q).round() as usize)
            .copied()
    };
    let (median, p99, max) = (
        at(0.5).map_or(f64::NAN, ms),
        at(0.99).map_or(f64::NAN, ms),
        times.last().copied().map_or(f64::NAN, ms),
    );
    let resident = resident_mib();
    let spec = world.nav().spec;
    if args.json {
        println!(
            "{{\"package\":{:?},\"type\":{:?},\"width\":{},\"height\":{},\"requests\":{},\"threads\":{threads},\"seed\":{},\"open_and_first_ms\":{:.3},\"median_ms\":{median:.4},\"p99_ms\":{p99:.4},\"max_ms\":{max:.4},\"wall_s\":{:.4},\"resident_mib\":{resident:.1}}}",
            name.to_string(),
            type_name,
            spec.width,
            spec.height,
            times.len(),
            args.seed,
            ms(first),
            wall.as_secs_f64()
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
        println!("wall     {:.3} s", wall.as_secs_f64());
        println!("resident {resident:.0} MiB (the whole process)");
    }
    Ok(())
}

/// A request's source and goal cells.
type CellPair = ((u32, u32), (u32, u32));

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
