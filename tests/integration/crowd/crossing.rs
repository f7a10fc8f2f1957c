//! Groups cross the obstacle map with every avoidance mode against the oracle path length;
//! line of sight goes straight; large agents keep out of gaps their wall mask closes.

use super::*;

fn run_group_crossing(mode: AvoidanceMode, count: u32, required_share: f64) {
    let (w, h, costs) = obstacle_map();
    let mut nav = nav_for(w, h, &costs);
    let start = Vec2::new(15.0, 30.0);
    let goal = Vec2::new(85.5, 30.5);
    let scenario = Scenario {
        seed: 42,
        config: SimConfig {
            avoidance: mode,
            ..SimConfig::default()
        },
        spawns: vec![Spawn {
            archetype: "infantry".into(),
            area: SpawnArea::Center {
                center_world: start,
            },
            count,
            group: 1,
        }],
        orders: vec![Order {
            group: 1,
            goal_world: goal,
            more_goals_world: Vec::new(),
            at_step: 0,
        }],
    };
    let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
    assert_eq!(sim.agents().len(), count as usize);
    // Bound: the farthest agent's path (oracle) at max speed, times a slack for the crowd.
    let spread_m = sim
        .agents()
        .pos_world
        .iter()
        .map(|p| (*p - start).length())
        .fold(0.0f32, f32::max);
    let path_m = oracle_path_len(&costs, w, h, (15, 30), (85, 30)) + f64::from(spread_m);
    let bound_secs = path_m / 4.0 * 2.0 + 10.0;
    let max_steps = (bound_secs * 60.0) as u64;
    let needed = (f64::from(count) * required_share).ceil() as u32;
    while sim.metrics().arrived < needed && sim.step_index() < max_steps {
        sim.step(&mut nav);
    }
    let m = sim.metrics();
    eprintln!(
        "{mode:?}: {} of {count} arrived after {:.1} s (bound {bound_secs:.1} s)",
        m.arrived,
        sim.step_index() as f64 / 60.0
    );
    assert!(
        m.arrived >= needed,
        "{mode:?}: only {} of {count} arrived within {bound_secs:.1} s (path {path_m:.1} m): {m:?}",
        m.arrived
    );
    // Every agent that arrived is near its own goal: transitive bumping stays within twice
    // the radius of the packed group, plus the shoving after arrival — arrived agents make
    // way for later arrivals walking to lanes beyond them (they weigh a twentieth in ORCA
    // contacts and start yielding a second ahead), 20.6 m at most measured for 200 boids.
    let packed_radius_m = (f64::from(count) * 0.4 * 0.4 / 0.8).sqrt() as f32;
    let a = sim.agents();
    for i in 0..a.len() {
        if a.state[i] == AgentState::Arrived {
            let off = (a.pos_world[i] - a.goal_world[i]).length();
            assert!(
                off < 2.0 * packed_radius_m + 10.0,
                "arrived {off:.1} m from its goal"
            );
            assert!(
                (a.goal_world[i] - goal).length() < 10.0,
                "lane target too far from goal"
            );
        }
    }
    // The group kept out of the walls.
    for p in &sim.agents().pos_world {
        assert_ne!(costs[(p.y as u32 * w + p.x as u32) as usize], WALL);
    }
    // All travelling done → the order released its path.
    if m.arrived == count {
        assert_eq!(nav.live_paths(), 0);
    }
}

#[test]
fn group_of_200_crosses_a_map_with_obstacles() {
    run_group_crossing(AvoidanceMode::Boids, 200, 0.99);
}

#[test]
fn orca_group_crosses_too() {
    run_group_crossing(AvoidanceMode::Orca, 60, 0.95);
}

#[test]
fn context_group_crosses_too() {
    run_group_crossing(AvoidanceMode::Context, 60, 0.95);
}

#[test]
fn agent_in_line_of_sight_moves_straight_at_the_goal() {
    let mut nav = nav_for(64, 64, &vec![1; 64 * 64]);
    let mut sim = Simulation::new(SimConfig::default(), 1);
    let start = Vec2::new(5.5, 5.5);
    let goal = Vec2::new(50.3, 40.7);
    let id = sim
        .add_agent(&nav, &archetype("infantry"), start, 0)
        .unwrap()
        .unwrap();
    sim.order_move(&mut nav, &[id], goal);
    let line = (goal - start).normalize_or_zero();
    let mut max_heading_err = 0.0f32;
    for _ in 0..1200 {
        sim.step(&mut nav);
        let p = sim.agents().pos_world[0];
        let v = sim.agents().vel[0];
        assert!(line.cross(p - start).abs() < 1e-3, "left the line at {p:?}");
        if v.length() > 0.1 && (goal - p).length() > 0.5 {
            let err = v
                .normalize_or_zero()
                .cross((goal - p).normalize_or_zero())
                .abs();
            max_heading_err = max_heading_err.max(err);
        }
    }
    assert!(max_heading_err < 1e-3, "heading error {max_heading_err}");
    assert_eq!(sim.agents().state[0], AgentState::Arrived);
}

#[test]
fn large_agents_never_use_a_gap_their_wall_mask_closes() {
    // Wall at x = 30..=31 with a 3-cell gap (y 18..21) and an 8-cell gap (y 2..10).
    let (w, h) = (60u32, 40u32);
    let mut costs = vec![1u8; (w * h) as usize];
    for y in 0..h {
        if !(18..21).contains(&y) && !(2..10).contains(&y) {
            costs[(y * w + 30) as usize] = WALL;
            costs[(y * w + 31) as usize] = WALL;
        }
    }
    let mut nav = nav_for(w, h, &costs);
    let large = nav.move_type("large").unwrap();
    let mut sim = Simulation::new(SimConfig::default(), 5);
    let walker = sim
        .add_agent(&nav, &archetype("large walker"), Vec2::new(15.5, 19.5), 0)
        .unwrap()
        .unwrap();
    let soldier = sim
        .add_agent(&nav, &archetype("infantry"), Vec2::new(15.5, 30.5), 1)
        .unwrap()
        .unwrap();
    let goal = Vec2::new(45.5, 19.5);
    assert_eq!(sim.order_move(&mut nav, &[walker], goal).moving, 1);
    assert_eq!(sim.order_move(&mut nav, &[soldier], goal).moving, 1);
    let mut soldier_used_narrow_gap = false;
    for _ in 0..60 * 60 {
        sim.step(&mut nav);
        let p = sim.agents().pos_world[walker.0 as usize];
        let (cx, cy) = nav.grid().cell_from_world(p);
        assert!(
            !nav.is_wall(large, cx, cy),
            "walker centre in a buffered wall at {p:?}"
        );
        if (29.0..33.0).contains(&p.x) {
            assert!(
                p.y < 11.0,
                "walker squeezed through the narrow gap at {p:?}"
            );
        }
        let q = sim.agents().pos_world[soldier.0 as usize];
        if (29.0..33.0).contains(&q.x) && (17.0..22.0).contains(&q.y) {
            soldier_used_narrow_gap = true;
        }
        if sim.agents().state.iter().all(|s| *s == AgentState::Arrived) {
            break;
        }
    }
    assert!(
        soldier_used_narrow_gap,
        "infantry should take the short narrow gap"
    );
    assert_eq!(sim.agents().state[walker.0 as usize], AgentState::Arrived);
}
