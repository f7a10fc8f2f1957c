//! Bad image files (missing, unknown, truncated, huge, degenerate, wrong pixel format) fail
//! with the right error, and corrupted inputs of every kind never panic.

use super::*;

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
