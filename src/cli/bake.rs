//! `navstudio bake`: load a map (or a heightmap as a new map), bake it with a progress bar,
//! write the nav package and print the stage timings; also the load-and-bake the crowd
//! command shares.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use navstudio::bake::{self, BakeContext, BakeOptions, Baked};
use navstudio::map::{self, LoadedMap, StampLibrary};
use navstudio::nav::NavData;
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
pub(super) fn new_from_heightmap(
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
    // Every command that bakes from the CLI uses only the nav data.
    let nav_only = true;
    let stamps = StampLibrary::builtin().map_err(|e| e.to_string())?;
    let reporter = progress.clone();
    let mut ctx = BakeContext::new(
        Box::new(move |stage, done| reporter.update(stage, done)),
        Arc::new(AtomicBool::new(false)),
    );
    let options = BakeOptions { types, nav_only };
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

/// Which search tables `navstudio bake` stores (see [`package::PackageMeta::hierarchy`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchTables {
    /// Whichever pays on the map's size.
    Auto,
    /// The sector hierarchy with landmark tables over its border nodes.
    Hierarchy,
    /// Landmark tables over every portal node (the flat search).
    Landmarks,
}

/// `navstudio bake`.
pub fn bake_cmd(
    map_path: &Path,
    output: Option<&Path>,
    types: Option<Vec<String>>,
    search_tables: SearchTables,
    scale: &super::ScaleArgs,
) -> Result<(), String> {
    let start = Instant::now();
    let progress = StageProgress::new();
    let loaded = load_or_new(map_path, scale)?;
    let (baked, mut ctx) = bake_loaded(map_path, &loaded, types, &progress)?;
    let mut meta = bake::package_meta(&loaded.document, &baked.type_indices);
    meta.hierarchy = match search_tables {
        SearchTables::Auto => None,
        SearchTables::Hierarchy => Some(true),
        SearchTables::Landmarks => Some(false),
    };
    navstudio::nav::links::validate_links(&meta.links, baked.nav.spec.width, baked.nav.spec.height)
        .map_err(|e| format!("{}: {e}", map_path.display()))?;
    // The heights and paint layers (4 bytes per cell each) are not needed to write the package.
    drop(loaded);
    if let Some(out) = output {
        progress.update("write package", 1.0);
        let len = ctx
            .stage("write package", |_| package::write(out, &baked.nav, &meta))
            .map_err(|e| e.to_string())?;
        println!("wrote {} ({len} bytes)", out.display());
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
    // The command ends here and the process with it, which returns the memory at once;
    // freeing the millions of tiles one by one took a quarter of a second at 8192².
    std::mem::forget(baked);
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
    cost.wall_cells() as f64 / cost.spec.cell_count().max(1) as f64
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
