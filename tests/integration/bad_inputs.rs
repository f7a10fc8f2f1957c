//! The bad-input corpus (`tests/bad_inputs/`, made by `make_corpus.py` there): every file is
//! fed to each entry point that accepts its kind — the library readers and the CLI commands
//! (`validate`, `bake`, `info`, `export`) and, with the `gui` feature, the editor's open path.
//! Each must give a typed error and one clear sentence naming the file, exit non-zero, never
//! panic, and write no output file.

use std::path::{Path, PathBuf};
use std::process::Command;

use navstudio::map::{self, HeightEncoding};
use navstudio::package;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            ["png_", "raw_", "hgt_", "map_", "ron_", "pkg_", "edge_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    files.sort();
    files
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Runs the CLI and checks the refusal: non-zero exit, one `error:` line naming the file,
/// no panic, and `output` (if any) not created.
fn refuses(args: &[&str], file: &Path, output: Option<&Path>) {
    let out = Command::new(env!("CARGO_BIN_EXE_navstudio"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!("navstudio {} on {}", args.join(" "), name_of(file));
    assert!(!out.status.success(), "{what}: exit code 0");
    assert!(!stderr.contains("panicked"), "{what}: panicked: {stderr}");
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "{what}: not one sentence: {stderr}"
    );
    assert!(stderr.starts_with("error: "), "{what}: {stderr}");
    assert!(
        stderr.contains(&name_of(file)) || stderr.contains("does_not_exist.png"),
        "{what}: the message does not name the file: {stderr}"
    );
    if let Some(o) = output {
        assert!(!o.exists(), "{what}: wrote {}", o.display());
    }
}

#[test]
fn corpus_is_large_enough_and_covers_every_kind() {
    let files = corpus();
    let bad = files
        .iter()
        .filter(|p| !name_of(p).starts_with("edge_"))
        .count();
    assert!(bad >= 30, "only {bad} bad inputs");
    for prefix in ["png_", "raw_", "hgt_", "map_", "ron_", "pkg_"] {
        assert!(
            files.iter().any(|p| name_of(p).starts_with(prefix)),
            "no {prefix} file"
        );
    }
}

#[test]
fn library_readers_return_typed_errors() {
    for file in corpus() {
        let name = name_of(&file);
        let message = if name.starts_with("ron_") {
            map::load_map(&file).err().map(|e| e.to_string())
        } else if name.starts_with("pkg_") {
            package::read(&file).err().map(|e| e.to_string())
        } else if name.starts_with("edge_") {
            assert!(
                map::import_heightmap(&file, HeightEncoding::Auto, None).is_ok(),
                "{name} is valid, only unusual"
            );
            continue;
        } else {
            map::import_heightmap(&file, HeightEncoding::Auto, None)
                .err()
                .map(|e| e.to_string())
        };
        let message = message.unwrap_or_else(|| panic!("{name} was accepted"));
        assert!(
            message.contains(&name) || message.contains("does_not_exist.png"),
            "{name}: {message}"
        );
    }
}

#[test]
fn cli_refuses_every_bad_input_and_writes_nothing() {
    let out_dir = tempfile::tempdir().unwrap();
    let pkg_out = out_dir.path().join("out.navpkg");
    let png_out = out_dir.path().join("out.png");
    for file in corpus() {
        let name = name_of(&file);
        let f = file.to_str().unwrap();
        let pkg = pkg_out.to_str().unwrap();
        if name.starts_with("edge_") {
            let ok = Command::new(env!("CARGO_BIN_EXE_navstudio"))
                .args(["bake", f, "-o", pkg])
                .output()
                .unwrap();
            assert!(ok.status.success(), "{name} should bake");
            std::fs::remove_file(&pkg_out).unwrap();
        } else if name.starts_with("pkg_") {
            refuses(&["info", f], &file, None);
            refuses(
                &[
                    "export",
                    f,
                    "--layer",
                    "cost",
                    "--type",
                    "land",
                    "-o",
                    png_out.to_str().unwrap(),
                ],
                &file,
                Some(&png_out),
            );
        } else {
            if name.starts_with("ron_") {
                refuses(&["validate", f], &file, None);
            }
            refuses(&["bake", f, "-o", pkg], &file, Some(&pkg_out));
        }
    }
    let left: Vec<_> = std::fs::read_dir(out_dir.path()).unwrap().collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}

#[cfg(feature = "gui")]
#[test]
fn editor_open_path_refuses_without_losing_the_open_map() {
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/small.ron");
    let mut app = navstudio::app::App::new(Some(&good)).unwrap();
    assert!(app.state.map.is_some());
    for file in corpus() {
        if name_of(&file).starts_with("edge_") {
            continue;
        }
        app.open_path(&file);
        let map = app.state.map.as_ref().expect("the open map is kept");
        assert_eq!(map.document.name, "small", "{}", name_of(&file));
    }
}
