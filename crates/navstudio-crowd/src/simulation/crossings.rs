//! Crossings planned when orders are given (seed §001: planning, a resolution remembered).
//! Where three or more groups walk at one point at the same time — RVO2's circle, eight
//! groups to their antipodes, four corner groups between blocks — they meet in one blob
//! that no local rule unpicks: right of way ranks them, and all but the first stand in
//! the blob giving way. Traffic solves it with a roundabout. So does the crowd: the point
//! becomes a disc that every group passes keeping it on its left, shifted as a whole to
//! its right, so the paths cross spread round the disc in one turning sense (neighbouring
//! groups nearly side by side) instead of all at one point. Decided once, when the orders
//! are given, and held until their agents have passed it (the steering side is
//! `steering/crossing.rs`).

use navstudio_nav::MoveType;

use crate::navigator::Navigator;
use crate::steering::CrossingPass;
use crate::vec2::Vec2;
use crate::walls::segment_is_clear;

use super::Simulation;

/// Paths of two groups cross when their directions part by more than this (cosine, 30°):
/// groups walking side by side do not meet.
const CROSSING_COS: f32 = 0.866;
/// Groups cross at one point at the same time when they pass it within this many seconds
/// of each other, beyond the time each takes to pass. `[Units: s]`
const SAME_TIME_SECS: f32 = 2.0;
/// The disc's circumference is this share of the summed widths of the groups that cross
/// it: they pass round it side by side, and in turn where one comes after another. Over
/// the random antipodes of seeds 1 and 3 (`crowd-bench --random 300 --seed S --case
/// antipodes`, 180 runs), a quarter misses 2 × the bound in 5 runs, a half in 3 but takes
/// the built-in circle (100 agents, each its own order) to 2.31 × in boids, the whole
/// misses 7; with no disc (the groups' flanks meeting at the point) context steering
/// alone misses 7 of 30.
const DISC_SHARE: f32 = 0.25;
/// A crossing is planned where at least this many groups meet: two groups are right of
/// way's, which lets one through and then the other.
const MIN_GROUPS: usize = 3;

/// One order's group as the plan sees it.
struct Group {
    order: u32,
    centre_world: Vec2,
    destination_world: Vec2,
    /// From the centre toward the destination (unit).
    way: Vec2,
    /// Half the group's width across its way. `[Units: m]`
    half_width_m: f32,
    speed_mps: f32,
    move_type: MoveType,
}

impl Simulation {
    /// Plans crossings for the orders given since the last plan. Orders already in a
    /// crossing keep it.
    pub(super) fn plan_crossings<N: Navigator + ?Sized>(&mut self, nav: &N) {
        let orders = self.orders.len();
        if orders == self.crossings_planned_for {
            return;
        }
        self.crossings_planned_for = orders;
        self.order_crossing.resize(orders, None);
        let groups = self.travelling_groups();
        let cell = nav.grid().cell_size_m;
        // Every pair of groups whose straight ways cross at about the same time, where
        // both see the point.
        let mut points: Vec<(Vec2, u32, u32)> = Vec::new();
        for (k, a) in groups.iter().enumerate() {
            for b in &groups[k + 1..] {
                if self.order_crossing[a.order as usize].is_some()
                    && self.order_crossing[b.order as usize].is_some()
                {
                    continue;
                }
                let Some(x) = meeting_point(a, b) else {
                    continue;
                };
                let seen = |g: &Group| {
                    segment_is_clear(g.centre_world / cell, x / cell, |cx, cy| {
                        nav.is_wall(g.move_type, cx, cy)
                    })
                };
                if seen(a) && seen(b) {
                    points.push((x, a.order, b.order));
                }
            }
        }
        // Points of one crossing lie within the groups' widths of each other.
        let mut of_order = vec![usize::MAX; orders];
        for (k, g) in groups.iter().enumerate() {
            of_order[g.order as usize] = k;
        }
        let group = |order: u32| groups.get(of_order[order as usize]);
        let half_width = |order: u32| group(order).map_or(0.0, |g| g.half_width_m);
        let mut used = vec![false; points.len()];
        for s in 0..points.len() {
            if used[s] {
                continue;
            }
            let (seed, ..) = points[s];
            let mut members: Vec<u32> = Vec::new();
            let mut sum = Vec2::ZERO;
            let mut count = 0.0;
            for (t, &(x, oa, ob)) in points.iter().enumerate().skip(s) {
                let reach = half_width(oa) + half_width(ob);
                if !used[t] && (x - seed).length() <= reach {
                    used[t] = true;
                    sum += x;
                    count += 1.0;
                    members.extend([oa, ob]);
                }
            }
            members.sort_unstable();
            members.dedup();
            if members.len() < MIN_GROUPS {
                continue;
            }
            let centre_world = sum / count;
            let width: f32 = members.iter().map(|&o| 2.0 * half_width(o)).sum();
            let radius_m = DISC_SHARE * width / std::f32::consts::TAU;
            for &o in &members {
                let pass = &mut self.order_crossing[o as usize];
                if let (None, Some(g)) = (&pass, group(o)) {
                    *pass = Some(CrossingPass {
                        way: g.way,
                        centre_world,
                        radius_m,
                        half_width_m: half_width(o),
                    });
                }
            }
        }
    }

    /// Each travelling order's group: the centre and width of its agents still on the
    /// way, its destination, and its slowest agent's speed.
    fn travelling_groups(&self) -> Vec<Group> {
        let a = &self.agents;
        let mut groups: Vec<Group> = Vec::new();
        // Per order, its index in `groups` once it has a travelling agent.
        let mut index = vec![u32::MAX; self.orders.len()];
        let mut counts: Vec<f32> = Vec::new();
        for i in 0..a.len() {
            let o = a.order[i] as usize;
            if !a.state[i].is_travelling() || o >= index.len() {
                continue;
            }
            if index[o] == u32::MAX {
                index[o] = groups.len() as u32;
                groups.push(Group {
                    order: o as u32,
                    centre_world: Vec2::ZERO,
                    destination_world: self.order_destinations[o],
                    way: Vec2::ZERO,
                    half_width_m: 0.0,
                    speed_mps: f32::INFINITY,
                    move_type: a.move_type[i],
                });
                counts.push(0.0);
            }
            let k = index[o] as usize;
            let g = &mut groups[k];
            g.centre_world += a.pos_world[i];
            g.speed_mps = g.speed_mps.min(a.max_speed[i]);
            counts[k] += 1.0;
        }
        for (g, n) in groups.iter_mut().zip(&counts) {
            g.centre_world = g.centre_world / *n;
            g.way = (g.destination_world - g.centre_world).normalize_or_zero();
        }
        // Half widths: the farthest agent across the way, plus its radius.
        for i in 0..a.len() {
            let o = a.order[i] as usize;
            if !a.state[i].is_travelling() || o >= index.len() {
                continue;
            }
            let g = &mut groups[index[o] as usize];
            let across = (a.pos_world[i] - g.centre_world).dot(g.way.perp()).abs();
            g.half_width_m = g.half_width_m.max(across + a.radius_m[i]);
        }
        groups.retain(|g| g.way != Vec2::ZERO && g.speed_mps > 0.0);
        groups
    }
}

/// Where groups `a` and `b` walk across each other's way at about the same time, if they
/// do.
fn meeting_point(a: &Group, b: &Group) -> Option<Vec2> {
    let (da, db) = (
        a.destination_world - a.centre_world,
        b.destination_world - b.centre_world,
    );
    let (la, lb) = (da.length(), db.length());
    let (ua, ub) = (da / la, db / lb);
    if ua.dot(ub) > CROSSING_COS {
        return None;
    }
    let denom = ua.cross(ub);
    let x = if denom.abs() < 1e-3 {
        // Head on along one line: they meet where their fronts would.
        let gap = b.centre_world - a.centre_world;
        if gap.dot(ua) <= 0.0 || gap.dot(ua.perp()).abs() > a.half_width_m + b.half_width_m {
            return None;
        }
        let t = gap.length() * a.speed_mps / (a.speed_mps + b.speed_mps);
        a.centre_world + ua * t
    } else {
        let gap = b.centre_world - a.centre_world;
        let ta = gap.cross(ub) / denom;
        a.centre_world + ua * ta
    };
    let (ta, tb) = ((x - a.centre_world).dot(ua), (x - b.centre_world).dot(ub));
    // Ways that meet within a group's width of its destination converge on its goal
    // area, which is group arrival's (groups sent to one rally point).
    if ta <= 0.0 || tb <= 0.0 || ta >= la - 2.0 * a.half_width_m || tb >= lb - 2.0 * b.half_width_m
    {
        return None;
    }
    let (sa, sb) = (ta / a.speed_mps, tb / b.speed_mps);
    let passing = (a.half_width_m / a.speed_mps).max(b.half_width_m / b.speed_mps);
    ((sa - sb).abs() <= passing + SAME_TIME_SECS).then_some(x)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::testing::GridNavigator;
    use crate::vec2::Vec2;
    use crate::{SimConfig, Simulation, default_archetypes};
    use navstudio_nav::grid::WALL;

    const SIZE: u32 = 160;
    const CENTRE: Vec2 = Vec2::new(80.0, 80.0);

    /// An open square map, with a wall across the middle row when `wall`.
    fn map(wall: bool) -> GridNavigator {
        let mut costs = vec![1u8; (SIZE * SIZE) as usize];
        if wall {
            for x in 60..100 {
                costs[(80 * SIZE + x) as usize] = WALL;
            }
        }
        let mut nav = GridNavigator::new(1.0, SIZE, SIZE);
        nav.add_type("land", costs).unwrap();
        nav
    }

    /// Groups of nine infantry at `radius_m` from the centre at each of `angles`, each
    /// ordered to the point opposite it, and one step taken.
    fn ordered(nav: &mut GridNavigator, groups: &[(f32, f32)]) -> Simulation {
        ordered_to(nav, groups, 30.0)
    }

    /// As [`ordered`], each group ordered `beyond_m` past the centre on its way.
    fn ordered_to(nav: &mut GridNavigator, groups: &[(f32, f32)], beyond_m: f32) -> Simulation {
        let infantry = default_archetypes().into_iter().next().unwrap();
        let mut sim = Simulation::new(SimConfig::default(), 1);
        for (g, &(angle_deg, radius_m)) in groups.iter().enumerate() {
            let dir = Vec2::from_angle(angle_deg.to_radians());
            let at = CENTRE + dir * radius_m;
            for k in 0..9 {
                let p = at + Vec2::new((k % 3) as f32 - 1.0, (k / 3) as f32 - 1.0) * 1.2;
                sim.add_agent(&*nav, &infantry, p, g as u32).unwrap();
            }
        }
        for (g, &(angle_deg, _)) in groups.iter().enumerate() {
            let dir = Vec2::from_angle(angle_deg.to_radians());
            sim.order_group(nav, g as u32, CENTRE - dir * beyond_m);
        }
        sim.step(nav);
        assert_eq!(sim.agents().len(), 9 * groups.len(), "every agent placed");
        sim
    }

    /// Three groups whose ways meet at the centre at the same time pass one crossing
    /// there; its disc's circumference is a quarter of their summed widths (each about 3.2 m
    /// wide: three abreast 1.2 m apart, plus the radii).
    #[test]
    fn three_groups_meeting_at_one_point_plan_one_crossing_there() {
        let mut nav = map(false);
        let sim = ordered(&mut nav, &[(0.0, 30.0), (120.0, 30.0), (240.0, 30.0)]);
        let crossings = sim.crossings();
        assert_eq!(crossings.len(), 1, "{crossings:?}");
        let (centre, radius) = crossings[0];
        assert!((centre - CENTRE).length() < 0.5, "{centre:?}");
        let width = 3.0 * (2.0 * (1.2 + 0.4));
        let expected = 0.25 * width / std::f32::consts::TAU;
        assert!(
            (radius - expected).abs() < 0.2,
            "{radius} against {expected}"
        );
        for order in 0..3 {
            assert!(sim.order_crossing[order].is_some(), "order {order}");
        }
    }

    /// Two groups are right of way's; a third that reaches the point long after the
    /// others makes no crossing; nor do groups that do not see the point, nor groups sent
    /// round one rally point (each to a spot 2 m past it).
    #[test]
    fn two_groups_a_late_one_a_wall_or_a_rally_point_plan_none() {
        let mut nav = map(false);
        let two = ordered(&mut nav, &[(0.0, 30.0), (120.0, 30.0)]);
        assert!(two.crossings().is_empty(), "{:?}", two.crossings());
        // Infantry walk 4 m/s: 36 m farther is 9 s later.
        let mut nav = map(false);
        let late = ordered(&mut nav, &[(0.0, 30.0), (120.0, 30.0), (240.0, 66.0)]);
        assert!(late.crossings().is_empty(), "{:?}", late.crossings());
        let mut nav = map(true);
        let walled = ordered(&mut nav, &[(0.0, 30.0), (120.0, 30.0), (240.0, 30.0)]);
        assert!(walled.crossings().is_empty(), "{:?}", walled.crossings());
        let mut nav = map(false);
        let rally = ordered_to(&mut nav, &[(0.0, 30.0), (120.0, 30.0), (240.0, 30.0)], 2.0);
        assert!(rally.crossings().is_empty(), "{:?}", rally.crossings());
    }
}
