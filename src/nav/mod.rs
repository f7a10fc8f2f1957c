//! Run-time navigation: what a game links against. Knows nothing of documents, heightmaps
//! or the editor. Holds the sectored cost field, portals, the portal graph, islands, the
//! integrator and flow fields, the precomputed flow permutations, and `NavWorld`.

pub mod cost;
pub mod grid;

pub use cost::{CostField, SectorCost};
pub use grid::GridSpec;
