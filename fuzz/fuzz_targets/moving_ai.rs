//! The Moving AI importers on arbitrary bytes: the `.map` grid importer (a file, as the CLI
//! and editor read it) and the `.scen` parser.
#![no_main]

#[path = "scratch.rs"]
mod scratch;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use navstudio::map::HeightEncoding;
use navstudio::map::heightmap::import_heightmap;
use navstudio::movingai::parse_scen;

fuzz_target!(|data: &[u8]| {
    let path = scratch::write("map", data);
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
