//! Mixed selections (`Simulation::order_move`): the most restrictive movement type plans one
//! path for every agent it can serve, further paths only for the rest. The types' order is
//! derived from the baked layers (every cell open for the large walkers is open for land
//! units, every cell open for land units is open for hovercraft), not from names.

use std::sync::atomic::AtomicBool;

use navstudio::crowd::{AgentId, Navigator, Simulation, Vec2, WorldNavigator, default_archetypes};
use navstudio::nav::grid::WALL;
use navstudio::nav::{CostField, GridSpec, NavData, NavWorld, build_layer};

const W: u32 = 100;
const H: u32 = 60;

/// A wall across x = 50 with a narrow gap (rows 10–12, closed for large walkers) and a wide
/// one (rows 44–55); right of it land, then a lake (x 70–95) with an island (x 80–89,
/// y 25–34) only hovercraft reach.
fn layers() -> NavData {
    let spec = GridSpec {
        width: W,
        height: H,
        sector_size: 10,
    };
    let mut hover = vec![1_u8; (W * H) as usize];
    let set = |c: &mut Vec<u8>, x: u32, y: u32| c[(y * W + x) as usize] = WALL;
    for x in 0..W {
        set(&mut hover, x, 0);
        set(&mut hover, x, H - 1);
    }
    for y in 0..H {
        set(&mut hover, 0, y);
        set(&mut hover, W - 1, y);
        if !(10..13).contains(&y) && !(44..56).contains(&y) {
            set(&mut hover, 50, y);
        }
    }
    let mut land = hover.clone();
    for y in 1..H - 1 {
        for x in 70..96 {
            if !((80..90).contains(&x) && (25..35).contains(&y)) {
                set(&mut land, x, y);
            }
        }
    }
    let mut large = land.clone();
    for y in 10..13 {
        set(&mut large, 50, y);
    }
    let layer = |name: &str, costs: &[u8]| {
        build_layer(
            name,
            CostField::from_cells(spec, costs),
            &|_| {},
            &AtomicBool::new(false),
        )
        .unwrap()
    };
    NavData::new(
        spec,
        1.0,
        vec![
            layer("land", &land),
            layer("hover", &hover),
            layer("large", &large),
        ],
    )
}

/// Tanks, infantry and large walkers (and hovercraft if asked) left of the wall.
fn selection(hovercraft: bool) -> (Simulation, WorldNavigator, Vec<AgentId>) {
    let nav = WorldNavigator::new(NavWorld::from_nav(layers()), vec![0.0; 3]);
    let mut sim = Simulation::new(navstudio::crowd::SimConfig::default(), 3);
    let archetypes = default_archetypes();
    let mut ids = Vec::new();
    let mut names = vec!["tank", "infantry", "large walker"];
    if hovercraft {
        names.push("hovercraft");
    }
    for (k, name) in names.iter().enumerate() {
        let a = archetypes.iter().find(|a| a.name == *name).unwrap();
        for j in 0..6 {
            let p = Vec2::new(12.0 + 4.0 * j as f32, 16.0 + 6.0 * k as f32);
            ids.push(sim.add_agent(&nav, a, p, 1).unwrap().unwrap());
        }
    }
    (sim, nav, ids)
}

#[test]
fn a_mixed_selection_follows_the_most_restrictive_route() {
    let (mut sim, mut nav, ids) = selection(false);
    let goal = Vec2::new(60.5, 30.5);
    let report = sim.order_move(&mut nav, &ids, goal);
    let large = nav.move_type("large").unwrap();
    assert_eq!(report.unreachable, 0);
    assert_eq!(report.routes, 1, "{:?}", sim.order_routes(report.order));
    assert_eq!(sim.order_routes(report.order), &[(large, 18)]);
    // Nobody squeezes through the narrow gap the large walkers cannot use.
    let mut steps = 0;
    while sim.metrics().arrived < ids.len() as u32 && steps < 60 * 90 {
        sim.step(&mut nav);
        steps += 1;
        for p in &sim.agents().pos_world {
            assert!(
                !(p.x > 48.0 && p.x < 52.0 && p.y < 20.0),
                "an agent took the narrow gap at {p:?}"
            );
        }
    }
    assert_eq!(
        sim.metrics().arrived,
        ids.len() as u32,
        "{:?}",
        sim.metrics()
    );
}

#[test]
fn hovercraft_still_cross_the_lake_when_that_is_the_only_way() {
    let (mut sim, mut nav, ids) = selection(true);
    // On the lake's island: only hovercraft can get there.
    let goal = Vec2::new(85.5, 30.5);
    let report = sim.order_move(&mut nav, &ids, goal);
    let hover = nav.move_type("hover").unwrap();
    assert_eq!(sim.order_routes(report.order), &[(hover, 6)]);
    assert_eq!(report.unreachable, 18);
    let mut steps = 0;
    while sim.metrics().arrived < 6 && steps < 60 * 90 {
        sim.step(&mut nav);
        steps += 1;
    }
    assert_eq!(sim.metrics().arrived, 6, "{:?}", sim.metrics());
    // A goal the large walkers reach: one route for all, hovercraft included.
    let report = sim.order_move(&mut nav, &ids, Vec2::new(60.5, 30.5));
    let large = nav.move_type("large").unwrap();
    let routes = sim.order_routes(report.order).to_vec();
    assert_eq!(routes[0].0, large, "{routes:?}");
    assert_eq!(
        routes.iter().map(|&(_, n)| n).sum::<u32>() + report.unreachable,
        24
    );
}
