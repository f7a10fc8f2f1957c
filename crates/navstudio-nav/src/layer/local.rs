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
//! The island ids follow in [`super::local_islands`].

use super::NavLayer;
pub use super::local_islands::IslandUpdate;
use super::local_islands::update_islands;
use crate::integrate::UNREACHED;
use crate::permutations::{canonical_flows, sector_tiles};
use crate::portals::{PortalWindow, nodes_from_windows, scan_border};
use std::sync::Arc;

const NONE: u32 = u32::MAX;

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
            u32::from(layer.cost.get(twin.center().0, twin.center().1)),
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
        for t in &mut Arc::make_mut(&mut g.targets)[r] {
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
        for t in &mut Arc::make_mut(&mut g.sector_nodes)[r] {
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
        Arc::make_mut(&mut g.targets),
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
        Arc::make_mut(&mut g.offsets),
        2 * w_lo + 1..2 * w_hi + 1,
        &mid_offsets,
        |_, c| {
            add_all(c, edge_shift);
        },
    );
    splice_with(
        Arc::make_mut(&mut g.sector_nodes),
        so_lo..so_hi,
        &span_nodes,
        renumber(far_node),
    );
    splice_with(
        Arc::make_mut(&mut g.sector_offsets),
        amin as usize + 1..amax as usize + 2,
        &span_offsets,
        |_, c| add_all(c, node_shift),
    );
    let region_len = region_nodes.len();
    splice_with(
        Arc::make_mut(&mut layer.windows),
        w_lo..w_hi,
        &new_win,
        |_, _| {},
    );
    splice_with(
        Arc::make_mut(&mut layer.nodes),
        2 * w_lo..2 * w_hi,
        &region_nodes,
        |_, _| {},
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
