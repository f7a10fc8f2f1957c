//! Generated grid maps in the Moving AI format, with scenario files, for benchmarks beside
//! the published ones: rooms joined by doors, random rectangular obstacles, and a maze with
//! wide corridors. `navstudio grid-maps` writes them; `navstudio scenarios` runs them.
//!
//! Each scenario row's optimum is the octile shortest path (8 directions, no corner
//! cutting: a diagonal step needs both side cells free), computed here by Dijkstra, exactly
//! as the Moving AI benchmarks define theirs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Kinds of generated grid map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKind {
    /// Rooms of 40–80 cells separated by 2-cell walls with doors 2–12 wide, a few
    /// pillars inside.
    Rooms,
    /// Open ground with random rectangles (1–12 cells a side) covering about 20 %.
    Obstacles,
    /// A maze of corridors 32 cells wide between walls 8 thick.
    Maze,
}

impl GridKind {
    /// The name used in file names.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Rooms => "rooms",
            Self::Obstacles => "obstacles",
            Self::Maze => "maze32",
        }
    }
}

/// A generated grid: `true` for a wall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridMap {
    /// Width and height in cells.
    pub size: u32,
    /// Row-major walls.
    pub walls: Vec<bool>,
}

type Rng = crate::crowd::rng::SplitMix64;

impl GridMap {
    fn fill(&mut self, x0: u32, y0: u32, w: u32, h: u32, wall: bool) {
        for y in y0..(y0 + h).min(self.size) {
            for x in x0..(x0 + w).min(self.size) {
                self.walls[(y * self.size + x) as usize] = wall;
            }
        }
    }

    /// Whether `(x, y)` is a free cell on the map.
    #[must_use]
    pub fn free(&self, x: i64, y: i64) -> bool {
        let s = i64::from(self.size);
        x >= 0 && y >= 0 && x < s && y < s && !self.walls[(y * s + x) as usize]
    }
}

/// Generates a `size × size` map of `kind` from `seed`.
#[must_use]
pub fn generate(kind: GridKind, size: u32, seed: u64) -> GridMap {
    let mut rng = Rng::new(seed ^ 0x6e61_7673_7475_6469);
    let mut m = GridMap {
        size,
        walls: vec![false; (size * size) as usize],
    };
    match kind {
        GridKind::Rooms => {
            // Wall lines at random spacings, then a door in every stretch between crossings.
            let cuts = |rng: &mut Rng| {
                let mut v = vec![0];
                let mut at = 0;
                while at + 40 < size {
                    at += 40 + rng.below(41);
                    if at + 20 < size {
                        v.push(at);
                    }
                }
                v.push(size);
                v
            };
            let (xs, ys) = (cuts(&mut rng), cuts(&mut rng));
            for &x in &xs[1..xs.len() - 1] {
                m.fill(x, 0, 2, size, true);
            }
            for &y in &ys[1..ys.len() - 1] {
                m.fill(0, y, size, 2, true);
            }
            for &x in &xs[1..xs.len() - 1] {
                for w in ys.windows(2) {
                    let span = w[1] - w[0];
                    let door = 2 + rng.below(11);
                    let y = w[0] + 3 + rng.below(span.saturating_sub(door + 6).max(1));
                    m.fill(x, y, 2, door, false);
                }
            }
            for &y in &ys[1..ys.len() - 1] {
                for w in xs.windows(2) {
                    let span = w[1] - w[0];
                    let door = 2 + rng.below(11);
                    let x = w[0] + 3 + rng.below(span.saturating_sub(door + 6).max(1));
                    m.fill(x, y, door, 2, false);
                }
            }
            for _ in 0..(size * size / 2000) {
                let (x, y) = (rng.below(size), rng.below(size));
                let (w, h) = (2 + rng.below(5), 2 + rng.below(5));
                m.fill(x, y, w, h, true);
            }
        }
        GridKind::Obstacles => {
            let mut covered = 0_u64;
            let target = u64::from(size) * u64::from(size) / 5;
            while covered < target {
                let (x, y) = (rng.below(size), rng.below(size));
                let (w, h) = (1 + rng.below(12), 1 + rng.below(12));
                m.fill(x, y, w, h, true);
                covered += u64::from(w * h);
            }
        }
        GridKind::Maze => {
            // A perfect maze over a grid of 40-cell blocks (32 corridor + 8 wall), carved by a
            // depth-first walk.
            let (corridor, wall) = (32_u32, 8_u32);
            let step = corridor + wall;
            let n = (size.saturating_sub(wall) / step).max(1);
            m.fill(0, 0, size, size, true);
            let mut seen = vec![false; (n * n) as usize];
            let mut stack = vec![(0_u32, 0_u32)];
            seen[0] = true;
            let open = |m: &mut GridMap, cx: u32, cy: u32| {
                m.fill(
                    wall + cx * step,
                    wall + cy * step,
                    corridor,
                    corridor,
                    false,
                );
            };
            open(&mut m, 0, 0);
            while let Some(&(cx, cy)) = stack.last() {
                let mut next = Vec::new();
                for (dx, dy) in [(1_i64, 0_i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (i64::from(cx) + dx, i64::from(cy) + dy);
                    if nx >= 0
                        && ny >= 0
                        && nx < i64::from(n)
                        && ny < i64::from(n)
                        && !seen[(ny as u32 * n + nx as u32) as usize]
                    {
                        next.push((nx as u32, ny as u32));
                    }
                }
                if next.is_empty() {
                    stack.pop();
                    continue;
                }
                let (nx, ny) = next[rng.below(next.len() as u32) as usize];
                seen[(ny * n + nx) as usize] = true;
                open(&mut m, nx, ny);
                // The wall between the two blocks.
                let (x0, y0) = (cx.min(nx), cy.min(ny));
                if nx != cx {
                    m.fill(
                        wall + x0 * step + corridor,
                        wall + cy * step,
                        wall,
                        corridor,
                        false,
                    );
                } else {
                    m.fill(
                        wall + cx * step,
                        wall + y0 * step + corridor,
                        corridor,
                        wall,
                        false,
                    );
                }
                stack.push((nx, ny));
            }
        }
    }
    m
}

/// Octile shortest distances from `from` to every cell (no corner cutting); infinity where
/// unreachable.
#[must_use]
pub fn octile_distances(m: &GridMap, from: (u32, u32)) -> Vec<f64> {
    let s = m.size as usize;
    let mut dist = vec![f64::INFINITY; s * s];
    let mut heap = BinaryHeap::new();
    let start = from.1 as usize * s + from.0 as usize;
    if m.walls[start] {
        return dist;
    }
    dist[start] = 0.0;
    heap.push(Reverse((0_u64, start)));
    while let Some(Reverse((_, i))) = heap.pop() {
        let d = dist[i];
        let (x, y) = ((i % s) as i64, (i / s) as i64);
        for (dx, dy) in [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
        ] {
            let (nx, ny) = (x + dx, y + dy);
            if !m.free(nx, ny) || (dx != 0 && dy != 0 && !(m.free(x + dx, y) && m.free(x, y + dy)))
            {
                continue;
            }
            let step = if dx != 0 && dy != 0 {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let j = ny as usize * s + nx as usize;
            if d + step < dist[j] - 1e-12 {
                dist[j] = d + step;
                heap.push(Reverse((((d + step) * 1e6) as u64, j)));
            }
        }
    }
    dist
}

/// The map in Moving AI text (`@` walls, `.` free).
#[must_use]
pub fn map_text(m: &GridMap) -> String {
    let mut s = format!("type octile\nheight {0}\nwidth {0}\nmap\n", m.size);
    for row in m.walls.chunks(m.size as usize) {
        s.extend(row.iter().map(|&w| if w { '@' } else { '.' }));
        s.push('\n');
    }
    s
}

/// `rows` scenario rows between random free cells that reach each other, sorted by
/// bucket (octile length / 4) as Moving AI files are, in `.scen` text for `map_name`.
#[must_use]
pub fn scen_text(m: &GridMap, map_name: &str, rows: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x7363_656e);
    let free: Vec<u32> = (0..m.size * m.size)
        .filter(|&i| !m.walls[i as usize])
        .collect();
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < rows && !free.is_empty() && tries < rows * 20 {
        tries += 1;
        let a = free[rng.below(free.len() as u32) as usize];
        let dist = octile_distances(m, (a % m.size, a / m.size));
        // A few goals per source, to spare Dijkstra runs.
        for _ in 0..4 {
            let b = free[rng.below(free.len() as u32) as usize];
            let d = dist[b as usize];
            if d.is_finite() && d > 0.0 && out.len() < rows {
                out.push(((d / 4.0) as u32, a, b, d));
            }
        }
    }
    out.sort_by(|p, q| p.0.cmp(&q.0).then(p.3.total_cmp(&q.3)));
    let mut s = String::from("version 1\n");
    for (bucket, a, b, d) in out {
        let _ = writeln!(
            s,
            "{bucket}\t{map_name}\t{0}\t{0}\t{1}\t{2}\t{3}\t{4}\t{d:.8}",
            m.size,
            a % m.size,
            a / m.size,
            b % m.size,
            b / m.size
        );
    }
    s
}

/// Writes `KIND-SIZE-SEED.map` and its `.map.scen` (`rows` rows) into `dir`; returns the
/// map's path.
///
/// # Errors
/// A sentence naming the file that could not be written.
pub fn write(
    kind: GridKind,
    size: u32,
    seed: u64,
    rows: usize,
    dir: &Path,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: {e}; check the folder can be made", dir.display()))?;
    let m = generate(kind, size, seed);
    let name = format!("{}-{size}-{seed}.map", kind.name());
    let map_path = dir.join(&name);
    let scen_path = dir.join(format!("{name}.scen"));
    std::fs::write(&map_path, map_text(&m))
        .map_err(|e| format!("{}: {e}; check the folder is writable", map_path.display()))?;
    std::fs::write(&scen_path, scen_text(&m, &name, rows, seed))
        .map_err(|e| format!("{}: {e}; check the folder is writable", scen_path.display()))?;
    Ok(map_path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn octile_distances_forbid_corner_cutting() {
        // .#
        // ..   (0,0) to (1,1): the diagonal is cut by the wall at (1,0): 2 steps.
        let m = GridMap {
            size: 2,
            walls: vec![false, true, false, false],
        };
        let d = octile_distances(&m, (0, 0));
        assert!((d[3] - 2.0).abs() < 1e-12);
        let open = GridMap {
            size: 2,
            walls: vec![false; 4],
        };
        assert!((octile_distances(&open, (0, 0))[3] - std::f64::consts::SQRT_2).abs() < 1e-12);
    }

    #[test]
    fn every_kind_is_mostly_connected_and_rows_are_reachable() {
        for kind in [GridKind::Rooms, GridKind::Obstacles, GridKind::Maze] {
            let m = generate(kind, 128, 7);
            let scen = scen_text(&m, "x.map", 20, 7);
            let rows = crate::movingai::parse_scen(&scen, Path::new("x.scen")).unwrap();
            assert_eq!(rows.len(), 20, "{kind:?}");
            for r in rows {
                assert!(m.free(i64::from(r.start.0), i64::from(r.start.1)));
                assert!(r.optimal > 0.0);
            }
        }
    }
}
