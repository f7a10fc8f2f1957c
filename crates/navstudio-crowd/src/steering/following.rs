//! Path following: the velocity an agent wants from its flow field alone (line of sight
//! straight at the goal, else the flow blended in while crossing a cell), and stuck
//! recovery's re-planned next step.

use crate::agents::{LaneMode, NO_ORDER};
use crate::navigator::{FlowSample, Navigator};
use crate::vec2::Vec2;
use crate::walls::{disc_is_clear, segment_is_clear};
use navstudio_nav::MoveType;

use super::StepContext;

/// An agent within its lane's offset from the order's destination plus this many cells,
/// with a clear straight line to its lane, walks straight there whatever the flow says
/// (see [`StepContext::desired_velocity`]).
const LANE_STRAIGHT_CELLS: f32 = 4.0;

/// A lane's flow ([`StepContext::lane_sample`]) this close to the agent's own (within 15°)
/// is followed without looking ahead: the own flow leads nearly the same way (a flow of
/// eight directions blended between cell centres parts by this much from cell to cell).
const LANE_SAME_COS: f32 = 0.966;

/// A lane's flow is followed only while its line leads this far clear of walls ahead of
/// the agent. `[Units: cells]`
const LANE_TRACK_CELLS: f32 = 12.0;

/// An agent follows its lane's flow ([`StepContext::lane_sample`]) only on a lane at least
/// this far from its destination. `[Units: cells]`
const LANE_MIN_OFFSET_CELLS: f32 = 2.0;

/// An agent follows its lane's flow only with no wall within this many cells of its own
/// cell ([`StepContext::lane_sample`]): across open ground.
const LANE_OPEN_CELLS: i32 = 3;

/// An agent follows its lane's flow only in sight of its place in the group's centre
/// ([`StepContext::lane_sample`]), and looks no farther than this for it. `[Units: cells]`
const LANE_SIGHT_CELLS: f32 = 24.0;

/// An agent rounding an obstacle on its own flow ([`StepContext::lane_sample`]) takes its
/// lane's flow again once the two are within this cosine (25°).
const LANE_REJOIN_COS: f32 = 0.9;

/// A stalled agent whose way leads into the wall it presses against within this cosine
/// of head-on goes round it ([`StepContext::round_the_wall`]).
const HEAD_ON_WALL_COS: f32 = 0.7;

/// How far along a wall [`StepContext::round_the_wall`] looks for a way round, beyond the
/// agent's diameter. `[Units: cells]`
const ROUND_WALL_CELLS: f32 = 4.0;

/// The smallest distance from its goal at which an agent starts to slow down (see
/// [`StepContext::desired_velocity`]). `[Units: m]`
const SLOW_RADIUS_MIN_M: f32 = 1.0;

/// An agent on a lane decides which flow to follow ([`StepContext::lane_sample`]) once
/// every this many steps (staggered by index) and keeps to it in between: the decision
/// samples both flows and may walk a line, and a 50k crowd cannot afford that every step
/// (a tenth of a metre's walk between decisions at infantry speed).
const LANE_CHECK_STEPS: u64 = 4;

/// What following its lane ([`StepContext::lane_sample`]) made of an agent's step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneState {
    /// [`crate::Agents::lane`] after the step.
    pub mode: LaneMode,
}

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// The velocity the agent wants from its path alone, its smoothed flow direction, and
    /// what following its lane made of the step ([`Self::lane_sample`]).
    /// `me` is the agent's [`super::NearAgent`], read in grid order where its arrays would be
    /// read at a scattered index.
    pub(super) fn desired_velocity(&self, me: &super::NearAgent) -> (Vec2, Vec2, LaneState) {
        let a = self.agents;
        let i = me.index as usize;
        let old_dir = a.flow_dir[i];
        // The snapshot's order is set exactly while the agent travels (every travelling
        // agent has an order): one array less read at a scattered index.
        if me.moving_order == NO_ORDER {
            return (Vec2::ZERO, old_dir, LaneState::default());
        }
        let p = me.pos_world;
        let goal = a.goal_world[i];
        let to_goal = goal - p;
        let dist = to_goal.length();
        let cell = self.nav_grid.cell_size_m;
        let destination = self.destination(me.moving_order, goal).unwrap_or(goal);
        // Abreast: the lane's offset across the way the agent walks (along it, the flow a
        // few metres ahead or behind is the flow here).
        let offset = goal - destination;
        let lateral = offset - old_dir * offset.dot(old_dir);
        let (sample, lane_state) = match a.path[i] {
            // An agent on a route planned for another movement type rejoins that route
            // where it can (`rejoin_direction`): its lane's flow is that type's. A lane
            // within a couple of cells across the way is as good as none: the flow a cell
            // or two away is the flow here; and near its goal, an agent's own flow (and
            // its line of sight to the lane) leads it in.
            Some(path)
                if (LANE_MIN_OFFSET_CELLS * cell).powi(2) <= lateral.length_squared()
                    && lateral.length_squared() <= (LANE_SIGHT_CELLS * cell).powi(2)
                    && dist > LANE_TRACK_CELLS * cell
                    && a.path_type.get(i).is_none_or(|&t| t == a.move_type[i]) =>
            {
                self.lane_sample(i, p, path, lateral)
            }
            Some(path) => (self.nav.sample_flow(path, p), LaneState::default()),
            None => (None, LaneState::default()),
        };
        // Blend a new flow direction in over about half a cell of travel.
        let blend = |d: Vec2| {
            let travelled = me.vel.length() * self.config.step_secs;
            let alpha = (2.0 * travelled / cell).clamp(0.1, 1.0);
            if old_dir == Vec2::ZERO || old_dir.dot(d) < -0.5 {
                d
            } else {
                (old_dir + (d - old_dir) * alpha).normalize_or_zero()
            }
        };
        let dir = match sample {
            Some(s) if s.line_of_sight => {
                let t = a.move_type[i];
                if goal == destination && dist > 2.0 * cell {
                    blend(s.direction)
                } else if dist <= 2.0 * cell {
                    // The flow leads to the goal *cell*; the last two cells go to the point.
                    to_goal.normalize_or_zero()
                } else if self.body_line_is_clear(i, t, goal) {
                    to_goal.normalize_or_zero()
                } else {
                    // The way to the lane goal is no straight line for the body: the flow
                    // where the agent stands leads it round (its lane's flow, taken at the
                    // group's centre place, can lead into the wall beside a gap).
                    let own = a.path[i].and_then(|path| self.nav.sample_flow(path, p));
                    blend(own.map_or(s.direction, |o| o.direction))
                }
            }
            // A lane goal near by in a straight line: the flow leads to the order's
            // destination, and where the lane lies behind the way to it (across a sector
            // the route does not cover, or on the far side of the destination) the flow
            // turns the agent back toward the destination the moment it steps toward its
            // lane, and it stands at the border. Only where the flow leads away from the
            // lane: elsewhere it leads there anyway, and a 50k crowd would walk a segment
            // per agent and step.
            Some(s)
                if s.direction.dot(to_goal) < 0.0
                    && self.among_lanes(p, goal, destination)
                    && segment_is_clear(p / cell, goal / cell, |x, y| {
                        self.nav.is_wall(a.move_type[i], x, y)
                    }) =>
            {
                to_goal.normalize_or_zero()
            }
            Some(s) => blend(s.direction),
            // Off the flow: only the last metres inside the goal cell go straight.
            None if dist < cell => to_goal.normalize_or_zero(),
            // The world is rebuilding under a stamp: keep going until routes are back.
            None if self.replanning => old_dir,
            None => Vec2::ZERO,
        };
        let dir = self.round_crossing(i, dir, dist);
        let dir = if self.config.techniques.corner_clearance && dist > 2.0 * cell {
            self.clear_corners(i, dir)
        } else {
            dir
        };
        let dir = match a.path[i] {
            Some(path)
                if a.state[i].is_stalled()
                    && a.wall_normal[i] != Vec2::ZERO
                    && dist > 2.0 * cell =>
            {
                let dir = self.recovery_direction(i, path).unwrap_or(dir);
                let normal = a.wall_normal[i];
                // Only for long: a queue pressed against the wall beside a door waits its
                // turn, and sliding along the wall into the queue's side helps nobody.
                if dir.dot(normal) < -HEAD_ON_WALL_COS
                    && a.no_progress_secs[i] >= 2.0 * self.config.stuck_secs
                {
                    self.round_the_wall(i, dir, normal).unwrap_or(dir)
                } else {
                    dir
                }
            }
            _ => dir,
        };
        // Near its own goal in a straight line its own type walks, an agent needs no flow:
        // its goal (a lane of a mixed selection) may lie where the route's more
        // restrictive type cannot stand, and rejoining the route there pulled it back
        // from its goal every time it stepped toward it.
        let needs_route = || {
            dist > LANE_STRAIGHT_CELLS * cell
                || !segment_is_clear(p / cell, goal / cell, |x, y| {
                    self.nav.is_wall(a.move_type[i], x, y)
                })
        };
        let dir = if dist > cell && needs_route() {
            self.rejoin_direction(i).unwrap_or(dir)
        } else {
            dir
        };
        // Slowing down is the body's business, not the map's: within two radii (at least a
        // metre) of the goal. A cell-sized radius left an infantryman on 83 m cells creeping
        // at a hundredth of its speed for the last 30 m.
        let slow_radius = (2.0 * me.radius_m).max(SLOW_RADIUS_MIN_M);
        let speed = a.max_speed[i] * (dist / slow_radius).min(1.0);
        (dir * speed, dir, lane_state)
    }

    /// Corner clearance (The Maestros): `dir` turned away from the wall corners within
    /// twice the agent's wall disc of it that lie on the inside of its route's turn (the
    /// flow a cell ahead turns toward them), so it keeps off the corners its route turns
    /// round. A corner is a cell corner with a wall in exactly one of its four cells (a
    /// door post, the end of a wall); each pushes the agent away from it, more the nearer
    /// it is, but never back against its direction — the agent is steered round the
    /// corner, not stopped before it.
    pub(super) fn clear_corners(&self, i: usize, dir: Vec2) -> Vec2 {
        if dir == Vec2::ZERO {
            return dir;
        }
        let a = self.agents;
        let t = a.move_type[i];
        let cell = self.nav_grid.cell_size_m;
        let wall_r = self.wall_radius(i);
        let reach = 2.0 * wall_r;
        let p = a.pos_world[i] / cell;
        let reach_c = reach / cell;
        let (x0, x1) = (
            (p.x - reach_c).ceil() as i32,
            (p.x + reach_c).floor() as i32,
        );
        let (y0, y1) = (
            (p.y - reach_c).ceil() as i32,
            (p.y + reach_c).floor() as i32,
        );
        // Up to 7 × 7 corners: a tank's 1.2 m disc reaches 2.4 cells of 1 m.
        if x1 < x0 || y1 < y0 || x1 - x0 > 6 || y1 - y0 > 6 {
            return dir;
        }
        // Walls of the cells round those corners: cell (x0 − 1 + u, y0 − 1 + v).
        let mut walls = [[false; 8]; 8];
        let mut any = false;
        for (v, row) in walls.iter_mut().enumerate().take((y1 - y0 + 2) as usize) {
            for (u, w) in row.iter_mut().enumerate().take((x1 - x0 + 2) as usize) {
                *w = self.nav.is_wall(t, x0 - 1 + u as i32, y0 - 1 + v as i32);
                any |= *w;
            }
        }
        if !any {
            return dir;
        }
        // Only corners on the inside of a turn of the route: the flow a cell ahead turns
        // toward them (a straight way through a door keeps the door's whole width).
        let ahead = a.path[i]
            .and_then(|path| self.nav.sample_flow(path, a.pos_world[i] + dir * cell))
            .map_or(dir, |s| s.direction);
        let turn = dir.perp().dot(ahead);
        if turn.abs() < 0.2 {
            return dir;
        }
        let mut turned = dir;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (u, v) = ((x - x0) as usize, (y - y0) as usize);
                let count = [
                    walls[v][u],
                    walls[v][u + 1],
                    walls[v + 1][u],
                    walls[v + 1][u + 1],
                ]
                .iter()
                .filter(|&&w| w)
                .count();
                if count != 1 {
                    continue;
                }
                let away = (p - Vec2::new(x as f32, y as f32)) * cell;
                let d = away.length();
                if d >= reach || d < 1e-6 {
                    continue;
                }
                let n = away / d;
                if n.dot(dir.perp()) * turn > 0.0 {
                    // On the outside of the turn.
                    continue;
                }
                let strength = ((reach - d) / (reach - wall_r).max(1e-6)).min(1.0);
                // Never back against the direction: round the corner, not to a halt.
                let n = n - dir * n.dot(dir).min(0.0);
                turned += n * strength;
            }
        }
        turned.normalize_or_zero()
    }

    /// The destination an agent of `order` bound for `goal` heads for before its lane
    /// offset: its order's, or of a goal set's destinations the one nearest its goal
    /// (lanes lie within a standard deviation of the group's size round theirs). `None`
    /// without an order.
    pub(super) fn destination(&self, order: u32, goal: Vec2) -> Option<Vec2> {
        let order = order as usize;
        let first = *self.order_destinations.get(order)?;
        Some(
            self.order_more_goals
                .get(order)
                .into_iter()
                .flatten()
                .copied()
                .fold(first, |best, d| {
                    if (d - goal).length_squared() < (best - goal).length_squared() {
                        d
                    } else {
                        best
                    }
                }),
        )
    }

    /// SmartCenter lanes kept on the way (seed §003): the flow agent `i` on a lane
    /// `lane_offset` from its destination follows. That is the flow at its place in the
    /// group's centre, `p − lane_offset` ([`LaneMode::Lane`]), so the group marches
    /// abreast instead of each member following the flow at its own place, which funnels
    /// it (the route's sectors lead the group's flanks toward the portals the route
    /// takes). Where that place sees the destination, the agent sees its lane: the sample
    /// then has line of sight.
    ///
    /// Decided every [`LANE_CHECK_STEPS`] steps, and only across open ground: no wall
    /// within [`LANE_OPEN_CELLS`], the line along the lane's flow clear of walls for
    /// [`LANE_TRACK_CELLS`], and the centre place in sight (at most
    /// [`LANE_SIGHT_CELLS`] away). Where the two flows part by more than
    /// [`LANE_SAME_COS`], the lane's is followed only where the centre place is on the
    /// route, and then, where the agent's own place is on it too, while the own flow does
    /// not lead back against it; off the route (a group abreast crosses sectors the route
    /// does not, whose flow only leads back to it), while the lane's flow leads toward
    /// the destination. Otherwise the agent is rounding an obstacle its own flow leads round ([`LaneMode::Rounding`])
    /// and keeps to its own flow until the two agree within [`LANE_REJOIN_COS`] again: a
    /// pocket the own flow leads back out of would otherwise turn it about at the edge
    /// of the lane's clear line for good. The own flow also where the centre place is a
    /// wall or has no flow.
    fn lane_sample(
        &self,
        i: usize,
        p: Vec2,
        path: crate::navigator::PathId,
        lane_offset: Vec2,
    ) -> (Option<FlowSample>, LaneState) {
        let a = self.agents;
        let mode = a.lane.get(i).copied().unwrap_or_default();
        let own = |mode| (self.nav.sample_flow(path, p), LaneState { mode });
        let centre = p - lane_offset;
        let (cx, cy) = self.nav_grid.cell_from_world(centre);
        let t = a.move_type[i];
        let lane = || {
            if self.nav.is_wall(t, cx, cy) {
                None
            } else {
                self.nav.sample_flow(path, centre)
            }
        };
        let turn = self.step_index + i as u64;
        if !turn.is_multiple_of(LANE_CHECK_STEPS) {
            return match mode {
                // The centre place was no wall at the decision, a tenth of a metre ago.
                LaneMode::Lane => match self.nav.sample_flow(path, centre) {
                    Some(s) => (Some(s), LaneState { mode }),
                    None => own(LaneMode::Own),
                },
                _ => own(mode),
            };
        }
        let Some(own_sample) = self.nav.sample_flow(path, p) else {
            return (None, LaneState::default());
        };
        // Lanes are kept across open ground: beside a wall the terrain shapes the group,
        // and the own flow leads along it (a lane held the top row of a corridor on its
        // line into a crevice between pillars, where ORCA agents jammed for good).
        if self.wall_within(t, p, LANE_OPEN_CELLS) {
            return (Some(own_sample), LaneState::default());
        }
        let keep = |mode| (Some(own_sample), LaneState { mode });
        let Some(s) = lane() else {
            return keep(LaneMode::Own);
        };
        let lane = FlowSample {
            direction: s.direction,
            line_of_sight: s.line_of_sight || own_sample.line_of_sight,
        };
        let follow = (
            Some(lane),
            LaneState {
                mode: LaneMode::Lane,
            },
        );
        // A wall ahead on the lane's line (beside the door the group makes for): the own
        // flow leads the agent to the way through in time, where a line abreast pressed
        // the wall beside the door until it stood.
        let cell = self.nav_grid.cell_size_m;
        let wall = |x, y| self.nav.is_wall(t, x, y);
        let ahead = (p + s.direction * (LANE_TRACK_CELLS * cell)) / cell;
        if !segment_is_clear(p / cell, ahead, wall) {
            return keep(LaneMode::Rounding);
        }
        // The lane's flow leads the agent as its group's centre walks only where the agent
        // stands in the same open ground as that place: in sight of it and near enough to
        // look (a pocket beside a pillar, off the centre's way, took ORCA agents in for
        // good; just through a door, the place behind the wall leads back to the door).
        if !segment_is_clear(p / cell, centre / cell, wall) {
            return keep(LaneMode::Own);
        }
        let agree = s.direction.dot(own_sample.direction);
        if agree >= LANE_SAME_COS {
            return follow;
        }
        let rounding = if mode == LaneMode::Rounding {
            LaneMode::Rounding
        } else {
            LaneMode::Own
        };
        // The flows part. Where the route does not reach, a flow only leads back to it
        // (a group abreast crosses sectors the route does not): there the lane's leads,
        // as long as it leads on toward the destination (at a link's entry, where the
        // route's flow ends, the centre place's may lead aside).
        if !self.nav.covers(path, centre) {
            return keep(rounding);
        }
        if !self.nav.covers(path, p) {
            let forward = s.direction.dot(a.goal_world[i] - lane_offset - p) > 0.0;
            return if forward { follow } else { keep(rounding) };
        }
        if agree < 0.0 || mode == LaneMode::Rounding && agree < LANE_REJOIN_COS {
            return keep(LaneMode::Rounding);
        }
        follow
    }

    /// Whether agent `i`'s body walks the straight line to `goal` clear of walls of type
    /// `t`: the lines of its centre and of both its sides (its wall radius across the
    /// way). A line through a door that the centre clears can still take the body into
    /// the door's jamb, where the agents behind press it for good.
    fn body_line_is_clear(&self, i: usize, t: MoveType, goal: Vec2) -> bool {
        let p = self.agents.pos_world[i];
        let cell = self.nav_grid.cell_size_m;
        let side = (goal - p).perp().normalize_or_zero() * self.wall_radius(i);
        let wall = |x, y| self.nav.is_wall(t, x, y);
        [Vec2::ZERO, side, side * -1.0]
            .iter()
            .all(|&o| segment_is_clear((p + o) / cell, (goal + o) / cell, wall))
    }

    /// Whether a wall cell of movement type `t` lies within `cells` cells (a square) of the
    /// cell of `pos_world`.
    pub(super) fn wall_within(&self, t: MoveType, pos_world: Vec2, cells: i32) -> bool {
        let (cx, cy) = self.nav_grid.cell_from_world(pos_world);
        self.nav
            .any_wall_in(t, cx - cells, cy - cells, cx + cells, cy + cells)
    }

    /// Whether an agent at `p` bound for `goal`, a lane of its order's `destination`
    /// (SmartCenter), stands among the lanes already: no farther from the destination than
    /// its lane is, plus [`LANE_STRAIGHT_CELLS`]. (The flow leads to the destination, and
    /// on the far side of it turns the agent back from its lane.)
    fn among_lanes(&self, p: Vec2, goal: Vec2, destination: Vec2) -> bool {
        let lane_offset = (goal - destination).length();
        let reach = lane_offset + LANE_STRAIGHT_CELLS * self.nav_grid.cell_size_m;
        lane_offset > 0.0 && (p - destination).length_squared() <= reach * reach
    }

    /// Stuck recovery: re-plan the next step from where the agent stands — toward the
    /// centre of the cell its own cell's flow leads to (or, if a wall takes that diagonal
    /// cell, the free one of its two sides) instead of along the interpolated flow, which
    /// beside a wall corner points into the corner.
    pub(super) fn recovery_direction(
        &self,
        i: usize,
        path: crate::navigator::PathId,
    ) -> Option<Vec2> {
        let a = self.agents;
        let p = a.pos_world[i];
        let t = a.move_type[i];
        let g = self.nav_grid;
        let (cx, cy) = g.cell_from_world(p);
        let centre = g.world_from_cell(cx, cy);
        let d = self.nav.sample_flow(path, centre)?.direction;
        let (sx, sy) = (d.x.round() as i32, d.y.round() as i32);
        if (sx, sy) == (0, 0) {
            return None;
        }
        let next = [(cx + sx, cy + sy), (cx + sx, cy), (cx, cy + sy)]
            .into_iter()
            .find(|&(x, y)| (x, y) != (cx, cy) && !self.nav.is_wall(t, x, y))?;
        let to = g.world_from_cell(next.0, next.1) - p;
        let dir = to.normalize_or_zero();
        (dir != Vec2::ZERO).then_some(dir)
    }

    /// A stalled agent pressed against a wall that its way (`dir`) leads straight into
    /// (the flow is planned for the centre line of a cell, and a wide disc on it meets the
    /// wall beside a gap before the gap): the way along the wall to the nearer place where
    /// its disc can step on along `dir`, each side searched in quarter cells out to the
    /// agent's diameter plus [`ROUND_WALL_CELLS`] while the disc fits; `None` when
    /// neither side opens. Sliding cannot find it: a push straight into a wall has no
    /// component along it.
    pub(super) fn round_the_wall(&self, i: usize, dir: Vec2, normal: Vec2) -> Option<Vec2> {
        let a = self.agents;
        let t = a.move_type[i];
        let cell = self.nav_grid.cell_size_m;
        let r = self.wall_radius(i);
        let p = a.pos_world[i];
        let wall = |x, y| self.nav.is_wall(t, x, y);
        let step = 0.25 * cell;
        let steps = ((2.0 * r + ROUND_WALL_CELLS * cell) / step).ceil() as i32;
        let sides = [normal.perp(), -normal.perp()];
        let mut open = [true, true];
        let mut found: [Option<f32>; 2] = [None, None];
        for k in 1..=steps {
            for (side, &tangent) in sides.iter().enumerate() {
                if !open[side] || found[side].is_some() {
                    continue;
                }
                let q = p + tangent * (k as f32 * step);
                // Touching the wall it slides along is fine; entering it is not.
                if !disc_is_clear(q, 0.95 * r, cell, wall) {
                    open[side] = false;
                } else if disc_is_clear(q + dir * (0.5 * cell), r, cell, wall) {
                    // The way there, longer the more it turns back from `dir`: at a
                    // wall's corner the normal is the corner's, not the face's, and
                    // backing off the corner opens a step on sooner than going round it.
                    found[side] = Some(k as f32 * (1.0 - tangent.dot(dir)).max(0.05));
                }
            }
            if (0..2).all(|side| !open[side] || found[side].is_some()) {
                break;
            }
        }
        match found {
            [Some(a), Some(b)] => Some(if a <= b { sides[0] } else { sides[1] }),
            [Some(_), None] => Some(sides[0]),
            [None, Some(_)] => Some(sides[1]),
            [None, None] => None,
        }
    }

    /// Rejoining the route: for an agent whose path was
    /// planned for another movement type and whose cell is a wall for that type, the
    /// route's flow at the nearest cell both types may use (ties by scan order), searched
    /// out to the path type's wall buffer plus two cells, where its own type can step that
    /// way; else the direction to that cell's centre. `None` when the agent stands where
    /// its path's flow is defined, or nothing is found.
    ///
    /// Alongside the route, not onto it: where a gap leaves the route's type a one-cell
    /// corridor, every smaller agent of a mixed selection heading for the corridor's
    /// cells filed through in one line and stood in the way of the large ones, while the
    /// rest of the gap stood empty.
    pub(super) fn rejoin_direction(&self, i: usize) -> Option<Vec2> {
        let a = self.agents;
        let own = a.move_type[i];
        let route = a.path_type.get(i).copied().unwrap_or(own);
        if route == own {
            return None;
        }
        let g = self.nav_grid;
        let p = a.pos_world[i];
        let (cx, cy) = g.cell_from_world(p);
        if !self.nav.is_wall(route, cx, cy) {
            return None;
        }
        let reach = ((self.nav.wall_buffer_m(route) / g.cell_size_m).ceil() as i32 + 2).min(8);
        let mut best: Option<(f32, Vec2)> = None;
        for k in 1..=reach {
            // A cell of ring k is at least (k − 0.5) cells away.
            let ring_min = (k as f32 - 0.5) * g.cell_size_m;
            if best.is_some_and(|(d_sq, _)| d_sq <= ring_min * ring_min) {
                break;
            }
            for y in cy - k..=cy + k {
                for x in cx - k..=cx + k {
                    if ((x - cx).abs() != k && (y - cy).abs() != k)
                        || self.nav.is_wall(route, x, y)
                        || self.nav.is_wall(own, x, y)
                    {
                        continue;
                    }
                    let c = g.world_from_cell(x, y);
                    let d_sq = (c - p).length_squared();
                    if best.is_none_or(|(b, _)| d_sq < b) {
                        best = Some((d_sq, c));
                    }
                }
            }
        }
        let target = best?.1;
        let alongside = a.path[i]
            .and_then(|path| self.nav.sample_flow(path, target))
            .map(|s| s.direction)
            .filter(|&d| {
                let ahead = p + d * g.cell_size_m;
                d != Vec2::ZERO
                    && segment_is_clear(p / g.cell_size_m, ahead / g.cell_size_m, |x, y| {
                        self.nav.is_wall(own, x, y)
                    })
            });
        let dir = alongside.unwrap_or_else(|| (target - p).normalize_or_zero());
        (dir != Vec2::ZERO).then_some(dir)
    }
}
