//! The rebuild queue sliced by different budgets leaves the same world, and answers queries
//! from whole routes while it re-plans.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::{NavWorld, PathId};
use crate::NavData;
use crate::grid::{CellRect, WALL};
use crate::landmarks::tests::random_layer_sized;

fn base() -> Arc<NavData> {
    let layers = vec![
        random_layer_sized(21, 120, 8),
        random_layer_sized(22, 120, 8),
    ];
    Arc::new(NavData::new(layers[0].cost.spec, 1.0, layers))
}

/// Draws below `n`, from `seed`.
fn draws(seed: u64) -> impl FnMut(u32) -> u32 {
    let mut rng = crate::rng::SplitMix64::new(seed);
    move |n: u32| rng.below(n)
}

/// What a path answers: its trace from every source, and the flow at a few cells.
type Answers = Vec<(Option<(Vec<(u32, u32)>, (u32, u32))>, Option<(f32, f32)>)>;

/// A request `(movement type, source, goal)` made during a drain, with its answers.
type Asked = ((usize, (u32, u32), (u32, u32)), Answers);

fn answers(world: &NavWorld, id: PathId, probes: &[(u32, u32)]) -> Answers {
    let Some(p) = world.paths.get(&id) else {
        return Vec::new();
    };
    let sources = p.sources.clone();
    sources
        .iter()
        .chain(probes)
        .map(|&c| {
            let trace = world.trace_path(id, c).map(|t| (t.cells, t.goal));
            let flow = world.sample_flow(id, (c.0 as f32 + 0.5, c.1 as f32 + 0.5));
            (trace, flow)
        })
        .collect()
}

/// Drains `world`'s queue with `budget` per call. Between calls, every path the call did
/// not re-plan — the one whose goal field is built and whose plan is not, included —
/// answers exactly as before it, and a new request made while live paths wait for their
/// re-plan (graph and tables final) is recorded with its answers.
fn drain(
    world: &mut NavWorld,
    budget: Duration,
    probes: &[(u32, u32)],
    asked: &mut Vec<Asked>,
    seed: u64,
) -> usize {
    let (mut calls, mut tried) = (0, 0u32);
    loop {
        let waiting: Vec<PathId> = world.replans.clone();
        let before: BTreeMap<PathId, Answers> = waiting
            .iter()
            .map(|&id| (id, answers(world, id, probes)))
            .collect();
        calls += 1;
        let done = world.rebuild(budget);
        for id in world.replans.iter().copied() {
            if let Some(old) = before.get(&id) {
                assert_eq!(
                    &answers(world, id, probes),
                    old,
                    "seed {seed}: path {id:?}, not re-planned yet (goal field built: {}), \
                     answers differently after a rebuild call of {budget:?}",
                    world.replan_ready == Some(id)
                );
            }
        }
        if done {
            return calls;
        }
        if !world.replans.is_empty() && tried < 4 {
            tried += 1;
            let n = tried;
            let (layer, from, to) = (n as usize % 2, (3 + 29 * n, 5), (110 - 7 * n, 114));
            if let Ok(id) = world.request_path(layer, &[from], to) {
                asked.push(((layer, from, to), answers(world, id, probes)));
                world.release_path(id);
            }
        }
    }
}

/// Three worlds given the same changes (stamps, removals, cell costs) around 8 live paths,
/// in two rounds each drained by rebuilds of 0.1 ms, 1 ms and an unlimited budget: the
/// landmark tables, every live path's answers and fresh requests are identical, and
/// requests made while paths waited for their re-plan equal the drained world's.
#[test]
fn rebuild_budgets_of_a_tenth_of_a_millisecond_one_and_unlimited_leave_the_same_world() {
    let seeds: Vec<u64> = match std::env::var("NAVSTUDIO_SEED") {
        Ok(s) => vec![s.parse().unwrap()],
        Err(_) => (0..4).collect(),
    };
    let nav = base();
    let spec = nav.spec;
    let budgets = [
        Duration::from_micros(100),
        Duration::from_millis(1),
        Duration::MAX,
    ];
    for seed in seeds {
        println!("seed {seed} (rerun with NAVSTUDIO_SEED={seed})");
        let mut worlds: Vec<NavWorld> = budgets
            .iter()
            .map(|_| NavWorld::from_nav(nav.clone()))
            .collect();
        let mut next = draws(seed);
        let mut ids = Vec::new();
        while ids.len() < 8 {
            let layer = next(2) as usize;
            let from = (next(spec.width), next(spec.height));
            let to = (next(spec.width), next(spec.height));
            let got: Vec<_> = worlds
                .iter_mut()
                .map(|w| w.request_path(layer, &[from], to).ok())
                .collect();
            assert!(got.iter().all(|g| *g == got[0]), "seed {seed}");
            if let Some(id) = got[0] {
                ids.push(id);
            }
        }
        let probes: Vec<(u32, u32)> = (0..6)
            .map(|_| (next(spec.width), next(spec.height)))
            .collect();
        let mut in_flight = 0;
        for _round in 0..2 {
            let mut asked: Vec<Vec<_>> = vec![Vec::new(); budgets.len()];
            let mut stamps = Vec::new();
            for _ in 0..6 {
                let (w, h) = (2 + next(14), 2 + next(14));
                let rect = CellRect::at(next(spec.width - w), next(spec.height - h), w, h);
                let layers = if next(2) == 0 { vec![0, 1] } else { vec![1] };
                let costs: Vec<u8> = (0..w * h)
                    .map(|_| {
                        if next(2) == 0 {
                            WALL
                        } else {
                            1 + next(9) as u8
                        }
                    })
                    .collect();
                let handles: Vec<_> = worlds
                    .iter_mut()
                    .map(|world| world.apply_stamp(&layers, rect, &costs))
                    .collect();
                stamps.push(handles);
                let cell = (next(spec.width), next(spec.height));
                let cost = 1 + next(255) as u8;
                for world in &mut worlds {
                    world.set_cost(0, cell, cost);
                }
            }
            let gone = stamps.remove(next(stamps.len() as u32) as usize);
            for (world, handle) in worlds.iter_mut().zip(gone) {
                world.remove_stamp(handle);
            }
            let calls: Vec<usize> = worlds
                .iter_mut()
                .zip(&budgets)
                .zip(&mut asked)
                .map(|((world, &budget), asked)| drain(world, budget, &probes, asked, seed))
                .collect();
            println!("  calls to drain at 0.1 ms, 1 ms, unlimited: {calls:?}");
            assert_eq!(
                calls[2], 1,
                "seed {seed}: an unlimited budget drains in one call"
            );
            let (last, sliced) = worlds.split_last().unwrap();
            for (world, budget) in sliced.iter().zip(&budgets) {
                assert!(
                    world.landmarks == last.landmarks,
                    "seed {seed}, {budget:?}: the landmark tables differ"
                );
                assert_eq!(
                    world.paths.keys().collect::<Vec<_>>(),
                    last.paths.keys().collect::<Vec<_>>(),
                    "seed {seed}, {budget:?}: the same paths survive"
                );
                for &id in last.paths.keys() {
                    assert_eq!(
                        answers(world, id, &probes),
                        answers(last, id, &probes),
                        "seed {seed}, {budget:?}: path {id:?}"
                    );
                }
            }
            let last = worlds.last_mut().unwrap();
            for (slice, asked) in asked.iter().enumerate() {
                for ((layer, from, to), got) in asked {
                    in_flight += 1;
                    let id = last.request_path(*layer, &[*from], *to).unwrap();
                    assert_eq!(
                        &answers(last, id, &probes),
                        got,
                        "seed {seed}: a request {from:?} → {to:?} made while paths waited \
                         for their re-plan, budget {:?}",
                        budgets[slice]
                    );
                    last.release_path(id);
                }
            }
        }
        assert!(
            in_flight > 0,
            "seed {seed}: no request was made while paths waited for their re-plan"
        );
    }
}
