//! Shared data and per-thread queries: the same requests answered by 1, 2 or 4 threads give
//! the same routes and traces as one `NavWorld`; threads answering while another stamps and
//! rebuilds get, for every request, a fresh world's answer on the version they started on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use navstudio_nav::CellRect;
use navstudio_nav::rng::SplitMix64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use navstudio_nav::{
    Cell, CostField, GridSpec, MoveType, NavData, NavWorld, PathQuery, PathTable, QueryOptions,
    SearchMode, TracedPath, build_layer,
};

/// A `size²` map of rooms: wall lines every 24 cells with a few doors, scattered walls and
/// costlier cells, two movement types (the second avoids the costly cells).
fn rooms(size: u32, seed: u64) -> NavData {
    let mut rng = SplitMix64::new(seed);
    let mut land = vec![1u8; (size * size) as usize];
    for c in &mut land {
        match rng.below(20) {
            0 => *c = 255,
            1..=3 => *c = 4,
            _ => {}
        }
    }
    for wall in (24..size - 1).step_by(24) {
        for i in 0..size {
            if rng.below(10) != 0 {
                land[(wall * size + i) as usize] = 255;
                land[(i * size + wall) as usize] = 255;
            }
        }
    }
    let hover: Vec<u8> = land.iter().map(|&c| if c == 4 { 255 } else { c }).collect();
    let spec = GridSpec {
        width: size,
        height: size,
        sector_size: 16,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let layers = [("land", land), ("hover", hover)]
        .into_iter()
        .map(|(name, cells)| {
            build_layer(name, CostField::from_cells(spec, &cells), &|_| {}, &never).unwrap()
        })
        .collect();
    NavData::new(spec, 1.0, layers)
}

#[derive(Clone, Debug, PartialEq)]
struct Answer {
    routes: Vec<(Vec<u32>, u32)>,
    trace: Option<TracedPath>,
}

type Request = (MoveType, Cell, Cell);

fn requests(data: &NavData, n: usize, seed: u64) -> Vec<Request> {
    let mut rng = SplitMix64::new(seed);
    let size = data.spec.width;
    (0..n)
        .map(|_| {
            let ty = MoveType::new(rng.below(data.layers.len() as u32) as usize);
            let a = Cell::new(rng.below(size), rng.below(size));
            let b = Cell::new(rng.below(size), rng.below(size));
            (ty, a, b)
        })
        .collect()
}

fn answer_with_query(q: &mut PathQuery, data: &Arc<NavData>, r: Request) -> Option<Answer> {
    let (ty, from, to) = r;
    let path = q.request_path(data, ty, &[from], to).ok()?;
    let trace = q.trace_path(&path, from);
    Some(Answer {
        routes: path.routes().map(|(n, c)| (n.to_vec(), c)).collect(),
        trace,
    })
}

fn answer_with_world(w: &mut NavWorld, r: Request) -> Option<Answer> {
    let (ty, from, to) = r;
    let id = w.request_path(ty, &[from], to).ok()?;
    let p = w.path(id).unwrap();
    let answer = Answer {
        routes: p.routes.iter().map(|r| (r.nodes.clone(), r.cost)).collect(),
        trace: w.trace_path(id, from),
    };
    w.release_path(id);
    Some(answer)
}

/// Answers `reqs` on `threads` threads (request `i` by thread `i % threads`), each with its
/// own query; the paths go through one table.
fn answer_on_threads(
    data: &Arc<NavData>,
    reqs: &[Request],
    threads: usize,
    options: QueryOptions,
) -> Vec<Option<Answer>> {
    let table = PathTable::new();
    let out = Mutex::new(vec![None; reqs.len()]);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (table, out) = (&table, &out);
            s.spawn(move || {
                let mut q = PathQuery::new(options);
                for i in (t..reqs.len()).step_by(threads) {
                    let (ty, from, to) = reqs[i];
                    let Ok(path) = q.request_path(data, ty, &[from], to) else {
                        continue;
                    };
                    let id = table.insert(path);
                    // Traced from the table, as another thread would.
                    let path = table.get(id).unwrap();
                    let a = Answer {
                        routes: path.routes().map(|(n, c)| (n.to_vec(), c)).collect(),
                        trace: q.trace_path(&path, from),
                    };
                    table.remove(id);
                    out.lock().unwrap()[i] = Some(a);
                }
            });
        }
    });
    assert!(table.is_empty());
    out.into_inner().unwrap()
}

fn check_threads(size: u32, mode: SearchMode, seed: u64) {
    eprintln!("seed {seed}, {size}², {mode:?}");
    let data = Arc::new(rooms(size, seed));
    let reqs = requests(&data, 120, seed ^ 0x5EED);
    let mut world = NavWorld::from_nav(NavData::clone(&data));
    world.set_search_mode(mode);
    let expected: Vec<Option<Answer>> = reqs
        .iter()
        .map(|&r| answer_with_world(&mut world, r))
        .collect();
    assert!(
        expected.iter().filter(|a| a.is_some()).count() > reqs.len() / 3,
        "too few reachable requests to compare"
    );
    let options = QueryOptions {
        search_mode: mode,
        ..QueryOptions::default()
    };
    for threads in [1, 2, 4] {
        // Fresh data each time: the threads race to build its tables.
        let data = Arc::new(NavData::clone(&data));
        let got = answer_on_threads(&data, &reqs, threads, options);
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "request {i} {:?} on {threads} threads", reqs[i]);
        }
    }
}

#[test]
fn threads_answer_like_one_world_flat() {
    check_threads(160, SearchMode::Flat, 0x45A1);
}

#[test]
fn threads_answer_like_one_world_clusters() {
    check_threads(256, SearchMode::Clusters, 0x45A2);
}

#[test]
fn move_type_by_name() {
    let data = rooms(64, 1);
    assert_eq!(data.move_type("hover"), Some(MoveType::new(1)));
    assert_eq!(data.move_type("land"), Some(MoveType::new(0)));
    assert_eq!(data.move_type("boat"), None);
    let names: Vec<&str> = data.move_types().map(|(_, n)| n).collect();
    assert_eq!(names, ["land", "hover"]);
}

/// An answer a reader gave: the version it read, the request, the answer.
type Logged = (Arc<NavData>, Request, Option<Answer>);

/// Readers answer while a writer stamps walls and rebuilds; each answer is compared with a
/// fresh world on the version the reader started on.
#[test]
fn readers_during_stamps_and_rebuilds() {
    let seed = 0x45A3;
    eprintln!("seed {seed}");
    let mut world = NavWorld::from_nav(rooms(192, seed));
    let current = RwLock::new(world.data());
    let reqs = requests(&world.data(), 400, seed);
    let log: Mutex<Vec<Logged>> = Mutex::new(Vec::new());
    let writing = std::sync::atomic::AtomicBool::new(true);
    std::thread::scope(|s| {
        for t in 0..3 {
            let (current, log, reqs, writing) = (&current, &log, &reqs, &writing);
            s.spawn(move || {
                let mut q = PathQuery::default();
                let mut i = t;
                while writing.load(std::sync::atomic::Ordering::Relaxed) || i < 60 {
                    let data = Arc::clone(&current.read().unwrap());
                    let r = reqs[i % reqs.len()];
                    let a = answer_with_query(&mut q, &data, r);
                    log.lock().unwrap().push((data, r, a));
                    i += 3;
                }
            });
        }
        let mut rng = SplitMix64::new(seed);
        for round in 0..12 {
            let (x, y) = (rng.below(180), rng.below(180));
            let layers = if round % 3 == 0 { vec![0, 1] } else { vec![0] };
            if round % 4 == 3 {
                world.set_cost(1, (x, y), 255);
            } else {
                world.apply_stamp(
                    &layers,
                    CellRect::at(x, y, 1 + rng.below(12), 1 + rng.below(12)),
                    &[],
                );
            }
            while !world.rebuild(Duration::from_micros(300)) {
                // Mid-rebuild the published version stays the last whole one.
                let v = world.data();
                assert!(Arc::ptr_eq(&v, &current.read().unwrap()));
            }
            *current.write().unwrap() = world.data();
        }
        writing.store(false, std::sync::atomic::Ordering::Relaxed);
    });
    let log = log.into_inner().unwrap();
    let mut versions: Vec<Arc<NavData>> = Vec::new();
    for (v, _, _) in &log {
        if !versions.iter().any(|k| Arc::ptr_eq(k, v)) {
            versions.push(Arc::clone(v));
        }
    }
    eprintln!("{} answers over {} versions", log.len(), versions.len());
    assert!(versions.len() > 1, "the readers saw only one version");
    for v in versions {
        let mut fresh = NavWorld::from_nav(NavData::clone(&v));
        for (_, r, a) in log.iter().filter(|(k, _, _)| Arc::ptr_eq(k, &v)) {
            assert_eq!(&answer_with_world(&mut fresh, *r), a, "request {r:?}");
        }
    }
}
