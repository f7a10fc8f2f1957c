//! `navstudio scenarios MAP` without a scenario file: traced cost against the
//! fine-direction reference on a weighted map ([`navstudio::cost_scenarios`]).

use std::path::Path;

use navstudio::cost_scenarios::{self, CostScenarioOptions};
use navstudio::movingai::ScenarioOptions;
use navstudio::nav::NavData;
use navstudio::package;

/// Pairs closer than this many cells are drawn again.
const MIN_DISTANCE: u32 = 10;

/// Reads a package whole, or loads and bakes a map document or heightmap.
fn nav_of(map: &Path) -> Result<NavData, String> {
    let is_package = map
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("navpkg"));
    if is_package {
        Ok(package::read(map).map_err(|e| e.to_string())?.nav)
    } else {
        let (_, baked, _) = super::bake::load_and_bake(map, None, true)?;
        Ok(std::sync::Arc::unwrap_or_clone(baked.nav))
    }
}

/// Runs and prints the weighted scenarios.
pub fn cost_scenarios_cmd(
    map: &Path,
    world_options: &ScenarioOptions<'_>,
    pairs: usize,
    seed: u64,
    rows: bool,
    json: bool,
) -> Result<(), String> {
    let nav = nav_of(map)?;
    let layer = match world_options.movement_type {
        None => 0,
        Some(name) => nav
            .layers
            .iter()
            .position(|l| l.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = nav.layers.iter().map(|l| l.name.as_str()).collect();
                format!(
                    "{}: there is no movement type '{name}'; it has {}",
                    map.display(),
                    names.join(", ")
                )
            })?,
    };
    let options = CostScenarioOptions {
        layer,
        pairs,
        seed,
        min_distance: MIN_DISTANCE,
    };
    let r = cost_scenarios::run(nav, &options, world_options)
        .map_err(|e| format!("{}: {e}", map.display()))?;
    if rows {
        for row in &r.row_results {
            println!("{}", serde_json::to_string(row).map_err(|e| e.to_string())?);
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "{} ({}): {} pairs (seed {}), {} not arrived, {} over links left out, traced cost / fine-direction reference mean {:.4} p95 {:.4} max {:.4}, request median {:.0} µs, trace median {:.0} µs",
        map.display(),
        r.movement_type,
        r.rows,
        r.seed,
        r.not_arrived,
        r.over_links,
        r.ratio_mean,
        r.ratio_p95,
        r.ratio_max,
        r.request_us_median,
        r.trace_us_median
    );
    if let Some(w) = r.worst {
        println!(
            "worst pair: ({},{}) -> ({},{}), traced {:.2} reference {:.2}",
            w.start.0, w.start.1, w.goal.0, w.goal.1, w.traced, w.reference
        );
    }
    Ok(())
}
