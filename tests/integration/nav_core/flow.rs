//! Flow fields follow to the goal set (the flow properties are checked by `check_flow`).

use super::*;

#[test]
fn flow_follows_to_the_goal_set() {
    let mut rng = Rng(77);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for &(w, h) in &SIZES {
        for _ in 0..10 {
            let costs = random_map(&mut rng, w, h, 0.2, 0.5, 30);
            let exits: Vec<(usize, u8)> = (0..1 + rng.below(3))
                .map(|_| (rng.below((w * h) as u64) as usize, rng.below(8) as u8))
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
