//! Island ids: connected components of passable cells (bake step 7, rebuilt at run time).
//! A path request is valid only when source and goal carry the same id.
//!
//! Agents move to the 8 neighbours but never cut a wall corner, so a diagonal step needs both
//! orthogonal cells beside it passable — and then the same two cells are also reachable by two
//! orthogonal steps. 8-connectivity under that rule is therefore exactly 4-connectivity, which
//! is what the union-find below computes.

use rayon::prelude::*;
use smallvec::SmallVec;

use super::cost::{CostField, SectorCost};
use super::grid::{CLEAR, GridSpec, WALL};

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
    pub fields: Vec<(u32, IslandField)>,
}

/// The island ids of one mixed sector's cells, packed: the ids that occur (ascending) and
/// per cell the index of its id among them in as few bits as that needs — one bit for the
/// usual mixed sector of walls and one island. About a twentieth of a `u32` per cell: at
/// the 8192² size limit a world holds its types' fields in tens of MiB instead of hundreds.
/// Two ids and the bits of 128 cells (sectors of 10 in one bit) are held inline: opening an
/// 8192² package makes 350,000 fields, and two allocations each were a fifth of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandField {
    /// The ids that occur, ascending.
    ids: SmallVec<[u32; 2]>,
    /// Bits per cell.
    bits: u8,
    /// Cells.
    len: u32,
    /// Per cell its index into `ids`, `bits` bits each, low bits first.
    packed: SmallVec<[u8; 16]>,
}

impl IslandField {
    /// Bytes it holds beyond itself.
    pub(crate) fn memory(&self) -> usize {
        let ids = if self.ids.spilled() {
            4 * self.ids.capacity()
        } else {
            0
        };
        let packed = if self.packed.spilled() {
            self.packed.capacity()
        } else {
            0
        };
        ids + packed
    }

    /// Packs one id per cell.
    #[must_use]
    pub fn from_ids(cells: &[u32]) -> Self {
        // Most mixed sectors hold walls and one island: two plain passes over the cells
        // settle that (a streamed 8192² world packs 35 million cells at open).
        let first = cells.first().copied().unwrap_or(0);
        let other = cells.iter().copied().find(|&c| c != first);
        if let Some(other) = other.filter(|&o| cells.iter().all(|&c| c == first || c == o)) {
            let (low, high) = (first.min(other), first.max(other));
            let packed: SmallVec<[u8; 16]> = cells
                .chunks(8)
                .map(|eight| {
                    eight
                        .iter()
                        .enumerate()
                        .fold(0u8, |b, (i, &c)| b | u8::from(c == high) << i)
                })
                .collect();
            return Self {
                ids: SmallVec::from_buf([low, high]),
                bits: 1,
                len: cells.len() as u32,
                packed,
            };
        }
        // Few ids per sector: a scan beats sorting the cells.
        let mut ids: SmallVec<[u32; 2]> = SmallVec::new();
        for &c in cells {
            if !ids.contains(&c) {
                ids.push(c);
            }
        }
        ids.sort_unstable();
        let bits = Self::bits_for(ids.len());
        let mut packed = SmallVec::with_capacity((cells.len() * bits as usize).div_ceil(8));
        let (mut acc, mut held) = (0u64, 0u32);
        for c in cells {
            acc |= (ids.binary_search(c).unwrap_or(0) as u64) << held;
            held += bits;
            while held >= 8 {
                packed.push(acc as u8);
                acc >>= 8;
                held -= 8;
            }
        }
        if held > 0 {
            packed.push(acc as u8);
        }
        Self {
            ids,
            bits: bits as u8,
            len: cells.len() as u32,
            packed,
        }
    }

    /// Bits per cell of a field whose cells hold `ids` distinct ids (one at least).
    #[must_use]
    pub fn bits_for(ids: usize) -> u32 {
        usize::BITS - (ids.max(2) - 1).leading_zeros()
    }

    /// The ids that occur (ascending) and the cells' indices into them, [`Self::bits_for`]
    /// bits each, low bits first: what a package stores.
    #[must_use]
    pub fn packed(&self) -> (&[u32], &[u8]) {
        (&self.ids, &self.packed)
    }

    /// A field of `len` cells from the parts [`Self::packed`] gives; `None` unless the ids
    /// ascend strictly, the bytes are exactly as many as the cells need, every index names
    /// one of the ids and the bits past the last cell are clear.
    #[must_use]
    pub fn from_packed(ids: &[u32], len: usize, packed: &[u8]) -> Option<Self> {
        let bits = Self::bits_for(ids.len());
        let used = len.checked_mul(bits as usize)?;
        if ids.is_empty()
            || ids.windows(2).any(|w| w[0] >= w[1])
            || packed.len() != used.div_ceil(8)
        {
            return None;
        }
        if used % 8 != 0 && packed.last().is_some_and(|&b| b >> (used % 8) != 0) {
            return None;
        }
        let field = Self {
            ids: SmallVec::from_slice(ids),
            bits: bits as u8,
            len: u32::try_from(len).ok()?,
            packed: SmallVec::from_slice(packed),
        };
        // Indices of `bits` bits name an id when the ids fill them (two, four …); one id
        // allows index 0 only, and other counts are checked cell by cell.
        let valid = match field.ids.len() {
            1 => field.packed.iter().all(|&b| b == 0),
            n if n.is_power_of_two() => true,
            // Three ids, two bits a cell (the bits past the last cell are clear): no pair of
            // bits may read 3, tested a byte at a time (a tenth of opening an 8192² package
            // cell by cell).
            3 => field.packed.iter().all(|&b| b & (b >> 1) & 0x55 == 0),
            n => (0..len).all(|i| field.index(i) < n),
        };
        valid.then_some(field)
    }

    /// The index into `ids` of cell `i` (which must be below `len`).
    fn index(&self, i: usize) -> usize {
        let bits = usize::from(self.bits);
        let mut k = 0;
        for b in 0..bits {
            let at = i * bits + b;
            k |= usize::from(self.packed[at / 8] >> (at % 8) & 1) << b;
        }
        k
    }

    /// The id of cell `i` (row-major over the sector rectangle); 0 past the end.
    #[must_use]
    pub fn get(&self, i: usize) -> u32 {
        if i >= self.len as usize {
            return 0;
        }
        self.ids.get(self.index(i)).copied().unwrap_or(0)
    }

    /// Number of cells.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the field has no cell.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ids of the cells in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The same cells with every id replaced by `f(cell index, id)`.
    #[must_use]
    pub fn map(&self, f: impl Fn(usize, u32) -> u32) -> Self {
        let cells: Vec<u32> = self.iter().enumerate().map(|(c, id)| f(c, id)).collect();
        Self::from_ids(&cells)
    }
}

impl Islands {
    /// Cells of each island, indexed by id (index 0 counts the walls): whole sectors at once,
    /// cell by cell only in mixed ones.
    #[must_use]
    pub fn cells_per_island(&self) -> Vec<usize> {
        let mut sizes = vec![0_usize; self.count as usize + 1];
        for (s, &id) in self.sector_island.iter().enumerate() {
            if id != MIXED
                && let Some(size) = sizes.get_mut(id as usize)
            {
                let (_, _, w, h) = self.spec.sector_rect(s as u32);
                *size += (w * h) as usize;
            }
        }
        for (_, field) in &self.fields {
            for id in field.iter() {
                if let Some(size) = sizes.get_mut(id as usize) {
                    *size += 1;
                }
            }
        }
        sizes
    }

    /// Island id of cell `(x, y)` (0 for walls and cells off the map); `O(log mixed sectors)`.
    #[must_use]
    pub fn island_at(&self, x: u32, y: u32) -> u32 {
        self.island_at_in(&self.fields, x, y)
    }

    /// [`Self::island_at`] with the mixed sectors' fields `fields` (those of these ids, held
    /// elsewhere) in place of [`Self::fields`].
    #[must_use]
    pub fn island_at_in(&self, fields: &[(u32, IslandField)], x: u32, y: u32) -> u32 {
        if !self.spec.contains(i64::from(x), i64::from(y)) {
            return 0;
        }
        let s = self.spec.sector_of(x, y);
        match self.sector_island.get(s as usize) {
            Some(&MIXED) => {
                let Some(field) = field_of(fields, s) else {
                    return 0;
                };
                let (x0, y0, w, _) = self.spec.sector_rect(s);
                field.get(((y - y0) * w + (x - x0)) as usize)
            }
            Some(&id) => id,
            None => 0,
        }
    }
}

impl Islands {
    /// The sectors whose cells' ids differ between `self` and `other`, two labellings of one
    /// map (what an island overlay must redraw), ascending; `None` for maps of other sizes.
    #[must_use]
    pub fn sectors_differing(&self, other: &Islands) -> Option<Vec<u32>> {
        if self.spec != other.spec || self.sector_island.len() != other.sector_island.len() {
            return None;
        }
        let differs = |s: u32| match (
            self.sector_island[s as usize],
            other.sector_island[s as usize],
        ) {
            (MIXED, MIXED) => field_of(&self.fields, s) != field_of(&other.fields, s),
            (a, b) => a != b,
        };
        Some(
            (0..self.sector_island.len() as u32)
                .filter(|&s| differs(s))
                .collect(),
        )
    }
}

/// Sector `s`'s field among `fields` (sorted by sector, as [`Islands::fields`]).
#[must_use]
pub fn field_of(fields: &[(u32, IslandField)], s: u32) -> Option<&IslandField> {
    let i = fields.binary_search_by_key(&s, |(sec, _)| *sec).ok()?;
    Some(&fields[i].1)
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
                            .all(|(id, &c)| (id == 0) == (c == WALL))
                }),
            Some(&0) => tile.iter().all(|&c| c == WALL),
            Some(_) => tile.iter().all(|&c| c != WALL),
            None => false,
        }
    }
}

/// Labels the islands of a cost field on all cores: bands of whole sector rows labelled
/// alone and split into their sectors' ids and fields, the labels touching
/// across each seam joined, then every sector's ids renumbered. No full-map grid of cells or
/// ids is made (at 8192² those were 335 MB of fresh memory per movement type).
///
/// The ids are those of one sweep over the map (`label_sector` of the whole map): each band
/// numbers its labels by first cell and the bands go from the top, so the smallest label of
/// a joined island is its first cell's, and islands are numbered by their smallest label.
#[must_use]
pub fn find_islands(cost: &CostField) -> Islands {
    let spec = cost.spec;
    let sx = spec.sectors_x() as usize;
    let band_sectors = sx * (BAND_ROWS / spec.sector_size.max(1) as usize).max(1);
    let mut bands: Vec<BandLabels> = if sx == 0 {
        Vec::new()
    } else {
        let n = cost.sectors.len();
        (0..n.div_ceil(band_sectors))
            .into_par_iter()
            .map_init(BandScratch::default, |scratch, b| {
                let first = b * band_sectors;
                label_band(cost, first as u32, band_sectors.min(n - first), scratch)
            })
            .collect()
    };
    // Labels run on across the bands: band b's label l becomes first[b] + l.
    let mut first = Vec::with_capacity(bands.len());
    let mut total = 0u32;
    for band in &bands {
        first.push(total);
        total += band.count;
    }
    let mut parent: Vec<u32> = (0..=total).collect();
    for b in 1..bands.len() {
        for (&a, &u) in bands[b - 1].bottom.iter().zip(&bands[b].top) {
            if a != 0 && u != 0 {
                union_keeping_older(&mut parent, first[b - 1] + a, first[b] + u);
            }
        }
    }
    let (count, final_id) = number_by_root(&mut parent);
    // Renumbering keeps a mixed sector mixed: it holds walls (a sector without any is one
    // island within its band) and other cells (walls alone would be uniform).
    bands.par_iter_mut().zip(first).for_each(|(band, offset)| {
        let id = |local: u32| {
            if local == 0 {
                0
            } else {
                final_id[(offset + local) as usize]
            }
        };
        for (island, field) in &mut band.sectors {
            match field {
                None => *island = id(*island),
                Some(field) => *field = field.map(|_, l| id(l)),
            }
        }
    });
    let mut sector_island = Vec::with_capacity(spec.sector_count());
    let mut fields = Vec::new();
    for (s, (island, field)) in bands.into_iter().flat_map(|b| b.sectors).enumerate() {
        sector_island.push(island);
        if let Some(field) = field {
            fields.push((s as u32, field));
        }
    }
    Islands {
        spec,
        count,
        sector_island,
        fields,
    }
}

/// One band of [`find_islands`], in the band's own labels (`1..=count`, walls 0).
struct BandLabels {
    count: u32,
    /// Labels of the band's first and last rows, to join across the seams.
    top: Vec<u32>,
    bottom: Vec<u32>,
    /// Per sector of the band: its label and no field when all its cells share one, else
    /// [`MIXED`] and the cells' labels.
    sectors: Vec<(u32, Option<IslandField>)>,
}

/// A band's cells and labels, reused from band to band by one thread.
#[derive(Default)]
struct BandScratch {
    cells: Vec<u8>,
    labels: Vec<u32>,
}

/// Labels the band of `count` sectors from sector `first` (whole sector rows).
fn label_band(cost: &CostField, first: u32, count: usize, scratch: &mut BandScratch) -> BandLabels {
    let spec = cost.spec;
    let width = spec.width as usize;
    let (_, y0, _, _) = spec.sector_rect(first);
    let (_, last_y, _, last_h) = spec.sector_rect(first + count as u32 - 1);
    let n = (last_y + last_h - y0) as usize * width;
    let BandScratch { cells, labels } = scratch;
    cells.clear();
    cells.resize(n, CLEAR);
    for s in first..first + count as u32 {
        if let SectorCost::Tile(tile) = &cost.sectors[s as usize] {
            let (x0, sy, w, h) = spec.sector_rect(s);
            let (x0, w) = (x0 as usize, w as usize);
            for row in 0..h as usize {
                let dst = (sy - y0) as usize * width + row * width + x0;
                cells[dst..dst + w].copy_from_slice(&tile[row * w..(row + 1) * w]);
            }
        }
    }
    labels.clear();
    labels.resize(n, 0);
    let labelled = label_into(width, cells, labels);
    let sectors = (first..first + count as u32)
        .map(|s| {
            let (x0, sy, w, h) = spec.sector_rect(s);
            let (x0, w) = (x0 as usize, w as usize);
            let row = |y: u32| {
                let at = (sy - y0 + y) as usize * width + x0;
                &labels[at..at + w]
            };
            let first = row(0)[0];
            if (0..h).all(|y| row(y).iter().all(|&l| l == first)) {
                return (first, None);
            }
            let mut field = Vec::with_capacity(w * h as usize);
            for y in 0..h {
                field.extend_from_slice(row(y));
            }
            (MIXED, Some(IslandField::from_ids(&field)))
        })
        .collect();
    BandLabels {
        count: labelled,
        top: labels[..width].to_vec(),
        bottom: labels[n - width..].to_vec(),
        sectors,
    }
}

/// Labels the 4-connected components of one sector's passable cells (`tile` row-major,
/// `width` wide) as `1..=count` in order of each component's first cell; walls get 0.
#[must_use]
pub fn label_sector(width: u32, tile: &[u8]) -> (u32, Vec<u32>) {
    let mut labels = vec![0; tile.len()];
    let count = label_into(width as usize, tile, &mut labels);
    (count, labels)
}

/// Rows per band of [`find_islands`] (rounded down to whole sector rows): thousands of
/// bands at the 16384² limit would make the seams' joins a serial tail; a few dozen keep
/// both cores busy.
const BAND_ROWS: usize = 256;

/// Root of `a`'s set.
fn find_root(parent: &mut [u32], mut a: u32) -> u32 {
    while parent[a as usize] != a {
        // Path halving keeps the trees flat without recursion.
        parent[a as usize] = parent[parent[a as usize] as usize];
        a = parent[a as usize];
    }
    a
}

/// Joins the sets of `a` and `b`; the older (smaller) root wins, so roots stay at their
/// first cell's label.
fn union_keeping_older(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find_root(parent, a), find_root(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

/// Union-find over 4-neighbours in one row-major sweep, then ids by first cell written to
/// `labels` (as long as `cells`, all 0); returns the number of islands.
fn label_into(width: usize, cells: &[u8], labels: &mut [u32]) -> u32 {
    // Provisional labels start at 1; parent[0] is a dummy for walls.
    let mut parent: Vec<u32> = vec![0];
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
                union_keeping_older(&mut parent, l, u);
                l
            }
        };
    }
    // Provisional labels are created in row-major order, so numbering by root is numbering
    // by each island's first cell.
    let (count, final_id) = number_by_root(&mut parent);
    for l in labels.iter_mut().filter(|l| **l != 0) {
        *l = final_id[*l as usize];
    }
    count
}

/// The final id of every provisional label (1 up; label 0 stays 0) and the number of sets:
/// roots numbered 1, 2, … in increasing label order, each member given its root's. A root is
/// its set's smallest label, so it is numbered before its members.
fn number_by_root(parent: &mut [u32]) -> (u32, Vec<u32>) {
    let mut final_id = vec![0u32; parent.len()];
    let mut count = 0;
    for l in 1..parent.len() as u32 {
        let root = find_root(parent, l);
        if root == l {
            count += 1;
            final_id[l as usize] = count;
        } else {
            final_id[l as usize] = final_id[root as usize];
        }
    }
    (count, final_id)
}

#[cfg(test)]
mod tests {
    use super::{CostField, GridSpec, IslandField, WALL, find_islands};

    /// A linear congruential generator from `state` with increment `step`: draws `0..m`.
    fn draws(mut state: u64, step: u64) -> impl FnMut(u64) -> u64 {
        move |m| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(step);
            (state >> 33) % m
        }
    }

    /// Packed fields read back every id, with one bit per cell for two ids and more bits
    /// for more: against the plain ids, for palettes of 1 to 300 ids.
    #[test]
    fn island_fields_read_back_what_they_pack() {
        let mut next = draws(9, 3);
        for distinct in [1u64, 2, 3, 5, 17, 300] {
            // 1003 cells: the last byte holds fewer than eight.
            let cells: Vec<u32> = (0..1003).map(|_| next(distinct) as u32 * 7).collect();
            let field = IslandField::from_ids(&cells);
            assert_eq!(field.len(), cells.len());
            assert_eq!(field.iter().collect::<Vec<_>>(), cells, "{distinct} ids");
            assert_eq!(field.get(cells.len()), 0);
            let bits = field.packed.len() * 8 / cells.len();
            let expected = (distinct.max(2) - 1).ilog2() as usize + 1;
            assert!(bits <= expected, "{distinct} ids took {bits} bits per cell");
            let doubled = field.map(|_, id| id * 2);
            assert_eq!(doubled.get(3), cells[3] * 2);
        }
    }

    /// The map labelled in bands of sector rows on all cores gives the ids of one sweep over
    /// the map (`label_sector` of the whole map): islands winding across many seams, walls
    /// from sparse to nearly closed, sizes that do not divide into sectors or bands.
    #[test]
    fn banded_labels_equal_one_sweep() {
        let mut next = draws(5, 1);
        for (w, h, sector) in [
            (37u32, 1100u32, 10u32),
            (300, 700, 16),
            (5, 2000, 7),
            (64, 300, 300),
        ] {
            let spec = GridSpec {
                width: w,
                height: h,
                sector_size: sector,
            };
            for walls_in_100 in [5, 40, 55, 70] {
                let cells: Vec<u8> = (0..w * h)
                    .map(|_| if next(100) < walls_in_100 { WALL } else { 1 })
                    .collect();
                let islands = find_islands(&CostField::from_cells(spec, &cells));
                let (count, swept) = super::label_sector(w, &cells);
                assert_eq!(islands.count, count, "{w}×{h}, {walls_in_100} % walls");
                for y in 0..h {
                    for x in 0..w {
                        let want = swept[(y * w + x) as usize];
                        assert_eq!(islands.island_at(x, y), want, "({x}, {y}) of {w}×{h}");
                    }
                }
                // A sector is stored as one id exactly when its cells share one.
                for s in 0..spec.sector_count() as u32 {
                    let (x0, y0, sw, sh) = spec.sector_rect(s);
                    let first = swept[(y0 * w + x0) as usize];
                    let uniform = (y0..y0 + sh)
                        .all(|y| (x0..x0 + sw).all(|x| swept[(y * w + x) as usize] == first));
                    let stored = islands.sector_island[s as usize];
                    assert_eq!(stored != super::MIXED, uniform, "sector {s} of {w}×{h}");
                }
            }
        }
    }

    /// Whole-sector counting agrees with asking every cell (maps with walls, several islands
    /// and mixed sectors).
    #[test]
    fn cells_per_island_counts_what_every_cell_says() {
        let mut several = false;
        for seed in 1..=6u64 {
            // 47 × 38 cells in sectors of 6 (partial ones at the edges), a fifth of them walls.
            let spec = GridSpec {
                width: 47,
                height: 38,
                sector_size: 6,
            };
            let mut next = draws(seed, 11);
            let cells: Vec<u8> = (0..spec.cell_count())
                .map(|_| if next(5) == 0 { WALL } else { 1 })
                .collect();
            let islands = find_islands(&CostField::from_cells(spec, &cells));
            let mut expected = vec![0_usize; islands.count as usize + 1];
            for y in 0..spec.height {
                for x in 0..spec.width {
                    expected[islands.island_at(x, y) as usize] += 1;
                }
            }
            several |= islands.count > 1 && !islands.fields.is_empty();
            assert_eq!(islands.cells_per_island(), expected, "seed {seed}");
        }
        assert!(several, "no map with several islands and mixed sectors");
    }

    /// What a package stores reads back as the same field, and parts no writer makes are
    /// refused: an index naming no id, a set bit past the last cell, ids out of order.
    #[test]
    fn packed_fields_read_back_and_refuse_what_no_writer_makes() {
        for cells in [vec![0, 5, 5, 0, 5], vec![7; 9], vec![1, 2, 3, 2, 1, 0, 3]] {
            let field = IslandField::from_ids(&cells);
            let (ids, packed) = field.packed();
            let back = IslandField::from_packed(ids, cells.len(), packed);
            assert_eq!(back.as_ref(), Some(&field), "{cells:?}");
        }
        // Three ids in two bits each: index 3 names none.
        assert!(IslandField::from_packed(&[0, 1, 2], 2, &[0b0110]).is_some());
        assert!(IslandField::from_packed(&[0, 1, 2], 2, &[0b1110]).is_none());
        // Five cells over two bytes: the fifth names index 3, past the three ids.
        assert!(IslandField::from_packed(&[0, 1, 2], 5, &[0b1001_0110, 0b10]).is_some());
        assert!(IslandField::from_packed(&[0, 1, 2], 5, &[0b1001_0110, 0b11]).is_none());
        // One id: every index is 0.
        assert!(IslandField::from_packed(&[4], 3, &[0b010]).is_none());
        // Five cells of one bit: bits 5 to 7 stay clear.
        assert!(IslandField::from_packed(&[0, 4], 5, &[0b1_0101]).is_some());
        assert!(IslandField::from_packed(&[0, 4], 5, &[0b10_0101]).is_none());
        // Ids ascend; the bytes are exactly as many as the cells need.
        assert!(IslandField::from_packed(&[4, 0], 5, &[1]).is_none());
        assert!(IslandField::from_packed(&[0, 4], 5, &[1, 0]).is_none());
        assert!(IslandField::from_packed(&[], 5, &[0]).is_none());
    }
}
