//! navstudio: a map editor and baker for flow-field navigation data.

pub mod bake;
pub mod crowd;
pub mod map;
pub mod nav;
pub mod package;
