//! Atomic file writes: a temporary file in the same folder, synced, then renamed over the
//! target, so an interrupted write never leaves a half file under the real name. The
//! package writer uses it, and so does the map document's multi-file save.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fully written and synced temporary file waiting to replace its target. Dropping it
/// without committing removes the temporary file.
#[derive(Debug)]
pub struct StagedFile {
    temp: PathBuf,
    target: PathBuf,
    committed: bool,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl StagedFile {
    /// Writes `bytes` to a new temporary file beside `target` and syncs it.
    ///
    /// # Errors
    /// The OS error when the folder is not writable or the disk is full; no temporary file
    /// is left behind.
    pub fn stage(target: &Path, bytes: &[u8]) -> std::io::Result<Self> {
        Self::stage_parts(target, &[bytes])
    }

    /// [`Self::stage`] of the concatenation of `parts`, written one after another.
    ///
    /// # Errors
    /// As [`Self::stage`].
    pub fn stage_parts(target: &Path, parts: &[&[u8]]) -> std::io::Result<Self> {
        let Some(file_name) = target.file_name() else {
            return Err(std::io::Error::other("the path names no file"));
        };
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp_name = format!(
            ".{}.{}-{n}.tmp",
            file_name.to_string_lossy(),
            std::process::id()
        );
        let staged = Self {
            temp: folder_of(target).join(temp_name),
            target: target.to_path_buf(),
            committed: false,
        };
        // On error `staged` drops here and removes the partial temporary file.
        File::create_new(&staged.temp).and_then(|mut f| {
            for part in parts {
                f.write_all(part)?;
            }
            f.sync_all()
        })?;
        Ok(staged)
    }

    /// The temporary file.
    #[must_use]
    pub fn temp(&self) -> &Path {
        &self.temp
    }

    /// The file it replaces.
    #[must_use]
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary file over the target.
    ///
    /// # Errors
    /// The OS error of the rename; the target is then unchanged.
    pub fn commit(mut self) -> std::io::Result<()> {
        std::fs::rename(&self.temp, &self.target)?;
        self.committed = true;
        // Make the rename itself durable; not every platform can open a folder, and the
        // data is already safe in either the old or the new file, so failure is ignored.
        if let Ok(dir) = File::open(folder_of(&self.target)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `path` atomically.
///
/// # Errors
/// The OS error; the old file, if any, is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_parts_atomic(path, &[bytes])
}

/// Writes the concatenation of `parts` to `path` atomically.
/// # Errors
/// The OS error; the old file, if any, is untouched.
pub fn write_parts_atomic(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    StagedFile::stage_parts(path, parts)?.commit()
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
