//! The editor's bridge to the library: load and save map documents (`map::io`), import
//! heightmaps, open nav packages ([`files`]), and bake (`bake::bake`, `bake::rebake_rect`)
//! into the shapes the editor's overlays and panels read ([`bake`]). The rest of `app/`
//! calls through here, never around it.

pub mod bake;
pub mod files;

pub use bake::{
    BakeOutput, BakeProgress, BakeStopped, TypeLayers, bake_full, bake_rect, rect_cells,
    rect_contributions,
};
pub use files::{
    LoadedMap, PackageView, default_movement_types, import_heightmap, load_map, load_package,
    new_map_from_heightmap, new_map_with_settings, prefill_new_map, save_map, terrain_preview,
};

use crate::map::MapError;

/// Why loading, saving or importing failed: the library's one-sentence message.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The library refused the file (the message says which file, what and what to do).
    #[error(transparent)]
    Map(#[from] MapError),
    /// The bake refused the document.
    #[error(transparent)]
    Bake(#[from] crate::bake::BakeError),
    /// The nav package could not be read (the message says which file and what is wrong).
    #[error(transparent)]
    Package(#[from] crate::package::PackageError),
}

/// Small documents for unit tests across `app`.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
    use crate::map::MapDocument;

    /// A document with the default movement types and no water.
    pub(crate) fn doc() -> MapDocument {
        crate::app::model::test_document(default_movement_types())
    }
}
