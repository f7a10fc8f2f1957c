//! Times opening a package from memory (every chunk read and checked) and from a file
//! (streamed), the two ways a world starts.
//!
//! `cargo run --release -p navstudio-capi --example open_time -- PKG`

use std::ptr::null_mut;

use navstudio_capi::*;

fn main() {
    let Some(pkg) = std::env::args().nth(1) else {
        eprintln!("usage: open_time PKG");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&pkg) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{pkg}: {e}");
            std::process::exit(1);
        }
    };
    let Ok(path) = std::ffi::CString::new(pkg.as_str()) else {
        eprintln!("{pkg}: a path with a NUL byte");
        std::process::exit(2);
    };
    for _ in 0..3 {
        let mut w = null_mut();
        let t = std::time::Instant::now();
        // SAFETY: `bytes` is readable for its length; writable output.
        let s = unsafe { navstudio_world_open_bytes(bytes.as_ptr(), bytes.len(), &raw mut w) };
        let bytes_time = t.elapsed();
        // SAFETY: a live handle or null, freed once.
        unsafe { navstudio_world_free(w) };
        let t = std::time::Instant::now();
        // SAFETY: NUL-terminated path, writable output.
        let s2 = unsafe { navstudio_world_open(path.as_ptr(), &raw mut w) };
        let file_time = t.elapsed();
        // SAFETY: a live handle or null, freed once.
        unsafe { navstudio_world_free(w) };
        println!(
            "{pkg} ({} MB): open_bytes {:.3} s ({s:?}), open (streamed) {:.3} s ({s2:?})",
            bytes.len() / 1_000_000,
            bytes_time.as_secs_f64(),
            file_time.as_secs_f64()
        );
    }
}
