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

use super::{CLUSTER_SECTORS, ClusterLandmarks, Hierarchy, PackedEdges, layout};
use crate::landmarks::Landmarks;
use crate::package::words::WordSource;
use crate::search_graph::SearchGraph;

impl Hierarchy {
    /// Bytes of the stored header: four `u32`.
    pub const HEADER_LEN: usize = 16;

    /// Checks the stored header (the first [`Self::HEADER_LEN`] bytes of what
    /// [`Self::to_bytes`] wrote) against the chunk's full length and the layer's node count:
    /// `node_count` portal nodes plus up to `link_ends` link end nodes (a package with
    /// links stores the hierarchy over their end nodes too).
    ///
    /// # Errors
    /// One sentence saying what does not fit.
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
        let borders = 0..b as u32;
        for from in borders.clone() {
            let count = self.border_edges(from).len() as u32;
            out.extend_from_slice(&count.to_le_bytes());
        }
        for from in borders.clone() {
            for (target, _) in self.border_edges(from) {
                out.extend_from_slice(&target.wrapping_sub(from).to_le_bytes());
            }
        }
        for from in borders {
            for (_, w) in self.border_edges(from) {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        if let Some(tables) = tables {
            out.extend_from_slice(&tables);
        }
        out
    }

    /// The hierarchy's tables as stored, read from `words` (a stored chunk as it
    /// decompresses) for a layer of `node_count` portal nodes: the part of the decode that
    /// needs no graph, so a world's first request reads it while it lays the graph out.
    ///
    /// # Errors
    /// One sentence saying what does not fit (a count beyond the bytes present, an edge
    /// target out of range, damaged landmark tables); the border nodes are checked by
    /// [`Self::from_parsed`].
    pub fn parse(
        words: &mut impl WordSource,
        node_count: usize,
    ) -> Result<ParsedHierarchy, String> {
        let total = words.left();
        let mut header = [0u32; 4];
        words
            .fill(&mut header)
            .map_err(|_| "the hierarchy is shorter than its header".to_owned())?;
        let bytes: Vec<u8> = header.iter().flat_map(|w| w.to_le_bytes()).collect();
        Self::check_header(&bytes, total, node_count, 0)?;
        let (b, e) = (header[2] as usize, header[3] as usize);
        let mut border = vec![0u32; b];
        words.fill(&mut border)?;
        let mut degrees = vec![0u32; b];
        words.fill(&mut degrees)?;
        let mut previous = 0u32;
        for id in &mut border {
            previous = previous.wrapping_add(*id);
            *id = previous;
        }
        let mut first = Vec::with_capacity(b + 1);
        let mut sum = 0u64;
        for &d in &degrees {
            first.push(sum as u32);
            sum += u64::from(d);
        }
        first.push(sum as u32);
        if sum != e as u64 {
            return Err(format!(
                "the hierarchy's edge counts add up to {sum}, it holds {e} edges"
            ));
        }
        // Border nodes ascend, so their edges are the lists in order.
        let edges = PackedEdges::read(words, 0, &first, b, "the hierarchy")?;
        let rest = words.rest()?;
        let tables = if rest.is_empty() {
            None
        } else {
            Some(Landmarks::from_bytes(&rest, b)?)
        };
        Ok(ParsedHierarchy {
            border,
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
        let hierarchy = Self::from_parts(graph, clusters, parsed.border, border_of, parsed.edges);
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
    /// The border nodes' edges.
    edges: PackedEdges,
    tables: Option<Landmarks>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::landmarks::tests::random_layer_sized;
    use crate::package::words::{SliceWords, StreamWords};

    #[test]
    fn a_hierarchy_reads_back_as_it_decompresses_and_damage_is_an_error() {
        let layer = random_layer_sized(5, 320, 3);
        let graph = SearchGraph::new(&layer);
        let hierarchy = Hierarchy::build(&graph);
        let landmarks = hierarchy.landmarks(&layer, &graph);
        assert!(landmarks.is_some());
        let bytes = hierarchy.to_bytes(landmarks.as_ref());
        let stored = zstd::bulk::compress(&bytes, 3).unwrap();
        let read = |words: &mut dyn FnMut() -> Result<ParsedHierarchy, String>| {
            let (h, marks) = Hierarchy::from_parsed(words().unwrap(), &graph).unwrap();
            (h, marks.map(|m| m.tables().to_bytes()))
        };
        let want = (
            hierarchy.clone(),
            landmarks.as_ref().map(|m| m.tables().to_bytes()),
        );
        let n = graph.len();
        assert_eq!(
            read(&mut || Hierarchy::parse(&mut StreamWords::new(&stored, bytes.len() as u64)?, n)),
            want
        );
        assert_eq!(
            read(&mut || Hierarchy::parse(&mut SliceWords::new(&bytes), n)),
            want
        );
        for cut in (0..bytes.len()).step_by(97) {
            assert!(
                Hierarchy::parse(&mut SliceWords::new(&bytes[..cut]), n).is_err(),
                "cut at {cut}"
            );
        }
        let mut state = 17u64;
        for _ in 0..300 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(7);
            let mut damaged = bytes.clone();
            let i = (state >> 33) as usize % damaged.len();
            damaged[i] ^= 1 << ((state >> 20) % 8);
            // Either an error or a hierarchy whose indices are in range: never a panic.
            if let Ok(parsed) = Hierarchy::parse(&mut SliceWords::new(&damaged), n) {
                let _ = Hierarchy::from_parsed(parsed, &graph);
            }
        }
    }
}
