//! The left panel: tool buttons, the active tool's options, overlay toggles with legends,
//! and map-wide settings.

use egui::{Color32, RichText, Ui};

use crate::app::goal_preview::{LOS_COLOR, UNREACHABLE_COLOR, heat_color};
use crate::app::model::commands::{Command, MapSettings};
use crate::app::overlays::{
    BUFFER_COLOR, SLOPE_RAMP_MAX_DEG, WALL_COLOR, contribution_color, cost_color, height_color,
    island_color, paint_color, slope_color,
};
use crate::app::panels::legend::{ramp_legend_ui, swatch_ui};
use crate::app::state::EditorState;
use crate::app::tools::{Tool, ToolCx, Tools};
use crate::app::widgets::{cell_size_field, labelled_row_ui, sector_size_field};
use crate::map::{PaintCell, PaintForce};

/// Tool buttons and the active tool's options, from the list of tools.
pub fn tools_ui(ui: &mut Ui, tools: &mut Tools, cx: &mut ToolCx<'_>) {
    ui.horizontal_wrapped(|ui| {
        for tool in Tool::ALL {
            let text = format!("{} ({})", tool.description(), tool.shortcut());
            let button = egui::Button::selectable(tools.active() == tool, tool.label());
            let response = ui
                .add_enabled(Tools::available(tool, cx.state), button)
                .on_hover_text(&text)
                .on_disabled_hover_text(&text);
            if response.clicked() {
                tools.select(tool, cx);
            }
        }
    });
    ui.add_space(4.0);
    // Every tool's options take the same height, scrolling when longer, so the sections
    // below (Overlays) stay where the mouse left them when the tool changes.
    let shown = egui::ScrollArea::vertical()
        .id_salt("tool options")
        .max_height(TOOL_OPTIONS_HEIGHT)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.set_min_height(TOOL_OPTIONS_HEIGHT);
            tools.active_mut().options_ui(ui, cx);
        });
    let overflow = (shown.content_size.y - shown.inner_rect.height()).max(0.0);
    ui.ctx()
        .data_mut(|d| d.insert_temp(egui::Id::unique(TOOL_OPTIONS_OVERFLOW), overflow));
}

/// Where the last frame's options overflow is kept (see [`tool_options_overflow`]).
const TOOL_OPTIONS_OVERFLOW: &str = "tool options overflow";

/// How far the active tool's options reached below the tool options area in the last frame
/// (0 when they fit): what a designer would have to scroll to. Every tool's options are
/// laid out to fit, so nothing (a stamp's rotation, a link's ends) hides below the fold.
#[must_use]
pub fn tool_options_overflow(ctx: &egui::Context) -> f32 {
    ctx.data(|d| d.get_temp(egui::Id::unique(TOOL_OPTIONS_OVERFLOW)))
        .unwrap_or(0.0)
}

/// A map's extent in metres, or in kilometres from 10 km on ("99.7 × 99.7 km", not
/// "99722 × 99722 m", which a side panel cuts off).
fn extent_text(width_m: f32, height_m: f32) -> String {
    if width_m.max(height_m) >= 10_000.0 {
        format!("{:.1} × {:.1} km", width_m / 1000.0, height_m / 1000.0)
    } else {
        format!("{width_m:.0} × {height_m:.0} m")
    }
}

/// Height of the tool options area. `[Units: points]`
const TOOL_OPTIONS_HEIGHT: f32 = 280.0;

/// Overlay toggles, each with its legend.
pub fn overlays_ui(ui: &mut Ui, state: &mut EditorState) {
    let type_name = state
        .map
        .as_ref()
        .and_then(|m| m.document.movement_types.get(state.selected_type))
        .map_or_else(String::new, |t| t.name.clone());
    // "Cost (land)"; with no map open no type is selected, so just "Cost".
    let of_type = |what: &str| {
        if type_name.is_empty() {
            what.to_owned()
        } else {
            format!("{what} ({type_name})")
        }
    };
    let o = &mut state.overlays;
    ui.checkbox(&mut o.height, "Height (hill-shaded)");
    if o.height {
        ramp_legend_ui(ui, "", "low", "high", height_color);
    }
    ui.checkbox(&mut o.slope, "Slope");
    if o.slope {
        ramp_legend_ui(ui, "", "0°", &format!("{SLOPE_RAMP_MAX_DEG:.0}°+"), |t| {
            slope_color(t * SLOPE_RAMP_MAX_DEG, 255)
        });
    }
    ui.checkbox(&mut o.cost, of_type("Cost"));
    if o.cost {
        ramp_legend_ui(ui, "", "1", "254", |t| {
            cost_color(1 + (t * 253.0) as u8, 255)
        });
    }
    ui.checkbox(&mut o.walls, of_type("Walls"));
    if o.walls || o.cost {
        swatch_ui(ui, WALL_COLOR, "wall (255)");
    }
    ui.checkbox(&mut o.contributions, "Wall buffer and blur")
        .on_hover_text("Why cells cost what they do near walls: walls the large-unit buffer added, and cost the wall blur added");
    if o.contributions {
        ui.horizontal_wrapped(|ui| {
            swatch_ui(ui, BUFFER_COLOR, "buffer wall");
            swatch_ui(ui, contribution_color(16), "blur cost");
        });
    }
    ui.checkbox(&mut o.paint, "Paint layer");
    if o.paint {
        ui.horizontal_wrapped(|ui| {
            swatch_ui(
                ui,
                paint_color(PaintCell {
                    delta: 80,
                    force: PaintForce::None,
                }),
                "added",
            );
            swatch_ui(
                ui,
                paint_color(PaintCell {
                    delta: -80,
                    force: PaintForce::None,
                }),
                "removed",
            );
            swatch_ui(
                ui,
                paint_color(PaintCell {
                    delta: 0,
                    force: PaintForce::Wall,
                }),
                "wall",
            );
            swatch_ui(
                ui,
                paint_color(PaintCell {
                    delta: 0,
                    force: PaintForce::Clear,
                }),
                "clear",
            );
        });
    }
    ui.checkbox(&mut o.sectors, "Sector grid")
        .on_hover_text("Drawn once sectors are at least 12 px wide");
    ui.checkbox(&mut o.stamps, "Stamps").on_hover_text(
        "Outlines and ids of placed stamps, and the nav links with an arrow for each way they go (both always show with their own tool)",
    );
    let label = ui.label("Overlay opacity");
    ui.add(egui::Slider::new(&mut o.opacity, 0.1..=1.0))
        .labelled_by(label.id);
    ui.add_space(4.0);
    ui.label(RichText::new("Nav data").color(Color32::from_gray(140)));
    let has_nav = state.nav.is_some();
    let hint = "Appears after the first bake";
    let o = &mut state.overlays;
    ui.add_enabled(has_nav, egui::Checkbox::new(&mut o.islands, "Islands"))
        .on_hover_text("One colour per connected region the selected type can move within")
        .on_disabled_hover_text(hint);
    if o.islands && has_nav {
        ui.horizontal(|ui| {
            for id in 1..=6 {
                let (rect, _) =
                    ui.allocate_exact_size(egui::vec2(10.0, 12.0), egui::Sense::hover());
                ui.painter().rect_filled(rect, 1.0, island_color(id));
            }
            ui.label(RichText::new("one colour per island; none on walls").small());
        });
        ui.label(
            RichText::new("Units reach only cells of their own island; the status bar names the hovered cell's.")
                .small()
                .weak(),
        );
    }
    ui.add_enabled(has_nav, egui::Checkbox::new(&mut o.portals, "Portals"))
        .on_hover_text(
            "Portal windows on sector borders (cyan); zoom in to see the portal graph's nodes and edges",
        )
        .on_disabled_hover_text(hint);
    ui.add_enabled(
        has_nav,
        egui::Checkbox::new(&mut o.clear_sectors, "Clear sectors"),
    )
    .on_hover_text("Sectors whose costs are all 1: stored once, shared, no flow tiles of their own")
    .on_disabled_hover_text(hint);
    ui.label(RichText::new("Goal (goal tool)").color(Color32::from_gray(140)));
    ui.checkbox(&mut o.integration, "Integration heat map");
    if o.integration {
        ramp_legend_ui(ui, "", "goal", "far", heat_color);
        swatch_ui(
            ui,
            UNREACHABLE_COLOR,
            "cannot reach the goal (another island)",
        );
    }
    ui.checkbox(&mut o.flow, "Flow arrows").on_hover_text(
        "What agents steer by (NavWorld::sample_flow): one arrow per cell when zoomed in, one per block of cells from 300 % zoom",
    );
    ui.checkbox(&mut o.line_of_sight, "Line of sight");
    if o.line_of_sight {
        swatch_ui(
            ui,
            LOS_COLOR,
            "sees the goal: steers straight at it, however far",
        );
    }
}

/// Map-wide settings: name, cell size, height scale, water level, sector size. Each change
/// is an `EditMapSettings` command; one drag or one typed value is one undo step.
pub fn map_settings_ui(ui: &mut Ui, state: &mut EditorState) {
    {
        let Some(map) = state.map.as_ref() else {
            return;
        };
        let before = MapSettings::of(&map.document);
        let mut s = before.clone();
        let editable = state.read_only.is_none();
        ui.add_enabled_ui(editable, |ui| {
            egui::Grid::new("map_settings")
                .num_columns(2)
                .spacing([8.0, 4.0])
                .show(ui, |ui| {
                    labelled_row_ui(
                        ui,
                        "Name",
                        egui::TextEdit::singleline(&mut s.name).desired_width(120.0),
                    );
                    labelled_row_ui(
                        ui,
                        "Cell size",
                        cell_size_field(&mut s.cell_size_m).speed(0.01),
                    );
                    labelled_row_ui(
                        ui,
                        "Lowest height",
                        egui::DragValue::new(&mut s.height_base_m)
                            .range(-11_000.0..=9_000.0)
                            .speed(0.5)
                            .suffix(" m"),
                    )
                    .on_hover_text(
                        "The real height of the lowest (black) heightmap sample; every height shown and the water level are real heights",
                    );
                    labelled_row_ui(
                        ui,
                        "Height range",
                        egui::DragValue::new(&mut s.height_scale_m)
                            .range(0.0..=10_000.0)
                            .speed(0.5)
                            .suffix(" m"),
                    )
                    .on_hover_text(
                        "Metres from the lowest (black) to the highest (white) heightmap sample",
                    );
                    labelled_row_ui(
                        ui,
                        "Water level",
                        egui::DragValue::new(&mut s.water_level_m)
                            .range(-11_000.0..=20_000.0)
                            .speed(0.1)
                            .suffix(" m"),
                    )
                    .on_hover_text(format!(
                        "Cells lower than this real height are water; the map's heights run from {:.1} to {:.1} m",
                        s.height_base_m,
                        s.height_base_m + s.height_scale_m
                    ));
                    labelled_row_ui(ui, "Sector size", sector_size_field(&mut s.sector_size));
                    ui.label("Size");
                    ui.label(format!(
                        "{} × {} cells = {}",
                        map.heightmap.width,
                        map.heightmap.height,
                        extent_text(
                            map.heightmap.width as f32 * s.cell_size_m,
                            map.heightmap.height as f32 * s.cell_size_m
                        )
                    ));
                    ui.end_row();
                })
        });
        // egui's drag values step out of their range by one arrow key or accessibility
        // increment before clamping on the next frame: keep the document valid (see
        // `movement::clamp_to_limits`). Only the document's limits: a loaded map may hold
        // values beyond the widgets' ranges.
        if s.cell_size_m <= 0.0 {
            s.cell_size_m = before.cell_size_m;
        }
        s.height_scale_m = s.height_scale_m.max(0.0);
        s.sector_size = s.sector_size.clamp(1, 255);
        if s != before && editable {
            state.execute_continuing(Command::EditMapSettings { before, after: s });
        }
    }
}
