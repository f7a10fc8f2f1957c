//! Walls are solid: an agent's disc is pushed out of the wall cells of its movement type and
//! slides along them, moves are sub-stepped so nothing tunnels, and a segment walk (the
//! cells a straight line crosses) answers "can I go straight there?".
//!
//! Invariant kept by [`move_disc`]: if the centre starts outside every wall cell it ends
//! outside every wall cell — the last resort is to stay put.

use super::vec2::{Vec2, floor_i32};
use navstudio_nav::MoveType;

/// Most push-out passes per sub-step; an agent in a corner needs two, a squeeze a few more.
const MAX_PUSH_PASSES: usize = 4;
/// Sub-steps are capped so an absurd displacement cannot stall a step.
const MAX_SUB_STEPS: usize = 256;
/// Pushed-out discs end this far off the wall so rounding cannot leave them touching.
const SKIN_M: f32 = 1e-4;

/// Radius of the disc an agent collides against its movement type's walls: the body minus
/// the type's wall buffer (which already keeps the body off the real walls), never below a
/// tenth of the body or of a cell, whichever is smaller (a tenth of an 83 m cell would keep
/// an infantryman 8 m off every wall). `[Units: m]`
#[must_use]
pub fn collision_radius(radius_m: f32, wall_buffer_m: f32, cell_size_m: f32) -> f32 {
    (radius_m - wall_buffer_m).max(0.1 * radius_m.min(cell_size_m))
}

/// Largest wall disc of an agent whose type has a wall buffer, with `fit_corridors`, as
/// a share of a cell: under half, so it enters the one-cell corridors a buffered layer
/// keeps.
pub const CORRIDOR_RADIUS_CELLS: f32 = 0.45;

/// [`collision_radius`], and with `fit_corridors` (corridors fit the agent, always on) at most
/// [`CORRIDOR_RADIUS_CELLS`] of a cell for a type with a wall buffer, so the disc fits
/// every corridor of the buffered layer its route may use. `[Units: m]`
#[must_use]
pub fn wall_disc_radius(
    radius_m: f32,
    wall_buffer_m: f32,
    cell_size_m: f32,
    fit_corridors: bool,
) -> f32 {
    let r = collision_radius(radius_m, wall_buffer_m, cell_size_m);
    if fit_corridors && wall_buffer_m > 0.0 {
        r.min(CORRIDOR_RADIUS_CELLS * cell_size_m)
    } else {
        r
    }
}

/// Result of moving one disc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiscMove {
    /// Final centre. `[Units: m]`
    pub pos_world: Vec2,
    /// Velocity with every component into a touched wall removed. `[Units: m/s]`
    pub vel: Vec2,
    /// Wall contacts resolved (push-outs plus refused sub-steps).
    pub contacts: u32,
}

/// Moves a disc by `displacement` with walls solid: sub-steps of at most half the radius and
/// half a cell, each followed by push-out along the minimum penetration and sliding (the
/// velocity and the rest of the move lose their component into the wall). A sub-step whose
/// centre would end in a wall cell is refused and the disc stops there.
pub fn move_disc(
    pos_world: Vec2,
    vel: Vec2,
    displacement: Vec2,
    radius_m: f32,
    cell_size_m: f32,
    is_wall: impl Fn(i32, i32) -> bool,
) -> DiscMove {
    move_body(
        pos_world,
        vel,
        displacement,
        radius_m,
        cell_size_m,
        is_wall,
        None::<(f32, fn(i32, i32) -> bool)>,
    )
}

/// The movement type whose walls a body of `radius_m` of type `t` also collides with
/// (`body_walls`, see [`crate::Navigator::body_walls_type`]), when its own layer's buffer
/// fits that body: a buffer narrower than the body by more than half a cell leaves corridors
/// the body cannot pass between the real walls, and its routes lead through them, so the
/// body would stand at their mouths for good. Such a type keeps colliding with its own
/// layer's walls only, as before.
pub fn body_walls_of<N: crate::Navigator + ?Sized>(
    nav: &N,
    t: MoveType,
    radius_m: f32,
    cell_size_m: f32,
    on: bool,
) -> Option<MoveType> {
    let fits = radius_m <= nav.wall_buffer_m(t) + 0.5 * cell_size_m;
    if on && fits {
        nav.body_walls_type(t)
    } else {
        None
    }
}

/// [`move_disc`] for a disc of `radius_m` against the walls of its route (`is_wall`) that
/// is also a body of `body.0` against the walls `body.1` (`body_walls`: a buffered type's
/// body against the real walls); each push-out takes the deeper of the two penetrations.
pub fn move_body<B: Fn(i32, i32) -> bool>(
    pos_world: Vec2,
    vel: Vec2,
    displacement: Vec2,
    radius_m: f32,
    cell_size_m: f32,
    is_wall: impl Fn(i32, i32) -> bool,
    body: Option<(f32, B)>,
) -> DiscMove {
    let max_sub_m = 0.5 * radius_m.max(0.05 * cell_size_m).min(cell_size_m);
    let dist = displacement.length();
    let steps = if dist.is_finite() {
        ((dist / max_sub_m).ceil() as usize).clamp(1, MAX_SUB_STEPS)
    } else {
        return DiscMove {
            pos_world,
            vel: Vec2::ZERO,
            contacts: 0,
        };
    };
    let mut step = (displacement / steps as f32).clamp_length(max_sub_m);
    let mut pos = pos_world;
    let mut vel = vel;
    let mut contacts = 0;
    for _ in 0..steps {
        let start = pos;
        pos += step;
        for _ in 0..MAX_PUSH_PASSES {
            let own = deepest_penetration(pos, radius_m, cell_size_m, &is_wall);
            let deepest = match &body {
                Some((r, walls)) => match (own, deepest_penetration(pos, *r, cell_size_m, walls)) {
                    (Some(a), Some(b)) => Some(if b.1 > a.1 { b } else { a }),
                    (a, b) => a.or(b),
                },
                None => own,
            };
            let Some((normal, depth)) = deepest else {
                break;
            };
            pos += normal * (depth + SKIN_M);
            vel -= normal * vel.dot(normal).min(0.0);
            step -= normal * step.dot(normal).min(0.0);
            contacts += 1;
        }
        let cell = cell_of(pos, cell_size_m);
        if is_wall(cell.0, cell.1) {
            pos = start;
            vel = Vec2::ZERO;
            contacts += 1;
            break;
        }
    }
    DiscMove {
        pos_world: pos,
        vel,
        contacts,
    }
}

fn cell_of(pos: Vec2, cell_size_m: f32) -> (i32, i32) {
    (
        floor_i32(pos.x / cell_size_m),
        floor_i32(pos.y / cell_size_m),
    )
}

/// Whether a disc of `radius_m` at `pos` touches no wall cell.
pub fn disc_is_clear(
    pos: Vec2,
    radius_m: f32,
    cell_size_m: f32,
    is_wall: impl Fn(i32, i32) -> bool,
) -> bool {
    deepest_penetration(pos, radius_m, cell_size_m, &is_wall).is_none()
}

/// The wall cell overlapping the disc most deeply: `(push-out normal, depth)`.
fn deepest_penetration(
    pos: Vec2,
    radius_m: f32,
    cell_size_m: f32,
    is_wall: &impl Fn(i32, i32) -> bool,
) -> Option<(Vec2, f32)> {
    let lo = cell_of(pos - Vec2::new(radius_m, radius_m), cell_size_m);
    let hi = cell_of(pos + Vec2::new(radius_m, radius_m), cell_size_m);
    let mut best: Option<(Vec2, f32)> = None;
    for cy in lo.1..=hi.1 {
        for cx in lo.0..=hi.0 {
            if !is_wall(cx, cy) {
                continue;
            }
            let min = Vec2::new(cx as f32 * cell_size_m, cy as f32 * cell_size_m);
            let max = min + Vec2::new(cell_size_m, cell_size_m);
            let closest = Vec2::new(pos.x.clamp(min.x, max.x), pos.y.clamp(min.y, max.y));
            let away = pos - closest;
            let dist_sq = away.length_squared();
            let candidate = if dist_sq > 1e-12 {
                if dist_sq >= radius_m * radius_m {
                    continue;
                }
                let dist = dist_sq.sqrt();
                (away / dist, radius_m - dist)
            } else {
                // Centre inside the cell: leave through the nearest face.
                let faces = [
                    (Vec2::new(-1.0, 0.0), pos.x - min.x),
                    (Vec2::new(1.0, 0.0), max.x - pos.x),
                    (Vec2::new(0.0, -1.0), pos.y - min.y),
                    (Vec2::new(0.0, 1.0), max.y - pos.y),
                ];
                let mut face = faces[0];
                for f in &faces[1..] {
                    if f.1 < face.1 {
                        face = *f;
                    }
                }
                (face.0, face.1 + radius_m)
            };
            if best.is_none_or(|b| candidate.1 > b.1) {
                best = Some(candidate);
            }
        }
    }
    best
}

/// Walks the cells a straight segment crosses (in cell units: `a_cells`, `b_cells` are world
/// positions divided by the cell size) and returns `false` at the first blocked one. Where the
/// segment passes exactly through a cell corner, both side cells are checked too, so a clear
/// segment never squeezes between two diagonal walls.
pub fn segment_is_clear(
    a_cells: Vec2,
    b_cells: Vec2,
    mut blocked: impl FnMut(i32, i32) -> bool,
) -> bool {
    let (ax, ay) = (f64::from(a_cells.x), f64::from(a_cells.y));
    let (bx, by) = (f64::from(b_cells.x), f64::from(b_cells.y));
    if !(ax.is_finite() && ay.is_finite() && bx.is_finite() && by.is_finite()) {
        return false;
    }
    let mut x = ax.floor() as i32;
    let mut y = ay.floor() as i32;
    let end_x = bx.floor() as i32;
    let end_y = by.floor() as i32;
    if blocked(x, y) {
        return false;
    }
    let (dx, dy) = (bx - ax, by - ay);
    let step_x = if dx > 0.0 { 1 } else { -1 };
    let step_y = if dy > 0.0 { 1 } else { -1 };
    let delta_x = if dx == 0.0 {
        f64::INFINITY
    } else {
        1.0 / dx.abs()
    };
    let delta_y = if dy == 0.0 {
        f64::INFINITY
    } else {
        1.0 / dy.abs()
    };
    let mut t_x = if dx > 0.0 {
        (f64::from(x) + 1.0 - ax) * delta_x
    } else if dx < 0.0 {
        (ax - f64::from(x)) * delta_x
    } else {
        f64::INFINITY
    };
    let mut t_y = if dy > 0.0 {
        (f64::from(y) + 1.0 - ay) * delta_y
    } else if dy < 0.0 {
        (ay - f64::from(y)) * delta_y
    } else {
        f64::INFINITY
    };
    let budget = (end_x - x).unsigned_abs() + (end_y - y).unsigned_abs();
    for _ in 0..budget {
        if x == end_x && y == end_y {
            break;
        }
        if (t_x - t_y).abs() < 1e-12 {
            if blocked(x + step_x, y) || blocked(x, y + step_y) {
                return false;
            }
            x += step_x;
            y += step_y;
            t_x += delta_x;
            t_y += delta_y;
        } else if t_x < t_y {
            x += step_x;
            t_x += delta_x;
        } else {
            y += step_y;
            t_y += delta_y;
        }
        if blocked(x, y) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::rng::SplitMix64;
    use std::collections::BTreeSet;

    #[test]
    fn segment_walk_covers_every_sampled_cell() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..2000 {
            let a = Vec2::new(rng.range_f32(0.0, 30.0), rng.range_f32(0.0, 30.0));
            let b = Vec2::new(rng.range_f32(0.0, 30.0), rng.range_f32(0.0, 30.0));
            let mut visited = BTreeSet::new();
            assert!(segment_is_clear(a, b, |x, y| {
                visited.insert((x, y));
                false
            }));
            // Oracle: dense samples along the segment (away from exact corners).
            for k in 0..=4000 {
                let p = a + (b - a) * (k as f32 / 4000.0);
                let c = (p.x.floor() as i32, p.y.floor() as i32);
                let near_edge =
                    (p.x - p.x.round()).abs() < 1e-3 || (p.y - p.y.round()).abs() < 1e-3;
                assert!(
                    near_edge || visited.contains(&c),
                    "{a:?}->{b:?} missed {c:?}"
                );
            }
            // No far-away cells: every visited cell touches the segment's bounding box.
            for &(x, y) in &visited {
                assert!(x as f32 >= a.x.min(b.x).floor() - 1.0 && x as f32 <= a.x.max(b.x) + 1.0);
                assert!(y as f32 >= a.y.min(b.y).floor() - 1.0 && y as f32 <= a.y.max(b.y) + 1.0);
            }
        }
    }

    #[test]
    fn segment_through_diagonal_gap_is_blocked() {
        // Walls at (1,0) and (0,1): the diagonal from (0.5,0.5) to (1.5,1.5) passes their corner.
        let walls = [(1, 0), (0, 1)];
        assert!(!segment_is_clear(
            Vec2::new(0.5, 0.5),
            Vec2::new(1.5, 1.5),
            |x, y| walls.contains(&(x, y))
        ));
    }

    /// `body_walls`: a large walker's 0.1 m disc against its buffered walls (cells x ≥ 28)
    /// walks up to x = 27.9, its 2.5 m body 0.4 m into the real wall (x ≥ 30); as a body
    /// against the real walls it stops with its edge on the wall, at x = 27.5.
    #[test]
    fn a_body_stops_at_the_real_walls() {
        let buffered = |x: i32, _y: i32| x >= 28;
        let real = |x: i32, _y: i32| x >= 30;
        let start = Vec2::new(24.0, 10.5);
        let disc = move_disc(
            start,
            Vec2::new(3.0, 0.0),
            Vec2::new(5.0, 0.0),
            0.1,
            1.0,
            buffered,
        );
        assert!((disc.pos_world.x - 27.9).abs() < 1e-3, "{disc:?}");
        let body = move_body(
            start,
            Vec2::new(3.0, 0.0),
            Vec2::new(5.0, 0.0),
            0.1,
            1.0,
            buffered,
            Some((2.5, real)),
        );
        assert!((body.pos_world.x - 27.5).abs() < 1e-3, "{body:?}");
        assert!(body.vel.x.abs() < 1e-6 && body.contacts > 0);
    }

    #[test]
    fn disc_slides_along_a_wall() {
        // Wall row y = 5 (cells (x, 5)); disc radius 0.4 at y = 4.5 moving down-right.
        let is_wall = |_x: i32, y: i32| y == 5;
        let m = move_disc(
            Vec2::new(2.0, 4.5),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.5, 0.5),
            0.4,
            1.0,
            is_wall,
        );
        assert!(m.pos_world.y <= 4.6 + 1e-3, "{m:?}");
        assert!(
            (m.pos_world.x - 2.5).abs() < 1e-3,
            "slides the full x distance: {m:?}"
        );
        assert!(m.vel.y.abs() < 1e-6 && (m.vel.x - 1.0).abs() < 1e-6);
        assert!(m.contacts > 0);
    }

    #[test]
    fn fast_disc_does_not_tunnel() {
        // A one-cell-thick wall column at x = 10; a 20 m jump must not cross it.
        let m = move_disc(
            Vec2::new(5.5, 5.5),
            Vec2::new(1200.0, 0.0),
            Vec2::new(20.0, 0.0),
            0.3,
            1.0,
            |x, _| x == 10,
        );
        assert!(m.pos_world.x < 10.0 - 0.3 + 1e-3, "{m:?}");
    }
}
