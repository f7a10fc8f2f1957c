//! Map I/O: heightmap import of every supported format (and the shared real-world data),
//! document load/save round trips, paint side files, stamps, and one test per bad input
//! checking the error variant and that its message names the file.
#![allow(clippy::float_cmp)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use navstudio::map::heightmap::heightmap_dimensions;
use navstudio::map::{
    FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument, MapError, MovementType,
    PaintCell, PaintForce, PaintLayer, PaintTarget, Stamp, StampCell, StampLibrary, StampPlacement,
    WaterRule, default_movement_types, heightmap_from_u16, import_heightmap, load_map,
    new_map_from_heightmap, save_map, write_png16,
};

// ---------------------------------------------------------------- helpers

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
        water_level_m: 3.5,
        sector_size: 10,
        movement_types: default_movement_types(),
        paint: Vec::new(),
        stamps: Vec::new(),
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

// ---------------------------------------------------------------- heightmap formats

#[test]
fn grey_png_8_and_16_bit_normalise_over_full_sample_range() {
    let dir = tempfile::tempdir().unwrap();
    let p8 = dir.path().join("a.png");
    write_gray8(&p8, 2, 2, &[0, 51, 204, 255]);
    let imported = import_heightmap(&p8, HeightEncoding::Auto, None).unwrap();
    assert_eq!(imported.heightmap.height01, vec![0.0, 0.2, 0.8, 1.0]);
    assert!(imported.heightmap.blocked.is_empty());
    assert_eq!(imported.range_m, None);
    assert!(imported.warnings.is_empty());

    let p16 = dir.path().join("b.png");
    let samples = [0u16, 1000, 65535, 32768, 7, 9];
    write_png16(&p16, &heightmap_from_u16(3, 2, &samples)).unwrap();
    let imported = import_heightmap(&p16, HeightEncoding::Gray, None).unwrap();
    let expected: Vec<f32> = samples.iter().map(|&v| f32::from(v) / 65535.0).collect();
    assert_eq!(imported.heightmap.height01, expected);
    assert_eq!(
        (imported.heightmap.width, imported.heightmap.height),
        (3, 2)
    );
}

#[test]
fn grey_in_rgb_reads_one_channel_and_colour_becomes_luminance_with_warning() {
    let dir = tempfile::tempdir().unwrap();
    let grey = dir.path().join("grey.png");
    write_rgb8(
        &grey,
        2,
        2,
        &[10, 10, 10, 20, 20, 20, 61, 61, 61, 255, 255, 255],
    );
    let imported = import_heightmap(&grey, HeightEncoding::Auto, Some(61.0)).unwrap();
    assert_eq!(imported.heightmap.blocked, vec![false, false, true, false]);
    assert_eq!(imported.heightmap.height01[0], 10.0 / 255.0);
    assert_eq!(imported.heightmap.height01[3], 1.0);
    // The void takes the lowest valid height.
    assert_eq!(imported.heightmap.height01[2], 10.0 / 255.0);
    assert!(!imported.warnings.iter().any(|w| w.contains("luminance")));

    let colour = dir.path().join("colour.png");
    write_rgb8(&colour, 2, 2, &[255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]);
    let imported = import_heightmap(&colour, HeightEncoding::Auto, None).unwrap();
    let h = &imported.heightmap.height01;
    assert_eq!(h[0], (0.2126f64 * 255.0).round() as f32 / 255.0);
    assert_eq!(h[1], (0.7152f64 * 255.0).round() as f32 / 255.0);
    assert_eq!(h[2], (0.0722f64 * 255.0).round() as f32 / 255.0);
    assert_eq!(h[3], 0.0);
    assert!(imported.warnings.iter().any(|w| w.contains("luminance")));
}

#[test]
fn terrain_rgb_decodes_metres_and_normalises_over_range() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.png");
    // Packed values for 0 m, 100 m, 250.5 m, -10000 m (the void marker here).
    let packed = |m: f64| ((m + 10000.0) / 0.1).round() as u32;
    let rgb = |v: u32| [(v >> 16) as u8, (v >> 8) as u8, v as u8];
    let mut pixels = Vec::new();
    for m in [0.0, 100.0, 250.5] {
        pixels.extend(rgb(packed(m)));
    }
    pixels.extend(rgb(0));
    write_rgb8(&path, 2, 2, &pixels);
    let imported = import_heightmap(&path, HeightEncoding::TerrainRgb, Some(0.0)).unwrap();
    let (min_m, max_m) = imported.range_m.unwrap();
    assert!((min_m - 0.0).abs() < 1e-6 && (max_m - 250.5).abs() < 1e-6);
    let h = &imported.heightmap.height01;
    assert!((h[1] - (100.0 / 250.5) as f32).abs() < 1e-6);
    assert_eq!(h[2], 1.0);
    assert_eq!(imported.heightmap.blocked, vec![false, false, false, true]);
}

#[test]
fn raw16_with_width_imports_and_odd_or_mismatched_lengths_fail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.r16");
    let samples: Vec<u16> = (0..12).map(|i| i * 5000).collect();
    let bytes: Vec<u8> = samples.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&path, &bytes).unwrap();

    let imported = import_heightmap(&path, HeightEncoding::Raw16 { width: Some(4) }, None).unwrap();
    assert_eq!(
        (imported.heightmap.width, imported.heightmap.height),
        (4, 3)
    );
    assert_eq!(imported.heightmap.height01[5], 25000.0 / 65535.0);

    // 12 samples are no square: inferring fails; width 5 does not divide 12.
    let err = import_heightmap(&path, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::RawSize { .. }), "{err}");
    assert_names_file(&err, &path);
    let err = import_heightmap(&path, HeightEncoding::Raw16 { width: Some(5) }, None).unwrap_err();
    assert!(matches!(err, MapError::RawSize { .. }), "{err}");

    let odd = dir.path().join("odd.raw");
    std::fs::write(&odd, &bytes[..bytes.len() - 1]).unwrap();
    let err = import_heightmap(&odd, HeightEncoding::Raw16 { width: Some(4) }, None).unwrap_err();
    assert!(matches!(err, MapError::RawSize { .. }), "{err}");
    assert_names_file(&err, &odd);

    // A 3×3 square is inferred.
    let square = dir.path().join("sq.raw");
    std::fs::write(&square, &bytes[..18]).unwrap();
    let imported = import_heightmap(&square, HeightEncoding::Auto, None).unwrap();
    assert_eq!(
        (imported.heightmap.width, imported.heightmap.height),
        (3, 3)
    );

    // 1×N is too small.
    let err = import_heightmap(&path, HeightEncoding::Raw16 { width: Some(12) }, None).unwrap_err();
    assert!(matches!(err, MapError::TooSmall { .. }), "{err}");
}

#[test]
fn hgt_reads_big_endian_voids_block_and_bad_sizes_fail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("N00E000.hgt");
    let mut samples = vec![100i16; 1201 * 1201];
    samples[0] = -32768;
    samples[1] = 300;
    samples[2] = -5;
    let bytes: Vec<u8> = samples.iter().flat_map(|v| v.to_be_bytes()).collect();
    std::fs::write(&path, &bytes).unwrap();
    let imported = import_heightmap(&path, HeightEncoding::Auto, None).unwrap();
    assert_eq!(imported.range_m, Some((-5.0, 300.0)));
    let hm = &imported.heightmap;
    assert!(hm.blocked[0] && !hm.blocked[1] && hm.blocked_count() == 1);
    assert_eq!(hm.height01[1], 1.0);
    assert_eq!(hm.height01[2], 0.0);
    assert!((hm.height01[3] - 105.0 / 305.0).abs() < 1e-6);

    let bad = dir.path().join("short.hgt");
    std::fs::write(&bad, &bytes[..1000]).unwrap();
    let err = import_heightmap(&bad, HeightEncoding::Auto, None).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::HgtSize {
                len_bytes: 1000,
                ..
            }
        ),
        "{err}"
    );
    assert_names_file(&err, &bad);
}

const MAI_LF: &str = "type octile\nheight 3\nwidth 4\nmap\n.@..\nT.GS\nOW..\n";

#[test]
fn moving_ai_lf_and_crlf_match_and_walls_match_a_character_count() {
    let dir = tempfile::tempdir().unwrap();
    let lf = dir.path().join("lf.map");
    let crlf = dir.path().join("crlf.map");
    std::fs::write(&lf, MAI_LF).unwrap();
    std::fs::write(&crlf, MAI_LF.replace('\n', "\r\n")).unwrap();
    let a = import_heightmap(&lf, HeightEncoding::Auto, None).unwrap();
    let b = import_heightmap(&crlf, HeightEncoding::Auto, None).unwrap();
    assert_eq!(a, b);
    let expected: Vec<bool> = ".@..T.GSOW..".chars().map(|c| "@OTW".contains(c)).collect();
    assert_eq!(a.heightmap.blocked, expected);
    assert!(a.heightmap.height01.iter().all(|&h| h == 0.0));

    let open = dir.path().join("open.map");
    std::fs::write(&open, "type octile\nheight 2\nwidth 2\nmap\n..\n..\n").unwrap();
    let imported = import_heightmap(&open, HeightEncoding::Auto, None).unwrap();
    assert!(imported.heightmap.blocked.is_empty());
}

#[test]
fn moving_ai_errors_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, usize, &str); 6] = [
        ("type octile\nheight 3\nwidth 4\nmapp\n", 4, "bad header"),
        ("type hex\nheight 3\nwidth 4\nmap\n", 1, "not supported"),
        ("type octile\nheight x\nwidth 4\nmap\n", 2, "whole number"),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.@..\nT.GS\n",
            7,
            "2 rows",
        ),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.@..\nT.G\nOW..\n",
            6,
            "3 characters",
        ),
        (
            "type octile\nheight 3\nwidth 4\nmap\n.@..\nT.GS\nOW.x\n",
            7,
            "'x' in column 4",
        ),
    ];
    for (i, (text, line, needle)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("bad{i}.map"));
        std::fs::write(&path, text).unwrap();
        let err = import_heightmap(&path, HeightEncoding::Auto, None).unwrap_err();
        match &err {
            MapError::MovingAi { line: got, .. } => assert_eq!(got, line, "{err}"),
            other => panic!("case {i}: expected MovingAi, got {other}"),
        }
        assert!(err.to_string().contains(needle), "case {i}: {err}");
        assert_names_file(&err, &path);
    }
    let extra = dir.path().join("extra.map");
    std::fs::write(&extra, format!("{MAI_LF}....\n")).unwrap();
    let err = import_heightmap(&extra, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::MovingAi { line: 8, .. }), "{err}");
    let tiny = dir.path().join("tiny.map");
    std::fs::write(&tiny, "type octile\nheight 1\nwidth 4\nmap\n....\n").unwrap();
    let err = import_heightmap(&tiny, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::TooSmall { .. }), "{err}");
}

// ---------------------------------------------------------------- bad image files

#[test]
fn missing_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.png");
    let err = import_heightmap(&path, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::NotFound { .. }), "{err}");
    assert_names_file(&err, &path);
}

#[test]
fn unknown_extension_and_non_image_fail() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    let err = import_heightmap(&txt, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::UnknownFormat { .. }), "{err}");
    assert_names_file(&err, &txt);

    let fake = dir.path().join("fake.png");
    std::fs::write(&fake, "this is not a png at all").unwrap();
    let err = import_heightmap(&fake, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::NotAnImage { .. }), "{err}");
    assert_names_file(&err, &fake);
}

#[test]
fn truncated_png_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.png");
    let pixels: Vec<u8> = (0..64 * 64).map(|i| (i * 7 % 251) as u8).collect();
    write_gray8(&whole, 64, 64, &pixels);
    let bytes = std::fs::read(&whole).unwrap();
    for cut in [10, 30, bytes.len() / 2, bytes.len() - 13] {
        let path = dir.path().join(format!("cut{cut}.png"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = import_heightmap(&path, HeightEncoding::Auto, None).unwrap_err();
        assert!(
            matches!(err, MapError::CorruptImage { .. }),
            "cut {cut}: {err}"
        );
        assert_names_file(&err, &path);
    }
}

#[test]
fn huge_png_header_fails_fast_with_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.png");
    std::fs::write(&path, crafted_png(100_000, 100_000)).unwrap();
    let start = Instant::now();
    let err = import_heightmap(&path, HeightEncoding::Auto, None).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(1));
    assert!(
        matches!(
            err,
            MapError::TooLarge {
                width: 100_000,
                height: 100_000,
                ..
            }
        ),
        "{err}"
    );
    assert_names_file(&err, &path);
    // Within the side limit but over the cell limit.
    std::fs::write(&path, crafted_png(16_000, 16_000)).unwrap();
    let err = import_heightmap(&path, HeightEncoding::Auto, None).unwrap_err();
    assert!(matches!(err, MapError::TooLarge { .. }), "{err}");
    let err = heightmap_dimensions(&path, HeightEncoding::Auto).unwrap_err();
    assert!(matches!(err, MapError::TooLarge { .. }), "{err}");
}

#[test]
fn degenerate_sizes_are_too_small() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero.png");
    std::fs::write(&zero, crafted_png(0, 0)).unwrap();
    let err = import_heightmap(&zero, HeightEncoding::Auto, None).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::TooSmall {
                width: 0,
                height: 0,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("at least 2×2"), "{err}");

    let thin = dir.path().join("thin.png");
    write_gray8(&thin, 1, 5, &[1, 2, 3, 4, 5]);
    let err = import_heightmap(&thin, HeightEncoding::Auto, None).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::TooSmall {
                width: 1,
                height: 5,
                ..
            }
        ),
        "{err}"
    );
    assert_names_file(&err, &thin);
}

#[test]
fn terrain_rgb_on_a_grey_image_is_an_unsupported_pixel_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.png");
    write_png16(&path, &heightmap_from_u16(2, 2, &[1, 2, 3, 4])).unwrap();
    let err = import_heightmap(&path, HeightEncoding::TerrainRgb, None).unwrap_err();
    assert!(
        matches!(err, MapError::UnsupportedPixelFormat { .. }),
        "{err}"
    );
    assert_names_file(&err, &path);
}

// ---------------------------------------------------------------- documents

#[test]
fn save_then_load_round_trips_document_paint_and_heightmap() {
    let dir = tempfile::tempdir().unwrap();
    let samples: Vec<u16> = (0..20u16 * 15).map(|i| i.wrapping_mul(211)).collect();
    let heightmap = heightmap_from_u16(20, 15, &samples);
    write_png16(&dir.path().join("terrain.png"), &heightmap).unwrap();

    let mut document = sample_document("terrain.png");
    document.heightmap.encoding = HeightEncoding::Gray;
    document.heightmap.no_data = Some(65535.0);
    let mut all = PaintLayer::new(PaintTarget::All, "paint_all.png", 20, 15);
    all.set(
        20,
        0,
        0,
        PaintCell {
            delta: 254,
            force: PaintForce::None,
        },
    );
    all.set(
        20,
        19,
        14,
        PaintCell {
            delta: -254,
            force: PaintForce::Wall,
        },
    );
    all.set(
        20,
        5,
        7,
        PaintCell {
            delta: 0,
            force: PaintForce::Clear,
        },
    );
    let mut hover = PaintLayer::new(
        PaintTarget::Type("hover".to_owned()),
        "paint/hover.png",
        20,
        15,
    );
    hover.set(
        20,
        3,
        2,
        PaintCell {
            delta: 17,
            force: PaintForce::Clear,
        },
    );
    document.paint = vec![all, hover];
    document.stamps = vec![
        StampPlacement {
            stamp: "factory_6x4".to_owned(),
            x: 2,
            y: 3,
            rotation: 1,
        },
        StampPlacement {
            stamp: "bridge_3x8".to_owned(),
            x: -1,
            y: 10,
            rotation: 3,
        },
    ];
    document.movement_types[1].water = WaterRule::Cost(254);

    let path = dir.path().join("round.ron");
    save_map(&path, &document).unwrap();
    let loaded = load_map(&path).unwrap();
    assert_eq!(loaded.document, document);
    assert_eq!(loaded.heightmap, heightmap);
    assert_eq!(loaded.path, path);
    assert_eq!(
        loaded.document.paint[0].get(20, 19, 14),
        Some(PaintCell {
            delta: -254,
            force: PaintForce::Wall
        })
    );

    // Saving what was loaded writes the same bytes, and leaves no temporary files.
    let before = std::fs::read(&path).unwrap();
    save_map(&path, &loaded.document).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn failed_save_leaves_old_files_intact() {
    let dir = folder_with_heightmap();
    let path = dir.path().join("m.ron");
    let mut document = sample_document("h.png");
    let mut layer = PaintLayer::new(PaintTarget::All, "p.png", 8, 6);
    layer.set(
        8,
        1,
        1,
        PaintCell {
            delta: 9,
            force: PaintForce::None,
        },
    );
    document.paint = vec![layer];
    save_map(&path, &document).unwrap();
    let old_ron = std::fs::read(&path).unwrap();
    let old_png = std::fs::read(dir.path().join("p.png")).unwrap();

    // A second layer of the wrong size: nothing may change, though the first layer was fine.
    let mut bad = document.clone();
    bad.name = "changed".to_owned();
    bad.paint[0].set(
        8,
        2,
        2,
        PaintCell {
            delta: 3,
            force: PaintForce::None,
        },
    );
    bad.paint
        .push(PaintLayer::new(PaintTarget::All, "q.png", 3, 3));
    assert!(save_map(&path, &bad).is_err());
    // An invalid value: refused before anything is written.
    let mut invalid = document.clone();
    invalid.cell_size_m = 0.0;
    assert!(matches!(
        save_map(&path, &invalid),
        Err(MapError::InvalidValue { .. })
    ));

    assert_eq!(std::fs::read(&path).unwrap(), old_ron);
    assert_eq!(std::fs::read(dir.path().join("p.png")).unwrap(), old_png);
    assert!(!dir.path().join("q.png").exists());
    let count = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(count, 3, "only h.png, p.png and m.ron");
}

#[test]
fn missing_paint_file_is_an_error() {
    let dir = folder_with_heightmap();
    let path = dir.path().join("m.ron");
    let mut document = sample_document("h.png");
    document.paint = vec![PaintLayer::new(PaintTarget::All, "p.png", 8, 6)];
    save_map(&path, &document).unwrap();
    std::fs::remove_file(dir.path().join("p.png")).unwrap();
    let err = load_map(&path).unwrap_err();
    assert!(matches!(err, MapError::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("p.png"), "{err}");
}

#[test]
fn paint_layer_of_wrong_size_is_rejected() {
    let dir = folder_with_heightmap();
    let path = dir.path().join("m.ron");
    let mut document = sample_document("h.png");
    document.paint = vec![PaintLayer::new(PaintTarget::All, "p.png", 8, 6)];
    save_map(&path, &document).unwrap();
    write_rgb8(&dir.path().join("p.png"), 7, 6, &[0; 7 * 6 * 3]);
    let err = load_map(&path).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::PaintSize {
                width: 7,
                height: 6,
                expected_width: 8,
                expected_height: 6,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("p.png"), "{err}");
}

#[test]
fn malformed_ron_reports_line_and_column() {
    let dir = folder_with_heightmap();
    let path = dir.path().join("broken.ron");
    std::fs::write(
        &path,
        "(\n    version: 1,\n    name: \"x\"\n    heightmap: oops,\n)",
    )
    .unwrap();
    let err = load_map(&path).unwrap_err();
    match &err {
        MapError::Ron { line, .. } => assert!(*line == 3 || *line == 4, "{err}"),
        other => panic!("expected Ron, got {other}"),
    }
    assert_names_file(&err, &path);
    assert!(err.to_string().contains("line"), "{err}");
}

#[test]
fn unknown_field_names_field_structure_and_position() {
    let dir = folder_with_heightmap();
    let path = dir.path().join("typo.ron");
    let good =
        ron::ser::to_string_pretty(&sample_document("h.png"), ron::ser::PrettyConfig::default())
            .unwrap();
    let text = good.replacen("max_slope_deg", "max_slope", 1);
    let line_of_typo = text.lines().position(|l| l.contains("max_slope:")).unwrap() + 1;
    std::fs::write(&path, &text).unwrap();
    let err = load_map(&path).unwrap_err();
    match &err {
        MapError::UnknownField {
            field,
            within,
            line,
            ..
        } => {
            assert_eq!(field, "max_slope");
            assert_eq!(within, "movement type");
            assert_eq!(*line, line_of_typo);
        }
        other => panic!("expected UnknownField, got {other}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("`max_slope_deg`") && msg.contains("fix or remove it"),
        "{msg}"
    );
    assert_names_file(&err, &path);
}

#[test]
fn old_and_new_versions_get_the_version_message_first() {
    let dir = folder_with_heightmap();
    // Version 0 with a field this build does not know: the version wins.
    let old = dir.path().join("old.ron");
    std::fs::write(&old, "(version: 0, name: \"x\", legacy_field: 3)").unwrap();
    let err = load_map(&old).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::OldVersion {
                found: 0,
                supported: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("re-save it"), "{err}");
    assert_names_file(&err, &old);

    // No version at all: the full parse names the missing field.
    let none = dir.path().join("none.ron");
    std::fs::write(&none, "(name: \"x\")").unwrap();
    let err = load_map(&none).unwrap_err();
    assert!(
        matches!(err, MapError::Ron { .. }) && err.to_string().contains("version"),
        "{err}"
    );

    let new = dir.path().join("new.ron");
    std::fs::write(&new, "MapDocument(version: 7, name: \"x\", future: [1, 2])").unwrap();
    let err = load_map(&new).unwrap_err();
    assert!(
        matches!(err, MapError::NewVersion { found: 7, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("newer navstudio"), "{err}");
}

#[test]
fn invalid_values_are_rejected_with_the_right_variant() {
    type Mutation = fn(&mut MapDocument);
    let invalid: &[(&str, Mutation)] = &[
        ("cell_size_m", |d| d.cell_size_m = -1.0),
        ("cell_size_m", |d| d.cell_size_m = 0.0),
        ("cell_size_m", |d| d.cell_size_m = f32::NAN),
        ("height_scale_m", |d| d.height_scale_m = -2.0),
        ("sector_size", |d| d.sector_size = 0),
        ("sector_size", |d| d.sector_size = 256),
        ("slope_cost", |d| d.movement_types[0].slope_cost.clear()),
        ("slope_cost", |d| {
            d.movement_types[0].slope_cost = vec![(0.0, 1.0), (10.0, 2.0), (10.0, 3.0)];
        }),
        ("slope_cost", |d| {
            d.movement_types[0].slope_cost = vec![(0.0, 1.0), (20.0, 2.0), (10.0, 3.0)];
        }),
        ("slope_cost", |d| {
            d.movement_types[0].slope_cost = vec![(0.0, 0.0)]
        }),
        ("slope_cost", |d| {
            d.movement_types[0].slope_cost = vec![(0.0, 255.0)]
        }),
        ("water cost", |d| {
            d.movement_types[1].water = WaterRule::Cost(0)
        }),
        ("water cost", |d| {
            d.movement_types[1].water = WaterRule::Cost(255)
        }),
        ("wall_buffer_m", |d| {
            d.movement_types[2].wall_buffer_m = -0.5
        }),
        ("blur_radius_m", |d| {
            d.movement_types[0].blur_radius_m = -1.0
        }),
        ("max_slope_deg", |d| {
            d.movement_types[0].max_slope_deg = 91.0
        }),
        ("movement_types", |d| d.movement_types.clear()),
    ];
    for (field, mutate) in invalid {
        let mut document = sample_document("h.png");
        mutate(&mut document);
        assert!(document.validate().is_err(), "{field}");
        let (err, _path, _dir) = load_err(&document);
        match &err {
            MapError::InvalidValue { field: f, .. } => assert!(f.contains(field), "{err}"),
            other => panic!("{field}: expected InvalidValue, got {other}"),
        }
    }
    assert!(sample_document("h.png").validate().is_ok());
}

#[test]
fn duplicate_names_unknown_targets_stamps_and_rotations_are_rejected() {
    let mut document = sample_document("h.png");
    document.movement_types[2].name = "land".to_owned();
    let (err, ..) = load_err(&document);
    assert!(
        matches!(err, MapError::DuplicateMovementType { ref name, .. } if name == "land"),
        "{err}"
    );

    let mut document = sample_document("h.png");
    document.paint = vec![PaintLayer::new(
        PaintTarget::Type("boat".to_owned()),
        "p.png",
        8,
        6,
    )];
    let (err, ..) = load_err(&document);
    assert!(
        matches!(err, MapError::UnknownPaintTarget { ref name, .. } if name == "boat"),
        "{err}"
    );

    let mut document = sample_document("h.png");
    document.stamps = vec![StampPlacement {
        stamp: "castle".to_owned(),
        x: 0,
        y: 0,
        rotation: 0,
    }];
    let (err, ..) = load_err(&document);
    assert!(
        matches!(err, MapError::UnknownStamp { ref id, .. } if id == "castle"),
        "{err}"
    );
    assert!(err.to_string().contains("`wall_1x1`"), "{err}");

    let mut document = sample_document("h.png");
    document.stamps = vec![StampPlacement {
        stamp: "tower_2x2".to_owned(),
        x: 0,
        y: 0,
        rotation: 4,
    }];
    let (err, ..) = load_err(&document);
    assert!(
        matches!(err, MapError::BadRotation { rotation: 4, .. }),
        "{err}"
    );
}

#[test]
fn new_map_from_every_kind_of_heightmap_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("arena.map");
    std::fs::write(&map, MAI_LF).unwrap();
    let loaded = new_map_from_heightmap(&map).unwrap();
    assert_eq!(loaded.document.name, "arena");
    assert_eq!(loaded.document.heightmap.path, "arena.map");
    assert_eq!(loaded.document.water_level_m, -1.0);
    assert_eq!(loaded.path, dir.path().join("arena.ron"));
    let names: Vec<&str> = loaded
        .document
        .movement_types
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["land", "hover", "large"]);
    loaded.document.validate().unwrap();
    // It saves and loads back.
    save_map(&loaded.path, &loaded.document).unwrap();
    let again = load_map(&loaded.path).unwrap();
    assert_eq!(again.document, loaded.document);
    assert_eq!(again.heightmap, loaded.heightmap);
}

#[test]
fn default_movement_types_match_the_brief() {
    let types = default_movement_types();
    let by_name = |n: &str| types.iter().find(|m| m.name == n).unwrap().clone();
    let land: MovementType = by_name("land");
    assert_eq!(
        (land.max_slope_deg, land.water, land.wall_buffer_m),
        (35.0, WaterRule::Impassable, 0.0)
    );
    let hover = by_name("hover");
    assert_eq!(
        (hover.max_slope_deg, hover.water, hover.wall_buffer_m),
        (25.0, WaterRule::Cost(2), 0.0)
    );
    let large = by_name("large");
    assert_eq!(
        (large.max_slope_deg, large.water, large.wall_buffer_m),
        (30.0, WaterRule::Impassable, 1.5)
    );
}

// ---------------------------------------------------------------- paint codec

#[test]
fn paint_pixels_encode_as_specified_and_bad_pixels_are_rejected() {
    let cell = |delta, force| PaintCell { delta, force };
    assert_eq!(cell(40, PaintForce::None).to_rgb(), [40, 0, 0]);
    assert_eq!(cell(-7, PaintForce::Wall).to_rgb(), [0, 7, 255]);
    assert_eq!(cell(0, PaintForce::Clear).to_rgb(), [0, 0, 128]);
    for delta in -254..=254 {
        for force in [PaintForce::None, PaintForce::Wall, PaintForce::Clear] {
            let c = cell(delta, force);
            assert_eq!(PaintCell::from_rgb(c.to_rgb()), Ok(c));
        }
    }
    assert!(PaintCell::from_rgb([1, 1, 0]).is_err());
    assert!(PaintCell::from_rgb([0, 0, 64]).is_err());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.png");
    let mut pixels = vec![0u8; 4 * 3 * 3];
    pixels[(2 * 4 + 3) * 3 + 2] = 77; // (3, 2) has blue 77
    write_rgb8(&path, 4, 3, &pixels);
    let err = PaintLayer::read_png(&path, 4, 3).unwrap_err();
    assert!(
        matches!(err, MapError::PaintPixel { x: 3, y: 2, .. }),
        "{err}"
    );
    pixels[(2 * 4 + 3) * 3 + 2] = 0;
    pixels[3] = 5; // (1, 0): R and G both set
    pixels[4] = 6;
    write_rgb8(&path, 4, 3, &pixels);
    let err = PaintLayer::read_png(&path, 4, 3).unwrap_err();
    assert!(
        matches!(err, MapError::PaintPixel { x: 1, y: 0, .. }),
        "{err}"
    );
    assert_names_file(&err, &path);
    let grey = dir.path().join("g.png");
    write_gray8(&grey, 4, 3, &[0; 12]);
    let err = PaintLayer::read_png(&grey, 4, 3).unwrap_err();
    assert!(
        matches!(err, MapError::UnsupportedPixelFormat { .. }),
        "{err}"
    );
}

#[test]
fn paint_layer_get_set_stay_in_bounds() {
    let mut layer = PaintLayer::new(PaintTarget::All, "p.png", 3, 2);
    assert_eq!(layer.cells.len(), 6);
    let c = PaintCell {
        delta: 5,
        force: PaintForce::Clear,
    };
    assert!(layer.set(3, 2, 1, c));
    assert_eq!(layer.cells[5], c);
    assert_eq!(layer.get(3, 2, 1), Some(c));
    assert!(!layer.set(3, 3, 0, c));
    assert!(!layer.set(3, 0, 2, c));
    assert_eq!(layer.get(3, 3, 0), None);
}

// ---------------------------------------------------------------- stamps

fn stamp(rows: &[&str], legend: Vec<(char, u8)>) -> Stamp {
    Stamp {
        id: "s".to_owned(),
        name: "S".to_owned(),
        rows: rows.iter().map(|r| (*r).to_owned()).collect(),
        legend,
    }
}

#[test]
fn stamp_footprint_rotates_clockwise() {
    use StampCell::{Cost as C, Transparent as T, Wall as W};
    // 3 wide, 2 tall:   # 1 2
    //                   . 3 #
    let s = stamp(&["#12", ".3#"], vec![]);
    let f0 = s.footprint(0).unwrap();
    assert_eq!((f0.width, f0.height), (3, 2));
    assert_eq!(f0.cells, vec![W, C(1), C(2), T, C(3), W]);
    // A quarter turn clockwise: the left column, read bottom-up, becomes the top row.
    let f1 = s.footprint(1).unwrap();
    assert_eq!((f1.width, f1.height), (2, 3));
    assert_eq!(f1.cells, vec![T, W, C(3), C(1), W, C(2)]);
    let f2 = s.footprint(2).unwrap();
    assert_eq!((f2.width, f2.height), (3, 2));
    assert_eq!(f2.cells, vec![W, C(3), T, C(2), C(1), W]);
    let f3 = s.footprint(3).unwrap();
    assert_eq!((f3.width, f3.height), (2, 3));
    assert_eq!(f3.cells, vec![C(2), W, C(1), C(3), W, T]);
    assert_eq!(f1.get(0, 2), Some(W));
    assert_eq!(f1.get(2, 0), None);
    assert!(matches!(
        s.footprint(4),
        Err(MapError::BadRotation { rotation: 4, .. })
    ));
}

#[test]
fn bad_stamp_definitions_are_rejected() {
    let bad = [
        stamp(&["##", "#"], vec![]),
        stamp(&["#x"], vec![]),
        stamp(&["s"], vec![('s', 0)]),
        stamp(&["s"], vec![('s', 255)]),
        stamp(&[], vec![]),
        stamp(&[""], vec![]),
        stamp(&["#"], vec![('#', 3)]),
    ];
    for (i, s) in bad.iter().enumerate() {
        let err = s.footprint(0).unwrap_err();
        assert!(matches!(err, MapError::BadStamp { .. }), "case {i}: {err}");
    }
    assert_eq!(
        stamp(&["s#"], vec![('s', 40)]).footprint(0).unwrap().cells,
        vec![StampCell::Cost(40), StampCell::Wall]
    );

    let lib_path = Path::new("custom/stamps.ron");
    let text = r###"(stamps: [(id: "a", name: "A", rows: ["##", "#"])])"###;
    let err = StampLibrary::parse(text, lib_path).unwrap_err();
    assert!(matches!(err, MapError::BadStamp { .. }), "{err}");
    assert!(err.to_string().contains("custom/stamps.ron"), "{err}");
    let dup =
        r###"(stamps: [(id: "a", name: "A", rows: ["#"]), (id: "a", name: "B", rows: ["1"])])"###;
    assert!(matches!(
        StampLibrary::parse(dup, lib_path),
        Err(MapError::BadStamp { .. })
    ));
    let typo = r###"(stamps: [(id: "a", name: "A", rowz: ["#"])])"###;
    assert!(matches!(
        StampLibrary::parse(typo, lib_path),
        Err(MapError::UnknownField { .. })
    ));
}

#[test]
fn builtin_stamp_library_parses_and_has_the_promised_stamps() {
    use StampCell::{Cost, Wall};
    let library = StampLibrary::builtin().unwrap();
    let size = |id: &str| {
        let f = library.get(id).unwrap().footprint(0).unwrap();
        (f.width, f.height, f)
    };
    let (w, h, wall) = size("wall_1x1");
    assert_eq!((w, h, wall.cells), (1, 1, vec![Wall]));
    let (w, h, block) = size("wall_block_3x3");
    assert_eq!((w, h), (3, 3));
    assert!(block.cells.iter().all(|&c| c == Wall));
    let (w, h, tower) = size("tower_2x2");
    assert_eq!((w, h), (2, 2));
    assert!(tower.cells.iter().all(|&c| c == Wall));
    let (w, h, road) = size("road_1x6");
    assert_eq!((w, h), (1, 6));
    assert!(road.cells.iter().all(|&c| c == Cost(1)));
    let (w, h, bridge) = size("bridge_3x8");
    assert_eq!((w, h), (3, 8));
    assert!(bridge.cells.iter().all(|&c| c == Cost(1)));

    // Factory: walls all round except a 2-cell gate; the inside is passable.
    let (w, h, factory) = size("factory_6x4");
    assert_eq!((w, h), (6, 4));
    let border: Vec<(u32, u32)> = (0..w)
        .flat_map(|x| [(x, 0), (x, h - 1)])
        .chain((0..h).flat_map(|y| [(0, y), (w - 1, y)]))
        .collect();
    let mut gaps: Vec<(u32, u32)> = border
        .into_iter()
        .filter(|&(x, y)| factory.get(x, y) != Some(Wall))
        .collect();
    gaps.sort_unstable();
    gaps.dedup();
    assert_eq!(gaps.len(), 2, "{gaps:?}");
    assert!(gaps[0].0.abs_diff(gaps[1].0) + gaps[0].1.abs_diff(gaps[1].1) == 1);
    assert!(matches!(factory.get(2, 1), Some(Cost(c)) if c < 10));
}

// ---------------------------------------------------------------- shared real-world data

fn assert_close(got: f64, want: f64, tolerance: f64, what: &str) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want}"
    );
}

#[test]
fn shared_heightmaps_import_with_sensible_values() {
    let Some(data) = shared_data() else { return };
    let hm = data.join("heightmaps");

    let hgt = import_heightmap(&hm.join("N37W119.hgt"), HeightEncoding::Auto, None).unwrap();
    assert_eq!((hgt.heightmap.width, hgt.heightmap.height), (1201, 1201));
    let (lo, hi) = hgt.range_m.unwrap();
    assert_close(lo, 1165.0, 0.5, "N37W119 min");
    assert_close(hi, 4333.0, 0.5, "N37W119 max");
    assert!(hgt.heightmap.blocked.is_empty());

    let fuji = import_heightmap(&hm.join("fuji.png"), HeightEncoding::TerrainRgb, None).unwrap();
    assert_eq!((fuji.heightmap.width, fuji.heightmap.height), (512, 512));
    let (lo, hi) = fuji.range_m.unwrap();
    assert_close(lo, 13.7, 0.5, "fuji min");
    assert_close(hi, 3751.0, 2.0, "fuji max");

    // 16-bit grey: compare with an independent decode by the image crate.
    for (file, min_sample, max_sample) in [
        ("ben_nevis.png", 0u16, 63016u16),
        ("grand_canyon.png", 1595, 59377),
    ] {
        let imported = import_heightmap(&hm.join(file), HeightEncoding::Auto, None).unwrap();
        assert_eq!(
            (imported.heightmap.width, imported.heightmap.height),
            (1081, 1081),
            "{file}"
        );
        let (lo, hi) = min_max(&imported.heightmap.height01);
        assert_eq!(lo, f32::from(min_sample) / 65535.0, "{file}");
        assert_eq!(hi, f32::from(max_sample) / 65535.0, "{file}");
        let oracle = image::open(hm.join(file)).unwrap().into_luma16();
        assert_eq!(
            imported.heightmap.height01[1081 * 500 + 321],
            f32::from(oracle.get_pixel(321, 500)[0]) / 65535.0
        );
    }

    let terrain = import_heightmap(&hm.join("terrain.png"), HeightEncoding::Auto, None).unwrap();
    assert_eq!(
        (terrain.heightmap.width, terrain.heightmap.height),
        (513, 513)
    );
    assert_eq!(min_max(&terrain.heightmap.height01), (0.0, 1.0));

    let hm3_path = hm.join("heightmap3.png");
    let hm3 = import_heightmap(&hm3_path, HeightEncoding::Auto, Some(61.0)).unwrap();
    assert_eq!((hm3.heightmap.width, hm3.heightmap.height), (1300, 1800));
    assert!(
        !hm3.warnings.iter().any(|w| w.contains("luminance")),
        "{:?}",
        hm3.warnings
    );
    let oracle = image::open(&hm3_path).unwrap().into_rgb8();
    let expected: Vec<bool> = oracle.pixels().map(|p| p[0] == 61).collect();
    assert!(expected.iter().any(|&b| b));
    assert_eq!(hm3.heightmap.blocked, expected);
    // Without no-data nothing is blocked.
    let plain = import_heightmap(&hm3_path, HeightEncoding::Auto, None).unwrap();
    assert!(plain.heightmap.blocked.is_empty());

    for entry in std::fs::read_dir(&hm).unwrap() {
        let path = entry.unwrap().path();
        let loaded = new_map_from_heightmap(&path).unwrap();
        loaded.document.validate().unwrap();
        let h = &loaded.heightmap;
        assert_eq!(h.height01.len(), h.width as usize * h.height as usize);
        assert!(h.height01.iter().all(|v| (0.0..=1.0).contains(v)));
        let (w, hh) = heightmap_dimensions(&path, HeightEncoding::Auto).unwrap();
        assert_eq!((w, hh), (h.width, h.height));
    }
    let fuji_doc = new_map_from_heightmap(&hm.join("N37W119.hgt")).unwrap();
    assert_close(
        f64::from(fuji_doc.document.height_scale_m),
        4333.0 - 1165.0,
        0.5,
        "scale",
    );
}

fn min_max(v: &[f32]) -> (f32, f32) {
    v.iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

#[test]
fn shared_moving_ai_maps_import_and_wall_counts_match() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("movingai");
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("map") {
            continue;
        }
        seen += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let header = |key: &str| -> u32 {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        };
        let grid: String = text.split("map\n").nth(1).unwrap().lines().collect();
        let walls = grid.chars().filter(|c| "@OTW".contains(*c)).count();

        let imported = import_heightmap(&path, HeightEncoding::Auto, None).unwrap();
        let h = &imported.heightmap;
        assert_eq!(
            (h.width, h.height),
            (header("width "), header("height ")),
            "{}",
            path.display()
        );
        assert_eq!(h.blocked_count(), walls, "{}", path.display());
        assert!(walls > 0);

        let crlf = tmp.path().join(path.file_name().unwrap());
        std::fs::write(&crlf, text.replace('\n', "\r\n")).unwrap();
        let again = import_heightmap(&crlf, HeightEncoding::Auto, None).unwrap();
        assert_eq!(again, imported, "{}", path.display());
    }
    assert!(seen >= 6, "only {seen} .map files");
}

// ---------------------------------------------------------------- no panics on any input

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Corrupting bytes of a valid PNG, .map or document never panics; it imports or errs.
    #[test]
    fn corrupted_inputs_never_panic(
        flips in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..8),
        cut in 0usize..4096,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("h.png");
        let pixels: Vec<u8> = (0..16 * 16).map(|i| (i * 13 % 256) as u8).collect();
        write_gray8(&png, 16, 16, &pixels);
        let map = dir.path().join("m.map");
        std::fs::write(&map, MAI_LF).unwrap();
        let doc = dir.path().join("d.ron");
        let mut document = sample_document("h.png");
        document.paint = vec![PaintLayer::new(PaintTarget::All, "p.png", 16, 16)];
        save_map(&doc, &document).unwrap();
        for path in [&png, &map, &doc] {
            let mut bytes = std::fs::read(path).unwrap();
            for &(at, value) in &flips {
                let i = at % bytes.len();
                bytes[i] = value;
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            std::fs::write(path, &bytes).unwrap();
        }
        let _ = import_heightmap(&png, HeightEncoding::Auto, Some(3.0));
        let _ = import_heightmap(&png, HeightEncoding::TerrainRgb, None);
        let _ = import_heightmap(&map, HeightEncoding::Auto, None);
        let _ = load_map(&doc);
    }
}
