//! The default showcase map: land units keep out of water, infantry take the canyon, large
//! walkers never enter it.

use super::*;

/// Spawns `archetype_name` agents on the passable cells of a 4 × 4 grid (2 cells apart)
/// from `at`, orders them to `goal` and steps up to `max_steps`, calling `check` with each
/// agent's cell after every step. Returns (agents spawned, agents arrived).
fn cross_showcase(
    nav: &mut WorldNavigator,
    archetype_name: &str,
    at: (u32, u32),
    goal: (u32, u32),
    max_steps: u32,
    mut check: impl FnMut((i32, i32)),
) -> (usize, usize) {
    let arch = archetype(archetype_name);
    let mut sim = Simulation::new(SimConfig::default(), 11);
    let mut ids = Vec::new();
    for dy in 0..4 {
        for dx in 0..4 {
            let p = Vec2::new((at.0 + 2 * dx) as f32 + 0.5, (at.1 + 2 * dy) as f32 + 0.5);
            if let Some(id) = sim.add_agent(&*nav, &arch, p, 0).unwrap() {
                ids.push(id);
            }
        }
    }
    let goal_world = Vec2::new(goal.0 as f32 + 0.5, goal.1 as f32 + 0.5);
    sim.order_move(nav, &ids, goal_world);
    for _ in 0..max_steps {
        sim.step(nav);
        for p in &sim.agents().pos_world {
            check(nav.grid().cell_from_world(*p));
        }
        if sim.agents().state.iter().all(|s| *s == AgentState::Arrived) {
            break;
        }
    }
    let arrived = sim
        .agents()
        .state
        .iter()
        .filter(|s| **s == AgentState::Arrived)
        .count();
    (ids.len(), arrived)
}

/// The checks on the default map (the generated showcase, 640²): land units walk
/// round the lake without ever standing in water, infantry take the narrow canyon through
/// the ridge, and large walkers (1.5 m wall buffer) never enter it.
#[test]
fn on_the_showcase_map_land_keeps_out_of_water_and_large_units_out_of_the_canyon() {
    let m = common::generated(MapKind::Showcase);
    let baked = common::bake_all(&m);
    let w = baked.nav.spec.width;
    let buffers = baked
        .type_indices
        .iter()
        .map(|&t| m.doc.movement_types[t].wall_buffer_m)
        .collect();
    let water: Vec<bool> = m
        .heightmap
        .height01
        .iter()
        .map(|&h| h * m.doc.height_scale_m < m.doc.water_level_m)
        .collect();
    assert!(
        water.iter().filter(|&&b| b).count() > 10_000,
        "the showcase map has a lake"
    );
    let mut nav = WorldNavigator::new(NavWorld::from_nav(baked.nav), buffers);
    let at = |c: (i32, i32)| (c.1 * w as i32 + c.0) as usize;

    // West of the lake (centre 173, 454) to east of it.
    let (spawned, arrived) =
        cross_showcase(&mut nav, "infantry", (40, 400), (330, 430), 60 * 120, |c| {
            assert!(!water[at(c)], "infantry in water at {c:?}");
        });
    assert!(
        spawned >= 12 && arrived == spawned,
        "lake crossing: {arrived} of {spawned} arrived"
    );

    // The canyon cuts the ridge (x ≈ 400..445) along rows 269..272; west of x = 400 is the
    // open approach, where a large walker may stand at the mouth.
    let in_canyon = |c: (i32, i32)| (400..=450).contains(&c.0) && (265..=276).contains(&c.1);
    let mut infantry_in_canyon = false;
    let (spawned, arrived) =
        cross_showcase(&mut nav, "infantry", (370, 266), (480, 270), 60 * 60, |c| {
            infantry_in_canyon |= in_canyon(c);
        });
    assert!(
        spawned >= 12 && arrived == spawned,
        "canyon crossing: {arrived} of {spawned}"
    );
    assert!(infantry_in_canyon, "infantry should take the canyon");

    // Large walkers: the far side is another island for them (their wall buffer closes the
    // canyon), and sent to the canyon's west mouth they stop outside it.
    let large = nav.move_type("large").unwrap();
    assert!(!nav.world.is_reachable(large, (370, 266), (480, 270)));
    let (spawned, arrived) = cross_showcase(
        &mut nav,
        "large walker",
        (350, 262),
        (390, 270),
        60 * 60,
        |c| {
            assert!(!in_canyon(c), "large walker entered the canyon at {c:?}");
        },
    );
    assert!(
        spawned >= 8 && arrived * 10 >= spawned * 9,
        "large walkers: {arrived} of {spawned} reached the canyon mouth"
    );
}
