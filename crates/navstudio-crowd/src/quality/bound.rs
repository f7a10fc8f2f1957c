//! A lower bound on how long a crowd needs, from the geometry alone:
//!
//! `bound = max over agents of (shortest path − arrival reach) / max speed
//!        + max over gaps of Σ over the agents through it of 2·r / (lanes · max speed)`
//!
//! - The shortest path is an 8-neighbour Dijkstra over the agent's movement type's free
//!   cells (no corner cutting), from its start to its order's destination. An agent counts
//!   as arrived once it touches an arrived member of its group near the goal, so the
//!   group's arrival reach (as the simulation computes it) is taken off.
//! - The gap an agent passes is the narrowest point on its shortest path: at each cell of
//!   the path, the shorter of the horizontal and vertical runs of free cells through it
//!   (plus twice the type's wall buffer, which only moved the walls in). Runs of 64 cells or
//!   more are open ground. A gap `w` wide holds `lanes = ⌊w / 2r⌋` lanes, each passing
//!   `max speed / 2r` agents per second; agents whose narrowest point is the same run queue
//!   there together.

use navstudio_nav::MoveType;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use crate::{Navigator, Simulation, Vec2};

/// Runs at least this long (in cells) are open ground, not a gap.
const OPEN_RUN_CELLS: u32 = 64;
/// Not reached by the Dijkstra.
const FAR: f32 = f32::INFINITY;

/// The bound and what it is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LowerBound {
    /// The farthest agent's walk at top speed. `[Units: s]`
    pub travel_secs: f64,
    /// The busiest gap's queue. `[Units: s]`
    pub queue_secs: f64,
    /// Width of that gap (0 when no agent passes one). `[Units: m]`
    pub gap_m: f32,
    /// Agents through that gap.
    pub through_gap: u32,
}

impl LowerBound {
    /// Travel plus queue. `[Units: s]`
    #[must_use]
    pub fn total_secs(&self) -> f64 {
        self.travel_secs + self.queue_secs
    }
}

/// One row of free cells through a path cell: `(vertical?, fixed coordinate, first cell)`.
type RunKey = (bool, u32, u32);

/// Geodesic distances per (movement type, destination cell), built on demand.
pub struct Geodesics {
    width: u32,
    height: u32,
    cell_m: f32,
    fields: HashMap<(MoveType, (i32, i32)), Vec<f32>>,
}

impl Geodesics {
    /// An empty cache for the navigator's grid.
    #[must_use]
    pub fn new<N: Navigator + ?Sized>(nav: &N) -> Self {
        let g = nav.grid();
        Self {
            width: g.width_cells,
            height: g.height_cells,
            cell_m: g.cell_size_m,
            fields: HashMap::new(),
        }
    }

    /// Shortest distance from `from` to `to` for movement type `t` (`None`: unreachable).
    /// `[Units: m]`
    pub fn distance<N: Navigator + ?Sized>(
        &mut self,
        nav: &N,
        t: MoveType,
        from: Vec2,
        to: Vec2,
    ) -> Option<f32> {
        let goal = nav.grid().cell_from_world(to);
        let start = nav.grid().cell_from_world(from);
        let idx = self.index(start)?;
        let field = self.field(nav, t, goal);
        let d = field[idx];
        d.is_finite().then_some(d)
    }

    fn index(&self, (x, y): (i32, i32)) -> Option<usize> {
        (x >= 0 && y >= 0 && (x as u32) < self.width && (y as u32) < self.height)
            .then(|| y as usize * self.width as usize + x as usize)
    }

    fn field<N: Navigator + ?Sized>(&mut self, nav: &N, t: MoveType, goal: (i32, i32)) -> &[f32] {
        let (w, h, cell_m) = (self.width, self.height, self.cell_m);
        self.fields
            .entry((t, goal))
            .or_insert_with(|| dijkstra(nav, t, goal, w, h, cell_m))
    }

    /// The cells of a shortest path from `from` down the field toward `to`.
    fn path<N: Navigator + ?Sized>(
        &mut self,
        nav: &N,
        t: MoveType,
        from: Vec2,
        to: Vec2,
    ) -> Vec<(i32, i32)> {
        let goal = nav.grid().cell_from_world(to);
        let mut at = nav.grid().cell_from_world(from);
        let (w, h) = (self.width as i32, self.height as i32);
        let field = self.field(nav, t, goal);
        let value = |(x, y): (i32, i32)| {
            if x < 0 || y < 0 || x >= w || y >= h {
                FAR
            } else {
                field[(y * w + x) as usize]
            }
        };
        let mut cells = vec![at];
        while at != goal && value(at).is_finite() && cells.len() < (w * h) as usize {
            let mut best = (value(at), at);
            for (dx, dy, _) in STEPS {
                let next = (at.0 + dx, at.1 + dy);
                if value(next) < best.0 {
                    best = (value(next), next);
                }
            }
            if best.1 == at {
                break;
            }
            at = best.1;
            cells.push(at);
        }
        cells
    }
}

/// 8-neighbour steps with their lengths in cells.
const STEPS: [(i32, i32, f32); 8] = [
    (1, 0, 1.0),
    (-1, 0, 1.0),
    (0, 1, 1.0),
    (0, -1, 1.0),
    (1, 1, std::f32::consts::SQRT_2),
    (1, -1, std::f32::consts::SQRT_2),
    (-1, 1, std::f32::consts::SQRT_2),
    (-1, -1, std::f32::consts::SQRT_2),
];

/// Distance in metres from every cell to `goal` over free cells of type `t`; a diagonal
/// step needs both side cells free.
fn dijkstra<N: Navigator + ?Sized>(
    nav: &N,
    t: MoveType,
    goal: (i32, i32),
    w: u32,
    h: u32,
    cell_m: f32,
) -> Vec<f32> {
    let (w, h) = (w as i32, h as i32);
    let mut dist = vec![FAR; (w * h) as usize];
    let free = |x: i32, y: i32| x >= 0 && y >= 0 && x < w && y < h && !nav.is_wall(t, x, y);
    if !free(goal.0, goal.1) {
        return dist;
    }
    let mut heap = BinaryHeap::new();
    dist[(goal.1 * w + goal.0) as usize] = 0.0;
    // Non-negative floats order like their bits.
    heap.push(Reverse((0u32, goal.0, goal.1)));
    while let Some(Reverse((bits, x, y))) = heap.pop() {
        let d = f32::from_bits(bits);
        if d > dist[(y * w + x) as usize] {
            continue;
        }
        for (dx, dy, len) in STEPS {
            let (nx, ny) = (x + dx, y + dy);
            if !free(nx, ny) || (dx != 0 && dy != 0 && !(free(x + dx, y) && free(x, y + dy))) {
                continue;
            }
            let nd = d + len * cell_m;
            let k = (ny * w + nx) as usize;
            if nd < dist[k] {
                dist[k] = nd;
                heap.push(Reverse((nd.to_bits(), nx, ny)));
            }
        }
    }
    dist
}

/// The free run through `cell` along one axis: `(key, length in cells)`.
fn run<N: Navigator + ?Sized>(
    nav: &N,
    t: MoveType,
    cell: (i32, i32),
    vertical: bool,
) -> (RunKey, u32) {
    let step = if vertical { (0, 1) } else { (1, 0) };
    let mut lo = cell;
    let mut len = 1;
    while len < OPEN_RUN_CELLS && !nav.is_wall(t, lo.0 - step.0, lo.1 - step.1) {
        lo = (lo.0 - step.0, lo.1 - step.1);
        len += 1;
    }
    let mut hi = cell;
    while len < OPEN_RUN_CELLS && !nav.is_wall(t, hi.0 + step.0, hi.1 + step.1) {
        hi = (hi.0 + step.0, hi.1 + step.1);
        len += 1;
    }
    let key = if vertical {
        (true, lo.0 as u32, lo.1 as u32)
    } else {
        (false, lo.1 as u32, lo.0 as u32)
    };
    (key, len)
}

/// The geometric lower bound for the simulation's current orders, with each agent's start
/// position taken from `starts`. Agents without an order, or whose destination their type
/// cannot reach, are left out. Also returns each agent's shortest-path length from its
/// start to its destination (`None` for those left out). `[Units: m]`
pub fn lower_bound<N: Navigator + ?Sized>(
    sim: &Simulation,
    nav: &N,
    starts: &[Vec2],
    geodesics: &mut Geodesics,
) -> (LowerBound, Vec<Option<f32>>) {
    let a = sim.agents();
    let cell_m = nav.grid().cell_size_m;
    let mut bound = LowerBound::default();
    let mut shortest = vec![None; a.len()];
    // Arrival reach per order, as the simulation computes it (packed discs fill ~80 %).
    let mut order_area: BTreeMap<u32, f32> = BTreeMap::new();
    for i in 0..a.len() {
        if sim.order_destination(a.order[i]).is_some() {
            *order_area.entry(a.order[i]).or_default() +=
                std::f32::consts::PI * a.radius_m[i] * a.radius_m[i] / 0.8;
        }
    }
    let mut queues: BTreeMap<RunKey, (f64, u32, f32)> = BTreeMap::new();
    for (i, &start) in starts.iter().enumerate().take(a.len()) {
        let Some(dest) = sim.order_destination(a.order[i]) else {
            continue;
        };
        let t = a.move_type[i];
        let Some(d) = geodesics.distance(nav, t, start, dest) else {
            continue;
        };
        shortest[i] = Some(d);
        let reach = 2.0 * (order_area[&a.order[i]] / std::f32::consts::PI).sqrt();
        let speed = f64::from(a.max_speed[i]);
        bound.travel_secs = bound
            .travel_secs
            .max(f64::from((d - reach).max(0.0)) / speed);
        let buffer_cells = 2.0 * nav.wall_buffer_m(t) / cell_m;
        let mut narrowest: Option<(RunKey, u32)> = None;
        for cell in geodesics.path(nav, t, start, dest) {
            let across = run(nav, t, cell, false);
            let down = run(nav, t, cell, true);
            let pick = if down.1 < across.1 { down } else { across };
            if pick.1 >= OPEN_RUN_CELLS {
                continue;
            }
            // Equal widths: the smaller key, so groups crossing one corridor from both ends
            // name the same run.
            if narrowest.is_none_or(|n| pick.1 < n.1 || (pick.1 == n.1 && pick.0 < n.0)) {
                narrowest = Some(pick);
            }
        }
        let Some((key, cells)) = narrowest else {
            continue;
        };
        let gap_m = (cells as f32 + buffer_cells) * cell_m;
        let diameter = 2.0 * a.radius_m[i];
        let lanes = (gap_m / diameter).floor().max(1.0);
        let q = queues.entry(key).or_insert((0.0, 0, gap_m));
        q.0 += f64::from(diameter) / (f64::from(lanes) * speed);
        q.1 += 1;
    }
    if let Some((secs, through, gap_m)) =
        queues.values().copied().max_by(|x, y| x.0.total_cmp(&y.0))
    {
        bound.queue_secs = secs;
        bound.through_gap = through;
        bound.gap_m = gap_m;
    }
    (bound, shortest)
}
