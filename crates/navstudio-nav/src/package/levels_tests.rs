//! The `levels` chunk end to end: a package of a map with levels stores them and requires
//! them; a world over it, streamed or read whole, answers as one whose levels were built at
//! run time; a package without them (version 2) is searched over its clusters alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::{PackageMeta, from_bytes, to_bytes};
use crate::grid::WALL;
use crate::rng::SplitMix64;
use crate::{CostField, GridSpec, NavData, NavWorld, build_layer};

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
    assert!(package.manifest.requires.iter().any(|k| k == "levels"));
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
    let mut clusters = NavWorld::from_package(package);
    clusters.set_search_mode(crate::SearchMode::Clusters);
    let mut built = NavWorld::from_nav(nav.clone());
    built.set_search_mode(crate::SearchMode::Levels);
    let mut streamed = NavWorld::open(&file, crate::StreamOptions::default()).unwrap();
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
        ]
        .into_iter()
        .map(|w| {
            w.request_path(0, &[a], b).ok().map(|id| {
                let p = w.path(id).unwrap();
                let out = (p.routes.clone(), p.exits.clone(), w.trace_path(id, a));
                w.release_path(id);
                out
            })
        })
        .collect();
        assert_eq!(
            answers[0], answers[1],
            "{a:?} → {b:?}: stored against built levels"
        );
        // Routes and exits: a streamed world's traces pull over the cells of regions it has
        // read, which the whole world's may not match (not the levels' doing).
        let plan = |i: usize| answers[i].as_ref().map(|(r, e, _)| (r.clone(), e.clone()));
        assert_eq!(plan(0), plan(2), "{a:?} → {b:?}: whole against streamed");
        assert_eq!(
            answers[3], answers[4],
            "{a:?} → {b:?}: without levels against the clusters alone"
        );
        answered += usize::from(answers[0].is_some());
    }
    for w in [&stored, &built, &streamed] {
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
