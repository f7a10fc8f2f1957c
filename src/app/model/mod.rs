//! The editor's model: the open document, its undo history and the commands that edit it,
//! and the plain geometry those commands need. No egui here: the tools, the bake and crowd
//! workers sit on this layer, and the panels, overlays and viewport draw on top of them
//! (see `docs/architecture.md`).

pub mod brush;
pub mod commands;
pub mod open_map;
pub mod shared_doc;
pub mod stamp_placement;
pub mod stamp_selection;

pub use open_map::OpenMap;

/// A small document for unit tests across `app`: a 1 m cell, no water, no paint, no stamps,
/// and the given movement types. One fixture, so a new document field is added in one place.
#[cfg(test)]
pub(crate) fn test_document(
    movement_types: Vec<crate::map::MovementType>,
) -> crate::map::MapDocument {
    use crate::map::{FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument};
    MapDocument {
        version: FORMAT_VERSION,
        name: "t".to_owned(),
        heightmap: HeightmapSource {
            path: "t.png".to_owned(),
            encoding: HeightEncoding::Auto,
            no_data: None,
        },
        cell_size_m: 1.0,
        height_scale_m: 10.0,
        height_base_m: 0.0,
        water_level_m: 0.0,
        sector_size: 10,
        movement_types,
        paint: Vec::new(),
        stamps: Vec::new(),
        links: Vec::new(),
    }
}
