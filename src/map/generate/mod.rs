//! Procedural sample maps: the maps navstudio ships are made by code, so they can be re-made
//! byte for byte from a kind, a size and a seed.
//!
//! [`generate`] is pure and deterministic: it returns a [`MapDocument`] (movement types,
//! paint layers with their cells filled, stamp placements) plus 16-bit heights; it writes no
//! files. Heights use only `+ - * /`, `floor` and `sqrt` (no `sin`/`atan`, whose last bits
//! differ between C libraries), so the same seed gives the same bytes on every platform.
//!
//! Terrain is designed against the bake's slope rule: slope in degrees is
//! `atan(|∇h|)` with `∇h` from central differences of metres over `cell_size_m`. With
//! [`CELL_SIZE_M`] = 1 m and [`HEIGHT_SCALE_M`] = 64 m, a rise of 0.84 m per cell is 40°.
//!
//! * [`MapKind::Showcase`] (default 640 × 640) shows off every feature; see [`landmarks`]
//!   and [`describe`].
//! * [`MapKind::Small`] (default 96 × 96) is a quick test map.
//! * [`MapKind::Benchmark`] (any size; 2048 × 2048 for the bake benchmark) is a realistic
//!   mix of fractal hills, plains, lakes, mesas and buildings.

use rayon::prelude::*;

use super::document::{FORMAT_VERSION, HeightEncoding, HeightmapSource, MapDocument};
use super::movement::default_movement_types;
use super::paint::{PaintCell, PaintForce, PaintLayer, PaintTarget};
use super::stamp::StampPlacement;

/// Cell size of every generated map. `[Units: m]`
pub const CELL_SIZE_M: f32 = 1.0;
/// Height of a full-white (65535) sample in every generated map. `[Units: m]`
pub const HEIGHT_SCALE_M: f32 = 64.0;
/// Water level of every generated map. `[Units: m]`
pub const WATER_LEVEL_M: f32 = 4.0;
/// Sector edge length of every generated map. `[Units: cells]`
pub const SECTOR_SIZE: u16 = 10;
/// The seed used when a caller has no preference.
pub const DEFAULT_SEED: u64 = 2024;

/// Open ground of the showcase and benchmark maps, well above water. `[Units: m]`
const GROUND_M: f32 = 12.0;
/// Bottom of lakes, ponds and the creek. `[Units: m]`
const BED_M: f32 = 2.0;
/// Fractal value noise rarely reaches its extremes; this stretches `2·fbm − 1` so hill
/// amplitudes mean roughly what they say.
const HILL_SCALE: f32 = 1.6;

/// Which sample map to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// The default map: hills, cliffs, a plateau with a ramp, a lake with an island, a swamp,
    /// a canyon only land units fit through, a creek with a bridge, stamps and paint.
    Showcase,
    /// A quick test map (≤ 128 × 128): a hill, a ridge with a 2-cell gap, a pond, one stamp.
    Small,
    /// A large realistic map for the bake benchmark: fractal hills, plains, lakes, mesas and
    /// scattered buildings.
    Benchmark,
}

impl MapKind {
    /// Every kind, in the order a menu lists them.
    pub const ALL: [Self; 3] = [Self::Showcase, Self::Small, Self::Benchmark];

    /// Lower-case name, also the document name and the stem of its side files.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Showcase => "showcase",
            Self::Small => "small",
            Self::Benchmark => "benchmark",
        }
    }

    /// The kind called `name` (as returned by [`MapKind::name`]), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The size the kind is designed for, `(width, height)` in cells.
    #[must_use]
    pub fn default_size(self) -> (u32, u32) {
        match self {
            Self::Showcase => (640, 640),
            Self::Small => (96, 96),
            Self::Benchmark => (2048, 2048),
        }
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GenerateSpec {
    /// The kind of map.
    pub kind: MapKind,
    /// Columns. The showcase is designed for ≥ 512, the small map for ≤ 128.
    /// `[Units: cells]`
    pub width: u32,
    /// Rows. `[Units: cells]`
    pub height: u32,
    /// Seed of every random choice (hills, outlines, building placement).
    pub seed: u64,
}

impl GenerateSpec {
    /// The kind at its default size with [`DEFAULT_SEED`].
    #[must_use]
    pub fn new(kind: MapKind) -> Self {
        let (width, height) = kind.default_size();
        Self {
            kind,
            width,
            height,
            seed: DEFAULT_SEED,
        }
    }
}

/// A generated map: the document (paint cells filled) and its heights.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedMap {
    /// The map document; `heightmap.path` is `NAME.png`, paint files `NAME.paint.*.png`.
    pub document: MapDocument,
    /// Row-major heights, `0..=65535` meaning `0..=height_scale_m` metres.
    pub heights: Vec<u16>,
    /// Columns. `[Units: cells]`
    pub width: u32,
    /// Rows. `[Units: cells]`
    pub height: u32,
}

impl GeneratedMap {
    /// Heights normalised to `0.0..=1.0`, as the bake reads them.
    #[must_use]
    pub fn height01(&self) -> Vec<f32> {
        self.heights
            .iter()
            .map(|&h| f32::from(h) / f32::from(u16::MAX))
            .collect()
    }
}

/// A named place on a generated map, for tests, the editor (default goals, spawn points)
/// and the map's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landmark {
    /// Short identifier, e.g. `"island"`.
    pub name: &'static str,
    /// Column of the landmark's centre cell. `[Units: cells]`
    pub x: u32,
    /// Row of the landmark's centre cell. `[Units: cells]`
    pub y: u32,
    /// Rough extent around the centre. `[Units: cells]`
    pub radius_cells: u32,
    /// What a designer should notice there.
    pub note: &'static str,
}

/// Generates the map `spec` asks for. Pure and deterministic: same spec, same bytes.
/// Sizes of zero give an empty map; sizes far from the kind's design size give a scaled
/// layout in which small features may be lost.
///
/// ```
/// use navstudio::map::generate::{GenerateSpec, MapKind, generate};
///
/// let spec = GenerateSpec::new(MapKind::Small);
/// let map = generate(&spec);
/// assert_eq!(map.heights.len(), (spec.width * spec.height) as usize);
/// assert_eq!(map.document.heightmap.path, "small.png");
/// assert_eq!(map, generate(&spec));
/// ```
#[must_use]
pub fn generate(spec: &GenerateSpec) -> GeneratedMap {
    let (width, height) = (spec.width, spec.height);
    let (heights_m, paint, stamps) = if width == 0 || height == 0 {
        (Vec::new(), Vec::new(), Vec::new())
    } else {
        match spec.kind {
            MapKind::Showcase => showcase::build(spec),
            MapKind::Small => small::build(spec),
            MapKind::Benchmark => benchmark::build(spec),
        }
    };
    let heights = heights_m.par_iter().map(|&m| quantise_m(m)).collect();
    let mut document = document(spec.kind.name(), paint, stamps);
    if spec.kind == MapKind::Showcase && width > 0 && height > 0 {
        document.links = showcase::Layout::new(spec).links();
    }
    GeneratedMap {
        document,
        heights,
        width,
        height,
    }
}

/// The landmarks of the map `spec` describes (empty for maps too small to lay out).
#[must_use]
pub fn landmarks(spec: &GenerateSpec) -> Vec<Landmark> {
    if spec.width == 0 || spec.height == 0 {
        return Vec::new();
    }
    match spec.kind {
        MapKind::Showcase => showcase::Layout::new(spec).landmarks(),
        MapKind::Small => small::Layout::new(spec).landmarks(),
        MapKind::Benchmark => vec![Landmark {
            name: "centre",
            x: spec.width / 2,
            y: spec.height / 2,
            radius_cells: spec.width.min(spec.height) / 2,
            note: "fractal hills, plains, lakes, mesas and scattered buildings",
        }],
    }
}

/// A designer-readable description of the map `spec` makes: its purpose, its constants and
/// where each landmark is.
#[must_use]
pub fn describe(spec: &GenerateSpec) -> String {
    let purpose = match spec.kind {
        MapKind::Showcase => {
            "Showcase: every navigation feature on one map. West of a long mountain ridge: \
             rolling hills, a plateau reached by one ramp, a lake with an island only hover \
             units reach, a swamp, a creek with a bridge. One narrow canyon crosses the ridge: \
             land and hover units fit through it, large units do not."
        }
        MapKind::Small => {
            "Small: a quick test map. A hill, a pond, and a ridge whose 2-cell gap lets land \
             units through but not large ones."
        }
        MapKind::Benchmark => {
            "Benchmark: fractal hills with flat plains between them, lakes, steep-sided mesas \
             and scattered buildings, for timing the bake."
        }
    };
    let mut text = format!(
        "{purpose}\nsize {}x{} cells, cell {CELL_SIZE_M} m, height scale {HEIGHT_SCALE_M} m, \
         water level {WATER_LEVEL_M} m, sector {SECTOR_SIZE}, seed {}\n",
        spec.width, spec.height, spec.seed
    );
    for mark in landmarks(spec) {
        text.push_str(&format!(
            "  {:<13} ({:>4}, {:>4}) r {:>3}: {}\n",
            mark.name, mark.x, mark.y, mark.radius_cells, mark.note
        ));
    }
    text
}

fn document(name: &str, paint: Vec<PaintLayer>, stamps: Vec<StampPlacement>) -> MapDocument {
    MapDocument {
        version: FORMAT_VERSION,
        name: name.to_owned(),
        heightmap: HeightmapSource {
            path: format!("{name}.png"),
            encoding: HeightEncoding::Gray,
            no_data: None,
        },
        cell_size_m: CELL_SIZE_M,
        height_scale_m: HEIGHT_SCALE_M,
        height_base_m: 0.0,
        water_level_m: WATER_LEVEL_M,
        sector_size: SECTOR_SIZE,
        movement_types: default_movement_types(),
        paint,
        stamps,
        links: Vec::new(),
    }
}

fn quantise_m(height_m: f32) -> u16 {
    ((height_m / HEIGHT_SCALE_M).clamp(0.0, 1.0) * f32::from(u16::MAX)).round() as u16
}

/// Fills a row-major grid of metres from a per-cell function, one row per rayon task.
fn fill_heights(width: u32, height: u32, f: impl Fn(i64, i64) -> f32 + Sync) -> Vec<f32> {
    let mut out = vec![0.0; width as usize * height as usize];
    out.par_chunks_mut(width as usize)
        .enumerate()
        .for_each(|(y, row)| {
            for (x, cell) in row.iter_mut().enumerate() {
                *cell = f(x as i64, y as i64);
            }
        });
    out
}

fn stamp(id: &str, x: i64, y: i64, rotation: u8) -> StampPlacement {
    StampPlacement {
        stamp: id.to_owned(),
        x: x as i32,
        y: y as i32,
        rotation,
    }
}

fn paint_layer(name: &str, target: PaintTarget, canvas: Canvas) -> PaintLayer {
    let suffix = match &target {
        PaintTarget::All => "all".to_owned(),
        PaintTarget::Type(t) => t.clone(),
    };
    PaintLayer {
        target,
        file: format!("{name}.paint.{suffix}.png"),
        cells: canvas.cells,
    }
}

// ---------------------------------------------------------------------------------------
// Shaping helpers
// ---------------------------------------------------------------------------------------

/// Cubic ease from 0 (t ≤ 0) to 1 (t ≥ 1); its steepest slope is 1.5 at t = 0.5.
fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// 0 up to `inner` cells from a feature, easing to 1 over the next `width` cells: keeps
/// hills off features that must stay flat.
fn fade(distance: f32, inner: f32, width: f32) -> f32 {
    smoothstep((distance - inner) / width)
}

fn dist(x: f32, y: f32, cx: f32, cy: f32) -> f32 {
    ((x - cx) * (x - cx) + (y - cy) * (y - cy)).sqrt()
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

// ---------------------------------------------------------------------------------------
// Noise and random numbers
// ---------------------------------------------------------------------------------------

fn splitmix64(z: u64) -> u64 {
    let z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A small SplitMix64 generator for placement choices (no `rand` dependency needed).
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64) -> Self {
        Self(splitmix64(seed ^ splitmix64(stream)))
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(self.0)
    }
    /// Uniform in `0.0..1.0`.
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// Seeded 2-D value noise and its fractal sum, in `0.0..=1.0`.
#[derive(Clone, Copy)]
struct Noise {
    seed: u64,
}

impl Noise {
    fn new(seed: u64, stream: u64) -> Self {
        Self {
            seed: splitmix64(seed ^ splitmix64(stream.wrapping_mul(0xA24B_AED4_963E_E407))),
        }
    }

    fn lattice(self, ix: i64, iy: i64) -> f32 {
        // One SplitMix64 finaliser per lattice point is plenty of mixing and keeps the
        // 2048² benchmark map well under a second.
        let packed = (ix as u32 as u64) << 32 | u64::from(iy as u32);
        let key = self
            .seed
            .wrapping_add(packed.wrapping_mul(0xD1B5_4A32_D192_ED03));
        (splitmix64(key) >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Value noise at `(x, y)` in lattice units, smoothly interpolated.
    fn value(self, x: f32, y: f32) -> f32 {
        let (x0, y0) = (x.floor(), y.floor());
        let (tx, ty) = (smoothstep(x - x0), smoothstep(y - y0));
        let (ix, iy) = (x0 as i64, y0 as i64);
        let top = lerp(self.lattice(ix, iy), self.lattice(ix + 1, iy), tx);
        let bottom = lerp(self.lattice(ix, iy + 1), self.lattice(ix + 1, iy + 1), tx);
        lerp(top, bottom, ty)
    }

    /// Fractal sum of `octaves` value-noise layers, the first with `wavelength_cells`, each
    /// next one at half the wavelength and half the amplitude.
    fn fbm(self, x: f32, y: f32, wavelength_cells: f32, octaves: u32) -> f32 {
        let (mut sum, mut norm, mut amp, mut freq) = (0.0, 0.0, 1.0, 1.0 / wavelength_cells);
        for octave in 0..octaves {
            // Offset each octave so lattice points of different octaves do not line up.
            let shift = octave as f32 * 17.31;
            sum += amp * self.value(x * freq + shift, y * freq - shift);
            norm += amp;
            amp *= 0.5;
            freq *= 2.0;
        }
        sum / norm
    }
}

// ---------------------------------------------------------------------------------------
// Paint canvas
// ---------------------------------------------------------------------------------------

/// A paint layer being drawn: one `PaintCell` per map cell.
struct Canvas {
    width: i64,
    height: i64,
    cells: Vec<PaintCell>,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Self {
        Self {
            width: i64::from(width),
            height: i64::from(height),
            cells: vec![PaintCell::default(); width as usize * height as usize],
        }
    }

    /// Applies `f` to every cell whose centre `inside` accepts, within the bounding box.
    fn area(
        &mut self,
        (x0, y0, x1, y1): (f32, f32, f32, f32),
        inside: impl Fn(f32, f32) -> bool,
        f: impl Fn(&mut PaintCell),
    ) {
        let xs = (x0.floor() as i64).max(0)..=(x1.ceil() as i64).min(self.width - 1);
        for y in (y0.floor() as i64).max(0)..=(y1.ceil() as i64).min(self.height - 1) {
            for x in xs.clone() {
                if inside(x as f32, y as f32) {
                    f(&mut self.cells[(y * self.width + x) as usize]);
                }
            }
        }
    }

    fn disc(&mut self, cx: f32, cy: f32, r: f32, f: impl Fn(&mut PaintCell)) {
        let bbox = (cx - r, cy - r, cx + r, cy + r);
        self.area(bbox, |x, y| dist(x, y, cx, cy) <= r, f);
    }

    /// Cells within `r` of the polyline through `points`.
    fn path(&mut self, points: &[(f32, f32)], r: f32, f: impl Fn(&mut PaintCell) + Copy) {
        for pair in points.windows(2) {
            let ((ax, ay), (bx, by)) = (pair[0], pair[1]);
            let bbox = (
                ax.min(bx) - r,
                ay.min(by) - r,
                ax.max(bx) + r,
                ay.max(by) + r,
            );
            self.area(bbox, |x, y| segment_distance(x, y, ax, ay, bx, by) <= r, f);
        }
    }
}

fn segment_distance(x: f32, y: f32, ax: f32, ay: f32, bx: f32, by: f32) -> f32 {
    let (dx, dy) = (bx - ax, by - ay);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((x - ax) * dx + (y - ay) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dist(x, y, ax + t * dx, ay + t * dy)
}

fn add_cost(delta: i16) -> impl Fn(&mut PaintCell) + Copy {
    move |c: &mut PaintCell| c.delta = (c.delta + delta).clamp(-254, 254)
}

fn force(state: PaintForce) -> impl Fn(&mut PaintCell) + Copy {
    move |c: &mut PaintCell| c.force = state
}

// One file per map kind, each built from the helpers above.
mod benchmark;
mod showcase;
mod small;

/// Writes a generated map as `output` (the `.ron` document) with its 16-bit heightmap PNG and
/// paint PNGs beside it, all named after `output`'s file stem, every file written atomically.
///
/// # Errors
/// [`super::MapError`] when a file cannot be written.
pub fn write_generated(
    map: &GeneratedMap,
    output: &std::path::Path,
) -> Result<(), super::MapError> {
    let stem = output.file_stem().map_or_else(
        || map.document.name.clone(),
        |s| s.to_string_lossy().into_owned(),
    );
    let mut doc = map.document.clone();
    let old_prefix = format!("{}.", doc.name);
    let rename = |file: &str| match file.strip_prefix(&old_prefix) {
        Some(rest) => format!("{stem}.{rest}"),
        None => file.to_owned(),
    };
    doc.heightmap.path = rename(&doc.heightmap.path);
    for layer in &mut doc.paint {
        layer.file = rename(&layer.file);
    }
    doc.name = stem;
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    if !folder.exists() {
        std::fs::create_dir_all(&folder).map_err(|e| super::MapError::write(output, e))?;
    }
    let heights = super::heightmap_from_u16(map.width, map.height, &map.heights);
    super::write_png16(&folder.join(&doc.heightmap.path), &heights)?;
    super::save_map_with_size(output, &doc, map.width, map.height)
}
