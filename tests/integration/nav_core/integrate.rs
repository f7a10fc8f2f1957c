//! The integration field against Dijkstra, and line of sight: sound by an exact
//! segment/square test, with an exact cost pass.

use super::*;

#[test]
fn integration_equals_dijkstra() {
    let mut rng = Rng(0x1234_5678);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for &(w, h) in &SIZES {
        for round in 0..12 {
            let max_cost = [1_u8, 5, 40, 254][round % 4];
            let costs = random_map(&mut rng, w, h, 0.15, 0.5, max_cost);
            let n_seeds = 1 + rng.below(4) as usize;
            let seeds: Vec<(usize, u32)> = (0..n_seeds)
                .map(|_| (rng.below((w * h) as u64) as usize, rng.below(600) as u32))
                .filter(|&(c, _)| costs[c] != WALL)
                .collect();
            integrate_costs(&costs, w as u32, h as u32, &seeds, &mut field, &mut scratch);
            let oracle = oracle_costs(&costs, w, h, &seeds, &|_| false);
            assert_eq!(field.cost, oracle, "{w}x{h} round {round}");
        }
    }
}

/// Exact test: does the closed square of cell `(cx, cy)` meet the segment between the centres
/// of `a` and `b`? Coordinates doubled so centres and cell edges are integers.
fn segment_touches_cell(a: (i64, i64), b: (i64, i64), cx: i64, cy: i64) -> bool {
    let (ax, ay, bx, by) = (2 * a.0 + 1, 2 * a.1 + 1, 2 * b.0 + 1, 2 * b.1 + 1);
    let (x0, x1, y0, y1) = (2 * cx, 2 * cx + 2, 2 * cy, 2 * cy + 2);
    if ax.max(bx) < x0 || ax.min(bx) > x1 || ay.max(by) < y0 || ay.min(by) > y1 {
        return false;
    }
    let side = |px: i64, py: i64| ((bx - ax) * (py - ay) - (by - ay) * (px - ax)).signum();
    let s = [side(x0, y0), side(x1, y0), side(x0, y1), side(x1, y1)];
    !(s.iter().all(|&v| v > 0) || s.iter().all(|&v| v < 0))
}

fn clear_line(costs: &[u8], w: usize, h: usize, a: (i64, i64), b: (i64, i64)) -> bool {
    for cy in a.1.min(b.1)..=a.1.max(b.1) {
        for cx in a.0.min(b.0)..=a.0.max(b.0) {
            if (cx, cy) != a
                && segment_touches_cell(a, b, cx, cy)
                && costs[cy as usize * w + cx as usize] != 1
            {
                return false;
            }
        }
    }
    let _ = h;
    true
}

#[test]
fn los_is_sound_and_cost_pass_is_exact() {
    let mut rng = Rng(0xBEEF);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    let (mut visible, mut flagged) = (0_usize, 0_usize);
    for &(w, h) in &[(10_usize, 10_usize), (30, 30), (17, 23), (64, 5), (1, 9)] {
        for round in 0..20 {
            let costs = random_map(&mut rng, w, h, 0.06, 0.04, 9);
            let goal = rng.below((w * h) as u64) as usize;
            integrate_with_los(&costs, w as u32, h as u32, goal, &mut field, &mut scratch);
            if costs[goal] == WALL {
                assert!(field.cost.iter().all(|&c| c == UNREACHED));
                continue;
            }
            let g = ((goal % w) as i64, (goal / w) as i64);
            let truth = oracle_costs(&costs, w, h, &[(goal, 0)], &|_| false);
            for c in 0..w * h {
                let p = ((c % w) as i64, (c / w) as i64);
                let los = field.flags[c] & INT_LOS != 0;
                if los {
                    flagged += usize::from(c != goal);
                    assert!(
                        clear_line(&costs, w, h, g, p),
                        "{w}x{h} r{round}: LOS cell {p:?} has no clear line to {g:?}"
                    );
                    assert!(field.cost[c] >= truth[c]);
                }
                if costs[c] == 1
                    && truth[c] != UNREACHED
                    && c != goal
                    && clear_line(&costs, w, h, g, p)
                {
                    visible += 1;
                }
                assert_eq!(
                    field.cost[c] == UNREACHED,
                    truth[c] == UNREACHED,
                    "reachability of {p:?}"
                );
            }
            // Non-LOS cells: exact Dijkstra from the LOS region (LOS cells pinned, not re-entered).
            let seeds: Vec<(usize, u32)> = (0..w * h)
                .filter(|&c| field.flags[c] & INT_LOS != 0)
                .map(|c| (c, field.cost[c]))
                .collect();
            let flags = field.flags.clone();
            let oracle = oracle_costs(&costs, w, h, &seeds, &|n| flags[n] & INT_LOS != 0);
            for (c, &want) in oracle.iter().enumerate() {
                if field.flags[c] & INT_LOS == 0 {
                    assert_eq!(field.cost[c], want, "{w}x{h} r{round} cell {c}");
                }
            }
            check_flow(&costs, w, h, &field, &[(goal, DIR_NONE)]);
        }
    }
    // Completeness is approximate (documented); make sure it stays high.
    let share = flagged as f64 / visible.max(1) as f64;
    println!("LOS flags {flagged} cells, {share:.3} of the visible ones");
    assert!(
        share > 0.9,
        "LOS flags only {share:.3} of the visible cells"
    );
}
