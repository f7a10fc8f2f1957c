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
///
/// The table is held in `f32` where that is exact, and in `u32` otherwise: the target's
/// baseline vector unit has minimum and sum in `f32` lanes but no unsigned minimum in
/// `u32` lanes, which it makes of five instructions.
pub(super) fn cell_edges(
    hierarchy: &Hierarchy,
    below: Csr<'_>,
    member: &[bool],
    cell: (u32, u32),
) -> Option<CellEdges> {
    cell_edges_in::<f32>(hierarchy, below, member, cell)
        .or_else(|| cell_edges_in::<u32>(hierarchy, below, member, cell))
}

/// [`cell_edges`] with the table in `T`; `None` also where `T` cannot hold it exactly.
fn cell_edges_in<T: Cost>(
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
    if members.len() + others.len() > MAX_NODES {
        return None;
    }
    let cell = Cell {
        below,
        lo,
        hi,
        members: &members,
        others: &others,
    };
    let cost = cell.costs::<T>()?;
    Some(cell.edges(hierarchy, &cost))
}

/// One cell's nodes: its members, then its other nodes with an edge inside it.
struct Cell<'a> {
    below: Csr<'a>,
    lo: u32,
    hi: u32,
    members: &'a [u32],
    others: &'a [u32],
}

impl Cell<'_> {
    /// The cell's table (`n × n`, members first), the other nodes eliminated and the
    /// members' block complete; `None` where `T` cannot hold it exactly.
    fn costs<T: Cost>(&self) -> Option<Vec<T>> {
        let (lo, hi) = (self.lo, self.hi);
        let m = self.members.len();
        let n = m + self.others.len();
        let mut local = vec![u32::MAX; (hi - lo) as usize];
        for (i, &b) in self.members.iter().chain(self.others).enumerate() {
            local[(b - lo) as usize] = i as u32;
        }
        let mut cost = vec![T::FAR; n * n];
        for (i, &b) in self.members.iter().chain(self.others).enumerate() {
            cost[i * n + i] = T::ZERO;
            for &(t, w) in self.below.of(b) {
                if t < lo || t >= hi {
                    continue;
                }
                let j = local[(t - lo) as usize] as usize;
                let c = &mut cost[i * n + j];
                *c = c.least(T::from_weight(w)?);
            }
        }
        // Eliminate the other nodes, last first: the ways through node `k` become edges
        // between the nodes left (rows and columns below `k`).
        // A node's row is sparse until the elimination fills it in: then only its finite
        // entries are relaxed (skipping `FAR` changes nothing, as `ik + FAR` saturates to it).
        let mut through = vec![T::FAR; n];
        let mut finite: Vec<u32> = Vec::with_capacity(n);
        for k in (m..n).rev() {
            through[..k].copy_from_slice(&cost[k * n..k * n + k]);
            finite.clear();
            finite.extend((0..k as u32).filter(|&j| through[j as usize] != T::FAR));
            let sparse = finite.len() * 4 < k;
            for i in 0..k {
                let ik = cost[i * n + k];
                if ik == T::FAR {
                    continue;
                }
                let row = &mut cost[i * n..i * n + k];
                if sparse {
                    for &j in &finite {
                        let j = j as usize;
                        row[j] = row[j].least(through[j].plus(ik));
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
                if ik == T::FAR || i == k {
                    continue;
                }
                relax_row(&mut cost[i * n..i * n + m], ik, &through[..m]);
            }
        }
        let exact = (0..m).all(|a| cost[a * n..a * n + m].iter().all(|c| c.is_exact()));
        exact.then_some(cost)
    }

    /// The members' edges from the cell's table: shortcuts to the other members, then
    /// each member's own edges out of the cell.
    fn edges<T: Cost>(&self, hierarchy: &Hierarchy, cost: &[T]) -> CellEdges {
        let m = self.members.len();
        let n = m + self.others.len();
        // A shortcut a → b whose cheapest ways can pass another member c at a positive
        // cost below its own is the sum of two cheaper ones, and is left out.
        let mut implied = vec![0u32; m];
        let mut out = Vec::with_capacity(m);
        for a in 0..m {
            let row = &cost[a * n..a * n + m];
            implied.fill(0);
            for c in 0..m {
                let ac = row[c];
                if c == a || ac == T::ZERO || ac == T::FAR {
                    continue;
                }
                let via = &cost[c * n..c * n + m];
                for ((flag, &ab), &cb) in implied.iter_mut().zip(row).zip(via) {
                    *flag |= u32::from(ac < ab) & u32::from(cb.plus(ac) == ab);
                }
            }
            let from = self.members[a];
            let mut list: Vec<(u32, u32)> = (0..m)
                .filter(|&b| b != a && row[b] != T::FAR && implied[b] == 0)
                .map(|b| (self.members[b], row[b].weight()))
                .collect();
            list.extend(super::edges_out_of(hierarchy, from, (self.lo, self.hi)));
            out.push((from, list));
        }
        out
    }
}

/// A cost in the cell's table: `u32` with [`FAR`] for none, or `f32` with infinity for
/// none, which holds every whole cost below 2²⁴ exactly and so sums and compares them as
/// `u32` does while they stay below it.
trait Cost: Copy + PartialEq + PartialOrd {
    /// No way.
    const FAR: Self;
    const ZERO: Self;
    /// `weight` as a cost, if it is held exactly.
    fn from_weight(weight: u32) -> Option<Self>;
    /// Back to a weight (not [`Self::FAR`]).
    fn weight(self) -> u32;
    /// The sum, saturating at [`Self::FAR`] (`other` is not [`Self::FAR`]).
    fn plus(self, other: Self) -> Self;
    /// The less of the two, in one lane operation.
    fn least(self, other: Self) -> Self;
    /// Whether this cost in the members' block is the one `u32` gives (see
    /// [`Cell::costs`]).
    fn is_exact(self) -> bool;
}

impl Cost for u32 {
    const FAR: Self = FAR;
    const ZERO: Self = 0;
    fn from_weight(weight: u32) -> Option<Self> {
        Some(weight)
    }
    fn weight(self) -> u32 {
        self
    }
    /// `self.min(FAR - other) + other` is the saturating sum in plain lane operations.
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self.min(FAR - other) + other
    }
    #[inline(always)]
    fn least(self, other: Self) -> Self {
        self.min(other)
    }
    fn is_exact(self) -> bool {
        true
    }
}

/// Whole costs from 2²⁴ on are not all held by an `f32`.
const F32_EXACT: u32 = 1 << 24;

impl Cost for f32 {
    const FAR: Self = f32::INFINITY;
    const ZERO: Self = 0.0;
    fn from_weight(weight: u32) -> Option<Self> {
        (weight < F32_EXACT).then_some(weight as f32)
    }
    fn weight(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self + other
    }
    #[inline(always)]
    fn least(self, other: Self) -> Self {
        if other < self { other } else { self }
    }
    /// A sum or minimum whose exact value is below 2²⁴ comes out exact, and one whose
    /// exact value is not comes out at 2²⁴ or more (rounding keeps order), since costs
    /// are never negative: so a members' block below 2²⁴ throughout is exact, and a cost
    /// at 2²⁴ or more sends the cell to `u32`.
    fn is_exact(self) -> bool {
        self == f32::INFINITY || self < F32_EXACT as f32
    }
}

/// `row[j] = min(row[j], ik + through[j])` (saturating at [`Cost::FAR`]), over whole rows
/// so the compiler vectorises it (`ik` is not [`Cost::FAR`]).
fn relax_row<T: Cost>(row: &mut [T], ik: T, through: &[T]) {
    for (x, &y) in row.iter_mut().zip(through) {
        *x = x.least(y.plus(ik));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Level, Levels, members_and_cells};
    use super::*;
    use crate::landmarks::tests::random_layer_sized;
    use crate::search_graph::SearchGraph;

    /// Every cell of every level: the dense table gives the edges a Dijkstra per member
    /// gives, shortcuts left out by the same rule, and the same in `u32` as in `f32`.
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
                    let in_u32 = cell_edges_in::<u32>(&hierarchy, below, &member, (lo, hi));
                    assert_eq!(dense, in_u32, "level {} cell {lo}..{hi} in u32", j + 1);
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

    /// `f32` takes a weight or a cost only below 2²⁴, where it holds every whole number;
    /// a sum that rounds is at 2²⁴ or more and sends the cell to `u32`.
    #[test]
    fn f32_costs_are_exact_or_refused() {
        assert_eq!(
            <f32 as Cost>::from_weight(F32_EXACT - 1),
            Some(16_777_215.0)
        );
        assert_eq!(<f32 as Cost>::from_weight(F32_EXACT), None);
        let sum = 16_777_215.0f32.plus(2.0);
        assert!(sum >= F32_EXACT as f32 && !sum.is_exact());
        assert!(f32::INFINITY.is_exact());
        assert_eq!(<f32 as Cost>::FAR.plus(3.0), f32::INFINITY);
    }
}
