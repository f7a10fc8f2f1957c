//! The map document designers edit and save, and everything it refers to: heightmap import,
//! movement types, paint layers and stamps, plus loading and saving it all ([`io`]) with
//! typed errors ([`MapError`]).

pub mod document;
pub mod error;
pub mod generate;
pub mod heightmap;
pub mod io;
pub mod links;
pub mod movement;
pub mod new_map;
pub mod paint;
pub mod stamp;
pub mod summary;

pub use document::{FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument};
pub use error::{MAX_MAP_CELLS, MAX_MAP_SIDE, MapError};
pub use generate::{GenerateSpec, GeneratedMap, MapKind, generate};
pub use heightmap::{
    Heightmap, ImportedHeightmap, heightmap_from_u16, import_heightmap, write_png16,
};
pub use io::{
    LoadedMap, finish_interrupted_save, load_map, new_map_from_heightmap, save_map,
    save_map_with_size,
};
pub use links::MapLink;
pub use movement::{MovementType, WaterRule, default_movement_types};
pub use new_map::{MovementPreset, NewMapSettings};
pub use paint::{PaintCell, PaintForce, PaintLayer, PaintTarget};
pub use stamp::{Stamp, StampCell, StampFootprint, StampLibrary, StampPlacement};
pub use summary::summary;
