//! The editor as a newcomer meets it (egui_kittest, 1280 × 800, no display): the New map
//! dialog of a heightmap, a viewport that stays put when the tool changes, and crowd
//! controls in view without scrolling.

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use navstudio::app::App;
use navstudio::app::tools::Tool;

use crate::gui_common::{harness, wait_baked};

const W: u32 = 60;
const H: u32 = 40;

/// 0–100 m grey PNG: flat at 10 m with a one-cell ridge of 30 m down column 30. Central
/// differences give the ridge's flanks (columns 29 and 31) a slope of atan(20 m / 2 cells):
/// 84° with 1 m cells, walls that leave three land islands (west, east, the flat crest);
/// 18° with 30 m cells, under land's 35° limit, so one island.
fn write_ridge(dir: &Path) -> PathBuf {
    let mut img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::new(W, H);
    for (x, _, p) in img.enumerate_pixels_mut() {
        let metres = if x == 30 { 30.0 } else { 10.0 };
        p.0[0] = (metres / 100.0 * 65535.0_f64).round() as u16;
    }
    let path = dir.join("ridge.png");
    img.save(&path).unwrap();
    path
}

fn land_islands(app: &App) -> u32 {
    app.state.nav.as_ref().expect("baked nav data").layers[0]
        .islands
        .count
}

#[test]
fn new_map_dialog_sets_the_cell_size_before_the_first_bake() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_ridge(dir.path());
    let mut harness = harness(App::new(Some(&png)).unwrap());
    harness.step();
    assert!(
        harness.state().state.map.is_none(),
        "nothing is opened or baked before the dialog is confirmed"
    );
    let dialog_cell = harness
        .state_mut()
        .new_map_dialog_mut()
        .expect("opening a heightmap shows the New map dialog")
        .settings
        .cell_size_m;
    assert_eq!(dialog_cell, 1.0, "a grey PNG does not say its scale");
    harness.get_by_label("Walls before baking");

    harness.get_by_label("Cell size").set_value_accesskit(30.0);
    harness.step();
    harness.get_by_label("Create map").click();
    harness.step();
    wait_baked(&mut harness);

    let app = harness.state();
    let doc = &app.state.map.as_ref().unwrap().document;
    assert_eq!(doc.cell_size_m, 30.0);
    assert_eq!(land_islands(app), 1, "at 30 m cells the ridge is no wall");

    // The same heightmap at the pre-filled 1 m: the ridge's flanks split the land.
    let mut again = harness_1m(&png);
    wait_baked(&mut again);
    assert_eq!(land_islands(again.state()), 3);
}

fn harness_1m(png: &Path) -> egui_kittest::Harness<'static, App> {
    let mut harness = harness(App::new(Some(png)).unwrap());
    harness.step();
    harness.get_by_label("Create map").click();
    harness.step();
    harness
}

#[test]
fn new_map_dialog_cancel_keeps_the_open_map() {
    let dir = tempfile::tempdir().unwrap();
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/small.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    let png = write_ridge(dir.path());
    harness.state_mut().open_path(&png);
    harness.step();
    harness.step();
    harness.get_by_label("Create map");
    harness.key_press(egui::Key::Escape);
    harness.step();
    let app = harness.state_mut();
    assert!(app.new_map_dialog_mut().is_none());
    assert_eq!(app.state.map.as_ref().unwrap().document.name, "small");
}

#[test]
fn the_viewport_stays_put_through_every_tool() {
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    let before = harness.state().viewport().rect;
    assert!(before.width() > 400.0, "{before:?}");
    for tool in Tool::ALL.into_iter().chain([Tool::Inspect]) {
        harness.get_by_label(tool.label()).click();
        harness.step();
        harness.step();
        assert_eq!(harness.state().tools.active(), tool);
        assert_eq!(
            harness.state().viewport().rect,
            before,
            "the viewport moved with the {} tool",
            tool.label()
        );
    }
}

#[test]
fn crowd_play_and_step_are_in_view_at_1280_by_800() {
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 800.0));
    let play_label = |h: &egui_kittest::Harness<'_, App>| {
        if h.state().crowd.playing {
            "Pause"
        } else {
            "Play"
        }
    };
    // The Crowd panel further down repeats the buttons; one of each must be in view.
    let in_view = |h: &egui_kittest::Harness<'_, App>, label: &str| {
        h.get_all_by_label(label)
            .map(|n| n.rect())
            .find(|r| window.contains_rect(*r))
    };
    for label in [play_label(&harness), "Step"] {
        assert!(
            in_view(&harness, label).is_some(),
            "no {label} button in view"
        );
    }
    for _ in 0..2 {
        let was_playing = harness.state().crowd.playing;
        let label = play_label(&harness);
        let rect = in_view(&harness, label).unwrap();
        harness.hover_at(rect.center());
        harness.step();
        harness.drag_at(rect.center());
        harness.step();
        harness.drop_at(rect.center());
        harness.step();
        assert_ne!(harness.state().crowd.playing, was_playing, "{label}");
    }
}

#[test]
fn the_overlays_section_stays_put_through_every_tool() {
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    let overlays = |h: &egui_kittest::Harness<'_, App>| h.get_by_label("Overlays").rect();
    let before = overlays(&harness);
    for tool in Tool::ALL.into_iter().chain([Tool::Inspect]) {
        harness.get_by_label(tool.label()).click();
        harness.step();
        harness.step();
        assert_eq!(
            overlays(&harness),
            before,
            "the Overlays section moved with the {} tool",
            tool.label()
        );
    }
}

#[test]
fn the_crowd_panel_starts_in_view_at_1280_by_800() {
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    // The toolbar at the top says "Crowd" too; the panel's header is the lower one.
    let crowd = harness
        .get_all_by_label("Crowd")
        .map(|n| n.rect())
        .max_by(|a, b| a.min.y.total_cmp(&b.min.y))
        .unwrap();
    assert!(
        crowd.max.y < 800.0,
        "the Crowd panel's header is at {crowd:?}, below the window"
    );
}

#[test]
fn nothing_is_cut_off_at_1600_by_1000() {
    use egui::accesskit::Role;
    use egui_kittest::kittest::{By, NodeT};
    let showcase = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(
            |ui, app: &mut App| app.ui_for_test(ui),
            App::new(Some(&showcase)).unwrap(),
        );
    wait_baked(&mut harness);
    // Open the folded Map section, as the designer did, on a map 100 km across (a real
    // heightmap's 83 m cells give such figures).
    {
        use navstudio::app::model::commands::{Command, MapSettings};
        let state = &mut harness.state_mut().state;
        let before = MapSettings::of(&state.map.as_ref().unwrap().document);
        let after = MapSettings {
            cell_size_m: 156.0,
            ..before.clone()
        };
        state.execute(Command::EditMapSettings { before, after });
    }
    harness.step();
    wait_baked(&mut harness);
    harness.get_by_label("Map").click();
    harness.step();
    harness.step();
    let viewport = harness.state().viewport().rect;
    let mut cut = Vec::new();
    for node in harness.query_all(By::new()) {
        let role = node.accesskit_node().role();
        if !matches!(
            role,
            Role::Label | Role::Button | Role::CheckBox | Role::ComboBox | Role::TextInput
        ) {
            continue;
        }
        let label = node.accesskit_node().label().unwrap_or_default();
        let r = node.rect();
        if r.min.y < viewport.min.y || r.min.y >= viewport.max.y {
            continue; // the menu and status bars span the window
        }
        // A side panel's widget must end inside that panel.
        let right_edge = if r.min.x < viewport.min.x {
            viewport.min.x
        } else if r.min.x >= viewport.max.x {
            1600.0
        } else {
            continue;
        };
        if r.max.x > right_edge + 1.0 {
            cut.push(format!(
                "{label:?} {:?} ({role:?}) at {r:?}, past the panel edge {right_edge:.0}",
                node.value()
            ));
        }
    }
    assert!(
        cut.is_empty(),
        "cut off at 1600 × 1000:\n{}",
        cut.join("\n")
    );
}

#[test]
fn a_click_on_the_speed_slider_track_sets_the_speed() {
    use egui_kittest::kittest::{By, NodeT};
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    let before = harness.state().crowd.speed;
    let slider = harness
        .query_all(By::new().role(egui::accesskit::Role::Slider))
        .find(|n| n.accesskit_node().label().as_deref() == Some("Speed"))
        .expect("the Speed slider")
        .rect();
    // Near the right end of the track: a fast speed.
    let at = egui::pos2(slider.max.x - 8.0, slider.center().y);
    harness.hover_at(at);
    harness.step();
    harness.drag_at(at);
    harness.step();
    harness.drop_at(at);
    harness.step();
    let after = harness.state().crowd.speed;
    assert!(
        after > before * 2.0,
        "speed {before} → {after} after a click at {at:?} on {slider:?}"
    );
}

/// Every tool's options fit the tool options area, in the fullest state the showcase gives
/// each (a stamp selected, a goal set with a source and a second goal, the bridge link
/// selected and made a ferry, agents placed): a designer never has to find a control (the Stamp tool's
/// Rotation, say) below a scroll.
#[test]
fn every_tool_s_options_fit_without_scrolling() {
    use navstudio::app::panels::tools::tool_options_overflow;
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    {
        let app = harness.state_mut();
        assert!(
            !app.state.map.as_ref().unwrap().document.stamps.is_empty(),
            "the showcase has stamps"
        );
        app.state.stamp.selected = Some(0);
        app.state.goal.goal = Some((40, 40));
        app.state.goal.source = Some((60, 60));
        app.state.goal.add_goal((80, 40));
        app.crowd.spawn_rect(
            navstudio::crowd::Vec2::new(40.0, 40.0),
            navstudio::crowd::Vec2::new(60.0, 60.0),
        );
    }
    let mut over = Vec::new();
    for tool in Tool::ALL {
        harness.get_by_label(tool.label()).click();
        for _ in 0..4 {
            harness.step();
        }
        if tool == Tool::Link {
            // The showcase's bridge, selected and made a ferry: its longest options.
            harness.get_by_label("link 1").click();
            harness.step();
            harness.get_by_label("Ride").click();
            for _ in 0..4 {
                harness.step();
            }
            let doc = &harness.state().state.map.as_ref().unwrap().document;
            assert!(matches!(
                doc.links[0].kind,
                navstudio::nav::links::LinkKind::Ride { .. }
            ));
        }
        let overflow = tool_options_overflow(&harness.ctx);
        eprintln!("{}: {overflow:.0} px past the options area", tool.label());
        if overflow > 0.0 {
            over.push(format!("{} ({overflow:.0} px)", tool.label()));
        }
    }
    assert!(
        over.is_empty(),
        "options reach below the tool options area: {}",
        over.join(", ")
    );
}

/// F1 opens the Help window and F1 again closes it. (Under Xvfb with software Vulkan the
/// window shows each frame one present late: the Help appears on screen with the next
/// event, see docs/editor.md.)
#[test]
fn f1_opens_and_closes_the_help() {
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut harness = harness(App::new(Some(&small)).unwrap());
    wait_baked(&mut harness);
    assert!(harness.query_by_label("Keyboard and mouse").is_none());
    harness.key_press(egui::Key::F1);
    harness.step();
    harness.step();
    assert!(
        harness.query_by_label("Keyboard and mouse").is_some(),
        "F1 opened no Help"
    );
    harness.key_press(egui::Key::F1);
    harness.step();
    harness.step();
    assert!(harness.query_by_label("Keyboard and mouse").is_none());
}

/// Heights stay real from the New map dialog through the status bar, the saved map and its
/// reopening: a heightmap whose black is 1165 m shows its flat 10 m-above-black ground as
/// 1175 m before and after a save, and the Map panel's lowest height and water level come
/// back as set.
#[test]
fn real_heights_survive_a_save_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let png = write_ridge(dir.path());
    let mut harness = harness(App::new(Some(&png)).unwrap());
    harness.step();
    {
        let dialog = harness.state_mut().new_map_dialog_mut().unwrap();
        dialog.settings.height_black_m = 1165.0;
        dialog.settings.height_white_m = 1265.0;
        dialog.water_on = true;
        dialog.water_level_m = 1170.0;
    }
    harness.get_by_label("Create map").click();
    harness.step();
    wait_baked(&mut harness);
    let shown_height = |h: &mut egui_kittest::Harness<'_, App>| {
        use egui_kittest::kittest::NodeT;
        let vp = h.state().viewport();
        let p = vp.transform.screen_from_cell(vp.rect, (5.5, 5.5));
        h.hover_at(p);
        h.step();
        h.step();
        h.query_by_label_contains("height 11").map(|n| {
            let node = n.accesskit_node();
            format!(
                "{}{}",
                node.label().unwrap_or_default(),
                node.value().unwrap_or_default()
            )
        })
    };
    let settings = |h: &egui_kittest::Harness<'_, App>| {
        let d = &h.state().state.map.as_ref().unwrap().document;
        (d.height_base_m, d.height_scale_m, d.water_level_m)
    };
    assert_eq!(
        shown_height(&mut harness).as_deref(),
        Some("height 1175.00 m")
    );
    assert_eq!(settings(&harness), (1165.0, 100.0, 1170.0));

    let ron = dir.path().join("ridge.ron");
    harness.state_mut().save_as(&ron);
    assert!(!harness.state().state.is_modified());
    drop(harness);
    let mut reopened = crate::gui_common::harness(App::new(Some(&ron)).unwrap());
    wait_baked(&mut reopened);
    assert_eq!(settings(&reopened), (1165.0, 100.0, 1170.0));
    assert_eq!(
        shown_height(&mut reopened).as_deref(),
        Some("height 1175.00 m")
    );
    // The Map panel shows the real lowest height and water level.
    reopened.get_by_label("Map").click();
    reopened.step();
    reopened.step();
    let value_of = |h: &egui_kittest::Harness<'_, App>, label: &str| {
        use egui_kittest::kittest::{By, NodeT};
        h.query_all(By::new().label(label))
            .find_map(|n| n.accesskit_node().numeric_value())
    };
    assert_eq!(value_of(&reopened, "Lowest height"), Some(1165.0));
    assert_eq!(value_of(&reopened, "Water level"), Some(1170.0));
}
