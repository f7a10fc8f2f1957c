//! The wall-changing path of [`super::rebuild_sectors`], with work proportional to the dirty
//! sectors rather than the map.
//!
//! Windows change only on borders touching a dirty sector. In the canonical order (windows by
//! border id, nodes `2 w` and `2 w + 1`) every border of the *near* sectors (the dirty ones
//! and their 4 neighbours) lies in one contiguous range, the *region*: it is rebuilt and
//! spliced in, and everything after it only shifts by the change in window count. Flow tiles
//! and in-sector weights are recomputed for the dirty sectors and the neighbours whose node
//! list changed, and appended to the tile store as the cost-only path does.
//!
//! Islands: the near sectors' local components are relabelled and joined through the windows
//! between near sectors. Outside the near sectors nothing changed, so the far sides of the
//! windows leaving them (the *exits*) can only be connected outside if they carry the same
//! old island id, and interleaved searches from them (stopping once at most one is still
//! running) tell whether they are. When every old island touching the near sectors becomes
//! exactly one new island with the same first cell inside them, every id is kept and only
//! the near sectors are rewritten; otherwise (an island split or joined, or one whose first
//! cell moved, which renumbers ids after it) islands are relabelled over the whole map.

use std::collections::{HashMap, VecDeque};

use super::NavLayer;
use crate::grid::GridSpec;
use crate::integrate::UNREACHED;
use crate::islands::{MIXED, label_sector};
use crate::permutations::{canonical_flows, sector_tiles};
use crate::portals::{PortalWindow, nodes_from_windows, scan_border};

const NONE: u32 = u32::MAX;

/// Nodes each interleaved island search expands per turn.
const SEARCH_STEP: usize = 8;

/// How [`rebuild_walls`] brought the island ids up to date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IslandUpdate {
    /// Every id kept; only the near sectors' ids rewritten.
    Local,
    /// Islands split, joined or renumbered: relabelled over the whole map.
    Relabelled,
}

/// Old node id → new node id, for every node whose window survived the edit.
struct NodeMap {
    /// First old node id of the region.
    lo: u32,
    /// End of the region in old node ids.
    hi: u32,
    /// Change of node ids after the region.
    shift: i64,
    /// New window index of each old region window, [`NONE`] if it was replaced.
    table: Vec<u32>,
}

impl NodeMap {
    fn map(&self, t: u32) -> u32 {
        if t < self.lo {
            t
        } else if t >= self.hi {
            (i64::from(t) + self.shift) as u32
        } else {
            2 * self.table[((t - self.lo) / 2) as usize] + (t & 1)
        }
    }
}

/// Brings `layer` up to date after walls changed inside `dirty_sectors` (see the module docs).
pub fn rebuild_walls(layer: &mut NavLayer, dirty_sectors: &[u32]) -> IslandUpdate {
    let spec = layer.cost.spec;
    let count = spec.sector_count();
    let (sx, sy) = (spec.sectors_x(), spec.sectors_y());
    let mut in_d = vec![false; count];
    let mut in_n = vec![false; count];
    let mut n_list = Vec::new();
    let mut touched = Vec::new();
    for &s in dirty_sectors {
        if (s as usize) >= count || in_d[s as usize] {
            continue;
        }
        in_d[s as usize] = true;
        let (x, y) = (s % sx, s / sx);
        let around = [
            (true, s),
            (x > 0, s.wrapping_sub(1)),
            (x + 1 < sx, s + 1),
            (y > 0, s.wrapping_sub(sx)),
            (y + 1 < sy, s + sx),
        ];
        for (ok, t) in around {
            if ok && !in_n[t as usize] {
                in_n[t as usize] = true;
                n_list.push(t);
            }
        }
        if x + 1 < sx {
            touched.push(2 * s);
        }
        if y + 1 < sy {
            touched.push(2 * s + 1);
        }
        if x > 0 {
            touched.push(2 * (s - 1));
        }
        if y > 0 {
            touched.push(2 * (s - sx) + 1);
        }
    }
    let (Some(&amin), Some(&amax)) = (n_list.iter().min(), n_list.iter().max()) else {
        return IslandUpdate::Local;
    };
    n_list.sort_unstable();
    touched.sort_unstable();
    touched.dedup();

    // The region: every border of a near sector (its lowest is the north neighbour's south
    // border, or the west neighbour's east border in the top row).
    let mut bmin = u32::MAX;
    let mut bmax = 0;
    for &s in &n_list {
        let (x, y) = (s % sx, s / sx);
        let first = if y > 0 {
            2 * (s - sx) + 1
        } else if x > 0 {
            2 * (s - 1)
        } else {
            2 * s
        };
        bmin = bmin.min(first);
        bmax = bmax.max(2 * s + 1);
    }
    let old_windows = &layer.windows;
    let w_lo = old_windows.partition_point(|w| w.border_id() < bmin);
    let w_hi = old_windows.partition_point(|w| w.border_id() <= bmax);

    // New region windows: touched borders rescanned, the rest copied. `src` is each new
    // window's old index (NONE when its border changed); sectors beside a changed border get
    // new node lists and are recomputed (`in_r`).
    let mut new_win: Vec<PortalWindow> = Vec::with_capacity(w_hi - w_lo + 16);
    let mut src: Vec<u32> = Vec::with_capacity(w_hi - w_lo + 16);
    let mut table = vec![NONE; w_hi - w_lo];
    let mut in_r = in_d;
    let mut o = w_lo;
    // Copies old windows up to (not including) border `b`.
    let keep_until = |o: &mut usize,
                      b: u32,
                      new_win: &mut Vec<PortalWindow>,
                      src: &mut Vec<u32>,
                      table: &mut [u32]| {
        while *o < w_hi && old_windows[*o].border_id() < b {
            table[*o - w_lo] = (w_lo + new_win.len()) as u32;
            src.push(*o as u32);
            new_win.push(old_windows[*o]);
            *o += 1;
        }
    };
    for &b in &touched {
        keep_until(&mut o, b, &mut new_win, &mut src, &mut table);
        let start = o;
        while o < w_hi && old_windows[o].border_id() == b {
            o += 1;
        }
        let first_new = new_win.len();
        scan_border(&layer.cost, b, &mut new_win);
        if new_win[first_new..] == old_windows[start..o] {
            for (k, i) in (start..o).enumerate() {
                table[i - w_lo] = (w_lo + first_new + k) as u32;
                src.push(i as u32);
            }
        } else {
            src.resize(new_win.len(), NONE);
            let a = b / 2;
            let other = if b % 2 == 1 { a + sx } else { a + 1 };
            in_r[a as usize] = true;
            in_r[other as usize] = true;
        }
    }
    keep_until(&mut o, u32::MAX, &mut new_win, &mut src, &mut table);
    let delta = new_win.len() as i64 - (w_hi - w_lo) as i64;
    let map = NodeMap {
        lo: 2 * w_lo as u32,
        hi: 2 * w_hi as u32,
        shift: 2 * delta,
        table,
    };
    let base = 2 * w_lo as u32;

    let mut region_nodes = nodes_from_windows(&new_win);
    for (j, n) in region_nodes.iter_mut().enumerate() {
        n.window += w_lo as u32;
        let old = src[j / 2];
        if old != NONE {
            n.island = layer.nodes[2 * old as usize + (j & 1)].island;
        }
    }

    // Recomputed sectors' node lists (region-local ids, ascending) and their tiles.
    let r_list: Vec<u32> = n_list
        .iter()
        .copied()
        .filter(|&s| in_r[s as usize])
        .collect();
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); r_list.len()];
    let mut row_of = vec![(0_u32, 0_u32); region_nodes.len()];
    for (j, n) in region_nodes.iter().enumerate() {
        if in_r[n.sector as usize]
            && let Ok(li) = r_list.binary_search(&n.sector)
        {
            row_of[j] = (li as u32, lists[li].len() as u32);
            lists[li].push(j as u32);
        }
    }
    let list_refs: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
    let (matrices, new_tiles) = sector_tiles(&layer.cost, &region_nodes, &r_list, &list_refs);

    // Region rows: recomputed sectors from their matrices, the rest copied with targets
    // renumbered; every crossing weight re-read (the far side may be a dirty sector).
    let mut mid_targets = Vec::with_capacity(region_nodes.len() * 4);
    let mut mid_weights = Vec::with_capacity(region_nodes.len() * 4);
    let mut mid_offsets = Vec::with_capacity(region_nodes.len());
    let mut mid_tiles = Vec::with_capacity(region_nodes.len());
    let e_lo = layer.graph.offsets[2 * w_lo];
    let e_hi = layer.graph.offsets[2 * w_hi];
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(16);
    for (j, n) in region_nodes.iter().enumerate() {
        edges.clear();
        let m = base + j as u32;
        let twin = &region_nodes[j ^ 1];
        edges.push((
            m ^ 1,
            u32::from(layer.cost.get(twin.center.0, twin.center.1)),
        ));
        if in_r[n.sector as usize] {
            let (li, i) = (row_of[j].0 as usize, row_of[j].1 as usize);
            let list = &lists[li];
            let k = list.len();
            for (jj, &other) in list.iter().enumerate() {
                let w = matrices[li][i * k + jj];
                if jj != i && w != UNREACHED {
                    edges.push((base + other, w));
                }
            }
            mid_tiles.push(NONE);
        } else {
            // Not recomputed, so its window survived (a changed border marks both sides).
            let old = 2 * src[j / 2] + (j as u32 & 1);
            for (t, w) in layer.graph.edges(old) {
                if t != old ^ 1 {
                    edges.push((map.map(t), w));
                }
            }
            mid_tiles.push(layer.flows.node_tile[old as usize]);
        }
        edges.sort_unstable();
        for &(t, w) in &edges {
            mid_targets.push(t);
            mid_weights.push(w);
        }
        mid_offsets.push(e_lo + mid_targets.len() as u32);
    }

    // Rows before the region whose sector has nodes in it point into the region: a node of
    // a window with west/north sector `a` only reaches borders up to `2 (a + sx) + 1`.
    let g = &mut layer.graph;
    for p in (0..2 * w_lo).rev() {
        if 2 * (old_windows[p / 2].sector_a + sx) + 1 < bmin {
            break;
        }
        let r = g.offsets[p] as usize..g.offsets[p + 1] as usize;
        for t in &mut g.targets[r] {
            if *t >= map.lo {
                *t = map.map(*t);
            }
        }
    }
    // Sector lists of the near span: recomputed sectors from the region, the rest renumbered.
    let so_lo = g.sector_offsets[amin as usize] as usize;
    let so_hi = g.sector_offsets[amax as usize + 1] as usize;
    let mut span_nodes: Vec<u32> = Vec::with_capacity(so_hi - so_lo + 16);
    let mut span_offsets: Vec<u32> = Vec::with_capacity((amax - amin + 1) as usize);
    for s in amin..=amax {
        if in_r[s as usize]
            && let Ok(li) = r_list.binary_search(&s)
        {
            span_nodes.extend(lists[li].iter().map(|&j| base + j));
        } else {
            span_nodes.extend(g.nodes_of_sector(s).iter().map(|&t| map.map(t)));
        }
        span_offsets.push((so_lo + span_nodes.len()) as u32);
    }
    for s in (0..amin).rev() {
        if 2 * s + 1 < bmin {
            break;
        }
        let r = g.sector_offsets[s as usize] as usize..g.sector_offsets[s as usize + 1] as usize;
        for t in &mut g.sector_nodes[r] {
            if *t >= map.lo {
                *t = map.map(*t);
            }
        }
    }

    // Splice everything; each tail moves once, chunk by chunk, and is renumbered while the
    // chunk is in cache. Past sector `bmax / 2 + sx` every node's targets lie after the
    // region (a node only reaches borders from `2 (a − sx)` on), so a plain shift renumbers
    // them; thresholds are taken before the splice, in old positions.
    let far = bmax / 2 + sx;
    let far_window = old_windows.partition_point(|w| w.sector_a <= far).max(w_hi);
    let far_sector = (far as usize + 1).clamp(amax as usize + 1, count);
    let g = &mut layer.graph;
    let edge_shift = mid_targets.len() as i64 - i64::from(e_hi - e_lo);
    let node_shift = span_nodes.len() as i64 - (so_hi - so_lo) as i64;
    let far_edge = (i64::from(g.offsets[2 * far_window]) + edge_shift) as usize;
    let far_node = (i64::from(g.sector_offsets[far_sector]) + node_shift) as usize;
    let renumber = |far: usize| {
        let map = &map;
        move |pos: usize, chunk: &mut [u32]| {
            let cut = far.saturating_sub(pos).min(chunk.len());
            for t in &mut chunk[..cut] {
                *t = map.map(*t);
            }
            add_all(&mut chunk[cut..], map.shift);
        }
    };
    splice_with(
        &mut g.targets,
        e_lo as usize..e_hi as usize,
        &mid_targets,
        renumber(far_edge),
    );
    splice_with(
        &mut g.weights,
        e_lo as usize..e_hi as usize,
        &mid_weights,
        |_, _| {},
    );
    splice_with(
        &mut g.offsets,
        2 * w_lo + 1..2 * w_hi + 1,
        &mid_offsets,
        |_, c| {
            add_all(c, edge_shift);
        },
    );
    splice_with(
        &mut g.sector_nodes,
        so_lo..so_hi,
        &span_nodes,
        renumber(far_node),
    );
    splice_with(
        &mut g.sector_offsets,
        amin as usize + 1..amax as usize + 2,
        &span_offsets,
        |_, c| add_all(c, node_shift),
    );
    let region_len = region_nodes.len();
    splice_with(&mut layer.windows, w_lo..w_hi, &new_win, |_, _| {});
    splice_with(
        &mut layer.nodes,
        2 * w_lo..2 * w_hi,
        &region_nodes,
        |_, c| {
            if delta != 0 {
                for n in c {
                    n.window = (i64::from(n.window) + delta) as u32;
                }
            }
        },
    );

    // Tiles: recomputed nodes' appended to the store.
    for (j, tile) in new_tiles {
        mid_tiles[j as usize] = layer.flows.tiles.len() as u32;
        layer.flows.tiles.push(tile);
    }
    splice_with(
        &mut layer.flows.node_tile,
        2 * w_lo..2 * w_hi,
        &mid_tiles,
        |_, _| {},
    );
    if layer.flows.tiles.len() > 2 * layer.nodes.len() + 4096 {
        layer.flows = canonical_flows(&layer.cost, &layer.nodes, &layer.flows);
    }

    update_islands(
        layer,
        &n_list,
        &in_n,
        base as usize..base as usize + region_len,
    )
}

/// Tail elements moved per step of [`splice_with`]: small enough to stay in L2 between the
/// move and the renumbering.
const CHUNK: usize = 8192;

/// Replaces `v[range]` by `new`, moving the tail once, chunk by chunk, and calls
/// `adjust(new position, chunk)` on each moved chunk (on the whole tail when nothing moves).
fn splice_with<T: Copy>(
    v: &mut Vec<T>,
    range: std::ops::Range<usize>,
    new: &[T],
    mut adjust: impl FnMut(usize, &mut [T]),
) {
    let (a, b, len) = (range.start, range.end, v.len());
    let n = new.len();
    if n <= b - a {
        let d = b - a - n;
        if d == 0 {
            adjust(b, &mut v[b..]);
        } else {
            let mut start = b;
            while start < len {
                let end = (start + CHUNK).min(len);
                v.copy_within(start..end, start - d);
                adjust(start - d, &mut v[start - d..end - d]);
                start = end;
            }
            v.truncate(len - d);
        }
    } else {
        let d = n - (b - a);
        // Grow by d placeholders (overwritten below), then move the tail up from its end.
        if len >= d {
            v.extend_from_within(len - d..len);
        } else {
            v.extend_from_slice(&new[..d]);
        }
        let mut end = len;
        while end > b {
            let start = end.saturating_sub(CHUNK).max(b);
            v.copy_within(start..end, start + d);
            adjust(start + d, &mut v[start + d..end + d]);
            end = start;
        }
    }
    v[a..a + n].copy_from_slice(new);
}

/// Adds `shift` (possibly negative) to every id.
fn add_all(v: &mut [u32], shift: i64) {
    if shift != 0 {
        let s = shift as u32;
        for x in v {
            *x = x.wrapping_add(s);
        }
    }
}

/// Union-find over near-sector components, with path halving.
struct UnionFind(Vec<u32>);

impl UnionFind {
    fn find(&mut self, mut a: u32) -> u32 {
        while self.0[a as usize] != a {
            self.0[a as usize] = self.0[self.0[a as usize] as usize];
            a = self.0[a as usize];
        }
        a
    }
    fn union(&mut self, a: u32, b: u32) -> u32 {
        let (ra, rb) = (self.find(a), self.find(b));
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.0[hi as usize] = lo;
        lo
    }
}

/// One interleaved island search: its component (a union-find element) and its queue.
struct Front {
    unit: u32,
    queue: VecDeque<u32>,
}

/// The near sectors' components ("units"): per near sector its cell labels (`0` = wall,
/// `l` = unit `base[i] + l − 1`), and each unit's first cell `(y, x)`.
struct Units<'a> {
    spec: GridSpec,
    n_list: &'a [u32],
    labels: Vec<Vec<u32>>,
    base: Vec<u32>,
    first: Vec<(u32, u32)>,
}

impl Units<'_> {
    fn at(&self, x: u32, y: u32) -> Option<u32> {
        let s = self.spec.sector_of(x, y);
        let idx = self.n_list.binary_search(&s).ok()?;
        let (x0, y0, w, _) = self.spec.sector_rect(s);
        let l = self.labels[idx][((y - y0) * w + (x - x0)) as usize];
        (l != 0).then(|| self.base[idx] + l - 1)
    }
}

/// What the island searches found: exits `(old id, far node, near unit)` sorted, for split
/// old ids the unit of the search still running when they stopped, and every node visited.
struct Searches {
    exits: Vec<(u32, u32, u32)>,
    remainder: HashMap<u32, Option<u32>>,
    visited: Vec<u32>,
    visited_nodes: Vec<u32>,
}

/// Brings the island ids up to date after the near sectors (`n_list`, ascending; `in_n` per
/// sector) changed; nodes and graph are already current, `region` is the range of new node
/// ids holding every near node.
fn update_islands(
    layer: &mut NavLayer,
    n_list: &[u32],
    in_n: &[bool],
    region: std::ops::Range<usize>,
) -> IslandUpdate {
    let spec = layer.cost.spec;
    let mut units = Units {
        spec,
        n_list,
        labels: Vec::with_capacity(n_list.len()),
        base: Vec::with_capacity(n_list.len()),
        first: Vec::new(),
    };
    let mut tile = Vec::new();
    for &s in n_list {
        layer.cost.sector_cells(s, &mut tile);
        let (x0, y0, w, _) = spec.sector_rect(s);
        let (k, lab) = label_sector(w, &tile);
        let start = units.first.len();
        units.base.push(start as u32);
        units.first.resize(start + k as usize, (NONE, NONE));
        // Labels are numbered by first cell, so label l first appears after l − 1.
        let mut next = 1;
        for (i, &l) in lab.iter().enumerate() {
            if next > k {
                break;
            }
            if l == next {
                units.first[start + l as usize - 1] = (y0 + i as u32 / w, x0 + i as u32 % w);
                next += 1;
            }
        }
        units.labels.push(lab);
    }
    let mut uf = UnionFind((0..units.first.len() as u32).collect());
    let nodes = &layer.nodes;
    // Windows between two near sectors join their sides' units.
    for pair in nodes[region].chunks_exact(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if in_n[a.sector as usize]
            && in_n[b.sector as usize]
            && let (Some(ua), Some(ub)) = (
                units.at(a.center.0, a.center.1),
                units.at(b.center.0, b.center.1),
            )
        {
            uf.union(ua, ub);
        }
    }
    let mut found = Searches {
        exits: Vec::new(),
        remainder: HashMap::new(),
        visited: Vec::new(),
        visited_nodes: Vec::new(),
    };
    for &s in n_list {
        for &m in layer.graph.nodes_of_sector(s) {
            let far = m ^ 1;
            let f = &nodes[far as usize];
            if !in_n[f.sector as usize] {
                let c = nodes[m as usize].center;
                if let Some(u) = units.at(c.0, c.1) {
                    found.exits.push((f.island, far, u));
                }
            }
        }
    }
    found.exits.sort_unstable();
    let mut start = 0;
    while start < found.exits.len() {
        let id = found.exits[start].0;
        let end = start + found.exits[start..].partition_point(|e| e.0 == id);
        let r0 = uf.find(found.exits[start].2);
        if found.exits[start..end].iter().any(|e| uf.find(e.2) != r0) {
            if found.visited.is_empty() {
                found.visited = vec![NONE; nodes.len()];
            }
            let rest = join_outside(layer, in_n, &mut uf, start..end, &mut found);
            let r = uf.find(found.exits[start].2);
            if found.exits[start..end].iter().any(|e| uf.find(e.2) != r) {
                found.remainder.insert(id, rest);
            }
        }
        start = end;
    }

    let old_first = old_near_firsts(layer, n_list);
    if let Some(unit_id) = local_ids(&mut uf, &found.exits, &units.first, &old_first) {
        write_near_ids(layer, &units, &unit_id);
        IslandUpdate::Local
    } else {
        relabel(layer, in_n, &units, &mut uf, &found, &old_first);
        IslandUpdate::Relabelled
    }
}

/// Interleaved searches outside the near sectors from the exits `range` of one old island,
/// one per distinct unit root; searches that meet are joined in `uf`. Stops when at most one
/// search is still running (the exhausted ones are cut off from it) and returns its unit.
fn join_outside(
    layer: &NavLayer,
    in_n: &[bool],
    uf: &mut UnionFind,
    range: std::ops::Range<usize>,
    found: &mut Searches,
) -> Option<u32> {
    let (nodes, graph) = (&layer.nodes, &layer.graph);
    let visited = &mut found.visited;
    let mut fronts: Vec<Front> = Vec::new();
    for &(_, far, unit) in &found.exits[range] {
        visited[far as usize] = unit;
        found.visited_nodes.push(far);
        let r = uf.find(unit);
        match fronts.iter().position(|f| f.unit == r) {
            Some(i) => fronts[i].queue.push_back(far),
            None => fronts.push(Front {
                unit: r,
                queue: VecDeque::from([far]),
            }),
        }
    }
    loop {
        let mut running = fronts.iter().filter(|f| !f.queue.is_empty());
        match (running.next(), running.next()) {
            (None, _) => return None,
            (Some(f), None) => return Some(f.unit),
            _ => {}
        }
        for fi in 0..fronts.len() {
            for _ in 0..SEARCH_STEP {
                let Some(x) = fronts[fi].queue.pop_front() else {
                    break;
                };
                for (y, _) in graph.edges(x) {
                    if in_n[nodes[y as usize].sector as usize] {
                        continue;
                    }
                    let v = visited[y as usize];
                    if v == NONE {
                        visited[y as usize] = fronts[fi].unit;
                        found.visited_nodes.push(y);
                        fronts[fi].queue.push_back(y);
                        continue;
                    }
                    let (a, b) = (uf.find(v), uf.find(fronts[fi].unit));
                    if a == b {
                        continue;
                    }
                    // Two searches met: one component outside; merge their queues.
                    let root = uf.union(a, b);
                    let mut moved = VecDeque::new();
                    for (fj, f) in fronts.iter_mut().enumerate() {
                        if fj != fi && uf.find(f.unit) == root {
                            moved.append(&mut f.queue);
                            f.unit = root;
                        }
                    }
                    fronts[fi].unit = root;
                    fronts[fi].queue.append(&mut moved);
                }
            }
        }
    }
}

/// First cell `(y, x)` among the near cells of every old island present in them.
fn old_near_firsts(layer: &NavLayer, n_list: &[u32]) -> HashMap<u32, (u32, u32)> {
    let spec = layer.cost.spec;
    let islands = &layer.islands;
    let mut old_first: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut note = |id: u32, cell: (u32, u32)| {
        if id != 0 {
            let e = old_first.entry(id).or_insert(cell);
            *e = (*e).min(cell);
        }
    };
    for &s in n_list {
        let (x0, y0, w, _) = spec.sector_rect(s);
        match islands.sector_island.get(s as usize) {
            Some(&MIXED) => {
                if let Ok(i) = islands.fields.binary_search_by_key(&s, |(sec, _)| *sec) {
                    for (c, &id) in islands.fields[i].1.iter().enumerate() {
                        note(id, (y0 + c as u32 / w, x0 + c as u32 % w));
                    }
                }
            }
            Some(&id) => note(id, (y0, x0)),
            None => {}
        }
    }
    old_first
}

/// New island id of every unit when no island split, joined or got a new first cell (each
/// old island touching the near sectors is exactly one new island with the same first cell
/// among the near cells, and so keeps its id); `None` otherwise.
fn local_ids(
    uf: &mut UnionFind,
    exits: &[(u32, u32, u32)],
    unit_first: &[(u32, u32)],
    old_first: &HashMap<u32, (u32, u32)>,
) -> Option<Vec<u32>> {
    // Each old id's exits in one new island, each new island holding at most one old id.
    let mut root_of_id: HashMap<u32, u32> = HashMap::new();
    for &(id, _, unit) in exits {
        let r = uf.find(unit);
        if *root_of_id.entry(id).or_insert(r) != r {
            return None;
        }
    }
    let mut id_of_root: HashMap<u32, u32> = HashMap::new();
    for (&id, &r) in &root_of_id {
        if id_of_root.insert(r, id).is_some() {
            return None;
        }
    }
    let mut root_first: HashMap<u32, (u32, u32)> = HashMap::new();
    for (u, &cell) in unit_first.iter().enumerate() {
        let r = uf.find(u as u32);
        let e = root_first.entry(r).or_insert(cell);
        *e = (*e).min(cell);
    }
    // Islands wholly inside the near sectors are matched by their first cell.
    let mut inside: HashMap<(u32, u32), u32> = old_first
        .iter()
        .filter(|(id, _)| !root_of_id.contains_key(id))
        .map(|(&id, &cell)| (cell, id))
        .collect();
    let mut id_of: HashMap<u32, u32> = HashMap::new();
    for (&r, &cell) in &root_first {
        let id = match id_of_root.get(&r) {
            Some(&id) if old_first.get(&id) == Some(&cell) => id,
            Some(_) => return None,
            None => inside.remove(&cell)?,
        };
        id_of.insert(r, id);
    }
    if !inside.is_empty() {
        return None;
    }
    (0..unit_first.len() as u32)
        .map(|u| id_of.get(&uf.find(u)).copied())
        .collect()
}

/// A sector outside the near ones holding part of a split island: its cell labels and, per
/// label, the new island (union-find root) an exhausted search found it in (or `NONE`).
struct SplitSector {
    labels: Vec<u32>,
    root: Vec<u32>,
}

/// Renumbers every island after a split, join or first-cell change, in
/// `O(sectors + cells of mixed sectors)`: each new island is a class — a union-find root of
/// units (with the outside parts of the old islands whose exits it holds) or an untouched old
/// island — numbered by its first cell, found in one pass over the old ids.
fn relabel(
    layer: &mut NavLayer,
    in_n: &[bool],
    units: &Units<'_>,
    uf: &mut UnionFind,
    found: &Searches,
    old_first: &HashMap<u32, (u32, u32)>,
) {
    let spec = layer.cost.spec;
    let unit_count = units.first.len() as u32;
    let old_count = layer.islands.count as usize;
    // Class per old id: untouched ids their own (unit_count + id), touched ids the root of
    // their exits (of the search left running for a split one); ids wholly inside the near
    // sectors have no cell left outside them.
    let mut class_of_old: Vec<u32> = (0..=old_count as u32).map(|k| unit_count + k).collect();
    class_of_old[0] = NONE;
    for &id in old_first.keys() {
        if let Some(c) = class_of_old.get_mut(id as usize) {
            *c = NONE;
        }
    }
    for &(id, _, unit) in &found.exits {
        let root = match found.remainder.get(&id) {
            Some(rest) => rest.map_or(NONE, |u| uf.find(u)),
            None => uf.find(unit),
        };
        if let Some(c) = class_of_old.get_mut(id as usize) {
            *c = root;
        }
    }
    // Outside components of split ids that an exhausted search walked, per sector label.
    let mut split: HashMap<u32, SplitSector> = HashMap::new();
    let mut tile = Vec::new();
    for &x in &found.visited_nodes {
        let n = layer.nodes[x as usize];
        if !found.remainder.contains_key(&n.island) {
            continue;
        }
        let e = split.entry(n.sector).or_insert_with(|| {
            layer.cost.sector_cells(n.sector, &mut tile);
            let (_, _, w, _) = spec.sector_rect(n.sector);
            let (k, labels) = label_sector(w, &tile);
            SplitSector {
                labels,
                root: vec![NONE; k as usize + 1],
            }
        });
        let (x0, y0, w, _) = spec.sector_rect(n.sector);
        let l = e.labels[((n.center.1 - y0) * w + (n.center.0 - x0)) as usize];
        e.root[l as usize] = uf.find(found.visited[x as usize]);
    }
    // Class of cell `c` (old id `id`) of a sector holding split components.
    let split_class = |e: &SplitSector, c: usize, id: u32| -> u32 {
        if id == 0 {
            return NONE;
        }
        let r = e.root[e.labels[c] as usize];
        if r == NONE {
            class_of_old.get(id as usize).copied().unwrap_or(NONE)
        } else {
            r
        }
    };
    let class_of = |id: u32| class_of_old.get(id as usize).copied().unwrap_or(NONE);

    // First cell of every class.
    let classes = unit_count as usize + old_count + 1;
    let mut first = vec![(NONE, NONE); classes];
    for (u, &cell) in units.first.iter().enumerate() {
        let r = uf.find(u as u32) as usize;
        first[r] = first[r].min(cell);
    }
    let mut note = |k: u32, cell: (u32, u32)| {
        if let Some(f) = first.get_mut(k as usize) {
            *f = (*f).min(cell);
        }
    };
    let islands = &layer.islands;
    let mut fi = 0;
    for s in 0..spec.sector_count() as u32 {
        let id = islands.sector_island[s as usize];
        if in_n[s as usize] {
            continue;
        }
        let (x0, y0, w, _) = spec.sector_rect(s);
        let cell = |c: usize| (y0 + c as u32 / w, x0 + c as u32 % w);
        if id != MIXED {
            let k = match split.get(&s) {
                Some(e) => split_class(e, 0, id),
                None => class_of(id),
            };
            note(k, (y0, x0));
            continue;
        }
        while fi < islands.fields.len() && islands.fields[fi].0 < s {
            fi += 1;
        }
        let Some((_, field)) = islands.fields.get(fi).filter(|f| f.0 == s) else {
            continue;
        };
        if let Some(e) = split.get(&s) {
            for (c, &id) in field.iter().enumerate() {
                note(split_class(e, c, id), cell(c));
            }
        } else {
            // Only the first cell of a run of one id can be that id's first cell here.
            let mut prev = 0;
            for (c, &id) in field.iter().enumerate() {
                if id != prev {
                    prev = id;
                    note(class_of(id), cell(c));
                }
            }
        }
    }
    let mut order: Vec<u32> = (0..classes as u32)
        .filter(|&k| first[k as usize].0 != NONE)
        .collect();
    order.sort_unstable_by_key(|&k| first[k as usize]);
    let mut new_id = vec![0_u32; classes];
    for (i, &k) in order.iter().enumerate() {
        new_id[k as usize] = i as u32 + 1;
    }
    let id_of_class = |k: u32| if k == NONE { 0 } else { new_id[k as usize] };
    let new_of_old: Vec<u32> = class_of_old.iter().map(|&k| id_of_class(k)).collect();
    let renumber = |id: u32| new_of_old.get(id as usize).copied().unwrap_or(0);

    // Rewrite the ids outside the near sectors, then inside them.
    let islands = &mut layer.islands;
    let mut fi = 0;
    for s in 0..spec.sector_count() as u32 {
        let id = islands.sector_island[s as usize];
        if in_n[s as usize] {
            continue;
        }
        let e = split.get(&s);
        if id != MIXED {
            islands.sector_island[s as usize] = match e {
                Some(e) => id_of_class(split_class(e, 0, id)),
                None => renumber(id),
            };
            continue;
        }
        while fi < islands.fields.len() && islands.fields[fi].0 < s {
            fi += 1;
        }
        if let Some((_, field)) = islands.fields.get_mut(fi).filter(|f| f.0 == s) {
            match e {
                Some(e) => {
                    for (c, id) in field.iter_mut().enumerate() {
                        *id = id_of_class(split_class(e, c, *id));
                    }
                }
                None => {
                    for id in field.iter_mut() {
                        *id = renumber(*id);
                    }
                }
            }
        }
    }
    islands.count = order.len() as u32;
    let mut in_split = vec![false; if split.is_empty() { 0 } else { in_n.len() }];
    for &s in split.keys() {
        in_split[s as usize] = true;
    }
    for n in &mut layer.nodes {
        if !in_n[n.sector as usize] {
            n.island = if in_split.get(n.sector as usize) == Some(&true) {
                NONE
            } else {
                renumber(n.island)
            };
        }
    }
    let unit_id: Vec<u32> = (0..unit_count).map(|u| id_of_class(uf.find(u))).collect();
    write_near_ids(layer, units, &unit_id);
    let islands = &layer.islands;
    for n in &mut layer.nodes {
        if n.island == NONE {
            n.island = islands.island_at(n.center.0, n.center.1);
        }
    }
}

/// Rewrites the near sectors' island ids (`unit_id` per unit) and their nodes' ids.
fn write_near_ids(layer: &mut NavLayer, units: &Units<'_>, unit_id: &[u32]) {
    let n_list = units.n_list;
    let islands = &mut layer.islands;
    let mut near_fields: Vec<(u32, Box<[u32]>)> = Vec::new();
    for (idx, &s) in n_list.iter().enumerate() {
        let ids: Box<[u32]> = units.labels[idx]
            .iter()
            .map(|&l| {
                if l == 0 {
                    0
                } else {
                    unit_id[(units.base[idx] + l - 1) as usize]
                }
            })
            .collect();
        let first = ids.first().copied().unwrap_or(0);
        if ids.iter().all(|&id| id == first) {
            islands.sector_island[s as usize] = first;
        } else {
            islands.sector_island[s as usize] = MIXED;
            near_fields.push((s, ids));
        }
    }
    // One splice over the near sectors' span of the (sector-sorted) field list.
    let (Some(&amin), Some(&amax)) = (n_list.first(), n_list.last()) else {
        return;
    };
    let lo = islands.fields.partition_point(|(s, _)| *s < amin);
    let hi = islands.fields.partition_point(|(s, _)| *s <= amax);
    let mut span: Vec<(u32, Box<[u32]>)> = Vec::with_capacity(hi - lo + near_fields.len());
    let mut near = near_fields.into_iter().peekable();
    for (s, field) in islands.fields.drain(lo..hi) {
        while let Some(f) = near.next_if(|f| f.0 < s) {
            span.push(f);
        }
        if n_list.binary_search(&s).is_err() {
            span.push((s, field));
        }
    }
    span.extend(near);
    islands.fields.splice(lo..lo, span);

    for &s in n_list {
        for &m in layer.graph.nodes_of_sector(s) {
            let n = &mut layer.nodes[m as usize];
            n.island = units
                .at(n.center.0, n.center.1)
                .map_or(0, |u| unit_id[u as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, splice_with};

    /// `splice_with` equals `Vec::splice` followed by the adjustment at each element's new
    /// position, for shrinking, growing and same-size splices over tails of several chunks.
    #[test]
    fn splice_with_equals_vec_splice() {
        let mut seed = 7_u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n.max(1)
        };
        for case in 0..200 {
            let len = [0, 5, CHUNK - 1, CHUNK, 3 * CHUNK + 17][case % 5] + next(40);
            let a = next(len + 1);
            let b = a + next(len - a + 1);
            let new: Vec<u32> = (0..[0, 1, b - a, b - a + 3, 2 * CHUNK][next(5)])
                .map(|i| 1_000_000 + i as u32)
                .collect();
            let v: Vec<u32> = (0..len as u32).collect();
            let mut want = v.clone();
            want.splice(a..b, new.iter().copied());
            for (p, x) in want.iter_mut().enumerate().skip(a + new.len()) {
                *x = x.wrapping_mul(3) ^ p as u32;
            }
            let mut got = v;
            splice_with(&mut got, a..b, &new, |pos, chunk| {
                for (i, x) in chunk.iter_mut().enumerate() {
                    *x = x.wrapping_mul(3) ^ (pos + i) as u32;
                }
            });
            assert_eq!(
                got,
                want,
                "case {case}: len {len}, {a}..{b}, {} new",
                new.len()
            );
        }
    }
}
