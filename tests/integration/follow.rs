//! Follow orders (`Simulation::order_follow`): a group chases an agent whose own order takes
//! it through a door and across the map. The group's path moves its goal after the leader
//! (`NavWorld::move_goal` through the crowd's navigator: new goal fields inside a sector,
//! route switches across borders) instead of asking for new paths, every follower arrives
//! beside the leader once it stops, and sets off again when the leader leaves.

use std::sync::atomic::AtomicBool;

use navstudio::crowd::{
    AgentArchetype, AgentId, AgentState, SimConfig, Simulation, Vec2, WorldNavigator,
    default_archetypes,
};
use navstudio::nav::grid::WALL;
use navstudio::nav::{CostField, GridSpec, NavData, NavWorld, build_layer};

const W: u32 = 100;
const H: u32 = 60;

/// Open ground in sectors of 10, with a wall across x = 50 broken by a 6-cell door at rows
/// 27–32, and a border wall.
fn world() -> WorldNavigator {
    let spec = GridSpec {
        width: W,
        height: H,
        sector_size: 10,
    };
    let mut costs = vec![1_u8; (W * H) as usize];
    for y in 0..H {
        for x in 0..W {
            let border = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            if border || (x == 50 && !(27..33).contains(&y)) {
                costs[(y * W + x) as usize] = WALL;
            }
        }
    }
    let layer = build_layer(
        "land",
        CostField::from_cells(spec, &costs),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let nav = NavData::new(spec, 1.0, vec![layer]);
    WorldNavigator::new(NavWorld::from_nav(nav), vec![0.0])
}

/// The world, a simulation, the infantry archetype, and an infantryman (the leader) west of
/// the wall.
fn with_leader() -> (WorldNavigator, Simulation, AgentArchetype, AgentId) {
    let nav = world();
    let mut sim = Simulation::new(SimConfig::default(), 5);
    let infantry = default_archetypes()
        .into_iter()
        .find(|a| a.name == "infantry")
        .unwrap();
    let leader = sim
        .add_agent(&nav, &infantry, Vec2::new(12.5, 30.5), 0)
        .unwrap()
        .unwrap();
    (nav, sim, infantry, leader)
}

/// Steps until `done` or `limit` steps; returns the steps taken.
fn run(
    sim: &mut Simulation,
    nav: &mut WorldNavigator,
    limit: u32,
    done: impl Fn(&Simulation) -> bool,
) -> u32 {
    for step in 0..limit {
        if done(sim) {
            return step;
        }
        sim.step(nav);
    }
    limit
}

#[test]
fn a_group_follows_its_leader_through_a_door_and_sets_off_again_when_it_leaves() {
    let (mut nav, mut sim, infantry, leader) = with_leader();
    let followers: Vec<AgentId> = (0..12)
        .map(|k| {
            let p = Vec2::new(6.5 + 2.0 * (k % 4) as f32, 44.5 + 2.0 * (k / 4) as f32);
            sim.add_agent(&nav, &infantry, p, 1).unwrap().unwrap()
        })
        .collect();
    sim.order_move(&mut nav, &[leader], Vec2::new(88.5, 30.5));
    let mut selection = followers.clone();
    selection.push(leader); // the leader is left out of its own followers
    let report = sim.order_follow(&mut nav, &selection, leader);
    assert_eq!(report.moving, 12);
    assert_eq!(sim.order_leader(report.order), Some(leader));

    let l = leader.0 as usize;
    let settled = |sim: &Simulation| {
        let a = sim.agents();
        a.state[l] == AgentState::Arrived
            && followers
                .iter()
                .all(|f| a.state[f.0 as usize] == AgentState::Arrived)
    };
    let steps = run(&mut sim, &mut nav, 60 * 120, settled);
    let a = sim.agents();
    assert!(
        settled(&sim),
        "not settled after {steps} steps: {:?}",
        a.state
    );
    for f in &followers {
        let d = (a.pos_world[f.0 as usize] - a.pos_world[l]).length();
        assert!(d < 10.0, "follower {f:?} stopped {d:.1} m from the leader");
        assert!(
            a.pos_world[f.0 as usize].x > 50.0,
            "follower {f:?} stayed behind the wall"
        );
    }
    // The group's path moved with the leader: goal fields inside sectors, switches across
    // borders (the leader crossed eight), and no new path was asked for.
    let stats = nav.world.goal_move_stats();
    assert!(stats.route_switches >= 5, "{stats:?}");
    assert!(stats.fields_rebuilt >= 5, "{stats:?}");

    // The leader walks back through the door: the followers set off again and follow.
    sim.order_move(&mut nav, &[leader], Vec2::new(20.5, 20.5));
    let moving = |sim: &Simulation| {
        followers
            .iter()
            .any(|f| sim.agents().state[f.0 as usize] == AgentState::Moving)
    };
    let steps = run(&mut sim, &mut nav, 60 * 10, moving);
    assert!(moving(&sim), "no follower set off within {steps} steps");
    let steps = run(&mut sim, &mut nav, 60 * 120, settled);
    let a = sim.agents();
    assert!(
        settled(&sim),
        "not settled again after {steps} steps: {:?}",
        a.state
    );
    for f in &followers {
        let d = (a.pos_world[f.0 as usize] - a.pos_world[l]).length();
        assert!(
            d < 10.0,
            "follower {f:?} stopped {d:.1} m from the leader on the way back"
        );
    }
}

#[test]
fn a_follow_order_ends_when_its_followers_take_another_order() {
    let (mut nav, mut sim, infantry, leader) = with_leader();
    let follower = sim
        .add_agent(&nav, &infantry, Vec2::new(12.5, 40.5), 1)
        .unwrap()
        .unwrap();
    let report = sim.order_follow(&mut nav, &[follower], leader);
    sim.order_move(&mut nav, &[follower], Vec2::new(30.5, 40.5));
    sim.step(&mut nav);
    assert_eq!(sim.order_leader(report.order), None);
    // A leader that does not exist moves nobody.
    assert_eq!(
        sim.order_follow(&mut nav, &[follower], AgentId(99)).moving,
        0
    );
}
