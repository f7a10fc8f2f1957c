//! Viewport overlays: colour ramps for height (hill-shaded), slope, cost, walls and paint,
//! one GPU texture each, updated with `TextureHandle::set_partial` for dirty rectangles
//! only, plus the legend. Island ids and the goal preview (integration heat map, line of
//! sight) come from the nav data; portals, flow arrows and routes are drawn as shapes by
//! the viewport.

use egui::{Color32, ColorImage, TextureHandle, TextureOptions};

use crate::map::{Heightmap, MapDocument, PaintCell, PaintForce, PaintTarget};
use crate::nav::grid::WALL;

use super::backend::BakeOutput;
use super::goal::GoalPreview;
use super::state::{CellRect, OpenMap};
use crate::nav::NavData;

/// Colour of wall cells in the cost and walls overlays: dark, so no cost reads as a wall.
pub const WALL_COLOR: Color32 = Color32::from_rgb(24, 18, 34);
/// Colour of water in the height overlay.
const WATER_COLOR: [f32; 3] = [38.0, 78.0, 132.0];
/// Steepest slope the slope ramp distinguishes. `[Units: degrees]`
pub const SLOPE_RAMP_MAX_DEG: f32 = 60.0;

/// Which overlays are visible.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlaySettings {
    /// Hill-shaded height (the base layer).
    pub height: bool,
    /// Slope colour ramp.
    pub slope: bool,
    /// Cost of the selected movement type.
    pub cost: bool,
    /// Walls of the selected movement type.
    pub walls: bool,
    /// Paint that applies to the selected movement type.
    pub paint: bool,
    /// Sector grid lines (when zoomed in enough).
    pub sectors: bool,
    /// One colour per island of the selected movement type.
    pub islands: bool,
    /// Portal windows on sector borders, and the portal graph when zoomed in.
    pub portals: bool,
    /// Sectors whose costs are all 1 (stored as the one shared clear field).
    pub clear_sectors: bool,
    /// Integrated cost toward the goal (goal tool).
    pub integration: bool,
    /// Flow arrows toward the goal, where zoomed in enough to read them.
    pub flow: bool,
    /// Cells that see the goal in a straight line.
    pub line_of_sight: bool,
    /// Placed stamps' outlines and ids.
    pub stamps: bool,
    /// Walls added by the wall buffer and cost added by the wall blur (selected type).
    pub contributions: bool,
    /// Opacity of the slope and cost overlays over the height. `[Limit: 0..=1]`
    pub opacity: f32,
}

impl Default for OverlaySettings {
    fn default() -> Self {
        Self {
            height: true,
            slope: false,
            cost: true,
            walls: true,
            paint: true,
            sectors: true,
            islands: false,
            portals: false,
            clear_sectors: false,
            integration: true,
            flow: true,
            line_of_sight: true,
            stamps: true,
            contributions: false,
            opacity: 0.6,
        }
    }
}

fn lerp_rgb(stops: &[(f32, [f32; 3])], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    for pair in stops.windows(2) {
        let ((t0, c0), (t1, c1)) = (pair[0], pair[1]);
        if t <= t1 {
            let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
            return [
                c0[0] + (c1[0] - c0[0]) * u,
                c0[1] + (c1[1] - c0[1]) * u,
                c0[2] + (c1[2] - c0[2]) * u,
            ];
        }
    }
    stops.last().map_or([0.0; 3], |s| s.1)
}

fn rgba(c: [f32; 3], alpha: u8) -> Color32 {
    Color32::from_rgba_unmultiplied(c[0] as u8, c[1] as u8, c[2] as u8, alpha)
}

/// Hypsometric tint for a height `0.0..=1.0`.
fn height_tint(h01: f32) -> [f32; 3] {
    lerp_rgb(
        &[
            (0.0, [52.0, 92.0, 62.0]),
            (0.3, [104.0, 128.0, 76.0]),
            (0.6, [156.0, 136.0, 100.0]),
            (0.85, [196.0, 190.0, 180.0]),
            (1.0, [240.0, 240.0, 236.0]),
        ],
        h01,
    )
}

/// Colour of a height (no shading), for the legend.
#[must_use]
pub fn height_color(h01: f32) -> Color32 {
    rgba(height_tint(h01), 255)
}

/// Slope ramp: flat dark blue → green → yellow → red at [`SLOPE_RAMP_MAX_DEG`].
#[must_use]
pub fn slope_color(slope_deg: f32, alpha: u8) -> Color32 {
    let c = lerp_rgb(
        &[
            (0.0, [30.0, 60.0, 140.0]),
            (0.25, [40.0, 170.0, 120.0]),
            (0.5, [230.0, 220.0, 60.0]),
            (0.75, [235.0, 120.0, 40.0]),
            (1.0, [200.0, 30.0, 40.0]),
        ],
        slope_deg / SLOPE_RAMP_MAX_DEG,
    );
    rgba(c, alpha)
}

/// Cost ramp: 1 green → yellow → 254 red; walls [`WALL_COLOR`].
#[must_use]
pub fn cost_color(cost: u8, alpha: u8) -> Color32 {
    if cost == WALL {
        return WALL_COLOR;
    }
    // Most costs are small, so the ramp is stretched at the low end (square root).
    let t = ((f32::from(cost) - 1.0) / 253.0).sqrt();
    let c = lerp_rgb(
        &[
            (0.0, [60.0, 190.0, 90.0]),
            (0.5, [235.0, 215.0, 60.0]),
            (1.0, [215.0, 45.0, 40.0]),
        ],
        t,
    );
    rgba(c, alpha)
}

/// Paint colour: orange for added cost, cyan for removed, magenta for forced walls, white
/// for forced clears; transparent where nothing is painted.
#[must_use]
pub fn paint_color(cell: PaintCell) -> Color32 {
    match cell.force {
        PaintForce::Wall => Color32::from_rgba_unmultiplied(220, 50, 200, 210),
        PaintForce::Clear => Color32::from_rgba_unmultiplied(235, 245, 255, 170),
        PaintForce::None if cell.delta > 0 => {
            let a = 60 + (cell.delta.min(120) as u32 * 150 / 120) as u8;
            Color32::from_rgba_unmultiplied(255, 140, 20, a)
        }
        PaintForce::None if cell.delta < 0 => {
            let a = 60 + ((-cell.delta).min(120) as u32 * 150 / 120) as u8;
            Color32::from_rgba_unmultiplied(30, 200, 255, a)
        }
        PaintForce::None => Color32::TRANSPARENT,
    }
}

/// Hill-shaded, height-tinted colours of a rectangle (light from the north-west).
#[must_use]
pub fn hillshade_image(
    document: &MapDocument,
    heightmap: &Heightmap,
    rect: CellRect,
) -> ColorImage {
    let (w, h) = (heightmap.width as usize, heightmap.height as usize);
    let at = |x: usize, y: usize| heightmap.height01[y * w + x] * document.height_scale_m;
    let cell = document.cell_size_m.max(f32::EPSILON);
    let light = {
        let (lx, ly, lz) = (-1.0f32, -1.0f32, 1.4f32);
        let n = (lx * lx + ly * ly + lz * lz).sqrt();
        (lx / n, ly / n, lz / n)
    };
    let mut pixels = Vec::with_capacity(rect.area());
    for y in rect.y0 as usize..rect.y1 as usize {
        for x in rect.x0 as usize..rect.x1 as usize {
            let (x0, x1) = (x.saturating_sub(1), (x + 1).min(w - 1));
            let (y0, y1) = (y.saturating_sub(1), (y + 1).min(h - 1));
            // Exaggerated 2x so gentle terrain still reads.
            let dx = 2.0 * (at(x1, y) - at(x0, y)) / (cell * (x1 - x0).max(1) as f32);
            let dy = 2.0 * (at(x, y1) - at(x, y0)) / (cell * (y1 - y0).max(1) as f32);
            let n = (dx * dx + dy * dy + 1.0).sqrt();
            let shade = ((-dx * light.0 - dy * light.1 + light.2) / n).max(0.0);
            let h01 = heightmap.height01[y * w + x];
            let base = if h01 * document.height_scale_m < document.water_level_m {
                WATER_COLOR
            } else {
                height_tint(h01)
            };
            let k = 0.35 + 0.8 * shade;
            pixels.push(rgba(
                [
                    (base[0] * k).min(255.0),
                    (base[1] * k).min(255.0),
                    (base[2] * k).min(255.0),
                ],
                255,
            ));
        }
    }
    ColorImage::new([rect.width() as usize, rect.height() as usize], pixels)
}

fn image_from(rect: CellRect, width: u32, color: impl Fn(usize) -> Color32 + Sync) -> ColorImage {
    use rayon::prelude::*;
    let w = rect.width() as usize;
    let mut pixels = vec![Color32::TRANSPARENT; rect.area()];
    if w > 0 {
        // Rows in parallel: a full 2048² overlay is 4 M cells, converted in the frame that
        // receives a bake.
        pixels
            .par_chunks_mut(w)
            .with_min_len(16)
            .enumerate()
            .for_each(|(row, out)| {
                let start = (rect.y0 as usize + row) * width as usize + rect.x0 as usize;
                for (k, px) in out.iter_mut().enumerate() {
                    *px = color(start + k);
                }
            });
    }
    ColorImage::new([w, rect.height() as usize], pixels)
}

/// Sum of the paint that applies to movement type `type_name`, per cell of `rect`.
fn paint_for_type(document: &MapDocument, type_name: &str, index: usize) -> PaintCell {
    let mut out = PaintCell::default();
    for layer in &document.paint {
        let applies = match &layer.target {
            PaintTarget::All => true,
            PaintTarget::Type(name) => name == type_name,
        };
        if !applies {
            continue;
        }
        if let Some(cell) = layer.cells.get(index) {
            out.delta = out.delta.saturating_add(cell.delta);
            if cell.force != PaintForce::None {
                out.force = cell.force;
            }
        }
    }
    out
}

/// Full-map overlay images of a finished bake, built on the bake thread so the frame that
/// receives a 2048² bake only hands them to the renderer (building them there took
/// 160–260 ms of that frame).
#[derive(Clone, Debug, PartialEq)]
pub struct BakedImages {
    /// The slope ramp.
    pub slope: ColorImage,
    /// The movement type the cost images show.
    pub type_index: usize,
    /// Cost, walls and buffer / blur contributions of `type_index` (`None`: no such type).
    pub cost: Option<[ColorImage; 3]>,
    /// The island image of a nav layer, when the islands overlay is shown (see
    /// [`islands_image`]).
    pub islands: Option<(usize, Option<ColorImage>)>,
}

impl BakedImages {
    /// Builds the slope image and the cost images of `type_index` for a `width` × `height` map.
    #[must_use]
    pub fn build(
        baked: &BakeOutput,
        width: u32,
        height: u32,
        type_index: usize,
        islands_layer: Option<usize>,
    ) -> Self {
        let full = CellRect::full(width, height);
        let slope = image_from(full, width, |i| {
            slope_color(baked.slope_deg.get(i).copied().unwrap_or(0.0), 255)
        });
        let cost = baked
            .types
            .get(type_index)
            .map(|layers| cost_images(layers, full, width));
        let islands = islands_layer.and_then(|layer| {
            let nav = baked.baked.as_ref().map(|b| &b.nav)?;
            Some((layer, islands_image(nav, layer)))
        });
        Self {
            slope,
            type_index,
            cost,
            islands,
        }
    }
}

/// Cost, walls and contribution images of one type for `rect`.
fn cost_images(layers: &super::backend::TypeLayers, rect: CellRect, width: u32) -> [ColorImage; 3] {
    let cost = |i: usize| layers.final_cost.get(i).copied().unwrap_or(WALL);
    [
        image_from(rect, width, |i| cost_color(cost(i), 255)),
        image_from(rect, width, |i| {
            if cost(i) == WALL {
                WALL_COLOR
            } else {
                Color32::TRANSPARENT
            }
        }),
        image_from(rect, width, |i| {
            contribution_color(layers.contribution.get(i).copied().unwrap_or(0))
        }),
    ]
}

/// The overlay textures of the open map.
#[derive(Default)]
pub struct OverlayTextures {
    /// Hill-shaded height.
    pub height: Option<TextureHandle>,
    /// Slope ramp.
    pub slope: Option<TextureHandle>,
    /// Cost of the selected type.
    pub cost: Option<TextureHandle>,
    /// Walls of the selected type.
    pub walls: Option<TextureHandle>,
    /// Wall-buffer walls and wall-blur cost of the selected type.
    pub contribution: Option<TextureHandle>,
    /// Paint for the selected type.
    pub paint: Option<TextureHandle>,
    /// Island ids of the selected type (from the nav data).
    pub islands: Option<TextureHandle>,
    /// `(nav version, type)` the island texture shows.
    pub islands_key: Option<(u64, usize)>,
    /// Integration heat map and line of sight of the goal preview.
    pub goal: Option<TextureHandle>,
    /// `(preview version, heat shown, LOS shown)` the goal texture shows.
    pub goal_key: Option<(u64, bool, bool)>,
    /// Cells re-uploaded since the map was opened (a measure that partial updates work).
    pub uploaded_cells: usize,
}

impl std::fmt::Debug for OverlayTextures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OverlayTextures")
            .field("uploaded_cells", &self.uploaded_cells)
            .finish_non_exhaustive()
    }
}

fn upload(
    ctx: &egui::Context,
    slot: &mut Option<TextureHandle>,
    name: &str,
    rect: CellRect,
    full: CellRect,
    image: ColorImage,
) {
    match slot {
        Some(tex)
            if rect != full && tex.size() == [full.width() as usize, full.height() as usize] =>
        {
            tex.set_partial(
                [rect.x0 as usize, rect.y0 as usize],
                image,
                TextureOptions::NEAREST,
            );
        }
        _ => *slot = Some(ctx.load_texture(name, image, TextureOptions::NEAREST)),
    }
}

impl OverlayTextures {
    /// Builds the height texture for a newly opened map and drops the others.
    pub fn reset(&mut self, ctx: &egui::Context, map: &OpenMap) {
        *self = Self::default();
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let image = hillshade_image(&map.document, &map.heightmap, full);
        self.uploaded_cells += full.area();
        self.height = Some(ctx.load_texture("overlay-height", image, TextureOptions::NEAREST));
    }

    /// Rebuilds the height texture (height scale or water level changed).
    pub fn refresh_height(&mut self, ctx: &egui::Context, map: &OpenMap) {
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let image = hillshade_image(&map.document, &map.heightmap, full);
        self.uploaded_cells += full.area();
        upload(ctx, &mut self.height, "overlay-height", full, full, image);
    }

    /// Uploads the slope texture from a full bake.
    pub fn refresh_slope(&mut self, ctx: &egui::Context, map: &OpenMap, baked: &BakeOutput) {
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let image = image_from(full, full.x1, |i| {
            slope_color(baked.slope_deg.get(i).copied().unwrap_or(0.0), 255)
        });
        self.uploaded_cells += full.area();
        upload(ctx, &mut self.slope, "overlay-slope", full, full, image);
    }

    /// Uploads images the bake thread built (see [`BakedImages`]): nothing is converted here.
    /// Returns whether the cost textures now show `images.type_index`; `None` when the images
    /// do not fit the open map (nothing was uploaded).
    pub fn install_baked(
        &mut self,
        ctx: &egui::Context,
        map: &OpenMap,
        images: BakedImages,
    ) -> Option<bool> {
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        if images.slope.size != [full.width() as usize, full.height() as usize] {
            return None;
        }
        self.uploaded_cells += full.area();
        upload(
            ctx,
            &mut self.slope,
            "overlay-slope",
            full,
            full,
            images.slope,
        );
        let Some([cost, walls, contribution]) = images.cost else {
            return Some(false);
        };
        upload(ctx, &mut self.cost, "overlay-cost", full, full, cost);
        upload(ctx, &mut self.walls, "overlay-walls", full, full, walls);
        upload(
            ctx,
            &mut self.contribution,
            "overlay-contribution",
            full,
            full,
            contribution,
        );
        self.uploaded_cells += 3 * full.area();
        Some(true)
    }

    /// Uploads the cost and walls textures of movement type `type_index` for `rect`.
    pub fn refresh_cost(
        &mut self,
        ctx: &egui::Context,
        map: &OpenMap,
        baked: &BakeOutput,
        type_index: usize,
        rect: CellRect,
    ) {
        let Some(layers) = baked.types.get(type_index) else {
            self.cost = None;
            self.walls = None;
            return;
        };
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let [cost, walls, contribution] = cost_images(layers, rect, full.x1);
        upload(ctx, &mut self.cost, "overlay-cost", rect, full, cost);
        upload(ctx, &mut self.walls, "overlay-walls", rect, full, walls);
        upload(
            ctx,
            &mut self.contribution,
            "overlay-contribution",
            rect,
            full,
            contribution,
        );
        self.uploaded_cells += 3 * rect.area();
    }

    /// Uploads the paint texture for movement type `type_name` for `rect`.
    pub fn refresh_paint(
        &mut self,
        ctx: &egui::Context,
        map: &OpenMap,
        type_name: &str,
        rect: CellRect,
    ) {
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let image = image_from(rect, full.x1, |i| {
            paint_color(paint_for_type(&map.document, type_name, i))
        });
        upload(ctx, &mut self.paint, "overlay-paint", rect, full, image);
        self.uploaded_cells += rect.area();
    }
}

impl OverlayTextures {
    /// Uploads the island texture of nav layer `layer` when the nav data or type changed.
    pub fn refresh_islands(
        &mut self,
        ctx: &egui::Context,
        nav: &NavData,
        nav_version: u64,
        layer: usize,
    ) {
        if self.islands_key == Some((nav_version, layer)) {
            return;
        }
        self.install_islands(ctx, islands_image(nav, layer), nav_version, layer);
    }

    /// Uploads an island image of nav layer `layer` built elsewhere (the bake thread builds
    /// it with nav data it sends back; `None`: the layer does not exist).
    pub fn install_islands(
        &mut self,
        ctx: &egui::Context,
        image: Option<ColorImage>,
        nav_version: u64,
        layer: usize,
    ) {
        self.islands_key = Some((nav_version, layer));
        let Some(image) = image else {
            self.islands = None;
            return;
        };
        let full = CellRect::full(image.size[0] as u32, image.size[1] as u32);
        self.uploaded_cells += full.area();
        upload(ctx, &mut self.islands, "overlay-islands", full, full, image);
    }

    /// Uploads the goal preview texture when the preview or what it shows changed.
    pub fn refresh_goal(
        &mut self,
        ctx: &egui::Context,
        preview: &mut GoalPreview,
        size: (u32, u32),
        show: (bool, bool),
    ) {
        let key = (preview.version, show.0, show.1);
        if self.goal_key == Some(key) {
            return;
        }
        self.goal_key = Some(key);
        if preview.result.is_none() {
            self.goal = None;
            return;
        }
        let full = CellRect::full(size.0, size.1);
        // Built on the goal thread with the preview unless the shown layers changed since.
        let image = preview
            .take_image(show)
            .filter(|i| i.size == [size.0 as usize, size.1 as usize])
            .unwrap_or_else(|| preview.image(size.0, size.1, show.0, show.1));
        self.uploaded_cells += full.area();
        upload(ctx, &mut self.goal, "overlay-goal", full, full, image);
    }
}

/// One colour per island of nav layer `layer` (see [`island_color`]); `None` when there is
/// no such layer.
#[must_use]
pub fn islands_image(nav: &NavData, layer: usize) -> Option<ColorImage> {
    let l = nav.layers.get(layer)?;
    let spec = l.cost.spec;
    let full = CellRect::full(spec.width, spec.height);
    Some(image_from(full, spec.width, |i| {
        let (x, y) = (
            (i % spec.width as usize) as u32,
            (i / spec.width as usize) as u32,
        );
        island_color(l.islands.island_at(x, y))
    }))
}

/// Colour of a wall added by the large-unit wall buffer.
pub const BUFFER_COLOR: Color32 = Color32::from_rgb(255, 120, 40);

/// The buffer / blur overlay: buffer walls orange, blur magenta growing with the cost
/// added, untouched cells transparent.
#[must_use]
pub fn contribution_color(contribution: u8) -> Color32 {
    match contribution {
        0 => Color32::TRANSPARENT,
        WALL => BUFFER_COLOR,
        added => {
            let t = (f32::from(added) / 16.0).min(1.0);
            Color32::from_rgba_unmultiplied(230, 60, 220, (60.0 + 170.0 * t) as u8)
        }
    }
}

/// A distinct, stable colour for island `id` (0 = wall: transparent).
#[must_use]
pub fn island_color(id: u32) -> Color32 {
    if id == 0 {
        return Color32::TRANSPARENT;
    }
    // Golden-angle hue steps keep neighbouring ids apart.
    let hue = (id as f32 * 0.618_034).fract();
    let rgb = egui::ecolor::Hsva::new(hue, 0.75, 0.95, 1.0).to_srgb();
    Color32::from_rgba_unmultiplied(rgb[0], rgb[1], rgb[2], 170)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walls_never_share_a_colour_with_costs() {
        for c in 1..=254u8 {
            assert_ne!(cost_color(c, 255), WALL_COLOR, "cost {c}");
        }
        // Ramp ends: cheap is green-dominant, expensive is red-dominant.
        let cheap = cost_color(1, 255);
        let dear = cost_color(254, 255);
        assert!(cheap.g() > cheap.r());
        assert!(dear.r() > dear.g());
    }

    #[test]
    fn unpainted_cells_are_transparent() {
        assert_eq!(paint_color(PaintCell::default()), Color32::TRANSPARENT);
    }
}
