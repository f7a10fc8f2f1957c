//! Context steering (seed §004): interest and danger in direction slots, walls by short
//! rays, neighbours by closeness or (with `context_orca`) by their ORCA half-planes.

use crate::agents::NO_ORDER;
use crate::half_planes::{HalfPlane, orca_half_plane, slot_danger};
use crate::navigator::Navigator;
use crate::vec2::{Vec2, floor_i32};

use super::{MAX_NEIGHBOURS, NearAgent, Neighbour, StepContext, away_from};

/// The danger of an oncoming neighbour is centred this far
/// (tangent of the angle, here ~27°) to the agent's left of the neighbour's direction.
const KEEP_RIGHT_LEAN: f32 = 0.5;
/// With `queue_wait`, a walker counts as ahead within this angle of the heading (cosine,
/// here 60°) …
const QUEUE_AHEAD_COS: f32 = 0.5;
/// … and nearer than the two radii plus this gap. `[Units: m]`
const QUEUE_GAP_M: f32 = 0.2;
/// An ally whose top speed is below this share of the agent's is passed, not followed.
const QUEUE_SPEED_SHARE: f32 = 0.8;
/// An ally walking the agent's way slower than this share of the agent's top speed has
/// halted: the agent may slide past it.
const QUEUE_PACE_SHARE: f32 = 0.5;

impl<N: Navigator + ?Sized> StepContext<'_, N> {
    /// Context steering: interest toward `desired`, danger from neighbours and wall rays,
    /// best slot refined by a parabola through its neighbours' scores.
    pub(super) fn context(
        &self,
        i: usize,
        slot: usize,
        neighbours: &[Neighbour],
        desired: Vec2,
    ) -> Vec2 {
        const MAX_SLOTS: usize = 256;
        let a = self.agents;
        let desired_speed = desired.length();
        if desired_speed < 1e-4 {
            return Vec2::ZERO;
        }
        let goal_dir = desired / desired_speed;
        let slots = self.config.context_slots.clamp(4, MAX_SLOTS);
        let step_rad = std::f32::consts::TAU / slots as f32;
        let mut score = [0.0f32; MAX_SLOTS];
        let mut danger = [0.0f32; MAX_SLOTS];
        let p = a.pos_world[i];
        let r = a.radius_m[i];
        let t = a.move_type[i];
        let cell = self.nav_grid.cell_size_m;
        let wall_r = self.wall_radius(i);
        let ray_len = wall_r + cell.max(a.max_speed[i] * 0.5);
        // Half-cell steps cannot jump a whole wall cell.
        let ray_step = 0.5 * cell;
        let samples = ((ray_len - wall_r) / ray_step).ceil().max(1.0) as usize;
        // Per neighbour: direction to it, closeness (1 touching … 0 at the neighbour radius)
        // and closing velocity relative to our top speed.
        // (Not needed when ORCA writes the neighbours' danger.)
        let use_orca = self.config.techniques.context_orca;
        let proximity = if use_orca { 0 } else { neighbours.len() };
        // Danger of a neighbour that walks our way at our pace, relative to one that stands:
        // none for a member of our own order (contacts keep its gap): half of a standing
        // one's made a queue slow down the closer it packed.
        let own_order = if a.state[i].is_travelling() {
            a.order[i]
        } else {
            NO_ORDER
        };
        let pace_of = |nb: &NearAgent| {
            if own_order != NO_ORDER && nb.moving_order == own_order {
                0.0
            } else {
                0.5
            }
        };
        let own_priority = self.near[slot].priority;
        // Per neighbour: its danger lobe, closeness, closing velocity, pace and whether it
        // may slow the agent down (see `blocking` below).
        let mut near = [(Vec2::ZERO, 0.0f32, Vec2::ZERO, 0.0f32, false); MAX_NEIGHBOURS];
        for (entry, n) in near.iter_mut().zip(&neighbours[..proximity]) {
            let nb = &self.near[n.slot as usize];
            let j = nb.index as usize;
            let gap = n.dist_sq.sqrt() - r - nb.radius_m;
            let span = (a.neighbour_radius_m[i] - r - nb.radius_m).max(1e-3);
            // A standing neighbour, or one giving way to us (right of way), weighs as much
            // of danger as the share of avoidance it leaves us (the contacts' reciprocity):
            // little, as the contacts push it aside (seed §003) until, pressed, it weighs
            // as a traveller again.
            let standing = nb.moving_order == NO_ORDER;
            let share = if standing || self.right_of_way(i, nb) == Some(false) {
                let p_nb = self.priority_of(i, nb);
                (2.0 * p_nb / (own_priority + p_nb).max(1e-9)).min(1.0)
            } else {
                1.0
            };
            let closeness = share * (1.0 - gap / span).clamp(0.0, 1.0);
            let toward = away_from(nb.pos_world, p, j, i);
            // Keep right: the danger of a neighbour coming toward us leans to our left of
            // it, so the slots passing it on our right are the freer ones — and it, doing
            // the same, passes us on its right (lanes instead of a standoff).
            let lobe = if nb.vel.dot(toward) < 0.0 {
                (toward - toward.perp() * KEEP_RIGHT_LEAN).normalize_or_zero()
            } else {
                toward
            };
            *entry = (
                lobe,
                closeness,
                (a.vel[i] - nb.vel) / a.max_speed[i],
                pace_of(nb),
                !standing && nb.moving_order != own_order,
            );
        }
        let near = &near[..proximity];
        // ORCA in the slots: each neighbour's half-plane of safe velocities, the
        // stationary and the lighter taking more of the avoidance (as in contacts).
        let mut planes = [HalfPlane::default(); MAX_NEIGHBOURS];
        let mut plane_count = 0;
        if use_orca {
            let own = &self.near[slot];
            for n in neighbours {
                let nb = &self.near[n.slot as usize];
                let share = nb.priority / (own.priority + nb.priority).max(1e-9);
                if let Some(h) = orca_half_plane(
                    nb.pos_world - p,
                    a.vel[i],
                    nb.vel,
                    r + nb.radius_m,
                    share,
                    self.config.orca_time_horizon_secs,
                    self.config.step_secs,
                ) {
                    planes[plane_count] = h;
                    plane_count += 1;
                }
            }
        }
        let planes = &planes[..plane_count];
        // Slot directions by repeated rotation: two trig calls per agent instead of 2·slots.
        let turn = Vec2::from_angle(step_rad);
        let mut dir = Vec2::new(1.0, 0.0);
        // The danger of what the agent may not walk into at speed, which alone sets its
        // pace: walls, and travellers of other orders. Allies of its order and standing
        // agents turn it but do not slow it — the contacts keep the gap to an ally as ORCA
        // does and push a standing agent aside; slowed by them too, a stream through a
        // door walked with gaps a body long, and door swaps took 2.0–2.3 × the bound.
        let mut blocking = [0.0f32; MAX_SLOTS];
        for (k, d) in danger.iter_mut().enumerate().take(slots) {
            if k > 0 {
                dir = Vec2::new(
                    dir.x * turn.x - dir.y * turn.y,
                    dir.x * turn.y + dir.y * turn.x,
                );
            }
            if use_orca {
                *d = slot_danger(planes, dir, desired_speed);
            } else {
                for &(toward_n, closeness, closing_n, pace, blocks) in near {
                    let toward = toward_n.dot(dir);
                    if toward > 0.0 && closeness > 0.0 {
                        // A neighbour already moving our way at our speed is less of an
                        // obstacle.
                        let closing = closing_n.dot(dir).clamp(0.0, 1.0);
                        let nd = closeness * toward * toward * (pace + (1.0 - pace) * closing);
                        *d = d.max(nd);
                        if blocks {
                            blocking[k] = blocking[k].max(nd);
                        }
                    }
                }
            }
            for s in 1..=samples {
                let dist = wall_r + s as f32 * ray_step;
                let q = p + dir * dist;
                if self
                    .nav
                    .is_wall(t, floor_i32(q.x / cell), floor_i32(q.y / cell))
                {
                    let wd = 1.0 - (dist - wall_r) / (ray_len - wall_r).max(1e-3);
                    *d = d.max(wd);
                    blocking[k] = blocking[k].max(wd);
                    break;
                }
            }
            let interest = dir.dot(goal_dir).max(0.0);
            score[k] = if use_orca {
                // ORCA's objective along the slot: the velocity on this ray (up to the
                // speed the danger leaves) nearest the desired one; 0 is standing still.
                let along = interest.min(1.0 - *d);
                along * (2.0 * interest - along)
            } else {
                interest - *d
            };
        }
        let mut best = 0;
        for k in 1..slots {
            if score[k] > score[best] {
                best = k;
            }
        }
        if score[best] <= 0.0 {
            return Vec2::ZERO;
        }
        let prev = score[(best + slots - 1) % slots];
        let next = score[(best + 1) % slots];
        let curvature = prev - 2.0 * score[best] + next;
        let offset = if curvature < -1e-6 {
            (0.5 * (prev - next) / curvature).clamp(-0.5, 0.5)
        } else {
            0.0
        };
        let dir = Vec2::from_angle((best as f32 + offset) * step_rad);
        let speed_share = if use_orca {
            dir.dot(goal_dir).max(0.0).min(1.0 - danger[best])
        } else {
            // Speed from the danger alone: a detour slot is walked at the pace its danger
            // allows, not slowed again by how far it turns from the goal (at its score,
            // side-stepping at 60° halved the pace, and where crowds met all crawled).
            (1.0 - blocking[best]).clamp(0.0, 1.0)
        };
        dir * (desired_speed * speed_share)
    }

    /// Who waits (seed §001, Age of Empires: wait for a unit that moves, go round one that
    /// stands): `constrained` is what the contact rule made of `proposed`. With a walker of
    /// the agent's own order just ahead, walking its way at half its top speed or more, the
    /// agent keeps only the part of it along the heading that avoids every other
    /// neighbour: such a walker slows it down but does not slide it sideways. Behind one
    /// that has halted (a queue pressed at a door) it keeps the slide, and the queue spreads
    /// across the door's width instead of waiting in file.
    pub(super) fn follow_in_queue(
        &self,
        i: usize,
        slot: usize,
        neighbours: &[Neighbour],
        proposed: Vec2,
        constrained: Vec2,
    ) -> Vec2 {
        let a = self.agents;
        let own = &self.near[slot];
        let speed = proposed.length();
        if speed < 1e-4 || own.moving_order == NO_ORDER || a.state[i].is_stalled() {
            return constrained;
        }
        let ahead_dir = proposed / speed;
        let p = a.pos_world[i];
        let mut behind_ally = false;
        let mut others = [Neighbour {
            slot: 0,
            dist_sq: 0.0,
        }; MAX_NEIGHBOURS];
        let mut other_count = 0;
        for n in neighbours {
            let nb = &self.near[n.slot as usize];
            if nb.moving_order != own.moving_order {
                others[other_count] = *n;
                other_count += 1;
                continue;
            }
            let reach = a.radius_m[i] + nb.radius_m + QUEUE_GAP_M;
            behind_ally |= n.dist_sq < reach * reach
                && (nb.pos_world - p).dot(ahead_dir) > QUEUE_AHEAD_COS * n.dist_sq.sqrt()
                && a.max_speed[nb.index as usize] >= QUEUE_SPEED_SHARE * a.max_speed[i]
                && nb.vel.dot(ahead_dir) >= QUEUE_PACE_SHARE * a.max_speed[i];
        }
        if !behind_ally {
            return constrained;
        }
        let heading = if other_count == 0 {
            ahead_dir
        } else {
            self.orca(
                i,
                slot,
                &others[..other_count],
                proposed,
                self.config.contact_horizon_secs,
            )
            .normalize_or_zero()
        };
        heading * constrained.dot(heading).max(0.0)
    }
}
