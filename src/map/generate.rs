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
    GeneratedMap {
        document: document(spec.kind.name(), paint, stamps),
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
        water_level_m: WATER_LEVEL_M,
        sector_size: SECTOR_SIZE,
        movement_types: default_movement_types(),
        paint,
        stamps,
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

// ---------------------------------------------------------------------------------------
// Showcase
// ---------------------------------------------------------------------------------------

mod showcase {
    //! The showcase map. Positions scale with the map; the shapes that decide passability
    //! (cliff widths, shore widths, the canyon floor, the creek) are fixed in cells.

    use super::{
        BED_M, Canvas, GROUND_M, GenerateSpec, HILL_SCALE, Landmark, Noise, PaintForce, PaintLayer,
        PaintTarget, StampPlacement, WATER_LEVEL_M, add_cost, dist, fade, fill_heights, force,
        lerp, paint_layer, segment_distance, smoothstep, stamp,
    };

    /// Ridge: flat-ish rocky core each side of its centre line, then a cliff flank.
    const RIDGE_CORE_HALF: f32 = 10.0;
    const RIDGE_FLANK: f32 = 8.0;
    const RIDGE_M: f32 = 32.0;
    const RIDGE_ROCK_M: f32 = 8.0;
    /// Canyon floor rows: 4 flat rows between vertical walls. Central differences make the
    /// outer two rows see the wall, so exactly the middle 2 rows are passable: wide enough for
    /// land units, too narrow once large units' 1.5 m buffer grows the walls.
    const CANYON_FLOOR_ROWS: i64 = 4;
    /// Plateau: 16 m above the ground, cliff 4 cells wide (about 4 m per cell: ~76°).
    const PLATEAU_M: f32 = 16.0;
    const PLATEAU_CLIFF: f32 = 4.0;
    const PLATEAU_WOBBLE: f32 = 5.0;
    /// Ramp: 72 cells long for 16 m (12.5°), 8 cells flat across plus 2-cell side walls.
    const RAMP_LEN: f32 = 72.0;
    const RAMP_HALF: f32 = 4.0;
    const RAMP_SIDE: f32 = 2.0;
    /// Lake: 10 m deep below the ground over a 48-cell shore (at most 17°).
    const LAKE_DEPTH_M: f32 = 10.0;
    const LAKE_SHORE: f32 = 48.0;
    /// Island: a flat top 3 m above water, shores of 22 cells (at most 19°).
    const ISLAND_TOP_R: f32 = 12.0;
    const ISLAND_SHORE: f32 = 22.0;
    const ISLAND_TOP_M: f32 = 7.0;
    /// Swamp: flat ground 0.3 m above water with shallow pools, reached over a long shore.
    const SWAMP_M: f32 = 4.3;
    const SWAMP_RIPPLE_M: f32 = 1.6;
    const SWAMP_SHORE: f32 = 40.0;
    /// Rolling hills: ± this much around the ground.
    const HILL_M: f32 = 7.0;
    const HILL_WAVELENGTH: f32 = 70.0;
    /// Outcrop (a small mesa): 10 m tall with 3-cell cliffs.
    const OUTCROP_M: f32 = 10.0;
    const OUTCROP_CLIFF: f32 = 3.0;

    /// Where everything is on a map of this size and seed.
    pub(super) struct Layout {
        width: f32,
        height: f32,
        scale: f32,
        hills: Noise,
        rock: Noise,
        wobble: Noise,
        swamp_noise: Noise,
        centre: (f32, f32),
        ridge_x: f32,
        ridge_wiggle: f32,
        canyon_row: i64,
        plateau: (f32, f32),
        plateau_r: f32,
        ramp_dir: (f32, f32),
        ramp_top: f32,
        lake: (f32, f32),
        lake_r: (f32, f32),
        swamp: (f32, f32),
        swamp_r: f32,
        creek_row: i64,
        creek_end_x: f32,
        bridge_x: i64,
        outpost: (f32, f32),
        outcrop: (f32, f32),
        outcrop_r: f32,
    }

    impl Layout {
        pub(super) fn new(spec: &GenerateSpec) -> Self {
            let (w, h) = (spec.width as f32, spec.height as f32);
            let scale = w.min(h) / 640.0;
            let at = |fx: f32, fy: f32| (fx * w, fy * h);
            let plateau_r = 64.0 * scale;
            let lake = at(0.27, 0.71);
            let lake_r = (110.0 * scale, 84.0 * scale);
            // Ramp heads east-south-east; (0.94, 0.34) normalised without trigonometry.
            let norm = (0.94f32 * 0.94 + 0.34 * 0.34).sqrt();
            Self {
                width: w,
                height: h,
                scale,
                hills: Noise::new(spec.seed, 1),
                rock: Noise::new(spec.seed, 2),
                wobble: Noise::new(spec.seed, 3),
                swamp_noise: Noise::new(spec.seed, 4),
                centre: at(0.5, 0.5),
                ridge_x: 0.66 * w,
                ridge_wiggle: 0.035 * w,
                canyon_row: (0.42 * h).round() as i64,
                plateau: at(0.24, 0.26),
                plateau_r,
                ramp_dir: (0.94 / norm, 0.34 / norm),
                // The ramp reaches full height at the rim's widest wobble, so it never ends
                // below the top in a step.
                ramp_top: plateau_r + PLATEAU_WOBBLE,
                lake,
                lake_r,
                swamp: at(0.47, 0.80),
                swamp_r: 44.0 * scale,
                creek_row: lake.1.round() as i64,
                creek_end_x: lake.0 - 0.55 * lake_r.0,
                bridge_x: (0.05 * w).round() as i64,
                outpost: at(0.85, 0.30),
                outcrop: at(0.84, 0.62),
                outcrop_r: 22.0 * scale,
            }
        }

        /// Centre line of the ridge at row `y`: wanders a little, smoothly.
        fn ridge_centre_x(&self, y: f32) -> f32 {
            self.ridge_x + self.ridge_wiggle * (2.0 * self.wobble.value(7.5, y / 150.0) - 1.0)
        }

        fn canyon_centre(&self) -> (f32, f32) {
            let y = self.canyon_row as f32 + (CANYON_FLOOR_ROWS - 1) as f32 / 2.0;
            (self.ridge_centre_x(y), y)
        }

        /// Ramp coordinates of a point: distance along the ramp axis from the plateau centre,
        /// and distance across it.
        fn ramp_coords(&self, x: f32, y: f32) -> (f32, f32) {
            let (dx, dy) = (x - self.plateau.0, y - self.plateau.1);
            let (ux, uy) = self.ramp_dir;
            (dx * ux + dy * uy, (dx * uy - dy * ux).abs())
        }

        fn ramp_point(&self, along: f32) -> (f32, f32) {
            (
                self.plateau.0 + self.ramp_dir.0 * along,
                self.plateau.1 + self.ramp_dir.1 * along,
            )
        }

        fn ramp_foot(&self) -> (f32, f32) {
            self.ramp_point(self.ramp_top + RAMP_LEN + 4.0)
        }

        /// Signed distance to the lake's rim (negative inside), an under-estimate for the
        /// long axis so shores there are only gentler.
        fn lake_sdf(&self, x: f32, y: f32) -> f32 {
            let (ex, ey) = (
                (x - self.lake.0) / self.lake_r.0,
                (y - self.lake.1) / self.lake_r.1,
            );
            ((ex * ex + ey * ey).sqrt() - 1.0) * self.lake_r.0.min(self.lake_r.1)
        }

        fn bridge_rows(&self) -> (i64, i64) {
            (self.creek_row - 4, self.creek_row + 3)
        }

        /// 0 where hills must not reach (flat features), 1 in open country.
        fn hill_mask(&self, x: f32, y: f32) -> f32 {
            let (cx, cy) = self.canyon_centre();
            let foot = self.ramp_foot();
            let ramp_axis = segment_distance(
                x,
                y,
                self.ramp_point(self.ramp_top).0,
                self.ramp_point(self.ramp_top).1,
                foot.0,
                foot.1,
            );
            let creek = if x <= self.creek_end_x + 30.0 {
                (y - self.creek_row as f32).abs()
            } else {
                f32::INFINITY
            };
            fade(
                dist(x, y, self.centre.0, self.centre.1),
                36.0 * self.scale,
                40.0,
            ) * fade(dist(x, y, cx, cy), 44.0, 40.0)
                * fade(ramp_axis, 12.0, 30.0)
                * fade(self.lake_sdf(x, y), 6.0, 40.0)
                * fade(
                    dist(x, y, self.swamp.0, self.swamp.1),
                    self.swamp_r + SWAMP_SHORE,
                    30.0,
                )
                * fade(creek, 30.0, 30.0)
                * fade(
                    dist(x, y, self.outpost.0, self.outpost.1),
                    30.0 * self.scale,
                    30.0,
                )
                * fade(
                    dist(x, y, self.outcrop.0, self.outcrop.1),
                    self.outcrop_r + 8.0,
                    30.0,
                )
        }

        /// Terrain height of cell `(xi, yi)` in metres.
        pub(super) fn height_m(&self, xi: i64, yi: i64) -> f32 {
            let (x, y) = (xi as f32, yi as f32);
            let hills = 2.0 * self.hills.fbm(x, y, HILL_WAVELENGTH, 3) - 1.0;
            let mut h = GROUND_M + HILL_M * HILL_SCALE * hills * self.hill_mask(x, y);

            // The ridge, cut to the ground along the canyon rows.
            let in_canyon = (self.canyon_row..self.canyon_row + CANYON_FLOOR_ROWS).contains(&yi);
            if !in_canyon {
                let across = (x - self.ridge_centre_x(y)).abs();
                let profile = smoothstep((RIDGE_CORE_HALF + RIDGE_FLANK - across) / RIDGE_FLANK);
                if profile > 0.0 {
                    let rock = self.rock.fbm(x, y, 12.0, 2);
                    h += profile * (RIDGE_M + RIDGE_ROCK_M * rock);
                }
            }

            // Plateau with a wobbly rim.
            let r = dist(x, y, self.plateau.0, self.plateau.1);
            if r < self.plateau_r + PLATEAU_WOBBLE + 1.0 {
                let rim = if r > 0.5 * self.plateau_r {
                    let (ux, uy) = ((x - self.plateau.0) / r, (y - self.plateau.1) / r);
                    let n = self.wobble.value(3.0 + 2.5 * ux, 3.0 + 2.5 * uy);
                    self.plateau_r + PLATEAU_WOBBLE * (2.0 * n - 1.0)
                } else {
                    self.plateau_r
                };
                h = h.max(GROUND_M + PLATEAU_M * smoothstep((rim - r) / PLATEAU_CLIFF));
            }

            // The ramp: rises linearly towards the plateau, with steep sides.
            let (along, across) = self.ramp_coords(x, y);
            if along >= self.ramp_top - 2.0 * PLATEAU_WOBBLE - PLATEAU_CLIFF - 4.0
                && along <= self.ramp_top + RAMP_LEN
                && across < RAMP_HALF + RAMP_SIDE
            {
                let rise = (1.0 - (along - self.ramp_top) / RAMP_LEN).clamp(0.0, 1.0);
                let side = smoothstep((RAMP_HALF + RAMP_SIDE - across) / RAMP_SIDE);
                h = h.max(GROUND_M + PLATEAU_M * rise * side);
            }

            // Outcrop in the east.
            let r = dist(x, y, self.outcrop.0, self.outcrop.1);
            h = h.max(GROUND_M + OUTCROP_M * smoothstep((self.outcrop_r - r) / OUTCROP_CLIFF));

            // Lake and island.
            h -= LAKE_DEPTH_M * smoothstep(-self.lake_sdf(x, y) / LAKE_SHORE);
            let r = dist(x, y, self.lake.0, self.lake.1);
            let island = (ISLAND_TOP_R + ISLAND_SHORE - r) / ISLAND_SHORE;
            h = h.max(BED_M + (ISLAND_TOP_M - BED_M) * smoothstep(island));

            // Swamp: the ground eases down to just above water, pocked with pools.
            let r = dist(x, y, self.swamp.0, self.swamp.1);
            let wet = smoothstep((self.swamp_r + SWAMP_SHORE - r) / SWAMP_SHORE);
            if wet > 0.0 {
                let pools = SWAMP_RIPPLE_M * (self.swamp_noise.value(x / 7.0, y / 7.0) - 0.5);
                h = lerp(h, SWAMP_M + pools * wet, wet);
            }

            // Creek: 3 water rows, 1-cell steep banks, then a gentle valley up to the ground.
            if x <= self.creek_end_x {
                let d = (yi - self.creek_row).abs();
                let creek = match d {
                    0 | 1 => BED_M,
                    _ => WATER_LEVEL_M + 1.0 + 0.25 * (d - 2) as f32,
                };
                h = h.min(creek);
            }
            h
        }

        pub(super) fn landmarks(&self) -> Vec<Landmark> {
            let cell = |(x, y): (f32, f32)| {
                (
                    x.round().clamp(0.0, self.width - 1.0) as u32,
                    y.round().clamp(0.0, self.height - 1.0) as u32,
                )
            };
            let mark = |name, at, r: f32, note| {
                let (x, y) = cell(at);
                Landmark {
                    name,
                    x,
                    y,
                    radius_cells: r.round() as u32,
                    note,
                }
            };
            let (b0, b1) = self.bridge_rows();
            vec![
                mark(
                    "centre",
                    self.centre,
                    36.0 * self.scale,
                    "flat base with a factory; roads lead to the ramp and the canyon",
                ),
                mark(
                    "plateau",
                    self.plateau,
                    self.plateau_r - PLATEAU_CLIFF - PLATEAU_WOBBLE,
                    "flat top 16 m up behind ~75° cliffs",
                ),
                mark(
                    "ramp",
                    self.ramp_point(self.ramp_top + RAMP_LEN / 2.0),
                    RAMP_HALF + RAMP_SIDE + 3.0,
                    "the only way onto the plateau: 8 cells wide at 12.5°",
                ),
                mark(
                    "lake",
                    self.lake,
                    self.lake_r.0,
                    "water: a wall for land and large, cost 2 for hover",
                ),
                mark(
                    "island",
                    self.lake,
                    ISLAND_TOP_R,
                    "dry and flat, but only hover units can get there",
                ),
                mark(
                    "swamp",
                    self.swamp,
                    self.swamp_r,
                    "wet flat ground with pools, +40 cost for all, a wall for large",
                ),
                mark(
                    "canyon",
                    self.canyon_centre(),
                    1.0,
                    "the only land route east: 2 cells wide, too narrow for large units",
                ),
                mark(
                    "east",
                    self.outpost,
                    30.0 * self.scale,
                    "outpost beyond the ridge: factory, towers, a picket of 1x1 walls",
                ),
                mark(
                    "creek_bridge",
                    (self.bridge_x as f32 + 1.0, (b0 + b1) as f32 / 2.0),
                    4.0,
                    "a bridge stamp clears the creek's water and steep banks",
                ),
                mark(
                    "outcrop",
                    self.outcrop,
                    self.outcrop_r,
                    "rock with a designer-cleared pass cut through its cliffs",
                ),
            ]
        }

        fn stamps(&self) -> Vec<StampPlacement> {
            let p = |(x, y): (f32, f32)| (x.round() as i64, y.round() as i64);
            let (cx, cy) = p(self.centre);
            let (px, py) = p(self.plateau);
            let (rx, ry) = p(self.ramp_point(self.plateau_r - 18.0));
            let (lx, ly) = p(self.lake);
            let (ex, ey) = p(self.outpost);
            let mut out = vec![
                stamp("factory_6x4", cx - 3, cy - 2, 0),
                stamp("tower_2x2", px - 1, py - 1, 0),
                stamp("tower_2x2", rx - 6, ry + 4, 0),
                stamp("wall_block_3x3", px - 20, py + 10, 0),
                stamp("tower_2x2", lx - 1, ly - 1, 0),
                stamp("bridge_3x8", self.bridge_x, self.bridge_rows().0, 0),
                stamp("factory_6x4", ex - 2, ey - 3, 1),
                stamp("tower_2x2", ex - 16, ey - 14, 0),
                stamp("tower_2x2", ex + 14, ey - 14, 0),
            ];
            for i in 0..3 {
                out.push(stamp("wall_block_3x3", cx + 10 + 4 * i, cy - 14, 0));
            }
            for i in 0..7 {
                out.push(stamp("wall_1x1", ex - 12 + 4 * i, ey + 12, 0));
            }
            out
        }

        fn paint(&self, spec: &GenerateSpec) -> Vec<PaintLayer> {
            let (w, h) = (self.width, self.height);
            let mut all = Canvas::new(spec.width, spec.height);
            // Swamp: +40 for every type, over a slightly ragged disc.
            let (sx, sy, sr) = (self.swamp.0, self.swamp.1, self.swamp_r);
            let noise = self.swamp_noise;
            all.area(
                (sx - sr - 4.0, sy - sr - 4.0, sx + sr + 4.0, sy + sr + 4.0),
                |x, y| dist(x, y, sx, sy) <= sr + 8.0 * (noise.value(x / 9.0, y / 9.0) - 0.5),
                add_cost(40),
            );
            // Roads: centre → ramp foot, centre → canyon → east outpost.
            let (kx, ky) = self.canyon_centre();
            let road = add_cost(-24);
            all.path(&[self.centre, self.ramp_foot()], 1.5, road);
            all.path(
                &[self.centre, (kx - 40.0, ky), (kx + 40.0, ky), self.outpost],
                1.0,
                road,
            );
            // A fence on open ground west of the base.
            all.path(
                &[(0.30 * w, 0.47 * h), (0.40 * w, 0.53 * h)],
                1.0,
                force(PaintForce::Wall),
            );
            // A pass cut through the outcrop's cliffs.
            let (ox, oy, or) = (self.outcrop.0, self.outcrop.1, self.outcrop_r);
            all.path(
                &[(ox - or - 6.0, oy), (ox + or + 6.0, oy)],
                1.5,
                force(PaintForce::Clear),
            );

            // Large units bog down in the swamp.
            let mut large = Canvas::new(spec.width, spec.height);
            large.disc(sx, sy, sr - 6.0, force(PaintForce::Wall));
            vec![
                paint_layer("showcase", PaintTarget::All, all),
                paint_layer("showcase", PaintTarget::Type("large".to_owned()), large),
            ]
        }
    }

    pub(super) fn build(spec: &GenerateSpec) -> (Vec<f32>, Vec<PaintLayer>, Vec<StampPlacement>) {
        let layout = Layout::new(spec);
        let heights = fill_heights(spec.width, spec.height, |x, y| layout.height_m(x, y));
        (heights, layout.paint(spec), layout.stamps())
    }
}

// ---------------------------------------------------------------------------------------
// Small
// ---------------------------------------------------------------------------------------

mod small {
    //! The small test map: a hill, a pond, and a ridge with one narrow gap.

    use super::{
        BED_M, Canvas, GenerateSpec, Landmark, Noise, PaintForce, PaintLayer, PaintTarget,
        StampPlacement, add_cost, dist, fade, fill_heights, force, paint_layer, smoothstep, stamp,
    };

    /// Lower ground than the showcase so the pond's shore can be short and still gentle.
    const GROUND_M: f32 = 6.0;
    const RIDGE_M: f32 = 20.0;
    const RIDGE_CORE_HALF: f32 = 1.0;
    const RIDGE_FLANK: f32 = 4.0;
    /// As in the showcase canyon: 4 flat rows, of which the middle 2 are passable.
    const GAP_ROWS: i64 = 4;
    const HILL_M: f32 = 4.0;
    const POND_SHORE: f32 = 14.0;
    const RIPPLE_M: f32 = 0.5;

    pub(super) struct Layout {
        width: f32,
        height: f32,
        ripple: Noise,
        ridge_x: f32,
        gap_row: i64,
        hill: (f32, f32),
        hill_r: f32,
        pond: (f32, f32),
        pond_r: f32,
    }

    impl Layout {
        pub(super) fn new(spec: &GenerateSpec) -> Self {
            let (w, h) = (spec.width as f32, spec.height as f32);
            let m = w.min(h);
            Self {
                width: w,
                height: h,
                ripple: Noise::new(spec.seed, 11),
                ridge_x: (0.62 * w).round(),
                gap_row: (0.45 * h).round() as i64,
                hill: (0.25 * w, 0.28 * h),
                hill_r: 0.2 * m,
                pond: (0.3 * w, 0.74 * h),
                pond_r: 0.06 * m,
            }
        }

        pub(super) fn height_m(&self, xi: i64, yi: i64) -> f32 {
            let (x, y) = (xi as f32, yi as f32);
            let gap_y = self.gap_row as f32 + (GAP_ROWS - 1) as f32 / 2.0;
            let pond_d = dist(x, y, self.pond.0, self.pond.1);
            let calm = fade(dist(x, y, self.ridge_x, gap_y), 10.0, 10.0)
                * fade(pond_d, self.pond_r + POND_SHORE, 6.0);
            let mut h = GROUND_M + RIPPLE_M * (2.0 * self.ripple.fbm(x, y, 14.0, 2) - 1.0) * calm;
            let hill = 1.0 - dist(x, y, self.hill.0, self.hill.1) / self.hill_r;
            h += HILL_M * smoothstep(hill);
            if !(self.gap_row..self.gap_row + GAP_ROWS).contains(&yi) {
                let across = (x - self.ridge_x).abs();
                h += RIDGE_M * smoothstep((RIDGE_CORE_HALF + RIDGE_FLANK - across) / RIDGE_FLANK);
            }
            let pond = (self.pond_r + POND_SHORE - pond_d) / POND_SHORE;
            h - (GROUND_M - BED_M) * smoothstep(pond)
        }

        pub(super) fn landmarks(&self) -> Vec<Landmark> {
            let cell = |x: f32, y: f32| {
                (
                    x.round().clamp(0.0, self.width - 1.0) as u32,
                    y.round().clamp(0.0, self.height - 1.0) as u32,
                )
            };
            let mark = |name, (x, y): (u32, u32), r: f32, note| Landmark {
                name,
                x,
                y,
                radius_cells: r.round() as u32,
                note,
            };
            let gap_y = self.gap_row as f32 + (GAP_ROWS - 1) as f32 / 2.0;
            vec![
                mark(
                    "west",
                    cell(0.2 * self.width, 0.5 * self.height),
                    5.0,
                    "start",
                ),
                mark(
                    "east",
                    cell(0.85 * self.width, 0.3 * self.height),
                    5.0,
                    "goal",
                ),
                mark(
                    "gap",
                    cell(self.ridge_x, gap_y),
                    1.0,
                    "2 cells wide: land passes, large does not",
                ),
                mark("pond", cell(self.pond.0, self.pond.1), self.pond_r, "water"),
                mark(
                    "hill",
                    cell(self.hill.0, self.hill.1),
                    self.hill_r,
                    "slopes raise the cost",
                ),
            ]
        }

        fn paint(&self, spec: &GenerateSpec) -> Vec<PaintLayer> {
            let (w, h) = (self.width, self.height);
            let mut all = Canvas::new(spec.width, spec.height);
            all.disc(0.3 * w, 0.5 * h, 5.0, add_cost(30));
            all.path(
                &[(0.08 * w, 0.12 * h), (0.4 * w, 0.08 * h)],
                0.8,
                force(PaintForce::Wall),
            );
            vec![paint_layer("small", PaintTarget::All, all)]
        }
    }

    pub(super) fn build(spec: &GenerateSpec) -> (Vec<f32>, Vec<PaintLayer>, Vec<StampPlacement>) {
        let layout = Layout::new(spec);
        let heights = fill_heights(spec.width, spec.height, |x, y| layout.height_m(x, y));
        let (fx, fy) = (
            (0.82 * layout.width).round() as i64,
            (0.6 * layout.height).round() as i64,
        );
        let stamps = vec![stamp("factory_6x4", fx - 3, fy - 2, 0)];
        (heights, layout.paint(spec), stamps)
    }
}

// ---------------------------------------------------------------------------------------
// Benchmark
// ---------------------------------------------------------------------------------------

mod benchmark {
    //! The benchmark map. Every shape is in absolute cells, so its statistics (share of flat
    //! sectors, walls, water) hold at any size.

    use super::{
        Canvas, GenerateSpec, HILL_SCALE, Noise, PaintLayer, PaintTarget, Rng, StampPlacement,
        WATER_LEVEL_M, add_cost, fill_heights, paint_layer, smoothstep, stamp,
    };

    /// Higher ground than the showcase, so hill valleys seldom dip under water.
    const GROUND_M: f32 = 16.0;
    const HILL_M: f32 = 9.0;
    const HILL_WAVELENGTH: f32 = 80.0;
    const PLAIN_WAVELENGTH: f32 = 160.0;
    /// Plains where the plain noise is below this, hills above it plus the ramp width.
    const PLAIN_BELOW: f32 = 0.49;
    const PLAIN_RAMP: f32 = 0.05;
    const LAKE_WAVELENGTH: f32 = 180.0;
    const LAKE_BELOW: f32 = 0.3;
    const LAKE_DEPTH_M: f32 = 14.0;
    const MESA_WAVELENGTH: f32 = 110.0;
    const MESA_ABOVE: f32 = 0.67;
    const MESA_M: f32 = 12.0;
    const BUILDING_SPACING: i64 = 32;
    /// Largest height difference under a building's footprint and margin. `[Units: m]`
    const LEVEL_TOLERANCE_M: f32 = 0.05;

    struct Fields {
        plain: Noise,
        hills: Noise,
        lake: Noise,
        mesa: Noise,
    }

    impl Fields {
        fn height_m(&self, xi: i64, yi: i64) -> f32 {
            let (x, y) = (xi as f32, yi as f32);
            let hilly =
                smoothstep((self.plain.fbm(x, y, PLAIN_WAVELENGTH, 2) - PLAIN_BELOW) / PLAIN_RAMP);
            let mut h = GROUND_M;
            if hilly > 0.0 {
                let hills = 2.0 * self.hills.fbm(x, y, HILL_WAVELENGTH, 4) - 1.0;
                h += HILL_M * HILL_SCALE * hills * hilly;
            }
            let lake = smoothstep((LAKE_BELOW - self.lake.fbm(x, y, LAKE_WAVELENGTH, 2)) / 0.06);
            let mesa = smoothstep((self.mesa.fbm(x, y, MESA_WAVELENGTH, 2) - MESA_ABOVE) / 0.012);
            h + MESA_M * mesa - LAKE_DEPTH_M * lake
        }
    }

    pub(super) fn build(spec: &GenerateSpec) -> (Vec<f32>, Vec<PaintLayer>, Vec<StampPlacement>) {
        let fields = Fields {
            plain: Noise::new(spec.seed, 21),
            hills: Noise::new(spec.seed, 22),
            lake: Noise::new(spec.seed, 23),
            mesa: Noise::new(spec.seed, 24),
        };
        let heights = fill_heights(spec.width, spec.height, |x, y| fields.height_m(x, y));
        let stamps = buildings(spec, &heights);
        (heights, paint(spec), stamps)
    }

    /// Buildings on a jittered grid, kept only where their footprint and a 1-cell margin are
    /// dry and level (so none sits on a slope, a cliff or in water).
    fn buildings(spec: &GenerateSpec, heights: &[f32]) -> Vec<StampPlacement> {
        const KINDS: [(&str, i64, i64); 4] = [
            ("factory_6x4", 6, 4),
            ("wall_block_3x3", 3, 3),
            ("tower_2x2", 2, 2),
            ("wall_1x1", 1, 1),
        ];
        let (w, h) = (i64::from(spec.width), i64::from(spec.height));
        let level = |x0: i64, y0: i64, fw: i64, fh: i64| {
            if x0 < 1 || y0 < 1 || x0 + fw + 1 > w || y0 + fh + 1 > h {
                return false;
            }
            let mut lo = f32::INFINITY;
            let mut hi = f32::NEG_INFINITY;
            for y in y0 - 1..=y0 + fh {
                for x in x0 - 1..=x0 + fw {
                    let v = heights[(y * w + x) as usize];
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
            lo > WATER_LEVEL_M + 0.5 && hi - lo < LEVEL_TOLERANCE_M
        };
        let mut out = Vec::new();
        let mut rng = Rng::new(spec.seed, 31);
        for gy in 0..h / BUILDING_SPACING {
            for gx in 0..w / BUILDING_SPACING {
                let roll = rng.unit();
                let (id, fw, fh) = KINDS[rng.below(KINDS.len() as u32) as usize];
                let rotation = rng.below(4) as u8;
                let jx = i64::from(rng.below(BUILDING_SPACING as u32 / 2));
                let jy = i64::from(rng.below(BUILDING_SPACING as u32 / 2));
                if roll > 0.6 {
                    continue;
                }
                let (fw, fh) = if rotation % 2 == 1 {
                    (fh, fw)
                } else {
                    (fw, fh)
                };
                let (x, y) = (gx * BUILDING_SPACING + jx, gy * BUILDING_SPACING + jy);
                if level(x, y, fw, fh) {
                    out.push(stamp(id, x, y, rotation));
                }
            }
        }
        out
    }

    /// Roads (cheaper) every 512 cells each way and muddy patches (dearer) here and there.
    fn paint(spec: &GenerateSpec) -> Vec<PaintLayer> {
        let (w, h) = (spec.width as f32, spec.height as f32);
        let mut all = Canvas::new(spec.width, spec.height);
        let mut at = 256.0;
        while at < w.max(h) {
            if at < h {
                all.path(&[(0.0, at), (w - 1.0, at)], 1.0, add_cost(-12));
            }
            if at < w {
                all.path(&[(at, 0.0), (at, h - 1.0)], 1.0, add_cost(-12));
            }
            at += 512.0;
        }
        let mut rng = Rng::new(spec.seed, 32);
        let patches = (w * h / (256.0 * 256.0)).ceil() as u32;
        for _ in 0..patches {
            let (x, y) = (rng.unit() * w, rng.unit() * h);
            let r = 6.0 + 18.0 * rng.unit();
            all.disc(x, y, r, add_cost(25));
        }
        vec![paint_layer("benchmark", PaintTarget::All, all)]
    }
}

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
