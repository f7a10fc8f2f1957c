//! The RAW 16-bit heightmap importer on arbitrary bytes: width inferred (square) and, with
//! the first byte choosing it, an explicit width.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use navstudio::map::HeightEncoding;
use navstudio::map::heightmap::import_heightmap;

/// RAM-backed when available: each input is written to a file, and a disk-backed `/tmp`
/// costs ~1 ms per write, 10× the parse.
fn scratch_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn scratch() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| scratch_dir().join(format!("navfuzz-{}.r16", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let Some((&w, body)) = data.split_first() else {
        return;
    };
    let path = scratch();
    std::fs::write(path, body).expect("scratch file writes");
    for width in [None, Some(u32::from(w))] {
        let no_data = Some(f64::from(w) * 257.0);
        if let Ok(imported) = import_heightmap(path, HeightEncoding::Raw16 { width }, no_data) {
            let h = &imported.heightmap;
            assert_eq!(h.width as usize * h.height as usize * 2, body.len());
            assert!(h.height01.iter().all(|v| (0.0..=1.0).contains(v)));
        }
    }
});
