//! Legend widgets for the Overlays panel: a colour ramp with end labels, and a swatch.

use egui::Color32;

/// A horizontal colour ramp with end labels, for the legend.
pub fn ramp_legend_ui(
    ui: &mut egui::Ui,
    label: &str,
    low: &str,
    high: &str,
    color: impl Fn(f32) -> Color32,
) {
    if !label.is_empty() {
        ui.label(egui::RichText::new(label).strong());
    }
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new(low).small());
        let (rect, _) = ui.allocate_exact_size(egui::vec2(120.0, 10.0), egui::Sense::hover());
        let steps = 24;
        for k in 0..steps {
            let t0 = k as f32 / steps as f32;
            let x0 = egui::lerp(rect.x_range(), t0);
            let x1 = egui::lerp(rect.x_range(), (k + 1) as f32 / steps as f32);
            ui.painter().rect_filled(
                egui::Rect::from_x_y_ranges(x0..=x1, rect.y_range()),
                0.0,
                color(t0),
            );
        }
        ui.label(egui::RichText::new(high).small());
    });
}

/// A colour swatch with a label, for the legend.
pub fn swatch_ui(ui: &mut egui::Ui, color: Color32, label: &str) {
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
        ui.painter().rect_filled(rect, 2.0, color);
        ui.painter().rect_stroke(
            rect,
            2.0,
            egui::Stroke::new(1.0, Color32::from_gray(90)),
            egui::StrokeKind::Inside,
        );
        ui.label(egui::RichText::new(label).small());
    });
}
