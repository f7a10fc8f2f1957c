//! The boundary holds against bad input: null handles and outputs, null arrays with a
//! length, misaligned arrays, garbage and truncated packages, off-map cells, released and
//! foreign handles, small buffers, a crowd passed the wrong world. Each is refused with its
//! status and a sentence, and nothing panics.

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "a test makes many C calls under one stated contract"
)]

mod common;

use std::ffi::CString;
use std::ptr::{null, null_mut};

use common::{World, last_error, package_bytes, random_nav};
use navstudio_capi::*;

fn world() -> World {
    World::from_bytes(&package_bytes(&random_nav(2, 48, 40))).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn null_handles_and_outputs_are_refused() {
    let w = world();
    let mut out = 0u32;
    let cell = NavstudioCell { x: 1, y: 1 };
    // SAFETY: (whole block) every non-null pointer is live; the nulls are the point.
    unsafe {
        assert_eq!(
            navstudio_request_path(null_mut(), 0, &raw const cell, 1, cell, &raw mut out),
            NavstudioStatus::NullPointer
        );
        assert!(last_error().contains("world"), "{}", last_error());
        assert_eq!(
            navstudio_request_path(w.0, 0, &raw const cell, 1, cell, null_mut()),
            NavstudioStatus::NullPointer
        );
        assert_eq!(
            navstudio_request_path(w.0, 0, null(), 3, cell, &raw mut out),
            NavstudioStatus::NullPointer
        );
        assert!(last_error().contains("sources"), "{}", last_error());
        assert_eq!(
            navstudio_world_info(w.0, null_mut()),
            NavstudioStatus::NullPointer
        );
        assert_eq!(
            navstudio_world_open(null(), null_mut()),
            NavstudioStatus::NullPointer
        );
        let mut reachable = false;
        assert_eq!(
            navstudio_is_reachable(null(), 0, cell, cell, &raw mut reachable),
            NavstudioStatus::NullPointer
        );
        assert_eq!(
            navstudio_crowd_step(null_mut(), w.0, 1),
            NavstudioStatus::NullPointer
        );
        navstudio_world_free(null_mut());
        navstudio_crowd_free(null_mut());
    }
}

#[test]
fn misaligned_arrays_are_refused() {
    let w = world();
    let storage = [0u32; 4];
    // One byte into a u32 array: a pointer C could hand over, which Rust must not read.
    let odd = storage
        .as_ptr()
        .cast::<u8>()
        .wrapping_add(1)
        .cast::<NavstudioCell>();
    let mut out = 0u32;
    // SAFETY: `odd` points into `storage`; the call must refuse it before reading.
    let s = unsafe {
        navstudio_request_path(w.0, 0, odd, 1, NavstudioCell { x: 1, y: 1 }, &raw mut out)
    };
    assert_eq!(s, NavstudioStatus::InvalidArgument);
    assert!(last_error().contains("aligned"), "{}", last_error());
}

#[test]
fn garbage_and_truncated_packages_give_a_sentence() {
    let bytes = package_bytes(&random_nav(2, 48, 40));
    for cut in [0, 4, 16, bytes.len() / 2, bytes.len() - 1] {
        let e = World::from_bytes(&bytes[..cut]).err();
        let (status, msg) = e.unwrap_or_else(|| panic!("a package cut at {cut} opened"));
        assert_eq!(status, NavstudioStatus::Package, "cut at {cut}: {msg}");
        assert!(!msg.is_empty());
    }
    let file =
        std::env::temp_dir().join(format!("navstudio-damaged-{}.navpkg", std::process::id()));
    // A damaged byte anywhere: from memory and from a file the open gives the same status,
    // and once open every cell's cost reads alike: a damaged region fails where it is needed.
    let mut regions_failed = 0;
    for at in (1..16).map(|i| bytes.len() * i / 16) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5A;
        std::fs::write(&file, &damaged).unwrap_or_else(|e| panic!("{e}"));
        let (memory, disk) = (World::from_bytes(&damaged), World::open(&file));
        match (&memory, &disk) {
            (Ok(m), Ok(d)) => {
                let costs = |w: &World| -> Vec<NavstudioStatus> {
                    (0..2u32)
                        .flat_map(|t| (0..40u32).flat_map(move |y| (0..48).map(move |x| (t, x, y))))
                        .map(|(t, x, y)| {
                            let mut c = 0u8;
                            // SAFETY: live handle used by this thread alone; writable out.
                            unsafe {
                                navstudio_cell_cost(w.0, t, NavstudioCell { x, y }, &raw mut c)
                            }
                        })
                        .collect()
                };
                let (m, d) = (costs(m), costs(d));
                assert_eq!(m, d, "byte {at} damaged: costs differ");
                regions_failed += usize::from(m.contains(&NavstudioStatus::Package));
            }
            (Err(m), Err(d)) => {
                assert_eq!(m.0, NavstudioStatus::Package, "byte {at}: {}", m.1);
                assert_eq!(m.0, d.0, "byte {at}: {} / {}", m.1, d.1);
            }
            _ => panic!(
                "byte {at} damaged: memory {:?}, file {:?}",
                memory.as_ref().err(),
                disk.as_ref().err()
            ),
        }
    }
    let _ = std::fs::remove_file(&file);
    // Most of a package is region chunks: some damage must have opened and failed later.
    assert!(regions_failed > 0, "no damaged byte fell in a region chunk");
    let missing = CString::new("/nonexistent/dir/x.navpkg").unwrap_or_default();
    let mut out: *mut NavstudioWorld = std::ptr::dangling_mut();
    // SAFETY: NUL-terminated path, writable out slot.
    let s = unsafe { navstudio_world_open(missing.as_ptr(), &raw mut out) };
    assert_eq!(s, NavstudioStatus::Package);
    assert!(out.is_null(), "a failed open must leave NULL");
    assert!(last_error().contains("x.navpkg"), "{}", last_error());
}

#[test]
fn cells_handles_and_buffers_are_checked() {
    let mut w = world();
    assert_eq!(
        w.request(0, &[(1, 1)], (48, 3)).err().map(|e| e.0),
        Some(NavstudioStatus::OffMap)
    );
    assert_eq!(
        w.request(7, &[(1, 1)], (3, 3)).err().map(|e| e.0),
        Some(NavstudioStatus::UnknownMovementType)
    );
    assert_eq!(
        w.request(0, &[], (3, 3)).err().map(|e| e.0),
        Some(NavstudioStatus::InvalidArgument)
    );
    // A reachable pair on an open map corner.
    let path = (0..40)
        .flat_map(|y| (0..48).map(move |x| (x, y)))
        .find_map(|g| w.request(0, &[(0, 0)], g).ok().filter(|_| g != (0, 0)));
    let Some(path) = path else {
        panic!("no reachable goal from (0, 0)")
    };
    let (length, cells) = w.trace(path, (0, 0)).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(length >= 0.0 && !cells.is_empty());
    // Too small a buffer: the count comes back, nothing is written past it.
    let mut small = [NavstudioCell { x: 9, y: 9 }; 1];
    let (mut len, mut count) = (0.0, 0usize);
    if cells.len() > 1 {
        // SAFETY: live handle; `small` holds 1 writable cell.
        let s = unsafe {
            navstudio_trace_path(
                w.0,
                path,
                NavstudioCell { x: 0, y: 0 },
                &raw mut len,
                small.as_mut_ptr(),
                1,
                &raw mut count,
            )
        };
        assert_eq!(s, NavstudioStatus::BufferTooSmall);
        assert_eq!(count, cells.len());
        assert_eq!(small[0], NavstudioCell { x: 9, y: 9 });
    }
    assert_eq!(w.sample(path, (-1.0, 2.0)), Err(NavstudioStatus::OffMap));
    assert_eq!(
        w.sample(path, (f32::NAN, 2.0)),
        Err(NavstudioStatus::InvalidArgument)
    );
    w.release(path).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        w.release(path).err().map(|e| e.0),
        Some(NavstudioStatus::NoSuchHandle)
    );
    assert_eq!(
        w.sample(path, (1.5, 1.5)),
        Err(NavstudioStatus::NoSuchHandle)
    );
    // Handles never issued, stamps never applied.
    assert_eq!(
        w.sample(12345, (1.5, 1.5)),
        Err(NavstudioStatus::NoSuchHandle)
    );
    // SAFETY: live handle.
    let s = unsafe { navstudio_remove_stamp(w.0, 99) };
    assert_eq!(s, NavstudioStatus::NoSuchHandle);
    // Stamps: sizes must match, costs must be costs, the corner must be on the map.
    assert_eq!(
        w.stamp(&[0], (2, 2, 3, 3), &[255; 8]).err().map(|e| e.0),
        Some(NavstudioStatus::InvalidArgument)
    );
    assert_eq!(
        w.stamp(&[0], (2, 2, 2, 1), &[0, 5]).err().map(|e| e.0),
        Some(NavstudioStatus::InvalidArgument)
    );
    assert_eq!(
        w.stamp(&[0], (48, 2, 1, 1), &[9]).err().map(|e| e.0),
        Some(NavstudioStatus::OffMap)
    );
    assert_eq!(
        w.stamp(&[5], (2, 2, 1, 1), &[9]).err().map(|e| e.0),
        Some(NavstudioStatus::UnknownMovementType)
    );
    // Partly off the map is clipped, not refused.
    let stamp = w.stamp(&[0, 1], (46, 38, 4, 4), &[255; 16]);
    assert!(stamp.is_ok(), "{stamp:?}");
    // SAFETY: live handle.
    let s = unsafe { navstudio_set_cost(w.0, 0, NavstudioCell { x: 3, y: 3 }, 0) };
    assert_eq!(s, NavstudioStatus::InvalidArgument);
    let mut name = [0i8; 8];
    let mut name_len = 0usize;
    // SAFETY: live handle; `name` holds 2 writable bytes of the 8.
    let s = unsafe {
        navstudio_movement_type_name(w.0, 1, name.as_mut_ptr().cast(), 2, &raw mut name_len)
    };
    assert_eq!((s, name_len), (NavstudioStatus::BufferTooSmall, 5));
    // SAFETY: as above, all 8 bytes.
    let s = unsafe {
        navstudio_movement_type_name(w.0, 1, name.as_mut_ptr().cast(), 8, &raw mut name_len)
    };
    assert_eq!(s, NavstudioStatus::Ok);
    let bytes: Vec<u8> = name[..6].iter().map(|&b| b as u8).collect();
    assert_eq!(bytes, b"hover\0");
}

#[test]
fn a_crowd_refuses_another_world_and_small_buffers() {
    let a = world();
    let b = world();
    let mut crowd = null_mut();
    let mut infantry = std::mem::MaybeUninit::<NavstudioArchetype>::uninit();
    // SAFETY: (whole block) live handles, writable outputs, NUL-terminated strings.
    unsafe {
        assert_eq!(
            navstudio_crowd_create(a.0, 1, &raw mut crowd),
            NavstudioStatus::Ok
        );
        assert_eq!(
            navstudio_archetype_default(c"infantry".as_ptr(), infantry.as_mut_ptr()),
            NavstudioStatus::Ok
        );
        let infantry = infantry.assume_init();
        assert_eq!(
            navstudio_archetype_default(c"dragon".as_ptr(), std::ptr::dangling_mut()),
            NavstudioStatus::InvalidArgument
        );
        let mut id = u32::MAX;
        let free_spot = (0..40)
            .flat_map(|y| (0..48).map(move |x| (x, y)))
            .map(|(x, y)| NavstudioVec2 {
                x: x as f32 + 0.5,
                y: y as f32 + 0.5,
            })
            .find(|&p| {
                navstudio_crowd_add_agent(crowd, a.0, &raw const infantry, p, 0, &raw mut id)
                    == NavstudioStatus::Ok
            });
        assert!(free_spot.is_some(), "no free cell for an agent");
        assert_eq!(id, 0);
        assert_eq!(
            navstudio_crowd_add_agent(
                crowd,
                a.0,
                &raw const infantry,
                NavstudioVec2 { x: -5.0, y: 1.0 },
                0,
                &raw mut id
            ),
            NavstudioStatus::OffMap
        );
        assert_eq!(
            navstudio_crowd_step(crowd, b.0, 1),
            NavstudioStatus::WrongWorld
        );
        let bogus = [3u32];
        assert_eq!(
            navstudio_crowd_order(
                crowd,
                a.0,
                bogus.as_ptr(),
                1,
                NavstudioVec2 { x: 3.0, y: 3.0 },
                null_mut()
            ),
            NavstudioStatus::InvalidArgument
        );
        let mut count = 0usize;
        assert_eq!(
            navstudio_crowd_positions(crowd, null_mut(), 0, &raw mut count),
            NavstudioStatus::BufferTooSmall
        );
        assert_eq!(count, 1);
        let mut pos = [NavstudioVec2::default(); 1];
        assert_eq!(
            navstudio_crowd_positions(crowd, pos.as_mut_ptr(), 1, &raw mut count),
            NavstudioStatus::Ok
        );
        assert_eq!(Some(pos[0]), free_spot);
        assert_eq!(navstudio_crowd_step(crowd, a.0, 3), NavstudioStatus::Ok);
        navstudio_crowd_free(crowd);
    }
}
