//! Stages 3 and 7, paint and stamps: the wall mask order, cost rules, clipping at the edges
//! and force-clear.

use super::*;

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
