//! File > Open recent: the last maps opened or saved, newest first, kept in
//! `$XDG_CONFIG_HOME/navstudio/recent.txt` (or `~/.config/navstudio/recent.txt`), one path a
//! line. Only the real editor reads and writes it; tests and embedded uses keep the list in
//! memory.

use std::path::{Path, PathBuf};

/// How many maps the list keeps.
pub const RECENT_MAX: usize = 10;

/// The recent-maps list and where it is stored.
#[derive(Debug, Default)]
pub struct RecentFiles {
    /// Newest first.
    pub paths: Vec<PathBuf>,
    store: Option<PathBuf>,
}

/// The user's list file, from `XDG_CONFIG_HOME` or `HOME`.
#[must_use]
pub fn default_store() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(config.join("navstudio").join("recent.txt"))
}

impl RecentFiles {
    /// The list stored at `store` (empty when the file is missing or unreadable).
    #[must_use]
    pub fn load(store: PathBuf) -> Self {
        let paths = std::fs::read_to_string(&store)
            .map(|text| {
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(PathBuf::from)
                    .take(RECENT_MAX)
                    .collect()
            })
            .unwrap_or_default();
        Self {
            paths,
            store: Some(store),
        }
    }

    /// Puts `path` first (once) and writes the list back; a failed write only loses the
    /// list, never the map.
    pub fn note(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| p != &path);
        self.paths.insert(0, path);
        self.paths.truncate(RECENT_MAX);
        if let Some(store) = &self.store {
            let text: String = self
                .paths
                .iter()
                .map(|p| format!("{}\n", p.display()))
                .collect();
            if let Some(folder) = store.parent() {
                let _ = std::fs::create_dir_all(folder);
            }
            let _ = crate::map::io::write_atomic(store, text.as_bytes());
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_without_duplicates_capped_and_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("cfg").join("recent.txt");
        let mut recent = RecentFiles::load(store.clone());
        assert!(recent.paths.is_empty());
        for i in 0..12 {
            recent.note(Path::new(&format!("/maps/m{i}.ron")));
        }
        recent.note(Path::new("/maps/m5.ron"));
        assert_eq!(recent.paths.len(), RECENT_MAX);
        assert_eq!(recent.paths[0], Path::new("/maps/m5.ron"));
        assert_eq!(recent.paths[1], Path::new("/maps/m11.ron"));
        assert_eq!(
            recent
                .paths
                .iter()
                .filter(|p| p.ends_with("m5.ron"))
                .count(),
            1
        );
        let again = RecentFiles::load(store);
        assert_eq!(again.paths, recent.paths);
    }
}
