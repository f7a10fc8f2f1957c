//! The whole bake on the sample maps: designed behaviour, incremental == full, bad input.

use crate::common::{Rng, bake_all, generated};
use navstudio::bake::{self, BakeContext, BakeError, BakeOptions, CellRect};
use navstudio::map::generate::landmarks;
use navstudio::map::{MapKind, PaintCell, PaintForce, PaintLayer, PaintTarget, StampPlacement};
use navstudio::nav::NavLayer;
use navstudio::nav::grid::WALL;
use navstudio::nav::permutations::canonical_flows;
use navstudio::package::{self, PackageMeta};

/// The island id of a passable cell near `(x, y)` (the landmark centre may hold a stamp).
fn island_near(layer: &NavLayer, x: u32, y: u32, radius: u32) -> u32 {
    for r in 0..=radius as i64 {
        for dy in -r..=r {
            for dx in -r..=r {
                let (cx, cy) = (i64::from(x) + dx, i64::from(y) + dy);
                if layer.cost.spec.contains(cx, cy) {
                    let id = layer.islands.island_at(cx as u32, cy as u32);
                    if id != 0 {
                        return id;
                    }
                }
            }
        }
    }
    0
}

#[test]
fn showcase_behaves_as_designed() {
    let m = generated(MapKind::Showcase);
    let baked = bake_all(&m);
    let marks = landmarks(&m.spec);
    let at = |name: &str| marks.iter().find(|l| l.name == name).unwrap();
    let layer = |name: &str| baked.nav.layers.iter().find(|l| l.name == name).unwrap();
    let (centre, east, island) = (at("centre"), at("east"), at("island"));
    let id = |l: &str, mark: &navstudio::map::generate::Landmark| {
        island_near(layer(l), mark.x, mark.y, mark.radius_cells.max(3))
    };

    // The canyon is the only land route east: open for land, closed for large.
    assert_ne!(id("land", centre), 0);
    assert_eq!(
        id("land", centre),
        id("land", east),
        "land must reach the east through the canyon"
    );
    assert_ne!(id("large", centre), 0);
    assert_ne!(id("large", east), 0);
    assert_ne!(
        id("large", centre),
        id("large", east),
        "large units must not fit through the canyon"
    );
    // The lake island: its own island for land, joined to the mainland for hover.
    assert_ne!(id("land", island), 0);
    assert_ne!(id("land", island), id("land", centre));
    assert_eq!(id("hover", island), id("hover", centre));
    // Every type has walls (cliffs) and costed cells (hills).
    for l in &baked.cost_layers {
        assert!(l.final_cost.contains(&WALL));
        assert!(l.final_cost.iter().any(|&c| c > 1 && c < WALL));
    }
}

/// Random paint dabs and stamp placements, each followed by an incremental rebake of its
/// rectangle, end equal to a fresh full bake.
#[test]
fn incremental_rebake_equals_full_bake() {
    let mut m = generated(MapKind::Small);
    let (w, h) = (m.heightmap.width, m.heightmap.height);
    let mut baked = bake_all(&m);
    let mut rng = Rng::new(7);
    for step in 0..12 {
        let dirty = if step % 3 == 2 {
            let (x, y) = (rng.below(w) as i32 - 3, rng.below(h) as i32 - 3);
            let ids = ["wall_block_3x3", "factory_6x4", "bridge_3x8", "wall_1x1"];
            let id = ids[rng.below(4) as usize];
            let rotation = rng.below(4) as u8;
            m.doc.stamps.push(StampPlacement {
                stamp: id.to_owned(),
                x,
                y,
                rotation,
            });
            let fp = bake::place_footprints(&m.doc, &m.stamps)
                .unwrap()
                .pop()
                .unwrap();
            CellRect {
                x0: x.max(0) as u32,
                y0: y.max(0) as u32,
                x1: (x + fp.width as i32).clamp(0, w as i32) as u32,
                y1: (y + fp.height as i32).clamp(0, h as i32) as u32,
            }
        } else {
            if m.doc.paint.is_empty() {
                m.doc
                    .paint
                    .push(PaintLayer::new(PaintTarget::All, "t.png", w, h));
            }
            let layer = &mut m.doc.paint[0];
            let (cx, cy, r) = (rng.below(w), rng.below(h), 1 + rng.below(4));
            let cell = match rng.below(4) {
                0 => PaintCell {
                    delta: 30,
                    force: PaintForce::None,
                },
                1 => PaintCell {
                    delta: -20,
                    force: PaintForce::None,
                },
                2 => PaintCell {
                    delta: 0,
                    force: PaintForce::Wall,
                },
                _ => PaintCell {
                    delta: 0,
                    force: PaintForce::Clear,
                },
            };
            for y in cy.saturating_sub(r)..(cy + r + 1).min(h) {
                for x in cx.saturating_sub(r)..(cx + r + 1).min(w) {
                    layer.set(w, x, y, cell);
                }
            }
            CellRect {
                x0: cx.saturating_sub(r),
                y0: cy.saturating_sub(r),
                x1: (cx + r + 1).min(w),
                y1: (cy + r + 1).min(h),
            }
        };
        bake::rebake_rect(
            &m.doc,
            &m.heightmap,
            &m.stamps,
            &mut baked,
            dirty,
            &mut BakeContext::default(),
        )
        .unwrap();
        let full = bake_all(&m);
        assert!(
            baked.cost_layers == full.cost_layers,
            "cost layers differ after step {step}"
        );
        for (a, b) in baked.nav.layers.iter().zip(&full.nav.layers) {
            assert!(
                a.cost == b.cost,
                "{}: cost field differs after step {step}",
                a.name
            );
            assert!(
                a.windows == b.windows,
                "{}: windows differ after step {step}",
                a.name
            );
            assert!(
                a.islands == b.islands,
                "{}: islands differ after step {step}",
                a.name
            );
            assert!(
                a.graph == b.graph,
                "{}: graph differs after step {step}",
                a.name
            );
            assert!(
                canonical_flows(&a.cost, &a.nodes, &a.flows) == b.flows,
                "{}: flows differ after step {step}",
                a.name
            );
        }
        let mut canon = baked.clone();
        for l in &mut std::sync::Arc::make_mut(&mut canon.nav).layers {
            l.flows = canonical_flows(&l.cost, &l.nodes, &l.flows);
        }
        assert!(canon == full);
        assert_eq!(
            package::to_bytes(&baked.nav, &PackageMeta::default()),
            package::to_bytes(&full.nav, &PackageMeta::default()),
            "the incremental and the full bake write the same package"
        );
    }
}

#[test]
fn bad_documents_give_clear_errors_not_panics() {
    let base = generated(MapKind::Small);
    let run = |doc: &navstudio::map::MapDocument| {
        bake::bake(
            doc,
            &base.heightmap,
            &base.stamps,
            &BakeOptions::default(),
            &mut BakeContext::default(),
        )
    };
    let mut doc = base.doc.clone();
    doc.movement_types[0].slope_cost = vec![(10.0, 1.0), (5.0, 3.0)];
    assert!(
        matches!(run(&doc), Err(BakeError::Document(_))),
        "non-monotonic curve"
    );
    let mut doc = base.doc.clone();
    doc.movement_types[0].slope_cost.clear();
    assert!(
        matches!(run(&doc), Err(BakeError::Document(_))),
        "empty curve"
    );
    for size in [0_u16, 256] {
        let mut doc = base.doc.clone();
        doc.sector_size = size;
        assert!(
            matches!(run(&doc), Err(BakeError::Document(_))),
            "sector size {size}"
        );
    }
    let mut doc = base.doc.clone();
    doc.stamps.push(StampPlacement {
        stamp: "no_such_stamp".into(),
        x: 1,
        y: 1,
        rotation: 0,
    });
    let err = run(&doc).unwrap_err();
    assert!(err.to_string().contains("no_such_stamp"), "{err}");
    let opts = BakeOptions {
        types: Some(vec!["tank".into()]),
        ..BakeOptions::default()
    };
    let err = bake::bake(
        &base.doc,
        &base.heightmap,
        &base.stamps,
        &opts,
        &mut BakeContext::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("land"),
        "lists the known types: {err}"
    );
}

/// A buffer wider than the map walls every cell in: a documented outcome (all walls, a
/// warning), not a panic.
#[test]
fn buffer_larger_than_map_gives_all_walls_and_a_warning() {
    let mut m = generated(MapKind::Small);
    m.doc.movement_types.truncate(1);
    m.doc.movement_types[0].wall_buffer_m = 10_000.0;
    let mut ctx = BakeContext::default();
    let baked = bake::bake(
        &m.doc,
        &m.heightmap,
        &m.stamps,
        &BakeOptions::default(),
        &mut ctx,
    )
    .unwrap();
    assert!(baked.cost_layers[0].final_cost.iter().all(|&c| c == WALL));
    assert_eq!(baked.nav.layers[0].islands.count, 0);
    assert!(baked.nav.layers[0].windows.is_empty());
    assert!(
        ctx.warnings
            .iter()
            .any(|w| w.contains("no cell is passable")),
        "{:?}",
        ctx.warnings
    );
}

#[test]
fn cancelled_bake_stops_with_cancelled() {
    let m = generated(MapKind::Small);
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut ctx = BakeContext::new(Box::new(|_, _| {}), cancel);
    let r = bake::bake(
        &m.doc,
        &m.heightmap,
        &m.stamps,
        &BakeOptions::default(),
        &mut ctx,
    );
    assert!(matches!(r, Err(BakeError::Cancelled)));
}

/// `navstudio bake HEIGHTMAP` bakes the default document `navstudio open` would make.
#[test]
fn cli_bakes_a_heightmap_directly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.navpkg");
    let heightmap = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/small.png");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .arg("bake")
        .arg(&heightmap)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let pkg = navstudio::package::read(&out).unwrap();
    let expected = navstudio::map::new_map_from_heightmap(&heightmap).unwrap();
    assert_eq!((pkg.manifest.width, pkg.manifest.height), (96, 96));
    assert_eq!(pkg.nav.layers.len(), expected.document.movement_types.len());
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .arg("bake")
        .arg(dir.path().join("missing.png"))
        .output()
        .unwrap();
    assert!(!missing.status.success());
}

/// A bake for a package only (`navstudio bake`) drops the intermediate grids and gives the
/// same navigation data; the package writer then uses the fresh bake's flow tiles as they
/// are (they are already canonical) and writes the same bytes.
#[test]
fn a_nav_only_bake_gives_the_same_nav_data_without_the_grids() {
    use navstudio::nav::permutations::canonical_flows_borrowed;
    use std::borrow::Cow;
    let m = generated(MapKind::Small);
    let full = bake_all(&m);
    let nav_only = bake::bake(
        &m.doc,
        &m.heightmap,
        &m.stamps,
        &BakeOptions {
            nav_only: true,
            ..BakeOptions::default()
        },
        &mut BakeContext::default(),
    )
    .unwrap();
    assert!(nav_only.nav == full.nav);
    assert!(nav_only.cost_layers.is_empty() && nav_only.slope_deg.is_empty());
    assert_eq!(full.cost_layers.len(), full.nav.layers.len());
    for l in &full.nav.layers {
        let borrowed = canonical_flows_borrowed(&l.cost, &l.nodes, &l.flows);
        assert!(matches!(borrowed, Cow::Borrowed(_)), "{}: copied", l.name);
        assert!(*borrowed == canonical_flows(&l.cost, &l.nodes, &l.flows));
    }
    let meta = PackageMeta::default();
    assert_eq!(
        package::to_bytes(&nav_only.nav, &meta),
        package::to_bytes(&full.nav, &meta)
    );
}
