//! The showcase and small maps have every feature they promise: hills, cliffs, the plateau
//! and its ramp, the lake island, the canyon, the small map's gap.

use super::*;

/// Length of the run of passable cells in column `x` that contains row `cy`.
fn passable_run(passable: &[bool], width: usize, x: u32, cy: u32) -> u32 {
    let open = |y: u32| passable[y as usize * width + x as usize];
    if !open(cy) {
        return 0;
    }
    let up = (0..cy).rev().take_while(|&y| open(y)).count();
    let down = (cy + 1..)
        .take_while(|&y| (y as usize) < passable.len() / width && open(y))
        .count();
    (1 + up + down) as u32
}

fn check_showcase(seed: u64) {
    let spec = GenerateSpec {
        seed,
        ..GenerateSpec::new(MapKind::Showcase)
    };
    let map = generate(&spec);
    let t = Terrain::new(&map);
    let (w, h) = (t.width, t.height);
    let marks = landmarks(&spec);
    let (centre, plateau, ramp, island, canyon, east) = (
        mark(&marks, "centre"),
        mark(&marks, "plateau"),
        mark(&marks, "ramp"),
        mark(&marks, "island"),
        mark(&marks, "canyon"),
        mark(&marks, "east"),
    );
    let land = t.passable(&movement("land"));
    let hover = t.passable(&movement("hover"));
    let large_type = movement("large");
    let large = dilate_walls(
        &t.passable(&large_type),
        w,
        h,
        large_type.wall_buffer_m / map.document.cell_size_m,
    );

    // Hills and cliffs.
    let hills = t.share(|i| (3.0..=20.0).contains(&t.slope_deg[i]));
    let cliffs = t.share(|i| t.slope_deg[i] > 40.0);
    let water = t.share(|i| t.water[i]);
    assert!(
        hills >= 0.30,
        "seed {seed}: only {:.1} % hills",
        hills * 100.0
    );
    assert!(
        cliffs >= 0.01,
        "seed {seed}: only {:.2} % cliffs",
        cliffs * 100.0
    );
    assert!(
        water >= 0.02,
        "seed {seed}: only {:.2} % water",
        water * 100.0
    );

    // Plateau: reachable by land, but not with the ramp blocked; its top is flat.
    let from_centre = flood(&land, w, h, at(centre));
    assert!(
        from_centre[t.index(plateau.x, plateau.y)],
        "seed {seed}: plateau unreachable"
    );
    assert!(t.metres[t.index(plateau.x, plateau.y)] > t.metres[t.index(centre.x, centre.y)] + 10.0);
    let mut no_ramp = land.clone();
    block_disc(&mut no_ramp, w, at(ramp), i64::from(ramp.radius_cells));
    let without_ramp = flood(&no_ramp, w, h, at(centre));
    assert!(
        !without_ramp[t.index(plateau.x, plateau.y)],
        "seed {seed}: the plateau is reachable without the ramp"
    );
    let ramp_slope = t.slope_deg[t.index(ramp.x, ramp.y)];
    assert!(
        (5.0..20.0).contains(&ramp_slope),
        "seed {seed}: ramp slope {ramp_slope}"
    );

    // Island: dry and flat, hover reaches it, land does not.
    let i = t.index(island.x, island.y);
    assert!(
        !t.water[i] && t.slope_deg[i] < 3.0,
        "seed {seed}: island not dry and flat"
    );
    assert!(
        !from_centre[i],
        "seed {seed}: land units can walk to the island"
    );
    assert!(
        flood(&hover, w, h, at(centre))[i],
        "seed {seed}: hover cannot reach the island"
    );

    // Canyon: land passes, 2–3 cells wide between walls steeper than 40°; without the
    // canyon, land cannot reach the east; large units never can.
    assert!(
        from_centre[t.index(east.x, east.y)],
        "seed {seed}: east unreachable by land"
    );
    for x in canyon.x - 6..=canyon.x + 6 {
        let run = passable_run(&land, w, x, canyon.y);
        assert!(
            (2..=3).contains(&run),
            "seed {seed}: canyon {run} wide at column {x}"
        );
        let walls = (canyon.y - 8..=canyon.y + 8)
            .filter(|&y| t.slope_deg[t.index(x, y)] > 40.0)
            .count();
        assert!(
            walls >= 4,
            "seed {seed}: canyon walls not steep at column {x}"
        );
    }
    let mut no_canyon = land.clone();
    block_disc(&mut no_canyon, w, at(canyon), 3);
    assert!(
        !flood(&no_canyon, w, h, at(centre))[t.index(east.x, east.y)],
        "seed {seed}: a second land route leads east"
    );
    let large_from_centre = flood(&large, w, h, at(centre));
    assert!(
        !large_from_centre[t.index(east.x, east.y)],
        "seed {seed}: large units fit through the canyon"
    );
    assert!(
        large_from_centre[t.index(plateau.x, plateau.y)],
        "seed {seed}: large units cannot climb the ramp"
    );

    // Stamps stand on passable ground (the bridge spans water with dry ends).
    for s in &map.document.stamps {
        let (sw, sh) = stamp_size(&s.stamp);
        let (sw, sh) = if s.rotation % 2 == 1 {
            (sh, sw)
        } else {
            (sw, sh)
        };
        let cells: Vec<usize> = (0..sh)
            .flat_map(|dy| (0..sw).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| t.index(s.x as u32 + dx, s.y as u32 + dy))
            .collect();
        if s.stamp == "bridge_3x8" {
            assert!(
                cells.iter().any(|&c| t.water[c]),
                "seed {seed}: bridge over no water"
            );
            for y in [s.y as u32 - 1, s.y as u32 + sh] {
                assert!(
                    land[t.index(s.x as u32 + 1, y)],
                    "seed {seed}: bridge end not on land"
                );
            }
        } else {
            assert!(
                cells.iter().all(|&c| land[c]),
                "seed {seed}: {} at ({}, {}) is not on passable ground",
                s.stamp,
                s.x,
                s.y
            );
        }
    }

    // Paint: every kind of brush is used.
    let all = &map.document.paint[0].cells;
    assert!(all.iter().any(|c| c.force == PaintForce::Wall));
    assert!(all.iter().any(|c| c.force == PaintForce::Clear));
    assert!(all.iter().any(|c| c.delta < 0));
    let swamp = mark(&marks, "swamp");
    assert_eq!(all[t.index(swamp.x, swamp.y)].delta, 40);
    let large_layer = &map.document.paint[1];
    assert_eq!(large_layer.target, PaintTarget::Type("large".to_owned()));
    assert_eq!(large_layer.file, "showcase.paint.large.png");
    assert_eq!(
        large_layer.cells[t.index(swamp.x, swamp.y)].force,
        PaintForce::Wall
    );

    println!(
        "showcase seed {seed}: hills (3–20°) {:.1} %, cliffs (> 40°) {:.2} %, water {:.1} %, \
         land walls {:.1} %, hover walls {:.1} %, large walls (buffered) {:.1} %, \
         land-reachable from centre {:.1} %, {} stamps",
        hills * 100.0,
        cliffs * 100.0,
        water * 100.0,
        t.share(|i| !land[i]) * 100.0,
        t.share(|i| !hover[i]) * 100.0,
        t.share(|i| !large[i]) * 100.0,
        t.share(|i| from_centre[i]) * 100.0,
        map.document.stamps.len(),
    );
}

#[test]
fn showcase_has_every_feature() {
    for seed in [DEFAULT_SEED, 1, 0xDEAD_BEEF] {
        check_showcase(seed);
    }
    println!("{}", describe(&GenerateSpec::new(MapKind::Showcase)));
}

#[test]
fn small_map_gap_lets_land_through_but_not_large() {
    for seed in [DEFAULT_SEED, 5] {
        let spec = GenerateSpec {
            seed,
            ..GenerateSpec::new(MapKind::Small)
        };
        assert!(spec.width <= 128 && spec.height <= 128);
        let map = generate(&spec);
        let t = Terrain::new(&map);
        let (w, h) = (t.width, t.height);
        let marks = landmarks(&spec);
        let (west, east, gap, pond) = (
            mark(&marks, "west"),
            mark(&marks, "east"),
            mark(&marks, "gap"),
            mark(&marks, "pond"),
        );
        let land = t.passable(&movement("land"));
        let large_type = movement("large");
        let large = dilate_walls(&t.passable(&large_type), w, h, large_type.wall_buffer_m);
        assert!(flood(&land, w, h, at(west))[t.index(east.x, east.y)]);
        assert!(!flood(&large, w, h, at(west))[t.index(east.x, east.y)]);
        for x in gap.x - 2..=gap.x + 2 {
            assert_eq!(
                passable_run(&land, w, x, gap.y),
                2,
                "seed {seed}: column {x}"
            );
        }
        assert!(t.water[t.index(pond.x, pond.y)]);
        let hill = mark(&marks, "hill");
        assert!(t.metres[t.index(hill.x, hill.y)] > t.metres[t.index(west.x, west.y)] + 2.0);
        assert_eq!(map.document.stamps.len(), 1);
    }
}
