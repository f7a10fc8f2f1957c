//! Viewport overlays: height (hill-shaded), slope, cost, walls and paint, one tiled GPU
//! texture each ([`TiledTexture`]), updated for dirty rectangles only. Island ids and
//! the goal preview (integration heat map, line of sight) come from the nav data; portals,
//! flow arrows and routes are drawn as shapes by the viewport.
//!
//! [`colors`] holds the ramps and [`images`] builds the images on the CPU: plain functions
//! that the bake thread calls too. This module keeps the GPU textures up to date.

pub mod colors;
pub mod images;
pub mod tiled;

use egui::ColorImage;

pub use colors::{
    BUFFER_COLOR, SLOPE_RAMP_MAX_DEG, WALL_COLOR, contribution_color, cost_color, height_color,
    island_color, paint_color, slope_color,
};
pub use images::{BakedImages, IslandImage, IslandsShown, hillshade_image, islands_image};
use images::{contribution_image, cost_images, image_from, paint_for_type};
pub use tiled::TiledTexture;

use super::backend::BakeOutput;
use super::goal_preview::GoalPreview;
use super::model::OpenMap;
use super::state::OverlaySettings;
use crate::nav::NavData;
use crate::nav::grid::CellRect;

/// The overlay textures of the open map.
#[derive(Default)]
pub struct OverlayTextures {
    /// Hill-shaded height.
    pub height: Option<TiledTexture>,
    /// Slope ramp.
    pub slope: Option<TiledTexture>,
    /// Cost of the selected type.
    pub cost: Option<TiledTexture>,
    /// Walls of the selected type.
    pub walls: Option<TiledTexture>,
    /// Wall-buffer walls and wall-blur cost of the selected type.
    pub contribution: Option<TiledTexture>,
    /// Paint for the selected type.
    pub paint: Option<TiledTexture>,
    /// Island ids of the selected type (from the nav data).
    pub islands: Option<TiledTexture>,
    /// The islands the island texture shows.
    pub islands_shown: Option<IslandsShown>,
    /// Integration heat map and line of sight of the goal preview.
    pub goal: Option<TiledTexture>,
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
    slot: &mut Option<TiledTexture>,
    name: &str,
    rect: CellRect,
    full: CellRect,
    image: ColorImage,
) {
    match slot {
        Some(tex)
            if rect != full && tex.size() == [full.width() as usize, full.height() as usize] =>
        {
            tex.set_partial([rect.x0 as usize, rect.y0 as usize], &image);
        }
        _ => *slot = Some(TiledTexture::new(ctx, name, image)),
    }
}

/// [`upload`] of a whole-map `image` if its overlay is `shown`; else, or without an image (the
/// bake builds none of an overlay hidden when it was asked for), the slot's texture is let
/// go, to be built once shown. Returns the cells uploaded.
fn upload_if_shown(
    ctx: &egui::Context,
    slot: &mut Option<TiledTexture>,
    name: &str,
    shown: bool,
    full: CellRect,
    image: Option<ColorImage>,
) -> usize {
    let Some(image) = image.filter(|_| shown) else {
        *slot = None;
        return 0;
    };
    upload(ctx, slot, name, full, full, image);
    full.area()
}

impl OverlayTextures {
    /// Builds the height texture for a newly opened map and drops the others.
    pub fn reset(&mut self, ctx: &egui::Context, map: &OpenMap) {
        *self = Self::default();
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let image = hillshade_image(&map.document, &map.heightmap, full);
        self.uploaded_cells += full.area();
        self.height = Some(TiledTexture::new(ctx, "overlay-height", image));
    }

    /// Rebuilds the height texture (height scale or water level changed).
    pub fn refresh_height(&mut self, ctx: &egui::Context, map: &OpenMap) {
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let image = hillshade_image(&map.document, &map.heightmap, full);
        self.uploaded_cells += full.area();
        upload(ctx, &mut self.height, "overlay-height", full, full, image);
    }

    /// Builds the textures of overlays shown since they were let go (see
    /// [`Self::install_baked`]): the slope, and the wall buffer and blur of `type_index`.
    pub fn build_shown(
        &mut self,
        ctx: &egui::Context,
        map: &OpenMap,
        baked: &BakeOutput,
        type_index: usize,
        shown: OverlaySettings,
    ) {
        if shown.slope && self.slope.is_none() {
            self.refresh_slope(ctx, map, baked);
        }
        if shown.contributions
            && self.contribution.is_none()
            && let Some(layers) = baked.types.get(type_index)
        {
            let full = CellRect::full(map.heightmap.width, map.heightmap.height);
            let contribution = contribution_image(layers, full, full.x1);
            self.uploaded_cells += upload_if_shown(
                ctx,
                &mut self.contribution,
                "overlay-contribution",
                true,
                full,
                Some(contribution),
            );
        }
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
    /// The slope and the wall buffer and blur are uploaded only if `shown` shows them; a
    /// hidden one's texture is let go (at 8192² each is 256 MB of texture) and built by
    /// [`Self::build_shown`] once shown. Returns whether the cost textures now show
    /// `images.type_index`; `None` when the images do not fit the open map (nothing was
    /// uploaded).
    pub fn install_baked(
        &mut self,
        ctx: &egui::Context,
        map: &OpenMap,
        images: BakedImages,
        shown: OverlaySettings,
    ) -> Option<bool> {
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        if images.size != [full.width() as usize, full.height() as usize] {
            return None;
        }
        self.uploaded_cells += upload_if_shown(
            ctx,
            &mut self.slope,
            "overlay-slope",
            shown.slope,
            full,
            images.slope,
        );
        let Some([cost, walls]) = images.cost else {
            return Some(false);
        };
        upload(ctx, &mut self.cost, "overlay-cost", full, full, cost);
        upload(ctx, &mut self.walls, "overlay-walls", full, full, walls);
        self.uploaded_cells += 2 * full.area();
        self.uploaded_cells += upload_if_shown(
            ctx,
            &mut self.contribution,
            "overlay-contribution",
            shown.contributions,
            full,
            images.contribution,
        );
        Some(true)
    }

    /// Uploads the cost and walls textures of movement type `type_index` for `rect`, and the
    /// wall buffer and blur if `shown` shows them (else that texture is let go, as in
    /// [`Self::install_baked`]).
    pub fn refresh_cost(
        &mut self,
        ctx: &egui::Context,
        map: &OpenMap,
        baked: &BakeOutput,
        type_index: usize,
        rect: CellRect,
        shown: OverlaySettings,
    ) {
        let Some(layers) = baked.types.get(type_index) else {
            self.cost = None;
            self.walls = None;
            self.contribution = None;
            return;
        };
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let [cost, walls] = cost_images(layers, rect, full.x1);
        upload(ctx, &mut self.cost, "overlay-cost", rect, full, cost);
        upload(ctx, &mut self.walls, "overlay-walls", rect, full, walls);
        self.uploaded_cells += 2 * rect.area();
        if !shown.contributions {
            self.contribution = None;
        } else if self.contribution.is_some() || rect == full {
            upload(
                ctx,
                &mut self.contribution,
                "overlay-contribution",
                rect,
                full,
                contribution_image(layers, rect, full.x1),
            );
            self.uploaded_cells += rect.area();
        } else {
            self.build_shown(ctx, map, baked, type_index, shown);
        }
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
    /// Uploads the island texture of nav layer `layer` when its islands or the type changed.
    pub fn refresh_islands(&mut self, ctx: &egui::Context, nav: &NavData, layer: usize) {
        if self
            .islands_shown
            .as_ref()
            .is_some_and(|s| s.is_current(nav, layer))
        {
            return;
        }
        self.install_islands(ctx, islands_image(nav, layer), nav, layer);
    }

    /// Uploads an island image of nav layer `layer` of `nav` built elsewhere (the bake thread
    /// builds it with nav data it sends back; `None`: the layer does not exist).
    pub fn install_islands(
        &mut self,
        ctx: &egui::Context,
        image: Option<ColorImage>,
        nav: &NavData,
        layer: usize,
    ) {
        self.islands_shown = Some(IslandsShown::of(nav, layer));
        let Some(image) = image else {
            self.islands = None;
            return;
        };
        let full = CellRect::full(image.size[0] as u32, image.size[1] as u32);
        self.uploaded_cells += full.area();
        upload(ctx, &mut self.islands, "overlay-islands", full, full, image);
    }

    /// Uploads an island image the bake thread sent with nav data `nav`. Part of the map goes
    /// only onto a texture that shows the islands it was drawn against; otherwise the texture
    /// is left for [`Self::refresh_islands`] to redraw whole.
    pub fn install_island_patch(&mut self, ctx: &egui::Context, patch: IslandImage, nav: &NavData) {
        let IslandImage { layer, image, part } = patch;
        let Some((rect, base)) = part else {
            self.install_islands(ctx, image, nav, layer);
            return;
        };
        let fits = self.islands.is_some()
            && self
                .islands_shown
                .as_ref()
                .is_some_and(|s| s.same_as(&base));
        let (Some(image), Some(l), true) = (image, nav.layers.get(layer), fits) else {
            return;
        };
        let full = CellRect::full(l.cost.spec.width, l.cost.spec.height);
        if !rect.is_empty() {
            upload(ctx, &mut self.islands, "overlay-islands", rect, full, image);
            self.uploaded_cells += rect.area();
        }
        self.islands_shown = Some(IslandsShown::of(nav, layer));
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
