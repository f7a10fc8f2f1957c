//! Crash safety of saves: a child process saves a 1024 × 1024 document with two paint layers
//! over and over, alternating two versions, and is killed with SIGKILL at a random moment.
//! Whatever moment it dies, loading the map afterwards gives exactly one of the two versions
//! — the document and every paint side file from the same save — never a mix, and no error.
//! The child pauses 40 ms between a save's renames (a debug-build hook), so many kills land
//! mid-commit; without the save journal this test fails.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use navstudio::map::{
    self, FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument, PaintCell, PaintForce,
    PaintLayer, PaintTarget, default_movement_types,
};

const SIDE: u32 = 1024;
/// Environment variable that turns `save_loop_child` into the saving child.
const CHILD_DIR: &str = "NAVSTUDIO_SAVE_LOOP_DIR";

/// Version `v` (1 or 2): water level `v` m, every "all" paint cell +10·v, every "land" cell
/// −5·v, so any mix of files from two saves is visible.
fn version(v: i16) -> MapDocument {
    let layer = |target: PaintTarget, file: &str, delta: i16| {
        let mut l = PaintLayer::new(target, file, SIDE, SIDE);
        for c in &mut l.cells {
            *c = PaintCell {
                delta,
                force: PaintForce::None,
            };
        }
        l
    };
    MapDocument {
        version: FORMAT_VERSION,
        name: "crash".to_owned(),
        heightmap: HeightmapSource {
            path: "crash.png".to_owned(),
            encoding: HeightEncoding::Auto,
            no_data: None,
        },
        cell_size_m: 1.0,
        height_scale_m: 50.0,
        height_base_m: 0.0,
        water_level_m: f32::from(v),
        sector_size: 10,
        movement_types: default_movement_types(),
        paint: vec![
            layer(PaintTarget::All, "crash.paint.all.png", 10 * v),
            layer(
                PaintTarget::Type("land".to_owned()),
                "crash.paint.land.png",
                -5 * v,
            ),
        ],
        stamps: Vec::new(),
        links: Vec::new(),
    }
}

fn which_version(dir: &Path) -> i16 {
    let loaded = map::load_map(&dir.join("crash.ron")).unwrap();
    let d = &loaded.document;
    let v = d.water_level_m as i16;
    assert!(v == 1 || v == 2, "water level {}", d.water_level_m);
    assert_eq!(d.paint.len(), 2);
    assert!(
        d.paint[0].cells.iter().all(|c| c.delta == 10 * v),
        "the 'all' paint file is not from version {v}"
    );
    assert!(
        d.paint[1].cells.iter().all(|c| c.delta == -5 * v),
        "the 'land' paint file is not from version {v}"
    );
    v
}

/// In the child (the env var set): saves versions 1 and 2 alternately until killed.
#[test]
fn save_loop_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let path = Path::new(&dir).join("crash.ron");
    let docs = [version(1), version(2)];
    for k in 0.. {
        map::save_map_with_size(&path, &docs[k % 2], SIDE, SIDE).unwrap();
    }
}

#[test]
fn killed_saves_leave_one_whole_version() {
    let dir = tempfile::tempdir().unwrap();
    let heights = map::heightmap_from_u16(4, 4, &[1000; 16]);
    // The heightmap PNG itself is not part of the test: any image of the map's size.
    let big = map::heightmap_from_u16(SIDE, SIDE, &vec![1000; (SIDE * SIDE) as usize]);
    map::write_png16(&dir.path().join("crash.png"), &big).unwrap();
    drop(heights);
    map::save_map_with_size(&dir.path().join("crash.ron"), &version(1), SIDE, SIDE).unwrap();
    assert_eq!(which_version(dir.path()), 1);

    let exe = std::env::current_exe().unwrap();
    let mut seen = [0_u32; 3];
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    let started = Instant::now();
    let kills = 24;
    for _ in 0..kills {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "save_crash::save_loop_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            // Widen the gaps between a save's renames so kills land there often.
            .env("NAVSTUDIO_SAVE_PAUSE_MS", "40")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Past start-up (a few ms), then somewhere inside the saves.
        std::thread::sleep(Duration::from_millis(20 + seed % 400));
        child.kill().unwrap(); // SIGKILL on Unix: no destructor, no cleanup runs
        child.wait().unwrap();
        seen[which_version(dir.path()) as usize] += 1;
    }
    eprintln!(
        "{kills} saves killed in {:.1} s: version 1 left {} times, version 2 {} times",
        started.elapsed().as_secs_f64(),
        seen[1],
        seen[2]
    );
}
