//! Checks the procedural sample maps against an independent slope rule and flood fills:
//! every feature the showcase promises (hills, cliffs, a plateau reached only by its ramp, a
//! lake island only hover reaches, a canyon only land units fit through) must be there.
//!
//! This module holds the independent terrain reading, flood fills and landmark helpers; the
//! tests are grouped by map kind in the submodules.

mod benchmark;
mod documents;
mod render;
mod showcase;

use std::collections::VecDeque;

use navstudio::map::generate::{
    DEFAULT_SEED, GenerateSpec, GeneratedMap, Landmark, MapKind, describe, generate, landmarks,
};
use navstudio::map::{MovementType, PaintForce, PaintTarget, WaterRule, default_movement_types};

/// The terrain as the bake should read it, computed here without the crate's help.
struct Terrain {
    width: usize,
    height: usize,
    metres: Vec<f32>,
    slope_deg: Vec<f32>,
    water: Vec<bool>,
}

impl Terrain {
    fn new(map: &GeneratedMap) -> Self {
        let doc = &map.document;
        let (width, height) = (map.width as usize, map.height as usize);
        let metres: Vec<f32> = map
            .heights
            .iter()
            .map(|&h| f32::from(h) / 65535.0 * doc.height_scale_m)
            .collect();
        let at = |x: usize, y: usize| metres[y * width + x];
        // Central differences inside, one-sided differences on the border.
        let diff =
            |lo: usize, hi: usize, a: f32, b: f32| (b - a) / ((hi - lo) as f32 * doc.cell_size_m);
        let mut slope_deg = vec![0.0; width * height];
        for y in 0..height {
            for x in 0..width {
                let (x0, x1) = (x.saturating_sub(1), (x + 1).min(width - 1));
                let (y0, y1) = (y.saturating_sub(1), (y + 1).min(height - 1));
                let gx = if x1 > x0 {
                    diff(x0, x1, at(x0, y), at(x1, y))
                } else {
                    0.0
                };
                let gy = if y1 > y0 {
                    diff(y0, y1, at(x, y0), at(x, y1))
                } else {
                    0.0
                };
                slope_deg[y * width + x] = (gx * gx + gy * gy).sqrt().atan().to_degrees();
            }
        }
        let water = metres.iter().map(|&m| m < doc.water_level_m).collect();
        Self {
            width,
            height,
            metres,
            slope_deg,
            water,
        }
    }

    fn index(&self, x: u32, y: u32) -> usize {
        y as usize * self.width + x as usize
    }

    /// Cells a movement type may stand on before any wall buffer.
    fn passable(&self, ty: &MovementType) -> Vec<bool> {
        (0..self.width * self.height)
            .map(|i| {
                self.slope_deg[i] <= ty.max_slope_deg
                    && (!self.water[i] || matches!(ty.water, WaterRule::Cost(_)))
            })
            .collect()
    }

    fn share(&self, f: impl Fn(usize) -> bool) -> f64 {
        (0..self.width * self.height).filter(|&i| f(i)).count() as f64
            / (self.width * self.height) as f64
    }
}

fn movement(name: &str) -> MovementType {
    default_movement_types()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap()
}

/// Grows walls by every offset within `radius_cells` (brute force, inclusive).
fn dilate_walls(passable: &[bool], width: usize, height: usize, radius_cells: f32) -> Vec<bool> {
    let r = radius_cells.floor() as i64;
    let mut out = passable.to_vec();
    for y in 0..height as i64 {
        for x in 0..width as i64 {
            if passable[y as usize * width + x as usize] {
                continue;
            }
            for dy in -r..=r {
                for dx in -r..=r {
                    let (nx, ny) = (x + dx, y + dy);
                    let inside = nx >= 0 && ny >= 0 && nx < width as i64 && ny < height as i64;
                    if inside && ((dx * dx + dy * dy) as f32) <= radius_cells * radius_cells {
                        out[ny as usize * width + nx as usize] = false;
                    }
                }
            }
        }
    }
    out
}

/// Cells reachable from `start` over 4-connected passable cells.
fn flood(passable: &[bool], width: usize, height: usize, start: (u32, u32)) -> Vec<bool> {
    let mut seen = vec![false; passable.len()];
    let s = start.1 as usize * width + start.0 as usize;
    assert!(passable[s], "flood start {start:?} is not passable");
    seen[s] = true;
    let mut queue = VecDeque::from([s]);
    while let Some(i) = queue.pop_front() {
        let (x, y) = (i % width, i / width);
        let neighbours = [
            (x > 0).then(|| i - 1),
            (x + 1 < width).then(|| i + 1),
            (y > 0).then(|| i - width),
            (y + 1 < height).then(|| i + width),
        ];
        for n in neighbours.into_iter().flatten() {
            if passable[n] && !seen[n] {
                seen[n] = true;
                queue.push_back(n);
            }
        }
    }
    seen
}

/// Marks a disc of cells impassable.
fn block_disc(passable: &mut [bool], width: usize, (cx, cy): (u32, u32), r: i64) {
    let height = passable.len() / width;
    for dy in -r..=r {
        for dx in -r..=r {
            let (x, y) = (i64::from(cx) + dx, i64::from(cy) + dy);
            if dx * dx + dy * dy <= r * r && x >= 0 && y >= 0 {
                let (x, y) = (x as usize, y as usize);
                if x < width && y < height {
                    passable[y * width + x] = false;
                }
            }
        }
    }
}

fn mark<'a>(marks: &'a [Landmark], name: &str) -> &'a Landmark {
    marks.iter().find(|m| m.name == name).unwrap()
}

fn at(m: &Landmark) -> (u32, u32) {
    (m.x, m.y)
}

fn stamp_size(id: &str) -> (u32, u32) {
    match id {
        "factory_6x4" => (6, 4),
        "wall_block_3x3" => (3, 3),
        "wall_1x1" => (1, 1),
        "bridge_3x8" => (3, 8),
        "tower_2x2" => (2, 2),
        other => panic!("unknown stamp id {other}"),
    }
}
