//! Border nodes' edge lists held in 4 bytes an edge instead of 8: a shortcut joins two
//! border nodes of one cluster (or members of one cell of a level), whose border indices
//! lie close together, so its target is kept as a 16-bit difference from its source beside
//! its weight in 16 bits (a heavier weight spills, see [`crate::spill`]). The hierarchy's
//! and its levels' edges are the largest tables a type's search holds (25 million edges
//! at 8192²).

use crate::package::words::{BLOCK_WORDS, WordSource};
use crate::spill::{HEAVY, NO_SPILL, Spill, narrow_weight};

/// Edge lists by border index (from a base): each list's leading edges whose target lies
/// within an `i16` of the source are kept as `(difference, weight)` in `delta` and
/// `weight`, the rest (edges out of the cell, and any shortcut farther off) whole in
/// `far`, so a list reads back in its order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PackedEdges {
    /// Per index its first near edge; one more closes the last.
    near_first: Vec<u32>,
    /// Per index its first far edge; one more closes the last.
    far_first: FarFirst,
    /// Near edges: target minus source.
    delta: Vec<i16>,
    /// Near edges: weight, or [`HEAVY`] for one in `heavy`.
    weight: Vec<u16>,
    /// Near edges' weights that do not fit 16 bits, by position among the near edges.
    heavy: Spill,
    /// Far edges: `(target, weight)`.
    far: Vec<(u32, u32)>,
}

impl PackedEdges {
    /// The lists of `first` and `edges` (index `i`'s are `edges[first[i]..first[i + 1]]`)
    /// whose sources are border indices `base + i`.
    pub(super) fn new(base: u32, first: &[u32], edges: &[(u32, u32)]) -> Self {
        // Room for every edge near; what the far ones leave unused is given back after.
        let mut packed = Self {
            near_first: Vec::with_capacity(first.len()),
            far_first: FarFirst::default(),
            delta: Vec::with_capacity(edges.len()),
            weight: Vec::with_capacity(edges.len()),
            heavy: Spill::default(),
            far: Vec::new(),
        };
        for (i, pair) in first.windows(2).enumerate() {
            packed.push_list(base + i as u32, &edges[pair[0] as usize..pair[1] as usize]);
        }
        packed.close();
        packed.delta.shrink_to_fit();
        packed.weight.shrink_to_fit();
        packed.heavy.shrink_to_fit();
        packed.far.shrink_to_fit();
        packed
    }

    /// The lists `first` counts (index `i`'s `first[i]..first[i + 1]` of the edges, whose
    /// source is border index `base + i`) read from `words` as the chunks store them: every
    /// target as a step from its source, then every weight. Packed as they are read, so no
    /// list is held whole first. Every target must be below `bound`; `what` names the table
    /// in the errors.
    ///
    /// # Errors
    /// As [`WordSource::fill`]; when a target is out of range.
    pub(super) fn read(
        words: &mut impl WordSource,
        base: u32,
        first: &[u32],
        bound: usize,
        what: &str,
    ) -> Result<Self, String> {
        let n = first.last().copied().unwrap_or(0) as usize;
        let lists = first.len().saturating_sub(1);
        let mut packed = Self {
            near_first: Vec::with_capacity(lists + 1),
            far_first: FarFirst::default(),
            delta: Vec::with_capacity(n),
            weight: Vec::new(),
            heavy: Spill::default(),
            far: Vec::new(),
        };
        // The targets: each list's leading near ones, then the rest far (weights to come).
        let out_of_range =
            |t: u32| format!("an edge of {what} leads to border node {t} of {bound}");
        let mut block = Block::new(words, n);
        for (i, pair) in first.windows(2).enumerate() {
            packed.near_first.push(packed.delta.len() as u32);
            packed.far_first.push(packed.far.len() as u32);
            let source = base.wrapping_add(i as u32);
            let mut left = pair[1].saturating_sub(pair[0]);
            while left > 0 {
                let words = block.next(left as usize)?;
                left -= words.len() as u32;
                let mut k = 0;
                // Still in the list's near run while no edge of it went far.
                if packed.far_first.last() as usize == packed.far.len() {
                    while let Some(d) = words.get(k).and_then(|&w| step(w)) {
                        let t = words[k].wrapping_add(source);
                        if t as usize >= bound {
                            return Err(out_of_range(t));
                        }
                        packed.delta.push(d);
                        k += 1;
                    }
                }
                for &w in &words[k..] {
                    let t = w.wrapping_add(source);
                    if t as usize >= bound {
                        return Err(out_of_range(t));
                    }
                    packed.far.push((t, 0));
                }
            }
        }
        packed.close();
        packed.delta.shrink_to_fit();
        packed.far.shrink_to_fit();
        // The weights, in the same order: a list's near edges' (one run over all lists),
        // then its far edges'.
        packed.weight.reserve_exact(packed.delta.len());
        let mut block = Block::new(words, n);
        let mut far = 0usize;
        for i in 0..lists {
            let mut near = (packed.near_first[i + 1] - packed.near_first[i]) as usize;
            while near > 0 {
                let words = block.next(near)?;
                near -= words.len();
                for &w in words {
                    packed.push_weight(w);
                }
            }
            let end = packed.far_first.get(i + 1) as usize;
            while far < end {
                let words = block.next(end - far)?;
                for (slot, &w) in packed.far[far..].iter_mut().zip(words) {
                    slot.1 = w;
                }
                far += words.len();
            }
        }
        packed.heavy.shrink_to_fit();
        Ok(packed)
    }

    /// Appends the weight of the next near edge.
    fn push_weight(&mut self, w: u32) {
        let narrow = narrow_weight(w);
        if narrow == HEAVY {
            self.heavy.push(self.weight.len() as u32, w);
        }
        self.weight.push(narrow);
    }

    /// Appends the list of the next index, whose source is `source`.
    fn push_list(&mut self, source: u32, list: &[(u32, u32)]) {
        self.near_first.push(self.delta.len() as u32);
        self.far_first.push(self.far.len() as u32);
        let mut rest = list;
        while let Some((&(t, w), tail)) = rest.split_first() {
            let Some(d) = near_delta(source, t) else {
                break;
            };
            self.delta.push(d);
            self.push_weight(w);
            rest = tail;
        }
        self.far.extend_from_slice(rest);
    }

    /// Closes the last list.
    fn close(&mut self) {
        self.near_first.push(self.delta.len() as u32);
        self.far_first.push(self.far.len() as u32);
    }

    /// Number of lists.
    #[cfg(test)]
    pub(super) fn lists(&self) -> usize {
        self.near_first.len().saturating_sub(1)
    }

    /// Number of edges.
    pub(super) fn len(&self) -> usize {
        self.delta.len() + self.far.len()
    }

    /// The edges of index `i`, whose source is border index `source`, in their order.
    pub(super) fn edges(&self, i: usize, source: u32) -> Edges<'_> {
        let near = self.near_first[i] as usize..self.near_first[i + 1] as usize;
        let far = self.far_first.get(i) as usize..self.far_first.get(i + 1) as usize;
        Edges {
            source,
            at: near.start as u32,
            heavy: &self.heavy,
            near: self.delta[near.clone()]
                .iter()
                .zip(self.weight[near].iter()),
            far: self.far[far].iter(),
        }
    }

    /// The lists of indices `lo..hi`, from a base `lo` further on.
    pub(super) fn part(&self, lo: usize, hi: usize) -> Self {
        let (near_from, near_to) = (self.near_first[lo], self.near_first[hi]);
        let (far_from, far_to) = (self.far_first.get(lo), self.far_first.get(hi));
        Self {
            near_first: self.near_first[lo..=hi]
                .iter()
                .map(|&f| f - near_from)
                .collect(),
            far_first: (lo..=hi)
                .map(|j| self.far_first.get(j) - far_from)
                .collect(),
            delta: self.delta[near_from as usize..near_to as usize].to_vec(),
            weight: self.weight[near_from as usize..near_to as usize].to_vec(),
            heavy: self.heavy.part(near_from, near_to),
            far: self.far[far_from as usize..far_to as usize].to_vec(),
        }
    }

    /// Appends `other`'s lists after this one's (whose sources follow on).
    pub(super) fn append(&mut self, other: &Self) {
        let (near, far) = (self.delta.len() as u32, self.far.len() as u32);
        // This one's closing entries give way to the other's opening ones.
        self.near_first.pop();
        self.far_first.pop();
        self.near_first
            .extend(other.near_first.iter().map(|&f| f + near));
        for j in 0..other.far_first.len() {
            self.far_first.push(other.far_first.get(j) + far);
        }
        self.delta.extend_from_slice(&other.delta);
        self.weight.extend_from_slice(&other.weight);
        self.heavy.append(&other.heavy, near);
        self.far.extend_from_slice(&other.far);
        if self.near_first.is_empty() {
            self.close();
        }
    }

    /// Bytes it holds.
    pub(super) fn memory(&self) -> usize {
        4 * self.near_first.capacity()
            + self.far_first.memory()
            + 2 * self.delta.capacity()
            + 2 * self.weight.capacity()
            + self.heavy.memory()
            + 8 * self.far.capacity()
    }
}

/// Where each list's far edges start among the far edges, a nondecreasing sequence that
/// rises at the few lists with far edges (at 8192² 42,000 of several million): a bit per
/// list marks those, with a count of marks per 64 lists and the start of each marked one,
/// instead of a `u32` per list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FarFirst {
    /// Bit `i` set: list `i` has far edges (entry `i + 1` exceeds entry `i`).
    marked: Vec<u64>,
    /// Per word of `marked`, the marks in the words before it.
    rank: Vec<u32>,
    /// Per marked list in order, its entry.
    starts: Vec<u32>,
    /// Entries pushed.
    len: usize,
    /// The last entry pushed.
    last: u32,
}

impl FarFirst {
    /// Appends the next entry (at least the last one).
    fn push(&mut self, v: u32) {
        debug_assert!(self.len == 0 || v >= self.last);
        if self.len > 0 && v > self.last {
            let i = self.len - 1;
            self.marked[i / 64] |= 1 << (i % 64);
            self.starts.push(self.last);
        }
        if self.len.is_multiple_of(64) {
            let before = match (self.rank.last(), self.marked.last()) {
                (Some(&r), Some(&w)) => r + w.count_ones(),
                _ => 0,
            };
            self.rank.push(before);
            self.marked.push(0);
        }
        self.last = v;
        self.len += 1;
    }

    /// Entry `i`.
    #[inline]
    fn get(&self, i: usize) -> u32 {
        debug_assert!(i < self.len);
        let below = self.marked[i / 64] & ((1u64 << (i % 64)) - 1);
        let k = self.rank[i / 64] + below.count_ones();
        self.starts.get(k as usize).copied().unwrap_or(self.last)
    }

    /// The last entry (0 when empty).
    fn last(&self) -> u32 {
        self.last
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Drops the last entry.
    fn pop(&mut self) {
        if self.len == 0 {
            return;
        }
        self.len -= 1;
        if self.len.is_multiple_of(64) {
            self.marked.pop();
            self.rank.pop();
        }
        if self.len > 0 {
            let i = self.len - 1;
            if self.marked[i / 64] & (1 << (i % 64)) != 0 {
                self.marked[i / 64] &= !(1 << (i % 64));
                self.last = self.starts.pop().unwrap_or(0);
            }
        } else {
            self.last = 0;
        }
    }

    fn shrink_to_fit(&mut self) {
        self.marked.shrink_to_fit();
        self.rank.shrink_to_fit();
        self.starts.shrink_to_fit();
    }

    /// Bytes it holds.
    fn memory(&self) -> usize {
        8 * self.marked.capacity() + 4 * (self.rank.capacity() + self.starts.capacity())
    }
}

impl FromIterator<u32> for FarFirst {
    fn from_iter<I: IntoIterator<Item = u32>>(entries: I) -> Self {
        let mut f = Self::default();
        for v in entries {
            f.push(v);
        }
        f.shrink_to_fit();
        f
    }
}

/// `target − source` if it fits an `i16`.
fn near_delta(source: u32, target: u32) -> Option<i16> {
    step(target.wrapping_sub(source))
}

/// A stored step from a source to its target (`target − source`, wrapping) if it fits an
/// `i16`: the targets as the chunks store them.
fn step(w: u32) -> Option<i16> {
    i16::try_from(w as i32).ok()
}

/// Words read a block at a time from a [`WordSource`], `n` in all.
struct Block<'w, W: WordSource> {
    words: &'w mut W,
    buf: Box<[u32]>,
    at: usize,
    held: usize,
    left: usize,
}

impl<'w, W: WordSource> Block<'w, W> {
    fn new(words: &'w mut W, n: usize) -> Self {
        Self {
            words,
            buf: vec![0; n.min(BLOCK_WORDS)].into_boxed_slice(),
            at: 0,
            held: 0,
            left: n,
        }
    }

    /// The next words, at most `most` and at least one.
    ///
    /// # Errors
    /// As [`WordSource::fill`]; when the `n` words are spent.
    fn next(&mut self, most: usize) -> Result<&[u32], String> {
        if self.at == self.held {
            let take = self.left.min(self.buf.len());
            if take == 0 {
                return Err("a table ends before its edges".to_owned());
            }
            self.words.fill(&mut self.buf[..take])?;
            (self.at, self.held, self.left) = (0, take, self.left - take);
        }
        let end = self.held.min(self.at + most);
        let words = &self.buf[self.at..end];
        self.at = end;
        Ok(words)
    }
}

/// One list's `(target, weight)` edges, in their order: the near ones, then the far ones.
#[derive(Clone, Debug)]
pub struct Edges<'a> {
    source: u32,
    /// Position of the next near edge among the near edges (where its heavy weight is).
    at: u32,
    heavy: &'a Spill,
    near: std::iter::Zip<std::slice::Iter<'a, i16>, std::slice::Iter<'a, u16>>,
    far: std::slice::Iter<'a, (u32, u32)>,
}

impl<'a> Edges<'a> {
    /// A list held whole.
    #[must_use]
    pub fn whole(list: &'a [(u32, u32)]) -> Self {
        Self {
            source: 0,
            at: 0,
            heavy: &NO_SPILL,
            near: [].iter().zip([].iter()),
            far: list.iter(),
        }
    }
}

impl Iterator for Edges<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        if let Some((&d, &w)) = self.near.next() {
            let at = self.at;
            self.at += 1;
            return Some((
                self.source.wrapping_add_signed(i32::from(d)),
                whole_weight(w, self.heavy, at),
            ));
        }
        self.far.next().copied()
    }

    /// The near edges, then the far ones, each a loop of its own (what `for_each` runs).
    fn fold<B, F: FnMut(B, (u32, u32)) -> B>(self, init: B, mut f: F) -> B {
        let (source, heavy, mut at) = (self.source, self.heavy, self.at);
        let acc = self.near.fold(init, |acc, (&d, &w)| {
            let weight = whole_weight(w, heavy, at);
            at += 1;
            f(acc, (source.wrapping_add_signed(i32::from(d)), weight))
        });
        self.far.fold(acc, |acc, &e| f(acc, e))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.near.len() + self.far.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Edges<'_> {}

/// The whole weight of the near edge at `at` whose 16-bit weight is `w`.
#[inline]
fn whole_weight(w: u16, heavy: &Spill, at: u32) -> u32 {
    if w == HEAVY {
        heavy.get(at)
    } else {
        u32::from(w)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::package::words::SliceWords;
    use crate::rng::SplitMix64;

    #[test]
    fn far_starts_read_back_as_pushed_and_popped() {
        for seed in 0..20 {
            let mut rng = SplitMix64::new(seed);
            let mut want: Vec<u32> = Vec::new();
            let mut got = FarFirst::default();
            for _ in 0..rng.below(400) {
                if !want.is_empty() && rng.below(8) == 0 {
                    want.pop();
                    got.pop();
                } else {
                    let last = want.last().copied().unwrap_or(0);
                    let v = last + if rng.below(4) == 0 { rng.below(5) } else { 0 };
                    want.push(v);
                    got.push(v);
                }
                assert_eq!(got.len(), want.len(), "seed {seed}");
                assert_eq!(got.last(), want.last().copied().unwrap_or(0), "seed {seed}");
                for (i, &v) in want.iter().enumerate() {
                    assert_eq!(got.get(i), v, "seed {seed} entry {i}");
                }
            }
            let rebuilt: FarFirst = want.iter().copied().collect();
            assert_eq!(rebuilt.len(), want.len());
            assert!((0..want.len()).all(|i| rebuilt.get(i) == want[i]));
        }
    }

    #[test]
    fn lists_read_back_in_their_order_near_or_far() {
        for seed in 0..20 {
            println!("seed {seed}");
            let mut rng = SplitMix64::new(seed);
            let base = rng.below(100_000);
            let n = 1 + rng.below(40) as usize;
            let mut first = vec![0u32];
            let mut edges = Vec::new();
            for i in 0..n {
                let source = base + i as u32;
                for _ in 0..rng.below(12) {
                    // Mostly near, some far either way, and the edges of an `i16`.
                    let t = match rng.below(6) {
                        0 => rng.below(u32::MAX),
                        1 => source.wrapping_add(32_767),
                        2 => source.wrapping_sub(32_768),
                        3 => source.wrapping_add(32_768),
                        _ => source.wrapping_add(rng.below(200)).wrapping_sub(100),
                    };
                    // Weights mostly narrow, some heavy, and the edges of 16 bits.
                    let w = match rng.below(4) {
                        0 => rng.below(u32::MAX),
                        1 => 65_534 + rng.below(3),
                        _ => rng.below(3000),
                    };
                    edges.push((t, w));
                }
                first.push(edges.len() as u32);
            }
            let packed = PackedEdges::new(base, &first, &edges);
            assert_eq!((packed.lists(), packed.len()), (n, edges.len()));
            let list = |p: &PackedEdges, i: usize, b: u32| p.edges(i, b).collect::<Vec<_>>();
            for i in 0..n {
                let want = &edges[first[i] as usize..first[i + 1] as usize];
                assert_eq!(list(&packed, i, base + i as u32), want);
                // Read one edge at a time too (`collect` folds).
                assert!(packed.edges(i, base + i as u32).eq(want.iter().copied()));
                assert_eq!(packed.edges(i, base + i as u32).len(), want.len());
            }
            // Read as the chunks store the lists: the same, and a target out of range is
            // an error.
            let mut words: Vec<u8> = Vec::new();
            for i in 0..n {
                for &(t, _) in &edges[first[i] as usize..first[i + 1] as usize] {
                    words.extend(t.wrapping_sub(base + i as u32).to_le_bytes());
                }
            }
            for &(_, w) in &edges {
                words.extend(w.to_le_bytes());
            }
            let read = |bound: usize| {
                PackedEdges::read(&mut SliceWords::new(&words), base, &first, bound, "lists")
            };
            assert_eq!(read(usize::MAX).unwrap(), packed);
            if let Some(&(most, _)) = edges.iter().max() {
                assert!(read(most as usize).is_err());
            }
            // A part, and parts appended again, hold the same lists.
            let cut = rng.below(n as u32 + 1) as usize;
            let mut joined = packed.part(0, cut);
            joined.append(&packed.part(cut, n));
            assert_eq!(joined, packed);
            let tail = packed.part(cut, n);
            for i in cut..n {
                assert_eq!(
                    list(&tail, i - cut, base + i as u32),
                    list(&packed, i, base + i as u32)
                );
            }
        }
    }
}
