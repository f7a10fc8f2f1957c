//! Stage 2, terrain cost: the slope curve and water rules by hand.

use super::*;

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
