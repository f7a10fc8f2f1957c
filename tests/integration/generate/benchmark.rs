//! The benchmark map mixes hills, plains, water, cliffs and buildings; its timing at the bake
//! benchmark's size (ignored).

use super::*;

#[test]
fn benchmark_mixes_hills_plains_water_cliffs_and_buildings() {
    // Print every seed's numbers before judging any, so tuning sees the whole spread.
    let stats: Vec<_> = [DEFAULT_SEED, 1, 2, 3]
        .into_iter()
        .map(benchmark_stats)
        .collect();
    for (seed, clear_share, costly, water, cliffs, stamps) in stats {
        assert!(
            (0.28..=0.55).contains(&clear_share),
            "seed {seed}: clear sectors {clear_share}"
        );
        assert!(costly > 0.35, "seed {seed}: cells with slope cost {costly}");
        assert!(water > 0.01, "seed {seed}: water {water}");
        assert!(cliffs > 0.002, "seed {seed}: cliffs {cliffs}");
        assert!(stamps > 40, "seed {seed}: {stamps} stamps");
    }
}

fn benchmark_stats(seed: u64) -> (u64, f64, f64, f64, f64, usize) {
    let spec = GenerateSpec {
        width: 640,
        height: 640,
        seed,
        ..GenerateSpec::new(MapKind::Benchmark)
    };
    let map = generate(&spec);
    let t = Terrain::new(&map);
    let land = movement("land");
    let walls: Vec<bool> = t.passable(&land).iter().map(|p| !p).collect();
    // A sector bakes clear for land when every cell is under 5° (cost 1), dry, and no wall
    // lies within the blur radius.
    let near_wall = dilate_walls(
        &walls.iter().map(|w| !w).collect::<Vec<_>>(),
        t.width,
        t.height,
        land.blur_radius_m,
    );
    let (sectors_x, sectors_y) = (t.width / 10, t.height / 10);
    let mut clear = 0;
    for sy in 0..sectors_y {
        for sx in 0..sectors_x {
            let all_clear = (0..100).all(|k| {
                let i = (sy * 10 + k / 10) * t.width + sx * 10 + k % 10;
                t.slope_deg[i] < 5.0 && near_wall[i]
            });
            clear += usize::from(all_clear);
        }
    }
    let clear_share = clear as f64 / (sectors_x * sectors_y) as f64;
    let costly = t.share(|i| t.slope_deg[i] >= 5.0);
    let water = t.share(|i| t.water[i]);
    let cliffs = t.share(|i| t.slope_deg[i] > 40.0);
    println!(
        "benchmark 640² seed {seed}: clear sectors {:.1} %, cells ≥ 5° {:.1} %, water {:.1} %, \
         cliffs {:.2} %, {} stamps",
        clear_share * 100.0,
        costly * 100.0,
        water * 100.0,
        cliffs * 100.0,
        map.document.stamps.len()
    );
    (
        seed,
        clear_share,
        costly,
        water,
        cliffs,
        map.document.stamps.len(),
    )
}

/// Times the benchmark map at the bake benchmark's size:
/// `cargo test --release --no-default-features --test integration generate::benchmark::timing -- --ignored --nocapture`.
#[test]
#[ignore = "timing, meaningful only in release"]
fn timing_benchmark_2048() {
    let spec = GenerateSpec::new(MapKind::Benchmark);
    let start = std::time::Instant::now();
    let map = generate(&spec);
    println!(
        "benchmark {}x{}: generated in {:.0} ms, {} stamps",
        map.width,
        map.height,
        start.elapsed().as_secs_f64() * 1000.0,
        map.document.stamps.len()
    );
}
