//! Editor interaction tests with egui_kittest: headless, no display, no GPU.
//!
//! A small heightmap with three known slope bands is written to a temp dir and opened; the
//! tests then drive the real UI (tool buttons, pointer drags in the viewport, keyboard
//! shortcuts, the Movement types panel) and check the document and the background bake
//! against values computed by hand from the heightmap.

use std::path::{Path, PathBuf};

use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use navstudio::app::App;
use navstudio::map::{PaintForce, PaintTarget};

use crate::gui_common::{drag_cells, harness, new_map_app, screen_of, wait_baked};

const W: u32 = 56;
const H: u32 = 48;
/// `new_map_from_heightmap` gives new maps this height scale; the PNG is encoded for it.
const HEIGHT_SCALE_M: f64 = 100.0;

/// Terrain in metres: flat (x < 20), a 0.4 m/cell ramp (21.8°) for 20 ≤ x < 40, and a
/// 0.9 m/cell ramp (42.0°) beyond. With 1 m cells the "land" type (max slope 35°) has walls
/// exactly on the steep band.
fn height_m(x: u32) -> f64 {
    let x = f64::from(x);
    5.0 + 0.4 * (x.clamp(20.0, 40.0) - 20.0) + 0.9 * (x.max(40.0) - 40.0)
}

fn write_heightmap(dir: &Path) -> PathBuf {
    let mut img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::new(W, H);
    for (x, _, p) in img.enumerate_pixels_mut() {
        p.0[0] = (height_m(x) / HEIGHT_SCALE_M * 65535.0).round() as u16;
    }
    let path = dir.join("bands.png");
    img.save(&path).unwrap();
    path
}

/// Cells steeper than `max_slope_deg` by a central-difference oracle on `height_m`.
fn expected_walls(max_slope_deg: f64) -> usize {
    let slope = |x: u32| {
        let (x0, x1) = (x.saturating_sub(1), (x + 1).min(W - 1));
        ((height_m(x1) - height_m(x0)) / f64::from(x1 - x0))
            .atan()
            .to_degrees()
    };
    (0..W).filter(|&x| slope(x) > max_slope_deg).count() * H as usize
}

fn land_cost(harness: &Harness<'_, App>, x: u32, y: u32) -> u8 {
    harness.state().state.baked.as_ref().unwrap().types[0].final_cost[(y * W + x) as usize]
}

/// The banded test map opened in the editor and baked; keep the directory alive.
fn baked_bands() -> (tempfile::TempDir, Harness<'static, App>) {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    (dir, harness)
}

/// Clicks a tool's button by its label and checks it became the active tool.
fn pick_tool(harness: &mut Harness<'_, App>, tool: navstudio::app::tools::Tool) {
    harness.get_by_label(tool.label()).click();
    harness.step();
    assert_eq!(harness.state().state.tool, tool);
}

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
        harness.state().state.tool,
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
    assert!(!harness.state().state.is_modified());

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
fn shortcuts_switch_tools_and_widgets_are_accessible() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    harness.key_press(Key::B);
    harness.step();
    assert_eq!(
        harness.state().state.tool,
        navstudio::app::tools::Tool::Paint
    );
    harness.key_press(Key::I);
    harness.step();
    assert_eq!(
        harness.state().state.tool,
        navstudio::app::tools::Tool::Inspect
    );
    // `run` also checks that every widget has an accessible name.
    harness.run();
    // Hovering the steep band reports a wall for land in the status bar.
    harness.hover_at(screen_of(&harness, 50.5, 10.5));
    harness.run();
    assert!(harness.query_by_label_contains("land: wall").is_some());
    assert!(harness.query_by_label_contains("cell   50, 10").is_some());
}

#[test]
fn goal_tool_previews_the_run_time_path() {
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);

    // A click on the steep band (a wall for land) explains itself and shows nothing.
    harness.drag_at(screen_of(&harness, 50.5, 10.5));
    harness.drop_at(screen_of(&harness, 50.5, 10.5));
    settle_goal(&mut harness);
    let app = harness.state();
    assert_eq!(app.state.goal.goal, Some((50, 10)));
    assert!(app.goal_preview.result.is_none());
    assert!(
        app.goal_preview
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("wall for land")),
        "{:?}",
        app.goal_preview.problem
    );

    // A goal on the flat ground: the heat map and line of sight come from the nav data.
    harness.drag_at(screen_of(&harness, 5.5, 24.5));
    harness.drop_at(screen_of(&harness, 5.5, 24.5));
    settle_goal(&mut harness);
    let app = harness.state();
    assert_eq!(app.state.goal.goal, Some((5, 24)));
    let r = app.goal_preview.result.as_ref().expect("a preview");
    let at = |x: u32, y: u32| (y * W + x) as usize;
    assert_eq!(r.heat[at(5, 24)], 0, "the goal costs nothing");
    assert_eq!(r.heat[at(6, 24)], 1, "a flat neighbour costs one step");
    assert!(r.los[at(8, 24)], "flat ground beside the goal sees it");
    assert_eq!(
        r.heat[at(50, 10)],
        navstudio::nav::integrate::UNREACHED,
        "walls are never reached"
    );
    // In line of sight the run-time flow points straight at the goal.
    let (dx, dy) = app.goal_preview.flow_at((9.5, 24.5)).unwrap();
    assert!(dx < -0.99 && dy.abs() < 0.05, "({dx}, {dy})");

    // A source on the ramp: its traced route arrives (straight line once in LOS).
    harness.state_mut().state.goal.source = Some((30, 24));
    settle_goal(&mut harness);
    let r = harness.state().goal_preview.result.as_ref().unwrap();
    let traced = r.traced.as_ref().expect("the source's path is traced");
    assert_eq!(traced.cells[0], (30, 24));
    assert!(
        (25.0..26.0).contains(&traced.length),
        "25 cells straight west, got {}",
        traced.length
    );

    // Ctrl+click adds a goal nearer the source: heat map and route go to the nearest goal.
    let second = screen_of(&harness, 35.5, 24.5);
    harness.event(egui::Event::ModifiersChanged(Modifiers::CTRL));
    harness.drag_at(second);
    harness.drop_at(second);
    harness.step();
    harness.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    settle_goal(&mut harness);
    let app = harness.state();
    assert_eq!(app.state.goal.goals(), vec![(5, 24), (35, 24)]);
    let r = app.goal_preview.result.as_ref().expect("a preview");
    assert_eq!(r.heat[at(35, 24)], 0, "the second goal costs nothing");
    assert_eq!(r.heat[at(5, 24)], 0);
    let traced = r.traced.as_ref().expect("the source's path is traced");
    assert_eq!(traced.goal, (35, 24), "the source goes to the nearer goal");
    assert!(
        (4.9..6.5).contains(&traced.length),
        "5 cells east, got {}",
        traced.length
    );

    // Esc clears the goals.
    harness.key_press(Key::Escape);
    settle_goal(&mut harness);
    assert_eq!(harness.state().state.goal.goal, None);
    assert!(harness.state().state.goal.more_goals.is_empty());
}

fn stamps(harness: &Harness<'_, App>) -> Vec<(String, i32, i32, u8)> {
    harness
        .state()
        .state
        .map
        .as_ref()
        .unwrap()
        .document
        .stamps
        .iter()
        .map(|p| (p.stamp.clone(), p.x, p.y, p.rotation))
        .collect()
}

/// Runs frames until the UI is idle, or a few while a background rebake keeps it
/// repainting (`Harness::run` would call that a failure).
fn settle(harness: &mut Harness<'_, App>) {
    if harness.try_run().is_err() {
        harness.run_steps(2);
    }
}

/// Settles, then steps until the goal thread has delivered the preview of the current pick.
fn settle_goal(harness: &mut Harness<'_, App>) {
    settle(harness);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while harness.state().goal_preview.is_pending() {
        assert!(
            std::time::Instant::now() < deadline,
            "no goal preview in 30 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
        harness.step();
    }
    harness.step();
}

fn click_cell(harness: &mut Harness<'_, App>, x: f32, y: f32) {
    let p = screen_of(harness, x, y);
    harness.hover_at(p);
    harness.step();
    harness.drag_at(p);
    harness.drop_at(p);
    settle(harness);
}

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
        harness.state().state.tool,
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

fn right_click(harness: &mut Harness<'_, App>, pos: Pos2) {
    harness.event(egui::Event::PointerMoved(pos));
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        harness.step();
    }
}

#[test]
fn crowd_spawns_selects_orders_and_arrives_without_entering_walls() {
    use navstudio::crowd::AgentState;
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Spawn);
    harness.state_mut().crowd.spawn_count = 20;
    harness.state_mut().crowd.playing = false;

    // Drag a spawn rectangle over flat ground (cells 3..12 × 18..30, 1 m cells).
    drag_cells(&mut harness, (3.0, 18.0), (12.0, 30.0));
    let agents = harness.state().crowd.sim().agents();
    assert_eq!(agents.len(), 20, "{:?}", harness.state().crowd.message);
    for p in &agents.pos_world {
        assert!(
            (3.0..=12.0).contains(&p.x) && (18.0..=30.0).contains(&p.y),
            "{p:?}"
        );
    }

    // Command tool: a box over the left half selects some, not all.
    harness.get_by_label("Command").click();
    harness.step();
    drag_cells(&mut harness, (2.0, 17.0), (7.5, 31.0));
    let selected = harness.state().crowd.selection.len();
    let left = harness
        .state()
        .crowd
        .sim()
        .agents()
        .pos_world
        .iter()
        .filter(|p| p.x <= 7.5 + 0.4)
        .count();
    assert!(selected > 0 && selected < 20, "{selected} selected");
    assert_eq!(
        selected, left,
        "the box selects exactly the agents it touches"
    );
    harness.key_press(Key::Escape);
    harness.step();
    assert!(harness.state().crowd.selection.is_empty());

    // Right-click on the ramp orders everyone there; 60 s at 60 Hz later they have arrived,
    // and no agent was ever inside a wall for land (the steep band east of x = 40).
    let goal = screen_of(&harness, 30.5, 24.5);
    right_click(&mut harness, goal);
    let agents = harness.state().crowd.sim().agents();
    assert!(
        agents.state.iter().all(|s| *s == AgentState::Moving),
        "{:?}",
        harness.state().crowd.message
    );
    let costs = harness.state().state.baked.as_ref().unwrap().types[0]
        .final_cost
        .clone();
    for _ in 0..3600 {
        harness.state_mut().crowd.step_once();
        for p in &harness.state().crowd.sim().agents().pos_world {
            let (x, y) = (p.x as u32, p.y as u32);
            assert_ne!(
                costs[(y * W + x) as usize],
                255,
                "an agent entered a wall at {p:?}"
            );
        }
    }
    let agents = harness.state().crowd.sim().agents();
    let arrived = agents
        .state
        .iter()
        .filter(|s| **s == AgentState::Arrived)
        .count();
    assert!(arrived >= 19, "only {arrived} of 20 arrived");
    for p in &agents.pos_world {
        let d = (p.x - 30.5).hypot(p.y - 24.5);
        assert!(d < 6.0, "an arrived agent is {d:.1} m from the goal");
    }
    // The plots have data.
    assert!(harness.state().crowd.history.len() > 100);
}

#[test]
fn exported_package_reads_back_as_the_shown_bake() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    let out = dir.path().join("bands.navpkg");
    harness.state_mut().export_package(&out);
    let pkg = navstudio::package::read(&out).unwrap();
    let app = harness.state();
    let nav = app.state.nav.as_ref().unwrap();
    assert_eq!(pkg.nav.layers.len(), 3);
    for (read, shown) in pkg.nav.layers.iter().zip(&nav.layers) {
        assert_eq!(read.name, shown.name);
        assert!(read.cost == shown.cost, "{}: costs", read.name);
        assert!(read.islands == shown.islands, "{}: islands", read.name);
    }
    assert_eq!(pkg.manifest.map_name, "bands");
}

#[test]
fn autosave_survives_a_lost_session_and_restores_unsaved_paint() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let ron = dir.path().join("bands.ron");
    let new = navstudio::app::backend::new_map_from_heightmap(&png).unwrap();
    navstudio::app::backend::save_map(&ron, &new.document, &new.heightmap).unwrap();

    // Session 1: paint a stroke, autosave, then "crash" (drop without saving).
    {
        let mut harness = harness(App::new(Some(&ron)).unwrap());
        wait_baked(&mut harness);
        assert!(harness.state().recovery_offer().is_none());
        harness.get_by_label("Paint").click();
        harness.step();
        drag_cells(&mut harness, (4.5, 24.5), (14.5, 24.5));
        assert!(harness.state().state.is_modified());
        harness.state_mut().autosave_now();
        assert!(navstudio::app::autosave::recovery_path(&ron).exists());
    }
    // The map on disk is still the unpainted one.
    let on_disk = navstudio::map::load_map(&ron).unwrap();
    assert!(on_disk.document.paint.is_empty());

    // Session 2: the recovery copy is offered and restores the stroke, unsaved.
    let mut harness = harness(App::new(Some(&ron)).unwrap());
    assert!(harness.state().recovery_offer().is_some());
    harness.state_mut().restore_recovery();
    let app = harness.state();
    let doc = &app.state.map.as_ref().unwrap().document;
    assert_eq!(doc.paint.len(), 1);
    for x in 4..=14 {
        assert_eq!(
            doc.paint[0].cells[(24 * W + x) as usize].delta,
            40,
            "cell ({x}, 24)"
        );
    }
    assert!(
        app.state.is_modified(),
        "restored changes still need a save"
    );
    assert_eq!(
        app.state.map.as_ref().unwrap().path.as_deref(),
        Some(ron.as_path())
    );

    // Saving writes the map and removes the recovery copy.
    harness
        .state_mut()
        .request(navstudio::app::FileAction::Save);
    assert!(!harness.state().state.is_modified());
    assert!(!navstudio::app::autosave::recovery_path(&ron).exists());
    let saved = navstudio::map::load_map(&ron).unwrap();
    assert_eq!(saved.document.paint.len(), 1);
    drop(harness);
    let again = App::new(Some(&ron)).unwrap();
    assert!(again.recovery_offer().is_none(), "nothing left to recover");
}

/// Scrolls a widget into view and clicks it with the pointer.
fn click_label(harness: &mut Harness<'_, App>, label: &str) {
    harness.get_by_label(label).scroll_to_me();
    // Let the scroll animation finish so the button stays where it is clicked.
    for _ in 0..20 {
        harness.step();
    }
    // Hover first so the previous button's tooltip is gone before the press.
    harness.get_by_label(label).hover();
    harness.step();
    harness.get_by_label(label).click();
    harness.step();
}

#[test]
fn crowd_scenario_saves_beside_the_map_and_replays_the_same_trajectories() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let ron = dir.path().join("bands.ron");
    let new = navstudio::app::backend::new_map_from_heightmap(&png).unwrap();
    navstudio::app::backend::save_map(&ron, &new.document, &new.heightmap).unwrap();
    let mut harness = harness(App::new(Some(&ron)).unwrap());
    wait_baked(&mut harness);

    // Live: spawn 20 infantry, order them up the ramp, run 300 steps.
    pick_tool(&mut harness, navstudio::app::tools::Tool::Spawn);
    harness.state_mut().crowd.spawn_count = 20;
    harness.state_mut().crowd.playing = false;
    drag_cells(&mut harness, (3.0, 18.0), (12.0, 30.0));
    let spawned = harness.state().crowd.sim().agents().pos_world.clone();
    assert_eq!(spawned.len(), 20);
    let goal = screen_of(&harness, 30.5, 24.5);
    right_click(&mut harness, goal);
    let positions = |h: &Harness<'_, App>| h.state().crowd.sim().agents().pos_world.clone();
    let run = |h: &mut Harness<'_, App>| {
        for _ in 0..300 {
            h.state_mut().crowd.step_once();
        }
    };
    run(&mut harness);
    let live = positions(&harness);
    assert_ne!(live, spawned, "the order moved them");

    // Save it as "up the ramp": a sidecar file the headless command reads.
    harness.get_by_label("Scenario name").scroll_to_me();
    harness.step();
    harness.get_by_label("Scenario name").focus();
    harness.step();
    harness
        .get_by_label("Scenario name")
        .type_text("up the ramp");
    harness.step();
    click_label(&mut harness, "Save scenario");
    let file = dir.path().join("bands.up-the-ramp.scenario.ron");
    let saved = navstudio::crowd::Scenario::load(&file).unwrap();
    assert_eq!(saved.spawns.len(), 1);
    assert_eq!(saved.spawns[0].count, 20);
    assert_eq!(saved.orders.len(), 1);
    assert_eq!(saved.orders[0].at_step, 0);
    // The click went through the screen transform: equal up to float rounding.
    let goal_world = saved.orders[0].goal_world;
    assert!(
        (goal_world.x - 30.5).abs() < 1e-3 && (goal_world.y - 24.5).abs() < 1e-3,
        "{goal_world:?}"
    );

    // Reset, then Load: the same agents at the same places, the order pending at step 0,
    // and 300 steps later the very same trajectories.
    click_label(&mut harness, "Clear agents");
    assert!(harness.state().crowd.sim().agents().is_empty());
    assert_eq!(harness.state().scenario_panel.saved, ["up-the-ramp"]);
    click_label(&mut harness, "Load");
    assert_eq!(positions(&harness), spawned);
    assert_eq!(harness.state().crowd.scenario().orders, saved.orders);
    run(&mut harness);
    assert_eq!(positions(&harness), live, "the replay diverged");

    // Delete removes the file and the entry.
    click_label(&mut harness, "Delete file");
    assert!(
        !file.exists(),
        "{:?}",
        harness.state().scenario_panel.status
    );
    assert!(harness.state().scenario_panel.saved.is_empty());
}

#[test]
fn never_saved_map_is_autosaved_to_the_data_folder_and_offered_on_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let root = dir.path().join("data").join("recovery");
    let copy = navstudio::app::autosave::untitled_recovery_path(&root);

    // Session 1: a new map from a heightmap, never saved; paint, autosave, "crash".
    {
        let mut app = new_map_app(&png);
        app.set_recovery_root(root.clone());
        let mut harness = harness(app);
        wait_baked(&mut harness);
        assert!(harness.state().recovery_offer().is_none());
        assert!(harness.state().state.map.as_ref().unwrap().path.is_none());
        pick_tool(&mut harness, navstudio::app::tools::Tool::Paint);
        drag_cells(&mut harness, (4.5, 24.5), (14.5, 24.5));
        harness.state_mut().autosave_now();
        assert!(copy.exists(), "autosaved to {}", copy.display());
    }
    // Nothing was written beside the heightmap.
    assert!(!dir.path().join(".bands.recovery").exists());

    // Session 2: a plain start offers the copy; Restore opens it as a never-saved map.
    let mut app = App::new(None).unwrap();
    app.set_recovery_root(root.clone());
    assert!(app.recovery_is_untitled());
    let mut harness = harness(app);
    harness.step();
    harness.get_by_label("Restore").click();
    harness.step();
    let app = harness.state();
    let map = app.state.map.as_ref().unwrap();
    assert!(map.path.is_none(), "still never saved");
    assert!(app.state.is_modified());
    assert_eq!(map.document.paint.len(), 1);
    for x in 4..=14 {
        assert_eq!(map.document.paint[0].cells[(24 * W + x) as usize].delta, 40);
    }
    // The copy stays until the map is saved: a second crash would still find it.
    assert!(copy.exists());
    let ron = dir.path().join("rescued.ron");
    harness.state_mut().save_as(&ron);
    assert!(!harness.state().state.is_modified());
    assert!(!copy.exists(), "saving removes the recovery copy");
    let saved = navstudio::map::load_map(&ron).unwrap();
    assert_eq!(saved.document.paint[0].file, "rescued.paint0.png");
    drop(harness);

    let mut again = App::new(None).unwrap();
    again.set_recovery_root(root);
    assert!(again.recovery_offer().is_none(), "nothing left to recover");
}

#[test]
fn hovering_a_painted_wall_says_why_per_movement_type() {
    use navstudio::app::tools::{BrushMode, Why, inspect_cell};
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Paint);
    harness.state_mut().state.brush.mode = BrushMode::ForceWall;
    harness.state_mut().state.brush.target = navstudio::app::tools::BrushTarget::AllTypes;
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
    harness.state_mut().state.brush.target = navstudio::app::tools::BrushTarget::AllTypes;

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

#[test]
fn a_nav_package_opens_read_only_with_its_costs_and_a_working_goal_tool() {
    let (dir, mut baked) = baked_bands();
    let pkg = dir.path().join("bands.navpkg");
    baked.state_mut().export_package(&pkg);
    let original = baked.state();
    let land_walls = original.state.baked.as_ref().unwrap().types[0].wall_count;
    assert_eq!(land_walls, expected_walls(35.0), "oracle for the baked map");

    let mut harness = harness(App::new(Some(&pkg)).unwrap());
    harness.step();
    let app = harness.state();
    assert_eq!(app.error_message(), None);
    assert_eq!(app.state.read_only.as_deref(), Some(pkg.as_path()));
    assert!(app.state.title().contains("bands.navpkg (read-only)"));
    let shown = app.state.baked.as_ref().unwrap();
    let doc = &app.state.map.as_ref().unwrap().document;
    // The package's own costs and movement types, nothing re-baked from flat heights.
    for (k, t) in original
        .state
        .baked
        .as_ref()
        .unwrap()
        .types
        .iter()
        .enumerate()
    {
        assert_eq!(shown.types[k].name, t.name);
        assert!(
            shown.types[k].final_cost == t.final_cost,
            "{}: costs",
            t.name
        );
        let recorded = &original.state.map.as_ref().unwrap().document.movement_types[k];
        assert_eq!(&doc.movement_types[k], recorded);
    }
    assert_eq!(shown.types[0].wall_count, land_walls);
    assert!(!app.bake_in_flight(), "a package is never re-baked");

    // Editing tools are off, by button and by shortcut.
    harness
        .get_by_label(navstudio::app::tools::Tool::Paint.label())
        .click();
    harness.step();
    harness.key_press(Key::S);
    harness.step();
    assert_eq!(
        harness.state().state.tool,
        navstudio::app::tools::Tool::Inspect
    );

    // The goal tool runs on the package's nav data as on the bake it came from.
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);
    harness.drag_at(screen_of(&harness, 5.5, 24.5));
    harness.drop_at(screen_of(&harness, 5.5, 24.5));
    settle_goal(&mut harness);
    let r = harness
        .state()
        .goal_preview
        .result
        .as_ref()
        .expect("a preview");
    let at = |x: u32, y: u32| (y * W + x) as usize;
    assert_eq!(r.heat[at(5, 24)], 0);
    assert_eq!(r.heat[at(6, 24)], 1);
    assert_eq!(
        r.heat[at(50, 10)],
        navstudio::nav::integrate::UNREACHED,
        "the steep band is a wall for land in the package too"
    );

    // Saving is refused with one sentence; nothing is written.
    harness
        .state_mut()
        .request(navstudio::app::FileAction::Save);
    let message = harness.state().error_message().unwrap().to_owned();
    assert!(message.contains("read-only"), "{message}");
    assert!(!dir.path().join("bands.ron").exists());
    assert!(!harness.state().bake_in_flight());

    // Opening a map again leaves the package view: editable, heights shown, baked anew.
    let png = dir.path().join("bands.png");
    harness.state_mut().open_path(&png);
    assert!(harness.state_mut().confirm_new_map());
    wait_baked(&mut harness);
    let app = harness.state();
    assert!(app.state.read_only.is_none());
    assert!(app.state.overlays.height);
    assert!(app.state.tool_available(navstudio::app::tools::Tool::Paint));
    assert_eq!(
        app.state.baked.as_ref().unwrap().types[0].wall_count,
        land_walls
    );
}

#[test]
fn a_damaged_nav_package_is_refused_and_the_open_map_stays() {
    let (dir, mut harness) = baked_bands();
    let pkg = dir.path().join("bands.navpkg");
    harness.state_mut().export_package(&pkg);
    let bytes = std::fs::read(&pkg).unwrap();
    let bad = dir.path().join("cut.navpkg");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    harness.state_mut().open_path(&bad);
    harness.step();
    let app = harness.state();
    let message = app.error_message().expect("an error message");
    assert!(message.contains("cut.navpkg"), "{message}");
    assert!(app.state.read_only.is_none());
    assert_eq!(app.state.map.as_ref().unwrap().document.name, "bands");
    assert!(app.state.baked.is_some());
}
