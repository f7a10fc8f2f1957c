//! All integration tests in one binary. Each module was once its own file under `tests/`,
//! and so its own test binary linking the whole library and the egui/wgpu stack; one
//! binary links that once. Run one former file with its module path as the filter, e.g.
//! `cargo test --test integration movingai::`.
//!
//! `save_crash` and `autosave_kill` re-run this binary as a child process with
//! `--exact save_crash::save_loop_child` / `--exact autosave_kill::autosave_child`: keep
//! those names in step with the module and function names.
#![allow(clippy::unwrap_used)]

mod common;
#[cfg(feature = "gui")]
mod gui_common;

#[cfg(feature = "gui")]
mod autosave_kill;
mod bad_inputs;
mod bake;
mod bake_property;
mod bake_stages;
mod cli_path;
mod crowd;
mod crowd_quality;
mod docs_commands;
#[cfg(feature = "gui")]
mod editor;
#[cfg(feature = "gui")]
mod editor_layout;
mod follow;
mod generate;
mod goal_sets;
mod hierarchy;
mod map_import;
mod mixed_selection;
#[cfg(feature = "gui")]
mod monkey;
mod moving_goals;
mod movingai;
mod nav_walls;
mod nav_world;
mod new_map;
mod package;
mod save_crash;
mod straight_paths;
mod streaming;
#[cfg(feature = "gui")]
mod undo_property;
