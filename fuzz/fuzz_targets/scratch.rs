//! The one scratch file per fuzzing process that the file-reading targets write each input
//! to (the importers read paths, not bytes). Included with `#[path]` by those targets.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Writes `data` to this process's scratch file ending in `extension` and returns its path.
/// RAM-backed when available: a disk-backed `/tmp` costs ~1 ms per write, 10× the parse.
pub fn write(extension: &str, data: &[u8]) -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        dir.join(format!("navfuzz-{}.{extension}", std::process::id()))
    });
    std::fs::write(path, data).expect("scratch file writes");
    path
}
