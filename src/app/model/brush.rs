//! The paint brush: dabs along the pointer path write into a paint layer. A stroke is
//! spacing-independent — each cell keeps the strongest brush weight it received during the
//! stroke, and its new value is computed from its value before the stroke — so a slow drag
//! and a fast one give the same result, and the finished stroke is one undoable command.

use std::collections::BTreeMap;

use crate::map::{MapDocument, PaintCell, PaintForce, PaintLayer, PaintTarget};

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

/// A brush stroke in progress. Its dabs are written into the document as the pointer
/// moves (so the overlay follows the brush), and [`Stroke::finish`] turns it into one
/// [`Command`] for the history.
#[derive(Clone, Debug)]
pub struct Stroke {
    settings: BrushSettings,
    layer: usize,
    created: Option<(PaintTarget, String)>,
    width: u32,
    height: u32,
    /// Cell index → (value before the stroke, strongest weight so far).
    touched: BTreeMap<u32, (PaintCell, f32)>,
    last_pos_cell: Option<(f32, f32)>,
    rect: CellRect,
}

impl Stroke {
    /// Starts a stroke on the layer for `target`, adding that layer when missing.
    pub fn begin(
        document: &mut MapDocument,
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
        let (layer, created) = match existing {
            Some(i) => (i, None),
            None => {
                let file = document.unused_paint_file(&target);
                document.paint.push(PaintLayer {
                    target: target.clone(),
                    file: file.clone(),
                    cells: vec![PaintCell::default(); cell_count],
                });
                (document.paint.len() - 1, Some((target, file)))
            }
        };
        Self {
            settings,
            layer,
            created,
            width,
            height,
            touched: BTreeMap::new(),
            last_pos_cell: None,
            rect: CellRect {
                x0: 0,
                y0: 0,
                x1: 0,
                y1: 0,
            },
        }
    }

    /// Paints dabs from the previous pointer position to `pos_cell` (continuous cell
    /// coordinates: cell `(x, y)` spans `x..x+1`), spaced so fast drags leave no gaps.
    /// Returns the cells that changed.
    pub fn extend_to(
        &mut self,
        document: &mut MapDocument,
        pos_cell: (f32, f32),
    ) -> Option<CellRect> {
        let from = self.last_pos_cell.unwrap_or(pos_cell);
        self.last_pos_cell = Some(pos_cell);
        let spacing = (self.settings.radius_cells * 0.25).max(0.25);
        let length = (pos_cell.0 - from.0).hypot(pos_cell.1 - from.1);
        let steps = (length / spacing).ceil().max(1.0) as usize;
        let mut changed: Option<CellRect> = None;
        for k in 0..=steps {
            let t = k as f32 / steps as f32;
            let centre = (
                from.0 + (pos_cell.0 - from.0) * t,
                from.1 + (pos_cell.1 - from.1) * t,
            );
            if let Some(rect) = self.dab(document, centre) {
                changed = Some(changed.map_or(rect, |c| c.union(&rect)));
            }
        }
        changed
    }

    fn dab(&mut self, document: &mut MapDocument, centre: (f32, f32)) -> Option<CellRect> {
        let layer = document.paint.get_mut(self.layer)?;
        let r = self.settings.radius_cells.max(0.5);
        let x0 = (centre.0 - r).floor().max(0.0) as u32;
        let y0 = (centre.1 - r).floor().max(0.0) as u32;
        let x1 = ((centre.0 + r).ceil().max(0.0) as u32).min(self.width);
        let y1 = ((centre.1 + r).ceil().max(0.0) as u32).min(self.height);
        let mut changed: Option<CellRect> = None;
        for y in y0..y1 {
            for x in x0..x1 {
                let weight = self
                    .settings
                    .weight(x as f32 + 0.5 - centre.0, y as f32 + 0.5 - centre.1);
                if weight <= 0.0 {
                    continue;
                }
                let index = y * self.width + x;
                let Some(cell) = layer.cells.get_mut(index as usize) else {
                    continue;
                };
                let entry = self.touched.entry(index).or_insert((*cell, 0.0));
                if weight <= entry.1 {
                    continue;
                }
                entry.1 = weight;
                let new = self.settings.paint(entry.0, weight);
                if new != *cell {
                    *cell = new;
                    let r = CellRect::cell(x, y);
                    changed = Some(changed.map_or(r, |c| c.union(&r)));
                }
            }
        }
        if let Some(c) = changed {
            self.rect = self.rect.union(&c);
        }
        changed
    }

    /// Ends the stroke: the command that redoes it, or `None` when nothing changed (a layer
    /// the stroke created is then removed again).
    pub fn finish(self, document: &mut MapDocument) -> Option<Command> {
        let layer_cells = document.paint.get(self.layer).map(|l| &l.cells);
        let changes: Vec<CellChange> = self
            .touched
            .iter()
            .filter_map(|(&index, &(before, _))| {
                let after = *layer_cells?.get(index as usize)?;
                (after != before).then_some(CellChange {
                    index,
                    before,
                    after,
                })
            })
            .collect();
        if changes.is_empty() {
            if self.created.is_some() && self.layer < document.paint.len() {
                document.paint.remove(self.layer);
            }
            return None;
        }
        Some(Command::PaintStroke {
            layer: self.layer,
            created: self.created,
            cell_count: self.width as usize * self.height as usize,
            changes,
            rect: self.rect,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
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
        let mut s = Stroke::begin(&mut fast, 64, 16, settings, target.clone());
        s.extend_to(&mut fast, (2.5, 8.5));
        s.extend_to(&mut fast, (60.5, 8.5)); // one jump of 58 cells
        let cmd = s.finish(&mut fast).unwrap();
        for x in 2..=60 {
            assert_eq!(fast.paint[0].cells[8 * 64 + x].delta, 10, "gap at x={x}");
        }
        let mut slow = doc();
        let mut s = Stroke::begin(&mut slow, 64, 16, settings, target);
        for k in 0..=580 {
            s.extend_to(&mut slow, (2.5 + k as f32 * 0.1, 8.5));
        }
        s.finish(&mut slow).unwrap();
        assert_eq!(
            fast.paint, slow.paint,
            "result must not depend on pointer speed"
        );
        // Undo restores the document without the new layer.
        cmd.undo(&mut fast);
        assert!(fast.paint.is_empty());
    }

    #[test]
    fn empty_stroke_leaves_no_layer_and_no_command() {
        let mut d = doc();
        let s = Stroke::begin(&mut d, 8, 8, BrushSettings::default(), PaintTarget::All);
        assert!(s.finish(&mut d).is_none());
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
