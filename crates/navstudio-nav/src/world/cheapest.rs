//! The cheapest string through a trace's cells on a cost field: a trace pulled greedily (to
//! the furthest cell in sight no dearer than the trace) keeps the trace's detours where a
//! straight segment costs as much as them, and on slopes a segment that cuts through
//! slightly dearer cells is often the cheaper way. This picks, among the strings whose
//! points are cells of the trace (each segment in plain sight and at most [`WINDOW`] cells
//! of the trace long), the one of least price, by dynamic programming over the trace.

use crate::grid::WALL;
use crate::taut::centre;

/// How many trace cells back a segment may reach.
const WINDOW: usize = 64;

/// The price of the segment between the centres of `a` and `b`: the length inside each cell
/// times its cost, as the taut string and the reference price it (a mean of the cells'
/// costs would count a cell the segment clips as fully as one it runs through, and let a
/// pull cut dear corners). `uniform` when every cell it runs through costs what `a` does.
pub(super) fn segment_price(
    cost: &crate::CostField,
    a: (u32, u32),
    b: (u32, u32),
    uniform: bool,
) -> f32 {
    let start = f32::from(cost.get(a.0, a.1));
    if uniform {
        let (dx, dy) = (
            f64::from(a.0) - f64::from(b.0),
            f64::from(a.1) - f64::from(b.1),
        );
        return (dx * dx + dy * dy).sqrt() as f32 * start;
    }
    let spec = cost.spec;
    let cost_of = |x: i64, y: i64| spec.contains(x, y).then(|| cost.get(x as u32, y as u32));
    crate::taut::price(centre(a), centre(b), &cost_of, &|_, _| false).unwrap_or(f64::INFINITY)
        as f32
}

/// Indices into `cells` (first and last included) of the cheapest string through them: each
/// segment between two kept cells is in plain sight over non-wall cells `open` accepts
/// (through a cell corner both side cells, see [`crate::integrate::segment_clear`]) and priced by the
/// length inside each cell times its cost ([`segment_price`]). Consecutive cells are always
/// joined (they are neighbours on the trace).
pub(super) fn cheapest_string(
    cost: &crate::CostField,
    cells: &[(u32, u32)],
    open: impl Fn(u32, u32) -> bool,
) -> Vec<usize> {
    let n = cells.len();
    if n < 3 {
        return (0..n).collect();
    }
    let spec = cost.spec;
    let cheapest = cells
        .iter()
        .map(|&(x, y)| cost.get(x, y))
        .min()
        .map_or(1.0, f32::from);
    let mut best = vec![f32::INFINITY; n];
    let mut back = vec![0_usize; n];
    best[0] = 0.0;
    for j in 1..n {
        best[j] = best[j - 1] + segment_price(cost, cells[j - 1], cells[j], false);
        back[j] = j - 1;
        for i in (j.saturating_sub(WINDOW)..j - 1).rev() {
            let (a, b) = (cells[i], cells[j]);
            let (dx, dy) = (
                f32::from(a.0.abs_diff(b.0) as u16),
                f32::from(a.1.abs_diff(b.1) as u16),
            );
            // No segment costs less than its length times the trace's cheapest cell. Ties go
            // to the segment from further back (fewer points; the loop runs backward).
            let tie = best[j] * (1.0 + 1e-6);
            if best[i] + (dx * dx + dy * dy).sqrt() * cheapest > tie {
                continue;
            }
            let start = cost.get(a.0, a.1);
            let (mut lo, mut hi) = (start, start);
            let at = |c: (u32, u32)| (i64::from(c.0), i64::from(c.1));
            let clear = crate::integrate::segment_clear(at(a), at(b), |x, y, side| {
                spec.contains(x, y) && {
                    let c = cost.get(x as u32, y as u32);
                    if !side {
                        (lo, hi) = (lo.min(c), hi.max(c));
                    }
                    c != WALL && open(x as u32, y as u32)
                }
            });
            if !clear {
                continue;
            }
            let total = best[i] + segment_price(cost, a, b, lo == hi);
            if total <= tie {
                best[j] = total;
                back[j] = i;
            }
        }
    }
    let mut kept = vec![n - 1];
    let mut j = n - 1;
    while j > 0 {
        j = back[j];
        kept.push(j);
    }
    kept.reverse();
    kept
}

/// The cells of the cheapest way from `source` to `goal` through the cells `open` accepts,
/// or `None` when there is none: fast marching from `goal` over those cells (the
/// Eikonal distance, the same integrator as the tiles), then steepest descent from
/// `source`, each step to the neighbour (a diagonal one only past two open side cells) the
/// distance falls to most steeply per unit length.
///
/// The flow a trace follows leads through each sector to the nearest cell of its exit window
/// whatever lies beyond, so on slopes it climbs where the next sector makes the way dear,
/// and a string through its own cells cannot leave it. One integration over the sectors the
/// trace crosses sees the whole way at once.
pub(super) fn corridor_descent(
    cost: &crate::CostField,
    source: (u32, u32),
    goal: (u32, u32),
    open: impl Fn(u32, u32) -> bool,
) -> Option<Vec<(u32, u32)>> {
    use crate::integrate::{IntegrationField, IntegratorScratch, integrate_costs};
    let spec = cost.spec;
    // The window: the box of the open sectors round source and goal.
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for s in 0..spec.sector_count() as u32 {
        let (sx, sy, w, h) = spec.sector_rect(s);
        if open(sx, sy) {
            (x0, y0) = (x0.min(sx), y0.min(sy));
            (x1, y1) = (x1.max(sx + w), y1.max(sy + h));
        }
    }
    let inside = |c: (u32, u32)| c.0 >= x0 && c.1 >= y0 && c.0 < x1 && c.1 < y1;
    if x0 >= x1 || !inside(source) || !inside(goal) {
        return None;
    }
    let (w, h) = (x1 - x0, y1 - y0);
    let mut costs = vec![WALL; (w * h) as usize];
    for y in y0..y1 {
        for x in x0..x1 {
            if open(x, y) {
                costs[((y - y0) * w + (x - x0)) as usize] = cost.get(x, y);
            }
        }
    }
    let local = |c: (u32, u32)| ((c.1 - y0) * w + (c.0 - x0)) as usize;
    let mut field = IntegrationField::new();
    integrate_costs(
        &costs,
        w,
        h,
        &[(local(goal), 0)],
        &mut field,
        &mut IntegratorScratch::new(),
    );
    let dist = |x: i64, y: i64| {
        if x < i64::from(x0) || y < i64::from(y0) || x >= i64::from(x1) || y >= i64::from(y1) {
            f32::INFINITY
        } else {
            field.dist[local((x as u32, y as u32))]
        }
    };
    let mut cells = vec![source];
    let mut at = source;
    if !dist(i64::from(at.0), i64::from(at.1)).is_finite() {
        return None;
    }
    while at != goal {
        let (x, y) = (i64::from(at.0), i64::from(at.1));
        let own = dist(x, y);
        let mut best = (0.0_f32, at);
        for (dx, dy) in crate::grid::DIRECTIONS {
            let (dx, dy) = (i64::from(dx), i64::from(dy));
            let d = dist(x + dx, y + dy);
            let diagonal = dx != 0 && dy != 0;
            if !d.is_finite()
                || (diagonal && !(dist(x + dx, y).is_finite() && dist(x, y + dy).is_finite()))
            {
                continue;
            }
            let len = if diagonal {
                std::f32::consts::SQRT_2
            } else {
                1.0
            };
            let slope = (own - d) / len;
            if slope > best.0 {
                best = (slope, ((x + dx) as u32, (y + dy) as u32));
            }
        }
        // Every step falls strictly, so the walk ends; a flat spot (none falls) is no way.
        if best.1 == at {
            return None;
        }
        at = best.1;
        cells.push(at);
    }
    Some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridSpec;

    fn field(rows: &[&str]) -> crate::CostField {
        let spec = GridSpec {
            width: rows[0].len() as u32,
            height: rows.len() as u32,
            sector_size: 10,
        };
        let cells: Vec<u8> = rows
            .iter()
            .flat_map(|r| r.bytes())
            .map(|b| if b == b'#' { WALL } else { b - b'0' })
            .collect();
        crate::CostField::from_cells(spec, &cells)
    }

    /// An L-shaped trace: `right` cells along row 0, then down column `right`.
    fn l_trace(right: u32, down: u32) -> Vec<(u32, u32)> {
        (0..=right)
            .map(|x| (x, 0))
            .chain((1..=down).map(|y| (right, y)))
            .collect()
    }

    #[test]
    fn an_open_corner_is_cut_by_one_segment() {
        let f = field(&["111111"; 6]);
        let cells = l_trace(5, 5);
        assert_eq!(
            cheapest_string(&f, &cells, |_, _| true),
            vec![0, cells.len() - 1]
        );
    }

    #[test]
    fn a_wall_keeps_the_turn_and_a_dear_patch_is_cut_only_when_cheaper() {
        // A wall below the corner's diagonal: the string must turn near the corner.
        let f = field(&["111111", "111111", "1#1111", "111111", "111111", "111111"]);
        let cells = l_trace(5, 5);
        let kept = cheapest_string(&f, &cells, |_, _| true);
        assert!(kept.len() > 2, "{kept:?}");
        let price = |f: &crate::CostField, k: &[usize]| -> f32 {
            k.windows(2)
                .map(|w| segment_price(f, cells[w[0]], cells[w[1]], false))
                .sum()
        };
        let every: Vec<usize> = (0..cells.len()).collect();
        assert!(price(&f, &kept) <= price(&f, &every));
        // Round a patch of cost 9 (cells 1..5 × 1..5) the string keeps to cells of cost 1:
        // along row 0 to (4, 0), past the patch's corner to (5, 1), down column 5 (9.41 in
        // all), never into the patch (the straight segment would cost 52).
        let f = field(&["111111", "199991", "199991", "199991", "199991", "111111"]);
        let kept = cheapest_string(&f, &cells, |_, _| true);
        assert_eq!(kept, vec![0, 4, 6, cells.len() - 1]);
        let total = price(&f, &kept);
        assert!(
            (total - (8.0 + std::f32::consts::SQRT_2)).abs() < 1e-4,
            "{total}"
        );
    }

    #[test]
    fn segments_keep_to_the_cells_open_accepts() {
        let f = field(&["111111"; 6]);
        let cells = l_trace(5, 5);
        // Only row 0 and column 5 are open: the L is the only string.
        let kept = cheapest_string(&f, &cells, |x, y| y == 0 || x == 5);
        assert_eq!(kept, vec![0, 5, cells.len() - 1]);
    }

    #[test]
    fn the_corridor_descent_takes_the_gap_in_a_dear_band() {
        // Column 3 costs 9 except a gap at its foot: from (0, 0) to (6, 0) the straight row
        // costs 14 (9 for the band); down through the gap and up again about 2 × 5 = 10.
        let f = field(&["1119111", "1119111", "1119111", "1119111", "1111111"]);
        let cells = corridor_descent(&f, (0, 0), (6, 0), |_, _| true).expect("a way");
        assert_eq!(
            (cells.first(), cells.last()),
            (Some(&(0, 0)), Some(&(6, 0)))
        );
        assert!(cells.contains(&(3, 4)), "{cells:?}");
        assert!(
            cells
                .windows(2)
                .all(|w| w[0].0.abs_diff(w[1].0) <= 1 && w[0].1.abs_diff(w[1].1) <= 1),
            "{cells:?}"
        );
        // With the foot row shut (`open` refuses it), the band must be crossed.
        let cells = corridor_descent(&f, (0, 0), (6, 0), |_, y| y < 4).expect("a way");
        assert!(cells.iter().all(|&(_, y)| y < 4), "{cells:?}");
        // No way at all: `None`.
        assert_eq!(corridor_descent(&f, (0, 0), (6, 0), |x, _| x != 3), None);
    }
}
