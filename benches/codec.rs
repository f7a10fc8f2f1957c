//! zstd vs lz4_flex on the real sections of the 2048 × 2048 benchmark package: compressed
//! size and decompression time (what a game pays at load). The README records the choice.
//! Also the whole package read and, alone, the reader's canonical tile-store check.
//!
//! `cargo bench --no-default-features --bench codec`
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use navstudio::nav::permutations::{FlowPermutations, canonical_flows};
use navstudio::package::{self, PackageMeta, SectionKind, encode_section};

fn bench_codec(c: &mut Criterion) {
    let baked = common::baked_benchmark_map(2048, None);
    let raw: Vec<Vec<u8>> = baked
        .nav
        .layers
        .iter()
        .flat_map(|l| SectionKind::ALL.map(|k| encode_section(k, l)))
        .collect();
    let raw_total: usize = raw.iter().map(Vec::len).sum();
    let zstd = |level| {
        raw.iter()
            .map(|r| zstd::bulk::compress(r, level).unwrap())
            .collect::<Vec<_>>()
    };
    let lz4: Vec<Vec<u8>> = raw
        .iter()
        .map(|r| lz4_flex::compress_prepend_size(r))
        .collect();
    let (z3, z9, z19) = (zstd(3), zstd(9), zstd(19));
    let size = |v: &[Vec<u8>]| v.iter().map(Vec::len).sum::<usize>();
    eprintln!(
        "raw {raw_total} bytes; zstd-3 {} zstd-9 {} zstd-19 {} lz4_flex {}",
        size(&z3),
        size(&z9),
        size(&z19),
        size(&lz4)
    );

    let mut group = c.benchmark_group("codec_2048_package");
    group.sample_size(10);
    group.bench_function("zstd-9 decompress", |b| {
        b.iter(|| {
            for (z, r) in z9.iter().zip(&raw) {
                black_box(zstd::bulk::decompress(z, r.len()).unwrap());
            }
        });
    });
    group.bench_function("lz4_flex decompress", |b| {
        b.iter(|| {
            for z in &lz4 {
                black_box(lz4_flex::decompress_size_prepended(z).unwrap());
            }
        });
    });
    group.bench_function("zstd-9 compress", |b| b.iter(|| black_box(zstd(9))));
    group.bench_function("lz4_flex compress", |b| {
        b.iter(|| {
            raw.iter()
                .map(|r| lz4_flex::compress_prepend_size(r))
                .collect::<Vec<_>>()
        });
    });
    // The reader's canonical tile-store check (a fuzz finding) beside the whole read, in
    // one run so machine noise hits both alike.
    let bytes = package::to_bytes(&baked.nav, &PackageMeta::default());
    group.bench_function("package read (decompress + validate)", |b| {
        b.iter(|| black_box(package::from_bytes(&bytes).unwrap()));
    });
    group.bench_function("package read: tile-store check alone", |b| {
        b.iter(|| {
            for l in &baked.nav.layers {
                let canon = canonical_flows(&l.cost, &l.nodes, &FlowPermutations::default());
                black_box(canon.node_tile == l.flows.node_tile);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench_codec);
criterion_main!(benches);
