//! The cost-field bake stages (`bake::{slope, terrain_cost, distance, wall_buffer, wall_blur,
//! paint, cost_layers}`) against hand-computed grids and brute-force oracles, and the
//! incremental rebake against the full bake.
#![allow(clippy::float_cmp)]

use navstudio::bake::cost_layers::{
    CellRect, CostInputError, CostInputs, CostLayers, bake_cost_field, reach_cells, rebake_rect,
};
use navstudio::bake::distance::squared_distance_to_walls;
use navstudio::bake::paint::{PlacedFootprint, apply_costs, apply_paint_forces, wall_mask};
use navstudio::bake::slope::{slope_deg, slope_deg_rect};
use navstudio::bake::terrain_cost::{eval_curve, terrain_cost};
use navstudio::bake::wall_blur::blur_cost;
use navstudio::bake::wall_buffer::dilate_walls;
use navstudio::map::{
    MovementType, PaintCell, PaintForce, PaintLayer, PaintTarget, StampCell, WaterRule,
};
use navstudio::nav::grid::WALL;
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

/// SplitMix64: a tiny seeded generator so the random tests are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn random_mask(rng: &mut Rng, w: u32, h: u32, density: f64) -> Vec<bool> {
    (0..w * h).map(|_| rng.chance(density)).collect()
}

/// Brute-force squared distance: every cell against every wall.
fn brute_sqdist(mask: &[bool], w: u32, h: u32) -> Vec<f32> {
    let walls: Vec<(i64, i64)> = (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .filter(|&(x, y)| mask[(y * w as i64 + x) as usize])
        .collect();
    (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .map(|(x, y)| {
            walls
                .iter()
                .map(|&(wx, wy)| ((wx - x).pow(2) + (wy - y).pow(2)) as f32)
                .fold(f32::INFINITY, f32::min)
        })
        .collect()
}

/// Brute-force dilation: scan the disc around each cell for a wall whose centre is closer
/// than `radius + 0.5`.
fn brute_dilate(mask: &[bool], w: u32, h: u32, radius: f32) -> Vec<bool> {
    let reach = f64::from(radius) + 0.5;
    let scan = reach.ceil().min(f64::from(w.max(h))) as i64;
    let mut out = mask.to_vec();
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            for dy in -scan..=scan {
                for dx in -scan..=scan {
                    let (qx, qy) = (x + dx, y + dy);
                    if qx < 0 || qy < 0 || qx >= w as i64 || qy >= h as i64 {
                        continue;
                    }
                    if mask[(qy * w as i64 + qx) as usize]
                        && ((dx * dx + dy * dy) as f64) < reach * reach
                    {
                        out[(y * w as i64 + x) as usize] = true;
                    }
                }
            }
        }
    }
    out
}

/// Brute-force blur from the formula in `wall_blur`'s docs.
fn brute_blur(mask: &[bool], w: u32, h: u32, radius: f32, strength: f32) -> Vec<u8> {
    brute_sqdist(mask, w, h)
        .iter()
        .map(|&d2| {
            let d = d2.sqrt();
            if d2 == 0.0 || d >= radius {
                0
            } else {
                (strength * (1.0 - d / radius)).round().clamp(0.0, 254.0) as u8
            }
        })
        .collect()
}

fn ty_with(buffer_m: f32, blur_m: f32, strength: f32) -> MovementType {
    MovementType {
        name: "t".into(),
        max_slope_deg: 30.0,
        slope_cost: vec![(0.0, 1.0), (10.0, 4.0), (30.0, 20.0)],
        water: WaterRule::Impassable,
        wall_buffer_m: buffer_m,
        blur_radius_m: blur_m,
        blur_strength: strength,
        min_island_cells: 0,
    }
}

fn paint_cell(delta: i16, force: PaintForce) -> PaintCell {
    PaintCell { delta, force }
}

fn layer(cells: Vec<PaintCell>) -> PaintLayer {
    PaintLayer {
        target: PaintTarget::All,
        file: "p.png".into(),
        cells,
    }
}

fn fp(x: i32, y: i32, width: u32, rows: &[&str]) -> PlacedFootprint {
    let cells: Vec<StampCell> = rows
        .iter()
        .flat_map(|r| r.chars())
        .map(|c| match c {
            '.' => StampCell::Transparent,
            '#' => StampCell::Wall,
            d => StampCell::Cost(d.to_digit(10).unwrap() as u8 * 10),
        })
        .collect();
    PlacedFootprint {
        x,
        y,
        width,
        height: rows.len() as u32,
        cells,
    }
}

// ---------------------------------------------------------------- stage 1: slope

#[test]
fn slope_of_a_plane_is_the_same_everywhere_including_edges() {
    // h01 = 3/32·x + 1/8·y; scale 16 m, cell 2 m → gradient (0.75, 1.0), |g| = 1.25.
    let (w, h) = (6, 5);
    let heights: Vec<f32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| 3.0 / 32.0 * x as f32 + 0.125 * y as f32))
        .collect();
    let s = slope_deg(&heights, w, h, 2.0, 16.0);
    let expected = 1.25_f64.atan().to_degrees() as f32; // 51.340 19°
    assert_eq!(s.len(), 30);
    for v in &s {
        assert!((v - expected).abs() < 1e-4, "{v} vs {expected}");
    }
    // Along x only: gradient 1 → 45°.
    let ramp: Vec<f32> = (0..h)
        .flat_map(|_| (0..w).map(|x| x as f32 / 16.0))
        .collect();
    for v in slope_deg(&ramp, w, h, 1.0, 16.0) {
        assert!((v - 45.0).abs() < 1e-4);
    }
    // A 1-wide map has no x gradient; the y gradient still counts.
    let column: Vec<f32> = (0..7).map(|y| y as f32 / 16.0).collect();
    for v in slope_deg(&column, 1, 7, 1.0, 16.0) {
        assert!((v - 45.0).abs() < 1e-4);
    }
    assert_eq!(slope_deg(&[0.3], 1, 1, 1.0, 100.0), vec![0.0]);
}

#[test]
fn slope_of_a_bump_uses_central_and_one_sided_differences() {
    let heights = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    let s = slope_deg(&heights, 3, 3, 1.0, 2.0);
    let steep = 2.0_f64.atan().to_degrees() as f32; // one-sided: (1 - 0) · 2 m / 1 m
    let expected = [0.0, steep, 0.0, steep, 0.0, steep, 0.0, steep, 0.0];
    for (v, e) in s.iter().zip(expected) {
        assert!((v - e).abs() < 1e-4, "{s:?}");
    }
}

#[test]
fn slope_rect_matches_the_full_grid_and_bad_input_is_a_cliff() {
    let mut rng = Rng(7);
    let (w, h) = (13, 9);
    let heights: Vec<f32> = (0..w * h).map(|_| rng.unit()).collect();
    let full = slope_deg(&heights, w, h, 1.5, 7.0);
    let rect = CellRect {
        x0: 3,
        y0: 0,
        x1: 20,
        y1: 4,
    };
    let part = slope_deg_rect(&heights, w, h, 1.5, 7.0, rect);
    let clipped = rect.clip(w, h);
    assert_eq!(part.len(), (clipped.width() * clipped.height()) as usize);
    for y in clipped.y0..clipped.y1 {
        for x in clipped.x0..clipped.x1 {
            let i = ((y - clipped.y0) * clipped.width() + x - clipped.x0) as usize;
            assert_eq!(part[i], full[(y * w + x) as usize]);
        }
    }
    assert!(
        slope_deg(&heights, w, h, 0.0, 7.0)
            .iter()
            .all(|&v| v == 90.0)
    );
    assert!(
        slope_deg(&heights, w, h, f32::NAN, 7.0)
            .iter()
            .all(|&v| v == 90.0)
    );
    assert_eq!(
        slope_deg(&heights, w + 1, h, 1.0, 7.0).len(),
        ((w + 1) * h) as usize
    );
    let mut holes = vec![0.5; 9];
    holes[4] = f32::NAN;
    let s = slope_deg(&holes, 3, 3, 1.0, 1.0);
    assert_eq!(s[1], 90.0);
    assert_eq!(s[0], 0.0);
    assert!(slope_deg(&[], 0, 0, 1.0, 1.0).is_empty());
    assert!(slope_deg(&[], 0, 4, 1.0, 1.0).is_empty());
}

// ---------------------------------------------------------------- stage 2: terrain cost

#[test]
fn terrain_cost_rules() {
    let mut ty = MovementType {
        max_slope_deg: 25.0,
        slope_cost: vec![(0.0, 1.0), (10.0, 11.0), (20.0, 31.0)],
        ..MovementType::default()
    };
    // Heights in metres = h01 · 10; water below 2 m.
    let slope = [5.0, 15.0, 30.0, 25.0, 0.45, 0.55, 80.0, 5.0];
    let h01 = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.5];
    let mut blocked = [false; 8];
    blocked[7] = true;
    let c = terrain_cost(&slope, &h01, &blocked, 10.0, 2.0, &ty);
    assert_eq!(c, vec![6, 21, WALL, 31, 1, 2, WALL, WALL]);
    ty.water = WaterRule::Cost(7);
    let c = terrain_cost(&slope, &h01, &blocked, 10.0, 2.0, &ty);
    assert_eq!(c[6], 7, "water is flat: the 80° bed slope is ignored");
    assert_eq!(c[7], WALL, "blocked beats water");
    assert_eq!(c[..6], [6, 21, WALL, 31, 1, 2]);
    ty.water = WaterRule::Cost(0);
    assert_eq!(terrain_cost(&slope, &h01, &[], 10.0, 2.0, &ty)[6], 1);
    ty.water = WaterRule::Cost(255);
    assert_eq!(terrain_cost(&slope, &h01, &[], 10.0, 2.0, &ty)[6], 254);
    assert_eq!(terrain_cost(&slope, &h01, &[], 10.0, 2.0, &ty)[7], 6);
    // Clamping and flat curves.
    ty.slope_cost = vec![(0.0, 0.0), (20.0, 400.0)];
    assert_eq!(
        terrain_cost(&[0.0, 10.0, 20.0], &[1.0; 3], &[], 1.0, 0.0, &ty),
        vec![1, 200, 254]
    );
    ty.slope_cost = vec![(12.0, 9.0)];
    assert_eq!(
        terrain_cost(&[0.0, 24.0], &[1.0; 2], &[], 1.0, 0.0, &ty),
        vec![9, 9]
    );
    ty.slope_cost = vec![];
    assert_eq!(terrain_cost(&[3.0], &[1.0], &[], 1.0, 0.0, &ty), vec![1]);
    assert_eq!(eval_curve(&[], 3.0), 1.0);
    assert_eq!(eval_curve(&[(1.0, 5.0), (3.0, 9.0)], 2.5), 8.0);
    // Mismatched lengths: walls, no panic.
    assert_eq!(
        terrain_cost(&[1.0, 2.0], &[1.0], &[], 1.0, 0.0, &ty),
        vec![WALL; 2]
    );
    assert!(terrain_cost(&[], &[], &[], 1.0, 0.0, &ty).is_empty());
}

// ---------------------------------------------------------------- stage 4: distance

#[test]
fn distance_matches_brute_force_on_awkward_sizes() {
    let mut rng = Rng(42);
    let sizes = [
        (1, 1),
        (1, 17),
        (17, 1),
        (3, 40),
        (40, 3),
        (128, 2),
        (129, 3),
        (2, 129),
        (300, 4),
        (257, 9),
    ];
    for (w, h) in sizes {
        for density in [0.0, 0.01, 0.1, 0.5, 1.0] {
            let mask = random_mask(&mut rng, w, h, density);
            assert_eq!(
                squared_distance_to_walls(&mask, w, h),
                brute_sqdist(&mask, w, h),
                "{w}×{h} density {density}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn distance_is_exact(w in 1u32..24, h in 1u32..24, seed: u64, density in 0.0f64..0.4) {
        let mask = random_mask(&mut Rng(seed), w, h, density);
        prop_assert_eq!(squared_distance_to_walls(&mask, w, h), brute_sqdist(&mask, w, h));
    }

    #[test]
    fn dilation_matches_a_disc_scan(
        w in 1u32..20, h in 1u32..20, seed: u64, density in 0.0f64..0.2,
        radius in prop::sample::select(vec![0.0f32, 0.5, 0.7, 1.0, 1.2, 1.5, 2.0, 2.3, 3.5, 100.0]),
    ) {
        let mask = random_mask(&mut Rng(seed), w, h, density);
        let sq = squared_distance_to_walls(&mask, w, h);
        prop_assert_eq!(dilate_walls(&mask, &sq, radius), brute_dilate(&mask, w, h, radius));
    }

    #[test]
    fn blur_matches_brute_force(
        w in 1u32..20, h in 1u32..20, seed: u64, density in 0.0f64..0.2,
        radius in prop::sample::select(vec![0.0f32, 1.0, 1.5, 2.0, 3.0, 4.7, 50.0]),
        strength in prop::sample::select(vec![0.0f32, 1.0, 6.0, 100.0, 400.0]),
    ) {
        let mask = random_mask(&mut Rng(seed), w, h, density);
        let sq = squared_distance_to_walls(&mask, w, h);
        prop_assert_eq!(blur_cost(&sq, radius, strength), brute_blur(&mask, w, h, radius, strength));
    }
}

#[test]
fn distance_without_walls_is_infinite() {
    assert!(
        squared_distance_to_walls(&[false; 35], 5, 7)
            .iter()
            .all(|d| *d == f32::INFINITY)
    );
    assert!(squared_distance_to_walls(&[], 0, 0).is_empty());
}

// ---------------------------------------------------------------- stage 5: wall buffer

/// Whether a unit gets from the top row to the bottom row through a wall row with a `gap`
/// cells wide opening, after buffering by `radius` cells.
fn gap_passable(gap: u32, radius: f32) -> bool {
    let (w, h) = (gap + 6, 7);
    let mut mask = vec![false; (w * h) as usize];
    for x in 0..w {
        if x < 3 || x >= 3 + gap {
            mask[(3 * w + x) as usize] = true;
        }
    }
    let sq = squared_distance_to_walls(&mask, w, h);
    let walls = dilate_walls(&mask, &sq, radius);
    let open = |x: u32, y: u32| !walls[(y * w + x) as usize];
    (0..w).filter(|&x| open(x, 0)).any(|start| {
        pathfinding::prelude::bfs(
            &(start, 0u32),
            |&(x, y)| {
                let mut next = Vec::new();
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                    if nx >= 0 && ny >= 0 && nx < i64::from(w) && ny < i64::from(h) {
                        let (nx, ny) = (nx as u32, ny as u32);
                        if open(nx, ny) {
                            next.push((nx, ny));
                        }
                    }
                }
                next
            },
            |&(_, y)| y == h - 1,
        )
        .is_some()
    })
}

#[test]
fn buffer_closes_the_gaps_its_docs_promise() {
    assert!(gap_passable(1, 0.0));
    assert!(gap_passable(1, 0.5));
    assert!(!gap_passable(1, 1.0));
    assert!(gap_passable(2, 0.0));
    assert!(gap_passable(2, 0.5));
    assert!(
        !gap_passable(2, 1.0),
        "a 2-cell gap must close for a 1-cell buffer"
    );
    assert!(gap_passable(3, 1.0));
    assert!(gap_passable(3, 1.5));
    assert!(!gap_passable(3, 2.0));
    assert!(!gap_passable(4, 2.0));
    assert!(gap_passable(5, 2.0));
}

#[test]
fn buffer_larger_than_the_map() {
    let mut mask = vec![false; 12];
    mask[5] = true;
    let sq = squared_distance_to_walls(&mask, 4, 3);
    assert!(dilate_walls(&mask, &sq, 1e6).iter().all(|&w| w));
    let none = vec![false; 12];
    let sq = squared_distance_to_walls(&none, 4, 3);
    assert_eq!(dilate_walls(&none, &sq, 1e6), none);
    assert_eq!(
        dilate_walls(&mask, &[0.0], 3.0),
        mask,
        "mismatched lengths: unchanged"
    );
}

// ---------------------------------------------------------------- stage 6: blur

#[test]
fn blur_by_hand() {
    // One wall at (0, 0) of a 4×4 map, radius 3, strength 6.
    let mut mask = vec![false; 16];
    mask[0] = true;
    let sq = squared_distance_to_walls(&mask, 4, 4);
    let b = blur_cost(&sq, 3.0, 6.0);
    // d = 0, 1, 2, 3 | 1, √2, √5, √10 | 2, √5, √8, √13 | 3, ...
    // 6·(1 − d/3): 4, 2, 0 | 3.17→3, 1.53→2, 0 | ...
    #[rustfmt::skip]
    let expected = vec![
        0, 4, 2, 0,
        4, 3, 2, 0,
        2, 2, 0, 0,
        0, 0, 0, 0,
    ];
    assert_eq!(b, expected);
    assert_eq!(blur_cost(&sq, 1.0, 6.0), vec![0; 16]);
    assert_eq!(blur_cost(&sq, 3.0, -2.0), vec![0; 16]);
    assert_eq!(blur_cost(&[f32::INFINITY; 3], 5.0, 6.0), vec![0; 3]);
    // A radius far beyond the map: a shallow gradient, never a wall.
    let far = blur_cost(&sq, 1e6, 300.0);
    assert_eq!(far[0], 0);
    assert!(far[1..].iter().all(|&c| c == 254));
}

// ---------------------------------------------------------------- stages 3 and 7: paint, stamps

#[test]
fn wall_mask_order_terrain_stamps_paint() {
    // 5×1 map: base costs with terrain walls at 1 and 3.
    let base = [5, WALL, 5, WALL, 5];
    let stamps = [fp(0, 0, 5, &["#1.#."]), fp(3, 0, 1, &["2"])];
    let mask = wall_mask(&base, 5, 1, &[], &stamps);
    // 0: stamp wall; 1: stamp cost clears the terrain wall; 2: transparent keeps passable;
    // 3: first stamp wall, then a later stamp's cost clears it; 4: transparent.
    assert_eq!(mask, vec![true, false, false, false, false]);
    let p1 = vec![
        paint_cell(0, PaintForce::Clear),
        paint_cell(0, PaintForce::Wall),
        paint_cell(0, PaintForce::Wall),
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::Wall),
    ];
    let p2 = vec![
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::Clear),
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::None),
    ];
    let mask = wall_mask(&base, 5, 1, &[&p1, &p2], &stamps);
    // Paint beats stamps; the later layer beats the earlier one.
    assert_eq!(mask, vec![false, true, false, false, true]);
    // A short paint layer is ignored; a bad base length is all walls.
    assert_eq!(
        wall_mask(&base, 5, 1, &[&p1[..2]], &[]),
        vec![false, true, false, true, false]
    );
    assert_eq!(wall_mask(&base, 4, 1, &[], &[]), vec![true; 5]);
}

#[test]
fn apply_costs_rules_by_hand() {
    // 6×1 map; no walls except cell 5 (terrain wall, force-cleared by paint).
    let base = [250, 3, 250, 10, 12, WALL];
    let walls = [false; 6];
    let blur = [0, 0, 0, 2, 0, 1];
    let add = vec![
        paint_cell(10, PaintForce::None),
        paint_cell(-10, PaintForce::None),
        paint_cell(10, PaintForce::None),
        paint_cell(5, PaintForce::None),
        paint_cell(0, PaintForce::None),
        paint_cell(4, PaintForce::Clear),
    ];
    let remove = vec![
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::None),
        paint_cell(-10, PaintForce::None),
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::None),
    ];
    let c = apply_costs(&base, &walls, &blur, 6, 1, &[&add, &remove], &[]);
    // 250+10 → 254 (never a wall); 3−10 → 1; 250+10−10 = 250 (one clamp at the end);
    // 10+2+5 = 17; 12; force-cleared terrain wall: 1 + blur 1 + delta 4 = 6.
    assert_eq!(c, vec![254, 1, 250, 17, 12, 6]);
    // A final wall stays a wall whatever paint adds or removes.
    let mut walls2 = walls;
    walls2[1] = true;
    assert_eq!(
        apply_costs(&base, &walls2, &blur, 6, 1, &[&add], &[])[1],
        WALL
    );
    // Stamps: cost cells replace base + blur + deltas; transparent keeps; a wall stamp cell
    // that paint cleared restores the summed cost; the later stamp wins.
    let stamps = [
        fp(2, 0, 3, &["3.1"]),
        fp(4, 0, 2, &["#5"]),
        fp(5, 0, 1, &["2"]),
    ];
    let c = apply_costs(&base, &walls, &blur, 6, 1, &[&add], &stamps);
    assert_eq!(c, vec![254, 1, 30, 17, 12, 20]);
    // Stamp cost cells on a final wall do nothing; mismatched sizes are walls.
    assert_eq!(
        apply_costs(&base, &walls2, &blur, 6, 1, &[], &[fp(1, 0, 1, &["2"])])[1],
        WALL
    );
    assert_eq!(
        apply_costs(&base, &walls, &blur, 5, 1, &[], &[]),
        vec![WALL; 6]
    );
}

#[test]
fn stamps_clip_at_the_map_edges() {
    // 3×3 map of cost 4; a 3×3 all-cost-10 stamp hanging off each corner.
    let base = [4u8; 9];
    let walls = [false; 9];
    let blur = [0u8; 9];
    for (x, y, hit) in [(-2, -2, 0usize), (2, -2, 2), (-2, 2, 6), (2, 2, 8)] {
        let stamp = fp(x, y, 3, &["111", "111", "111"]);
        let c = apply_costs(
            &base,
            &walls,
            &blur,
            3,
            3,
            &[],
            std::slice::from_ref(&stamp),
        );
        for (i, v) in c.iter().enumerate() {
            assert_eq!(*v, if i == hit { 10 } else { 4 }, "stamp at ({x}, {y})");
        }
        let walled = fp(x, y, 3, &["###", "###", "###"]);
        let m = wall_mask(&base, 3, 3, &[], &[walled]);
        assert_eq!(m.iter().filter(|&&w| w).count(), 1);
        assert!(m[hit]);
    }
    let far = fp(i32::MIN, i32::MAX, 3, &["###"]);
    assert_eq!(wall_mask(&base, 3, 3, &[], &[far]), vec![false; 9]);
    let ragged = PlacedFootprint {
        x: 0,
        y: 0,
        width: 3,
        height: 3,
        cells: vec![StampCell::Wall],
    };
    let m = wall_mask(&base, 3, 3, &[], &[ragged]);
    assert_eq!(
        m.iter().filter(|&&w| w).count(),
        1,
        "missing cells are transparent"
    );
}

#[test]
fn force_clear_beats_the_buffer_and_stamp_walls() {
    let mut walls = vec![true; 4];
    let p = vec![
        paint_cell(0, PaintForce::Clear),
        paint_cell(0, PaintForce::None),
        paint_cell(0, PaintForce::Clear),
        paint_cell(0, PaintForce::None),
    ];
    apply_paint_forces(&mut walls, 2, 2, &[&p]);
    assert_eq!(walls, vec![false, true, false, true]);

    // Whole pipeline: a wall column at x = 0 with a 1-cell buffer walls column 1, except the
    // force-cleared cell; a stamp wall under force-clear paint is passable too.
    let (w, h) = (5u32, 3u32);
    let n = (w * h) as usize;
    let mut blocked = vec![false; n];
    for y in 0..h {
        blocked[(y * w) as usize] = true;
    }
    let mut cells = vec![PaintCell::default(); n];
    cells[(w + 1) as usize] = paint_cell(0, PaintForce::Clear);
    cells[(w + 3) as usize] = paint_cell(2, PaintForce::Clear);
    let paint = layer(cells);
    let stamps = [fp(3, 1, 1, &["#"])];
    let heights = vec![0.5; n];
    let slope = vec![0.0; n];
    let input = CostInputs {
        width: w,
        height: h,
        cell_size_m: 1.0,
        height_scale_m: 10.0,
        water_level_m: 0.0,
        height01: &heights,
        blocked: &blocked,
        slope_deg: &slope,
        paint: vec![&paint],
        stamps: &stamps,
    };
    let layers = bake_cost_field(&input, &ty_with(1.0, 0.0, 0.0)).unwrap();
    #[rustfmt::skip]
    let expected = vec![
        WALL, WALL, 1, 1, 1,
        WALL, 1,    1, 3, 1,
        WALL, WALL, 1, 1, 1,
    ];
    assert_eq!(layers.final_cost, expected);
    assert!(!layers.wall_mask[(w + 3) as usize]);
    assert!(layers.buffered_walls[1] && !layers.buffered_walls[(w + 1) as usize]);
}

// ---------------------------------------------------------------- the whole pipeline

/// An independent, cell-by-cell reference implementation of stages 2–7 from the module docs.
fn naive_bake(input: &CostInputs<'_>, ty: &MovementType) -> CostLayers {
    let (w, h) = (input.width, input.height);
    let n = (w * h) as usize;
    let base: Vec<u8> = (0..n)
        .map(|i| {
            let blocked = input.blocked.get(i).copied().unwrap_or(false);
            if blocked {
                return WALL;
            }
            if input.height01[i] * input.height_scale_m < input.water_level_m {
                return match ty.water {
                    WaterRule::Impassable => WALL,
                    WaterRule::Cost(c) => c.clamp(1, 254),
                };
            }
            let s = input.slope_deg[i];
            if s > ty.max_slope_deg {
                return WALL;
            }
            eval_curve(&ty.slope_cost, s).round().clamp(1.0, 254.0) as u8
        })
        .collect();
    // Per cell: the last opaque stamp cell, then the last paint force.
    let mut stamp_at: Vec<Option<StampCell>> = vec![None; n];
    for s in input.stamps {
        for fy in 0..s.height as i64 {
            for fx in 0..s.width as i64 {
                let (x, y) = (i64::from(s.x) + fx, i64::from(s.y) + fy);
                if x < 0 || y < 0 || x >= i64::from(w) || y >= i64::from(h) {
                    continue;
                }
                let c = s.cells[(fy * i64::from(s.width) + fx) as usize];
                if c != StampCell::Transparent {
                    stamp_at[(y * i64::from(w) + x) as usize] = Some(c);
                }
            }
        }
    }
    let force_at: Vec<PaintForce> = (0..n)
        .map(|i| {
            input
                .paint
                .iter()
                .map(|l| l.cells[i].force)
                .rev()
                .find(|f| *f != PaintForce::None)
                .unwrap_or(PaintForce::None)
        })
        .collect();
    let mask: Vec<bool> = (0..n)
        .map(|i| match force_at[i] {
            PaintForce::Wall => true,
            PaintForce::Clear => false,
            PaintForce::None => match stamp_at[i] {
                Some(StampCell::Wall) => true,
                Some(StampCell::Cost(_)) => false,
                _ => base[i] == WALL,
            },
        })
        .collect();
    let buffer = ty.wall_buffer_m / input.cell_size_m;
    let mut walls = brute_dilate(&mask, w, h, buffer);
    for i in 0..n {
        match force_at[i] {
            PaintForce::Wall => walls[i] = true,
            PaintForce::Clear => walls[i] = false,
            PaintForce::None => {}
        }
    }
    // Pockets: a passable cell whose region (4-connected: corners are never cut) holds at
    // most `min_island_cells` cells becomes a wall; each cell floods its own region.
    let region_size = |start: usize| {
        let mut seen = vec![false; n];
        let mut stack = vec![start];
        seen[start] = true;
        let mut size = 0;
        while let Some(i) = stack.pop() {
            size += 1;
            let (x, y) = ((i as u32 % w) as i64, (i as u32 / w) as i64);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                    continue;
                }
                let j = (ny * i64::from(w) + nx) as usize;
                if !walls[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        size
    };
    let pockets: Vec<bool> = (0..n)
        .map(|i| !walls[i] && region_size(i) <= ty.min_island_cells as usize)
        .collect();
    for i in 0..n {
        walls[i] |= pockets[i];
    }
    let blur = brute_blur(
        &walls,
        w,
        h,
        ty.blur_radius_m / input.cell_size_m,
        ty.blur_strength,
    );
    let final_cost: Vec<u8> = (0..n)
        .map(|i| {
            if walls[i] {
                return WALL;
            }
            if let Some(StampCell::Cost(c)) = stamp_at[i] {
                return c.clamp(1, 254);
            }
            let b = if base[i] == WALL {
                1
            } else {
                i32::from(base[i])
            };
            let d: i32 = input
                .paint
                .iter()
                .map(|l| i32::from(l.cells[i].delta))
                .sum();
            (b + i32::from(blur[i]) + d).clamp(1, 254) as u8
        })
        .collect();
    CostLayers {
        base_cost: base,
        wall_mask: mask,
        buffered_walls: walls,
        blur,
        final_cost,
    }
}

/// A random small world: smooth hills with cliffs and a lake, some blocked cells, two paint
/// layers and a few stamps.
struct World {
    w: u32,
    h: u32,
    cell_size_m: f32,
    heights: Vec<f32>,
    blocked: Vec<bool>,
    slope: Vec<f32>,
    paint: Vec<PaintLayer>,
    stamps: Vec<PlacedFootprint>,
}

impl World {
    fn random(rng: &mut Rng) -> Self {
        let w = 8 + rng.below(40) as u32;
        let h = 8 + rng.below(40) as u32;
        let cell_size_m = [0.5, 1.0, 2.0][rng.below(3) as usize];
        let (fx, fy, ph) = (rng.unit() * 0.6, rng.unit() * 0.6, rng.unit() * 6.0);
        let heights: Vec<f32> = (0..h)
            .flat_map(|y| {
                (0..w).map(move |x| 0.5 + 0.25 * (x as f32 * fx + ph).sin() * (y as f32 * fy).cos())
            })
            .collect();
        let blocked = if rng.chance(0.5) {
            random_mask(rng, w, h, 0.03)
        } else {
            Vec::new()
        };
        let paint = (0..rng.below(3))
            .map(|_| layer((0..w * h).map(|_| random_paint_cell(rng)).collect()))
            .collect();
        let stamps = (0..rng.below(4)).map(|_| random_stamp(rng, w, h)).collect();
        let slope = slope_deg(&heights, w, h, cell_size_m, 6.0);
        Self {
            w,
            h,
            cell_size_m,
            heights,
            blocked,
            slope,
            paint,
            stamps,
        }
    }

    fn inputs(&self) -> CostInputs<'_> {
        CostInputs {
            width: self.w,
            height: self.h,
            cell_size_m: self.cell_size_m,
            height_scale_m: 6.0,
            water_level_m: 2.0,
            height01: &self.heights,
            blocked: &self.blocked,
            slope_deg: &self.slope,
            paint: self.paint.iter().collect(),
            stamps: &self.stamps,
        }
    }

    fn random_rect(&self, rng: &mut Rng) -> CellRect {
        let x0 = rng.below(u64::from(self.w)) as u32;
        let y0 = rng.below(u64::from(self.h)) as u32;
        CellRect {
            x0,
            y0,
            x1: x0 + 1 + rng.below(6) as u32,
            y1: y0 + 1 + rng.below(6) as u32,
        }
        .clip(self.w, self.h)
    }

    /// Makes one random edit and returns the rectangle of input cells it changed.
    fn edit(&mut self, rng: &mut Rng) -> CellRect {
        let r = self.random_rect(rng);
        let w = self.w;
        let cells = (r.y0..r.y1).flat_map(move |y| (r.x0..r.x1).map(move |x| (y * w + x) as usize));
        match rng.below(4) {
            0 => {
                let raise = rng.unit() * 0.8 - 0.4;
                for i in cells {
                    self.heights[i] = (self.heights[i] + raise).clamp(0.0, 1.0);
                }
                let dirty = r.expand(1).clip(self.w, self.h);
                let s = slope_deg_rect(&self.heights, self.w, self.h, self.cell_size_m, 6.0, dirty);
                let mut k = 0;
                for y in dirty.y0..dirty.y1 {
                    for x in dirty.x0..dirty.x1 {
                        self.slope[(y * self.w + x) as usize] = s[k];
                        k += 1;
                    }
                }
                dirty
            }
            1 if !self.paint.is_empty() => {
                let l = rng.below(self.paint.len() as u64) as usize;
                for i in cells {
                    self.paint[l].cells[i] = random_paint_cell(rng);
                }
                r
            }
            2 if !self.stamps.is_empty() => {
                let s = rng.below(self.stamps.len() as u64) as usize;
                let old = self.stamps[s].map_rect(self.w, self.h);
                self.stamps[s].x += rng.below(9) as i32 - 4;
                self.stamps[s].y += rng.below(9) as i32 - 4;
                old.union(&self.stamps[s].map_rect(self.w, self.h))
            }
            _ => {
                if self.blocked.is_empty() {
                    self.blocked = vec![false; (self.w * self.h) as usize];
                }
                for i in cells {
                    self.blocked[i] = rng.chance(0.5);
                }
                r
            }
        }
    }
}

fn random_paint_cell(rng: &mut Rng) -> PaintCell {
    let force = match rng.below(20) {
        0 => PaintForce::Wall,
        1 => PaintForce::Clear,
        _ => PaintForce::None,
    };
    let delta = if rng.chance(0.2) {
        rng.below(501) as i16 - 250
    } else {
        0
    };
    paint_cell(delta, force)
}

fn random_stamp(rng: &mut Rng, w: u32, h: u32) -> PlacedFootprint {
    let (sw, sh) = (1 + rng.below(6) as u32, 1 + rng.below(6) as u32);
    let cells = (0..sw * sh)
        .map(|_| match rng.below(4) {
            0 => StampCell::Transparent,
            1 => StampCell::Wall,
            _ => StampCell::Cost(rng.below(256) as u8),
        })
        .collect();
    PlacedFootprint {
        x: rng.below(u64::from(w) + 6) as i32 - 3,
        y: rng.below(u64::from(h) + 6) as i32 - 3,
        width: sw,
        height: sh,
        cells,
    }
}

fn random_type(rng: &mut Rng) -> MovementType {
    MovementType {
        name: "r".into(),
        max_slope_deg: 20.0 + rng.unit() * 40.0,
        slope_cost: vec![(0.0, 1.0), (10.0, 1.0 + rng.unit() * 20.0), (40.0, 60.0)],
        water: if rng.chance(0.5) {
            WaterRule::Impassable
        } else {
            WaterRule::Cost(rng.below(256) as u8)
        },
        wall_buffer_m: [0.0, 0.5, 1.0, 1.5, 2.0, 3.3][rng.below(6) as usize],
        blur_radius_m: [0.0, 1.0, 2.0, 3.0, 4.5][rng.below(5) as usize],
        blur_strength: [0.0, 3.0, 6.0, 40.0][rng.below(4) as usize],
        min_island_cells: [0, 0, 1, 3, 8][rng.below(5) as usize],
    }
}

#[test]
fn bake_cost_field_matches_the_naive_reference() {
    let mut rng = Rng(2024);
    for round in 0..60 {
        let world = World::random(&mut rng);
        let ty = random_type(&mut rng);
        let input = world.inputs();
        let fast = bake_cost_field(&input, &ty).unwrap();
        let slow = naive_bake(&input, &ty);
        assert_eq!(fast.base_cost, slow.base_cost, "round {round}");
        assert_eq!(fast.wall_mask, slow.wall_mask, "round {round}");
        assert_eq!(fast.buffered_walls, slow.buffered_walls, "round {round}");
        assert_eq!(fast.blur, slow.blur, "round {round}");
        assert_eq!(fast.final_cost, slow.final_cost, "round {round}");
    }
}

#[test]
fn rebake_rect_equals_the_full_bake_after_random_edits() {
    let mut rng = Rng(99);
    for round in 0..80 {
        let mut world = World::random(&mut rng);
        let ty = random_type(&mut rng);
        let mut layers = bake_cost_field(&world.inputs(), &ty).unwrap();
        for step in 0..6 {
            let dirty = world.edit(&mut rng);
            rebake_rect(&world.inputs(), &ty, &mut layers, dirty).unwrap();
            let full = bake_cost_field(&world.inputs(), &ty).unwrap();
            assert!(
                layers == full,
                "round {round} step {step}: {ty:?} dirty {dirty:?}"
            );
        }
    }
}

// ---------------------------------------------------------------- reach, rects, bad input

#[test]
fn reach_counts_buffer_blur_and_the_slope_stencil() {
    assert_eq!(reach_cells(&ty_with(0.0, 0.0, 0.0), 1.0), 1);
    // Blur 3 cells: cells at distance 1, √2, 2, √5, √8 get cost; Chebyshev reach 2.
    assert_eq!(reach_cells(&ty_with(0.0, 3.0, 6.0), 1.0), 2 + 1);
    assert_eq!(reach_cells(&ty_with(0.0, 3.1, 6.0), 1.0), 3 + 1);
    let no_strength = reach_cells(&ty_with(0.0, 3.0, 0.0), 1.0);
    assert_eq!(no_strength, 1, "zero strength: no blur");
    // Buffer 1 cell: cells closer than 1.5 (Chebyshev 1) become walls.
    assert_eq!(reach_cells(&ty_with(1.0, 3.0, 6.0), 1.0), 1 + 2 + 1);
    assert_eq!(reach_cells(&ty_with(0.5, 0.0, 0.0), 1.0), 1);
    assert_eq!(reach_cells(&ty_with(1.0, 3.0, 6.0), 0.5), 2 + 5 + 1);
    assert_eq!(reach_cells(&ty_with(1e30, 1e30, 6.0), 1.0), u32::MAX);
    assert_eq!(reach_cells(&ty_with(2.0, 3.0, 6.0), 0.0), 1);
}

#[test]
fn cell_rect_algebra() {
    let r = CellRect {
        x0: 2,
        y0: 3,
        x1: 5,
        y1: 4,
    };
    assert_eq!(
        r.expand(3),
        CellRect {
            x0: 0,
            y0: 0,
            x1: 8,
            y1: 7
        }
    );
    assert_eq!(
        r.expand(3).clip(6, 5),
        CellRect {
            x0: 0,
            y0: 0,
            x1: 6,
            y1: 5
        }
    );
    let far = CellRect {
        x0: 10,
        y0: 10,
        x1: 12,
        y1: 11,
    };
    assert!(far.clip(6, 5).is_empty());
    assert_eq!(
        r.union(&far),
        CellRect {
            x0: 2,
            y0: 3,
            x1: 12,
            y1: 11
        }
    );
    assert_eq!(r.union(&CellRect::default()), r);
    assert_eq!(CellRect::default().union(&r), r);
    assert!(CellRect::default().expand(5).is_empty());
    assert!(r.intersect(&far).is_empty());
    assert_eq!(r.width() * r.height(), 3);
    assert!(r.contains(4, 3) && !r.contains(5, 3));
    let huge = CellRect {
        x0: 1,
        y0: 1,
        x1: u32::MAX - 1,
        y1: 2,
    };
    assert_eq!(huge.expand(10).x1, u32::MAX);
}

#[test]
fn empty_maps_and_mismatched_inputs_do_not_panic() {
    let ty = MovementType::default();
    for (w, h) in [(0, 0), (0, 7), (7, 0)] {
        let input = CostInputs {
            width: w,
            height: h,
            cell_size_m: 1.0,
            height_scale_m: 1.0,
            water_level_m: 0.0,
            height01: &[],
            blocked: &[],
            slope_deg: &[],
            paint: vec![],
            stamps: &[fp(0, 0, 1, &["#"])],
        };
        let layers = bake_cost_field(&input, &ty).unwrap();
        assert!(layers.final_cost.is_empty() && layers.blur.is_empty());
        let mut again = layers.clone();
        rebake_rect(&input, &ty, &mut again, CellRect::full(5, 5)).unwrap();
        assert_eq!(again, layers);
    }
    let heights = vec![0.5; 6];
    let slope = vec![0.0; 6];
    let short = layer(vec![PaintCell::default(); 5]);
    let mut input = CostInputs {
        width: 3,
        height: 2,
        cell_size_m: 1.0,
        height_scale_m: 1.0,
        water_level_m: 0.0,
        height01: &heights,
        blocked: &[],
        slope_deg: &slope[..5],
        paint: vec![],
        stamps: &[],
    };
    assert!(matches!(
        bake_cost_field(&input, &ty),
        Err(CostInputError::GridLength {
            grid: "slope",
            actual: 5,
            expected: 6
        })
    ));
    input.slope_deg = &slope;
    input.paint = vec![&short];
    let err = bake_cost_field(&input, &ty).unwrap_err();
    assert!(matches!(err, CostInputError::PaintLength { index: 0, .. }));
    assert!(err.to_string().contains("p.png"));
    input.paint = vec![];
    let ragged = [PlacedFootprint {
        x: 0,
        y: 0,
        width: 2,
        height: 2,
        cells: vec![StampCell::Wall],
    }];
    input.stamps = &ragged;
    assert!(matches!(
        bake_cost_field(&input, &ty),
        Err(CostInputError::FootprintLength { index: 0, .. })
    ));
    input.stamps = &[];
    // Layers of the wrong size are rebuilt by a full bake.
    let mut stale = CostLayers::default();
    rebake_rect(&input, &ty, &mut stale, CellRect::default()).unwrap();
    assert_eq!(stale, bake_cost_field(&input, &ty).unwrap());
}

#[test]
fn radii_larger_than_the_map() {
    let (w, h) = (6u32, 4u32);
    let heights = vec![0.5; 24];
    let slope = vec![0.0; 24];
    let mut blocked = vec![false; 24];
    blocked[9] = true;
    let input = CostInputs {
        width: w,
        height: h,
        cell_size_m: 1.0,
        height_scale_m: 1.0,
        water_level_m: 0.0,
        height01: &heights,
        blocked: &blocked,
        slope_deg: &slope,
        paint: vec![],
        stamps: &[],
    };
    let all_wall = bake_cost_field(&input, &ty_with(1000.0, 1000.0, 50.0)).unwrap();
    assert!(all_wall.final_cost.iter().all(|&c| c == WALL));
    let blur_only = bake_cost_field(&input, &ty_with(0.0, 1000.0, 50.0)).unwrap();
    assert_eq!(blur_only.final_cost[9], WALL);
    assert!(
        blur_only
            .final_cost
            .iter()
            .enumerate()
            .all(|(i, &c)| i == 9 || c == 51)
    );
}

/// Largest Chebyshev distance from `(cx, cy)` of a cell whose final cost differs.
fn farthest_change(a: &CostLayers, b: &CostLayers, w: u32, cx: u32, cy: u32) -> Option<u32> {
    (0..a.final_cost.len())
        .filter(|&i| a.final_cost[i] != b.final_cost[i])
        .map(|i| {
            let (x, y) = (i as u32 % w, i as u32 / w);
            x.abs_diff(cx).max(y.abs_diff(cy))
        })
        .max()
}

#[test]
fn reach_is_exactly_where_an_edit_stops() {
    let (w, h) = (41u32, 41u32);
    let n = (w * h) as usize;
    let centre = (20u32, 20u32);
    let ci = (centre.1 * w + centre.0) as usize;
    for (buffer_m, blur_m) in [
        (0.0, 0.0),
        (0.0, 3.0),
        (1.0, 3.0),
        (0.0, 3.1),
        (2.0, 2.5),
        (1.2, 4.0),
    ] {
        let ty = ty_with(buffer_m, blur_m, 1000.0);
        let reach = reach_cells(&ty, 1.0);
        let heights = vec![0.5; n];
        let slope = slope_deg(&heights, w, h, 1.0, 10.0);
        let inputs = |heights: &'_ [f32], slope: &'_ [f32], blocked: &'_ [bool]| {
            bake_cost_field(
                &CostInputs {
                    width: w,
                    height: h,
                    cell_size_m: 1.0,
                    height_scale_m: 10.0,
                    water_level_m: 0.0,
                    height01: heights,
                    blocked,
                    slope_deg: slope,
                    paint: vec![],
                    stamps: &[],
                },
                &ty,
            )
            .unwrap()
        };
        let before = inputs(&heights, &slope, &[]);
        // A blocked cell: no slope stencil, so the change reaches `reach - 1`.
        let mut blocked = vec![false; n];
        blocked[ci] = true;
        let after = inputs(&heights, &slope, &blocked);
        let far = farthest_change(&before, &after, w, centre.0, centre.1);
        assert_eq!(
            far,
            Some(reach - 1),
            "blocked cell, buffer {buffer_m}, blur {blur_m}"
        );
        // A spike: its 4 neighbours turn steep, one cell further.
        let mut spiked = heights.clone();
        spiked[ci] = 1.0;
        let slope = slope_deg(&spiked, w, h, 1.0, 10.0);
        let after = inputs(&spiked, &slope, &[]);
        let far = farthest_change(&before, &after, w, centre.0, centre.1);
        assert_eq!(far, Some(reach), "spike, buffer {buffer_m}, blur {blur_m}");
    }
}
