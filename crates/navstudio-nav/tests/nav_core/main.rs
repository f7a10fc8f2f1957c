//! Property tests of the run-time navigation core against independent oracles: the
//! `pathfinding` crate's Dijkstra (an upper bound of the Eikonal integration), a fast-sweeping
//! solver of the same Eikonal equations, a breadth-first flood fill, a brute-force border
//! scan, an exact segment/square intersection test and a full rebuild.
//!
//! This file holds the shared generator, random maps, the oracles and the flow property
//! check; the tests are grouped by navigation stage in the submodules.
#![allow(clippy::unwrap_used)]

mod flow;
mod integrate;
mod islands_portals;
mod layers;

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;

use navstudio_nav::flow::flow_from_integration;
use navstudio_nav::grid::{
    DIR_NONE, DIRECTIONS, FLOW_FINE_CCW, FLOW_FINE_CW, FLOW_LOS, FLOW_PATHABLE, WALL, flow_vector,
};
use navstudio_nav::integrate::{
    INT_LOS, IntegrationField, IntegratorScratch, UNREACHED, integrate_costs, integrate_with_los,
};
use navstudio_nav::islands::find_islands;
use navstudio_nav::permutations::canonical_flows;
use navstudio_nav::portals::{PortalWindow, find_windows};
use navstudio_nav::rng::SplitMix64 as Rng;
use navstudio_nav::{CostField, GridSpec, build_layer, rebuild_sectors};
use pathfinding::directed::dijkstra::dijkstra_all;

/// Random costs: `wall_p` walls, `cost_p` costed cells (1..=max_cost), clear elsewhere; walls
/// come in small blobs so there are corridors and corners.
fn random_map(
    rng: &mut Rng,
    w: usize,
    h: usize,
    wall_p: f64,
    cost_p: f64,
    max_cost: u8,
) -> Vec<u8> {
    let mut c = vec![1_u8; w * h];
    for v in c.iter_mut() {
        if rng.chance(cost_p) {
            *v = 1 + rng.below(u32::from(max_cost)) as u8;
        }
    }
    let blobs = ((w * h) as f64 * wall_p / 3.0).ceil() as usize;
    for _ in 0..blobs {
        let (x, y) = (rng.below(w as u32) as usize, rng.below(h as u32) as usize);
        for _ in 0..3 {
            let (dx, dy) = DIRECTIONS[rng.below(8) as usize];
            let (nx, ny) = (x as i32 + dx, y as i32 + dy);
            if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                c[ny as usize * w + nx as usize] = WALL;
            }
        }
        c[y * w + x] = WALL;
    }
    c
}

fn succ4(costs: &[u8], w: usize, h: usize, c: usize) -> Vec<(usize, u32)> {
    let (x, y) = (c % w, c / w);
    let mut v = Vec::new();
    let mut push = |n: usize| {
        if costs[n] != WALL {
            v.push((n, u32::from(costs[n])));
        }
    };
    if y > 0 {
        push(c - w);
    }
    if x + 1 < w {
        push(c + 1);
    }
    if y + 1 < h {
        push(c + w);
    }
    if x > 0 {
        push(c - 1);
    }
    v
}

/// Oracle: Dijkstra from a virtual source joined to each seed by its start cost.
fn oracle_costs(
    costs: &[u8],
    w: usize,
    h: usize,
    seeds: &[(usize, u32)],
    blocked: &dyn Fn(usize) -> bool,
) -> Vec<u32> {
    const SRC: usize = usize::MAX;
    let all = dijkstra_all(&SRC, |&c| {
        if c == SRC {
            seeds.to_vec()
        } else {
            succ4(costs, w, h, c)
                .into_iter()
                .filter(|&(n, _)| !blocked(n))
                .collect()
        }
    });
    (0..w * h)
        .map(|c| all.get(&c).map_or(UNREACHED, |&(_, d)| d))
        .collect()
}

/// The upwind Eikonal update solved here independently of the integrator: the `t >= max(a, b)`
/// with `(t - a)² + (t - b)² = c²`, or `min(a, b) + c` when that has no such root.
fn eikonal(a: f64, b: f64, c: f64) -> f64 {
    let (lo, hi) = (a.min(b), a.max(b));
    if !hi.is_finite() || hi - lo >= c {
        return lo + c;
    }
    // Roots of 2t² - 2(a + b)t + a² + b² - c² = 0; the larger one.
    let disc = (a + b) * (a + b) - 2.0 * (a * a + b * b - c * c);
    0.5 * ((a + b) + disc.max(0.0).sqrt())
}

/// Oracle: the discrete Eikonal equations fast marching solves (each passable cell's value is
/// the lesser of [`eikonal`] of its cheapest neighbour along x and along y with its own cost,
/// and of its cheapest neighbour along each diagonal — both cells beside that diagonal
/// passable — with √2 × its own cost; a seed's no more than its start cost; cells in `pinned`
/// keep their given value) solved by fast sweeping —
/// Gauss–Seidel sweeps in the four diagonal orders until nothing changes — rather than by a
/// heap. Infinite where nothing reaches.
fn sweep_oracle(
    costs: &[u8],
    w: usize,
    h: usize,
    seeds: &[(usize, f64)],
    pinned: &[(usize, f64)],
) -> Vec<f64> {
    let mut t = vec![f64::INFINITY; w * h];
    let mut start = vec![f64::INFINITY; w * h];
    let mut fixed = vec![false; w * h];
    for &(c, v) in seeds {
        start[c] = start[c].min(v);
        t[c] = t[c].min(v);
    }
    for &(c, v) in pinned {
        fixed[c] = true;
        t[c] = v;
    }
    let value = |t: &[f64], x: i64, y: i64| {
        if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
            return f64::INFINITY;
        }
        let c = y as usize * w + x as usize;
        if costs[c] == WALL {
            f64::INFINITY
        } else {
            t[c]
        }
    };
    // 0 on every cell (walls read as infinite through `value`): "is this neighbour passable".
    let open_marks = vec![0.0; w * h];
    loop {
        let mut changed = false;
        for (rx, ry) in [(false, false), (true, false), (false, true), (true, true)] {
            for yy in 0..h {
                for xx in 0..w {
                    let x = if rx { w - 1 - xx } else { xx };
                    let y = if ry { h - 1 - yy } else { yy };
                    let c = y * w + x;
                    if costs[c] == WALL || fixed[c] {
                        continue;
                    }
                    let (xi, yi) = (x as i64, y as i64);
                    let a = value(&t, xi - 1, yi).min(value(&t, xi + 1, yi));
                    let b = value(&t, xi, yi - 1).min(value(&t, xi, yi + 1));
                    let open = |dx: i64, dy: i64| value(&open_marks, xi + dx, yi + dy) == 0.0;
                    let diag = |dx: i64, dy: i64| {
                        if open(dx, 0) && open(0, dy) {
                            value(&t, xi + dx, yi + dy)
                        } else {
                            f64::INFINITY
                        }
                    };
                    let d1 = diag(1, -1).min(diag(-1, 1));
                    let d2 = diag(1, 1).min(diag(-1, -1));
                    let cost = f64::from(costs[c].max(1));
                    let new = eikonal(a, b, cost)
                        .min(eikonal(d1, d2, std::f64::consts::SQRT_2 * cost))
                        .min(start[c]);
                    if new < t[c] - 1e-9 {
                        t[c] = new;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return t;
        }
    }
}

/// `got` (the integrator's f32 distances) equals the fast-sweeping oracle up to float
/// rounding, and reachability agrees.
fn assert_matches_sweep(got: &[f32], want: &[f64], what: &str) {
    for (c, (&g, &o)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g.is_finite(),
            o.is_finite(),
            "{what}: reachability of cell {c}"
        );
        if o.is_finite() {
            let tol = 1e-4 * o.max(1.0);
            assert!(
                (f64::from(g) - o).abs() <= tol,
                "{what}: cell {c} integrates to {g}, the sweeping oracle to {o}"
            );
        }
    }
}

const SIZES: [(usize, usize); 7] = [
    (1, 1),
    (3, 7),
    (10, 10),
    (17, 23),
    (40, 31),
    (64, 5),
    (33, 33),
];

/// Flow properties: walls unpathable, every reached cell reaches a goal by strictly cheaper,
/// non-corner-cutting steps; unreached cells have no direction; LOS flag mirrors the field;
/// the steering direction (16 of them) never enters a wall or cuts a wall corner within
/// 1.45 cells of the cell's centre.
fn check_flow(costs: &[u8], w: usize, h: usize, field: &IntegrationField, exits: &[(usize, u8)]) {
    let mut out = vec![0_u8; w * h];
    flow_from_integration(costs, w as u32, h as u32, field, exits, &mut out);
    let pass = |x: i32, y: i32| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && costs[y as usize * w + x as usize] != WALL
    };
    for c in 0..w * h {
        if costs[c] == WALL {
            assert_eq!(out[c] & FLOW_PATHABLE, 0);
            continue;
        }
        assert_ne!(out[c] & FLOW_PATHABLE, 0);
        assert_eq!(out[c] & FLOW_LOS != 0, field.flags[c] & INT_LOS != 0);
        if let Some(&(_, d)) = exits.iter().find(|e| e.0 == c) {
            assert_eq!(out[c] & 0x0F, d);
            continue;
        }
        if field.cost[c] == UNREACHED {
            assert_eq!(out[c] & 0x0F, DIR_NONE);
            continue;
        }
        if let Some((vx, vy)) = flow_vector(out[c]) {
            let (x, y) = ((c % w) as f64 + 0.5, (c / w) as f64 + 0.5);
            // Sample the ray finely; exactly through a corner, both side cells must be open.
            for k in 1..=300 {
                let r = 1.45 * f64::from(k) / 300.0;
                let (px, py) = (x + r * f64::from(vx), y + r * f64::from(vy));
                let (fx, fy) = (px.floor() as i32, py.floor() as i32);
                let inside = fx >= 0 && fy >= 0 && (fx as usize) < w && (fy as usize) < h;
                assert!(
                    !inside || pass(fx, fy),
                    "the flow of cell {c} ({:#04x}) runs into the wall at ({fx}, {fy})",
                    out[c]
                );
            }
            if vx != 0.0 && (vx.abs() - vy.abs()).abs() < 1e-6 {
                let (cx, cy) = ((c % w) as i32, (c / w) as i32);
                let (sx, sy) = (vx.signum() as i32, vy.signum() as i32);
                assert!(
                    pass(cx + sx, cy) && pass(cx, cy + sy),
                    "flow of {c} cuts a corner"
                );
            }
        }
        let mut cur = c;
        let mut steps = 0;
        while !exits.iter().any(|e| e.0 == cur) {
            let d = out[cur] & 0x0F;
            assert_ne!(d, DIR_NONE, "reached cell {cur} without direction");
            let (dx, dy) = DIRECTIONS[d as usize];
            let (x, y) = ((cur % w) as i32, (cur / w) as i32);
            assert!(pass(x + dx, y + dy), "flow steps into a wall");
            if dx != 0 && dy != 0 {
                assert!(pass(x + dx, y) && pass(x, y + dy), "flow cuts a corner");
            }
            let next = (y + dy) as usize * w + (x + dx) as usize;
            assert!(field.dist[next] < field.dist[cur]);
            cur = next;
            steps += 1;
            assert!(steps <= w * h, "cycle");
        }
    }
}
