//! The streaming package reader (`NavWorld::open`) on arbitrary bytes, re-sealed so the
//! decoders see them: a typed error at open or when a region is first used, never a panic,
//! whatever is requested afterwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navstudio::nav::{NavWorld, StreamOptions};

#[path = "reseal.rs"]
mod reseal;
use reseal::reseal;

fn check(bytes: &[u8]) {
    let path = std::env::temp_dir().join(format!("navstudio-fuzz-{}.navpkg", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    // A budget of one byte: every request drops and re-reads regions.
    if let Ok(mut world) = NavWorld::open(&path, StreamOptions { cache_budget: 1 }) {
        let spec = world.nav().spec;
        let step = (16 * spec.sector_size).max(1) as usize;
        for layer in 0..world.nav().layers.len() {
            for y in (0..spec.height).step_by(step) {
                for x in (0..spec.width).step_by(step) {
                    if let Ok(id) =
                        world.request_path(layer, &[(x, y)], (spec.width / 2, spec.height / 2))
                    {
                        let _ = world.trace_path(id, (x, y));
                        world.release_path(id);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(sealed) = reseal(data) {
        check(&sealed);
    }
});
