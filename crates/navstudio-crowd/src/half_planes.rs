//! ORCA as one behaviour inside context steering (ProjectS, seed §004): each neighbour's
//! RVO2 half-plane of permitted velocities, turned into the danger of a direction slot —
//! the share of the desired speed the slot must give up to stay in every half-plane.
//!
//! Context steering's own neighbour danger grows with closeness, so an agent following
//! another at the same speed slows as if blocked; a half-plane only forbids velocities that
//! would collide within the time horizon, so a queue walking together keeps its pace.

use super::vec2::Vec2;

/// Velocities `v` with `(v − point) · normal ≥ 0` avoid one neighbour for the time horizon.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HalfPlane {
    /// A velocity on the boundary. `[Units: m/s]`
    pub point: Vec2,
    /// Unit normal pointing into the permitted side.
    pub normal: Vec2,
}

/// The ORCA half-plane for an agent at `rel_pos` from its neighbour's view, i.e. RVO2's
/// `Agent::computeNewVelocity` for one agent neighbour: `rel_pos` from the agent to the
/// neighbour, `vel` and `other_vel` both velocities, `reach_m` the sum of the radii,
/// `share` the agent's part of the avoidance (0.5 reciprocal; less when the neighbour
/// should give way) and `horizon_secs` how far ahead collisions count. Overlapping agents
/// may not close further. `None` for coincident agents.
#[must_use]
pub fn orca_half_plane(
    rel_pos: Vec2,
    vel: Vec2,
    other_vel: Vec2,
    reach_m: f32,
    share: f32,
    horizon_secs: f32,
) -> Option<HalfPlane> {
    let rel_vel = vel - other_vel;
    let dist_sq = rel_pos.length_squared();
    let reach_sq = reach_m * reach_m;
    let (normal, u) = if dist_sq > reach_sq {
        let inv_horizon = 1.0 / horizon_secs.max(1e-3);
        // From the centre of the cut-off circle to the relative velocity.
        let w = rel_vel - rel_pos * inv_horizon;
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(rel_pos);
        if dot1 < 0.0 && dot1 * dot1 > reach_sq * w_len_sq {
            // Nearest boundary is the cut-off circle.
            let w_len = w_len_sq.sqrt();
            if w_len < 1e-9 {
                return None;
            }
            let unit_w = w / w_len;
            (unit_w, unit_w * (reach_m * inv_horizon - w_len))
        } else {
            // Nearest boundary is a leg of the cone.
            let leg = (dist_sq - reach_sq).sqrt();
            let direction = if rel_pos.cross(w) > 0.0 {
                Vec2::new(
                    rel_pos.x * leg - rel_pos.y * reach_m,
                    rel_pos.x * reach_m + rel_pos.y * leg,
                ) / dist_sq
            } else {
                -Vec2::new(
                    rel_pos.x * leg + rel_pos.y * reach_m,
                    -rel_pos.x * reach_m + rel_pos.y * leg,
                ) / dist_sq
            };
            let u = direction * rel_vel.dot(direction) - rel_vel;
            (direction.perp(), u)
        }
    } else {
        // Already overlapping: no closing at all (the position passes open the overlap;
        // RVO2's "open it within one step" stops every slot but the ones straight back).
        if dist_sq < 1e-12 {
            return None;
        }
        let toward = rel_pos / dist_sq.sqrt();
        (-toward, toward * -rel_vel.dot(toward))
    };
    Some(HalfPlane {
        point: vel + u * share,
        normal,
    })
}

/// The fastest speed up to `desired` along unit `dir` that every half-plane permits, as a
/// share of `desired` lost: 0 when the full desired speed is safe, 1 when only standing
/// still (or nothing) is. Half-planes that only ask for a minimum speed along `dir`
/// (someone closing from behind) do not limit it: the one behind gives way in its own
/// update.
#[must_use]
pub fn slot_danger(planes: &[HalfPlane], dir: Vec2, desired: f32) -> f32 {
    if desired <= 0.0 {
        return 0.0;
    }
    let mut speed = desired;
    for h in planes {
        let along = dir.dot(h.normal);
        let need = h.point.dot(h.normal);
        if along < -1e-6 {
            // (s·dir − point)·n ≥ 0 with dir·n < 0: s ≤ point·n / dir·n.
            speed = speed.min(need / along);
        } else if along <= 1e-6 && need > 0.0 {
            // Sideways to the half-plane and outside it: no speed along `dir` helps.
            speed = 0.0;
        }
        if speed <= 0.0 {
            return 1.0;
        }
    }
    1.0 - speed / desired
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A follower behind an agent walking away at the same speed: nothing forbids keeping
    /// that speed (context steering's proximity danger slowed it by half).
    #[test]
    fn a_follower_at_the_leaders_pace_has_no_danger() {
        let v = Vec2::new(4.0, 0.0);
        let h = orca_half_plane(Vec2::new(1.0, 0.0), v, v, 0.8, 0.5, 2.0).unwrap();
        assert_eq!(slot_danger(&[h], Vec2::new(1.0, 0.0), 4.0), 0.0);
    }

    /// Head-on, 3 m apart, both at 2 m/s: straight ahead collides within the horizon, so
    /// that slot loses speed; a slot well to one side keeps more of it.
    #[test]
    fn head_on_the_straight_slot_is_dangerous_and_a_side_slot_less() {
        let h = orca_half_plane(
            Vec2::new(3.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(-2.0, 0.0),
            0.8,
            0.5,
            2.0,
        )
        .unwrap();
        let ahead = slot_danger(&[h], Vec2::new(1.0, 0.0), 2.0);
        let side = slot_danger(&[h], Vec2::from_angle(1.0), 2.0).min(slot_danger(
            &[h],
            Vec2::from_angle(-1.0),
            2.0,
        ));
        assert!(ahead > 0.5, "{ahead}");
        assert!(side < ahead, "{side} vs {ahead}");
    }

    /// Overlapping discs: moving toward the neighbour is forbidden outright, moving away is
    /// free.
    #[test]
    fn overlapping_agents_may_only_part() {
        let h =
            orca_half_plane(Vec2::new(0.6, 0.0), Vec2::ZERO, Vec2::ZERO, 0.8, 0.5, 2.0).unwrap();
        assert_eq!(slot_danger(&[h], Vec2::new(1.0, 0.0), 4.0), 1.0);
        assert_eq!(slot_danger(&[h], Vec2::new(-1.0, 0.0), 4.0), 0.0);
    }
}
