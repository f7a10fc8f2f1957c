//! The C API against its oracle, the Rust API: the same package bytes opened both ways must
//! give the same refusals, traces (cells, and lengths bit for bit), flow samples and line of
//! sight, before and after the same run-time stamp and rebuild.

mod common;

use common::{Rng, World, package_bytes, random_nav};
use navstudio_capi::NavstudioStatus;
use navstudio_nav::world::PathError;
use navstudio_nav::{NavWorld, package};

/// The status the header documents for each refusal; a refusal the run time adds later
/// (goal sets' empty set) is an invalid argument.
fn status_of(e: &PathError) -> NavstudioStatus {
    match e {
        PathError::UnknownType(_) => NavstudioStatus::UnknownMovementType,
        PathError::OffMap(_) => NavstudioStatus::OffMap,
        PathError::GoalIsWall(_) => NavstudioStatus::GoalIsWall,
        PathError::Unreachable(_) => NavstudioStatus::Unreachable,
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
                (None, Err((NavstudioStatus::NoFlow, _))) => {}
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
    let mut rng = Rng(5);
    let traced = compare(&mut rust, &mut c, &mut rng, 120);
    assert!(traced > 100, "only {traced} traces compared");

    // The same wall stamp on both, rebuilt in slices on both.
    let rect = (30, 20, 20, 6);
    let walls = vec![255u8; 20 * 6];
    let handle = rust.apply_stamp(&[0, 1], rect, &walls);
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
    assert_eq!(c.type_index("land"), Ok(0));
    assert_eq!(c.type_index("hover"), Ok(1));
    let (status, msg) = c
        .type_index("boat")
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
    let mut rng = Rng(5);
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
                (None, Err((NavstudioStatus::NoFlow, _))) => {}
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
