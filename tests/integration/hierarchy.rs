//! The sector hierarchy (`navstudio_nav::hierarchy`) against the flat portal A*: exact
//! searches over both find routes of the same cost on generated terrain, rooms joined by
//! one-cell doors with a walled-off island, and Moving AI grids; walls painted at run time
//! leave a hierarchy equal to one built fresh; a package stores it, streamed or read whole,
//! and a damaged hierarchy chunk is an error on first use.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::common::{self, Rng};
use navstudio::map::MapKind;
use navstudio::nav::CellRect;
use navstudio::nav::grid::WALL;
use navstudio::nav::{
    CostField, GridSpec, NavData, NavWorld, PathError, SearchMode, StreamOptions, TIE_BUCKET,
    build_layer,
};
use navstudio::package::{self, PackageMeta};

/// A world over `nav` searching with `mode`, exact (weight 1) or at the default weight.
fn world(nav: &NavData, mode: SearchMode, exact: bool) -> NavWorld {
    let mut w = NavWorld::from_nav(nav.clone());
    w.set_search_mode(mode);
    if exact {
        w.set_heuristic_weight(1.0);
    }
    w
}

/// The first route's cost of a request from `a` to `b`.
fn route_cost(world: &mut NavWorld, a: (u32, u32), b: (u32, u32)) -> u32 {
    let id = world.request_path(0, &[a], b).unwrap();
    let cost = world.path(id).unwrap().routes[0].cost;
    world.release_path(id);
    cost
}

/// `count` random pairs of passable cells on one island of layer 0, at least `apart` cells
/// apart on one axis.
fn reachable_pairs(
    world: &NavWorld,
    count: usize,
    apart: u32,
    seed: u64,
) -> Vec<((u32, u32), (u32, u32))> {
    let spec = world.nav().spec;
    let costs = world.nav().layers[0].cost.to_cells();
    let mut rng = Rng::new(seed);
    let mut pairs = Vec::new();
    let mut tries = 0;
    while pairs.len() < count && tries < 100_000 {
        tries += 1;
        let a = (rng.below(spec.width), rng.below(spec.height));
        let b = (rng.below(spec.width), rng.below(spec.height));
        let far = a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= apart;
        if far && costs[(a.1 * spec.width + a.0) as usize] != WALL && world.is_reachable(0, a, b) {
            pairs.push((a, b));
        }
    }
    pairs
}

/// Exact flat and exact hierarchical searches cost the same on `count` random requests; the
/// hierarchy at the default weight stays within that weight of the optimum. Returns the
/// nodes both exact searches expanded.
fn same_costs(name: &str, nav: &NavData, count: usize, apart: u32, seed: u64) -> (u64, u64) {
    let mut flat = world(nav, SearchMode::Flat, true);
    let mut clustered = world(nav, SearchMode::Clusters, true);
    let mut default = world(nav, SearchMode::Clusters, false);
    let pairs = reachable_pairs(&flat, count, apart, seed);
    assert!(pairs.len() >= count / 2, "{name}: too few reachable pairs");
    for &(a, b) in &pairs {
        let (f, c, d) = (
            route_cost(&mut flat, a, b),
            route_cost(&mut clustered, a, b),
            route_cost(&mut default, a, b),
        );
        assert_eq!(f, c, "{name}: {a:?} → {b:?}: hierarchy {c}, flat {f}");
        assert!(
            f64::from(d) <= f64::from(f) * 1.1 + f64::from(TIE_BUCKET),
            "{name}: {a:?} → {b:?}: default {d} beyond 1.1 × optimal {f}"
        );
    }
    assert!(
        clustered.cluster_stats(0).is_some() && flat.cluster_stats(0).is_none(),
        "{name}: each world searched its own way"
    );
    (flat.a_star_expansions(), clustered.a_star_expansions())
}

/// A `size`² map in sectors of 10: rooms of 30 cells joined by one-cell doors, and a
/// walled-off block in the middle (an island of its own).
fn rooms_with_doors(size: u32, seed: u64) -> NavData {
    let mut costs = common::walled_open_ground(size, size);
    let mut rng = Rng::new(seed);
    for wall in (30..size - 1).step_by(30) {
        for i in 0..size {
            costs[(wall * size + i) as usize] = WALL;
            costs[(i * size + wall) as usize] = WALL;
        }
    }
    // One door per wall stretch between crossings.
    for wall in (30..size - 1).step_by(30) {
        for start in (0..size - 1).step_by(30) {
            let along = start + 1 + rng.below(28);
            if along < size - 1 {
                costs[(wall * size + along) as usize] = 1;
                costs[(along * size + wall) as usize] = 1;
            }
        }
    }
    // The island: a ring of wall around a block.
    let (c, r) = (size / 2 + 7, 9);
    for i in c - r..=c + r {
        for (x, y) in [(i, c - r), (i, c + r), (c - r, i), (c + r, i)] {
            costs[(y * size + x) as usize] = WALL;
        }
    }
    let spec = GridSpec {
        width: size,
        height: size,
        sector_size: 10,
    };
    let layer = build_layer(
        "land",
        CostField::from_cells(spec, &costs),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    NavData::new(spec, 1.0, vec![layer])
}

/// The benchmark terrain (hills, lakes, cliffs) at 512², land type only: 52 × 52 sectors,
/// so clusters of 8 × 8 with partial ones along two edges.
fn terrain() -> NavData {
    let baked = common::bake_generated(MapKind::Benchmark, 512, 512, 3, Some(vec!["land".into()]));
    std::sync::Arc::unwrap_or_clone(baked.nav)
}

#[test]
fn hierarchical_routes_cost_what_flat_routes_cost() {
    let (flat, clustered) = same_costs("terrain", &terrain(), 40, 170, 1);
    println!("terrain: expansions flat {flat}, hierarchy {clustered}");
    same_costs("rooms", &rooms_with_doors(300, 2), 40, 100, 3);
    let Some(dir) = common::movingai_dir() else {
        eprintln!("note: ../shared/data/movingai is absent; Moving AI part skipped");
        return;
    };
    for name in ["maze512-1-0", "random512-10-0", "lak303d", "8room_000"] {
        let nav = navstudio::movingai::bake_grid(&dir.join(format!("{name}.map")), None).unwrap();
        same_costs(name, &nav, 30, 60, 4);
    }
}

#[test]
fn walls_painted_at_run_time_leave_the_routes_a_fresh_world_finds() {
    let nav = terrain();
    let mut w = world(&nav, SearchMode::Clusters, true);
    let pairs = reachable_pairs(&w, 10, 170, 5);
    route_cost(&mut w, pairs[0].0, pairs[0].1);
    // A wall across a cluster border and a cost patch inside another cluster.
    w.apply_stamp(&[0], CellRect::at(70, 60, 30, 40), &vec![WALL; 30 * 40]);
    w.apply_stamp(&[0], CellRect::at(300, 300, 20, 20), &vec![9; 20 * 20]);
    while !w.rebuild(Duration::ZERO) {}
    let pairs = reachable_pairs(&w, 20, 170, 6);
    route_cost(&mut w, pairs[0].0, pairs[0].1);
    let mut fresh_flat = world(w.nav(), SearchMode::Flat, true);
    for &(a, b) in &pairs {
        assert_eq!(
            route_cost(&mut w, a, b),
            route_cost(&mut fresh_flat, a, b),
            "{a:?} → {b:?} after the rebuild"
        );
    }
}

#[test]
fn a_package_stores_the_hierarchy_and_a_damaged_one_fails_on_first_use() {
    let nav = terrain();
    let meta = PackageMeta {
        hierarchy: Some(true),
        ..PackageMeta::default()
    };
    let bytes = package::to_bytes(&nav, &meta);
    let read = package::from_bytes(&bytes).unwrap();
    assert!(read.hierarchies[0].is_some() && read.landmarks[0].is_none());
    // Searched as the package's default is, over the levels (which it stores too).
    let mut built = world(&nav, SearchMode::Levels, false);
    let mut stored = NavWorld::from_package(read.clone());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("terrain.navpkg");
    std::fs::write(&path, &bytes).unwrap();
    let mut streamed = NavWorld::open(&path, StreamOptions::default()).unwrap();
    for &(a, b) in &reachable_pairs(&built, 20, 170, 7) {
        let c = route_cost(&mut built, a, b);
        assert_eq!(route_cost(&mut stored, a, b), c, "{a:?} → {b:?} read whole");
        assert_eq!(route_cost(&mut streamed, a, b), c, "{a:?} → {b:?} streamed");
    }
    // The default mode searched over the stored hierarchy (that it decodes to the one
    // built is checked inside the crate: world::kept_tests).
    assert!(stored.cluster_stats(0).is_some() && streamed.cluster_stats(0).is_some());
    // The default bake of a map this small stores per-node tables instead.
    let small = package::from_bytes(&package::to_bytes(&nav, &PackageMeta::default())).unwrap();
    assert!(small.hierarchies[0].is_none() && small.landmarks[0].is_some());

    // One flipped byte inside the hierarchy chunk.
    let chunk = read
        .manifest
        .chunks
        .iter()
        .find(|c| c.kind == "hierarchy")
        .unwrap();
    let mut damaged = bytes.clone();
    damaged[(chunk.offset + chunk.stored_len / 2) as usize] ^= 0x40;
    let err = package::from_bytes(&damaged).unwrap_err();
    assert!(err.to_string().contains("hierarchy"), "{err}");
    std::fs::write(&path, &damaged).unwrap();
    let mut w = NavWorld::open(&path, StreamOptions::default()).unwrap();
    let (a, b) = reachable_pairs(&built, 1, 170, 8)[0];
    assert!(w.is_reachable(0, a, b), "island ids still answer");
    match w.request_path(0, &[a], b) {
        Err(PathError::Damaged {
            layer: 0,
            region: None,
            why,
        }) => {
            assert!(why.contains("hierarchy"), "{why}");
        }
        other => panic!("a damaged hierarchy must refuse the request: {other:?}"),
    }
}

/// Seeded mutations of the hierarchy chunk (raw bytes changed, re-compressed and re-sealed,
/// so the decoder sees them): reading, opening and searching give a route or a typed error,
/// never a panic; a chunk the decoder refuses is built instead.
#[test]
fn mutated_hierarchy_chunks_never_panic() {
    let nav = terrain();
    let meta = PackageMeta {
        hierarchy: Some(true),
        ..PackageMeta::default()
    };
    let good = package::to_bytes(&nav, &meta);
    let manifest = common::manifest_json(&good);
    let list = manifest["chunks"].as_array().unwrap();
    let raw: Vec<Vec<u8>> = list
        .iter()
        .map(|c| {
            let at = c["offset"].as_u64().unwrap() as usize;
            zstd::decode_all(&good[at..at + c["stored_len"].as_u64().unwrap() as usize]).unwrap()
        })
        .collect();
    let k = list.iter().position(|c| c["kind"] == "hierarchy").unwrap();
    let probe = world(&nav, SearchMode::Flat, false);
    let pairs = reachable_pairs(&probe, 4, 170, 9);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mutated.navpkg");
    let mut rng = Rng::new(13);
    for round in 0..40 {
        let mut chunks = raw.clone();
        let chunk = &mut chunks[k];
        // Early rounds hit the header and counts, later ones anywhere.
        let span = if round < 20 { 64 } else { chunk.len() as u32 };
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(span) as usize;
            chunk[i] = match rng.below(3) {
                0 => chunk[i] ^ (1 << rng.below(8)),
                1 => 0xFF,
                _ => 0,
            };
        }
        let stored: Vec<Vec<u8>> = chunks
            .iter()
            .map(|r| zstd::encode_all(&r[..], 3).unwrap())
            .collect();
        let bytes = crate::package::join(manifest.clone(), &stored);
        if let Ok(read) = package::from_bytes(&bytes) {
            let mut w = NavWorld::from_package(read);
            for &(a, b) in &pairs {
                let _ = w.request_path(0, &[a], b);
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(mut w) = NavWorld::open(&path, StreamOptions { cache_budget: 1 }) {
            for &(a, b) in &pairs {
                let _ = w.request_path(0, &[a], b);
            }
        }
    }
}
