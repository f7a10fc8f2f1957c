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

/// Adds `n` agents of `a` on one spot (a pile: every scan of every agent meets all of them
/// until they spread); returns their ids.
fn pile(crowd: *mut NavstudioCrowd, w: &World, a: &NavstudioArchetype, n: usize) -> Vec<u32> {
    let p = NavstudioVec2 { x: 24.5, y: 20.5 };
    (0..n)
        .map(|_| {
            let mut id = u32::MAX;
            // SAFETY: live handles, a valid archetype, writable output.
            let s = unsafe { navstudio_crowd_add_agent(crowd, w.0, a, p, 0, &raw mut id) };
            assert_eq!(s, NavstudioStatus::Ok, "{}", last_error());
            id
        })
        .collect()
}

/// The work bound: one call steps at most 120,000 agent-steps. The most work a call may do,
/// on the worst input for it (2,000 agents piled on one spot, the largest neighbour radius,
/// some of the largest radius, ordered across the map), returns; one step more is refused
/// with a sentence that says how many fit; `advance` takes fewer steps for a big crowd.
#[test]
fn a_call_steps_at_most_its_share_of_agent_steps_even_for_a_pile() {
    let w = World::from_bytes(&package_bytes(&random_nav(2, 48, 40))).unwrap();
    let crowd = crowd_on(&w);
    let mut wide = infantry();
    wide.neighbour_radius_m = 100.0;
    let mut big = wide;
    big.radius_m = 8.0;
    big.mass = 1e7;
    let mut ids = pile(crowd, &w, &big, 40);
    ids.extend(pile(crowd, &w, &wide, 1960));
    let goal = NavstudioVec2 { x: 40.5, y: 30.5 };
    // SAFETY: live handles; `ids` holds `ids.len()` agents.
    unsafe {
        let s = navstudio_crowd_order(crowd, w.0, ids.as_ptr(), ids.len(), goal, null_mut());
        assert!(matches!(
            s,
            NavstudioStatus::Ok | NavstudioStatus::Unreachable
        ));
        let t = std::time::Instant::now();
        assert_eq!(navstudio_crowd_step(crowd, w.0, 60), NavstudioStatus::Ok);
        println!("60 steps of a pile of 2,000 agents: {:?}", t.elapsed());
        let one_more = pile(crowd, &w, &wide, 1);
        assert_eq!(one_more.len(), 1);
        assert_eq!(
            navstudio_crowd_step(crowd, w.0, 60),
            NavstudioStatus::InvalidArgument
        );
        let e = last_error();
        assert!(
            e.contains("2001 agents") && e.contains("at most 59"),
            "the sentence says how many steps fit: {e}"
        );
        assert_eq!(navstudio_crowd_step(crowd, w.0, 59), NavstudioStatus::Ok);
        let mut steps = 0u32;
        assert_eq!(
            navstudio_crowd_advance(crowd, w.0, 1.0, &raw mut steps),
            NavstudioStatus::Ok
        );
        assert_eq!(steps, 8, "2,001 agents still take advance's 8 steps");
        navstudio_crowd_free(crowd);
    }
}

/// From 15,001 agents `advance` takes fewer than 8 steps a call (120,000 / agents), and a
/// crowd holds at most 100,000 agents, refused with a sentence past that.
#[test]
fn a_big_crowd_advances_fewer_steps_a_call_and_a_crowd_is_capped() {
    let w = World::from_bytes(&package_bytes(&random_nav(2, 48, 40))).unwrap();
    let crowd = crowd_on(&w);
    let ids = add(crowd, &w, &infantry(), 2000);
    let spots: Vec<NavstudioVec2> = ids
        .iter()
        .map(|&i| NavstudioVec2 {
            x: (i % 48) as f32 + 0.5,
            y: (i / 48 % 40) as f32 + 0.5,
        })
        .collect();
    let a = infantry();
    let mut added = ids.len();
    // SAFETY: live handles, a valid archetype, writable output.
    unsafe {
        let mut k = 0;
        while added < 100_000 {
            let mut id = u32::MAX;
            let p = spots[k % spots.len()];
            k += 1;
            if navstudio_crowd_add_agent(crowd, w.0, &raw const a, p, 0, &raw mut id)
                == NavstudioStatus::Ok
            {
                added += 1;
            }
            if added == 20_000 {
                let mut steps = 0u32;
                assert_eq!(
                    navstudio_crowd_advance(crowd, w.0, 1.0, &raw mut steps),
                    NavstudioStatus::Ok
                );
                assert_eq!(steps, 6, "120,000 / 20,000 agents");
            }
        }
        let mut id = u32::MAX;
        assert_eq!(
            navstudio_crowd_add_agent(crowd, w.0, &raw const a, spots[0], 0, &raw mut id),
            NavstudioStatus::InvalidArgument
        );
        assert!(last_error().contains("100000 agents"), "{}", last_error());
        assert_eq!(
            navstudio_crowd_step(crowd, w.0, 2),
            NavstudioStatus::InvalidArgument
        );
        navstudio_crowd_free(crowd);
    }
}
