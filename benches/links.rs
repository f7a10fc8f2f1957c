//! `request_path` with nav links against the same map without them: the generated 1024 ×
//! 1024 benchmark map (land type), the same 64 random reachable pairs across the map, in a
//! world without links and in one with 100 random two-way walk links (5 to 60 cells long,
//! between passable cells: bridges, ramps, ladders). Issue #47's target: with links no
//! slower than 1.2 × without. Also prints how many of the routes take a link.
//!
//! `cargo bench --no-default-features --bench links`
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use navstudio::nav::NavWorld;
use navstudio::nav::grid::WALL;
use navstudio::nav::links::NavLink;

mod common;
use common::Rng;

const SIZE: u32 = 1024;

fn bench_links(c: &mut Criterion) {
    let baked = common::baked_benchmark_map(SIZE, Some(vec!["land".into()]));
    let costs = baked.nav.layers[0].cost.to_cells();
    let nav = baked.nav;
    let mut rng = Rng::new(47);
    let passable = |rng: &mut Rng| loop {
        let c = (rng.below(SIZE), rng.below(SIZE));
        if costs[(c.1 * SIZE + c.0) as usize] != WALL {
            return c;
        }
    };
    let mut links = Vec::new();
    while links.len() < 100 {
        let a = passable(&mut rng);
        let (dx, dy) = (rng.below(111) as i64 - 55, rng.below(111) as i64 - 55);
        let b = (a.0 as i64 + dx, a.1 as i64 + dy);
        let len = dx.abs().max(dy.abs());
        if !(5..=60).contains(&len)
            || b.0 < 0
            || b.1 < 0
            || b.0 >= i64::from(SIZE)
            || b.1 >= i64::from(SIZE)
        {
            continue;
        }
        let b = (b.0 as u32, b.1 as u32);
        if costs[(b.1 * SIZE + b.0) as usize] != WALL {
            links.push(NavLink::walk(links.len() as u32 + 1, a, b));
        }
    }
    let mut plain = NavWorld::from_nav(std::sync::Arc::clone(&nav));
    let mut linked = NavWorld::from_nav(nav);
    linked.set_links(links).unwrap();
    plain.prepare_landmarks();
    linked.prepare_landmarks();
    let mut pairs = Vec::new();
    while pairs.len() < 64 {
        let (a, b) = (passable(&mut rng), passable(&mut rng));
        if a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= SIZE / 2 && plain.is_reachable(0, a, b) {
            pairs.push((a, b));
        }
    }
    let over = pairs
        .iter()
        .filter(|&&(a, b)| {
            let id = linked.request_path(0, &[a], b).unwrap();
            let used = linked
                .trace_path(id, a)
                .is_some_and(|t| !t.links.is_empty());
            linked.release_path(id);
            used
        })
        .count();
    println!("{over} of {} routes take a link", pairs.len());
    let mut group = c.benchmark_group("links_1024");
    for (name, world) in [
        ("request_path, no links", &mut plain),
        ("request_path, 100 links", &mut linked),
    ] {
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % pairs.len();
                let (a, g) = pairs[i];
                let id = world.request_path(0, &[a], g).unwrap();
                world.release_path(id);
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench_links
}
criterion_main!(benches);
