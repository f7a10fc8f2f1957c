//! What a world keeps of its search structures equals a fresh build of them: after walls
//! painted at run time, and after a package's round trip. The hierarchy, its levels and the
//! landmark tables are the crate's own, so these checks live here; the integration tests
//! check the routes a game sees.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::{NavWorld, SearchMode};
use crate::grid::{CellRect, WALL};
use crate::hierarchy::Hierarchy;
use crate::landmarks::Landmarks;
use crate::landmarks::tests::random_layer_sized;
use crate::package::{self, PackageMeta};
use crate::search_graph::SearchGraph;
use crate::{CostField, NavData, NavLayer, StreamOptions, build_layer};

/// One layer of `size`² cells in sectors of 3 (enough sectors for clusters and a level).
fn one_layer(seed: u64, size: u32) -> NavData {
    let layer = random_layer_sized(seed, size, 3);
    NavData::new(layer.cost.spec, 1.0, vec![layer])
}

/// The layer built again from its costs alone.
fn rebuilt_from_costs(layer: &NavLayer) -> NavLayer {
    build_layer(
        &layer.name,
        CostField::from_cells(layer.cost.spec, &layer.cost.to_cells()),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap()
}

/// A cell near the top-left and one near the bottom-right corner of layer 0, both clear.
fn far_pair(nav: &NavData) -> ((u32, u32), (u32, u32)) {
    let spec = nav.spec;
    let costs = nav.layers[0].cost.to_cells();
    let clear = |&(x, y): &(u32, u32)| costs[(y * spec.width + x) as usize] != WALL;
    let a = (0..spec.width).map(|x| (x, 1)).find(clear).unwrap();
    let b = (0..spec.width)
        .rev()
        .map(|x| (x, spec.height - 2))
        .find(clear)
        .unwrap();
    (a, b)
}

/// Plans (and drops) a path from `a` to `b`, so the world builds what its search needs.
fn plan_once(world: &mut NavWorld, (a, b): ((u32, u32), (u32, u32))) {
    let id = world
        .request_path(0, &[a], b)
        .expect("the pair is reachable");
    world.release_path(id);
}

#[test]
fn walls_painted_at_run_time_leave_the_hierarchy_a_fresh_build_gives() {
    let mut w = NavWorld::from_nav(one_layer(11, 240));
    w.set_search_mode(SearchMode::Levels);
    let pair = far_pair(w.nav());
    plan_once(&mut w, pair);
    // A wall across cluster borders and a cost patch inside another cluster.
    w.apply_stamp(&[0], CellRect::at(70, 60, 30, 40), &vec![WALL; 30 * 40]);
    w.apply_stamp(&[0], CellRect::at(150, 150, 20, 20), &vec![9; 20 * 20]);
    while !w.rebuild(Duration::ZERO) {}
    let pair = far_pair(w.nav());
    plan_once(&mut w, pair);
    let fresh = rebuilt_from_costs(&w.nav().layers[0]);
    let graph = SearchGraph::new(&fresh);
    let mut built = Hierarchy::build(&graph);
    built.build_levels();
    let marks = built.landmarks(&fresh, &graph);
    let kept = w.hierarchy(0).expect("the levels search built a hierarchy");
    assert!(kept.hierarchy.levels().is_some(), "no levels were kept");
    assert!(kept.hierarchy == built, "the rebuilt hierarchy differs");
    assert!(
        kept.landmarks == marks,
        "the rebuilt landmark tables differ"
    );
}

#[test]
fn a_stored_hierarchy_decodes_to_the_one_a_world_builds() {
    let nav = one_layer(12, 240);
    let meta = PackageMeta {
        hierarchy: Some(true),
        ..PackageMeta::default()
    };
    let bytes = package::to_bytes(&nav, &meta);
    let pair = far_pair(&nav);
    let mut built = NavWorld::from_nav(nav);
    built.set_search_mode(SearchMode::Levels);
    let mut stored = NavWorld::from_package(package::from_bytes(&bytes).unwrap());
    let mut streamed = NavWorld::open_bytes(&bytes, StreamOptions::default()).unwrap();
    for w in [&mut built, &mut stored, &mut streamed] {
        plan_once(w, pair);
    }
    let own = built.hierarchy(0).unwrap();
    let decoded = stored.hierarchy(0).unwrap();
    assert!(decoded.hierarchy == own.hierarchy && decoded.landmarks == own.landmarks);
    assert!(streamed.hierarchy(0).unwrap().hierarchy == own.hierarchy);
}

#[test]
fn stored_landmark_tables_equal_a_fresh_build() {
    let layers: Vec<NavLayer> = (0..3).map(|s| random_layer_sized(20 + s, 60, 6)).collect();
    let nav = NavData::new(layers[0].cost.spec, 1.0, layers);
    let pkg = package::from_bytes(&package::to_bytes(&nav, &PackageMeta::default())).unwrap();
    assert_eq!(pkg.landmarks.len(), nav.layers.len());
    for (l, stored) in nav.layers.iter().zip(&pkg.landmarks) {
        let stored = stored
            .as_ref()
            .expect("a layer with portal nodes stores tables");
        assert_eq!(Some(stored.decode().unwrap()), Landmarks::build(l));
        // Decoding into another node order equals reordering after decoding.
        let n = l.nodes.len() as u32;
        if !n.is_multiple_of(7) {
            let rank: Vec<u32> = (0..n).map(|v| (v * 7 + 3) % n).collect();
            assert_eq!(
                stored.decode_ranked(Some(&rank)).unwrap(),
                stored.decode().unwrap().reordered(&rank)
            );
            assert!(stored.decode_ranked(Some(&rank[1..])).is_err());
        }
    }
}
