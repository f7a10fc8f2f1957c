//! Agents on nav links. The flow of a path ends at a link's entry ([`Navigator::link_at`]);
//! there the crowd carries the agent across by the link's kind, holding its position each
//! step (steering does not move an agent on a link):
//! - **walk** (a bridge, ramp, ladder): the link has as many lanes as agents fit side by
//!   side in its width (a body and 0.1 m each); an agent enters a lane once the one ahead
//!   in it is a body's length in (so a lane carries `speed / spacing` agents a second) and
//!   walks straight to its lane's point on the exit at its top speed; agents that find
//!   every lane taken queue at the entrance;
//! - **drop**: as walk, at twice the speed (a fall);
//! - **ride** (a ferry): agents wait at the entry, and so do agents bound for the ride
//!   that stand within its boarding area (a disc around where the first waiting agent
//!   stood, big enough for `capacity` bodies), so a full load waits even when the entry
//!   block holds fewer; every `period_s` seconds (at multiples of it from the simulation's
//!   start) up to `capacity` of them board, in the order they came, and reach the exit
//!   half a period later;
//! - **teleport**: the agent waits out `time_s` at its point on the exit.
//!
//! Arriving, the agent follows its path's flow again from the exit.

use std::collections::BTreeMap;

use navstudio_nav::links::LinkKind;

use super::Simulation;
use crate::agents::AgentState;
use crate::metrics::LinkFlow;
use crate::navigator::{LinkCrossing, Navigator};
use crate::vec2::Vec2;

/// Clearance between agents side by side on a link. `[Units: m]`
const LANE_GAP_M: f32 = 0.1;

/// One agent's crossing: its wait for a ride, or its way across.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    link: u32,
    from: Vec2,
    to: Vec2,
    /// Simulation seconds the crossing starts and ends (equal to `f64::INFINITY` while
    /// waiting for a ride).
    start: f64,
    end: f64,
}

/// The crowd's traffic on links.
#[derive(Debug, Default)]
pub(super) struct LinkTraffic {
    /// Per agent index, its crossing in progress (or its wait for a ride).
    crossing: BTreeMap<u32, Crossing>,
    /// Per link and direction (the exit cell), when each lane takes its next agent.
    lanes: BTreeMap<(u32, i32, i32), Vec<f64>>,
    /// Per ride and direction, the agents waiting in the order they came, and the crossing
    /// each boards with.
    waiting: BTreeMap<(u32, i32, i32), (LinkCrossing, Vec<u32>)>,
    /// Per ride and direction, the centre of its boarding area: where the first agent that
    /// waited for it stood on the entry.
    docks: BTreeMap<(u32, i32, i32), Vec2>,
    /// Per link, its traffic: agents carried across, on it and waiting.
    flows: BTreeMap<u32, LinkFlow>,
    /// Per link and direction, the lane the next teleported or ferried agent arrives in.
    next_lane: BTreeMap<(u32, i32, i32), u32>,
}

/// Agents side by side on a link `width_m` wide, of bodies `radius_m`, and their spacing.
fn lanes(width_m: f32, radius_m: f32) -> (u32, f32) {
    let spacing = 2.0 * radius_m + LANE_GAP_M;
    (((width_m / spacing).floor() as u32).max(1), spacing)
}

/// Lane `k` of `count`'s arrival point on the exit: across the link's direction from the
/// exit cell's centre, kept inside the exit's block by a body's radius.
fn lane_point(c: &LinkCrossing, from: Vec2, k: u32, count: u32, spacing: f32, r: f32) -> Vec2 {
    let d = (c.exit_world - from).normalize_or_zero();
    let d = if d == Vec2::ZERO {
        Vec2::new(1.0, 0.0)
    } else {
        d
    };
    let across = Vec2::new(-d.y, d.x);
    let off = (k as f32 - (count - 1) as f32 / 2.0) * spacing;
    let p = c.exit_world + across * off;
    let clamp = |v: f32, lo: f32, hi: f32| {
        if lo + r <= hi - r {
            v.clamp(lo + r, hi - r)
        } else {
            (lo + hi) / 2.0
        }
    };
    Vec2::new(
        clamp(p.x, c.exit_min.x, c.exit_max.x),
        clamp(p.y, c.exit_min.y, c.exit_max.y),
    )
}

impl Simulation {
    /// Agents carried across each link so far, by link id.
    #[must_use]
    pub fn link_crossings(&self) -> BTreeMap<u32, u64> {
        self.links
            .flows
            .iter()
            .map(|(&id, f)| (id, f.crossed.total()))
            .collect()
    }

    /// Traffic on each link agents have used, by link id: agents carried across (and how
    /// many a second lately, see [`crate::Throughput::per_sec`] with [`Self::sim_secs`]),
    /// on it now and waiting at its entrance now (as of the last step).
    #[must_use]
    pub fn link_flows(&self) -> &BTreeMap<u32, LinkFlow> {
        &self.links.flows
    }

    /// Whether agent `i` is on a link (crossing or waiting for a ride).
    #[must_use]
    pub fn on_link(&self, i: usize) -> bool {
        self.links.crossing.contains_key(&(i as u32))
    }

    /// The link pass of a step, after the steering pass moved the agents: agents on links
    /// are put where their crossing has them, agents at a link's entry start crossing (or
    /// queue), rides depart. `now` is the simulation time at the end of the step.
    pub(super) fn cross_links<N: Navigator + ?Sized>(&mut self, nav: &N, now: f64) {
        let dt = f64::from(self.config.step_secs);
        let traffic = &mut self.links;
        let a = &mut self.agents;
        for f in traffic.flows.values_mut() {
            (f.on_link, f.waiting) = (0, 0);
        }
        // Rides that depart in this step board their first `capacity` waiting agents.
        for (&key, (c, queue)) in &mut traffic.waiting {
            let LinkKind::Ride { capacity, period_s } = c.kind else {
                continue;
            };
            let p = f64::from(period_s);
            if (now / p).floor() <= ((now - dt) / p).floor() || queue.is_empty() {
                continue;
            }
            let boarding: Vec<u32> = queue.drain(..queue.len().min(capacity as usize)).collect();
            for i in boarding {
                let r = a.radius_m[i as usize];
                let (count, spacing) = lanes(c.width_m, r);
                let lane = traffic.next_lane.entry(key).or_insert(0);
                let from = a.pos_world[i as usize];
                let to = lane_point(c, from, *lane % count, count, spacing, r);
                *lane = lane.wrapping_add(1);
                traffic.crossing.insert(
                    i,
                    Crossing {
                        link: c.id,
                        from,
                        to,
                        start: now,
                        end: now + p / 2.0,
                    },
                );
            }
        }
        // Agents on links: held where their crossing has them; arrived ones let go.
        let mut done = Vec::new();
        for (&i, c) in &traffic.crossing {
            let i = i as usize;
            if i >= a.len() || !a.state[i].is_travelling() {
                done.push(i as u32);
                continue;
            }
            let t = if c.end.is_finite() && c.end > c.start {
                ((now - c.start) / (c.end - c.start)).clamp(0.0, 1.0) as f32
            } else if c.end.is_finite() {
                1.0
            } else {
                0.0
            };
            a.pos_world[i] = c.from + (c.to - c.from) * t;
            a.vel[i] = if c.end.is_finite() && t < 1.0 {
                (c.to - c.from) * (1.0 / (c.end - c.start) as f32)
            } else {
                Vec2::ZERO
            };
            a.no_progress_secs[i] = 0.0;
            if a.state[i] != AgentState::Moving {
                a.state[i] = AgentState::Moving;
            }
            if t >= 1.0 && now >= c.end {
                done.push(i as u32);
                traffic.flows.entry(c.link).or_default().crossed.record(now);
            }
        }
        for i in done {
            traffic.crossing.remove(&i);
        }
        // Agents at a link's entry.
        for i in 0..a.len() {
            if !a.state[i].is_travelling() || traffic.crossing.contains_key(&(i as u32)) {
                continue;
            }
            let Some(path) = a.path[i] else {
                continue;
            };
            let Some(c) = nav.link_at(path, a.pos_world[i]) else {
                continue;
            };
            let cell = nav.grid().cell_from_world(c.exit_world);
            let key = (c.id, cell.0, cell.1);
            let (r, from) = (a.radius_m[i], a.pos_world[i]);
            let (count, spacing) = lanes(c.width_m, r);
            match c.kind {
                LinkKind::Walk | LinkKind::Drop => {
                    let speed = a.max_speed[i].max(0.1)
                        * if matches!(c.kind, LinkKind::Drop) {
                            2.0
                        } else {
                            1.0
                        };
                    let free = traffic
                        .lanes
                        .entry(key)
                        .or_insert_with(|| vec![f64::NEG_INFINITY; count as usize]);
                    if free.len() < count as usize {
                        free.resize(count as usize, f64::NEG_INFINITY);
                    }
                    // The free lane nearest the agent's side, else it queues.
                    let Some(k) = (0..free.len())
                        .filter(|&k| free[k] <= now)
                        .min_by(|&x, &y| {
                            let px = lane_point(&c, from, x as u32, count, spacing, r);
                            let py = lane_point(&c, from, y as u32, count, spacing, r);
                            (px - from).length().total_cmp(&(py - from).length())
                        })
                    else {
                        traffic.flows.entry(c.id).or_default().waiting += 1;
                        continue;
                    };
                    free[k] = now + f64::from(spacing / speed);
                    let to = lane_point(&c, from, k as u32, free.len() as u32, spacing, r);
                    let secs = f64::from((to - from).length() / speed);
                    traffic.crossing.insert(
                        i as u32,
                        Crossing {
                            link: c.id,
                            from,
                            to,
                            start: now,
                            end: now + secs,
                        },
                    );
                }
                LinkKind::Teleport { time_s } => {
                    let lane = traffic.next_lane.entry(key).or_insert(0);
                    let to = lane_point(&c, from, *lane % count, count, spacing, r);
                    *lane = lane.wrapping_add(1);
                    traffic.crossing.insert(
                        i as u32,
                        Crossing {
                            link: c.id,
                            from: to,
                            to,
                            start: now,
                            end: now + f64::from(time_s),
                        },
                    );
                    a.pos_world[i] = to;
                }
                LinkKind::Ride { .. } => {
                    traffic.docks.entry(key).or_insert(from);
                    wait_for_ride(traffic, key, c, i, from, now);
                }
            }
        }
        // Agents bound for a ride that stand in its boarding area wait there too.
        let docks: Vec<_> = traffic.docks.iter().map(|(&k, &d)| (k, d)).collect();
        for (key, dock) in docks {
            let Some((c, queue)) = traffic.waiting.get(&key) else {
                continue;
            };
            let LinkKind::Ride { capacity, .. } = c.kind else {
                continue;
            };
            let (c, waiting) = (*c, queue.len());
            if waiting >= capacity as usize {
                continue;
            }
            for i in 0..a.len() {
                let Some(path) = a.path[i] else {
                    continue;
                };
                let (count, spacing) = lanes(c.width_m, a.radius_m[i]);
                // A disc holding `capacity` bodies `spacing` apart, at least the link's width.
                let reach = (spacing * (capacity as f32 / std::f32::consts::PI).sqrt() * 2.0)
                    .max(spacing * count as f32);
                let here = a.pos_world[i];
                if !a.state[i].is_travelling()
                    || (here - dock).length() > reach
                    || traffic.crossing.contains_key(&(i as u32))
                {
                    continue;
                }
                // Bound for this ride from this end: its path takes the link at the dock.
                let bound = nav.link_at(path, dock).is_some_and(|d| {
                    d.id == c.id && nav.grid().cell_from_world(d.exit_world) == (key.1, key.2)
                });
                if bound {
                    wait_for_ride(traffic, key, c, i, here, now);
                    if traffic.waiting.get(&key).map_or(0, |q| q.1.len()) >= capacity as usize {
                        break;
                    }
                }
            }
        }
        for c in traffic.crossing.values() {
            let f = traffic.flows.entry(c.link).or_default();
            if c.end.is_finite() {
                f.on_link += 1;
            } else {
                f.waiting += 1;
            }
        }
    }
}

/// Puts agent `i`, standing at `at`, in the queue for the ride `c` (direction `key`).
fn wait_for_ride(
    traffic: &mut LinkTraffic,
    key: (u32, i32, i32),
    c: LinkCrossing,
    i: usize,
    at: Vec2,
    now: f64,
) {
    let (_, queue) = traffic.waiting.entry(key).or_insert((c, Vec::new()));
    queue.push(i as u32);
    traffic.crossing.insert(
        i as u32,
        Crossing {
            link: c.id,
            from: at,
            to: at,
            start: now,
            end: f64::INFINITY,
        },
    );
}
