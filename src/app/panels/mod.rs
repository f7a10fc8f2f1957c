//! The editor's side panels: tools and overlays (left), movement types, bake, crowd and
//! crowd scenarios (right).

pub mod bake;
pub mod crowd;
pub mod legend;
pub mod movement;
pub mod scenarios;
pub mod tools;

pub use bake::{BakeAction, BakeView, bake_ui};
pub use movement::MovementPanel;
pub use tools::{map_settings_ui, overlays_ui, tools_ui};
