//! Islands against a breadth-first flood fill, and portal windows against a brute-force
//! border scan.

use super::*;

/// Oracle: BFS with 8 moves and no corner cutting, ids by first cell in row-major order.
fn flood_islands(costs: &[u8], w: usize, h: usize) -> Vec<u32> {
    let mut ids = vec![0_u32; w * h];
    let mut next = 0;
    let pass = |x: i32, y: i32| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && costs[y as usize * w + x as usize] != WALL
    };
    for start in 0..w * h {
        if costs[start] == WALL || ids[start] != 0 {
            continue;
        }
        next += 1;
        ids[start] = next;
        let mut q = VecDeque::from([start]);
        while let Some(c) = q.pop_front() {
            let (x, y) = ((c % w) as i32, (c / w) as i32);
            for (dx, dy) in DIRECTIONS {
                if !pass(x + dx, y + dy)
                    || (dx != 0 && dy != 0 && !(pass(x + dx, y) && pass(x, y + dy)))
                {
                    continue;
                }
                let n = (y + dy) as usize * w + (x + dx) as usize;
                if ids[n] == 0 {
                    ids[n] = next;
                    q.push_back(n);
                }
            }
        }
    }
    ids
}

#[test]
fn islands_equal_flood_fill() {
    let mut rng = Rng::new(99);
    for round in 0..40 {
        let (w, h) = (1 + rng.below(60), 1 + rng.below(60));
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 1 + rng.below(16),
        };
        let costs = random_map(
            &mut rng,
            w as usize,
            h as usize,
            [0.1, 0.3, 0.5][round % 3],
            0.2,
            9,
        );
        let islands = find_islands(&CostField::from_cells(spec, &costs));
        let oracle = flood_islands(&costs, w as usize, h as usize);
        assert_eq!(islands.count, oracle.iter().copied().max().unwrap_or(0));
        for y in 0..h {
            for x in 0..w {
                assert_eq!(
                    islands.island_at(x, y),
                    oracle[spec.index(x, y)],
                    "round {round} cell ({x},{y})"
                );
            }
        }
    }
}

/// Oracle: walk every sector border cell by cell on the full grid.
fn brute_windows(spec: GridSpec, costs: &[u8]) -> Vec<PortalWindow> {
    let (w, h, s) = (spec.width, spec.height, spec.sector_size);
    let pass = |x: u32, y: u32| costs[spec.index(x, y)] != WALL;
    let mut out = Vec::new();
    for sy in 0..spec.sectors_y() {
        for sx in 0..spec.sectors_x() {
            let a = sy * spec.sectors_x() + sx;
            // east border
            if (sx + 1) * s < w {
                let bx = (sx + 1) * s;
                let mut run: Option<u32> = None;
                for y in sy * s..=((sy + 1) * s).min(h) {
                    let open = y < ((sy + 1) * s).min(h) && pass(bx - 1, y) && pass(bx, y);
                    match (open, run) {
                        (true, None) => run = Some(y),
                        (false, Some(st)) => {
                            out.push(PortalWindow {
                                sector_a: a,
                                sector_b: a + 1,
                                horizontal: false,
                                border: bx,
                                start: st,
                                len: y - st,
                            });
                            run = None;
                        }
                        _ => {}
                    }
                }
            }
            // south border
            if (sy + 1) * s < h {
                let by = (sy + 1) * s;
                let mut run: Option<u32> = None;
                for x in sx * s..=((sx + 1) * s).min(w) {
                    let open = x < ((sx + 1) * s).min(w) && pass(x, by - 1) && pass(x, by);
                    match (open, run) {
                        (true, None) => run = Some(x),
                        (false, Some(st)) => {
                            out.push(PortalWindow {
                                sector_a: a,
                                sector_b: a + spec.sectors_x(),
                                horizontal: true,
                                border: by,
                                start: st,
                                len: x - st,
                            });
                            run = None;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

#[test]
fn portals_equal_brute_force() {
    let mut rng = Rng::new(4242);
    for round in 0..60 {
        let (w, h) = (1 + rng.below(70), 1 + rng.below(70));
        let spec = GridSpec {
            width: w,
            height: h,
            sector_size: 1 + (round % 16) as u32,
        };
        let costs = random_map(&mut rng, w as usize, h as usize, 0.25, 0.3, 9);
        let windows = find_windows(&CostField::from_cells(spec, &costs));
        assert_eq!(
            windows,
            brute_windows(spec, &costs),
            "round {round}: {w}x{h} sector {}",
            spec.sector_size
        );
    }
}
