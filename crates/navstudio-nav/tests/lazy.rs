//! Lazy refinement: a path whose route beyond the source's clusters is refined only when a
//! read reaches it answers exactly as one refined whole — flow samples anywhere on the map
//! in any order, traces, the routes and exits once sources are added — over the hierarchy
//! with and without its levels, and through a `PathQuery` (lazy by default).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use navstudio_nav::grid::WALL;
use navstudio_nav::rng::SplitMix64;
use navstudio_nav::{
    Cell, CostField, GridSpec, MoveType, NavData, NavWorld, PathQuery, QueryOptions, SearchMode,
    build_layer,
};

const SIDE: u32 = 384;

/// A 384² map in sectors of 4 (12 × 12 clusters, levels above them): wall blobs, costs 1–6.
fn map(rng: &mut SplitMix64) -> (NavData, Vec<u8>) {
    let mut costs: Vec<u8> = (0..SIDE * SIDE).map(|_| 1 + rng.below(6) as u8).collect();
    for _ in 0..500 {
        let (x, y, r) = (rng.below(SIDE), rng.below(SIDE), 1 + rng.below(6));
        for yy in y.saturating_sub(r)..(y + r).min(SIDE) {
            for xx in x.saturating_sub(r)..(x + r).min(SIDE) {
                costs[(yy * SIDE + xx) as usize] = WALL;
            }
        }
    }
    let spec = GridSpec {
        width: SIDE,
        height: SIDE,
        sector_size: 4,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let layer = build_layer("land", CostField::from_cells(spec, &costs), &|_| {}, &never).unwrap();
    (NavData::new(spec, 1.0, vec![layer]), costs)
}

fn open_cell(rng: &mut SplitMix64, costs: &[u8]) -> (u32, u32) {
    loop {
        let c = (rng.below(SIDE), rng.below(SIDE));
        if costs[(c.1 * SIDE + c.0) as usize] != WALL {
            return c;
        }
    }
}

/// Cells a third of the map apart or more, so routes cross many clusters.
fn far_pair(rng: &mut SplitMix64, costs: &[u8]) -> ((u32, u32), (u32, u32)) {
    loop {
        let (a, b) = (open_cell(rng, costs), open_cell(rng, costs));
        if a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= SIDE / 3 {
            return (a, b);
        }
    }
}

fn seed() -> u64 {
    let seed = std::env::var("LAZY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(45_u64);
    println!("seed {seed} (set LAZY_SEED to replay)");
    seed
}

#[test]
fn a_lazily_refined_path_traces_exactly_as_an_eager_one() {
    let mut rng = SplitMix64::new(seed());
    let (nav, costs) = map(&mut rng);
    let (mut compared, mut lazier) = (0, 0);
    for mode in [SearchMode::Levels, SearchMode::Clusters] {
        let mut eager = NavWorld::from_nav(nav.clone());
        let mut lazy = NavWorld::from_nav(nav.clone());
        for w in [&mut eager, &mut lazy] {
            w.set_search_mode(mode);
        }
        lazy.set_lazy_refinement(true);
        for k in 0..8 {
            let (src, goal) = far_pair(&mut rng, &costs);
            // Two sources every other request: the last is refined lazily.
            let mut sources = vec![src];
            if k % 2 == 1 {
                sources.insert(0, open_cell(&mut rng, &costs));
            }
            let (Ok(a), Ok(b)) = (
                eager.request_path_to_any(0, &sources, &[goal]),
                lazy.request_path_to_any(0, &sources, &[goal]),
            ) else {
                continue;
            };
            let (pa, pb) = (eager.path(a).unwrap(), lazy.path(b).unwrap());
            assert_eq!(pa.sources, pb.sources, "{mode:?} request {k}: sources");
            if pb.exits.len() < pa.exits.len() {
                lazier += 1;
            }
            // Samples all over the map, in random order, refine stretches out of order.
            for _ in 0..150 {
                let c = open_cell(&mut rng, &costs);
                let pos = (c.0 as f32 + 0.3, c.1 as f32 + 0.7);
                let (fa, fb) = (eager.sample_flow(a, pos), lazy.sample_flow(b, pos));
                assert_eq!(fa, fb, "{mode:?} request {k}: flow at {pos:?}");
            }
            for s in sources.iter().copied().chain([open_cell(&mut rng, &costs)]) {
                assert_eq!(
                    eager.trace_path(a, s),
                    lazy.trace_path(b, s),
                    "{mode:?} request {k}: trace from {s:?}"
                );
            }
            // Added sources merge into the whole route: refined first, it is the same.
            let more = [open_cell(&mut rng, &costs)];
            assert_eq!(
                eager.add_sources(a, &more),
                lazy.add_sources(b, &more),
                "{mode:?} request {k}: sources added"
            );
            lazy.refine_path(b);
            let (pa, pb) = (eager.path(a).unwrap(), lazy.path(b).unwrap());
            assert_eq!(pa.routes, pb.routes, "{mode:?} request {k}: routes");
            assert_eq!(pa.exits, pb.exits, "{mode:?} request {k}: exits");
            assert_eq!(pa.route_first, pb.route_first, "{mode:?} request {k}");
            assert_eq!(eager.trace_path(a, more[0]), lazy.trace_path(b, more[0]));
            eager.release_path(a);
            lazy.release_path(b);
            compared += 1;
        }
    }
    println!("{compared} paths compared, {lazier} planned with fewer exits");
    assert!(compared >= 12, "only {compared} requests were answered");
    assert!(
        lazier * 2 >= compared,
        "only {lazier} of {compared} paths were refined lazily"
    );
}

#[test]
fn a_query_refines_lazily_and_answers_as_a_world() {
    let mut rng = SplitMix64::new(seed() + 1);
    let (nav, costs) = map(&mut rng);
    let data = Arc::new(nav.clone());
    let mut world = NavWorld::from_nav(nav);
    world.set_search_mode(SearchMode::Levels);
    let mut query = PathQuery::new(QueryOptions {
        search_mode: SearchMode::Levels,
        ..QueryOptions::default()
    });
    let land = MoveType::from(0);
    for k in 0..6 {
        let (src, goal) = far_pair(&mut rng, &costs);
        let Ok(id) = world.request_path(0, &[src], goal) else {
            continue;
        };
        let path = query
            .request_path(&data, land, &[Cell::from(src)], Cell::from(goal))
            .unwrap();
        let c = open_cell(&mut rng, &costs);
        assert_eq!(
            query.trace_path(&path, Cell::from(c)),
            world.trace_path(id, c),
            "request {k}: trace from {c:?}"
        );
        let routes: Vec<(Vec<u32>, u32)> = path.routes().collect();
        let p = world.path(id).unwrap();
        let expected: Vec<(Vec<u32>, u32)> =
            p.routes.iter().map(|r| (r.nodes.clone(), r.cost)).collect();
        assert_eq!(routes, expected, "request {k}: routes");
        world.release_path(id);
    }
}
