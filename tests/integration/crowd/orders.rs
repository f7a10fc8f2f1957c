//! Orders on a `WorldNavigator`: agents on another island stay idle, and one world request per
//! group plans one source per sector and covers every agent.

use super::*;

/// 64 × 48 open ground with a border and a sealed 12 × 12 pocket at (40..52, 8..20); half of
/// `count` agents spawn in the pocket, half in the open west.
fn pocket_map_and_agents<N: Navigator>(
    make: impl FnOnce(u32, u32, &[u8]) -> N,
    count: u32,
) -> (N, Simulation, u32, u32) {
    let (w, h) = (64u32, 48u32);
    let mut costs = vec![1u8; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            let pocket_wall =
                (40..52).contains(&x) && (8..20).contains(&y) && !(41..51).contains(&x)
                    || (40..52).contains(&x) && (y == 8 || y == 19);
            if border || pocket_wall {
                costs[(y * w + x) as usize] = WALL;
            }
        }
    }
    let nav = make(w, h, &costs);
    let infantry = archetype("infantry");
    let mut sim = Simulation::new(SimConfig::default(), 5);
    let spawn = |min: Vec2, max: Vec2, group| Spawn {
        archetype: "infantry".into(),
        area: SpawnArea::Rect {
            min_world: min,
            max_world: max,
        },
        count: count / 2,
        group,
    };
    let inside = sim
        .spawn(
            &nav,
            &infantry,
            &spawn(Vec2::new(41.0, 9.0), Vec2::new(51.0, 19.0), 0),
        )
        .unwrap();
    let outside = sim
        .spawn(
            &nav,
            &infantry,
            &spawn(Vec2::new(2.0, 24.0), Vec2::new(30.0, 46.0), 0),
        )
        .unwrap();
    (nav, sim, inside, outside)
}

fn check_pocket_order<N: Navigator>(nav: &mut N, sim: &mut Simulation, inside: u32, outside: u32) {
    assert_eq!((inside, outside), (40, 40));
    let report = sim.order_group(nav, 0, Vec2::new(58.5, 40.5));
    assert_eq!(
        (report.moving, report.unreachable),
        (outside, inside),
        "agents in the sealed pocket share no route with the goal"
    );
    let a = sim.agents();
    for i in 0..a.len() {
        let in_pocket = a.pos_world[i].x > 40.0 && a.pos_world[i].y < 20.0;
        let expected = if in_pocket {
            AgentState::Idle
        } else {
            AgentState::Moving
        };
        assert_eq!(a.state[i], expected, "agent {i} at {:?}", a.pos_world[i]);
        assert_eq!(a.path[i].is_some(), !in_pocket);
    }
}

#[test]
fn order_leaves_agents_on_another_island_idle_and_moves_the_rest() {
    let (mut nav, mut sim, inside, outside) = pocket_map_and_agents(nav_for, 80);
    check_pocket_order(&mut nav, &mut sim, inside, outside);
    let (mut nav, mut sim, inside, outside) = pocket_map_and_agents(world_navigator, 80);
    check_pocket_order(&mut nav, &mut sim, inside, outside);
    // And they stay out of it: the rest arrive, the pocket never moves.
    for _ in 0..60 * 40 {
        sim.step(&mut nav);
    }
    let m = sim.metrics();
    assert_eq!((m.arrived, m.moving, m.stuck), (outside, 0, 0), "{m:?}");
}

#[test]
fn one_world_request_per_group_plans_one_source_per_sector_and_covers_every_agent() {
    // 96 × 64, sectors of 16; a wall at x = 24 from the top down to y = 40 cuts sectors
    // (1, 0), (1, 1) and (1, 2) in two. The goal is south-east, so a route from the western
    // part of sector (1, 1) goes round below the wall and never enters its eastern part.
    let (w, h) = (96u32, 64u32);
    let mut costs = vec![1u8; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            if border || (x == 24 && y < 41) {
                costs[(y * w + x) as usize] = WALL;
            }
        }
    }
    let mut nav = world_navigator(w, h, &costs);
    let infantry = archetype("infantry");
    let mut sim = Simulation::new(SimConfig::default(), 9);
    // Both halves of sector (1, 1) (x 16..32, y 16..32), west first, then a block over the
    // six sectors north-west of x = 16.
    for (min, max) in [
        (Vec2::new(17.0, 17.0), Vec2::new(23.0, 31.0)),
        (Vec2::new(26.0, 17.0), Vec2::new(31.0, 31.0)),
        (Vec2::new(2.0, 2.0), Vec2::new(15.0, 47.0)),
    ] {
        let spawn = Spawn {
            archetype: "infantry".into(),
            area: SpawnArea::Rect {
                min_world: min,
                max_world: max,
            },
            count: 100,
            group: 0,
        };
        assert_eq!(sim.spawn(&nav, &infantry, &spawn).unwrap(), 100);
    }
    let report = sim.order_group(&mut nav, 0, Vec2::new(88.5, 56.5));
    assert_eq!(report.moving, 300);
    let a = sim.agents();
    let path = a.path[0].unwrap();
    assert!(
        a.path.iter().all(|p| *p == Some(path)),
        "one path per order"
    );
    let world_path = nav
        .world
        .path(navstudio::nav::world::PathId(path.0))
        .unwrap();
    // Sector (1, 1) twice (one source per part) and the three sectors of x < 16: at most
    // 5 sources planned, not 300.
    let sources = world_path.sources.len();
    assert!((4..=5).contains(&sources), "{sources} sources planned");
    for (i, &p) in a.pos_world.iter().enumerate() {
        assert!(
            nav.covers(path, p),
            "agent {i} at {p:?} is off the planned flow"
        );
    }
}

/// A group spawned round a point (Vogel's spiral) stands clear: every pair at least two
/// radii apart, for any count, on open ground. The spiral at `√k` put its second agent 1.32
/// radii from the first.
#[test]
fn a_group_spawned_round_a_point_stands_clear() {
    let (w, h) = (120u32, 120u32);
    let nav = nav_for(w, h, &vec![1u8; (w * h) as usize]);
    let archetypes = default_archetypes();
    for (archetype, count) in [
        ("infantry", 2),
        ("infantry", 7),
        ("infantry", 300),
        ("tank", 40),
    ] {
        let mut sim = Simulation::new(SimConfig::default(), 1);
        let kind = archetypes.iter().find(|a| a.name == archetype).unwrap();
        let spawn = Spawn {
            archetype: archetype.into(),
            area: SpawnArea::Center {
                center_world: Vec2::new(60.0, 60.0),
            },
            count,
            group: 0,
        };
        assert_eq!(sim.spawn(&nav, kind, &spawn).unwrap(), count);
        let a = sim.agents();
        for i in 0..a.len() {
            for j in i + 1..a.len() {
                let gap =
                    (a.pos_world[i] - a.pos_world[j]).length() - a.radius_m[i] - a.radius_m[j];
                assert!(
                    gap >= 0.0,
                    "{count} {archetype}: agents {i} and {j} overlap by {:.3} m",
                    -gap
                );
            }
        }
    }
}

/// A steering memory one mode keeps is let rest in the others, and a mode switched to never
/// reads another's leftovers: ORCA's held decisions are zero once boids steer, and boids'
/// remembered side-steps are gone once context steering does.
#[test]
fn a_mode_switched_to_starts_from_rested_memories() {
    let (w, h) = (120u32, 120u32);
    let mut nav = nav_for(w, h, &vec![1u8; (w * h) as usize]);
    let group = |center: Vec2, group: u32| Spawn {
        archetype: "infantry".into(),
        area: SpawnArea::Center {
            center_world: center,
        },
        count: 20,
        group,
    };
    let order = |group: u32, goal: Vec2| Order {
        group,
        goal_world: goal,
        more_goals_world: Vec::new(),
        at_step: 0,
    };
    let (west, east) = (Vec2::new(30.0, 60.0), Vec2::new(90.0, 60.0));
    let scenario = Scenario {
        seed: 3,
        config: SimConfig {
            avoidance: AvoidanceMode::Orca,
            ..SimConfig::default()
        },
        spawns: vec![group(west, 0), group(east, 1)],
        orders: vec![order(0, east), order(1, west)],
    };
    let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
    let steps = |sim: &mut Simulation, nav: &mut GridNavigator, n: u32| {
        for _ in 0..n {
            sim.step(nav);
        }
    };
    steps(&mut sim, &mut nav, 240);
    assert!(sim.agents().decision.iter().any(|&d| d != Vec2::ZERO));
    sim.config_mut().avoidance = AvoidanceMode::Boids;
    steps(&mut sim, &mut nav, 1);
    assert!(sim.agents().decision.iter().all(|&d| d == Vec2::ZERO));
    steps(&mut sim, &mut nav, 300);
    let side_stepping = |sim: &Simulation| {
        sim.agents()
            .resolution
            .iter()
            .filter(|r| r.secs_left > 0.0)
            .count()
    };
    assert!(side_stepping(&sim) > 0, "the groups met head-on in boids");
    sim.config_mut().avoidance = AvoidanceMode::Context;
    steps(&mut sim, &mut nav, 1);
    assert_eq!(side_stepping(&sim), 0);
}
