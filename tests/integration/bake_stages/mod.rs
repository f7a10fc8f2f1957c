//! The cost-field bake stages (`bake::{slope, terrain_cost, distance, wall_buffer, wall_blur,
//! paint, cost_layers}`) against hand-computed grids and brute-force oracles, and the
//! incremental rebake against the full bake.
//!
//! This module holds the shared generator, brute-force oracles and input builders; the tests
//! are grouped by bake stage in the submodules.

#![allow(clippy::float_cmp)]

mod buffer_blur;
mod distance;
mod paint;
mod pipeline;
mod reach;
mod slope;
mod terrain_cost;

use navstudio::bake::cost_layers::{
    CellRect, CostInputError, CostInputs, CostLayers, bake_cost_field, reach_cells, rebake_rect,
};
use navstudio::bake::distance::squared_distance_to_walls;
use navstudio::bake::paint::{PlacedFootprint, apply_costs, apply_paint_forces, wall_mask};
use navstudio::bake::slope::{slope_deg, slope_deg_rect};
use navstudio::bake::terrain_cost::{eval_curve, terrain_cost};
use navstudio::bake::wall_blur::{blur_cost, blur_walls};
use navstudio::bake::wall_buffer::{buffer_walls, dilate_walls};
use navstudio::map::{
    MovementType, PaintCell, PaintForce, PaintLayer, PaintTarget, StampCell, WaterRule,
};
use navstudio::nav::grid::WALL;
use navstudio_nav::rng::SplitMix64 as Rng;
use proptest::prelude::*;

fn random_mask(rng: &mut Rng, w: u32, h: u32, density: f64) -> Vec<bool> {
    (0..w * h).map(|_| rng.chance(density)).collect()
}

/// Brute-force squared distance: every cell against every wall.
fn brute_sqdist(mask: &[bool], w: u32, h: u32) -> Vec<f32> {
    let walls: Vec<(i64, i64)> = (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .filter(|&(x, y)| mask[(y * w as i64 + x) as usize])
        .collect();
    (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .map(|(x, y)| {
            walls
                .iter()
                .map(|&(wx, wy)| ((wx - x).pow(2) + (wy - y).pow(2)) as f32)
                .fold(f32::INFINITY, f32::min)
        })
        .collect()
}

/// Brute-force dilation: scan the disc around each cell for a wall whose centre is closer
/// than `radius + 0.5`.
fn brute_dilate(mask: &[bool], w: u32, h: u32, radius: f32) -> Vec<bool> {
    let reach = f64::from(radius) + 0.5;
    let scan = reach.ceil().min(f64::from(w.max(h))) as i64;
    let mut out = mask.to_vec();
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            for dy in -scan..=scan {
                for dx in -scan..=scan {
                    let (qx, qy) = (x + dx, y + dy);
                    if qx < 0 || qy < 0 || qx >= w as i64 || qy >= h as i64 {
                        continue;
                    }
                    if mask[(qy * w as i64 + qx) as usize]
                        && ((dx * dx + dy * dy) as f64) < reach * reach
                    {
                        out[(y * w as i64 + x) as usize] = true;
                    }
                }
            }
        }
    }
    out
}

/// Brute-force blur from the formula in `wall_blur`'s docs.
fn brute_blur(mask: &[bool], w: u32, h: u32, radius: f32, strength: f32) -> Vec<u8> {
    brute_sqdist(mask, w, h)
        .iter()
        .map(|&d2| {
            let d = d2.sqrt();
            if d2 == 0.0 || d >= radius {
                0
            } else {
                (strength * (1.0 - d / radius)).round().clamp(0.0, 254.0) as u8
            }
        })
        .collect()
}

fn ty_with(buffer_m: f32, blur_m: f32, strength: f32) -> MovementType {
    MovementType {
        name: "t".into(),
        max_slope_deg: 30.0,
        slope_cost: vec![(0.0, 1.0), (10.0, 4.0), (30.0, 20.0)],
        water: WaterRule::Impassable,
        wall_buffer_m: buffer_m,
        blur_radius_m: blur_m,
        blur_strength: strength,
        min_island_cells: 0,
    }
}

fn paint_cell(delta: i16, force: PaintForce) -> PaintCell {
    PaintCell { delta, force }
}

fn layer(cells: Vec<PaintCell>) -> PaintLayer {
    PaintLayer {
        target: PaintTarget::All,
        file: "p.png".into(),
        cells,
    }
}

fn fp(x: i32, y: i32, width: u32, rows: &[&str]) -> PlacedFootprint {
    let cells: Vec<StampCell> = rows
        .iter()
        .flat_map(|r| r.chars())
        .map(|c| match c {
            '.' => StampCell::Transparent,
            '#' => StampCell::Wall,
            d => StampCell::Cost(d.to_digit(10).unwrap() as u8 * 10),
        })
        .collect();
    PlacedFootprint {
        x,
        y,
        width,
        height: rows.len() as u32,
        cells,
    }
}
