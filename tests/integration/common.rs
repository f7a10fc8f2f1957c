//! Shared helpers for the integration tests: generated maps baked in memory.
#![allow(dead_code)]

use navstudio::bake::{self, BakeContext, BakeOptions, Baked};
use navstudio::map::{self, GenerateSpec, Heightmap, MapDocument, MapKind, StampLibrary};
use navstudio::nav::{CostField, GridSpec, NavData, NavWorld, build_layer};
pub use navstudio_nav::rng::SplitMix64 as Rng;

/// A generated map, its heights and the builtin stamps.
pub struct TestMap {
    pub spec: GenerateSpec,
    pub doc: MapDocument,
    pub heightmap: Heightmap,
    pub stamps: StampLibrary,
}

pub fn generated(kind: MapKind) -> TestMap {
    let spec = GenerateSpec::new(kind);
    let g = map::generate(&spec);
    TestMap {
        spec,
        heightmap: map::heightmap_from_u16(g.width, g.height, &g.heights),
        doc: g.document,
        stamps: StampLibrary::builtin().unwrap(),
    }
}

pub fn bake_all(m: &TestMap) -> Baked {
    bake::bake(
        &m.doc,
        &m.heightmap,
        &m.stamps,
        &BakeOptions::default(),
        &mut BakeContext::default(),
    )
    .unwrap()
}

/// Bakes a generated map of any size (e.g. the benchmark terrain below 2048²), only the
/// named movement types when `types` is given.
pub fn bake_generated(
    kind: MapKind,
    width: u32,
    height: u32,
    seed: u64,
    types: Option<Vec<String>>,
) -> Baked {
    let g = map::generate(&GenerateSpec {
        kind,
        width,
        height,
        seed,
    });
    bake::bake(
        &g.document,
        &map::heightmap_from_u16(g.width, g.height, &g.heights),
        &StampLibrary::builtin().unwrap(),
        &BakeOptions {
            types,
            ..BakeOptions::default()
        },
        &mut BakeContext::default(),
    )
    .unwrap()
}

/// A `NavWorld` with one layer (movement type `name`) over a hand-built `w × h` grid of cell
/// costs.
pub fn world_from_cells(name: &str, w: u32, h: u32, sector_size: u32, costs: &[u8]) -> NavWorld {
    NavWorld::from_nav(nav_from_cells(name, w, h, sector_size, costs))
}

/// The nav data of one movement type `name` baked from row-major `costs`.
pub fn nav_from_cells(name: &str, w: u32, h: u32, sector_size: u32, costs: &[u8]) -> NavData {
    let spec = GridSpec {
        width: w,
        height: h,
        sector_size,
    };
    let layer = build_layer(
        name,
        CostField::from_cells(spec, costs),
        &|_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
    .unwrap();
    NavData::new(spec, 1.0, vec![layer])
}

/// The Moving AI maps and scenarios of `../shared/data` (or `$NAVSTUDIO_SHARED_DATA`), if
/// present: tests that need them skip with a note otherwise.
pub fn movingai_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("NAVSTUDIO_SHARED_DATA")
        .map_or_else(
            || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
            std::path::PathBuf::from,
        )
        .join("movingai");
    dir.is_dir().then_some(dir)
}

/// A `w × h` cost grid of open ground (cost 1) inside a one-cell wall border.
pub fn walled_open_ground(w: u32, h: u32) -> Vec<u8> {
    let mut costs = vec![1u8; (w * h) as usize];
    for x in 0..w {
        costs[x as usize] = navstudio::nav::grid::WALL;
        costs[((h - 1) * w + x) as usize] = navstudio::nav::grid::WALL;
    }
    for y in 0..h {
        costs[(y * w) as usize] = navstudio::nav::grid::WALL;
        costs[(y * w + w - 1) as usize] = navstudio::nav::grid::WALL;
    }
    costs
}

/// The manifest of a version 2 package, from its bytes, as JSON (its chunks' offsets, kinds
/// and lengths).
pub fn manifest_json(bytes: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let start = navstudio::package::HEADER_LEN;
    serde_json::from_slice(&bytes[start..start + len]).unwrap()
}

/// Runs the `navstudio` binary with `args` in `dir` and returns what it printed.
pub fn run_cli(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}
