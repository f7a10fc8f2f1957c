//! `navstudio new`: write the map document for a heightmap at its pre-filled (or given)
//! scale, and say what a designer should check before baking.

use std::fmt::Write as _;
use std::path::Path;

use navstudio::bake::{self};
use navstudio::map::{self, LoadedMap};

use super::bake::new_from_heightmap;
/// `navstudio new`: writes the map document for a heightmap at its pre-filled (or given)
/// scale and prints what a designer should check before baking.
pub fn new_cmd(heightmap: &Path, output: &Path, scale: &super::ScaleArgs) -> Result<(), String> {
    let (loaded, settings) = write_document(heightmap, output, scale)?;
    print!("{}", describe_new_map(&loaded, &settings));
    println!(
        "wrote {} (heightmap {})",
        output.display(),
        loaded.document.heightmap.path
    );
    Ok(())
}

/// Writes the map document `output` for `heightmap` (referred to relative to the document)
/// at its pre-filled (or given) scale; returns what it wrote.
pub fn write_document(
    heightmap: &Path,
    output: &Path,
    scale: &super::ScaleArgs,
) -> Result<(LoadedMap, map::NewMapSettings), String> {
    if output
        .extension()
        .is_none_or(|e| !e.eq_ignore_ascii_case("ron"))
    {
        return Err(format!(
            "{}: a map document ends in .ron; give -o maps/NAME.ron",
            output.display()
        ));
    }
    let (mut loaded, settings) = new_from_heightmap(heightmap, scale)?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    let folder = map::io::folder_of(output);
    loaded.document.heightmap.path = relative_path(&folder, heightmap).map_err(|e| {
        format!(
            "{}: cannot refer to the heightmap from {} ({e}); check that the output folder exists",
            output.display(),
            folder.display()
        )
    })?;
    if let Some(stem) = output.file_stem() {
        loaded.document.name = stem.to_string_lossy().into_owned();
    }
    map::save_map(output, &loaded.document).map_err(|e| e.to_string())?;
    Ok((loaded, settings))
}

/// The settings, the notes on how they were pre-filled, the slope histogram and the wall
/// share per movement type.
fn describe_new_map(loaded: &LoadedMap, settings: &map::NewMapSettings) -> String {
    let mut out = String::new();
    let hm = &loaded.heightmap;
    let _ = writeln!(
        out,
        "{} × {} cells of {:.2} m ({:.1} × {:.1} km)",
        hm.width,
        hm.height,
        settings.cell_size_m,
        f64::from(hm.width) * f64::from(settings.cell_size_m) / 1000.0,
        f64::from(hm.height) * f64::from(settings.cell_size_m) / 1000.0
    );
    let _ = writeln!(
        out,
        "heights {:.0} m (black) to {:.0} m (white); water {}; sectors of {} cells; movement types {}",
        settings.height_black_m,
        settings.height_white_m,
        settings
            .water_level_m
            .map_or_else(|| "none".to_owned(), |w| format!("below {w:.0} m")),
        settings.sector_size,
        settings.preset.label()
    );
    for note in &settings.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let preview = bake::preview::terrain_preview(&loaded.document, hm);
    let cells: u64 = preview.slope_histogram.iter().sum::<u64>().max(1);
    let _ = writeln!(out, "slope histogram (share of cells per 5°):");
    let last = preview
        .slope_histogram
        .iter()
        .rposition(|&c| c > 0)
        .unwrap_or(0);
    for (i, &count) in preview.slope_histogram.iter().enumerate().take(last + 1) {
        let share = count as f64 / cells as f64;
        let _ = writeln!(
            out,
            "  {:>2}–{:<2}° {:>5.1} % {}",
            i * 5,
            (i + 1) * 5,
            100.0 * share,
            "#".repeat((share * 50.0).round() as usize)
        );
    }
    if settings.water_level_m.is_some() {
        let _ = writeln!(out, "water: {:.1} % of cells", 100.0 * preview.water_share);
    }
    for (name, share) in &preview.wall_share {
        let _ = writeln!(
            out,
            "{name:<10} terrain walls {:>5.1} % (too steep, water, no data; before the wall buffer)",
            100.0 * share
        );
    }
    out
}

/// `target` relative to `folder` (both made absolute), e.g. `../../data/N37W119.hgt`.
fn relative_path(folder: &Path, target: &Path) -> std::io::Result<String> {
    let folder = folder.canonicalize()?;
    let target = target.canonicalize()?;
    let common = folder
        .components()
        .zip(target.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut rel = std::path::PathBuf::new();
    for _ in folder.components().skip(common) {
        rel.push("..");
    }
    for c in target.components().skip(common) {
        rel.push(c);
    }
    Ok(rel.to_string_lossy().into_owned())
}
