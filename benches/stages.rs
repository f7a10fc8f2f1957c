//! Criterion benchmarks of the cost-field bake stages on a 2048 × 2048 synthetic map
//! (summed sines: hills, cliffs steep enough to wall, a lake), three movement types.
//!
//! Run: `cargo bench --no-default-features --bench stages -- --quick`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use navstudio::bake::cost_layers::{CostInputs, bake_cost_field};
use navstudio::bake::distance::squared_distance_to_walls;
use navstudio::bake::paint::{PlacedFootprint, apply_costs, wall_mask};
use navstudio::bake::slope::slope_deg;
use navstudio::bake::terrain_cost::terrain_cost;
use navstudio::bake::wall_blur::{blur_cost, blur_walls};
use navstudio::bake::wall_buffer::buffer_walls;
use navstudio::map::{
    MovementType, PaintCell, PaintForce, PaintLayer, PaintTarget, StampCell, WaterRule,
};

const SIZE: u32 = 2048;
const CELL_SIZE_M: f32 = 1.0;
const HEIGHT_SCALE_M: f32 = 120.0;
const WATER_LEVEL_M: f32 = 30.0;

fn heights() -> Vec<f32> {
    let waves = [
        (0.0031, 0.0017, 0.0, 0.30),
        (0.011, 0.0093, 1.3, 0.12),
        (0.043, 0.051, 2.1, 0.04),
        (0.17, 0.13, 0.7, 0.012),
    ];
    (0..SIZE)
        .flat_map(|y| {
            (0..SIZE).map(move |x| {
                let (x, y) = (x as f32, y as f32);
                let h: f32 = waves
                    .iter()
                    .map(|&(fx, fy, ph, amp)| amp * (x * fx + ph).sin() * (y * fy - ph).cos())
                    .sum();
                (0.5 + h).clamp(0.0, 1.0)
            })
        })
        .collect()
}

fn types() -> [MovementType; 3] {
    let land = MovementType::default();
    let large = MovementType {
        name: "large".into(),
        wall_buffer_m: 2.0,
        blur_radius_m: 4.0,
        ..MovementType::default()
    };
    let hover = MovementType {
        name: "hover".into(),
        water: WaterRule::Cost(2),
        max_slope_deg: 25.0,
        ..MovementType::default()
    };
    [land, large, hover]
}

fn paint_layer() -> PaintLayer {
    let n = (SIZE * SIZE) as usize;
    let cells = (0..n)
        .map(|i| match i % 997 {
            0 => PaintCell {
                delta: 0,
                force: PaintForce::Wall,
            },
            1 => PaintCell {
                delta: 0,
                force: PaintForce::Clear,
            },
            2..=40 => PaintCell {
                delta: 20,
                force: PaintForce::None,
            },
            _ => PaintCell::default(),
        })
        .collect();
    PaintLayer {
        target: PaintTarget::All,
        file: "bench.png".into(),
        cells,
    }
}

fn stamps() -> Vec<PlacedFootprint> {
    (0..200_i32)
        .map(|k| PlacedFootprint {
            x: k * 97 % 2100 - 20,
            y: k * 61 % 2100 - 20,
            width: 12,
            height: 8,
            cells: (0..96)
                .map(|c| match c % 7 {
                    0 => StampCell::Wall,
                    1 => StampCell::Transparent,
                    _ => StampCell::Cost(3),
                })
                .collect(),
        })
        .collect()
}

fn stages(c: &mut Criterion) {
    let h01 = heights();
    let paint = paint_layer();
    let stamps = stamps();
    let [land, large, hover] = types();
    let mut g = c.benchmark_group("stages_2048");
    g.sample_size(10);

    g.bench_function("slope", |b| {
        b.iter(|| slope_deg(black_box(&h01), SIZE, SIZE, CELL_SIZE_M, HEIGHT_SCALE_M));
    });
    let slope = slope_deg(&h01, SIZE, SIZE, CELL_SIZE_M, HEIGHT_SCALE_M);
    g.bench_function("terrain_cost", |b| {
        b.iter(|| {
            terrain_cost(
                black_box(&slope),
                &h01,
                &[],
                HEIGHT_SCALE_M,
                WATER_LEVEL_M,
                &land,
            )
        });
    });
    let base = terrain_cost(&slope, &h01, &[], HEIGHT_SCALE_M, WATER_LEVEL_M, &land);
    let layers: [&[PaintCell]; 1] = [&paint.cells];
    g.bench_function("wall_mask", |b| {
        b.iter(|| wall_mask(black_box(&base), SIZE, SIZE, &layers, &stamps));
    });
    let mask = wall_mask(&base, SIZE, SIZE, &layers, &stamps);
    g.bench_function("distance", |b| {
        b.iter(|| squared_distance_to_walls(black_box(&mask), SIZE, SIZE));
    });
    // The bake runs the buffer and the blur each with its own distance pass.
    g.bench_function("buffer_walls", |b| {
        b.iter(|| buffer_walls(black_box(&mask), SIZE, SIZE, 2.0))
    });
    g.bench_function("blur_walls", |b| {
        b.iter(|| blur_walls(black_box(&mask), SIZE, SIZE, 3.0, 6.0))
    });
    let blur = blur_cost(&squared_distance_to_walls(&mask, SIZE, SIZE), 3.0, 6.0);
    g.bench_function("apply_costs", |b| {
        b.iter(|| apply_costs(black_box(&base), &mask, &blur, SIZE, SIZE, &layers, &stamps));
    });
    let input = CostInputs {
        width: SIZE,
        height: SIZE,
        cell_size_m: CELL_SIZE_M,
        height_scale_m: HEIGHT_SCALE_M,
        water_level_m: WATER_LEVEL_M,
        height01: &h01,
        blocked: &[],
        slope_deg: &slope,
        paint: vec![&paint],
        stamps: &stamps,
    };
    g.bench_function("bake_cost_field_3_types", |b| {
        b.iter(|| {
            for ty in [&land, &large, &hover] {
                black_box(bake_cost_field(&input, ty).ok());
            }
        });
    });
    g.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
