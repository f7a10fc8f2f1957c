//! Requests that fit a frame: a request advanced under a tiny budget per call plans the
//! path one call plans (routes, exits, traces), for one source and several, over the flat
//! search, the hierarchy and its levels.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use navstudio_nav::grid::WALL;
use navstudio_nav::rng::SplitMix64 as Rng;
use navstudio_nav::{CostField, GridSpec, NavData, NavWorld, SearchMode, build_layer};

/// A 512² map in sectors of 4 (16 × 16 clusters, so levels above them): wall blobs and
/// costs 1–6.
fn map(rng: &mut Rng) -> (NavData, Vec<u8>) {
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
fn a_budgeted_request_plans_the_path_one_call_plans() {
    let seed = std::env::var("BUDGET_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(45_u64);
    println!("seed {seed} (set BUDGET_SEED to replay)");
    let mut rng = Rng::new(seed);
    let (nav, costs) = map(&mut rng);
    let open = |rng: &mut Rng| loop {
        let c = (rng.below(512), rng.below(512));
        if costs[(c.1 * 512 + c.0) as usize] != WALL {
            return c;
        }
    };
    let mut compared = 0;
    let mut most_calls = 0;
    for mode in [SearchMode::Flat, SearchMode::Clusters, SearchMode::Levels] {
        let mut whole = NavWorld::from_nav(nav.clone());
        let mut sliced = NavWorld::from_nav(nav.clone());
        whole.set_search_mode(mode);
        sliced.set_search_mode(mode);
        for k in 0..12 {
            let sources: Vec<(u32, u32)> = (0..1 + k % 3).map(|_| open(&mut rng)).collect();
            let goals: Vec<(u32, u32)> = (0..1 + k % 2).map(|_| open(&mut rng)).collect();
            let one = whole.request_path_to_any(0, &sources, &goals);
            let mut pending = sliced.start_path(0, &sources, &goals);
            let stepped = loop {
                if let Some(answer) = sliced.advance_path(&mut pending, Duration::ZERO) {
                    break answer;
                }
                assert!(pending.calls() < 100_000, "the request never finishes");
            };
            most_calls = most_calls.max(pending.calls());
            match (one, stepped) {
                (Ok(a), Ok(b)) => {
                    let (pa, pb) = (whole.path(a).unwrap(), sliced.path(b).unwrap());
                    assert_eq!(pa.routes, pb.routes, "{mode:?} request {k}: routes");
                    assert_eq!(pa.exits, pb.exits, "{mode:?} request {k}: exits");
                    assert_eq!(pa.sources, pb.sources, "{mode:?} request {k}: sources");
                    for &s in &sources {
                        assert_eq!(
                            whole.trace_path(a, s),
                            sliced.trace_path(b, s),
                            "{mode:?} request {k}: trace from {s:?}"
                        );
                    }
                    whole.release_path(a);
                    sliced.release_path(b);
                    compared += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{mode:?} request {k}: refusal"),
                (a, b) => panic!("{mode:?} request {k}: {a:?} against {b:?}"),
            }
        }
    }
    println!("{compared} paths compared, up to {most_calls} calls each");
    assert!(compared >= 24, "only {compared} requests were answered");
    assert!(
        most_calls >= 10,
        "no request took more than {most_calls} calls"
    );
}
