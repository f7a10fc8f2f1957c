//! Map files for the editor: load and save map documents, import heightmaps, start a new
//! map, and open a nav package for viewing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::BackendError;
use super::bake::{BakeOutput, cost_stats};
use crate::map::{self, Heightmap, MapDocument};

/// A map loaded from disk: the document, its heightmap, and warnings for the designer.
#[derive(Clone, Debug)]
pub struct LoadedMap {
    /// The `.ron` file the document came from (`None` for a map made from a heightmap and
    /// not yet saved).
    pub path: Option<PathBuf>,
    /// The document.
    pub document: MapDocument,
    /// Its heights.
    pub heightmap: Heightmap,
    /// Things the designer should know.
    pub warnings: Vec<String>,
}

impl From<map::LoadedMap> for LoadedMap {
    fn from(m: map::LoadedMap) -> Self {
        Self {
            path: Some(m.path),
            document: m.document,
            heightmap: m.heightmap,
            warnings: m.warnings,
        }
    }
}

/// The movement types a new map starts with (the library's).
#[must_use]
pub fn default_movement_types() -> Vec<crate::map::MovementType> {
    map::default_movement_types()
}

/// Reads a heightmap in any supported format (see `map::heightmap`).
///
/// # Errors
/// The library's [`crate::map::MapError`].
pub fn import_heightmap(path: &Path) -> Result<Heightmap, BackendError> {
    Ok(map::import_heightmap(path, map::HeightEncoding::Auto, None)?.heightmap)
}

/// A new, unsaved map document for a heightmap file, at the scale the file states, with
/// the default movement types.
///
/// # Errors
/// The library's [`crate::map::MapError`].
pub fn new_map_from_heightmap(heightmap_path: &Path) -> Result<LoadedMap, BackendError> {
    let prefilled = prefill_new_map(heightmap_path)?;
    Ok(new_map_with_settings(
        heightmap_path,
        prefilled.imported,
        &prefilled.settings,
    ))
}

/// Imports a heightmap and pre-fills the New map dialog from what the file says.
///
/// # Errors
/// The library's [`crate::map::MapError`].
pub fn prefill_new_map(heightmap_path: &Path) -> Result<map::new_map::Prefilled, BackendError> {
    Ok(map::new_map::prefill(heightmap_path)?)
}

/// A new, unsaved map document for an imported heightmap with the dialog's settings.
#[must_use]
pub fn new_map_with_settings(
    heightmap_path: &Path,
    imported: map::ImportedHeightmap,
    settings: &map::NewMapSettings,
) -> LoadedMap {
    let mut m: LoadedMap =
        map::io::new_map_with_settings(heightmap_path, imported, settings).into();
    // The library resolves the heightmap relative to the document; until the map is saved
    // there is no document, so keep the path as given.
    m.document.heightmap.path = heightmap_path.to_string_lossy().into_owned();
    m.path = None;
    m
}

/// The slope histogram and terrain-wall share per type a document would bake to.
#[must_use]
pub fn terrain_preview(
    document: &MapDocument,
    heightmap: &Heightmap,
) -> crate::bake::preview::TerrainPreview {
    crate::bake::preview::terrain_preview(document, heightmap)
}

/// Opens a map: a `.ron` document (with its heightmap and paint side files), or a
/// heightmap file (`.png`, `.r16`, `.raw`, `.hgt`, `.map`), which becomes a new unsaved map.
///
/// # Errors
/// The library's [`crate::map::MapError`] (one sentence naming the file).
pub fn load_map(path: &Path) -> Result<LoadedMap, BackendError> {
    let is_ron = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
    if !is_ron {
        return new_map_from_heightmap(path);
    }
    let mut loaded: LoadedMap = map::load_map(path)?.into();
    // The document stores its heightmap relative to itself; the editor keeps it absolute so
    // "Save As" into another folder still finds it (`save_map` makes it relative again).
    let hm = map::io::folder_of(path).join(&loaded.document.heightmap.path);
    if let Ok(abs) = hm.canonicalize() {
        loaded.document.heightmap.path = abs.to_string_lossy().into_owned();
    }
    Ok(loaded)
}

/// A nav package opened for viewing: the package's own numbers shown as a bake of a
/// stand-in document, which the editor keeps read-only.
#[derive(Clone, Debug)]
pub struct PackageView {
    /// A document with the package's map name, cell and sector size and the movement
    /// types its manifest records, over flat heights (a package carries no heights).
    pub map: LoadedMap,
    /// The package's cost fields and nav data, in the shape a bake hands the editor.
    pub output: BakeOutput,
}

/// Reads a nav package for viewing (see [`PackageView`]).
///
/// # Errors
/// The library's [`PackageError`](crate::package::PackageError) (one sentence naming the
/// file: wrong magic, newer version, damaged or truncated).
pub fn load_package(path: &Path) -> Result<PackageView, BackendError> {
    let package = crate::package::read(path)?;
    let manifest = &package.manifest;
    let nav = package.nav;
    let setting = |key: &str| {
        manifest
            .bake_options
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse::<f32>().ok())
    };
    let mut warnings = vec![format!(
        "{} is a nav package, open read-only: paint, stamps, links and movement types are shown as baked; open the map's .ron to edit and re-bake.",
        path.display()
    )];
    let movement_types = nav
        .layers
        .iter()
        .enumerate()
        .map(|(k, layer)| {
            let recorded = manifest
                .layers
                .get(k)
                .and_then(|l| match &l.params {
                    // Version 1 packages recorded the movement type as RON text.
                    serde_json::Value::String(ron) => ron::from_str(ron).ok(),
                    json => serde_json::from_value::<map::MovementType>(json.clone()).ok(),
                });
            recorded.unwrap_or_else(|| {
                warnings.push(format!(
                    "The package does not record the settings of movement type \"{}\"; its panel shows defaults.",
                    layer.name
                ));
                map::MovementType {
                    name: layer.name.clone(),
                    ..map::MovementType::default()
                }
            })
        })
        .collect();
    let (width, height) = (nav.spec.width, nav.spec.height);
    // The package's links name types by their bit in its layer order.
    let names: Vec<&str> = nav.layers.iter().map(|l| l.name.as_str()).collect();
    let links = package
        .links
        .iter()
        .map(|l| map::MapLink::from_nav(l, &names))
        .collect();
    let document = MapDocument {
        version: map::FORMAT_VERSION,
        name: manifest.map_name.clone(),
        heightmap: map::HeightmapSource {
            path: String::new(),
            encoding: map::HeightEncoding::Auto,
            no_data: None,
        },
        cell_size_m: nav.cell_size_m,
        height_scale_m: setting("height_scale_m").unwrap_or(0.0),
        height_base_m: setting("height_base_m").unwrap_or(0.0),
        water_level_m: setting("water_level_m").unwrap_or(-1.0),
        sector_size: u16::try_from(nav.spec.sector_size).unwrap_or(u16::MAX),
        movement_types,
        paint: Vec::new(),
        stamps: Vec::new(),
        links,
    };
    let cells = width as usize * height as usize;
    let types = nav
        .layers
        .iter()
        .map(|layer| cost_stats(&layer.name, layer.cost.to_cells(), vec![0; cells]))
        .collect();
    let output = BakeOutput {
        types,
        shared_nav: Some(Arc::new(nav)),
        ..BakeOutput::default()
    };
    let map = LoadedMap {
        path: None,
        document,
        heightmap: Heightmap {
            width,
            height,
            height01: vec![0.0; cells],
            blocked: Vec::new(),
        },
        warnings,
    };
    Ok(PackageView { map, output })
}

/// Saves the document (RON) and its paint layers (PNG side files) atomically.
///
/// # Errors
/// The library's [`crate::map::MapError`]; the old files stay intact.
pub fn save_map(
    path: &Path,
    document: &MapDocument,
    heightmap: &Heightmap,
) -> Result<(), BackendError> {
    let dir = map::io::folder_of(path);
    let stem = path
        .file_stem()
        .map_or_else(|| "map".to_owned(), |s| s.to_string_lossy().into_owned());
    let mut doc = document.clone();
    // Store the heightmap relative to the document when it lies beside it.
    let hm_path = PathBuf::from(&doc.heightmap.path);
    let hm_abs = if hm_path.is_absolute() {
        hm_path.clone()
    } else {
        std::env::current_dir()
            .map(|d| d.join(&hm_path))
            .unwrap_or(hm_path.clone())
    };
    if let (Ok(abs_hm), Ok(abs_dir)) = (hm_abs.canonicalize(), dir.canonicalize()) {
        doc.heightmap.path = abs_hm.strip_prefix(&abs_dir).map_or_else(
            |_| abs_hm.to_string_lossy().into_owned(),
            |rel| rel.to_string_lossy().into_owned(),
        );
    }
    for (i, layer) in doc.paint.iter_mut().enumerate() {
        if layer.file.is_empty() || layer.file.contains('/') {
            layer.file = format!("{stem}.paint{i}.png");
        }
    }
    map::save_map_with_size(path, &doc, heightmap.width, heightmap.height)?;
    Ok(())
}
