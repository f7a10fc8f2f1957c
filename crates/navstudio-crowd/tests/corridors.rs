//! Large units on buffered layers: `fit_corridors` and `rejoin_route`, each checked by a
//! run that fails with the technique off.
#![allow(clippy::unwrap_used)]

use navstudio_crowd::testing::{GridNavigator, buffer_walls};
use navstudio_crowd::{
    AgentState, FlowSample, NavGrid, Navigator, PathId, SimConfig, Simulation, Techniques, Vec2,
    default_archetypes,
};
use navstudio_nav::MoveType;
use navstudio_nav::grid::WALL;

const W: u32 = 48;
const H: u32 = 24;
const BUFFER_M: f32 = 1.5;

/// A walled map split by a wall at x = 24..26 with one 3-cell gap (y = 10..13): the
/// `large` layer (walls pushed out by 1.5 cells) keeps a one-cell corridor through it.
fn gap_map() -> GridNavigator {
    let mut cells = vec![1u8; (W * H) as usize];
    for y in 0..H {
        for x in 0..W {
            let border = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            let wall = (24..26).contains(&x) && !(10..13).contains(&y);
            if border || wall {
                cells[(y * W + x) as usize] = WALL;
            }
        }
    }
    let mut nav = GridNavigator::new(1.0, W, H);
    nav.add_type("land", cells.clone()).unwrap();
    nav.add_type("hover", cells.clone()).unwrap();
    let large = buffer_walls(&cells, W, H, BUFFER_M);
    nav.add_buffered_type("large", large, BUFFER_M).unwrap();
    nav
}

fn config(techniques: Techniques) -> SimConfig {
    SimConfig {
        techniques,
        ..SimConfig::default()
    }
}

/// Steps until every agent arrived or `secs` ran out; whether all arrived.
fn all_arrive<N: Navigator>(sim: &mut Simulation, nav: &mut N, secs: f32) -> bool {
    let steps = (secs / sim.config().step_secs) as usize;
    for _ in 0..steps {
        sim.step(nav);
        if sim.agents().state.iter().all(|&s| s == AgentState::Arrived) {
            return true;
        }
    }
    false
}

/// The large layer's only route leads through a one-cell corridor; a walker's disc of its
/// radius less the buffer (1 m) would never enter it, the corridor-fitting disc does.
#[test]
fn a_large_walker_passes_the_corridor_its_route_leads_through() {
    let walker = default_archetypes()
        .into_iter()
        .find(|a| a.name == "large walker")
        .unwrap();
    {
        let mut nav = gap_map();
        let mut sim = Simulation::new(config(Techniques::default()), 3);
        let id = sim
            .add_agent(&nav, &walker, Vec2::new(8.5, 11.5), 0)
            .unwrap()
            .unwrap();
        let report = sim.order_move(&mut nav, &[id], Vec2::new(40.5, 11.5));
        assert_eq!(report.moving, 1);
        assert!(all_arrive(&mut sim, &mut nav, 40.0));
    }
}

/// The grid navigator with the run time's mixed-selection answers: which type's cells
/// another's include, and every source "reached" by a path (as the run time's islands do:
/// a source in the large type's wall buffer still joins the mixed selection's route).
struct Lenient(GridNavigator);

impl Navigator for Lenient {
    fn grid(&self) -> NavGrid {
        self.0.grid()
    }
    fn move_type(&self, name: &str) -> Option<MoveType> {
        self.0.move_type(name)
    }
    fn request_path(&mut self, t: MoveType, sources: &[Vec2], goal: Vec2) -> Option<PathId> {
        self.0.request_path(t, sources, goal)
    }
    fn sample_flow(&self, path: PathId, pos_world: Vec2) -> Option<FlowSample> {
        self.0.sample_flow(path, pos_world)
    }
    fn is_wall(&self, t: MoveType, x: i32, y: i32) -> bool {
        self.0.is_wall(t, x, y)
    }
    fn passable_subset(&self, a: MoveType, b: MoveType) -> bool {
        let cells = (0..H as i32).flat_map(|y| (0..W as i32).map(move |x| (x, y)));
        cells
            .into_iter()
            .all(|(x, y)| self.is_wall(a, x, y) || !self.is_wall(b, x, y))
    }
    fn passable_cells(&self, t: MoveType) -> u64 {
        let cells = (0..H as i32).flat_map(|y| (0..W as i32).map(move |x| (x, y)));
        cells.filter(|&(x, y)| !self.is_wall(t, x, y)).count() as u64
    }
    fn wall_buffer_m(&self, t: MoveType) -> f32 {
        self.0.wall_buffer_m(t)
    }
    fn release_path(&mut self, path: PathId) {
        self.0.release_path(path);
    }
}

/// A mixed selection follows the large walker's route; an infantry standing beside a wall,
/// in a cell that is a wall for the large type, has no flow there: it steps out to the
/// route and arrives (it stood there for ever before it rejoined the route).
#[test]
fn an_infantry_in_the_large_types_walls_rejoins_the_route() {
    let archetypes = default_archetypes();
    let walker = archetypes
        .iter()
        .find(|a| a.name == "large walker")
        .unwrap();
    let infantry = archetypes.iter().find(|a| a.name == "infantry").unwrap();
    {
        let mut nav = Lenient(gap_map());
        let mut sim = Simulation::new(config(Techniques::default()), 5);
        let a = sim
            .add_agent(&nav, walker, Vec2::new(8.5, 11.5), 0)
            .unwrap()
            .unwrap();
        // Against the map's border: a land cell, a wall of the large layer.
        let b = sim
            .add_agent(&nav, infantry, Vec2::new(10.5, 1.5), 0)
            .unwrap()
            .unwrap();
        let report = sim.order_move(&mut nav, &[a, b], Vec2::new(40.5, 11.5));
        assert_eq!((report.moving, report.routes), (2, 1), "one route for both");
        let arrived = all_arrive(&mut sim, &mut nav, 40.0);
        assert!(arrived, "the infantry rejoins the route and arrives");
    }
}

/// `body_walls`: on the benchmark's case maps the `large` layer is `land`'s walls grown by
/// 2.5 m, so its body walls are `land`'s (the first of the two unbuffered types with the
/// same cells); unbuffered types have none.
#[test]
fn a_buffered_type_collides_its_body_with_the_walls_it_was_grown_from() {
    let nav = navstudio_crowd::quality::CaseMap::walled(32, 32).navigator();
    let large = nav.move_type("large").unwrap();
    let land = nav.move_type("land").unwrap();
    assert_eq!(nav.body_walls_type(large), Some(land));
    assert_eq!(nav.body_walls_type(land), None);
}

/// `body_walls` only where the buffer fits the body: a body wider than its layer's buffer
/// by more than half a cell would stand for good at the mouth of every corridor its route
/// leads through, so it keeps colliding with its own layer's walls only.
#[test]
fn body_walls_only_where_the_buffer_fits_the_body() {
    use navstudio_crowd::walls::body_walls_of;
    let nav = navstudio_crowd::quality::CaseMap::walled(32, 32).navigator();
    let large = nav.move_type("large").unwrap();
    let land = nav.move_type("land").unwrap();
    let cell = 1.0;
    assert_eq!(body_walls_of(&nav, large, 2.5, cell, true), Some(land));
    assert_eq!(body_walls_of(&nav, large, 2.9, cell, true), Some(land));
    assert_eq!(body_walls_of(&nav, large, 3.5, cell, true), None);
    assert_eq!(body_walls_of(&nav, large, 2.5, cell, false), None);
}
