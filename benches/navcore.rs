//! Speed of the run-time navigation core on a synthetic 2048 × 2048 map with 10 × 10 sectors:
//! smooth noise costs 1..=20 over about 60 % of the map, clear elsewhere, scattered wall
//! blobs. Measures a full layer build (portals, graph, islands, permutations) per movement
//! type, and its parts.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use navstudio::nav::flow::flow_from_integration;
use navstudio::nav::grid::WALL;
use navstudio::nav::integrate::{
    IntegrationField, IntegratorScratch, integrate_costs, integrate_with_los,
};
use navstudio::nav::islands::find_islands;
use navstudio::nav::portals::find_windows;
use navstudio::nav::{CostField, GridSpec, build_layer};

fn hash(mut v: u64) -> u64 {
    v ^= v >> 33;
    v = v.wrapping_mul(0xff51_afd7_ed55_8ccd);
    v ^= v >> 33;
    v = v.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    v ^ (v >> 33)
}

/// Value noise in `0.0..1.0` on a lattice of `period` cells, bilinearly interpolated.
fn noise(seed: u64, x: u32, y: u32, period: u32) -> f32 {
    let lattice = |gx: u32, gy: u32| -> f32 {
        (hash(seed ^ (u64::from(gx) << 32 | u64::from(gy))) >> 40) as f32 / (1u64 << 24) as f32
    };
    let (gx, gy) = (x / period, y / period);
    let (fx, fy) = (
        (x % period) as f32 / period as f32,
        (y % period) as f32 / period as f32,
    );
    let top = lattice(gx, gy) * (1.0 - fx) + lattice(gx + 1, gy) * fx;
    let bottom = lattice(gx, gy + 1) * (1.0 - fx) + lattice(gx + 1, gy + 1) * fx;
    top * (1.0 - fy) + bottom * fy
}

/// The synthetic map of one movement type (`kind` shifts the noise so types differ).
fn synthetic_costs(size: u32, kind: u64) -> Vec<u8> {
    let mut cells = vec![1_u8; (size * size) as usize];
    for y in 0..size {
        for x in 0..size {
            let region = noise(11 + kind, x, y, 97);
            if region < 0.6 {
                let n = noise(23 + kind, x, y, 13);
                cells[(y * size + x) as usize] = 1 + (n * 19.99) as u8;
            }
        }
    }
    // Wall blobs: discs of radius 1..6 at random points, ~3 % of the map.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ kind;
    for _ in 0..(size * size / 900) {
        state = hash(state);
        let (cx, cy, r) = (
            (state % u64::from(size)) as i64,
            ((state >> 20) % u64::from(size)) as i64,
            1 + ((state >> 40) % 6) as i64,
        );
        for y in (cy - r).max(0)..=(cy + r).min(i64::from(size) - 1) {
            for x in (cx - r).max(0)..=(cx + r).min(i64::from(size) - 1) {
                if (x - cx).pow(2) + (y - cy).pow(2) <= r * r {
                    cells[(y * i64::from(size) + x) as usize] = WALL;
                }
            }
        }
    }
    cells
}

/// User + system CPU time of this process from `/proc/self/stat` (Linux; 0 elsewhere), so the
/// numbers mean something on a machine shared with other builds.
fn process_cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let Some(after) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
        return 0.0;
    };
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the command name.
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|v| v.parse::<f64>().ok()))
        .sum();
    ticks / 100.0
}

fn bench(c: &mut Criterion) {
    let size = 2048;
    let spec = GridSpec {
        width: size,
        height: size,
        sector_size: 10,
    };
    let fields: Vec<CostField> = (0..3)
        .map(|k| CostField::from_cells(spec, &synthetic_costs(size, k)))
        .collect();
    let never = AtomicBool::new(false);
    {
        let (wall0, cpu0) = (std::time::Instant::now(), process_cpu_secs());
        let layer = build_layer("probe", fields[0].clone(), &|_| {}, &never);
        eprintln!(
            "one type: {:.3} s wall, {:.3} s CPU (all threads)",
            wall0.elapsed().as_secs_f64(),
            process_cpu_secs() - cpu0
        );
        if let Some(l) = layer {
            eprintln!(
                "map 2048² / 10: {} sectors ({:.0} % clear), {} windows, {} nodes, {} edges, {} islands, {} unique tiles",
                spec.sector_count(),
                fields[0].clear_share() * 100.0,
                l.windows.len(),
                l.nodes.len(),
                l.graph.targets.len(),
                l.islands.count,
                l.flows.tiles.len()
            );
        }
    }
    let mut group = c.benchmark_group("navcore_2048");
    group.sample_size(10);
    group.bench_function("build_layer_x3_types", |b| {
        b.iter(|| {
            for f in &fields {
                black_box(build_layer("t", f.clone(), &|_| {}, &never));
            }
        });
    });
    group.bench_function("windows_1_type", |b| {
        b.iter(|| black_box(find_windows(&fields[0])))
    });
    group.bench_function("islands_1_type", |b| {
        b.iter(|| black_box(find_islands(&fields[0])))
    });
    group.finish();

    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    // One permutation tile: a costed 10 × 10 sector toward its west window.
    let mut tile = Vec::new();
    fields[0].copy_window(1000, 1000, 10, 10, &mut tile);
    let seeds: Vec<(usize, u32)> = (0..10)
        .map(|y| (y * 10, u32::from(tile[y * 10])))
        .filter(|&(c, _)| tile[c] != WALL)
        .collect();
    let exits: Vec<(usize, u8)> = seeds.iter().map(|&(c, _)| (c, 6)).collect();
    let mut flow = vec![0_u8; 100];
    c.bench_function("tile_integrate_flow_10x10", |b| {
        b.iter(|| {
            integrate_costs(&tile, 10, 10, &seeds, &mut field, &mut scratch);
            flow_from_integration(&tile, 10, 10, &field, &exits, &mut flow);
            black_box(&flow);
        });
    });

    // Run-time goal field: LOS + cost pass on a 3 × 3 sector window.
    let mut window = Vec::new();
    fields[0].copy_window(1000, 1000, 30, 30, &mut window);
    c.bench_function("integrate_with_los_30x30", |b| {
        b.iter(|| {
            integrate_with_los(&window, 30, 30, 15 * 30 + 15, &mut field, &mut scratch);
            black_box(&field);
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
