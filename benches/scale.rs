//! Big maps: the generated benchmark map at 4096² and 8192² cells with its three movement
//! types, measured against the scale targets (docs/performance.md, "Big maps"):
//! - the full bake with the package written to a file (criterion, 10 bakes;
//!   `NAVSTUDIO_SCALE_BAKE=0` skips it);
//! - opening the package streamed (`NavWorld::open`) and answering the first request across
//!   the map, and the same after reading the whole package (`package::read`);
//! - warm `request_path` across the map (criterion), and the median, p99 and max of 1,000
//!   single requests, printed;
//! - a game's resident memory after opening the package and answering 1,000 requests,
//!   measured in a child process that does only that (printed);
//! - the same 1,000 requests with the flat portal A* and over the sector hierarchy
//!   (`NAVSTUDIO_SCALE_COMPARE=0` skips it: the flat search's per-node tables take a while
//!   to build at 8192²);
//! - the package's size.
//!
//! Sizes come from `NAVSTUDIO_SCALE_SIZES` (default `4096,8192`). Not run by `cargo test`.
//!
//! `cargo bench --no-default-features --bench scale`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::Criterion;
use navstudio::bake::{self, BakeContext, BakeOptions};
use navstudio::map::{self, GenerateSpec, MapKind, StampLibrary};
use navstudio::nav::grid::WALL;
use navstudio::nav::{NavWorld, SearchMode, StreamOptions};
use navstudio::package;

mod common;
use common::Rng;

/// A request's source and goal cells.
type CellPair = ((u32, u32), (u32, u32));

/// Set in the child process: the package to open.
const CHILD_ENV: &str = "NAVSTUDIO_SCALE_CHILD_PACKAGE";

/// Random pairs of land cells on one island, at least half the map apart on one axis.
fn far_pairs(
    world: &NavWorld,
    costs: &[u8],
    size: u32,
    count: usize,
    seed: u64,
) -> Vec<((u32, u32), (u32, u32))> {
    let mut rng = Rng::new(seed);
    let passable = |rng: &mut Rng| loop {
        let c = (rng.below(size), rng.below(size));
        if costs[(c.1 * size + c.0) as usize] != WALL {
            return c;
        }
    };
    let mut pairs = Vec::with_capacity(count);
    while pairs.len() < count {
        let (a, b) = (passable(&mut rng), passable(&mut rng));
        if a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= size / 2 && world.is_reachable(0, a, b) {
            pairs.push((a, b));
        }
    }
    pairs
}

/// `VmHWM` and `VmRSS` of this process, in MiB.
fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kib| kib.parse::<f64>().ok())
            .map_or(f64::NAN, |kib| kib / 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// The child: what a game does, and nothing else — open the package streamed with the
/// default cache budget, answer 1,000 requests (pairs the parent wrote beside it), report
/// memory.
fn child(path: &Path) {
    let pairs: Vec<((u32, u32), (u32, u32))> =
        std::fs::read_to_string(path.with_extension("pairs"))
            .unwrap()
            .lines()
            .map(|l| {
                let v: Vec<u32> = l.split_whitespace().map(|n| n.parse().unwrap()).collect();
                ((v[0], v[1]), (v[2], v[3]))
            })
            .collect();
    let mut world = NavWorld::open(path, StreamOptions::default()).unwrap();
    for &(a, g) in &pairs {
        let id = world.request_path(0, &[a], g).unwrap();
        world.release_path(id);
    }
    let (peak, now) = memory_mib();
    println!("{peak:.0} {now:.0}");
}

fn bench_size(c: &mut Criterion, size: u32, dir: &Path) {
    let g = map::generate(&GenerateSpec {
        kind: MapKind::Benchmark,
        width: size,
        height: size,
        seed: 1,
    });
    let heightmap = map::heightmap_from_u16(g.width, g.height, &g.heights);
    let stamps = StampLibrary::builtin().unwrap();
    let path = dir.join(format!("benchmark-{size}.navpkg"));
    // The bake without the grids only the editor keeps, as `navstudio bake` runs it.
    let bake_once = || {
        bake::bake(
            &g.document,
            &heightmap,
            &stamps,
            &BakeOptions {
                types: None,
                nav_only: true,
            },
            &mut BakeContext::default(),
        )
        .unwrap()
    };
    // What `navstudio bake -o` does after reading the map: the bake, then the package (its
    // search tables, compression and the file, synced).
    let bake_and_write = || {
        let baked = bake_once();
        let meta = bake::package_meta(&g.document, &baked.type_indices);
        let bytes = package::write(&path, &baked.nav, &meta).unwrap();
        (baked, bytes)
    };
    let mut group = c.benchmark_group(format!("scale_{size}"));
    group.sample_size(10);
    if std::env::var("NAVSTUDIO_SCALE_BAKE").as_deref() != Ok("0") {
        group.bench_function("full bake, 3 movement types, package written", |b| {
            // The CLI leaves the baked data to the process's end; so does this (not timed).
            b.iter_with_large_drop(bake_and_write);
        });
    }
    let baked = bake_once();
    let start = Instant::now();
    let bytes = package::write(
        &path,
        &baked.nav,
        &bake::package_meta(&g.document, &baked.type_indices),
    )
    .unwrap();
    let write = start.elapsed();
    println!(
        "scale_{size}: package {:.1} MB ({:.3} bytes per cell per type), written in {:.2} s",
        bytes as f64 / 1e6,
        bytes as f64 / (f64::from(size) * f64::from(size) * 3.0),
        write.as_secs_f64()
    );
    let costs = baked.nav.layers[0].cost.to_cells();
    drop(baked);

    let probe = NavWorld::from_nav(package::read(&path).unwrap().nav);
    let pairs = far_pairs(&probe, &costs, size, 64, 1);
    drop(probe);
    let mut k = 0;
    group.bench_function("open the package and answer the first request", |b| {
        b.iter(|| {
            k = (k + 1) % pairs.len();
            let mut world = NavWorld::open(&path, StreamOptions::default()).unwrap();
            let (a, g) = pairs[k];
            black_box(world.request_path(0, &[a], g).unwrap())
        });
    });
    group.bench_function("read the whole package and answer the first request", |b| {
        b.iter(|| {
            k = (k + 1) % pairs.len();
            let mut world = NavWorld::from_package(package::read(&path).unwrap());
            let (a, g) = pairs[k];
            black_box(world.request_path(0, &[a], g).unwrap())
        });
    });

    let mut world = NavWorld::open(&path, StreamOptions::default()).unwrap();
    let mut i = 0;
    group.sample_size(50);
    group.bench_function("warm request_path across the map", |b| {
        b.iter(|| {
            i = (i + 1) % pairs.len();
            let (a, g) = pairs[i];
            let id = world.request_path(0, &[a], g).unwrap();
            world.release_path(id);
        });
    });
    group.finish();

    let many = far_pairs(&world, &costs, size, 1000, 3);
    let listed: String = many
        .iter()
        .map(|((ax, ay), (bx, by))| format!("{ax} {ay} {bx} {by}\n"))
        .collect();
    std::fs::write(path.with_extension("pairs"), listed).unwrap();
    let times = timed_requests(&mut world, &many);
    println!(
        "scale_{size}: 1,000 warm requests across the map: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        times[times.len() - 1]
    );

    if let Some(stats) = world.stream_stats() {
        println!(
            "scale_{size}: streamed regions after them: {} resident ({:.0} MiB of tiles), {} loads, {} evictions",
            stats.resident_regions,
            stats.resident_bytes as f64 / f64::from(1 << 20),
            stats.loads,
            stats.evictions
        );
    }
    if std::env::var("NAVSTUDIO_SCALE_COMPARE").as_deref() != Ok("0") {
        compare_searches(size, &path, &many);
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, &path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace();
    println!(
        "scale_{size}: a game that opened the package streamed (default budget) and answered 1,000 requests: peak {} MiB, resident {} MiB",
        fields.next().unwrap_or("?"),
        fields.next().unwrap_or("?")
    );
}

/// Milliseconds per request of `pairs` on layer 0, each path released after it, sorted.
fn timed_requests(world: &mut NavWorld, pairs: &[CellPair]) -> Vec<f64> {
    let mut times: Vec<f64> = pairs
        .iter()
        .map(|&(a, g)| {
            let start = Instant::now();
            let id = world.request_path(0, &[a], g).unwrap();
            let t = start.elapsed().as_secs_f64() * 1e3;
            world.release_path(id);
            t
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

/// The same warm requests (each pair asked once before) with the flat portal A* (landmark
/// tables per portal node, built here) and over the sector hierarchy, both on the package
/// read whole: median and p99 ms and nodes expanded per request, printed.
fn compare_searches(size: u32, path: &Path, pairs: &[CellPair]) {
    for mode in [SearchMode::Flat, SearchMode::Clusters] {
        let mut world = NavWorld::from_package(package::read(path).unwrap());
        world.set_search_mode(mode);
        // A pass over the pairs first: its first request builds (flat) or decodes
        // (hierarchy) the search tables, and the hierarchy computes the landmarks inside
        // the clusters the routes cross on first use.
        timed_requests(&mut world, pairs);
        let expanded = world.a_star_expansions();
        let times = timed_requests(&mut world, pairs);
        println!(
            "scale_{size}: {mode:?} search, {} warm requests: median {:.2} ms, p99 {:.2} ms, {} nodes expanded per request",
            pairs.len(),
            times[times.len() / 2],
            times[times.len() * 99 / 100],
            (world.a_star_expansions() - expanded) / pairs.len() as u64
        );
    }
}

fn main() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        child(Path::new(&path));
        return;
    }
    let sizes: Vec<u32> = std::env::var("NAVSTUDIO_SCALE_SIZES")
        .unwrap_or_else(|_| "4096,8192".to_owned())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut c = Criterion::default().configure_from_args();
    for size in sizes {
        bench_size(&mut c, size, dir.path());
    }
    c.final_summary();
}
