//! Cost stamps: small cost grids (buildings, walls, bridges) placed on the map by designers,
//! with transparent cells that keep what was underneath.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::MapError;

/// One cell of a stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampCell {
    /// Keeps whatever cost was there.
    Transparent,
    /// A wall (cost 255).
    Wall,
    /// Replaces the cost with this value, clearing any terrain wall under it (e.g. a bridge).
    /// `[Limit: 1..=254]`
    Cost(u8),
}

/// A stamp as defined in the stamp library (`assets/stamps.ron`).
///
/// `rows` is a picture of the stamp, one string per row, top row first:
/// `.` transparent, `#` wall, `1`–`9` a cost of 1–9, and any other character looked up in
/// `legend` (e.g. `'s': 40` for a slow surface).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stamp {
    /// Identifier that placements refer to.
    pub id: String,
    /// Name shown to designers.
    pub name: String,
    /// The stamp's picture, top row first.
    pub rows: Vec<String>,
    /// Extra cost characters.
    #[serde(default)]
    pub legend: Vec<(char, u8)>,
}

/// A stamp placed on the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StampPlacement {
    /// The `Stamp::id` this places.
    pub stamp: String,
    /// Cell column of the top-left corner of the rotated footprint.
    pub x: i32,
    /// Cell row of the top-left corner of the rotated footprint.
    pub y: i32,
    /// Clockwise rotation in quarter turns. `[Limit: 0..=3]`
    pub rotation: u8,
}

/// The stamp library: every stamp a map can place.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StampLibrary {
    /// The stamps, in the order the editor lists them.
    pub stamps: Vec<Stamp>,
}

/// The built-in stamp library's text (`assets/stamps.ron`), compiled in.
pub const BUILTIN_STAMPS_RON: &str = include_str!("../../assets/stamps.ron");

/// The name used for the built-in library in messages.
pub const BUILTIN_STAMPS_PATH: &str = "assets/stamps.ron";

/// A stamp turned by a rotation: the cells it covers, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StampFootprint {
    /// Columns of the rotated stamp.
    pub width: u32,
    /// Rows of the rotated stamp.
    pub height: u32,
    /// Row-major cells, `width * height` long.
    pub cells: Vec<StampCell>,
}

impl StampFootprint {
    /// The cell at `(x, y)` of the rotated stamp; `None` outside it.
    #[must_use]
    pub fn get(&self, x: u32, y: u32) -> Option<StampCell> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.cells
            .get(y as usize * self.width as usize + x as usize)
            .copied()
    }
}

/// The largest side of a stamp, in cells; stamps are meant to be small.
pub const MAX_STAMP_SIDE: usize = 256;

impl Stamp {
    /// The stamp's cells, unrotated, row-major, as `(width, height, cells)`.
    ///
    /// # Errors
    /// [`MapError::BadStamp`] (naming `path`) if the stamp is empty, has ragged rows, uses an
    /// unknown character or a legend cost outside 1..=254.
    pub fn cells_in(&self, path: &Path) -> Result<(u32, u32, Vec<StampCell>), MapError> {
        let bad = |problem: String| MapError::BadStamp {
            path: path.to_path_buf(),
            id: self.id.clone(),
            problem,
        };
        for &(c, cost) in &self.legend {
            if c == '.' || c == '#' || c.is_ascii_digit() {
                return Err(bad(format!(
                    "redefines {c:?} in its legend, but `.`, `#` and digits are built in; use another character"
                )));
            }
            if !(1..=254).contains(&cost) {
                return Err(bad(format!(
                    "gives legend character {c:?} cost {cost}, but costs must be 1..=254 (use `#` for a wall); change the cost"
                )));
            }
        }
        let width = self.rows.first().map_or(0, |r| r.chars().count());
        if self.rows.is_empty() || width == 0 {
            return Err(bad(
                "is empty; give it at least one row with at least one cell".to_owned(),
            ));
        }
        if width > MAX_STAMP_SIDE || self.rows.len() > MAX_STAMP_SIDE {
            return Err(bad(format!(
                "is {width}×{} cells, more than {MAX_STAMP_SIDE} per side; split it into smaller stamps",
                self.rows.len()
            )));
        }
        let mut cells = Vec::with_capacity(width * self.rows.len());
        for (r, row) in self.rows.iter().enumerate() {
            let len = row.chars().count();
            if len != width {
                return Err(bad(format!(
                    "row {} has {len} cells but row 1 has {width}; make every row the same length",
                    r + 1
                )));
            }
            for (col, c) in row.chars().enumerate() {
                let cell = match c {
                    '.' => StampCell::Transparent,
                    '#' => StampCell::Wall,
                    '1'..='9' => StampCell::Cost(c as u8 - b'0'),
                    other => match self.legend.iter().find(|(l, _)| *l == other) {
                        Some(&(_, cost)) => StampCell::Cost(cost),
                        None => {
                            return Err(bad(format!(
                                "uses {other:?} in row {}, column {}, which is neither `.`, `#`, a digit nor in its legend; add it to the legend or fix the row",
                                r + 1,
                                col + 1
                            )));
                        }
                    },
                };
                cells.push(cell);
            }
        }
        Ok((width as u32, self.rows.len() as u32, cells))
    }

    /// The stamp turned clockwise by `rotation` quarter turns.
    ///
    /// # Errors
    /// [`MapError::BadRotation`] for a rotation above 3; [`MapError::BadStamp`] if the
    /// definition is unusable (see [`Stamp::cells_in`]).
    pub fn footprint(&self, rotation: u8) -> Result<StampFootprint, MapError> {
        self.footprint_in(rotation, Path::new("stamp library"))
    }

    /// [`Stamp::footprint`], naming `path` in errors.
    ///
    /// # Errors
    /// As [`Stamp::footprint`].
    pub fn footprint_in(&self, rotation: u8, path: &Path) -> Result<StampFootprint, MapError> {
        if rotation > 3 {
            return Err(MapError::BadRotation {
                path: path.to_path_buf(),
                stamp: self.id.clone(),
                rotation,
            });
        }
        let (w, h, cells) = self.cells_in(path)?;
        let (w, h) = (w as usize, h as usize);
        let (out_w, out_h) = if rotation.is_multiple_of(2) {
            (w, h)
        } else {
            (h, w)
        };
        let mut out = Vec::with_capacity(cells.len());
        for y in 0..out_h {
            for x in 0..out_w {
                // Source cell of rotated cell (x, y), turning clockwise.
                let (sx, sy) = match rotation {
                    0 => (x, y),
                    1 => (y, h - 1 - x),
                    2 => (w - 1 - x, h - 1 - y),
                    _ => (w - 1 - y, x),
                };
                out.push(cells[sy * w + sx]);
            }
        }
        Ok(StampFootprint {
            width: out_w as u32,
            height: out_h as u32,
            cells: out,
        })
    }
}

impl StampLibrary {
    /// Parses and checks a stamp library; `path` names the file in messages.
    ///
    /// # Errors
    /// [`MapError::Ron`] / [`MapError::UnknownField`] for text that does not parse,
    /// [`MapError::BadStamp`] for an unusable stamp or a duplicate id.
    pub fn parse(ron_text: &str, path: &Path) -> Result<Self, MapError> {
        let library: Self = ron::from_str(ron_text).map_err(|e| MapError::ron(path, &e))?;
        library.validate(path)?;
        Ok(library)
    }

    /// Checks every stamp (see [`Stamp::cells_in`]) and that ids are unique and non-empty.
    ///
    /// # Errors
    /// [`MapError::BadStamp`] for the first problem found.
    pub fn validate(&self, path: &Path) -> Result<(), MapError> {
        for (i, stamp) in self.stamps.iter().enumerate() {
            if stamp.id.trim().is_empty() {
                return Err(MapError::BadStamp {
                    path: path.to_path_buf(),
                    id: format!("#{}", i + 1),
                    problem: "has an empty id; give it a unique id".to_owned(),
                });
            }
            if self.stamps[..i].iter().any(|s| s.id == stamp.id) {
                return Err(MapError::BadStamp {
                    path: path.to_path_buf(),
                    id: stamp.id.clone(),
                    problem: "is defined twice; give each stamp a unique id".to_owned(),
                });
            }
            stamp.cells_in(path)?;
        }
        Ok(())
    }

    /// The built-in library, parsed from `assets/stamps.ron` (compiled in).
    ///
    /// # Errors
    /// Only if the compiled-in file is broken, which a test rules out.
    pub fn builtin() -> Result<Self, MapError> {
        Self::parse(BUILTIN_STAMPS_RON, Path::new(BUILTIN_STAMPS_PATH))
    }

    /// The stamp with this id.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&Stamp> {
        self.stamps.iter().find(|s| s.id == id)
    }

    /// The ids, in library order, comma separated (for messages).
    #[must_use]
    pub fn id_list(&self) -> String {
        self.stamps
            .iter()
            .map(|s| format!("`{}`", s.id))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
