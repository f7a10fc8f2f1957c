//! The small test map: a hill, a pond, and a ridge with one narrow gap.

use super::{
    BED_M, Canvas, GenerateSpec, Landmark, Noise, PaintForce, PaintLayer, PaintTarget,
    StampPlacement, add_cost, dist, fade, fill_heights, force, paint_layer, smoothstep, stamp,
};

// These constants and `Layout` share their shape with the showcase's, not their values:
// each generated map is its own terrain, so there is nothing to share.

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
