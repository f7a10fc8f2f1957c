//! Shared data opened on a package (`NavData::open`), which decodes each movement type and
//! each region when a request first reads it, answers exactly as the package read whole:
//! from several threads at once, with a cache so small that regions are dropped while other
//! threads read them, and through a query other than the one that planned the path. A
//! damaged region fails the requests that read it with a typed error, and nothing else.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use navstudio_nav::grid::WALL;
use navstudio_nav::links::NavLink;
use navstudio_nav::package::{self, PackageMeta, REGION_SECTORS, RegionGrid};
use navstudio_nav::rng::SplitMix64;
use navstudio_nav::{
    Cell, CostField, GridSpec, MoveType, NavData, PathError, PathQuery, StreamOptions, TracedPath,
    build_layer,
};

const SIDE: u32 = 256;

/// A walk link: its id and its two end cells.
type LinkSpec = (u32, (u32, u32), (u32, u32));

/// Two walk links across the map: their end nodes are built from the costs where they end,
/// which data read on demand must read first.
const LINKS: &[LinkSpec] = &[(1, (20, 20), (230, 230)), (2, (30, 200), (200, 40))];

/// A 256² map in sectors of 4 (4 × 4 regions; clusters with levels above them): walls,
/// costs 1–6, and two movement types (the second treats cost 6 as a wall).
fn map(seed: u64) -> NavData {
    let mut rng = SplitMix64::new(seed);
    let mut costs: Vec<u8> = (0..SIDE * SIDE).map(|_| 1 + rng.below(6) as u8).collect();
    for _ in 0..300 {
        let (x, y, r) = (rng.below(SIDE), rng.below(SIDE), 1 + rng.below(5));
        for yy in y.saturating_sub(r)..(y + r).min(SIDE) {
            for xx in x.saturating_sub(r)..(x + r).min(SIDE) {
                costs[(yy * SIDE + xx) as usize] = WALL;
            }
        }
    }
    let heavy: Vec<u8> = costs
        .iter()
        .map(|&c| if c == 6 { WALL } else { c })
        .collect();
    let spec = GridSpec {
        width: SIDE,
        height: SIDE,
        sector_size: 4,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let layers = [("land", costs), ("heavy", heavy)]
        .into_iter()
        .map(|(name, cells)| {
            build_layer(name, CostField::from_cells(spec, &cells), &|_| {}, &never).unwrap()
        })
        .collect();
    NavData::new(spec, 1.0, layers)
}

/// `nav`'s package bytes (with its hierarchy, levels and `LINKS`), written to a file of
/// `tag`.
fn package_file(nav: &NavData, tag: &str) -> (PathBuf, Vec<u8>) {
    let meta = PackageMeta {
        hierarchy: Some(true),
        links: LINKS
            .iter()
            .map(|&(id, a, b)| NavLink::walk(id, a, b))
            .collect(),
        ..PackageMeta::default()
    };
    let bytes = package::to_bytes(nav, &meta);
    let file = std::env::temp_dir().join(format!(
        "navstudio-streamed-data-{tag}-{}.navpkg",
        std::process::id()
    ));
    std::fs::write(&file, &bytes).unwrap();
    (file, bytes)
}

type Request = (MoveType, Cell, Cell);

/// What a request answers: its routes, the trace from its source and flow samples around
/// the map, or why it was refused.
#[derive(Clone, Debug, PartialEq)]
enum Answer {
    Path {
        routes: Vec<(Vec<u32>, u32)>,
        trace: Option<TracedPath>,
        samples: Vec<Option<(f32, f32)>>,
    },
    Refused(PathError),
}

fn requests(seed: u64, n: usize) -> Vec<Request> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let cell = |rng: &mut SplitMix64| Cell::new(rng.below(SIDE), rng.below(SIDE));
            let ty = MoveType::new(rng.below(2) as usize);
            (ty, cell(&mut rng), cell(&mut rng))
        })
        .collect()
}

/// `planner` plans, `reader` (another query: its world has read nothing of the path) traces
/// and samples.
fn answer(
    data: &Arc<NavData>,
    planner: &mut PathQuery,
    reader: &mut PathQuery,
    (ty, a, b): Request,
    seed: u64,
) -> Answer {
    match planner.request_path(data, ty, &[a], b) {
        Err(e) => Answer::Refused(e),
        Ok(path) => {
            let mut rng = SplitMix64::new(seed);
            let samples = (0..12)
                .map(|_| {
                    let p = (
                        rng.below(SIDE * 8) as f32 / 8.0,
                        rng.below(SIDE * 8) as f32 / 8.0,
                    );
                    reader.sample_flow(&path, p)
                })
                .collect();
            Answer::Path {
                routes: path.routes().collect(),
                trace: reader.trace_path(&path, a),
                samples,
            }
        }
    }
}

#[test]
fn data_read_on_demand_answers_as_data_read_whole_from_threads() {
    let seed = std::env::var("NAVSTUDIO_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_u64);
    println!("seed {seed}");
    let nav = map(seed);
    let (file, bytes) = package_file(&nav, "answers");
    let whole = Arc::new(NavData::from_package(package::from_bytes(&bytes).unwrap()));
    let asked = requests(seed + 1, 40);
    let (mut q, mut r) = (PathQuery::default(), PathQuery::default());
    let expected: Vec<Answer> = asked
        .iter()
        .enumerate()
        .map(|(i, &req)| answer(&whole, &mut q, &mut r, req, i as u64))
        .collect();
    let planned = expected
        .iter()
        .filter(|a| matches!(a, Answer::Path { .. }))
        .count();
    assert!(planned >= 20, "only {planned} of 40 requests planned");
    // The default budget holds the map; a budget of one byte drops regions at every load.
    for budget in [StreamOptions::default().cache_budget, 1] {
        let lazy = Arc::new(
            NavData::open(
                &file,
                StreamOptions {
                    cache_budget: budget,
                },
            )
            .unwrap(),
        );
        assert!(lazy.is_streamed());
        assert!(
            lazy.layers[0].nodes.is_empty(),
            "opening decodes no portal graph"
        );
        let answers: Vec<Vec<Answer>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|t| {
                    let (lazy, asked) = (&lazy, &asked);
                    s.spawn(move || {
                        let (mut q, mut r) = (PathQuery::default(), PathQuery::default());
                        // The threads go through the requests in opposite orders.
                        let mut order: Vec<usize> = (0..asked.len()).collect();
                        if t == 1 {
                            order.reverse();
                        }
                        let mut out = vec![None; asked.len()];
                        for i in order {
                            out[i] = Some(answer(lazy, &mut q, &mut r, asked[i], i as u64));
                        }
                        out.into_iter().map(Option::unwrap).collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, got) in answers.iter().enumerate() {
            for (i, (want, got)) in expected.iter().zip(got).enumerate() {
                assert_eq!(
                    want, got,
                    "seed {seed}, budget {budget}, thread {t}, request {i} {:?}",
                    asked[i]
                );
            }
        }
        let stats = lazy.stream_stats().unwrap();
        assert!(stats.loads > 0, "no region was read");
        if budget == 1 {
            assert!(stats.evictions > 0, "a one-byte cache dropped nothing");
            assert!(stats.resident_regions <= 2, "{stats:?}");
        }
    }
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_damaged_region_fails_the_requests_that_read_it_with_a_typed_error() {
    let nav = map(9);
    let (file, mut bytes) = package_file(&nav, "damaged");
    let whole = Arc::new(NavData::from_package(package::from_bytes(&bytes).unwrap()));
    let manifest = package::from_bytes(&bytes).unwrap().manifest;
    // The cost chunk of the land type's region 5 (second row, second column).
    let region = 5;
    let chunk = manifest
        .chunks
        .iter()
        .find(|c| c.layer == 0 && c.kind == "cost" && c.region == Some(region))
        .expect("a cost chunk for region 5");
    let at = usize::try_from(chunk.offset + chunk.stored_len / 2).unwrap();
    bytes[at] ^= 0x5A;
    std::fs::write(&file, &bytes).unwrap();
    let lazy = Arc::new(NavData::open(&file, StreamOptions::default()).unwrap());
    let from_memory = Arc::new(NavData::open_bytes(&bytes, StreamOptions::default()).unwrap());
    let grid = RegionGrid {
        spec: nav.spec,
        region_sectors: REGION_SECTORS,
    };
    let region_of = |c: Cell| {
        let (x, y): (u32, u32) = c.into();
        grid.region_of_sector(nav.spec.sector_of(x, y))
    };
    let (mut damaged, mut answered) = (0, 0);
    for data in [&lazy, &from_memory] {
        let mut q = PathQuery::default();
        let mut w = PathQuery::default();
        for (ty, a, b) in requests(3, 60) {
            let want = w
                .request_path(&whole, ty, &[a], b)
                .map(|p| p.routes().collect::<Vec<_>>());
            match q.request_path(data, ty, &[a], b) {
                Err(PathError::Damaged {
                    layer,
                    region: Some(r),
                    why,
                }) => {
                    assert_eq!((layer, r), (0, region), "{why}");
                    assert!(
                        why.contains("region 5"),
                        "the sentence names the chunk: {why}"
                    );
                    damaged += 1;
                    // Only a request whose search reads the region fails.
                    assert!(ty.index() == 0, "the other type's regions are whole");
                }
                got => {
                    assert!(
                        ty.index() == 1 || (region_of(a) != region && region_of(b) != region),
                        "a request from or to the damaged region was answered: {got:?}"
                    );
                    let got = got.map(|p| {
                        // A trace along the rest of a lazily refined route may cross it.
                        if q.trace_path(&p, a).is_none() {
                            assert!(
                                matches!(
                                    q.read_error(),
                                    Some(PathError::Damaged {
                                        region: Some(5),
                                        ..
                                    })
                                ),
                                "a trace failed without damage: {:?}",
                                q.read_error()
                            );
                            damaged += 1;
                        }
                        p.routes().collect::<Vec<_>>()
                    });
                    assert_eq!(got, want);
                    answered += 1;
                }
            }
        }
    }
    assert!(damaged > 0, "no request read the damaged region");
    assert!(answered > 0, "every request failed");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn memory_counts_the_tables_of_the_types_searched_and_the_regions_read() {
    let nav = map(3);
    let (file, bytes) = package_file(&nav, "memory");
    let lazy = Arc::new(NavData::open(&file, StreamOptions::default()).unwrap());
    assert_eq!(lazy.memory(), vec![("decoded regions".to_owned(), 0)]);
    let whole = Arc::new(NavData::from_package(package::from_bytes(&bytes).unwrap()));
    let mut q = PathQuery::default();
    let land = MoveType::new(0);
    let planned = requests(8, 40)
        .into_iter()
        .find(|&(_, a, b)| q.request_path(&lazy, land, &[a], b).is_ok());
    let (_, a, b) = planned.expect("a request of type land plans");
    q.request_path(&whole, land, &[a], b).unwrap();
    let names = |rows: &[(String, usize)]| -> Vec<String> {
        rows.iter()
            .map(|(what, _)| what.clone())
            .filter(|what| what != "decoded regions")
            .collect()
    };
    let (read, held) = (lazy.memory(), whole.memory());
    // The searched type's tables, the same in both, and nothing of the other type.
    assert_eq!(names(&read), names(&held));
    for table in ["portal nodes", "search layout: edges", "hierarchy: edges"] {
        let row = read
            .iter()
            .find(|(what, _)| *what == format!("land: {table}"));
        assert!(
            row.is_some_and(|&(_, bytes)| bytes > 0),
            "{table}: {read:?}"
        );
    }
    assert!(
        read.iter()
            .any(|(what, _)| what.starts_with("land: levels: "))
    );
    assert!(!read.iter().any(|(what, _)| what.starts_with("heavy: ")));
    assert!(
        read.last()
            .is_some_and(|(what, bytes)| what == "decoded regions" && *bytes > 0)
    );
    let _ = std::fs::remove_file(file);
}
