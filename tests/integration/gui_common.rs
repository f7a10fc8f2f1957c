//! Helpers for the tests that drive the real editor headlessly (egui_kittest): the harness,
//! waiting for the background bake, and pointer drags between map cells.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use egui::Pos2;
use egui_kittest::Harness;
use navstudio::app::App;

/// The editor in a 1280 × 800 window.
pub fn harness(app: App) -> Harness<'static, App> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, app: &mut App| app.ui_for_test(ui), app)
}

/// Steps frames until the worker is idle and the bake matches the document.
pub fn wait_baked(harness: &mut Harness<'_, App>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        harness.step();
        if harness.state().is_baked() {
            harness.step();
            return;
        }
        assert!(Instant::now() < deadline, "the bake did not finish in 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Screen position of a map position given in cells.
pub fn screen_of(harness: &Harness<'_, App>, x: f32, y: f32) -> Pos2 {
    let vp = harness.state().viewport();
    vp.transform.screen_from_cell(vp.rect, (x, y))
}

/// A primary-button drag in the viewport between two cells, one frame per pointer event.
pub fn drag_cells(harness: &mut Harness<'_, App>, from: (f32, f32), to: (f32, f32)) {
    let (a, b) = (
        screen_of(harness, from.0, from.1),
        screen_of(harness, to.0, to.1),
    );
    harness.hover_at(a);
    harness.step();
    harness.drag_at(a);
    harness.step();
    harness.hover_at(b);
    harness.step();
    harness.drop_at(b);
    harness.step();
}

/// The editor with a heightmap opened and its New map dialog confirmed as pre-filled.
pub fn new_map_app(heightmap: &std::path::Path) -> App {
    let mut app = App::new(Some(heightmap)).unwrap();
    assert!(
        app.confirm_new_map(),
        "the New map dialog did not create the map"
    );
    app
}
