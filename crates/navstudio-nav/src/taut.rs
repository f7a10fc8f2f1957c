//! Pulling a string taut round wall corners: the last step of
//! [`crate::world::NavWorld::trace_path`]. A string pulled through cell centres can only
//! turn at the cells its trace visits, half a cell or more off the wall corners a person
//! would draw the line round; here each turn moves to the corners it wraps, so the string
//! becomes the shortest line of its kind (the same side of every wall) through free space.
//!
//! Points are in half-cell units, exact in integers: cell `(x, y)`'s centre is
//! `(2x + 1, 2y + 1)` and its corner nearest the origin `(2x, 2y)`. The geometry is the
//! any-angle oracle's: a segment may run along a wall and touch its corner, but not pass
//! through a wall, along an edge between two walls, or between two walls that meet only at a
//! corner.

/// A point in half-cell units (see the module's documentation).
pub type Half = (i64, i64);

/// The centre of cell `c` in half-cell units.
#[must_use]
pub fn centre(c: (u32, u32)) -> Half {
    (2 * i64::from(c.0) + 1, 2 * i64::from(c.1) + 1)
}

/// Twice the signed area of triangle `o`, `a`, `b` (positive when `b` is left of `o`→`a` in
/// a y-up frame).
fn cross(o: Half, a: Half, b: Half) -> i64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// Euclidean length of `a`–`b` in cells.
#[must_use]
pub fn length(a: Half, b: Half) -> f64 {
    let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
    0.5 * (dx * dx + dy * dy).sqrt()
}

/// Walks the segment `a`–`b` through the cells it runs through for a positive length, in
/// order, calling `visit` on each with the share of the segment inside it. `false` (and the walk stops) when one is `blocked`, when
/// the segment runs along a grid line with both cells beside it blocked, or when it passes
/// through a grid corner between two blocked cells that meet there diagonally. Exact: the
/// crossings are ordered by their parameters, which are rationals of small integers.
pub fn walk(
    a: Half,
    b: Half,
    blocked: &impl Fn(i64, i64) -> bool,
    mut visit: impl FnMut((i64, i64), f64),
) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    if (dx, dy) == (0, 0) {
        return true;
    }
    // Parameters in (0, 1) where the segment crosses a grid line (even coordinates).
    let crossings = |p: i64, d: i64, out: &mut Vec<f64>| {
        if d == 0 {
            return;
        }
        let (lo, hi) = (p.min(p + d), p.max(p + d));
        let mut k = lo.div_euclid(2) * 2;
        if k <= lo {
            k += 2;
        }
        while k < hi {
            out.push((k - p) as f64 / d as f64);
            k += 2;
        }
    };
    let (mut tx, mut ty) = (Vec::new(), Vec::new());
    crossings(a.0, dx, &mut tx);
    crossings(a.1, dy, &mut ty);
    if dx < 0 {
        tx.reverse();
    }
    if dy < 0 {
        ty.reverse();
    }
    let (mut i, mut j) = (0, 0);
    let mut t0 = 0.0_f64;
    let mut before: Option<(i64, i64)> = None;
    let along_x = dy == 0 && a.1.rem_euclid(2) == 0;
    let along_y = dx == 0 && a.0.rem_euclid(2) == 0;
    loop {
        let next_x = tx.get(i).copied().unwrap_or(1.0);
        let next_y = ty.get(j).copied().unwrap_or(1.0);
        let t1 = next_x.min(next_y);
        let m = 0.5 * (t0 + t1);
        let (mx, my) = (a.0 as f64 + m * dx as f64, a.1 as f64 + m * dy as f64);
        let cell = if along_x || along_y {
            // On a grid line: the open one of the two cells beside it.
            let (c0, c1) = if along_x {
                let (x, y) = ((mx / 2.0).floor() as i64, a.1 / 2);
                ((x, y - 1), (x, y))
            } else {
                let (x, y) = (a.0 / 2, (my / 2.0).floor() as i64);
                ((x - 1, y), (x, y))
            };
            if !blocked(c0.0, c0.1) {
                c0
            } else if !blocked(c1.0, c1.1) {
                c1
            } else {
                return false;
            }
        } else {
            let c = ((mx / 2.0).floor() as i64, (my / 2.0).floor() as i64);
            if blocked(c.0, c.1) {
                return false;
            }
            c
        };
        if let Some(p) = before
            && p.0 != cell.0
            && p.1 != cell.1
            && blocked(cell.0, p.1)
            && blocked(p.0, cell.1)
        {
            return false; // through a corner between two diagonal walls
        }
        visit(cell, t1 - t0);
        before = Some(cell);
        if t1 >= 1.0 {
            return true;
        }
        if next_x <= next_y {
            i += 1;
        }
        if next_y <= next_x {
            j += 1;
        }
        t0 = t1;
    }
}

/// The corners of cells `blocked` accepts that lie in the closed triangle `a`, `b`, `c` and
/// strictly on `b`'s side of `a`–`c`, reduced to the leftmost and rightmost on each grid
/// line (only those can be corners of their hull).
fn corners_in_triangle(
    a: Half,
    b: Half,
    c: Half,
    blocked: &impl Fn(i64, i64) -> bool,
) -> Vec<Half> {
    let turn = cross(a, b, c).signum();
    let side = cross(a, c, b).signum();
    let inside = |p: Half| {
        cross(a, b, p) * turn >= 0
            && cross(b, c, p) * turn >= 0
            && cross(c, a, p) * turn >= 0
            && cross(a, c, p) * side > 0
    };
    let (y_lo, y_hi) = (a.1.min(b.1).min(c.1), a.1.max(b.1).max(c.1));
    let mut out = Vec::new();
    // Corner rows (even half-unit y) in the triangle's span.
    let mut row = y_lo.div_euclid(2) * 2;
    if row < y_lo {
        row += 2;
    }
    let edges = [(a, b), (b, c), (c, a)];
    while row <= y_hi {
        // The triangle's x extent on this row, widened by a cell each side: the corners on
        // it belong to the cells of the rows above and below.
        let (mut x_lo, mut x_hi) = (i64::MAX, i64::MIN);
        for (p, q) in edges {
            if (p.1 - row) * (q.1 - row) > 0 {
                continue;
            }
            if p.1 == q.1 {
                x_lo = x_lo.min(p.0.min(q.0));
                x_hi = x_hi.max(p.0.max(q.0));
            } else {
                let x = p.0 as f64 + (row - p.1) as f64 * (q.0 - p.0) as f64 / (q.1 - p.1) as f64;
                x_lo = x_lo.min(x.floor() as i64);
                x_hi = x_hi.max(x.ceil() as i64);
            }
        }
        if x_lo <= x_hi {
            let (cx_lo, cx_hi) = (x_lo.div_euclid(2) - 1, x_hi.div_euclid(2) + 1);
            let cy = row / 2;
            let corner_of = |cx: i64| {
                let p = (2 * cx, row);
                (inside(p)
                    && (blocked(cx - 1, cy - 1)
                        || blocked(cx, cy - 1)
                        || blocked(cx - 1, cy)
                        || blocked(cx, cy)))
                .then_some(p)
            };
            let first = (cx_lo..=cx_hi).find_map(corner_of);
            if let Some(p) = first {
                out.push(p);
                if let Some(q) = (cx_lo..=cx_hi).rev().find_map(corner_of)
                    && q != p
                {
                    out.push(q);
                }
            }
        }
        row += 2;
    }
    out
}

/// The shortest way from `a` to `c` that keeps every point of `walls` on the side of it away
/// from `b` (all of them lie in the triangle, strictly on `b`'s side of `a`–`c`): the arc of
/// the hull of `walls`, `a` and `c` on `b`'s side, without `a` and `c`.
fn hull_chain(a: Half, c: Half, mut walls: Vec<Half>) -> Vec<Half> {
    if walls.is_empty() {
        return walls;
    }
    walls.push(a);
    walls.push(c);
    walls.sort_unstable();
    walls.dedup();
    // Andrew's monotone chain, collinear points dropped: one way round the hull.
    let mut hull: Vec<Half> = Vec::with_capacity(walls.len() + 1);
    for pass in [false, true] {
        let start = hull.len();
        let points: Box<dyn Iterator<Item = &Half>> = if pass {
            Box::new(walls.iter().rev())
        } else {
            Box::new(walls.iter())
        };
        for &p in points {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    let n = hull.len();
    let (Some(ia), Some(_)) = (
        hull.iter().position(|&p| p == a),
        hull.iter().position(|&p| p == c),
    ) else {
        return Vec::new(); // a or c inside the hull: cannot happen for a triangle's corners
    };
    // Every point but a and c is on b's side, so one arc from a to c is the edge a–c and
    // the other the chain wanted.
    let forward: Vec<Half> = (1..n)
        .map(|k| hull[(ia + k) % n])
        .take_while(|&p| p != c)
        .collect();
    let backward: Vec<Half> = (1..n)
        .map(|k| hull[(ia + n - k) % n])
        .take_while(|&p| p != c)
        .collect();
    if forward.is_empty() {
        backward
    } else {
        forward
    }
}

/// The price of the segment `a`–`b`: the length inside each cell times that cell's cost
/// (along a grid line, the cheaper open cell beside it); `None` when it is not free
/// ([`walk`]) of the cells `blocked` refuses.
pub(crate) fn price(
    a: Half,
    b: Half,
    cost: &impl Fn(i64, i64) -> Option<u8>,
    blocked: &impl Fn(i64, i64) -> bool,
) -> Option<f64> {
    let along_line =
        (a.0 == b.0 && a.0.rem_euclid(2) == 0) || (a.1 == b.1 && a.1.rem_euclid(2) == 0);
    let mut sum = 0.0;
    let len = length(a, b);
    let free = walk(a, b, blocked, |(x, y), share| {
        let mut c = cost(x, y).map_or(f64::INFINITY, f64::from);
        if along_line {
            // The other cell beside the line, if open and cheaper.
            let other = if a.0 == b.0 {
                (x + if x * 2 == a.0 { -1 } else { 1 }, y)
            } else {
                (x, y + if y * 2 == a.1 { -1 } else { 1 })
            };
            if !blocked(other.0, other.1)
                && let Some(k) = cost(other.0, other.1)
            {
                c = c.min(f64::from(k));
            }
        }
        sum += share * len * c;
    });
    free.then_some(sum)
}

/// Pulls a string taut: repeatedly, for each point `b` between its neighbours `a` and `c`,
/// replaces `b` by the hull of the corners of the cells dearer than some cost level in the
/// triangle `a`, `b`, `c` (walls always count): the shortest way from `a` to `c` on the
/// same side of them, over cells no dearer than that level. The levels tried are the costs
/// of the cells `a`–`b`–`c` crosses, and a replacement is taken only when its price (length
/// times cost, cell by cell) is below that of `a`–`b`–`c`, the cheapest one. On cells of one
/// cost that is the shortest way on the same side of every wall and dearer cell. `cost` is
/// `None` for a wall or off the map. Stops when a pass changes nothing (or after
/// `max_passes`). The string's ends stay.
pub fn tighten(points: &mut Vec<Half>, cost: &impl Fn(i64, i64) -> Option<u8>, max_passes: usize) {
    // Only a turn next to a point that moved can move in the next pass: the others were
    // asked the same question already.
    let mut dirty = vec![true; points.len()];
    for _ in 0..max_passes {
        let mut changed = false;
        let mut next_dirty = vec![false; points.len()];
        let mut i = 1;
        while i + 1 < points.len() {
            let (a, b, c) = (points[i - 1], points[i], points[i + 1]);
            if !(dirty[i - 1] || dirty[i] || dirty[i + 1]) {
                i += 1;
                continue;
            }
            let replacement = if a == b
                || cross(a, b, c) == 0 && (b.0 - a.0) * (c.0 - b.0) + (b.1 - a.1) * (c.1 - b.1) >= 0
            {
                Some(Vec::new())
            } else {
                taut_turn(a, b, c, cost)
            };
            let Some(replacement) = replacement else {
                i += 1;
                continue;
            };
            let n = replacement.len();
            points.splice(i..=i, replacement);
            // The new points and their neighbours are asked again, in this pass (the
            // neighbours ahead) and the next.
            dirty.splice(i..=i, std::iter::repeat_n(true, n));
            next_dirty.splice(i..=i, std::iter::repeat_n(true, n));
            next_dirty[i - 1] = true;
            if let Some(d) = next_dirty.get_mut(i + n) {
                *d = true;
            }
            dirty[i - 1] = true;
            if let Some(d) = dirty.get_mut(i + n) {
                *d = true;
            }
            changed = true;
            i += n;
        }
        if !changed {
            break;
        }
        dirty = next_dirty;
    }
}

/// The points to put in place of `b` (see [`tighten`]); `None` when `b` stays.
fn taut_turn(
    a: Half,
    b: Half,
    c: Half,
    cost: &impl Fn(i64, i64) -> Option<u8>,
) -> Option<Vec<Half>> {
    let wall = |x: i64, y: i64| cost(x, y).is_none();
    let mut levels: Vec<u8> = Vec::new();
    let mut note = |(x, y): (i64, i64), _| {
        if let Some(k) = cost(x, y)
            && !levels.contains(&k)
        {
            levels.push(k);
        }
    };
    if !walk(a, b, &wall, &mut note) || !walk(b, c, &wall, &mut note) {
        return None;
    }
    let mut best = (price(a, b, cost, &wall)? + price(b, c, cost, &wall)?) * (1.0 - 1e-9);
    // Most turns of a string pulled through cell centres go at once: a sees c.
    if levels.len() == 1 && price(a, c, cost, &|x, y| cost(x, y) != Some(levels[0])).is_some() {
        return Some(Vec::new());
    }
    let mut chosen = None;
    levels.sort_unstable();
    for level in levels {
        let dearer = |x: i64, y: i64| cost(x, y).is_none_or(|k| k > level);
        let chain = if walk(a, b, &dearer, |_, _| {}) && walk(b, c, &dearer, |_, _| {}) {
            hull_chain(a, c, corners_in_triangle(a, b, c, &dearer))
        } else {
            // The string crosses dearer cells: the hull of the triangle's corners no longer
            // keeps to one side of them, so search the corners round them instead.
            match detour(a, b, c, &dearer, cost) {
                Some(chain) => chain,
                None => continue,
            }
        };
        if chain == [b] {
            continue;
        }
        let mut at = a;
        let mut total = 0.0;
        for &p in chain.iter().chain(std::iter::once(&c)) {
            let Some(step) = price(at, p, cost, &dearer) else {
                total = f64::INFINITY;
                break;
            };
            total += step;
            at = p;
        }
        if total < best {
            best = total;
            chosen = Some(chain);
        }
    }
    chosen
}

/// Most corners [`detour`] searches: beyond that the turn stays as it is.
const DETOUR_CORNERS: usize = 48;

/// The cheapest way from `a` to `c` over cells `dearer` accepts, through the corners of the
/// cells it refuses around the triangle `a`, `b`, `c` (its bounding box, a cell wider): a
/// visibility graph over those corners, searched by Dijkstra on price. `None` when there are
/// more than [`DETOUR_CORNERS`] or no way.
fn detour(
    a: Half,
    b: Half,
    c: Half,
    dearer: &impl Fn(i64, i64) -> bool,
    cost: &impl Fn(i64, i64) -> Option<u8>,
) -> Option<Vec<Half>> {
    let x0 = a.0.min(b.0).min(c.0).div_euclid(2) - 1;
    let x1 = a.0.max(b.0).max(c.0).div_euclid(2) + 2;
    let y0 = a.1.min(b.1).min(c.1).div_euclid(2) - 1;
    let y1 = a.1.max(b.1).max(c.1).div_euclid(2) + 2;
    let mut nodes = vec![a];
    for cy in y0..=y1 {
        for cx in x0..=x1 {
            let q = [
                dearer(cx - 1, cy - 1),
                dearer(cx, cy - 1),
                dearer(cx - 1, cy),
                dearer(cx, cy),
            ];
            let n = q.iter().filter(|&&d| d).count();
            // A string turns only round a convex corner: one refused cell of the four.
            if n == 1 {
                nodes.push((2 * cx, 2 * cy));
                if nodes.len() > DETOUR_CORNERS + 1 {
                    return None;
                }
            }
        }
    }
    nodes.push(c);
    let n = nodes.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut from = vec![usize::MAX; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    loop {
        let u = (0..n)
            .filter(|&i| !done[i] && dist[i].is_finite())
            .min_by(|&i, &j| dist[i].total_cmp(&dist[j]))?;
        if u == n - 1 {
            break;
        }
        done[u] = true;
        for v in 0..n {
            if done[v] {
                continue;
            }
            if let Some(p) = price(nodes[u], nodes[v], cost, dearer)
                && dist[u] + p < dist[v]
            {
                dist[v] = dist[u] + p;
                from[v] = u;
            }
        }
    }
    let mut chain = Vec::new();
    let mut at = from[n - 1];
    while at != 0 {
        chain.push(nodes[at]);
        at = from[at];
    }
    chain.reverse();
    Some(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid<'a>(rows: &'a [&'a str]) -> impl Fn(i64, i64) -> Option<u8> + 'a {
        move |x, y| {
            let row = rows.get(usize::try_from(y).ok()?)?.as_bytes();
            match row.get(usize::try_from(x).ok()?)? {
                b'#' => None,
                b'0'..=b'9' => Some(row[x as usize] - b'0'),
                _ => Some(1),
            }
        }
    }

    fn total(points: &[Half]) -> f64 {
        points.windows(2).map(|w| length(w[0], w[1])).sum()
    }

    #[test]
    fn a_turn_past_a_block_moves_to_its_corner() {
        // A string from (0, 4) up to (0, 0) then across to (6, 0) turns at a cell centre
        // beside the block's corner; taut, it turns at the block's corner (2, 2) in cells.
        let rows = [
            ".......", ".......", "..####.", "..####.", "..####.", ".......",
        ];
        let cost = grid(&rows);
        let mut s = vec![centre((0, 4)), centre((0, 0)), centre((6, 0))];
        tighten(&mut s, &cost, 8);
        assert_eq!(s, vec![centre((0, 4)), (4, 4), centre((6, 0))]);
        let expected = length(centre((0, 4)), (4, 4)) + length((4, 4), centre((6, 0)));
        assert!((total(&s) - expected).abs() < 1e-12);
    }

    #[test]
    fn a_corridor_of_turns_becomes_straight_and_a_door_is_passed_at_its_jambs() {
        // Open ground: any string becomes one segment.
        let rows = [".........."; 8];
        let cost = grid(&rows);
        let mut s = vec![
            centre((0, 0)),
            centre((9, 0)),
            centre((9, 7)),
            centre((3, 7)),
        ];
        tighten(&mut s, &cost, 8);
        assert_eq!(s, vec![centre((0, 0)), centre((3, 7))]);
        // A wall with a one-cell door at x = 4: the string through the door's centre
        // turns at the door's jambs instead.
        let rows = [
            "..........",
            "..........",
            "....#.....",
            "....#.....",
            "..........",
            "....#.....",
            "....#.....",
            "....#.....",
        ];
        let rows: Vec<&str> = rows.iter().map(|r| r.trim()).collect();
        let cost = grid(&rows);
        let mut s = vec![centre((0, 7)), centre((4, 4)), centre((9, 7))];
        tighten(&mut s, &cost, 8);
        assert_eq!(s, vec![centre((0, 7)), (8, 10), (10, 10), centre((9, 7))]);
    }

    #[test]
    fn the_string_keeps_off_dearer_cells_and_between_diagonal_walls() {
        // A dear patch (cost 5) inside the turn: the string wraps its corner, not cutting it.
        let rows = ["......", "......", "..55..", "..55..", "......", "......"];
        let cost = grid(&rows);
        let mut s = vec![centre((0, 5)), centre((0, 0)), centre((5, 0))];
        tighten(&mut s, &cost, 8);
        assert_eq!(s, vec![centre((0, 5)), (4, 4), centre((5, 0))]);
        // A string through the patch (price 3 + 2 × 5 + 3 = 16): the straight line would
        // cross less of it (about 10.6); round the patch's far corner (4, 4) it costs
        // 2.1 + 3.8 = 5.9 over cost-1 cells.
        let mut s = vec![centre((2, 5)), centre((2, 0)), centre((5, 0))];
        tighten(&mut s, &cost, 8);
        assert_eq!(s, vec![centre((2, 5)), (8, 8), centre((5, 0))]);
        let wall = |x, y| cost(x, y).is_none();
        let straight = price(centre((2, 5)), centre((5, 0)), &cost, &wall).expect("a free segment");
        assert!((10.0..11.0).contains(&straight), "{straight}");
        // A string that must cross a dear row is left where it crosses: round is dearer.
        let rows = ["......", "......", "555555", "......"];
        let cost = grid(&rows);
        let mut s = vec![centre((0, 0)), centre((2, 3)), centre((5, 3))];
        tighten(&mut s, &cost, 8);
        let wall = |x, y| cost(x, y).is_none();
        let total: f64 = s
            .windows(2)
            .map(|w| price(w[0], w[1], &cost, &wall).expect("a free string"))
            .sum();
        // The cheapest crossing goes straight down through one dear cell: 3 + 4 = 7 at best.
        assert!(total < 3.0 * 5.0 + 5.0, "{s:?} costs {total}");
        // Two walls meeting at a corner: the segment through that corner is refused.
        let rows = ["#.", ".#"];
        let cost = grid(&rows);
        let wall = |x, y| cost(x, y).is_none();
        assert!(!walk(centre((1, 0)), centre((0, 1)), &wall, |_, _| {}));
        assert!(
            walk((2, 0), (2, 2), &wall, |_, _| {}),
            "along one wall's edge is free"
        );
        let rows = ["##", ".."];
        let cost = grid(&rows);
        let wall = |x, y| cost(x, y).is_none();
        assert!(
            !walk((0, 2), (4, 2), &|x, y| wall(x, y) || y == 1, |_, _| {}),
            "between two walls"
        );
        assert!(walk((0, 2), (4, 2), &wall, |_, _| {}));
    }
}
