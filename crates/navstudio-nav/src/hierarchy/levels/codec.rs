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
    pub fn from_bytes(bytes: &[u8], hierarchy: &Hierarchy) -> Result<Self, String> {
        let border = hierarchy.border_count();
        let mut r = Words { bytes, at: 0 };
        let count = r.next()? as usize;
        let stated = r.next()? as usize;
        if stated != border {
            return Err(format!(
                "the levels cover {stated} border nodes, the hierarchy has {border}"
            ));
        }
        if count > 16 {
            return Err(format!(
                "the levels claim {count} levels, at most 16 fit a map"
            ));
        }
        // Each level's bytes first (their counts say where the next begins), then the
        // levels side by side: a game's first request at 8192² waits for them.
        let mut spans: Vec<(u32, usize, usize, &[u8])> = Vec::with_capacity(count);
        let mut below = 0;
        for _ in 0..count {
            let shift = r.next()?;
            let members = r.next()? as usize;
            let edges = r.next()? as usize;
            if shift <= below || shift > 30 || shift % 2 != 0 {
                return Err(format!(
                    "a level has cells of {shift} key bits after one of {below}"
                ));
            }
            below = shift;
            let left = r.left();
            let needed = 8 * members as u64 + 8 * edges as u64;
            if members > border || needed > left {
                return Err(format!(
                    "a level claims {members} members and {edges} edges, more than its {left} bytes hold"
                ));
            }
            spans.push((
                shift,
                members,
                edges,
                &r.bytes[r.at..r.at + needed as usize],
            ));
            r.at += needed as usize;
        }
        if r.left() != 0 {
            return Err(format!(
                "the levels hold {} bytes after their last level",
                r.left()
            ));
        }
        let levels = spans
            .into_par_iter()
            .map(|(shift, members, edges, bytes)| {
                parse_level(bytes, hierarchy, shift, members, edges)
            })
            .collect::<Vec<_>>()
            // The lowest damaged level's sentence, whichever thread found it first.
            .into_iter()
            .collect::<Result<Vec<Level>, String>>()?;
        Ok(Self { levels })
    }
}

/// One level stored by [`Levels::to_bytes`] (`bytes`: its members, counts, targets and
/// weights, after its header), checked against `hierarchy`.
fn parse_level(
    bytes: &[u8],
    hierarchy: &Hierarchy,
    shift: u32,
    members: usize,
    edges: usize,
) -> Result<Level, String> {
    let border = hierarchy.border_count();
    let mut r = Words { bytes, at: 0 };
    let mut member = vec![false; border];
    let mut ids = Vec::with_capacity(members);
    let mut previous = 0u32;
    for i in 0..members {
        let b = previous.wrapping_add(r.next()?);
        if (b as usize) >= border || (i > 0 && b <= previous) {
            return Err(format!("a level's member {b} is out of order or range"));
        }
        member[b as usize] = true;
        ids.push(b);
        previous = b;
    }
    let mut degree = vec![0u32; border];
    let mut total = 0u64;
    for &b in &ids {
        let d = r.next()?;
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
    let mut list = vec![(0u32, 0u32); edges];
    for &b in &ids {
        for slot in &mut list[first[b as usize] as usize..first[b as usize + 1] as usize] {
            let t = r.next()?.wrapping_add(b);
            if t as usize >= border {
                return Err(format!(
                    "a level's edge leads to border node {t} of {border}"
                ));
            }
            slot.0 = t;
        }
    }
    for &b in &ids {
        for slot in &mut list[first[b as usize] as usize..first[b as usize + 1] as usize] {
            slot.1 = r.next()?;
        }
    }
    let (members_now, cells) = members_and_cells(hierarchy, shift);
    if members_now != member {
        return Err(format!(
            "the members of the level of {shift} key bits are not the hierarchy's"
        ));
    }
    Ok(Level {
        shift,
        member,
        first,
        edges: list,
        cells,
    })
}

/// A cursor over little-endian `u32`s.
struct Words<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Words<'_> {
    fn next(&mut self) -> Result<u32, String> {
        let b = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or_else(|| "the levels end inside a count".to_owned())?;
        self.at += 4;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn left(&self) -> u64 {
        self.bytes.len().saturating_sub(self.at) as u64
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::hierarchy::Hierarchy;
    use crate::landmarks::tests::random_layer_sized;
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
