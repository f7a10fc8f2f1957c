//! Measures clusters grouped recursively (HPA*'s levels) against the one level of 8 × 8
//! sectors that packages store: what the levels cost to build and hold, and how fast a
//! search across the map runs over them, with the same landmark bounds.
//!
//! ```sh
//! cargo run --release -p navstudio-nav --example hierarchy_levels -- big.navpkg [queries] [weight]
//! ```
//!
//! Level k groups the level below into cells of 2^k × 2^k clusters (k = 1, 2, 3, 4, 5): its
//! nodes are the border nodes with an edge leaving their cell, joined inside the cell by
//! shortcuts over the level below (a Dijkstra per node, the same pruning rule as the
//! package's shortcuts). A search expands each node at the highest level whose cell holds
//! neither end. Queries join random border nodes of one island at least half the map apart,
//! on the first movement type. With weight 1 the recursive search must find the one-level
//! costs exactly; the program checks that and says so. The "unpack" rows turn a recursive
//! route's shortcuts back into border nodes of the first level, level by level, each by a
//! search inside its cell: what a request must do before it can refine the route inside the
//! clusters.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;
use std::time::Instant;

use navstudio_nav::hierarchy::{ClusterLandmarks, Hierarchy};
use navstudio_nav::search_graph::SearchGraph;
use rayon::prelude::*;

const FAR: u32 = u32::MAX;

/// A node and its edges.
type NodeEdges = (u32, Vec<(u32, u32)>);

/// Each level doubles the side of the level below's cells (two Z-order bits).
const LEVEL_SHIFTS: [u32; 5] = [2, 4, 6, 8, 10];

/// Landmarks read per search, as `NavWorld` reads over the hierarchy.
const LANDMARKS_READ: usize = 12;

/// One level's graph over border indices: per node its edges (empty for nodes of the
/// level below only), and whether the node belongs to the level.
struct Level {
    member: Vec<bool>,
    edges: Vec<Vec<(u32, u32)>>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: hierarchy_levels PACKAGE [queries] [weight]");
        std::process::exit(2);
    };
    let queries: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    let weight: f32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1.1);
    let package = match navstudio_nav::package::read(Path::new(path)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let layer = &package.nav.layers[0];
    let graph = SearchGraph::new(layer);
    let started = Instant::now();
    let hierarchy = Hierarchy::build(&graph);
    let base_build = started.elapsed().as_secs_f64();
    let Some(marks) = ClusterLandmarks::build(&hierarchy, layer, &graph) else {
        eprintln!("{path}: the map has no border nodes (one cluster); nothing to measure");
        std::process::exit(1);
    };
    let n = hierarchy.border_count() as u32;
    let key: Vec<u32> = (0..n)
        .map(|b| graph.cluster_key(hierarchy.border_node(b)))
        .collect();
    let base = Level {
        member: vec![true; n as usize],
        edges: (0..n).map(|b| hierarchy.border_edges(b).to_vec()).collect(),
    };
    println!("| level | cells of clusters | cells | nodes | edges | MB | build (s) |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let edge_count = |l: &Level| l.edges.iter().map(Vec::len).sum::<usize>();
    println!(
        "| 1 (stored) | 1 × 1 | {} | {n} | {} | {:.0} | {base_build:.2} |",
        hierarchy.cluster_count(),
        edge_count(&base),
        edge_count(&base) as f64 * 8e-6
    );
    let mut levels = vec![base];
    for (k, &shift) in LEVEL_SHIFTS.iter().enumerate() {
        let started = Instant::now();
        let (level, cells) = build_level(&levels[k], &levels[0], &key, shift);
        let secs = started.elapsed().as_secs_f64();
        let nodes = level.member.iter().filter(|&&m| m).count();
        let side = 1 << (shift / 2);
        println!(
            "| {} | {side} × {side} | {cells} | {nodes} | {} | {:.0} | {secs:.2} |",
            k + 2,
            edge_count(&level),
            edge_count(&level) as f64 * 8e-6
        );
        levels.push(level);
    }

    let centre = |b: u32| hierarchy.border_center(b);
    let island = |b: u32| layer.nodes[graph.node_id(hierarchy.border_node(b)) as usize].island;
    let size = layer.cost.spec.width.max(layer.cost.spec.height);
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut pairs = Vec::with_capacity(queries);
    for _ in 0..queries.saturating_mul(10_000) {
        if pairs.len() == queries {
            break;
        }
        let (s, t) = (below(&mut rng, n), below(&mut rng, n));
        let ((sx, sy), (tx, ty)) = (centre(s), centre(t));
        if island(s) == island(t) && sx.abs_diff(tx).max(sy.abs_diff(ty)) >= size / 2 {
            pairs.push((s, t));
        }
    }
    if pairs.len() < queries.max(1) {
        eprintln!("{path}: too few border nodes of one island lie half the map apart to search");
        std::process::exit(1);
    }
    let mut search = Search::new(n as usize);
    let mut unpacking = Search::new(n as usize);
    println!();
    println!(
        "{queries} searches across the map, weight {weight}, {LANDMARKS_READ} landmarks read:"
    );
    println!();
    println!("| search | median ms | p99 ms | expanded (median / p99) | edges relaxed (mean) |");
    println!("|---|---:|---:|---:|---:|");
    let mut costs = Vec::new();
    for top in [0, LEVEL_SHIFTS.len()] {
        let mut times = Vec::with_capacity(queries);
        let mut expanded = Vec::with_capacity(queries);
        let mut relaxed = 0u64;
        let mut unpack_times = Vec::new();
        let mut found = Vec::with_capacity(queries);
        for &(s, t) in &pairs {
            let started = Instant::now();
            let cost = search.run(&levels[..=top], &key, &marks, weight, (s, t));
            times.push(started.elapsed().as_secs_f64() * 1e3);
            expanded.push(search.expanded);
            relaxed += search.relaxed;
            found.push(cost);
            if top > 0 && cost != FAR {
                let started = Instant::now();
                let route = search.route(s, t);
                unpack(&levels, &key, &route, &mut unpacking);
                unpack_times.push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        let (median, p99) = median_p99(&mut times);
        expanded.sort_unstable();
        println!(
            "| {} | {median:.3} | {p99:.3} | {} / {} | {} |",
            if top == 0 {
                "one level (stored)".to_owned()
            } else {
                format!("{} levels", top + 1)
            },
            expanded[expanded.len() / 2],
            expanded[expanded.len() * 99 / 100],
            relaxed / queries as u64
        );
        if !unpack_times.is_empty() {
            let (median, p99) = median_p99(&mut unpack_times);
            println!("| … then unpacked to level 1 | {median:.3} | {p99:.3} | | |");
        }
        costs.push(found);
    }
    if weight <= 1.0 {
        let same = costs[0] == costs[1];
        println!();
        println!(
            "route costs of the two searches: {}",
            if same { "equal" } else { "DIFFERENT" }
        );
        if !same {
            std::process::exit(1);
        }
    }
}

/// The level above `below` whose cells are `shift` Z-order bits of cluster key: its nodes
/// and their edges, and its number of cells. Border indices follow cluster keys, so a cell
/// is one range of them.
fn build_level(below: &Level, base: &Level, key: &[u32], shift: u32) -> (Level, usize) {
    let n = key.len();
    let cell = |b: u32| key[b as usize] >> shift;
    let mut member = vec![false; n];
    for b in 0..n as u32 {
        for &(t, _) in &base.edges[b as usize] {
            if cell(t) != cell(b) {
                member[b as usize] = true;
                member[t as usize] = true;
            }
        }
    }
    let mut ranges = Vec::new();
    let mut lo = 0u32;
    for b in 1..=n as u32 {
        if b == n as u32 || cell(b) != cell(lo) {
            ranges.push((lo, b));
            lo = b;
        }
    }
    let lists: Vec<Vec<NodeEdges>> = ranges
        .par_iter()
        .map(|&(lo, hi)| {
            let mut dist = vec![FAR; (hi - lo) as usize];
            let mut via = vec![FAR; (hi - lo) as usize];
            let mut heap = BinaryHeap::new();
            let mut out = Vec::new();
            for from in (lo..hi).filter(|&b| member[b as usize]) {
                dist.fill(FAR);
                via.fill(FAR);
                dist[(from - lo) as usize] = 0;
                heap.push(Reverse((0, from)));
                while let Some(Reverse((d, v))) = heap.pop() {
                    let vi = (v - lo) as usize;
                    if d > dist[vi] {
                        continue;
                    }
                    // The least positive cost at which the way here passes a member.
                    let passed = if member[v as usize] && v != from && d > 0 {
                        via[vi].min(d)
                    } else {
                        via[vi]
                    };
                    for &(t, w) in &below.edges[v as usize] {
                        if t < lo || t >= hi {
                            continue;
                        }
                        let (nd, ti) = (d + w, (t - lo) as usize);
                        if nd < dist[ti] {
                            dist[ti] = nd;
                            via[ti] = passed;
                            heap.push(Reverse((nd, t)));
                        } else if nd == dist[ti] {
                            via[ti] = via[ti].min(passed);
                        }
                    }
                }
                // A shortcut that passes another member more cheaply is two shortcuts.
                let mut list: Vec<(u32, u32)> = (lo..hi)
                    .filter(|&t| t != from && member[t as usize])
                    .filter_map(|t| {
                        let i = (t - lo) as usize;
                        (dist[i] != FAR && via[i] >= dist[i]).then_some((t, dist[i]))
                    })
                    .collect();
                list.extend(
                    base.edges[from as usize]
                        .iter()
                        .copied()
                        .filter(|&(t, _)| t < lo || t >= hi),
                );
                out.push((from, list));
            }
            out
        })
        .collect();
    let mut edges = vec![Vec::new(); n];
    for (from, list) in lists.into_iter().flatten() {
        edges[from as usize] = list;
    }
    (Level { member, edges }, ranges.len())
}

/// A* over border indices with the stored hierarchy's landmark bounds.
struct Search {
    dist: Vec<u32>,
    estimate: Vec<u32>,
    parent: Vec<u32>,
    closed: Vec<bool>,
    touched: Vec<u32>,
    expanded: usize,
    relaxed: u64,
}

impl Search {
    fn new(n: usize) -> Self {
        Self {
            dist: vec![FAR; n],
            estimate: vec![FAR; n],
            parent: vec![FAR; n],
            closed: vec![false; n],
            touched: Vec::new(),
            expanded: 0,
            relaxed: 0,
        }
    }

    /// The cost from `s` to `t` over `levels` (the first alone: the stored search), each
    /// node expanded at the highest level whose cell holds neither end.
    fn run(
        &mut self,
        levels: &[Level],
        key: &[u32],
        marks: &ClusterLandmarks,
        weight: f32,
        (s, t): (u32, u32),
    ) -> u32 {
        for &v in &self.touched {
            let v = v as usize;
            (self.dist[v], self.estimate[v], self.closed[v]) = (FAR, FAR, false);
        }
        self.touched.clear();
        (self.expanded, self.relaxed) = (0, 0);
        let mut bounds = marks.bounds();
        bounds.add_finish(t, 0);
        bounds.focus(s, LANDMARKS_READ);
        let level_of = |v: u32| {
            (1..levels.len())
                .rev()
                .find(|&k| {
                    let shift = LEVEL_SHIFTS[k - 1];
                    let cell = key[v as usize] >> shift;
                    levels[k].member[v as usize]
                        && cell != key[s as usize] >> shift
                        && cell != key[t as usize] >> shift
                })
                .unwrap_or(0)
        };
        let mut heap = BinaryHeap::new();
        self.dist[s as usize] = 0;
        self.estimate[s as usize] = 0;
        self.touched.push(s);
        heap.push(Reverse((0, s)));
        while let Some(Reverse((f, v))) = heap.pop() {
            let vi = v as usize;
            if self.closed[vi] || f > self.dist[vi].saturating_add(self.estimate[vi]) {
                continue;
            }
            self.closed[vi] = true;
            self.expanded += 1;
            if v == t {
                return self.dist[vi];
            }
            let d = self.dist[vi];
            for &(x, w) in &levels[level_of(v)].edges[vi] {
                self.relaxed += 1;
                let xi = x as usize;
                if self.estimate[xi] == FAR {
                    let bound = bounds.lower_bound(x).unwrap_or(0);
                    self.estimate[xi] = (bound as f32 * weight) as u32;
                    self.touched.push(x);
                }
                if d + w < self.dist[xi] {
                    if self.closed[xi] {
                        if weight > 1.0 {
                            continue;
                        }
                        self.closed[xi] = false;
                    }
                    self.dist[xi] = d + w;
                    self.parent[xi] = v;
                    heap.push(Reverse((d + w + self.estimate[xi], x)));
                }
            }
        }
        FAR
    }

    /// The nodes of the route last found from `s` to `t`.
    fn route(&self, s: u32, t: u32) -> Vec<u32> {
        let mut route = vec![t];
        let mut at = t;
        while at != s {
            at = self.parent[at as usize];
            route.push(at);
        }
        route.reverse();
        route
    }
}

/// Replaces each shortcut of `route` (two nodes of one cell of some level above the first)
/// by the nodes of the cheapest way between them over the level below, until only level-1
/// edges remain; returns the number of level-1 hops.
fn unpack(levels: &[Level], key: &[u32], route: &[u32], scratch: &mut Search) -> usize {
    // (from, to, highest level the hop can be a shortcut of), last hop first.
    let top = levels.len() - 1;
    let mut hops: Vec<(u32, u32, usize)> =
        route.windows(2).rev().map(|p| (p[0], p[1], top)).collect();
    let mut done = 0;
    while let Some((a, b, below)) = hops.pop() {
        let level = (1..=below).rev().find(|&k| {
            let shift = LEVEL_SHIFTS[k - 1];
            key[a as usize] >> shift == key[b as usize] >> shift
                && levels[k].edges[a as usize].iter().any(|&(t, _)| t == b)
        });
        let Some(k) = level else {
            done += 1;
            continue;
        };
        let shift = LEVEL_SHIFTS[k - 1];
        let cell = key[a as usize] >> shift;
        let lo = key.partition_point(|&c| c >> shift < cell) as u32;
        let hi = key.partition_point(|&c| c >> shift <= cell) as u32;
        let way = dijkstra_in(&levels[k - 1], (lo, hi), a, b, scratch);
        hops.extend(way.windows(2).rev().map(|p| (p[0], p[1], k - 1)));
    }
    done
}

/// The nodes of the cheapest way from `a` to `b` over `level`'s edges inside border
/// indices `lo..hi`.
fn dijkstra_in(level: &Level, (lo, hi): (u32, u32), a: u32, b: u32, s: &mut Search) -> Vec<u32> {
    for &v in &s.touched {
        s.dist[v as usize] = FAR;
    }
    s.touched.clear();
    let mut heap = BinaryHeap::new();
    s.dist[a as usize] = 0;
    s.touched.push(a);
    heap.push(Reverse((0, a)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if v == b {
            break;
        }
        if d > s.dist[v as usize] {
            continue;
        }
        for &(x, w) in &level.edges[v as usize] {
            if x < lo || x >= hi || d + w >= s.dist[x as usize] {
                continue;
            }
            if s.dist[x as usize] == FAR {
                s.touched.push(x);
            }
            s.dist[x as usize] = d + w;
            s.parent[x as usize] = v;
            heap.push(Reverse((d + w, x)));
        }
    }
    s.route(a, b)
}

/// Median and 99th percentile of `times`.
fn median_p99(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

/// A number below `n` (xorshift).
fn below(state: &mut u64, n: u32) -> u32 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % u64::from(n)) as u32
}
