//! One movement type's complete navigation data, and its builders: the full build (bake step 7:
//! sectors → portals → portal graph → islands → flow permutations) and the incremental
//! rebuild the run time and the editor use after costs change in a few sectors.

use std::sync::atomic::AtomicBool;

use super::cost::CostField;
use super::islands::{Islands, find_islands};
use super::permutations::{FlowPermutations, Reuse, build_permutations};
use super::portals::{
    PortalGraph, PortalNode, PortalWindow, assemble_graph, find_windows, group_nodes_by_sector,
    nodes_from_windows, rescan_windows,
};

/// Navigation data of one movement type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NavLayer {
    /// Movement type name.
    pub name: String,
    /// Final cost field.
    pub cost: CostField,
    /// Portal windows in canonical order (see [`super::portals`]).
    pub windows: Vec<PortalWindow>,
    /// Portal nodes: `2 w` and `2 w + 1` are the two sides of window `w`.
    pub nodes: Vec<PortalNode>,
    /// The portal graph.
    pub graph: PortalGraph,
    /// Island ids.
    pub islands: Islands,
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
    let (sector_offsets, sector_nodes) = group_nodes_by_sector(cost.spec, &nodes);
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
        windows,
        nodes,
        graph,
        islands,
        flows: out.flows,
    })
}

/// Brings `layer` up to date after `layer.cost` changed inside `dirty_sectors` (the caller
/// writes the new costs first). Windows on the dirty sectors' borders are rescanned; tiles and
/// in-sector weights are recomputed for the dirty sectors and their 4 neighbours (whose
/// windows may have changed) and taken over elsewhere; islands are recomputed for the whole
/// map, because one wall can split or join islands anywhere and renumber every id after it
/// (a full union-find is a few milliseconds per million cells). The result equals
/// [`build_layer`] on the same cost field.
pub fn rebuild_sectors(layer: &mut NavLayer, dirty_sectors: &[u32]) {
    let spec = layer.cost.spec;
    let count = spec.sector_count();
    let mut dirty = vec![false; count];
    for &s in dirty_sectors {
        if let Some(d) = dirty.get_mut(s as usize) {
            *d = true;
        }
    }
    let mut affected = dirty.clone();
    let (sx, sy) = (spec.sectors_x(), spec.sectors_y());
    for s in 0..count as u32 {
        if !dirty[s as usize] {
            continue;
        }
        let (x, y) = (s % sx, s / sx);
        if x > 0 {
            affected[(s - 1) as usize] = true;
        }
        if x + 1 < sx {
            affected[(s + 1) as usize] = true;
        }
        if y > 0 {
            affected[(s - sx) as usize] = true;
        }
        if y + 1 < sy {
            affected[(s + sx) as usize] = true;
        }
    }

    let windows = rescan_windows(&layer.cost, &layer.windows, &dirty);
    let mut nodes = nodes_from_windows(&windows);
    let (sector_offsets, sector_nodes) = group_nodes_by_sector(spec, &nodes);
    let islands = find_islands(&layer.cost);
    assign_node_islands(&mut nodes, &islands);
    let mut old_flows = std::mem::take(&mut layer.flows);
    let never = AtomicBool::new(false);
    let out = build_permutations(
        &layer.cost,
        &nodes,
        &sector_offsets,
        &sector_nodes,
        Some(Reuse {
            affected: &affected,
            old_flows: &mut old_flows,
            old_graph: &layer.graph,
        }),
        &|_| {},
        &never,
    );
    // Cannot be cancelled: `never` stays false.
    let Some(out) = out else { return };
    layer.graph = assemble_graph(
        &layer.cost,
        &nodes,
        sector_offsets,
        sector_nodes,
        &out.intra_offsets,
        &out.intra,
    );
    layer.windows = windows;
    layer.nodes = nodes;
    layer.islands = islands;
    layer.flows = out.flows;
}

fn assign_node_islands(nodes: &mut [PortalNode], islands: &Islands) {
    for n in nodes {
        n.island = islands.island_at(n.center.0, n.center.1);
    }
}
