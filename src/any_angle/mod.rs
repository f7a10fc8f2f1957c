//! Reference shortest paths for benchmarks and tests, independent of the run time's fields.
//!
//! - [`any_angle_length`]: the exact any-angle shortest path between two cell centres on a
//!   unit-cost grid (the line a person would draw), by A* over the visibility graph of the
//!   convex wall corners. The geometry (what touches and what crosses a wall) is in
//!   [`geometry`].
//! - [`weighted::fine_direction_cost`]: for cost fields, the cheapest path over a grid graph
//!   of cell centres with 48 directions, each step priced by the cells it crosses, by length.

pub mod geometry;
pub mod weighted;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

pub use geometry::WallGrid;
use geometry::{centre, distance, segment_free};

/// Side of the square buckets the corners are filed in.
const BUCKET: i64 = 16;

/// The convex wall corners of one grid, filed by bucket: build once per map, query many
/// times.
#[derive(Clone, Debug)]
pub struct AnyAngle {
    grid: WallGrid,
    /// Corner points (cell-corner coordinates) with their solid quadrant.
    corners: Vec<((i64, i64), (i8, i8))>,
    /// Per bucket, its corners' indices.
    buckets: Vec<Vec<u32>>,
    buckets_w: i64,
    buckets_h: i64,
}

#[derive(Clone, Copy, PartialEq)]
struct Open {
    f: f64,
    g: f64,
    node: u32,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Smallest f first; among equals, the deepest (largest g).
        other.f.total_cmp(&self.f).then(self.g.total_cmp(&other.g))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl AnyAngle {
    /// Finds and files the convex corners of `grid`.
    #[must_use]
    pub fn new(grid: WallGrid) -> Self {
        let (w, h) = (i64::from(grid.width), i64::from(grid.height));
        let buckets_w = w / BUCKET + 1;
        let buckets_h = h / BUCKET + 1;
        let mut buckets = vec![Vec::new(); (buckets_w * buckets_h) as usize];
        let mut corners = Vec::new();
        for y in 0..=h {
            for x in 0..=w {
                if let Some(q) = grid.convex_corner(x, y) {
                    buckets[((y / BUCKET) * buckets_w + x / BUCKET) as usize]
                        .push(corners.len() as u32);
                    corners.push(((x, y), q));
                }
            }
        }
        Self {
            grid,
            corners,
            buckets,
            buckets_w,
            buckets_h,
        }
    }

    /// The grid.
    #[must_use]
    pub fn grid(&self) -> &WallGrid {
        &self.grid
    }

    /// Number of convex corners (the visibility graph's nodes besides the two ends).
    #[must_use]
    pub fn corner_count(&self) -> usize {
        self.corners.len()
    }

    /// The any-angle shortest distance between the centres of cells `from` and `to` (cell
    /// units), `None` when either is a wall or no path exists. `bound`, when given, is a
    /// length no path needs to exceed (a known path's length): the search ignores corners
    /// that cannot lead to a shorter one, and returns `None` if none is at most `bound`.
    #[must_use]
    pub fn length(&self, from: (u32, u32), to: (u32, u32), bound: Option<f64>) -> Option<f64> {
        self.path(from, to, bound).map(|(len, _)| len)
    }

    /// [`Self::length`] with the path's points (cell units: centres and corners).
    #[must_use]
    pub fn path(
        &self,
        from: (u32, u32),
        to: (u32, u32),
        bound: Option<f64>,
    ) -> Option<(f64, Vec<(f64, f64)>)> {
        let g = &self.grid;
        if g.is_wall(i64::from(from.0), i64::from(from.1))
            || g.is_wall(i64::from(to.0), i64::from(to.1))
        {
            return None;
        }
        let (s, t) = (centre(from), centre(to));
        let to_points = |v: &[(i64, i64)]| -> Vec<(f64, f64)> {
            v.iter()
                .map(|&(x, y)| (x as f64 / 2.0, y as f64 / 2.0))
                .collect()
        };
        if segment_free(g, s, t) {
            let d = distance(s, t);
            return (bound.is_none_or(|b| d <= b + 1e-9)).then(|| (d, to_points(&[s, t])));
        }
        // Nodes: corners 0..n, then the start (n) and the goal (n + 1).
        let n = self.corners.len();
        let (start, goal) = (n as u32, n as u32 + 1);
        let point = |i: u32| -> (i64, i64) {
            match i as usize {
                i if i < n => {
                    let (c, _) = self.corners[i];
                    (2 * c.0, 2 * c.1)
                }
                i if i == n => s,
                _ => t,
            }
        };
        let mut search = Search {
            g: vec![f64::INFINITY; n + 2],
            parent: vec![u32::MAX; n + 2],
            closed: vec![false; n + 2],
            open: BinaryHeap::new(),
            upper: bound.map_or(f64::INFINITY, |b| b + 1e-9),
            goal: t,
        };
        search.g[start as usize] = 0.0;
        search.open.push(Open {
            f: distance(s, t),
            g: 0.0,
            node: start,
        });
        while let Some(Open { f, g: gu, node: u }) = search.open.pop() {
            if f > search.upper {
                break;
            }
            if u == goal {
                let mut points = vec![t];
                let mut at = goal;
                while at != start {
                    at = search.parent[at as usize];
                    points.push(point(at));
                }
                points.reverse();
                return Some((gu, to_points(&points)));
            }
            // A stale entry (a shorter way was found since) leaves the node open.
            if search.g[u as usize] < gu || search.closed[u as usize] {
                continue;
            }
            search.closed[u as usize] = true;
            let pu = point(u);
            // At a corner, the path goes on only tangent to its wall and turning toward it
            // (a bend the other way could be cut short).
            let bend = (u < start).then(|| {
                let from = point(search.parent[u as usize]);
                Bend {
                    quadrant: self.corners[u as usize].1,
                    incoming: (pu.0 - from.0, pu.1 - from.1),
                }
            });
            // The goal, when in sight.
            let d_goal = gu + distance(pu, t);
            if d_goal < search.upper
                && d_goal < search.g[goal as usize]
                && bend.is_none_or(|b| b.allows((t.0 - pu.0, t.1 - pu.1)))
                && segment_free(g, pu, t)
            {
                search.upper = d_goal;
                search.g[goal as usize] = d_goal;
                search.parent[goal as usize] = u;
                search.open.push(Open {
                    f: d_goal,
                    g: d_goal,
                    node: goal,
                });
            }
            // Corners within the ellipse gu + |u c| + |c t| < upper (all of them while no
            // path is known).
            let reach = search.upper - gu;
            let (bx0, by0, bx1, by1) = if reach.is_finite() {
                let (mx, my) = ((pu.0 + t.0) as f64 / 4.0, (pu.1 + t.1) as f64 / 4.0);
                let half = reach / 2.0 + 1.0;
                (
                    ((mx - half).max(0.0) as i64) / BUCKET,
                    ((my - half).max(0.0) as i64) / BUCKET,
                    (((mx + half) as i64) / BUCKET).min(self.buckets_w - 1),
                    (((my + half) as i64) / BUCKET).min(self.buckets_h - 1),
                )
            } else {
                (0, 0, self.buckets_w - 1, self.buckets_h - 1)
            };
            for by in by0..=by1 {
                for bx in bx0..=bx1 {
                    for &c in &self.buckets[(by * self.buckets_w + bx) as usize] {
                        self.relax(&mut search, (u, pu, gu, bend), c);
                    }
                }
            }
        }
        None
    }

    /// Relaxes the edge from node `u` (at `pu`, distance `gu`) to corner `c`.
    fn relax(
        &self,
        search: &mut Search,
        (u, pu, gu, bend): (u32, (i64, i64), f64, Option<Bend>),
        c: u32,
    ) {
        if c == u || search.closed[c as usize] {
            return;
        }
        let (cc, qc) = self.corners[c as usize];
        let pc = (2 * cc.0, 2 * cc.1);
        let d = (pc.0 - pu.0, pc.1 - pu.1);
        // A shortest path bends at a corner only tangent to its wall: the line through the
        // corner must not cut into the wall's quadrant, at either end of the edge.
        if !tangent(d, qc) || bend.is_some_and(|b| !b.allows(d)) {
            return;
        }
        let gc = gu + distance(pu, pc);
        let f = gc + distance(pc, search.goal);
        if f >= search.upper || search.g[c as usize] <= gc {
            return;
        }
        if !segment_free(&self.grid, pu, pc) {
            return;
        }
        search.g[c as usize] = gc;
        search.parent[c as usize] = u;
        search.open.push(Open { f, g: gc, node: c });
    }
}

/// One query's state.
struct Search {
    g: Vec<f64>,
    parent: Vec<u32>,
    closed: Vec<bool>,
    open: BinaryHeap<Open>,
    /// The shortest path to the goal found so far (or the caller's bound).
    upper: f64,
    /// The goal point (doubled).
    goal: (i64, i64),
}

/// How a path arrived at a corner: which way it may go on.
#[derive(Clone, Copy)]
struct Bend {
    /// The corner's solid quadrant.
    quadrant: (i8, i8),
    /// The direction it arrived in.
    incoming: (i64, i64),
}

impl Bend {
    /// Whether leaving in direction `d` is a taut bend: tangent to the wall and turning
    /// toward it (or straight on).
    fn allows(self, d: (i64, i64)) -> bool {
        let cross = |a: (i64, i64), b: (i64, i64)| a.0 * b.1 - a.1 * b.0;
        let wall = (i64::from(self.quadrant.0), i64::from(self.quadrant.1));
        tangent(d, self.quadrant)
            && cross(self.incoming, d).signum() * cross(self.incoming, wall).signum() >= 0
    }
}

/// Whether a line of direction `d` through a corner whose solid cell lies in quadrant `q`
/// stays out of that cell's interior (touches it at most).
fn tangent(d: (i64, i64), q: (i8, i8)) -> bool {
    // The line enters the open quadrant (qx, qy) or its opposite iff d points strictly
    // into one of them.
    let s = i64::from(q.0) * i64::from(q.1);
    d.0 * d.1 * s <= 0
}

/// The any-angle shortest distance between the centres of two cells of `grid` (see
/// [`AnyAngle::length`]); builds the corner index each call, so prefer [`AnyAngle`] for many
/// queries on one map.
#[must_use]
pub fn any_angle_length(grid: &WallGrid, from: (u32, u32), to: (u32, u32)) -> Option<f64> {
    AnyAngle::new(grid.clone()).length(from, to, None)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const S2: f64 = std::f64::consts::SQRT_2;

    fn len(rows: &[&str], a: (u32, u32), b: (u32, u32)) -> Option<f64> {
        any_angle_length(&WallGrid::from_rows(rows), a, b)
    }

    #[test]
    fn open_ground_is_the_straight_line() {
        let rows = [".........."; 6];
        let d = len(&rows, (0, 0), (9, 5)).unwrap();
        assert!((d - (81.0_f64 + 25.0).sqrt()).abs() < 1e-12, "{d}");
    }

    #[test]
    fn a_square_pillar_is_passed_at_its_corners() {
        // Pillar (2..4, 1..3) (cells 2,3 × 1,2); (0,2) to (5,2): the centres sit at y = 2.5,
        // the pillar spans y 1..3, so the path bends over corner (2,1)->(4,1) above or
        // (2,3)->(4,3) below. Below is shorter: from (0.5,2.5) to (2,3) to (4,3) to (5.5,2.5).
        let rows = ["......", "..##..", "..##..", "......", "......"];
        let d = len(&rows, (0, 2), (5, 2)).unwrap();
        let leg = (1.5_f64 * 1.5 + 0.5 * 0.5).sqrt();
        assert!((d - (2.0 * leg + 2.0)).abs() < 1e-12, "{d}");
        let (_, pts) = AnyAngle::new(WallGrid::from_rows(&rows))
            .path((0, 2), (5, 2), None)
            .unwrap();
        assert_eq!(pts, vec![(0.5, 2.5), (2.0, 3.0), (4.0, 3.0), (5.5, 2.5)]);
    }

    #[test]
    fn a_u_shaped_wall_is_left_by_its_mouth() {
        // A U open to the top: the start inside at (3,3), the goal below the U at (3,6).
        //   0123456
        // 0 .......
        // 1 .#...#.
        // 2 .#...#.
        // 3 .#...#.
        // 4 .#####.
        // 5 .......
        // 6 .......
        let rows = [
            ".......", ".#...#.", ".#...#.", ".#...#.", ".#####.", ".......", ".......",
        ];
        let d = len(&rows, (3, 3), (3, 6)).unwrap();
        // Up to the inner corner (2,1) of the left arm's top, over to its outer corner (1,1),
        // down the arm's outside to (1,5), then to the goal (3.5, 6.5).
        let a = ((3.5_f64 - 2.0).powi(2) + (3.5_f64 - 1.0).powi(2)).sqrt();
        let over = 1.0; // (2,1) -> (1,1) along the arm's top edge
        let down = 4.0; // (1,1) -> (1,5)
        let last = ((3.5_f64 - 1.0).powi(2) + (6.5_f64 - 5.0).powi(2)).sqrt();
        let expect = a + over + down + last;
        assert!((d - expect).abs() < 1e-12, "{d} vs {expect}");
        // Through the arm's top corner directly: (2,1) -> (1,1) is along the top edge of
        // cell (1,1), which is touching, so the path runs along it; the hand figure agrees.
    }

    #[test]
    fn a_diagonal_gap_between_two_walls_is_closed() {
        // An anti-diagonal of walls (2,0), (1,1), (0,2) meeting corner to corner: the two
        // sides touch only at the points (2,1) and (1,2), where walls pinch.
        let rows = ["..#", ".#.", "#.."];
        assert_eq!(len(&rows, (0, 0), (2, 2)), None);
        let rows = [".#", "#."];
        assert_eq!(
            len(&rows, (0, 0), (1, 1)),
            None,
            "no squeezing between corners"
        );
    }

    #[test]
    fn a_wall_ends_bend_the_path_once() {
        // A vertical wall from the top down to y = 3; start left, goal right, both at row 1.
        let rows = ["..#..", "..#..", "..#..", ".....", "....."];
        let d = len(&rows, (0, 1), (4, 1)).unwrap();
        // Over the wall's bottom corners (2,3) and (3,3).
        let leg = (1.5_f64 * 1.5 + 1.5 * 1.5).sqrt();
        assert!((d - (2.0 * leg + 1.0)).abs() < 1e-12, "{d}");
        assert!((leg - 1.5 * S2).abs() < 1e-12);
    }

    fn show(g: &WallGrid) -> String {
        let mut s = String::new();
        for y in 0..g.height {
            for x in 0..g.width {
                s.push(if g.is_wall(i64::from(x), i64::from(y)) {
                    '#'
                } else {
                    '.'
                });
            }
            s.push('\n');
        }
        s
    }

    /// Dijkstra over the full visibility graph (every pair of corners, no tangent or
    /// ellipse pruning): slow, obviously right.
    fn brute_force(grid: &WallGrid, from: (u32, u32), to: (u32, u32)) -> Option<f64> {
        let mut pts = vec![centre(from), centre(to)];
        for y in 0..=i64::from(grid.height) {
            for x in 0..=i64::from(grid.width) {
                if grid.convex_corner(x, y).is_some() {
                    pts.push((2 * x, 2 * y));
                }
            }
        }
        let mut dist = vec![f64::INFINITY; pts.len()];
        let mut done = vec![false; pts.len()];
        dist[0] = 0.0;
        loop {
            let u = (0..pts.len())
                .filter(|&i| !done[i] && dist[i].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))?;
            if u == 1 {
                return Some(dist[1]);
            }
            done[u] = true;
            for v in 0..pts.len() {
                if !done[v] && segment_free(grid, pts[u], pts[v]) {
                    let d = dist[u] + distance(pts[u], pts[v]);
                    dist[v] = dist[v].min(d);
                }
            }
        }
    }

    #[test]
    fn the_pruned_search_equals_the_full_visibility_graph_on_random_maps() {
        let seed = 0x5eed_0049_u64;
        println!("seed {seed:#x}");
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..200 {
            let (w, h) = (6 + (next() % 10) as u32, 6 + (next() % 10) as u32);
            let density = 10 + next() % 30;
            let walls: Vec<bool> = (0..w * h).map(|_| next() % 100 < density).collect();
            let grid = WallGrid::new(w, h, walls);
            let oracle = AnyAngle::new(grid.clone());
            for _ in 0..8 {
                let a = (
                    (next() % u64::from(w)) as u32,
                    (next() % u64::from(h)) as u32,
                );
                let b = (
                    (next() % u64::from(w)) as u32,
                    (next() % u64::from(h)) as u32,
                );
                if grid.is_wall(i64::from(a.0), i64::from(a.1))
                    || grid.is_wall(i64::from(b.0), i64::from(b.1))
                {
                    continue;
                }
                let fast = oracle.length(a, b, None);
                let slow = brute_force(&grid, a, b);
                match (fast, slow) {
                    (Some(f), Some(s)) => {
                        assert!(
                            (f - s).abs() < 1e-9,
                            "case {case} {a:?}->{b:?}: {f} vs {s} {:?}\n{}",
                            oracle.path(a, b, None),
                            show(&grid)
                        );
                    }
                    (None, None) => {}
                    other => panic!("case {case} {a:?}->{b:?}: {other:?}\n{}", show(&grid)),
                }
                // The 48-direction graph is a set of free-space paths in the same geometry:
                // never shorter, and close.
                let costs = grid
                    .walls
                    .iter()
                    .map(|&w| if w { 255 } else { 1 })
                    .collect();
                let field = weighted::CostGrid {
                    width: w,
                    height: h,
                    costs,
                };
                if let (Some(f), Some(fine)) = (fast, weighted::fine_direction_cost(&field, a, b)) {
                    assert!(fine >= f - 1e-9, "case {case} {a:?}->{b:?}: {fine} < {f}");
                }
            }
        }
    }

    #[test]
    fn a_bound_below_the_optimum_finds_nothing() {
        let rows = ["..#..", "..#..", "..#..", ".....", "....."];
        let a = AnyAngle::new(WallGrid::from_rows(&rows));
        let d = a.length((0, 1), (4, 1), None).unwrap();
        assert_eq!(a.length((0, 1), (4, 1), Some(d + 0.01)), Some(d));
        assert_eq!(a.length((0, 1), (4, 1), Some(d - 0.01)), None);
    }
}
