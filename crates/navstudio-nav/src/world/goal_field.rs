//! Goal fields: the integration around a path's goal sector (its 8 neighbours too, so line
//! of sight continues across sector borders), and the sector integrations that give the
//! portal search its starts and finishes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::sync::Arc;

use crate::flow::flow_from_integration;
use crate::grid::{DIR_NONE, GridSpec, WALL};
use crate::integrate::{
    INT_LOS, IntegrationField, IntegratorScratch, UNREACHED, integrate_costs,
    integrate_with_los_set,
};
use crate::layer::NavLayer;
use crate::links::overlay::LayerLinks;
use crate::search_graph::SearchGraph;

use super::CacheStats;

/// The goal field: an integration with the line-of-sight pass over the goal sector and its
/// neighbours, so LOS continues across sector borders.
#[derive(Debug)]
pub struct GoalField {
    /// Window `(x0, y0, w, h)` in cells.
    pub rect: (u32, u32, u32, u32),
    /// Integrated costs and flags over the window.
    pub field: IntegrationField,
    /// Flow over the window.
    pub flow: Vec<u8>,
    /// `(node, cost)` for the portal nodes of the window's sectors, by node id: the graph
    /// cost to the goal by paths inside the window ([`UNREACHED`] when none), what the
    /// field can offer in the graph's own measure (see [`super::PathState::route_first`]).
    pub within: Vec<(u32, u32)>,
    /// The goals the field was integrated from (all in one sector), sorted.
    pub goals: Vec<(u32, u32)>,
    /// With several goals, per window cell the index into `goals` of the goal a
    /// line-of-sight cell sees; empty with one goal.
    pub los_owner: Vec<u32>,
    /// The link entries (end node ids) the field leads to: links with both ends in the
    /// window that are cheaper than the ground from their entry.
    /// The field's flow ends on their cells, where the agent takes the link.
    pub link_entries: Vec<u32>,
}

impl GoalField {
    /// [`GoalField::within`] of `node`, if it lies in the window.
    pub(super) fn within(&self, node: u32) -> Option<u32> {
        let i = self.within.binary_search_by_key(&node, |&(n, _)| n).ok()?;
        Some(self.within[i].1)
    }

    /// The goal the line-of-sight cell at window index `i` sees.
    pub(super) fn los_goal(&self, i: usize) -> Option<(u32, u32)> {
        let k = self.los_owner.get(i).copied().unwrap_or(0);
        self.goals.get(k as usize).copied()
    }
}

pub(super) fn in_rect(r: (u32, u32, u32, u32), c: (u32, u32)) -> bool {
    c.0 >= r.0 && c.1 >= r.1 && c.0 < r.0 + r.2 && c.1 < r.1 + r.3
}

pub(super) fn local(r: (u32, u32, u32, u32), c: (u32, u32)) -> usize {
    ((c.1 - r.1) * r.2 + (c.0 - r.0)) as usize
}

/// `(node, integrated cost between the nearest of `cells` and the node's centre)` for the
/// nodes of `sector`, integrating the sector from `cells` (all inside it).
pub(super) fn sector_costs_from(
    l: &NavLayer,
    sector: u32,
    cells: &[(u32, u32)],
    scratch: &mut IntegratorScratch,
) -> Vec<(u32, u32)> {
    let spec = l.cost.spec;
    let (x0, y0, w, h) = spec.sector_rect(sector);
    let mut costs = Vec::new();
    l.cost.sector_cells(sector, &mut costs);
    let mut field = IntegrationField::new();
    let seeds: Vec<(usize, u32)> = cells
        .iter()
        .map(|c| (((c.1 - y0) * w + (c.0 - x0)) as usize, 0))
        .collect();
    integrate_costs(&costs, w, h, &seeds, &mut field, scratch);
    l.graph
        .nodes_of_sector(sector)
        .iter()
        .filter_map(|&n| {
            let c = l.nodes[n as usize].center();
            let v = field.cost[((c.1 - y0) * w + (c.0 - x0)) as usize];
            (v != UNREACHED).then_some((n, v))
        })
        .collect()
}

/// The sectors a cell rectangle `(x0, y0, w, h)` overlaps.
pub(super) fn sectors_in(spec: GridSpec, rect: (u32, u32, u32, u32)) -> impl Iterator<Item = u32> {
    let (x0, y0, w, h) = rect;
    let ss = spec.sector_size.max(1);
    (y0 / ss..(y0 + h).div_ceil(ss)).flat_map(move |sy| {
        (x0 / ss..(x0 + w).div_ceil(ss)).map(move |sx| sy * spec.sectors_x() + sx)
    })
}

/// [`GoalField::within`]: graph cost to the goal from the nodes of the sectors inside
/// `rect` by paths that stay inside it, sorted by node id. `goal_costs` are the goal sector's
/// nodes with their cost to the goal.
pub(super) fn costs_within(
    l: &NavLayer,
    graph: &SearchGraph,
    rect: (u32, u32, u32, u32),
    goal_costs: &[(u32, u32)],
) -> Vec<(u32, u32)> {
    let mut nodes: Vec<u32> = sectors_in(l.cost.spec, rect)
        .flat_map(|sector| l.graph.nodes_of_sector(sector).iter().copied())
        .collect();
    nodes.sort_unstable();
    let index = |n: u32| nodes.binary_search(&n).ok();
    let mut cost = vec![UNREACHED; nodes.len()];
    for &(node, c) in goal_costs {
        if let Some(i) = index(node) {
            cost[i] = cost[i].min(c);
        }
    }
    // Dijkstra backward from the goal sector's nodes over the edges inside the window: each
    // edge `i → j` as `(j, i, weight)`, grouped by `j`. Same costs as relaxing every edge
    // until nothing improves, for one pass over the edges instead of one per round.
    let mut into: Vec<(u32, u32, u32)> = Vec::new();
    for (i, &node) in nodes.iter().enumerate() {
        for (t, w) in graph.portal_edges(node) {
            if let Some(j) = index(t) {
                into.push((j as u32, i as u32, w));
            }
        }
    }
    into.sort_unstable();
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> = cost
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != UNREACHED)
        .map(|(i, &c)| Reverse((c, i as u32)))
        .collect();
    while let Some(Reverse((c, j))) = heap.pop() {
        if c > cost[j as usize] {
            continue;
        }
        let first = into.partition_point(|e| e.0 < j);
        for &(_, i, w) in into[first..].iter().take_while(|e| e.0 == j) {
            let through = c.saturating_add(w);
            if through < cost[i as usize] {
                cost[i as usize] = through;
                heap.push(Reverse((through, i)));
            }
        }
    }
    nodes.into_iter().zip(cost).collect()
}

/// The cheapest of the goal fields `cover` names that reaches `cell`, as
/// [`PathState::field_at`] (before the path exists).
pub(super) fn cheapest_field<'a>(
    fields: &'a [Arc<GoalField>],
    cover: &[u32],
    cell: (u32, u32),
) -> Option<(&'a GoalField, usize, u32)> {
    let mut best: Option<(&GoalField, usize, u32)> = None;
    for &k in cover {
        let gf = &*fields[k as usize];
        if !in_rect(gf.rect, cell) {
            continue;
        }
        let i = local(gf.rect, cell);
        let c = gf.field.cost[i];
        if c != UNREACHED && best.is_none_or(|(_, _, b)| c < b) {
            best = Some((gf, i, c));
        }
    }
    best
}

/// [`GoalField::within`] of `node` (in `sector`), the cheapest over the fields whose windows
/// cover the sector.
pub(super) fn within_any(
    fields: &[Arc<GoalField>],
    cover: &BTreeMap<u32, Vec<u32>>,
    sector: u32,
    node: u32,
) -> Option<u32> {
    cover
        .get(&sector)?
        .iter()
        .filter_map(|&k| fields[k as usize].within(node))
        .min()
}

/// The goal field over the goal sector and its 8 neighbours (clipped to the map),
/// integrated from `goals` (one or more cells of that sector, sorted), and across the
/// movement type's `links` whose ends both lie in the window.
pub(super) fn build_goal_field(
    l: &NavLayer,
    graph: &SearchGraph,
    goals: &[(u32, u32)],
    links: Option<&LayerLinks>,
    scratch: &mut IntegratorScratch,
) -> GoalField {
    let spec = l.cost.spec;
    let ss = spec.sector_size;
    let goal = goals.first().copied().unwrap_or_default();
    let (gx, gy) = (goal.0 / ss, goal.1 / ss);
    let x0 = gx.saturating_sub(1) * ss;
    let y0 = gy.saturating_sub(1) * ss;
    let x1 = ((gx + 2) * ss).min(spec.width);
    let y1 = ((gy + 2) * ss).min(spec.height);
    let rect = (x0, y0, x1 - x0, y1 - y0);
    let mut costs = Vec::new();
    l.cost
        .copy_window(rect.0, rect.1, rect.2, rect.3, &mut costs);
    let mut field = IntegrationField::new();
    let goals_local: Vec<usize> = goals.iter().map(|&g| local(rect, g)).collect();
    integrate_with_los_set(&costs, rect.2, rect.3, &goals_local, &mut field, scratch);
    let los_owner = scratch.los_owner().to_vec();
    let (link_entries, entry_cells) = match links {
        Some(links) => add_link_seeds(&costs, rect, links, &mut field, scratch),
        None => (Vec::new(), Vec::new()),
    };
    let mut flow = vec![0; costs.len()];
    let exits: Vec<(usize, u8)> = goals_local
        .iter()
        .chain(&entry_cells)
        .map(|&g| (g, DIR_NONE))
        .collect();
    flow_from_integration(&costs, rect.2, rect.3, &field, &exits, &mut flow);
    debug_assert!(goals_local.iter().all(|&g| {
        field
            .flags
            .get(g)
            .is_none_or(|f| f & INT_LOS != 0 || costs[g] == WALL)
    }));
    let goal_costs = sector_costs_from(l, spec.sector_of(goal.0, goal.1), goals, scratch);
    let within = costs_within(l, graph, rect, &goal_costs);
    GoalField {
        rect,
        field,
        flow,
        within,
        goals: goals.to_vec(),
        los_owner,
        link_entries,
    }
}

/// Carries `field` (integrated over the window `rect` of `costs` from the goals) across the
/// links whose two ends lie in the window: an entry whose exit's cost plus the traversal is
/// below its own cost seeds a second integration at that cost, and each cell keeps the
/// cheaper of the two (no longer steering straight at the goal where the link won).
/// Repeated while an entry gets cheaper, so chains of links count. Returns the entries
/// used (end node ids) and their cells (window indices), where the field's flow ends.
fn add_link_seeds(
    costs: &[u8],
    rect: (u32, u32, u32, u32),
    links: &LayerLinks,
    field: &mut IntegrationField,
    scratch: &mut IntegratorScratch,
) -> (Vec<u32>, Vec<usize>) {
    let inside =
        |cells: &[(u32, u32)]| !cells.is_empty() && cells.iter().all(|&c| in_rect(rect, c));
    // Each traversal with both ends in the window and its exit reached: (entry node, the
    // entry's cells, the cost of arriving at the entry by the link).
    let offers = |field: &IntegrationField| {
        links
            .traversals
            .iter()
            .filter_map(|&(entry, exit, cost)| {
                let a = links.ends.get(entry as usize)?;
                let b = links.ends.get(exit as usize)?;
                if !inside(&a.cells) || !inside(&b.cells) {
                    return None;
                }
                let at_exit = b.cells.iter().map(|&c| field.cost[local(rect, c)]).min()?;
                (at_exit != UNREACHED).then(|| (entry, &a.cells, at_exit.saturating_add(cost)))
            })
            .collect::<Vec<_>>()
    };
    let mut second = IntegrationField::new();
    for _ in 0..=links.traversals.len() {
        let mut seeds: Vec<(usize, u32)> = Vec::new();
        for (_, entry_cells, via) in offers(field) {
            if entry_cells
                .iter()
                .all(|&c| field.cost[local(rect, c)] <= via)
            {
                continue;
            }
            seeds.extend(entry_cells.iter().map(|&c| (local(rect, c), via)));
        }
        if seeds.is_empty() {
            break;
        }
        integrate_costs(costs, rect.2, rect.3, &seeds, &mut second, scratch);
        for i in 0..field.cost.len().min(second.cost.len()) {
            if second.dist[i] < field.dist[i] {
                field.dist[i] = second.dist[i];
                field.cost[i] = second.cost[i];
                field.flags[i] = (field.flags[i] | second.flags[i]) & !INT_LOS;
            }
        }
    }
    // The entries the final field leads onto: those whose cells cost what the link
    // offers (a cheaper way found later may have made an earlier seed moot).
    let mut used = Vec::new();
    let mut cells = Vec::new();
    for (entry, entry_cells, via) in offers(field) {
        let on: Vec<usize> = entry_cells
            .iter()
            .map(|&c| local(rect, c))
            .filter(|&i| field.cost[i] == via)
            .collect();
        if !on.is_empty() {
            used.push(links.base + entry);
            cells.extend(on);
        }
    }
    used.sort_unstable();
    used.dedup();
    (used, cells)
}

/// A cached goal field's key: movement type and goal cells (of one sector, sorted).
type GoalKey = (usize, Vec<(u32, u32)>);

/// Goal fields by (movement type, goal cells of one sector), each with the clock of its last
/// use, dropped least recently used first once more than `capacity` are held and no live
/// path holds them.
#[derive(Debug)]
pub(super) struct GoalFieldCache {
    fields: HashMap<GoalKey, (Arc<GoalField>, u64)>,
    capacity: usize,
    clock: u64,
    stats: CacheStats,
}

impl Default for GoalFieldCache {
    fn default() -> Self {
        Self {
            fields: HashMap::new(),
            capacity: 64,
            clock: 0,
            stats: CacheStats::default(),
        }
    }
}

impl GoalFieldCache {
    /// The goal field of `goals` (of one sector, sorted) on layer `l` (index `layer`, laid
    /// out for the search as `graph`), from the cache or built.
    /// Whether the field for `(layer, goals)` is cached.
    pub(super) fn contains(&self, layer: usize, goals: &[(u32, u32)]) -> bool {
        self.fields.contains_key(&(layer, goals.to_vec()))
    }

    pub(super) fn get_or_build(
        &mut self,
        l: &NavLayer,
        graph: &SearchGraph,
        layer: usize,
        goals: &[(u32, u32)],
        links: Option<&LayerLinks>,
        scratch: &mut IntegratorScratch,
    ) -> Arc<GoalField> {
        self.clock += 1;
        let key = (layer, goals.to_vec());
        if let Some((field, used)) = self.fields.get_mut(&key) {
            *used = self.clock;
            self.stats.hits += 1;
            return Arc::clone(field);
        }
        self.stats.misses += 1;
        let field = Arc::new(build_goal_field(l, graph, goals, links, scratch));
        self.fields.insert(key, (Arc::clone(&field), self.clock));
        self.evict();
        field
    }

    /// Least-recently-used eviction of fields no live path holds, beyond the capacity.
    pub(super) fn evict(&mut self) {
        while self.fields.len() > self.capacity {
            let victim = self
                .fields
                .iter()
                .filter(|(_, (f, _))| Arc::strong_count(f) == 1)
                .min_by(|(ka, (_, ua)), (kb, (_, ub))| (ua, ka).cmp(&(ub, kb)))
                .map(|(k, _)| k.clone());
            let Some(k) = victim else { break };
            self.fields.remove(&k);
            self.stats.evictions += 1;
        }
    }

    /// Drops every field (costs changed under them).
    pub(super) fn clear(&mut self) {
        self.fields.clear();
    }

    /// Keeps only the fields of the movement types `keep` says yes to (the others' links
    /// changed under them).
    pub(super) fn retain_layers(&mut self, keep: impl Fn(usize) -> bool) {
        self.fields.retain(|(layer, _), _| keep(*layer));
    }

    /// The counters, with the fields held now.
    pub(super) fn stats(&self) -> CacheStats {
        CacheStats {
            entries: self.fields.len(),
            ..self.stats
        }
    }
}
