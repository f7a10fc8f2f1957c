//! Reachability across links: the ground's islands stay as they are (an island is a
//! connected part of the ground, and its id says nothing of links); each link a movement
//! type may use adds a directed edge from the islands of its entry's cells to those of its
//! exit's (both ways for a two-way link). The islands links touch are condensed into their
//! strongly connected components, and each component keeps a bitset of the components it
//! reaches, so `reaches(a, b)` is two binary searches over the touched islands and one bit.

/// Island-to-island reachability of one movement type with its links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkReach {
    /// `(island id, component)` of every island a link touches, sorted by island.
    touched: Vec<(u32, u32)>,
    /// Per component, the components it reaches (itself included), as bits.
    rows: Vec<Vec<u64>>,
}

impl LinkReach {
    /// Reachability from directed island edges `(from, to)` (ids non-zero).
    #[must_use]
    pub fn new(edges: &[(u32, u32)]) -> Self {
        let mut ids: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let n = ids.len();
        let index = |i: u32| ids.binary_search(&i).unwrap_or(0);
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in edges {
            adj[index(a)].push(index(b));
        }
        // Closure by a search from every touched island: links are few (hundreds), so this
        // is a few hundred small searches, done when links or islands change.
        let words = n.div_ceil(64);
        let mut closure = vec![vec![0u64; words]; n];
        let mut stack = Vec::new();
        for (s, row) in closure.iter_mut().enumerate() {
            row[s / 64] |= 1 << (s % 64);
            stack.push(s);
            while let Some(v) = stack.pop() {
                for &t in &adj[v] {
                    if row[t / 64] & (1 << (t % 64)) == 0 {
                        row[t / 64] |= 1 << (t % 64);
                        stack.push(t);
                    }
                }
            }
        }
        // Components: islands that reach each other share a row.
        let mut component = vec![u32::MAX; n];
        let mut rows: Vec<Vec<u64>> = Vec::new();
        for v in 0..n {
            if component[v] != u32::MAX {
                continue;
            }
            let c = rows.len() as u32;
            for u in v..n {
                let both = closure[v][u / 64] & (1 << (u % 64)) != 0
                    && closure[u][v / 64] & (1 << (v % 64)) != 0;
                if both {
                    component[u] = c;
                }
            }
            rows.push(Vec::new());
        }
        let comps = rows.len();
        for (v, row) in closure.iter().enumerate() {
            let c = component[v] as usize;
            if !rows[c].is_empty() {
                continue;
            }
            let mut bits = vec![0u64; comps.div_ceil(64)];
            for u in 0..n {
                if row[u / 64] & (1 << (u % 64)) != 0 {
                    let cu = component[u] as usize;
                    bits[cu / 64] |= 1 << (cu % 64);
                }
            }
            rows[c] = bits;
        }
        Self {
            touched: ids.into_iter().zip(component).collect(),
            rows,
        }
    }

    fn component(&self, island: u32) -> Option<usize> {
        self.touched
            .binary_search_by_key(&island, |&(i, _)| i)
            .ok()
            .map(|k| self.touched[k].1 as usize)
    }

    /// Whether an agent on island `from` can reach island `to` (0 is a wall: never).
    #[must_use]
    pub fn reaches(&self, from: u32, to: u32) -> bool {
        if from == 0 || to == 0 {
            return false;
        }
        if from == to {
            return true;
        }
        match (self.component(from), self.component(to)) {
            (Some(a), Some(b)) => self.rows[a][b / 64] & (1 << (b % 64)) != 0,
            _ => false,
        }
    }

    /// The component of island `island` (islands joined both ways by links share one);
    /// islands no link touches are their own, numbered after the touched ones by their id.
    #[must_use]
    pub fn joined_id(&self, island: u32) -> u32 {
        match self.component(island) {
            Some(c) => c as u32 + 1,
            None => island.saturating_add(self.rows.len() as u32),
        }
    }

    /// Whether no link joins two islands.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_way_edges_reach_forward_only_and_cycles_join() {
        // 1 → 2 (a drop), 2 ↔ 3 (a bridge), 4 → 1.
        let r = LinkReach::new(&[(1, 2), (2, 3), (3, 2), (4, 1)]);
        assert!(r.reaches(1, 2) && r.reaches(1, 3) && r.reaches(4, 3));
        assert!(!r.reaches(2, 1) && !r.reaches(3, 1) && !r.reaches(1, 4));
        assert!(r.reaches(3, 2) && r.reaches(5, 5) && !r.reaches(5, 1));
        assert!(!r.reaches(0, 0));
        assert_eq!(r.joined_id(2), r.joined_id(3));
        assert_ne!(r.joined_id(1), r.joined_id(2));
    }
}
