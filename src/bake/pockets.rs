//! Bake stage 5b: pockets — passable ground walled in on every side and no bigger than the
//! movement type's `min_island_cells` becomes wall (Recast's "min region area").
//!
//! Pipeline position: … → 5. wall buffer (and force-clear paint) → **5b. pockets** →
//! 6. wall blur → … On real terrain at real scale (tens of metres per cell) steep ground
//! leaves hundreds of flat spots of one to a few cells between walls; no unit can reach or
//! leave them, and each would otherwise be an island of its own.
//!
//! A pocket is a 4-connected component of passable cells (the islands' connectivity: agents
//! never cut wall corners) with at most `max_cells` cells. Components touching an *open* edge
//! of the grid — an edge of a window cut out of a larger map, not the map's own border — may
//! continue beyond it and are kept. A pocket of `n` cells spans at most `n - 1` cells from any
//! of its cells, so an edit can only change cells within `max_cells` of it: that is the
//! stage's reach for incremental rebakes.

/// Which edges of the grid are open (cut from a larger map): left, top, right, bottom.
pub type OpenEdges = [bool; 4];

/// How far, in cells (Chebyshev), walling in pockets of up to `max_cells` can carry a change.
#[must_use]
pub fn reach_cells(max_cells: u32) -> u32 {
    max_cells
}

/// Turns every pocket of at most `max_cells` passable cells into walls (`walls[i] = true`).
/// `walls` is row-major, `width × height`.
pub fn wall_in_pockets(
    walls: &mut [bool],
    width: u32,
    height: u32,
    max_cells: u32,
    open: OpenEdges,
) {
    if max_cells == 0 {
        return;
    }
    let (w, h) = (width as usize, height as usize);
    let mut seen = vec![false; walls.len()];
    let mut component: Vec<usize> = Vec::new();
    for start in 0..walls.len() {
        if walls[start] || seen[start] {
            continue;
        }
        // Flood the whole component (so every cell is visited once), noting its size and
        // whether it reaches an open edge.
        component.clear();
        component.push(start);
        seen[start] = true;
        let mut open_reached = false;
        let mut next = 0;
        while next < component.len() {
            let i = component[next];
            next += 1;
            let (x, y) = (i % w, i / w);
            open_reached |= (x == 0 && open[0])
                || (y == 0 && open[1])
                || (x + 1 == w && open[2])
                || (y + 1 == h && open[3]);
            let mut visit = |j: usize| {
                if !walls[j] && !seen[j] {
                    seen[j] = true;
                    component.push(j);
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < w {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - w);
            }
            if y + 1 < h {
                visit(i + w);
            }
        }
        if !open_reached && component.len() <= max_cells as usize {
            for &i in &component {
                walls[i] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &[&str]) -> (Vec<bool>, u32, u32) {
        let walls = rows
            .iter()
            .flat_map(|r| r.bytes().map(|b| b == b'#'))
            .collect();
        (walls, rows[0].len() as u32, rows.len() as u32)
    }

    fn show(walls: &[bool], w: u32) -> Vec<String> {
        walls
            .chunks(w as usize)
            .map(|r| r.iter().map(|&b| if b { '#' } else { '.' }).collect())
            .collect()
    }

    #[test]
    fn small_pockets_become_walls_by_hand() {
        // A 1-cell pocket, a 3-cell pocket, a diagonal pair (two pockets of one: corners are
        // not cut), and the big region along the map border.
        let (mut walls, w, h) = grid(&[
            "........", ".######.", ".#.#..#.", ".####.#.", ".#.####.", ".##.#...", ".####...",
            "........",
        ]);
        wall_in_pockets(&mut walls, w, h, 3, [false; 4]);
        assert_eq!(
            show(&walls, w),
            [
                "........", ".######.", ".######.", ".######.", ".######.", ".####...", ".####...",
                "........",
            ]
            .map(String::from)
        );
    }

    #[test]
    fn the_limit_is_inclusive_and_zero_keeps_everything() {
        let (walls, w, h) = grid(&["#####", "#..##", "#.###", "#####"]);
        let mut kept = walls.clone();
        wall_in_pockets(&mut kept, w, h, 2, [false; 4]);
        assert_eq!(kept, walls, "a 3-cell pocket survives a limit of 2");
        let mut filled = walls.clone();
        wall_in_pockets(&mut filled, w, h, 3, [false; 4]);
        assert!(
            filled.iter().all(|&b| b),
            "a 3-cell pocket goes at a limit of 3"
        );
        let mut untouched = walls.clone();
        wall_in_pockets(&mut untouched, w, h, 0, [false; 4]);
        assert_eq!(untouched, walls);
    }

    #[test]
    fn regions_touching_an_open_edge_are_kept() {
        // The same 2-cell region on the right edge: a pocket at the map's border, but kept
        // when the right edge is a window's cut (the region may go on beyond it).
        let (walls, w, h) = grid(&["####", "##..", "####"]);
        let mut closed = walls.clone();
        wall_in_pockets(&mut closed, w, h, 4, [false; 4]);
        assert!(closed.iter().all(|&b| b));
        let mut open = walls.clone();
        wall_in_pockets(&mut open, w, h, 4, [false, false, true, false]);
        assert_eq!(open, walls);
    }
}
