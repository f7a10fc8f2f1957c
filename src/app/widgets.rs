//! Small widgets shared by the panels and dialogs.

/// A form row in an `egui::Grid`: `label`, then `widget` labelled by it (so screen readers
/// and kittest tests find the widget by its label), then the end of the row.
pub fn labelled_row_ui(
    ui: &mut egui::Ui,
    label: &str,
    widget: impl egui::Widget,
) -> egui::Response {
    let label = ui.label(label);
    let response = ui.add(widget).labelled_by(label.id);
    ui.end_row();
    response
}

/// The cell size field of the New map dialog and the Map panel; each sets its own drag speed.
pub fn cell_size_field(cell_size_m: &mut f32) -> egui::DragValue<'_> {
    egui::DragValue::new(cell_size_m)
        .range(0.01..=10_000.0)
        .suffix(" m")
}

/// The sector size field of the New map dialog and the Map panel: the document's limits.
pub fn sector_size_field(sector_size: &mut u16) -> egui::DragValue<'_> {
    egui::DragValue::new(sector_size)
        .range(1..=255)
        .suffix(" cells")
}
