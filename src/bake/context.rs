//! The bake context passed through every stage: progress, per-stage timings, warnings and
//! cancellation (after Recast's `rcContext`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Receives `(stage name, fraction of that stage done 0.0..=1.0)`.
pub type ProgressFn = dyn Fn(&str, f32) + Send + Sync;

/// One stage's wall-clock time.
#[derive(Clone, Debug, PartialEq)]
pub struct StageTiming {
    /// Stage name, e.g. `"land: flow permutations"`.
    pub stage: String,
    /// Wall-clock time the stage took.
    pub duration: Duration,
}

/// Progress, timings, warnings and cancellation for one bake.
pub struct BakeContext {
    progress: Box<ProgressFn>,
    cancel: Arc<AtomicBool>,
    /// Per-stage timings in the order the stages ran.
    pub timings: Vec<StageTiming>,
    /// Things a designer should know, e.g. "hover: 3.1 % of passable cells are on islands
    /// unreachable from the largest one".
    pub warnings: Vec<String>,
}

impl Default for BakeContext {
    fn default() -> Self {
        Self::new(Box::new(|_, _| {}), Arc::new(AtomicBool::new(false)))
    }
}

impl BakeContext {
    /// A context reporting progress to `progress` and stopping when `cancel` becomes true.
    #[must_use]
    pub fn new(progress: Box<ProgressFn>, cancel: Arc<AtomicBool>) -> Self {
        Self {
            progress,
            cancel,
            timings: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Reports progress of the current stage.
    pub fn progress(&self, stage: &str, done: f32) {
        (self.progress)(stage, done.clamp(0.0, 1.0));
    }

    /// Whether the bake was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The cancel flag, for stages that poll it from worker threads.
    #[must_use]
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }

    /// Runs `f` as the named stage: reports progress 0 and 1 around it and records its time.
    pub fn stage<T>(&mut self, name: &str, f: impl FnOnce(&Self) -> T) -> T {
        self.progress(name, 0.0);
        let start = Instant::now();
        let out = f(self);
        self.timings.push(StageTiming {
            stage: name.to_owned(),
            duration: start.elapsed(),
        });
        self.progress(name, 1.0);
        out
    }

    /// Total time of all recorded stages.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.timings.iter().map(|t| t.duration).sum()
    }
}
