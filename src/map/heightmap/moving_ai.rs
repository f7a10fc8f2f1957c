//! Moving AI `.map` grids: a flat map whose walls block every movement type.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::{Heightmap, ImportedHeightmap, check_size};
use crate::map::error::{MAX_MAP_SIDE, MapError};

fn moving_ai_error(path: &Path, line: usize, problem: impl Into<String>) -> MapError {
    MapError::MovingAi {
        path: path.to_path_buf(),
        line,
        problem: problem.into(),
    }
}

/// Reads one line without its `\n` / `\r\n`; `None` at the end of the file.
fn next_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    path: &Path,
) -> Result<Option<()>, MapError> {
    buf.clear();
    // A row is at most MAX_MAP_SIDE characters; cap reads so a file without newlines
    // cannot make one line arbitrarily long.
    let limit = u64::from(MAX_MAP_SIDE) + 64;
    let n = reader
        .take(limit)
        .read_until(b'\n', buf)
        .map_err(|e| MapError::read(path, e))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    Ok(Some(()))
}

pub(super) fn import_moving_ai(path: &Path) -> Result<ImportedHeightmap, MapError> {
    let file = File::open(path).map_err(|e| MapError::read(path, e))?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut width: Option<u64> = None;
    let mut height: Option<u64> = None;
    let mut saw_type = false;

    // Header: `type`, `height`, `width` (any order), then `map`.
    loop {
        line_no += 1;
        if next_line(&mut reader, &mut buf, path)?.is_none() {
            return Err(moving_ai_error(
                path,
                line_no,
                "the file ends before the `map` line",
            ));
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let mut words = text.split_whitespace();
        let key = words.next().unwrap_or("");
        let value = words.next();
        let extra = words.next();
        match (key, value, extra) {
            ("map", None, None) => break,
            ("type", Some(kind), None) => {
                if kind != "octile" {
                    return Err(moving_ai_error(
                        path,
                        line_no,
                        format!("map type `{kind}` is not supported, only `octile`"),
                    ));
                }
                saw_type = true;
            }
            ("height" | "width", Some(v), None) => {
                let n: u64 = v.parse().map_err(|_| {
                    moving_ai_error(path, line_no, format!("`{v}` is not a whole number"))
                })?;
                if key == "height" {
                    height = Some(n);
                } else {
                    width = Some(n);
                }
            }
            _ => {
                return Err(moving_ai_error(
                    path,
                    line_no,
                    format!("bad header line `{text}`"),
                ));
            }
        }
    }
    let map_line = line_no;
    if !saw_type {
        return Err(moving_ai_error(
            path,
            map_line,
            "the `type octile` line is missing",
        ));
    }
    let (Some(w), Some(h)) = (width, height) else {
        return Err(moving_ai_error(
            path,
            map_line,
            "the `height` or `width` line is missing before `map`",
        ));
    };
    check_size(path, w, h)?;
    let (w, h) = (w as usize, h as usize);

    let mut blocked = vec![false; w * h];
    for row in 0..h {
        line_no += 1;
        if next_line(&mut reader, &mut buf, path)?.is_none() {
            return Err(moving_ai_error(
                path,
                line_no,
                format!("the map has {row} rows, but the header says height {h}"),
            ));
        }
        if buf.len() != w {
            return Err(moving_ai_error(
                path,
                line_no,
                format!(
                    "row {row} has {} characters, but the header says width {w}",
                    buf.len()
                ),
            ));
        }
        for (col, &c) in buf.iter().enumerate() {
            blocked[row * w + col] = match c {
                b'.' | b'G' | b'S' => false,
                b'@' | b'O' | b'T' | b'W' => true,
                other => {
                    return Err(moving_ai_error(
                        path,
                        line_no,
                        format!(
                            "unknown character {:?} in column {}",
                            char::from(other),
                            col + 1
                        ),
                    ));
                }
            };
        }
    }
    // Only blank lines may follow the grid.
    loop {
        line_no += 1;
        if next_line(&mut reader, &mut buf, path)?.is_none() {
            break;
        }
        if !buf.iter().all(u8::is_ascii_whitespace) {
            return Err(moving_ai_error(
                path,
                line_no,
                format!("more rows than the header's height {h}"),
            ));
        }
    }
    if !blocked.iter().any(|&b| b) {
        blocked = Vec::new();
    }
    Ok(ImportedHeightmap {
        heightmap: Heightmap {
            width: w as u32,
            height: h as u32,
            height01: vec![0.0; w * h],
            blocked,
        },
        range_m: None,
        warnings: Vec::new(),
    })
}
