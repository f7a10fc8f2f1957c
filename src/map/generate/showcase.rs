//! The showcase map. Positions scale with the map; the shapes that decide passability
//! (cliff widths, shore widths, the canyon floor, the creek) are fixed in cells.

use super::{
    BED_M, Canvas, GROUND_M, GenerateSpec, HILL_SCALE, Landmark, Noise, PaintForce, PaintLayer,
    PaintTarget, StampPlacement, WATER_LEVEL_M, add_cost, dist, fade, fill_heights, force, lerp,
    paint_layer, segment_distance, smoothstep, stamp,
};

// The small map's constants and `Layout` (small.rs) look like these in shape only: each
// generated map is its own terrain, so there is nothing to share.

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
                "a bridge link carries land and large units over the creek; hover units keep its water",
            ),
            mark(
                "outcrop",
                self.outcrop,
                self.outcrop_r,
                "rock with a designer-cleared pass cut through its cliffs",
            ),
        ]
    }

    /// The creek's bridge: a link from bank to bank for land and large units (3 m wide),
    /// so hover units keep the water under it.
    pub(super) fn links(&self) -> Vec<crate::map::MapLink> {
        let (b0, b1) = self.bridge_rows();
        let x = u32::try_from(self.bridge_x).unwrap_or(0);
        let end = |y: i64| crate::nav::links::LinkEnd {
            x,
            y: u32::try_from(y).unwrap_or(0),
            w: 3,
            h: 2,
        };
        let mut bridge = crate::map::MapLink::walk(1, (0, 0), (0, 0));
        bridge.a = end(b0);
        bridge.b = end(b1);
        bridge.types = vec!["land".to_owned(), "large".to_owned()];
        bridge.width_m = 3.0;
        vec![bridge]
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
