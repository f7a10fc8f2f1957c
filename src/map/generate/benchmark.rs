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
