//! Archetype values outside their documented ranges are refused with a sentence, and the
//! extremes the header allows run: the largest radius, speed, agility and neighbour radius
//! step a crowd (a radius of 1e6 m once made one step run for minutes).

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "a test makes many C calls under one stated contract"
)]
#![allow(
    clippy::unwrap_used,
    reason = "a test fails on the first unexpected refusal"
)]

mod common;

use std::ptr::null_mut;

use common::{World, last_error, package_bytes, random_nav};
use navstudio_capi::*;

fn infantry() -> NavstudioArchetype {
    let mut a = std::mem::MaybeUninit::<NavstudioArchetype>::uninit();
    // SAFETY: NUL-terminated name, writable output.
    let s = unsafe { navstudio_archetype_default(c"infantry".as_ptr(), a.as_mut_ptr()) };
    assert_eq!(s, NavstudioStatus::Ok);
    // SAFETY: written on OK.
    unsafe { a.assume_init() }
}

fn crowd_on(w: &World) -> *mut NavstudioCrowd {
    let mut crowd = null_mut();
    // SAFETY: live world, writable output.
    let s = unsafe { navstudio_crowd_create(w.0, 7, &raw mut crowd) };
    assert_eq!(s, NavstudioStatus::Ok);
    crowd
}

/// Adds agents of `a` on free cells from the top left; returns their ids.
fn add(crowd: *mut NavstudioCrowd, w: &World, a: &NavstudioArchetype, n: usize) -> Vec<u32> {
    let mut ids = Vec::new();
    for y in 0..40 {
        for x in 0..48 {
            if ids.len() == n {
                return ids;
            }
            let p = NavstudioVec2 {
                x: x as f32 + 0.5,
                y: y as f32 + 0.5,
            };
            let mut id = u32::MAX;
            // SAFETY: live handles, a valid archetype, writable output.
            if unsafe { navstudio_crowd_add_agent(crowd, w.0, a, p, 0, &raw mut id) }
                == NavstudioStatus::Ok
            {
                ids.push(id);
            }
        }
    }
    ids
}

#[test]
fn values_outside_the_documented_ranges_are_invalid_arguments_with_a_sentence() {
    let w = World::from_bytes(&package_bytes(&random_nav(2, 48, 40))).unwrap();
    let crowd = crowd_on(&w);
    let base = infantry();
    type Spoil = fn(&mut NavstudioArchetype);
    let cases: [(&str, Spoil); 9] = [
        ("radius_m", |a| a.radius_m = 1e6),
        ("radius_m", |a| a.radius_m = 8.5),
        ("radius_m", |a| a.radius_m = f32::NAN),
        ("mass", |a| a.mass = 0.0),
        ("mass", |a| a.mass = 1e12),
        ("max_force", |a| a.max_force = 1e9),
        ("max_speed", |a| a.max_speed = 1e5),
        ("max_speed", |a| a.max_speed = f32::INFINITY),
        ("neighbour_radius_m", |a| a.neighbour_radius_m = 1e6),
    ];
    for (field, bad) in cases {
        let mut a = base;
        bad(&mut a);
        let mut id = u32::MAX;
        let p = NavstudioVec2 { x: 24.5, y: 20.5 };
        // SAFETY: live handles, writable output.
        let s = unsafe { navstudio_crowd_add_agent(crowd, w.0, &raw const a, p, 0, &raw mut id) };
        let e = last_error();
        assert_eq!(s, NavstudioStatus::InvalidArgument, "{field}: {e}");
        assert!(
            e.contains(field) && e.contains("it must be"),
            "{field}: the sentence names the field and its range: {e}"
        );
    }
    // SAFETY: live handle, freed once.
    unsafe { navstudio_crowd_free(crowd) };
}

/// Every value at the edge of its range at once, on a crowd that is ordered across the map:
/// the steps return (the header promises no call runs unbounded on allowed input; the time
/// is printed, measured in the note, not asserted).
#[test]
fn the_largest_allowed_values_step_a_crowd() {
    let w = World::from_bytes(&package_bytes(&random_nav(2, 48, 40))).unwrap();
    let crowd = crowd_on(&w);
    let mut big = infantry();
    big.radius_m = 8.0; // 8 cells of 1 m
    big.max_speed = 100.0;
    big.mass = 0.1;
    big.max_force = 100.0; // agility 1000 m/s²
    big.neighbour_radius_m = 100.0;
    let mut ids = add(crowd, &w, &big, 40);
    ids.extend(add(crowd, &w, &infantry(), 60));
    assert!(ids.len() >= 60, "placed only {}", ids.len());
    let goal = NavstudioVec2 { x: 40.5, y: 30.5 };
    let t = std::time::Instant::now();
    // SAFETY: live handles; `ids` holds `ids.len()` agents.
    unsafe {
        let s = navstudio_crowd_order(crowd, w.0, ids.as_ptr(), ids.len(), goal, null_mut());
        assert!(
            matches!(s, NavstudioStatus::Ok | NavstudioStatus::Unreachable),
            "{s:?}: {}",
            last_error()
        );
        assert_eq!(navstudio_crowd_step(crowd, w.0, 60), NavstudioStatus::Ok);
        assert_eq!(navstudio_crowd_step(crowd, w.0, 60), NavstudioStatus::Ok);
        assert_eq!(
            navstudio_crowd_step(crowd, w.0, u32::MAX),
            NavstudioStatus::InvalidArgument,
            "a call is one second of game time at most"
        );
        let mut steps = 0u32;
        assert_eq!(
            navstudio_crowd_advance(crowd, w.0, 1e9, &raw mut steps),
            NavstudioStatus::Ok
        );
        navstudio_crowd_free(crowd);
    }
    println!(
        "128 steps of {} agents at the limits: {:?}",
        ids.len(),
        t.elapsed()
    );
}
