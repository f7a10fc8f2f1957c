//! Crowds on nav links (issue 47): 100 infantry cross a river by a 4 m bridge link and all
//! arrive within twice a bound that counts the link's lanes, in every avoidance mode; a
//! ferry of capacity 10 carries a group across in batches. The map is a `NavWorld` (through
//! `WorldNavigator`), as a game runs it.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::AtomicBool;

use navstudio_crowd::metrics::THROUGHPUT_WINDOW_SECS;
use navstudio_crowd::{
    AgentState, AvoidanceMode, SimConfig, Simulation, Vec2, WorldNavigator, default_archetypes,
};
use navstudio_nav::grid::WALL;
use navstudio_nav::links::{LinkEnd, LinkKind, NavLink};
use navstudio_nav::{CostField, GridSpec, NavData, NavWorld, build_layer};

const W: u32 = 80;
const H: u32 = 70;
/// The river's rows: impassable for the land type.
const RIVER: std::ops::Range<u32> = 30..36;

/// A map of 1 m cells with a river across it and `link` over it.
fn world(link: NavLink) -> WorldNavigator {
    let mut cells = vec![1u8; (W * H) as usize];
    for y in RIVER {
        for x in 0..W {
            cells[(y * W + x) as usize] = WALL;
        }
    }
    let spec = GridSpec {
        width: W,
        height: H,
        sector_size: 10,
    };
    let layer = build_layer(
        "land",
        CostField::from_cells(spec, &cells),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let mut world = NavWorld::from_nav(NavData::new(spec, 1.0, vec![layer]));
    world.set_links(vec![link]).unwrap();
    WorldNavigator::new(world, vec![0.0])
}

/// A link from the north bank to the south bank, `width` cells wide, centred on x = 40.
fn crossing(kind: LinkKind, width: u32) -> NavLink {
    let mut l = NavLink::walk(1, (0, 0), (0, 0));
    let x = 40 - width / 2;
    l.a = LinkEnd {
        x,
        y: RIVER.start - 2,
        w: width,
        h: 2,
    };
    l.b = LinkEnd {
        x,
        y: RIVER.end,
        w: width,
        h: 2,
    };
    l.width_m = width as f32;
    l.kind = kind;
    l
}

/// Runs `n` infantry from a block on the north bank to a goal on the south bank, calling
/// `watch` after each step; returns the seconds until all arrived (or `None` after
/// `limit_s`) and the sim.
fn run(
    nav: &mut WorldNavigator,
    mode: AvoidanceMode,
    n: usize,
    limit_s: f32,
    watch: &mut dyn FnMut(&Simulation),
) -> (Option<f32>, Simulation, Vec2, Vec<Vec2>) {
    let infantry = default_archetypes().remove(0);
    let config = SimConfig {
        avoidance: mode,
        ..SimConfig::default()
    };
    let step = config.step_secs;
    let mut sim = Simulation::new(config, 3);
    let row = 10;
    let starts: Vec<Vec2> = (0..n)
        .map(|k| Vec2::new(30.0 + (k % row) as f32 * 1.2, 8.0 + (k / row) as f32 * 1.2))
        .collect();
    let ids: Vec<_> = starts
        .iter()
        .map(|&p| sim.add_agent(nav, &infantry, p, 0).unwrap().unwrap())
        .collect();
    let goal = Vec2::new(40.0, 58.0);
    let report = sim.order_move(nav, &ids, goal);
    assert_eq!(
        report.moving as usize, n,
        "{mode:?}: every agent can reach the goal over the link"
    );
    let mut steps = 0;
    while (steps as f32) * step < limit_s {
        if sim.agents().state.iter().all(|&s| s == AgentState::Arrived) {
            return (Some(steps as f32 * step), sim, goal, starts);
        }
        sim.step(nav);
        watch(&sim);
        steps += 1;
    }
    (None, sim, goal, starts)
}

#[test]
fn a_hundred_infantry_cross_a_4_m_bridge_link_within_twice_the_lane_bound() {
    let infantry = default_archetypes().remove(0);
    let (r, speed) = (infantry.radius_m, infantry.max_speed);
    let link = crossing(LinkKind::Walk, 4);
    // The link's lanes as the crowd files agents through it: bodies side by side with
    // 0.1 m between, one entering each lane per body length walked.
    let spacing = 2.0 * r + 0.1;
    let lanes = (4.0 / spacing).floor().max(1.0);
    let n = 100;
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let mut nav = world(link.clone());
        let entry = Vec2::new(40.0, RIVER.start as f32 - 1.0);
        let exit = Vec2::new(40.0, RIVER.end as f32 + 1.0);
        // The farthest agent walks to the entry, over the link and on to the goal, and the
        // agents file through the lanes one body length apart.
        // The link's throughput as the crowd reports it (over full ten-second windows) and
        // the queue at its entrance.
        let (mut peak, mut queue) = (0.0_f64, 0_u32);
        let mut watch = |sim: &Simulation| {
            let now = sim.sim_secs();
            if let Some(f) = sim.link_flows().get(&1) {
                if now >= THROUGHPUT_WINDOW_SECS {
                    peak = peak.max(f.crossed.per_sec(now));
                }
                queue = queue.max(f.waiting);
            }
        };
        let (time, sim, goal, starts) = run(&mut nav, mode, n, 600.0, &mut watch);
        let walk = starts
            .iter()
            .map(|&p| (p - entry).length())
            .fold(0.0_f32, f32::max)
            + (exit - entry).length()
            + (goal - exit).length();
        let bound = walk / speed + n as f32 * spacing / (lanes * speed);
        let crossed = sim.link_crossings().get(&1).copied().unwrap_or(0);
        // What the lanes carry: `lanes` agents per body length walked.
        let capacity = f64::from(lanes * speed / spacing);
        let arrived = sim
            .agents()
            .state
            .iter()
            .filter(|&&s| s == AgentState::Arrived)
            .count();
        println!(
            "{mode:?}: {arrived} of {n} arrived in {time:?} s, bound {bound:.1} s ({lanes} lanes), \
             {crossed} crossed; link throughput peak {peak:.2}/s of {capacity:.2}/s, \
             up to {queue} waiting at the entrance"
        );
        // Over ten seconds crossings end up to a few body lengths' walk apart from their
        // starts: a tenth over the lane capacity at most.
        assert!(
            peak <= 1.1 * capacity + 0.1,
            "{mode:?}: {peak:.2}/s through {lanes} lanes of {capacity:.2}/s"
        );
        let time = time.unwrap_or_else(|| panic!("{mode:?}: only {arrived} of {n} arrived"));
        assert!(time <= 2.0 * bound, "{mode:?}: {time} s > 2 × {bound:.1} s");
        assert!(
            crossed as usize >= n,
            "{mode:?}: {crossed} crossed the link"
        );
        // Nobody swam: every agent is on the south bank.
        assert!(
            sim.agents()
                .pos_world
                .iter()
                .all(|p| p.y > RIVER.end as f32),
            "{mode:?}"
        );
    }
}

#[test]
fn a_ferry_of_capacity_10_carries_the_group_in_batches() {
    let infantry = default_archetypes().remove(0);
    let period = 8.0_f32;
    let ferry = crossing(
        LinkKind::Ride {
            capacity: 10,
            period_s: period,
        },
        4,
    );
    let n = 30;
    let mut nav = world(ferry);
    let (mut queue, mut aboard) = (0_u32, 0_u32);
    let mut watch = |sim: &Simulation| {
        if let Some(f) = sim.link_flows().get(&1) {
            queue = queue.max(f.waiting);
            aboard = aboard.max(f.on_link);
        }
    };
    let (time, sim, goal, starts) = run(&mut nav, AvoidanceMode::Boids, n, 400.0, &mut watch);
    let entry = Vec2::new(40.0, RIVER.start as f32 - 1.0);
    let walk = starts
        .iter()
        .map(|&p| (p - entry).length())
        .fold(0.0_f32, f32::max)
        + (goal - entry).length();
    let departures = (n as f32 / 10.0).ceil();
    let bound = walk / infantry.max_speed + departures * period + period / 2.0;
    let time = time.expect("every agent arrives by ferry");
    println!("ferry: {n} arrived in {time} s, bound {bound:.1} s");
    assert!(time <= 2.0 * bound, "{time} s > 2 × {bound:.1} s");
    // Ten seats: three departures at least, a period apart.
    assert!(
        time >= (departures - 1.0) * period,
        "{time} s: the ferry carried more than 10 a trip"
    );
    assert_eq!(sim.link_crossings().get(&1).copied(), Some(n as u64));
    // The crowd reports the wait and the loads, and no trip carries more than ten.
    println!("ferry: up to {queue} waiting, up to {aboard} aboard");
    assert!(
        queue >= 1 && aboard >= 1,
        "the ferry's wait and loads are reported"
    );
    assert!(aboard <= 10, "a trip carries at most ten ({aboard})");
    // Thirty bound for it: a trip leaves full, though the entry block holds fewer than ten
    // (those behind it wait in the boarding area).
    assert_eq!(aboard, 10, "no trip left full");
}

/// A link one body wide has one lane: 40 infantry queue at its entrance, and the link's
/// throughput, as the crowd reports it for the congestion view and the panel, fills the
/// lane's capacity (one agent per body length walked) without passing it.
#[test]
fn a_one_lane_link_reports_its_queue_and_a_throughput_at_the_lane_capacity() {
    let infantry = default_archetypes().remove(0);
    let spacing = 2.0 * infantry.radius_m + 0.1;
    let width = 1;
    assert_eq!((width as f32 / spacing).floor(), 1.0, "one lane");
    let capacity = f64::from(infantry.max_speed / spacing);
    let n = 40;
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let mut nav = world(crossing(LinkKind::Walk, width));
        let (mut peak, mut queue) = (0.0_f64, 0_u32);
        let mut watch = |sim: &Simulation| {
            let now = sim.sim_secs();
            if let Some(f) = sim.link_flows().get(&1) {
                if now >= THROUGHPUT_WINDOW_SECS {
                    peak = peak.max(f.crossed.per_sec(now));
                }
                queue = queue.max(f.waiting);
                // One lane: one agent per body length of the at most 10 m from the entry
                // block to the exit.
                assert!(
                    f.on_link as f32 <= 1.0 + 10.0 / spacing,
                    "{mode:?}: {} on one lane",
                    f.on_link
                );
            }
        };
        let (time, sim, ..) = run(&mut nav, mode, n, 600.0, &mut watch);
        println!(
            "{mode:?}: {n} in {time:?} s; link throughput peak {peak:.2}/s of {capacity:.2}/s, \
             up to {queue} waiting"
        );
        assert!(time.is_some(), "{mode:?}: every agent arrives");
        assert_eq!(sim.link_crossings().get(&1).copied(), Some(n as u64));
        assert!(queue >= 1, "{mode:?}: agents wait at the entrance");
        assert!(
            peak <= 1.1 * capacity + 0.1,
            "{mode:?}: {peak:.2}/s through one lane of {capacity:.2}/s"
        );
        assert!(
            peak >= 0.6 * capacity,
            "{mode:?}: {peak:.2}/s, the queue should fill the lane's {capacity:.2}/s"
        );
    }
}
