//! Map documents: save/load round trips, paint side files, and every rejected document with
//! its error variant and message.

use super::*;

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

/// Paint files decode beside the heightmap, before the map's size is known; the errors come
/// as when they were read after it: the heightmap's first, then per paint file its size
/// before its pixels, and a size no map can have is refused without decoding.
#[test]
fn paint_errors_keep_their_order_while_read_beside_the_heightmap() {
    let dir = folder_with_heightmap();
    let path = dir.path().join("m.ron");
    let mut document = sample_document("h.png");
    document.paint = vec![
        PaintLayer::new(PaintTarget::All, "p.png", 8, 6),
        PaintLayer::new(PaintTarget::All, "q.png", 8, 6),
    ];
    save_map(&path, &document).unwrap();
    // p.png is the wrong size and grey: the size is named, not the pixel format.
    write_gray8(&dir.path().join("p.png"), 5, 6, &[0; 5 * 6]);
    write_gray8(&dir.path().join("q.png"), 8, 6, &[0; 8 * 6]);
    let err = load_map(&path).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::PaintSize {
                width: 5,
                height: 6,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("p.png"), "{err}");
    // p.png wider than any map: its size, without its 20,000 × 6 pixels decoded.
    write_rgb8(
        &dir.path().join("p.png"),
        20_000,
        6,
        &vec![0; 20_000 * 6 * 3],
    );
    let err = load_map(&path).unwrap_err();
    assert!(
        matches!(
            err,
            MapError::PaintSize {
                width: 20_000,
                expected_width: 8,
                ..
            }
        ),
        "{err}"
    );
    // p.png right: q.png's pixel format is next.
    write_rgb8(&dir.path().join("p.png"), 8, 6, &[0; 8 * 6 * 3]);
    let err = load_map(&path).unwrap_err();
    assert!(
        matches!(err, MapError::UnsupportedPixelFormat { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("q.png"), "{err}");
    // Without its heightmap the map names the heightmap, whatever its paint files hold.
    std::fs::remove_file(dir.path().join("h.png")).unwrap();
    let err = load_map(&path).unwrap_err();
    assert!(err.to_string().contains("h.png"), "{err}");
    write_rgb8(&dir.path().join("q.png"), 8, 6, &[0; 8 * 6 * 3]);
    write_gray8(&dir.path().join("h.png"), 8, 6, &[100; 8 * 6]);
    let loaded = load_map(&path).unwrap();
    assert_eq!(loaded.document.paint[1].cells.len(), 8 * 6);
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
