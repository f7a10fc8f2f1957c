//! navstudio-capi: the run time ([`navstudio_nav`]) and the crowd ([`navstudio_crowd`]) behind
//! a C ABI, for engines outside Rust (Unity through P/Invoke, Godot GDExtension, Unreal, C++).
//! It builds `libnavstudio_capi.so`/`.dylib`/`.dll` and `libnavstudio_capi.a`; the header
//! `include/navstudio.h` is generated from this crate by cbindgen (`tests/header.rs` fails
//! when the committed header is stale; `NAVSTUDIO_BLESS=1` rewrites it).
//!
//! Rules every entry point keeps:
//! - it returns a [`NavstudioStatus`]; on failure a sentence for a person is in
//!   [`navstudio_last_error`] (per thread);
//! - it never unwinds into C: each body runs under `catch_unwind`, and a panic becomes
//!   [`NavstudioStatus::Panic`]; a handle a panic left half-changed is poisoned and refuses
//!   every later call but `_free`;
//! - null handles and null output pointers are refused; a (pointer, length) pair is checked
//!   for null and alignment before a slice is made of it. What no function can check is that
//!   a non-null pointer really points at that many live elements: that is the caller's part.
//!
//! Coordinates: cells `(x, y)`, x right, y down, origin top-left. Flow sampling takes
//! positions in cell units (`(x + 0.5, y + 0.5)` is the centre of cell `(x, y)`), the crowd
//! world metres (cell units × the package's cell size).

mod changes;
mod crowd;
mod ffi;
mod links;
mod paths;
mod shared;
mod world;

pub use changes::*;
pub use crowd::*;
pub use ffi::{NavstudioStatus, navstudio_last_error, navstudio_version};
pub use links::*;
pub use paths::*;
pub use shared::*;
pub use world::*;

/// A cell of the map. `[Units: cells]`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NavstudioCell {
    /// Column, 0 at the left.
    pub x: u32,
    /// Row, 0 at the top.
    pub y: u32,
}

/// A 2-D vector: a position or a direction (units as the function says).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NavstudioVec2 {
    /// Right.
    pub x: f32,
    /// Down.
    pub y: f32,
}

/// A block of cells. `[Units: cells]`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NavstudioRect {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Columns. `[Limit: >= 1]`
    pub width: u32,
    /// Rows. `[Limit: >= 1]`
    pub height: u32,
}

pub(crate) use paths::on_map as paths_on_map;

impl NavstudioCell {
    fn pair(self) -> (u32, u32) {
        (self.x, self.y)
    }
}

/// The Rust snippets of docs/engine-integration.md, compiled as doc tests so the page stays
/// in step with the crates (its C, C#, C++ and shell blocks are not Rust and are skipped).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/engine-integration.md")]
pub struct EngineIntegrationDoc;
