//! The clock of one [`super::NavWorld::rebuild`] call: a unit of work starts only when the
//! budget left is expected to hold it (by what units of its kind took lately), and the
//! first unit of a call always runs, so a loop of calls with any budget finishes. Where a
//! call stops depends on the clock; what the units compute, and in which order, does not.

use std::time::{Duration, Instant};

/// Units of rebuild work that run whole once started (sliced work — landmark searches and
/// table finishing — checks the deadline itself).
#[derive(Clone, Copy, Debug)]
pub(super) enum Unit {
    /// A batch of dirty sectors.
    Batch,
    /// Starting a layer's landmark build.
    LandmarkStart,
    /// Laying out a layer's search graph.
    Layout,
    /// Building a re-planned path's goal field ahead of its plan.
    GoalField,
    /// Planning a live path again, its goal field built.
    Plan,
    /// Planning a path to its moved goal.
    MovedGoal,
    /// Putting the waiting link changes in place.
    Links,
    /// Reading a streamed region a budgeted path request's route crosses.
    Region,
}

/// Recent cost of each [`Unit`] kind.
#[derive(Clone, Debug, Default)]
pub(super) struct UnitCosts {
    /// Per kind, a moving average of its wall time; zero before the first.
    estimate: [Duration; 8],
}

impl UnitCosts {
    fn slot(unit: Unit) -> usize {
        match unit {
            Unit::Batch => 0,
            Unit::LandmarkStart => 1,
            Unit::Layout => 2,
            Unit::GoalField => 3,
            Unit::Plan => 4,
            Unit::MovedGoal => 5,
            Unit::Links => 6,
            Unit::Region => 7,
        }
    }

    /// What a unit of this kind is expected to take.
    pub(super) fn estimate(&self, unit: Unit) -> Duration {
        self.estimate[Self::slot(unit)]
    }

    /// Folds in a unit that took `took`. A sample more than twice the estimate counts as
    /// twice it: a wait for a core on a loaded machine would otherwise stop many calls
    /// early for one slow unit.
    pub(super) fn record(&mut self, unit: Unit, took: Duration) {
        let e = &mut self.estimate[Self::slot(unit)];
        *e = if e.is_zero() {
            took
        } else {
            (*e * 7 + took.min(*e * 2)) / 8
        };
    }
}

/// One rebuild call's clock.
#[derive(Debug)]
pub(super) struct Slice {
    start: Instant,
    budget: Duration,
    /// Whether this call did a unit of work yet.
    worked: bool,
}

impl Slice {
    pub(super) fn new(budget: Duration) -> Self {
        Self::since(Instant::now(), budget)
    }

    /// A call's clock started at `start`.
    pub(super) fn since(start: Instant, budget: Duration) -> Self {
        Self {
            start,
            budget,
            worked: false,
        }
    }

    /// When sliced work should pause; `None` for a budget no clock reaches.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.start.checked_add(self.budget)
    }

    /// Whether the call should stop: it has worked and the budget is spent.
    pub(super) fn spent(&self) -> bool {
        self.worked && self.start.elapsed() >= self.budget
    }

    /// Whether a unit of `unit`'s kind may start: the call's first may, later ones when
    /// the budget left is expected to hold them.
    pub(super) fn may_start(&self, costs: &UnitCosts, unit: Unit) -> bool {
        !self.worked || self.start.elapsed().saturating_add(costs.estimate(unit)) < self.budget
    }

    /// Records a unit of `unit`'s kind started at `at` (an [`Instant::now`] taken just
    /// before it) as done.
    pub(super) fn done(&mut self, costs: &mut UnitCosts, unit: Unit, at: Instant) {
        costs.record(unit, at.elapsed());
        self.worked = true;
    }

    /// Notes sliced work done (it checks the deadline itself).
    pub(super) fn worked(&mut self) {
        self.worked = true;
    }
}
