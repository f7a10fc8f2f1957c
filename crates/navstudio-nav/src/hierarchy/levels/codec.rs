//! The levels as a package stores them, in the border indices of the type's stored
//! hierarchy (`docs/package-format.md`). The `level_cells` chunk, which navstudio writes:
//!
//! - zstd frame 0: `u32` level count `L`, border node count `B`, cell count `C` (the cells
//!   of the top level holding border nodes); `L × u32` each level's shift (cluster-key
//!   bits of a cell, ascending); `C × u32` each cell's block's stored length; `C × u32` its
//!   raw length; then the top level: `u32` member count `M`, edge count `E`, and its
//!   tables (below);
//! - then one zstd frame per cell of the top level, in order: per level below the top,
//!   lowest first, `u32` `M`, `E` and the tables of the cell's members at that level,
//!   their indices as differences from the cell's first border index.
//!
//! A level's tables: `M × u32` members' border indices as differences from the previous
//! one (ascending); `M × u32` each member's edge count; `E × u32` each edge's target
//! border index as a wrapping difference from its source's; `E × u32` edge weights.
//!
//! The frames decompress one after another to the chunk's raw length, so the chunk is a
//! zstd stream like the others, and a reader decompresses frame 0 and then only the cells a
//! search reads. The `levels` chunk of earlier builds is still read (whole): `u32` `L`,
//! `B`, then per level `u32` shift, `M`, `E` and its tables over every border node.
//!
//! All little-endian. The reader checks every count against the bytes present and every
//! index against `B` before it allocates by them.

use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use super::{Below, Decoded, Level, Levels, PackedEdges, StoredCell, members_and_cells};
use crate::hierarchy::Hierarchy;
#[cfg(test)]
use crate::package::words::SliceWords;
use crate::package::words::{StreamWords, WordSource};

/// Most levels a stored chunk may claim.
const MOST_LEVELS: usize = 16;

impl Levels {
    /// The `level_cells` chunk: its raw length and its stored bytes (frames compressed at
    /// zstd level `zstd_level`, the cells' in parallel). Cells not decoded keep their
    /// stored block.
    #[must_use]
    pub fn to_stored(&self, hierarchy: &Hierarchy, zstd_level: i32) -> (u64, Vec<u8>) {
        let compress =
            |raw: &[u8]| crate::package::zstd_compress(raw, zstd_level).unwrap_or_default();
        let cells: Vec<(u64, Vec<u8>)> = (0..self.below.len())
            .into_par_iter()
            .map(|i| {
                let cell = &self.below[i];
                if cell.levels().is_none() {
                    let stored = cell
                        .stored
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .clone();
                    if let Some(s) = stored {
                        return (s.raw_len, s.chunk[s.range].to_vec());
                    }
                }
                let mut raw = Vec::new();
                for level in self.lower(hierarchy, i) {
                    write_level(&mut raw, level, cell.lo, None);
                }
                (raw.len() as u64, compress(&raw))
            })
            .collect();
        let mut head = Vec::new();
        let word = |out: &mut Vec<u8>, w: u32| out.extend_from_slice(&w.to_le_bytes());
        word(&mut head, self.shifts.len() as u32);
        word(&mut head, self.top.member.len() as u32);
        word(&mut head, cells.len() as u32);
        for &shift in &self.shifts {
            word(&mut head, shift);
        }
        for (_, stored) in &cells {
            word(&mut head, stored.len() as u32);
        }
        for &(raw_len, _) in &cells {
            word(&mut head, raw_len as u32);
        }
        write_level(&mut head, &self.top, 0, None);
        let mut raw_len = head.len() as u64;
        let mut out = compress(&head);
        for (raw, stored) in cells {
            raw_len += raw;
            out.extend_from_slice(&stored);
        }
        (raw_len, out)
    }

    /// The levels in the layout of the `levels` chunk of earlier builds (every level whole).
    #[cfg(test)]
    pub fn to_whole_bytes(&self, hierarchy: &Hierarchy) -> Vec<u8> {
        let whole = self.whole(hierarchy);
        let border = whole.first().map_or(0, |l| l.member.len());
        let mut out = Vec::new();
        let word = |out: &mut Vec<u8>, w: u32| out.extend_from_slice(&w.to_le_bytes());
        word(&mut out, whole.len() as u32);
        word(&mut out, border as u32);
        for level in &whole {
            write_level(&mut out, level, 0, Some(level.shift));
        }
        out
    }

    /// Levels stored by [`Self::to_whole_bytes`] over `hierarchy`.
    ///
    /// # Errors
    /// One sentence saying what does not fit: the border count, a count beyond the bytes
    /// present, levels out of order, a member or an edge target out of range.
    #[cfg(test)]
    pub fn from_whole_bytes(bytes: &[u8], hierarchy: &Hierarchy) -> Result<Self, String> {
        let border = hierarchy.border_count();
        Self::from_parsed(Self::parse(&mut SliceWords::new(bytes), border)?, hierarchy)
    }

    /// Levels stored by [`Self::to_stored`] over `hierarchy`, its cells left to decode.
    ///
    /// # Errors
    /// As [`Self::parse_cells`] and [`Self::from_parsed`].
    #[cfg(test)]
    pub fn from_stored(
        stored: Vec<u8>,
        raw_len: u64,
        hierarchy: &Hierarchy,
    ) -> Result<Self, String> {
        let border = hierarchy.border_count();
        Self::from_parsed(
            Self::parse_cells(Arc::new(stored), raw_len, border)?,
            hierarchy,
        )
    }

    /// The part of reading a `levels` chunk of earlier builds that needs no hierarchy, read
    /// from `words` (the stored chunk as it decompresses). `most_border` bounds the border
    /// nodes they may claim (the graph's node count will do) before anything is allocated
    /// by it.
    ///
    /// # Errors
    /// One sentence saying what does not fit: a count beyond the bytes present, levels out
    /// of order, a member or an edge target out of range.
    pub fn parse(words: &mut impl WordSource, most_border: usize) -> Result<ParsedLevels, String> {
        let count = words.next()? as usize;
        let border = words.next()? as usize;
        if count > MOST_LEVELS {
            return Err(format!(
                "the levels claim {count} levels, at most {MOST_LEVELS} fit a map"
            ));
        }
        if border > most_border {
            return Err(format!(
                "the levels cover {border} border nodes, the hierarchy has {most_border} at most"
            ));
        }
        let mut levels = Vec::with_capacity(count);
        let mut below = 0;
        for _ in 0..count {
            let shift = words.next()?;
            check_shift(shift, below)?;
            below = shift;
            levels.push(read_level(words, (0, border as u32), border, shift)?);
        }
        let rest = words.rest()?.len();
        if rest != 0 {
            return Err(format!(
                "the levels hold {rest} bytes after their last level"
            ));
        }
        Ok(ParsedLevels {
            border,
            stored: Stored::Whole(levels),
        })
    }

    /// The part of reading a `level_cells` chunk (`chunk`, its stored bytes, which
    /// decompress to `raw_len`) that needs no hierarchy: its frame 0 (the top level and
    /// where each cell's block lies), decoded as it decompresses. The cells' blocks are
    /// left in `chunk` until a search reads them.
    ///
    /// # Errors
    /// As [`Self::parse`], and when the blocks do not fill the chunk.
    pub fn parse_cells(
        chunk: Arc<Vec<u8>>,
        raw_len: u64,
        most_border: usize,
    ) -> Result<ParsedLevels, String> {
        let head_len = zstd::zstd_safe::find_frame_compressed_size(&chunk)
            .map_err(|_| "the levels' first frame does not decompress".to_owned())?;
        let head = &chunk[..head_len];
        let head_raw = zstd::zstd_safe::get_frame_content_size(head)
            .ok()
            .flatten()
            .filter(|&n| n <= raw_len)
            .ok_or_else(|| "the levels' first frame states no length that fits".to_owned())?;
        let mut words = StreamWords::new(head, head_raw)?;
        let count = words.next()? as usize;
        let border = words.next()? as usize;
        let cells = words.next()? as usize;
        if !(1..=MOST_LEVELS).contains(&count) {
            return Err(format!(
                "the levels claim {count} levels, 1 to {MOST_LEVELS} fit a map"
            ));
        }
        if border > most_border {
            return Err(format!(
                "the levels cover {border} border nodes, the hierarchy has {most_border} at most"
            ));
        }
        if cells > border || 4 * (count as u64 + 2 * cells as u64) > words.left() {
            return Err(format!(
                "the levels claim {cells} cells, more than their first frame holds"
            ));
        }
        let mut shifts = vec![0u32; count];
        words.fill(&mut shifts)?;
        let mut below = 0;
        for &shift in &shifts {
            check_shift(shift, below)?;
            below = shift;
        }
        let mut stored_lens = vec![0u32; cells];
        let mut raw_lens = vec![0u32; cells];
        words.fill(&mut stored_lens)?;
        words.fill(&mut raw_lens)?;
        let stored_sum: u64 = stored_lens.iter().map(|&n| u64::from(n)).sum();
        let raw_sum: u64 = raw_lens.iter().map(|&n| u64::from(n)).sum();
        if stored_sum != (chunk.len() - head_len) as u64 || raw_sum + head_raw != raw_len {
            return Err("the cells' blocks do not fill the levels chunk".to_owned());
        }
        let top = read_level(&mut words, (0, border as u32), border, below)?;
        let rest = words.rest()?.len();
        if rest != 0 {
            return Err(format!(
                "the levels' first frame holds {rest} bytes after the top level"
            ));
        }
        let mut at = head_len;
        let blocks = stored_lens
            .iter()
            .zip(&raw_lens)
            .map(|(&stored, &raw)| {
                let range = at..at + stored as usize;
                at = range.end;
                StoredCell {
                    chunk: Arc::clone(&chunk),
                    range,
                    raw_len: u64::from(raw),
                }
            })
            .collect();
        Ok(ParsedLevels {
            border,
            stored: Stored::Cells {
                shifts,
                top: Box::new(top),
                blocks,
            },
        })
    }

    /// The levels [`Self::parse`] or [`Self::parse_cells`] read, checked against
    /// `hierarchy`: its border count, the members of each level read whole, the cells of
    /// the top level.
    ///
    /// # Errors
    /// When they do not fit it.
    pub fn from_parsed(parsed: ParsedLevels, hierarchy: &Hierarchy) -> Result<Self, String> {
        let border = hierarchy.border_count();
        if parsed.border != border {
            return Err(format!(
                "the levels cover {} border nodes, the hierarchy has {border}",
                parsed.border
            ));
        }
        let check = |mut level: Level| {
            let (member, cells) = members_and_cells(hierarchy, level.shift);
            if member != level.member {
                return Err(format!(
                    "the members of the level of {} key bits are not the hierarchy's",
                    level.shift
                ));
            }
            level.cells = cells;
            Ok(level)
        };
        match parsed.stored {
            Stored::Whole(levels) => {
                let levels = levels
                    .into_par_iter()
                    .map(check)
                    .collect::<Vec<_>>()
                    // The lowest damaged level's sentence, whichever thread found it first.
                    .into_iter()
                    .collect::<Result<Vec<Level>, String>>()?;
                Ok(Self::from_whole(levels))
            }
            Stored::Cells {
                shifts,
                top,
                blocks,
            } => {
                let top = check(*top)?;
                if blocks.len() != top.cells.len() {
                    return Err(format!(
                        "the levels store {} cells, the hierarchy's top level has {}",
                        blocks.len(),
                        top.cells.len()
                    ));
                }
                let none_below = shifts.len() == 1;
                let below = top
                    .cells
                    .iter()
                    .zip(blocks)
                    .map(|(&(_, lo, hi), block)| Below {
                        lo,
                        hi,
                        levels: if none_below {
                            OnceLock::from(Decoded {
                                levels: Some(Vec::new()),
                                in_background: false,
                            })
                        } else {
                            OnceLock::new()
                        },
                        built: OnceLock::new(),
                        stored: Mutex::new((!none_below).then_some(block)),
                    })
                    .collect();
                Ok(Self::assemble(shifts, top, below))
            }
        }
    }
}

/// Stored levels read by [`Levels::parse`] or [`Levels::parse_cells`], before they meet
/// their hierarchy.
#[derive(Debug)]
pub struct ParsedLevels {
    /// Border nodes the levels cover.
    border: usize,
    stored: Stored,
}

/// What a levels chunk gave.
#[derive(Debug)]
enum Stored {
    /// Every level whole, without their cells (the `levels` chunk).
    Whole(Vec<Level>),
    /// The top level without its cells, and each cell's block (the `level_cells` chunk).
    Cells {
        shifts: Vec<u32>,
        top: Box<Level>,
        blocks: Vec<StoredCell>,
    },
}

/// Whether a level of cells of `shift` key bits may follow one of `below` bits.
fn check_shift(shift: u32, below: u32) -> Result<(), String> {
    if shift <= below || shift > 30 || !shift.is_multiple_of(2) {
        return Err(format!(
            "a level has cells of {shift} key bits after one of {below}"
        ));
    }
    Ok(())
}

/// Appends `level`'s members from border index `from` on (its base): with `shift`, the
/// layout of the `levels` chunk (shift first), without it the `level_cells` chunk's.
fn write_level(out: &mut Vec<u8>, level: &Level, from: u32, shift: Option<u32>) {
    let word = |out: &mut Vec<u8>, w: u32| out.extend_from_slice(&w.to_le_bytes());
    let members: Vec<u32> = (0..level.member.len() as u32)
        .filter(|&b| level.member[b as usize])
        .map(|b| b + level.base)
        .collect();
    if let Some(shift) = shift {
        word(out, shift);
    }
    word(out, members.len() as u32);
    word(out, level.edges.len() as u32);
    let mut previous = from;
    for &b in &members {
        word(out, b.wrapping_sub(previous));
        previous = b;
    }
    for &b in &members {
        word(out, level.edges(b).len() as u32);
    }
    for &b in &members {
        for (t, _) in level.edges(b) {
            word(out, t.wrapping_sub(b));
        }
    }
    for &b in &members {
        for (_, w) in level.edges(b) {
            word(out, w);
        }
    }
}

/// The levels below the top inside one cell of the top level (border indices `lo..hi`
/// of `border`), whose cells are `shifts` key bits, from the cell's stored block.
///
/// # Errors
/// One sentence when the block does not decompress or its tables do not fit the cell.
pub(super) fn decode_cell(
    stored: &StoredCell,
    shifts: &[u32],
    (lo, hi): (u32, u32),
    border: usize,
) -> Result<Vec<Level>, String> {
    let bytes = stored
        .chunk
        .get(stored.range.clone())
        .ok_or_else(|| "a cell's block lies outside its chunk".to_owned())?;
    let mut words = StreamWords::new(bytes, stored.raw_len)?;
    let levels = shifts
        .iter()
        .map(|&shift| read_level(&mut words, (lo, hi), border, shift))
        .collect::<Result<Vec<_>, String>>()?;
    let rest = words.rest()?.len();
    if rest != 0 {
        return Err(format!(
            "a cell's block holds {rest} bytes after its levels"
        ));
    }
    Ok(levels)
}

/// One level's member and edge counts and tables from `words`, its members within border
/// indices `lo..hi` (a whole level: `0..border`) and its edges' targets below `border`.
fn read_level(
    words: &mut impl WordSource,
    (lo, hi): (u32, u32),
    border: usize,
    shift: u32,
) -> Result<Level, String> {
    let members = words.next()? as usize;
    let edges = words.next()? as usize;
    let left = words.left();
    if hi < lo || members > (hi - lo) as usize || 8 * members as u64 + 8 * edges as u64 > left {
        return Err(format!(
            "a level claims {members} members and {edges} edges, more than its {left} bytes hold"
        ));
    }
    parse_level(words, (lo, hi), border, shift, members, edges)
}

/// One level's tables (members, counts, targets and weights, after its counts) over
/// border indices `lo..hi`, read from `words`; its cells are left for
/// [`Levels::from_parsed`].
fn parse_level(
    words: &mut impl WordSource,
    (lo, hi): (u32, u32),
    border: usize,
    shift: u32,
    members: usize,
    edges: usize,
) -> Result<Level, String> {
    let len = (hi - lo) as usize;
    let mut member = vec![false; len];
    let mut ids = vec![0u32; members];
    words.fill(&mut ids)?;
    let mut previous = lo;
    for (i, id) in ids.iter_mut().enumerate() {
        let b = previous.wrapping_add(*id);
        if b < lo || b >= hi || (i > 0 && b <= previous) {
            return Err(format!("a level's member {b} is out of order or range"));
        }
        member[(b - lo) as usize] = true;
        *id = b;
        previous = b;
    }
    let mut degrees = vec![0u32; members];
    words.fill(&mut degrees)?;
    let mut degree = vec![0u32; len];
    let mut total = 0u64;
    for (&b, &d) in ids.iter().zip(&degrees) {
        degree[(b - lo) as usize] = d;
        total += u64::from(d);
    }
    if total != edges as u64 {
        return Err(format!(
            "a level's edge counts add up to {total}, it holds {edges} edges"
        ));
    }
    let mut first = Vec::with_capacity(len + 1);
    let mut sum = 0u32;
    for &d in &degree {
        first.push(sum);
        sum += d;
    }
    first.push(sum);
    // Members ascend, so their edges are the lists in order (non-members have none).
    let edges = PackedEdges::read(words, lo, &first, border, "a level")?;
    Ok(Level {
        shift,
        base: lo,
        member,
        edges,
        cells: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::hierarchy::Hierarchy;
    use crate::landmarks::tests::random_layer_sized;
    use crate::rng::SplitMix64;
    use crate::search_graph::SearchGraph;

    /// The levels of `random_layer_sized(seed, 320, 3)`: 14 × 14 clusters, two levels, the
    /// top one of 16 cells.
    fn levels_of(seed: u64) -> (Hierarchy, Levels) {
        let layer = random_layer_sized(seed, 320, 3);
        let hierarchy = Hierarchy::build(&SearchGraph::new(&layer));
        let levels = Levels::build(&hierarchy);
        assert_eq!(levels.count(), 2);
        (hierarchy, levels)
    }

    #[test]
    fn whole_levels_round_trip_and_damage_is_an_error_never_a_panic() {
        let (hierarchy, levels) = levels_of(6);
        let bytes = levels.to_whole_bytes(&hierarchy);
        let b = hierarchy.border_count();
        assert_eq!(
            Levels::from_whole_bytes(&bytes, &hierarchy).unwrap(),
            levels
        );
        // Read as the stored chunk decompresses, as a game's first request reads them.
        let stored = zstd::bulk::compress(&bytes, 3).unwrap();
        let mut words = StreamWords::new(&stored, bytes.len() as u64).unwrap();
        let parsed = Levels::parse(&mut words, b).unwrap();
        assert_eq!(Levels::from_parsed(parsed, &hierarchy).unwrap(), levels);
        // More border nodes than the caller allows are refused before anything is allocated.
        assert!(Levels::parse(&mut SliceWords::new(&bytes), b - 1).is_err());
        let other = Hierarchy::build(&SearchGraph::new(&random_layer_sized(7, 320, 3)));
        assert!(Levels::from_whole_bytes(&bytes, &other).is_err());
        for cut in (0..bytes.len()).step_by(7) {
            assert!(
                Levels::from_whole_bytes(&bytes[..cut], &hierarchy).is_err(),
                "cut at {cut}"
            );
        }
        let mut rng = SplitMix64::new(99);
        for _ in 0..400 {
            let mut damaged = bytes.clone();
            let i = rng.below(damaged.len() as u32) as usize;
            damaged[i] ^= 1 << rng.below(8);
            // Either an error or levels within range: never a panic.
            if let Ok(l) = Levels::from_whole_bytes(&damaged, &hierarchy) {
                assert!(l.top.member.len() == b);
            }
        }
    }

    /// The `level_cells` chunk gives the levels built, decoding no cell until one is read;
    /// the `levels` chunk of earlier builds gives the same.
    #[test]
    fn cell_levels_round_trip_and_decode_only_the_cells_read() {
        let (hierarchy, levels) = levels_of(6);
        let (raw_len, stored) = levels.to_stored(&hierarchy, 3);
        // One zstd stream: the frames decompress one after another to the raw length.
        assert_eq!(
            zstd::decode_all(stored.as_slice()).unwrap().len() as u64,
            raw_len
        );
        let read = Levels::from_stored(stored.clone(), raw_len, &hierarchy).unwrap();
        let (cells, decoded) = read.cells_decoded();
        assert_eq!(
            (cells, decoded),
            (16, 0),
            "top cells, decoded before a read"
        );
        // A node's edges at the level below the top decode its cell alone.
        let b = (0..hierarchy.border_count() as u32)
            .find(|&b| levels.edges(&hierarchy, 1, b).len() > 0)
            .unwrap();
        assert!(
            read.edges(&hierarchy, 1, b)
                .eq(levels.edges(&hierarchy, 1, b))
        );
        assert_eq!(read.cells_decoded(), (16, 1));
        // Comparing decodes the rest for the comparison only.
        assert_eq!(read, levels);
        assert_eq!(read.cells_decoded(), (16, 1));
        // Written again with its cells undecoded: the same bytes.
        assert_eq!(read.to_stored(&hierarchy, 3), (raw_len, stored));
        let whole = levels.to_whole_bytes(&hierarchy);
        assert_eq!(Levels::from_whole_bytes(&whole, &hierarchy).unwrap(), read);
    }

    /// Threads reading the same undecoded levels at once (each cell's `OnceLock` decodes
    /// it for all of them) each see the levels built.
    #[test]
    fn threads_share_the_cells_they_decode() {
        let (hierarchy, levels) = levels_of(3);
        let (raw_len, stored) = levels.to_stored(&hierarchy, 3);
        let read = Levels::from_stored(stored, raw_len, &hierarchy).unwrap();
        let n = hierarchy.border_count() as u32;
        let expected: Vec<Vec<(u32, u32)>> = (0..n)
            .map(|b| levels.edges(&hierarchy, 1, b).collect())
            .collect();
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                let (read, hierarchy, expected) = (&read, &hierarchy, &expected);
                scope.spawn(move || {
                    // Each thread walks the border nodes from its own start.
                    for i in 0..n {
                        let b = (i + t * n / 4) % n;
                        let edges: Vec<_> = read.edges(hierarchy, 1, b).collect();
                        assert_eq!(edges, expected[b as usize]);
                    }
                });
            }
        });
        assert_eq!(read.cells_decoded(), (16, 16));
        assert_eq!(read, levels);
    }

    #[test]
    fn a_damaged_cell_block_is_an_error_and_its_cell_is_built_again() {
        let (hierarchy, levels) = levels_of(8);
        let (raw_len, stored) = levels.to_stored(&hierarchy, 3);
        let b = hierarchy.border_count();
        let other = Hierarchy::build(&SearchGraph::new(&random_layer_sized(7, 320, 3)));
        assert!(Levels::from_stored(stored.clone(), raw_len, &other).is_err());
        assert!(Levels::from_stored(stored.clone(), raw_len + 1, &hierarchy).is_err());
        for cut in (0..stored.len()).step_by(97) {
            assert!(
                Levels::from_stored(stored[..cut].to_vec(), raw_len, &hierarchy).is_err(),
                "cut at {cut}"
            );
        }
        let head = zstd::zstd_safe::find_frame_compressed_size(&stored).unwrap();
        let seed = 0x001e_7e15_u64;
        println!("seed {seed}");
        let mut rng = SplitMix64::new(seed);
        let mut errors = 0;
        for _ in 0..300 {
            let mut damaged = stored.clone();
            let i = rng.below(damaged.len() as u32) as usize;
            damaged[i] ^= 1 << rng.below(8);
            // Frame 0 is checked on reading (zstd keeps no checksum of its own: damage may
            // also decode to other levels in range, which the package's checksum catches);
            // a cell's block when the cell is read.
            let Ok(read) = Levels::from_stored(damaged, raw_len, &hierarchy) else {
                continue;
            };
            if i < head {
                continue;
            }
            for (c, cell) in read.below.iter().enumerate() {
                let lower = &read.shifts[..1];
                let block = cell.stored.lock().unwrap().clone().unwrap();
                match decode_cell(&block, lower, (cell.lo, cell.hi), b) {
                    Err(_) => errors += 1,
                    // Within range, if not the levels built.
                    Ok(l) => assert!(
                        l[0].member.len() == (cell.hi - cell.lo) as usize,
                        "cell {c}"
                    ),
                }
            }
        }
        println!("{errors} damaged blocks found");
        assert!(errors > 20, "only {errors} damaged blocks found");
        // A block that does not decode: its cell is built again, so answers stay the same.
        let read = Levels::from_stored(stored, raw_len, &hierarchy).unwrap();
        for cell in read.below.iter() {
            let mut slot = cell.stored.lock().unwrap();
            let block = slot.as_mut().unwrap();
            let mut bytes = block.chunk.as_ref().clone();
            bytes[block.range.clone()].fill(0);
            block.chunk = Arc::new(bytes);
            let lower = &read.shifts[..1];
            assert!(decode_cell(block, lower, (cell.lo, cell.hi), b).is_err());
        }
        for i in 0..read.below.len() {
            assert_eq!(
                read.lower(&hierarchy, i),
                levels.lower(&hierarchy, i),
                "cell {i}"
            );
        }
        assert_eq!(read, levels);
    }
}
