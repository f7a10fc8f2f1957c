//! Run-time link changes in the rebuild queue: the link unit keeps to the budget like the
//! other units, and a change touches only the movement types whose usable links changed.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use super::{GoalMove, NavWorld};
use crate::grid::WALL;
use crate::links::NavLink;
use crate::{CostField, GridSpec, NavData, build_layer};

/// A 64 × 40 map in sectors of 8 with a river (x 30..34) land units cannot cross and
/// hover units can: layer 0 is land, layer 1 hover.
fn river_world() -> NavWorld {
    let spec = GridSpec {
        width: 64,
        height: 40,
        sector_size: 8,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let land: Vec<u8> = (0..spec.width * spec.height)
        .map(|i| {
            if (30..34).contains(&(i % spec.width)) {
                WALL
            } else {
                1
            }
        })
        .collect();
    let hover = vec![1_u8; land.len()];
    let layers = [("land", land), ("hover", hover)]
        .into_iter()
        .map(|(name, c)| {
            build_layer(name, CostField::from_cells(spec, &c), &|_| {}, &never).unwrap()
        })
        .collect();
    NavWorld::from_nav(std::sync::Arc::new(NavData::new(spec, 1.0, layers)))
}

fn land_bridge(id: u32, y: u32) -> NavLink {
    let mut l = NavLink::walk(id, (29, y), (34, y));
    l.types = 1;
    l
}

/// A call that spent its budget on a moved goal leaves the link change for the next call
/// (before, the link unit ran in any case, past the budget).
#[test]
fn a_link_change_waits_for_a_call_with_budget_left() {
    let mut world = river_world();
    world.set_links(vec![land_bridge(1, 5)]).unwrap();
    let id = world.request_path(0, &[(5, 5)], (60, 5)).unwrap();
    // A goal moved to another sector: one unit of the queue.
    assert_eq!(
        world.move_goal(id, (60, 30)).unwrap(),
        GoalMove::RouteQueued
    );
    world.add_link(land_bridge(2, 30)).unwrap();
    assert!(!world.rebuild(Duration::ZERO), "the link change waits");
    assert_eq!(world.links().len(), 1, "not applied in the spent call");
    assert_eq!(
        world.path(id).unwrap().goal,
        (60, 30),
        "the moved goal went first"
    );
    assert!(world.pending_rebuilds() > 0);
    while !world.rebuild(Duration::ZERO) {}
    assert_eq!(world.links().len(), 2);
    let traced = world.trace_path(id, (5, 5)).unwrap();
    assert_eq!(traced.goal, (60, 30));
    assert_eq!(traced.links.len(), 1);
}

/// A change to a land-only link keeps the hover type's search layout, landmark tables,
/// goal fields and paths; the land type's are rebuilt and its paths re-planned.
#[test]
fn a_link_change_keeps_what_other_movement_types_built() {
    let mut world = river_world();
    world.set_links(vec![land_bridge(1, 5)]).unwrap();
    world.prepare_landmarks();
    let land = world.request_path(0, &[(5, 5)], (60, 5)).unwrap();
    let hover = world.request_path(1, &[(5, 20)], (60, 20)).unwrap();
    assert!(world.landmarks[1].is_some() && world.search_graphs[1].is_some());
    let hover_route = world.path(hover).unwrap().routes.clone();
    let before = world.cache_stats().misses;
    world.add_link(land_bridge(2, 30)).unwrap();
    while !world.rebuild(Duration::ZERO) {}
    let misses = world.cache_stats().misses;
    assert_eq!(
        misses - before,
        1,
        "only the land path's goal field is built again"
    );
    assert!(
        world.landmarks[1].is_some(),
        "hover keeps its landmark tables"
    );
    assert!(world.search_graphs[1].is_some(), "and its search layout");
    assert_eq!(world.path(hover).unwrap().routes, hover_route);
    let again = world.request_path(1, &[(5, 20)], (60, 20)).unwrap();
    assert_eq!(
        world.cache_stats().misses,
        misses,
        "hover's goal field is reused"
    );
    world.release_path(again);
    // Land was re-planned over its new links.
    assert!(world.search_graphs[0].is_none() || world.layer_links(0).unwrap().ends.len() == 4);
    let traced = world.trace_path(land, (5, 5)).unwrap();
    assert_eq!(traced.links.iter().map(|l| l.1).collect::<Vec<_>>(), [1]);
    assert!(world.layer_links(0).unwrap().ends.len() == 4);
}

/// A version of the data published before a run-time link change keeps the old links; the
/// next one, after the rebuild, has the new ones.
#[test]
fn a_link_change_reaches_the_next_published_version() {
    let mut world = river_world();
    world.set_links(vec![land_bridge(1, 5)]).unwrap();
    let before = world.data();
    world.add_link(land_bridge(2, 30)).unwrap();
    while !world.rebuild(Duration::ZERO) {}
    let after = world.data();
    assert_eq!(before.links().len(), 1);
    assert_eq!(
        after.links().iter().map(|l| l.id).collect::<Vec<_>>(),
        [1, 2],
        "the version after the rebuild has the new link"
    );
}
