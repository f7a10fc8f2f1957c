//! The Rust side of `examples/c/run.sh`: draws random path requests on a package, writes
//! them to a file for the C program, and prints the answers of the Rust API
//! (`navstudio_nav::NavWorld`) in the C program's format, so the two outputs must be equal.
//!
//! `cargo run -p navstudio-capi --example oracle -- PACKAGE COUNT SEED REQUESTS_OUT`

use navstudio_nav::rng::SplitMix64;
use std::fmt::Write as _;
use std::path::Path;

use navstudio_nav::grid::WALL;
use navstudio_nav::{NavWorld, PathError, package};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, pkg, count, seed, out] = args.as_slice() else {
        return Err("usage: oracle PACKAGE COUNT SEED REQUESTS_OUT".to_owned());
    };
    let count: u32 = count.parse().map_err(|e| format!("COUNT: {e}"))?;
    let seed: u64 = seed.parse().map_err(|e| format!("SEED: {e}"))?;
    let pkg = package::read(Path::new(pkg)).map_err(|e| e.to_string())?;
    let mut world = NavWorld::from_nav(pkg.nav);
    // The package's nav links, as the C API's world takes them.
    world.set_links(pkg.links).map_err(|e| e.to_string())?;
    let (w, h) = (world.nav().spec.width, world.nav().spec.height);
    let layers = world.nav().layers.len() as u32;
    let mut rng = SplitMix64::new(seed);
    let mut requests = String::new();
    for k in 0..count {
        let layer = rng.below(layers) as usize;
        // Mostly open cells (real requests); every tenth unfiltered, to cover the refusals.
        let pick = |rng: &mut SplitMix64| {
            let mut c = (rng.below(w), rng.below(h));
            for _ in 0..50 {
                if k % 10 == 9 || world.nav().layers[layer].cost.get(c.0, c.1) != WALL {
                    break;
                }
                c = (rng.below(w), rng.below(h));
            }
            c
        };
        let from = pick(&mut rng);
        let to = pick(&mut rng);
        let name = world.nav().layers[layer].name.clone();
        writeln!(requests, "{name} {} {} {} {}", from.0, from.1, to.0, to.1)
            .map_err(|e| e.to_string())?;
        print!("{name} {} {} {} {} ", from.0, from.1, to.0, to.1);
        match world.request_path(layer, &[from], to) {
            Err(e) => println!(
                "error {}",
                match e {
                    PathError::UnknownType(_) => "UNKNOWN_MOVEMENT_TYPE",
                    PathError::OffMap(_) => "OFF_MAP",
                    PathError::GoalIsWall(_) | PathError::SourceIsWall(_) => "WALL",
                    PathError::Unreachable(_) => "UNREACHABLE",
                    #[allow(unreachable_patterns, reason = "goal sets add a refusal")]
                    _ => "OTHER",
                }
            ),
            Ok(id) => {
                match world.trace_path(id, from) {
                    Some(t) => println!("traced {:.6} cells {}", t.length, t.cells.len()),
                    None => println!("error NO_FLOW"),
                }
                world.release_path(id);
            }
        }
    }
    std::fs::write(out, requests).map_err(|e| format!("{out}: {e}"))
}
