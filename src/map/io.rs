//! Map document I/O: load a `maps/NAME.ron` document with its heightmap and paint side
//! files, save it back atomically, or start a new document from any heightmap file.
//!
//! This sits at the front of the pipeline: everything the bake reads comes through
//! [`load_map`]. A save writes every file to a temporary file in the same folder, syncs it
//! and renames it over the old one, the paint files first and the document last, so a save
//! that fails leaves the previous files readable.

use rayon::prelude::*;
use std::path::{Path, PathBuf};

use navstudio_nav::package::atomic::{self, StagedFile};
use serde::Deserialize;

use super::document::{FORMAT_VERSION, MapDocument};
use super::error::MapError;
use super::heightmap::{Heightmap, heightmap_dimensions, import_heightmap};
use super::paint::PaintLayer;
use super::stamp::StampLibrary;

/// A map document loaded from disk, with everything it refers to.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedMap {
    /// Where the document lives (or, for a map made from a heightmap, where it would be
    /// saved: beside the heightmap, with the extension `.ron`).
    pub path: PathBuf,
    /// The document, paint layer cells filled in from their side files.
    pub document: MapDocument,
    /// The imported heightmap.
    pub heightmap: Heightmap,
    /// Things a designer should know that did not stop the load.
    pub warnings: Vec<String>,
}

/// Only the version, read before anything else so an old or new document gets the version
/// message rather than a confusing field error.
#[derive(Deserialize)]
#[serde(rename = "MapDocument")]
struct VersionProbe {
    version: u32,
}

/// Loads a map document, its heightmap and its paint layers.
///
/// Order of checks: the file reads; the `version` is this build's; the RON parses with no
/// unknown fields; every value is in range ([`MapDocument::validate_at`]); the heightmap
/// (relative to the document) imports; every paint side file exists and matches the
/// heightmap's size.
///
/// # Errors
/// The first problem found, naming the file it is in.
pub fn load_map(path: &Path) -> Result<LoadedMap, MapError> {
    finish_interrupted_save(path)?;
    let text = read_document_text(path)?;
    let document = parse_document(&text, path)?;
    document.validate_at(path)?;

    let folder = folder_of(path);
    let heightmap_path = folder.join(&document.heightmap.path);
    // The paint files decode beside the heightmap; their sizes are checked after it.
    let (imported, paints) = rayon::join(
        || {
            import_heightmap(
                &heightmap_path,
                document.heightmap.encoding,
                document.heightmap.no_data,
            )
        },
        || {
            document
                .paint
                .par_iter()
                .map(|layer| PaintLayer::read_png_unchecked(&folder.join(&layer.file)))
                .collect::<Vec<_>>()
        },
    );
    let imported = imported?;
    let heightmap = imported.heightmap;
    let mut warnings = imported.warnings;

    let mut document = document;
    for (layer, paint) in document.paint.iter_mut().zip(paints) {
        layer.cells = paint?.check(heightmap.width, heightmap.height)?;
    }
    warnings.extend(stamp_warnings(path, &document, &heightmap)?);

    Ok(LoadedMap {
        path: path.to_path_buf(),
        document,
        heightmap,
        warnings,
    })
}

/// The largest map document accepted; real ones are a few kilobytes.
const MAX_DOCUMENT_BYTES: u64 = 16 << 20;

fn read_document_text(path: &Path) -> Result<String, MapError> {
    let len = std::fs::metadata(path)
        .map_err(|e| MapError::read(path, e))?
        .len();
    if len > MAX_DOCUMENT_BYTES {
        return Err(MapError::read(
            path,
            std::io::Error::other(format!(
                "it is {len} bytes, far larger than a map document; check that this is the .ron map file"
            )),
        ));
    }
    std::fs::read_to_string(path).map_err(|e| MapError::read(path, e))
}

/// Parses a map document's text (version first, then the full document); `path` names the
/// file in errors. Does not validate values.
///
/// # Errors
/// [`MapError::OldVersion`] / [`MapError::NewVersion`], [`MapError::UnknownField`] or
/// [`MapError::Ron`].
pub fn parse_document(text: &str, path: &Path) -> Result<MapDocument, MapError> {
    // If even the probe fails, the full parse below gives the precise message.
    if let Ok(VersionProbe { version: found }) = ron::from_str::<VersionProbe>(text) {
        if found < FORMAT_VERSION {
            return Err(MapError::OldVersion {
                path: path.to_path_buf(),
                found,
                supported: FORMAT_VERSION,
            });
        }
        if found > FORMAT_VERSION {
            return Err(MapError::NewVersion {
                path: path.to_path_buf(),
                found,
                supported: FORMAT_VERSION,
            });
        }
    }
    ron::from_str::<MapDocument>(text).map_err(|e| MapError::ron(path, &e))
}

/// A warning per stamp placement that lies wholly off the map.
fn stamp_warnings(
    path: &Path,
    document: &MapDocument,
    heightmap: &Heightmap,
) -> Result<Vec<String>, MapError> {
    let mut warnings = Vec::new();
    if document.stamps.is_empty() {
        return Ok(warnings);
    }
    let library = StampLibrary::builtin()?;
    for (i, placement) in document.stamps.iter().enumerate() {
        let Some(stamp) = library.get(&placement.stamp) else {
            continue;
        };
        let footprint = stamp.footprint_in(placement.rotation, path)?;
        let x0 = i64::from(placement.x);
        let y0 = i64::from(placement.y);
        let off = x0 + i64::from(footprint.width) <= 0
            || y0 + i64::from(footprint.height) <= 0
            || x0 >= i64::from(heightmap.width)
            || y0 >= i64::from(heightmap.height);
        if off {
            warnings.push(format!(
                "{}: stamp placement {i} (`{}` at {}, {}) lies wholly off the {}×{} map and does nothing",
                path.display(),
                placement.stamp,
                placement.x,
                placement.y,
                heightmap.width,
                heightmap.height
            ));
        }
    }
    Ok(warnings)
}

/// Saves a map document and its paint side files, atomically.
///
/// The heightmap's size (needed for the paint PNGs) is read from the heightmap file's
/// header, relative to `path`; when the caller already knows it, use
/// [`save_map_with_size`].
///
/// # Errors
/// An invalid document ([`MapDocument::validate_at`]), an unreadable heightmap (only when
/// the document has paint layers), or a failed write. On error the old files are intact.
pub fn save_map(path: &Path, document: &MapDocument) -> Result<(), MapError> {
    document.validate_at(path)?;
    let size = if document.paint.is_empty() {
        (0, 0)
    } else {
        let heightmap_path = folder_of(path).join(&document.heightmap.path);
        heightmap_dimensions(&heightmap_path, document.heightmap.encoding)?
    };
    save_map_with_size(path, document, size.0, size.1)
}

/// Saves a map document whose heightmap is `width × height` cells, with its paint side
/// files, atomically. A paint layer with no cells is written blank.
///
/// # Errors
/// An invalid document, a paint layer of the wrong size, or a failed write. On error the
/// old files are intact.
pub fn save_map_with_size(
    path: &Path,
    document: &MapDocument,
    width: u32,
    height: u32,
) -> Result<(), MapError> {
    document.validate_at(path)?;
    let folder = folder_of(path);

    // Encode and stage everything before replacing anything.
    let mut staged = Vec::with_capacity(document.paint.len() + 1);
    for layer in &document.paint {
        let layer_path = folder.join(&layer.file);
        let png =
            if layer.cells.is_empty() {
                PaintLayer::new(layer.target.clone(), layer.file.clone(), width, height)
                    .encode_png(&layer_path, width, height)?
            } else {
                layer.encode_png(&layer_path, width, height)?
            };
        if let Some(parent) = layer_path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| MapError::write(&layer_path, e))?;
        }
        staged.push(
            StagedFile::stage(&layer_path, &png).map_err(|e| MapError::write(&layer_path, e))?,
        );
    }
    let text = document_text(document).map_err(|e| MapError::write(path, e))?;
    staged.push(StagedFile::stage(path, text.as_bytes()).map_err(|e| MapError::write(path, e))?);

    // The files must change together: a journal naming every staged file is made durable
    // before the first rename, so a save killed between renames is rolled forward by the
    // next load (`finish_interrupted_save`) instead of leaving old and new files mixed.
    let journal = journal_path(path);
    let lines: String = staged
        .iter()
        .map(|f| {
            format!(
                "{}\t{}\n",
                relative_to(&folder, f.temp()),
                relative_to(&folder, f.target())
            )
        })
        .collect();
    write_atomic(&journal, lines.as_bytes())?;
    for file in staged {
        pause_between_renames();
        let target = file.target().to_path_buf();
        file.commit().map_err(|e| MapError::write(&target, e))?;
    }
    std::fs::remove_file(&journal).map_err(|e| MapError::write(&journal, e))?;
    Ok(())
}

/// Test hook (debug builds only): with `NAVSTUDIO_SAVE_PAUSE_MS` set, each rename of a save
/// waits that long, so the crash test (tests/integration/save_crash.rs) can kill a save
/// between renames.
#[cfg(debug_assertions)]
fn pause_between_renames() {
    if let Some(ms) = std::env::var("NAVSTUDIO_SAVE_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

#[cfg(not(debug_assertions))]
fn pause_between_renames() {}

/// The journal of a save of `path` in progress: `.NAME.ron.saving` beside it.
fn journal_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "map.ron".into(), |n| n.to_string_lossy().into_owned());
    folder_of(path).join(format!(".{name}.saving"))
}

fn relative_to(folder: &Path, file: &Path) -> String {
    file.strip_prefix(folder)
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned()
}

/// Completes a save of `path` that was interrupted between its renames (the journal is
/// still there): every staged file still waiting is renamed into place, so the folder holds
/// the new version entirely. A journal written but never acted on names only complete,
/// synced temporary files, so rolling forward is always safe.
///
/// # Errors
/// [`MapError::Write`] when a rename fails (the journal stays for the next try).
pub fn finish_interrupted_save(path: &Path) -> Result<(), MapError> {
    let journal = journal_path(path);
    let Ok(text) = std::fs::read_to_string(&journal) else {
        return Ok(());
    };
    let folder = folder_of(path);
    for line in text.lines() {
        let Some((temp, target)) = line.split_once('\t') else {
            continue;
        };
        let (temp, target) = (folder.join(temp), folder.join(target));
        if temp.exists() {
            std::fs::rename(&temp, &target).map_err(|e| MapError::write(&target, e))?;
        }
    }
    std::fs::remove_file(&journal).map_err(|e| MapError::write(&journal, e))
}

/// The document as pretty RON with a short header comment.
fn document_text(document: &MapDocument) -> Result<String, std::io::Error> {
    let config = ron::ser::PrettyConfig::default();
    let body = ron::ser::to_string_pretty(document, config)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(format!(
        "// navstudio map document (format {FORMAT_VERSION}). Paths are relative to this file.\n{body}\n"
    ))
}

/// A new document for a heightmap file, so any heightmap can be opened directly, at the
/// scale the file states ([`super::new_map::prefill`]: SRTM `.hgt` cell size from its name
/// and size, metres from `.hgt` and Terrain-RGB, 1 m cells and 0–100 m for images that do
/// not say); sectors of 10; no water; the default movement types. The returned `path` is
/// the heightmap's path with the extension `.ron`.
///
/// # Errors
/// As [`import_heightmap`].
pub fn new_map_from_heightmap(heightmap_path: &Path) -> Result<LoadedMap, MapError> {
    let prefilled = super::new_map::prefill(heightmap_path)?;
    Ok(new_map_with_settings(
        heightmap_path,
        prefilled.imported,
        &prefilled.settings,
    ))
}

/// A new document for a heightmap already imported with `settings.encoding`, named after
/// the file, at `heightmap_path` with the extension `.ron`. Call
/// [`super::new_map::NewMapSettings::validate`] first.
#[must_use]
pub fn new_map_with_settings(
    heightmap_path: &Path,
    imported: super::heightmap::ImportedHeightmap,
    settings: &super::new_map::NewMapSettings,
) -> LoadedMap {
    let name = heightmap_path
        .file_stem()
        .map_or_else(|| "map".to_owned(), |s| s.to_string_lossy().into_owned());
    let file_name = heightmap_path
        .file_name()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    LoadedMap {
        path: heightmap_path.with_extension("ron"),
        document: settings.document(&name, &file_name),
        heightmap: imported.heightmap,
        warnings: imported.warnings,
    }
}

/// The folder a document's relative paths start from (`.` for a bare file name).
#[must_use]
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, then
/// renamed over `path`.
///
/// # Errors
/// [`MapError::Write`]; the old file, if any, is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), MapError> {
    atomic::write_atomic(path, bytes).map_err(|e| MapError::write(path, e))
}
