//! Agent storage as structure-of-arrays: one `Vec` per attribute, indexed by [`AgentId`].
//! Hot loops touch only the arrays they need, and the parallel force pass reads them all
//! without locks.

use super::navigator::PathId;
use super::spatial::SpatialGrid;
use super::vec2::Vec2;
use navstudio_nav::MoveType;

/// Index of an agent in its [`super::Simulation`]; agents are never removed, so ids stay valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(pub u32);

/// Order id meaning "no order".
pub const NO_ORDER: u32 = u32::MAX;

/// What an agent is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentState {
    /// No order: holds position, yields to others.
    Idle,
    /// Following its order's path.
    Moving,
    /// Reached its goal, or touched an arrived agent of the same order.
    Arrived,
    /// Has an order but neither it nor the agents ahead of it made progress for
    /// `SimConfig::stuck_secs`: a jam. Keeps trying.
    Stuck,
    /// Has an order and made no progress for `SimConfig::stuck_secs`, but waits behind
    /// agents that do (or that wait behind such agents in turn): a queue that moves.
    Queued,
}

impl AgentState {
    /// Whether the agent is on its way (moving, queued or stuck), as opposed to standing
    /// (idle or arrived).
    #[must_use]
    pub fn is_travelling(self) -> bool {
        matches!(self, Self::Moving | Self::Stuck | Self::Queued)
    }

    /// Whether the agent made no progress for `SimConfig::stuck_secs` (stuck or queued):
    /// what the steering's "press on" and recovery rules act on.
    #[must_use]
    pub fn is_stalled(self) -> bool {
        matches!(self, Self::Stuck | Self::Queued)
    }
}

/// Every agent's attributes, one array each.
#[derive(Clone, Debug, Default)]
pub struct Agents {
    /// Centre. `[Units: m]`
    pub pos_world: Vec<Vec2>,
    /// Velocity. `[Units: m/s]`
    pub vel: Vec<Vec2>,
    /// Facing, a unit vector (+x at spawn); follows the velocity while moving. A vector,
    /// not an angle: the step would pay an arctangent per agent that only drawing reads.
    pub heading: Vec<Vec2>,
    /// Collision disc radius. `[Units: m]`
    pub radius_m: Vec<f32>,
    /// Mass. `[Units: kg]`
    pub mass: Vec<f32>,
    /// Largest steering force. `[Units: N]`
    pub max_force: Vec<f32>,
    /// Top speed. `[Units: m/s]`
    pub max_speed: Vec<f32>,
    /// Neighbour search radius. `[Units: m]`
    pub neighbour_radius_m: Vec<f32>,
    /// Its movement type.
    pub move_type: Vec<MoveType>,
    /// Index into the simulation's archetype list.
    pub archetype: Vec<u32>,
    /// Scenario group (spawns and orders address groups).
    pub group: Vec<u32>,
    /// Current order id, or [`NO_ORDER`].
    pub order: Vec<u32>,
    /// Where this agent is going: the order's destination plus its lane offset. `[Units: m]`
    pub goal_world: Vec<Vec2>,
    /// The path it follows.
    pub path: Vec<Option<PathId>>,
    /// The movement type that path was planned for: its own, or a more restrictive one
    /// in a mixed selection (whose walls it may stand in: it then rejoins the route).
    pub path_type: Vec<MoveType>,
    /// What it is doing.
    pub state: Vec<AgentState>,
    /// Smoothed flow direction ("blend in the new direction while crossing a square").
    pub flow_dir: Vec<Vec2>,
    /// Closest it has come to its goal since the last progress. `[Units: m]`
    pub best_goal_dist_m: Vec<f32>,
    /// Time since it last got `SimConfig::stuck_progress_m` closer. `[Units: s]`
    pub no_progress_secs: Vec<f32>,
    /// How it last decided to pass a neighbour, kept for a while (Age of Empires).
    pub resolution: Vec<Resolution>,
    /// Where it stands with the collisions its next stretch of movement is predicted to
    /// have (Age of Empires' collision states).
    pub collision: Vec<Collision>,
    /// The velocity ORCA or context steering last chose, kept until the agent's next
    /// decision (`SimConfig::decision_secs`). `[Units: m/s]`
    pub decision: Vec<Vec2>,
    /// Unit normal, away from the wall, of the wall it was pressed against last step
    /// (zero when it touched none): stuck recovery goes round it.
    pub wall_normal: Vec<Vec2>,
    /// Time it still holds back from another order's stream that has the right of way
    /// (`steering::right_of_way`): a door serves one stream at a time. `[Units: s]`
    pub yield_secs: Vec<f32>,
    /// Its deepest overlap with a neighbour at the start of the last step, as a share of
    /// the smaller radius: a standing agent pressed this deep cannot give way
    /// ([`crate::resolve::agent_priority`]).
    pub pressed: Vec<f32>,
    /// Which flow it follows on its lane (SmartCenter lanes kept on the way).
    pub lane: Vec<LaneMode>,
}

/// Which flow an agent sent to a lane of its order (SmartCenter) follows: decided every
/// few steps (`steering::following`), and kept in between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LaneMode {
    /// The flow at its own place (no lane, or its lane's flow is not to be followed).
    #[default]
    Own,
    /// The flow at its place in the group's centre (its lane offset back from where it
    /// stands), so the group marches abreast.
    Lane,
    /// Its own flow round an obstacle that the lane's flow leads into, until the two
    /// flows agree again.
    Rounding,
}

/// A remembered collision resolution (seed §001): which neighbour an agent decided to pass,
/// on which side, and for how much longer the decision holds instead of being re-decided
/// every step (re-deciding lets a pair flip sides each step and never pass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resolution {
    /// The neighbour's index, or [`NO_AGENT`].
    pub with: u32,
    /// +1: side-step to the agent's right (`forward.perp()`, y down), passing the neighbour
    /// on its left; −1: the other way.
    pub side: f32,
    /// Time the decision still holds. `[Units: s]`
    pub secs_left: f32,
}

/// Seed §001's collision states, while the simulation tracks them
/// (`Simulation::track_collision_states`). Each step the agent's next stretch of movement is
/// checked against each neighbour's (at the neighbour's velocity): the velocity its path
/// alone asks for over `SimConfig::avoidance_horizon_secs`, and the one it takes over the
/// next quarter second. A collision is an overlap deeper than a tenth of the two radii.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Collision {
    /// Its path leads into no one.
    #[default]
    Clear,
    /// Its path leads into a neighbour, and so does the velocity it takes: what it does
    /// does not avoid the collision (a press, or a neighbour it cannot get out of the way
    /// of).
    Unresolved,
    /// Its path leads into a neighbour, the velocity it takes does not: it side-steps,
    /// slows, waits behind an ally or pushes one aside.
    Resolving,
    /// It was resolving a collision lately and its path is clear now. The state lasts
    /// [`crate::steering::REMEMBER_SECS`], as long as a remembered side-step holds.
    Resolved {
        /// Time the state still lasts. `[Units: s]`
        secs_left: f32,
    },
}

/// Agent index meaning "no agent".
pub const NO_AGENT: u32 = u32::MAX;

impl Default for Resolution {
    fn default() -> Self {
        Self {
            with: NO_AGENT,
            side: 0.0,
            secs_left: 0.0,
        }
    }
}

impl Agents {
    /// Number of agents.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pos_world.len()
    }

    /// How many of the agents `among` (a range of indices) stand overlapping another agent:
    /// a spawn area too full for its count puts the rest where they overlap. Through a
    /// spatial grid: a spawn of thousands into a crowd of thousands checks neighbours, not
    /// every pair.
    #[must_use]
    pub fn pressed_count(&self, among: std::ops::Range<usize>) -> usize {
        let max_r = self.radius_m.iter().copied().fold(0.0f32, f32::max);
        let mut grid = SpatialGrid::default();
        grid.rebuild(&self.pos_world, 2.0 * max_r);
        among
            .filter(|&i| {
                let (p, r) = (self.pos_world[i], self.radius_m[i]);
                let mut pressed = false;
                grid.for_each_candidate_uncapped(p, r + max_r, |j, q| {
                    let reach = r + self.radius_m[j as usize];
                    pressed |= j as usize != i && (p - q).length_squared() < reach * reach;
                });
                pressed
            })
            .count()
    }

    /// Whether there are no agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pos_world.is_empty()
    }
}
