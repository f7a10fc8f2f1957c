//! A short human-readable summary of a loaded map (what `navstudio validate` prints).

use std::fmt::Write as _;

use super::io::LoadedMap;
use super::movement::WaterRule;
use super::paint::{PaintForce, PaintTarget};

/// Summarises size, sectors, heights, movement types, paint and stamps, one fact per line.
#[must_use]
pub fn summary(loaded: &LoadedMap) -> String {
    let doc = &loaded.document;
    let hm = &loaded.heightmap;
    let sector = u32::from(doc.sector_size.max(1));
    let (sx, sy) = (hm.width.div_ceil(sector), hm.height.div_ceil(sector));
    let partial = !hm.width.is_multiple_of(sector) || !hm.height.is_multiple_of(sector);
    let (lo, hi) = hm
        .height01
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        });
    let water = hm
        .height01
        .iter()
        .filter(|&&h| h * doc.height_scale_m < doc.water_level_m)
        .count();
    let cells = hm.height01.len().max(1);

    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "map        {} ({})", doc.name, loaded.path.display());
    let _ = writeln!(
        out,
        "size       {} × {} cells, {:.1} × {:.1} m (cell {} m)",
        hm.width,
        hm.height,
        hm.width as f32 * doc.cell_size_m,
        hm.height as f32 * doc.cell_size_m,
        doc.cell_size_m
    );
    let _ = writeln!(
        out,
        "sectors    {} × {} = {} of {} × {} cells{}",
        sx,
        sy,
        sx * sy,
        sector,
        sector,
        if partial {
            " (partial sectors at the right/bottom edge)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "heights    {:.1} – {:.1} m (scale {} m), water below {} m: {:.1} % of cells, blocked (no data / grid walls): {}",
        lo * doc.height_scale_m,
        hi * doc.height_scale_m,
        doc.height_scale_m,
        doc.water_level_m,
        100.0 * water as f64 / cells as f64,
        hm.blocked.iter().filter(|&&b| b).count()
    );
    let _ = writeln!(out, "movement types ({}):", doc.movement_types.len());
    for ty in &doc.movement_types {
        let water = match ty.water {
            WaterRule::Impassable => "impassable".to_owned(),
            WaterRule::Cost(c) => format!("cost {c}"),
        };
        let _ = writeln!(
            out,
            "  {:<10} max slope {}°, water {}, wall buffer {} m, blur {} m × {}, curve {} points{}",
            ty.name,
            ty.max_slope_deg,
            water,
            ty.wall_buffer_m,
            ty.blur_radius_m,
            ty.blur_strength,
            ty.slope_cost.len(),
            if ty.min_island_cells > 0 {
                format!(", pockets ≤ {} cells walled in", ty.min_island_cells)
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(out, "paint layers ({}):", doc.paint.len());
    for layer in &doc.paint {
        let target = match &layer.target {
            PaintTarget::All => "all types".to_owned(),
            PaintTarget::Type(name) => name.clone(),
        };
        let count =
            |f: &dyn Fn(&super::PaintCell) -> bool| layer.cells.iter().filter(|c| f(c)).count();
        let _ = writeln!(
            out,
            "  {:<10} {}: {} cells add cost, {} remove cost, {} force wall, {} force clear",
            target,
            layer.file,
            count(&|c| c.delta > 0),
            count(&|c| c.delta < 0),
            count(&|c| c.force == PaintForce::Wall),
            count(&|c| c.force == PaintForce::Clear),
        );
    }
    let mut ids: Vec<&str> = doc.stamps.iter().map(|s| s.stamp.as_str()).collect();
    ids.sort_unstable();
    let mut stamp_counts: Vec<String> = Vec::new();
    for id in &ids {
        if stamp_counts
            .last()
            .is_some_and(|s| s.starts_with(&format!("{id} ")))
        {
            continue;
        }
        let n = ids.iter().filter(|i| *i == id).count();
        stamp_counts.push(format!("{id} ×{n}"));
    }
    let _ = writeln!(
        out,
        "stamps     {} placed{}{}",
        doc.stamps.len(),
        if stamp_counts.is_empty() { "" } else { ": " },
        stamp_counts.join(", ")
    );
    out
}
