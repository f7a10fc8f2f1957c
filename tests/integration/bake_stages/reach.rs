//! Rebake reach, cell-rect algebra, and bad input (empty maps, mismatched inputs, radii
//! larger than the map) that must not panic.

use super::*;

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
