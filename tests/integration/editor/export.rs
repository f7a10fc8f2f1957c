//! Export from the Bake panel: a click is never dropped, and the package holds the bake of
//! the document as it is when written.

use super::*;

/// The land layer's cost at cell `(x, y)` in the package at `path`.
fn package_cost(path: &Path, x: u32, y: u32) -> u8 {
    let pkg = navstudio::package::read(path).unwrap();
    pkg.nav.layers[0].cost.get(x, y)
}

#[test]
fn a_stroke_made_while_nothing_shows_nav_data_is_in_the_exported_package() {
    let (dir, mut h) = baked_bands();
    // Paint walls with the Paint tool, no goal, no nav overlay: the re-bake does not send
    // the nav data back to the editor, which the package is written from.
    pick_tool(&mut h, navstudio::app::tools::Tool::Paint);
    h.state_mut().tools.paint.brush.mode = navstudio::app::tools::BrushMode::ForceWall;
    h.state_mut().tools.paint.brush.target = navstudio::app::tools::BrushTarget::AllTypes;
    drag_cells(&mut h, (4.5, 10.5), (14.5, 10.5));
    wait_baked(&mut h);
    let out = dir.path().join("painted.navpkg");
    h.state_mut().export_package(&out);
    // Written now or once the nav data is fetched.
    for _ in 0..2000 {
        if out.exists() {
            break;
        }
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(out.exists(), "the package was written");
    assert_eq!(
        package_cost(&out, 9, 10),
        navstudio::nav::grid::WALL,
        "the painted wall is in the package"
    );
    assert_ne!(package_cost(&out, 9, 30), navstudio::nav::grid::WALL);
}

#[test]
fn export_clicked_as_a_typed_value_commits_is_not_dropped() {
    // Tall enough that the Bake panel is in view under the Movement types and Crowd panels.
    let dir = tempfile::tempdir().unwrap();
    let png = write_heightmap(dir.path());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1300.0))
        .build_ui_state(|ui, app: &mut App| app.ui_for_test(ui), new_map_app(&png));
    wait_baked(&mut h);
    // Type 80° into Max slope without Enter: the press on Export commits it, which starts
    // a full bake between the press and the release.
    h.get_by_label("Max slope").click();
    h.step();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.step();
    h.get_by_label("Max slope").type_text("80");
    h.step();
    let export = h.get_by_label("Export nav package…").rect().center();
    h.hover_at(export);
    h.step();
    h.drag_at(export);
    h.step();
    // The bake the press started is usually still running as the button is released (it
    // was, every time, when this test ran alone on 2 cores); the button then stays enabled.
    h.drop_at(export);
    h.step();
    h.step();
    assert_eq!(
        h.state()
            .state
            .map
            .as_ref()
            .unwrap()
            .document
            .movement_types[0]
            .max_slope_deg,
        80.0,
        "the press committed the typed value"
    );
    // No system file dialog in tests: the typed-path dialog asks for the file.
    assert!(
        h.query_by_label("Type a path").is_some(),
        "the first click on Export opened the file question"
    );
    let out = dir.path().join("clicked.navpkg");
    h.get_by_label("Path").focus();
    h.step();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.step();
    h.get_by_label("Path").type_text(&out.to_string_lossy());
    h.step();
    h.get_by_label("OK").click();
    for _ in 0..2000 {
        h.step();
        if out.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(out.exists(), "the package was written");
    // At 80° the steep band (42°) is passable: the package holds the new bake.
    assert_ne!(package_cost(&out, 45, 10), navstudio::nav::grid::WALL);
}
