//! Map edits under a running crowd (`WorldNavigator` over a real `NavWorld`): stamps and cost
//! changes rebuild through the queue, the group goes around, and a drained rebuild is
//! re-planned once.

use super::*;
use navstudio::nav::CellRect;
use navstudio::nav::MoveType;

/// Steps until every agent arrived (or `max_steps`), draining the rebuild queue 1 ms per
/// frame as the editor does (on the frames `at_step` returns `true` for), and checks each
/// step: no centre in a wall cell, and while agents travel, not all of them stand still.
/// Returns the steps taken.
fn run_through_changes(
    sim: &mut Simulation,
    nav: &mut WorldNavigator,
    max_steps: u64,
    mut at_step: impl FnMut(u64, &Simulation, &mut WorldNavigator) -> bool,
) -> u64 {
    let start = sim.step_index();
    while sim.step_index() - start < max_steps {
        if at_step(sim.step_index() - start, sim, nav) {
            nav.rebuild(Duration::from_millis(1));
        }
        sim.step(nav);
        let a = sim.agents();
        let mut travelling = 0;
        let mut moving = 0;
        for i in 0..a.len() {
            let (cx, cy) = nav.grid().cell_from_world(a.pos_world[i]);
            assert!(
                !nav.is_wall(MoveType::default(), cx, cy),
                "agent {i} in wall cell ({cx},{cy}) at step {}",
                sim.step_index()
            );
            if a.state[i].is_travelling() {
                travelling += 1;
                if a.vel[i].length() > 0.2 {
                    moving += 1;
                }
            }
        }
        // The first steps of an order accelerate from rest.
        if travelling > 0 && sim.step_index() - start > 5 {
            assert!(
                moving > 0,
                "every travelling agent stopped at step {}",
                sim.step_index()
            );
        }
        if travelling == 0 {
            break;
        }
    }
    sim.step_index() - start
}

#[test]
fn stamp_dropped_on_the_route_rebuilds_through_the_queue_and_the_group_goes_around() {
    // 96 × 64 open ground with a border; the group crosses from x ≈ 12 to x ≈ 84.
    let (w, h) = (96u32, 64u32);
    let costs = crate::common::walled_open_ground(w, h);
    let mut nav = world_navigator(w, h, &costs);
    let infantry = archetype("infantry");
    let mut sim = Simulation::new(SimConfig::default(), 3);
    let spawn = Spawn {
        archetype: "infantry".into(),
        area: SpawnArea::Center {
            center_world: Vec2::new(12.0, 32.0),
        },
        count: 60,
        group: 0,
    };
    assert_eq!(sim.spawn(&nav, &infantry, &spawn).unwrap(), 60);
    let goal = Vec2::new(84.5, 32.5);
    assert_eq!(sim.order_group(&mut nav, 0, goal).moving, 60);

    // A wall 6 cells thick across the straight route, leaving 7 open rows at the top and
    // bottom. Dropped when the group's front is inside its columns, so the front agents
    // are caught in it (and moved out) and the rest must go round through a gap.
    let (sx, sy, sw, sh) = (46u32, 8u32, 6u32, 48u32);
    let in_columns = |p: Vec2| p.x >= sx as f32 && p.x < (sx + sw) as f32;
    let in_stamp = |p: Vec2| in_columns(p) && p.y >= sy as f32 && p.y < (sy + sh) as f32;
    let wall = vec![WALL; (sw * sh) as usize];
    let mut stamp = None;
    let mut behind = Vec::new();
    let mut caught = 0;
    let mut through_gap = [false; 60];
    let mut queued_frames = 0;
    let mut dropped_at = None;
    let routes_before = nav.routes_version();
    let steps = run_through_changes(&mut sim, &mut nav, 60 * 90, |k, sim, nav| {
        let pos = &sim.agents().pos_world;
        let front = pos.iter().map(|p| p.x).fold(0.0f32, f32::max);
        if stamp.is_none() && front > sx as f32 + 1.5 {
            stamp = Some(nav.apply_stamp(&[0], CellRect::at(sx, sy, sw, sh), &wall));
            assert!(
                nav.pending_rebuilds() > 0,
                "the stamp queues sector rebuilds"
            );
            behind = (0..60).filter(|&i| pos[i].x < sx as f32).collect();
            caught = pos.iter().filter(|&&p| in_stamp(p)).count();
            dropped_at = Some(k);
        }
        if stamp.is_some() {
            for (i, &p) in pos.iter().enumerate() {
                through_gap[i] |= in_columns(p) && !in_stamp(p);
            }
        }
        if nav.pending_rebuilds() > 0 {
            assert!(nav.replanning());
            queued_frames += 1;
        }
        // A busy game: the queue gets no frame time for half a second, while the agents
        // walk on the stale routes against the new wall.
        dropped_at.is_some_and(|d| k >= d + 30)
    });
    let stamp = stamp.expect("the group reached the stamp's columns");
    assert!(
        queued_frames > 30,
        "the rebuild waited in the queue: {queued_frames}"
    );
    assert!(
        nav.routes_version() > routes_before,
        "the drained queue re-plans"
    );
    let m = sim.metrics();
    eprintln!(
        "around the stamp: {} of 60 arrived in {:.1} s; {caught} caught in the stamp, {} behind it",
        m.arrived,
        steps as f64 / 60.0,
        behind.len()
    );
    assert_eq!(m.arrived, 60, "{m:?}");
    assert!(caught > 0, "the stamp was dropped on agents");
    assert!(behind.len() >= 30);
    for &i in &behind {
        assert!(through_gap[i], "agent {i} never went round through a gap");
    }

    // Back the other way; the stamp is lifted 2 s in, before they reach it, so they walk
    // straight through where it was.
    assert_eq!(
        sim.order_group(&mut nav, 0, Vec2::new(12.5, 32.5)).moving,
        60
    );
    let mut stamp = Some(stamp);
    let mut used_gap = false;
    let steps_back = run_through_changes(&mut sim, &mut nav, 60 * 90, |k, sim, nav| {
        if k == 120
            && let Some(s) = stamp.take()
        {
            nav.remove_stamp(s);
        }
        used_gap |= sim
            .agents()
            .pos_world
            .iter()
            .any(|&p| in_columns(p) && !(p.y >= sy as f32 && p.y < (sy + sh) as f32));
        true
    });
    assert!(stamp.is_none());
    let m = sim.metrics();
    eprintln!(
        "stamp lifted: {} of 60 back in {:.1} s",
        m.arrived,
        steps_back as f64 / 60.0
    );
    assert_eq!(m.arrived, 60, "{m:?}");
    assert!(
        !used_gap,
        "after the stamp was lifted nobody detours through a gap"
    );
}

#[test]
fn world_navigator_walls_follow_stamps_and_cost_changes() {
    let (w, h) = (48u32, 40u32);
    let mut costs = vec![1u8; (w * h) as usize];
    costs[(5 * w + 7) as usize] = WALL;
    let mut nav = world_navigator(w, h, &costs);
    let check = |nav: &WorldNavigator, what: &str| {
        let layer = &nav.world.nav().layers[0];
        for y in -1..=h as i32 {
            for x in -1..=w as i32 {
                let truth = x < 0
                    || y < 0
                    || x >= w as i32
                    || y >= h as i32
                    || layer.cost.get(x as u32, y as u32) == WALL;
                assert_eq!(
                    nav.is_wall(MoveType::default(), x, y),
                    truth,
                    "{what}: cell ({x}, {y})"
                );
            }
        }
    };
    check(&nav, "built");
    let a = nav.apply_stamp(&[0], CellRect::at(10, 10, 6, 4), &[WALL; 24]);
    // Overlapping the first, and hanging off the map.
    let b = nav.apply_stamp(&[0], CellRect::at(44, 12, 8, 8), &[WALL; 64]);
    let c = nav.apply_stamp(&[0], CellRect::at(12, 8, 3, 5), &[3; 15]);
    check(&nav, "stamped");
    assert!(
        nav.is_wall(MoveType::default(), 10, 10)
            && !nav.is_wall(MoveType::default(), 12, 10)
            && nav.is_wall(MoveType::default(), 47, 12)
    );
    nav.remove_stamp(a);
    check(&nav, "first removed");
    nav.set_cost(0, (7, 5), 1);
    nav.set_cost(0, (20, 20), WALL);
    check(&nav, "cells set");
    nav.remove_stamp(c);
    nav.remove_stamp(b);
    check(&nav, "all removed");
    assert!(
        !nav.is_wall(MoveType::default(), 7, 5)
            && nav.is_wall(MoveType::default(), 20, 20)
            && !nav.is_wall(MoveType::default(), 10, 10)
    );
}

#[test]
fn a_drained_rebuild_is_replanned_once_by_the_crowd_not_also_by_the_world() {
    let (w, h) = (96u32, 64u32);
    let mut costs = vec![1u8; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                costs[(y * w + x) as usize] = WALL;
            }
        }
    }
    let mut nav = world_navigator(w, h, &costs);
    let mut sim = Simulation::new(SimConfig::default(), 4);
    let spawn = Spawn {
        archetype: "infantry".into(),
        area: SpawnArea::Rect {
            min_world: Vec2::new(2.0, 2.0),
            max_world: Vec2::new(40.0, 60.0),
        },
        count: 200,
        group: 0,
    };
    sim.spawn(&nav, &archetype("infantry"), &spawn).unwrap();
    assert_eq!(
        sim.order_group(&mut nav, 0, Vec2::new(88.5, 32.5)).moving,
        200
    );
    for _ in 0..10 {
        sim.step(&mut nav);
    }
    let _ = nav.apply_stamp(&[0], CellRect::at(60, 20, 4, 24), &[WALL; 96]);
    let before = nav.world.a_star_runs();
    assert!(nav.rebuild(Duration::from_secs(10)), "the queue drains");
    assert_eq!(
        nav.world.a_star_runs(),
        before,
        "the world leaves the re-plan to the crowd"
    );
    sim.step(&mut nav);
    let path = sim.agents().path[0].unwrap();
    let sources = nav
        .world
        .path(navstudio::nav::world::PathId(path.0))
        .unwrap()
        .sources
        .len() as u64;
    let runs = nav.world.a_star_runs() - before;
    assert!(
        (1..=sources).contains(&runs),
        "{runs} A* runs for one re-plan of {sources} sources"
    );
    // The new routes know the stamp: every agent still has flow to follow.
    for (i, &p) in sim.agents().pos_world.iter().enumerate() {
        assert!(
            nav.covers(path, p),
            "agent {i} at {p:?} is off the new flow"
        );
    }
}
