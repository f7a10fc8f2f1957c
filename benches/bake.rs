//! The bake on a generated 2048 × 2048 map with 3 movement types: the full bake (cost fields,
//! portals, graph, islands, every flow permutation), an incremental rebake after a
//! 10-cell-radius brush dab, and package write/read. Prints peak memory at the end.
//!
//! `cargo bench --no-default-features --bench bake`
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use navstudio::bake::{self, BakeContext, BakeOptions, CellRect};
use navstudio::map::{
    self, GenerateSpec, MapKind, PaintCell, PaintForce, PaintLayer, PaintTarget, StampLibrary,
};
use navstudio::package::{self, PackageMeta};

fn bench_bake(c: &mut Criterion) {
    let spec = GenerateSpec {
        kind: MapKind::Benchmark,
        width: 2048,
        height: 2048,
        seed: 1,
    };
    let g = map::generate(&spec);
    let heightmap = map::heightmap_from_u16(g.width, g.height, &g.heights);
    let mut doc = g.document;
    let stamps = StampLibrary::builtin().unwrap();
    let options = BakeOptions::default();

    let mut group = c.benchmark_group("bake_2048");
    group.sample_size(10);
    group.bench_function("full bake, 3 types, with flow permutations", |b| {
        b.iter(|| {
            black_box(
                bake::bake(
                    &doc,
                    &heightmap,
                    &stamps,
                    &options,
                    &mut BakeContext::default(),
                )
                .unwrap(),
            )
        });
    });

    // A brush dab of radius 10 at alternating spots, then the incremental rebake.
    let mut baked = bake::bake(
        &doc,
        &heightmap,
        &stamps,
        &options,
        &mut BakeContext::default(),
    )
    .unwrap();
    if doc.paint.is_empty() {
        doc.paint.push(PaintLayer::new(
            PaintTarget::All,
            "bench.png",
            g.width,
            g.height,
        ));
    }
    // Cost dabs keep every wall (the local path: only the dirty sectors' tiles and edge
    // weights); wall dabs can split islands and move portal windows (the full nav rebuild).
    for (name, walls) in [
        ("incremental rebake after a 10-cell brush dab (cost)", false),
        (
            "incremental rebake after a 10-cell brush dab (force wall)",
            true,
        ),
    ] {
        let mut i = 0_u32;
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                let (cx, cy) = (300 + (i % 7) * 200, 400 + (i % 5) * 250);
                let on = i.is_multiple_of(2);
                let cell = if walls {
                    PaintCell {
                        delta: 0,
                        force: if on {
                            PaintForce::Wall
                        } else {
                            PaintForce::None
                        },
                    }
                } else {
                    PaintCell {
                        delta: if on { 40 } else { 0 },
                        force: PaintForce::None,
                    }
                };
                for y in cy - 10..=cy + 10 {
                    for x in cx - 10..=cx + 10 {
                        let (dx, dy) = (x as i32 - cx as i32, y as i32 - cy as i32);
                        if dx * dx + dy * dy <= 100 {
                            doc.paint[0].set(g.width, x, y, cell);
                        }
                    }
                }
                let dirty = CellRect {
                    x0: cx - 10,
                    y0: cy - 10,
                    x1: cx + 11,
                    y1: cy + 11,
                };
                bake::rebake_rect(
                    &doc,
                    &heightmap,
                    &stamps,
                    &mut baked,
                    dirty,
                    &mut BakeContext::default(),
                )
                .unwrap();
            });
        });
    }

    let meta = PackageMeta::default();
    let bytes = package::to_bytes(&baked.nav, &meta);
    let cells = f64::from(g.width) * f64::from(g.height) * 3.0;
    eprintln!(
        "package: {} bytes = {:.3} bytes per cell per movement type",
        bytes.len(),
        bytes.len() as f64 / cells
    );
    group.bench_function("package write (encode + compress)", |b| {
        b.iter(|| black_box(package::to_bytes(&baked.nav, &meta)));
    });
    group.bench_function("package read (decompress + validate)", |b| {
        b.iter(|| black_box(package::from_bytes(&bytes).unwrap()));
    });
    group.finish();
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        for line in status.lines().filter(|l| l.starts_with("VmHWM")) {
            eprintln!(
                "peak memory (whole bench process): {}",
                line.trim_start_matches("VmHWM:").trim()
            );
        }
    }
}

criterion_group!(benches, bench_bake);
criterion_main!(benches);
