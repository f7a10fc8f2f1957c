//! `navstudio bake`, `info` and `export`: the headless bake and package inspection.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use navstudio::bake::{self, BakeContext, BakeOptions, Baked};
use navstudio::map::{self, LoadedMap, StampLibrary};
use navstudio::nav::NavData;
use navstudio::nav::grid::{DIR_NONE, DIRECTIONS, FLOW_PATHABLE, WALL};
use navstudio::nav::integrate::{IntegrationField, IntegratorScratch, UNREACHED, integrate_costs};
use navstudio::package;

/// Loads a map and bakes it with a progress bar; returns the map and the bake.
///
/// A path that does not end in `.ron` is read as a heightmap and baked as the new map
/// [`map::io::new_map_from_heightmap`] makes for it (what `navstudio new` writes).
pub fn load_and_bake(
    map_path: &Path,
    types: Option<Vec<String>>,
    quiet: bool,
) -> Result<(LoadedMap, Baked, BakeContext), String> {
    let progress = if quiet {
        StageProgress::hidden()
    } else {
        StageProgress::new()
    };
    let loaded = load_or_new(map_path, &super::ScaleArgs::default())?;
    let (baked, ctx) = bake_loaded(map_path, &loaded, types, &progress)?;
    progress.finish();
    Ok((loaded, baked, ctx))
}

/// The map document at `map_path`, or for a heightmap the new map with its pre-filled scale
/// and `scale`'s fields over it.
fn load_or_new(map_path: &Path, scale: &super::ScaleArgs) -> Result<LoadedMap, String> {
    let is_document = map_path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
    let loaded = if is_document {
        if scale.any() {
            return Err(format!(
                "{}: the scale flags (--cell-size-m, --height-range-m, --water-level-m, --sector-size, --movement-preset) are for a heightmap; a map document keeps its own, so edit them in the .ron or the editor",
                map_path.display()
            ));
        }
        map::load_map(map_path).map_err(|e| e.to_string())?
    } else {
        let (loaded, settings) = new_from_heightmap(map_path, scale)?;
        // The scale decides every slope: say which one this bake used.
        eprintln!(
            "note: {} as a new map: {:.2} m cells, heights {:.0}–{:.0} m, {} (see `navstudio new --help`)",
            map_path.display(),
            settings.cell_size_m,
            settings.height_black_m,
            settings.height_white_m,
            settings.water_level_m.map_or_else(
                || "no water".to_owned(),
                |w| format!("water below {w:.0} m")
            )
        );
        loaded
    };
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    Ok(loaded)
}

/// The new map for a heightmap: pre-filled settings, `scale` over them, checked.
fn new_from_heightmap(
    heightmap: &Path,
    scale: &super::ScaleArgs,
) -> Result<(LoadedMap, map::NewMapSettings), String> {
    let prefilled = map::new_map::prefill(heightmap).map_err(|e| e.to_string())?;
    let mut settings = prefilled.settings;
    scale.apply(&mut settings);
    settings.validate(heightmap).map_err(|e| e.to_string())?;
    let loaded = map::io::new_map_with_settings(heightmap, prefilled.imported, &settings);
    Ok((loaded, settings))
}

/// Bakes a loaded map, reporting stages to `progress`.
fn bake_loaded(
    map_path: &Path,
    loaded: &LoadedMap,
    types: Option<Vec<String>>,
    progress: &StageProgress,
) -> Result<(Baked, BakeContext), String> {
    let stamps = StampLibrary::builtin().map_err(|e| e.to_string())?;
    let reporter = progress.clone();
    let mut ctx = BakeContext::new(
        Box::new(move |stage, done| reporter.update(stage, done)),
        Arc::new(AtomicBool::new(false)),
    );
    let options = BakeOptions { types };
    let baked = bake::bake(
        &loaded.document,
        &loaded.heightmap,
        &stamps,
        &options,
        &mut ctx,
    )
    .map_err(|e| format!("{}: {e}", map_path.display()))?;
    Ok((baked, ctx))
}

/// A progress bar on stderr with the current stage's name, shown only once the work has
/// run for [`StageProgress::SHOW_AFTER`] and only when stderr is a terminal (indicatif's
/// stderr target draws nothing otherwise).
#[derive(Clone)]
struct StageProgress {
    bar: ProgressBar,
    start: Instant,
    hidden: bool,
}

impl StageProgress {
    /// Short bakes finish before a bar would be read.
    const SHOW_AFTER: Duration = Duration::from_secs(1);

    fn new() -> Self {
        let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Self {
            bar,
            start: Instant::now(),
            hidden: false,
        }
    }

    fn hidden() -> Self {
        Self {
            hidden: true,
            ..Self::new()
        }
    }

    /// Notes the stage and its done fraction (`0..=1`); shows the bar once it is due.
    fn update(&self, stage: &str, done: f32) {
        self.bar.set_message(stage.to_owned());
        self.bar
            .set_position((done.clamp(0.0, 1.0) * 1000.0) as u64);
        if !self.hidden && self.bar.is_hidden() && self.start.elapsed() >= Self::SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            // Redraws the elapsed time through long stages that report rarely.
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `navstudio bake`.
pub fn bake_cmd(
    map_path: &Path,
    output: Option<&Path>,
    types: Option<Vec<String>>,
    scale: &super::ScaleArgs,
) -> Result<(), String> {
    let start = Instant::now();
    let progress = StageProgress::new();
    let loaded = load_or_new(map_path, scale)?;
    let (baked, mut ctx) = bake_loaded(map_path, &loaded, types, &progress)?;
    if let Some(out) = output {
        let meta = bake::package_meta(&loaded.document, &baked.type_indices);
        progress.update("write package", 1.0);
        let bytes = ctx.stage("write package", |_| package::to_bytes(&baked.nav, &meta));
        map::io::write_atomic(out, &bytes).map_err(|e| e.to_string())?;
        println!("wrote {} ({} bytes)", out.display(), bytes.len());
    }
    progress.finish();
    print!("{}", timing_table(&ctx));
    print!("{}", nav_stats(&baked.nav));
    for w in &ctx.warnings {
        println!("warning: {w}");
    }
    println!("total {:.2} s", start.elapsed().as_secs_f64());
    if let Some(peak) = peak_resident_bytes() {
        let cells = u64::from(baked.nav.spec.width) * u64::from(baked.nav.spec.height);
        println!(
            "peak memory {:.0} MiB = {:.1} bytes per cell for {} movement type(s)",
            peak as f64 / f64::from(1 << 20),
            peak as f64 / cells.max(1) as f64,
            baked.nav.layers.len()
        );
    }
    Ok(())
}

/// The process's peak resident memory (`VmHWM` in `/proc/self/status`), where the system
/// reports it.
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `navstudio new`: writes the map document for a heightmap at its pre-filled (or given)
/// scale and prints what a designer should check before baking.
pub fn new_cmd(heightmap: &Path, output: &Path, scale: &super::ScaleArgs) -> Result<(), String> {
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
    print!("{}", describe_new_map(&loaded, &settings));
    println!(
        "wrote {} (heightmap {})",
        output.display(),
        loaded.document.heightmap.path
    );
    Ok(())
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

fn timing_table(ctx: &BakeContext) -> String {
    let mut out = String::from("stage                                               time\n");
    for t in &ctx.timings {
        let _ = writeln!(
            out,
            "{:<48} {:>8.1} ms",
            t.stage,
            t.duration.as_secs_f64() * 1000.0
        );
    }
    let _ = writeln!(
        out,
        "{:<48} {:>8.1} ms",
        "sum",
        ctx.total().as_secs_f64() * 1000.0
    );
    out
}

/// Share of wall cells in a cost field.
fn wall_share(cost: &navstudio::nav::CostField) -> f64 {
    let cells = cost.to_cells();
    cells.iter().filter(|&&c| c == WALL).count() as f64 / cells.len().max(1) as f64
}

fn nav_stats(nav: &NavData) -> String {
    let mut out = String::new();
    for l in &nav.layers {
        let _ = writeln!(
            out,
            "{:<10} walls {:>5.1} %, clear sectors {:>5.1} %, {} portal windows, {} islands, {} flow permutations → {} unique tiles",
            l.name,
            100.0 * wall_share(&l.cost),
            100.0 * l.cost.clear_share(),
            l.windows.len(),
            l.islands.count,
            l.nodes.len(),
            l.flows.tiles.len()
        );
    }
    out
}

/// `navstudio info`.
pub fn info_cmd(path: &Path, json: bool) -> Result<(), String> {
    let start = Instant::now();
    let pkg = package::read(path).map_err(|e| e.to_string())?;
    let read_ms = start.elapsed().as_secs_f64() * 1000.0;
    if json {
        let text = serde_json::to_string_pretty(&info_json(&pkg)).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }
    let m = &pkg.manifest;
    let file_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    println!(
        "package    {} ({} bytes, read in {read_ms:.1} ms)",
        path.display(),
        file_len
    );
    println!("map        {}", m.map_name);
    println!(
        "size       {} × {} cells of {} m, sectors of {} × {} ({} sectors)",
        m.width,
        m.height,
        m.cell_size_m,
        m.sector_size,
        m.sector_size,
        pkg.nav.spec.sector_count()
    );
    println!(
        "bake       {}",
        m.bake_options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let cells = u64::from(m.width) * u64::from(m.height);
    for (i, l) in m.layers.iter().enumerate() {
        let params = match &l.params {
            serde_json::Value::String(ron) => ron.clone(),
            json => json.to_string(),
        };
        println!("movement type {} — {params}", l.name);
        println!(
            "  clear sectors {:.1} %, {} windows, {} islands, {} permutations → {} unique tiles ({:.1} % deduplicated)",
            100.0 * l.clear_share,
            l.windows,
            l.islands,
            l.nodes,
            l.unique_tiles,
            100.0 * (1.0 - f64::from(l.unique_tiles) / f64::from(l.nodes.max(1)))
        );
        let mut stored_total = 0;
        for s in pkg.sections.iter().filter(|s| s.layer as usize == i) {
            stored_total += s.stored_len;
            println!(
                "  {:<8} {:>10} bytes raw {:>10} bytes stored ({:.1} %){}",
                format!("{:?}", s.kind).to_lowercase(),
                s.raw_len,
                s.stored_len,
                100.0 * s.stored_len as f64 / s.raw_len.max(1) as f64,
                if s.chunks > 1 {
                    format!(" in {} chunks", s.chunks)
                } else {
                    String::new()
                }
            );
        }
        println!(
            "  total    {stored_total} bytes stored = {:.3} bytes per cell",
            stored_total as f64 / cells.max(1) as f64
        );
    }
    Ok(())
}

/// `navstudio info --json`: the manifest and, per movement type, counts taken from the
/// decoded data (not from the manifest), so another reader can check itself against them.
fn info_json(pkg: &package::Package) -> serde_json::Value {
    let spec = pkg.nav.spec;
    let layers: Vec<serde_json::Value> = pkg
        .nav
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| {
            // Cells per island id (index 0: walls), sector by sector.
            let mut island_cells = vec![0_u64; l.islands.count as usize + 1];
            let mut fields = l.islands.fields.iter().peekable();
            for (s, &id) in l.islands.sector_island.iter().enumerate() {
                let (_, _, w, h) = spec.sector_rect(s as u32);
                if let Some((_, field)) = fields.next_if(|(fs, _)| *fs as usize == s) {
                    for &cell in field.iter() {
                        island_cells[cell as usize] += 1;
                    }
                } else if let Some(n) = island_cells.get_mut(id as usize) {
                    *n += u64::from(w * h);
                }
            }
            let mut cost_histogram = vec![0_u64; 256];
            for c in l.cost.to_cells() {
                cost_histogram[c as usize] += 1;
            }
            let sections: Vec<serde_json::Value> = pkg
                .sections
                .iter()
                .filter(|s| s.layer as usize == i)
                .map(|s| {
                    serde_json::json!({
                        "kind": format!("{:?}", s.kind).to_lowercase(),
                        "raw_len": s.raw_len,
                        "stored_len": s.stored_len,
                        "chunks": s.chunks,
                    })
                })
                .collect();
            serde_json::json!({
                "name": l.name,
                "windows": l.windows.len(),
                "nodes": l.nodes.len(),
                "edges": l.graph.targets.len(),
                "islands": l.islands.count,
                "island_cells": island_cells,
                "cost_histogram": cost_histogram,
                "unique_tiles": l.flows.tiles.len(),
                "sections": sections,
            })
        })
        .collect();
    serde_json::json!({
        "version": pkg.version,
        "manifest": pkg.manifest,
        "layers": layers,
    })
}

/// Which layer `export` writes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ExportLayer {
    /// 8-bit grey: the cost byte itself (255 = wall).
    Cost,
    /// RGB: one colour per island id, walls black.
    Islands,
    /// 16-bit grey: whole-map integrated cost to `--goal` (65535 = unreachable).
    Integration,
    /// RGB: flow direction to `--goal` as a colour wheel (legend in the README), walls black.
    Flow,
}

/// `navstudio export`.
pub fn export_cmd(
    pkg_path: &Path,
    layer: ExportLayer,
    type_name: &str,
    goal: Option<(u32, u32)>,
    output: &Path,
) -> Result<(), String> {
    let pkg = package::read(pkg_path).map_err(|e| e.to_string())?;
    let nav = &pkg.nav;
    let l = nav
        .layers
        .iter()
        .find(|l| l.name == type_name)
        .ok_or_else(|| {
            format!(
                "{}: no movement type '{type_name}'; the package has: {}",
                pkg_path.display(),
                nav.layers
                    .iter()
                    .map(|l| l.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    let (w, h) = (nav.spec.width, nav.spec.height);
    let costs = l.cost.to_cells();
    let goal_field = |goal: Option<(u32, u32)>| -> Result<IntegrationField, String> {
        let (gx, gy) = goal.ok_or("--goal X,Y is required for the integration and flow layers")?;
        if gx >= w || gy >= h {
            return Err(format!("--goal {gx},{gy} lies outside the {w} × {h} map"));
        }
        if costs[nav.spec.index(gx, gy)] == WALL {
            return Err(format!(
                "--goal {gx},{gy} is a wall for '{type_name}'; pick a passable cell"
            ));
        }
        let mut field = IntegrationField::new();
        integrate_costs(
            &costs,
            w,
            h,
            &[(nav.spec.index(gx, gy), 0)],
            &mut field,
            &mut IntegratorScratch::new(),
        );
        Ok(field)
    };
    let write_err =
        |e: image::ImageError| format!("{}: cannot write the PNG: {e}", output.display());
    let bytes = match layer {
        ExportLayer::Cost => encode_png(image::DynamicImage::ImageLuma8(
            image::GrayImage::from_raw(w, h, costs.clone()).ok_or("cost grid size mismatch")?,
        ))
        .map_err(write_err)?,
        ExportLayer::Islands => {
            let mut img = image::RgbImage::new(w, h);
            for (x, y, px) in img.enumerate_pixels_mut() {
                *px = image::Rgb(island_colour(l.islands.island_at(x, y)));
            }
            encode_png(image::DynamicImage::ImageRgb8(img)).map_err(write_err)?
        }
        ExportLayer::Integration => {
            let field = goal_field(goal)?;
            let data: Vec<u16> = field
                .cost
                .iter()
                .map(|&c| {
                    if c == UNREACHED {
                        u16::MAX
                    } else {
                        c.min(65534) as u16
                    }
                })
                .collect();
            let img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_raw(w, h, data)
                .ok_or("integration grid size mismatch")?;
            encode_png(image::DynamicImage::ImageLuma16(img)).map_err(write_err)?
        }
        ExportLayer::Flow => {
            let field = goal_field(goal)?;
            let mut flow = vec![0_u8; costs.len()];
            let goal_cell = goal.map_or(0, |(x, y)| nav.spec.index(x, y));
            navstudio::nav::flow::flow_from_integration(
                &costs,
                w,
                h,
                &field,
                &[(goal_cell, DIR_NONE)],
                &mut flow,
            );
            let mut img = image::RgbImage::new(w, h);
            for (i, px) in img.pixels_mut().enumerate() {
                *px = image::Rgb(flow_colour(flow[i]));
            }
            encode_png(image::DynamicImage::ImageRgb8(img)).map_err(write_err)?
        }
    };
    map::io::write_atomic(output, &bytes).map_err(|e| e.to_string())?;
    println!("wrote {} ({w} × {h})", output.display());
    Ok(())
}

fn encode_png(img: image::DynamicImage) -> Result<Vec<u8>, image::ImageError> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)?;
    Ok(out.into_inner())
}

/// A stable, well-spread colour per island id; black for walls (id 0).
pub fn island_colour(id: u32) -> [u8; 3] {
    if id == 0 {
        return [0, 0, 0];
    }
    let hue = (f64::from(id) * 0.618_033_988_75).fract();
    hsv(hue, 0.65, 0.95)
}

/// Direction colour wheel: N red, E yellow-green, S cyan, W violet …; goal/none white, walls black.
pub fn flow_colour(flow: u8) -> [u8; 3] {
    if flow & FLOW_PATHABLE == 0 {
        return [0, 0, 0];
    }
    let dir = flow & 0x0F;
    if usize::from(dir) >= DIRECTIONS.len() {
        return [255, 255, 255];
    }
    hsv(f64::from(dir) / 8.0, 0.8, 0.95)
}

fn hsv(h: f64, s: f64, v: f64) -> [u8; 3] {
    let i = (h * 6.0).floor();
    let f = h * 6.0 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - f * s), v * (1.0 - (1.0 - f) * s));
    let (r, g, b) = match (i as i32).rem_euclid(6) {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8]
}

/// `navstudio path`: reachability, the portal route and the traced length per source, and
/// with several goals which one each source reaches.
pub fn path_cmd(
    pkg_path: &Path,
    type_name: &str,
    sources: &[(u32, u32)],
    goals: &[(u32, u32)],
) -> Result<(), String> {
    let pkg = package::read(pkg_path).map_err(|e| e.to_string())?;
    let layer = pkg
        .nav
        .layers
        .iter()
        .position(|l| l.name == type_name)
        .ok_or_else(|| format!("{}: no movement type '{type_name}'", pkg_path.display()))?;
    let mut world = navstudio::nav::NavWorld::from_nav(pkg.nav);
    let goal_name = |g: (u32, u32)| {
        if goals.len() > 1 {
            let k = goals.iter().position(|&x| x == g).unwrap_or(0);
            format!("goal {} ({},{})", k + 1, g.0, g.1)
        } else {
            format!("the goal ({},{})", g.0, g.1)
        }
    };
    let mut any = false;
    for &from in sources {
        let reachable = goals.iter().any(|&to| world.is_reachable(layer, from, to));
        println!(
            "reachable  {reachable} from ({},{}) (island ids)",
            from.0, from.1
        );
        any |= reachable;
    }
    if !any {
        return Ok(());
    }
    let start = Instant::now();
    let id = world
        .request_path_to_any(layer, sources, goals)
        .map_err(|e| format!("{}: {e}", pkg_path.display()))?;
    let request_us = start.elapsed().as_secs_f64() * 1e6;
    let p = world.path(id).ok_or("path vanished")?;
    let l = &world.nav().layers[layer];
    println!(
        "request    {request_us:.0} µs for {} source(s) and {} goal(s)",
        p.sources.len(),
        p.goals.len()
    );
    let planned: Vec<((u32, u32), Vec<u32>)> = p
        .sources
        .iter()
        .zip(&p.routes)
        .map(|(&s, r)| (s, r.nodes.clone()))
        .collect();
    for (from, route) in planned {
        println!(
            "from ({},{}): {} portal nodes on the route",
            from.0,
            from.1,
            route.len()
        );
        for pair in route.chunks(2) {
            let n = &l.nodes[pair[0] as usize];
            println!(
                "  sector {:>6} → leave through window {} at cells ({},{})+{}",
                n.sector, n.window, n.cells.x, n.cells.y, n.cells.len
            );
        }
        let traced = world.trace_path(id, from).ok_or_else(|| {
            format!(
                "following the flow from ({},{}) did not reach a goal",
                from.0, from.1
            )
        })?;
        println!(
            "  traced   {:.2} cells of path to {} ({} steps before line of sight)",
            traced.length,
            goal_name(traced.goal),
            traced.cells.len() - 1
        );
    }
    Ok(())
}
