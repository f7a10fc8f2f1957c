//! The link tool: click two ends to add a link, drag an end, Delete removes it, each one
//! undo step; the Goal tool's route takes a link across a painted wall; a saved map keeps
//! its links when reopened, and its package opened read-only shows them and routes over them.

use super::*;
use navstudio::app::tools::Tool;

fn links(harness: &Harness<'_, App>) -> Vec<navstudio::map::MapLink> {
    harness
        .state()
        .state
        .map
        .as_ref()
        .unwrap()
        .document
        .links
        .clone()
}

fn ends(harness: &Harness<'_, App>) -> Vec<((u32, u32), (u32, u32))> {
    links(harness)
        .iter()
        .map(|l| ((l.a.x, l.a.y), (l.b.x, l.b.y)))
        .collect()
}

#[test]
fn link_tool_adds_moves_deletes_undoes_and_the_goal_route_takes_the_link() {
    let (dir, mut harness) = baked_bands();
    // A painted wall from top to bottom at x = 20 parts the flat ground from the ramp.
    pick_tool(&mut harness, Tool::Paint);
    harness.state_mut().tools.paint.brush.mode = navstudio::app::tools::BrushMode::ForceWall;
    harness.state_mut().tools.paint.brush.target = navstudio::app::tools::BrushTarget::AllTypes;
    drag_cells(&mut harness, (20.5, 0.5), (20.5, 47.5));
    wait_baked(&mut harness);
    let before = harness.state().state.history.position();

    // Two clicks: the entry on the flat ground, the exit on the ramp.
    pick_tool(&mut harness, Tool::Link);
    click_cell(&mut harness, 10.5, 24.5);
    assert!(ends(&harness).is_empty(), "one click only sets the entry");
    click_cell(&mut harness, 30.5, 24.5);
    assert_eq!(ends(&harness), vec![((10, 24), (30, 24))]);
    assert_eq!(links(&harness)[0].id, 1);
    assert_eq!(harness.state().state.history.position(), before + 1);

    // Undo removes it, redo brings it back.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut harness);
    assert!(ends(&harness).is_empty());
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    settle(&mut harness);
    assert_eq!(ends(&harness), vec![((10, 24), (30, 24))]);

    // Dragging the exit end moves it, one undo step.
    drag_cells(&mut harness, (30.5, 24.5), (32.5, 20.5));
    settle(&mut harness);
    assert_eq!(ends(&harness), vec![((10, 24), (32, 20))]);
    assert_eq!(harness.state().state.history.position(), before + 2);

    // The Goal tool's route from the flat ground to the ramp takes the link.
    pick_tool(&mut harness, Tool::Goal);
    wait_baked(&mut harness);
    harness.drag_at(screen_of(&harness, 35.5, 20.5));
    harness.drop_at(screen_of(&harness, 35.5, 20.5));
    settle_goal(&mut harness);
    harness.state_mut().state.goal.source = Some((5, 24));
    settle_goal(&mut harness);
    let r = harness
        .state()
        .goal_preview
        .result
        .as_ref()
        .expect("a route over the link");
    let traced = r.traced.as_ref().expect("the source's path is traced");
    assert_eq!(
        traced.links.iter().map(|&(_, id)| id).collect::<Vec<_>>(),
        vec![1]
    );
    assert_eq!(traced.goal, (35, 20));

    // Saved and opened again, the map keeps its link.
    let ron = dir.path().join("linked.ron");
    harness.state_mut().save_as(&ron);
    let saved = navstudio::map::load_map(&ron).unwrap();
    assert_eq!(saved.document.links, links(&harness));
    let mut reopened = super::harness(App::new(Some(&ron)).unwrap());
    wait_baked(&mut reopened);
    assert_eq!(links(&reopened), links(&harness), "reopened in the editor");

    // Click an end to select, Delete removes it; undo brings it back.
    pick_tool(&mut harness, Tool::Link);
    click_cell(&mut harness, 10.5, 24.5);
    harness.key_press(Key::Delete);
    settle(&mut harness);
    assert!(ends(&harness).is_empty());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut harness);
    assert_eq!(ends(&harness), vec![((10, 24), (32, 20))]);

    // Exported and opened read-only, the package shows the link and the Goal tool's route
    // takes it; the Link tool, an editing tool, is off.
    let pkg = dir.path().join("linked.navpkg");
    harness.state_mut().export_package(&pkg);
    let exported = links(&harness);
    let mut viewer = super::harness(App::new(Some(&pkg)).unwrap());
    viewer.step();
    assert_eq!(viewer.state().error_message(), None);
    assert!(viewer.state().state.read_only.is_some());
    assert_eq!(
        links(&viewer),
        exported,
        "the package's links, as the map had them"
    );
    assert!(!navstudio::app::tools::Tools::available(
        Tool::Link,
        &viewer.state().state
    ));
    pick_tool(&mut viewer, Tool::Goal);
    viewer.drag_at(screen_of(&viewer, 35.5, 20.5));
    viewer.drop_at(screen_of(&viewer, 35.5, 20.5));
    settle_goal(&mut viewer);
    viewer.state_mut().state.goal.source = Some((5, 24));
    settle_goal(&mut viewer);
    let r = viewer
        .state()
        .goal_preview
        .result
        .as_ref()
        .expect("a route over the package's link");
    let traced = r.traced.as_ref().expect("the source's path is traced");
    assert_eq!(
        traced.links.iter().map(|&(_, id)| id).collect::<Vec<_>>(),
        vec![1]
    );
}
