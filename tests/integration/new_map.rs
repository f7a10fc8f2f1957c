//! New maps from real heightmaps at their real scale (`navstudio new`, the pre-fill): the
//! SRTM tile with no flags, and the PNGs with the scale their sources state. Tests that need
//! `../shared/data` skip with a note when it is absent.
//!
//! What is measured, per map, for the `land` type: the share of wall cells after the full
//! bake, the island count as baked, the islands of at least [`SIGNIFICANT_ISLAND_CELLS`]
//! cells, and the share of passable cells outside the largest island. Steep terrain leaves
//! many tiny pockets (a flat cell or three between slopes over the type's max slope); a new
//! map's movement types wall in pockets of up to 16 cells (`min_island_cells`), so the island
//! count as baked is what a designer would call islands.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use navstudio::bake::{self, BakeContext, BakeOptions};
use navstudio::map::{self, StampLibrary, new_map};
use navstudio::nav::grid::WALL;

/// An island smaller than this many cells is a pocket, not a region.
const SIGNIFICANT_ISLAND_CELLS: usize = 10;

fn heightmaps() -> Option<PathBuf> {
    let dir = std::env::var_os("NAVSTUDIO_SHARED_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
        PathBuf::from,
    );
    let dir = dir.join("heightmaps");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} is absent (set NAVSTUDIO_SHARED_DATA); real-heightmap tests skipped",
            dir.display()
        );
        None
    }
}

/// Land numbers of a baked map.
#[derive(Debug)]
struct LandFigures {
    /// Walls as baked, walled-in pockets included.
    wall_share: f64,
    /// Walls from the terrain alone (too steep or under water, stage 3): what a wrong scale
    /// would blow up.
    terrain_wall_share: f64,
    islands: u32,
    significant_islands: usize,
    outside_largest: f64,
    /// Share of passable cells in islands under [`SIGNIFICANT_ISLAND_CELLS`].
    in_pockets: f64,
}

fn land_figures(loaded: &map::LoadedMap) -> LandFigures {
    let baked = bake::bake(
        &loaded.document,
        &loaded.heightmap,
        &StampLibrary::builtin().unwrap(),
        &BakeOptions {
            types: Some(vec!["land".to_owned()]),
            ..BakeOptions::default()
        },
        &mut BakeContext::default(),
    )
    .unwrap();
    let layer = &baked.nav.layers[0];
    let cells = layer.cost.to_cells();
    let walls = cells.iter().filter(|&&c| c == WALL).count();
    let (w, h) = (layer.cost.spec.width, layer.cost.spec.height);
    let mut sizes: BTreeMap<u32, usize> = BTreeMap::new();
    for y in 0..h {
        for x in 0..w {
            let id = layer.islands.island_at(x, y);
            if id != 0 {
                *sizes.entry(id).or_default() += 1;
            }
        }
    }
    let passable: usize = sizes.values().sum();
    assert_eq!(
        sizes.len(),
        layer.islands.count as usize,
        "every island id has cells"
    );
    let largest = sizes.values().copied().max().unwrap_or(0);
    let mask = &baked.cost_layers[0].wall_mask;
    LandFigures {
        wall_share: walls as f64 / cells.len() as f64,
        terrain_wall_share: mask.iter().filter(|&&wall| wall).count() as f64 / mask.len() as f64,
        islands: layer.islands.count,
        significant_islands: sizes
            .values()
            .filter(|&&s| s >= SIGNIFICANT_ISLAND_CELLS)
            .count(),
        outside_largest: 1.0 - largest as f64 / passable.max(1) as f64,
        in_pockets: sizes
            .values()
            .filter(|&&s| s < SIGNIFICANT_ISLAND_CELLS)
            .sum::<usize>() as f64
            / passable.max(1) as f64,
    }
}

/// Runs `navstudio new HEIGHTMAP -o DIR/NAME.ron ARGS`, then loads the written document.
fn cli_new(heightmap: &Path, dir: &Path, args: &[&str]) -> (map::LoadedMap, String) {
    let name = heightmap
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let out = dir.join(format!("{name}.ron"));
    let run = Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .arg("new")
        .arg(heightmap)
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "navstudio new failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    (map::load_map(&out).unwrap(), stdout)
}

#[test]
fn srtm_tile_with_no_flags_bakes_at_its_real_scale() {
    let Some(hm) = heightmaps() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (loaded, stdout) = cli_new(&hm.join("N37W119.hgt"), dir.path(), &[]);
    // 3″ at 37.5° N: 73.5 m east–west, 92.6 m north–south, mean 83.0 m.
    assert!(
        (loaded.document.cell_size_m - 83.03).abs() < 0.05,
        "{}",
        loaded.document.cell_size_m
    );
    assert!((loaded.document.height_scale_m - 3168.0).abs() < 0.5);
    assert!(
        stdout.contains("land") && stdout.contains("terrain walls"),
        "{stdout}"
    );
    assert!(
        loaded
            .document
            .movement_types
            .iter()
            .all(|t| t.min_island_cells == new_map::NEW_MAP_MIN_ISLAND_CELLS)
    );
    let f = land_figures(&loaded);
    eprintln!("N37W119.hgt, no flags: {f:?}");
    assert!(f.islands as usize >= f.significant_islands);
    assert!(f.wall_share < 0.30, "{f:?}");
    assert!(f.islands < 100, "{f:?}");
    assert!(f.outside_largest < 0.01, "{f:?}");
}

#[test]
fn fuji_terrain_rgb_at_zoom_10_scale() {
    let Some(hm) = heightmaps() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A 512-px Mapbox tile at zoom 10 around 35.3° N: 40,075 km / 2^10 / 512 × cos 35.3°.
    let (loaded, _) = cli_new(&hm.join("fuji.png"), dir.path(), &["--cell-size-m", "62.4"]);
    assert_eq!(
        loaded.document.heightmap.encoding,
        map::HeightEncoding::TerrainRgb,
        "a colour tile whose heights are plausible is read as Terrain-RGB"
    );
    assert!((loaded.document.height_scale_m - (3751.0 - 13.7)).abs() < 1.0);
    let f = land_figures(&loaded);
    eprintln!("fuji.png, 62.4 m cells: {f:?}");
    assert!(f.wall_share < 0.30, "{f:?}");
    assert!(f.islands < 100, "{f:?}");
    assert!(f.outside_largest < 0.01, "{f:?}");
}

#[test]
fn grand_canyon_at_10_km_across() {
    let Some(hm) = heightmaps() else { return };
    let dir = tempfile::tempdir().unwrap();
    // 10 km across 1081 px; the PNG holds no metres: the river near the village (~730 m)
    // is the lowest sample and the rim (~2,200 m) the highest, so black..white ≈ 689..2356 m.
    let (loaded, _) = cli_new(
        &hm.join("grand_canyon.png"),
        dir.path(),
        &["--cell-size-m", "9.25", "--height-range-m", "689,2356"],
    );
    let f = land_figures(&loaded);
    eprintln!("grand_canyon.png, 9.25 m cells, 689–2356 m: {f:?}");
    // Its cliffs are real: 29.6 % of the cells are too steep, and walling in the pockets
    // among them takes the baked walls to 30.5 %.
    assert!(f.terrain_wall_share < 0.30, "{f:?}");
    // The canyon really does cut the map apart for a unit that climbs at most 35°: rim,
    // inner platforms and free-standing buttes are separate islands. What must hold is that
    // they are real regions, not noise: almost every passable cell is in an island of at
    // least 10 cells.
    assert!(f.in_pockets < 0.01, "{f:?}");
}

#[test]
fn new_refuses_bad_scale_in_one_sentence() {
    let heightmap = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/small.png");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.ron");
    for (args, want) in [
        (vec!["--height-range-m", "100,0"], "height range"),
        (vec!["--cell-size-m", "0"], "cell size"),
        (vec!["--sector-size", "0"], "sector"),
        (vec!["--movement-preset", "tanks"], "movement preset"),
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_navstudio"))
            .arg("new")
            .arg(&heightmap)
            .arg("-o")
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{args:?} was accepted");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!out.exists(), "{args:?} wrote a document");
    }
}

#[test]
fn new_writes_a_document_that_loads_with_the_given_scale() {
    let heightmap = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/small.png");
    let dir = tempfile::tempdir().unwrap();
    let (loaded, stdout) = cli_new(
        &heightmap,
        dir.path(),
        &[
            "--cell-size-m",
            "2",
            "--height-range-m",
            "100,140",
            "--water-level-m",
            "110",
            "--sector-size",
            "16",
            "--movement-preset",
            "land-hover",
        ],
    );
    let doc = &loaded.document;
    assert_eq!(doc.cell_size_m, 2.0);
    assert_eq!(doc.height_scale_m, 40.0);
    assert_eq!(
        (doc.height_base_m, doc.water_level_m),
        (100.0, 110.0),
        "the document keeps the file's real heights"
    );
    assert_eq!(doc.sector_size, 16);
    let names: Vec<&str> = doc.movement_types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["land", "hover"]);
    assert!(stdout.contains("water:"), "{stdout}");

    // The package's manifest carries the same real heights, and the water is where the
    // document says: below 110 m, i.e. the darkest quarter of the 100–140 m range.
    let ron = dir.path().join("small.ron");
    let pkg = dir.path().join("small.navpkg");
    let out = Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .arg("bake")
        .arg(&ron)
        .arg("-o")
        .arg(&pkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = navstudio::nav::package::read(&pkg).unwrap().manifest;
    let setting = |name: &str| {
        manifest
            .bake_options
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(setting("height_base_m").as_deref(), Some("100"));
    assert_eq!(setting("water_level_m").as_deref(), Some("110"));
    let wet = loaded
        .heightmap
        .height01
        .iter()
        .filter(|&&h| doc.height_m(h) < 110.0)
        .count();
    let preview = navstudio::bake::preview::terrain_preview(doc, &loaded.heightmap);
    let cells = loaded.heightmap.height01.len() as f64;
    assert!(wet > 0, "the test needs some water");
    assert!(
        (preview.water_share - wet as f64 / cells).abs() < 1e-9,
        "water share {} against {wet} of {cells} cells below 110 m",
        preview.water_share
    );
    let prefilled = new_map::prefill(&heightmap).unwrap();
    assert_eq!(
        prefilled.settings.cell_size_m, 1.0,
        "grey PNGs do not say their scale"
    );
}

#[test]
fn bake_takes_the_scale_flags_for_a_heightmap_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_navstudio"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap()
    };
    let ok = run(&[
        "bake",
        "maps/small.png",
        "--cell-size-m",
        "4",
        "--types",
        "land",
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("walls"));
    let refused = run(&["bake", "maps/small.ron", "--cell-size-m", "4"]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("are for a heightmap"), "{stderr}");
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The read end is closed before `validate` has loaded the map, so its first print
    // meets a closed pipe, as `navstudio validate … | head -0` would.
    let mut child = Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .args(["validate", "maps/showcase.ron"])
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        status.success() || status.code() == Some(141),
        "{status:?}: {stderr}"
    );
}

#[test]
fn a_file_argument_opens_the_editor_like_open() {
    // Without a display the editor cannot start: the error must be that one, not
    // "unrecognized subcommand".
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .arg("maps/small.ron")
        .current_dir(root)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!stderr.contains("unrecognized"), "{stderr}");
    assert!(
        stderr.contains("display") || stderr.contains("without the editor"),
        "{stderr}"
    );
}
