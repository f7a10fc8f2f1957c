//! One movement type's links as extra portal-graph nodes: one **end node** per end of every
//! link the type may use, numbered after the layer's portal nodes (end `k` is node
//! `base + k`; the two ends of a link are `k` and `k ^ 1`, as a window's two sides are).
//! Each end node has the usual in-sector edges to and from its sector's portal nodes and the
//! other end nodes there (integrated inside the sector from the end's cells), and the link's
//! traversal edge to its other end (both ways for a two-way link). Its flow tile leads the
//! sector's cells to the end's cells, as a portal node's tile leads them to its window.
//!
//! Derived from the layer and the links whenever either changes, like the portal nodes are
//! derived from the windows: only the links are stored.

use std::sync::Arc;

use super::NavLink;
use super::reach::LinkReach;
use crate::flow::flow_from_integration;
use crate::grid::{DIR_NONE, WALL};
use crate::integrate::{IntegrationField, IntegratorScratch, UNREACHED, integrate_costs};
use crate::layer::NavLayer;

/// One end of a link as a portal-graph node.
#[derive(Clone, Debug, PartialEq)]
pub struct EndNode {
    /// Index of the link in the world's link list.
    pub link: u32,
    /// The link's id.
    pub id: u32,
    /// `false` for the link's end `a`, `true` for `b`.
    pub side: bool,
    /// The sector the end lies in (its centre cell's).
    pub sector: u32,
    /// The end's cells in that sector that are not walls for this type.
    pub cells: Vec<(u32, u32)>,
    /// The end's centre cell (its search position).
    pub center: (u32, u32),
    /// The flow tile of the sector toward the end's cells (row-major over the sector).
    pub tile: Arc<[u8]>,
    /// The end's block of cells as the link names it.
    pub area: super::LinkEnd,
    /// The link's kind.
    pub kind: super::LinkKind,
    /// The link's width. `[Units: m]`
    pub width_m: f32,
}

/// A movement type's link end nodes and their edges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerLinks {
    /// Node id of end 0: the layer's portal node count.
    pub base: u32,
    /// End nodes; `ends[k]` is node `base + k`, and `k ^ 1` is the same link's other end.
    pub ends: Vec<EndNode>,
    /// `(from node, to node, weight)`: in-sector edges of the end nodes and link traversals.
    pub edges: Vec<(u32, u32, u32)>,
    /// `(entry end, exit end, traversal cost)` per direction a link may be taken.
    pub traversals: Vec<(u32, u32, u32)>,
    /// Reachability between the type's islands across its links.
    pub reach: LinkReach,
}

impl LayerLinks {
    /// The end nodes of `links` that movement type `layer` may use, over `l` (whose cost
    /// tiles of the ends' sectors must be present).
    #[must_use]
    pub fn build(l: &NavLayer, layer: usize, links: &[NavLink], cell_size_m: f32) -> Self {
        let spec = l.cost.spec;
        let base = l.nodes.len() as u32;
        let mut ends = Vec::new();
        let mut traversals = Vec::new();
        let mut island_edges = Vec::new();
        for (i, link) in links.iter().enumerate() {
            if !link.allows(layer) {
                continue;
            }
            let mut pair = [link.a, link.b].map(|e| {
                let center = e.center();
                let sector = spec.sector_of(center.0, center.1);
                let cells: Vec<(u32, u32)> = e
                    .cells()
                    .filter(|&(x, y)| {
                        x < spec.width
                            && y < spec.height
                            && spec.sector_of(x, y) == sector
                            && l.cost.get(x, y) != WALL
                    })
                    .collect();
                (sector, cells, center)
            });
            if pair.iter().any(|(_, cells, _)| cells.is_empty()) {
                continue;
            }
            let k = ends.len() as u32;
            let cost = link.traversal_cost(cell_size_m);
            traversals.push((k, k + 1, cost));
            if link.two_way {
                traversals.push((k + 1, k, cost));
            }
            let islands = |cells: &[(u32, u32)]| {
                let mut v: Vec<u32> = cells
                    .iter()
                    .map(|&(x, y)| l.islands.island_at(x, y))
                    .filter(|&i| i != 0)
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let (ia, ib) = (islands(&pair[0].1), islands(&pair[1].1));
            for &a in &ia {
                for &b in &ib {
                    island_edges.push((a, b));
                    if link.two_way {
                        island_edges.push((b, a));
                    }
                }
            }
            for (side, (sector, cells, center)) in pair.iter_mut().enumerate() {
                ends.push(EndNode {
                    link: i as u32,
                    id: link.id,
                    side: side == 1,
                    sector: *sector,
                    cells: std::mem::take(cells),
                    center: *center,
                    tile: Arc::from(&[][..]),
                    area: if side == 1 { link.b } else { link.a },
                    kind: link.kind,
                    width_m: link.width_m,
                });
            }
        }
        let mut edges = Vec::new();
        let mut scratch = IntegratorScratch::new();
        let mut field = IntegrationField::new();
        let mut costs = Vec::new();
        let mut flow = Vec::new();
        for k in 0..ends.len() {
            let sector = ends[k].sector;
            let (x0, y0, w, h) = spec.sector_rect(sector);
            l.cost.sector_cells(sector, &mut costs);
            let local = |c: (u32, u32)| ((c.1 - y0) * w + (c.0 - x0)) as usize;
            let seeds: Vec<(usize, u32)> = ends[k].cells.iter().map(|&c| (local(c), 0)).collect();
            integrate_costs(&costs, w, h, &seeds, &mut field, &mut scratch);
            let node = base + k as u32;
            for &n in l.graph.nodes_of_sector(sector) {
                let c = l.nodes[n as usize].center();
                let v = field.cost[local(c)];
                if v != UNREACHED {
                    edges.push((node, n, v));
                    edges.push((n, node, v));
                }
            }
            for (j, other) in ends.iter().enumerate() {
                if j == k || other.sector != sector {
                    continue;
                }
                let v = other
                    .cells
                    .iter()
                    .map(|&c| field.cost[local(c)])
                    .min()
                    .unwrap_or(UNREACHED);
                if v != UNREACHED {
                    edges.push((node, base + j as u32, v));
                }
            }
            flow.clear();
            flow.resize((w * h) as usize, 0);
            let exits: Vec<(usize, u8)> = seeds.iter().map(|&(i, _)| (i, DIR_NONE)).collect();
            flow_from_integration(&costs, w, h, &field, &exits, &mut flow);
            ends[k].tile = Arc::from(&flow[..]);
        }
        for &(a, b, c) in &traversals {
            edges.push((base + a, base + b, c));
        }
        edges.sort_unstable();
        edges.dedup_by_key(|e| (e.0, e.1));
        Self {
            base,
            ends,
            edges,
            traversals,
            reach: LinkReach::new(&island_edges),
        }
    }

    /// The end node `node` (an id from `base` on), if it is one.
    #[must_use]
    pub fn end(&self, node: u32) -> Option<&EndNode> {
        node.checked_sub(self.base)
            .and_then(|k| self.ends.get(k as usize))
    }

    /// Node ids of the end nodes in `sector`.
    pub fn ends_in(&self, sector: u32) -> impl Iterator<Item = u32> + '_ {
        self.ends
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.sector == sector)
            .map(|(k, _)| self.base + k as u32)
    }

    /// Whether the search's step from node `a` to node `b` traverses a link.
    #[must_use]
    pub fn is_traversal(&self, a: u32, b: u32) -> bool {
        match (a.checked_sub(self.base), b.checked_sub(self.base)) {
            (Some(ka), Some(kb)) => {
                ka ^ 1 == kb && self.traversals.iter().any(|&(x, y, _)| x == ka && y == kb)
            }
            _ => false,
        }
    }

    /// Whether the type has no usable link.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// `(node, cost)` from the nearest of `cells` (all in `sector`) to each end node of the
    /// sector, integrating the sector (the end nodes' part of a search's starts or finishes).
    #[must_use]
    pub fn costs_from(
        &self,
        l: &NavLayer,
        sector: u32,
        cells: &[(u32, u32)],
        scratch: &mut IntegratorScratch,
    ) -> Vec<(u32, u32)> {
        if !self.ends.iter().any(|e| e.sector == sector) {
            return Vec::new();
        }
        let spec = l.cost.spec;
        let (x0, y0, w, h) = spec.sector_rect(sector);
        let mut costs = Vec::new();
        l.cost.sector_cells(sector, &mut costs);
        let local = |c: (u32, u32)| ((c.1 - y0) * w + (c.0 - x0)) as usize;
        let mut field = IntegrationField::new();
        let seeds: Vec<(usize, u32)> = cells.iter().map(|&c| (local(c), 0)).collect();
        integrate_costs(&costs, w, h, &seeds, &mut field, scratch);
        self.ends_in(sector)
            .filter_map(|node| {
                let e = self.end(node)?;
                let v = e.cells.iter().map(|&c| field.cost[local(c)]).min()?;
                (v != UNREACHED).then_some((node, v))
            })
            .collect()
    }
}
