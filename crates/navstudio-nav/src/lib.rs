//! navstudio-nav, the run time: what a game links against. Knows nothing of documents,
//! heightmaps or the editor. Holds the sectored cost field, portals, the portal graph,
//! islands, the integrator and flow fields, the precomputed flow permutations, `NavWorld`,
//! and the nav package reader and writer ([`package`]).

pub mod corridor;
pub mod cost;
mod data;
pub mod flow;
pub mod grid;
pub(crate) mod hierarchy;
pub mod integrate;
pub mod islands;
pub(crate) mod landmarks;
pub mod layer;
pub mod links;
pub mod los;
pub mod package;
pub mod permutations;
pub mod portals;
mod query;
pub mod rng;
pub(crate) mod route;
pub(crate) mod search_graph;
mod spill;
pub mod taut;
mod vocab;
pub mod world;

pub use cost::{CostField, CostTile, SectorCost, SectorTable};
pub use data::NavData;
pub use grid::CellRect;
pub use grid::GridSpec;
pub use layer::{NavLayer, build_layer, rebuild_sectors};
pub use query::{Path, PathQuery, PathTable, PendingRequest, QueryOptions};
pub use route::TIE_BUCKET;
pub use vocab::{Cell, MoveType};
pub use world::{
    ClusterStats, DEFAULT_CACHE_BUDGET, GoalMove, GoalMoveStats, NavWorld, PathError, PathId,
    PendingPath, SearchMode, StreamOptions, StreamStats, TracedPath,
};
