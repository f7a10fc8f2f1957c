//! The crowd preview: spawn, select, order and arrive without entering walls; scenarios
//! saved beside the map replay the same trajectories.

use super::*;

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
    // A technique switched off in the Crowd panel runs live and is saved with the scenario.
    click_label(&mut harness, "Movement techniques");
    click_label(&mut harness, "resolve_contacts");
    assert!(
        !harness
            .state()
            .crowd
            .sim()
            .config()
            .techniques
            .resolve_contacts
    );
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
    assert!(!saved.config.techniques.resolve_contacts);
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
fn right_click_on_an_agent_orders_the_selection_to_follow_it() {
    use navstudio::crowd::{AgentId, AgentState};
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Spawn);
    harness.state_mut().crowd.spawn_count = 8;
    harness.state_mut().crowd.playing = false;
    drag_cells(&mut harness, (3.0, 18.0), (8.0, 24.0));
    // One more agent apart, the one to follow.
    harness.state_mut().crowd.spawn_count = 1;
    drag_cells(&mut harness, (20.0, 26.0), (20.5, 26.5));
    let leader = AgentId(8);
    let at = harness.state().crowd.sim().agents().pos_world[8];

    harness.get_by_label("Command").click();
    harness.step();
    drag_cells(&mut harness, (2.0, 17.0), (9.0, 25.0));
    assert_eq!(harness.state().crowd.selection.len(), 8);
    let on_leader = screen_of(&harness, at.x, at.y);
    right_click(&mut harness, on_leader);
    let crowd = &harness.state().crowd;
    let agents = crowd.sim().agents();
    let order = agents.order[0];
    assert_eq!(
        crowd.sim().order_leader(order),
        Some(leader),
        "{:?}",
        crowd.message
    );
    assert!(
        crowd
            .message
            .as_deref()
            .unwrap_or("")
            .contains("follow agent 8")
    );
    assert_eq!(
        agents.state[8],
        AgentState::Idle,
        "the leader itself got no order"
    );

    // The leader walks off; the followers end beside it.
    let crowd = &mut harness.state_mut().crowd;
    crowd.selection = vec![leader];
    crowd.order(navstudio::crowd::Vec2::new(30.5, 34.5));
    for _ in 0..3600 {
        harness.state_mut().crowd.step_once();
    }
    let agents = harness.state().crowd.sim().agents();
    for i in 0..8 {
        let d = (agents.pos_world[i] - agents.pos_world[8]).length();
        assert!(d < 8.0, "follower {i} is {d:.1} m from the leader");
    }
}

/// Circles of `radius` the last frame painted, by centre.
fn painted_circles(harness: &Harness<'_, App>, radius: f32) -> Vec<Pos2> {
    fn walk(shape: &egui::Shape, radius: f32, out: &mut Vec<Pos2>) {
        match shape {
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, radius, out)),
            egui::Shape::Circle(c) if (c.radius - radius).abs() < 1e-3 => out.push(c.center),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for clipped in &harness.output().shapes {
        walk(&clipped.shape, radius, &mut out);
    }
    out
}

/// A right-click's spot is marked on the map while its order stands; a new order for the
/// same agents replaces the mark.
#[test]
fn the_right_clicked_spot_is_marked_while_its_order_stands() {
    use navstudio::app::tools::command::ORDER_MARKER_RADIUS;
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Spawn);
    harness.state_mut().crowd.spawn_count = 6;
    harness.state_mut().crowd.playing = false;
    drag_cells(&mut harness, (3.0, 18.0), (8.0, 24.0));
    pick_tool(&mut harness, navstudio::app::tools::Tool::Command);
    let near = |a: Pos2, b: Pos2| (a - b).length() < 1.0;
    let markers = |h: &Harness<'_, App>| painted_circles(h, ORDER_MARKER_RADIUS);
    assert!(markers(&harness).is_empty(), "no order, no mark");

    let first = screen_of(&harness, 30.5, 24.5);
    right_click(&mut harness, first);
    harness.step();
    let targets: Vec<_> = harness.state().crowd.order_targets().collect();
    assert!(
        targets.len() == 1
            && (targets[0] - navstudio::crowd::Vec2::new(30.5, 24.5)).length() < 1e-3,
        "{targets:?}"
    );
    let shown = markers(&harness);
    assert!(
        shown.iter().any(|&c| near(c, first)),
        "no mark at {first:?}: {shown:?}"
    );

    let second = screen_of(&harness, 12.5, 40.5);
    right_click(&mut harness, second);
    harness.step();
    let shown = markers(&harness);
    assert!(shown.iter().any(|&c| near(c, second)), "{shown:?}");
    assert!(
        !shown.iter().any(|&c| near(c, first)),
        "the replaced order's mark stays: {shown:?}"
    );
}

/// The Crowd panel's Parameters list the current mode's parameters (ORCA's horizon only in
/// ORCA, boids' side-step horizon only in boids), and a field changes the running crowd's
/// settings.
#[test]
fn crowd_parameters_follow_the_mode_and_change_the_running_crowd() {
    use navstudio::crowd::{AvoidanceMode, SimConfig};
    let (_dir, mut harness) = baked_bands();
    click_label(&mut harness, "Parameters");
    let shown = |h: &Harness<'_, App>, name: &str| h.query_all_by_label(name).count() > 0;
    let boids_only = "avoidance_horizon_secs";
    let orca_only = "orca_time_horizon_secs";
    assert_eq!(
        harness.state().crowd.sim().config().avoidance,
        AvoidanceMode::Boids
    );
    assert!(shown(&harness, boids_only) && !shown(&harness, orca_only));
    for p in &SimConfig::PARAMS {
        let in_boids = p.modes.contains(&AvoidanceMode::Boids);
        assert_eq!(shown(&harness, p.name), in_boids, "{}", p.name);
    }
    click_label(&mut harness, "ORCA");
    assert_eq!(
        harness.state().crowd.sim().config().avoidance,
        AvoidanceMode::Orca
    );
    assert!(!shown(&harness, boids_only) && shown(&harness, orca_only));
    click_label(&mut harness, "Boids");

    // The separation margin's field, set as a screen reader sets it.
    harness
        .get_by_role_and_label(egui::accesskit::Role::SpinButton, "separation_margin_m")
        .set_value_accesskit(0.3);
    harness.step();
    let config = harness.state().crowd.sim().config();
    assert!(
        (config.separation_margin_m - 0.3).abs() < 1e-6,
        "{config:?}"
    );
}

/// A spawn area too small for its count says so: the agents it cannot place apart stand
/// pressed into others, and the message counts them. One that fits says nothing.
#[test]
fn a_spawn_area_too_small_for_its_count_says_so() {
    let (_dir, mut harness) = baked_bands();
    pick_tool(&mut harness, navstudio::app::tools::Tool::Spawn);
    harness.state_mut().crowd.playing = false;
    harness.state_mut().crowd.spawn_count = 10;
    drag_cells(&mut harness, (3.0, 18.0), (12.0, 30.0));
    assert_eq!(harness.state().crowd.message, None, "10 infantry in 108 m²");

    harness.state_mut().crowd.spawn_count = 60;
    drag_cells(&mut harness, (20.0, 18.0), (23.0, 21.0));
    let crowd = &harness.state().crowd;
    let a = crowd.sim().agents();
    assert_eq!(a.len(), 70);
    let pressed = (10..70)
        .filter(|&i| {
            (0..70).any(|j| {
                j != i && (a.pos_world[i] - a.pos_world[j]).length() < a.radius_m[i] + a.radius_m[j]
            })
        })
        .count();
    assert!(pressed > 0, "60 infantry in 9 m² cannot all stand apart");
    let message = crowd.message.clone().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "{pressed} of the 60 infantry stand pressed into others"
        )),
        "{message}"
    );
}
