//! The Bake panel: Bake / Cancel, progress, per-stage timings as a bar chart, and
//! per-movement-type statistics.

use std::time::Duration;

use egui::{Color32, Ui};

use crate::app::backend::{BakeOutput, BakeProgress};

/// What the designer asked for in the panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BakeAction {
    /// Start a full bake.
    Bake,
    /// Stop the running bake.
    Cancel,
    /// Write the bake as a nav package.
    Export,
}

/// What the panel shows.
#[derive(Debug)]
pub struct BakeView<'a> {
    /// Whether the worker is busy.
    pub busy: bool,
    /// Its latest progress.
    pub progress: Option<&'a BakeProgress>,
    /// The latest bake.
    pub baked: Option<&'a BakeOutput>,
    /// Stage timings of the last full bake.
    pub full_timings: &'a [(String, Duration)],
    /// Cells on the map.
    pub cell_count: usize,
    /// Whether the shown costs match the document.
    pub current: bool,
    /// Whether a nav package is shown (nothing to bake or export).
    pub read_only: bool,
}

/// Draws the panel; returns the requested action.
pub fn bake_ui(ui: &mut Ui, view: &BakeView<'_>, auto_rebake: &mut bool) -> Option<BakeAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!view.busy && !view.read_only, egui::Button::new("Bake"))
            .on_hover_text("Bake every movement type from scratch")
            .on_disabled_hover_text("A nav package is shown read-only: open its map to bake")
            .clicked()
        {
            action = Some(BakeAction::Bake);
        }
        if ui
            .add_enabled(view.busy, egui::Button::new("Cancel"))
            .on_hover_text("Stop the running bake; the previous result stays on screen")
            .clicked()
        {
            action = Some(BakeAction::Cancel);
        }
        ui.checkbox(auto_rebake, "Auto").on_hover_text(
            "Re-bake automatically after every edit (only the painted cells are re-baked)",
        );
    });
    if ui
        .add_enabled(
            (view.baked.is_some() || view.busy) && !view.read_only,
            egui::Button::new("Export nav package…"),
        )
        .on_hover_text(
            "Write the bake as NAME.navpkg, the file a game loads; while a bake runs, it is written once the bake is up to date",
        )
        .clicked()
    {
        action = Some(BakeAction::Export);
    }
    let (fraction, text) = match (view.busy, view.progress) {
        (true, Some(p)) => (p.fraction, format!("{} …", p.stage)),
        (true, None) => (0.0, "queued …".to_owned()),
        (false, _) if view.read_only => (1.0, "nav package (read-only)".to_owned()),
        (false, _) if view.current => (1.0, "up to date".to_owned()),
        (false, _) if view.baked.is_some() => (1.0, "out of date — press Bake".to_owned()),
        (false, _) => (0.0, "not baked".to_owned()),
    };
    ui.add(
        egui::ProgressBar::new(fraction)
            .text(text)
            .animate(view.busy),
    );

    if !view.full_timings.is_empty() {
        let total: Duration = view.full_timings.iter().map(|t| t.1).sum();
        ui.label(format!(
            "Last full bake: {:.1} ms",
            total.as_secs_f64() * 1000.0
        ));
        // One row per stage, each named: a chart's axis labels only every few bars.
        let longest = view
            .full_timings
            .iter()
            .map(|t| t.1)
            .max()
            .unwrap_or_default()
            .as_secs_f64()
            .max(1e-9);
        egui::CollapsingHeader::new("Stage timings").show(ui, |ui| {
            egui::Grid::new("bake_timings")
                .num_columns(3)
                .spacing([8.0, 2.0])
                .show(ui, |ui| {
                    for (name, d) in view.full_timings {
                        ui.label(name.trim_start_matches("cost: "));
                        let (rect, _) =
                            ui.allocate_exact_size(egui::vec2(110.0, 10.0), egui::Sense::hover());
                        let mut bar = rect;
                        bar.set_width((rect.width() * (d.as_secs_f64() / longest) as f32).max(1.0));
                        ui.painter()
                            .rect_filled(bar, 2.0, Color32::from_rgb(90, 150, 220));
                        ui.weak(format!("{:.1} ms", d.as_secs_f64() * 1000.0));
                        ui.end_row();
                    }
                });
        });
    }

    if let Some(baked) = view.baked {
        egui::Grid::new("bake_stats")
            .num_columns(3)
            .striped(true)
            .show(ui, |ui| {
                ui.strong("type");
                ui.strong("walls");
                ui.strong("mean cost");
                ui.end_row();
                for t in &baked.types {
                    ui.label(&t.name);
                    let share = 100.0 * t.wall_count as f64 / view.cell_count.max(1) as f64;
                    ui.label(format!("{} ({share:.1} %)", t.wall_count));
                    ui.label(format!("{:.2}", t.mean_cost));
                    ui.end_row();
                }
            });
        if let Some((name, d)) = baked.timings.first()
            && name == "rebake rect"
        {
            ui.weak(format!(
                "last paint re-bake: {:.2} ms",
                d.as_secs_f64() * 1000.0
            ));
        }
    }
    action
}
