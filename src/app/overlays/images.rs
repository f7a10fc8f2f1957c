//! Overlay images built on the CPU, off the frame where they are large: the hill-shaded
//! height, cost, walls, wall-buffer contribution and paint of a rectangle, and island
//! colours. The bake thread builds whole-map images ([`BakedImages`]); the textures upload
//! them or a dirty rectangle.

use std::sync::Arc;

use egui::{Color32, ColorImage};

use super::colors::{
    WALL_COLOR, WATER_COLOR, contribution_color, cost_color, height_tint, island_color, rgba,
    slope_color,
};
use crate::app::backend::{BakeOutput, TypeLayers};
use crate::app::state::OverlaySettings;
use crate::map::{Heightmap, MapDocument, PaintCell, PaintForce, PaintTarget};
use crate::nav::NavData;
use crate::nav::grid::{CellRect, WALL};
use crate::nav::islands::Islands;

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
            let base = if h01 * document.height_scale_m < document.water_above_black_m() {
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

pub(super) fn image_from(
    rect: CellRect,
    width: u32,
    color: impl Fn(usize) -> Color32 + Sync,
) -> ColorImage {
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
pub(super) fn paint_for_type(document: &MapDocument, type_name: &str, index: usize) -> PaintCell {
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

/// What the window shows, so the bake thread builds the overlay images it needs.
#[derive(Clone, Copy, Debug)]
pub struct ImagesWanted {
    /// The movement type whose cost images to build.
    pub overlay_type: usize,
    /// The nav layer whose island image to build (the islands overlay is shown).
    pub islands_layer: Option<usize>,
    /// The overlays shown: the slope and contribution images are built only if shown.
    pub shown: OverlaySettings,
}

/// Full-map overlay images of a finished bake, built on the bake thread so the frame that
/// receives a 2048² bake only hands them to the renderer (building them there took
/// 160–260 ms of that frame). Overlays hidden when the bake was asked for get no image: at
/// 8192² the slope and the wall buffer and blur are 256 MB each, and
/// [`super::OverlayTextures::build_shown`] builds them once shown.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedImages {
    /// The map's size in cells, `[width, height]`.
    pub size: [usize; 2],
    /// The slope ramp, if shown.
    pub slope: Option<ColorImage>,
    /// The movement type the cost images show.
    pub type_index: usize,
    /// Cost and walls of `type_index` (`None`: no such type).
    pub cost: Option<[ColorImage; 2]>,
    /// The wall buffer and blur contributions of `type_index`, if shown and the type exists.
    pub contribution: Option<ColorImage>,
    /// The island image of a nav layer, when the islands overlay is shown (see
    /// [`islands_image`]).
    pub islands: Option<(usize, Option<ColorImage>)>,
}

impl BakedImages {
    /// Builds the images of a `width` × `height` map `wanted`: the cost images of its type,
    /// its island image, and the slope and the contributions if shown.
    #[must_use]
    pub fn build(baked: &BakeOutput, (width, height): (u32, u32), wanted: ImagesWanted) -> Self {
        let ImagesWanted {
            overlay_type: type_index,
            islands_layer,
            shown,
        } = wanted;
        let full = CellRect::full(width, height);
        let slope = shown.slope.then(|| {
            image_from(full, width, |i| {
                slope_color(baked.slope_deg.get(i).copied().unwrap_or(0.0), 255)
            })
        });
        let layers = baked.types.get(type_index);
        let cost = layers.map(|layers| cost_images(layers, full, width));
        let contribution = layers
            .filter(|_| shown.contributions)
            .map(|layers| contribution_image(layers, full, width));
        let islands = islands_layer.and_then(|layer| {
            let nav = baked.shared_nav.as_deref()?;
            Some((layer, islands_image(nav, layer)))
        });
        Self {
            size: [width as usize, height as usize],
            slope,
            type_index,
            cost,
            contribution,
            islands,
        }
    }
}

/// Cost and walls images of one type for `rect`.
pub(super) fn cost_images(layers: &TypeLayers, rect: CellRect, width: u32) -> [ColorImage; 2] {
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
    ]
}

/// The wall buffer and blur contributions image of one type for `rect`.
pub(super) fn contribution_image(layers: &TypeLayers, rect: CellRect, width: u32) -> ColorImage {
    image_from(rect, width, |i| {
        contribution_color(layers.contribution.get(i).copied().unwrap_or(0))
    })
}

/// The islands an island image shows: a type and its island ids, held, so that a write to
/// them copies them first (`Arc::make_mut`) and the same `Arc` means the same islands. A
/// brush stroke that changes costs but no wall keeps them: its image need not be rebuilt
/// (1.4–2 s at 8192²).
#[derive(Clone, Debug)]
pub struct IslandsShown {
    layer: usize,
    islands: Option<Arc<Islands>>,
}

impl IslandsShown {
    /// The islands of `nav`'s layer `layer` (none when there is no such layer).
    #[must_use]
    pub fn of(nav: &NavData, layer: usize) -> Self {
        Self {
            layer,
            islands: nav.layers.get(layer).map(|l| Arc::clone(&l.islands)),
        }
    }

    /// Whether an image of `nav`'s layer `layer` would show these islands.
    #[must_use]
    pub fn is_current(&self, nav: &NavData, layer: usize) -> bool {
        self.same_as(&Self::of(nav, layer))
    }

    /// Whether both hold the same islands of the same type.
    #[must_use]
    pub fn same_as(&self, other: &IslandsShown) -> bool {
        self.layer == other.layer
            && match (&self.islands, &other.islands) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }

    /// What an image of these islands must redraw to show those of `nav`'s layer `layer`.
    #[must_use]
    pub fn change_to(&self, nav: &NavData, layer: usize) -> IslandsChange {
        if self.is_current(nav, layer) {
            return IslandsChange::Same;
        }
        let now = nav.layers.get(layer).map(|l| &l.islands);
        match (&self.islands, now) {
            (Some(held), Some(now)) if self.layer == layer => match held.sectors_differing(now) {
                Some(sectors) => {
                    let spec = now.spec;
                    let rect = sectors.iter().fold(CellRect::default(), |r, &s| {
                        let (x0, y0, w, h) = spec.sector_rect(s);
                        r.union(&CellRect {
                            x0,
                            y0,
                            x1: x0 + w,
                            y1: y0 + h,
                        })
                    });
                    IslandsChange::Cells(rect)
                }
                None => IslandsChange::Whole,
            },
            _ => IslandsChange::Whole,
        }
    }
}

/// An island image the bake thread sends with a rect re-bake.
#[derive(Clone, Debug)]
pub struct IslandImage {
    /// The movement type.
    pub layer: usize,
    /// The image (`None`: the layer does not exist).
    pub image: Option<ColorImage>,
    /// For part of the map: the cells it covers, and the islands the rest of the texture
    /// must show; `None` for the whole map.
    pub part: Option<(CellRect, IslandsShown)>,
}

/// What an island image must redraw (see [`IslandsShown::change_to`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IslandsChange {
    /// Nothing: the islands are the same.
    Same,
    /// The cells of this rectangle (empty when a copy of the islands kept every id).
    Cells(CellRect),
    /// The whole map: another type, or a map of another size.
    Whole,
}

/// One colour per island of nav layer `layer` (see [`island_color`]); `None` when there is
/// no such layer.
#[must_use]
pub fn islands_image(nav: &NavData, layer: usize) -> Option<ColorImage> {
    let spec = nav.layers.get(layer)?.cost.spec;
    islands_image_in(nav, layer, CellRect::full(spec.width, spec.height))
}

/// [`islands_image`] of the cells of `rect` only.
#[must_use]
pub fn islands_image_in(nav: &NavData, layer: usize, rect: CellRect) -> Option<ColorImage> {
    let l = nav.layers.get(layer)?;
    let spec = l.cost.spec;
    Some(image_from(rect, spec.width, |i| {
        let (x, y) = (
            (i % spec.width as usize) as u32,
            (i / spec.width as usize) as u32,
        );
        island_color(l.islands.island_at(x, y))
    }))
}
