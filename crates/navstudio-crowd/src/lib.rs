//! navstudio-crowd: agents that move on the navigation data, used by the editor's live preview
//! (no egui here).
//!
//! [`Simulation`] steps at a fixed rate with its own seeded RNG, so the same inputs give
//! the same trajectories on any number of threads. Agents are point masses with a disc
//! (Fieldrunners 2 boids): flow following, avoidance, separation (scaled by kinetic energy),
//! alignment and cohesion summed in priority order up to the max force; ORCA and context
//! steering are alternative [`AvoidanceMode`]s. Walls are solid ([`walls`]): discs slide
//! along them and never tunnel. Group orders use SmartCenter lanes and finish by transitive
//! bumping ([`groups`]). The crowd talks to navigation only through [`Navigator`].
//!
//! ```
//! use navstudio_crowd::{default_archetypes, testing::GridNavigator, Navigator, SimConfig,
//!     Simulation, Vec2};
//! let mut nav = GridNavigator::new(1.0, 32, 32);
//! nav.add_type("land", vec![1; 32 * 32]).unwrap();
//! let infantry = &default_archetypes()[0];
//! let mut sim = Simulation::new(SimConfig::default(), 7);
//! let id = sim.add_agent(&nav, infantry, Vec2::new(4.5, 4.5), 0).unwrap().unwrap();
//! sim.order_move(&mut nav, &[id], Vec2::new(20.5, 9.5));
//! sim.advance(&mut nav, 0.5);
//! assert!(sim.agents().pos_world[0].x > 4.5);
//! ```

pub mod agents;
pub mod archetype;
pub mod error;
pub mod groups;
pub mod half_planes;
pub mod metrics;
pub mod navigator;
pub mod quality;
pub mod resolve;
pub use navstudio_nav::MoveType;
/// The run time's seeded generator (one for every crate and test).
pub use navstudio_nav::rng;
pub mod scenario;
pub mod simulation;
pub mod spatial;
pub mod steering;
pub mod testing;
pub mod vec2;
pub mod walls;
pub mod world_navigator;

pub use agents::{AgentId, AgentState, Agents, Collision, LaneMode, NO_ORDER};
pub use archetype::{AgentArchetype, default_archetypes, load_archetypes};
pub use error::CrowdError;
pub use metrics::{CongestionMap, LinkFlow, StepMetrics, Throughput};
pub use navigator::{FlowSample, NavGrid, Navigator, PathId};
pub use scenario::{Order, Scenario, Spawn, SpawnArea};
pub use simulation::{OrderReport, Simulation};
pub use steering::{AvoidanceMode, Param, SimConfig, SteeringWeights, Techniques};
pub use vec2::Vec2;
pub use world_navigator::WorldNavigator;
