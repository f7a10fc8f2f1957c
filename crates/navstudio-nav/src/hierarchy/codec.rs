//! The hierarchy as a package stores it (the `hierarchy` chunk of `docs/package-format.md`),
//! in the search ids of the layer's [`SearchGraph`], which the reader lays out the same way:
//!
//! - `u32` cluster side in sectors, node count, border node count `B`, edge count `E`;
//! - `B × u32`: border search ids as differences from the previous one (ascending);
//! - `B × u32`: each border node's edge count;
//! - `E × u32`: each edge's target border index as a wrapping difference from its source's
//!   (shortcuts stay in the cluster, so the differences are small);
//! - `E × u32`: edge weights;
//! - the landmark tables over border indices ([`Landmarks::to_bytes`]), or nothing.
//!
//! All little-endian. The reader checks every count against the bytes present and the
//! border nodes against the graph before it allocates by them.

use rayon::prelude::*;

use super::{CLUSTER_SECTORS, ClusterLandmarks, Hierarchy, layout};
use crate::landmarks::Landmarks;
use crate::search_graph::SearchGraph;

/// Border nodes per block whose edges one core decodes.
const EDGE_BLOCK: usize = 1 << 13;

impl Hierarchy {
    /// Bytes of the stored header: four `u32`.
    pub const HEADER_LEN: usize = 16;

    /// Checks the stored header (the first [`Self::HEADER_LEN`] bytes of what
    /// [`Self::to_bytes`] wrote) against the chunk's full length and the layer's node count:
    /// `node_count` portal nodes plus up to `link_ends` link end nodes (a package with
    /// links stores the hierarchy over their end nodes too).
    ///
    /// # Errors
    /// As [`Self::from_bytes`].
    pub fn check_header(
        header: &[u8],
        total_len: u64,
        node_count: usize,
        link_ends: usize,
    ) -> Result<(), String> {
        let word = |i: usize| -> Option<u32> {
            Some(u32::from_le_bytes(
                header.get(4 * i..4 * i + 4)?.try_into().ok()?,
            ))
        };
        let (Some(side), Some(nodes), Some(b), Some(e)) = (word(0), word(1), word(2), word(3))
        else {
            return Err("the hierarchy is shorter than its header".to_owned());
        };
        if side != CLUSTER_SECTORS {
            return Err(format!(
                "the hierarchy has clusters of {side} sectors, this build uses {CLUSTER_SECTORS}"
            ));
        }
        if (nodes as usize) < node_count || nodes as usize > node_count + link_ends {
            return Err(format!(
                "the hierarchy covers {nodes} portal nodes, the graph has {node_count}"
            ));
        }
        let needed = Self::HEADER_LEN as u64 + 8 * (u64::from(b) + u64::from(e));
        if needed > total_len || b > nodes {
            return Err(format!(
                "the hierarchy claims {b} border nodes and {e} edges, more than its {total_len} bytes hold"
            ));
        }
        Ok(())
    }

    /// The hierarchy and its landmark tables (if any) as the package stores them.
    #[must_use]
    pub fn to_bytes(&self, landmarks: Option<&ClusterLandmarks>) -> Vec<u8> {
        let (b, e) = (self.border.len(), self.edges.len());
        // Sized for the tables too: growing past them would copy the whole buffer.
        let tables = landmarks.map(|marks| marks.tables().to_bytes());
        let mut out = Vec::with_capacity(
            Self::HEADER_LEN + 8 * (b + e) + tables.as_ref().map_or(0, Vec::len),
        );
        let words = [
            CLUSTER_SECTORS,
            self.border_of.len() as u32,
            b as u32,
            e as u32,
        ];
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let mut previous = 0u32;
        for &id in &self.border {
            out.extend_from_slice(&id.wrapping_sub(previous).to_le_bytes());
            previous = id;
        }
        for pair in self.first.windows(2) {
            out.extend_from_slice(&(pair[1] - pair[0]).to_le_bytes());
        }
        for (from, pair) in self.first.windows(2).enumerate() {
            for &(target, _) in &self.edges[pair[0] as usize..pair[1] as usize] {
                out.extend_from_slice(&target.wrapping_sub(from as u32).to_le_bytes());
            }
        }
        for &(_, w) in &self.edges {
            out.extend_from_slice(&w.to_le_bytes());
        }
        if let Some(tables) = tables {
            out.extend_from_slice(&tables);
        }
        out
    }

    /// The part of [`Self::from_bytes`] that needs no graph, for a layer of `node_count`
    /// portal nodes: a world's first request parses while it lays the graph out (a third of
    /// the hierarchy's decode at 8192²).
    ///
    /// # Errors
    /// As [`Self::from_bytes`], but for the border nodes, which [`Self::from_parsed`] checks.
    pub fn parse(bytes: &[u8], node_count: usize) -> Result<ParsedHierarchy, String> {
        Self::check_header(bytes, bytes.len() as u64, node_count, 0)?;
        let word = |i: usize| {
            u32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ])
        };
        let (b, e) = (word(2) as usize, word(3) as usize);
        let read = |from: usize, count: usize| -> Vec<u32> {
            bytes[from..from + 4 * count]
                .par_chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let mut at = Self::HEADER_LEN;
        let mut border = read(at, b);
        at += 4 * b;
        let degrees = read(at, b);
        at += 4 * b;
        let (targets, weights) = (at, at + 4 * e);
        at += 8 * e;
        let mut previous = 0u32;
        for id in &mut border {
            previous = previous.wrapping_add(*id);
            *id = previous;
        }
        let mut first = Vec::with_capacity(b + 1);
        let mut total = 0u64;
        for &d in &degrees {
            first.push(total as u32);
            total += u64::from(d);
        }
        first.push(total as u32);
        if total != e as u64 {
            return Err(format!(
                "the hierarchy's edge counts add up to {total}, it holds {e} edges"
            ));
        }
        // Blocks of border nodes fill their own edge ranges on all cores.
        let word_at = |from: usize, i: usize| {
            let c = &bytes[from + 4 * i..from + 4 * i + 4];
            u32::from_le_bytes([c[0], c[1], c[2], c[3]])
        };
        // Zeroed by the allocator: the blocks below write every edge, on all cores.
        let mut edges: Vec<(u32, u32)> = bytemuck::zeroed_vec(e);
        let mut blocks = Vec::new();
        let mut rest: &mut [(u32, u32)] = &mut edges;
        for start in (0..b).step_by(EDGE_BLOCK) {
            let end = (start + EDGE_BLOCK).min(b);
            let (block, tail) = rest.split_at_mut((first[end] - first[start]) as usize);
            blocks.push((start..end, block));
            rest = tail;
        }
        blocks.into_par_iter().try_for_each(|(sources, block)| {
            let base = first[sources.start] as usize;
            for from in sources {
                for i in first[from] as usize..first[from + 1] as usize {
                    let target = word_at(targets, i).wrapping_add(from as u32);
                    if target as usize >= b {
                        return Err(format!(
                            "a hierarchy edge leads to border node {target} of {b}"
                        ));
                    }
                    block[i - base] = (target, word_at(weights, i));
                }
            }
            Ok(())
        })?;
        let rest = &bytes[at..];
        let tables = if rest.is_empty() {
            None
        } else {
            Some(Landmarks::from_bytes(rest, b)?)
        };
        Ok(ParsedHierarchy {
            border,
            first,
            edges,
            tables,
        })
    }

    /// The hierarchy [`Self::parse`] read, on the layer laid out as `graph`.
    ///
    /// # Errors
    /// When its border nodes are not the graph's.
    pub fn from_parsed(
        parsed: ParsedHierarchy,
        graph: &SearchGraph,
    ) -> Result<(Self, Option<ClusterLandmarks>), String> {
        let (clusters, graph_border, border_of) = layout(graph);
        if parsed.border != graph_border {
            return Err("the hierarchy's border nodes are not the graph's".to_owned());
        }
        let hierarchy = Self::from_parts(
            graph,
            clusters,
            parsed.border,
            border_of,
            parsed.first,
            parsed.edges,
        );
        let landmarks = parsed
            .tables
            .map(|tables| ClusterLandmarks::from_tables(&hierarchy, tables));
        Ok((hierarchy, landmarks))
    }
}

/// A stored hierarchy read by [`Hierarchy::parse`], before it meets its graph.
#[derive(Debug)]
pub struct ParsedHierarchy {
    /// Border search ids, ascending.
    border: Vec<u32>,
    /// Edges of border node `b` are `edges[first[b]..first[b + 1]]`.
    first: Vec<u32>,
    edges: Vec<(u32, u32)>,
    tables: Option<Landmarks>,
}
