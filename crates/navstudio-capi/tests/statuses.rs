//! One status per situation, everywhere (issue 48): a cell off the map is `OFF_MAP`, a NaN
//! position `INVALID_ARGUMENT`, a wall source or goal `WALL` with a sentence saying it is a
//! wall, an order nothing can reach `UNREACHABLE`, a path a rebuild dropped
//! `NO_SUCH_HANDLE` (its release too). Also: stamps removed out of order restore the costs
//! (read back through `navstudio_cell_cost`), `trace_path` traces from any cell a
//! `sample_flow` walk leads to the goal from, 600 frames of 1/60 s are 600 steps, and an
//! empty package path says so.

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "a test makes many C calls under one stated contract"
)]
#![allow(
    clippy::unwrap_used,
    reason = "a test fails on the first unexpected refusal"
)]

mod common;

use std::ffi::CString;
use std::ptr::null_mut;

use common::{Rng, World, last_error, package_bytes};
use navstudio_capi::*;
use navstudio_nav::{CostField, GridSpec, NavData, build_layer};

const W: u32 = 64;
const H: u32 = 48;

/// A 64 × 48 map, cells of 2 m: a wall column at x = 40 cuts off an island on the right;
/// wall blocks on the left (among them (20..24, 10..30)).
fn split_map() -> World {
    let mut cells = vec![1u8; (W * H) as usize];
    for y in 0..H {
        cells[(y * W + 40) as usize] = 255;
    }
    for y in 10..30 {
        for x in 20..24 {
            cells[(y * W + x) as usize] = 255;
        }
    }
    for x in 5..15 {
        cells[(35 * W + x) as usize] = 255;
    }
    let spec = GridSpec {
        width: W,
        height: H,
        sector_size: 16,
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let layer = build_layer(
        "land",
        CostField::from_cells(spec, &cells),
        &|_| {},
        &cancel,
    )
    .unwrap_or_else(|| panic!("not built"));
    let nav = NavData::new(spec, 2.0, vec![layer]);
    World::from_bytes(&package_bytes(&nav)).unwrap_or_else(|e| panic!("{e:?}"))
}

fn cost(w: &World, cell: (u32, u32)) -> u8 {
    let mut c = 0u8;
    let at = NavstudioCell {
        x: cell.0,
        y: cell.1,
    };
    // SAFETY: live handle, writable out.
    let s = unsafe { navstudio_cell_cost(w.0, 0, at, &raw mut c) };
    assert_eq!(s, NavstudioStatus::Ok, "{}", last_error());
    c
}

fn rebuild(w: &World) {
    let mut done = false;
    while !done {
        // SAFETY: live handle, writable out.
        let s = unsafe { navstudio_rebuild(w.0, 1000, &raw mut done) };
        assert_eq!(s, NavstudioStatus::Ok);
    }
}

#[test]
fn overlapping_stamps_removed_out_of_order_restore_the_costs() {
    let mut w = split_map();
    let before: Vec<u8> = (0..8).map(|k| cost(&w, (2 + k, 2 + k))).collect();
    let a = w.stamp(&[0], (2, 2, 5, 5), &[255; 25]).unwrap();
    let b = w.stamp(&[0], (4, 4, 5, 5), &[200; 25]).unwrap();
    assert_eq!(
        cost(&w, (4, 4)),
        200,
        "the later stamp shows where they overlap"
    );
    assert_eq!(cost(&w, (3, 3)), 255);
    // SAFETY: live handle.
    unsafe {
        assert_eq!(navstudio_remove_stamp(w.0, a), NavstudioStatus::Ok);
        assert_eq!(cost(&w, (4, 4)), 200, "B still stands");
        assert_eq!(cost(&w, (3, 3)), before[1], "A's own cells are restored");
        assert_eq!(navstudio_remove_stamp(w.0, b), NavstudioStatus::Ok);
    }
    rebuild(&w);
    let after: Vec<u8> = (0..8).map(|k| cost(&w, (2 + k, 2 + k))).collect();
    assert_eq!(
        after, before,
        "every cell has its cost from before the stamps"
    );
    w.request(0, &[(30, 5)], (4, 4))
        .unwrap_or_else(|e| panic!("the restored cell is a goal again: {e:?}"));
}

#[test]
fn each_situation_has_one_status_and_a_sentence() {
    let mut w = split_map();
    // A wall source and a wall goal: WALL, saying so.
    let e = w.request(0, &[(21, 20)], (5, 5)).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::Wall, "{}", e.1);
    assert!(e.1.contains("source (21, 20) is a wall"), "{}", e.1);
    let e = w.request(0, &[(5, 5)], (21, 20)).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::Wall, "{}", e.1);
    assert!(e.1.contains("is a wall"), "{}", e.1);
    // Off the map.
    let e = w.request(0, &[(5, 5)], (W, 3)).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::OffMap, "{}", e.1);
    // Another island.
    let e = w.request(0, &[(5, 5)], (50, 5)).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::Unreachable, "{}", e.1);

    let path = w.request(0, &[(5, 5)], (30, 40)).unwrap();
    assert_eq!(
        w.sample(path, (f32::NAN, 3.0)),
        Err(NavstudioStatus::InvalidArgument)
    );
    assert_eq!(w.sample(path, (-1.0, 3.0)), Err(NavstudioStatus::OffMap));
    assert_eq!(
        w.sample(path, (3.5, H as f32 + 2.0)),
        Err(NavstudioStatus::OffMap)
    );
    // A trace from a wall, from another island.
    assert_eq!(
        w.trace(path, (21, 20)).unwrap_err().0,
        NavstudioStatus::Wall
    );
    assert_eq!(
        w.trace(path, (50, 20)).unwrap_err().0,
        NavstudioStatus::Unreachable
    );

    // The crowd: positions and goals as metres (cells of 2 m).
    let mut crowd = null_mut();
    let mut infantry = std::mem::MaybeUninit::<NavstudioArchetype>::uninit();
    // SAFETY: live handles, writable outputs, NUL-terminated strings.
    unsafe {
        assert_eq!(
            navstudio_crowd_create(w.0, 3, &raw mut crowd),
            NavstudioStatus::Ok
        );
        assert_eq!(
            navstudio_archetype_default(c"infantry".as_ptr(), infantry.as_mut_ptr()),
            NavstudioStatus::Ok
        );
        let infantry = infantry.assume_init();
        let add = |x: f32, y: f32| {
            let mut id = u32::MAX;
            let s = navstudio_crowd_add_agent(
                crowd,
                w.0,
                &raw const infantry,
                NavstudioVec2 { x, y },
                0,
                &raw mut id,
            );
            (s, id)
        };
        assert_eq!(add(f32::NAN, 3.0).0, NavstudioStatus::InvalidArgument);
        assert_eq!(add(-3.0, 3.0).0, NavstudioStatus::OffMap);
        assert_eq!(add(3.0, 2.0 * H as f32 + 1.0).0, NavstudioStatus::OffMap);
        let (s, _) = add(43.0, 41.0); // cell (21, 20)
        assert_eq!(s, NavstudioStatus::Wall, "{}", last_error());
        assert!(last_error().contains("wall"), "{}", last_error());
        let (s, id) = add(11.0, 11.0);
        assert_eq!(s, NavstudioStatus::Ok);
        let ids = [id];
        let order = |x: f32, y: f32| {
            let mut r = NavstudioOrderReport::default();
            let s = navstudio_crowd_order(
                crowd,
                w.0,
                ids.as_ptr(),
                1,
                NavstudioVec2 { x, y },
                &raw mut r,
            );
            (s, r)
        };
        assert_eq!(order(f32::NAN, 1.0).0, NavstudioStatus::InvalidArgument);
        let (s, _) = order(2.0 * W as f32 + 5.0, 10.0);
        assert_eq!(s, NavstudioStatus::OffMap, "{}", last_error());
        let (s, _) = order(43.0, 41.0);
        assert_eq!(s, NavstudioStatus::Wall, "{}", last_error());
        let (s, r) = order(101.0, 11.0); // cell (50, 5): the other island
        assert_eq!(s, NavstudioStatus::Unreachable, "{}", last_error());
        assert!(last_error().contains("can reach"), "{}", last_error());
        assert_eq!((r.moving, r.unreachable), (0, 1));
        let (s, r) = order(61.0, 81.0);
        assert_eq!(s, NavstudioStatus::Ok, "{}", last_error());
        assert_eq!(r.moving, 1);
        // 600 frames of 1/60 s: 600 steps.
        let mut total = 0;
        for _ in 0..600 {
            let mut steps = 0u32;
            assert_eq!(
                navstudio_crowd_advance(crowd, w.0, 1.0 / 60.0, &raw mut steps),
                NavstudioStatus::Ok
            );
            total += steps;
        }
        assert_eq!(total, 600);
        navstudio_crowd_free(crowd);
    }

    // A path the rebuild drops: a wall stamped on its goal.
    let goal = (30, 40);
    w.stamp(&[0], (goal.0, goal.1, 1, 1), &[255]).unwrap();
    rebuild(&w);
    let e = w.trace(path, (5, 5)).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::NoSuchHandle, "{}", e.1);
    let e = w.release(path).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::NoSuchHandle, "{}", e.1);
    let e = w.release(path).unwrap_err();
    assert_eq!(e.0, NavstudioStatus::NoSuchHandle, "{}", e.1);

    // An empty package path.
    let empty = CString::default();
    let mut world = null_mut();
    // SAFETY: NUL-terminated, writable out.
    let s = unsafe { navstudio_world_open(empty.as_ptr(), &raw mut world) };
    assert_eq!(s, NavstudioStatus::InvalidArgument);
    assert!(world.is_null());
    assert!(last_error().contains("path is empty"), "{}", last_error());
}

/// From random cells of the goal's island: where a walk steered by `sample_flow` (quarter
/// cells) reaches the goal, `trace_path` traces too, not only from the path's sources.
#[test]
fn trace_path_starts_wherever_a_sample_flow_walk_arrives() {
    let mut w = split_map();
    let (source, goal) = ((10, 10), (30, 40));
    let path = w.request(0, &[source], goal).unwrap();
    let mut rng = Rng::new(48);
    let (mut walked, mut traced) = (0, 0);
    for _ in 0..200 {
        let from = (rng.below(40), rng.below(H));
        if cost(&w, from) == 255 {
            continue;
        }
        let mut pos = (from.0 as f32 + 0.5, from.1 as f32 + 0.5);
        let mut arrived = false;
        for _ in 0..4 * (W + H) * 4 {
            let cell = (pos.0 as u32, pos.1 as u32);
            if cell == goal || w.line_of_sight(path, cell) {
                arrived = true;
                break;
            }
            let Ok(d) = w.sample(path, pos) else { break };
            pos = (pos.0 + 0.25 * d.0, pos.1 + 0.25 * d.1);
            // Walks that touch a wall are left out: only a clear walk is a plain oracle.
            if pos.0 < 0.0 || pos.1 < 0.0 || cost(&w, (pos.0 as u32, pos.1 as u32)) == 255 {
                break;
            }
        }
        if !arrived {
            continue;
        }
        walked += 1;
        match w.trace(path, from) {
            Ok(_) => traced += 1,
            Err(e) => panic!("a sample_flow walk from {from:?} arrives, trace_path says {e:?}"),
        }
    }
    assert!(walked > 50, "only {walked} walks arrived");
    assert_eq!(traced, walked);
}
