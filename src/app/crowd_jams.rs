//! Where the crowd jams, for the designer: the congestion overlay (agent-seconds spent slow
//! per cell, gathered by the simulation) and a gate line that counts agents through it.

use egui::{Color32, ColorImage};

use super::overlays::TiledTexture;
use crate::crowd::{CongestionMap, LinkFlow, Throughput, Vec2};

/// The overlay image is rebuilt at most this often (a 2048² map takes a few ms). `[Units: s]`
const REDRAW_SECS: f64 = 0.5;
/// Cells with less than this are left clear. `[Units: agent-s]`
const MIN_SHOWN_SECS: f32 = 0.05;

/// A line the designer drew across a door or a choke; agents crossing it are counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    /// One end. `[Units: m]`
    pub a_world: Vec2,
    /// The other end. `[Units: m]`
    pub b_world: Vec2,
    /// The agents through it, counted from when it was drawn.
    through: Throughput,
}

impl Gate {
    /// A new gate, counting from simulated time `now_secs`.
    #[must_use]
    pub fn new(a_world: Vec2, b_world: Vec2, now_secs: f64) -> Self {
        Self {
            a_world,
            b_world,
            through: Throughput::new(now_secs),
        }
    }

    /// Counts every agent whose move from `before[i]` to `after[i]` crossed the gate (an
    /// agent carried across a link the gate crosses counts too: a teleport's jump is a move
    /// from the entry to the exit).
    pub fn count(&mut self, before: &[Vec2], after: &[Vec2], now_secs: f64) {
        for (&p, &q) in before.iter().zip(after) {
            if segments_cross(p, q, self.a_world, self.b_world) {
                self.through.record(now_secs);
            }
        }
    }

    /// Agents through the gate since it was drawn.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.through.total()
    }

    /// Agents per second through the gate over the last ten simulated seconds (or since it
    /// was drawn, if that is shorter). `[Units: 1/s]`
    #[must_use]
    pub fn throughput(&self, now_secs: f64) -> f64 {
        self.through.per_sec(now_secs)
    }
}

/// A link's traffic as the congestion view labels it: agents a second over the last ten
/// simulated seconds, carried across so far, and waiting at its entrance (when any).
#[must_use]
pub fn link_traffic_text(flow: &LinkFlow, now_secs: f64) -> String {
    let mut text = format!(
        "{:.1}/s · {} across",
        flow.crossed.per_sec(now_secs),
        flow.crossed.total()
    );
    if flow.waiting > 0 {
        text.push_str(&format!(" · {} waiting", flow.waiting));
    }
    text
}

/// Whether segment `p–q` crosses segment `a–b` (touching at an end counts once: the
/// crossing is where `p` and `q` lie strictly on different sides, or `q` on the line).
fn segments_cross(p: Vec2, q: Vec2, a: Vec2, b: Vec2) -> bool {
    let side = |o: Vec2, u: Vec2, v: Vec2| (u - o).cross(v - o);
    let (sp, sq) = (side(a, b, p), side(a, b, q));
    if !((sp < 0.0 && sq >= 0.0) || (sp > 0.0 && sq <= 0.0)) {
        return false;
    }
    let (sa, sb) = (side(p, q, a), side(p, q, b));
    (sa <= 0.0 && sb >= 0.0) || (sa >= 0.0 && sb <= 0.0)
}

/// The congestion overlay's texture, rebuilt when the map changed and enough time passed.
#[derive(Default)]
pub struct CongestionTexture {
    texture: Option<TiledTexture>,
    version: u64,
    built_at: Option<f64>,
}

impl CongestionTexture {
    /// The texture for `map` (None while nothing is congested), rebuilt at most every
    /// half second of wall time `now_secs`.
    pub fn get(
        &mut self,
        ctx: &egui::Context,
        map: &CongestionMap,
        now_secs: f64,
    ) -> Option<&TiledTexture> {
        let stale = map.version != self.version
            && self.built_at.is_none_or(|t| now_secs - t >= REDRAW_SECS);
        if stale || self.texture.is_none() {
            let image = congestion_image(map);
            self.version = map.version;
            self.built_at = Some(now_secs);
            match &mut self.texture {
                Some(t) if t.size() == image.size => t.set_partial([0, 0], &image),
                _ => self.texture = Some(TiledTexture::new(ctx, "crowd congestion", image)),
            }
        }
        (map.peak() >= MIN_SHOWN_SECS)
            .then_some(self.texture.as_ref())
            .flatten()
    }

    /// Forgets the texture (the crowd was cleared).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// Agent-seconds as colour: clear below `MIN_SHOWN_SECS`, then lavender to deep violet on
/// a log scale up to the map's peak, more opaque where more time was lost. Violet is no
/// agent state's colour: a red patch at a door read as stuck agents, an amber one as a queue.
#[must_use]
pub fn congestion_image(map: &CongestionMap) -> ColorImage {
    let peak = map.peak().max(MIN_SHOWN_SECS * 10.0);
    let scale = 1.0 / (peak / MIN_SHOWN_SECS).ln();
    let pixels = map
        .secs
        .iter()
        .map(|&s| {
            if s < MIN_SHOWN_SECS {
                return Color32::TRANSPARENT;
            }
            let t = ((s / MIN_SHOWN_SECS).ln() * scale).clamp(0.0, 1.0);
            let (r, g, b) = (200.0 - 50.0 * t, 170.0 - 130.0 * t, 255.0 - 55.0 * t);
            Color32::from_rgba_unmultiplied(r as u8, g as u8, b as u8, (90.0 + 150.0 * t) as u8)
        })
        .collect();
    ColorImage::new([map.width as usize, map.height as usize], pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_counts_crossings_both_ways_and_not_touches() {
        let mut gate = Gate::new(Vec2::new(0.0, 0.0), Vec2::new(0.0, 4.0), 0.0);
        let before = [
            Vec2::new(-0.1, 1.0),
            Vec2::new(0.1, 2.0),
            Vec2::new(-1.0, 5.0),
            Vec2::new(-0.5, 1.0),
        ];
        let after = [
            Vec2::new(0.1, 1.0),  // crosses left to right
            Vec2::new(-0.1, 2.0), // right to left
            Vec2::new(1.0, 5.0),  // passes beyond the end
            Vec2::new(-0.2, 1.0), // stays left
        ];
        gate.count(&before, &after, 1.0);
        assert_eq!(gate.total(), 2);
        // Two crossings in the first second: 2 per second; five seconds later, 2 in 6 s.
        assert!((gate.throughput(1.0) - 2.0).abs() < 1e-9);
        assert!((gate.throughput(6.0) - 2.0 / 6.0).abs() < 1e-9);
        // Past the ten-second window they no longer count.
        assert_eq!(gate.throughput(12.0), 0.0);
    }

    #[test]
    fn a_gate_across_a_teleport_counts_the_jump() {
        // A teleport moves an agent from its entry to its exit in one step: a gate between
        // them counts it, one beside them does not.
        let mut across = Gate::new(Vec2::new(5.0, -2.0), Vec2::new(5.0, 2.0), 0.0);
        let mut beside = Gate::new(Vec2::new(5.0, 3.0), Vec2::new(5.0, 6.0), 0.0);
        let (entry, exit) = ([Vec2::new(1.0, 0.0)], [Vec2::new(9.0, 0.0)]);
        across.count(&entry, &exit, 0.5);
        beside.count(&entry, &exit, 0.5);
        assert_eq!((across.total(), beside.total()), (1, 0));
    }

    #[test]
    fn link_traffic_reads_rate_total_and_queue() {
        let mut flow = LinkFlow::default();
        for t in [1.0, 2.0, 3.0, 4.0] {
            flow.crossed.record(t);
        }
        assert_eq!(link_traffic_text(&flow, 10.0), "0.4/s · 4 across");
        flow.waiting = 3;
        assert_eq!(
            link_traffic_text(&flow, 10.0),
            "0.4/s · 4 across · 3 waiting"
        );
    }

    #[test]
    fn congestion_colours_follow_the_time_lost() {
        let mut map = CongestionMap::new(3, 1);
        map.add((1, 0), 0.5);
        map.add((2, 0), 5.0);
        let image = congestion_image(&map);
        assert_eq!(image.pixels[0], Color32::TRANSPARENT);
        let (mid, top) = (image.pixels[1], image.pixels[2]);
        assert!(top.a() > mid.a() && top.g() < mid.g(), "{mid:?} {top:?}");
    }
}
