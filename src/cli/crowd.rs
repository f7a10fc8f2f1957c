//! `navstudio crowd`: the crowd preview headless — the same simulation the editor shows,
//! driven through `NavWorld`, printing its metrics.

use std::path::Path;
use std::time::Instant;

use navstudio::crowd::{
    self, AvoidanceMode, Navigator, Order, Scenario, Simulation, Spawn, SpawnArea, Vec2,
    WorldNavigator,
};
use navstudio::nav::NavWorld;

/// Options of `navstudio crowd` beyond the map.
pub struct CrowdArgs<'a> {
    /// Scenario file; without one, `agents` infantry cross from `from` to `to`.
    pub scenario: Option<&'a Path>,
    /// Steps to run at the scenario's fixed rate.
    pub steps: u64,
    /// Agents of the default scenario.
    pub agents: u32,
    /// Archetype of the default scenario.
    pub archetype: &'a str,
    /// Start cell of the default scenario.
    pub from: Option<(u32, u32)>,
    /// Goal cell of the default scenario.
    pub to: Option<(u32, u32)>,
    /// Local avoidance mode override.
    pub mode: Option<AvoidanceMode>,
}

/// Runs the crowd on a map and prints metrics ten times and at the end.
pub fn crowd_cmd(map_path: &Path, args: &CrowdArgs<'_>) -> Result<(), String> {
    let (loaded, baked, _) = super::bake::load_and_bake(map_path, None, true)?;
    let buffers = baked
        .type_indices
        .iter()
        .map(|&t| loaded.document.movement_types[t].wall_buffer_m)
        .collect();
    let (w, h) = (baked.nav.spec.width, baked.nav.spec.height);
    let cell_m = baked.nav.cell_size_m;
    let mut nav = WorldNavigator::new(NavWorld::from_nav(baked.nav), buffers);
    let mut scenario = match args.scenario {
        Some(path) => Scenario::load(path).map_err(|e| e.to_string())?,
        None => {
            let from = args.from.unwrap_or((w / 4, h / 2));
            let to = args.to.unwrap_or((3 * w / 4, h / 2));
            let ty = crowd::default_archetypes()
                .into_iter()
                .find(|a| a.name == args.archetype)
                .and_then(|a| nav.movement_type_index(&a.movement_type));
            if let Some(ty) = ty
                && !nav.world.is_reachable(ty, from, to)
            {
                return Err(format!(
                    "{}: {},{} cannot reach {},{} for '{}' (different islands, or a wall); pick other --from/--to cells",
                    map_path.display(),
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    args.archetype
                ));
            }
            let world =
                |c: (u32, u32)| Vec2::new((c.0 as f32 + 0.5) * cell_m, (c.1 as f32 + 0.5) * cell_m);
            Scenario {
                seed: 1,
                config: crowd::SimConfig::default(),
                spawns: vec![Spawn {
                    archetype: args.archetype.to_owned(),
                    area: SpawnArea::Center {
                        center_world: world(from),
                    },
                    count: args.agents,
                    group: 0,
                }],
                orders: vec![Order {
                    group: 0,
                    goal_world: world(to),
                    at_step: 0,
                }],
            }
        }
    };
    if let Some(mode) = args.mode {
        scenario.config.avoidance = mode;
    }
    let archetypes = crowd::default_archetypes();
    let mut sim =
        Simulation::from_scenario(&scenario, &archetypes, &nav).map_err(|e| e.to_string())?;
    println!(
        "{} agents on {} ({} × {} cells), {:?} avoidance",
        sim.agents().len(),
        loaded.document.name,
        w,
        h,
        scenario.config.avoidance
    );
    println!("    step  arrived   moving    stuck  speed m/s  collisions  step ms");
    let start = Instant::now();
    let report_every = (args.steps / 10).max(1);
    for i in 0..args.steps {
        sim.step(&mut nav);
        let m = sim.metrics();
        if (i + 1) % report_every == 0 || i + 1 == args.steps {
            println!(
                "{:>8} {:>8} {:>8} {:>8} {:>10.2} {:>11} {:>8.2}",
                m.step + 1,
                m.arrived,
                m.moving,
                m.stuck,
                m.mean_speed_mps,
                m.collisions_resolved,
                m.step_secs * 1000.0
            );
        }
    }
    let _ = nav.grid();
    println!(
        "ran {} steps in {:.2} s",
        args.steps,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
