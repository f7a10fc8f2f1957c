//! navstudio: a map editor and baker for flow-field navigation data.

pub mod any_angle;
#[cfg(feature = "gui")]
pub mod app;
pub mod bake;
pub mod cost_scenarios;
pub mod grid_maps;
pub mod map;
pub mod movingai;

// The run time and the crowd are crates of their own (`crates/`), so the compiler keeps
// them free of documents and the editor; their old paths stay for the application's code.
pub use navstudio_crowd as crowd;
pub use navstudio_nav as nav;
pub use navstudio_nav::package;

/// The README's Rust example compiles as a doc test (`cargo test --doc`), so the code a
/// newcomer copies matches the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
