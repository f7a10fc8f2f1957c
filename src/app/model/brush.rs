//! The paint brush: dabs along the pointer path paint a paint layer. A stroke is
//! spacing-independent — each cell keeps the strongest brush weight it received during the
//! stroke, and its new value is computed from its value before the stroke — so a slow drag
//! and a fast one give the same result. Each pointer move is a command; the history folds a
//! stroke's commands into one undo step.

use std::collections::BTreeMap;

use crate::map::{MapDocument, PaintCell, PaintForce, PaintTarget};

use crate::app::model::commands::{CellChange, Command};
use crate::nav::grid::CellRect;

/// What the brush does to a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BrushMode {
    /// Adds `strength` cost (scaled by the falloff weight).
    #[default]
    AddCost,
    /// Removes `strength` cost.
    RemoveCost,
    /// Forces walls.
    ForceWall,
    /// Forces cells passable.
    ForceClear,
    /// Fades paint back to nothing.
    Erase,
}

impl BrushMode {
    /// Every mode, in UI order.
    pub const ALL: [Self; 5] = [
        Self::AddCost,
        Self::RemoveCost,
        Self::ForceWall,
        Self::ForceClear,
        Self::Erase,
    ];

    /// Label in the tool options.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::AddCost => "Add cost",
            Self::RemoveCost => "Remove cost",
            Self::ForceWall => "Force wall",
            Self::ForceClear => "Force clear",
            Self::Erase => "Erase",
        }
    }
}

/// Brush footprint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BrushShape {
    /// Euclidean distance.
    #[default]
    Round,
    /// Chebyshev distance.
    Square,
}

/// Which movement types the brush paints for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BrushTarget {
    /// The movement type selected in the Movement types panel.
    #[default]
    SelectedType,
    /// Every movement type.
    AllTypes,
}

/// Brush options shown in the left panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrushSettings {
    /// What it does.
    pub mode: BrushMode,
    /// Footprint shape.
    pub shape: BrushShape,
    /// Radius. `[Units: cells] [Limit: 0.5..=128]`
    pub radius_cells: f32,
    /// Cost added or removed at full weight. `[Units: cost] [Limit: 1..=254]`
    pub strength: f32,
    /// Share of the radius over which the weight falls to zero. `[Limit: 0..=1]`
    pub falloff: f32,
    /// Which movement types.
    pub target: BrushTarget,
}

impl Default for BrushSettings {
    fn default() -> Self {
        Self {
            mode: BrushMode::AddCost,
            shape: BrushShape::Round,
            radius_cells: 4.0,
            strength: 40.0,
            falloff: 0.5,
            target: BrushTarget::SelectedType,
        }
    }
}

impl BrushSettings {
    /// Weight `0.0..=1.0` of a point at `(dx, dy)` cells from the dab centre; 0 outside.
    #[must_use]
    pub fn weight(&self, dx: f32, dy: f32) -> f32 {
        let r = self.radius_cells.max(0.5);
        let d = match self.shape {
            BrushShape::Round => dx.hypot(dy),
            BrushShape::Square => dx.abs().max(dy.abs()),
        };
        if d > r {
            return 0.0;
        }
        let core = r * (1.0 - self.falloff.clamp(0.0, 1.0));
        if d <= core {
            1.0
        } else {
            ((r - d) / (r - core)).clamp(0.0, 1.0)
        }
    }

    /// A cell's new value from its value before the stroke and its strongest weight.
    #[must_use]
    pub fn paint(&self, before: PaintCell, weight: f32) -> PaintCell {
        let amount = (self.strength * weight).round() as i32;
        let clamp = |v: i32| v.clamp(-254, 254) as i16;
        match self.mode {
            BrushMode::AddCost => PaintCell {
                delta: clamp(i32::from(before.delta) + amount),
                force: before.force,
            },
            BrushMode::RemoveCost => PaintCell {
                delta: clamp(i32::from(before.delta) - amount),
                force: before.force,
            },
            BrushMode::ForceWall => PaintCell {
                delta: before.delta,
                force: PaintForce::Wall,
            },
            BrushMode::ForceClear => PaintCell {
                delta: before.delta,
                force: PaintForce::Clear,
            },
            BrushMode::Erase => PaintCell {
                delta: (f32::from(before.delta) * (1.0 - weight)).round() as i16,
                force: if weight >= 0.5 {
                    PaintForce::None
                } else {
                    before.force
                },
            },
        }
    }
}

/// A brush stroke in progress. Each pointer move becomes a [`Command`] for the cells it
/// changed ([`Stroke::extend_to`]); the editor executes those as parts of one gesture, which
/// the history folds into one undo step. The stroke never writes the document itself.
#[derive(Clone, Debug)]
pub struct Stroke {
    settings: BrushSettings,
    layer: usize,
    /// The layer to create (target and side file) with the first command that changes a
    /// cell, when the document has none for the target yet.
    create: Option<(PaintTarget, String)>,
    width: u32,
    height: u32,
    /// Cell index → (value before the stroke, strongest weight so far).
    touched: BTreeMap<u32, (PaintCell, f32)>,
    last_pos_cell: Option<(f32, f32)>,
}

impl Stroke {
    /// Starts a stroke on the layer for `target` (which its first command adds when missing).
    #[must_use]
    pub fn begin(
        document: &MapDocument,
        width: u32,
        height: u32,
        settings: BrushSettings,
        target: PaintTarget,
    ) -> Self {
        let cell_count = width as usize * height as usize;
        let existing = document
            .paint
            .iter()
            .position(|l| l.target == target && l.cells.len() == cell_count);
        let (layer, create) = match existing {
            Some(i) => (i, None),
            None => {
                let file = document.unused_paint_file(&target);
                (document.paint.len(), Some((target, file)))
            }
        };
        Self {
            settings,
            layer,
            create,
            width,
            height,
            touched: BTreeMap::new(),
            last_pos_cell: None,
        }
    }

    /// Paints dabs from the previous pointer position to `pos_cell` (continuous cell
    /// coordinates: cell `(x, y)` spans `x..x+1`), spaced so fast drags leave no gaps.
    /// Returns the command that changes those cells of `document`, `None` when none change.
    pub fn extend_to(&mut self, document: &MapDocument, pos_cell: (f32, f32)) -> Option<Command> {
        let from = self.last_pos_cell.unwrap_or(pos_cell);
        self.last_pos_cell = Some(pos_cell);
        let spacing = (self.settings.radius_cells * 0.25).max(0.25);
        let length = (pos_cell.0 - from.0).hypot(pos_cell.1 - from.1);
        let steps = (length / spacing).ceil().max(1.0) as usize;
        let cells = if self.create.is_some() {
            None
        } else {
            Some(&document.paint.get(self.layer)?.cells)
        };
        // Cell index → (value in the document, value after this move).
        let mut segment: BTreeMap<u32, (PaintCell, PaintCell)> = BTreeMap::new();
        for k in 0..=steps {
            let t = k as f32 / steps as f32;
            let centre = (
                from.0 + (pos_cell.0 - from.0) * t,
                from.1 + (pos_cell.1 - from.1) * t,
            );
            self.dab(cells.map(Vec::as_slice), centre, &mut segment);
        }
        let mut rect: Option<CellRect> = None;
        let changes: Vec<CellChange> = segment
            .into_iter()
            .filter(|(_, (before, after))| before != after)
            .map(|(index, (before, after))| {
                let r = CellRect::cell(index % self.width, index / self.width);
                rect = Some(rect.map_or(r, |c| c.union(&r)));
                CellChange {
                    index,
                    before,
                    after,
                }
            })
            .collect();
        let rect = rect?;
        Some(Command::PaintStroke {
            layer: self.layer,
            created: self.create.take(),
            cell_count: self.width as usize * self.height as usize,
            changes,
            rect,
        })
    }

    /// One dab at `centre` over the layer's `cells` (`None`: a layer not created yet, all
    /// cells unpainted), into this move's `segment`.
    fn dab(
        &mut self,
        cells: Option<&[PaintCell]>,
        centre: (f32, f32),
        segment: &mut BTreeMap<u32, (PaintCell, PaintCell)>,
    ) {
        let r = self.settings.radius_cells.max(0.5);
        let x0 = (centre.0 - r).floor().max(0.0) as u32;
        let y0 = (centre.1 - r).floor().max(0.0) as u32;
        let x1 = ((centre.0 + r).ceil().max(0.0) as u32).min(self.width);
        let y1 = ((centre.1 + r).ceil().max(0.0) as u32).min(self.height);
        for y in y0..y1 {
            for x in x0..x1 {
                let weight = self
                    .settings
                    .weight(x as f32 + 0.5 - centre.0, y as f32 + 0.5 - centre.1);
                if weight <= 0.0 {
                    continue;
                }
                let index = y * self.width + x;
                let current = match cells {
                    Some(cells) => match cells.get(index as usize) {
                        Some(&c) => c,
                        None => continue,
                    },
                    None => PaintCell::default(),
                };
                let entry = self.touched.entry(index).or_insert((current, 0.0));
                if weight <= entry.1 {
                    continue;
                }
                entry.1 = weight;
                let new = self.settings.paint(entry.0, weight);
                segment.entry(index).or_insert((current, current)).1 = new;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::app::model::commands::History;
    use crate::map::MovementType;

    fn doc() -> MapDocument {
        crate::app::model::test_document(vec![MovementType::default()])
    }

    #[test]
    fn weights_match_hand_computed_values() {
        let b = BrushSettings {
            radius_cells: 4.0,
            falloff: 0.5,
            ..BrushSettings::default()
        };
        assert_eq!(b.weight(0.0, 0.0), 1.0);
        assert_eq!(b.weight(2.0, 0.0), 1.0); // the hard core is 2 cells
        assert!((b.weight(3.0, 0.0) - 0.5).abs() < 1e-6);
        assert_eq!(b.weight(3.0, 3.0), 0.0); // 4.24 > 4
        let sq = BrushSettings {
            shape: BrushShape::Square,
            ..b
        };
        assert_eq!(sq.weight(2.0, 2.0), 1.0);
    }

    /// Drags a stroke through `points`, applying each move's command as the editor does
    /// (one gesture in a history); returns the history.
    fn drag(
        document: &mut MapDocument,
        size: (u32, u32),
        settings: BrushSettings,
        target: PaintTarget,
        points: impl IntoIterator<Item = (f32, f32)>,
    ) -> History {
        let mut history = History::default();
        let mut saved = Some(0);
        let mut s = Stroke::begin(document, size.0, size.1, settings, target);
        for p in points {
            if let Some(command) = s.extend_to(document, p) {
                command.apply(document);
                history.push_continuing(command, &mut saved);
            }
        }
        history.end_gesture();
        history
    }

    #[test]
    fn fast_drag_leaves_no_gap_and_matches_slow_drag() {
        let settings = BrushSettings {
            radius_cells: 1.0,
            falloff: 0.0,
            strength: 10.0,
            ..BrushSettings::default()
        };
        let target = PaintTarget::All;
        let mut fast = doc();
        // One jump of 58 cells.
        let mut history = drag(
            &mut fast,
            (64, 16),
            settings,
            target.clone(),
            [(2.5, 8.5), (60.5, 8.5)],
        );
        assert_eq!(history.position(), 1, "one stroke, one undo step");
        for x in 2..=60 {
            assert_eq!(fast.paint[0].cells[8 * 64 + x].delta, 10, "gap at x={x}");
        }
        let mut slow = doc();
        let slow_history = drag(
            &mut slow,
            (64, 16),
            settings,
            target,
            (0..=580).map(|k| (2.5 + k as f32 * 0.1, 8.5)),
        );
        assert_eq!(slow_history.position(), 1, "581 moves, one undo step");
        assert_eq!(
            fast.paint, slow.paint,
            "result must not depend on pointer speed"
        );
        // Undo restores the document without the new layer; redo paints it again.
        let painted = fast.paint.clone();
        history.undo(&mut fast);
        assert!(fast.paint.is_empty());
        history.redo(&mut fast);
        assert_eq!(fast.paint, painted);
    }

    #[test]
    fn overlapping_moves_keep_the_first_before_and_the_last_after() {
        // Add-cost dabs at full weight over a cell painted 5 before the stroke: the stroke
        // paints from the value before it, so the cell ends at 5 + 30 however often dabbed.
        let settings = BrushSettings {
            radius_cells: 0.5,
            falloff: 0.0,
            strength: 30.0,
            ..BrushSettings::default()
        };
        let mut d = doc();
        let first = drag(&mut d, (8, 8), settings, PaintTarget::All, [(3.5, 3.5)]);
        assert_eq!(first.position(), 1);
        let before = d.paint.clone();
        let mut h = drag(
            &mut d,
            (8, 8),
            settings,
            PaintTarget::All,
            [(3.5, 3.5), (4.5, 3.5), (3.5, 3.5)],
        );
        assert_eq!(d.paint[0].cells[3 * 8 + 3].delta, 60);
        assert_eq!(d.paint[0].cells[3 * 8 + 4].delta, 30);
        let Some(Command::PaintStroke { changes, .. }) = h.next_undo() else {
            panic!("the stroke is one command");
        };
        let first = changes.iter().find(|c| c.index == 3 * 8 + 3).unwrap();
        assert_eq!(first.before.delta, 30, "the value before the stroke");
        let after = d.paint.clone();
        h.undo(&mut d);
        assert_eq!(d.paint, before);
        h.redo(&mut d);
        assert_eq!(d.paint, after, "redo ends at the last value");
        h.undo(&mut d);
        assert_eq!(d.paint, before);
    }

    #[test]
    fn empty_stroke_leaves_no_layer_and_no_command() {
        let mut d = doc();
        // Off the map: no cell changes.
        let h = drag(
            &mut d,
            (8, 8),
            BrushSettings::default(),
            PaintTarget::All,
            [(-20.5, -20.5)],
        );
        assert_eq!(h.position(), 0);
        assert!(d.paint.is_empty());
    }

    #[test]
    fn modes_change_cells_as_documented() {
        let b = BrushSettings {
            strength: 30.0,
            ..BrushSettings::default()
        };
        let c = PaintCell {
            delta: 20,
            force: PaintForce::Wall,
        };
        let with = |mode| BrushSettings { mode, ..b };
        assert_eq!(with(BrushMode::AddCost).paint(c, 0.5).delta, 35);
        assert_eq!(with(BrushMode::RemoveCost).paint(c, 1.0).delta, -10);
        assert_eq!(
            with(BrushMode::ForceClear).paint(c, 0.1).force,
            PaintForce::Clear
        );
        assert_eq!(with(BrushMode::Erase).paint(c, 1.0), PaintCell::default());
    }
}
