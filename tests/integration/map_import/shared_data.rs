//! The shared real-world data (heightmaps and Moving AI maps), when present, import with
//! sensible values.

use super::*;

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
