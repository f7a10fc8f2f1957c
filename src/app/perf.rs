//! Frame-time readout (View > Performance): the editor's own CPU time per frame (logic +
//! layout, what the app controls) and the interval between frames (what the designer
//! sees, including rendering and vsync), for the last [`FRAMES_KEPT`] frames, with medians
//! and worst cases. `NAVSTUDIO_FRAME_LOG=path.csv` writes every frame on exit, for runs
//! under Xvfb.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use egui::Ui;
use egui_plot::{Legend, Line, Plot};

/// Frames kept for the plot and the statistics.
pub const FRAMES_KEPT: usize = 600;

/// One frame's timings. `[Units: ms]`
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameSample {
    /// CPU time of the editor's logic and layout.
    pub cpu_ms: f64,
    /// Time since the previous frame started.
    pub interval_ms: f64,
}

/// Median and worst of a series. `[Units: ms]`
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Median.
    pub median: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest.
    pub worst: f64,
}

/// Summarises `values` (empty → zeros).
#[must_use]
pub fn summarize(values: impl Iterator<Item = f64>) -> Summary {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return Summary::default();
    }
    v.sort_by(f64::total_cmp);
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Summary {
        median: rank(0.5),
        p99: rank(0.99),
        worst: v[v.len() - 1],
    }
}

/// The recorder.
#[derive(Debug, Default)]
pub struct FrameStats {
    frame_start: Option<Instant>,
    previous_start: Option<Instant>,
    /// Recent frames, oldest first.
    pub samples: VecDeque<FrameSample>,
    /// Every frame since start, when a log file was asked for.
    log: Option<(std::path::PathBuf, Vec<FrameSample>)>,
    /// Whether the window is open.
    pub open: bool,
}

impl FrameStats {
    /// A recorder that also keeps every frame for [`Self::write_log`] when
    /// `NAVSTUDIO_FRAME_LOG` is set.
    #[must_use]
    pub fn from_env() -> Self {
        Self {
            log: std::env::var_os("NAVSTUDIO_FRAME_LOG").map(|p| (p.into(), Vec::new())),
            ..Self::default()
        }
    }

    /// The frame's work starts.
    pub fn begin(&mut self) {
        let now = Instant::now();
        self.previous_start = self.frame_start.replace(now);
    }

    /// The frame's work ends.
    pub fn end(&mut self) {
        let Some(start) = self.frame_start else {
            return;
        };
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let sample = FrameSample {
            cpu_ms: ms(start.elapsed()),
            interval_ms: self
                .previous_start
                .map_or(f64::NAN, |p| ms(start.duration_since(p))),
        };
        self.samples.push_back(sample);
        if self.samples.len() > FRAMES_KEPT {
            self.samples.pop_front();
        }
        if let Some((_, all)) = &mut self.log {
            all.push(sample);
            // Also every second or so: a killed editor (or one under Xvfb) still leaves a log.
            if all.len() % 60 == 0 {
                self.write_log();
            }
        }
    }

    /// CPU time and frame interval of the kept frames.
    #[must_use]
    pub fn summaries(&self) -> (Summary, Summary) {
        (
            summarize(self.samples.iter().map(|s| s.cpu_ms)),
            summarize(self.samples.iter().map(|s| s.interval_ms)),
        )
    }

    /// Writes the frame log (`frame,cpu_ms,interval_ms`), if one was asked for.
    pub fn write_log(&self) {
        if let Some((path, all)) = &self.log {
            let mut text = String::from("frame,cpu_ms,interval_ms\n");
            for (i, s) in all.iter().enumerate() {
                text.push_str(&format!("{i},{:.3},{:.3}\n", s.cpu_ms, s.interval_ms));
            }
            if let Err(e) = std::fs::write(path, text) {
                eprintln!(
                    "navstudio: could not write the frame log {}: {e}",
                    path.display()
                );
            }
        }
    }
}

/// The Performance window's contents.
pub fn perf_ui(ui: &mut Ui, stats: &FrameStats) {
    let (cpu, interval) = stats.summaries();
    let fps = if interval.median > 0.0 {
        1000.0 / interval.median
    } else {
        0.0
    };
    egui::Grid::new("perf_numbers")
        .num_columns(4)
        .show(ui, |ui| {
            ui.label("");
            ui.strong("median");
            ui.strong("p99");
            ui.strong("worst");
            ui.end_row();
            for (name, s) in [("editor CPU ms", cpu), ("frame interval ms", interval)] {
                ui.label(name);
                ui.monospace(format!("{:.2}", s.median));
                ui.monospace(format!("{:.2}", s.p99));
                ui.monospace(format!("{:.2}", s.worst));
                ui.end_row();
            }
        });
    ui.label(format!(
        "{fps:.0} fps over the last {} frames",
        stats.samples.len()
    ));
    let series = |f: fn(&FrameSample) -> f64| -> Vec<[f64; 2]> {
        stats
            .samples
            .iter()
            .enumerate()
            .map(|(i, s)| [i as f64, f(s)])
            .collect()
    };
    Plot::new("frame_times")
        .height(140.0)
        .legend(Legend::default())
        .y_axis_label("ms")
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.line(Line::new("frame interval", series(|s| s.interval_ms)));
            plot.line(Line::new("editor CPU", series(|s| s.cpu_ms)));
            plot.line(Line::new(
                "16.7 ms (60 fps)",
                vec![[0.0, 16.7], [FRAMES_KEPT as f64, 16.7]],
            ));
        });
    ui.weak(
        "Editor CPU: logic + layout of one frame. Frame interval: start to start, including \
         rendering and waiting for the display.",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_median_p99_and_worst() {
        let s = summarize((1..=100).map(f64::from));
        assert_eq!((s.median, s.p99, s.worst), (50.0, 99.0, 100.0));
        let s = summarize([3.0, f64::NAN, 1.0, 2.0].into_iter());
        assert_eq!((s.median, s.worst), (2.0, 3.0));
        assert_eq!(summarize(std::iter::empty()), Summary::default());
    }
}
