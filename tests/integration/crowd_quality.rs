//! The crowd benchmark's cases at a reduced agent count, checked against the crowd
//! targets, and one test per movement technique that fails without it.

use navstudio::crowd::quality::random::{RandomRow, random_case, run_random};
use navstudio::crowd::quality::{self, CaseMap, CaseReport, builtin_cases};
use navstudio::crowd::{
    AgentState, AvoidanceMode, Order, Scenario, SimConfig, Simulation, Spawn, SpawnArea,
    Techniques, Vec2, default_archetypes,
};
use navstudio::nav::grid::WALL;

/// Agent counts as a share of the full cases: 30–150 agents, seconds per run in CI.
const SCALE: f32 = 0.3;

fn run_case(name: &str, mode: AvoidanceMode) -> CaseReport {
    run_configured(name, SCALE, mode, |_| {})
}

/// Case `index` of the random draw `seed` at `scale` of its agents, played in `mode` with
/// the default techniques (`crowd-bench --random index+1 --seed seed --case FAMILY-index`);
/// its row is printed.
fn random_row(seed: u64, index: u32, scale: f32, mode: AvoidanceMode) -> RandomRow {
    let archetypes = default_archetypes();
    let case = random_case(seed, index, scale, &archetypes);
    let row = run_random(&case, mode, Techniques::default(), &archetypes).unwrap();
    eprintln!("seed {seed}: {}", quality::table_row(&row.report));
    row
}

/// Each `(index, mode)` of the random draw `seed` at full scale gets everyone home within
/// 2 × the bound (with the overlap and wall targets).
fn assert_home_within_2x(seed: u64, rows: &[(u32, AvoidanceMode)]) {
    assert_home_within(2.0, seed, rows);
}

/// [`assert_home_within_2x`] within `factor` × the bound.
fn assert_home_within(factor: f64, seed: u64, rows: &[(u32, AvoidanceMode)]) {
    for &(index, mode) in rows {
        let row = random_row(seed, index, 1.0, mode);
        assert!(
            row.within(factor),
            "{mode:?}, within {factor} ×: {}",
            quality::table_row(&row.report)
        );
    }
}

/// The built-in case `name` at `scale` of its agents.
fn case(name: &str, scale: f32) -> quality::CrowdCase {
    builtin_cases(scale)
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

/// Plays case `name` at `scale` of its agents in `mode`, its settings changed by `configure`.
fn run_configured(
    name: &str,
    scale: f32,
    mode: AvoidanceMode,
    configure: impl FnOnce(&mut SimConfig),
) -> CaseReport {
    let case = case(name, scale);
    let mut scenario = case.scenario.clone();
    scenario.config.avoidance = mode;
    configure(&mut scenario.config);
    let mut nav = case.map.navigator();
    let report = quality::run(name, &scenario, &default_archetypes(), &mut nav)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{}", quality::table_row(&report));
    report
}

/// Every agent arrives, none is stuck, all within 2× the geometric bound, overlap mean
/// ≤ 5 % and max ≤ 30 % of the smaller radius, no wall penetration — in every mode.
fn assert_case_meets_targets(name: &str) {
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let r = run_case(name, mode);
        assert!(
            r.meets(quality::TARGET_RATIO),
            "{name} / {}: {}",
            r.mode,
            quality::table_row(&r)
        );
    }
}

#[test]
fn bottleneck_door_meets_the_crowd_targets() {
    assert_case_meets_targets("bottleneck");
}

#[test]
fn head_on_swap_meets_the_crowd_targets() {
    assert_case_meets_targets("head_on");
}

#[test]
fn crossing_streams_meet_the_crowd_targets() {
    assert_case_meets_targets("crossing");
}

#[test]
fn circle_swap_meets_the_crowd_targets() {
    assert_case_meets_targets("circle");
}

#[test]
fn mixed_radii_through_narrow_gaps_meet_the_crowd_targets() {
    assert_case_meets_targets("mixed_radii");
}

#[test]
fn rooms_joined_by_doors_meet_the_crowd_targets() {
    assert_case_meets_targets("rooms");
}

#[test]
fn dense_spawn_through_a_choke_meets_the_crowd_targets() {
    assert_case_meets_targets("dense_choke");
}

/// The lower bound by hand: the bottleneck room at full scale, 300 infantry (r 0.4 m,
/// 4 m/s) through a 4 m door: ⌊4 / 0.8⌋ = 5 lanes of 4 / 0.8 = 5 agents/s, so the queue
/// alone takes 300 / 25 = 12 s; the farthest agent is about 70 m of path away.
#[test]
fn the_bottleneck_bound_is_travel_plus_the_door_queue() {
    let case = builtin_cases(1.0)
        .into_iter()
        .find(|c| c.name == "bottleneck")
        .unwrap();
    let mut nav = case.map.navigator();
    let mut sim = Simulation::from_scenario(&case.scenario, &default_archetypes(), &nav).unwrap();
    let starts = sim.agents().pos_world.clone();
    sim.step(&mut nav);
    let mut geodesics = quality::Geodesics::new(&nav);
    let (bound, shortest) = quality::lower_bound(&sim, &nav, &starts, &mut geodesics);
    assert_eq!(bound.gap_m, 4.0);
    assert_eq!(bound.through_gap, 300);
    assert!((bound.queue_secs - 12.0).abs() < 1e-6, "{bound:?}");
    let farthest = shortest.iter().flatten().copied().fold(0.0f32, f32::max);
    assert!((60.0..80.0).contains(&farthest), "{farthest}");
    // Arrival reach of 300 packed infantry: 2 · √(300 · 0.16 / 0.8) ≈ 15.5 m.
    let reach = 2.0 * (300.0f32 * 0.16 / 0.8).sqrt();
    let travel = f64::from((farthest - reach) / 4.0);
    assert!((bound.travel_secs - travel).abs() < 1e-3, "{bound:?}");
}

/// Context steering through the rooms: a group walking its own way at its own pace writes
/// no danger, and the crowd crosses within the stricter 1.5 × the bound the issue asks of
/// context steering in the rooms (1.07 × at this scale; when each member slowed for the
/// one ahead it took 1.39 ×).
#[test]
fn context_steering_keeps_a_queue_walking_through_the_rooms() {
    let with = run_configured("rooms", SCALE, AvoidanceMode::Context, |_| {});
    assert!(with.meets(1.5), "{}", quality::table_row(&with));
}

/// Who waits, in context steering: an agent close behind an ally of its order walking its
/// way at half its top speed or more follows it, and the contact rule does not slide it
/// sideways off that ally. Case pillars-197 of seed 1 (`crowd-bench --random 198 --seed 1
/// --case pillars-197 --mode context`): 80 infantry along a corridor with pillars. With
/// every agent free to slide past the ally ahead the column crowded round the pillars:
/// 2.17 × the bound; 1.68 × following.
#[test]
fn a_column_follows_its_moving_allies_past_pillars() {
    let row = random_row(1, 197, 1.0, AvoidanceMode::Context);
    assert!(row.within(2.0), "{}", quality::table_row(&row.report));
}

/// One idle infantryman stands in a 2 m door; a tank is ordered through it. With contact
/// resolution the tank pushes its ally out of the way and arrives; without it the tank
/// shoves into the infantryman and the two stay pressed together in the door.
#[test]
fn a_tank_pushes_an_idle_ally_out_of_a_door() {
    let mut map = CaseMap::walled(48, 24);
    map.fill(24, 0, 1, 24, WALL);
    map.fill(24, 11, 1, 3, 1);
    let run = |techniques: Techniques| {
        let mut nav = map.navigator();
        let scenario = Scenario {
            seed: 3,
            config: SimConfig {
                techniques,
                ..SimConfig::default()
            },
            spawns: vec![
                Spawn {
                    archetype: "infantry".into(),
                    area: SpawnArea::Center {
                        center_world: Vec2::new(24.5, 12.5),
                    },
                    count: 1,
                    group: 0,
                },
                Spawn {
                    archetype: "tank".into(),
                    area: SpawnArea::Center {
                        center_world: Vec2::new(10.5, 12.5),
                    },
                    count: 1,
                    group: 1,
                },
            ],
            orders: vec![Order {
                group: 1,
                goal_world: Vec2::new(40.5, 12.5),
                more_goals_world: Vec::new(),
                at_step: 0,
            }],
        };
        let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
        let mut worst_overlap = 0.0f32;
        for _ in 0..60 * 20 {
            sim.step(&mut nav);
            let a = sim.agents();
            let d = (a.pos_world[0] - a.pos_world[1]).length();
            worst_overlap = worst_overlap.max((a.radius_m[0] + a.radius_m[1] - d) / a.radius_m[0]);
        }
        (sim.agents().state[1], worst_overlap)
    };
    let (with, with_overlap) = run(Techniques::default());
    let (without, without_overlap) = run(Techniques::none());
    eprintln!(
        "with: {with:?} overlap {with_overlap:.2}; without: {without:?} overlap {without_overlap:.2}"
    );
    assert_eq!(with, AgentState::Arrived);
    assert!(
        with_overlap <= 0.3,
        "the ally got out of the way: {with_overlap}"
    );
    assert!(
        without != AgentState::Arrived || without_overlap > 0.3,
        "without resolution the tank runs over its ally: {without:?}, {without_overlap}"
    );
}

/// An idle tank stands on an infantryman's goal. The infantryman arrives when it reaches
/// the tank (it pressed against the tank for good before, never within its own radius of
/// the goal).
#[test]
fn an_agent_whose_goal_is_taken_arrives_against_the_one_standing_there() {
    let map = CaseMap::walled(32, 32);
    let run = || {
        let mut nav = map.navigator();
        let techniques = Techniques::default();
        let spawn = |archetype: &str, x: f32, group: u32| Spawn {
            archetype: archetype.into(),
            area: SpawnArea::Center {
                center_world: Vec2::new(x, 16.2),
            },
            count: 1,
            group,
        };
        let scenario = Scenario {
            seed: 5,
            config: SimConfig {
                techniques,
                ..SimConfig::default()
            },
            spawns: vec![spawn("tank", 20.2, 0), spawn("infantry", 6.5, 1)],
            orders: vec![Order {
                group: 1,
                goal_world: Vec2::new(20.2, 16.2),
                more_goals_world: Vec::new(),
                at_step: 0,
            }],
        };
        let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
        for _ in 0..60 * 15 {
            sim.step(&mut nav);
        }
        sim.agents().state[1]
    };
    assert_eq!(run(), AgentState::Arrived);
}

/// The congestion map points at the door: on the bottleneck case the cell where travelling
/// agents lost the most time lies within a few metres of the door, and the open room past
/// it, which agents cross at speed, gathers far less.
#[test]
fn congestion_gathers_at_the_door_of_the_bottleneck() {
    let case = builtin_cases(SCALE)
        .into_iter()
        .find(|c| c.name == "bottleneck")
        .unwrap();
    let mut nav = case.map.navigator();
    let mut sim = Simulation::from_scenario(&case.scenario, &default_archetypes(), &nav).unwrap();
    sim.track_congestion(Some(navstudio::crowd::Navigator::grid(&nav)));
    for _ in 0..60 * 25 {
        sim.step(&mut nav);
    }
    let map = sim.congestion().unwrap();
    let (w, h) = (map.width, map.height);
    let mut peak = (0.0f32, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if map.at(x, y) > peak.0 {
                peak = (map.at(x, y), x, y);
            }
        }
    }
    // The door: x 48–49, y 22–25.
    let (px, py) = (peak.1 as f32, peak.2 as f32);
    assert!(
        (px - 48.5).abs() <= 6.0 && (py - 23.5).abs() <= 6.0,
        "peak {peak:?}"
    );
    let past_door: f32 = (0..h)
        .flat_map(|y| (56..72).map(move |x| (x, y)))
        .map(|(x, y)| map.at(x, y))
        .sum();
    let at_door: f32 = (18..30)
        .flat_map(|y| (40..50).map(move |x| (x, y)))
        .map(|(x, y)| map.at(x, y))
        .sum();
    assert!(
        at_door > 4.0 * past_door,
        "door {at_door} vs room {past_door}"
    );
}

/// The full circle swap (100 agents, each its own order, meeting in the middle), context
/// steering: with ORCA picking the velocity nearest the proposed one over every neighbour
/// at once, the crowd passes through the middle within 2× the bound (1.64 measured;
/// removing each contact's closing speed in turn, the agents jammed into a knot: 3.48 ×).
#[test]
fn orca_contacts_let_a_circle_swap_pass_through_the_middle() {
    let with = run_configured("circle", 1.0, AvoidanceMode::Context, |_| {});
    assert!(
        with.meets(quality::TARGET_RATIO),
        "{}",
        quality::table_row(&with)
    );
}

/// 10 Hz decisions with 60 Hz movement (seed §004), context steering through the
/// bottleneck: each agent's chosen velocity changes only on its own decision steps (every
/// sixth, staggered by index) or when it held none, and the crowd still meets the targets.
#[test]
fn decisions_at_10_hz_hold_between_an_agents_decision_steps() {
    let case = builtin_cases(SCALE)
        .into_iter()
        .find(|c| c.name == "bottleneck")
        .unwrap();
    let mut scenario = case.scenario.clone();
    scenario.config.avoidance = AvoidanceMode::Context;
    scenario.config.decision_secs = 0.1;
    assert_eq!(scenario.config.decision_steps(), 6);
    let mut nav = case.map.navigator();
    let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
    let (mut held, mut decided) = (0u64, 0u64);
    for _ in 0..600 {
        let before = sim.agents().decision.clone();
        let step = sim.step_index();
        sim.step(&mut nav);
        for (i, (&was, &now)) in before.iter().zip(&sim.agents().decision).enumerate() {
            let own_step = (step + i as u64).is_multiple_of(6);
            if !own_step && was != Vec2::ZERO {
                assert_eq!(was, now, "agent {i} changed its decision on step {step}");
                held += 1;
            } else if was != now {
                decided += 1;
            }
        }
    }
    // Five held steps per decision, less the agents that stood with nothing to hold.
    assert!(held > 4 * decided, "held {held}, decided {decided}");
    let r = quality::run(
        "bottleneck",
        &scenario,
        &default_archetypes(),
        &mut case.map.navigator(),
    )
    .unwrap();
    assert!(r.meets(quality::TARGET_RATIO), "{}", quality::table_row(&r));
}

/// `corner_clearance`: one infantryman walks round the end of a wall (a U-turn past two
/// convex corners). The flow field's shortest path touches the corners; with the switch the
/// agent's body stays 0.24 m (0.6 of its radius) off them where it passes nearest, without
/// it nearer (0.20 m measured: line of sight is granted only to cells that see the goal from
/// every point, so the agent no longer steers straight at the goal from the corner's cell).
#[test]
fn corner_clearance_keeps_an_agent_a_radius_off_the_corner_it_turns_round() {
    let mut map = CaseMap::walled(32, 32);
    map.fill(10, 0, 2, 20, WALL);
    let corners = [Vec2::new(10.0, 20.0), Vec2::new(12.0, 20.0)];
    let closest = |clearance: bool| {
        let mut nav = map.navigator();
        let scenario = Scenario {
            seed: 1,
            config: SimConfig {
                techniques: Techniques {
                    corner_clearance: clearance,
                    ..Techniques::default()
                },
                ..SimConfig::default()
            },
            spawns: vec![Spawn {
                archetype: "infantry".into(),
                area: SpawnArea::Center {
                    center_world: Vec2::new(5.5, 5.5),
                },
                count: 1,
                group: 0,
            }],
            orders: vec![Order {
                group: 0,
                goal_world: Vec2::new(17.5, 5.5),
                more_goals_world: Vec::new(),
                at_step: 0,
            }],
        };
        let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
        let mut closest = f32::INFINITY;
        for _ in 0..60 * 30 {
            sim.step(&mut nav);
            let p = sim.agents().pos_world[0];
            for c in corners {
                closest = closest.min((p - c).length());
            }
        }
        assert_eq!(sim.agents().state[0], AgentState::Arrived);
        // Gap between the body (r 0.4 m) and the nearest corner.
        closest - sim.agents().radius_m[0]
    };
    let with = closest(true);
    let without = closest(false);
    eprintln!("body to corner: with {with:.2} m, without {without:.2} m");
    assert!(
        with >= 0.2,
        "kept half a radius or more off the corner: {with}"
    );
    assert!(
        without < with,
        "nearer the corner without: {without}, with: {with}"
    );
}

/// The rooms case's first room has two doors, right and bottom, and by the map's symmetry
/// about its diagonal each is the nearer way for the agents on its side. The group must
/// split between them: routes planned by exact A* (a weighted one merged the later sources
/// into the first source's route) and the route's integration steering in the sector that
/// holds both doors (the tiles send all its cells to one exit). Before, all but a handful
/// left by one door.
#[test]
fn a_group_between_two_doors_splits_between_them() {
    let case = case("rooms", 0.5);
    let mut scenario = case.scenario.clone();
    scenario.config.avoidance = AvoidanceMode::Boids;
    let mut nav = case.map.navigator();
    // Per agent, the door it left the first room by (the room is x, y < 24).
    let mut door: Vec<Option<bool>> = Vec::new();
    quality::run_watched(
        "rooms",
        &scenario,
        &default_archetypes(),
        &mut nav,
        &mut |sim, _| {
            let a = sim.agents();
            door.resize(a.len(), None);
            for (i, p) in a.pos_world.iter().enumerate() {
                if door[i].is_none() && (p.x > 24.5 || p.y > 24.5) {
                    door[i] = Some(p.x > 24.5);
                }
            }
        },
    )
    .expect("rooms runs");
    let right = door.iter().filter(|d| **d == Some(true)).count();
    let bottom = door.iter().filter(|d| **d == Some(false)).count();
    assert_eq!(
        right + bottom,
        door.len(),
        "every agent leaves the first room"
    );
    let fewer = right.min(bottom) as f64 / door.len() as f64;
    assert!(
        fewer >= 0.25,
        "right door {right}, bottom door {bottom}: the group should split"
    );
}

/// A cell no route of a path leads through (the rooms map's bottom-left room, for a path
/// planned from the top-left room through the right-hand door) is not covered by its flow,
/// and walking the fallback (straight at the nearest routed portal) runs into a wall.
/// `join_path` extends the path from there: the cell is covered, and following the flow
/// from it reaches the goal.
#[test]
fn a_stranded_agent_joins_its_path_from_where_it_stands() {
    use navstudio::crowd::Navigator;
    let case = case("rooms", 1.0);
    let mut nav = case.map.navigator();
    let goal = Vec2::new(60.5, 60.5);
    let path = nav
        .request_path(
            navstudio::nav::MoveType::default(),
            &[Vec2::new(20.5, 3.5)],
            goal,
        )
        .expect("a route");
    let stranded = Vec2::new(4.5, 44.5);
    assert!(
        !nav.covers(path, stranded),
        "the room below is off the route"
    );
    assert!(nav.join_path(path, &[stranded]));
    assert!(nav.covers(path, stranded));
    // Walk the flow in half-metre steps; never into a wall, and to the goal.
    let mut p = stranded;
    for _ in 0..400 {
        if (p - goal).length() < 1.5 {
            return;
        }
        let f = nav.sample_flow(path, p).expect("flow along the way");
        p += f.direction * 0.5;
        assert!(
            !nav.is_wall(
                navstudio::nav::MoveType::default(),
                p.x.floor() as i32,
                p.y.floor() as i32
            ),
            "walked into a wall at {p:?}"
        );
    }
    panic!("did not reach the goal, ended at {p:?}");
}

/// Two groups swap the rooms either side of a wall through a door 3 m wide (under four
/// infantry abreast), in every mode, at a reduced size (60 a side): everyone arrives within
/// 2.5 × the bound, nobody is left stuck, and nobody counts as home in the room it left
/// (here 1.63 / 1.40 / 1.78 × in boids / ORCA / context steering; 1.5–2.45 × at 100 a side
/// over seeds 1, 2, 7; without the right of way boids left 106 of 200 stuck there). Both
/// groups pressing into the door at once jam it for good without the right of way: the
/// first order's stream goes through while the second steps aside and holds back, its
/// followers backing off behind it so the doorway clears, then the second goes (without
/// the holding back, 2.47 / 2.32 / 3.81 × at 100 a side, seed 7).
#[test]
fn opposing_streams_through_a_narrow_door_all_arrive_in_every_mode() {
    use navstudio::crowd::quality::random::{RANDOM_LIMIT, door_swap_case};
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let case = door_swap_case(60, 3, 0.5, 7);
        let mut scenario = case.scenario.clone();
        scenario.config.avoidance = mode;
        let mut nav = case.map.navigator();
        // Agents of group 0 (sent from the left room to the right one) that arrived while
        // still in the left room, more than 2 m from the door (at the door's mouth, an agent
        // within the group's reach of its lane just beyond the door, in plain sight of it
        // through the door, is near its goal by the rule, as anywhere else).
        let wall_x = (case.map.width / 2) as f32;
        let mut was_arrived: Vec<bool> = Vec::new();
        let mut left_behind = 0;
        let r = quality::run_limited(
            &case.name,
            &scenario,
            &default_archetypes(),
            &mut nav,
            RANDOM_LIMIT,
            &mut |sim, _| {
                let a = sim.agents();
                was_arrived.resize(a.len(), false);
                for (i, was) in was_arrived.iter_mut().enumerate() {
                    let arrived = a.state[i] == AgentState::Arrived;
                    if arrived && !*was && a.group[i] == 0 && a.pos_world[i].x < wall_x - 3.0 {
                        left_behind += 1;
                    }
                    *was = arrived;
                }
            },
        )
        .unwrap();
        eprintln!("{}", quality::table_row(&r));
        // Home means in the other room: a queue held in the door behind its arrived group
        // once "arrived" there, member by member back through the door, and stood there.
        assert_eq!(
            left_behind, 0,
            "{}: agents of group 0 counted home in the room they left",
            r.mode
        );
        assert!(
            r.arrived_pct >= 100.0 && r.stuck == 0 && r.ratio100.is_some_and(|x| x <= 2.5),
            "{}: {}",
            r.mode,
            quality::table_row(&r)
        );
    }
}

/// The dated random sample: a few cases drawn from the random benchmark's families at a
/// reduced size, with a seed that changes every day (or `NAVSTUDIO_CROWD_SEED`), so the
/// crowd is checked on cases nobody tuned it for. Each must get everyone home with nobody
/// stuck within 5 × its bound, overlap and walls clean, in every mode. A failure prints the
/// seed, the case and the command that replays it.
#[test]
fn a_dated_random_sample_of_crowd_cases_gets_everyone_home() {
    use navstudio::crowd::quality::random::FAMILIES;
    let seed = std::env::var("NAVSTUDIO_CROWD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            secs / 86_400
        });
    eprintln!("dated random crowd sample: seed {seed} (NAVSTUDIO_CROWD_SEED={seed} repeats it)");
    let archetypes = default_archetypes();
    let mut failures = Vec::new();
    // Three cases of three different families, picked by the seed.
    let first = (seed % FAMILIES.len() as u64) as u32;
    for k in [first, first + 3, first + 7] {
        let case = random_case(seed, k, SAMPLE_SCALE, &archetypes);
        for mode in [
            AvoidanceMode::Boids,
            AvoidanceMode::Orca,
            AvoidanceMode::Context,
        ] {
            let row = run_random(&case, mode, Techniques::default(), &archetypes).unwrap();
            eprintln!("{}", quality::table_row(&row.report));
            if !row.all_home() {
                failures.push(format!(
                    "{}\n  replay: navstudio crowd-bench --random {} --seed {seed} --scale {SAMPLE_SCALE} --case {} --mode {}",
                    quality::table_row(&row.report),
                    k + 1,
                    row.report.case,
                    row.report.mode
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}: {} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Random cases the dated sample once failed, kept as fixed cases: each names what it
/// caught. Infantry of a mixed selection whose lane lies where the tanks' route cannot
/// stand, walked back onto the route every time it stepped toward its lane (rejoining the
/// route near the goal); a tank whose flow led straight into the wall beside a gap (the
/// slide round the wall); ORCA door swaps whose queue walked through the crowd standing
/// beyond the door as soon as it stalled and crushed it (overlap maxima 44 and 45 %; now
/// only an agent stuck for long walks through standing agents); context steering in a
/// pillared corridor whose first order, having the right of way, walked on into an agent
/// of the second pressed back against it (30.5 %; a deep overlap is now shared at least
/// half and half).
#[test]
fn random_cases_the_dated_sample_once_failed_get_everyone_home() {
    let mut failures = Vec::new();
    for (seed, k, mode) in [
        (20792, 4, AvoidanceMode::Boids),
        (20820, 4, AvoidanceMode::Boids),
        (20818, 4, AvoidanceMode::Context),
        (20807, 14, AvoidanceMode::Orca),
        (20802, 0, AvoidanceMode::Orca),
        (20813, 10, AvoidanceMode::Orca),
        (20814, 7, AvoidanceMode::Context),
    ] {
        let row = random_row(seed, k, SAMPLE_SCALE, mode);
        if !row.all_home() {
            failures.push(format!("seed {seed}: {}", quality::table_row(&row.report)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Agent counts of the dated sample as a share of the drawn ones (4–60 agents a group).
const SAMPLE_SCALE: f32 = 0.2;

/// A group keeps its shape across open ground (SmartCenter lanes): 200 infantry in a block
/// 20 m wide marching 70 m stay at least 60 % as wide as they set off until they reach the
/// goal area (the 5th–95th percentile spread across the march), and all get home, in every
/// mode. Without lanes (every agent to the goal itself) the flow would funnel them.
#[test]
fn a_group_keeps_its_width_across_open_ground() {
    use navstudio::crowd::quality::random::open_ground_case;
    let case = open_ground_case(200, 20.0, 70.0);
    let archetypes = default_archetypes();
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let row = run_random(&case, mode, Techniques::default(), &archetypes).unwrap();
        let kept = row.width_kept_pct.expect("the group's width is measured");
        eprintln!("{} width kept {kept:.0} %", quality::table_row(&row.report));
        assert!(row.all_home(), "{}", quality::table_row(&row.report));
        assert!(
            kept >= 60.0,
            "{mode:?}: the group kept {kept:.0} % of its width"
        );
    }
}

/// Arriving by touching the arrived group takes a bump: beyond the group's own footprint
/// from its goal, only an agent the group holds back arrives, not one walking freely past
/// arrived members. Case mixed_gaps-194 of seed 1 at full scale (`crowd-bench --random 195
/// --seed 1 --case mixed_gaps-194`): 171 agents with ten large walkers through a 5 m gap
/// that is one cell wide on the walkers' buffered layer. When touching was enough, the
/// infantry column still coming through the gap arrived in it, in reach of the goal
/// (the group's reach, 2 × its footprint, is 26–35 m there) and in sight of it, and stood
/// there for good: three walkers behind it were stuck in boids, seven in context steering.
#[test]
fn a_column_coming_through_a_gap_does_not_arrive_in_it() {
    for mode in [
        AvoidanceMode::Boids,
        AvoidanceMode::Orca,
        AvoidanceMode::Context,
    ] {
        let row = random_row(1, 194, 1.0, mode);
        assert!(
            row.all_home(),
            "{mode:?}: {}",
            quality::table_row(&row.report)
        );
    }
}

/// Twenty infantry in context steering cross a block of 150 idle infantry standing
/// across their way. A standing neighbour weighs as much danger as the share of the
/// avoidance it leaves the walker, so the walkers wade through and the contacts push the
/// idle aside (seed §003); weighed as travellers, the idle slowed every walker to the
/// pace of a crowd at a door (the second group of a door swap behind the first one
/// arrived beyond it).
#[test]
fn context_steering_wades_through_a_standing_crowd() {
    let map = CaseMap::walled(64, 24);
    let mut nav = map.navigator();
    let scenario = Scenario {
        seed: 5,
        config: SimConfig {
            avoidance: AvoidanceMode::Context,
            ..SimConfig::default()
        },
        spawns: vec![
            Spawn {
                archetype: "infantry".into(),
                area: SpawnArea::Center {
                    center_world: Vec2::new(32.0, 12.0),
                },
                count: 150,
                group: 0,
            },
            Spawn {
                archetype: "infantry".into(),
                area: SpawnArea::Center {
                    center_world: Vec2::new(8.0, 12.0),
                },
                count: 20,
                group: 1,
            },
        ],
        orders: vec![Order {
            group: 1,
            goal_world: Vec2::new(56.0, 12.0),
            more_goals_world: Vec::new(),
            at_step: 0,
        }],
    };
    let mut sim = Simulation::from_scenario(&scenario, &default_archetypes(), &nav).unwrap();
    let walkers: Vec<usize> = (0..sim.agents().len())
        .filter(|&i| sim.agents().group[i] == 1)
        .collect();
    assert_eq!(walkers.len(), 20);
    // 48 m at 4 m/s is 12 s: give them twice that.
    let mut secs = 0.0f32;
    while secs < 24.0
        && !walkers
            .iter()
            .all(|&i| sim.agents().state[i] == AgentState::Arrived)
    {
        sim.step(&mut nav);
        secs += sim.config().step_secs;
    }
    let home = walkers
        .iter()
        .filter(|&&i| sim.agents().state[i] == AgentState::Arrived)
        .count();
    eprintln!("{home} of 20 walkers home after {secs:.1} s");
    assert_eq!(home, 20, "walkers home within 2 × the walk's 12 s");
    // 14.3 s with the share, 18.6 s with standing agents weighed as travellers.
    assert!(
        secs <= 16.0,
        "walkers waded through in {secs:.1} s, over 16 s"
    );
}

/// Who waits, in context steering: an agent follows an ally of its order walking its way,
/// and slides past one that has halted. Case door_swap-200 of seed 3 (`crowd-bench
/// --random 201 --seed 3 --case door_swap-200 --mode context`): 330 infantry swap rooms
/// through a door. When every ally just ahead held an agent in file, the queues at the door
/// waited in file instead of spreading across its width: 2.34 × the bound; 1.93 × now.
#[test]
fn a_queue_at_a_door_spreads_past_halted_allies() {
    let row = random_row(3, 200, 1.0, AvoidanceMode::Context);
    assert!(row.within(2.0), "{}", quality::table_row(&row.report));
}

/// Context steering's pace comes from walls and other orders' travellers only: allies and
/// standing agents turn an agent but do not slow it. Case door_swap-280 of seed 1
/// (`crowd-bench --random 281 --seed 1 --case door_swap-280 --mode context`): 116
/// infantry swap rooms through a door. Slowed by its allies too, each stream walked
/// through the door with gaps a body long: 2.16 × the bound; 1.91 × now.
#[test]
fn a_stream_through_a_door_is_slowed_only_by_what_it_may_not_walk_into() {
    let row = random_row(1, 280, 1.0, AvoidanceMode::Context);
    assert!(row.within(2.0), "{}", quality::table_row(&row.report));
}

/// Standing agents make way for travellers of other orders, in every mode. Door swaps of
/// seed 1 (`crowd-bench --random 141 --seed 1 --case door_swap-140`, and `door_swap-50`):
/// the first group arrived packed round the second one's agents still waiting to leave
/// its room, and pushed aside only by the contacts, the last of them waded out at a crawl:
/// door_swap-50 took 2.02 × the bound in boids and 2.12 × in context steering (1.77 × and
/// 1.81 × making way), door_swap-140 2.15 × in ORCA (1.76 ×).
#[test]
fn a_group_arrived_round_a_waiting_stream_makes_way_for_it() {
    assert_home_within_2x(
        1,
        &[
            (50, AvoidanceMode::Boids),
            (140, AvoidanceMode::Orca),
            (50, AvoidanceMode::Context),
        ],
    );
}

/// Arrived agents make way for a stuck traveller of their own order. mixed_gaps-64 of seed
/// 17 (`crowd-bench --random 65 --seed 17 --case mixed_gaps-64 --mode context`): a tank
/// of the selection counted as arrived while standing in the 5 m gap, and the last large
/// walker stood behind it for some 90 s (3.91 × the bound); it is through at 2.38 ×.
#[test]
fn arrived_allies_make_way_for_a_stuck_member_of_their_order() {
    assert_home_within(3.0, 17, &[(64, AvoidanceMode::Context)]);
}

/// Planned crossings (`simulation/crossings.rs`): eight groups of 24 infantry on a circle,
/// each to the antipode (antipodes-163 of seed 1). Meeting at the centre all at once, they
/// stood in one blob for some 13 s and took 2.26 / 2.23 / 2.55 × the bound (boids / ORCA /
/// context); passing the planned disc on their left, they wheel round it in 1.5–1.8 ×.
#[test]
fn eight_groups_meeting_at_one_point_wheel_round_it() {
    assert_home_within_2x(
        1,
        &[
            (163, AvoidanceMode::Boids),
            (163, AvoidanceMode::Orca),
            (163, AvoidanceMode::Context),
        ],
    );
}

/// Queue order (`steering/right_of_way.rs`): pillars-67 of seed 3, where one group split
/// round a pillar and reached a one-cell opening from above and below at once. Both sides
/// pressed on the agent in its mouth, which stood between them off the opening's line, and
/// in boids seven agents stood there for good; the ones behind now give way to the one
/// ahead.
#[test]
fn one_orders_streams_merging_at_a_one_cell_opening_go_in_turn() {
    assert_home_within_2x(
        3,
        &[
            (67, AvoidanceMode::Boids),
            (67, AvoidanceMode::Orca),
            (67, AvoidanceMode::Context),
        ],
    );
}

/// Queue order in the position passes (`jam_goes_first` in `steering/right_of_way.rs`):
/// pillars-117 of seed 20261207, where one group reaches a one-cell diagonal slot between
/// a block and a wall stub from above and from the side. In context steering an agent
/// from each side stood in the other's way, pushed apart evenly, and 20 of 52 were stuck
/// at 5 × the bound; the one with the longer way now takes the whole overlap (1.72 ×).
/// (ORCA gets everyone home in 1.12 × but overlaps 31 % for a moment, past the target.)
#[test]
fn one_orders_agents_jammed_at_a_one_cell_slot_go_in_turn() {
    assert_home_within_2x(
        20_261_207,
        &[(117, AvoidanceMode::Boids), (117, AvoidanceMode::Context)],
    );
}

/// Queue order head on (`steering/right_of_way.rs`): mixed_gaps-114 of seed 4477 in boids,
/// where two large walkers of one group slid along the wall from either side into the 5 m
/// gap's mouth and stood chest to chest in it for 15 s, each pressing into the other
/// (2.27 × the bound). The one that has waited longer now goes first: 1.61 ×.
#[test]
fn two_walkers_meeting_head_on_in_a_gaps_mouth_go_in_turn() {
    assert_home_within_2x(4477, &[(114, AvoidanceMode::Boids)]);
}

/// Queue order in a jam, in the velocities (`StepContext::jam_order` and boids' contact
/// rule in `steering/`): mixed_gaps-174 of seed 2026120304, a seed first run after the rule
/// before it was written. Large walkers reach the 5 m gap by the map's edge from above and
/// below, one pinned against the wall's end, and stood touching for good: each kept clear
/// of the others evenly, so none stepped into the gap's one-cell row, and the position
/// passes had no overlap to share (2 stuck in boids, 10 in ORCA). The one that has waited
/// longest now goes first, and the one that goes first does not keep clear of the one
/// behind it (2.29 / 2.46 ×).
#[test]
fn walkers_standing_touching_at_a_gaps_mouth_go_in_turn() {
    assert_home_within(
        3.0,
        2_026_120_304,
        &[(174, AvoidanceMode::Boids), (174, AvoidanceMode::Orca)],
    );
}

/// ORCA mode steers toward the part of its velocity a wall it slides along lets it keep
/// (`StepContext::update`): room_chain-205 of seed 2026120304, 171 infantry. A column
/// running at 3 m/s along a room's wall into its corner, where the first stops dead; the
/// velocities ORCA chose for the ones behind pointed half into the wall, and steering
/// toward them whole spent the force the braking needed (a fifth of it went to braking).
/// They ran into the one in the corner: 34.5 % of a radius deep; 19.0 % now.
#[test]
fn a_column_along_a_wall_brakes_before_the_corner_in_orca() {
    assert_home_within_2x(2_026_120_304, &[(205, AvoidanceMode::Orca)]);
}

/// Rejoining the route alongside it (`StepContext::rejoin_direction`): mixed_gaps-194 of
/// seed 1, 171 infantry, tanks and large walkers on the walkers' route through a 5 m gap,
/// which the walkers' layer keeps as a one-cell corridor. Heading for the corridor's
/// cells, the infantry and tanks beside it filed through in one line and stood in the
/// walkers' way, the rest of the gap empty: 2.78 / 2.40 / 4.27 × the bound (boids / ORCA
/// / context). Walking the route's flow alongside it, they use the whole gap: 2.1 / 2.1 /
/// 2.6 ×.
#[test]
fn a_mixed_selection_uses_the_whole_gap_its_largest_type_fits_exactly() {
    assert_home_within(
        3.0,
        1,
        &[
            (194, AvoidanceMode::Boids),
            (194, AvoidanceMode::Orca),
            (194, AvoidanceMode::Context),
        ],
    );
}
