//! The PNG readers on arbitrary bytes: heightmap import as grey and as Terrain-RGB, and the
//! paint side-file reader at the size the header claims.
#![no_main]

#[path = "scratch.rs"]
mod scratch;

use libfuzzer_sys::fuzz_target;
use navstudio::map::heightmap::import_heightmap;
use navstudio::map::{HeightEncoding, MAX_MAP_CELLS, MAX_MAP_SIDE, PaintLayer};

fuzz_target!(|data: &[u8]| {
    let path = scratch::write("png", data);
    for encoding in [HeightEncoding::Gray, HeightEncoding::TerrainRgb] {
        if let Ok(imported) = import_heightmap(path, encoding, Some(0.0)) {
            let h = &imported.heightmap;
            assert_eq!(h.height01.len(), h.width as usize * h.height as usize);
            assert!(h.height01.iter().all(|v| v.is_finite()));
        }
    }
    // The paint reader is told the map size; use the header's so decoding is reached.
    if data.len() >= 24 {
        let w = u32::from_be_bytes([data[16], data[17], data[18], data[19]]);
        let h = u32::from_be_bytes([data[20], data[21], data[22], data[23]]);
        // Only sizes a heightmap could have (the map's size is checked before paint is read).
        let real =
            w <= MAX_MAP_SIDE && h <= MAX_MAP_SIDE && u64::from(w) * u64::from(h) <= MAX_MAP_CELLS;
        if !real {
            return;
        }
        if let Ok(cells) = PaintLayer::read_png(path, w, h) {
            assert_eq!(cells.len(), w as usize * h as usize);
        }
    }
});
