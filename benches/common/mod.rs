//! Shared by the benches: a small seeded RNG and the baked 2048 × 2048 benchmark map.
#![allow(dead_code, clippy::unwrap_used)]

use navstudio::bake::{self, BakeContext, BakeOptions, Baked};
use navstudio::map::{self, GenerateSpec, MapKind, StampLibrary};
// Not every bench draws random cells.
#[allow(unused_imports)]
pub use navstudio_nav::rng::SplitMix64 as Rng;

/// The generated benchmark map (`navstudio generate --kind benchmark`), `size` cells a side,
/// baked for `types` (all when `None`).
pub fn baked_benchmark_map(size: u32, types: Option<Vec<String>>) -> Baked {
    let g = map::generate(&GenerateSpec {
        kind: MapKind::Benchmark,
        width: size,
        height: size,
        seed: 1,
    });
    let heightmap = map::heightmap_from_u16(g.width, g.height, &g.heights);
    bake::bake(
        &g.document,
        &heightmap,
        &StampLibrary::builtin().unwrap(),
        &BakeOptions {
            types,
            ..BakeOptions::default()
        },
        &mut BakeContext::default(),
    )
    .unwrap()
}
