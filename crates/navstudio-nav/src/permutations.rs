//! Flow permutations (bake step 7, last): every sector's flow field toward each of its portal
//! nodes, so the run time only integrates the goal sector. Computing them also yields the
//! portal graph's in-sector edge weights, so both come out of one pass.
//!
//! A node's field is integrated with the node's window cells as goal cells, each seeded with
//! its own cost (the SupCom2 "start costs"), and the goal cells' flow points across the
//! border (the node's exit direction).
//!
//! Identical inputs give identical tiles, so each distinct key — (sector costs, or "clear" and
//! the sector shape; goal cells; exit direction) — is integrated once. Keys go through hash
//! maps only for look-up; tile ids are handed out in node order (a tile's id is the position
//! of the first node using it), so the store is canonical and an incremental rebuild can
//! reproduce it exactly.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::cost::{CostField, SectorCost};
use super::flow::flow_from_integration;
use super::grid::CLEAR;
use super::integrate::{IntegrationField, IntegratorScratch, UNREACHED, integrate_costs};
use super::portals::{PortalGraph, PortalNode};

/// Every portal node's flow tile, identical tiles stored once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowPermutations {
    /// Unique flow tiles (row-major over their sector's rectangle), numbered in order of
    /// first use by the nodes.
    pub tiles: Vec<Arc<[u8]>>,
    /// Tile id per portal node.
    pub node_tile: Vec<u32>,
}

/// What an incremental rebuild can take over from the previous build.
#[derive(Debug)]
pub struct Reuse<'a> {
    /// Per sector: `true` if its tiles and in-sector weights must be recomputed (its costs or
    /// any of its windows changed).
    pub affected: &'a [bool],
    /// The previous tiles; reused tiles are moved out of it.
    pub old_flows: &'a mut FlowPermutations,
    /// The previous graph (in-sector weights of unaffected sectors are copied from it).
    pub old_graph: &'a PortalGraph,
}

/// Result of [`build_permutations`].
#[derive(Debug)]
pub struct PermutationOutput {
    /// The flow tiles.
    pub flows: FlowPermutations,
    /// Start of each sector's in-sector weight matrix in `intra` (see
    /// [`super::portals::assemble_graph`]).
    pub intra_offsets: Vec<usize>,
    /// In-sector weight matrices, [`UNREACHED`] for no edge.
    pub intra: Vec<u32>,
}

#[derive(Hash, PartialEq, Eq)]
enum ClassKey<'a> {
    Clear(u32, u32),
    Tile(u32, &'a [u8]),
}

#[derive(Hash, PartialEq, Eq, Clone, Copy)]
struct NodeKey {
    class: u32,
    local: (u32, u32),
    step: (u8, u8),
    len: u32,
    exit: u8,
}

/// Per-thread working memory: no allocation per tile besides the tile itself.
#[derive(Default)]
struct TileScratch {
    integrator: IntegratorScratch,
    field: IntegrationField,
    clear: Vec<u8>,
    seeds: Vec<(usize, u32)>,
    exits: Vec<(usize, u8)>,
    flow: Vec<u8>,
}

/// Tasks per parallel work item; big enough to amortise scheduling, small enough to balance.
const BATCH_TASKS: usize = 64;
/// Serial rounds of parallel batches, between which progress and cancellation are checked.
const ROUNDS: usize = 20;

/// Computes every node's flow tile and every sector's in-sector weights.
///
/// `sector_offsets`/`sector_nodes` group the nodes by sector (see
/// [`super::portals::group_nodes_by_sector`]). With `reuse`, only sectors marked affected are
/// integrated; the output equals a full build on the same inputs. Returns `None` when
/// `cancel` is set.
#[must_use]
pub fn build_permutations(
    cost: &CostField,
    nodes: &[PortalNode],
    sector_offsets: &[u32],
    sector_nodes: &[u32],
    mut reuse: Option<Reuse<'_>>,
    progress: &dyn Fn(f32),
    cancel: &AtomicBool,
) -> Option<PermutationOutput> {
    let spec = cost.spec;
    let sector_count = spec.sector_count();
    let node_list = |offsets: &[u32], s: usize| -> std::ops::Range<usize> {
        offsets[s] as usize..offsets[s + 1] as usize
    };

    // Which sectors are integrated; an old graph with another layout cannot donate.
    let mut affected = vec![true; sector_count];
    if let Some(r) = &reuse
        && r.old_graph.sector_offsets.len() == sector_count + 1
        && r.affected.len() == sector_count
    {
        for (s, a) in affected.iter_mut().enumerate() {
            let new_k = node_list(sector_offsets, s).len();
            let old_k = node_list(&r.old_graph.sector_offsets, s).len();
            *a = r.affected[s] || new_k != old_k;
        }
    }

    let (node_tile, task_node) = assign_tasks(cost, nodes);
    let mut task_compute: Vec<bool> = vec![false; task_node.len()];
    for (i, n) in nodes.iter().enumerate() {
        task_compute[node_tile[i] as usize] |= affected[n.sector as usize];
    }

    let task_count = task_node.len();
    let mut tiles: Vec<Arc<[u8]>> = vec![Arc::default(); task_count];

    // Position of each node inside its sector's list.
    let mut pos_in_sector = vec![0_u32; nodes.len()];
    let mut intra_offsets = Vec::with_capacity(sector_count + 1);
    let mut total = 0_usize;
    for s in 0..sector_count {
        let r = node_list(sector_offsets, s);
        for (p, &n) in sector_nodes[r.clone()].iter().enumerate() {
            pos_in_sector[n as usize] = p as u32;
        }
        intra_offsets.push(total);
        total += r.len() * r.len();
    }
    intra_offsets.push(total);
    let mut intra = vec![UNREACHED; total];

    // Take over what unaffected sectors can donate: tiles of tasks no affected node uses, and
    // in-sector weights.
    if let Some(r) = reuse.as_mut() {
        let old = r.old_graph;
        for t in 0..task_count {
            if task_compute[t] {
                continue;
            }
            let n = task_node[t] as usize;
            let s = nodes[n].sector as usize;
            let old_node =
                old.sector_nodes[old.sector_offsets[s] as usize + pos_in_sector[n] as usize];
            let taken = r
                .old_flows
                .node_tile
                .get(old_node as usize)
                .and_then(|&ot| r.old_flows.tiles.get_mut(ot as usize))
                .map(std::mem::take)
                .unwrap_or_default();
            if taken.is_empty() {
                task_compute[t] = true;
            } else {
                tiles[t] = taken;
            }
        }
        for s in 0..sector_count {
            if affected[s] {
                continue;
            }
            let old_list = &old.sector_nodes[node_list(&old.sector_offsets, s)];
            let k = old_list.len();
            for (i, &om) in old_list.iter().enumerate() {
                for (target, wgt) in old.edges(om) {
                    if let Ok(j) = old_list.binary_search(&target) {
                        intra[intra_offsets[s] + i * k + j] = wgt;
                    }
                }
            }
        }
    }

    // Queries: the weight m → n is read from n's field at m's centre (at least the straight
    // line between the centres, see `compute_tile`). Grouped by task (CSR).
    let mut query_offsets = vec![0_usize; task_count + 1];
    for s in 0..sector_count {
        if !affected[s] {
            continue;
        }
        let k = node_list(sector_offsets, s).len();
        for &n in &sector_nodes[node_list(sector_offsets, s)] {
            query_offsets[node_tile[n as usize] as usize + 1] += k - 1;
        }
    }
    for t in 0..task_count {
        query_offsets[t + 1] += query_offsets[t];
    }
    // (local cell, slot in `intra`)
    let mut queries = vec![(0_u32, 0_u32); query_offsets[task_count]];
    let mut fill = query_offsets.clone();
    for s in 0..sector_count {
        if !affected[s] {
            continue;
        }
        let (x0, y0, w, _) = spec.sector_rect(s as u32);
        let list = &sector_nodes[node_list(sector_offsets, s)];
        let k = list.len();
        for (j, &n) in list.iter().enumerate() {
            let t = node_tile[n as usize] as usize;
            for (i, &m) in list.iter().enumerate() {
                if i == j {
                    continue;
                }
                let (cx, cy) = nodes[m as usize].center();
                let local = (cy - y0) * w + (cx - x0);
                queries[fill[t]] = (local, (intra_offsets[s] + i * k + j) as u32);
                fill[t] += 1;
            }
        }
    }
    drop(fill);
    let mut answers = vec![UNREACHED; queries.len()];

    // Parallel integration, in batches of consecutive tasks so each batch owns a contiguous
    // run of tiles and answers.
    struct Batch<'t> {
        first_task: usize,
        tiles: &'t mut [Arc<[u8]>],
        answers: &'t mut [u32],
    }
    let mut batches = Vec::with_capacity(task_count.div_ceil(BATCH_TASKS));
    {
        let mut rest_tiles: &mut [Arc<[u8]>] = &mut tiles;
        let mut rest_answers: &mut [u32] = &mut answers;
        let mut first = 0;
        while first < task_count {
            let end = (first + BATCH_TASKS).min(task_count);
            let (bt, rt) = std::mem::take(&mut rest_tiles).split_at_mut(end - first);
            let n_ans = query_offsets[end] - query_offsets[first];
            let (ba, ra) = std::mem::take(&mut rest_answers).split_at_mut(n_ans);
            batches.push(Batch {
                first_task: first,
                tiles: bt,
                answers: ba,
            });
            rest_tiles = rt;
            rest_answers = ra;
            first = end;
        }
    }
    let per_round = batches.len().div_ceil(ROUNDS).max(1);
    let rounds = batches.len().div_ceil(per_round).max(1);
    for (round, group) in batches.chunks_mut(per_round).enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        group
            .par_iter_mut()
            .for_each_init(TileScratch::default, |scratch, batch| {
                for (bi, tile) in batch.tiles.iter_mut().enumerate() {
                    let t = batch.first_task + bi;
                    if !task_compute[t] {
                        continue;
                    }
                    let node = &nodes[task_node[t] as usize];
                    let q0 = query_offsets[batch.first_task];
                    let qs = &queries[query_offsets[t]..query_offsets[t + 1]];
                    let ans = &mut batch.answers[query_offsets[t] - q0..query_offsets[t + 1] - q0];
                    *tile = compute_tile(cost, node, qs, ans, scratch);
                }
            });
        progress((round + 1) as f32 / rounds as f32);
    }
    drop(batches);

    for (q, &(_, slot)) in queries.iter().enumerate() {
        intra[slot as usize] = answers[q];
    }
    Some(PermutationOutput {
        flows: FlowPermutations { tiles, node_tile },
        intra_offsets,
        intra,
    })
}

/// Groups nodes into tasks: nodes with the same key (sector class, window cells relative to
/// the sector, exit direction) share one tile. Returns each node's task and each task's
/// first node; tasks are numbered in node order, which makes the tile store canonical.
fn assign_tasks(cost: &CostField, nodes: &[PortalNode]) -> (Vec<u32>, Vec<u32>) {
    let spec = cost.spec;
    // Sector classes: identical contents share an id, numbered in sector order.
    let mut classes: FxHashMap<ClassKey<'_>, u32> =
        FxHashMap::with_capacity_and_hasher(cost.sectors.len(), Default::default());
    let mut class_of = Vec::with_capacity(cost.sectors.len());
    for (s, sector) in cost.sectors.iter().enumerate() {
        let (_, _, w, h) = spec.sector_rect(s as u32);
        let key = match sector {
            SectorCost::Clear => ClassKey::Clear(w, h),
            SectorCost::Tile(t) => ClassKey::Tile(w, t),
        };
        let next = classes.len() as u32;
        class_of.push(*classes.entry(key).or_insert(next));
    }
    // Tasks by (class, window within the sector), numbered by first use in node order. A
    // class holds a handful of windows, so each class keeps a short chain of its keys in one
    // flat list instead of a map over all nodes (whose random probes were most of the time).
    // A class many sectors share (clear ground above all) gathers hundreds of windows: its
    // keys past the first CHAIN_MAX go in a map (walking its chain was most of the time).
    const CHAIN_MAX: u32 = 8;
    let mut class_head = vec![u32::MAX; classes.len()];
    let mut chain_len = vec![0u32; classes.len()];
    let mut overflow: FxHashMap<NodeKey, u32> = FxHashMap::default();
    // (key, task, next entry of the same class)
    let mut entries: Vec<(NodeKey, u32, u32)> = Vec::with_capacity(nodes.len());
    let mut node_tile = Vec::with_capacity(nodes.len());
    let mut task_node: Vec<u32> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let (x0, y0, _, _) = spec.sector_rect(n.sector);
        let class = class_of[n.sector as usize];
        let key = NodeKey {
            class,
            local: (n.cells.x() - x0, n.cells.y() - y0),
            step: n.cells.step(),
            len: u32::from(n.cells.len()),
            exit: n.exit_dir,
        };
        let c = class as usize;
        let mut at = class_head[c];
        let mut found = None;
        while at != u32::MAX {
            let (k, task, next) = entries[at as usize];
            if k == key {
                found = Some(task);
                break;
            }
            at = next;
        }
        if found.is_none() && chain_len[c] == CHAIN_MAX {
            found = overflow.get(&key).copied();
        }
        let t = found.unwrap_or_else(|| {
            let task = task_node.len() as u32;
            task_node.push(i as u32);
            if chain_len[c] < CHAIN_MAX {
                entries.push((key, task, class_head[c]));
                class_head[c] = entries.len() as u32 - 1;
                chain_len[c] += 1;
            } else {
                overflow.insert(key, task);
            }
            task
        });
        node_tile.push(t);
    }
    (node_tile, task_node)
}

/// [`canonical_flows`] without copying a store that already is canonical (a fresh bake's),
/// for the package writer: at 8192² the copy would be hundreds of megabytes.
#[must_use]
pub fn canonical_flows_borrowed<'a>(
    cost: &CostField,
    nodes: &[PortalNode],
    flows: &'a FlowPermutations,
) -> std::borrow::Cow<'a, FlowPermutations> {
    let (node_tile, task_node) = assign_tasks(cost, nodes);
    // Tile t of the canonical store is the tile of node task_node[t]; when every node already
    // has its canonical index and there are no other tiles, that is tile t itself.
    if node_tile == flows.node_tile && flows.tiles.len() == task_node.len() {
        return std::borrow::Cow::Borrowed(flows);
    }
    std::borrow::Cow::Owned(canonical_from(flows, node_tile, &task_node))
}

fn canonical_from(
    flows: &FlowPermutations,
    node_tile: Vec<u32>,
    task_node: &[u32],
) -> FlowPermutations {
    let tiles = task_node
        .iter()
        .map(|&n| {
            flows
                .node_tile
                .get(n as usize)
                .and_then(|&t| flows.tiles.get(t as usize))
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    FlowPermutations { tiles, node_tile }
}

/// The canonical store of `flows` (what a full build gives for the same costs and nodes):
/// incremental cost-only updates append tiles and leave unused ones behind, so packages and
/// comparisons go through this.
#[must_use]
pub fn canonical_flows(
    cost: &CostField,
    nodes: &[PortalNode],
    flows: &FlowPermutations,
) -> FlowPermutations {
    let (node_tile, task_node) = assign_tasks(cost, nodes);
    canonical_from(flows, node_tile, &task_node)
}

/// Recomputes the flow tiles of every node in `sectors` (whose costs changed but whose walls
/// did not, so the nodes and the graph's edges are unchanged) and returns, per sector, the
/// in-sector weight matrix (`k × k`, row = from-node position, column = to-node position,
/// [`UNREACHED`] for no edge), and each recomputed node's new tile. Nothing is written, so
/// the caller can still refuse the result.
pub fn recompute_sector_tiles(
    cost: &CostField,
    nodes: &[PortalNode],
    graph: &PortalGraph,
    sectors: &[u32],
) -> (Vec<Vec<u32>>, Vec<NodeTile>) {
    let lists: Vec<&[u32]> = sectors.iter().map(|&s| graph.nodes_of_sector(s)).collect();
    sector_tiles(cost, nodes, sectors, &lists)
}

/// [`recompute_sector_tiles`] with each sector's node list given (ids into `nodes`,
/// ascending), for a rebuild whose graph is not assembled yet.
pub fn sector_tiles(
    cost: &CostField,
    nodes: &[PortalNode],
    sectors: &[u32],
    lists: &[&[u32]],
) -> (Vec<Vec<u32>>, Vec<NodeTile>) {
    let spec = cost.spec;
    let jobs: Vec<(u32, usize, usize)> = sectors
        .iter()
        .zip(lists)
        .enumerate()
        .flat_map(|(li, (&s, list))| (0..list.len()).map(move |j| (s, li, j)))
        .collect();
    let computed: Vec<(Arc<[u8]>, Vec<u32>)> = jobs
        .par_iter()
        .map_init(TileScratch::default, |scratch, &(s, li, j)| {
            let list = lists[li];
            let (x0, y0, w, _) = spec.sector_rect(s);
            let queries: Vec<(u32, u32)> = list
                .iter()
                .map(|&m| {
                    let (cx, cy) = nodes[m as usize].center();
                    ((cy - y0) * w + (cx - x0), 0)
                })
                .collect();
            let mut answers = vec![UNREACHED; queries.len()];
            let tile = compute_tile(
                cost,
                &nodes[list[j] as usize],
                &queries,
                &mut answers,
                scratch,
            );
            (tile, answers)
        })
        .collect();
    let mut out = Vec::with_capacity(sectors.len());
    let mut tiles = Vec::with_capacity(jobs.len());
    let mut it = jobs.iter().zip(computed);
    for list in lists {
        let k = list.len();
        let mut matrix = vec![UNREACHED; k * k];
        for _ in 0..k {
            let Some((&(_, _, j), (tile, answers))) = it.next() else {
                break;
            };
            tiles.push((list[j], tile));
            for (i, a) in answers.into_iter().enumerate() {
                if i != j {
                    matrix[i * k + j] = a;
                }
            }
        }
        out.push(matrix);
    }
    (out, tiles)
}

/// The straight line between two node centres `(ax, ay)` and `(bx, by)` (sector cells),
/// rounded down: a lower bound on walking from one centre to the other, since every cell
/// costs at least 1. A route is a chain of centres (the next edge starts at the centre of the
/// window the last one reached), so an edge weighs at least this much; the cost to the
/// window's *nearest* cell alone lets two windows meeting at a sector corner cost almost
/// nothing between them, and a chain of them draws routes along sector corners.
fn centre_line(ax: u32, ay: u32, bx: u32, by: u32) -> u32 {
    let (dx, dy) = (f64::from(ax.abs_diff(bx)), f64::from(ay.abs_diff(by)));
    dx.hypot(dy).floor() as u32
}

/// A portal node and its newly computed flow tile.
pub type NodeTile = (u32, Arc<[u8]>);

/// Integrates one node's sector toward the node's window, answers the weight queries
/// (`(local cell, _)` → integrated cost minus the cell's own cost) and returns the flow tile.
fn compute_tile(
    cost: &CostField,
    node: &PortalNode,
    queries: &[(u32, u32)],
    answers: &mut [u32],
    scratch: &mut TileScratch,
) -> Arc<[u8]> {
    let spec = cost.spec;
    let (x0, y0, w, h) = spec.sector_rect(node.sector);
    let n = (w * h) as usize;
    let TileScratch {
        integrator,
        field,
        clear,
        seeds,
        exits,
        flow,
    } = scratch;
    let costs: &[u8] = match &cost.sectors[node.sector as usize] {
        SectorCost::Tile(t) => t,
        SectorCost::Clear => {
            clear.clear();
            clear.resize(n, CLEAR);
            clear
        }
    };
    seeds.clear();
    exits.clear();
    for i in 0..u32::from(node.cells.len()) {
        let (x, y) = node.cells.cell(i);
        let local = ((y - y0) * w + (x - x0)) as usize;
        seeds.push((local, u32::from(costs[local])));
        exits.push((local, node.exit_dir));
    }
    integrate_costs(costs, w, h, seeds, field, integrator);
    flow.clear();
    flow.resize(n, 0);
    flow_from_integration(costs, w, h, field, exits, flow);
    let (nx, ny) = (node.center().0 - x0, node.center().1 - y0);
    for (&(local, _), a) in queries.iter().zip(answers.iter_mut()) {
        let c = field.cost[local as usize];
        *a = if c == UNREACHED {
            UNREACHED
        } else {
            // Eikonal: a cell reached diagonally costs less than its own cost above its
            // neighbours, so a costly centre can integrate below its own cost.
            let to_window = c.saturating_sub(u32::from(costs[local as usize]));
            to_window.max(centre_line(local % w, local / w, nx, ny))
        };
    }
    Arc::from(&flow[..])
}
