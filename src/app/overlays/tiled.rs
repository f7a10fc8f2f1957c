//! A map-sized image as GPU textures of at most [`TILE_SIDE`] texels a side. A GPU refuses a
//! texture wider than its limit (8192 texels on many, and wgpu's default), and maps go up to
//! 16,384 cells a side: one texture per overlay made the editor crash on them.

use egui::{Color32, ColorImage, Painter, Rect, TextureHandle, TextureOptions, pos2};

/// Texels per tile side: within the limit of every GPU wgpu runs on (its downlevel limits
/// guarantee 2048).
pub const TILE_SIDE: usize = 2048;

/// An image cut into tiles, each its own texture, drawn side by side.
pub struct TiledTexture {
    size: [usize; 2],
    /// Each tile's first texel in the whole image, and its texture.
    tiles: Vec<([usize; 2], TextureHandle)>,
}

impl TiledTexture {
    /// Uploads `image` (named `name` for debugging) as tiles.
    #[must_use]
    pub fn new(ctx: &egui::Context, name: &str, image: ColorImage) -> Self {
        let size = image.size;
        let options = TextureOptions::NEAREST;
        let tiles = if size[0] <= TILE_SIDE && size[1] <= TILE_SIDE {
            vec![([0, 0], ctx.load_texture(name, image, options))]
        } else {
            tile_origins(size)
                .map(|(origin, tile)| {
                    let part = crop(&image, origin, tile);
                    let name = format!("{name} {},{}", origin[0], origin[1]);
                    (origin, ctx.load_texture(name, part, options))
                })
                .collect()
        };
        Self { size, tiles }
    }

    /// `[width, height]` of the whole image in texels.
    #[must_use]
    pub fn size(&self) -> [usize; 2] {
        self.size
    }

    /// Replaces the texels from `pos` on with `image`, in every tile it overlaps.
    pub fn set_partial(&mut self, pos: [usize; 2], image: &ColorImage) {
        let end = [pos[0] + image.size[0], pos[1] + image.size[1]];
        for (origin, texture) in &mut self.tiles {
            let tile = texture.size();
            let lo = [pos[0].max(origin[0]), pos[1].max(origin[1])];
            let hi = [
                end[0].min(origin[0] + tile[0]),
                end[1].min(origin[1] + tile[1]),
            ];
            if lo[0] >= hi[0] || lo[1] >= hi[1] {
                continue;
            }
            let part = crop(
                image,
                [lo[0] - pos[0], lo[1] - pos[1]],
                [hi[0] - lo[0], hi[1] - lo[1]],
            );
            texture.set_partial(
                [lo[0] - origin[0], lo[1] - origin[1]],
                part,
                TextureOptions::NEAREST,
            );
        }
    }

    /// Draws the image over `map_rect` (the whole image's screen rectangle), tinted; tiles
    /// outside the painter's clip are skipped.
    pub fn paint(&self, painter: &Painter, map_rect: Rect, tint: Color32) {
        let [w, h] = self.size.map(|s| s.max(1) as f32);
        // Every tile edge comes from this one expression, so neighbouring tiles meet exactly.
        let at = |x: usize, y: usize| {
            pos2(
                map_rect.min.x + map_rect.width() * (x as f32 / w),
                map_rect.min.y + map_rect.height() * (y as f32 / h),
            )
        };
        let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
        for (origin, texture) in &self.tiles {
            let tile = texture.size();
            let rect = Rect::from_min_max(
                at(origin[0], origin[1]),
                at(origin[0] + tile[0], origin[1] + tile[1]),
            );
            if painter.clip_rect().intersects(rect) {
                painter.image(texture.id(), rect, uv, tint);
            }
        }
    }
}

/// The tiles of an image of `size`, row by row: each one's first texel and size.
fn tile_origins(size: [usize; 2]) -> impl Iterator<Item = ([usize; 2], [usize; 2])> {
    (0..size[1]).step_by(TILE_SIDE).flat_map(move |y| {
        (0..size[0]).step_by(TILE_SIDE).map(move |x| {
            (
                [x, y],
                [TILE_SIDE.min(size[0] - x), TILE_SIDE.min(size[1] - y)],
            )
        })
    })
}

/// The `size` texels of `image` from `origin` on.
fn crop(image: &ColorImage, origin: [usize; 2], size: [usize; 2]) -> ColorImage {
    let mut pixels = Vec::with_capacity(size[0] * size[1]);
    for y in origin[1]..origin[1] + size[1] {
        let row = y * image.size[0] + origin[0];
        pixels.extend_from_slice(&image.pixels[row..row + size[0]]);
    }
    ColorImage::new(size, pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A texel that names its own place.
    fn texel(x: usize, y: usize) -> Color32 {
        Color32::from_rgba_premultiplied((x % 251) as u8, (y % 241) as u8, (x / 251) as u8, 255)
    }

    fn numbered(size: [usize; 2], shift: usize) -> ColorImage {
        let pixels = (0..size[1])
            .flat_map(|y| (0..size[0]).map(move |x| texel(x + shift, y)))
            .collect();
        ColorImage::new(size, pixels)
    }

    /// The texels the tiles sent to the renderer since the last call, placed in the whole
    /// image ([`Color32::TRANSPARENT`] where nothing was sent).
    fn read_back(ctx: &egui::Context, t: &TiledTexture) -> Vec<Color32> {
        let [w, h] = t.size();
        let mut out = vec![Color32::TRANSPARENT; w * h];
        let mut sent = ctx.tex_manager().write().take_delta();
        for (id, deltas) in &sent.set {
            let Some((origin, _)) = t.tiles.iter().find(|(_, tex)| tex.id() == *id) else {
                continue;
            };
            for delta in deltas {
                let egui::ImageData::Color(img) = &delta.image;
                let at = delta.pos.unwrap_or([0, 0]);
                for y in 0..img.size[1] {
                    for x in 0..img.size[0] {
                        let (gx, gy) = (origin[0] + at[0] + x, origin[1] + at[1] + y);
                        out[gy * w + gx] = img.pixels[y * img.size[0] + x];
                    }
                }
            }
        }
        // Read, not rendered: there is no renderer here to hand the deltas to.
        sent.clear();
        out
    }

    #[test]
    fn tiles_stay_within_the_limit_and_cover_the_image_once() {
        let ctx = egui::Context::default();
        let size = [2 * TILE_SIDE + 5, TILE_SIDE + 1];
        let t = TiledTexture::new(&ctx, "test", numbered(size, 0));
        assert_eq!(t.tiles.len(), 3 * 2);
        let mut covered = 0;
        for (_, texture) in &t.tiles {
            let [w, h] = texture.size();
            assert!(w <= TILE_SIDE && h <= TILE_SIDE, "tile {w}×{h}");
            covered += w * h;
        }
        assert_eq!(covered, size[0] * size[1]);
        let texels = read_back(&ctx, &t);
        for (i, &c) in texels.iter().enumerate() {
            assert_eq!(c, texel(i % size[0], i / size[0]), "texel {i}");
        }
    }

    #[test]
    fn a_partial_update_across_tile_borders_lands_where_it_belongs() {
        let ctx = egui::Context::default();
        let size = [2 * TILE_SIDE + 3, TILE_SIDE + 9];
        let mut t = TiledTexture::new(&ctx, "test", numbered(size, 0));
        let _ = read_back(&ctx, &t);
        // A rectangle over the corner where four tiles meet, its texels shifted by 7 in x.
        let pos = [TILE_SIDE - 4, TILE_SIDE - 3];
        let patch = numbered([10, 8], 7);
        t.set_partial(pos, &patch);
        let mut expected: Vec<Color32> = (0..size[0] * size[1])
            .map(|i| texel(i % size[0], i / size[0]))
            .collect();
        for y in 0..8 {
            for x in 0..10 {
                expected[(pos[1] + y) * size[0] + pos[0] + x] = texel(x + 7, y);
            }
        }
        // Only the patch is sent again; read it over the original.
        let mut got: Vec<Color32> = (0..size[0] * size[1])
            .map(|i| texel(i % size[0], i / size[0]))
            .collect();
        let patched = read_back(&ctx, &t);
        for (i, c) in patched.into_iter().enumerate() {
            if c != Color32::TRANSPARENT {
                got[i] = c;
            }
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn a_small_image_is_one_texture() {
        let ctx = egui::Context::default();
        let t = TiledTexture::new(&ctx, "test", numbered([300, 200], 0));
        assert_eq!(t.tiles.len(), 1);
        assert_eq!(t.tiles[0].1.size(), [300, 200]);
    }
}
