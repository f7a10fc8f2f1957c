//! One way to change the document: panels and tools execute commands as the designer
//! drags or types, so the history holds the edit while it is still going on, undo and redo
//! need no flush, and one gesture is one undo step.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use navstudio::app::App;

use super::{baked_bands, pick_tool, screen_of};

fn max_slope(h: &Harness<'_, App>) -> f32 {
    h.state()
        .state
        .map
        .as_ref()
        .unwrap()
        .document
        .movement_types[0]
        .max_slope_deg
}

fn undo(h: &mut Harness<'_, App>) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.step();
}

fn redo(h: &mut Harness<'_, App>) {
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.step();
}

#[test]
fn a_panel_drag_is_a_command_while_it_lasts_and_undoes_and_redoes_as_one_step() {
    let (_dir, mut h) = baked_bands();
    assert_eq!(max_slope(&h), 35.0);
    let at = h.get_by_label("Max slope").rect().center();
    // Drag the value to the right (0.2° per point), holding the button between frames.
    h.hover_at(at);
    h.step();
    h.drag_at(at);
    h.step();
    h.hover_at(at + egui::vec2(20.0, 0.0));
    h.step();
    let mid = max_slope(&h);
    assert!(mid > 35.0, "the drag changed the type ({mid})");
    assert_eq!(
        h.state().state.history.position(),
        1,
        "mid-drag, the edit is already a command in the history"
    );
    h.hover_at(at + egui::vec2(50.0, 0.0));
    h.step();
    h.drop_at(at + egui::vec2(50.0, 0.0));
    h.step();
    let dragged = max_slope(&h);
    assert!(dragged > mid, "the drag went on ({dragged} after {mid})");
    assert_eq!(
        h.state().state.history.position(),
        1,
        "one drag, one undo step"
    );
    // The Edit menu names the step.
    assert_eq!(
        h.state()
            .state
            .history
            .next_undo()
            .map(navstudio::app::model::commands::Command::label),
        Some("movement type edit")
    );

    undo(&mut h);
    assert_eq!(
        max_slope(&h),
        35.0,
        "undo restores the value before the drag"
    );
    redo(&mut h);
    assert_eq!(max_slope(&h), dragged, "redo gives the dragged value back");
    // A second drag is a second step.
    h.get_by_label("Max slope").set_value_accesskit(50.0);
    h.step();
    h.step();
    assert_eq!(max_slope(&h), 50.0);
    assert_eq!(h.state().state.history.position(), 2);
    undo(&mut h);
    assert_eq!(max_slope(&h), dragged);
}

#[test]
fn a_map_setting_typed_in_its_panel_undoes_and_redoes() {
    let (_dir, mut h) = baked_bands();
    h.get_by_label("Map").click();
    h.step();
    let water = |h: &Harness<'_, App>| h.state().state.map.as_ref().unwrap().document.water_level_m;
    let before = water(&h);
    h.get_by_label("Water level").set_value_accesskit(12.5);
    h.step();
    h.step();
    assert_eq!(water(&h), 12.5);
    assert_eq!(h.state().state.history.position(), 1);
    undo(&mut h);
    assert_eq!(water(&h), before);
    redo(&mut h);
    assert_eq!(water(&h), 12.5);
}

#[test]
fn a_rename_is_one_command_sent_on_enter_and_paint_follows_it() {
    let (_dir, mut h) = baked_bands();
    // Paint for "land" so the rename has a layer to carry.
    pick_tool(&mut h, navstudio::app::tools::Tool::Paint);
    super::drag_cells(&mut h, (4.5, 10.5), (8.5, 10.5));
    let steps = h.state().state.history.position();
    let target = |h: &Harness<'_, App>| {
        h.state().state.map.as_ref().unwrap().document.paint[0]
            .target
            .clone()
    };
    assert_eq!(
        target(&h),
        navstudio::map::PaintTarget::Type("land".to_owned())
    );
    let field = h.get_by_label("Name");
    field.focus();
    h.step();
    h.key_press(Key::End);
    h.step();
    h.get_by_label("Name").type_text("_x");
    h.step();
    let doc = &h.state().state.map.as_ref().unwrap().document;
    assert_eq!(
        doc.movement_types[0].name, "land",
        "nothing reaches the document while typing"
    );
    h.key_press(Key::Enter);
    h.step();
    h.step();
    let doc = &h.state().state.map.as_ref().unwrap().document;
    assert_eq!(doc.movement_types[0].name, "land_x");
    assert_eq!(
        target(&h),
        navstudio::map::PaintTarget::Type("land_x".to_owned()),
        "the paint layer follows the rename"
    );
    assert_eq!(h.state().state.history.position(), steps + 1);
    undo(&mut h);
    let doc = &h.state().state.map.as_ref().unwrap().document;
    assert_eq!(doc.movement_types[0].name, "land");
    assert_eq!(
        target(&h),
        navstudio::map::PaintTarget::Type("land".to_owned())
    );
}

#[test]
fn a_brush_stroke_is_in_the_history_while_it_is_dragged_and_undoes_as_one_step() {
    let (_dir, mut h) = baked_bands();
    pick_tool(&mut h, navstudio::app::tools::Tool::Paint);
    let (a, b, c) = (
        screen_of(&h, 4.5, 10.5),
        screen_of(&h, 10.5, 10.5),
        screen_of(&h, 16.5, 20.5),
    );
    h.hover_at(a);
    h.step();
    h.drag_at(a);
    h.step();
    h.hover_at(b);
    h.step();
    let painted = |h: &Harness<'_, App>| {
        h.state()
            .state
            .map
            .as_ref()
            .unwrap()
            .document
            .paint
            .iter()
            .map(|l| l.cells.iter().filter(|c| c.delta != 0).count())
            .sum::<usize>()
    };
    let mid = painted(&h);
    assert!(mid > 0, "the stroke painted as it was dragged");
    assert_eq!(h.state().state.history.position(), 1);
    h.hover_at(c);
    h.step();
    h.drop_at(c);
    h.step();
    let done = painted(&h);
    assert!(done > mid);
    assert_eq!(
        h.state().state.history.position(),
        1,
        "one stroke, one step"
    );
    undo(&mut h);
    assert_eq!(painted(&h), 0);
    assert!(
        h.state()
            .state
            .map
            .as_ref()
            .unwrap()
            .document
            .paint
            .is_empty(),
        "the layer the stroke made is gone"
    );
    redo(&mut h);
    assert_eq!(painted(&h), done);
}
