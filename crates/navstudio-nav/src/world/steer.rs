//! Steering along the taut string: an agent aims at the wall corner its string turns at,
//! not at the centre of the cell beyond it, so it walks the line [`NavWorld::trace_path`]'s
//! points show. From a cell the string runs to its look-ahead target `t` (the pulled
//! target, [`NavWorld::steer_target`]'s cell) and on to the next one after `t`; pulled
//! taut ([`crate::taut::tighten`]) over the path's own cells, its first turn is where the
//! agent steers. Cached per cell, as the pulled targets are.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::sample::{FlowCursor, PULLED_SLOTS};
use super::{MAX_FLOW_LOOKAHEAD, NavWorld, PathState};
use crate::grid::{FLOW_LOS, WALL};
use crate::taut::{Half, centre, tighten};

/// Within this distance of its string's first turn (cells) an agent steers at the second
/// one: it has reached the corner, and aiming at a point under its feet says nothing.
const NEAR_TURN: f32 = 0.5;

/// How far off a wall corner an agent aims when its string turns there (cells).
const CORNER_CLEARANCE: f32 = 0.25;

/// A half-cell point packed in 30 bits (15 per coordinate, maps up to 16,383 cells).
fn pack(p: Half) -> u64 {
    ((p.1 as u64) << 15) | p.0 as u64
}

fn unpack(v: u64) -> Half {
    ((v & 0x7FFF) as i64, ((v >> 15) & 0x7FFF) as i64)
}

impl NavWorld {
    /// The cell the pulled string from `cell` runs to next: the goal it sees, else its
    /// look-ahead target, else the next cell of the flow.
    fn string_next(&self, p: &PathState, cell: (u32, u32)) -> Option<(u32, u32)> {
        let l = &self.nav.layers[p.layer];
        let mut flow = FlowCursor::new(l, p);
        let f = flow.at(cell)?;
        if f & FLOW_LOS != 0 || p.is_goal(cell) {
            return Some(flow.seen_goal(cell));
        }
        if let Some(t) = self.pulled_target_cached(p, cell) {
            return Some(t);
        }
        let (dx, dy) = super::sample::flow_step(f)?;
        Some((
            cell.0.checked_add_signed(dx)?,
            cell.1.checked_add_signed(dy)?,
        ))
    }

    /// The first two points after `cell`'s centre of the taut string from there (see the
    /// module's documentation); `None` where the cell has no look-ahead target.
    fn taut_turns(&self, p: &PathState, cell: (u32, u32)) -> Option<(Half, Half)> {
        let t = self.pulled_target_cached(p, cell)?;
        let after = self.string_next(p, t).unwrap_or(t);
        let mut points = vec![centre(cell), centre(t), centre(after)];
        if after != t {
            let l = &self.nav.layers[p.layer];
            let (cost, spec) = (&l.cost, l.cost.spec);
            // Over the path's cells only (those with flow), as the look-ahead pulls.
            let flow = RefCell::new(FlowCursor::new(l, p));
            let price = |x: i64, y: i64| {
                if !spec.contains(x, y) {
                    return None;
                }
                let c = cost.get(x as u32, y as u32);
                (c != WALL && flow.borrow_mut().at((x as u32, y as u32)).is_some()).then_some(c)
            };
            tighten(&mut points, &price, 2);
        }
        Some((points[1], *points.get(2).unwrap_or(&points[1])))
    }

    /// [`Self::taut_turns`] through the path's cache.
    fn taut_turns_cached(&self, p: &PathState, cell: (u32, u32)) -> Option<(Half, Half)> {
        if self.flow_lookahead < 2 {
            return None;
        }
        if self.nav.spec.width.max(self.nav.spec.height) > 16_383 {
            // Beyond what a packed point holds: uncached.
            return self.taut_turns(p, cell);
        }
        let width = u64::from(self.nav.spec.width);
        let index = u64::from(cell.1) * width + u64::from(cell.0);
        // Each of the slot's two words: cell + 1 (27 bits), look-ahead (7 bits), a point
        // (30 bits); a cell without target stores the cell's own centre.
        let look = u64::from(self.flow_lookahead.min(MAX_FLOW_LOOKAHEAD as u32));
        let key = ((index + 1) << 37) | (look << 30);
        let table = p.pulled.1.get_or_init(|| {
            (0..2 * PULLED_SLOTS)
                .map(|_| AtomicU64::new(0))
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        let slot = 2 * ((index.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % PULLED_SLOTS);
        let (a, b) = (
            table[slot].load(Ordering::Relaxed),
            table[slot + 1].load(Ordering::Relaxed),
        );
        let key_mask = !((1_u64 << 30) - 1);
        // Two writers of different cells may have raced on the slot: both words must agree.
        if a & key_mask == key && b & key_mask == key {
            let (first, second) = (unpack(a & !key_mask), unpack(b & !key_mask));
            return (first != centre(cell)).then_some((first, second));
        }
        let turns = self.taut_turns(p, cell);
        let (first, second) = turns.unwrap_or((centre(cell), centre(cell)));
        table[slot].store(key | pack(first), Ordering::Relaxed);
        table[slot + 1].store(key | pack(second), Ordering::Relaxed);
        turns
    }

    /// The point an agent at `pos` (cell units) in `cell` steers at along the taut string:
    /// its first turn, or the second once within [`NEAR_TURN`] of the first; `None` where
    /// the cell has no look-ahead target.
    pub(super) fn taut_aim(
        &self,
        p: &PathState,
        cell: (u32, u32),
        pos: (f32, f32),
    ) -> Option<(f32, f32)> {
        let (first, second) = self.taut_turns_cached(p, cell)?;
        let cost = &self.nav.layers[p.layer].cost;
        let spec = cost.spec;
        let wall = |x: i64, y: i64| !spec.contains(x, y) || cost.get(x as u32, y as u32) == WALL;
        // A turn at a wall corner is aimed at a little off it, away from the walls there:
        // a body grazing the corner would be held on the wall's edge.
        let point = |h: Half| {
            let (mut x, mut y) = (h.0 as f32 / 2.0, h.1 as f32 / 2.0);
            if h.0 % 2 == 0 && h.1 % 2 == 0 {
                let (cx, cy) = (h.0 / 2, h.1 / 2);
                let (mut ox, mut oy) = (0.0_f32, 0.0_f32);
                for (dx, dy) in [(-1, -1), (0, -1), (-1, 0), (0, 0)] {
                    if wall(cx + dx, cy + dy) {
                        // From the wall cell's centre toward the corner.
                        ox -= dx as f32 + 0.5;
                        oy -= dy as f32 + 0.5;
                    }
                }
                if let Some((ux, uy)) = super::sample::normalise(ox, oy) {
                    x += ux * CORNER_CLEARANCE;
                    y += uy * CORNER_CLEARANCE;
                }
            }
            (x, y)
        };
        let a = point(first);
        let near = (a.0 - pos.0).hypot(a.1 - pos.1) < NEAR_TURN;
        Some(if near { point(second) } else { a })
    }
}
