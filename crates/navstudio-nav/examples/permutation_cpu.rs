//! Times bake step 7 (`build_layer`: windows, islands, flow tiles and in-sector weights) on
//! each movement type of a package, on one thread, and prints the CPU seconds with a hash of
//! the tiles and the graph, so two builds of the integrator can be compared for speed and for
//! identical output:
//!
//! ```sh
//! cargo run --release -p navstudio-nav --example permutation_cpu -- m4096.navpkg [RUNS]
//! ```

use std::hash::{Hash, Hasher};
use std::sync::atomic::AtomicBool;

/// CPU seconds this process has used (user + system), from `/proc/self/stat`; `None` where
/// that file does not exist.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (in parentheses): utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        return Err("usage: permutation_cpu PACKAGE.navpkg [RUNS]".to_owned());
    };
    let runs: usize = match args.get(2) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("RUNS must be a whole number, not '{s}'"))?,
        None => 1,
    };
    let pkg =
        navstudio_nav::package::read(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    let cancel = AtomicBool::new(false);
    for layer in &pkg.nav.layers {
        for _ in 0..runs.max(1) {
            let before = cpu_seconds();
            let start = std::time::Instant::now();
            let built = pool
                .install(|| {
                    navstudio_nav::build_layer(&layer.name, layer.cost.clone(), &|_| {}, &cancel)
                })
                .ok_or("the build was cancelled")?;
            let wall = start.elapsed().as_secs_f64();
            let cpu = cpu_seconds()
                .zip(before)
                .map_or_else(|| "n/a".to_owned(), |(b, a)| format!("{:.2} s", b - a));
            let mut hash = std::collections::hash_map::DefaultHasher::new();
            for tile in &built.flows.tiles {
                tile[..].hash(&mut hash);
            }
            built.flows.node_tile.hash(&mut hash);
            for n in 0..built.nodes.len() as u32 {
                for edge in built.graph.edges(n) {
                    edge.hash(&mut hash);
                }
            }
            println!(
                "{}: CPU {cpu}, wall {wall:.2} s, tiles and graph hash {:016x}",
                layer.name,
                hash.finish()
            );
        }
    }
    Ok(())
}
