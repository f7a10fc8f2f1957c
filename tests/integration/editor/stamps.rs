//! The stamp tool: place, rotate, move and delete, each one undo step.

use std::path::Path;

use super::*;

#[test]
fn stamp_tool_places_rotates_moves_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    for (x, y) in [(9, 23), (10, 24), (11, 25), (8, 24), (5, 24)] {
        assert_eq!(land_cost(&harness, x, y), 1, "flat ground at ({x}, {y})");
    }

    harness.get_by_label("Stamp").click();
    settle(&mut harness);
    assert_eq!(
        harness.state().tools.active(),
        navstudio::app::tools::Tool::Stamp
    );
    harness.get_by_label("wall_block_3x3").click();
    settle(&mut harness);

    // A click on cell (10, 24) places the 3×3 block centred there: cells 9..=11 × 23..=25.
    click_cell(&mut harness, 10.5, 24.5);
    let block = ("wall_block_3x3".to_owned(), 9, 23, 0);
    assert_eq!(stamps(&harness), vec![block.clone()]);
    assert_eq!(harness.state().state.history.position(), 1, "one undo step");
    wait_baked(&mut harness);
    for y in 23..=25 {
        for x in 9..=11 {
            assert_eq!(land_cost(&harness, x, y), 255, "stamp wall at ({x}, {y})");
        }
    }
    // The blur around the new walls reaches the next cell (the patch covers the reach);
    // four cells away is beyond land's 3 m blur.
    assert!(land_cost(&harness, 8, 24) > 1, "blur beside the block");
    assert_eq!(land_cost(&harness, 12, 26), land_cost(&harness, 8, 22));
    assert_eq!(land_cost(&harness, 5, 24), 1);

    // R turns the preview a quarter clockwise; the factory (6×4) then stands 4×6, centred
    // on (10, 8): corner (8, 5). Turned clockwise its gate (bottom) faces west.
    harness.get_by_label("factory_6x4").click();
    settle(&mut harness);
    harness.key_press(Key::R);
    settle(&mut harness);
    assert_eq!(harness.state().state.stamp.rotation, 1);
    click_cell(&mut harness, 10.5, 8.5);
    let factory = ("factory_6x4".to_owned(), 8, 5, 1);
    assert_eq!(stamps(&harness), vec![block.clone(), factory.clone()]);
    wait_baked(&mut harness);
    assert_eq!(land_cost(&harness, 8, 5), 255, "north-west corner wall");
    assert_eq!(
        land_cost(&harness, 8, 7),
        1,
        "the gate, now on the west side"
    );
    assert_eq!(land_cost(&harness, 9, 7), 1, "the floor");
    assert_eq!(
        land_cost(&harness, 11, 7),
        255,
        "the former top wall, now east"
    );
    assert_eq!(
        land_cost(&harness, 8, 10),
        255,
        "row 10 is inside only when turned"
    );

    // Click the factory: selected. R turns it about its centre, one command.
    click_cell(&mut harness, 9.5, 7.5);
    assert_eq!(harness.state().state.stamp.selected, Some(1));
    harness.key_press(Key::R);
    settle(&mut harness);
    assert_eq!(
        stamps(&harness),
        vec![block.clone(), ("factory_6x4".to_owned(), 7, 6, 2)]
    );
    assert_eq!(harness.state().state.history.position(), 3);
    assert_eq!(
        harness.state().state.stamp.rotation,
        1,
        "the preview keeps its rotation"
    );

    // Dragging the factory moves it by whole cells: one command on release.
    let from = screen_of(&harness, 9.5, 7.5);
    harness.hover_at(from);
    harness.step();
    harness.drag_at(from);
    harness.step();
    for (x, y) in [(11.5, 9.5), (13.5, 11.5), (15.5, 12.5)] {
        harness.hover_at(screen_of(&harness, x, y));
        harness.step();
    }
    assert_eq!(
        stamps(&harness)[1],
        ("factory_6x4".to_owned(), 7, 6, 2),
        "the document changes only on release"
    );
    harness.drop_at(screen_of(&harness, 15.5, 12.5));
    settle(&mut harness);
    let moved = ("factory_6x4".to_owned(), 13, 11, 2);
    assert_eq!(stamps(&harness), vec![block.clone(), moved.clone()]);
    assert_eq!(harness.state().state.history.position(), 4);
    wait_baked(&mut harness);
    assert_eq!(land_cost(&harness, 8, 10), 1, "the factory left (8, 10)");
    assert_eq!(land_cost(&harness, 13, 11), 255, "and stands at (13, 11)");

    // Select the block and delete it: the costs come back.
    click_cell(&mut harness, 11.5, 25.5);
    assert_eq!(harness.state().state.stamp.selected, Some(0));
    harness.key_press(Key::Delete);
    settle(&mut harness);
    assert_eq!(stamps(&harness), vec![moved.clone()]);
    assert_eq!(harness.state().state.stamp.selected, None);
    wait_baked(&mut harness);
    for (x, y) in [(9, 23), (10, 24), (11, 25), (8, 24)] {
        assert_eq!(land_cost(&harness, x, y), 1, "restored at ({x}, {y})");
    }

    // Undo brings the block back, at its place in the order.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut harness);
    assert_eq!(stamps(&harness), vec![block, moved]);
    wait_baked(&mut harness);
    assert_eq!(land_cost(&harness, 10, 24), 255);
}

#[test]
fn at_fit_zoom_a_stamp_is_drawn_and_picked_at_a_readable_size() {
    use navstudio::app::tools::stamp::{MIN_STAMP_PX, marker_rect};
    let showcase = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&showcase)).unwrap());
    wait_baked(&mut harness);
    pick_tool(&mut harness, navstudio::app::tools::Tool::Stamp);
    // The showcase's first tower (2 × 2 cells at 153, 165) covers a few pixels at fit zoom.
    let (index, x, y) = harness
        .state()
        .state
        .map
        .as_ref()
        .unwrap()
        .document
        .stamps
        .iter()
        .enumerate()
        .find(|(_, p)| p.stamp == "tower_2x2")
        .map(|(i, p)| (i, p.x as f32, p.y as f32))
        .unwrap();
    let footprint = egui::Rect::from_min_max(
        screen_of(&harness, x, y),
        screen_of(&harness, x + 2.0, y + 2.0),
    );
    assert!(
        footprint.width() < 8.0,
        "the footprint is tiny at fit zoom ({footprint:?})"
    );
    let marker = marker_rect(footprint);
    assert_eq!(marker.center(), footprint.center());
    assert!(marker.width() >= MIN_STAMP_PX && marker.height() >= MIN_STAMP_PX);
    // A click inside the marker but off the footprint selects the stamp, placing nothing.
    let count = stamps(&harness).len();
    let p = footprint.center() + egui::vec2(0.5 * MIN_STAMP_PX - 1.5, 0.0);
    assert!(!footprint.contains(p) && marker.contains(p));
    harness.hover_at(p);
    harness.step();
    harness.drag_at(p);
    harness.drop_at(p);
    settle(&mut harness);
    assert_eq!(harness.state().state.stamp.selected, Some(index));
    assert_eq!(stamps(&harness).len(), count, "nothing was placed");
}
