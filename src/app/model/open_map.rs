//! The open map: the document being edited with its heights and file path.

use std::path::PathBuf;
use std::sync::Arc;

use crate::map::{Heightmap, MapDocument};

/// The open map: document, heights, file path and the unsaved-changes flag.
#[derive(Clone, Debug)]
pub struct OpenMap {
    /// The document being edited.
    pub document: MapDocument,
    /// Its heights (never edited in the editor), shared with the bake thread's requests.
    pub heightmap: Arc<Heightmap>,
    /// Where it was loaded from / last saved to; `None` until first saved.
    pub path: Option<PathBuf>,
}
