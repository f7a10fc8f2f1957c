//! The C API from two threads: one data handle shared by both, a query handle each. Every
//! answer (refusal status, traced length bit for bit and cell count) must equal the Rust
//! API's (`NavWorld`) on the same data, before and after a stamp published with
//! `navstudio_world_data`, and from data opened on a file, which reads its regions on
//! demand (a damaged region fails the calls that read it, with a sentence).

mod common;

use common::{Rng, World, last_error, ok, package_bytes, random_nav};
use navstudio_capi::{
    NavstudioCell, NavstudioData, NavstudioSharedPath, NavstudioStatus, navstudio_data_free,
    navstudio_data_open, navstudio_query_create, navstudio_query_free,
    navstudio_query_request_path, navstudio_query_trace_path, navstudio_shared_path_free,
    navstudio_world_data,
};
use navstudio_nav::world::PathError;
use navstudio_nav::{CellRect, NavWorld, package};

/// The status the header documents for each refusal.
fn status_of(e: &PathError) -> NavstudioStatus {
    match e {
        PathError::UnknownType(_) => NavstudioStatus::UnknownMovementType,
        PathError::OffMap(_) => NavstudioStatus::OffMap,
        PathError::GoalIsWall(_) | PathError::SourceIsWall(_) => NavstudioStatus::Wall,
        PathError::Unreachable(_) => NavstudioStatus::Unreachable,
        _ => NavstudioStatus::InvalidArgument,
    }
}

/// What one request gave: a refusal, or the traced length and cell count (or the trace's
/// refusal).
type Answer = Result<Result<(u64, usize), NavstudioStatus>, NavstudioStatus>;

/// A data handle that may cross threads (the header allows any number of threads on it).
struct Shared(*mut NavstudioData);
// SAFETY: a data handle is never changed after it is made (the header's threading rules).
unsafe impl Sync for Shared {}

fn answer_c(
    query: *mut navstudio_capi::NavstudioQuery,
    data: &Shared,
    (layer, from, to): Request,
) -> Answer {
    let mut path: *mut NavstudioSharedPath = std::ptr::null_mut();
    let (from, to) = (
        NavstudioCell {
            x: from.0,
            y: from.1,
        },
        NavstudioCell { x: to.0, y: to.1 },
    );
    // SAFETY: live handles; `from` lives for the call; writable out.
    let s = unsafe {
        navstudio_query_request_path(query, data.0, layer, &raw const from, 1, to, &raw mut path)
    };
    if s != NavstudioStatus::Ok {
        return Err(s);
    }
    let (mut length, mut count) = (0.0_f64, 0_usize);
    // SAFETY: live handles; writable outs; no cell buffer.
    let s = unsafe {
        navstudio_query_trace_path(
            query,
            path,
            from,
            &raw mut length,
            std::ptr::null_mut(),
            0,
            &raw mut count,
        )
    };
    // SAFETY: made above, freed once.
    unsafe { navstudio_shared_path_free(path) };
    Ok(if s == NavstudioStatus::Ok {
        Ok((length.to_bits(), count))
    } else {
        Err(s)
    })
}

fn answer_rust(world: &mut NavWorld, (layer, from, to): Request) -> Answer {
    let id = world
        .request_path(layer as usize, &[from], to)
        .map_err(|e| status_of(&e))?;
    let traced = world.trace_path(id, from);
    let island = world.island_at(layer as usize, from);
    world.release_path(id);
    Ok(match traced {
        Some(t) => Ok((t.length.to_bits(), t.cells.len())),
        None if island == 0 => Err(NavstudioStatus::Wall),
        None if !world.is_reachable(layer as usize, from, to) => Err(NavstudioStatus::Unreachable),
        None => Err(NavstudioStatus::NoFlow),
    })
}

/// A request: movement type, source cell, goal cell.
type Request = (u32, (u32, u32), (u32, u32));

/// Answers `requests` on two threads over `data`, request `i` on thread `i % 2`.
fn on_two_threads(data: &Shared, requests: &[Request]) -> Vec<Answer> {
    let mut out = vec![Err(NavstudioStatus::Panic); requests.len()];
    let halves: Vec<Vec<(usize, Answer)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|t| {
                s.spawn(move || {
                    let mut query = std::ptr::null_mut();
                    // SAFETY: writable out.
                    ok(unsafe { navstudio_query_create(&raw mut query) }).unwrap_or_else(|e| {
                        panic!("query_create: {e:?}");
                    });
                    let answers = (t..requests.len())
                        .step_by(2)
                        .map(|i| (i, answer_c(query, data, requests[i])))
                        .collect();
                    // SAFETY: made above, freed once, used by this thread only.
                    unsafe { navstudio_query_free(query) };
                    answers
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for (i, a) in halves.into_iter().flatten() {
        out[i] = a;
    }
    out
}

#[test]
fn two_threads_answer_like_the_rust_api() {
    let seed = 4545;
    eprintln!("seed {seed}");
    let nav = random_nav(seed, 96, 80);
    let bytes = package_bytes(&nav);
    let mut c_world = World::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e:?}"));
    let mut rust = NavWorld::from_package(package::from_bytes(&bytes).unwrap_or_else(|e| {
        panic!("{e}");
    }));
    let mut rng = Rng::new(seed);
    let requests: Vec<Request> = (0..80)
        .map(|_| {
            (
                rng.below(2),
                (rng.below(96), rng.below(80)),
                (rng.below(96), rng.below(80)),
            )
        })
        .collect();
    for round in 0..2 {
        let mut data = std::ptr::null_mut();
        // SAFETY: live world handle, writable out.
        ok(unsafe { navstudio_world_data(c_world.0, &raw mut data) })
            .unwrap_or_else(|e| panic!("world_data: {e:?}"));
        let shared = Shared(data);
        let got = on_two_threads(&shared, &requests);
        let expected: Vec<Answer> = requests
            .iter()
            .map(|&r| answer_rust(&mut rust, r))
            .collect();
        let traced = expected.iter().filter(|a| matches!(a, Ok(Ok(_)))).count();
        assert!(traced >= 20, "round {round}: only {traced} traced");
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "round {round}, request {i} {:?}", requests[i]);
        }
        // SAFETY: made above, no call uses it any more.
        unsafe { navstudio_data_free(data) };
        // The same wall block on both, then the next version.
        let block = (30, 20, 12, 30);
        let costs = vec![255; 12 * 30];
        c_world
            .stamp(&[0, 1], block, &costs)
            .unwrap_or_else(|e| panic!("{e:?}"));
        c_world.rebuild_all(1_000_000);
        rust.apply_stamp(
            &[0, 1],
            CellRect::at(block.0, block.1, block.2, block.3),
            &costs,
        );
        while !rust.rebuild(std::time::Duration::from_secs(1)) {}
    }
}

/// `navstudio_data_open` on `file`.
fn open_data(file: &std::path::Path) -> Shared {
    let path = std::ffi::CString::new(file.to_string_lossy().as_bytes()).unwrap_or_default();
    let mut data = std::ptr::null_mut();
    // SAFETY: NUL-terminated path, writable out.
    ok(unsafe { navstudio_data_open(path.as_ptr(), &raw mut data) })
        .unwrap_or_else(|e| panic!("data_open: {e:?}"));
    Shared(data)
}

#[test]
fn data_opened_on_a_file_answers_like_the_rust_api_and_fails_only_where_damaged() {
    let seed = 4546;
    eprintln!("seed {seed}");
    // 320 × 288 cells in sectors of 16: 2 × 2 regions of 16 × 16 sectors.
    let (w, h) = (320, 288);
    let nav = random_nav(seed, w, h);
    let mut bytes = package_bytes(&nav);
    let mut rust = NavWorld::from_package(package::from_bytes(&bytes).unwrap_or_else(|e| {
        panic!("{e}");
    }));
    let mut rng = Rng::new(seed);
    let requests: Vec<Request> = (0..60)
        .map(|_| {
            (
                rng.below(2),
                (rng.below(w), rng.below(h)),
                (rng.below(w), rng.below(h)),
            )
        })
        .collect();
    let expected: Vec<Answer> = requests
        .iter()
        .map(|&r| answer_rust(&mut rust, r))
        .collect();
    let file =
        std::env::temp_dir().join(format!("navstudio-data-open-{}.navpkg", std::process::id()));
    std::fs::write(&file, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let data = open_data(&file);
    let got = on_two_threads(&data, &requests);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "request {i} {:?}", requests[i]);
    }
    // SAFETY: made above, no call uses it any more.
    unsafe { navstudio_data_free(data.0) };

    // The land type's cost chunk of region 3 (bottom right, from cell (256, 256)) damaged.
    let manifest = package::from_bytes(&bytes)
        .unwrap_or_else(|e| panic!("{e}"))
        .manifest;
    let chunk = manifest
        .chunks
        .iter()
        .find(|c| c.layer == 0 && c.kind == "cost" && c.region == Some(3))
        .unwrap_or_else(|| panic!("no cost chunk for region 3"));
    let at = usize::try_from(chunk.offset + chunk.stored_len / 2).unwrap_or(0);
    bytes[at] ^= 0x5A;
    std::fs::write(&file, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let data = open_data(&file);
    let mut query = std::ptr::null_mut();
    // SAFETY: writable out.
    ok(unsafe { navstudio_query_create(&raw mut query) }).unwrap_or_else(|e| panic!("{e:?}"));
    let in_damaged = |c: (u32, u32)| c.0 >= 256 && c.1 >= 256;
    let mut failed = 0;
    for (i, (&r, e)) in requests.iter().zip(&expected).enumerate() {
        let g = answer_c(query, &data, r);
        // The request, or the trace along a route the request refined lazily, reads it.
        if g == Err(NavstudioStatus::Package) || g == Ok(Err(NavstudioStatus::Package)) {
            let why = last_error();
            assert!(
                why.contains("region 3") && why.contains("land"),
                "request {i}: the sentence names the chunk: {why}"
            );
            assert_eq!(r.0, 0, "request {i}: the hover type's regions are whole");
            failed += 1;
        } else {
            // Refusals read islands, not regions; a path needs the regions of its ends.
            assert!(
                r.0 == 1 || g.is_err() || !(in_damaged(r.1) || in_damaged(r.2)),
                "request {i} {r:?} from or to the damaged region planned: {g:?}"
            );
            assert_eq!(&g, e, "request {i} {r:?}");
        }
    }
    assert!(failed > 0, "no request read the damaged region");
    // SAFETY: made above, freed once.
    unsafe { navstudio_query_free(query) };
    // SAFETY: made above, freed once; no call uses it any more.
    unsafe { navstudio_data_free(data.0) };
    let _ = std::fs::remove_file(&file);
}
