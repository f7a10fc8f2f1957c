//! The C API against its oracle, the Rust API: the same package bytes opened both ways must
//! give the same refusals, traces (cells, and lengths bit for bit), flow samples and line of
//! sight, before and after the same run-time stamp and rebuild.

mod common;

use common::{Rng, World, package_bytes, random_nav};
use navstudio_capi::NavstudioStatus;
use navstudio_nav::world::PathError;
use navstudio_nav::{CellRect, NavWorld, package};

/// The status the header documents for each refusal; a refusal the run time adds later
/// (goal sets' empty set) is an invalid argument.
fn status_of(e: &PathError) -> NavstudioStatus {
    match e {
        PathError::UnknownType(_) => NavstudioStatus::UnknownMovementType,
        PathError::OffMap(_) => NavstudioStatus::OffMap,
        PathError::GoalIsWall(_) | PathError::SourceIsWall(_) => NavstudioStatus::Wall,
        PathError::Unreachable(_) => NavstudioStatus::Unreachable,
        PathError::UnknownPath(_) => NavstudioStatus::NoSuchHandle,
        #[allow(unreachable_patterns, reason = "goal sets add a refusal")]
        _ => NavstudioStatus::InvalidArgument,
    }
}

/// Asks both worlds the same `count` random requests; returns how many were traced.
fn compare(rust: &mut NavWorld, c: &mut World, rng: &mut Rng, count: u32) -> u32 {
    let (w, h) = (rust.nav().spec.width, rust.nav().spec.height);
    let mut traced = 0;
    for _ in 0..count {
        let layer = rng.below(2);
        let sources: Vec<(u32, u32)> = (0..1 + rng.below(3))
            .map(|_| (rng.below(w), rng.below(h)))
            .collect();
        let goal = (rng.below(w), rng.below(h));
        let expected = rust.request_path(layer as usize, &sources, goal);
        let got = c.request(layer, &sources, goal);
        let (id, path) = match (expected, got) {
            (Err(e), Err((status, msg))) => {
                assert_eq!(status_of(&e), status, "{sources:?} → {goal:?}: {msg}");
                assert_eq!(msg, e.to_string());
                continue;
            }
            (Ok(id), Ok(path)) => (id, path),
            (e, g) => panic!("{sources:?} → {goal:?}: Rust {e:?}, C {g:?}"),
        };
        for &s in &sources {
            match (rust.trace_path(id, s), c.trace(path, s)) {
                (Some(t), Ok((length, cells))) => {
                    assert_eq!(t.length.to_bits(), length.to_bits(), "{s:?} → {goal:?}");
                    assert_eq!(t.cells, cells);
                    traced += 1;
                }
                // The C API says why (a wall, another island, no flow); Rust gives `None`.
                (
                    None,
                    Err((
                        NavstudioStatus::NoFlow
                        | NavstudioStatus::Wall
                        | NavstudioStatus::Unreachable,
                        _,
                    )),
                ) => {}
                (t, g) => panic!("trace {s:?} → {goal:?}: Rust {t:?}, C {g:?}"),
            }
        }
        for _ in 0..20 {
            let pos = (rng.below(w * 8) as f32 / 8.0, rng.below(h * 8) as f32 / 8.0);
            let expected = rust.sample_flow(id, pos);
            let got = c.sample(path, pos);
            match (expected, got) {
                (Some(e), Ok(g)) => {
                    assert_eq!(
                        (e.0.to_bits(), e.1.to_bits()),
                        (g.0.to_bits(), g.1.to_bits())
                    );
                }
                (None, Err(NavstudioStatus::NoFlow)) => {}
                (e, g) => panic!("sample {pos:?}: Rust {e:?}, C {g:?}"),
            }
            match (rust.steer_target(id, pos), c.steer(path, pos)) {
                (Some(e), Ok(g)) => assert_eq!(e, g, "steer {pos:?}"),
                (None, Err(NavstudioStatus::NoFlow)) => {}
                (e, g) => panic!("steer {pos:?}: Rust {e:?}, C {g:?}"),
            }
            let cell = (pos.0 as u32, pos.1 as u32);
            assert_eq!(
                rust.has_line_of_sight(id, cell),
                c.line_of_sight(path, cell)
            );
        }
        rust.release_path(id);
        c.release(path).unwrap_or_else(|e| panic!("release: {e:?}"));
    }
    traced
}

#[test]
fn c_api_answers_as_the_rust_api_before_and_after_a_stamp() {
    let nav = random_nav(11, 96, 80);
    let bytes = package_bytes(&nav);
    let mut rust = NavWorld::from_nav(
        package::from_bytes(&bytes)
            .unwrap_or_else(|e| panic!("{e}"))
            .nav,
    );
    let mut c = World::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e:?}"));
    let mut rng = Rng::new(5);
    let traced = compare(&mut rust, &mut c, &mut rng, 120);
    assert!(traced > 100, "only {traced} traces compared");

    // The same wall stamp on both, rebuilt in slices on both.
    let rect = (30, 20, 20, 6);
    let walls = vec![255u8; 20 * 6];
    let handle = rust.apply_stamp(
        &[0, 1],
        CellRect::at(rect.0, rect.1, rect.2, rect.3),
        &walls,
    );
    let stamp = c
        .stamp(&[0, 1], rect, &walls)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(handle.0, stamp);
    while !rust.rebuild(std::time::Duration::from_millis(50)) {}
    c.rebuild_all(50_000);
    let traced = compare(&mut rust, &mut c, &mut rng, 120);
    assert!(
        traced > 100,
        "only {traced} traces compared after the stamp"
    );
}

#[test]
fn movement_types_by_name_match_the_package() {
    let nav = random_nav(3, 40, 40);
    let c = World::from_bytes(&package_bytes(&nav)).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(c.move_type("land"), Ok(0));
    assert_eq!(c.move_type("hover"), Ok(1));
    let (status, msg) = c
        .move_type("boat")
        .err()
        .unwrap_or((NavstudioStatus::Ok, String::new()));
    assert_eq!(status, NavstudioStatus::UnknownMovementType);
    assert!(msg.contains("land, hover"), "{msg}");
}

/// Goal sets: the same random sets of one to five goals give the same refusals and the same
/// traces (cells, lengths bit for bit) both ways.
#[test]
fn goal_sets_answer_as_the_rust_api() {
    let nav = random_nav(11, 48, 40);
    let bytes = package_bytes(&nav);
    let mut rust = NavWorld::from_nav(package::from_bytes(&bytes).expect("package").nav);
    let mut c = World::from_bytes(&bytes).expect("C world");
    let (w, h) = (nav.spec.width, nav.spec.height);
    let mut rng = Rng::new(5);
    let mut traced = 0;
    for _ in 0..60 {
        let layer = rng.below(2);
        let sources: Vec<(u32, u32)> = (0..1 + rng.below(3))
            .map(|_| (rng.below(w), rng.below(h)))
            .collect();
        let goals: Vec<(u32, u32)> = (0..1 + rng.below(5))
            .map(|_| (rng.below(w), rng.below(h)))
            .collect();
        let expected = rust.request_path_to_any(layer as usize, &sources, &goals);
        let got = c.request_to_any(layer, &sources, &goals);
        let (id, path) = match (expected, got) {
            (Err(e), Err((status, msg))) => {
                assert_eq!(status_of(&e), status, "{sources:?} → {goals:?}: {msg}");
                assert_eq!(msg, e.to_string());
                continue;
            }
            (Ok(id), Ok(path)) => (id, path),
            (e, g) => panic!("{sources:?} → {goals:?}: Rust {e:?}, C {g:?}"),
        };
        for &s in &sources {
            match (rust.trace_path(id, s), c.trace(path, s)) {
                (Some(t), Ok((length, cells))) => {
                    assert_eq!(t.length.to_bits(), length.to_bits(), "{s:?} → {goals:?}");
                    assert_eq!(t.cells, cells);
                    traced += 1;
                }
                // The C API says why (a wall, another island, no flow); Rust gives `None`.
                (
                    None,
                    Err((
                        NavstudioStatus::NoFlow
                        | NavstudioStatus::Wall
                        | NavstudioStatus::Unreachable,
                        _,
                    )),
                ) => {}
                (t, g) => panic!("trace {s:?} → {goals:?}: Rust {t:?}, C {g:?}"),
            }
        }
        rust.release_path(id);
        c.release(path).expect("release");
    }
    assert!(traced > 20, "only {traced} traces compared");
    // No goals: refused as an invalid argument.
    assert_eq!(
        c.request_to_any(0, &[(1, 1)], &[]).expect_err("no goals").0,
        NavstudioStatus::InvalidArgument
    );
}

/// Moving goals and added sources: the same random moves and additions give the same
/// refusals, the same queued-or-not answers and the same traces both ways, before and after
/// the rebuild that switches queued routes.
#[test]
fn moved_goals_and_added_sources_answer_as_the_rust_api() {
    let nav = random_nav(17, 48, 40);
    let bytes = package_bytes(&nav);
    let mut rust = NavWorld::from_nav(package::from_bytes(&bytes).expect("package").nav);
    let mut c = World::from_bytes(&bytes).expect("C world");
    let (w, h) = (nav.spec.width, nav.spec.height);
    let mut rng = Rng::new(9);
    let mut compared = 0;
    let mut queued = 0;
    for _ in 0..60 {
        let layer = rng.below(2);
        let mut sources = vec![(rng.below(w), rng.below(h))];
        let goal = (rng.below(w), rng.below(h));
        let (Ok(id), Ok(path)) = (
            rust.request_path(layer as usize, &sources, goal),
            c.request(layer, &sources, goal),
        ) else {
            continue;
        };
        let to = (rng.below(w + 2), rng.below(h));
        match (rust.move_goal(id, to), c.move_goal(path, to)) {
            (Ok(how), Ok(q)) => {
                assert_eq!(
                    how == navstudio_nav::GoalMove::RouteQueued,
                    q,
                    "{goal:?} → {to:?}"
                );
                queued += u32::from(q);
            }
            // The C API words an off-map cell itself ("goal (x, y) lies off the W×H map").
            (Err(e), Err((status, msg))) => assert_eq!(status_of(&e), status, "{to:?}: {msg}"),
            (r, g) => panic!("move {goal:?} → {to:?}: Rust {r:?}, C {g:?}"),
        }
        let more: Vec<(u32, u32)> = (0..1 + rng.below(3))
            .map(|_| (rng.below(w), rng.below(h)))
            .collect();
        match (rust.add_sources(id, &more), c.add_sources(path, &more)) {
            (Ok(n), Ok(m)) => assert_eq!(n as u32, m),
            (Err(e), Err((status, _))) => assert_eq!(status_of(&e), status),
            (r, g) => panic!("add {more:?}: Rust {r:?}, C {g:?}"),
        }
        sources.extend(more);
        while !rust.rebuild(std::time::Duration::ZERO) {}
        c.rebuild_all(0);
        for &s in &sources {
            match (rust.trace_path(id, s), c.trace(path, s)) {
                (Some(t), Ok((length, cells))) => {
                    assert_eq!(t.length.to_bits(), length.to_bits(), "{s:?}");
                    assert_eq!(t.cells, cells);
                    compared += 1;
                }
                // The C API says why (a wall, another island, no flow); Rust gives `None`.
                (
                    None,
                    Err((
                        NavstudioStatus::NoFlow
                        | NavstudioStatus::Wall
                        | NavstudioStatus::Unreachable,
                        _,
                    )),
                ) => {}
                (t, g) => panic!("trace {s:?}: Rust {t:?}, C {g:?}"),
            }
        }
        rust.release_path(id);
        c.release(path).expect("release");
        // A released path is refused.
        assert_eq!(
            c.move_goal(path, goal).expect_err("released").0,
            NavstudioStatus::NoSuchHandle
        );
    }
    assert!(
        compared > 30 && queued > 5,
        "{compared} traces, {queued} queued moves"
    );
}

/// A package opened from a file (streamed: regions read on demand) answers as one opened
/// from bytes (read whole), and its requests trace the same.
#[test]
fn a_file_opened_streamed_answers_as_one_opened_from_bytes() {
    let nav = random_nav(9, 400, 360);
    let bytes = package_bytes(&nav);
    let path = std::env::temp_dir().join(format!("navstudio-capi-{}.navpkg", std::process::id()));
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let mut streamed = World::open(&path).unwrap_or_else(|e| panic!("{e:?}"));
    let mut whole = World::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e:?}"));
    let mut rng = Rng::new(5);
    let mut traced = 0;
    for _ in 0..40 {
        let a = (rng.below(400), rng.below(360));
        let b = (rng.below(400), rng.below(360));
        match (streamed.request(0, &[a], b), whole.request(0, &[a], b)) {
            (Ok(x), Ok(y)) => {
                assert_eq!(
                    streamed.trace(x, a).ok(),
                    whole.trace(y, a).ok(),
                    "{a:?} → {b:?}"
                );
                streamed.release(x).unwrap_or_else(|e| panic!("{e:?}"));
                whole.release(y).unwrap_or_else(|e| panic!("{e:?}"));
                traced += 1;
            }
            (x, y) => assert_eq!(x.err().map(|e| e.0), y.err().map(|e| e.0), "{a:?} → {b:?}"),
        }
    }
    assert!(traced > 10, "{traced} requests traced");
    drop(streamed);
    let _ = std::fs::remove_file(&path);
}
