//! The Moving AI importers on arbitrary bytes: the `.map` grid importer (a file, as the CLI
//! and editor read it) and the `.scen` parser.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use navstudio::map::HeightEncoding;
use navstudio::map::heightmap::import_heightmap;
use navstudio::scenarios::parse_scen;

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

/// One scratch file per fuzzing process (the importers read paths, not bytes).
fn scratch() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| scratch_dir().join(format!("navfuzz-{}.map", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(path, data).expect("scratch file writes");
    if let Ok(imported) = import_heightmap(path, HeightEncoding::MovingAi, None) {
        let h = &imported.heightmap;
        let cells = h.width as usize * h.height as usize;
        assert_eq!(h.height01.len(), cells);
        assert!(h.blocked.is_empty() || h.blocked.len() == cells);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_scen(text, Path::new("fuzz.scen"));
    }
});
