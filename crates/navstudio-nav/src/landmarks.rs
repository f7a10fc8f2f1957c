//! ALT landmarks for the portal A* (Goldberg & Harrelson, "Computing the shortest path: A*
//! search meets graph theory", 2005).
//!
//! The straight-line heuristic assumes every cell costs 1, so on hilly cost fields it is weak and the
//! portal A* expands most of an ellipse around source and goal (≈ 6.7 ms across a 2048² map).
//! A landmark `L` with its graph distances `d(L, ·)` gives, by the triangle inequality
//! `d(L, f) ≤ d(L, n) + d(n, f)`, a lower bound on what is left from any node `n`:
//!
//! `min_f (d(n, f) + rest(f)) ≥ min_f (d(L, f) + rest(f)) − d(L, n) = D_L − d(L, n)`
//!
//! over the search's finishing nodes `f` (goal-sector nodes with their cost to the goal
//! cell, and, when merging, nodes of earlier routes with their remaining cost). `D_L` is
//! computed once per search ([`LandmarkBounds`]); the heuristic is the best landmark's bound
//! or the straight-line distance, whichever is larger. Only forward distances are needed, so the
//! graph's slight asymmetry (crossing weights are the entered cell's cost) does not matter.
//!
//! Landmarks sit evenly spaced on the map's perimeter (snapped to the nearest node of the
//! largest island): for any request some landmark lies roughly behind the source, where the
//! bound is tight, and the more there are the closer one lies to the ideal direction. A search
//! reads only the few best at its source ([`LandmarkBounds::focus`]), so more landmarks cost
//! memory and build time but hardly search time. Tables are indexed by node id, so they are
//! rebuilt when a layer's portal graph is rebuilt.

use super::layer::NavLayer;

mod build;
mod prepare;

pub use build::LandmarkBuilder;
pub(crate) use prepare::{pick_landmarks, pick_near_perimeter};

/// Landmarks per layer. On the 2048² benchmark map 16 expand 16 % fewer nodes per request
/// than 8 (24: 28 %), for 64 B per portal node (16-bit distances; 10 MB for its land layer)
/// and two Dijkstras each to build (`cargo bench --bench path`).
pub const LANDMARK_COUNT: usize = 16;

/// Graph distance marker for nodes a landmark cannot reach.
const FAR: u32 = u32::MAX;

/// [`FAR`] in the stored tables.
const FAR_STORED: u16 = u16::MAX;

/// Landmarks per [`Row`].
const ROW: usize = 16;

/// One cache line of a node's entries: landmarks `16 j ..< 16 (j + 1)` of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Row([[u16; 2]; ROW]);

impl Row {
    const FAR: Self = Self([[FAR_STORED; 2]; ROW]);
}

/// Distances from a few landmark nodes to every portal node of one layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landmarks {
    /// Per node `n`, per landmark `k`: `[d(k, n), d(n, k)] / step` rounded down,
    /// [`FAR_STORED`] when unreachable, in `count.div_ceil(16)` rows of one cache line per
    /// node. Node by node, because each step of a search bounds one node by most of the
    /// landmarks: stored landmark by landmark, each bound read a line per landmark, and
    /// waiting for them was most of the bound's time.
    rows: Vec<Row>,
    /// Number of landmarks.
    count: usize,
    /// Number of nodes.
    nodes: usize,
    /// Cost units per stored unit: 1 unless some distance exceeds what 16 bits hold. Bounds
    /// round so that they stay lower bounds (see [`LandmarkBounds`]).
    step: u32,
}

impl Landmarks {
    /// Tables of `count` landmarks over `nodes` nodes with every distance unreachable.
    pub(crate) fn unreached(count: usize, nodes: usize, step: u32) -> Self {
        Self {
            rows: vec![Row::FAR; nodes * count.div_ceil(ROW)],
            count,
            nodes,
            step,
        }
    }

    /// Node `node`'s rows; `None` off the tables.
    fn rows_of(&self, node: usize) -> Option<&[Row]> {
        let per = self.count.div_ceil(ROW);
        self.rows.get(node * per..(node + 1) * per)
    }

    /// Landmark `k`'s entry in a node's rows.
    fn entry(rows: &[Row], k: usize) -> [u16; 2] {
        rows[k / ROW].0[k % ROW]
    }

    /// Sets landmark `k`'s entry of `node`.
    pub(crate) fn set(&mut self, node: usize, k: usize, entry: [u16; 2]) {
        let per = self.count.div_ceil(ROW);
        self.rows[node * per + k / ROW].0[k % ROW] = entry;
    }

    /// Bytes of the tables.
    pub(crate) fn memory(&self) -> usize {
        size_of::<Row>() * self.rows.capacity()
    }

    /// Runs one Dijkstra per landmark and direction over the layer's portal graph (two at a
    /// time in parallel). `None` for a layer without portal nodes.
    #[must_use]
    pub fn build(layer: &NavLayer) -> Option<Self> {
        let mut builder = LandmarkBuilder::new(layer);
        while !builder.step(layer) {}
        builder.finish(layer)
    }

    /// Number of landmarks.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Landmark `k`'s stored forward distance to `node` (in units of the tables' step),
    /// `None` when it does not reach the node.
    #[must_use]
    pub fn forward_stored(&self, k: usize, node: u32) -> Option<u16> {
        if k >= self.count {
            return None;
        }
        let [fwd, _] = Self::entry(self.rows_of(node as usize)?, k);
        (fwd != FAR_STORED).then_some(fwd)
    }

    /// Number of portal nodes the tables cover (equal to the layer's node count while valid).
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// The same tables with node `v`'s entries moved to `rank[v]` (the search's own node
    /// order, [`super::route::SearchGraph::search_ids`]), so the entries of nodes the search
    /// reads one after the other lie side by side; afterwards every method takes those ids.
    #[must_use]
    pub fn reordered(self, rank: &[u32]) -> Self {
        if rank.len() != self.node_count() {
            return self;
        }
        let per = self.count.div_ceil(ROW);
        let mut rows = vec![Row::FAR; self.rows.len()];
        for (node, &to) in self.rows.chunks_exact(per).zip(rank) {
            let to = to as usize * per;
            rows[to..to + per].copy_from_slice(node);
        }
        Self { rows, ..self }
    }

    /// The tables as a package stores them (the `alt_landmarks` chunk of
    /// `docs/package-format.md`): landmark count, node count and step as little-endian
    /// `u32`, then per landmark and direction (`d(k, n)`, then `d(n, k)`) the `u16` distances
    /// of the nodes in the layer's own order (before [`Self::reordered`]) as wrapping
    /// differences from the previous node's, low bytes of all nodes first, then high bytes.
    /// Neighbouring nodes lie a few cells apart, so the differences are small and the high
    /// plane is nearly constant: zstd packs this a few times smaller than the plain tables.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.node_count();
        let mut out = Vec::with_capacity(12 + self.count * n * 4);
        for v in [self.count as u32, n as u32, self.step] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let per = self.count.div_ceil(ROW);
        let mut deltas = Vec::with_capacity(n);
        for k in 0..self.count {
            for dir in 0..2 {
                deltas.clear();
                let mut previous = 0u16;
                deltas.extend(self.rows.chunks_exact(per).map(|rows| {
                    let d = Self::entry(rows, k)[dir];
                    let delta = d.wrapping_sub(previous);
                    previous = d;
                    delta
                }));
                out.extend(deltas.iter().map(|d| d.to_le_bytes()[0]));
                out.extend(deltas.iter().map(|d| d.to_le_bytes()[1]));
            }
        }
        out
    }

    /// Bytes of the stored tables' header: landmark count, node count, step.
    pub const HEADER_LEN: usize = 12;

    /// Checks the stored tables' header (the first [`Self::HEADER_LEN`] bytes of what
    /// [`Self::to_bytes`] wrote) against their full length and the layer's node count, and
    /// returns the landmark count, node count and step.
    ///
    /// # Errors
    /// As [`Self::from_bytes`].
    pub fn check_header(
        header: &[u8],
        total_len: usize,
        node_count: usize,
    ) -> Result<(usize, usize, u32), String> {
        let word = |i: usize| -> Option<u32> {
            Some(u32::from_le_bytes(
                header.get(4 * i..4 * i + 4)?.try_into().ok()?,
            ))
        };
        let (Some(count), Some(nodes), Some(step)) = (word(0), word(1), word(2)) else {
            return Err("the landmark tables are shorter than their header".to_owned());
        };
        let (count, nodes) = (count as usize, nodes as usize);
        if !(1..=4 * LANDMARK_COUNT).contains(&count) || step == 0 {
            return Err(format!(
                "the landmark tables claim {count} landmarks of step {step}"
            ));
        }
        if nodes != node_count {
            return Err(format!(
                "the landmark tables cover {nodes} portal nodes, the graph has {node_count}"
            ));
        }
        let body = total_len.saturating_sub(Self::HEADER_LEN);
        if body != count * nodes * 4 {
            return Err(format!(
                "the landmark tables hold {body} bytes, {count} landmarks of {nodes} nodes need {}",
                count * nodes * 4
            ));
        }
        Ok((count, nodes, step))
    }

    /// Tables stored by [`Self::to_bytes`] for a layer of `node_count` portal nodes.
    ///
    /// # Errors
    /// One sentence saying what is wrong: counts out of range, a node count other than the
    /// layer's, or a length that does not match them.
    pub fn from_bytes(bytes: &[u8], node_count: usize) -> Result<Self, String> {
        Self::from_bytes_ranked(bytes, node_count, None)
    }

    /// [`Self::from_bytes`] followed by [`Self::reordered`]`(rank)` in one pass, one column per
    /// core: what a world opening a package on a map at the size limit spends most of its
    /// first request on.
    ///
    /// # Errors
    /// As [`Self::from_bytes`], and when `rank` does not cover the nodes.
    pub fn from_bytes_ranked(
        bytes: &[u8],
        node_count: usize,
        rank: Option<&[u32]>,
    ) -> Result<Self, String> {
        use rayon::prelude::*;
        let (count, nodes, step) = Self::check_header(bytes, bytes.len(), node_count)?;
        if rank.is_some_and(|r| r.len() != nodes || r.iter().any(|&v| v as usize >= nodes)) {
            return Err("the search order does not cover the graph's nodes".to_owned());
        }
        if nodes == 0 {
            return Ok(Self::unreached(count, 0, step));
        }
        let body = &bytes[Self::HEADER_LEN..];
        // Per landmark 4 planes of `nodes` bytes: d(k, n) low, high, then d(n, k) low, high;
        // plane `p` is landmark `p / 2`'s direction `p % 2`, each a running sum along the
        // nodes.
        let plane = |p: usize| {
            let at = 2 * nodes * p;
            (&body[at..at + nodes], &body[at + nodes..at + 2 * nodes])
        };
        let per = count.div_ceil(ROW);
        let mut tables = Self::unreached(count, nodes, step);
        // Nodes per task (few in tests, so that small tables span several).
        const BLOCK: usize = if cfg!(test) { 8 } else { 4096 };
        let Some(rank) = rank else {
            // In the stored order (the hierarchy's tables): each block of nodes on its own
            // core, from every plane's sum at the block's start, straight into its rows.
            let starts: Vec<Vec<u16>> = (0..2 * count)
                .into_par_iter()
                .map(|p| {
                    let (low, high) = plane(p);
                    let mut sum = 0u16;
                    let mut at_block = Vec::with_capacity(nodes.div_ceil(BLOCK));
                    for (lo, hi) in low.chunks(BLOCK).zip(high.chunks(BLOCK)) {
                        at_block.push(sum);
                        for (&l, &h) in lo.iter().zip(hi) {
                            sum = sum.wrapping_add(u16::from_le_bytes([l, h]));
                        }
                    }
                    at_block
                })
                .collect();
            tables.fill_blocks(BLOCK, |b, rows| {
                for (p, at_block) in starts.iter().enumerate() {
                    let (low, high) = plane(p);
                    let (k, dir) = (p / 2, p % 2);
                    let mut sum = at_block[b];
                    for (i, node) in rows.chunks_exact_mut(per).enumerate() {
                        let n = b * BLOCK + i;
                        sum = sum.wrapping_add(u16::from_le_bytes([low[n], high[n]]));
                        node[k / ROW].0[k % ROW][dir] = sum;
                    }
                }
            });
            return Ok(tables);
        };
        // In a search order (the flat search's tables, on maps below the hierarchy's size):
        // decoded a landmark per core into its column at the nodes' ranks, then laid out
        // node by node.
        let columns: Vec<Vec<[u16; 2]>> = (0..count)
            .into_par_iter()
            .map(|k| {
                let mut column = vec![[0u16; 2]; nodes];
                for (dir, p) in [2 * k, 2 * k + 1].into_iter().enumerate() {
                    let (low, high) = plane(p);
                    let mut sum = 0u16;
                    for ((&l, &h), &at) in low.iter().zip(high).zip(rank) {
                        sum = sum.wrapping_add(u16::from_le_bytes([l, h]));
                        column[at as usize][dir] = sum;
                    }
                }
                column
            })
            .collect();
        tables.fill_blocks(BLOCK, |b, rows| {
            for (i, node) in rows.chunks_exact_mut(per).enumerate() {
                for (k, column) in columns.iter().enumerate() {
                    node[k / ROW].0[k % ROW] = column[b * BLOCK + i];
                }
            }
        });
        Ok(tables)
    }

    /// Fills the tables `block` nodes per task, on every core: `fill(b, rows)` gets the rows
    /// of nodes `b · block ..< (b + 1) · block`.
    fn fill_blocks(&mut self, block: usize, fill: impl Fn(usize, &mut [Row]) + Sync + Send) {
        use rayon::prelude::*;
        let per = self.count.div_ceil(ROW);
        self.rows
            .par_chunks_mut(block * per)
            .enumerate()
            .for_each(|(b, rows)| fill(b, rows));
    }

    /// Bounds of one search with no finishing node yet; add them with
    /// [`LandmarkBounds::add_finish`].
    #[must_use]
    pub fn bounds(&self) -> LandmarkBounds<'_> {
        let count = self.count;
        let mut bounds = LandmarkBounds {
            landmarks: self,
            to: vec![FAR; count],
            from: vec![i64::MIN; count],
            active: (0..count).collect(),
            terms: Vec::new(),
            lanes: None,
        };
        bounds.refresh_terms();
        bounds
    }
}

/// One search's landmark terms over its finishing nodes `f`:
/// `D_L = min_f (d(L, f) + rest(f))` (forward) and `E_L = max_f (d(f, L) − rest(f))`
/// (backward, from `d(n, f) ≥ d(n, L) − d(f, L)`). A stored distance `q` stands for one in
/// `q × step ..= q × step + step − 1`: each term takes the end that keeps the bound low.
#[derive(Clone, Debug)]
pub struct LandmarkBounds<'a> {
    landmarks: &'a Landmarks,
    to: Vec<u32>,
    from: Vec<i64>,
    /// Landmarks the bound reads (see [`LandmarkBounds::focus`]).
    active: Vec<usize>,
    /// Per active landmark `k`, what [`LandmarkBounds::lower_bound`] needs of `to` and `from`,
    /// worked out once per change rather than per bounded node: `(k, to[k] − step + 1,
    /// from[k])`, [`VOID_TERM`] for a term that bounds nothing. The heuristic runs for
    /// every node a search reaches, and this is its inner loop.
    terms: Vec<(usize, i64, i64)>,
    /// [`Self::terms`] laid out like a node's rows, for [`Self::lower_bound`] to work out
    /// every landmark of a row at once in 32-bit lanes; `None` when a term or the step is
    /// too large for them (then `terms` serves).
    lanes: Option<Lanes>,
}

/// Per row of a node's entries, per landmark of it, its forward term (`to[k] − step + 1`)
/// and backward term (`from[k]`), [`LANE_VOID_FORWARD`] and [`LANE_VOID_BACKWARD`] for a
/// landmark that is not active or bounds nothing that way.
#[derive(Clone, Debug, Default)]
struct Lanes {
    forward: Vec<[i32; ROW]>,
    backward: Vec<[i32; ROW]>,
    step: i32,
}

/// Largest magnitude of a term held in [`Lanes`], and of a stored distance times the step:
/// a bound then lies above `-2^29` and within `i32`.
const LANE_LIMIT: i64 = 1 << 27;

/// A forward term that bounds nothing: every lane bound made from it lies below
/// [`LANE_NONE`].
const LANE_VOID_FORWARD: i32 = -(1 << 30);

/// A backward term that bounds nothing (see [`LANE_VOID_FORWARD`]).
const LANE_VOID_BACKWARD: i32 = 1 << 30;

/// Lane bounds below this bound nothing: a real one is at least `-2 · LANE_LIMIT`.
const LANE_NONE: i32 = -(1 << 29);

/// A landmark term of [`LandmarkBounds::terms`] that bounds nothing.
const VOID_TERM: i64 = i64::MIN;

impl LandmarkBounds<'_> {
    /// A node the search may finish at, with its remaining cost to the goal.
    pub fn add_finish(&mut self, node: u32, rest: u32) {
        let Some(rows) = self.landmarks.rows_of(node as usize) else {
            return;
        };
        for k in 0..self.to.len() {
            let [fwd, bwd] = Landmarks::entry(rows, k);
            let step = self.landmarks.step;
            if fwd != FAR_STORED {
                self.to[k] = self.to[k].min((u32::from(fwd) * step).saturating_add(rest));
            }
            // A finish the landmark cannot be reached from voids the backward bound.
            let e = if bwd == FAR_STORED {
                i64::MAX
            } else {
                i64::from(u32::from(bwd) * step + (step - 1)) - i64::from(rest)
            };
            self.from[k] = self.from[k].max(e);
        }
        self.refresh_terms();
    }

    /// A finishing node without entries of its own, with `least[k]`, a stored forward
    /// distance no larger than landmark `k`'s to the node (`u16::MAX` when none reaches
    /// it): adds to the forward terms only.
    pub fn add_finish_forward(&mut self, least: &[u16], rest: u32) {
        let step = self.landmarks.step;
        for (to, &fwd) in self.to.iter_mut().zip(least) {
            if fwd != FAR_STORED {
                *to = (*to).min((u32::from(fwd) * step).saturating_add(rest));
            }
        }
        self.refresh_terms();
    }

    /// A finishing node without entries of its own that reaches node `via[i].0` at cost
    /// `via[i].1` (so `d(f, L) ≤ via cost + d(via node, L)`): adds to the backward terms.
    /// Reaching none voids them, as an unreachable landmark does.
    pub fn add_finish_backward_via(&mut self, via: &[(u32, u32)], rest: u32) {
        let step = self.landmarks.step;
        for k in 0..self.from.len() {
            let upper = via
                .iter()
                .filter_map(|&(node, cost)| {
                    let [_, bwd] = Landmarks::entry(self.landmarks.rows_of(node as usize)?, k);
                    (bwd != FAR_STORED)
                        .then(|| i64::from(u32::from(bwd) * step + (step - 1)) + i64::from(cost))
                })
                .min();
            let e = upper.map_or(i64::MAX, |u| u - i64::from(rest));
            self.from[k] = self.from[k].max(e);
        }
        self.refresh_terms();
    }

    /// Drops the backward terms (`d(n, L) − E_L`), as a finish no landmark reaches does:
    /// for searches whose finishes cannot all be bounded from above cheaply.
    pub fn void_backward(&mut self) {
        self.from.fill(i64::MAX);
        self.refresh_terms();
    }

    /// Keeps only the `keep` landmarks whose bound is largest at `node` (the search's
    /// source side): they stay the useful ones along the way, and reading a few per
    /// evaluation instead of all is most of the heuristic's cost.
    pub fn focus(&mut self, node: u32, keep: usize) {
        let rows = self.landmarks.rows_of(node as usize);
        let step = i64::from(self.landmarks.step);
        let mut scored: Vec<(i64, usize)> = (0..self.to.len())
            .map(|k| {
                (
                    rows.map_or(VOID_TERM, |r| term_bound(r, step, self.term(k))),
                    k,
                )
            })
            .collect();
        scored.sort_unstable_by(|a, b| b.cmp(a));
        self.active = scored.iter().take(keep.max(1)).map(|&(_, k)| k).collect();
        self.refresh_terms();
    }

    /// Landmark `k`'s entry of [`Self::terms`].
    fn term(&self, k: usize) -> (usize, i64, i64) {
        let step = i64::from(self.landmarks.step);
        let forward = if self.to[k] == FAR {
            VOID_TERM
        } else {
            i64::from(self.to[k]) - (step - 1)
        };
        let backward = if self.from[k] == i64::MAX || self.from[k] == i64::MIN {
            VOID_TERM
        } else {
            self.from[k]
        };
        (k, forward, backward)
    }

    /// Rebuilds [`Self::terms`] from `active`, `to` and `from`.
    fn refresh_terms(&mut self) {
        let mut terms = std::mem::take(&mut self.terms);
        terms.clear();
        terms.extend(self.active.iter().map(|&k| self.term(k)));
        self.terms = terms;
        let old = self.lanes.take();
        self.lanes = self.lanes_of_terms(old);
    }

    /// [`Self::terms`] as [`Lanes`] (in the last ones' memory), if each fits.
    fn lanes_of_terms(&self, old: Option<Lanes>) -> Option<Lanes> {
        let step = i64::from(self.landmarks.step);
        if step * i64::from(FAR_STORED) > LANE_LIMIT {
            return None;
        }
        let per = self.landmarks.count.div_ceil(ROW);
        let mut lanes = old.unwrap_or_default();
        lanes.step = step as i32;
        lanes.forward.clear();
        lanes.forward.resize(per, [LANE_VOID_FORWARD; ROW]);
        lanes.backward.clear();
        lanes.backward.resize(per, [LANE_VOID_BACKWARD; ROW]);
        let fits = |t: i64| {
            i32::try_from(t)
                .ok()
                .filter(|_| (-LANE_LIMIT..=LANE_LIMIT).contains(&t))
        };
        for &(k, forward, backward) in &self.terms {
            if forward != VOID_TERM {
                lanes.forward[k / ROW][k % ROW] = fits(forward)?;
            }
            if backward != VOID_TERM {
                lanes.backward[k / ROW][k % ROW] = fits(backward)?;
            }
        }
        Some(lanes)
    }

    /// A lower bound on the cost from `node` to the cheapest finish; `None` when no focused
    /// landmark reaches the node and the finishes (another island).
    #[must_use]
    pub fn lower_bound(&self, node: u32) -> Option<u32> {
        let rows = self.landmarks.rows_of(node as usize)?;
        let Some(lanes) = &self.lanes else {
            return self.bound_by_terms(rows);
        };
        // Every landmark of a row at once, active or not (an inactive one's void terms bound
        // nothing): a few vector operations instead of a branchy loop per term.
        let mut h = LANE_NONE - 1;
        for ((row, forward), backward) in rows.iter().zip(&lanes.forward).zip(&lanes.backward) {
            h = h.max(if lanes.step == 1 {
                lane_bound::<true>(row, forward, backward, 1)
            } else {
                lane_bound::<false>(row, forward, backward, lanes.step)
            });
        }
        (h >= LANE_NONE).then(|| h.max(0) as u32)
    }

    /// [`Self::lower_bound`] of the node of `rows` term by term.
    fn bound_by_terms(&self, rows: &[Row]) -> Option<u32> {
        let step = i64::from(self.landmarks.step);
        let h = self
            .terms
            .iter()
            .map(|&term| term_bound(rows, step, term))
            .max()
            .unwrap_or(VOID_TERM);
        if h == VOID_TERM {
            return None;
        }
        Some(u32::try_from(h.max(0)).unwrap_or(u32::MAX))
    }
}

/// The largest bound the landmarks of `row` give (see [`term_bound`]) from their terms in
/// [`Lanes`], below [`LANE_NONE`] when none bounds anything; `UNIT` when the step is 1.
#[inline]
fn lane_bound<const UNIT: bool>(
    row: &Row,
    forward: &[i32; ROW],
    backward: &[i32; ROW],
    step: i32,
) -> i32 {
    let mut h = [LANE_VOID_FORWARD; ROW];
    for (k, slot) in h.iter_mut().enumerate() {
        let [fwd, bwd] = row.0[k];
        let scale = |d: u16| {
            if UNIT {
                i32::from(d)
            } else {
                i32::from(d) * step
            }
        };
        let f = if fwd == FAR_STORED {
            LANE_VOID_FORWARD
        } else {
            forward[k] - scale(fwd)
        };
        let b = if bwd == FAR_STORED {
            LANE_VOID_FORWARD
        } else {
            scale(bwd) - backward[k]
        };
        *slot = f.max(b);
    }
    h.into_iter().fold(LANE_VOID_FORWARD, i32::max)
}

/// The bound one landmark's term of [`LandmarkBounds::terms`] gives at the node of `rows`:
/// the larger of its forward and backward bounds, [`VOID_TERM`] when it reaches neither way.
fn term_bound(rows: &[Row], step: i64, (k, forward, backward): (usize, i64, i64)) -> i64 {
    let [fwd, bwd] = Landmarks::entry(rows, k);
    let mut h = VOID_TERM;
    if forward != VOID_TERM && fwd != FAR_STORED {
        h = forward - i64::from(fwd) * step;
    }
    if backward != VOID_TERM && bwd != FAR_STORED {
        h = h.max(i64::from(bwd) * step - backward);
    }
    h
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::atomic::AtomicBool;

    use super::build::{Csr, distances_from};
    use super::prepare::pick_landmarks;
    use super::*;
    use crate::grid::{GridSpec, WALL};
    use crate::{CostField, build_layer};

    /// A 60 × 60 map in 6 × 6 sectors with random costs 1..=9 and wall blobs, so the graph
    /// has islands, detours and uneven weights.
    pub(crate) fn random_layer(seed: u64) -> NavLayer {
        random_layer_sized(seed, 60, 6)
    }

    /// A `size`² map in sectors of `sector` cells with random costs 1..=9 and wall blobs (25
    /// per 60² cells).
    pub(crate) fn random_layer_sized(seed: u64, size: u32, sector: u32) -> NavLayer {
        let spec = GridSpec {
            width: size,
            height: size,
            sector_size: sector,
        };
        let mut state = seed;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % n
        };
        let side = i64::from(size);
        let mut cells: Vec<u8> = (0..size * size).map(|_| 1 + next(9) as u8).collect();
        for _ in 0..25 * (size * size) / 3600 {
            let (cx, cy, r) = (
                next(u64::from(size)) as i64,
                next(u64::from(size)) as i64,
                1 + next(4) as i64,
            );
            for y in (cy - r).max(0)..(cy + r + 1).min(side) {
                for x in (cx - r).max(0)..(cx + r + 1).min(side) {
                    cells[(y * side + x) as usize] = WALL;
                }
            }
        }
        let cost = CostField::from_cells(spec, &cells);
        build_layer("test", cost, &|_| {}, &AtomicBool::new(false)).unwrap()
    }

    /// Exact `d(from, ·)` over the portal graph by the `pathfinding` crate (the oracle).
    fn oracle(layer: &NavLayer, from: u32) -> Vec<Option<u32>> {
        let reached = pathfinding::directed::dijkstra::dijkstra_all(&from, |&n| {
            layer.graph.edges(n).collect::<Vec<_>>()
        });
        (0..layer.nodes.len() as u32)
            .map(|n| {
                if n == from {
                    Some(0)
                } else {
                    reached.get(&n).map(|&(_, d)| d)
                }
            })
            .collect()
    }

    /// A build from [`LandmarkBuilder::start`] paused after every piece (a deadline already
    /// past), stored in a search order a landmark at a time, gives exactly the tables of one
    /// go, reordered.
    #[test]
    fn a_build_paused_after_every_piece_equals_one_built_in_one_go() {
        for seed in 1..=3 {
            let layer = random_layer_sized(seed, 90, 6);
            let n = layer.nodes.len() as u32;
            // Any permutation will do: odd ids first, then even ones, backwards.
            let rank: Vec<u32> = (0..n)
                .map(|v| if v % 2 == 1 { v / 2 } else { n - 1 - v / 2 })
                .collect();
            let whole = Landmarks::build(&layer).unwrap().reordered(&rank);
            let mut builder = LandmarkBuilder::start(&layer);
            let (mut searching, mut storing) = (0, 0);
            while !builder.step_until(&layer, Some(std::time::Instant::now())) {
                searching += 1;
            }
            assert_eq!(
                builder.sources(),
                pick_landmarks(&layer, LANDMARK_COUNT),
                "seed {seed}: the landmarks picked in pieces"
            );
            while !builder.finish_until(&layer, Some(&rank), Some(std::time::Instant::now())) {
                storing += 1;
            }
            // Tests store 100 nodes per piece.
            assert!(
                searching > 2 * LANDMARK_COUNT && storing > LANDMARK_COUNT * (n as usize / 100),
                "seed {seed}: {searching} pauses searching, {storing} storing {n} nodes"
            );
            assert!(
                builder.into_landmarks() == Some(whole),
                "seed {seed}: the paused build's tables differ"
            );
        }
    }

    /// Tables of more landmarks than one row holds (20: two rows a node) keep every entry
    /// through storing, reading back in a search order, and reordering.
    #[test]
    fn tables_of_two_rows_a_node_read_back_entry_for_entry() {
        let (count, n) = (20, 37);
        let value = |v: usize, k: usize, dir: usize| -> u16 {
            if (v + k).is_multiple_of(7) {
                FAR_STORED
            } else {
                (v * 131 + k * 17 + dir * 5) as u16
            }
        };
        let mut marks = Landmarks::unreached(count, n, 3);
        for v in 0..n {
            for k in 0..count {
                marks.set(v, k, [value(v, k, 0), value(v, k, 1)]);
            }
        }
        let rank: Vec<u32> = (0..n as u32).map(|v| (v * 5) % n as u32).collect();
        let bytes = marks.to_bytes();
        assert_eq!(Landmarks::from_bytes(&bytes, n).unwrap(), marks);
        let ranked = Landmarks::from_bytes_ranked(&bytes, n, Some(&rank)).unwrap();
        assert_eq!(ranked, marks.clone().reordered(&rank));
        for (v, &at) in rank.iter().enumerate() {
            for k in 0..count {
                let fwd = value(v, k, 0);
                let want = (fwd != FAR_STORED).then_some(fwd);
                assert_eq!(ranked.forward_stored(k, at), want, "node {v}, landmark {k}");
                assert_eq!(
                    marks.forward_stored(k, v as u32),
                    want,
                    "node {v}, landmark {k}"
                );
            }
        }
        assert_eq!(
            marks.forward_stored(count, 0),
            None,
            "a landmark past the count"
        );
        assert_eq!(
            marks.forward_stored(0, n as u32),
            None,
            "a node past the tables"
        );
    }

    #[test]
    fn landmark_bounds_never_exceed_the_true_remaining_cost() {
        for seed in 1..=4 {
            let layer = random_layer(seed);
            let marks = Landmarks::build(&layer).unwrap();
            assert_eq!(marks.node_count(), layer.nodes.len());
            assert_eq!(marks.step, 1, "short distances are stored exactly");
            // The same tables stored in units of 7, as distances beyond 16 bits would be.
            let mut builder = LandmarkBuilder::new(&layer);
            while !builder.step(&layer) {}
            let coarse = builder.finish_with_step(&layer, Some(7)).unwrap();
            let n = layer.nodes.len() as u64;
            let mut state = seed;
            let mut next = move |m: u64| {
                state = state
                    .wrapping_mul(2_862_933_555_777_941_757)
                    .wrapping_add(3);
                (state >> 33) % m
            };
            let mut tight = 0;
            for _ in 0..30 {
                // A few finishing nodes with remaining costs, as a goal sector gives them.
                let finishes: Vec<(u32, u32)> = (0..1 + next(4))
                    .map(|_| (next(n) as u32, next(40) as u32))
                    .collect();
                let mut bounds = marks.bounds();
                for &(f, rest) in &finishes {
                    bounds.add_finish(f, rest);
                }
                let node = next(n) as u32;
                let dist = oracle(&layer, node);
                let truth = finishes
                    .iter()
                    .filter_map(|&(f, rest)| dist[f as usize].map(|d| d + rest))
                    .min();
                let bound = bounds.lower_bound(node).unwrap_or(0);
                let mut coarse_bounds = coarse.bounds();
                for &(f, rest) in &finishes {
                    coarse_bounds.add_finish(f, rest);
                }
                let rounded = coarse_bounds.lower_bound(node).unwrap_or(0);
                // Each of the two terms loses less than a step to rounding.
                assert!(
                    rounded <= bound && rounded + 2 * 7 >= bound,
                    "seed {seed}: step-7 bound {rounded} vs exact {bound}"
                );
                if let Some(truth) = truth {
                    assert!(bound <= truth, "seed {seed}: bound {bound} > true {truth}");
                    if bound * 10 >= truth * 7 {
                        tight += 1;
                    }
                }
                // Focusing on a subset only drops terms: never a larger bound.
                let mut focused = bounds.clone();
                focused.focus(node, 2);
                assert!(focused.lower_bound(node).unwrap_or(0) <= bound);
            }
            assert!(tight > 0, "seed {seed}: no bound within 70 % of the truth");
        }
    }

    #[test]
    fn dial_distances_equal_the_pathfinding_crate() {
        for seed in 1..=3 {
            let layer = random_layer(seed);
            let graph = Csr {
                offsets: &layer.graph.offsets,
                targets: &layer.graph.targets,
                weights: &layer.graph.weights,
            };
            for from in [
                0,
                layer.nodes.len() as u32 / 2,
                layer.nodes.len() as u32 - 1,
            ] {
                let ours = distances_from(&graph, from);
                let truth = oracle(&layer, from);
                for (node, (&d, t)) in ours.iter().zip(&truth).enumerate() {
                    assert_eq!(t.unwrap_or(FAR), d, "seed {seed}: {from} -> {node}");
                }
            }
        }
    }

    #[test]
    fn landmarks_sit_on_the_largest_island_near_the_perimeter() {
        let layer = random_layer(7);
        let picked = pick_landmarks(&layer, LANDMARK_COUNT);
        assert!(!picked.is_empty());
        let island = layer.nodes[picked[0] as usize].island;
        let largest = layer.nodes.iter().filter(|n| n.island == island).count();
        for id in layer.nodes.iter().map(|n| n.island) {
            assert!(layer.nodes.iter().filter(|n| n.island == id).count() <= largest);
        }
        for &p in &picked {
            let node = &layer.nodes[p as usize];
            assert_eq!(node.island, island);
            let edge = node
                .center()
                .0
                .min(node.center().1)
                .min(59 - node.center().0)
                .min(59 - node.center().1);
            assert!(
                edge <= 12,
                "landmark {:?} is far from the edge",
                node.center()
            );
        }
    }

    #[test]
    fn lane_bounds_equal_the_bounds_term_by_term() {
        use crate::rng::SplitMix64;
        for seed in 0..200u64 {
            let mut rng = SplitMix64::new(seed);
            let count = [16, 20, 4, 32][rng.below(4) as usize];
            let step = [1, 1, 3, 4096][rng.below(4) as usize];
            let nodes = 60;
            let mut tables = Landmarks::unreached(count, nodes, step);
            for node in 0..nodes {
                for k in 0..count {
                    let mut entry = || {
                        if rng.chance(0.1) {
                            FAR_STORED
                        } else {
                            rng.below(3000) as u16
                        }
                    };
                    let e = [entry(), entry()];
                    tables.set(node, k, e);
                }
            }
            let mut bounds = tables.bounds();
            for _ in 0..1 + rng.below(4) {
                let rest = if rng.chance(0.2) {
                    rng.below(1 << 30)
                } else {
                    rng.below(500)
                };
                bounds.add_finish(rng.below(nodes as u32), rest);
            }
            if rng.chance(0.3) {
                bounds.void_backward();
            }
            if rng.chance(0.7) {
                bounds.focus(
                    rng.below(nodes as u32),
                    1 + rng.below(count as u32) as usize,
                );
            }
            for node in 0..nodes as u32 {
                let rows = tables.rows_of(node as usize).unwrap();
                assert_eq!(
                    bounds.lower_bound(node),
                    bounds.bound_by_terms(rows),
                    "seed {seed}: node {node} (lanes {})",
                    bounds.lanes.is_some()
                );
            }
        }
    }
}
