//! The integration field against a fast-sweeping Eikonal solver and within its bounds (the
//! 4-neighbour Dijkstra above, the straight line below), and line of sight: sound by an exact
//! segment/square test (the whole cell sees the goal: from its centre and its corners), with
//! exact distances and an exact cost pass.

use super::*;

#[test]
fn integration_solves_the_eikonal_equations_between_its_bounds() {
    let mut rng = Rng::new(0x1234_5678);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for &(w, h) in &SIZES {
        for round in 0..12 {
            let max_cost = [1_u8, 5, 40, 254][round % 4];
            let costs = random_map(&mut rng, w, h, 0.15, 0.5, max_cost);
            let n_seeds = 1 + rng.below(4) as usize;
            let seeds: Vec<(usize, u32)> = (0..n_seeds)
                .map(|_| (rng.below((w * h) as u32) as usize, rng.below(600)))
                .filter(|&(c, _)| costs[c] != WALL)
                .collect();
            integrate_costs(&costs, w as u32, h as u32, &seeds, &mut field, &mut scratch);
            let what = format!("{w}x{h} round {round}");
            let fseeds: Vec<(usize, f64)> = seeds.iter().map(|&(c, v)| (c, f64::from(v))).collect();
            let sweep = sweep_oracle(&costs, w, h, &fseeds, &[]);
            assert_matches_sweep(&field.dist, &sweep, &what);
            // Never above the 4-neighbour flood; the stored cost is the distance rounded.
            let four = oracle_costs(&costs, w, h, &seeds, &|_| false);
            for (c, &flood) in four.iter().enumerate() {
                assert_eq!(
                    field.cost[c] == UNREACHED,
                    flood == UNREACHED,
                    "{what} cell {c}"
                );
                if flood != UNREACHED {
                    assert!(
                        f64::from(field.dist[c]) <= f64::from(flood) + 1e-3,
                        "{what} {c}"
                    );
                    assert_eq!(field.cost[c], field.dist[c].round() as u32, "{what} {c}");
                }
            }
            // One seed: never below the straight line at the cheapest cost (1).
            if let [(s, start)] = seeds[..] {
                for c in (0..w * h).filter(|&c| four[c] != UNREACHED) {
                    let (dx, dy) = (
                        (c % w) as f64 - (s % w) as f64,
                        (c / w) as f64 - (s / w) as f64,
                    );
                    let line = f64::from(start) + (dx * dx + dy * dy).sqrt();
                    assert!(
                        f64::from(field.dist[c]) >= line - 1e-3,
                        "{what} cell {c} below the line"
                    );
                }
            }
        }
    }
}

/// On open ground the integration approaches the Euclidean distance: within 2.5 % beyond
/// 20 cells of the goal (a 4-neighbour flood is 41 % off on the diagonal), and between the
/// straight line and the 4-neighbour (Manhattan) distance everywhere.
#[test]
fn open_ground_integrates_to_nearly_the_straight_line() {
    let (w, h) = (96_usize, 80_usize);
    let costs = vec![1_u8; w * h];
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    for goal in [(0_usize, 0_usize), (48, 40), (95, 17), (30, 79)] {
        let g = goal.1 * w + goal.0;
        integrate_costs(
            &costs,
            w as u32,
            h as u32,
            &[(g, 0)],
            &mut field,
            &mut scratch,
        );
        let mut worst = 1.0_f64;
        for c in 0..w * h {
            let (dx, dy) = (
                (c % w).abs_diff(goal.0) as f64,
                (c / w).abs_diff(goal.1) as f64,
            );
            let (line, manhattan) = ((dx * dx + dy * dy).sqrt(), dx + dy);
            let d = f64::from(field.dist[c]);
            assert!(
                d >= line - 1e-3 && d <= manhattan + 1e-3,
                "cell {c}: {d} vs {line}"
            );
            if line >= 20.0 {
                worst = worst.max(d / line);
            }
        }
        println!("goal {goal:?}: worst ratio to the straight line beyond 20 cells {worst:.4}");
        assert!(
            worst <= 1.025,
            "goal {goal:?}: {worst:.4} × the straight line"
        );
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

/// Exact test in floats: does the closed square of cell `(cx, cy)` meet the segment `a`–`b`
/// (cell `(x, y)` spans `[x, x + 1] × [y, y + 1]`)?
fn segment_touches_square(a: (f64, f64), b: (f64, f64), cx: i64, cy: i64) -> bool {
    let (x0, x1, y0, y1) = (cx as f64, cx as f64 + 1.0, cy as f64, cy as f64 + 1.0);
    if a.0.max(b.0) < x0 || a.0.min(b.0) > x1 || a.1.max(b.1) < y0 || a.1.min(b.1) > y1 {
        return false;
    }
    let side = |px: f64, py: f64| {
        let v = (b.0 - a.0) * (py - a.1) - (b.1 - a.1) * (px - a.0);
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    let s = [side(x0, y0), side(x1, y0), side(x0, y1), side(x1, y1)];
    !(s.iter().all(|&v| v > 0) || s.iter().all(|&v| v < 0))
}

/// The whole of cell `p` sees the centre of `g`: from its centre and from its corners inset
/// by 1/64 the segment to `g`'s centre meets only clear squares (`g`'s own excepted).
fn whole_cell_sees(costs: &[u8], w: usize, h: usize, g: (i64, i64), p: (i64, i64)) -> bool {
    if !clear_line(costs, w, h, g, p) {
        return false;
    }
    let target = (g.0 as f64 + 0.5, g.1 as f64 + 0.5);
    let (lo, hi) = (1.0 / 64.0, 1.0 - 1.0 / 64.0);
    [(lo, lo), (hi, lo), (lo, hi), (hi, hi)]
        .iter()
        .all(|&(ox, oy)| {
            let from = (p.0 as f64 + ox, p.1 as f64 + oy);
            (g.1.min(p.1)..=g.1.max(p.1)).all(|cy| {
                (g.0.min(p.0)..=g.0.max(p.0)).all(|cx| {
                    (cx, cy) == g
                        || !segment_touches_square(from, target, cx, cy)
                        || costs[cy as usize * w + cx as usize] == 1
                })
            })
        })
}

#[test]
fn los_is_sound_and_cost_pass_is_exact() {
    let mut rng = Rng::new(0xBEEF);
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    let (mut visible, mut flagged) = (0_usize, 0_usize);
    for &(w, h) in &[(10_usize, 10_usize), (30, 30), (17, 23), (64, 5), (1, 9)] {
        for round in 0..20 {
            let costs = random_map(&mut rng, w, h, 0.06, 0.04, 9);
            let goal = rng.below((w * h) as u32) as usize;
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
                        whole_cell_sees(&costs, w, h, g, p),
                        "{w}x{h} r{round}: LOS cell {p:?} is not in plain sight of {g:?}"
                    );
                    let (dx, dy) = ((p.0 - g.0) as f64, (p.1 - g.1) as f64);
                    let line = (dx * dx + dy * dy).sqrt();
                    assert!(
                        (f64::from(field.dist[c]) - line).abs() < 1e-4,
                        "{w}x{h} r{round}: LOS cell {p:?} is not at its straight-line distance"
                    );
                    assert!(field.cost[c] <= truth[c]);
                }
                if costs[c] == 1
                    && truth[c] != UNREACHED
                    && c != goal
                    && whole_cell_sees(&costs, w, h, g, p)
                {
                    visible += 1;
                }
                assert_eq!(
                    field.cost[c] == UNREACHED,
                    truth[c] == UNREACHED,
                    "reachability of {p:?}"
                );
            }
            // Non-LOS cells: the Eikonal solution from the LOS region (LOS cells pinned at
            // their distances, never re-entered).
            let pinned: Vec<(usize, f64)> = (0..w * h)
                .filter(|&c| field.flags[c] & INT_LOS != 0)
                .map(|c| (c, f64::from(field.dist[c])))
                .collect();
            let oracle = sweep_oracle(&costs, w, h, &[], &pinned);
            assert_matches_sweep(&field.dist, &oracle, &format!("{w}x{h} r{round}"));
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
