//! The New map dialog: shown when a heightmap is opened (File menu, drop, `navstudio open
//! FILE`), before the first bake. The designer sets the scale — cell size, heights at black
//! and white, water level (previewed on the heightmap), sector size and movement types —
//! pre-filled from what the file says, and sees the slope histogram and the share of walls
//! per movement type before committing to a bake.

use std::path::{Path, PathBuf};

use egui::{Color32, ColorImage, RichText, TextureHandle, TextureOptions};

use super::backend::{self, LoadedMap};
use super::widgets::{cell_size_field, labelled_row_ui, sector_size_field};
use crate::bake::preview::{SLOPE_BIN_DEG, SLOPE_BINS, TerrainPreview};
use crate::map::{Heightmap, ImportedHeightmap, MovementPreset, NewMapSettings};

/// Longest side of the water preview image. `[Units: px]`
const PREVIEW_SIDE_PX: u32 = 320;

/// The preview statistics read at most this many cells; larger maps are sampled.
const PREVIEW_MAX_CELLS: u64 = 2_000_000;

/// What the designer chose in the dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewMapChoice {
    /// Create the map with the settings.
    Create,
    /// Leave the heightmap unopened.
    Cancel,
}

/// The open dialog: the imported heightmap and the settings being edited.
pub struct NewMapDialog {
    /// The heightmap file.
    pub path: PathBuf,
    /// The settings as edited so far.
    pub settings: NewMapSettings,
    /// Whether the map has water (the level field is enabled).
    pub water_on: bool,
    /// The water level while `water_on`, in the heights' metres.
    pub water_level_m: f32,
    imported: ImportedHeightmap,
    /// Every `stride`-th sample, for the statistics of large maps.
    sampled: Option<(Heightmap, u32)>,
    preview: Option<(NewMapSettings, TerrainPreview)>,
    texture: Option<(TextureKey, TextureHandle)>,
    /// Why the settings cannot be used yet, shown beside the Create button.
    pub problem: Option<String>,
}

type TextureKey = (Option<u32>, u32, u32);

impl std::fmt::Debug for NewMapDialog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewMapDialog")
            .field("path", &self.path)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl NewMapDialog {
    /// Imports `path` and pre-fills the dialog.
    ///
    /// # Errors
    /// The library's one-sentence message when the heightmap cannot be imported.
    pub fn open(path: &Path) -> Result<Self, backend::BackendError> {
        let prefilled = backend::prefill_new_map(path)?;
        let settings = prefilled.settings;
        // A sensible level to start from when the designer ticks "Water": a tenth of the way up.
        let water_level_m =
            settings.height_black_m + 0.1 * (settings.height_white_m - settings.height_black_m);
        let hm = &prefilled.imported.heightmap;
        let cells = u64::from(hm.width) * u64::from(hm.height);
        let sampled = (cells > PREVIEW_MAX_CELLS).then(|| {
            let stride = (cells as f64 / PREVIEW_MAX_CELLS as f64).sqrt().ceil() as u32;
            (subsample(hm, stride), stride)
        });
        Ok(Self {
            path: path.to_path_buf(),
            water_on: settings.water_level_m.is_some(),
            water_level_m: settings.water_level_m.unwrap_or(water_level_m),
            settings,
            imported: prefilled.imported,
            sampled,
            preview: None,
            texture: None,
            problem: None,
        })
    }

    /// The settings with the water field applied.
    #[must_use]
    pub fn current_settings(&self) -> NewMapSettings {
        let mut s = self.settings.clone();
        s.water_level_m = self.water_on.then_some(self.water_level_m);
        s
    }

    /// The new map for the current settings, or the sentence saying which field to fix.
    ///
    /// # Errors
    /// The settings' validation message.
    pub fn build(&self) -> Result<LoadedMap, String> {
        let settings = self.current_settings();
        settings.validate(&self.path).map_err(|e| e.to_string())?;
        Ok(backend::new_map_with_settings(
            &self.path,
            self.imported.clone(),
            &settings,
        ))
    }

    /// The slope histogram and wall shares for the current settings (recomputed when they
    /// change).
    pub fn preview(&mut self) -> TerrainPreview {
        let settings = self.current_settings();
        if let Some((s, p)) = &self.preview
            && *s == settings
        {
            return p.clone();
        }
        let (heightmap, stride) = match &self.sampled {
            Some((hm, stride)) => (hm, *stride),
            None => (&self.imported.heightmap, 1),
        };
        let mut sampled_settings = settings.clone();
        sampled_settings.cell_size_m *= stride as f32;
        let document = sampled_settings.document("preview", "preview");
        let preview = backend::terrain_preview(&document, heightmap);
        self.preview = Some((settings, preview.clone()));
        preview
    }

    fn texture(&mut self, ctx: &egui::Context) -> TextureHandle {
        let s = self.current_settings();
        let key: TextureKey = (
            s.water_level_m.map(f32::to_bits),
            s.height_black_m.to_bits(),
            s.height_white_m.to_bits(),
        );
        if let Some((k, t)) = &self.texture
            && *k == key
        {
            return t.clone();
        }
        let image = water_preview_image(&self.imported.heightmap, &s);
        let texture = ctx.load_texture("new-map-preview", image, TextureOptions::NEAREST);
        self.texture = Some((key, texture.clone()));
        texture
    }

    /// Draws the dialog; returns the designer's choice once made.
    pub fn ui(&mut self, ctx: &egui::Context) -> Option<NewMapChoice> {
        let mut choice = None;
        let file_name = self
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let texture = self.texture(ctx);
        let modal = egui::Modal::new(egui::Id::unique("new_map_dialog")).show(ctx, |ui| {
            ui.set_max_width(760.0);
            ui.heading(format!("New map from {file_name}"));
            let (width, height) = (
                self.imported.heightmap.width,
                self.imported.heightmap.height,
            );
            ui.weak(format!(
                "{width} × {height} samples · set the real scale before the first bake"
            ));
            ui.add_space(6.0);
            ui.horizontal_top(|ui| {
                ui.vertical(|ui| {
                    ui.set_width(360.0);
                    self.fields_ui(ui);
                    ui.add_space(6.0);
                    for note in &self.settings.notes {
                        ui.label(RichText::new(note).weak());
                    }
                });
                ui.add_space(16.0);
                ui.vertical(|ui| {
                    let size = preview_size(width, height);
                    ui.add(egui::Image::new((texture.id(), size)));
                    ui.label(
                        RichText::new(if self.water_on {
                            "Water shown in blue"
                        } else {
                            "No water"
                        })
                        .small()
                        .weak(),
                    );
                });
            });
            ui.separator();
            self.statistics_ui(ui);
            ui.separator();
            ui.horizontal(|ui| {
                let create = ui.add(
                    egui::Button::new(RichText::new("Create map").strong())
                        .fill(ui.visuals().selection.bg_fill),
                );
                if create.clicked() {
                    choice = Some(NewMapChoice::Create);
                }
                if ui.button("Cancel").clicked() {
                    choice = Some(NewMapChoice::Cancel);
                }
                if let Some(problem) = &self.problem {
                    ui.colored_label(Color32::from_rgb(240, 120, 100), problem);
                }
            });
        });
        // Esc cancels, as in any dialog; a click beside it does not (the fields would be lost).
        let escape = modal.is_top_modal
            && !modal.any_popup_open
            && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
        if choice.is_none() && escape {
            choice = Some(NewMapChoice::Cancel);
        }
        choice
    }

    fn fields_ui(&mut self, ui: &mut egui::Ui) {
        let s = &mut self.settings;
        egui::Grid::new("new_map_fields")
            .num_columns(2)
            .spacing([10.0, 6.0])
            .show(ui, |ui| {
                labelled_row_ui(
                    ui,
                    "Cell size",
                    cell_size_field(&mut s.cell_size_m)
                        .speed(0.1)
                        .max_decimals(2),
                )
                .on_hover_text("Width and depth of one cell (one heightmap sample)");

                let what = if s.metric {
                    "Heights (from the file)"
                } else {
                    "Height at black"
                };
                let l = ui.label(what);
                ui.add_enabled_ui(!s.metric, |ui| {
                    ui.horizontal(|ui| {
                        ui.add(
                            egui::DragValue::new(&mut s.height_black_m)
                                .speed(1.0)
                                .suffix(" m"),
                        )
                        .labelled_by(l.id);
                        let to = ui.label(if s.metric { "to" } else { "at white" });
                        ui.add(
                            egui::DragValue::new(&mut s.height_white_m)
                                .speed(1.0)
                                .suffix(" m"),
                        )
                        .labelled_by(to.id);
                    });
                });
                ui.end_row();

                let l = ui.label("Water");
                ui.horizontal(|ui| {
                    ui.checkbox(&mut self.water_on, "below")
                        .labelled_by(l.id)
                        .on_hover_text("Cells lower than the level are water");
                    ui.add_enabled(
                        self.water_on,
                        egui::DragValue::new(&mut self.water_level_m)
                            .speed(1.0)
                            .suffix(" m"),
                    )
                    .labelled_by(l.id);
                });
                ui.end_row();

                labelled_row_ui(ui, "Sector size", sector_size_field(&mut s.sector_size))
                    .on_hover_text("Edge of a flow-field sector; 10–32 suits most maps");

                let l = ui.label("Movement types");
                egui::ComboBox::from_id_salt("new_map_preset")
                    .selected_text(s.preset.label())
                    .show_ui(ui, |ui| {
                        for p in MovementPreset::ALL {
                            ui.selectable_value(&mut s.preset, p, p.label());
                        }
                    })
                    .response
                    .labelled_by(l.id);
                ui.end_row();

                ui.label("Map size");
                let hm = &self.imported.heightmap;
                ui.label(format!(
                    "{:.1} × {:.1} km",
                    f64::from(hm.width) * f64::from(s.cell_size_m) / 1000.0,
                    f64::from(hm.height) * f64::from(s.cell_size_m) / 1000.0
                ));
                ui.end_row();
            });
    }

    fn statistics_ui(&mut self, ui: &mut egui::Ui) {
        let sampled = self.sampled.as_ref().map(|(_, s)| *s);
        let types = self.settings.preset.movement_types();
        let water_on = self.water_on;
        let preview = self.preview();
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.label(RichText::new("Slope").strong());
                slope_histogram_ui(ui, &preview, &types);
            });
            ui.add_space(24.0);
            ui.vertical(|ui| {
                ui.label(RichText::new("Walls before baking").strong());
                egui::Grid::new("new_map_walls")
                    .num_columns(3)
                    .spacing([12.0, 4.0])
                    .show(ui, |ui| {
                        for ((name, share), ty) in preview.wall_share.iter().zip(&types) {
                            ui.label(name);
                            let pct = 100.0 * share;
                            let colour = if pct >= 50.0 {
                                Color32::from_rgb(240, 110, 90)
                            } else if pct >= 25.0 {
                                Color32::from_rgb(235, 190, 90)
                            } else {
                                ui.visuals().text_color()
                            };
                            ui.label(RichText::new(format!("{pct:.1} %")).color(colour).strong());
                            ui.weak(format!("max slope {:.0}°", ty.max_slope_deg));
                            ui.end_row();
                        }
                    });
                if water_on {
                    ui.label(format!(
                        "Water: {:.1} % of cells",
                        100.0 * preview.water_share
                    ));
                }
                ui.label(
                    RichText::new(
                        "Too steep, water a type cannot cross, and no-data cells. \
                         The wall buffer of large units adds more.",
                    )
                    .small()
                    .weak(),
                );
                if let Some(stride) = sampled {
                    ui.label(
                        RichText::new(format!("Estimated from every {stride}th sample."))
                            .small()
                            .weak(),
                    );
                }
            });
        });
    }
}

/// Bars per 5° of slope, each type's max slope marked by a line in its own colour.
fn slope_histogram_ui(
    ui: &mut egui::Ui,
    preview: &TerrainPreview,
    types: &[crate::map::MovementType],
) {
    let size = egui::vec2(300.0, 96.0);
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    let painter = ui.painter_at(rect.expand(2.0));
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let total: u64 = preview.slope_histogram.iter().sum::<u64>().max(1);
    let max = preview
        .slope_histogram
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let plot = rect.shrink2(egui::vec2(4.0, 4.0));
    let bar_w = plot.width() / SLOPE_BINS as f32;
    for (i, &count) in preview.slope_histogram.iter().enumerate() {
        let h = plot.height() * (count as f32 / max as f32);
        let x0 = plot.left() + i as f32 * bar_w;
        let bar = egui::Rect::from_min_max(
            egui::pos2(x0 + 1.0, plot.bottom() - h),
            egui::pos2(x0 + bar_w - 1.0, plot.bottom()),
        );
        painter.rect_filled(bar, 1.0, Color32::from_rgb(120, 150, 190));
    }
    let colours = [
        Color32::from_rgb(240, 200, 90),
        Color32::from_rgb(110, 210, 220),
        Color32::from_rgb(230, 120, 200),
    ];
    let deg_to_x =
        |deg: f32| plot.left() + plot.width() * (deg / (SLOPE_BIN_DEG * SLOPE_BINS as f32));
    for (ty, colour) in types.iter().zip(colours.iter().cycle()) {
        let x = deg_to_x(ty.max_slope_deg);
        painter.line_segment(
            [egui::pos2(x, plot.top()), egui::pos2(x, plot.bottom())],
            egui::Stroke::new(1.5, *colour),
        );
    }
    let steep: u64 = preview.slope_histogram[6..].iter().sum();
    ui.horizontal(|ui| {
        ui.label(RichText::new("0°").small().weak());
        ui.add_space(120.0);
        ui.label(RichText::new("45°").small().weak());
        ui.add_space(110.0);
        ui.label(RichText::new("90°").small().weak());
    });
    ui.horizontal_wrapped(|ui| {
        for (ty, colour) in types.iter().zip(colours.iter().cycle()) {
            ui.label(
                RichText::new(format!("| {}", ty.name))
                    .color(*colour)
                    .small(),
            );
        }
        ui.label(
            RichText::new(format!(
                "· {:.0} % of cells steeper than 30°",
                100.0 * steep as f64 / total as f64
            ))
            .small()
            .weak(),
        );
    });
}

/// Display size of the preview image: the longest side [`PREVIEW_SIDE_PX`].
fn preview_size(width: u32, height: u32) -> egui::Vec2 {
    let longest = width.max(height).max(1) as f32;
    let scale = PREVIEW_SIDE_PX as f32 / longest;
    egui::vec2(width as f32 * scale, height as f32 * scale)
}

/// The heightmap in grey (black = low), water cells blue, the water line bright.
fn water_preview_image(hm: &Heightmap, s: &NewMapSettings) -> ColorImage {
    let longest = hm.width.max(hm.height).max(1);
    let step = longest.div_ceil(PREVIEW_SIDE_PX).max(1);
    let (w, h) = (hm.width.div_ceil(step), hm.height.div_ceil(step));
    let scale = s.height_scale_m();
    let level = s.water_level_m.map(|l| l - s.height_black_m);
    let at = |x: u32, y: u32| -> f32 {
        let (x, y) = ((x * step).min(hm.width - 1), (y * step).min(hm.height - 1));
        hm.height01
            .get(y as usize * hm.width as usize + x as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let wet = |x: u32, y: u32| level.is_some_and(|l| at(x, y) * scale < l);
    let mut pixels = Vec::with_capacity(w as usize * h as usize);
    for y in 0..h {
        for x in 0..w {
            let h01 = at(x, y);
            let grey = (40.0 + 200.0 * h01.clamp(0.0, 1.0)) as u8;
            let colour = if wet(x, y) {
                let shore = (x + 1 < w && !wet(x + 1, y))
                    || (x > 0 && !wet(x - 1, y))
                    || (y + 1 < h && !wet(x, y + 1))
                    || (y > 0 && !wet(x, y - 1));
                if shore {
                    Color32::from_rgb(170, 230, 255)
                } else {
                    Color32::from_rgb(30, 80 + grey / 4, 170 + grey / 6)
                }
            } else {
                Color32::from_gray(grey)
            };
            pixels.push(colour);
        }
    }
    ColorImage::new([w as usize, h as usize], pixels)
}

/// Every `stride`-th sample in each direction (blocked cells kept).
fn subsample(hm: &Heightmap, stride: u32) -> Heightmap {
    let stride = stride.max(1);
    let (w, h) = (hm.width.div_ceil(stride), hm.height.div_ceil(stride));
    let mut height01 = Vec::with_capacity(w as usize * h as usize);
    let mut blocked = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let i = (y * stride) as usize * hm.width as usize + (x * stride) as usize;
            height01.push(hm.height01.get(i).copied().unwrap_or(0.0));
            if !hm.blocked.is_empty() {
                blocked.push(hm.blocked.get(i).copied().unwrap_or(false));
            }
        }
    }
    Heightmap {
        width: w,
        height: h,
        height01,
        blocked,
    }
}
