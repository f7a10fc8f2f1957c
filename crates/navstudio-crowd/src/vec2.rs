//! A small 2-D vector in world metres (x right, y down), kept local so the crowd's public
//! API does not tie callers to a maths crate.

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use serde::{Deserialize, Serialize};

/// A 2-D vector; positions are in world metres, velocities in m/s, forces in newtons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Vec2 {
    /// Right.
    pub x: f32,
    /// Down.
    pub y: f32,
}

impl Vec2 {
    /// `(0, 0)`.
    pub const ZERO: Self = Self { x: 0.0, y: 0.0 };

    /// A vector from its components.
    #[must_use]
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    /// Dot product.
    #[must_use]
    pub fn dot(self, o: Self) -> f32 {
        self.x * o.x + self.y * o.y
    }

    /// 2-D cross product (z of the 3-D cross); positive when `o` is clockwise of `self`
    /// on screen (y down).
    #[must_use]
    pub fn cross(self, o: Self) -> f32 {
        self.x * o.y - self.y * o.x
    }

    /// Squared length; compare these instead of lengths where possible.
    #[must_use]
    pub fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// Length.
    #[must_use]
    pub fn length(self) -> f32 {
        self.length_squared().sqrt()
    }

    /// The unit vector in this direction, or zero for a (near) zero vector.
    #[must_use]
    pub fn normalize_or_zero(self) -> Self {
        let len_sq = self.length_squared();
        if len_sq > 1e-12 {
            self / len_sq.sqrt()
        } else {
            Self::ZERO
        }
    }

    /// This vector shortened to at most `max_len`.
    #[must_use]
    pub fn clamp_length(self, max_len: f32) -> Self {
        let len_sq = self.length_squared();
        if len_sq > max_len * max_len && len_sq > 0.0 {
            self * (max_len / len_sq.sqrt())
        } else {
            self
        }
    }

    /// Rotated 90° (x, y) → (−y, x).
    #[must_use]
    pub fn perp(self) -> Self {
        Self::new(-self.y, self.x)
    }

    /// The unit vector at `angle_rad` from +x toward +y.
    #[must_use]
    pub fn from_angle(angle_rad: f32) -> Self {
        Self::new(angle_rad.cos(), angle_rad.sin())
    }

    /// Angle from +x toward +y in `-π..=π`.
    #[must_use]
    pub fn angle_rad(self) -> f32 {
        self.y.atan2(self.x)
    }

    /// Whether both components are finite.
    #[must_use]
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

/// `x.floor() as i32` without the libm call (the default x86-64 target has no SSE4.1
/// `roundss`, so `floor` is a function call in hot loops). Same result for every input:
/// NaN gives 0 and out-of-range values saturate.
#[inline]
#[must_use]
pub fn floor_i32(x: f32) -> i32 {
    let t = x as i32;
    if (t as f32) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

impl Add for Vec2 {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y)
    }
}
impl AddAssign for Vec2 {
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}
impl Sub for Vec2 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y)
    }
}
impl SubAssign for Vec2 {
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}
impl Mul<f32> for Vec2 {
    type Output = Self;
    fn mul(self, s: f32) -> Self {
        Self::new(self.x * s, self.y * s)
    }
}
impl Div<f32> for Vec2 {
    type Output = Self;
    fn div(self, s: f32) -> Self {
        Self::new(self.x / s, self.y / s)
    }
}
impl Neg for Vec2 {
    type Output = Self;
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y)
    }
}
