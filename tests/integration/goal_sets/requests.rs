//! Single requests: a one-goal set is `request_path`, bad input gets typed errors, line of
//! sight is per goal, and scenario orders with goal sets.

use super::*;

#[test]
fn a_one_goal_set_is_request_path() {
    let baked = bake_all(&generated(MapKind::Showcase));
    let mut single = NavWorld::from_nav(baked.nav.clone());
    let mut set = NavWorld::from_nav(baked.nav.clone());
    let layer = &baked.nav.layers[0];
    let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
    let costs = layer.cost.to_cells();
    let mut rng = Rng::new(3);
    let mut compared = 0;
    while compared < 25 {
        let goal = passable_cells(&costs, w, h, 1, &mut rng)[0];
        let sources = passable_cells(&costs, w, h, 1 + rng.below(6) as usize, &mut rng);
        let (a, b) = (
            single.request_path(0, &sources, goal),
            set.request_path_to_any(0, &sources, &[goal]),
        );
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                assert_eq!(a.err(), b.err());
                continue;
            }
        };
        compared += 1;
        let (pa, pb) = (single.path(a).unwrap(), set.path(b).unwrap());
        assert_eq!(pa.routes, pb.routes);
        assert_eq!(pa.exits, pb.exits);
        assert_eq!(pa.route_first, pb.route_first);
        assert_eq!(pa.goals, vec![goal]);
        for &s in &sources {
            assert_eq!(single.trace_path(a, s), set.trace_path(b, s));
            for d in [(0.3, 0.5), (0.5, 0.5), (0.9, 0.1)] {
                let p = (s.0 as f32 + d.0, s.1 as f32 + d.1);
                assert_eq!(single.sample_flow(a, p), set.sample_flow(b, p));
            }
        }
        single.release_path(a);
        set.release_path(b);
    }
}

#[test]
fn goal_set_requests_refuse_bad_input_with_typed_errors() {
    let (w, h) = (40, 30);
    let mut costs = vec![1_u8; (w * h) as usize];
    // A wall column splits the map into two islands.
    for y in 0..h {
        costs[(y * w + 20) as usize] = WALL;
    }
    let mut world = common::world_from_cells("split", w, h, 10, &costs);
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[] as &[(u32, u32)]),
        Err(PathError::NoGoal)
    );
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[(5, 5), (99, 5)]),
        Err(PathError::OffMap((99, 5)))
    );
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[(20, 3), (20, 4)]),
        Err(PathError::GoalIsWall((20, 3)))
    );
    assert_eq!(
        world.request_path_to_any(0, &[(1, 1)], &[(30, 3)]),
        Err(PathError::Unreachable((30, 3)))
    );
    assert_eq!(
        world.request_path_to_any(9, &[(1, 1)], &[(3, 3)]),
        Err(PathError::UnknownType(9))
    );
    // A wall goal and a goal on the other island are left out; each source flows to the
    // goal on its own island.
    let id = world
        .request_path_to_any(0, &[(1, 1), (38, 28)], &[(20, 10), (10, 10), (30, 20)])
        .unwrap();
    assert_eq!(world.path(id).unwrap().goals, vec![(10, 10), (30, 20)]);
    assert_eq!(world.trace_path(id, (1, 1)).unwrap().goal, (10, 10));
    assert_eq!(world.trace_path(id, (38, 28)).unwrap().goal, (30, 20));
    assert!(world.path_reaches(id, (39, 0)));
    assert!(!world.path_reaches(id, (20, 0)));
}

/// Two goals in one sector and one beyond a wall in the next: line of sight is per goal
/// (a cell steers straight at the goal it sees), and the goal cells themselves are ends.
#[test]
fn line_of_sight_is_per_goal() {
    let (w, h) = (30, 20);
    let mut costs = vec![1_u8; (w * h) as usize];
    for y in 0..15 {
        costs[(y * w + 14) as usize] = WALL;
    }
    let mut world = common::world_from_cells("los", w, h, 10, &costs);
    let goals = [(2, 2), (8, 8), (20, 3)];
    let id = world
        .request_path_to_any(0, &[(0, 0), (12, 12), (25, 2)], &goals)
        .unwrap();
    for (cell, goal) in [((1, 1), (2, 2)), ((9, 9), (8, 8)), ((26, 3), (20, 3))] {
        assert!(world.has_line_of_sight(id, cell), "{cell:?}");
        let d = world
            .sample_flow(id, (cell.0 as f32 + 0.5, cell.1 as f32 + 0.5))
            .unwrap();
        let to = (goal.0 as f32 - cell.0 as f32, goal.1 as f32 - cell.1 as f32);
        let n = to.0.hypot(to.1);
        assert!(
            (d.0 - to.0 / n).abs() < 1e-4 && (d.1 - to.1 / n).abs() < 1e-4,
            "{cell:?} steers {d:?}, not at {goal:?}"
        );
        assert_eq!(world.trace_path(id, cell).unwrap().goal, goal);
    }
    for g in goals {
        let t = world.trace_path(id, g).unwrap();
        assert_eq!((t.goal, t.length), (g, 0.0));
    }
}

/// A scenario order naming two goal points: each agent walks to the nearer one, and a
/// scenario file written before goal sets (no `more_goals_world`) still loads.
#[test]
fn a_scenario_order_with_a_goal_set_sends_each_agent_to_its_nearest_goal() {
    use navstudio::crowd::{Scenario, Simulation, WorldNavigator, default_archetypes};
    let (w, h) = (120_u32, 40_u32);
    let costs = crate::common::walled_open_ground(w, h);
    let world = common::world_from_cells("infantry", w, h, 10, &costs);
    let mut nav = WorldNavigator::new(world, vec![0.0]);
    let text = r#"(
        seed: 5,
        spawns: [(archetype: "infantry", area: Rect(min_world: (x: 10.0, y: 12.0),
            max_world: (x: 110.0, y: 28.0)), count: 40, group: 1)],
        orders: [(group: 1, goal_world: (x: 4.5, y: 20.5),
            more_goals_world: [(x: 115.5, y: 20.5)], at_step: 0)],
    )"#;
    let scenario = Scenario::from_ron_str(text, std::path::Path::new("sets.ron")).unwrap();
    let mut archetypes = default_archetypes();
    for a in &mut archetypes {
        a.movement_type = "infantry".into();
    }
    let mut sim = Simulation::from_scenario(&scenario, &archetypes, &nav).unwrap();
    let start: Vec<f32> = sim.agents().pos_world.iter().map(|p| p.x).collect();
    let count = start.len() as u32;
    while sim.metrics().arrived < count && sim.step_index() < 60 * 60 {
        sim.step(&mut nav);
    }
    assert_eq!(sim.metrics().arrived, count, "{:?}", sim.metrics());
    println!("{count} agents arrived after {} steps", sim.step_index());
    for (i, &x0) in start.iter().enumerate() {
        let x = sim.agents().pos_world[i].x;
        // The agents between x 56 and 64 may take either goal (the group's lanes).
        if !(56.0..=64.0).contains(&x0) {
            assert_eq!(
                x < 60.0,
                x0 < 60.0,
                "agent {i} from x {x0} arrived at x {x}"
            );
        }
    }
    // Written before goal sets: no `more_goals_world`.
    let old =
        r#"(seed: 1, spawns: [], orders: [(group: 1, goal_world: (x: 4.5, y: 20.5), at_step: 0)])"#;
    let old = Scenario::from_ron_str(old, std::path::Path::new("old.ron")).unwrap();
    assert!(old.orders[0].more_goals_world.is_empty());
    assert!(!old.to_ron_string().contains("more_goals_world"));
}
