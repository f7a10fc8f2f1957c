//! One movement type's complete navigation data, and its builders: the full build (bake step 7:
//! sectors → portals → portal graph → islands → flow permutations) and the incremental
//! rebuild the run time and the editor use after costs change in a few sectors.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::cost::CostField;
use super::integrate::UNREACHED;
use super::islands::{Islands, find_islands};
use super::permutations::{
    FlowPermutations, build_permutations, canonical_flows, recompute_sector_tiles,
};
use super::portals::{
    PortalGraph, PortalNode, PortalWindow, assemble_graph, find_windows, group_nodes_by_sector,
    nodes_from_windows,
};

mod local;
mod local_islands;

/// Navigation data of one movement type.
///
/// A copy shares what an edit seldom changes: the parts behind `Arc`s (here, in the graph,
/// and each cost and flow tile) are copied on the first write to them (`Arc::make_mut`).
/// The editor's bake thread writes a copy whenever the window holds the nav data: a brush
/// dab that changes costs but no wall then copies the tables of pointers, edge weights and
/// node tiles, not every tile (at 8192², 0.7 s instead of 4.4 s, 0.1 instead of 0.33 s once
/// memory is reused).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NavLayer {
    /// Movement type name.
    pub name: String,
    /// Final cost field.
    pub cost: CostField,
    /// Portal windows in canonical order (see [`super::portals`]).
    pub windows: Arc<Vec<PortalWindow>>,
    /// Portal nodes: `2 w` and `2 w + 1` are the two sides of window `w`.
    pub nodes: Arc<Vec<PortalNode>>,
    /// The portal graph.
    pub graph: PortalGraph,
    /// Island ids.
    pub islands: Arc<Islands>,
    /// Flow tile of every portal node.
    pub flows: FlowPermutations,
}

/// Builds a layer from its cost field. `progress` receives `0.0..=1.0`; returns `None` as soon
/// as `cancel` is seen set.
#[must_use]
pub fn build_layer(
    name: &str,
    cost: CostField,
    progress: &dyn Fn(f32),
    cancel: &AtomicBool,
) -> Option<NavLayer> {
    use std::sync::atomic::Ordering;
    let windows = find_windows(&cost);
    progress(0.05);
    let mut nodes = nodes_from_windows(&windows);
    let (sector_offsets, sector_nodes) = group_nodes_by_sector(cost.spec, &windows);
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let islands = find_islands(&cost);
    assign_node_islands(&mut nodes, &islands);
    progress(0.15);
    let out = build_permutations(
        &cost,
        &nodes,
        &sector_offsets,
        &sector_nodes,
        None,
        &|p| progress(0.15 + 0.8 * p),
        cancel,
    )?;
    let graph = assemble_graph(
        &cost,
        &nodes,
        sector_offsets,
        sector_nodes,
        &out.intra_offsets,
        &out.intra,
    );
    progress(1.0);
    Some(NavLayer {
        name: name.to_owned(),
        cost,
        windows: Arc::new(windows),
        nodes: Arc::new(nodes),
        graph,
        islands: Arc::new(islands),
        flows: out.flows,
    })
}

/// Which path [`rebuild_sectors`] took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RebuildPath {
    /// No wall changed: only the dirty sectors' flow tiles and edge weights.
    CostsOnly,
    /// Walls changed: windows, nodes, graph rows, tiles and island ids rebuilt around the
    /// dirty sectors only.
    Local,
    /// As [`RebuildPath::Local`], but an island split, joined or got a new first cell, so
    /// island ids were relabelled over the whole map.
    IslandsRelabelled,
}

/// Brings `layer` up to date after `layer.cost` changed inside `dirty_sectors` (the caller
/// writes the new costs first).
///
/// When no wall changed (a cost brush stroke), only the dirty sectors' tiles and edge
/// weights are recomputed (see `rebuild_costs_only`). Otherwise windows on the dirty
/// sectors' borders are rescanned and spliced into the canonical order, tiles and in-sector
/// weights recomputed for the dirty sectors and the neighbours whose windows changed, and
/// island ids rewritten in the dirty sectors and their neighbours — unless an island split,
/// joined or got a new first cell, which renumbers ids across the map (see `local`). Both
/// paths cost about the dirty sectors, not the map. The result equals [`build_layer`] on the
/// same cost field, up to the order of the flow tile store ([`canonical_flows`] of it is
/// equal).
pub fn rebuild_sectors(layer: &mut NavLayer, dirty_sectors: &[u32]) {
    rebuild_sectors_traced(layer, dirty_sectors);
}

/// [`rebuild_sectors`], reporting which path it took.
pub fn rebuild_sectors_traced(layer: &mut NavLayer, dirty_sectors: &[u32]) -> RebuildPath {
    if rebuild_costs_only(layer, dirty_sectors) {
        return RebuildPath::CostsOnly;
    }
    match local::rebuild_walls(layer, dirty_sectors) {
        local::IslandUpdate::Local => RebuildPath::Local,
        local::IslandUpdate::Relabelled => RebuildPath::IslandsRelabelled,
    }
}

/// New out-edges `(target, weight)` of one portal node, sorted by target; `true` when they
/// are the node's whole row, `false` for a single crossing-weight change.
type GraphRowUpdate = (u32, bool, Vec<(u32, u32)>);

/// The fast path of [`rebuild_sectors`], for edits that changed costs but no wall (most
/// brush strokes): windows, nodes, islands and the graph's edges stay; only the dirty
/// sectors' flow tiles and in-sector edge weights (and the window crossings into them) are
/// recomputed — work proportional to the dirty sectors, not the map. Returns `false`, having
/// changed nothing, when a wall changed somewhere in them.
///
/// New tiles are appended, so the store is not canonical afterwards: compare and write it
/// through [`canonical_flows`]. It is compacted once unused tiles pile up.
fn rebuild_costs_only(layer: &mut NavLayer, dirty_sectors: &[u32]) -> bool {
    let mut sectors: Vec<u32> = dirty_sectors
        .iter()
        .copied()
        .filter(|&s| (s as usize) < layer.cost.spec.sector_count())
        .collect();
    sectors.sort_unstable();
    sectors.dedup();
    let mut tile = Vec::new();
    for &s in &sectors {
        layer.cost.sector_cells(s, &mut tile);
        if !layer.islands.walls_match(s, &tile) {
            return false;
        }
    }
    // Each dirty node's row: its twin crossing (the cost of the twin's cell) and in-sector
    // edges, in the CSR order assemble_graph gives (sorted by target).
    let (matrices, new_tiles) =
        recompute_sector_tiles(&layer.cost, &layer.nodes, &layer.graph, &sectors);
    let mut rows: Vec<GraphRowUpdate> = Vec::new();
    for (&s, matrix) in sectors.iter().zip(&matrices) {
        let list = layer.graph.nodes_of_sector(s);
        let k = list.len();
        for (i, &m) in list.iter().enumerate() {
            let mut edges = Vec::with_capacity(k);
            if let Some(twin) = layer.nodes.get((m ^ 1) as usize) {
                edges.push((
                    m ^ 1,
                    u32::from(layer.cost.get(twin.center().0, twin.center().1)),
                ));
            }
            for (j, &n) in list.iter().enumerate() {
                let w = matrix[i * k + j];
                if j != i && w != UNREACHED {
                    edges.push((n, w));
                }
            }
            edges.sort_unstable();
            rows.push((m, true, edges));
            // The twin's crossing into m costs m's cell, which may have changed.
            let twin = m ^ 1;
            if let Some(node) = layer.nodes.get(m as usize) {
                let c = u32::from(layer.cost.get(node.center().0, node.center().1));
                rows.push((twin, false, vec![(m, c)]));
            }
        }
    }
    // Same edges as before, or a wall-free change moved reachability after all: check first.
    let g = &layer.graph;
    let row_targets = |m: u32| {
        let r = g.offsets[m as usize] as usize..g.offsets[m as usize + 1] as usize;
        (r.clone(), &g.targets[r])
    };
    for (m, full_row, edges) in &rows {
        if (*m as usize) + 1 >= g.offsets.len() {
            return false;
        }
        let (_, targets) = row_targets(*m);
        let ok = if *full_row {
            targets.len() == edges.len() && targets.iter().zip(edges).all(|(&t, e)| t == e.0)
        } else {
            // A twin-crossing update only: the edge must exist.
            edges.iter().all(|e| targets.contains(&e.0))
        };
        if !ok {
            return false;
        }
    }
    let g = &mut layer.graph;
    for (m, _, edges) in rows {
        let range = g.offsets[m as usize] as usize..g.offsets[m as usize + 1] as usize;
        for (t, w) in edges {
            if let Some(slot) = range.clone().find(|&e| g.targets[e] == t) {
                g.weights[slot] = w;
            }
        }
    }
    for (n, tile) in new_tiles {
        layer.flows.node_tile[n as usize] = layer.flows.tiles.len() as u32;
        layer.flows.tiles.push(tile);
    }
    if layer.flows.tiles.len() > 2 * layer.nodes.len() + 4096 {
        layer.flows = canonical_flows(&layer.cost, &layer.nodes, &layer.flows);
    }
    true
}

fn assign_node_islands(nodes: &mut [PortalNode], islands: &Islands) {
    for n in nodes {
        n.island = islands.island_at(n.center().0, n.center().1);
    }
}
