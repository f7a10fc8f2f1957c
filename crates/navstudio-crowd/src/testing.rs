//! `GridNavigator`: a small, independent stand-in for the run-time `NavWorld`, used by the
//! crowd's tests and benches. It floods one whole-map Dijkstra field per goal (8 neighbours,
//! no corner cutting, costs from the grid), answers line of sight by walking the cells from
//! the cell to the goal, and samples flow by bilinear interpolation of the 4 nearest cells.

use navstudio_nav::MoveType;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;

use super::error::CrowdError;
use super::navigator::{FlowSample, NavGrid, Navigator, PathId};
use super::vec2::{Vec2, floor_i32};
use super::walls::segment_is_clear;
use navstudio_nav::grid::{DIRECTIONS, WALL};

/// Per-cell value: no direction, the cell cannot reach the goal (or is a wall).
const UNREACHABLE: u8 = 0xFF;
/// Per-cell value: the goal cell itself.
const GOAL: u8 = 0xFE;
/// Edge weights in thousandths of a cell: orthogonal and diagonal steps.
const ORTHO_STEP: u64 = 1000;
const DIAG_STEP: u64 = 1414;

const LOS_UNKNOWN: u8 = 0;
const LOS_YES: u8 = 1;
const LOS_NO: u8 = 2;

/// One movement type's cost grid.
#[derive(Clone, Debug)]
struct TypeGrid {
    name: String,
    /// Row-major costs, 255 = wall.
    costs: Vec<u8>,
    /// Wall buffer already applied to `costs`. `[Units: m]`
    wall_buffer_m: f32,
}

/// One goal's flow field.
#[derive(Debug)]
struct Field {
    move_type: MoveType,
    goal_world: Vec2,
    /// Per cell: index into [`DIRECTIONS`], [`GOAL`] or [`UNREACHABLE`].
    dirs: Vec<u8>,
    /// Per cell line-of-sight cache, filled lazily (and idempotently) from several threads.
    los: Vec<AtomicU8>,
    refs: u32,
}

/// A whole-map, Dijkstra-per-goal navigator over plain cost grids.
#[derive(Debug)]
pub struct GridNavigator {
    cell_size_m: f32,
    width: u32,
    height: u32,
    types: Vec<TypeGrid>,
    fields: Vec<Option<Field>>,
}

impl GridNavigator {
    /// An empty navigator for a `width × height` map of `cell_size_m` cells; add movement
    /// types with [`Self::add_type`].
    #[must_use]
    pub fn new(cell_size_m: f32, width: u32, height: u32) -> Self {
        Self {
            cell_size_m,
            width,
            height,
            types: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// Adds a movement type from a row-major cost grid (255 = wall) and returns its index.
    ///
    /// # Errors
    /// [`CrowdError::GridSize`] when the grid does not hold `width × height` cells.
    pub fn add_type(&mut self, name: &str, costs: Vec<u8>) -> Result<usize, CrowdError> {
        self.add_buffered_type(name, costs, 0.0)
    }

    /// Adds a movement type whose walls were already buffered outward by `wall_buffer_m`
    /// (see [`buffer_walls`]) and returns its index.
    ///
    /// # Errors
    /// [`CrowdError::GridSize`] when the grid does not hold `width × height` cells.
    pub fn add_buffered_type(
        &mut self,
        name: &str,
        costs: Vec<u8>,
        wall_buffer_m: f32,
    ) -> Result<usize, CrowdError> {
        let expected = self.width as usize * self.height as usize;
        if costs.len() != expected {
            return Err(CrowdError::GridSize {
                name: name.to_owned(),
                expected,
                found: costs.len(),
            });
        }
        self.types.push(TypeGrid {
            name: name.to_owned(),
            costs,
            wall_buffer_m,
        });
        Ok(self.types.len() - 1)
    }

    /// The cost of a cell for a type; 255 (wall) off the map or for an unknown type.
    #[must_use]
    pub fn cost(&self, move_type: MoveType, cell_x: i32, cell_y: i32) -> u8 {
        if cell_x < 0 || cell_y < 0 || cell_x >= self.width as i32 || cell_y >= self.height as i32 {
            return WALL;
        }
        self.types.get(move_type.index()).map_or(WALL, |t| {
            t.costs[cell_y as usize * self.width as usize + cell_x as usize]
        })
    }

    /// Number of live flow fields (shared requests count once).
    #[must_use]
    pub fn live_paths(&self) -> usize {
        self.fields.iter().flatten().count()
    }

    /// Fills a path's line-of-sight cache for every cell in parallel, so benches time the
    /// crowd and not this stand-in's lazy line walks.
    pub fn warm_line_of_sight(&self, path: PathId) {
        let Some(field) = self.field(path) else {
            return;
        };
        (0..field.los.len()).into_par_iter().for_each(|i| {
            let x = (i % self.width as usize) as i32;
            let y = (i / self.width as usize) as i32;
            self.cell_has_los(field, x, y);
        });
    }

    fn field(&self, path: PathId) -> Option<&Field> {
        self.fields.get(path.0 as usize).and_then(Option::as_ref)
    }

    fn index(&self, x: i32, y: i32) -> Option<usize> {
        (x >= 0 && y >= 0 && x < self.width as i32 && y < self.height as i32)
            .then(|| y as usize * self.width as usize + x as usize)
    }

    /// Whether every part of the cell (centre and four inset corners) sees the goal point.
    fn cell_has_los(&self, field: &Field, x: i32, y: i32) -> bool {
        let Some(i) = self.index(x, y) else {
            return false;
        };
        match field.los[i].load(Ordering::Relaxed) {
            LOS_YES => return true,
            LOS_NO => return false,
            _ => {}
        }
        let goal_cells = field.goal_world / self.cell_size_m;
        let visible = field.dirs[i] != UNREACHABLE
            && [(0.5, 0.5), (0.1, 0.1), (0.9, 0.1), (0.1, 0.9), (0.9, 0.9)]
                .iter()
                .all(|&(ox, oy)| {
                    let from = Vec2::new(x as f32 + ox, y as f32 + oy);
                    segment_is_clear(from, goal_cells, |cx, cy| {
                        self.cost(field.move_type, cx, cy) == WALL
                    })
                });
        field.los[i].store(if visible { LOS_YES } else { LOS_NO }, Ordering::Relaxed);
        visible
    }

    /// Dijkstra from the goal over the whole map; returns the per-cell direction table.
    fn flood(&self, move_type: MoveType, goal: (i32, i32)) -> Vec<u8> {
        let n = self.width as usize * self.height as usize;
        let mut dist = vec![u64::MAX; n];
        let mut heap = BinaryHeap::new();
        let Some(goal_index) = self.index(goal.0, goal.1) else {
            return vec![UNREACHABLE; n];
        };
        dist[goal_index] = 0;
        heap.push(Reverse((0u64, goal_index)));
        while let Some(Reverse((d, i))) = heap.pop() {
            if d > dist[i] {
                continue;
            }
            let (x, y) = (
                (i % self.width as usize) as i32,
                (i / self.width as usize) as i32,
            );
            let here = u64::from(self.cost(move_type, x, y));
            for (nx, ny, step) in self.moves(move_type, x, y) {
                let Some(j) = self.index(nx, ny) else {
                    continue;
                };
                let there = u64::from(self.cost(move_type, nx, ny));
                let nd = d + step * (here + there);
                if nd < dist[j] {
                    dist[j] = nd;
                    heap.push(Reverse((nd, j)));
                }
            }
        }
        let mut dirs = vec![UNREACHABLE; n];
        for (i, out) in dirs.iter_mut().enumerate() {
            if dist[i] == u64::MAX {
                continue;
            }
            if i == goal_index {
                *out = GOAL;
                continue;
            }
            let (x, y) = (
                (i % self.width as usize) as i32,
                (i / self.width as usize) as i32,
            );
            let mut best = (dist[i], UNREACHABLE);
            for (k, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                if !self.can_step(move_type, x, y, dx, dy) {
                    continue;
                }
                if let Some(j) = self.index(x + dx, y + dy)
                    && dist[j] < best.0
                {
                    best = (dist[j], k as u8);
                }
            }
            *out = best.1;
        }
        dirs
    }

    /// A step is allowed onto a passable cell; diagonals also need both orthogonal cells.
    fn can_step(&self, move_type: MoveType, x: i32, y: i32, dx: i32, dy: i32) -> bool {
        let wall = |cx, cy| self.cost(move_type, cx, cy) == WALL;
        !wall(x + dx, y + dy) && (dx == 0 || dy == 0 || (!wall(x + dx, y) && !wall(x, y + dy)))
    }

    fn moves(&self, move_type: MoveType, x: i32, y: i32) -> impl Iterator<Item = (i32, i32, u64)> {
        DIRECTIONS.iter().filter_map(move |&(dx, dy)| {
            self.can_step(move_type, x, y, dx, dy).then_some((
                x + dx,
                y + dy,
                if dx != 0 && dy != 0 {
                    DIAG_STEP
                } else {
                    ORTHO_STEP
                },
            ))
        })
    }
}

impl Navigator for GridNavigator {
    fn grid(&self) -> NavGrid {
        NavGrid {
            cell_size_m: self.cell_size_m,
            width_cells: self.width,
            height_cells: self.height,
        }
    }

    fn move_type(&self, name: &str) -> Option<MoveType> {
        self.types
            .iter()
            .position(|t| t.name == name)
            .map(MoveType::new)
    }

    fn request_path(
        &mut self,
        move_type: MoveType,
        sources_world: &[Vec2],
        goal_world: Vec2,
    ) -> Option<PathId> {
        if move_type.index() >= self.types.len() || !goal_world.is_finite() {
            return None;
        }
        let grid = self.grid();
        let goal_cell = grid.cell_from_world(goal_world);
        if self.cost(move_type, goal_cell.0, goal_cell.1) == WALL {
            return None;
        }
        let shared = self.fields.iter().position(|f| {
            f.as_ref()
                .is_some_and(|f| f.move_type == move_type && f.goal_world == goal_world)
        });
        let slot = if let Some(slot) = shared {
            slot
        } else {
            let dirs = self.flood(move_type, goal_cell);
            let los = (0..dirs.len())
                .map(|_| AtomicU8::new(LOS_UNKNOWN))
                .collect();
            let field = Field {
                move_type,
                goal_world,
                dirs,
                los,
                refs: 0,
            };
            let free = self.fields.iter().position(Option::is_none);
            if let Some(free) = free {
                self.fields[free] = Some(field);
                free
            } else {
                self.fields.push(Some(field));
                self.fields.len() - 1
            }
        };
        let reachable = sources_world.is_empty()
            || sources_world.iter().any(|&s| {
                let c = grid.cell_from_world(s);
                self.index(c.0, c.1).is_some_and(|i| {
                    self.fields[slot]
                        .as_ref()
                        .is_some_and(|f| f.dirs[i] != UNREACHABLE)
                })
            });
        let field = self.fields[slot].as_mut()?;
        if !reachable {
            if field.refs == 0 {
                self.fields[slot] = None;
            }
            return None;
        }
        field.refs += 1;
        Some(PathId(slot as u32))
    }

    fn sample_flow(&self, path: PathId, pos_world: Vec2) -> Option<FlowSample> {
        let field = self.field(path)?;
        let grid = self.grid();
        let (cx, cy) = grid.cell_from_world(pos_world);
        let i = self.index(cx, cy)?;
        if field.dirs[i] == UNREACHABLE {
            return None;
        }
        let to_goal = (field.goal_world - pos_world).normalize_or_zero();
        if self.cell_has_los(field, cx, cy) {
            return (to_goal != Vec2::ZERO).then_some(FlowSample {
                direction: to_goal,
                line_of_sight: true,
            });
        }
        let dir_of = |x: i32, y: i32| -> Vec2 {
            let Some(j) = self.index(x, y) else {
                return Vec2::ZERO;
            };
            match field.dirs[j] {
                UNREACHABLE => Vec2::ZERO,
                _ if self.cell_has_los(field, x, y) => to_goal,
                GOAL => to_goal,
                d => unit_direction(d),
            }
        };
        let u = pos_world / self.cell_size_m - Vec2::new(0.5, 0.5);
        let (x0, y0) = (floor_i32(u.x), floor_i32(u.y));
        let (fx, fy) = (u.x - x0 as f32, u.y - y0 as f32);
        let blended = dir_of(x0, y0) * ((1.0 - fx) * (1.0 - fy))
            + dir_of(x0 + 1, y0) * (fx * (1.0 - fy))
            + dir_of(x0, y0 + 1) * ((1.0 - fx) * fy)
            + dir_of(x0 + 1, y0 + 1) * (fx * fy);
        let direction = if blended.length_squared() > 1e-6 {
            blended.normalize_or_zero()
        } else {
            dir_of(cx, cy)
        };
        (direction != Vec2::ZERO).then_some(FlowSample {
            direction,
            line_of_sight: false,
        })
    }

    fn reaches(&self, path: PathId, pos_world: Vec2) -> bool {
        let (cx, cy) = self.grid().cell_from_world(pos_world);
        self.field(path)
            .zip(self.index(cx, cy))
            .is_some_and(|(field, i)| field.dirs[i] != UNREACHABLE)
    }

    fn is_wall(&self, move_type: MoveType, cell_x: i32, cell_y: i32) -> bool {
        self.cost(move_type, cell_x, cell_y) == WALL
    }

    fn any_wall_in(&self, move_type: MoveType, x0: i32, y0: i32, x1: i32, y1: i32) -> bool {
        let (w, h) = (self.width as i32, self.height as i32);
        let Some(t) = self.types.get(move_type.index()) else {
            return x0 <= x1 && y0 <= y1;
        };
        if x0 > x1 || y0 > y1 {
            return false;
        }
        if x0 < 0 || y0 < 0 || x1 >= w || y1 >= h {
            return true;
        }
        (y0..=y1).any(|y| {
            let row = y as usize * w as usize;
            t.costs[row + x0 as usize..=row + x1 as usize].contains(&WALL)
        })
    }

    fn wall_buffer_m(&self, move_type: MoveType) -> f32 {
        self.types
            .get(move_type.index())
            .map_or(0.0, |t| t.wall_buffer_m)
    }

    fn release_path(&mut self, path: PathId) {
        if let Some(slot) = self.fields.get_mut(path.0 as usize)
            && let Some(field) = slot.as_mut()
        {
            field.refs = field.refs.saturating_sub(1);
            if field.refs == 0 {
                *slot = None;
            }
        }
    }
}

/// [`DIRECTIONS`]`[d]` as a unit vector, computed once (the same bits as normalising it
/// on every sample).
fn unit_direction(d: u8) -> Vec2 {
    static UNIT: OnceLock<Vec<Vec2>> = OnceLock::new();
    let unit = UNIT.get_or_init(|| {
        DIRECTIONS
            .iter()
            .map(|&(dx, dy)| Vec2::new(dx as f32, dy as f32).normalize_or_zero())
            .collect()
    });
    unit.get(d as usize).copied().unwrap_or(Vec2::ZERO)
}

/// Parses a hand-drawn map: one line per row, `#` wall, `.` (or space) clear, a digit `d`
/// costs `1 + 25·d`. Returns `(width, height, row-major costs)`; short rows are padded with
/// walls.
#[must_use]
pub fn parse_ascii_map(text: &str) -> (u32, u32, Vec<u8>) {
    let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut costs = Vec::with_capacity(width * rows.len());
    for row in &rows {
        let mut n = 0;
        for ch in row.chars() {
            costs.push(match ch {
                '#' => WALL,
                d @ '0'..='9' => 1 + 25 * (d as u8 - b'0'),
                _ => 1,
            });
            n += 1;
        }
        costs.extend(std::iter::repeat_n(WALL, width - n));
    }
    (width as u32, rows.len() as u32, costs)
}

/// Wall buffering for large units, by brute force: a cell becomes a wall when its centre is
/// within `radius_cells` of the centre of a wall cell or of the map's outside.
#[must_use]
pub fn buffer_walls(costs: &[u8], width: u32, height: u32, radius_cells: f32) -> Vec<u8> {
    let reach = radius_cells.max(0.0).ceil() as i32;
    let r_sq = radius_cells * radius_cells;
    let (w, h) = (width as i32, height as i32);
    let wall =
        |x: i32, y: i32| x < 0 || y < 0 || x >= w || y >= h || costs[(y * w + x) as usize] == WALL;
    let mut out = costs.to_vec();
    for y in 0..h {
        for x in 0..w {
            let near = (-reach..=reach).any(|dy| {
                (-reach..=reach)
                    .any(|dx| (dx * dx + dy * dy) as f32 <= r_sq && wall(x + dx, y + dy))
            });
            if near {
                out[(y * w + x) as usize] = WALL;
            }
        }
    }
    out
}
