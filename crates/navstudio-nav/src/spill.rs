//! Edge fields held narrow, with the rare value that does not fit kept beside them by
//! position. The search's edge tables are the largest a type holds (35 million edges at
//! 8192²), and on the benchmark maps every weight fits 16 bits and nearly every target a
//! 16-bit step from its source, so each edge keeps 16-bit fields and a marker where the
//! whole value is in a [`Spill`].

/// A weight as 16 bits: itself below [`HEAVY`], else [`HEAVY`] (the whole weight spills).
#[must_use]
pub(crate) fn narrow_weight(w: u32) -> u16 {
    u16::try_from(w).unwrap_or(HEAVY)
}

/// The 16-bit weight of an edge whose whole weight is in a [`Spill`].
pub(crate) const HEAVY: u16 = u16::MAX;

/// Whole values of the edges whose narrow field could not hold them, `(position, value)`
/// ascending by position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spill {
    at: Vec<(u32, u32)>,
}

/// A spill with nothing in it, for edge lists held whole.
pub(crate) static NO_SPILL: Spill = Spill { at: Vec::new() };

impl Spill {
    /// Adds `value` at `position`, past every position held.
    pub(crate) fn push(&mut self, position: u32, value: u32) {
        debug_assert!(self.at.last().is_none_or(|&(p, _)| p < position));
        self.at.push((position, value));
    }

    /// The value held at `position` (0 when none is: never asked by a well-formed table).
    #[must_use]
    pub(crate) fn get(&self, position: u32) -> u32 {
        self.at
            .binary_search_by_key(&position, |&(p, _)| p)
            .map_or(0, |i| self.at[i].1)
    }

    /// The values at positions `lo..hi`, moved down by `lo`.
    #[must_use]
    pub(crate) fn part(&self, lo: u32, hi: u32) -> Self {
        let from = self.at.partition_point(|&(p, _)| p < lo);
        let to = self.at.partition_point(|&(p, _)| p < hi);
        Self {
            at: self.at[from..to]
                .iter()
                .map(|&(p, v)| (p - lo, v))
                .collect(),
        }
    }

    /// Appends `other`'s values, moved up by `by` (past every position held).
    pub(crate) fn append(&mut self, other: &Self, by: u32) {
        self.at.extend(other.at.iter().map(|&(p, v)| (p + by, v)));
    }

    /// Appends `other`'s values (past every position held).
    pub(crate) fn extend(&mut self, other: Self) {
        self.at.extend(other.at);
    }

    /// Gives back unused room.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.at.shrink_to_fit();
    }

    /// Bytes it holds.
    #[must_use]
    pub(crate) fn memory(&self) -> usize {
        8 * self.at.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_that_do_not_fit_spill() {
        assert_eq!(narrow_weight(0), 0);
        assert_eq!(narrow_weight(65_534), 65_534);
        assert_eq!(narrow_weight(65_535), HEAVY);
        assert_eq!(narrow_weight(u32::MAX), HEAVY);
        let mut spill = Spill::default();
        for p in [3, 7, 20, 21] {
            spill.push(p, p * 1000);
        }
        assert_eq!(spill.get(7), 7000);
        let part = spill.part(7, 21);
        assert_eq!((part.get(0), part.get(13)), (7000, 20_000));
        let mut joined = spill.part(0, 7);
        joined.append(&spill.part(7, 30), 7);
        assert_eq!(joined, spill);
    }
}
