//! The Movement types panel: select, add, rename, duplicate and delete movement types,
//! edit their parameters, and shape the slope→cost curve by dragging its points over a
//! histogram of the map's slopes.
//!
//! Every change is a command, executed as it happens (so the overlay follows a slider); the
//! history folds one drag's commands into one undo step. A rename is typed into the panel's
//! own draft and sent as one command when the field loses the keyboard (Enter, a click
//! elsewhere), so paint layers never pass through the names typed on the way.

use egui::{Color32, Ui};
use egui_plot::{Bar, BarChart, Line, MarkerShape, Plot, PlotPoint, Points, VLine};

use crate::map::{MovementType, PaintTarget, WaterRule};

use crate::app::backend::BakeOutput;
use crate::app::model::commands::Command;
use crate::app::state::EditorState;

/// Highest cost a curve point may have (255 is a wall).
const MAX_CURVE_COST: f32 = 254.0;
/// Smallest gap between neighbouring curve points. `[Units: degrees]`
const MIN_POINT_GAP_DEG: f32 = 0.5;
/// How close the pointer must be to grab a curve point. `[Units: points]`
const GRAB_RADIUS: f32 = 14.0;

/// The panel's state between frames.
#[derive(Debug, Default)]
pub struct MovementPanel {
    /// A name being typed: the type's index and the text so far.
    name_draft: Option<(usize, String)>,
    /// The curve point being dragged.
    dragging_point: Option<usize>,
}

impl MovementPanel {
    /// Draws the panel.
    pub fn ui(&mut self, ui: &mut Ui, state: &mut EditorState) {
        let Some(map) = state.map.as_ref() else {
            ui.weak("No map open.");
            return;
        };
        let types = &map.document.movement_types;
        let mut select = None;
        ui.horizontal_wrapped(|ui| {
            for (i, ty) in types.iter().enumerate() {
                if ui
                    .selectable_label(i == state.selected_type, &ty.name)
                    .clicked()
                {
                    select = Some(i);
                }
            }
        });
        let n = types.len();
        let current = types.get(state.selected_type).cloned();
        let mut command = None;
        let editable = state.read_only.is_none();
        ui.add_enabled_ui(editable, |ui| {
            ui.horizontal(|ui| {
                if ui
                    .button("Add")
                    .on_hover_text("Add a movement type with default settings")
                    .clicked()
                {
                    let ty = MovementType {
                        name: unique_name(types, "type"),
                        ..MovementType::default()
                    };
                    command = Some(Command::AddMovementType { index: n, ty });
                    select = Some(n);
                }
                if let Some(cur) = &current {
                    if ui
                        .button("Duplicate")
                        .on_hover_text("Copy the selected type")
                        .clicked()
                    {
                        let ty = MovementType {
                            name: unique_name(types, &cur.name),
                            ..cur.clone()
                        };
                        command = Some(Command::AddMovementType {
                            index: state.selected_type + 1,
                            ty,
                        });
                        select = Some(state.selected_type + 1);
                    }
                    let can_delete = n > 1;
                    if ui
                        .add_enabled(can_delete, egui::Button::new("Delete"))
                        .on_hover_text("Delete the selected type and its paint layers (undoable)")
                        .on_disabled_hover_text("A map needs at least one movement type")
                        .clicked()
                    {
                        let layers = map
                            .document
                            .paint
                            .iter()
                            .enumerate()
                            .filter(|(_, l)| l.target == PaintTarget::Type(cur.name.clone()))
                            .map(|(i, l)| (i, l.clone()))
                            .collect();
                        let links = map
                            .document
                            .links
                            .iter()
                            .enumerate()
                            .filter(|(_, l)| l.types.contains(&cur.name))
                            .map(|(i, l)| (i, l.clone()))
                            .collect();
                        command = Some(Command::RemoveMovementType {
                            index: state.selected_type,
                            ty: cur.clone(),
                            layers,
                            links,
                        });
                    }
                }
            })
        });
        if let Some(command) = command {
            state.execute(command);
        }
        if let Some(i) = select {
            state.selected_type = i.min(
                state
                    .map
                    .as_ref()
                    .map_or(0, |m| m.document.movement_types.len().saturating_sub(1)),
            );
            state.paint_dirty = Some(crate::nav::grid::CellRect::full(
                state.map_size().0,
                state.map_size().1,
            ));
        }
        ui.separator();

        let index = state.selected_type;
        let Some(before) = state
            .map
            .as_ref()
            .and_then(|m| m.document.movement_types.get(index).cloned())
        else {
            return;
        };
        let mut draft = before.clone();
        let cell_size_m = state.map.as_ref().map_or(1.0, |m| m.document.cell_size_m);
        if !editable {
            ui.weak("As recorded in the package (read-only).");
        }
        let mut name = match &self.name_draft {
            Some((i, name)) if *i == index => name.clone(),
            _ => before.name.clone(),
        };
        ui.add_enabled_ui(editable, |ui| {
            let name_field = parameters_ui(ui, &mut draft, &mut name);
            if name_field.has_focus() {
                self.name_draft = Some((index, name.clone()));
            } else {
                self.name_draft = None;
                let types = state.map.as_ref().map_or(&[][..], |m| &m.document.movement_types);
                let unique = types
                    .iter()
                    .enumerate()
                    .all(|(i, t)| i == index || t.name != name.trim());
                if !name.trim().is_empty() && unique {
                    name.trim().clone_into(&mut draft.name);
                }
            }
            clamp_to_limits(&mut draft);
            small_radius_notes_ui(ui, &draft, cell_size_m);
            ui.add_space(6.0);
            ui.label(egui::RichText::new("Slope -> cost").strong()).on_hover_text(
                "Drag points to change the curve; double-click to add a point, right-click a point to remove it. \
                 Bars: share of the map's cells at each slope. Red line: max slope (steeper cells are walls).",
            );
            self.curve_ui(ui, &mut draft, state.baked.as_ref());
        });

        if draft != before && editable {
            state.execute_continuing(Command::EditMovementType {
                index,
                before,
                after: draft,
            });
        }
    }

    fn curve_ui(&mut self, ui: &mut Ui, ty: &mut MovementType, baked: Option<&BakeOutput>) {
        let max_cost = ty.slope_cost.iter().map(|p| p.1).fold(10.0f32, f32::max);
        let y_top = f64::from(max_cost) * 1.2 + 2.0;
        let x_right = f64::from(
            ty.max_slope_deg
                .max(ty.slope_cost.last().map_or(0.0, |p| p.0))
                + 10.0,
        )
        .min(90.0);
        let points: Vec<[f64; 2]> = ty
            .slope_cost
            .iter()
            .map(|&(d, c)| [f64::from(d), f64::from(c)])
            .collect();
        // Extend the curve flat to the right edge, as the bake evaluates it.
        let mut line_points = points.clone();
        if let Some(&[_, c]) = points.last() {
            line_points.push([x_right, c]);
        }
        let histogram: Vec<Bar> = baked
            .map(|b| {
                let peak = b
                    .slope_histogram
                    .iter()
                    .copied()
                    .fold(0.0f32, f32::max)
                    .max(1e-6);
                b.slope_histogram
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| (*d as f64) < x_right)
                    .map(|(d, &share)| {
                        Bar::new(d as f64 + 0.5, f64::from(share / peak) * y_top * 0.8)
                            .width(1.0)
                            .fill(Color32::from_rgba_unmultiplied(120, 130, 150, 70))
                            .stroke(egui::Stroke::NONE)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let dragging = self.dragging_point;
        let response = Plot::new("slope_cost_curve")
            .height(190.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .include_x(0.0)
            .include_x(x_right)
            .include_y(0.0)
            .include_y(y_top)
            .x_grid_spacer(egui_plot::uniform_grid_spacer(|_| [1.0, 5.0, 15.0]))
            .x_axis_label("slope °")
            .y_axis_label("cost")
            .show(ui, |plot_ui| {
                plot_ui.bar_chart(BarChart::new("slope histogram", histogram));
                plot_ui.vline(
                    VLine::new("max slope", f64::from(ty.max_slope_deg))
                        .color(Color32::from_rgb(230, 70, 70))
                        .width(1.5),
                );
                plot_ui.line(
                    Line::new("cost", line_points)
                        .color(Color32::from_rgb(250, 200, 70))
                        .width(2.0),
                );
                plot_ui.points(
                    Points::new("points", points.clone())
                        .shape(MarkerShape::Circle)
                        .radius(5.0)
                        .color(Color32::from_rgb(250, 220, 120)),
                );
                if let Some(k) = dragging
                    && let Some(p) = points.get(k)
                {
                    plot_ui.points(
                        Points::new("dragged", vec![*p])
                            .radius(7.0)
                            .color(Color32::WHITE),
                    );
                }
                let response = plot_ui.response().clone();
                let pointer = plot_ui.pointer_coordinate();
                let nearest = response
                    .hover_pos()
                    .or_else(|| response.interact_pointer_pos())
                    .and_then(|screen| {
                        points
                            .iter()
                            .enumerate()
                            .map(|(k, p)| {
                                (
                                    k,
                                    plot_ui
                                        .screen_from_plot(PlotPoint::new(p[0], p[1]))
                                        .distance(screen),
                                )
                            })
                            .filter(|(_, d)| *d <= GRAB_RADIUS)
                            .min_by(|a, b| a.1.total_cmp(&b.1))
                            .map(|(k, _)| k)
                    });
                (response, pointer, nearest)
            });
        let (response, pointer, nearest) = response.inner;
        if response.drag_started() {
            self.dragging_point = nearest;
        }
        if response.dragged()
            && let (Some(k), Some(p)) = (self.dragging_point, pointer)
        {
            move_point(&mut ty.slope_cost, k, p.x as f32, p.y as f32);
        }
        if response.drag_stopped() {
            self.dragging_point = None;
        }
        if response.double_clicked()
            && let Some(p) = pointer
        {
            insert_point(&mut ty.slope_cost, p.x as f32, p.y as f32);
        }
        if response.secondary_clicked()
            && let Some(k) = nearest
            && ty.slope_cost.len() > 2
        {
            ty.slope_cost.remove(k);
        }
    }
}

/// Moves curve point `k`, keeping degrees strictly increasing and costs in 1..=254.
pub fn move_point(curve: &mut [(f32, f32)], k: usize, slope_deg: f32, cost: f32) {
    let low = if k == 0 {
        0.0
    } else {
        curve[k - 1].0 + MIN_POINT_GAP_DEG
    };
    let high = curve.get(k + 1).map_or(90.0, |p| p.0 - MIN_POINT_GAP_DEG);
    if let Some(point) = curve.get_mut(k) {
        point.0 = slope_deg.clamp(low, high.max(low));
        point.1 = cost.clamp(1.0, MAX_CURVE_COST).round();
    }
}

/// Inserts a point, unless it would sit closer than the minimum gap to another one.
pub fn insert_point(curve: &mut Vec<(f32, f32)>, slope_deg: f32, cost: f32) {
    let slope_deg = slope_deg.clamp(0.0, 90.0);
    if curve
        .iter()
        .any(|p| (p.0 - slope_deg).abs() < MIN_POINT_GAP_DEG)
    {
        return;
    }
    let at = curve
        .iter()
        .position(|p| p.0 > slope_deg)
        .unwrap_or(curve.len());
    curve.insert(at, (slope_deg, cost.clamp(1.0, MAX_CURVE_COST).round()));
}

fn unique_name(types: &[MovementType], base: &str) -> String {
    (2..)
        .map(|k| format!("{base} {k}"))
        .find(|name| types.iter().all(|t| &t.name != name))
        .unwrap_or_else(|| base.to_owned())
}

fn labelled(
    ui: &mut Ui,
    label: &str,
    hint: &str,
    add: impl FnOnce(&mut Ui) -> egui::Response,
) -> egui::Response {
    let label = ui.label(label).on_hover_text(hint);
    let response = add(ui).labelled_by(label.id).on_hover_text(hint);
    ui.end_row();
    response
}

/// Keeps the edited values inside the document's limits. egui's drag values clamp a value
/// to their range only on the frame after an arrow key or an accessibility
/// increment/decrement stepped it out (0 m − 0.05 m = −0.05 m): that frame's value reached
/// the document, failed validation, and its correction became an undo step whose undo
/// brought the invalid value back (found by the monkey test, seed 3).
fn clamp_to_limits(ty: &mut MovementType) {
    ty.max_slope_deg = ty.max_slope_deg.clamp(0.0, 90.0);
    // Only the document's limits: a loaded map may hold values beyond the widgets' ranges.
    ty.wall_buffer_m = ty.wall_buffer_m.max(0.0);
    ty.blur_radius_m = ty.blur_radius_m.max(0.0);
    ty.blur_strength = ty.blur_strength.clamp(0.0, 253.0);
    ty.min_island_cells = ty
        .min_island_cells
        .min(crate::map::document::MAX_MIN_ISLAND_CELLS);
    if let WaterRule::Cost(c) = &mut ty.water {
        *c = (*c).clamp(1, 254);
    }
}

/// Says when the wall buffer or blur radius is set but too small to change a cell at this
/// cell size (the stages measure between cell centres: `bake::wall_buffer`, `bake::wall_blur`).
fn small_radius_notes_ui(ui: &mut Ui, ty: &MovementType, cell_size_m: f32) {
    let note = |ui: &mut Ui, what: &str, radius_m: f32, least_cells: f32| {
        if radius_m > 0.0 && radius_m <= least_cells * cell_size_m {
            ui.label(
                egui::RichText::new(format!(
                    "{what} {radius_m:.2} m does nothing with {cell_size_m:.2} m cells: it must exceed {:.2} m",
                    least_cells * cell_size_m
                ))
                .small()
                .color(egui::Color32::from_rgb(240, 200, 120)),
            );
        }
    };
    // A buffer of r cells walls the cells with d < r + 0.5, and d ≥ 1 off a wall.
    note(ui, "Wall buffer", ty.wall_buffer_m, 0.5);
    if ty.blur_strength > 0.0 {
        note(ui, "Blur radius", ty.blur_radius_m, 1.0);
    }
}

/// The type's parameters; the name field edits `name` (the panel's draft). Returns the
/// name field's response.
fn parameters_ui(ui: &mut Ui, ty: &mut MovementType, name: &mut String) -> egui::Response {
    egui::Grid::new("movement_params")
        .num_columns(2)
        .spacing([8.0, 4.0])
        .show(ui, |ui| {
            let name_field = labelled(
                ui,
                "Name",
                "Unique name, applied on Enter; paint layers follow a rename",
                |ui| ui.add(egui::TextEdit::singleline(name).desired_width(140.0)),
            );
            labelled(ui, "Max slope", "Cells steeper than this are walls", |ui| {
                ui.add(
                    egui::DragValue::new(&mut ty.max_slope_deg)
                        .range(0.0..=90.0)
                        .speed(0.2)
                        .suffix(" °"),
                )
            });
            let mut water_passable = matches!(ty.water, WaterRule::Cost(_));
            labelled(
                ui,
                "Water",
                "Impassable (land units) or a cost per cell (hover units)",
                |ui| {
                    ui.horizontal(|ui| {
                        let r = ui.checkbox(&mut water_passable, "passable");
                        if water_passable {
                            let mut cost = match ty.water {
                                WaterRule::Cost(c) => c,
                                WaterRule::Impassable => 4,
                            };
                            let label = ui.label("cost");
                            ui.add(egui::DragValue::new(&mut cost).range(1..=254))
                                .labelled_by(label.id);
                            ty.water = WaterRule::Cost(cost);
                        } else {
                            ty.water = WaterRule::Impassable;
                        }
                        r
                    })
                    .inner
                },
            );
            labelled(
                ui,
                "Wall buffer",
                "Cells closer than this to a wall become walls (large units)",
                |ui| {
                    ui.add(
                        egui::DragValue::new(&mut ty.wall_buffer_m)
                            .range(0.0..=50.0)
                            .speed(0.05)
                            .suffix(" m"),
                    )
                },
            );
            labelled(
                ui,
                "Min island",
                "Walled-in pockets of passable ground this small or smaller become walls (0 keeps them): on real terrain, steep ground leaves many flat spots no unit can reach",
                |ui| {
                    ui.add(
                        egui::DragValue::new(&mut ty.min_island_cells)
                            .range(0..=crate::map::document::MAX_MIN_ISLAND_CELLS)
                            .suffix(" cells"),
                    )
                },
            );
            labelled(
                ui,
                "Blur radius",
                "Cost is added to cells closer than this to a wall",
                |ui| {
                    ui.add(
                        egui::DragValue::new(&mut ty.blur_radius_m)
                            .range(0.0..=50.0)
                            .speed(0.05)
                            .suffix(" m"),
                    )
                },
            );
            labelled(
                ui,
                "Blur strength",
                "Cost added right next to a wall, fading to 0 at the blur radius",
                |ui| ui.add(egui::Slider::new(&mut ty.blur_strength, 0.0..=253.0)),
            );
            name_field
        })
        .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dragged_points_keep_degrees_strictly_increasing() {
        let mut curve = vec![(0.0, 1.0), (10.0, 5.0), (20.0, 30.0)];
        move_point(&mut curve, 1, 50.0, 400.0);
        assert_eq!(curve[1], (19.5, 254.0));
        move_point(&mut curve, 1, -5.0, -3.0);
        assert_eq!(curve[1], (0.5, 1.0));
        move_point(&mut curve, 0, 3.0, 2.0);
        assert_eq!(curve[0], (0.0, 2.0));
        for w in curve.windows(2) {
            assert!(w[0].0 < w[1].0);
        }
        insert_point(&mut curve, 12.0, 9.0);
        assert_eq!(curve[2], (12.0, 9.0));
        insert_point(&mut curve, 12.2, 9.0);
        assert_eq!(curve.len(), 4);
    }
}
