//! Map I/O: heightmap import of every supported format (and the shared real-world data),
//! document load/save round trips, paint side files, stamps, and one test per bad input
//! checking the error variant and that its message names the file.
//!
//! This module holds the shared file writers, sample document and error checks; the tests
//! are grouped by what they read in the submodules.

#![allow(clippy::float_cmp)]

mod bad_images;
mod documents;
mod heightmap_formats;
mod paint_codec;
mod shared_data;
mod stamps;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use navstudio::map::heightmap::heightmap_dimensions;
use navstudio::map::{
    FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument, MapError, MovementType,
    PaintCell, PaintForce, PaintLayer, PaintTarget, Stamp, StampCell, StampLibrary, StampPlacement,
    WaterRule, default_movement_types, heightmap_from_u16, import_heightmap, load_map,
    new_map_from_heightmap, save_map, write_png16,
};

fn shared_data() -> Option<PathBuf> {
    let dir = std::env::var_os("NAVSTUDIO_SHARED_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
        PathBuf::from,
    );
    if dir.join("heightmaps").is_dir() {
        Some(dir)
    } else {
        println!(
            "note: shared data not found at {} (set NAVSTUDIO_SHARED_DATA); skipping",
            dir.display()
        );
        None
    }
}

fn write_gray8(path: &Path, width: u32, height: u32, pixels: &[u8]) {
    image::GrayImage::from_raw(width, height, pixels.to_vec())
        .unwrap()
        .save(path)
        .unwrap();
}

fn write_rgb8(path: &Path, width: u32, height: u32, pixels: &[u8]) {
    image::RgbImage::from_raw(width, height, pixels.to_vec())
        .unwrap()
        .save(path)
        .unwrap();
}

/// Checks that the message names the file (by file name), is a single line and says what
/// to do after a `;`.
fn assert_names_file(err: &MapError, path: &Path) {
    let msg = err.to_string();
    println!("{msg}");
    assert!(msg.contains("; "), "no advice: {msg}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(msg.contains(&*name), "message does not name {name}: {msg}");
    assert!(!msg.contains('\n'), "message spans lines: {msg}");
    assert_eq!(err.path().file_name(), path.file_name(), "{msg}");
}

fn sample_document(heightmap_file: &str) -> MapDocument {
    MapDocument {
        version: FORMAT_VERSION,
        name: "test".to_owned(),
        heightmap: HeightmapSource {
            path: heightmap_file.to_owned(),
            encoding: HeightEncoding::Auto,
            no_data: None,
        },
        cell_size_m: 2.0,
        height_scale_m: 50.0,
        height_base_m: 0.0,
        water_level_m: 3.5,
        sector_size: 10,
        movement_types: default_movement_types(),
        paint: Vec::new(),
        stamps: Vec::new(),
        links: Vec::new(),
    }
}

/// A folder with an 8×6 grey heightmap `h.png`.
fn folder_with_heightmap() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pixels: Vec<u8> = (0..48).map(|i| (i * 5) as u8).collect();
    write_gray8(&dir.path().join("h.png"), 8, 6, &pixels);
    dir
}

/// Writes a document's RON without validating it (to test what `load_map` rejects).
fn write_document_unchecked(path: &Path, document: &MapDocument) {
    let text = ron::ser::to_string_pretty(document, ron::ser::PrettyConfig::default()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn load_err(document: &MapDocument) -> (MapError, PathBuf, tempfile::TempDir) {
    let dir = folder_with_heightmap();
    let path = dir.path().join("bad.ron");
    write_document_unchecked(&path, document);
    let err = load_map(&path).unwrap_err();
    assert_names_file(&err, &path);
    (err, path, dir)
}

fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
    out
}

/// A PNG whose IHDR claims `width × height` (8-bit grey), with a tiny IDAT and IEND.
fn crafted_png(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    let mut png = vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    png.extend(png_chunk(b"IHDR", &ihdr));
    png.extend(png_chunk(
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    ));
    png.extend(png_chunk(b"IEND", &[]));
    png
}

const MAI_LF: &str = "type octile\nheight 3\nwidth 4\nmap\n.@..\nT.GS\nOW..\n";
