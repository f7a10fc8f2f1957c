//! navstudio-nav, the run time: what a game links against. Knows nothing of documents,
//! heightmaps or the editor. Holds the sectored cost field, portals, the portal graph,
//! islands, the integrator and flow fields, the precomputed flow permutations, `NavWorld`,
//! and the nav package reader and writer ([`package`]).

pub mod corridor;
pub mod cost;
pub mod flow;
pub mod grid;
pub mod hierarchy;
pub mod integrate;
pub mod islands;
pub mod landmarks;
pub mod layer;
pub mod links;
pub mod los;
pub mod package;
pub mod permutations;
pub mod portals;
pub mod route;
pub mod search_graph;
pub mod world;

pub use cost::{CostField, SectorCost};
pub use grid::GridSpec;
pub use layer::{NavLayer, build_layer, rebuild_sectors};
pub use world::{
    DEFAULT_CACHE_BUDGET, GoalMove, GoalMoveStats, NavWorld, PathError, PathId, PendingPath, SearchMode,
    StreamOptions, StreamStats, TracedPath,
};

/// Everything a game needs to navigate one map: the grid, the cell size and one layer per
/// movement type.
#[derive(Clone, Debug, PartialEq)]
pub struct NavData {
    /// Map and sector sizes.
    pub spec: GridSpec,
    /// Edge length of one cell. `[Units: m] [Limit: > 0]`
    pub cell_size_m: f32,
    /// One layer per movement type, in the document's movement-type order.
    pub layers: Vec<NavLayer>,
}
