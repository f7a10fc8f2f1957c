//! The whole pipeline against an independent naive reference bake, and the incremental
//! rebake against the full bake after random edits.

use super::*;

/// An independent, cell-by-cell reference implementation of stages 2–7 from the module docs.
fn naive_bake(input: &CostInputs<'_>, ty: &MovementType) -> CostLayers {
    let (w, h) = (input.width, input.height);
    let n = (w * h) as usize;
    let base: Vec<u8> = (0..n)
        .map(|i| {
            let blocked = input.blocked.get(i).copied().unwrap_or(false);
            if blocked {
                return WALL;
            }
            if input.height01[i] * input.height_scale_m < input.water_level_m {
                return match ty.water {
                    WaterRule::Impassable => WALL,
                    WaterRule::Cost(c) => c.clamp(1, 254),
                };
            }
            let s = input.slope_deg[i];
            if s > ty.max_slope_deg {
                return WALL;
            }
            eval_curve(&ty.slope_cost, s).round().clamp(1.0, 254.0) as u8
        })
        .collect();
    // Per cell: the last opaque stamp cell, then the last paint force.
    let mut stamp_at: Vec<Option<StampCell>> = vec![None; n];
    for s in input.stamps {
        for fy in 0..s.height as i64 {
            for fx in 0..s.width as i64 {
                let (x, y) = (i64::from(s.x) + fx, i64::from(s.y) + fy);
                if x < 0 || y < 0 || x >= i64::from(w) || y >= i64::from(h) {
                    continue;
                }
                let c = s.cells[(fy * i64::from(s.width) + fx) as usize];
                if c != StampCell::Transparent {
                    stamp_at[(y * i64::from(w) + x) as usize] = Some(c);
                }
            }
        }
    }
    let force_at: Vec<PaintForce> = (0..n)
        .map(|i| {
            input
                .paint
                .iter()
                .map(|l| l.cells[i].force)
                .rev()
                .find(|f| *f != PaintForce::None)
                .unwrap_or(PaintForce::None)
        })
        .collect();
    let mask: Vec<bool> = (0..n)
        .map(|i| match force_at[i] {
            PaintForce::Wall => true,
            PaintForce::Clear => false,
            PaintForce::None => match stamp_at[i] {
                Some(StampCell::Wall) => true,
                Some(StampCell::Cost(_)) => false,
                _ => base[i] == WALL,
            },
        })
        .collect();
    let buffer = ty.wall_buffer_m / input.cell_size_m;
    let mut walls = brute_dilate(&mask, w, h, buffer);
    for i in 0..n {
        match force_at[i] {
            PaintForce::Wall => walls[i] = true,
            PaintForce::Clear => walls[i] = false,
            PaintForce::None => {}
        }
    }
    // Pockets: a passable cell whose region (4-connected: corners are never cut) holds at
    // most `min_island_cells` cells becomes a wall; each cell floods its own region.
    let region_size = |start: usize| {
        let mut seen = vec![false; n];
        let mut stack = vec![start];
        seen[start] = true;
        let mut size = 0;
        while let Some(i) = stack.pop() {
            size += 1;
            let (x, y) = ((i as u32 % w) as i64, (i as u32 / w) as i64);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                    continue;
                }
                let j = (ny * i64::from(w) + nx) as usize;
                if !walls[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        size
    };
    let pockets: Vec<bool> = (0..n)
        .map(|i| !walls[i] && region_size(i) <= ty.min_island_cells as usize)
        .collect();
    for i in 0..n {
        walls[i] |= pockets[i];
    }
    let blur = brute_blur(
        &walls,
        w,
        h,
        ty.blur_radius_m / input.cell_size_m,
        ty.blur_strength,
    );
    let final_cost: Vec<u8> = (0..n)
        .map(|i| {
            if walls[i] {
                return WALL;
            }
            if let Some(StampCell::Cost(c)) = stamp_at[i] {
                return c.clamp(1, 254);
            }
            let b = if base[i] == WALL {
                1
            } else {
                i32::from(base[i])
            };
            let d: i32 = input
                .paint
                .iter()
                .map(|l| i32::from(l.cells[i].delta))
                .sum();
            (b + i32::from(blur[i]) + d).clamp(1, 254) as u8
        })
        .collect();
    CostLayers {
        base_cost: base,
        wall_mask: mask,
        buffered_walls: walls,
        blur,
        final_cost,
    }
}

/// A random small world: smooth hills with cliffs and a lake, some blocked cells, two paint
/// layers and a few stamps.
struct World {
    w: u32,
    h: u32,
    cell_size_m: f32,
    heights: Vec<f32>,
    blocked: Vec<bool>,
    slope: Vec<f32>,
    paint: Vec<PaintLayer>,
    stamps: Vec<PlacedFootprint>,
}

impl World {
    fn random(rng: &mut Rng) -> Self {
        let w = 8 + rng.below(40);
        let h = 8 + rng.below(40);
        let cell_size_m = [0.5, 1.0, 2.0][rng.below(3) as usize];
        let (fx, fy, ph) = (
            rng.next_f32() * 0.6,
            rng.next_f32() * 0.6,
            rng.next_f32() * 6.0,
        );
        let heights: Vec<f32> = (0..h)
            .flat_map(|y| {
                (0..w).map(move |x| 0.5 + 0.25 * (x as f32 * fx + ph).sin() * (y as f32 * fy).cos())
            })
            .collect();
        let blocked = if rng.chance(0.5) {
            random_mask(rng, w, h, 0.03)
        } else {
            Vec::new()
        };
        let paint = (0..rng.below(3))
            .map(|_| layer((0..w * h).map(|_| random_paint_cell(rng)).collect()))
            .collect();
        let stamps = (0..rng.below(4)).map(|_| random_stamp(rng, w, h)).collect();
        let slope = slope_deg(&heights, w, h, cell_size_m, 6.0);
        Self {
            w,
            h,
            cell_size_m,
            heights,
            blocked,
            slope,
            paint,
            stamps,
        }
    }

    fn inputs(&self) -> CostInputs<'_> {
        CostInputs {
            width: self.w,
            height: self.h,
            cell_size_m: self.cell_size_m,
            height_scale_m: 6.0,
            water_level_m: 2.0,
            height01: &self.heights,
            blocked: &self.blocked,
            slope_deg: &self.slope,
            paint: self.paint.iter().collect(),
            stamps: &self.stamps,
        }
    }

    fn random_rect(&self, rng: &mut Rng) -> CellRect {
        let x0 = rng.below(self.w);
        let y0 = rng.below(self.h);
        CellRect {
            x0,
            y0,
            x1: x0 + 1 + rng.below(6),
            y1: y0 + 1 + rng.below(6),
        }
        .clip(self.w, self.h)
    }

    /// Makes one random edit and returns the rectangle of input cells it changed.
    fn edit(&mut self, rng: &mut Rng) -> CellRect {
        let r = self.random_rect(rng);
        let w = self.w;
        let cells = (r.y0..r.y1).flat_map(move |y| (r.x0..r.x1).map(move |x| (y * w + x) as usize));
        match rng.below(4) {
            0 => {
                let raise = rng.next_f32() * 0.8 - 0.4;
                for i in cells {
                    self.heights[i] = (self.heights[i] + raise).clamp(0.0, 1.0);
                }
                let dirty = r.expand(1).clip(self.w, self.h);
                let s = slope_deg_rect(&self.heights, self.w, self.h, self.cell_size_m, 6.0, dirty);
                let mut k = 0;
                for y in dirty.y0..dirty.y1 {
                    for x in dirty.x0..dirty.x1 {
                        self.slope[(y * self.w + x) as usize] = s[k];
                        k += 1;
                    }
                }
                dirty
            }
            1 if !self.paint.is_empty() => {
                let l = rng.below(self.paint.len() as u32) as usize;
                for i in cells {
                    self.paint[l].cells[i] = random_paint_cell(rng);
                }
                r
            }
            2 if !self.stamps.is_empty() => {
                let s = rng.below(self.stamps.len() as u32) as usize;
                let old = self.stamps[s].map_rect(self.w, self.h);
                self.stamps[s].x += rng.below(9) as i32 - 4;
                self.stamps[s].y += rng.below(9) as i32 - 4;
                old.union(&self.stamps[s].map_rect(self.w, self.h))
            }
            _ => {
                if self.blocked.is_empty() {
                    self.blocked = vec![false; (self.w * self.h) as usize];
                }
                for i in cells {
                    self.blocked[i] = rng.chance(0.5);
                }
                r
            }
        }
    }
}

fn random_paint_cell(rng: &mut Rng) -> PaintCell {
    let force = match rng.below(20) {
        0 => PaintForce::Wall,
        1 => PaintForce::Clear,
        _ => PaintForce::None,
    };
    let delta = if rng.chance(0.2) {
        rng.below(501) as i16 - 250
    } else {
        0
    };
    paint_cell(delta, force)
}

fn random_stamp(rng: &mut Rng, w: u32, h: u32) -> PlacedFootprint {
    let (sw, sh) = (1 + rng.below(6), 1 + rng.below(6));
    let cells = (0..sw * sh)
        .map(|_| match rng.below(4) {
            0 => StampCell::Transparent,
            1 => StampCell::Wall,
            _ => StampCell::Cost(rng.below(256) as u8),
        })
        .collect();
    PlacedFootprint {
        x: rng.below(w + 6) as i32 - 3,
        y: rng.below(h + 6) as i32 - 3,
        width: sw,
        height: sh,
        cells,
    }
}

fn random_type(rng: &mut Rng) -> MovementType {
    MovementType {
        name: "r".into(),
        max_slope_deg: 20.0 + rng.next_f32() * 40.0,
        slope_cost: vec![
            (0.0, 1.0),
            (10.0, 1.0 + rng.next_f32() * 20.0),
            (40.0, 60.0),
        ],
        water: if rng.chance(0.5) {
            WaterRule::Impassable
        } else {
            WaterRule::Cost(rng.below(256) as u8)
        },
        wall_buffer_m: [0.0, 0.5, 1.0, 1.5, 2.0, 3.3][rng.below(6) as usize],
        blur_radius_m: [0.0, 1.0, 2.0, 3.0, 4.5][rng.below(5) as usize],
        blur_strength: [0.0, 3.0, 6.0, 40.0][rng.below(4) as usize],
        min_island_cells: [0, 0, 1, 3, 8][rng.below(5) as usize],
    }
}

#[test]
fn bake_cost_field_matches_the_naive_reference() {
    let mut rng = Rng::new(2024);
    for round in 0..60 {
        let world = World::random(&mut rng);
        let ty = random_type(&mut rng);
        let input = world.inputs();
        let fast = bake_cost_field(&input, &ty).unwrap();
        let slow = naive_bake(&input, &ty);
        assert_eq!(fast.base_cost, slow.base_cost, "round {round}");
        assert_eq!(fast.wall_mask, slow.wall_mask, "round {round}");
        assert_eq!(fast.buffered_walls, slow.buffered_walls, "round {round}");
        assert_eq!(fast.blur, slow.blur, "round {round}");
        assert_eq!(fast.final_cost, slow.final_cost, "round {round}");
    }
}

#[test]
fn rebake_rect_equals_the_full_bake_after_random_edits() {
    let mut rng = Rng::new(99);
    for round in 0..80 {
        let mut world = World::random(&mut rng);
        let ty = random_type(&mut rng);
        let mut layers = bake_cost_field(&world.inputs(), &ty).unwrap();
        for step in 0..6 {
            let dirty = world.edit(&mut rng);
            rebake_rect(&world.inputs(), &ty, &mut layers, dirty).unwrap();
            let full = bake_cost_field(&world.inputs(), &ty).unwrap();
            assert!(
                layers == full,
                "round {round} step {step}: {ty:?} dirty {dirty:?}"
            );
        }
    }
}
