//! Flow fields follow to the goal set (the flow properties are checked by `check_flow`).

use super::*;

#[test]
fn flow_follows_to_the_goal_set() {
    let mut rng = Rng::new(77);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for &(w, h) in &SIZES {
        for _ in 0..10 {
            let costs = random_map(&mut rng, w, h, 0.2, 0.5, 30);
            let exits: Vec<(usize, u8)> = (0..1 + rng.below(3))
                .map(|_| (rng.below((w * h) as u32) as usize, rng.below(8) as u8))
                .filter(|&(c, _)| costs[c] != WALL)
                .collect();
            let seeds: Vec<(usize, u32)> = exits
                .iter()
                .map(|&(c, _)| (c, u32::from(costs[c])))
                .collect();
            integrate_costs(&costs, w as u32, h as u32, &seeds, &mut field, &mut scratch);
            check_flow(&costs, w, h, &field, &exits);
        }
    }
}

/// On open ground the steering direction (16 of them) follows the straight line to the goal
/// within the table's rounding: the knight's moves sit 26.6° off the axes, so no direction
/// is more than 13.3° from the true one, plus what the integration's own error adds (8
/// directions alone are up to 22.5° off).
#[test]
fn open_ground_flow_points_at_the_goal_within_the_16_directions() {
    let (w, h) = (61_usize, 47_usize);
    let costs = vec![1_u8; w * h];
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for goal in [(30_usize, 23_usize), (0, 0), (60, 10)] {
        let g = goal.1 * w + goal.0;
        integrate_costs(
            &costs,
            w as u32,
            h as u32,
            &[(g, 0)],
            &mut field,
            &mut scratch,
        );
        let mut out = vec![0_u8; w * h];
        flow_from_integration(
            &costs,
            w as u32,
            h as u32,
            &field,
            &[(g, DIR_NONE)],
            &mut out,
        );
        let (mut worst, mut fine) = (0.0_f64, 0);
        for (c, &f) in out.iter().enumerate() {
            let (dx, dy) = (
                goal.0 as f64 - (c % w) as f64,
                goal.1 as f64 - (c / w) as f64,
            );
            let len = (dx * dx + dy * dy).sqrt();
            if len < 6.0 {
                continue;
            }
            let (vx, vy) = flow_vector(f).expect("a direction");
            let cos = (f64::from(vx) * dx + f64::from(vy) * dy) / len;
            worst = worst.max(cos.clamp(-1.0, 1.0).acos().to_degrees());
            fine += usize::from(f & (FLOW_FINE_CW | FLOW_FINE_CCW) != 0);
        }
        println!("goal {goal:?}: worst {worst:.1}° off the goal, {fine} knight's-move cells");
        assert!(
            worst <= 16.0,
            "goal {goal:?}: a flow direction {worst:.1}° off"
        );
        assert!(
            fine > w * h / 10,
            "goal {goal:?}: only {fine} cells use a knight's move"
        );
    }
}
