//! Autosave recovery after a killed editor. A child process runs the real editor headlessly
//! (egui_kittest), opens a saved map and paints stroke after stroke with the Paint tool,
//! autosaving after each; before each autosave it records the document it holds. The parent
//! kills it with SIGKILL at a random moment (the child's saves pause between renames, so
//! many kills land inside an autosave), then opens the map as a designer would: the map on
//! disk is untouched, the editor offers the recovery copy, and clicking Restore brings back
//! the document of the last or the one-before-last autosave byte-for-byte — never a mix
//! and never an error.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable;
use navstudio::app::App;
use navstudio::app::backend;
use navstudio::map::{MapDocument, PaintForce};

use crate::gui_common::{drag_cells, harness, wait_baked};

const W: u32 = 56;
const H: u32 = 48;
/// Environment variable that turns `autosave_child` into the painting child.
const CHILD_DIR: &str = "NAVSTUDIO_AUTOSAVE_CHILD_DIR";

/// A gentle 16-bit slope (no walls needed: the test is about paint surviving).
fn write_heightmap(dir: &Path) -> PathBuf {
    let mut img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::new(W, H);
    for (x, y, p) in img.enumerate_pixels_mut() {
        p.0[0] = (2000 + 90 * x + 40 * y) as u16;
    }
    let path = dir.join("field.png");
    img.save(&path).unwrap();
    path
}

/// The document as bytes: its RON (every setting, stamp and layer header) followed by
/// every paint cell, so two documents compare byte-for-byte.
fn document_bytes(doc: &MapDocument) -> Vec<u8> {
    let mut out = ron::ser::to_string_pretty(doc, ron::ser::PrettyConfig::default())
        .unwrap()
        .into_bytes();
    for layer in &doc.paint {
        out.extend_from_slice(format!("\n{:?} {}\n", layer.target, layer.cells.len()).as_bytes());
        for c in &layer.cells {
            out.extend_from_slice(&c.delta.to_le_bytes());
            out.push(match c.force {
                PaintForce::None => 0,
                PaintForce::Wall => 1,
                PaintForce::Clear => 2,
            });
        }
    }
    out
}

fn state_file(dir: &Path, k: u32) -> PathBuf {
    dir.join(format!("state_{k}.bin"))
}

/// In the child (the env var set): opens `field.ron`, then for k = 1, 2, … paints a stroke
/// on row k, records the document as `state_k.bin` and autosaves; runs until killed.
#[test]
fn autosave_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let mut harness = harness(App::new(Some(&dir.join("field.ron"))).unwrap());
    wait_baked(&mut harness);
    harness.get_by_label("Paint").click();
    harness.step();
    for k in 1..H {
        let row = k as f32 + 0.5;
        drag_cells(&mut harness, (2.5, row), (W as f32 - 2.5, row));
        assert!(harness.state().state.is_modified());
        let doc = &harness.state().state.map.as_ref().unwrap().document;
        // Written whole (rename) so the parent never reads half a record.
        let tmp = dir.join("state.tmp");
        std::fs::write(&tmp, document_bytes(doc)).unwrap();
        std::fs::rename(&tmp, state_file(&dir, k)).unwrap();
        harness.state_mut().autosave_now();
    }
    // Out of rows: idle until killed.
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[test]
fn killed_editor_recovers_the_last_autosave() {
    let exe = std::env::current_exe().unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let kills = 12;
    // Kills that landed between an autosave's renames (its journal left behind).
    let mut mid_commit = 0;
    let started = Instant::now();
    let mut restored_states = Vec::new();
    for round in 0..kills {
        let dir = tempfile::tempdir().unwrap();
        let png = write_heightmap(dir.path());
        let ron = dir.path().join("field.ron");
        let new = backend::new_map_from_heightmap(&png).unwrap();
        backend::save_map(&ron, &new.document, &new.heightmap).unwrap();
        let saved_ron = std::fs::read(&ron).unwrap();

        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "autosave_kill::autosave_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            // Widen the gaps between an autosave's renames so kills land inside it.
            .env("NAVSTUDIO_SAVE_PAUSE_MS", "30")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait until the first autosave has finished (state 2 is recorded after it)…
        let deadline = Instant::now() + Duration::from_secs(120);
        while !state_file(dir.path(), 2).exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the editor child exited early: {status}");
            }
            assert!(Instant::now() < deadline, "the child never autosaved");
            std::thread::sleep(Duration::from_millis(10));
        }
        // … then kill it somewhere in the following strokes and autosaves.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(seed % 600));
        child.kill().unwrap(); // SIGKILL on Unix: no destructor, no cleanup runs
        child.wait().unwrap();

        let last = (1..)
            .take_while(|&k| state_file(dir.path(), k).exists())
            .last()
            .unwrap();
        // The map itself was never saved by the child.
        assert_eq!(
            std::fs::read(&ron).unwrap(),
            saved_ron,
            "round {round}: map changed"
        );

        let journal = dir.path().join(".field.recovery/.field.ron.saving");
        mid_commit += usize::from(journal.exists());

        // Open the map like a designer: the recovery is offered; click Restore.
        let mut harness = harness(App::new(Some(&ron)).unwrap());
        harness.step();
        assert!(
            harness.state().recovery_offer().is_some(),
            "round {round}: no recovery offered after the kill"
        );
        harness.get_by_label("Restore").click();
        harness.step();
        let app = harness.state();
        assert!(app.recovery_offer().is_none());
        let map = app.state.map.as_ref().unwrap();
        assert_eq!(map.path.as_deref(), Some(ron.as_path()));
        assert!(
            app.state.is_modified(),
            "restored changes still need a save"
        );
        let restored = document_bytes(&map.document);
        // The autosave of state `last` may or may not have completed; anything else (an
        // older state, a mix of two, a partial write) is a failure.
        let which = [last, last - 1]
            .into_iter()
            .find(|&k| std::fs::read(state_file(dir.path(), k)).unwrap() == restored);
        let Some(which) = which else {
            panic!(
                "round {round}: the restored document is neither state {last} nor {}",
                last - 1
            );
        };
        restored_states.push((which, last));
        // Not trivially equal: the restored document carries the strokes.
        let painted = map.document.paint[0]
            .cells
            .iter()
            .filter(|c| c.delta != 0)
            .count();
        assert!(
            painted >= (W as usize - 4) * which as usize / 2,
            "round {round}: {painted} painted cells"
        );
    }
    eprintln!(
        "{kills} editors killed in {:.1} s ({mid_commit} inside an autosave's renames); (restored state, last recorded state): {restored_states:?}",
        started.elapsed().as_secs_f64()
    );
}
