//! The map document designers edit and save, and everything it refers to: heightmap import,
//! movement types, paint layers and stamps.

pub mod document;
pub mod generate;
pub mod heightmap;
pub mod movement;
pub mod paint;
pub mod stamp;

pub use document::{FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument};
pub use generate::{GenerateSpec, GeneratedMap, MapKind, generate};
pub use heightmap::Heightmap;
pub use movement::{MovementType, WaterRule, default_movement_types};
pub use paint::{PaintCell, PaintForce, PaintLayer, PaintTarget};
pub use stamp::{Stamp, StampCell, StampLibrary, StampPlacement};
