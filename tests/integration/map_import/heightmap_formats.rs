//! Heightmap import of each supported format: grey and RGB PNG, Terrain-RGB, raw16, HGT and
//! Moving AI `.map`, with each format's own bad inputs.

use super::*;

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
