//! A cluster's shortcuts by elimination: the cluster's inner nodes are removed one by one,
//! each replaced by edges between its neighbours (the min-plus form of Gaussian
//! elimination), fewest neighbours first, which keeps every distance between the nodes
//! left. What is left is the border nodes, whose all-pairs costs a Floyd–Warshall pass over
//! them completes. On clusters of a few hundred nodes this does the work of one Dijkstra
//! per border node in dense, predictable loops instead of heap operations.

use super::{FAR, SearchGraph};

/// Clusters with more nodes than this take a Dijkstra per border node instead: the dense
/// table grows with the square of the node count (1 MiB here).
pub(super) const MAX_NODES: usize = 512;
/// Words of a bitset over [`MAX_NODES`] nodes.
const MAX_WORDS: usize = MAX_NODES / 64;

/// Working memory, reused across clusters on one thread.
#[derive(Debug, Default)]
pub(super) struct Eliminator {
    /// `n × n` edge costs, valid where the edge's bit in `outs` is set (so the table is
    /// never cleared).
    cost: Vec<u32>,
    /// `n × words` bitsets of each node's out- and in-neighbours.
    outs: Vec<u64>,
    ins: Vec<u64>,
    /// Nodes not eliminated yet.
    alive: Vec<u64>,
    /// Live neighbours per inner node, `u32::MAX` once eliminated and for border nodes.
    degree: Vec<u32>,
    /// `n × words` bitsets: the live inner nodes of each degree, so the next node to
    /// eliminate is found without scanning every node's degree.
    by_degree: Vec<u64>,
    /// `(out-neighbour, edge cost)` of the node being eliminated.
    through: Vec<(usize, u32)>,
}

/// The members of bitset `set`, ascending.
fn bits(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                i * 64 + b
            })
        })
    })
}

impl Eliminator {
    /// Live neighbours of `v`, either way.
    fn degree_of(&self, v: usize, words: usize) -> u32 {
        (0..words)
            .map(|i| {
                ((self.outs[v * words + i] | self.ins[v * words + i]) & self.alive[i]).count_ones()
            })
            .sum()
    }

    /// Fills `costs` with the cheapest costs inside the cluster `(lo, hi)` between its
    /// `border` nodes (local indices, ascending), row by row, [`FAR`] for none.
    pub(super) fn border_costs(
        &mut self,
        graph: &SearchGraph,
        (lo, hi): (u32, u32),
        border: &[u32],
        costs: &mut Vec<u32>,
    ) {
        let n = (hi - lo) as usize;
        debug_assert!(n <= MAX_NODES);
        let words = n.div_ceil(64);
        // A cost is read only where its bit is set, so the table needs no clearing.
        if self.cost.len() < n * n {
            self.cost.resize(n * n, FAR);
        }
        for v in [&mut self.outs, &mut self.ins] {
            v.clear();
            v.resize(n * words, 0);
        }
        self.alive.clear();
        self.alive.resize(words, 0);
        for v in 0..n {
            self.alive[v / 64] |= 1 << (v % 64);
            for (t, w) in graph.edges(lo + v as u32) {
                if t < lo || t >= hi || t == lo + v as u32 {
                    continue;
                }
                let t = (t - lo) as usize;
                let bit = &mut self.outs[v * words + t / 64];
                let c = &mut self.cost[v * n + t];
                *c = if *bit & 1 << (t % 64) == 0 {
                    w
                } else {
                    (*c).min(w)
                };
                *bit |= 1 << (t % 64);
                self.ins[t * words + v / 64] |= 1 << (v % 64);
            }
        }
        self.degree.clear();
        self.degree.resize(n, u32::MAX);
        self.by_degree.clear();
        self.by_degree.resize(n * words, 0);
        let mut is_border = [0u64; MAX_WORDS];
        for &b in border {
            is_border[b as usize / 64] |= 1 << (b % 64);
        }
        for v in 0..n {
            if is_border[v / 64] & 1 << (v % 64) == 0 {
                let d = self.degree_of(v, words);
                self.degree[v] = d;
                self.by_degree[d as usize * words + v / 64] |= 1 << (v % 64);
            }
        }
        // Eliminate the inner nodes, fewest live neighbours first.
        let (mut ins, mut outs) = ([0u64; MAX_WORDS], [0u64; MAX_WORDS]);
        // No live inner node has a degree below `least`: eliminating a node lowers its
        // neighbours' degrees by one at most (fill only adds edges).
        let mut least = 0;
        for _ in 0..n - border.len() {
            // The first node of least degree (the order decides the fill, not the costs).
            let Some((d, v)) = (least..n).find_map(|d| {
                let bucket = &self.by_degree[d * words..(d + 1) * words];
                bits(bucket).next().map(|v| (d, v))
            }) else {
                break;
            };
            least = d.saturating_sub(1);
            self.by_degree[d * words + v / 64] &= !(1 << (v % 64));
            self.degree[v] = u32::MAX;
            self.alive[v / 64] &= !(1 << (v % 64));
            for i in 0..words {
                ins[i] = self.ins[v * words + i] & self.alive[i];
                outs[i] = self.outs[v * words + i] & self.alive[i];
            }
            // `v`'s out-edges listed once, rather than decoded from the bitset per in-edge.
            self.through.clear();
            self.through
                .extend(bits(&outs[..words]).map(|w| (w, self.cost[v * n + w])));
            for u in bits(&ins[..words]) {
                let row = &mut self.cost[u * n..(u + 1) * n];
                let u_outs = &mut self.outs[u * words..(u + 1) * words];
                // Edges `u` gains start at FAR, so each relaxation below is a plain minimum.
                for (i, (have, &to)) in u_outs.iter_mut().zip(&outs[..words]).enumerate() {
                    for w in bits(&[to & !*have]) {
                        row[i * 64 + w] = FAR;
                    }
                    *have |= to;
                }
                // No self-loop: a cycle through `v` is no edge (its cost lands on the
                // diagonal, which nothing reads).
                u_outs[u / 64] &= !(1 << (u % 64));
                let to_v = row[v];
                for &(w, c) in &self.through {
                    row[w] = row[w].min(to_v + c);
                }
            }
            for w in bits(&outs[..words]) {
                let w_ins = &mut self.ins[w * words..(w + 1) * words];
                for (have, &from) in w_ins.iter_mut().zip(&ins[..words]) {
                    *have |= from;
                }
                w_ins[w / 64] &= !(1 << (w % 64));
            }
            for i in 0..words {
                ins[i] |= outs[i];
            }
            for x in bits(&ins[..words]) {
                let was = self.degree[x];
                if was != u32::MAX {
                    let now = self.degree_of(x, words);
                    self.by_degree[was as usize * words + x / 64] &= !(1 << (x % 64));
                    self.by_degree[now as usize * words + x / 64] |= 1 << (x % 64);
                    self.degree[x] = now;
                }
            }
        }
        // All pairs between the border nodes.
        let b = border.len();
        costs.clear();
        for &i in border {
            let i = i as usize;
            costs.extend(border.iter().map(|&j| {
                let j = j as usize;
                if i == j {
                    0
                } else if self.outs[i * words + j / 64] & 1 << (j % 64) != 0 {
                    self.cost[i * n + j]
                } else {
                    FAR
                }
            }));
        }
        for k in 0..b {
            for i in 0..b {
                let ik = costs[i * b + k];
                if ik == FAR {
                    continue;
                }
                for j in 0..b {
                    let kj = costs[k * b + j];
                    if kj != FAR && ik + kj < costs[i * b + j] {
                        costs[i * b + j] = ik + kj;
                    }
                }
            }
        }
    }
}
