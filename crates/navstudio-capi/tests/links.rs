//! Links through the C API against the Rust API: the same package (with links) opened both
//! ways, and the same link added at run time on both, give the same routes, traces (cells
//! and lengths bit for bit), link traversals and link steps.

#![allow(
    clippy::unwrap_used,
    reason = "a test: a failure is a panic with its message"
)]

mod common;

use common::{Rng, World, ok, random_nav};
use navstudio_capi::*;
use navstudio_nav::links::{LinkCost, LinkKind, NavLink};
use navstudio_nav::package::{self, PackageMeta};
use navstudio_nav::{NavData, NavWorld};

fn open_cells(nav: &NavData, rng: &mut Rng, n: usize) -> Vec<(u32, u32)> {
    let (w, h) = (nav.spec.width, nav.spec.height);
    let mut out = Vec::new();
    while out.len() < n {
        let c = (rng.below(w), rng.below(h));
        if nav.layers[0].cost.get(c.0, c.1) != 255 && nav.layers[1].cost.get(c.0, c.1) != 255 {
            out.push(c);
        }
    }
    out
}

/// `(link id, entry cell, exit cell)`.
type Traversal = (u32, (u32, u32), (u32, u32));

fn traversals(c: &World, path: u32, from: (u32, u32)) -> Vec<Traversal> {
    let mut count = 0;
    let mut buf = vec![NavstudioLinkTraversal::default(); 16];
    // SAFETY: live handle; a buffer of 16 traversals; writable count.
    let status = unsafe {
        navstudio_trace_links(
            c.0,
            path,
            NavstudioCell {
                x: from.0,
                y: from.1,
            },
            buf.as_mut_ptr(),
            buf.len(),
            &raw mut count,
        )
    };
    ok(status).unwrap_or_else(|e| panic!("trace_links: {e:?}"));
    buf.truncate(count);
    buf.iter()
        .map(|t| (t.link_id, (t.entry.x, t.entry.y), (t.exit.x, t.exit.y)))
        .collect()
}

/// Compares `count` random requests; returns how many traces took a link.
fn compare(rust: &mut NavWorld, c: &mut World, rng: &mut Rng, count: u32) -> u32 {
    let (w, h) = (rust.nav().spec.width, rust.nav().spec.height);
    let mut over_links = 0;
    for _ in 0..count {
        let (src, goal) = ((rng.below(w), rng.below(h)), (rng.below(w), rng.below(h)));
        let expected = rust.request_path(0, &[src], goal);
        let got = c.request(0, &[src], goal);
        let (id, path) = match (expected, got) {
            (Err(e), Err((_, msg))) => {
                assert_eq!(msg, e.to_string());
                continue;
            }
            (Ok(id), Ok(path)) => (id, path),
            (e, g) => panic!("{src:?} → {goal:?}: Rust {e:?}, C {g:?}"),
        };
        if let (Some(t), Ok((length, cells))) = (rust.trace_path(id, src), c.trace(path, src)) {
            assert_eq!(t.length.to_bits(), length.to_bits(), "{src:?} → {goal:?}");
            assert_eq!(t.cells, cells);
            let expected: Vec<_> = t
                .links
                .iter()
                .map(|&(at, link)| (link, t.cells[at], t.cells[at + 1]))
                .collect();
            assert_eq!(expected, traversals(c, path, src), "{src:?} → {goal:?}");
            for &(link, entry, exit) in &expected {
                let pos = (entry.0 as f32 + 0.5, entry.1 as f32 + 0.5);
                let step = rust.link_at(id, pos).expect("at the link's entry");
                let (mut at, mut got) = (false, NavstudioLinkStep::default());
                // SAFETY: live handle, writable outs.
                ok(unsafe {
                    navstudio_link_at(
                        c.0,
                        path,
                        NavstudioVec2 { x: pos.0, y: pos.1 },
                        &raw mut at,
                        &raw mut got,
                    )
                })
                .unwrap_or_else(|e| panic!("link_at: {e:?}"));
                assert!(at);
                assert_eq!(
                    (got.link_id, got.exit.x, got.exit.y),
                    (link, exit.0, exit.1)
                );
                assert_eq!((step.id, step.exit), (link, exit));
            }
            over_links += u32::from(!expected.is_empty());
        }
        rust.release_path(id);
        c.release(path).unwrap_or_else(|e| panic!("release: {e:?}"));
    }
    over_links
}

#[test]
fn paths_over_links_agree_with_the_rust_api() {
    let nav = random_nav(21, 96, 80);
    let mut rng = Rng::new(47);
    let cells = open_cells(&nav, &mut rng, 16);
    let links: Vec<NavLink> = cells
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            let mut l = NavLink::walk(i as u32 + 1, pair[0], pair[1]);
            l.types = 1;
            if i % 2 == 1 {
                l.kind = LinkKind::Teleport { time_s: 2.0 };
                l.cost = LinkCost::Direct(5);
                l.two_way = false;
            }
            l
        })
        .collect();
    let meta = PackageMeta {
        links: links.clone(),
        ..PackageMeta::default()
    };
    let bytes = package::to_bytes(&nav, &meta);
    let mut rust =
        NavWorld::from_package(package::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}")));
    let mut c = World::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e:?}"));
    let mut count = 0;
    // SAFETY: live handle; NULL buffer asks for the count.
    ok(unsafe { navstudio_links(c.0, std::ptr::null_mut(), 0, &raw mut count) }).unwrap();
    assert_eq!(count, links.len());
    let over = compare(&mut rust, &mut c, &mut rng, 150);
    assert!(over > 10, "only {over} traces took a link");

    // A teleport added at run time on both, and a link removed on both.
    let far = open_cells(&nav, &mut rng, 2);
    let mut tele = NavLink::walk(99, far[0], far[1]);
    tele.kind = LinkKind::Teleport { time_s: 1.0 };
    tele.cost = LinkCost::Direct(3);
    rust.add_link(tele.clone()).unwrap();
    rust.remove_link(1).unwrap();
    let mut link = NavstudioLink {
        id: 0,
        a: NavstudioRect::default(),
        b: NavstudioRect::default(),
        movement_types: 0,
        two_way: false,
        enabled: false,
        kind: NavstudioLinkKind::Walk,
        cost_mode: NavstudioLinkCostMode::PerMetre,
        cost_value: 0.0,
        width_m: 0.0,
        capacity: 0,
        period_s: 0.0,
    };
    let cell = |c: (u32, u32)| NavstudioCell { x: c.0, y: c.1 };
    // SAFETY: writable out.
    ok(unsafe { navstudio_link_default(99, cell(far[0]), cell(far[1]), &raw mut link) }).unwrap();
    link.kind = NavstudioLinkKind::Teleport;
    link.period_s = 1.0;
    link.cost_mode = NavstudioLinkCostMode::Direct;
    link.cost_value = 3.0;
    // SAFETY: live handle, a readable link.
    ok(unsafe { navstudio_add_link(c.0, &raw const link) }).unwrap();
    // SAFETY: live handle.
    ok(unsafe { navstudio_remove_link(c.0, 1) }).unwrap();
    // A second add with the same id and a removal of a missing id are refused.
    // SAFETY: as above.
    let dup = unsafe { navstudio_add_link(c.0, &raw const link) };
    // SAFETY: as above.
    let missing = unsafe { navstudio_remove_link(c.0, 12345) };
    assert_eq!(dup, NavstudioStatus::InvalidArgument);
    assert_eq!(missing, NavstudioStatus::NoSuchHandle);
    while !rust.rebuild(std::time::Duration::from_millis(50)) {}
    c.rebuild_all(50_000);
    assert_eq!(rust.links().len(), links.len());
    let over = compare(&mut rust, &mut c, &mut rng, 150);
    assert!(over > 10, "only {over} traces took a link after the change");
}
