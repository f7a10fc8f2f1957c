//! The editor's side panels: tools and overlays (left), movement types and bake (right).

pub mod bake;
pub mod movement;
pub mod tools;

pub use bake::{BakeAction, BakeView, bake_ui};
pub use movement::MovementPanel;
pub use tools::{MapSettingsPanel, overlays_ui, tools_ui};
