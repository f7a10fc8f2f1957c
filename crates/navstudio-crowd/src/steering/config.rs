//! Simulation settings: the avoidance mode, behaviour weights and the switchable
//! movement techniques.

use serde::{Deserialize, Serialize};

/// Local avoidance method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AvoidanceMode {
    /// Reynolds boids with Fieldrunners' side-step avoidance.
    #[default]
    Boids,
    /// Optimal reciprocal collision avoidance (RVO2), on the flow velocity.
    Orca,
    /// Context steering: interest and danger per direction slot, sub-slot interpolation.
    Context,
}

/// Weights of the steering behaviours (dimensionless multipliers on each force).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SteeringWeights {
    /// Flow following. `[Limit: >= 0]`
    pub flow: f32,
    /// Side-step avoidance. `[Limit: >= 0]`
    pub avoidance: f32,
    /// Separation. `[Limit: >= 0]`
    pub separation: f32,
    /// Alignment with same-order neighbours. `[Limit: >= 0]`
    pub alignment: f32,
    /// Cohesion with same-order neighbours. `[Limit: >= 0]`
    pub cohesion: f32,
}

impl Default for SteeringWeights {
    fn default() -> Self {
        Self {
            flow: 1.0,
            avoidance: 0.6,
            separation: 1.0,
            alignment: 0.1,
            cohesion: 0.05,
        }
    }
}

/// The movement techniques from the source documents, each switchable so the crowd
/// benchmark can show what it buys (`navstudio crowd-bench --off NAME`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Techniques {
    /// ORCA as one behaviour inside context steering (seed §004): each neighbour's RVO2
    /// half-plane writes danger into the direction slots (the share of speed a slot must
    /// give up to stay collision-free), instead of danger growing with mere closeness
    /// ([`crate::half_planes`]). Context mode only. Off by default: in every benchmark
    /// case it was slower than the proximity danger, and head-on crowds deadlock in it.
    pub context_orca: bool,
    /// Context steering leaves following to the contacts: a member of the agent's own
    /// order walking its way at its pace writes no danger (without this it writes half of
    /// a standing one's, so a queue slows down the closer it packs). Context mode only.
    pub context_pace: bool,
    /// Priority by progress (Age of Empires): between two travelling agents, the one
    /// nearer its goal goes first and the other waits ([`crate::resolve::progress_factor`]),
    /// instead of both giving way by half, which lets equal agents wedge side by side in a
    /// gap. Mass still decides between a tank and infantry. Off by default: crowds arrive
    /// sooner with it, but agents ahead run deeper into those that cannot give way.
    pub progress_priority: bool,
    /// Stuck recovery: an agent in the `Stuck` state that a wall pushed back last step
    /// re-plans its next step from where it stands, toward the centre of the next cell of
    /// its route, instead of pressing along the interpolated flow into a wall corner.
    /// Agents stuck in a crowd away from walls keep following the flow: re-planning
    /// toward cell centres there turned whole queues aside.
    pub stuck_recovery: bool,
    /// Remembered resolutions (Age of Empires): the side an agent chose to pass a
    /// neighbour on holds for a while instead of being re-decided every step.
    pub remember_resolutions: bool,
    /// Priority-based contact resolution (Age of Empires; The Maestros' pushing): closing
    /// speed that would overlap two agents is removed, the lighter, the stationary and the
    /// follower giving way ([`crate::resolve`]).
    pub resolve_contacts: bool,
    /// An agent whose goal is taken by a standing agent it touches counts as arrived,
    /// instead of circling the spot for ever (context steering's "pass the agent on your
    /// waypoint").
    pub pass_occupied_goal: bool,
    /// Corridors of the route fit the agent: an agent whose movement type has a wall
    /// buffer collides with that type's buffered walls as a disc of at most
    /// [`crate::walls::CORRIDOR_RADIUS_CELLS`] of a cell, not its radius less the buffer.
    /// The buffer is the bake's statement of where the type fits, and a buffered layer
    /// keeps one-cell corridors (a 3-cell gap with a 1.5-cell buffer), so its route can
    /// lead through a corridor a wider disc can never enter: the type's agents then press
    /// against its mouth for ever (the mixed-radii case's large walkers).
    pub fit_corridors: bool,
    /// Rejoining the route: an agent that follows a path planned for a more restrictive
    /// movement type (a mixed selection) and stands in a cell that is a wall for that type
    /// — its own type may stand there — heads for the nearest cell the path's type may
    /// use, where the flow is defined, instead of following the flow sampled inside a
    /// wall (which points anywhere, often into the real wall).
    pub rejoin_route: bool,
    /// Priority of the pinned (Age of Empires: who can yield): an agent pressed against
    /// a wall cannot give way toward it, so a neighbour pushing it that way takes the whole
    /// of their contact — it waits or goes round — instead of the pinned one's share by
    /// mass, which a tank's 375 infantry masses made nearly all of it (infantry crushed
    /// between a tank and the wall). Off by default: it halves the mean overlap of mixed
    /// radii (boids 35 → 16 %), but a pusher that stops for a pinned agent holds up
    /// those behind it, and the head-on boids and rooms boids overlap maxima rise to 70
    /// and 51 %.
    pub pinned_priority: bool,
    /// Context steering walks the chosen slot at the speed its danger leaves
    /// (`1 − danger`) instead of at its score (`interest − danger`), which also slowed an
    /// agent by how far its detour turns from the goal: side-stepping at 60° halved its
    /// pace with nothing in the way, so where crowds meet everyone crawled. Context mode
    /// only.
    pub context_free_speed: bool,
    /// Soft mass priority: contacts weigh agents by the fourth root of their mass
    /// ([`crate::resolve::contact_mass`]), not the mass itself. A heavy agent still leaves
    /// a light one most of a contact (a tank about 80 % to infantry), but no longer all of
    /// it: the light one can give way only as fast as its own neighbours let it, and a
    /// tank or large walker that drove on at full speed crushed infantry into the crowd
    /// beside them (the mixed-radii case's overlap). Stationary allies are still pushed
    /// aside (they weigh a twentieth).
    pub soft_mass_priority: bool,
    /// Context steering keeps right: an oncoming neighbour's danger leans to the agent's
    /// left of it, so it passes on its right, and the neighbour, doing the same, on its
    /// right — lanes form instead of a standoff where crowds meet. Context mode only.
    pub context_keep_right: bool,
    /// A third position pass after each step: Jacobi passes open a share of each overlap
    /// from the positions as they are, and where a heavy agent or a crowd presses from
    /// behind two passes leave a chain of light agents pressed into each other. Overlap
    /// means fall in every case, and meeting crowds untangle sooner.
    pub third_overlap_pass: bool,
    /// Bodies against the real walls: an agent whose movement type has a wall buffer also
    /// collides, at its full radius, with the walls of the unbuffered type its buffer was
    /// grown from ([`crate::Navigator::body_walls_type`]). Its disc against its own,
    /// buffered walls keeps it on its route, and is small (its radius less the buffer, or
    /// a corridor's width with `fit_corridors`), so without this its body reaches past
    /// the real walls wherever the buffer is thinner than the body or the disc leaves a
    /// cell's centre — into the strip along the wall where lighter units stand. Only where
    /// the buffer fits the body (within half a cell, [`crate::walls::body_walls_of`]): a
    /// thinner buffer leaves corridors the body cannot pass, and routes through them.
    pub body_walls: bool,
    /// Hard contacts: an overlap deeper than a fifth of the smaller radius is no longer
    /// shared by priority ([`crate::resolve::HARD_CONTACT_SHARE`]). The agent closing on
    /// it removes all its closing speed, and the position passes move the heavier at
    /// least as far back as the lighter. Priority lets a heavy agent drive on and leave a
    /// light one most of a contact, which the light one can give way only where its own
    /// neighbours let it: in a crowd, a large walker ran over infantry to over its radius.
    pub hard_contacts: bool,
    /// Neighbours by gap: where radii differ, the nearest neighbours an agent steers and
    /// resolves contacts by are those whose discs are nearest, not whose centres are.
    /// Infantry in a crowd has ten other infantry centres nearer than a large walker's
    /// touching it, so it never saw the walker and walked into it. A crowd of one radius
    /// is unchanged.
    pub gap_neighbours: bool,
    /// ORCA contacts (seed §004: ORCA inside the steering): boids and context steering
    /// propose a velocity, and ORCA's linear program over every neighbour at once picks
    /// the nearest one that stays clear of them for
    /// [`SimConfig::contact_horizon_secs`], each side taking avoidance by priority (the
    /// lighter and the standing more). Without it each contact's excess closing speed is
    /// removed in turn ([`crate::resolve::constrain_contacts`]), and in a packed crowd the
    /// velocity left over turns with every step's set of contacts. Needs
    /// `resolve_contacts`.
    pub orca_contacts: bool,
    /// Corner clearance (The Maestros): an agent keeps about one radius off the corners
    /// its route turns round. The flow field leads along the shortest path, which touches
    /// every corner it turns round, so without this a whole group files past a door post
    /// in one lane, brushing it. Only corners on the inside of a turn count: a straight
    /// way through a door keeps the door's whole width. Off by default: it speeds groups
    /// into a corridor (head-on context steering 1.52 → 1.21 × the bound) but narrows
    /// the doors where a route turns (rooms 1.75–1.80 → 1.92–1.95 ×).
    pub corner_clearance: bool,
    /// Who waits (Age of Empires): in context steering, an agent with a walker of its own
    /// order just ahead of it, on its way and no slower by nature, follows that walker. Its
    /// own order's walkers then only limit its speed along the heading it takes round
    /// everyone else; the contact rule no longer slides it sideways off them, which in a
    /// packed queue turned it a little every step. A stuck agent does not wait, and a
    /// slower ally ahead (a large walker before infantry) is passed. Context mode only:
    /// in boids the forces pull the agent sideways again the next step, and the queue's
    /// turning doubled.
    pub queue_wait: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Self {
            resolve_contacts: true,
            pass_occupied_goal: true,
            context_orca: false,
            context_pace: true,
            remember_resolutions: true,
            progress_priority: false,
            stuck_recovery: true,
            fit_corridors: true,
            rejoin_route: true,
            pinned_priority: false,
            context_free_speed: true,
            soft_mass_priority: true,
            context_keep_right: true,
            third_overlap_pass: true,
            body_walls: true,
            hard_contacts: true,
            gap_neighbours: true,
            orca_contacts: true,
            corner_clearance: false,
            queue_wait: true,
        }
    }
}

impl Techniques {
    /// Every technique off: the crowd as it was before they were added.
    #[must_use]
    pub fn none() -> Self {
        Self {
            resolve_contacts: false,
            pass_occupied_goal: false,
            context_orca: false,
            context_pace: false,
            remember_resolutions: false,
            progress_priority: false,
            stuck_recovery: false,
            fit_corridors: false,
            rejoin_route: false,
            pinned_priority: false,
            context_free_speed: false,
            soft_mass_priority: false,
            context_keep_right: false,
            third_overlap_pass: false,
            body_walls: false,
            hard_contacts: false,
            gap_neighbours: false,
            orca_contacts: false,
            corner_clearance: false,
            queue_wait: false,
        }
    }

    /// Names accepted by [`Self::set`].
    pub const NAMES: [&'static str; 20] = [
        "resolve_contacts",
        "pass_occupied_goal",
        "context_orca",
        "context_pace",
        "remember_resolutions",
        "progress_priority",
        "stuck_recovery",
        "fit_corridors",
        "rejoin_route",
        "pinned_priority",
        "context_free_speed",
        "soft_mass_priority",
        "context_keep_right",
        "third_overlap_pass",
        "body_walls",
        "hard_contacts",
        "gap_neighbours",
        "orca_contacts",
        "corner_clearance",
        "queue_wait",
    ];

    /// Turns one technique on or off by name; `false` for an unknown name.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        self.flag_mut(name).map(|flag| *flag = on).is_some()
    }

    /// The switch named `name` ([`Self::NAMES`]), for a settings panel.
    pub fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "resolve_contacts" => &mut self.resolve_contacts,
            "pass_occupied_goal" => &mut self.pass_occupied_goal,
            "context_orca" => &mut self.context_orca,
            "context_pace" => &mut self.context_pace,
            "remember_resolutions" => &mut self.remember_resolutions,
            "progress_priority" => &mut self.progress_priority,
            "stuck_recovery" => &mut self.stuck_recovery,
            "fit_corridors" => &mut self.fit_corridors,
            "rejoin_route" => &mut self.rejoin_route,
            "pinned_priority" => &mut self.pinned_priority,
            "context_free_speed" => &mut self.context_free_speed,
            "soft_mass_priority" => &mut self.soft_mass_priority,
            "context_keep_right" => &mut self.context_keep_right,
            "third_overlap_pass" => &mut self.third_overlap_pass,
            "body_walls" => &mut self.body_walls,
            "hard_contacts" => &mut self.hard_contacts,
            "gap_neighbours" => &mut self.gap_neighbours,
            "orca_contacts" => &mut self.orca_contacts,
            "corner_clearance" => &mut self.corner_clearance,
            "queue_wait" => &mut self.queue_wait,
            _ => return None,
        })
    }

    /// What the technique named `name` does, in one line (empty for an unknown name).
    #[must_use]
    pub fn about(name: &str) -> &'static str {
        match name {
            "resolve_contacts" => {
                "Who yields, waits or pushes when agents meet (Age of Empires, The Maestros)"
            }
            "pass_occupied_goal" => {
                "An agent whose goal is taken by one standing there arrives against it"
            }
            "context_orca" => "Context steering: neighbours' ORCA half-planes write the danger",
            "context_pace" => "Context steering: an ally walking our way at our pace is no danger",
            "remember_resolutions" => {
                "Boids keep the side they chose to pass a neighbour on for 0.25 s"
            }
            "progress_priority" => "The agent nearer its goal goes first; the other waits",
            "stuck_recovery" => "A stuck agent against a wall heads for the next cell of its route",
            "fit_corridors" => "Buffered types enter every corridor their route leads through",
            "rejoin_route" => "An agent in the walls of its selection's route heads back onto it",
            "pinned_priority" => "An agent pinned against a wall cannot be made to give way",
            "context_free_speed" => {
                "Context steering walks a detour at the speed its danger leaves"
            }
            "soft_mass_priority" => {
                "Contacts weigh mass by its fourth root: tanks no longer crush infantry"
            }
            "context_keep_right" => "Context steering passes oncoming agents on the right",
            "third_overlap_pass" => "A third pass opens overlaps behind a choke",
            "body_walls" => "Buffered types' bodies collide with the real walls",
            "hard_contacts" => "A deep overlap stops the agent closing on it, heavy or not",
            "gap_neighbours" => "Neighbours by the gap to their body, not their centre",
            "orca_contacts" => {
                "Boids and context steering: ORCA picks the nearest velocity clear of all neighbours"
            }
            "corner_clearance" => {
                "Agents keep about a radius off the corners their route turns round"
            }
            "queue_wait" => "Context steering: follow an ally walking just ahead, not slide off it",
            _ => "",
        }
    }
}

/// Simulation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Fixed step length. `[Units: s] [Limit: > 0]`
    pub step_secs: f32,
    /// Most steps one `advance` call takes; extra time is dropped so a slow frame cannot
    /// snowball. `[Limit: >= 1]`
    pub max_steps_per_advance: u32,
    /// Local avoidance method.
    pub avoidance: AvoidanceMode,
    /// Behaviour weights.
    pub weights: SteeringWeights,
    /// Time to reach the desired velocity if force allowed it. `[Units: s] [Limit: > 0]`
    pub reaction_secs: f32,
    /// Nearest neighbours considered. `[Limit: 1..=16]`
    pub max_neighbours: usize,
    /// Side-step avoidance looks this far ahead. `[Units: s] [Limit: > 0]`
    pub avoidance_horizon_secs: f32,
    /// Extra gap separation keeps between discs; also the "touching" slack for group
    /// arrival. `[Units: m] [Limit: >= 0]`
    pub separation_margin_m: f32,
    /// Share of an overlap between two discs removed per step by pushing. `[Limit: 0..=1]`
    pub contact_relaxation: f32,
    /// An agent that gets no `stuck_progress_m` closer to its goal in this time is stuck.
    /// `[Units: s] [Limit: > 0]`
    pub stuck_secs: f32,
    /// Progress that resets the stuck timer. `[Units: m] [Limit: > 0]`
    pub stuck_progress_m: f32,
    /// Direction slots for context steering. `[Limit: 4..=256]`
    pub context_slots: usize,
    /// ORCA looks this far ahead for other agents. `[Units: s] [Limit: > 0]`
    pub orca_time_horizon_secs: f32,
    /// With `orca_contacts`, boids and context steering keep clear of neighbours for this
    /// long (shorter than ORCA mode's horizon: steering already avoids farther ahead).
    /// `[Units: s] [Limit: > 0]`
    pub contact_horizon_secs: f32,
    /// How often ORCA and context steering decide (seed §004: e.g. 0.1 s, 10 Hz decisions
    /// with 60 Hz movement): between its decisions an agent keeps the velocity it chose,
    /// while following, contacts and walls run every step. 0 (or one step or less):
    /// every step. Boids' forces are summed every step. `[Units: s] [Limit: >= 0]`
    pub decision_secs: f32,
    /// Movement techniques, each switchable.
    pub techniques: Techniques,
}

impl SimConfig {
    /// Steps per decision ([`Self::decision_secs`]), at least 1.
    #[must_use]
    pub fn decision_steps(&self) -> u64 {
        let steps = self.decision_secs / self.step_secs.max(1e-6);
        if steps.is_finite() && steps > 1.0 {
            (steps.round() as u64).min(600)
        } else {
            1
        }
    }

    /// Whether separation and the contact push are the only behaviours that read
    /// neighbours: boids with avoidance, alignment and cohesion weighted 0 (ORCA and
    /// context steering look at every neighbour in the neighbour radius).
    #[must_use]
    pub fn uses_separation_only(&self) -> bool {
        let w = self.weights;
        self.avoidance == AvoidanceMode::Boids
            && w.avoidance == 0.0
            && w.alignment == 0.0
            && w.cohesion == 0.0
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            step_secs: 1.0 / 60.0,
            max_steps_per_advance: 8,
            avoidance: AvoidanceMode::Boids,
            weights: SteeringWeights::default(),
            reaction_secs: 0.25,
            max_neighbours: 10,
            avoidance_horizon_secs: 1.5,
            separation_margin_m: 0.1,
            contact_relaxation: 0.5,
            stuck_secs: 3.0,
            stuck_progress_m: 0.5,
            context_slots: 12,
            orca_time_horizon_secs: 2.0,
            contact_horizon_secs: 1.0,
            decision_secs: 0.0,
            techniques: Techniques::default(),
        }
    }
}
