//! Editor interaction tests with egui_kittest: headless, no display, no GPU.
//!
//! A small heightmap with three known slope bands is written to a temp dir and opened; the
//! tests then drive the real UI (tool buttons, pointer drags in the viewport, keyboard
//! shortcuts, the Movement types panel) and check the document and the background bake
//! against values computed by hand from the heightmap.
//!
//! This module holds the shared heightmap, harness and pointer helpers; the tests are grouped
//! by what they drive in the submodules.

mod commands;
mod crowd;
mod export;
mod files;
mod links;
mod painting;
mod stamps;
mod tools;

use std::path::{Path, PathBuf};

use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use navstudio::app::App;
use navstudio::map::{PaintForce, PaintTarget};

use crate::gui_common::{drag_cells, harness, new_map_app, screen_of, wait_baked};

const W: u32 = 56;
const H: u32 = 48;
/// `new_map_from_heightmap` gives new maps this height scale; the PNG is encoded for it.
const HEIGHT_SCALE_M: f64 = 100.0;

/// Terrain in metres: flat (x < 20), a 0.4 m/cell ramp (21.8°) for 20 ≤ x < 40, and a
/// 0.9 m/cell ramp (42.0°) beyond. With 1 m cells the "land" type (max slope 35°) has walls
/// exactly on the steep band.
fn height_m(x: u32) -> f64 {
    let x = f64::from(x);
    5.0 + 0.4 * (x.clamp(20.0, 40.0) - 20.0) + 0.9 * (x.max(40.0) - 40.0)
}

fn write_heightmap(dir: &Path) -> PathBuf {
    let mut img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::new(W, H);
    for (x, _, p) in img.enumerate_pixels_mut() {
        p.0[0] = (height_m(x) / HEIGHT_SCALE_M * 65535.0).round() as u16;
    }
    let path = dir.join("bands.png");
    img.save(&path).unwrap();
    path
}

/// Cells steeper than `max_slope_deg` by a central-difference oracle on `height_m`.
fn expected_walls(max_slope_deg: f64) -> usize {
    let slope = |x: u32| {
        let (x0, x1) = (x.saturating_sub(1), (x + 1).min(W - 1));
        ((height_m(x1) - height_m(x0)) / f64::from(x1 - x0))
            .atan()
            .to_degrees()
    };
    (0..W).filter(|&x| slope(x) > max_slope_deg).count() * H as usize
}

fn land_cost(harness: &Harness<'_, App>, x: u32, y: u32) -> u8 {
    harness.state().state.baked.as_ref().unwrap().types[0].final_cost[(y * W + x) as usize]
}

/// The banded test map opened in the editor and baked; keep the directory alive.
fn baked_bands() -> (tempfile::TempDir, Harness<'static, App>) {
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut harness = harness(new_map_app(&png));
    wait_baked(&mut harness);
    (dir, harness)
}

/// Clicks a tool's button by its label and checks it became the active tool.
fn pick_tool(harness: &mut Harness<'_, App>, tool: navstudio::app::tools::Tool) {
    harness.get_by_label(tool.label()).click();
    harness.step();
    assert_eq!(harness.state().tools.active(), tool);
}

fn stamps(harness: &Harness<'_, App>) -> Vec<(String, i32, i32, u8)> {
    harness
        .state()
        .state
        .map
        .as_ref()
        .unwrap()
        .document
        .stamps
        .iter()
        .map(|p| (p.stamp.clone(), p.x, p.y, p.rotation))
        .collect()
}

/// Runs frames until the UI is idle, or a few while a background rebake keeps it
/// repainting (`Harness::run` would call that a failure).
fn settle(harness: &mut Harness<'_, App>) {
    if harness.try_run().is_err() {
        harness.run_steps(2);
    }
}

/// Settles, then steps until the goal thread has delivered the preview of the current pick.
fn settle_goal(harness: &mut Harness<'_, App>) {
    settle(harness);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while harness.state().goal_preview.is_pending() {
        assert!(
            std::time::Instant::now() < deadline,
            "no goal preview in 30 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
        harness.step();
    }
    harness.step();
}

fn click_cell(harness: &mut Harness<'_, App>, x: f32, y: f32) {
    let p = screen_of(harness, x, y);
    harness.hover_at(p);
    harness.step();
    harness.drag_at(p);
    harness.drop_at(p);
    settle(harness);
}

fn right_click(harness: &mut Harness<'_, App>, pos: Pos2) {
    harness.event(egui::Event::PointerMoved(pos));
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        harness.step();
    }
}

/// Scrolls a widget into view and clicks it with the pointer.
fn click_label(harness: &mut Harness<'_, App>, label: &str) {
    harness.get_by_label(label).scroll_to_me();
    // Let the scroll animation finish so the button stays where it is clicked.
    for _ in 0..20 {
        harness.step();
    }
    // Hover first so the previous button's tooltip is gone before the press.
    harness.get_by_label(label).hover();
    harness.step();
    harness.get_by_label(label).click();
    harness.step();
}
