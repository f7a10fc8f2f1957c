//! navstudio: a map editor and baker for flow-field navigation data.

#[cfg(feature = "gui")]
pub mod app;
pub mod bake;
pub mod crowd;
pub mod map;
pub mod nav;
pub mod package;
pub mod scenarios;

/// The README's Rust example compiles as a doc test (`cargo test --doc`), so the code a
/// newcomer copies matches the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
