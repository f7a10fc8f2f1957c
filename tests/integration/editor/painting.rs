//! Painting: a brush stroke re-bakes and undoes, panel edits re-bake, the Inspect tool says
//! why a painted cell costs what it does, and paint made during a full bake is kept.

use super::*;

#[test]
fn paint_stroke_rebakes_and_undo_restores() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    assert_eq!(harness.state().state.map_size(), (W, H));
    assert_eq!(
        land_cost(&harness, 10, 24),
        1,
        "flat ground costs 1 before painting"
    );

    harness.get_by_label("Paint").click();
    harness.step();
    assert_eq!(
        harness.state().tools.active(),
        navstudio::app::tools::Tool::Paint
    );

    // One fast stroke across the flat band: three pointer samples 5 cells apart.
    let points = [(4.5, 24.5), (9.5, 24.5), (14.5, 24.5)];
    let start = screen_of(&harness, points[0].0, points[0].1);
    harness.hover_at(start);
    harness.step();
    harness.drag_at(start);
    harness.step();
    for &(x, y) in &points[1..] {
        harness.hover_at(screen_of(&harness, x, y));
        harness.step();
    }
    harness.drop_at(screen_of(&harness, 14.5, 24.5));
    harness.step();

    {
        let doc = &harness.state().state.map.as_ref().unwrap().document;
        assert_eq!(doc.paint.len(), 1, "the stroke created one paint layer");
        let layer = &doc.paint[0];
        assert_eq!(layer.target, PaintTarget::Type("land".to_owned()));
        // Every cell along the line got the full default strength (no gaps between samples).
        for x in 4..=14 {
            let cell = layer.cells[(24 * W + x) as usize];
            assert_eq!(cell.delta, 40, "cell ({x}, 24)");
            assert_eq!(cell.force, PaintForce::None);
        }
        // Far from the stroke nothing changed.
        assert_eq!(layer.cells[(5 * W + 50) as usize].delta, 0);
    }
    assert_eq!(
        harness.state().state.history.position(),
        1,
        "one stroke = one undo step"
    );
    assert!(harness.state().state.is_modified());

    wait_baked(&mut harness);
    assert_eq!(
        land_cost(&harness, 10, 24),
        41,
        "baked cost = terrain 1 + painted 40"
    );
    assert_eq!(
        harness.state().state.baked.as_ref().unwrap().types[1].final_cost[(24 * W + 10) as usize],
        1,
        "the stroke targeted land only"
    );

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.step();
    assert!(
        harness
            .state()
            .state
            .map
            .as_ref()
            .unwrap()
            .document
            .paint
            .is_empty(),
        "undo removes the layer the stroke created"
    );
    wait_baked(&mut harness);
    assert_eq!(
        land_cost(&harness, 10, 24),
        1,
        "undo restores the baked cost"
    );
    assert!(
        harness.state().state.is_modified(),
        "a map never saved stays unsaved after undo"
    );

    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.step();
    wait_baked(&mut harness);
    assert_eq!(
        land_cost(&harness, 10, 24),
        41,
        "redo re-applies the stroke"
    );
}

#[test]
fn max_slope_edit_in_panel_changes_wall_count_after_rebake() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    let walls = |h: &Harness<'_, App>| h.state().state.baked.as_ref().unwrap().types[0].wall_count;
    let before = walls(&harness);
    assert_eq!(before, expected_walls(35.0));
    assert!(before > 0);

    harness.get_by_label("Max slope").set_value_accesskit(45.0);
    harness.step();
    harness.step();
    let doc = &harness.state().state.map.as_ref().unwrap().document;
    assert_eq!(doc.movement_types[0].max_slope_deg, 45.0);
    assert_eq!(
        harness.state().state.history.position(),
        1,
        "the edit is one undo step"
    );

    wait_baked(&mut harness);
    let after = walls(&harness);
    assert_eq!(after, expected_walls(45.0));
    assert!(
        after < before,
        "a higher max slope leaves fewer walls ({after} vs {before})"
    );

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.step();
    wait_baked(&mut harness);
    assert_eq!(walls(&harness), before, "undo restores the walls");
}

#[test]
fn hovering_a_painted_wall_says_why_per_movement_type() {
    use navstudio::app::tools::{BrushMode, Why, inspect_cell};
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Paint);
    harness.state_mut().tools.paint.brush.mode = BrushMode::ForceWall;
    harness.state_mut().tools.paint.brush.target = navstudio::app::tools::BrushTarget::AllTypes;
    drag_cells(&mut harness, (4.5, 10.5), (14.5, 10.5));
    wait_baked(&mut harness);

    // What the status bar shows, hovering the stroke's middle.
    let mid = screen_of(&harness, 9.5, 10.5);
    harness.hover_at(mid);
    harness.step();
    let hovered = harness.state().viewport().hover_cell.unwrap();
    let app = harness.state();
    let map = app.state.map.as_ref().unwrap();
    let info = inspect_cell(map, app.state.baked.as_ref(), hovered.0, hovered.1).unwrap();
    assert_eq!(info.why[0].summary(), "land: wall (paint wall)");
    // Below the stroke: the first land cell that is not a wall is a buffer wall for the
    // large unit and blurred ground for land (the rect rebake's patch, not the old bake).
    let app = harness.state();
    let map = app.state.map.as_ref().unwrap();
    let baked = app.state.baked.as_ref();
    let info = |y| inspect_cell(map, baked, 9, y).unwrap().why;
    let edge = (11..H)
        .find(|&y| info(y)[0].cost != 255)
        .expect("the stroke has a bottom edge");
    assert_eq!(info(edge - 1)[0].why, vec![Why::PaintWall]);
    let land = &info(edge)[0];
    assert_eq!(land.why, vec![Why::Slope(1), Why::Blur(land.cost - 1)]);
    let large = &info(edge)[2];
    assert_eq!(
        (large.name.as_str(), large.why.as_slice()),
        ("large", &[Why::Buffer][..])
    );
}

/// Paint made while a full bake runs is never lost: it stays in the document, and once the
/// bake finishes it is re-baked on top (the rect re-bake merges it), so the shown bake equals
/// a fresh full bake of the final document — an independent oracle that also catches a bake
/// request built from a stale copy of the document.
#[test]
fn paint_made_during_a_full_bake_is_kept_and_baked() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.ron");
    let g = navstudio::map::generate::generate(&navstudio::map::generate::GenerateSpec {
        kind: navstudio::map::generate::MapKind::Benchmark,
        width: 256,
        height: 256,
        seed: 3,
    });
    navstudio::map::generate::write_generated(&g, &path).unwrap();
    let mut harness = harness(App::new(Some(&path)).unwrap());
    wait_baked(&mut harness);
    pick_tool(&mut harness, navstudio::app::tools::Tool::Paint);
    harness.state_mut().tools.paint.brush.target = navstudio::app::tools::BrushTarget::AllTypes;

    let cost_of = |h: &Harness<'_, App>| -> Vec<Vec<u8>> {
        let baked = h.state().state.baked.as_ref().unwrap();
        baked.types.iter().map(|t| t.final_cost.clone()).collect()
    };
    let before = cost_of(&harness);
    let all_layer = |h: &Harness<'_, App>| {
        let doc = &h.state().state.map.as_ref().unwrap().document;
        let layer = doc.paint.iter().find(|l| l.target == PaintTarget::All);
        layer.unwrap().cells.clone()
    };
    let paint_before = all_layer(&harness);
    let mut centres = Vec::new();
    let mut dabs_during_bake = 0;
    let mut strokes = 0;
    for round in 0..3u32 {
        // A full bake (as after a movement-type edit), then strokes while it runs.
        harness.state_mut().state.pending_full_bake = true;
        harness.step();
        assert!(harness.state().bake_in_flight(), "the full bake started");
        let y = 40.5 + 60.0 * round as f32;
        let mut x = 20.5;
        while harness.state().bake_in_flight() && x < 230.0 {
            let p = screen_of(&harness, x, y);
            harness.hover_at(p);
            harness.step();
            harness.drag_at(p);
            harness.step();
            if harness.state().bake_in_flight() {
                dabs_during_bake += 1;
            }
            harness.drop_at(p);
            harness.step();
            strokes += 1;
            centres.push((x as u32, y as u32));
            x += 12.0;
        }
    }
    assert!(
        dabs_during_bake >= 3,
        "only {dabs_during_bake} dabs landed while a bake ran"
    );
    wait_baked(&mut harness);

    let app = harness.state();
    let map = app.state.map.as_ref().unwrap();
    assert_eq!(
        app.state.history.position(),
        strokes,
        "one undo step per stroke"
    );
    // The paint is in the document: every dab's centre got the brush's full strength (40).
    let paint_after = all_layer(&harness);
    for &(x, y) in &centres {
        let i = (y * 256 + x) as usize;
        let expected = (paint_before[i].delta + 40).min(254);
        assert_eq!(paint_after[i].delta, expected, "paint at ({x}, {y})");
    }
    // The shown bake is the final document's.
    let fresh = navstudio::app::backend::bake_full(
        &map.document,
        &map.heightmap,
        &Arc::new(AtomicBool::new(false)),
        Box::new(|_| {}),
    )
    .unwrap();
    let shown = cost_of(&harness);
    for (t, (a, b)) in shown.iter().zip(&fresh.types).enumerate() {
        assert!(a == &b.final_cost, "type {t}: the shown bake misses paint");
    }
    assert_ne!(shown, before, "the paint changed the costs");
}
