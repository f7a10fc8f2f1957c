//! What every generated map shares: the same seed gives the same bytes, documents are
//! complete, and the default movement types are the agreed ones.

use super::*;

#[test]
fn same_seed_same_bytes_and_other_seed_other_bytes() {
    for (kind, w, h) in [
        (MapKind::Showcase, 640, 640),
        (MapKind::Small, 96, 96),
        (MapKind::Benchmark, 300, 200),
    ] {
        let spec = GenerateSpec {
            kind,
            width: w,
            height: h,
            seed: 7,
        };
        let a = generate(&spec);
        let b = generate(&spec);
        assert_eq!(a, b, "{kind:?} is not deterministic");
        assert_eq!(a.heights.len(), (w * h) as usize);
        let c = generate(&GenerateSpec { seed: 8, ..spec });
        assert_ne!(a.heights, c.heights, "{kind:?} ignores its seed");
    }
}

#[test]
fn documents_are_complete() {
    for kind in MapKind::ALL {
        let spec = GenerateSpec {
            width: 200,
            height: 150,
            ..GenerateSpec::new(kind)
        };
        let map = generate(&spec);
        let doc = &map.document;
        let name = kind.name();
        assert_eq!(doc.name, name);
        assert_eq!(doc.heightmap.path, format!("{name}.png"));
        assert_eq!(doc.sector_size, 10);
        assert_eq!(doc.cell_size_m, 1.0);
        let types: Vec<_> = doc.movement_types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(types, ["land", "hover", "large"]);
        assert_eq!(doc.paint[0].target, PaintTarget::All);
        assert_eq!(doc.paint[0].file, format!("{name}.paint.all.png"));
        for layer in &doc.paint {
            assert_eq!(layer.cells.len(), 200 * 150, "{}", layer.file);
        }
        if kind != MapKind::Benchmark {
            assert!(!doc.stamps.is_empty(), "{name} places no stamps");
        }
        assert_eq!(MapKind::from_name(name), Some(kind));
    }
    let empty = generate(&GenerateSpec {
        width: 0,
        height: 5,
        ..GenerateSpec::new(MapKind::Showcase)
    });
    assert!(empty.heights.is_empty());
    // Tiny sizes must not panic, whatever they lose.
    for kind in MapKind::ALL {
        for (w, h) in [(1, 1), (3, 17), (33, 2)] {
            let map = generate(&GenerateSpec {
                width: w,
                height: h,
                ..GenerateSpec::new(kind)
            });
            assert_eq!(map.heights.len(), (w * h) as usize);
        }
    }
}

#[test]
fn default_movement_types_match_the_agreed_values() {
    let land = movement("land");
    assert_eq!(land.max_slope_deg, 35.0);
    assert_eq!(land.water, WaterRule::Impassable);
    assert_eq!(
        land.slope_cost,
        [(0.0, 1.0), (5.0, 1.0), (20.0, 8.0), (35.0, 30.0)]
    );
    assert_eq!(
        (land.blur_radius_m, land.blur_strength, land.wall_buffer_m),
        (3.0, 6.0, 0.0)
    );
    let hover = movement("hover");
    assert_eq!(hover.max_slope_deg, 25.0);
    assert_eq!(hover.water, WaterRule::Cost(2));
    assert_eq!(hover.slope_cost, [(0.0, 1.0), (8.0, 1.0), (25.0, 20.0)]);
    assert_eq!(
        (
            hover.blur_radius_m,
            hover.blur_strength,
            hover.wall_buffer_m
        ),
        (2.0, 4.0, 0.0)
    );
    let large = movement("large");
    assert_eq!(large.max_slope_deg, 30.0);
    assert_eq!(large.water, WaterRule::Impassable);
    assert_eq!(
        large.slope_cost,
        [(0.0, 1.0), (5.0, 1.0), (20.0, 10.0), (30.0, 40.0)]
    );
    assert_eq!(
        (
            large.blur_radius_m,
            large.blur_strength,
            large.wall_buffer_m
        ),
        (4.0, 8.0, 1.5)
    );
}
