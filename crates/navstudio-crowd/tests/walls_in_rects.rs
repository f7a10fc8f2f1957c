//! `Navigator::any_wall_in` against its definition: a rectangle holds a wall when
//! `is_wall` says so of one of its cells. Both navigators answer it by rows (cost bytes,
//! wall bits), so the rows' ends, word boundaries of the bits and cells off the map are
//! where they can go wrong; random rectangles on a random map cover them.
#![allow(clippy::unwrap_used)]

use navstudio_crowd::quality::CaseMap;
use navstudio_crowd::rng::SplitMix64;
use navstudio_crowd::testing::GridNavigator;
use navstudio_crowd::{MoveType, Navigator};
use navstudio_nav::grid::WALL;

fn by_cells<N: Navigator>(nav: &N, t: MoveType, x0: i32, y0: i32, x1: i32, y1: i32) -> bool {
    (y0..=y1).any(|y| (x0..=x1).any(|x| nav.is_wall(t, x, y)))
}

#[test]
fn any_wall_in_a_rectangle_is_any_wall_of_its_cells() {
    let seed = 0x5eed_0a11;
    println!("seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    // 67 columns: rows start at every offset within a 64-bit word of wall bits.
    let (w, h) = (67u32, 41u32);
    let mut map = CaseMap::walled(w, h);
    for _ in 0..60 {
        let (x, y) = (rng.below(w), rng.below(h));
        map.fill(x, y, 1 + rng.below(3), 1 + rng.below(3), WALL);
    }
    let world = map.navigator();
    let mut grid = GridNavigator::new(1.0, w, h);
    grid.add_type("land", map.cells.clone()).unwrap();
    let land = MoveType::new(0);
    let large = MoveType::new(2);
    let mut walls = 0;
    for k in 0..4000 {
        let (x0, y0) = (rng.below(w + 8) as i32 - 4, rng.below(h + 8) as i32 - 4);
        let (x1, y1) = (x0 + rng.below(9) as i32 - 1, y0 + rng.below(9) as i32 - 1);
        for (name, t) in [("land", land), ("large", large)] {
            let want = by_cells(&world, t, x0, y0, x1, y1);
            walls += usize::from(want);
            assert_eq!(
                world.any_wall_in(t, x0, y0, x1, y1),
                want,
                "WorldNavigator, {name}, rect {k}: ({x0}, {y0})..=({x1}, {y1})"
            );
        }
        assert_eq!(
            grid.any_wall_in(land, x0, y0, x1, y1),
            by_cells(&grid, land, x0, y0, x1, y1),
            "GridNavigator, rect {k}: ({x0}, {y0})..=({x1}, {y1})"
        );
    }
    // Both answers occur often: the rectangles test something.
    assert!(
        (2000..7000).contains(&walls),
        "{walls} of 8000 rectangles hold a wall"
    );
}
