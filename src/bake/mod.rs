//! Editor-time bake stages: document + heights → final cost field per movement type, then
//! nav/ builds sectors, portals, the portal graph, islands and flow permutations.

pub mod cost_layers;
pub mod distance;
pub mod paint;
pub mod slope;
pub mod terrain_cost;
pub mod wall_blur;
pub mod wall_buffer;
