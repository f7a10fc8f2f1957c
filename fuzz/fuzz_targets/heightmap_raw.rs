//! The RAW 16-bit heightmap importer on arbitrary bytes: width inferred (square) and, with
//! the first byte choosing it, an explicit width.
#![no_main]

#[path = "scratch.rs"]
mod scratch;

use libfuzzer_sys::fuzz_target;
use navstudio::map::HeightEncoding;
use navstudio::map::heightmap::import_heightmap;

fuzz_target!(|data: &[u8]| {
    let Some((&w, body)) = data.split_first() else {
        return;
    };
    let path = scratch::write("r16", body);
    for width in [None, Some(u32::from(w))] {
        let no_data = Some(f64::from(w) * 257.0);
        if let Ok(imported) = import_heightmap(path, HeightEncoding::Raw16 { width }, no_data) {
            let h = &imported.heightmap;
            assert_eq!(h.width as usize * h.height as usize * 2, body.len());
            assert!(h.height01.iter().all(|v| (0.0..=1.0).contains(v)));
        }
    }
});
