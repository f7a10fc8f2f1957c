//! The levels as a package stores them (the `levels` chunk of `docs/package-format.md`), in
//! the border indices of the type's stored hierarchy:
//!
//! - `u32` level count `L`, border node count `B`;
//! - per level: `u32` shift (cluster-key bits of a cell), member count `M`, edge count `E`;
//!   `M × u32` members' border indices as differences from the previous one (the first from
//!   0, ascending); `M × u32` each member's edge count; `E × u32` each edge's target border
//!   index as a wrapping difference from its source's; `E × u32` edge weights.
//!
//! All little-endian. The reader checks every count against the bytes present and every
//! index against `B` before it allocates by them.

use rayon::prelude::*;

use super::{Level, Levels, members_and_cells};
use crate::hierarchy::Hierarchy;
#[cfg(test)]
use crate::package::words::SliceWords;
use crate::package::words::WordSource;

impl Levels {
    /// The levels as the package stores them.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let border = self.levels.first().map_or(0, |l| l.member.len());
        let mut out = Vec::new();
        let word = |out: &mut Vec<u8>, w: u32| out.extend_from_slice(&w.to_le_bytes());
        word(&mut out, self.levels.len() as u32);
        word(&mut out, border as u32);
        for level in &self.levels {
            let members: Vec<u32> = (0..level.member.len() as u32)
                .filter(|&b| level.member[b as usize])
                .collect();
            word(&mut out, level.shift);
            word(&mut out, members.len() as u32);
            word(&mut out, level.edges.len() as u32);
            let mut previous = 0u32;
            for &b in &members {
                word(&mut out, b.wrapping_sub(previous));
                previous = b;
            }
            for &b in &members {
                word(&mut out, level.edges(b).len() as u32);
            }
            for &b in &members {
                for &(t, _) in level.edges(b) {
                    word(&mut out, t.wrapping_sub(b));
                }
            }
            for &b in &members {
                for &(_, w) in level.edges(b) {
                    word(&mut out, w);
                }
            }
        }
        out
    }

    /// Levels stored by [`Self::to_bytes`] over `hierarchy`.
    ///
    /// # Errors
    /// One sentence saying what does not fit: the border count, a count beyond the bytes
    /// present, levels out of order, a member or an edge target out of range.
    #[cfg(test)]
    pub fn from_bytes(bytes: &[u8], hierarchy: &Hierarchy) -> Result<Self, String> {
        let border = hierarchy.border_count();
        Self::from_parsed(Self::parse(&mut SliceWords::new(bytes), border)?, hierarchy)
    }

    /// The part of [`Self::from_bytes`] that needs no hierarchy, read from `words` (a
    /// stored chunk as it decompresses): a game's first request reads the levels while it
    /// decodes the hierarchy they stand on. `most_border` bounds the border nodes they may
    /// claim (the graph's node count will do) before anything is allocated by it.
    ///
    /// # Errors
    /// As [`Self::from_bytes`], but for what [`Self::from_parsed`] checks.
    pub fn parse(words: &mut impl WordSource, most_border: usize) -> Result<ParsedLevels, String> {
        let count = words.next()? as usize;
        let border = words.next()? as usize;
        if count > 16 {
            return Err(format!(
                "the levels claim {count} levels, at most 16 fit a map"
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
            let members = words.next()? as usize;
            let edges = words.next()? as usize;
            if shift <= below || shift > 30 || shift % 2 != 0 {
                return Err(format!(
                    "a level has cells of {shift} key bits after one of {below}"
                ));
            }
            below = shift;
            let left = words.left();
            if members > border || 8 * members as u64 + 8 * edges as u64 > left {
                return Err(format!(
                    "a level claims {members} members and {edges} edges, more than its {left} bytes hold"
                ));
            }
            levels.push(parse_level(words, border, shift, members, edges)?);
        }
        let rest = words.rest()?.len();
        if rest != 0 {
            return Err(format!(
                "the levels hold {rest} bytes after their last level"
            ));
        }
        Ok(ParsedLevels { border, levels })
    }

    /// The levels [`Self::parse`] read, checked against `hierarchy`: its border count and
    /// each level's members.
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
        let levels = parsed
            .levels
            .into_par_iter()
            .map(|mut level| {
                let (member, cells) = members_and_cells(hierarchy, level.shift);
                if member != level.member {
                    return Err(format!(
                        "the members of the level of {} key bits are not the hierarchy's",
                        level.shift
                    ));
                }
                level.cells = cells;
                Ok(level)
            })
            .collect::<Vec<_>>()
            // The lowest damaged level's sentence, whichever thread found it first.
            .into_iter()
            .collect::<Result<Vec<Level>, String>>()?;
        Ok(Self { levels })
    }
}

/// Stored levels read by [`Levels::parse`], before they meet their hierarchy.
#[derive(Debug)]
pub struct ParsedLevels {
    /// Border nodes the levels cover.
    border: usize,
    /// The levels without their cells.
    levels: Vec<Level>,
}

/// One level stored by [`Levels::to_bytes`] (its members, counts, targets and weights,
/// after its header) over `border` border nodes, read from `words`; its cells are left
/// for [`Levels::from_parsed`].
fn parse_level(
    words: &mut impl WordSource,
    border: usize,
    shift: u32,
    members: usize,
    edges: usize,
) -> Result<Level, String> {
    let mut member = vec![false; border];
    let mut ids = vec![0u32; members];
    words.fill(&mut ids)?;
    let mut previous = 0u32;
    for (i, id) in ids.iter_mut().enumerate() {
        let b = previous.wrapping_add(*id);
        if (b as usize) >= border || (i > 0 && b <= previous) {
            return Err(format!("a level's member {b} is out of order or range"));
        }
        member[b as usize] = true;
        *id = b;
        previous = b;
    }
    let mut degrees = vec![0u32; members];
    words.fill(&mut degrees)?;
    let mut degree = vec![0u32; border];
    let mut total = 0u64;
    for (&b, &d) in ids.iter().zip(&degrees) {
        degree[b as usize] = d;
        total += u64::from(d);
    }
    if total != edges as u64 {
        return Err(format!(
            "a level's edge counts add up to {total}, it holds {edges} edges"
        ));
    }
    let mut first = Vec::with_capacity(border + 1);
    let mut sum = 0u32;
    for &d in &degree {
        first.push(sum);
        sum += d;
    }
    first.push(sum);
    // Members ascend, so their edges are the list in order: the targets fill it front to
    // back, each from its member (`sources` walks the members by their degrees).
    let sources = ids
        .iter()
        .zip(&degrees)
        .flat_map(|(&b, &d)| std::iter::repeat_n(b, d as usize));
    let list = words.edges(edges, sources, border, "a level")?;
    Ok(Level {
        shift,
        member,
        first,
        edges: list,
        cells: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::hierarchy::Hierarchy;
    use crate::landmarks::tests::random_layer_sized;
    use crate::package::words::StreamWords;
    use crate::search_graph::SearchGraph;

    #[test]
    fn levels_round_trip_and_damage_is_an_error_never_a_panic() {
        let layer = random_layer_sized(6, 320, 3);
        let graph = SearchGraph::new(&layer);
        let hierarchy = Hierarchy::build(&graph);
        let levels = Levels::build(&hierarchy);
        assert_eq!(levels.count(), 2);
        let bytes = levels.to_bytes();
        let b = hierarchy.border_count();
        assert_eq!(Levels::from_bytes(&bytes, &hierarchy).unwrap(), levels);
        // Read as the stored chunk decompresses, as a game's first request reads them.
        let stored = zstd::bulk::compress(&bytes, 3).unwrap();
        let mut words = StreamWords::new(&stored, bytes.len() as u64).unwrap();
        let parsed = Levels::parse(&mut words, b).unwrap();
        assert_eq!(Levels::from_parsed(parsed, &hierarchy).unwrap(), levels);
        // More border nodes than the caller allows are refused before anything is allocated.
        assert!(Levels::parse(&mut SliceWords::new(&bytes), b - 1).is_err());
        let other = Hierarchy::build(&SearchGraph::new(&random_layer_sized(7, 320, 3)));
        assert!(Levels::from_bytes(&bytes, &other).is_err());
        for cut in (0..bytes.len()).step_by(7) {
            assert!(
                Levels::from_bytes(&bytes[..cut], &hierarchy).is_err(),
                "cut at {cut}"
            );
        }
        let mut state = 99u64;
        for _ in 0..400 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(7);
            let mut damaged = bytes.clone();
            let i = (state >> 33) as usize % damaged.len();
            damaged[i] ^= 1 << ((state >> 20) % 8);
            // Either an error or levels within range: never a panic.
            if let Ok(l) = Levels::from_bytes(&damaged, &hierarchy) {
                assert!(l.levels.iter().all(|l| l.member.len() == b));
            }
        }
    }
}
