//! The crowd on the real run time: [`WorldNavigator`] implements [`Navigator`] over
//! [`NavWorld`], so the preview moves agents exactly as a game loading the package would.

use std::collections::BTreeMap;

use super::navigator::{FlowSample, NavGrid, Navigator, PathId};
use super::vec2::Vec2;
use crate::nav::grid::WALL;
use crate::nav::{NavWorld, world};

/// [`NavWorld`] plus what the crowd needs beside it (names and wall buffers per type).
pub struct WorldNavigator {
    /// The run-time world.
    pub world: NavWorld,
    /// Wall buffer of each movement type, in layer order. `[Units: m]`
    pub wall_buffer_m: Vec<f32>,
    /// Crowd path id → world path id.
    paths: BTreeMap<u32, world::PathId>,
}

impl WorldNavigator {
    /// Wraps a world; `wall_buffer_m` per layer (missing entries read as 0).
    #[must_use]
    pub fn new(world: NavWorld, wall_buffer_m: Vec<f32>) -> Self {
        Self {
            world,
            wall_buffer_m,
            paths: BTreeMap::new(),
        }
    }

    fn cell_of(&self, p: Vec2) -> Option<(u32, u32)> {
        let g = self.grid();
        let (x, y) = g.cell_from_world(p);
        (x >= 0 && y >= 0 && (x as u32) < g.width_cells && (y as u32) < g.height_cells)
            .then_some((x as u32, y as u32))
    }
}

impl Navigator for WorldNavigator {
    fn grid(&self) -> NavGrid {
        let nav = self.world.nav();
        NavGrid {
            cell_size_m: nav.cell_size_m,
            width_cells: nav.spec.width,
            height_cells: nav.spec.height,
        }
    }

    fn movement_type_index(&self, name: &str) -> Option<usize> {
        self.world.nav().layers.iter().position(|l| l.name == name)
    }

    fn request_path(
        &mut self,
        type_index: usize,
        sources_world: &[Vec2],
        goal_world: Vec2,
    ) -> Option<PathId> {
        let goal = self.cell_of(goal_world)?;
        let sources: Vec<(u32, u32)> = sources_world
            .iter()
            .filter_map(|&p| self.cell_of(p))
            .collect();
        let id = self.world.request_path(type_index, &sources, goal).ok()?;
        self.paths.insert(id.0, id);
        Some(PathId(id.0))
    }

    fn sample_flow(&self, path: PathId, pos_world: Vec2) -> Option<FlowSample> {
        let id = *self.paths.get(&path.0)?;
        let s = self.world.nav().cell_size_m;
        let (px, py) = (pos_world.x / s, pos_world.y / s);
        let p = self.world.path(id)?;
        let cell = (px.max(0.0) as u32, py.max(0.0) as u32);
        if cell == p.goal {
            return None;
        }
        let (dx, dy) = self.world.sample_flow(id, (px, py))?;
        Some(FlowSample {
            direction: Vec2::new(dx, dy),
            line_of_sight: self.world.has_line_of_sight(id, cell),
        })
    }

    fn is_wall(&self, type_index: usize, cell_x: i32, cell_y: i32) -> bool {
        let nav = self.world.nav();
        let Some(l) = nav.layers.get(type_index) else {
            return true;
        };
        if cell_x < 0
            || cell_y < 0
            || cell_x as u32 >= nav.spec.width
            || cell_y as u32 >= nav.spec.height
        {
            return true;
        }
        l.cost.get(cell_x as u32, cell_y as u32) == WALL
    }

    fn wall_buffer_m(&self, type_index: usize) -> f32 {
        self.wall_buffer_m.get(type_index).copied().unwrap_or(0.0)
    }

    fn release_path(&mut self, path: PathId) {
        if let Some(id) = self.paths.remove(&path.0) {
            self.world.release_path(id);
        }
    }
}
