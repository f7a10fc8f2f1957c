//! `navstudio path` on cells it cannot route: a cell off the map is an error naming the cell
//! and the map's size; a goal no source reaches says why (a wall, or another island) and
//! exits non-zero. The reasons are checked against the package's own island ids.

use crate::common::run_cli;
use std::path::{Path, PathBuf};

use navstudio::nav::{NavWorld, StreamOptions};

/// Bakes `maps/NAME.ron` with the CLI into `dir/NAME.navpkg`; returns the package's path.
fn baked(name: &str, dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pkg = dir.join(format!("{name}.navpkg"));
    let map = format!("maps/{name}.ron");
    let out = run_cli(&["bake", &map, "-o", pkg.to_str().unwrap()], root);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    pkg
}

#[test]
fn path_refuses_off_map_cells_and_explains_unreachable_goals() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let pkg = baked("showcase", dir.path());
    let pkg_arg = pkg.to_str().unwrap();

    let world = NavWorld::open(&pkg, StreamOptions::default()).unwrap();
    let land = world
        .nav()
        .layers
        .iter()
        .position(|l| l.name == "land")
        .unwrap();
    let (w, h) = (world.nav().spec.width, world.nav().spec.height);

    // Off the map: one sentence with the cell and the map's size, non-zero exit.
    let off = format!("{},{}", w + 10, 5);
    let out = run_cli(
        &[
            "path", pkg_arg, "--type", "land", "--from", "40,320", "--to", &off,
        ],
        root,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "off-map goal exited 0: {stderr}");
    assert!(stderr.contains(&off), "{stderr}");
    assert!(stderr.contains(&format!("{w} × {h}")), "{stderr}");

    // The first land wall and the first cell on another island than (40,320), by island id.
    let start = (40, 320);
    let home = world.island_at(land, start);
    assert_ne!(home, 0, "the showcase's (40,320) is land");
    let cells = (0..h).flat_map(|y| (0..w).map(move |x| (x, y)));
    let wall = cells
        .clone()
        .find(|&c| world.island_at(land, c) == 0)
        .unwrap();
    let other = cells
        .clone()
        .find(|&c| ![0, home].contains(&world.island_at(land, c)));

    let cell = |c: (u32, u32)| format!("{},{}", c.0, c.1);
    let out = run_cli(
        &[
            "path",
            pkg_arg,
            "--type",
            "land",
            "--from",
            "40,320",
            "--to",
            &cell(wall),
        ],
        root,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "a wall goal exited 0: {stdout}");
    assert!(stdout.contains("is a wall for land"), "{stdout}");

    let out = run_cli(
        &[
            "path",
            pkg_arg,
            "--type",
            "land",
            "--from",
            &cell(wall),
            "--to",
            "600,320",
        ],
        root,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(stdout.contains("the source is a wall"), "{stdout}");

    if let Some(other) = other {
        let out = run_cli(
            &[
                "path",
                pkg_arg,
                "--type",
                "land",
                "--from",
                "40,320",
                "--to",
                &cell(other),
            ],
            root,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success());
        assert!(
            stdout.contains(&format!("is on island {}", world.island_at(land, other))),
            "{stdout}"
        );
    } else {
        println!("the showcase has one land island: the other-island case is not checked");
    }

    // A reachable goal still answers and exits 0.
    let out = run_cli(
        &[
            "path", pkg_arg, "--type", "land", "--from", "40,320", "--to", "600,320",
        ],
        root,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bench_paths_measures_any_package_and_names_a_missing_type() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let pkg = baked("small", dir.path());
    let pkg_arg = pkg.to_str().unwrap();

    // Without --threads one streamed world answers; with it, threads share one NavData.
    for threads in [None, Some("1"), Some("2")] {
        let mut args = vec!["bench-paths", pkg_arg, "--requests", "30", "--json"];
        args.extend(threads.iter().flat_map(|t| ["--threads", *t]));
        args.extend(["--slowest", "3"]);
        let out = run_cli(&args, root);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(v["requests"], 30, "{stdout}");
        assert_eq!(v["threads"].to_string(), threads.unwrap_or("1"));
        let data = if threads.is_some() {
            "shared"
        } else {
            "streamed"
        };
        assert_eq!(v["data"], data, "{stdout}");
        let (median, p99, max) = (
            v["median_ms"].as_f64().unwrap(),
            v["p99_ms"].as_f64().unwrap(),
            v["max_ms"].as_f64().unwrap(),
        );
        assert!(0.0 < median && median <= p99 && p99 <= max, "{stdout}");

        // The slowest requests come out slowest first, the first as slow as the max, with
        // cells that `navstudio path` plans again.
        let slowest = v["slowest"].as_array().unwrap();
        assert_eq!(slowest.len(), 3, "{stdout}");
        let ms: Vec<f64> = slowest.iter().map(|r| r["ms"].as_f64().unwrap()).collect();
        assert!(ms.windows(2).all(|w| w[0] >= w[1]), "{stdout}");
        assert!((ms[0] - max).abs() < 1e-3, "{stdout}");
        let cell = |c: &serde_json::Value| format!("{},{}", c[0], c[1]);
        let (from, to) = (cell(&slowest[0]["from"]), cell(&slowest[0]["to"]));
        let out = run_cli(
            &[
                "path", pkg_arg, "--type", "land", "--from", &from, "--to", &to,
            ],
            root,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("reachable  true"),
            "{text}"
        );
    }

    for threads in [&[][..], &["--threads", "2"][..]] {
        let mut args = vec!["bench-paths", pkg_arg, "--type", "boat"];
        args.extend(threads);
        let out = run_cli(&args, root);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains("no movement type 'boat'"), "{stderr}");
    }
}
