//! A new map from a heightmap, at the heightmap's real scale.
//!
//! Pipeline position: before the first bake. A heightmap file says more about its scale than
//! its pixels: an SRTM `.hgt` tile names its latitude (`N37W119.hgt`) and its size gives the
//! sample spacing (1201² = 3″, 3601² = 1″); `.hgt` and Mapbox Terrain-RGB store metres.
//! [`prefill`] reads what the file says into [`NewMapSettings`]; the editor's New map dialog
//! and `navstudio new` / `navstudio bake HEIGHTMAP` let a designer change any field, then
//! [`NewMapSettings::document`] writes the map document.
//!
//! Heights stay in the file's own metres: the document stores the black sample's height
//! (`height_base_m`), the span to the white sample (`height_scale_m`) and an absolute
//! `water_level_m`, as [`NewMapSettings`] gives them (`height_black_m`, `height_white_m`).
//!
//! Cells are square. An SRTM cell at latitude φ is `s · cos φ` east–west and `s` north–south
//! (`s` = 92.6 m for 3″): the pre-fill uses their arithmetic mean and says so in its notes.

use std::path::Path;

use super::document::{FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument};
use super::error::MapError;
use super::heightmap::{ImportedHeightmap, encoding_from_extension, import_heightmap};
use super::movement::{MovementType, default_movement_types};

/// Metres per arc-second of latitude (one nautical mile per arc-minute: 1852 m / 60).
pub const METRES_PER_ARCSEC: f64 = 1852.0 / 60.0;

/// The pocket size a new map's movement types wall in (a 4 × 4 patch): measured on the
/// SRTM tile N37W119 at its real 83 m cells, 1,174 land islands, all but 55 of them pockets
/// of under ten cells (docs/benchmarks.md).
pub const NEW_MAP_MIN_ISLAND_CELLS: u32 = 16;

/// Which movement types a new map starts with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MovementPreset {
    /// `land`, `hover` and `large` ([`default_movement_types`]).
    #[default]
    LandHoverLarge,
    /// `land` only.
    LandOnly,
    /// `land` and `hover`.
    LandHover,
}

impl MovementPreset {
    /// Every preset, in the order the editor lists them.
    pub const ALL: [Self; 3] = [Self::LandHoverLarge, Self::LandHover, Self::LandOnly];

    /// The movement types of this preset. Real terrain leaves many walled-in flat spots of
    /// a few cells, so a new map walls in pockets of up to [`NEW_MAP_MIN_ISLAND_CELLS`].
    #[must_use]
    pub fn movement_types(self) -> Vec<MovementType> {
        let mut types = default_movement_types();
        for t in &mut types {
            t.min_island_cells = NEW_MAP_MIN_ISLAND_CELLS;
        }
        match self {
            Self::LandHoverLarge => {}
            Self::LandHover => types.retain(|t| t.name != "large"),
            Self::LandOnly => types.retain(|t| t.name == "land"),
        }
        types
    }

    /// A short label: the type names joined with commas.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::LandHoverLarge => "land, hover, large",
            Self::LandHover => "land, hover",
            Self::LandOnly => "land only",
        }
    }

    /// Parses a preset name as the CLI takes it: `land-hover-large`, `land-hover`, `land`.
    ///
    /// # Errors
    /// One sentence naming the accepted values.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "land-hover-large" | "default" => Ok(Self::LandHoverLarge),
            "land-hover" => Ok(Self::LandHover),
            "land" | "land-only" => Ok(Self::LandOnly),
            _ => Err(format!(
                "'{s}' is not a movement preset; use land-hover-large, land-hover or land"
            )),
        }
    }
}

/// Where an SRTM tile lies, from its file name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HgtTile {
    /// Latitude of the tile's southern edge in degrees (north positive).
    pub south_deg: i32,
    /// Longitude of the tile's western edge in degrees (east positive).
    pub west_deg: i32,
}

impl HgtTile {
    /// Latitude of the tile's centre in degrees.
    #[must_use]
    pub fn centre_lat_deg(self) -> f64 {
        f64::from(self.south_deg) + 0.5
    }
}

/// Reads an SRTM tile name: `N37W119`, `S12E044` (case-insensitive, extension ignored).
/// `None` when the stem does not follow the pattern.
#[must_use]
pub fn parse_hgt_name(file_name: &str) -> Option<HgtTile> {
    let stem = file_name.split('.').next()?.to_ascii_uppercase();
    let bytes = stem.as_bytes();
    let ns = *bytes.first()?;
    let ew_at = stem.find(['E', 'W'])?;
    let lat: i32 = stem.get(1..ew_at)?.parse().ok()?;
    let lon: i32 = stem.get(ew_at + 1..)?.parse().ok()?;
    let ew = bytes[ew_at];
    if !(0..=90).contains(&lat) || !(0..=180).contains(&lon) || ew_at < 2 {
        return None;
    }
    let south_deg = match ns {
        b'N' => lat,
        b'S' => -lat,
        _ => return None,
    };
    let west_deg = if ew == b'E' { lon } else { -lon };
    Some(HgtTile {
        south_deg,
        west_deg,
    })
}

/// Sample spacing in arc-seconds of an SRTM tile `side` samples wide: 1201 → 3, 3601 → 1.
#[must_use]
pub fn hgt_spacing_arcsec(side: u32) -> Option<f64> {
    match side {
        1201 => Some(3.0),
        3601 => Some(1.0),
        _ => None,
    }
}

/// East–west and north–south size in metres of an SRTM cell of `arcsec` at `lat_deg`.
#[must_use]
pub fn hgt_cell_size_m(arcsec: f64, lat_deg: f64) -> (f64, f64) {
    let north_south = arcsec * METRES_PER_ARCSEC;
    (north_south * lat_deg.to_radians().cos(), north_south)
}

/// Everything the New map dialog asks, in the file's own units.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMapSettings {
    /// How the file encodes heights (never `Auto`: the pre-fill resolves it).
    pub encoding: HeightEncoding,
    /// Width and depth of one cell. `[Units: m] [Limit: > 0]`
    pub cell_size_m: f32,
    /// Height of the lowest sample (black, or the file's lowest metre). `[Units: m]`
    pub height_black_m: f32,
    /// Height of the highest sample (white, or the file's highest metre).
    /// `[Units: m] [Limit: >= height_black_m]`
    pub height_white_m: f32,
    /// Cells lower than this are water; `None` for no water. `[Units: m, same datum as the
    /// heights]`
    pub water_level_m: Option<f32>,
    /// Sector edge length. `[Units: cells] [Limit: 1..=255]`
    pub sector_size: u16,
    /// Which movement types the map starts with.
    pub preset: MovementPreset,
    /// Whether the heights are metres from the file (`.hgt`, Terrain-RGB): the height range
    /// is then the file's and not a field to set.
    pub metric: bool,
    /// How each field was pre-filled, one line each, for the dialog and the CLI.
    pub notes: Vec<String>,
}

/// What the pre-fill needs besides the settings: the imported heights.
#[derive(Clone, Debug)]
pub struct Prefilled {
    /// The pre-filled settings.
    pub settings: NewMapSettings,
    /// The heightmap, imported with `settings.encoding`.
    pub imported: ImportedHeightmap,
}

/// Highest and lowest plausible Terrain-RGB heights on Earth, with margin: a colour PNG
/// whose decoded heights fall outside is a picture, not a Terrain-RGB tile.
const TERRAIN_RGB_PLAUSIBLE_M: (f64, f64) = (-12_000.0, 9_000.0);

/// Imports `path` and pre-fills the settings from what the file says.
///
/// - SRTM `.hgt`: heights in metres (the file's own range); cell size from the spacing
///   (1201² = 3″, 3601² = 1″) and the latitude in the name, the mean of the east–west and
///   north–south sizes; without a readable name, the latitude is taken as 0°.
/// - A colour PNG whose every pixel decodes to a plausible Terrain-RGB height is read as
///   Terrain-RGB (metres; the cell size is not in the file: 1 m, to be set).
/// - Grey PNG, RAW: 0 m at black, 100 m at white, 1 m cells, to be set.
/// - Moving AI `.map`: 1 m cells, flat.
///
/// Water starts off (no level); sectors of 10 cells; the default movement types.
///
/// # Errors
/// As [`import_heightmap`].
pub fn prefill(path: &Path) -> Result<Prefilled, MapError> {
    let mut encoding = encoding_from_extension(path)?;
    let mut imported = import_heightmap(path, encoding, None)?;
    let mut notes = Vec::new();
    if encoding == HeightEncoding::Gray
        && imported.warnings.iter().any(|w| w.contains("colour image"))
        && let Ok(terrain) = import_heightmap(path, HeightEncoding::TerrainRgb, None)
        && terrain.range_m.is_some_and(|(lo, hi)| {
            lo >= TERRAIN_RGB_PLAUSIBLE_M.0 && hi <= TERRAIN_RGB_PLAUSIBLE_M.1
        })
    {
        encoding = HeightEncoding::TerrainRgb;
        imported = terrain;
        notes.push(
            "Colour PNG with heights in Mapbox Terrain-RGB range: read as Terrain-RGB (metres)."
                .to_owned(),
        );
    }
    let (width, height) = (imported.heightmap.width, imported.heightmap.height);
    let mut settings = NewMapSettings {
        encoding,
        cell_size_m: 1.0,
        height_black_m: 0.0,
        height_white_m: 100.0,
        water_level_m: None,
        sector_size: 10,
        preset: MovementPreset::default(),
        metric: false,
        notes: Vec::new(),
    };
    if let Some((lo, hi)) = imported.range_m {
        settings.metric = true;
        settings.height_black_m = lo as f32;
        settings.height_white_m = hi.max(lo) as f32;
        notes.push(format!(
            "Heights are metres from the file: {lo:.0} m to {hi:.0} m."
        ));
    }
    match encoding {
        HeightEncoding::Hgt => {
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let arcsec = hgt_spacing_arcsec(width.max(height)).unwrap_or(3.0);
            let tile = parse_hgt_name(&name);
            let lat = tile.map_or(0.0, HgtTile::centre_lat_deg);
            let (ew, ns) = hgt_cell_size_m(arcsec, lat);
            settings.cell_size_m = ((ew + ns) / 2.0) as f32;
            notes.push(match tile {
                Some(_) => format!(
                    "SRTM {arcsec:.0}-arc-second tile at {lat:.1}° latitude: cells are {ew:.1} m east–west × {ns:.1} m north–south; square cells use the mean, {:.1} m.",
                    settings.cell_size_m
                ),
                None => format!(
                    "SRTM {arcsec:.0}-arc-second samples; the file name gives no latitude (expected e.g. N37W119.hgt), so cells are taken at the equator: {:.1} m.",
                    settings.cell_size_m
                ),
            });
        }
        HeightEncoding::TerrainRgb => notes.push(
            "Terrain-RGB does not store its cell size: set the metres per pixel of the tile's zoom level."
                .to_owned(),
        ),
        HeightEncoding::MovingAi => {
            notes.push("Moving AI grid: flat, walls from the file; 1 m cells.".to_owned());
        }
        _ => notes.push(
            "The image does not say its scale: set the metres per pixel and the heights at black and white."
                .to_owned(),
        ),
    }
    settings.notes = notes;
    Ok(Prefilled { settings, imported })
}

impl NewMapSettings {
    /// Metres from the black to the white sample (the document's `height_scale_m`).
    #[must_use]
    pub fn height_scale_m(&self) -> f32 {
        (self.height_white_m - self.height_black_m).max(0.0)
    }

    /// The water level as the document stores it: in the file's metres, or a metre below
    /// the black sample when there is no water.
    #[must_use]
    pub fn document_water_level_m(&self) -> f32 {
        self.water_level_m.unwrap_or(self.height_black_m - 1.0)
    }

    /// Checks every field against its limits.
    ///
    /// # Errors
    /// [`MapError::InvalidValue`] naming the field, with `path` as the file.
    pub fn validate(&self, path: &Path) -> Result<(), MapError> {
        let invalid = |field: &str, problem: String| MapError::InvalidValue {
            path: path.to_path_buf(),
            field: field.to_owned(),
            problem,
        };
        if !(self.cell_size_m.is_finite() && self.cell_size_m > 0.0) {
            return Err(invalid(
                "cell size",
                format!("is {} m; it must be a number above 0", self.cell_size_m),
            ));
        }
        if !(self.height_black_m.is_finite()
            && self.height_white_m.is_finite()
            && self.height_white_m >= self.height_black_m)
        {
            return Err(invalid(
                "height range",
                format!(
                    "is {} m to {} m; give the height at black first and at white second, white not below black",
                    self.height_black_m, self.height_white_m
                ),
            ));
        }
        if self.water_level_m.is_some_and(|w| !w.is_finite()) {
            return Err(invalid(
                "water level",
                "is not a number; give metres, or leave it out for no water".to_owned(),
            ));
        }
        if self.sector_size == 0 {
            return Err(invalid(
                "sector size",
                "is 0; it must be 1 to 255 cells".to_owned(),
            ));
        }
        Ok(())
    }

    /// The map document these settings describe, for the heightmap file `heightmap_file`
    /// (as the document will store it) and the map name `name`.
    #[must_use]
    pub fn document(&self, name: &str, heightmap_file: &str) -> MapDocument {
        MapDocument {
            version: FORMAT_VERSION,
            name: name.to_owned(),
            heightmap: HeightmapSource {
                path: heightmap_file.to_owned(),
                encoding: self.encoding,
                no_data: None,
            },
            cell_size_m: self.cell_size_m,
            height_scale_m: self.height_scale_m(),
            height_base_m: self.height_black_m,
            water_level_m: self.document_water_level_m(),
            sector_size: self.sector_size,
            movement_types: self.preset.movement_types(),
            paint: Vec::new(),
            stamps: Vec::new(),
            links: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn hgt_names_in_every_quadrant() {
        let t = parse_hgt_name("N37W119.hgt");
        assert_eq!(
            t,
            Some(HgtTile {
                south_deg: 37,
                west_deg: -119
            })
        );
        let t = parse_hgt_name("s12e044.HGT");
        assert_eq!(
            t,
            Some(HgtTile {
                south_deg: -12,
                west_deg: 44
            })
        );
        assert_eq!(parse_hgt_name("N00E000.hgt").map(|t| t.west_deg), Some(0));
        assert_eq!(parse_hgt_name("S01W001.hgt").map(|t| t.south_deg), Some(-1));
        for bad in [
            "terrain.hgt",
            "X37W119.hgt",
            "N37Q119.hgt",
            "N91W000.hgt",
            "NW119.hgt",
        ] {
            assert_eq!(parse_hgt_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn hgt_centre_latitude_is_half_a_degree_north_of_the_south_edge() {
        let north = parse_hgt_name("N37W119.hgt").map(HgtTile::centre_lat_deg);
        assert_eq!(north, Some(37.5));
        // S12 covers 12°S to 11°S.
        let south = parse_hgt_name("S12E044.hgt").map(HgtTile::centre_lat_deg);
        assert_eq!(south, Some(-11.5));
    }

    #[test]
    fn hgt_spacing_from_size() {
        assert_eq!(hgt_spacing_arcsec(1201), Some(3.0));
        assert_eq!(hgt_spacing_arcsec(3601), Some(1.0));
        assert_eq!(hgt_spacing_arcsec(1200), None);
    }

    #[test]
    fn hgt_cell_sizes() {
        let (ew, ns) = hgt_cell_size_m(3.0, 0.0);
        assert!((ns - 92.6).abs() < 1e-9 && (ew - 92.6).abs() < 1e-9);
        let (ew, ns) = hgt_cell_size_m(3.0, 37.5);
        assert!((ns - 92.6).abs() < 1e-9);
        assert!((ew - 73.46).abs() < 0.01, "{ew}");
        let (ew, ns) = hgt_cell_size_m(1.0, 60.0);
        assert!((ns - 30.867).abs() < 0.001);
        assert!((ew - 15.433).abs() < 0.001, "{ew}");
        // South is as far from the equator as north.
        let (ew_s, _) = hgt_cell_size_m(3.0, -37.5);
        assert!((ew_s - 73.46).abs() < 0.01);
    }

    /// Writes a flat `.hgt` of `side`² samples at `height_m` under `name`.
    fn write_hgt(dir: &Path, name: &str, side: usize) -> std::path::PathBuf {
        let path = dir.join(name);
        let mut bytes = Vec::with_capacity(side * side * 2);
        for i in 0..side * side {
            let h = 1000 + (i % 7) as i16;
            bytes.extend_from_slice(&h.to_be_bytes());
        }
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn prefill_reads_hgt_name_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("N37W119.hgt", 1201, (73.46 + 92.6) / 2.0),
            ("S37E119.hgt", 1201, (74.44 + 92.6) / 2.0),
            ("N60E010.hgt", 3601, (15.20 + 30.87) / 2.0),
            ("S01W001.hgt", 3601, 30.87),
        ];
        for (name, side, want) in cases {
            let path = write_hgt(dir.path(), name, side);
            let p = prefill(&path).unwrap();
            assert_eq!(p.settings.encoding, HeightEncoding::Hgt);
            assert!(p.settings.metric);
            assert!(
                (f64::from(p.settings.cell_size_m) - want).abs() < 0.05,
                "{name}: {} m, want {want:.2}",
                p.settings.cell_size_m
            );
            assert_eq!(p.settings.height_black_m, 1000.0);
            assert_eq!(p.settings.height_white_m, 1006.0);
            assert_eq!(p.settings.water_level_m, None);
            assert!(p.settings.notes.iter().any(|n| n.contains("SRTM")));
        }
    }

    #[test]
    fn prefill_of_an_unnamed_hgt_says_it_assumed_the_equator() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_hgt(dir.path(), "tile.hgt", 1201);
        let p = prefill(&path).unwrap();
        assert!((p.settings.cell_size_m - 92.6).abs() < 0.01);
        assert!(p.settings.notes.iter().any(|n| n.contains("equator")));
    }

    /// Writes a `w × h` RGBA PNG whose pixels `pixel(x, y)` gives.
    fn write_rgba(path: &Path, w: u32, h: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) {
        let img = image::RgbaImage::from_fn(w, h, |x, y| image::Rgba(pixel(x, y)));
        img.save(path).unwrap();
    }

    #[test]
    fn prefill_reads_a_terrain_rgb_tile_in_metres_and_a_colour_picture_as_grey() {
        let dir = tempfile::tempdir().unwrap();
        // Terrain-RGB: h = -10000 + (R·65536 + G·256 + B) · 0.1; 500 m + 10 m per column.
        let tile = dir.path().join("tile.png");
        write_rgba(&tile, 8, 4, |x, _| {
            let v = ((500.0 + 10.0 * f64::from(x) + 10_000.0) / 0.1).round() as u32;
            [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255]
        });
        let p = prefill(&tile).unwrap();
        assert_eq!(p.settings.encoding, HeightEncoding::TerrainRgb);
        assert!(p.settings.metric);
        assert!((p.settings.height_black_m - 500.0).abs() < 0.01);
        assert!((p.settings.height_white_m - 570.0).abs() < 0.01);
        // A colour picture decodes to absurd Terrain-RGB heights: it stays a grey import.
        let picture = dir.path().join("picture.png");
        write_rgba(&picture, 8, 4, |x, y| {
            [200, (x * 30) as u8, (y * 60) as u8, 255]
        });
        let p = prefill(&picture).unwrap();
        assert_eq!(p.settings.encoding, HeightEncoding::Gray);
        assert!(!p.settings.metric);
        assert_eq!(
            (p.settings.height_black_m, p.settings.height_white_m),
            (0.0, 100.0)
        );
    }

    #[test]
    fn document_converts_to_the_black_datum() {
        let s = NewMapSettings {
            encoding: HeightEncoding::Hgt,
            cell_size_m: 30.0,
            height_black_m: 1165.0,
            height_white_m: 4333.0,
            water_level_m: Some(1950.0),
            sector_size: 16,
            preset: MovementPreset::LandOnly,
            metric: true,
            notes: Vec::new(),
        };
        s.validate(Path::new("x.hgt")).unwrap();
        let d = s.document("x", "x.hgt");
        assert_eq!(d.height_scale_m, 3168.0);
        assert_eq!(d.height_base_m, 1165.0);
        assert_eq!(d.water_level_m, 1950.0);
        assert_eq!(d.water_above_black_m(), 785.0);
        assert_eq!(d.height_m(1.0), 4333.0);
        assert_eq!(d.sector_size, 16);
        assert_eq!(d.movement_types.len(), 1);
        d.validate().unwrap();
        let dry = NewMapSettings {
            water_level_m: None,
            ..s.clone()
        };
        assert!(dry.document_water_level_m() < dry.height_black_m);
        let bad = NewMapSettings {
            height_white_m: 100.0,
            ..s
        };
        let err = bad.validate(Path::new("x.hgt")).unwrap_err().to_string();
        assert!(err.contains("height range"), "{err}");
    }

    #[test]
    fn presets_parse() {
        assert_eq!(MovementPreset::parse("land"), Ok(MovementPreset::LandOnly));
        assert!(MovementPreset::parse("tanks").is_err());
        for p in MovementPreset::ALL {
            assert!(!p.movement_types().is_empty());
        }
    }
}
