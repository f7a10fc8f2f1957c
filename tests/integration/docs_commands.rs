//! Every `navstudio …` command quoted in a ```bash block of README.md and docs/*.md runs,
//! in order, in a scratch folder holding a copy of `maps/` (so `-o` outputs and regenerated
//! maps stay out of the checkout). Slow commands (the 2048² benchmark, criterion, fuzzing)
//! are quoted in ```sh blocks, which this test leaves to be run by hand.
//!
//! - Editor commands (`navstudio FILE`, `navstudio open FILE`) run without a display and
//!   must fail with the editor's "needs a display" sentence: that proves the command line
//!   is accepted.
//! - Commands on outside data (`$DATA`, `$HEIGHTMAPS`) and `for` loops are the measurements
//!   of docs/benchmarks.md, run by hand; they are skipped here.
//! - `cargo …` lines are what CI (`.ci/run`) runs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether a command opens the editor: `navstudio`, `navstudio open FILE` or `navstudio FILE`
/// (a first argument that names a file rather than a subcommand).
fn opens_editor(command: &str) -> bool {
    let first = command.split_whitespace().nth(1).unwrap_or("");
    first.is_empty() || first == "open" || first.contains(['.', '/'])
}

/// `navstudio` command lines in ```bash blocks, comments removed, `\` continuations joined.
fn quoted_commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_shell = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(lang) = trimmed.strip_prefix("```") {
            in_shell = !in_shell && lang.trim() == "bash";
            continue;
        }
        if !in_shell {
            continue;
        }
        let code = match trimmed.find(" #") {
            Some(i) => trimmed[..i].trim_end(),
            None => trimmed,
        };
        if let Some(head) = code.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(code);
        let command = std::mem::take(&mut pending);
        if command.starts_with("navstudio ") || command == "navstudio" {
            out.push(command);
        }
    }
    out
}

fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

#[test]
fn tells_editor_commands_from_subcommands() {
    assert!(opens_editor("navstudio maps/small.ron"));
    assert!(opens_editor("navstudio open x.hgt"));
    assert!(opens_editor("navstudio"));
    assert!(!opens_editor("navstudio validate maps/small.ron"));
    assert!(!opens_editor("navstudio crowd-bench"));
}

#[test]
fn parses_commands_from_shell_blocks_only() {
    let md = "text\n```bash\nnavstudio info a.navpkg   # comment\ncargo test\n\
              navstudio bake x.ron \\\n  -o y.navpkg\n```\n```ron\nnavstudio nope\n```\n\
              ```sh\nnavstudio slow\n```\n";
    assert_eq!(
        quoted_commands(md),
        [
            "navstudio info a.navpkg",
            "navstudio bake x.ron  -o y.navpkg"
        ]
    );
}

#[test]
fn quick_commands_in_readme_and_docs_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().unwrap();
    copy_dir(&root.join("maps"), &scratch.path().join("maps"));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_navstudio"));
    let bin_dir = bin.parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for command in quoted_commands(&text) {
            if command.contains('$') {
                continue;
            }
            let editor = opens_editor(&command);
            let out = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .current_dir(scratch.path())
                .env("PATH", &path)
                .env_remove("DISPLAY")
                .env_remove("WAYLAND_DISPLAY")
                .env_remove("WAYLAND_SOCKET")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let name = doc.file_name().unwrap().to_string_lossy();
            if editor {
                assert!(
                    stderr.contains("needs a display"),
                    "{name}: `{command}` did not reach the editor: {stderr}"
                );
            } else {
                assert!(out.status.success(), "{name}: `{command}` failed: {stderr}");
            }
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} commands found in the docs");
}
