//! A cell's shortcuts from a dense table of its costs: the cell's nodes that are not
//! members of the level are eliminated one by one (each replaced by the ways through it,
//! the min-plus form of Gaussian elimination), then a Floyd–Warshall pass over the members
//! completes their costs. The cells of the upper levels hold a few hundred nodes joined
//! by a hundred edges each, where one Dijkstra per member spends its time in the heap;
//! these loops run over whole rows instead.

use super::{CellEdges, Csr, FAR, Hierarchy};

/// Cells with more nodes than this take a Dijkstra per member instead: the table grows
/// with the square of the node count (16 MiB here).
const MAX_NODES: usize = 2048;

/// The edges of the members of the cell spanning border indices `lo..hi`, as
/// [`super::cell_edges`] gives them; `None` for a cell of more than [`MAX_NODES`] nodes.
pub(super) fn cell_edges(
    hierarchy: &Hierarchy,
    below: Csr<'_>,
    member: &[bool],
    (lo, hi): (u32, u32),
) -> Option<CellEdges> {
    // The cell's nodes with an edge inside it at the level below (the others lie on no
    // way), members first so the members' block of the table is its top-left corner.
    let inside = |b: u32| below.of(b).iter().any(|&(t, _)| t >= lo && t < hi);
    let members: Vec<u32> = (lo..hi).filter(|&b| member[b as usize]).collect();
    let others: Vec<u32> = (lo..hi)
        .filter(|&b| !member[b as usize] && inside(b))
        .collect();
    let m = members.len();
    let n = m + others.len();
    if n > MAX_NODES {
        return None;
    }
    let mut local = vec![u32::MAX; (hi - lo) as usize];
    for (i, &b) in members.iter().chain(&others).enumerate() {
        local[(b - lo) as usize] = i as u32;
    }
    let mut cost = vec![FAR; n * n];
    for (i, &b) in members.iter().chain(&others).enumerate() {
        cost[i * n + i] = 0;
        for &(t, w) in below.of(b) {
            if t < lo || t >= hi {
                continue;
            }
            let j = local[(t - lo) as usize] as usize;
            let c = &mut cost[i * n + j];
            *c = (*c).min(w);
        }
    }
    // Eliminate the other nodes, last first: the ways through node `k` become edges
    // between the nodes left (rows and columns below `k`).
    // A node's row is sparse until the elimination fills it in: then only its finite
    // entries are relaxed (skipping `FAR` changes nothing, as `ik + FAR` saturates to it).
    let mut through = vec![FAR; n];
    let mut finite: Vec<u32> = Vec::with_capacity(n);
    for k in (m..n).rev() {
        through[..k].copy_from_slice(&cost[k * n..k * n + k]);
        finite.clear();
        finite.extend((0..k as u32).filter(|&j| through[j as usize] != FAR));
        let sparse = finite.len() * 4 < k;
        for i in 0..k {
            let ik = cost[i * n + k];
            if ik == FAR {
                continue;
            }
            let row = &mut cost[i * n..i * n + k];
            if sparse {
                let cap = FAR - ik;
                for &j in &finite {
                    let j = j as usize;
                    row[j] = row[j].min(through[j].min(cap) + ik);
                }
            } else {
                relax_row(row, ik, &through[..k]);
            }
        }
    }
    // Floyd–Warshall over the members.
    for k in 0..m {
        through[..m].copy_from_slice(&cost[k * n..k * n + m]);
        for i in 0..m {
            let ik = cost[i * n + k];
            if ik == FAR || i == k {
                continue;
            }
            relax_row(&mut cost[i * n..i * n + m], ik, &through[..m]);
        }
    }
    // A shortcut a → b whose cheapest ways can pass another member c at a positive cost
    // below its own is the sum of two cheaper ones, and is left out.
    let mut implied = vec![0u32; m];
    let mut out = Vec::with_capacity(m);
    for a in 0..m {
        let row = &cost[a * n..a * n + m];
        implied.fill(0);
        for c in 0..m {
            let ac = row[c];
            if c == a || ac == 0 || ac == FAR {
                continue;
            }
            let via = &cost[c * n..c * n + m];
            // `cb.min(FAR - ac) + ac` is `ac.saturating_add(cb)` in lanes a vector unit has.
            for ((flag, &ab), &cb) in implied.iter_mut().zip(row).zip(via) {
                *flag |= u32::from(ac < ab) & u32::from(cb.min(FAR - ac) + ac == ab);
            }
        }
        let from = members[a];
        let mut list: Vec<(u32, u32)> = (0..m)
            .filter(|&b| b != a && row[b] != FAR && implied[b] == 0)
            .map(|b| (members[b], row[b]))
            .collect();
        list.extend(super::edges_out_of(hierarchy, from, (lo, hi)));
        out.push((from, list));
    }
    Some(out)
}

/// `row[j] = min(row[j], ik + through[j])` (saturating at [`FAR`]), over whole rows so the
/// compiler vectorises it: `y.min(FAR - ik) + ik` is the saturating sum in plain lane
/// operations (`ik` is below `FAR`).
fn relax_row(row: &mut [u32], ik: u32, through: &[u32]) {
    let cap = FAR - ik;
    for (x, &y) in row.iter_mut().zip(through) {
        *x = (*x).min(y.min(cap) + ik);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Level, Levels, members_and_cells};
    use super::*;
    use crate::landmarks::tests::random_layer_sized;
    use crate::search_graph::SearchGraph;

    /// Every cell of every level: the dense table gives the edges a Dijkstra per member
    /// gives, shortcuts left out by the same rule.
    #[test]
    fn dense_cells_equal_a_dijkstra_per_member() {
        for seed in [3, 8] {
            println!("seed {seed}");
            // 107 × 107 sectors: 14 × 14 clusters, two levels.
            let layer = random_layer_sized(seed, 320, 3);
            let hierarchy = Hierarchy::build(&SearchGraph::new(&layer));
            let levels = Levels::build(&hierarchy);
            assert_eq!(levels.count(), 2);
            let mut cells_checked = 0;
            let whole = levels.whole(&hierarchy);
            let wide: Vec<_> = whole.iter().map(Level::wide).collect();
            let own = hierarchy.border_lists();
            for (j, level) in whole.iter().enumerate() {
                let below = match j {
                    0 => Csr {
                        first: &own.0,
                        edges: &own.1,
                    },
                    _ => Csr {
                        first: &wide[j - 1].0,
                        edges: &wide[j - 1].1,
                    },
                };
                let (member, cells) = members_and_cells(&hierarchy, level.shift);
                for &(_, lo, hi) in &cells {
                    let by_dijkstra =
                        super::super::cell_edges(&hierarchy, below, &member, (lo, hi));
                    let dense = cell_edges(&hierarchy, below, &member, (lo, hi));
                    assert_eq!(
                        dense.as_ref(),
                        Some(&by_dijkstra),
                        "level {} cell {lo}..{hi}",
                        j + 1
                    );
                    cells_checked += usize::from(!by_dijkstra.is_empty());
                }
            }
            assert!(
                cells_checked > 40,
                "only {cells_checked} cells with members"
            );
        }
    }
}
