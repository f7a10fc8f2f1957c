//! Group moves (The Maestros): SmartCenter lanes so a group keeps its shape, and the rule
//! for when plain independent moves are better.
//!
//! SmartCenter: average the positions, drop units farther than one standard deviation from
//! that average, average again. Each unit then goes to `destination + (position − smart
//! centre)`, with stragglers' offsets shortened to one standard deviation. When the
//! destination lies within one standard deviation of the centre, or the group is spread out
//! (standard deviation above the sum of the radii), every unit simply goes to the destination.

use super::vec2::Vec2;

/// The SmartCenter of a group and the standard deviation of its positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmartCenter {
    /// Average of the units within one standard deviation of the plain average. `[Units: m]`
    pub center_world: Vec2,
    /// Root-mean-square distance of the positions from their plain average. `[Units: m]`
    pub std_dev_m: f32,
}

/// Computes the SmartCenter; `None` for an empty group.
#[must_use]
pub fn smart_center(positions_world: &[Vec2]) -> Option<SmartCenter> {
    if positions_world.is_empty() {
        return None;
    }
    let n = positions_world.len() as f64;
    let (mut sx, mut sy) = (0.0f64, 0.0f64);
    for p in positions_world {
        sx += f64::from(p.x);
        sy += f64::from(p.y);
    }
    let mean = (sx / n, sy / n);
    let var = positions_world
        .iter()
        .map(|p| {
            let (dx, dy) = (f64::from(p.x) - mean.0, f64::from(p.y) - mean.1);
            dx * dx + dy * dy
        })
        .sum::<f64>()
        / n;
    let std_dev = var.sqrt();
    let (mut cx, mut cy, mut count) = (0.0f64, 0.0f64, 0usize);
    for p in positions_world {
        let (dx, dy) = (f64::from(p.x) - mean.0, f64::from(p.y) - mean.1);
        if (dx * dx + dy * dy).sqrt() <= std_dev {
            cx += f64::from(p.x);
            cy += f64::from(p.y);
            count += 1;
        }
    }
    let center = if count > 0 {
        (cx / count as f64, cy / count as f64)
    } else {
        mean
    };
    Some(SmartCenter {
        center_world: Vec2::new(center.0 as f32, center.1 as f32),
        std_dev_m: std_dev as f32,
    })
}

/// Lane targets for a group move to `destination_world`, one per unit, or `None` when the
/// units should move independently to the destination itself (target within one standard
/// deviation of the centre, or the group spread out beyond the sum of its radii).
#[must_use]
pub fn lane_targets(
    positions_world: &[Vec2],
    radii_m: &[f32],
    destination_world: Vec2,
) -> Option<Vec<Vec2>> {
    let sc = smart_center(positions_world)?;
    let radius_sum: f32 = radii_m.iter().sum();
    if (destination_world - sc.center_world).length() <= sc.std_dev_m || sc.std_dev_m > radius_sum {
        return None;
    }
    Some(
        positions_world
            .iter()
            .map(|&p| destination_world + (p - sc.center_world).clamp_length(sc.std_dev_m))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn outlier_does_not_drag_the_centre() {
        let mut pts: Vec<Vec2> = (0..9)
            .map(|i| Vec2::new((i % 3) as f32, (i / 3) as f32))
            .collect();
        pts.push(Vec2::new(100.0, 1.0));
        let sc = smart_center(&pts).unwrap();
        // Plain mean x is 10.9; the smart centre ignores the straggler.
        assert!((sc.center_world.x - 1.0).abs() < 1e-4, "{sc:?}");
        assert!((sc.center_world.y - 1.0).abs() < 1e-4);
    }

    #[test]
    fn lanes_keep_the_shape_and_pull_in_stragglers() {
        let pts: Vec<Vec2> = (0..16)
            .map(|i| Vec2::new((i % 4) as f32, (i / 4) as f32))
            .collect();
        let radii = vec![0.5; 16];
        let dest = Vec2::new(50.0, 50.0);
        let lanes = lane_targets(&pts, &radii, dest).unwrap();
        let sc = smart_center(&pts).unwrap();
        for (p, l) in pts.iter().zip(&lanes) {
            let off = *p - sc.center_world;
            let lane_off = *l - dest;
            assert!(lane_off.length() <= sc.std_dev_m + 1e-4);
            if off.length() <= sc.std_dev_m {
                assert!((off - lane_off).length() < 1e-4);
            }
        }
    }

    #[test]
    fn near_target_or_spread_out_means_plain_moves() {
        let pts: Vec<Vec2> = (0..16)
            .map(|i| Vec2::new((i % 4) as f32, (i / 4) as f32))
            .collect();
        assert!(lane_targets(&pts, &[0.5; 16], Vec2::new(1.5, 1.5)).is_none());
        let spread: Vec<Vec2> = pts.iter().map(|p| *p * 40.0).collect();
        assert!(lane_targets(&spread, &[0.5; 16], Vec2::new(900.0, 900.0)).is_none());
    }
}
