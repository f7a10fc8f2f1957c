//! Tool switching, shortcuts and accessibility, and the goal tool's run-time preview.

use super::*;

#[test]
fn shortcuts_switch_tools_and_widgets_are_accessible() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    harness.key_press(Key::B);
    harness.step();
    assert_eq!(
        harness.state().tools.active(),
        navstudio::app::tools::Tool::Paint
    );
    harness.key_press(Key::I);
    harness.step();
    assert_eq!(
        harness.state().tools.active(),
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

/// The viewport samples the flow arrows once per preview and view rather than every frame;
/// a new goal samples them again. What it keeps, and draws, is the preview's own flow at
/// every visible cell (`flow_at`), nothing on walls.
#[test]
fn flow_arrows_drawn_are_the_previews_flow() {
    let (_dir, mut harness) = baked_bands();
    harness.state_mut().state.overlays.flow = true;
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);
    let mut sampled = Vec::new();
    for goal in [(5.5, 24.5), (12.5, 40.5)] {
        harness.drag_at(screen_of(&harness, goal.0, goal.1));
        harness.drop_at(screen_of(&harness, goal.0, goal.1));
        settle_goal(&mut harness);
        harness.step();
        let app = harness.state();
        let ((x0, y0, x1, y1), stride, dirs) = app
            .viewport()
            .sampled_arrows()
            .expect("the whole small map is zoomed in enough for arrows");
        assert_eq!(stride, 1, "an arrow per cell at this zoom");
        assert_eq!(dirs.len(), ((x1 - x0) * (y1 - y0)) as usize);
        let nav = app.state.nav.as_deref().unwrap();
        let cost = &nav.layers[app.state.selected_type].cost;
        let cells = (y0..y1).flat_map(|y| (x0..x1).map(move |x| (x, y)));
        for ((x, y), &dir) in cells.zip(dirs) {
            let expected = (cost.get(x, y) != navstudio::nav::grid::WALL)
                .then(|| app.goal_preview.flow_at((x as f32 + 0.5, y as f32 + 0.5)))
                .flatten();
            assert_eq!(dir, expected, "cell ({x}, {y}) toward {goal:?}");
        }
        assert!(dirs.iter().filter(|d| d.is_some()).count() > 100);
        sampled.push(dirs.to_vec());
    }
    assert_ne!(sampled[0], sampled[1], "a new goal turns the arrows");
}

#[test]
fn goal_preview_covers_ground_that_cannot_reach_the_goal() {
    use navstudio::app::goal_preview::UNREACHABLE_COLOR;
    let (_dir, mut harness) = baked_bands();
    // A painted wall from top to bottom at x = 20 cuts the flat ground into two islands.
    pick_tool(&mut harness, navstudio::app::tools::Tool::Paint);
    harness.state_mut().tools.paint.brush.mode = navstudio::app::tools::BrushMode::ForceWall;
    harness.state_mut().tools.paint.brush.target = navstudio::app::tools::BrushTarget::AllTypes;
    drag_cells(&mut harness, (20.5, 0.5), (20.5, 47.5));
    wait_baked(&mut harness);
    // The stroke went out while nothing showed nav data: the Goal tool fetches it.
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);
    wait_baked(&mut harness);
    harness.drag_at(screen_of(&harness, 5.5, 24.5));
    harness.drop_at(screen_of(&harness, 5.5, 24.5));
    settle_goal(&mut harness);
    let app = harness.state();
    let image = app.goal_preview.image(W, H, true, false);
    let px = |x: u32, y: u32| image.pixels[(y * W + x) as usize];
    assert!(app.goal_preview.result.is_some());
    assert_ne!(px(8, 24), UNREACHABLE_COLOR, "the goal's side is heat");
    assert_ne!(px(8, 24).a(), 0);
    assert_eq!(
        px(30, 24),
        UNREACHABLE_COLOR,
        "the far side cannot reach the goal"
    );
    assert_eq!(px(20, 24).a(), 0, "walls stay the cost overlay's");
    assert_eq!(px(50, 10).a(), 0, "walls stay the cost overlay's");
}

/// Zoomed out to 4 px per cell, one arrow per 3 × 3 block (9 px apart), sampled at the
/// block's centre cell.
#[test]
fn zoomed_out_flow_arrows_are_one_per_block() {
    let (_dir, mut harness) = baked_bands();
    harness.state_mut().state.overlays.flow = true;
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);
    harness.drag_at(screen_of(&harness, 5.5, 24.5));
    harness.drop_at(screen_of(&harness, 5.5, 24.5));
    settle_goal(&mut harness);
    {
        let vp = harness.state_mut().viewport_mut();
        let (rect, factor) = (vp.rect, 4.0 / vp.transform.px_per_cell);
        vp.transform.zoom_at(rect, rect.center(), factor);
    }
    harness.step();
    harness.step();
    let app = harness.state();
    let ((x0, y0, x1, y1), stride, dirs) = app
        .viewport()
        .sampled_arrows()
        .expect("arrows at 4 px per cell");
    assert_eq!(stride, 3);
    assert_eq!((x0 % 3, y0 % 3), (0, 0), "blocks aligned to the map");
    let blocks: Vec<(u32, u32)> = (y0..y1)
        .step_by(3)
        .flat_map(|y| (x0..x1).step_by(3).map(move |x| (x, y)))
        .collect();
    assert_eq!(dirs.len(), blocks.len());
    for (&(bx, by), &dir) in blocks.iter().zip(dirs) {
        let (x, y) = ((bx + 1).min(x1 - 1), (by + 1).min(y1 - 1));
        let nav = app.state.nav.as_deref().unwrap();
        let wall = nav.layers[0].cost.get(x, y) == navstudio::nav::grid::WALL;
        let expected = (!wall)
            .then(|| app.goal_preview.flow_at((x as f32 + 0.5, y as f32 + 0.5)))
            .flatten();
        assert_eq!(dir, expected, "block at ({bx}, {by})");
    }
    assert!(dirs.iter().filter(|d| d.is_some()).count() > 20);
}

/// Line of sight reaches as far as the goal is visible, not only over the goal's sector and
/// its 8 neighbours. The banded map's cost changes only across x, so a cell sees the goal
/// exactly when every column between them is clear ground in its row (the segment crosses
/// each of those columns): checked for every cell, and the flat ground beyond the goal's 3
/// × 3 sectors is green.
#[test]
fn line_of_sight_reaches_as_far_as_the_goal_is_visible() {
    let (_dir, mut harness) = baked_bands();
    harness.state_mut().state.overlays.line_of_sight = true;
    pick_tool(&mut harness, navstudio::app::tools::Tool::Goal);
    let goal = (8u32, 24u32);
    harness.drag_at(screen_of(&harness, 8.5, 24.5));
    harness.drop_at(screen_of(&harness, 8.5, 24.5));
    settle_goal(&mut harness);
    let app = harness.state();
    let s = u32::from(app.state.map.as_ref().unwrap().document.sector_size);
    let r = app.goal_preview.result.as_ref().expect("a preview");
    assert_eq!(r.goal, goal);
    let clear = |x: u32, y: u32| land_cost(&harness, x, y) == navstudio::nav::grid::CLEAR;
    let mut beyond = 0;
    for y in 0..H {
        for x in 0..W {
            let (a, b) = (x.min(goal.0), x.max(goal.0));
            let expected = (a..=b).all(|c| clear(c, y));
            assert_eq!(r.los[(y * W + x) as usize], expected, "({x}, {y})");
            let window = (x / s).abs_diff(goal.0 / s) <= 1 && (y / s).abs_diff(goal.1 / s) <= 1;
            beyond += usize::from(expected && !window);
        }
    }
    assert!(
        beyond > 0,
        "the map reaches past the goal's 3 × 3 sectors (sector size {s})"
    );
    assert!(
        harness
            .query_by_label_contains("steers straight at it, however far")
            .is_some(),
        "the legend says how far line of sight reaches"
    );
}
