//! Island ids: connected components of passable cells (bake step 7, rebuilt at run time).
//! A path request is valid only when source and goal carry the same id.
//!
//! Agents move to the 8 neighbours but never cut a wall corner, so a diagonal step needs both
//! orthogonal cells beside it passable — and then the same two cells are also reachable by two
//! orthogonal steps. 8-connectivity under that rule is therefore exactly 4-connectivity, which
//! is what the union-find below computes.

use super::cost::CostField;
use super::grid::{GridSpec, WALL};

/// `sector_island` value of a sector holding more than one id (walls count as id 0).
pub const MIXED: u32 = u32::MAX;

/// Island ids of one movement type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Islands {
    /// Map and sector sizes.
    pub spec: GridSpec,
    /// Number of islands; ids run `1..=count`, numbered by each island's first cell in
    /// row-major order. 0 means wall.
    pub count: u32,
    /// Per sector: the id shared by all its cells, 0 if all walls, [`MIXED`] if its cells hold
    /// different ids (a sector with walls and one island is mixed, so walls read as 0).
    pub sector_island: Vec<u32>,
    /// Per-cell ids (row-major over the sector rectangle) of every mixed sector, sorted by sector.
    pub fields: Vec<(u32, Box<[u32]>)>,
}

impl Islands {
    /// Island id of cell `(x, y)` (0 for walls and cells off the map); `O(log mixed sectors)`.
    #[must_use]
    pub fn island_at(&self, x: u32, y: u32) -> u32 {
        if !self.spec.contains(i64::from(x), i64::from(y)) {
            return 0;
        }
        let s = self.spec.sector_of(x, y);
        match self.sector_island.get(s as usize) {
            Some(&MIXED) => {
                let Ok(i) = self.fields.binary_search_by_key(&s, |(sec, _)| *sec) else {
                    return 0;
                };
                let (x0, y0, w, _) = self.spec.sector_rect(s);
                self.fields[i].1[((y - y0) * w + (x - x0)) as usize]
            }
            Some(&id) => id,
            None => 0,
        }
    }
}

impl Islands {
    /// Whether sector `s`'s wall cells are exactly those of `tile` (its costs, row-major
    /// over the sector rectangle): island id 0 marks the walls these ids were built from.
    #[must_use]
    pub fn walls_match(&self, s: u32, tile: &[u8]) -> bool {
        match self.sector_island.get(s as usize) {
            Some(&MIXED) => self
                .fields
                .binary_search_by_key(&s, |(sec, _)| *sec)
                .is_ok_and(|i| {
                    let ids = &self.fields[i].1;
                    ids.len() == tile.len()
                        && ids
                            .iter()
                            .zip(tile)
                            .all(|(&id, &c)| (id == 0) == (c == WALL))
                }),
            Some(&0) => tile.iter().all(|&c| c == WALL),
            Some(_) => tile.iter().all(|&c| c != WALL),
            None => false,
        }
    }
}

/// Labels the islands of a cost field.
#[must_use]
pub fn find_islands(cost: &CostField) -> Islands {
    let spec = cost.spec;
    let cells = cost.to_cells();
    let (count, ids) = label_cells(spec.width as usize, &cells);
    let mut sector_island = Vec::with_capacity(spec.sector_count());
    let mut fields = Vec::new();
    for s in 0..spec.sector_count() as u32 {
        let (x0, y0, w, h) = spec.sector_rect(s);
        let first = ids[spec.index(x0, y0)];
        let uniform = (y0..y0 + h).all(|y| {
            let row = spec.index(x0, y);
            ids[row..row + w as usize].iter().all(|&id| id == first)
        });
        if uniform {
            sector_island.push(first);
        } else {
            sector_island.push(MIXED);
            let mut field = Vec::with_capacity((w * h) as usize);
            for y in y0..y0 + h {
                let row = spec.index(x0, y);
                field.extend_from_slice(&ids[row..row + w as usize]);
            }
            fields.push((s, field.into_boxed_slice()));
        }
    }
    Islands {
        spec,
        count,
        sector_island,
        fields,
    }
}

/// Labels the 4-connected components of one sector's passable cells (`tile` row-major,
/// `width` wide) as `1..=count` in order of each component's first cell; walls get 0.
#[must_use]
pub fn label_sector(width: u32, tile: &[u8]) -> (u32, Vec<u32>) {
    label_cells(width as usize, tile)
}

/// Union-find over 4-neighbours in one row-major sweep, then ids by first cell:
/// `(count, per-cell ids)`.
fn label_cells(width: usize, cells: &[u8]) -> (u32, Vec<u32>) {
    let mut parent: Vec<u32> = Vec::new();
    let mut labels = vec![0_u32; cells.len()];
    fn find(parent: &mut [u32], mut a: u32) -> u32 {
        while parent[a as usize] != a {
            // Path halving keeps the trees flat without recursion.
            parent[a as usize] = parent[parent[a as usize] as usize];
            a = parent[a as usize];
        }
        a
    }
    // Provisional labels start at 1; parent[0] is a dummy for walls.
    parent.push(0);
    for i in 0..cells.len() {
        if cells[i] == WALL {
            continue;
        }
        let x = i % width;
        let left = if x > 0 { labels[i - 1] } else { 0 };
        let up = if i >= width { labels[i - width] } else { 0 };
        labels[i] = match (left, up) {
            (0, 0) => {
                let l = parent.len() as u32;
                parent.push(l);
                l
            }
            (l, 0) | (0, l) => l,
            (l, u) => {
                let (rl, ru) = (find(&mut parent, l), find(&mut parent, u));
                if rl != ru {
                    // The older root wins, so roots stay at their first cell's label.
                    let (lo, hi) = if rl < ru { (rl, ru) } else { (ru, rl) };
                    parent[hi as usize] = lo;
                }
                l
            }
        };
    }
    // Final ids in order of each island's first cell: provisional labels are created in
    // row-major order and the smallest label of a set is its root, so numbering roots in
    // increasing label order is numbering by first cell.
    let mut final_id = vec![0_u32; parent.len()];
    let mut count = 0;
    for l in 1..parent.len() as u32 {
        let r = find(&mut parent, l);
        if r == l {
            count += 1;
            final_id[l as usize] = count;
        }
    }
    for l in labels.iter_mut() {
        if *l != 0 {
            *l = final_id[find(&mut parent, *l) as usize];
        }
    }
    (count, labels)
}
