//! A world streamed from a package file (`NavWorld::open`) answers exactly as one over the
//! package read whole, whatever its cache budget; a damaged region is an error when first
//! used and leaves the rest of the map answering.

use std::path::{Path, PathBuf};

use crate::common::{self, Rng, bake_all, generated};
use navstudio::map::MapKind;
use navstudio::nav::CellRect;
use navstudio::nav::permutations::canonical_flows;
use navstudio::nav::{NavWorld, PathError, StreamOptions};
use navstudio::package::{self, PackageMeta};

/// The showcase (64 × 64 sectors: 16 regions) baked and written to `dir`.
fn showcase_package(dir: &Path) -> PathBuf {
    let baked = bake_all(&generated(MapKind::Showcase));
    let path = dir.join("showcase.navpkg");
    std::fs::write(
        &path,
        package::to_bytes(&baked.nav, &PackageMeta::default()),
    )
    .unwrap();
    path
}

/// Random cell pairs on the map, half of them far apart.
fn pairs(size: (u32, u32), count: usize, seed: u64) -> Vec<((u32, u32), (u32, u32))> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let a = (rng.below(size.0), rng.below(size.1));
            let b = (rng.below(size.0), rng.below(size.1));
            (a, b)
        })
        .collect()
}

/// Requests, routes, traces and flow samples of `streamed` against `whole`, for random
/// pairs on every movement type; returns how many requests were planned.
fn compare(whole: &mut NavWorld, streamed: &mut NavWorld, seed: u64, release: bool) -> usize {
    let spec = whole.nav().spec;
    let layers = whole.nav().layers.len();
    let mut planned = 0;
    let mut live = Vec::new();
    for (i, (a, b)) in pairs((spec.width, spec.height), 60, seed)
        .into_iter()
        .enumerate()
    {
        let layer = i % layers;
        assert_eq!(
            whole.is_reachable(layer, a, b),
            streamed.is_reachable(layer, a, b),
            "{a:?} → {b:?}"
        );
        let sources = [a, (a.0 / 2 + b.0 / 2, a.1)];
        match (
            whole.request_path(layer, &sources, b),
            streamed.request_path(layer, &sources, b),
        ) {
            (Ok(x), Ok(y)) => {
                let (px, py) = (whole.path(x).unwrap(), streamed.path(y).unwrap());
                assert_eq!(px.exits, py.exits, "{a:?} → {b:?}: routes differ");
                for &src in &sources {
                    let (tx, ty) = (whole.trace_path(x, src), streamed.trace_path(y, src));
                    assert_eq!(tx, ty, "{a:?} → {b:?}: traces differ from {src:?}");
                    for &(cx, cy) in tx.iter().flat_map(|t| t.cells.iter().step_by(3)) {
                        let pos = (cx as f32 + 0.3, cy as f32 + 0.6);
                        assert_eq!(
                            whole.sample_flow(x, pos),
                            streamed.sample_flow(y, pos),
                            "flow at {pos:?}"
                        );
                    }
                }
                if release {
                    whole.release_path(x);
                    streamed.release_path(y);
                } else {
                    live.push((x, y, sources));
                }
                planned += 1;
            }
            (x, y) => assert_eq!(x.err(), y.err(), "{a:?} → {b:?}"),
        }
    }
    // Paths kept alive still trace the same after every later request.
    for (x, y, sources) in live {
        for src in sources {
            assert_eq!(whole.trace_path(x, src), streamed.trace_path(y, src));
        }
    }
    planned
}

#[test]
fn a_streamed_world_answers_as_the_package_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = showcase_package(dir.path());
    let mut whole = NavWorld::from_package(package::read(&path).unwrap());
    // Default budget: regions stay once loaded.
    let mut streamed = NavWorld::open(&path, StreamOptions::default()).unwrap();
    let opened = streamed.stream_stats().unwrap();
    assert_eq!(opened.resident_regions, 0, "opening decodes no region");
    assert!(
        streamed.nav().layers.iter().all(|l| l.nodes.is_empty()),
        "opening reads no portal graph"
    );
    assert!(compare(&mut whole, &mut streamed, 1, true) > 20);
    let stats = streamed.stream_stats().unwrap();
    assert!(stats.loads > 0 && stats.evictions == 0, "{stats:?}");

    // A budget of one byte: every request drops what no live path needs and reads it again.
    let mut tight = NavWorld::open(&path, StreamOptions { cache_budget: 1 }).unwrap();
    let mut whole = NavWorld::from_package(package::read(&path).unwrap());
    assert!(compare(&mut whole, &mut tight, 2, true) > 20);
    // Live paths keep their regions while others come and go.
    assert!(compare(&mut whole, &mut tight, 3, false) > 20);
    let stats = tight.stream_stats().unwrap();
    assert!(
        stats.evictions > 10 && stats.loads > stats.evictions,
        "{stats:?}"
    );
}

/// A wall stamped at run time on a streamed world rebuilds as on a world held whole.
#[test]
fn run_time_stamps_on_a_streamed_world_rebuild_as_on_a_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = showcase_package(dir.path());
    let mut whole = NavWorld::from_package(package::read(&path).unwrap());
    let mut streamed = NavWorld::open(&path, StreamOptions { cache_budget: 1 }).unwrap();
    // Load and drop some regions first, so the stamp meets a partly loaded layer.
    compare(&mut whole, &mut streamed, 4, true);
    // Once laid out for the search, a streamed layer holds its edges there only; the
    // stamp's rebuild must get them back exactly (the graphs are compared below).
    for layer in 0..2 {
        let (s, w) = (&streamed.nav().layers[layer], &whole.nav().layers[layer]);
        assert!(s.graph.targets.is_empty() && s.windows.is_empty());
        assert!(!w.graph.targets.is_empty() && !w.windows.is_empty());
    }
    for world in [&mut whole, &mut streamed] {
        world.apply_stamp(&[0, 1], CellRect::at(300, 280, 40, 6), &[255; 240]);
        while !world.rebuild(std::time::Duration::from_secs(60)) {}
    }
    for (a, b) in whole
        .nav()
        .layers
        .iter()
        .zip(&streamed.nav().layers)
        .take(2)
    {
        assert!(a.cost == b.cost && a.graph == b.graph && a.islands == b.islands);
        assert!(a.windows == b.windows && a.nodes == b.nodes);
        assert!(
            canonical_flows(&a.cost, &a.nodes, &a.flows)
                == canonical_flows(&b.cost, &b.nodes, &b.flows)
        );
    }
    assert!(compare(&mut whole, &mut streamed, 5, true) > 20);
}

/// Links changed at run time on a streamed world re-plan as on a whole one: a streamed
/// layer keeps its edges only in its search layout, which a link change rebuilds.
#[test]
fn run_time_links_on_a_streamed_world_rebuild_as_on_a_whole_one() {
    use navstudio::nav::links::{LinkCost, LinkKind, NavLink};
    let dir = tempfile::tempdir().unwrap();
    let path = showcase_package(dir.path());
    let mut whole = NavWorld::from_package(package::read(&path).unwrap());
    let mut streamed = NavWorld::open(&path, StreamOptions::default()).unwrap();
    // Lays out every type's search, so the streamed layers let their edges go.
    compare(&mut whole, &mut streamed, 6, true);
    let spec = whole.nav().spec;
    let open = |from: (u32, u32)| {
        let cost = &whole.nav().layers[0].cost;
        (from.0..spec.width)
            .map(|x| (x, from.1))
            .find(|&(x, y)| cost.get(x, y) != 255)
            .unwrap()
    };
    let mut tele = NavLink::walk(7, open((10, 20)), open((spec.width / 2, spec.height - 20)));
    tele.kind = LinkKind::Teleport { time_s: 1.0 };
    tele.cost = LinkCost::Direct(3);
    for world in [&mut whole, &mut streamed] {
        world.add_link(tele.clone()).unwrap();
        while !world.rebuild(std::time::Duration::from_secs(60)) {}
    }
    assert!(compare(&mut whole, &mut streamed, 7, true) > 20);
}

#[test]
fn a_damaged_region_fails_when_first_used_and_the_rest_still_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = showcase_package(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    let manifest = common::manifest_json(&bytes);
    // The land type's flows chunk of region 0 (the map's top-left 160 × 160 cells), and
    // the hover type's graph.
    let find = |layer: u64, kind: &str, region: Option<u64>| {
        let c = manifest["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["layer"] == layer && c["kind"] == kind && c["region"].as_u64() == region)
            .unwrap();
        c["offset"].as_u64().unwrap() as usize + 7
    };
    let (flows, graph) = (find(0, "flows", Some(0)), find(1, "graph", None));
    bytes[flows] ^= 0x40;
    bytes[graph] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    assert!(
        package::read(&path).is_err(),
        "the eager reader refuses it whole"
    );

    let mut world = NavWorld::open(&path, StreamOptions::default()).unwrap();
    // Both ends far from region 0 (the showcase's centre and east): answered.
    let spec = world.nav().spec;
    let mut answered = 0;
    for (a, b) in pairs((spec.width, spec.height), 80, 6) {
        let far = |c: (u32, u32)| c.0 >= 200 && c.1 >= 200;
        if !(far(a) && far(b)) {
            continue;
        }
        match world.request_path(0, &[a], b) {
            Ok(id) => {
                answered += 1;
                world.release_path(id);
            }
            Err(PathError::Damaged { .. }) => {} // a route through region 0
            Err(e) => assert!(
                matches!(e, PathError::GoalIsWall(_) | PathError::Unreachable(_)),
                "{e}"
            ),
        }
    }
    assert!(answered > 5, "{answered} requests answered");
    // A request that starts in region 0 meets the damage, with one sentence naming it.
    let start = (0..160)
        .flat_map(|y| (0..160).map(move |x| (x, y)))
        .find(|&c| world.is_reachable(0, c, (320, 320)))
        .unwrap();
    let err = world.request_path(0, &[start], (320, 320)).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            PathError::Damaged {
                layer: 0,
                region: Some(0),
                ..
            }
        ),
        "{text}"
    );
    assert!(
        text.contains("showcase.navpkg") && text.contains("region 0"),
        "{text}"
    );
    // The hover type's graph is read on its first request: refused, naming the chunk, while
    // its reachability (island ids) still answers.
    assert!(world.is_reachable(1, (320, 320), (330, 330)));
    let err = world
        .request_path(1, &[(320, 320)], (330, 330))
        .unwrap_err();
    assert!(
        matches!(
            err,
            PathError::Damaged {
                layer: 1,
                region: None,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("graph chunk"), "{err}");
    // And the map still answers afterwards.
    let again = pairs((spec.width, spec.height), 80, 7)
        .into_iter()
        .filter(|&(a, b)| a.0 >= 200 && a.1 >= 200 && b.0 >= 200 && b.1 >= 200)
        .filter_map(|(a, b)| world.request_path(0, &[a], b).ok())
        .count();
    assert!(again > 3);
}

/// Opening reads each type's island ids per sector; the cells' ids in mixed sectors come on
/// the type's first use, a reachability query included, and a damaged island-fields chunk
/// is refused then, naming it, while the other types answer.
#[test]
fn a_types_island_fields_are_read_on_its_first_use() {
    let dir = tempfile::tempdir().unwrap();
    let path = showcase_package(dir.path());
    let whole = NavWorld::from_package(package::read(&path).unwrap());
    let mut streamed = NavWorld::open(&path, StreamOptions::default()).unwrap();
    let spec = whole.nav().spec;
    let layers = whole.nav().layers.len();
    assert!(layers >= 3);
    for (a, b) in whole.nav().layers.iter().zip(&streamed.nav().layers) {
        assert!(
            !a.islands.fields.is_empty(),
            "the showcase has mixed sectors"
        );
        assert!(
            b.islands.fields.is_empty(),
            "opening reads no island fields"
        );
        assert_eq!(a.islands.sector_island, b.islands.sector_island);
    }
    // A query answers as the package read whole, before any request of the type.
    let cells = pairs((spec.width, spec.height), 400, 9);
    // Threads asking at once: each type's fields are read once, each read at its own offset.
    let fresh = NavWorld::open(&path, StreamOptions::default()).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (fresh, whole, cells) = (&fresh, &whole, &cells);
            scope.spawn(move || {
                for (i, &(a, _)) in cells.iter().enumerate() {
                    let layer = (i + t) % layers;
                    assert_eq!(whole.island_at(layer, a), fresh.island_at(layer, a));
                }
            });
        }
    });
    for &(a, b) in &cells {
        assert_eq!(whole.island_at(1, a), streamed.island_at(1, a), "{a:?}");
        assert_eq!(whole.is_reachable(1, a, b), streamed.is_reachable(1, a, b));
    }
    // A request moves the type's fields into its layer; the other types stay unread.
    let (a, b) = cells
        .iter()
        .copied()
        .find(|&(a, b)| whole.is_reachable(0, a, b))
        .unwrap();
    let id = streamed.request_path(0, &[a], b).unwrap();
    streamed.release_path(id);
    let (w, s) = (&whole.nav().layers, &streamed.nav().layers);
    assert_eq!(w[0].islands, s[0].islands);
    assert!(s[2].islands.fields.is_empty());

    // The large type's island fields of region 0, damaged on disk.
    let mut bytes = std::fs::read(&path).unwrap();
    let manifest = common::manifest_json(&bytes);
    let chunk = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["layer"] == 2 && c["kind"] == "island_fields" && c["region"] == 0)
        .unwrap();
    bytes[chunk["offset"].as_u64().unwrap() as usize + 5] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let mut world = NavWorld::open(&path, StreamOptions::default()).unwrap();
    let far = cells
        .iter()
        .copied()
        .find(|&(a, b)| whole.is_reachable(0, a, b) && a.0 >= 200 && b.0 >= 200)
        .unwrap();
    assert!(world.request_path(0, &[far.0], far.1).is_ok());
    let (a, b) = cells
        .iter()
        .copied()
        .find(|&(a, b)| whole.is_reachable(2, a, b))
        .unwrap();
    let _ = world.is_reachable(2, a, b);
    let err = world.request_path(2, &[a], b).unwrap_err();
    assert!(
        matches!(
            err,
            PathError::Damaged {
                layer: 2,
                region: None,
                ..
            }
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("showcase.navpkg") && text.contains("island_fields chunk"),
        "{text}"
    );
    assert!(world.request_path(0, &[far.0], far.1).is_ok());
}

#[test]
fn a_version_1_package_opens_whole() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/small.v1.navpkg");
    let world = NavWorld::open(&path, StreamOptions::default()).unwrap();
    assert!(world.stream_stats().is_none());
    assert!(!world.nav().layers.is_empty());
}

/// Requests from every region's centre to the map's centre on every movement type, so every
/// region is loaded: errors are fine, panics are not.
/// Requests across every region of every type, tracing and sampling each path; returns how
/// many requests a damaged chunk refused.
fn touch_every_region(world: &mut NavWorld) -> usize {
    let mut damaged = 0;
    let spec = world.nav().spec;
    let side = 16 * spec.sector_size;
    let centre = (spec.width / 2, spec.height / 2);
    for layer in 0..world.nav().layers.len() {
        for y in (side / 2..spec.height).step_by(side as usize) {
            for x in (side / 2..spec.width).step_by(side as usize) {
                match world.request_path(layer, &[(x, y), centre], (5, 5)) {
                    Ok(id) => {
                        let _ = world.trace_path(id, (x, y));
                        let _ = world.sample_flow(id, (x as f32, y as f32));
                        world.release_path(id);
                    }
                    Err(PathError::Damaged { .. }) => damaged += 1,
                    Err(_) => {}
                }
            }
        }
    }
    damaged
}

/// The streaming reader on the damaged packages of the bad-input corpus and on seeded
/// mutations of a good one (raw chunk bytes changed and the chunk re-compressed and
/// re-sealed, so the decoders see them): a typed error at open or on first use, never a
/// panic.
#[test]
fn the_streaming_reader_never_panics_on_damaged_packages() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs");
    let mut opened = 0;
    for entry in std::fs::read_dir(corpus).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("pkg_") {
            continue;
        }
        match NavWorld::open(&path, StreamOptions { cache_budget: 1 }) {
            Ok(mut world) => {
                opened += 1;
                let _ = touch_every_region(&mut world);
            }
            Err(e) => assert!(e.to_string().contains(&name), "{name}: {e}"),
        }
    }
    assert!(opened <= 5, "{opened} damaged packages opened");

    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(showcase_package(dir.path())).unwrap();
    let manifest = common::manifest_json(&good);
    let chunks: Vec<Vec<u8>> = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let at = c["offset"].as_u64().unwrap() as usize;
            let stored = &good[at..at + c["stored_len"].as_u64().unwrap() as usize];
            zstd::decode_all(stored).unwrap()
        })
        .collect();
    let mut rng = Rng::new(11);
    let path = dir.path().join("mutated.navpkg");
    let mut refused = 0;
    let rounds: u32 = std::env::var("NAVSTUDIO_STREAM_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    for _ in 0..rounds {
        let mut raw = chunks.clone();
        let k = rng.below(raw.len() as u32) as usize;
        for _ in 0..1 + rng.below(4) {
            if raw[k].is_empty() {
                break;
            }
            let i = rng.below(raw[k].len() as u32) as usize;
            raw[k][i] = match rng.below(3) {
                0 => raw[k][i] ^ (1 << rng.below(8)),
                1 => 0xFF,
                _ => 0,
            };
        }
        let stored: Vec<Vec<u8>> = raw
            .iter()
            .map(|r| zstd::encode_all(&r[..], 3).unwrap())
            .collect();
        std::fs::write(&path, crate::package::join(manifest.clone(), &stored)).unwrap();
        // Damage shows at open (the island ids per sector) or on first use (the rest).
        match NavWorld::open(&path, StreamOptions { cache_budget: 1 }) {
            Ok(mut world) => refused += usize::from(touch_every_region(&mut world) > 0),
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 0);
}

/// The crowd's walls come from the world: over a streamed world, before any region is
/// read, they are the walls of the package read whole, for every movement type and cell.
#[test]
fn a_crowd_over_a_streamed_world_sees_every_wall() {
    use navstudio::crowd::{Navigator, WorldNavigator};
    let dir = tempfile::tempdir().unwrap();
    let path = showcase_package(dir.path());
    let whole = NavWorld::from_package(package::read(&path).unwrap());
    let spec = whole.nav().spec;
    let layers = whole.nav().layers.len();
    let eager = WorldNavigator::new(whole, vec![0.0; layers]);
    let streamed = NavWorld::open(&path, StreamOptions::default()).unwrap();
    let streamed = WorldNavigator::new(streamed, vec![0.0; layers]);
    let mut walls = 0;
    for t in (0..layers).map(navstudio::nav::MoveType::new) {
        for y in 0..spec.height as i32 {
            for x in 0..spec.width as i32 {
                let wall = eager.is_wall(t, x, y);
                walls += usize::from(wall);
                assert_eq!(streamed.is_wall(t, x, y), wall, "type {t:?} at ({x}, {y})");
            }
        }
    }
    assert!(walls > 1000, "the showcase has walls: {walls}");
}
