//! navstudio: a map editor and baker for flow-field navigation data.

#[cfg(feature = "gui")]
pub mod app;
pub mod bake;
pub mod crowd;
pub mod map;
pub mod nav;
pub mod package;
pub mod scenarios;
