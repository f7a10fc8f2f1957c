//! The "seamless" quality mode (SupCom2's option of carrying integrated costs across portal
//! windows): one integration from the real goal over every sector a path routes through,
//! instead of one precomputed tile per sector whose window cells all start equal. Flow then
//! crosses sector borders without the kink toward each window; the price is a per-request
//! integration that cannot be shared between goals. The links a path takes join the
//! integration: a link's entry costs its exit's cost plus the traversal, and the flow ends
//! on the entry, where the agent takes the link.
//!
//! Its split-sector form ([`Corridor::from_exits`]) integrates only the sectors a path leaves
//! by several exits, each from its exits' windows started at their remaining costs.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use super::flow::flow_from_integration;
use super::grid::{DIR_NONE, DIRECTIONS, FLOW_PATHABLE, WALL};
use super::integrate::{IntegrationField, IntegratorScratch, integrate_costs};
use super::layer::NavLayer;
use super::links::overlay::LayerLinks;

/// A taken link seen from its exit cell: its entry's cells and the traversal's cost.
type LinkStep<'a> = (&'a [(u32, u32)], u32);

/// Orthogonal directions first, so they win ties (as in the flow pass).
const SEARCH_ORDER: [u8; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// Integrated costs and flow over a set of sectors.
#[derive(Debug, Default)]
pub struct Corridor {
    /// Slot of each sector in the corridor.
    slots: BTreeMap<u32, usize>,
    /// Per slot: sector-rectangle-sized integrated costs (`u32::MAX` unreached).
    cost: Vec<Vec<u32>>,
    /// Per slot: flow bytes.
    flow: Vec<Vec<u8>>,
    /// Steers in every sector, not only where a path has several exits (see
    /// [`crate::NavWorld::set_seamless_where_split`]).
    pub everywhere: bool,
}

impl Corridor {
    /// Integrates `layer` from `goals` (a goal set: from all of them at once) over `sectors`
    /// (Dijkstra, 4-neighbour, entering a cell costs its cost; from a link's exit to its
    /// entry, the traversal's cost, for the links whose entry end nodes `taken` lists, of
    /// `links`) and derives the flow.
    #[must_use]
    pub fn build(
        layer: &NavLayer,
        sectors: impl IntoIterator<Item = u32>,
        goals: &[(u32, u32)],
        everywhere: bool,
        links: Option<(&LayerLinks, &[u32])>,
    ) -> Self {
        let spec = layer.cost.spec;
        let mut c = Self {
            everywhere,
            ..Self::default()
        };
        let mut tiles = Vec::new();
        for s in sectors {
            if c.slots.contains_key(&s) {
                continue;
            }
            let (_, _, w, h) = spec.sector_rect(s);
            c.slots.insert(s, c.cost.len());
            c.cost.push(vec![u32::MAX; (w * h) as usize]);
            // Walls keep no direction (0 would read as north).
            c.flow.push(vec![DIR_NONE; (w * h) as usize]);
            let mut t = Vec::new();
            layer.cost.sector_cells(s, &mut t);
            tiles.push(t);
        }
        let at = |c: &Self, x: i64, y: i64| -> Option<(usize, usize)> {
            if !spec.contains(x, y) {
                return None;
            }
            let (x, y) = (x as u32, y as u32);
            let s = spec.sector_of(x, y);
            let slot = *c.slots.get(&s)?;
            let (x0, y0, w, _) = spec.sector_rect(s);
            Some((slot, ((y - y0) * w + (x - x0)) as usize))
        };
        // Per exit cell of a taken link, its entry's cells and the traversal's cost.
        let mut across: BTreeMap<(u32, u32), Vec<LinkStep<'_>>> = BTreeMap::new();
        let mut entries: Vec<(u32, u32)> = Vec::new();
        if let Some((ll, taken)) = links {
            for &(entry, exit, cost) in &ll.traversals {
                if !taken.contains(&(ll.base + entry)) {
                    continue;
                }
                let (Some(a), Some(b)) = (ll.ends.get(entry as usize), ll.ends.get(exit as usize))
                else {
                    continue;
                };
                for &c in &b.cells {
                    across.entry(c).or_default().push((&a.cells, cost));
                }
                entries.extend(&a.cells);
            }
        }
        let mut heap = BinaryHeap::new();
        for &goal in goals {
            let Some((gs, gi)) = at(&c, i64::from(goal.0), i64::from(goal.1)) else {
                continue;
            };
            if tiles[gs][gi] == WALL {
                continue;
            }
            c.cost[gs][gi] = 0;
            heap.push(Reverse((0_u32, goal.0, goal.1)));
        }
        while let Some(Reverse((d, x, y))) = heap.pop() {
            let Some((s, i)) = at(&c, i64::from(x), i64::from(y)) else {
                continue;
            };
            if d > c.cost[s][i] {
                continue;
            }
            for &(cells, cost) in across.get(&(x, y)).map_or(&[][..], Vec::as_slice) {
                let nd = d.saturating_add(cost);
                for &(ex, ey) in cells {
                    if let Some((es, ei)) = at(&c, i64::from(ex), i64::from(ey))
                        && nd < c.cost[es][ei]
                    {
                        c.cost[es][ei] = nd;
                        heap.push(Reverse((nd, ex, ey)));
                    }
                }
            }
            for (dx, dy) in [(0_i64, -1_i64), (1, 0), (0, 1), (-1, 0)] {
                let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                let Some((ns, ni)) = at(&c, nx, ny) else {
                    continue;
                };
                let cost = tiles[ns][ni];
                if cost == WALL {
                    continue;
                }
                let nd = d.saturating_add(u32::from(cost));
                if nd < c.cost[ns][ni] {
                    c.cost[ns][ni] = nd;
                    heap.push(Reverse((nd, nx as u32, ny as u32)));
                }
            }
        }
        // Flow: the cheapest of the 8 neighbours, diagonals only without cutting a corner.
        let slots: Vec<(u32, usize)> = c.slots.iter().map(|(&s, &slot)| (s, slot)).collect();
        for (s, slot) in slots {
            let (x0, y0, w, h) = spec.sector_rect(s);
            for ly in 0..h {
                for lx in 0..w {
                    let i = (ly * w + lx) as usize;
                    if tiles[slot][i] == WALL {
                        continue;
                    }
                    let (x, y) = (i64::from(x0 + lx), i64::from(y0 + ly));
                    let passable = |c: &Self, x: i64, y: i64| {
                        at(c, x, y)
                            .is_some_and(|(s, i)| tiles[s][i] != WALL && c.cost[s][i] != u32::MAX)
                    };
                    let mut best = (c.cost[slot][i], DIR_NONE);
                    // A taken link's entry: the agent takes the link there.
                    let entry = entries.contains(&(x as u32, y as u32));
                    if best.0 != u32::MAX && best.0 > 0 && !entry {
                        for d in SEARCH_ORDER {
                            let (dx, dy) = DIRECTIONS[d as usize];
                            let (dx, dy) = (i64::from(dx), i64::from(dy));
                            if dx != 0
                                && dy != 0
                                && !(passable(&c, x + dx, y) && passable(&c, x, y + dy))
                            {
                                continue;
                            }
                            if let Some((ns, ni)) = at(&c, x + dx, y + dy)
                                && tiles[ns][ni] != WALL
                                && c.cost[ns][ni] < best.0
                            {
                                best = (c.cost[ns][ni], d);
                            }
                        }
                    }
                    c.flow[slot][i] = FLOW_PATHABLE | best.1;
                }
            }
        }
        c
    }

    /// Every sector of `exits` (per routed sector, `(remaining cost, portal node)` of the
    /// ways a path leaves it) that can be left by more than one way, integrated inside its
    /// own rectangle from all those ways' window cells at once, every window cell started
    /// at its way's remaining cost (plus its own cost, as a tile starts it), and from the
    /// goals that lie in it at 0. The ways out are the sector's route exits and every
    /// window into another routed sector, priced at the cheapest total through that
    /// sector's own route exits from the window's far side (the portal graph's in-sector
    /// weights). So each cell leads to the way out of least *total* remaining cost, and a
    /// window cell points across its border only when its own way is its cheapest. Also
    /// returns the windows some cell leaves by, as `(sector, remaining cost, node)`: the
    /// path lists them among the sector's exits, so its flow reads this integration there.
    /// A sector with one route exit and no such window keeps its tile (no integration kept).
    ///
    /// Why not the first exit whose tile reaches a cell, or one integration from the goal
    /// over the route's sectors: a sector crossed by routes merged from several sources
    /// can have a pocket beside a neighbour whose only exit leads back into it. The first
    /// rule sends the pocket to whichever exit sorts first, the goal's integration to the
    /// neighbour (its way on lies through sectors where the tiles, not the integration,
    /// steer); either way the neighbour's tile sends it back, a 2-cycle where agents
    /// stand. And a sector's only route exit can lie round a wall from cells beside a
    /// neighbouring routed sector, whose way on starts a step across the border: its tile
    /// sends those cells the long way round while the look-ahead of the cells across the
    /// border cuts through them, and an agent on the border swaps between the two. Here
    /// every step inside the sector lowers the cell's total and a crossing leaves at that
    /// total, on the costs the route's tiles descend.
    #[must_use]
    pub fn from_exits(
        layer: &NavLayer,
        exits: &BTreeMap<u32, Vec<(u32, u32)>>,
        goals: &[(u32, u32)],
    ) -> (Self, Vec<(u32, u32, u32)>) {
        let spec = layer.cost.spec;
        let graph = &layer.graph;
        let nodes = &layer.nodes;
        let centre_cost =
            |n: &super::portals::PortalNode| u32::from(layer.cost.get(n.center().0, n.center().1));
        // Remaining cost from portal node `t` of a routed sector: its cheapest route exit.
        let onward = |t: u32| -> Option<u32> {
            let list = exits.get(&nodes.get(t as usize)?.sector)?;
            list.iter()
                .filter_map(|&(rest, e)| {
                    if e == t {
                        return Some(rest);
                    }
                    let (_, w) = graph.edges(t).find(|&(to, _)| to == e)?;
                    Some(w.saturating_add(rest))
                })
                .min()
        };
        let mut c = Self::default();
        let mut taken = Vec::new();
        let (mut field, mut scratch) = (IntegrationField::new(), IntegratorScratch::new());
        let (mut costs, mut seeds, mut dirs) = (Vec::new(), Vec::new(), Vec::new());
        for (&s, list) in exits {
            let (x0, y0, w, h) = spec.sector_rect(s);
            // (remaining cost, node) of the ways out: the route's exits, then the windows
            // into other routed sectors.
            let mut ways: Vec<(u32, u32)> = list.clone();
            // Only windows downstream of every route exit: where the far side's way on
            // costs less than the sector's cheapest exit. Of two sectors, at most one is
            // downstream of the other, so no pair of windows sends cells back and forth
            // (upstream, the route's own crossings would come back across the border
            // wherever a window's far end integrates a little dearer than its centre).
            let cheapest = list.iter().map(|&(rest, _)| rest).min().unwrap_or(u32::MAX);
            // Where a route exit leads: the node it enters the next sector by. A window
            // into the same part of that sector is downstream too, however its far end
            // compares with this sector's cheapest exit, unless some route comes back from
            // that sector into this one: a cell beside it (a row over a pillar at the
            // border) goes through its own window rather than round the obstacle.
            let entries: Vec<u32> = list.iter().map(|&(_, e)| e ^ 1).collect();
            let comes_back = |sector: u32| {
                exits.get(&sector).is_some_and(|l| {
                    l.iter()
                        .any(|&(_, e)| nodes.get((e ^ 1) as usize).is_some_and(|b| b.sector == s))
                })
            };
            let into_entered_part = |t: u32, sector: u32| {
                entries.iter().any(|&b| {
                    nodes
                        .get(b as usize)
                        .is_some_and(|entry| entry.sector == sector)
                        && (t == b || graph.edges(t).any(|(to, _)| to == b))
                }) && !comes_back(sector)
            };
            for &n in graph.nodes_of_sector(s) {
                let t = n ^ 1;
                if ways.iter().any(|&(_, e)| e == n) {
                    continue;
                }
                let (Some(node), Some(rest)) = (nodes.get(t as usize), onward(t)) else {
                    continue;
                };
                if rest < cheapest || into_entered_part(t, node.sector) {
                    ways.push((rest.saturating_add(centre_cost(node)), n));
                }
            }
            if ways.len() < 2 {
                continue; // the tile of its one exit steers
            }
            layer.cost.sector_cells(s, &mut costs);
            // (seed cost, local cell, direction across the border): cheapest first, so a
            // cell on two windows (a corner) keeps its cheaper exit.
            seeds.clear();
            for (k, &(rest, node)) in ways.iter().enumerate() {
                let Some(n) = nodes.get(node as usize).filter(|n| n.sector == s) else {
                    continue;
                };
                for i in 0..u32::from(n.cells.len()) {
                    let (x, y) = n.cells.cell(i);
                    let local = ((y - y0) * w + (x - x0)) as usize;
                    let start = rest.saturating_add(u32::from(costs[local]));
                    seeds.push((start, local, n.exit_dir, k));
                }
            }
            for &(gx, gy) in goals {
                if spec.sector_of(gx, gy) == s {
                    seeds.push((0, ((gy - y0) * w + (gx - x0)) as usize, DIR_NONE, 0));
                }
            }
            seeds.retain(|&(start, local, _, _)| start != u32::MAX && costs[local] != WALL);
            if seeds.is_empty() {
                continue;
            }
            seeds.sort_unstable();
            let starts: Vec<(usize, u32)> = seeds.iter().map(|&(d, i, _, _)| (i, d)).collect();
            integrate_costs(&costs, w, h, &starts, &mut field, &mut scratch);
            // A window cell that a cheaper exit reaches below its own start descends to
            // that exit like any other cell.
            dirs.clear();
            let mut won = vec![false; ways.len()];
            for &(start, local, dir, k) in &seeds {
                if field.cost[local] >= start && !dirs.iter().any(|&(i, _)| i == local) {
                    dirs.push((local, dir));
                    won[k] = true;
                }
            }
            // A cell's descent ends at a window cell that is its own cheapest way out: a
            // window with none leads nobody out, and with one route exit and no such
            // window the sector's tile gives the same flow.
            let side = list.len()..ways.len();
            taken.extend(side.filter(|&k| won[k]).map(|k| (s, ways[k].0, ways[k].1)));
            if list.len() < 2 && !won[list.len()..].contains(&true) {
                continue;
            }
            let mut flow = vec![0; (w * h) as usize];
            flow_from_integration(&costs, w, h, &field, &dirs, &mut flow);
            c.slots.insert(s, c.cost.len());
            c.cost.push(field.cost.clone());
            c.flow.push(flow);
        }
        (c, taken)
    }

    /// Whether the corridor covers no sector.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Flow byte at a cell, if the corridor covers it and reaches it with a direction.
    #[must_use]
    pub fn flow_at(&self, layer: &NavLayer, cell: (u32, u32)) -> Option<u8> {
        let spec = layer.cost.spec;
        let s = spec.sector_of(cell.0, cell.1);
        let slot = *self.slots.get(&s)?;
        let (x0, y0, w, _) = spec.sector_rect(s);
        let f = *self.flow[slot].get(((cell.1 - y0) * w + (cell.0 - x0)) as usize)?;
        (f & 0x0F != DIR_NONE).then_some(f)
    }
}
