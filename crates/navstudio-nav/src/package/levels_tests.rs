//! The levels chunks end to end: a package of a map with levels stores them by cell
//! (`level_cells`) and requires them; a world over it, streamed or read whole, answers as
//! one whose levels were built at run time and as one reading the `levels` chunk of
//! earlier builds whole, and decodes only the cells its requests read, the rest in the
//! background once a request has been answered; a package without them (version 2) is
//! searched over its clusters alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::{ChunkKind, PackageMeta, StoredLevels, from_bytes, to_bytes};
use crate::grid::WALL;
use crate::rng::SplitMix64;
use crate::{CostField, GridSpec, NavData, NavWorld, build_layer};

/// A path's routes and exits, and its trace from its source.
type Answer = (
    Vec<crate::route::Route>,
    std::collections::BTreeMap<u32, Vec<(u32, u32)>>,
    Option<crate::TracedPath>,
);

/// `w`'s answer from `a` to `b`, or none when the request is refused.
fn answer(w: &mut NavWorld, (a, b): ((u32, u32), (u32, u32))) -> Option<Answer> {
    w.request_path(0, &[a], b).ok().map(|id| {
        let p = w.path(id).unwrap();
        let out = (p.routes.clone(), p.exits.clone(), w.trace_path(id, a));
        w.release_path(id);
        out
    })
}

/// A 512² map in sectors of 4 (16 × 16 clusters: levels above them), walls and costs 1–6.
fn map(seed: u64) -> (NavData, Vec<u8>) {
    let mut rng = SplitMix64::new(seed);
    let side = 512;
    let mut costs: Vec<u8> = (0..side * side).map(|_| 1 + rng.below(6) as u8).collect();
    for _ in 0..900 {
        let (x, y, r) = (rng.below(side), rng.below(side), 1 + rng.below(6));
        for yy in y.saturating_sub(r)..(y + r).min(side) {
            for xx in x.saturating_sub(r)..(x + r).min(side) {
                costs[(yy * side + xx) as usize] = WALL;
            }
        }
    }
    let spec = GridSpec {
        width: side,
        height: side,
        sector_size: 4,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let layer = build_layer("land", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
    (NavData::new(spec, 1.0, vec![layer]), costs)
}

#[test]
fn stored_levels_answer_as_levels_built_at_run_time_whole_or_streamed() {
    let (nav, costs) = map(7);
    let meta = PackageMeta {
        hierarchy: Some(true),
        ..PackageMeta::default()
    };
    let bytes = to_bytes(&nav, &meta);
    let package = from_bytes(&bytes).unwrap();
    assert_eq!(package.version, 3, "a package with levels requires them");
    assert_eq!(package.manifest.requires, ["level_cells"]);
    assert!(
        package.hierarchies[0]
            .as_ref()
            .is_some_and(|h| h.levels.is_some()),
        "the levels chunk is read"
    );
    // The same package without its levels chunk, as a version 2 package has none.
    let mut bare = package.clone();
    if let Some(h) = bare.hierarchies[0].as_mut() {
        h.levels = None;
    }
    let dir = std::env::temp_dir().join(format!("navstudio-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("levels.navpkg");
    std::fs::write(&file, &bytes).unwrap();
    let mut stored = NavWorld::from_package(package.clone());
    let mut bare = NavWorld::from_package(bare);
    let mut old_layout = NavWorld::from_package(with_whole_levels(&package));
    let mut clusters = NavWorld::from_package(package);
    clusters.set_search_mode(crate::SearchMode::Clusters);
    let mut built = NavWorld::from_nav(nav.clone());
    built.set_search_mode(crate::SearchMode::Levels);
    let mut streamed = NavWorld::open(&file, crate::StreamOptions::default()).unwrap();
    // Read region by region between calls of no budget at all.
    let small = crate::StreamOptions { cache_budget: 1 };
    let mut budgeted = NavWorld::open(&file, small).unwrap();
    let mut rng = SplitMix64::new(11);
    let mut open = || loop {
        let c = (rng.below(512), rng.below(512));
        if costs[(c.1 * 512 + c.0) as usize] != WALL {
            return c;
        }
    };
    let mut answered = 0;
    for _ in 0..30 {
        let (a, b) = (open(), open());
        let answers: Vec<_> = [
            &mut stored,
            &mut built,
            &mut streamed,
            &mut bare,
            &mut clusters,
            &mut old_layout,
        ]
        .into_iter()
        .map(|w| answer(w, (a, b)))
        .collect();
        assert_eq!(
            answers[0], answers[1],
            "{a:?} → {b:?}: stored against built levels"
        );
        assert_eq!(
            answers[0], answers[5],
            "{a:?} → {b:?}: stored by cell against the whole levels of earlier builds"
        );
        // Routes and exits: a streamed world's traces pull over the cells of regions it has
        // read, which the whole world's may not match (not the levels' doing).
        let plan = |i: usize| answers[i].as_ref().map(|(r, e, _)| (r.clone(), e.clone()));
        assert_eq!(plan(0), plan(2), "{a:?} → {b:?}: whole against streamed");
        let mut pending = budgeted.start_path(0, &[a], &[b]);
        let stepped = loop {
            if let Some(answer) = budgeted.advance_path(&mut pending, std::time::Duration::ZERO) {
                break answer.ok().map(|id| {
                    let p = budgeted.path(id).unwrap();
                    let out = (p.routes.clone(), p.exits.clone());
                    budgeted.release_path(id);
                    out
                });
            }
        };
        assert_eq!(plan(0), stepped, "{a:?} → {b:?}: streamed, budgeted");
        assert_eq!(
            answers[3], answers[4],
            "{a:?} → {b:?}: without levels against the clusters alone"
        );
        answered += usize::from(answers[0].is_some());
    }
    for w in [&stored, &built, &streamed, &old_layout] {
        let h = w.hierarchy(0).expect("searched over the hierarchy");
        assert!(h.hierarchy.levels().is_some(), "levels in use");
    }
    let h = bare.hierarchy(0).expect("searched over the hierarchy");
    assert!(
        h.hierarchy.levels().is_none(),
        "no levels built on a request"
    );
    assert_eq!(
        stored.hierarchy(0).unwrap().hierarchy.levels(),
        built.hierarchy(0).unwrap().hierarchy.levels(),
        "stored levels are the levels a build makes"
    );
    assert!(answered >= 20, "only {answered} requests answered");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `package` with its levels in the `levels` chunk of earlier builds (every level whole).
fn with_whole_levels(package: &super::Package) -> super::Package {
    let mut old = package.clone();
    let mut world = NavWorld::from_package(package.clone());
    world.set_search_mode(crate::SearchMode::Levels);
    world.prepare_landmarks();
    let h = &world.hierarchy(0).unwrap().hierarchy;
    let raw = h.levels().unwrap().to_whole_bytes(h);
    let stored = zstd::bulk::compress(&raw, 3).unwrap();
    old.hierarchies[0].as_mut().unwrap().levels = Some(StoredLevels {
        stored: std::sync::Arc::new(stored),
        raw_len: raw.len() as u64,
        kind: ChunkKind::Levels,
    });
    old
}

/// The package of `map(5)` with its levels stored by cell, the same package with them
/// decoded whole, and a draw of open cells from `seed` (printed).
fn cells_fixture(seed: u64) -> (super::Package, super::Package, impl FnMut() -> (u32, u32)) {
    let (nav, costs) = map(5);
    let meta = PackageMeta {
        hierarchy: Some(true),
        ..PackageMeta::default()
    };
    let package = from_bytes(&to_bytes(&nav, &meta)).unwrap();
    let whole = with_whole_levels(&package);
    println!("seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let open = move || loop {
        let c = (rng.below(512), rng.below(512));
        if costs[(c.1 * 512 + c.0) as usize] != WALL {
            return c;
        }
    };
    (package, whole, open)
}

/// Over many random requests, a world decoding the levels below the top cell by cell as its
/// searches read them answers (routes, exits, traces) exactly as one that decoded every
/// level whole (the `levels` chunk of earlier builds); a fresh world's first request
/// decodes the cells of the top level holding its source and goal and few others.
#[test]
fn levels_read_by_cell_answer_as_levels_read_whole_and_decode_only_the_cells_read() {
    let (package, whole, mut open) = cells_fixture(0x5eed_ce11);
    let cell_of = |w: &NavWorld, (x, y): (u32, u32)| {
        let h = w.hierarchy(0).unwrap();
        let key = crate::search_graph::sector_cluster_key(x / 4, y / 4);
        h.hierarchy.levels().unwrap().top_cell(key)
    };
    // First requests, each in a fresh world, between far-apart cells.
    let mut touched_total = 0;
    let mut firsts = 0;
    while firsts < 6 {
        let (a, b) = (open(), open());
        if a.0.abs_diff(b.0) + a.1.abs_diff(b.1) < 400 {
            continue;
        }
        // As a game's queries refine: the route near its source now, the rest when read.
        let mut by_cell = NavWorld::from_package(package.clone());
        let mut read_whole = NavWorld::from_package(whole.clone());
        by_cell.set_lazy_refinement(true);
        read_whole.set_lazy_refinement(true);
        let answer = |w: &mut NavWorld| {
            w.request_path(0, &[a], b).ok().map(|id| {
                let p = w.path(id).unwrap();
                (p.routes.clone(), p.exits.clone())
            })
        };
        let (first, expected) = (answer(&mut by_cell), answer(&mut read_whole));
        assert_eq!(first, expected, "{a:?} → {b:?}: first request");
        if first.is_none() {
            continue;
        }
        firsts += 1;
        // The cells the request decoded: the rest decode in the background meanwhile.
        let levels = by_cell.hierarchy(0).unwrap().hierarchy.levels().unwrap();
        let decoded = levels.cells_decoded_by_requests();
        let (cells, count) = (levels.cells_decoded().0, decoded.len());
        println!("{a:?} → {b:?}: cells {decoded:?} of {cells} decoded by the request");
        // Only the goal's cell and the cells around the source's cluster, where the route
        // is refined now (its first hops, up to a cluster away).
        let (cx, cy) = (a.0 / 4 / 8, a.1 / 4 / 8);
        let mut allowed = vec![cell_of(&by_cell, b)];
        for y in cy.saturating_sub(1)..=cy + 1 {
            for x in cx.saturating_sub(1)..=(cx + 1) {
                allowed.push(cell_of(&by_cell, (x.min(15) * 32, y.min(15) * 32)));
            }
        }
        for cell in &decoded {
            assert!(allowed.contains(cell), "{a:?} → {b:?}: cell {cell} decoded");
        }
        assert!(
            count <= 5,
            "{a:?} → {b:?}: {count} of {cells} cells decoded"
        );
        touched_total += count;
    }
    assert!(
        (1..6 * 16 / 3).contains(&touched_total),
        "{touched_total} cells decoded in 6 first requests"
    );

    // Then many requests in one world each: routes, exits and traces the same.
    let mut by_cell = NavWorld::from_package(package);
    let mut read_whole = NavWorld::from_package(whole);
    let mut answered = 0;
    for _ in 0..60 {
        let (a, b) = (open(), open());
        let answers: Vec<_> = [&mut by_cell, &mut read_whole]
            .into_iter()
            .map(|w| answer(w, (a, b)))
            .collect();
        assert_eq!(
            answers[0], answers[1],
            "{a:?} → {b:?}: by cell against whole"
        );
        answered += usize::from(answers[0].is_some());
    }
    assert!(answered >= 40, "only {answered} requests answered");
}

/// Once a world's first request has been answered, the cells no request has read decode in
/// the background: waiting for it leaves every cell decoded (most of them by that thread)
/// and the stored chunk freed, and the levels and answers are those of the levels decoded
/// whole, on a world and on data shared by queries alike.
#[test]
fn after_the_first_request_the_other_cells_decode_in_the_background() {
    let (package, whole, mut open) = cells_fixture(0xbac6_0d5e);
    let pairs: Vec<_> = (0..40).map(|_| (open(), open())).collect();
    let mut by_cell = NavWorld::from_package(package.clone());
    let mut read_whole = NavWorld::from_package(whole);
    let first = pairs
        .iter()
        .position(|&p| answer(&mut by_cell, p).is_some())
        .unwrap();
    let levels = by_cell.hierarchy(0).unwrap().hierarchy.levels().unwrap();
    levels.wait_for_background();
    let (cells, decoded) = levels.cells_decoded();
    let by_requests = levels.cells_decoded_by_requests().len();
    println!("{decoded} of {cells} cells decoded, {by_requests} by the first request");
    assert_eq!(decoded, cells, "every cell decoded after the wait");
    assert!(
        by_requests < cells / 2,
        "{by_requests} of {cells} by the request"
    );
    let held = by_cell
        .hierarchy(0)
        .unwrap()
        .hierarchy
        .memory()
        .into_iter()
        .find(|(what, _)| what.starts_with("levels: stored chunk"))
        .map(|(_, bytes)| bytes);
    assert_eq!(held, Some(0), "the stored chunk is freed");
    let levels = by_cell.hierarchy(0).unwrap().hierarchy.levels();
    assert!(levels.is_some(), "levels in use");
    for &p in &pairs[first..] {
        assert_eq!(
            answer(&mut by_cell, p),
            answer(&mut read_whole, p),
            "{p:?}: decoded in the background against whole"
        );
    }
    assert_eq!(
        by_cell.hierarchy(0).unwrap().hierarchy.levels(),
        read_whole.hierarchy(0).unwrap().hierarchy.levels(),
        "the levels decoded in the background are the whole levels"
    );

    // Queries over shared data: the first answer starts the thread there too.
    let data = std::sync::Arc::new(NavData::from_package(package));
    let mut query = crate::PathQuery::new(crate::QueryOptions::default());
    let ty = crate::MoveType::new(0);
    let (a, b) = pairs[first];
    query
        .request_path(&data, ty, &[a.into()], b.into())
        .unwrap();
    let levels = data.layer_tables(0).unwrap().hierarchy.as_ref().unwrap();
    let levels = levels.hierarchy.levels().unwrap();
    levels.wait_for_background();
    assert_eq!(levels.cells_decoded(), (cells, cells), "shared data");
}
