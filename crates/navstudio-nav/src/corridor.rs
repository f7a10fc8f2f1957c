//! The "seamless" quality mode (SupCom2's option of carrying integrated costs across portal
//! windows): one integration from the real goal over every sector a path routes through,
//! instead of one precomputed tile per sector whose window cells all start equal. Flow then
//! crosses sector borders without the kink toward each window; the price is a per-request
//! integration that cannot be shared between goals. The links a path takes join the
//! integration: a link's entry costs its exit's cost plus the traversal, and the flow ends
//! on the entry, where the agent takes the link.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use super::grid::{DIR_NONE, DIRECTIONS, FLOW_PATHABLE, WALL};
use super::layer::NavLayer;
use super::links::overlay::LayerLinks;

/// Orthogonal directions first, so they win ties (as in the flow pass).
const SEARCH_ORDER: [u8; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// From a taken link's exit cell: the entry's cells and the traversal's cost.
type Across<'a> = (&'a [(u32, u32)], u32);

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
        let mut across: BTreeMap<(u32, u32), Vec<Across<'_>>> = BTreeMap::new();
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
