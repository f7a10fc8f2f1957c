//! The narrow interface between the crowd and navigation. The run-time `NavWorld`
//! implements it for the game and the editor preview; [`super::testing::GridNavigator`]
//! implements it independently for tests and benches.
//!
//! Coordinates: world metres, x right, y down, origin at the top-left corner of cell
//! `(0, 0)`; cell `(x, y)` covers `[x·s, (x+1)·s) × [y·s, (y+1)·s)` for cell size `s`.

use super::vec2::{Vec2, floor_i32};
use navstudio_nav::MoveType;

/// A planned route handed out by [`Navigator::request_path`]; opaque to the crowd. The run
/// time's path id: one meaning in nav, crowd and the C API.
pub use navstudio_nav::PathId;

/// The size of the navigation grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavGrid {
    /// Edge length of one square cell. `[Units: m] [Limit: > 0]`
    pub cell_size_m: f32,
    /// Columns. `[Units: cells]`
    pub width_cells: u32,
    /// Rows. `[Units: cells]`
    pub height_cells: u32,
}

impl NavGrid {
    /// The cell holding a world position (may be off the map).
    #[must_use]
    pub fn cell_from_world(&self, pos_world: Vec2) -> (i32, i32) {
        (
            floor_i32(pos_world.x / self.cell_size_m),
            floor_i32(pos_world.y / self.cell_size_m),
        )
    }

    /// The centre of a cell in world metres.
    #[must_use]
    pub fn world_from_cell(&self, cell_x: i32, cell_y: i32) -> Vec2 {
        Vec2::new(
            (cell_x as f32 + 0.5) * self.cell_size_m,
            (cell_y as f32 + 0.5) * self.cell_size_m,
        )
    }

    /// The map's extent in world metres.
    #[must_use]
    pub fn size_world(&self) -> Vec2 {
        Vec2::new(
            self.width_cells as f32 * self.cell_size_m,
            self.height_cells as f32 * self.cell_size_m,
        )
    }
}

/// What an agent should do at a position on a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowSample {
    /// Desired direction of travel; unit length.
    pub direction: Vec2,
    /// The position sees the goal: `direction` points straight at it, and the crowd may
    /// steer straight at a nearby lane target instead.
    pub line_of_sight: bool,
}

/// A nav link an agent stands at and must take now (see [`Navigator::link_at`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkCrossing {
    /// The link's id.
    pub id: u32,
    /// How to traverse it.
    pub kind: navstudio_nav::links::LinkKind,
    /// The exit end's block of cells, `(min, max)` corners in world metres.
    pub exit_min: Vec2,
    /// See `exit_min`.
    pub exit_max: Vec2,
    /// The centre of the exit cell the route goes on from. `[Units: m]`
    pub exit_world: Vec2,
    /// Width of the link. `[Units: m]`
    pub width_m: f32,
}

/// Path planning and flow sampling as the crowd needs them.
///
/// `Sync` because the crowd samples flow from several threads at once; `request_path` and
/// `release_path` take `&mut self` and are only called between steps' parallel phases.
pub trait Navigator: Sync {
    /// Cell size and map size.
    fn grid(&self) -> NavGrid;

    /// The movement type with this name, if the navigator knows it.
    fn move_type(&self, name: &str) -> Option<MoveType>;

    /// Plans a route for these sources to `goal_world` for movement type `move_type`;
    /// `None` when the goal cannot be reached (wall, off the map, other island, unknown type).
    /// Several sources share one path: the navigator merges their routes.
    fn request_path(
        &mut self,
        move_type: MoveType,
        sources_world: &[Vec2],
        goal_world: Vec2,
    ) -> Option<PathId>;

    /// Plans one route for these sources to the nearest of `goals_world` (a goal set), as
    /// [`Self::request_path`] does for one goal; [`Self::goal_reached`] then says which goal
    /// an agent's flow leads to. The default (for navigators without goal sets) plans to the
    /// goal nearest the first source in a straight line.
    fn request_path_to_any(
        &mut self,
        move_type: MoveType,
        sources_world: &[Vec2],
        goals_world: &[Vec2],
    ) -> Option<PathId> {
        let first = sources_world.first().copied().unwrap_or(Vec2::ZERO);
        let goal = goals_world
            .iter()
            .copied()
            .min_by(|a, b| (*a - first).length().total_cmp(&(*b - first).length()))?;
        self.request_path(move_type, sources_world, goal)
    }

    /// The goal (world metres, a goal cell's centre) that an agent at `pos_world` reaches by
    /// following `path`; `None` when the navigator cannot tell (the crowd then takes the
    /// nearest goal in a straight line).
    fn goal_reached(&self, path: PathId, pos_world: Vec2) -> Option<Vec2> {
        let _ = (path, pos_world);
        None
    }

    /// Desired direction at `pos_world` on that path: in line of sight straight at the goal;
    /// on a flow tile the bilinear interpolation of the 4 nearest flow directions; not on the
    /// route yet toward the next portal. `None` = no direction (at the goal, off the route,
    /// unreachable, released path).
    fn sample_flow(&self, path: PathId, pos_world: Vec2) -> Option<FlowSample>;

    /// When an agent at `pos_world` on `path` stands on the entry of a nav link its route
    /// takes next, the link: the crowd then carries the agent across it by its kind (the
    /// flow ends at the entry). The default knows no links.
    fn link_at(&self, path: PathId, pos_world: Vec2) -> Option<LinkCrossing> {
        let _ = (path, pos_world);
        None
    }

    /// Moves the goal of `path` to `goal_world` (a chased agent's position), for agents now
    /// at `sources_world`: `true` when the path leads there from now on; `false` when this
    /// navigator cannot move goals or the new goal cannot be reached on the path's islands
    /// (the crowd then asks for a new path). The default cannot.
    fn move_goal(&mut self, path: PathId, goal_world: Vec2, sources_world: &[Vec2]) -> bool {
        let _ = (path, goal_world, sources_world);
        false
    }

    /// Extends `path` so agents standing at `sources_world` follow its flow from there
    /// (pushed off the route into a part of a sector no route leads through, they would
    /// otherwise head for the nearest routed portal in a straight line, maybe through a
    /// wall): `true` when the path covers them now. The default cannot.
    fn join_path(&mut self, path: PathId, sources_world: &[Vec2]) -> bool {
        let _ = (path, sources_world);
        false
    }

    /// Whether `path`'s flow covers `pos_world` (no off-route fallback there). `true` when
    /// the navigator cannot tell.
    fn covers(&self, path: PathId, pos_world: Vec2) -> bool {
        let _ = (path, pos_world);
        true
    }

    /// Whether an agent at `pos_world` can follow `path` to its goal (for [`NavWorld`]-like
    /// navigators: its cell lies on the goal's island for the path's movement type). Orders
    /// leave out the agents that cannot, as idle, instead of letting them wander toward the
    /// route for ever. `true` when the navigator cannot tell.
    ///
    /// [`NavWorld`]: navstudio_nav::NavWorld
    fn reaches(&self, path: PathId, pos_world: Vec2) -> bool {
        let _ = (path, pos_world);
        true
    }

    /// Whether the cell is a wall for this movement type (buffered walls for large units).
    /// Cells off the map are walls.
    fn is_wall(&self, move_type: MoveType, cell_x: i32, cell_y: i32) -> bool;

    /// Whether any cell of the rectangle `x0..=x1 × y0..=y1` is a wall for this movement
    /// type, as [`Self::is_wall`] of each would say. Navigators that hold walls by rows
    /// answer a row at a time: lane following asks it of a 7 × 7 square per agent.
    fn any_wall_in(&self, move_type: MoveType, x0: i32, y0: i32, x1: i32, y1: i32) -> bool {
        (y0..=y1).any(|y| (x0..=x1).any(|x| self.is_wall(move_type, x, y)))
    }

    /// Whether every cell passable for movement type `a` is passable for `b`: a path planned
    /// for `a` is then walkable by `b`, so a mixed selection can share it (SupCom2's "most
    /// restrictive type"). The default knows only that a type contains itself.
    fn passable_subset(&self, a: MoveType, b: MoveType) -> bool {
        a == b
    }

    /// Cells passable for the movement type, to order types from most to least
    /// restrictive; `0` when the navigator cannot tell (types then go by index).
    fn passable_cells(&self, move_type: MoveType) -> u64 {
        let _ = move_type;
        0
    }

    /// How far the movement type's walls were moved outward by wall buffering. The crowd
    /// collides a disc of `radius − buffer` against these walls, since the buffer already
    /// keeps the unit's body off the real walls. `[Units: m]`
    fn wall_buffer_m(&self, move_type: MoveType) -> f32 {
        let _ = move_type;
        0.0
    }

    /// For a type with a wall buffer, the unbuffered movement type whose walls its buffer
    /// was grown from (the most restrictive one whose passable cells hold all of the type's
    /// own): with `body_walls` the type's body collides with those at its full radius.
    /// `None` for unbuffered types, or when the navigator cannot tell.
    fn body_walls_type(&self, move_type: MoveType) -> Option<MoveType> {
        let _ = move_type;
        None
    }

    /// The crowd no longer uses this path.
    fn release_path(&mut self, path: PathId);

    /// Changes whenever walls may have appeared under the agents (a stamp placed at run
    /// time). The simulation then moves agents whose centre is in a wall cell to the nearest
    /// free cell. Navigators over a fixed world keep the default.
    fn walls_version(&self) -> u64 {
        0
    }

    /// Changes when the world finished rebuilding after a run-time change: the simulation
    /// then asks for its live paths again from where the agents are now.
    fn routes_version(&self) -> u64 {
        0
    }

    /// The world changed and its routes are not rebuilt yet: a missing flow sample then
    /// means "keep the last direction", not "stop".
    fn replanning(&self) -> bool {
        false
    }
}
