//! Renders the sample maps to PNGs for a person to look at (ignored).

use super::*;

/// Renders a map for a person to look at: hillshade, water, land walls in red, hover-only
/// walls in orange, paint (walls black, clears green, cheaper cells yellow, dearer cells
/// brown), stamps magenta, landmarks white.
fn render(map: &GeneratedMap, marks: &[Landmark], path: &str) {
    let t = Terrain::new(map);
    let (w, h) = (t.width, t.height);
    let land = t.passable(&movement("land"));
    let hover = t.passable(&movement("hover"));
    let mut img = image::RgbImage::new(w as u32, h as u32);
    let paint = &map.document.paint[0].cells;
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let hx = t.metres[y * w + (x + 1).min(w - 1)] - t.metres[y * w + x.saturating_sub(1)];
            let hy = t.metres[(y + 1).min(h - 1) * w + x] - t.metres[y.saturating_sub(1) * w + x];
            // Light from the north-west.
            let shade = (0.75 - 0.35 * (hx + hy)).clamp(0.15, 1.0);
            let tint = 0.55 + 0.45 * t.metres[i] / map.document.height_scale_m;
            let mut rgb = [
                160.0 * tint * shade,
                170.0 * tint * shade,
                130.0 * tint * shade,
            ];
            if t.water[i] {
                rgb = [40.0 * shade, 90.0 * shade, 200.0 * shade];
            } else if !land[i] {
                rgb = [0.5 * rgb[0] + 110.0, 0.5 * rgb[1], 0.5 * rgb[2]];
            } else if !hover[i] {
                rgb = [0.5 * rgb[0] + 110.0, 0.5 * rgb[1] + 60.0, 0.5 * rgb[2]];
            }
            let p = paint[i];
            if p.force == PaintForce::Wall {
                rgb = [10.0, 10.0, 10.0];
            } else if p.force == PaintForce::Clear {
                rgb = [60.0, 220.0, 60.0];
            } else if p.delta < 0 {
                rgb = [0.6 * rgb[0] + 90.0, 0.6 * rgb[1] + 80.0, 0.6 * rgb[2]];
            } else if p.delta > 0 {
                rgb = [0.6 * rgb[0] + 50.0, 0.6 * rgb[1] + 30.0, 0.6 * rgb[2]];
            }
            img.put_pixel(
                x as u32,
                y as u32,
                image::Rgb(rgb.map(|c| c.clamp(0.0, 255.0) as u8)),
            );
        }
    }
    for s in &map.document.stamps {
        let (sw, sh) = stamp_size(&s.stamp);
        let (sw, sh) = if s.rotation % 2 == 1 {
            (sh, sw)
        } else {
            (sw, sh)
        };
        for dy in 0..sh {
            for dx in 0..sw {
                img.put_pixel(s.x as u32 + dx, s.y as u32 + dy, image::Rgb([230, 40, 230]));
            }
        }
    }
    for m in marks {
        for d in -3i64..=3 {
            for (x, y) in [
                (i64::from(m.x) + d, i64::from(m.y)),
                (i64::from(m.x), i64::from(m.y) + d),
            ] {
                if x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
                    img.put_pixel(x as u32, y as u32, image::Rgb([255, 255, 255]));
                }
            }
        }
    }
    if w < 200 {
        let (iw, ih) = img.dimensions();
        image::imageops::resize(&img, iw * 5, ih * 5, image::imageops::FilterType::Nearest)
            .save(path)
            .unwrap();
    } else {
        img.save(path).unwrap();
    }
    // Close-ups of each landmark, 6× enlarged, for the details a full view hides.
    for m in marks.iter().filter(|m| m.radius_cells <= 10) {
        let r = 24u32;
        let (x0, y0) = (m.x.saturating_sub(r), m.y.saturating_sub(r));
        let (cw, ch) = ((2 * r).min(w as u32 - x0), (2 * r).min(h as u32 - y0));
        let crop = image::imageops::crop_imm(&img, x0, y0, cw, ch).to_image();
        let big =
            image::imageops::resize(&crop, cw * 6, ch * 6, image::imageops::FilterType::Nearest);
        big.save(path.replace(".png", &format!("_{}.png", m.name)))
            .unwrap();
    }
}

/// Writes /tmp/showcase.png and /tmp/small.png to look at:
/// `cargo test --no-default-features --test integration generate:: -- --ignored`.
#[test]
#[ignore = "writes PNGs to /tmp for a person to look at"]
fn render_sample_maps_to_tmp() {
    for (kind, path) in [
        (MapKind::Showcase, "/tmp/showcase.png"),
        (MapKind::Small, "/tmp/small.png"),
    ] {
        let spec = GenerateSpec::new(kind);
        render(&generate(&spec), &landmarks(&spec), path);
    }
    let spec = GenerateSpec {
        width: 1024,
        height: 1024,
        ..GenerateSpec::new(MapKind::Benchmark)
    };
    render(&generate(&spec), &[], "/tmp/benchmark.png");
}
