//! Paths merged from several sources, in sectors they leave by more than one exit: the flow
//! followed from every cell of a routed sector reaches the goal (no cycle between a split
//! sector and a neighbour whose only exit leads back into it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;

use navstudio_nav::grid::WALL;
use navstudio_nav::rng::SplitMix64 as Rng;
use navstudio_nav::{CostField, GridSpec, NavData, NavWorld, build_layer};

const SIZE: u32 = 96;
const SECTOR: u32 = 16;

/// A walled 96 × 96 field of random 1–4 cell blocks (5–15 % of the middle), as the crowd's
/// `obstacle_field` cases draw it.
fn obstacle_field(rng: &mut Rng) -> Vec<u8> {
    let mut cells = vec![1_u8; (SIZE * SIZE) as usize];
    let mut fill = |x: u32, y: u32, w: u32, h: u32| {
        for yy in y..(y + h).min(SIZE) {
            for xx in x..(x + w).min(SIZE) {
                cells[(yy * SIZE + xx) as usize] = WALL;
            }
        }
    };
    fill(0, 0, SIZE, 1);
    fill(0, SIZE - 1, SIZE, 1);
    fill(0, 0, 1, SIZE);
    fill(SIZE - 1, 0, 1, SIZE);
    let density = 0.05 + 0.10 * (rng.below(1001) as f32 / 1000.0);
    let area = ((SIZE - 40) * (SIZE - 40)) as f32;
    let mut covered = 0.0;
    while covered < density * area {
        let (bw, bh) = (1 + rng.below(4), 1 + rng.below(4));
        let (x, y) = (20 + rng.below(SIZE - 43), 20 + rng.below(SIZE - 43));
        fill(x, y, bw, bh);
        covered += (bw * bh) as f32;
    }
    cells
}

/// One open cell per sector of the rectangle `x0..x1 × y0..y1` (a group's sources, one per
/// sector as the crowd asks).
fn sources(cells: &[u8], (x0, y0, x1, y1): (u32, u32, u32, u32)) -> Vec<(u32, u32)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            if cells[(y * SIZE + x) as usize] != WALL && seen.insert((x / SECTOR, y / SECTOR)) {
                out.push((x, y));
            }
        }
    }
    out
}

/// Cells of `sector` that reach one of `windows`' cells without leaving the sector: the
/// cells the sector's exits lead from (an oracle of "on the route" that reads no flow).
fn reaching(cells: &[u8], sector: u32, windows: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let per_row = SIZE / SECTOR;
    let (sx, sy) = ((sector % per_row) * SECTOR, (sector / per_row) * SECTOR);
    let inside = |x: u32, y: u32| x >= sx && y >= sy && x < sx + SECTOR && y < sy + SECTOR;
    let mut seen = vec![false; (SECTOR * SECTOR) as usize];
    let local = |x: u32, y: u32| ((y - sy) * SECTOR + (x - sx)) as usize;
    let mut queue: VecDeque<(u32, u32)> = windows.iter().copied().collect();
    for &(x, y) in windows {
        seen[local(x, y)] = true;
    }
    let mut out = Vec::new();
    while let Some((x, y)) = queue.pop_front() {
        out.push((x, y));
        for (dx, dy) in [(0_i32, -1_i32), (1, 0), (0, 1), (-1, 0)] {
            let (nx, ny) = ((x as i32 + dx) as u32, (y as i32 + dy) as u32);
            if inside(nx, ny) && cells[(ny * SIZE + nx) as usize] != WALL && !seen[local(nx, ny)] {
                seen[local(nx, ny)] = true;
                queue.push_back((nx, ny));
            }
        }
    }
    out
}

/// Field `seed` and a world planning on it as the crowd's navigator does, with its two
/// crossing groups: each a rectangle of sources and a goal.
#[allow(clippy::type_complexity)]
fn crossings(seed: u64) -> (Vec<u8>, NavWorld, [((u32, u32, u32, u32), (u32, u32)); 2]) {
    let mut rng = Rng::new(seed);
    let cells = obstacle_field(&mut rng);
    let world = crowd_world(&cells, SIZE, SIZE);
    let groups = if rng.below(2) == 1 {
        [((30, 3, 66, 16), (48, 88)), ((3, 30, 16, 66), (88, 48))]
    } else {
        [((3, 30, 16, 66), (88, 48)), ((80, 30, 93, 66), (8, 48))]
    };
    (cells, world, groups)
}

/// Every cell of every sector path `id` leaves by some exit that reaches one of those
/// exits within the sector ([`reaching`]), with how many exits its sector has.
fn routed_cells(
    world: &NavWorld,
    id: navstudio_nav::PathId,
    cells: &[u8],
) -> Vec<((u32, u32), usize)> {
    let p = world.path(id).unwrap();
    let nodes = &world.nav().layers[0].nodes;
    let mut out = Vec::new();
    for (&sector, exits) in &p.exits {
        let windows: Vec<(u32, u32)> = exits
            .iter()
            .flat_map(|&(_, n)| {
                let c = nodes[n as usize].cells;
                (0..u32::from(c.len())).map(move |i| c.cell(i))
            })
            .collect();
        out.extend(
            reaching(cells, sector, &windows)
                .into_iter()
                .map(|c| (c, exits.len())),
        );
    }
    out
}

/// Two groups cross a random obstacle field the opposite ways (each path planned from one
/// source per sector of its group, merged routes and all), with each cell of a sector the
/// path leaves by several exits taking its cheapest exit in total, as the crowd's navigator
/// plans. From every cell of every routed sector that reaches one of the sector's exits,
/// the path's trace (the flow followed cell by cell, string pulled) must reach a goal.
///
/// Seed 20810's field (the crowd's `obstacle_field-8` at 0.2 ×) once left agents standing
/// in such a pocket: its cells followed the route's integration from the goal into the
/// neighbouring sector, whose only exit led back.
#[test]
fn every_cell_of_a_merged_route_reaches_the_goal() {
    let mut failures = Vec::new();
    for seed in 0..12_u64 {
        let (cells, mut world, groups) = crossings(seed);
        for (rect, goal) in groups {
            let from = sources(&cells, rect);
            let Ok(id) = world.request_path_to_any(0, &from, &[goal]) else {
                continue;
            };
            for (cell, exits) in routed_cells(&world, id, &cells) {
                if world.trace_path(id, cell).is_none() {
                    failures.push((seed, goal, cell, exits));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} cells whose flow does not reach the goal; the first (seed, goal, cell, exits of \
         its sector): {:?}",
        failures.len(),
        &failures[..failures.len().min(8)]
    );
}

/// A point steered by [`NavWorld::sample_flow`] from `start` (cell units), in quarter-cell
/// steps: whether it comes within a cell of `goal` before walking four times across the
/// map. Where it leaves the route it joins it from there, as the crowd's navigator has an
/// agent off the route join. A point sent back and forth between two cells' answers never
/// comes home.
fn walks_home(
    world: &mut NavWorld,
    id: navstudio_nav::PathId,
    start: (u32, u32),
    goal: (u32, u32),
) -> bool {
    let (gx, gy) = (goal.0 as f32 + 0.5, goal.1 as f32 + 0.5);
    let (mut x, mut y) = (start.0 as f32 + 0.5, start.1 as f32 + 0.5);
    for _ in 0..16 * 4 * SIZE {
        if (x - gx).hypot(y - gy) <= 1.0 {
            return true;
        }
        if world.steer_target(id, (x, y)).is_none()
            && world.add_sources(id, &[(x as u32, y as u32)]).is_err()
        {
            return false;
        }
        let Some((dx, dy)) = world.sample_flow(id, (x, y)) else {
            return false;
        };
        (x, y) = (x + 0.25 * dx, y + 0.25 * dy);
    }
    false
}

/// The same crossings as [`every_cell_of_a_merged_route_reaches_the_goal`], followed as an
/// agent follows them: a point steered by the path's flow samples (look-ahead and all) from
/// every cell of every routed sector that reaches one of the sector's exits comes home.
///
/// Field 62 once sent a point back and forth for good: a cell beyond the goal field saw the
/// goal, the next cell on the line did not, and its flow (to its sector's exit) led back.
#[test]
fn a_point_following_the_flow_samples_comes_home() {
    let mut failures = Vec::new();
    let mut walked = 0;
    for seed in (0..12_u64).chain([62]) {
        let (cells, mut world, groups) = crossings(seed);
        for (rect, goal) in groups {
            let from = sources(&cells, rect);
            let Ok(id) = world.request_path_to_any(0, &from, &[goal]) else {
                continue;
            };
            for (cell, _) in routed_cells(&world, id, &cells) {
                walked += 1;
                if !walks_home(&mut world, id, cell, goal) {
                    failures.push((seed, goal, cell));
                }
            }
        }
    }
    assert!(walked > 10_000, "only {walked} starts walked");
    assert!(
        failures.is_empty(),
        "{} of {walked} starts never come home; the first (seed, goal, cell): {:?}",
        failures.len(),
        &failures[..failures.len().min(8)]
    );
}

/// A one-type world over `cells` (`w` × `h`, 16-cell sectors) planning as the crowd's
/// navigator does: exact A*, each cell of a sector left by several ways taking its
/// cheapest.
fn crowd_world(cells: &[u8], w: u32, h: u32) -> NavWorld {
    let spec = GridSpec {
        width: w,
        height: h,
        sector_size: SECTOR,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let layer = build_layer("land", CostField::from_cells(spec, cells), &|_| {}, &never).unwrap();
    let mut world = NavWorld::from_nav(NavData::new(spec, 1.0, vec![layer]));
    world.set_heuristic_weight(1.0);
    world.set_seamless_where_split(true);
    world
}

/// Octile distance of every cell to `goal` over open cells (no corner cutting), as an
/// oracle that reads no flow; `f32::INFINITY` where unreached.
fn geodesic(cells: &[u8], width: u32, height: u32, goal: (u32, u32)) -> Vec<f32> {
    let open = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < i64::from(width)
            && y < i64::from(height)
            && cells[(y * i64::from(width) + x) as usize] != WALL
    };
    let mut dist = vec![f32::INFINITY; (width * height) as usize];
    let mut heap = std::collections::BinaryHeap::new();
    dist[(goal.1 * width + goal.0) as usize] = 0.0;
    heap.push((std::cmp::Reverse(0_u64), goal));
    while let Some((std::cmp::Reverse(d), (x, y))) = heap.pop() {
        let d = d as f32 / 1000.0;
        if d > dist[(y * width + x) as usize] {
            continue;
        }
        for (dx, dy) in [
            (-1_i64, -1_i64),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ] {
            let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
            if !open(nx, ny)
                || !open(i64::from(x) + dx, i64::from(y))
                || !open(i64::from(x), i64::from(y) + dy)
            {
                continue;
            }
            let nd = d + if dx != 0 && dy != 0 {
                std::f32::consts::SQRT_2
            } else {
                1.0
            };
            let k = (ny * i64::from(width) + nx) as usize;
            if nd < dist[k] {
                dist[k] = nd;
                heap.push((
                    std::cmp::Reverse((nd * 1000.0) as u64),
                    (nx as u32, ny as u32),
                ));
            }
        }
    }
    dist
}

/// A serpentine of five bars (the crowd's `serpentine-276` of seed 11): the route to a
/// goal at the bottom left walks the corridor above the last bar through the goal field's
/// window, where the field cannot reach it, so the route goes before the field in those
/// sectors. The last bar splits one of them: its two rows under the bar belong to the
/// goal's corridor, which the goal field reaches exactly. There the flow must lead toward
/// the goal: it once led east along the rows, away from it, into a window of least total
/// cost, and an agent whose lane goal lay in those rows stood at their edge for good.
#[test]
fn a_sector_split_by_a_wall_keeps_the_goal_field_where_the_route_does_not_go() {
    let (w, h) = (77_u32, 55_u32);
    let mut cells = vec![1_u8; (w * h) as usize];
    let mut fill = |x0: u32, y: u32, x1: u32| {
        for x in x0..x1 {
            cells[(y * w + x) as usize] = WALL;
        }
    };
    for y in [0, h - 1] {
        fill(0, y, w);
    }
    for (k, y) in [9, 18, 27, 36, 45].into_iter().enumerate() {
        // Bars alternate: open at the right end, then at the left.
        if k % 2 == 0 {
            fill(0, y, 68)
        } else {
            fill(8, y, w)
        }
    }
    for y in 0..h {
        cells[(y * w) as usize] = WALL;
        cells[(y * w + w - 1) as usize] = WALL;
    }
    let mut world = crowd_world(&cells, w, h);
    // One source per sector of the top corridor, as the crowd asks for a group there.
    let mut seen = std::collections::BTreeSet::new();
    let from: Vec<(u32, u32)> = (1..9)
        .flat_map(|y| (1..67).map(move |x| (x, y)))
        .filter(|&(x, y)| seen.insert((x / SECTOR, y / SECTOR)))
        .collect();
    let goal = (4, 50);
    let id = world.request_path(0, &from, goal).unwrap();
    let geo = geodesic(&cells, w, h, goal);
    let mut wrong = Vec::new();
    for y in 46..48 {
        for x in 1..SECTOR {
            let (dx, dy) = world
                .sample_flow(id, (x as f32 + 0.5, y as f32 + 0.5))
                .expect("the goal's corridor is on the path's flow");
            let next = (
                (x as f32 + 0.5 + dx).floor() as u32,
                (y as f32 + 0.5 + dy).floor() as u32,
            );
            if geo[(next.1 * w + next.0) as usize] >= geo[(y * w + x) as usize] {
                wrong.push(((x, y), (dx, dy)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cells under the last bar whose flow does not lead nearer the goal (cell, \
         direction): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(6)]
    );
}

/// The crowd's `pillars-7` of seed 1: a corridor of pillars, 86 × 11 cells.
const PILLARS: [&str; 11] = [
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
    "@.......................................................@@@..........................@",
    "@.................................@@@@....@@@@.........@@@@@...@@@...................@",
    "@.................................@@@@....@@@@..........@@@....@@@...................@",
    "@...............................@@@@@@....@@@@...........@.....@@@...................@",
    "@.....................@@@@......@@@@@@....@@@@.......................................@",
    "@.....................@@@@...........................................................@",
    "@.....................@@@@.........................@@................................@",
    "@....................................................................................@",
    "@....................................................................................@",
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
];

/// A group sent west along a corridor of pillars (the crowd's `pillars-7` of seed 1, its
/// second group). One pillar straddles a sector border, and the one-cell row over it
/// crosses the border by a window of its own beside the route's. Its cells must go
/// through that window: the route's exit tile led them east, away from the goal, round
/// the pillar to the route's window, since the far side of their own window costs a
/// little more than the sector's cheapest exit. Each cell of the row from 60 to 68 must
/// step nearer the goal.
#[test]
fn a_row_over_a_pillar_at_a_sector_border_takes_its_own_window() {
    let (w, h) = (PILLARS[0].len() as u32, PILLARS.len() as u32);
    let cells: Vec<u8> = PILLARS
        .iter()
        .flat_map(|row| row.bytes().map(|b| if b == b'@' { WALL } else { 1 }))
        .collect();
    let mut world = crowd_world(&cells, w, h);
    // The group's sources: one per sector it stands in, as the crowd asks.
    let from = [(75, 5), (82, 5)];
    let goal = (8, 5);
    let id = world.request_path(0, &from, goal).unwrap();
    let geo = geodesic(&cells, w, h, goal);
    let mut wrong = Vec::new();
    let y = 1;
    for x in 60..=68 {
        let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
        let (dx, dy) = world
            .sample_flow(id, (cx, cy))
            .expect("the row over the pillar is on the path's flow");
        let next = ((cx + dx).floor() as u32, (cy + dy).floor() as u32);
        if geo[(next.1 * w + next.0) as usize] >= geo[(y * w + x) as usize] {
            wrong.push(((x, y), (dx, dy)));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cells over the pillar whose flow does not lead nearer the goal (cell, \
         direction): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(6)]
    );
}
