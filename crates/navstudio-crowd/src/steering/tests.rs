//! Unit tests of neighbour search, the priority sum and remembered resolutions.

#![allow(clippy::unwrap_used)]
use super::*;
use crate::MoveType;
use crate::agents::AgentState;
use crate::rng::SplitMix64;
use crate::testing::GridNavigator;

/// A step context over agents `a` on `nav` for one step's decisions: no order's state but
/// `destinations`, a separation reach of 0.5 m, the first step.
fn context<'a>(
    a: &'a Agents,
    grid: &'a SpatialGrid,
    near: &'a [NearAgent],
    nav: &'a GridNavigator,
    config: &'a SimConfig,
    destinations: &'a [Vec2],
) -> StepContext<'a, GridNavigator> {
    StepContext {
        agents: a,
        grid,
        near,
        nav,
        nav_grid: nav.grid(),
        config,
        order_destinations: destinations,
        order_more_goals: &[],
        order_live: &[],
        order_crossing: &[],
        meeting: true,
        replanning: false,
        separation_reach_m: 0.5,
        min_radius_m: 0.0,
        step_index: 0,
        decision_period: config.decision_steps(),
        separation_only: config.uses_separation_only(),
        collision_states: true,
    }
}

/// Separation-only runs search neighbours only within the separation reach; the lists
/// must be the full lists cut at that reach (an independent brute force checks both).
#[test]
fn separation_only_neighbours_are_the_full_lists_cut_at_the_separation_reach() {
    let mut rng = SplitMix64::new(21);
    let mut a = Agents::default();
    let radii = [0.4f32, 1.2, 1.0];
    for k in 0..2500 {
        let r = radii[k % 3];
        a.pos_world.push(Vec2::new(
            rng.range_f32(0.0, 40.0),
            rng.range_f32(0.0, 40.0),
        ));
        a.vel.push(Vec2::new(rng.range_f32(-1.0, 1.0), 0.0));
        a.radius_m.push(r);
        a.mass.push(80.0 * r);
        a.neighbour_radius_m.push(if r < 1.0 { 3.0 } else { 6.0 });
        a.state.push(AgentState::Moving);
        a.order.push(0);
        a.move_type.push(MoveType::default());
        a.goal_world.push(Vec2::new(40.0, 40.0));
    }
    let nav = GridNavigator::new(1.0, 64, 64);
    // Centre distances: the context's smallest radius is set to the largest, so no
    // neighbour is ordered by the gap to its disc (that has its own test below).
    let config = SimConfig::default();
    let reach = 1.2 + config.separation_margin_m;
    let separation_only = SimConfig {
        weights: SteeringWeights {
            avoidance: 0.0,
            alignment: 0.0,
            cohesion: 0.0,
            ..SteeringWeights::default()
        },
        ..config.clone()
    };
    assert!(separation_only.uses_separation_only() && !config.uses_separation_only());
    let lists = |config: &SimConfig, cell_m: f32| {
        let mut grid = SpatialGrid::default();
        grid.rebuild(&a.pos_world, cell_m);
        let near: Vec<NearAgent> = grid
            .sorted_agents()
            .iter()
            .map(|&i| NearAgent::of(&a, i as usize))
            .collect();
        let ctx = StepContext {
            separation_reach_m: reach,
            min_radius_m: 1.2,
            ..context(&a, &grid, &near, &nav, config, &[])
        };
        let mut out = vec![Vec::new(); a.pos_world.len()];
        for slot in 0..near.len() {
            let mut n = [Neighbour {
                slot: 0,
                dist_sq: 0.0,
            }; MAX_NEIGHBOURS];
            let i = near[slot].index as usize;
            let count = ctx.nearest(i, slot, &mut n);
            out[i] = n[..count]
                .iter()
                .map(|n| (near[n.slot as usize].index, n.dist_sq))
                .collect::<Vec<_>>();
        }
        out
    };
    let full = lists(&config, 3.0);
    let cut = lists(&separation_only, 0.5 * (2.0 * 1.2 + 0.1));
    let mut nonempty = 0;
    for i in 0..a.pos_world.len() {
        let r = a.radius_m[i] + reach;
        let expected: Vec<(u32, f32)> = full[i]
            .iter()
            .copied()
            .filter(|&(_, d)| d <= r * r)
            .collect();
        assert_eq!(cut[i], expected, "agent {i}");
        // Brute force: every agent within the reach, nearest first, capped.
        let mut brute: Vec<(f32, u32)> = (0..a.pos_world.len())
            .filter(|&j| j != i)
            .map(|j| ((a.pos_world[j] - a.pos_world[i]).length_squared(), j as u32))
            .filter(|&(d, _)| d <= r * r && d <= a.neighbour_radius_m[i].powi(2))
            .collect();
        brute.sort_by(|x, y| x.0.total_cmp(&y.0));
        brute.truncate(config.max_neighbours);
        let got: Vec<f32> = cut[i].iter().map(|&(_, d)| d).collect();
        let want: Vec<f32> = brute.iter().map(|&(d, _)| d).collect();
        assert_eq!(got, want, "agent {i}");
        nonempty += usize::from(!cut[i].is_empty());
    }
    assert!(
        nonempty > 1000,
        "the crowd is dense enough to test: {nonempty}"
    );
}

#[test]
fn priority_sum_drops_low_priorities() {
    let f = [
        Vec2::new(3.0, 0.0),
        Vec2::new(0.0, 4.0),
        Vec2::new(-9.0, 0.0),
    ];
    let s = priority_sum(&f, 5.0);
    assert!((s - Vec2::new(3.0, 2.0)).length() < 1e-6);
    assert_eq!(priority_sum(&f, 100.0), Vec2::new(-6.0, 4.0));
}

/// Two agents closing head-on whose lateral offset flips sign between two steps (each
/// side-stepped, which moved the other's closest approach across its path): with the
/// resolution remembered it keeps the side it chose; deciding afresh (no memory) it would
/// step back the other way, the oscillation of seed §001.
#[test]
fn a_remembered_resolution_keeps_its_side_when_the_offset_flips() {
    let nav = GridNavigator::new(1.0, 16, 16);
    let side_at = |lateral_m: f32, memory: Resolution| {
        let mut a = Agents::default();
        for (x, y, vx) in [(4.0, 8.0, 2.0), (6.5, 8.0 + lateral_m, -2.0)] {
            let (pos, vel) = (Vec2::new(x, y), Vec2::new(vx, 0.0));
            push_agent(
                &mut a,
                pos,
                vel,
                AgentState::Moving,
                0,
                Vec2::new(x + 10.0 * vx, y),
            );
        }
        let config = SimConfig::default();
        with_neighbours(&a, &nav, &config, 0, |ctx, _, n| {
            let (force, decided) = ctx.side_step(0, n, Vec2::new(2.0, 0.0), memory);
            (force.y.signum(), decided)
        })
    };
    let (first, memory) = side_at(0.1, Resolution::default());
    let (second, _) = side_at(-0.1, memory);
    let (afresh, _) = side_at(-0.1, Resolution::default());
    assert_eq!(first, -1.0, "the neighbour below: step up (−y)");
    assert_eq!(second, first, "the remembered side holds");
    assert_eq!(afresh, -first, "decided afresh it flips");
}

#[test]
fn coincident_agents_separate_in_opposite_directions() {
    let a = away_from(Vec2::ZERO, Vec2::ZERO, 3, 9);
    let b = away_from(Vec2::ZERO, Vec2::ZERO, 9, 3);
    assert!((a + b).length() < 1e-6 && (a.length() - 1.0).abs() < 1e-5);
}

/// Context steering round a traveller of another order halted 0.4 m ahead: the chosen
/// slot turns off the goal, and is walked at the pace its danger leaves, not also slowed
/// by how far it turns (at `interest − danger` meeting crowds crawled): at least half the
/// wanted 4 m/s. (A standing agent, idle or arrived, weighs little danger: the walker
/// wades through and the contacts push it aside.)
#[test]
fn context_steering_walks_a_detour_at_the_pace_its_danger_leaves() {
    let chosen = || context_on_a_line(&[(4.0, 2.0, 0), (5.2, 0.0, 1)]);
    let free = chosen();
    assert!(free.y.abs() > 0.25 * free.length(), "a detour: {free:?}");
    assert!(
        free.length() > 2.0,
        "at the pace its danger leaves: {free:?}"
    );
}

/// Context steering behind an ally of its order 0.3 m ahead, walking at half pace: the
/// ally turns the agent (its danger is in the slots) but does not slow it — the contacts
/// keep the gap, as ORCA's do. Slowed by its allies' danger too, a stream through a door
/// walked with gaps a body long. A traveller of another order in the same place slows it.
#[test]
fn context_steering_is_slowed_by_other_orders_not_by_its_allies() {
    let chosen = |ally_order| context_on_a_line(&[(4.0, 4.0, 0), (5.1, 2.0, ally_order)]);
    let behind_ally = chosen(0);
    assert!(
        (behind_ally.length() - 4.0).abs() < 1e-3,
        "an ally does not slow it: {behind_ally:?}"
    );
    let behind_other = chosen(1);
    assert!(
        behind_other.length() < 3.5,
        "another order's traveller does: {behind_other:?}"
    );
}

/// The velocity context steering chooses for the first of `agents` — (x, velocity along
/// +x, order) on the line y = 8 m of an open 16 m map, all moving — wanting 4 m/s along +x.
fn context_on_a_line(agents: &[(f32, f32, u32)]) -> Vec2 {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    nav.add_type("land", vec![1; 16 * 16]).unwrap();
    let mut a = Agents::default();
    for &(x, vx, order) in agents {
        push_on_the_line(&mut a, x, vx, order, 14.0);
    }
    let config = SimConfig {
        avoidance: AvoidanceMode::Context,
        ..SimConfig::default()
    };
    with_neighbours(&a, &nav, &config, 0, |ctx, slot, n| {
        ctx.context(0, slot, n, Vec2::new(4.0, 0.0))
    })
}

/// A lane goal behind the way to the destination (SmartCenter put it there), with a wall
/// between the agent and the destination: the flow, without line of sight, leads on
/// toward the destination, which in the mixed-radii case turned agents back at a sector
/// border one step short of their lanes for ever. Within a few cells more than the lane's
/// offset from the destination and with a clear line, the agent walks straight to its
/// lane; an agent bound for the destination itself still follows the flow.
#[test]
fn a_near_lane_goal_is_walked_to_straight_when_the_flow_leads_on() {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    let mut costs = vec![1u8; 16 * 16];
    for y in 4..13 {
        costs[y * 16 + 10] = navstudio_nav::grid::WALL;
    }
    nav.add_type("land", costs).unwrap();
    let destination = Vec2::new(14.5, 8.5);
    let start = Vec2::new(6.5, 8.5);
    let path = nav
        .request_path(MoveType::default(), &[start], destination)
        .unwrap();
    let direction = |goal: Vec2| {
        let mut a = Agents::default();
        a.pos_world.push(start);
        a.vel.push(Vec2::ZERO);
        a.radius_m.push(0.4);
        a.mass.push(80.0);
        a.max_force.push(1600.0);
        a.max_speed.push(4.0);
        a.neighbour_radius_m.push(3.0);
        a.state.push(AgentState::Moving);
        a.order.push(0);
        a.move_type.push(MoveType::default());
        a.goal_world.push(goal);
        a.path.push(Some(path));
        a.flow_dir.push(Vec2::ZERO);
        a.resolution.push(Resolution::default());
        a.collision.push(Collision::Clear);
        a.collision.push(Collision::Clear);
        let config = SimConfig::default();
        let mut grid = SpatialGrid::default();
        grid.rebuild(&a.pos_world, 1.5);
        let near: Vec<NearAgent> = grid
            .sorted_agents()
            .iter()
            .map(|&i| NearAgent::of(&a, i as usize))
            .collect();
        let destinations = [destination];
        let ctx = context(&a, &grid, &near, &nav, &config, &destinations);
        ctx.desired_velocity(&NearAgent::of(&a, 0)).1
    };
    let to_lane = direction(Vec2::new(3.5, 8.5));
    assert!(to_lane.x < -0.99, "straight back to the lane: {to_lane:?}");
    // Five cells away, but the lane lies 13 m from the destination: the agent is among the
    // lanes already (on the showcase map three agents stood for good one cell short of
    // lanes beyond the destination, turned back at a cell border by the flow).
    let far_lane = direction(Vec2::new(1.5, 8.5));
    assert!(far_lane.x < -0.99, "straight to the far lane: {far_lane:?}");
    let to_destination = direction(destination);
    assert!(to_destination.x > 0.0, "the flow: {to_destination:?}");
}

/// Context steering, two agents of different orders meeting head-on 1.6 m apart: the
/// one giving way (the later order) turns to its right (−y for an agent heading −x, the
/// side contacts side-step to), as the oncoming neighbour's danger leans to its left (with
/// a danger symmetric round the neighbour, the slot order picked the side, the same side
/// of the world for both agents, and they met again). The one with the right of way
/// holds its line: the other's danger weighs the share of avoidance it leaves it.
#[test]
fn context_keep_right_passes_an_oncoming_neighbour_on_the_right() {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    nav.add_type("land", vec![1; 16 * 16]).unwrap();
    let chosen = |agent: usize| {
        let a = oncoming_pair(4.0, 5.6);
        let config = SimConfig {
            avoidance: AvoidanceMode::Context,
            ..SimConfig::default()
        };
        let heading = Vec2::new(a.vel[agent].x.signum(), 0.0);
        let v = with_neighbours(&a, &nav, &config, agent, |ctx, slot, n| {
            ctx.context(agent, slot, n, heading * 4.0)
        });
        // Share of the chosen velocity to the agent's right.
        v.dot(heading.perp()) / v.length().max(1e-6)
    };
    let right = chosen(1);
    assert!(right > 0.3, "the agent giving way keeps right: {right}");
    let right = chosen(0);
    assert!(
        right.abs() < 0.1,
        "the one with the right of way holds its line: {right}"
    );
}

/// Right of way between two streams: an agent of the later order that the oncoming stream
/// is on (0.05 m from touching) holds back beside a wall with a door in it, where it stands
/// in the stream's way through, and in open ground only steps aside and walks on.
#[test]
fn a_stream_is_waited_for_at_a_door_and_stepped_round_in_the_open() {
    let (w, h) = (24, 16);
    let hold_left = |door: bool| {
        let mut costs = vec![1u8; (w * h) as usize];
        if door {
            // A wall across the map at x = 12, with a 2 m door at y = 7..9.
            for y in (0..h).filter(|y| !(7..9).contains(y)) {
                costs[(y * w + 12) as usize] = navstudio_nav::grid::WALL;
            }
        }
        let mut nav = GridNavigator::new(1.0, w, h);
        nav.add_type("land", costs).unwrap();
        let mut a = oncoming_pair(10.0, 10.85);
        a.yield_secs = vec![0.0; 2];
        let config = SimConfig::default();
        let (step, hold) = with_neighbours(&a, &nav, &config, 1, |ctx, _, n| {
            ctx.give_way(1, n, Vec2::new(-4.0, 0.0))
        });
        // Either way it steps out of the stream's path, across it.
        assert!(step.x.abs() < 1e-3 && step.y.abs() > 1.0, "{step:?}");
        hold
    };
    assert!(hold_left(true) > 0.5, "no hold at the door");
    assert_eq!(hold_left(false), 0.0, "held back in open ground");
}

/// Right of way, at a stream's edge: an agent of the later order (walking −x at y = 8 m)
/// meets the front of the earlier order's stream (walking +x). The stream agent nearest
/// it passes 0.3 m below its line, so the agent stands to that one's left; the stream's
/// other three walk above it (y ≈ 9 m). It steps out by the stream's nearer edge (−y),
/// not away from the one neighbour's path, which would take it into the stream.
#[test]
fn an_agent_giving_way_leaves_a_stream_by_its_nearer_edge() {
    let mut nav = GridNavigator::new(1.0, 24, 16);
    nav.add_type("land", vec![1; 24 * 16]).unwrap();
    let mut a = Agents::default();
    let straggler = Vec2::new(12.0, 8.0);
    for (x, y) in [(11.15, 7.7), (11.2, 8.9), (10.4, 8.9), (10.6, 9.7)] {
        let pos = Vec2::new(x, y);
        push_agent(
            &mut a,
            pos,
            Vec2::new(2.0, 0.0),
            AgentState::Moving,
            0,
            pos + Vec2::new(10.0, 0.0),
        );
    }
    push_agent(
        &mut a,
        straggler,
        Vec2::new(-2.0, 0.0),
        AgentState::Moving,
        1,
        Vec2::new(2.0, 8.0),
    );
    a.yield_secs = vec![0.0; a.len()];
    let config = SimConfig::default();
    let (step, _) = with_neighbours(&a, &nav, &config, 4, |ctx, _, n| {
        ctx.give_way(4, n, Vec2::new(-4.0, 0.0))
    });
    assert!(
        step.y < -1.0 && step.x.abs() < 1e-3,
        "into the stream: {step:?}"
    );
}

/// Two infantry of different orders on the line y = 8 m, at `x0` walking +x and at `x1`
/// walking −x, both at 2 m/s.
fn oncoming_pair(x0: f32, x1: f32) -> Agents {
    let mut a = Agents::default();
    for (x, vx, order) in [(x0, 2.0, 0), (x1, -2.0, 1)] {
        push_on_the_line(&mut a, x, vx, order, x + 5.0 * vx);
    }
    a
}

/// Pushes a moving agent of `order` onto `a` at `x` on the line y = 8 m, walking `vx`
/// along +x to the goal at `goal_x` on that line.
fn push_on_the_line(a: &mut Agents, x: f32, vx: f32, order: u32, goal_x: f32) {
    let (pos, vel) = (Vec2::new(x, 8.0), Vec2::new(vx, 0.0));
    push_agent(
        a,
        pos,
        vel,
        AgentState::Moving,
        order,
        Vec2::new(goal_x, 8.0),
    );
}

/// Pushes an infantry-sized agent (0.4 m, 80 kg, 4 m/s) onto `a`.
fn push_agent(a: &mut Agents, pos: Vec2, vel: Vec2, state: AgentState, order: u32, goal: Vec2) {
    a.pos_world.push(pos);
    a.vel.push(vel);
    a.radius_m.push(0.4);
    a.mass.push(80.0);
    a.max_force.push(1600.0);
    a.max_speed.push(4.0);
    a.neighbour_radius_m.push(3.0);
    a.state.push(state);
    a.order.push(order);
    a.move_type.push(MoveType::default());
    a.goal_world.push(goal);
    a.resolution.push(Resolution::default());
    a.flow_dir.push(Vec2::ZERO);
    a.collision.push(Collision::Clear);
}

/// Calls `f` with the step context of `a`, agent `agent`'s slot in it and its nearest
/// neighbours.
fn with_neighbours<R>(
    a: &Agents,
    nav: &GridNavigator,
    config: &SimConfig,
    agent: usize,
    f: impl FnOnce(&StepContext<'_, GridNavigator>, usize, &[Neighbour]) -> R,
) -> R {
    let mut grid = SpatialGrid::default();
    grid.rebuild(&a.pos_world, 1.5);
    let near: Vec<NearAgent> = grid
        .sorted_agents()
        .iter()
        .map(|&i| NearAgent::of(a, i as usize))
        .collect();
    let ctx = StepContext {
        // Orders 0 and 1 are streams (more than one agent on the way).
        order_live: &[2, 2],
        separation_reach_m: a.radius_m.iter().copied().fold(0.0, f32::max)
            + config.separation_margin_m,
        min_radius_m: a.radius_m.iter().copied().fold(f32::INFINITY, f32::min),
        ..context(a, &grid, &near, nav, config, &[])
    };
    let slot = near.iter().position(|n| n.index == agent as u32).unwrap();
    let mut n = [Neighbour {
        slot: 0,
        dist_sq: 0.0,
    }; MAX_NEIGHBOURS];
    let count = ctx.nearest(agent, slot, &mut n);
    f(&ctx, slot, &n[..count])
}

/// Neighbours by gap: infantry in a ring of twelve others 1 m off, and a large walker
/// (2.5 m) whose disc touches it 2.8 m off. By centre distance (checked directly) the ten
/// nearest are all infantry and the walker is not among them; by gap it comes first.
#[test]
fn a_touching_large_neighbour_is_among_the_nearest_by_gap() {
    let nav = GridNavigator::new(1.0, 32, 32);
    let goal = Vec2::new(30.0, 16.0);
    let centre = Vec2::new(16.0, 16.0);
    let mut a = Agents::default();
    push_agent(&mut a, centre, Vec2::ZERO, AgentState::Moving, 0, goal);
    for k in 0..12 {
        let at = centre + Vec2::from_angle(k as f32 * std::f32::consts::TAU / 12.0 + 0.1);
        push_agent(&mut a, at, Vec2::ZERO, AgentState::Moving, 0, goal);
    }
    push_agent(
        &mut a,
        centre + Vec2::new(0.0, 2.8),
        Vec2::ZERO,
        AgentState::Moving,
        0,
        goal,
    );
    let walker = a.len() - 1;
    a.radius_m[walker] = 2.5;
    a.mass[walker] = 60_000.0;
    a.neighbour_radius_m[walker] = 8.0;
    let config = SimConfig::default();
    let seen = with_neighbours(&a, &nav, &config, 0, |ctx, _, n| {
        n.iter()
            .position(|n| ctx.near[n.slot as usize].index as usize == walker)
    });
    assert_eq!(seen, Some(0), "by gap the walker is nearest");
    let mut by_centre: Vec<(f32, usize)> = (1..a.len())
        .map(|j| ((a.pos_world[j] - centre).length(), j))
        .collect();
    by_centre.sort_by(|x, y| x.0.total_cmp(&y.0));
    assert!(
        by_centre[..config.max_neighbours]
            .iter()
            .all(|&(_, j)| j != walker),
        "by centre it is not among the ten"
    );
}

/// Seed §001's collision states for an agent walking at 2 m/s toward one coming the other
/// way 1.5 m ahead: going on straight leaves the collision unresolved (they would overlap
/// within a quarter second), a side-step that clears it is resolving, and once its path
/// is clear the collision counts as resolved for 0.25 s, then clear.
#[test]
fn collision_states_follow_a_predicted_collision_from_unresolved_to_clear() {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    nav.add_type("land", vec![1; 16 * 16]).unwrap();
    let a = oncoming_pair(5.0, 6.5);
    let config = SimConfig::default();
    let state = |wanted: Vec2, taken: Vec2, previous: Collision| {
        with_neighbours(&a, &nav, &config, 0, |ctx, _, n| {
            ctx.collision_state(0, n, wanted, taken, previous)
        })
    };
    let ahead = Vec2::new(2.0, 0.0);
    assert_eq!(state(ahead, ahead, Collision::Clear), Collision::Unresolved);
    // Sideways at 2 m/s: 1.1 m apart after a quarter second, clear of the 0.8 m their
    // radii need.
    let aside = Vec2::new(0.0, 2.0);
    assert_eq!(
        state(ahead, aside, Collision::Unresolved),
        Collision::Resolving
    );
    // Walking away from the neighbour: no collision ahead any more.
    let back = Vec2::new(-2.0, 0.0);
    let mut s = state(back, back, Collision::Resolving);
    assert_eq!(
        s,
        Collision::Resolved {
            secs_left: REMEMBER_SECS
        }
    );
    let mut steps = 0;
    while s != Collision::Clear {
        s = state(back, back, s);
        steps += 1;
        assert!(steps < 100, "stays {s:?}");
    }
    // 0.25 s at 60 Hz.
    assert_eq!(steps, 15);
}

/// `context_orca`: context steering behind an agent of another order walking the same
/// way at the same pace 1.2 m ahead. Proximity danger grows with closeness whatever the
/// neighbour does, so the agent slows; with the neighbour's ORCA half-plane as the danger
/// nothing forbids walking on behind it at the same pace, so it keeps (nearly) its speed.
#[test]
fn context_orca_writes_no_danger_for_a_neighbour_walking_away_at_our_pace() {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    nav.add_type("land", vec![1; 16 * 16]).unwrap();
    let speed = |context_orca: bool| {
        let mut a = Agents::default();
        let v = Vec2::new(2.0, 0.0);
        let goal = Vec2::new(15.0, 8.0);
        push_agent(&mut a, Vec2::new(4.0, 8.0), v, AgentState::Moving, 0, goal);
        push_agent(&mut a, Vec2::new(5.2, 8.0), v, AgentState::Moving, 1, goal);
        let config = SimConfig {
            avoidance: AvoidanceMode::Context,
            techniques: Techniques {
                context_orca,
                ..Techniques::default()
            },
            ..SimConfig::default()
        };
        with_neighbours(&a, &nav, &config, 0, |ctx, slot, n| {
            ctx.context(0, slot, n, Vec2::new(2.0, 0.0))
        })
        .x
    };
    let (with, without) = (speed(true), speed(false));
    assert!(with > 1.8, "with context_orca it walks on: {with}");
    assert!(
        without < with - 0.3,
        "proximity danger slows it: {without} vs {with}"
    );
}

/// A scenario saved when the algorithm's parts were switches still loads: the retired
/// names are ignored, the remaining switches read.
#[test]
fn techniques_saved_with_retired_switches_still_load() {
    let t: Techniques =
        ron::from_str("(resolve_contacts: false, orca_contacts: true, queue_wait: false)").unwrap();
    assert_eq!(
        t,
        Techniques {
            resolve_contacts: false,
            ..Techniques::default()
        }
    );
}

/// A stalled walker whose body touches a gap's jamb, its way leading past the jamb into
/// the gap (seed 1's mixed_gaps-14 in ORCA): backing off up the wall opened a step along
/// the way as soon as going round the corner did, and the search took the first side it
/// tried, so the recovery walked it back, and the flow led it in again, for good. It
/// goes round: the way along the wall that turns back from its way counts as longer.
///
/// The centre's walls (pushed out, as a walker's type has them): cells x ≥ 10 for y ≤ 7
/// and x ≥ 11 for y = 8, a pocket at (10, 8) where the way turns down into the gap. The
/// agent (wall disc 0.1 m) stands at (9.912, 8.375), as the walker did beside (53, 51);
/// its body touches the true jamb with normal (−0.83, 0.55), and its way is (0.98, 0.2).
/// Along either tangent, (−0.55, −0.83) up the wall or (0.55, 0.83) round the corner, a
/// step along the way opens a quarter cell on.
#[test]
fn a_stalled_agent_at_a_corner_goes_round_it_not_back() {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    let mut costs = vec![1u8; 16 * 16];
    for y in 0..=8 {
        let from = if y == 8 { 11 } else { 10 };
        for x in from..16 {
            costs[y * 16 + x] = navstudio_nav::grid::WALL;
        }
    }
    nav.add_type("land", costs).unwrap();
    let normal = Vec2::new(-0.83, 0.55).normalize_or_zero();
    let p = Vec2::new(9.912, 8.375);
    let mut a = Agents::default();
    a.pos_world.push(p);
    a.vel.push(Vec2::ZERO);
    a.radius_m.push(0.1);
    a.move_type.push(MoveType::default());
    let config = SimConfig::default();
    let mut grid = SpatialGrid::default();
    grid.rebuild(&a.pos_world, 1.5);
    let ctx = context(&a, &grid, &[], &nav, &config, &[]);
    assert!((ctx.wall_radius(0) - 0.1).abs() < 1e-6);
    let way = Vec2::new(0.98, 0.2).normalize_or_zero();
    let side = ctx.round_the_wall(0, way, normal).expect("a way round");
    assert!(
        side.dot(way) > 0.5,
        "round the corner, not back up the wall: {side:?}"
    );
}

/// Hand case, queue order in a position pass: two infantry of one order (r 0.4 m) 0.75
/// m apart overlap by 0.05 m; a pass takes `PROJECTION_SHARE` (0.7) of it away. Shared,
/// each moves 0.0175 m apart. Both jammed (stuck 7 s, the jam time 6 s), the one with
/// the longer way (5 m against 4 m) takes all of it, 0.035 m, and the other none. 0.7 m
/// apart the overlap (0.1 m) is past the hard depth (0.08 m): the one behind takes all
/// of it, 0.07 m, and the one ahead half, 0.035 m.
#[test]
fn in_a_jam_the_one_behind_takes_the_whole_overlap() {
    let mut a = Agents::default();
    for x in [0.0, 0.75] {
        a.pos_world.push(Vec2::new(x, 0.0));
        a.radius_m.push(0.4);
        a.mass.push(80.0);
        a.state.push(AgentState::Stuck);
        a.order.push(0);
        a.no_progress_secs.push(7.0);
    }
    let goal_dist = [5.0, 4.0];
    // Agent `i`'s correction with the jam time `jam_secs`.
    let pass = |a: &Agents, jam_secs: f32, i: usize| {
        let mut grid = SpatialGrid::default();
        grid.rebuild(&a.pos_world, 1.0);
        resolve::overlap_correction(a, &grid, i, 0.8, |j| {
            jam_goes_first(a, &goal_dist, jam_secs, i, j)
        })
        .0
    };
    let close = |v: Vec2, x: f32| (v - Vec2::new(x, 0.0)).length() < 1e-5;
    assert!(close(pass(&a, 6.0, 0), -0.035), "{:?}", pass(&a, 6.0, 0));
    assert!(close(pass(&a, 6.0, 1), 0.0), "{:?}", pass(&a, 6.0, 1));
    // Stuck for less than the jam time: shared by priority.
    assert!(close(pass(&a, 8.0, 0), -0.0175), "{:?}", pass(&a, 8.0, 0));
    assert!(close(pass(&a, 8.0, 1), 0.0175), "{:?}", pass(&a, 8.0, 1));
    // Past the hard depth the one ahead takes half.
    a.pos_world[1] = Vec2::new(0.7, 0.0);
    assert!(close(pass(&a, 6.0, 0), -0.07), "{:?}", pass(&a, 6.0, 0));
    assert!(close(pass(&a, 6.0, 1), 0.035), "{:?}", pass(&a, 6.0, 1));
    // Of two orders: shared.
    a.pos_world[1] = Vec2::new(0.75, 0.0);
    a.order[1] = 1;
    assert!(close(pass(&a, 6.0, 0), -0.0175), "{:?}", pass(&a, 6.0, 0));
}

/// ORCA, one infantryman walking at 3 m/s into another of its order 0.75 m ahead (overlap
/// 0.05 m, short of the hard depth of 0.08 m) that is carried the same way at 3 m/s.
/// Opening the overlap in one step of 1/60 s takes 3 m/s apart. Free, each takes half:
/// the one behind follows at 3 − 1.5 = 1.5 m/s. Squeezed into others deeper than the hard
/// share (`pressed` 30 %), the one ahead cannot give way, so the one behind treats it as
/// standing and takes all of it: it backs off at 3 m/s.
#[test]
fn orca_does_not_push_into_an_agent_squeezed_into_others() {
    let mut nav = GridNavigator::new(1.0, 16, 16);
    nav.add_type("land", vec![1; 16 * 16]).unwrap();
    let config = SimConfig {
        avoidance: AvoidanceMode::Orca,
        ..SimConfig::default()
    };
    let walk = |pressed_ahead: f32| {
        let mut a = Agents::default();
        let v = Vec2::new(3.0, 0.0);
        let goal = Vec2::new(15.0, 8.0);
        push_agent(&mut a, Vec2::new(4.0, 8.0), v, AgentState::Moving, 0, goal);
        push_agent(&mut a, Vec2::new(4.75, 8.0), v, AgentState::Moving, 0, goal);
        a.wall_normal = vec![Vec2::ZERO; 2];
        a.pressed = vec![0.0, pressed_ahead];
        with_neighbours(&a, &nav, &config, 0, |ctx, slot, n| {
            ctx.orca(0, slot, n, v, config.orca_time_horizon_secs)
        })
    };
    let (free, squeezed) = (walk(0.0), walk(0.3));
    let close = |v: Vec2, x: f32| (v - Vec2::new(x, 0.0)).length() < 1e-3;
    assert!(close(free, 1.5), "behind a free agent it follows: {free:?}");
    assert!(
        close(squeezed, -3.0),
        "behind a squeezed one it backs off: {squeezed:?}"
    );
}

/// Hand case, a position pass: two infantry of one order (r 0.4 m, travelling) 0.75 m
/// apart overlap by 0.05 m; a pass takes 0.7 of it away, shared: each moves 0.0175 m.
/// Once the second is squeezed into others deeper than the hard share (`pressed` 30 %),
/// the first takes all of it, 0.035 m, and the squeezed one still its share; both
/// squeezed, shared.
#[test]
fn a_squeezed_agent_is_given_the_whole_overlap_by_its_free_neighbour() {
    let mut a = Agents::default();
    for x in [0.0, 0.75] {
        a.pos_world.push(Vec2::new(x, 0.0));
        a.radius_m.push(0.4);
        a.mass.push(80.0);
        a.state.push(AgentState::Moving);
        a.order.push(0);
    }
    let pass = |a: &Agents, i: usize| {
        let mut grid = SpatialGrid::default();
        grid.rebuild(&a.pos_world, 1.0);
        resolve::overlap_correction(a, &grid, i, 0.8, |_| None).0
    };
    let close = |v: Vec2, x: f32| (v - Vec2::new(x, 0.0)).length() < 1e-5;
    a.pressed = vec![0.0, 0.0];
    assert!(close(pass(&a, 0), -0.0175), "{:?}", pass(&a, 0));
    a.pressed = vec![0.0, 0.3];
    assert!(close(pass(&a, 0), -0.035), "{:?}", pass(&a, 0));
    assert!(close(pass(&a, 1), 0.0175), "{:?}", pass(&a, 1));
    a.pressed = vec![0.3, 0.3];
    assert!(close(pass(&a, 0), -0.0175), "{:?}", pass(&a, 0));
}
