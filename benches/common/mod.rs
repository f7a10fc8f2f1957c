//! Shared by the benches: a small seeded RNG and the baked 2048 × 2048 benchmark map.
#![allow(dead_code, clippy::unwrap_used)]

use navstudio::bake::{self, BakeContext, BakeOptions, Baked};
use navstudio::map::{self, GenerateSpec, MapKind, StampLibrary};

/// SplitMix64: deterministic and good enough to pick cells.
pub struct Rng(pub u64);

impl Rng {
    /// A value in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % u64::from(n)) as u32
    }
}

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
