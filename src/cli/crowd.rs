//! `navstudio crowd`: the crowd preview headless — the same simulation the editor shows,
//! driven through `NavWorld`, printing its metrics.

use std::path::{Path, PathBuf};
use std::time::Instant;

use navstudio::crowd::{
    self, AvoidanceMode, Navigator, Order, Scenario, Simulation, Spawn, SpawnArea, Vec2,
    WorldNavigator, quality,
};
use navstudio::nav::NavWorld;

/// Options of `navstudio crowd` beyond the map.
pub struct CrowdArgs<'a> {
    /// Scenario file; without one, `agents` infantry cross from `from` to `to`.
    pub scenario: Option<&'a Path>,
    /// Steps to run at the scenario's fixed rate.
    pub steps: u64,
    /// Agents of the default scenario.
    pub agents: u32,
    /// Archetype of the default scenario.
    pub archetype: &'a str,
    /// Start cell of the default scenario.
    pub from: Option<(u32, u32)>,
    /// Goal cell of the default scenario.
    pub to: Option<(u32, u32)>,
    /// Local avoidance mode override.
    pub mode: Option<AvoidanceMode>,
}

/// A map baked for the crowd: its name, size and the navigator over the bake.
struct CrowdMap {
    name: String,
    width: u32,
    height: u32,
    cell_m: f32,
    nav: WorldNavigator,
}

/// Loads and bakes a map document and wraps the bake in the run time's navigator.
fn bake_for_crowd(map_path: &Path) -> Result<CrowdMap, String> {
    let (loaded, baked, _) = super::bake::load_and_bake(map_path, None, true)?;
    let buffers = baked
        .type_indices
        .iter()
        .map(|&t| loaded.document.movement_types[t].wall_buffer_m)
        .collect();
    Ok(CrowdMap {
        name: loaded.document.name.clone(),
        width: baked.nav.spec.width,
        height: baked.nav.spec.height,
        cell_m: baked.nav.cell_size_m,
        nav: WorldNavigator::new(NavWorld::from_nav(baked.nav), buffers),
    })
}

/// `agents` of one archetype in a block around cell `from`, ordered to cell `to`; an error
/// sentence when the archetype's movement type cannot get there.
fn crossing_scenario(
    map_path: &Path,
    map: &CrowdMap,
    archetype: &str,
    agents: u32,
    from: (u32, u32),
    to: (u32, u32),
) -> Result<Scenario, String> {
    let ty = crowd::default_archetypes()
        .into_iter()
        .find(|a| a.name == archetype)
        .and_then(|a| map.nav.move_type(&a.movement_type));
    if let Some(ty) = ty
        && !map.nav.world.is_reachable(ty, from, to)
    {
        return Err(format!(
            "{}: {},{} cannot reach {},{} for '{}' (different islands, or a wall); pick other --from/--to cells",
            map_path.display(),
            from.0,
            from.1,
            to.0,
            to.1,
            archetype
        ));
    }
    let cell_m = map.cell_m;
    let world = |c: (u32, u32)| Vec2::new((c.0 as f32 + 0.5) * cell_m, (c.1 as f32 + 0.5) * cell_m);
    Ok(Scenario {
        seed: 1,
        config: crowd::SimConfig::default(),
        spawns: vec![Spawn {
            archetype: archetype.to_owned(),
            area: SpawnArea::Center {
                center_world: world(from),
            },
            count: agents,
            group: 0,
        }],
        orders: vec![Order {
            group: 0,
            goal_world: world(to),
            more_goals_world: Vec::new(),
            at_step: 0,
        }],
    })
}

/// Runs the crowd on a map and prints metrics ten times and at the end.
pub fn crowd_cmd(map_path: &Path, args: &CrowdArgs<'_>) -> Result<(), String> {
    let map = bake_for_crowd(map_path)?;
    let (w, h) = (map.width, map.height);
    let mut scenario = match args.scenario {
        Some(path) => Scenario::load(path).map_err(|e| e.to_string())?,
        None => crossing_scenario(
            map_path,
            &map,
            args.archetype,
            args.agents,
            args.from.unwrap_or((w / 4, h / 2)),
            args.to.unwrap_or((3 * w / 4, h / 2)),
        )?,
    };
    let CrowdMap { name, mut nav, .. } = map;
    if let Some(mode) = args.mode {
        scenario.config.avoidance = mode;
    }
    let archetypes = crowd::default_archetypes();
    let mut sim =
        Simulation::from_scenario(&scenario, &archetypes, &nav).map_err(|e| e.to_string())?;
    sim.track_collision_states(true);
    println!(
        "{} agents on {} ({} × {} cells), {:?} avoidance",
        sim.agents().len(),
        name,
        w,
        h,
        scenario.config.avoidance
    );
    // Collision states (seed §001): agents still running into a neighbour, avoiding one,
    // and past one lately.
    println!(
        "    step  arrived   moving    stuck  speed m/s  wall hits  unresolved  resolving  resolved  step ms"
    );
    let start = Instant::now();
    let report_every = (args.steps / 10).max(1);
    for i in 0..args.steps {
        sim.step(&mut nav);
        let m = sim.metrics();
        if (i + 1) % report_every == 0 || i + 1 == args.steps {
            println!(
                "{:>8} {:>8} {:>8} {:>8} {:>10.2} {:>10} {:>11} {:>10} {:>9} {:>8.2}",
                m.step + 1,
                m.arrived,
                m.moving,
                m.stuck,
                m.mean_speed_mps,
                m.wall_contacts,
                m.collisions_unresolved,
                m.collisions_resolving,
                m.collisions_resolved,
                m.step_secs * 1000.0
            );
        }
    }
    println!(
        "ran {} steps in {:.2} s",
        args.steps,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Options of `navstudio crowd-bench`.
pub struct BenchArgs<'a> {
    /// Only cases whose name contains one of these (all when empty).
    pub cases: &'a [String],
    /// Avoidance modes (all three when empty).
    pub modes: &'a [AvoidanceMode],
    /// Agent counts as a share of the full cases.
    pub scale: f32,
    /// Extra cases: (map document, scenario file).
    pub added: &'a [(PathBuf, PathBuf)],
    /// The showcase map, for its canyon case.
    pub showcase: Option<PathBuf>,
    /// Where to write the rows as JSON.
    pub json: Option<&'a Path>,
    /// Techniques to turn off (names from [`crowd::Techniques::NAMES`], or `all`).
    pub off: &'a [String],
    /// Techniques to turn on (after `off`).
    pub on: &'a [String],
    /// Movement parameters to set (`SimConfig::PARAMS` names, values checked).
    pub set: &'a [(String, f32)],
    /// Where to write a PNG of the crowd every `frame_every_secs`.
    pub frames: Option<&'a Path>,
    /// `SimConfig::decision_secs` for every run.
    pub decision_secs: f32,
    /// Replaces every case's scenario seed.
    pub seed: Option<u64>,
    /// Draw this many random cases instead (`seed` seeds the draw).
    pub random: Option<u32>,
    /// With `random`: how many seeds, from `seed` up, draw cases.
    pub seeds: u32,
    /// With `random`: write the drawn cases here (map, document, scenario) instead of
    /// running them.
    pub write: Option<&'a Path>,
}

/// Simulated seconds between two frames of `--frames`.
const FRAME_EVERY_SECS: f64 = 2.0;
/// Pixels per cell in frames (maps wider than 512 cells are drawn at one pixel per cell).
const FRAME_PX_PER_CELL: u32 = 4;

/// A run's watcher that writes a frame every [`FRAME_EVERY_SECS`] of simulated time into
/// `dir` (none without one), as `LABEL-MODE-NNNN.png`; the first error stops the writing
/// and lands in `error`.
fn frame_writer<'a>(
    dir: Option<&'a Path>,
    label: &'a str,
    mode: crowd::AvoidanceMode,
    error: &'a mut Option<String>,
) -> impl FnMut(&Simulation, &WorldNavigator) + 'a {
    move |sim, nav| {
        let Some(dir) = dir else {
            return;
        };
        let every = ((FRAME_EVERY_SECS / f64::from(sim.config().step_secs)).round() as u64).max(1);
        if sim.step_index() % every == 1 && error.is_none() {
            let file = dir.join(format!(
                "{label}-{}-{:04}.png",
                quality::mode_name(mode),
                sim.step_index() / every
            ));
            *error = write_frame(sim, nav, &file).err();
        }
    }
}

/// Draws the crowd over the land walls: walls dark, moving agents blue, stuck red, arrived
/// green, idle grey.
fn write_frame<N: Navigator + ?Sized>(
    sim: &Simulation,
    nav: &N,
    path: &Path,
) -> Result<(), String> {
    let g = nav.grid();
    let scale = if g.width_cells > 512 {
        1
    } else {
        FRAME_PX_PER_CELL
    };
    let (w, h) = (g.width_cells * scale, g.height_cells * scale);
    let mut img = image::RgbImage::from_pixel(w, h, image::Rgb([235, 232, 225]));
    for y in 0..g.height_cells {
        for x in 0..g.width_cells {
            if nav.is_wall(navstudio::nav::MoveType::default(), x as i32, y as i32) {
                for py in 0..scale {
                    for px in 0..scale {
                        img.put_pixel(x * scale + px, y * scale + py, image::Rgb([60, 60, 70]));
                    }
                }
            }
        }
    }
    let a = sim.agents();
    let px_per_m = scale as f32 / g.cell_size_m;
    for i in 0..a.len() {
        let colour = match a.state[i] {
            crowd::AgentState::Moving => [40, 90, 220],
            crowd::AgentState::Stuck => [220, 40, 40],
            crowd::AgentState::Queued => [235, 160, 30],
            crowd::AgentState::Arrived => [40, 170, 70],
            crowd::AgentState::Idle => [140, 140, 140],
        };
        let c = a.pos_world[i] * px_per_m;
        let r = (a.radius_m[i] * px_per_m).max(0.7);
        let (x0, x1) = ((c.x - r).floor() as i64, (c.x + r).ceil() as i64);
        let (y0, y1) = ((c.y - r).floor() as i64, (c.y + r).ceil() as i64);
        for y in y0.max(0)..y1.min(i64::from(h)) {
            for x in x0.max(0)..x1.min(i64::from(w)) {
                let d = Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - c;
                if d.length_squared() <= r * r {
                    img.put_pixel(x as u32, y as u32, image::Rgb(colour));
                }
            }
        }
    }
    img.save(path)
        .map_err(|e| format!("{}: cannot write the frame: {e}", path.display()))
}

/// Infantry in the showcase canyon case at full scale.
const CANYON_AGENTS: u32 = 600;

/// One case to run: a label, its scenario and how to get a navigator for it.
enum BenchCase {
    Builtin(quality::CrowdCase),
    Baked {
        label: String,
        map: PathBuf,
        scenario: Scenario,
    },
}

/// Plays every selected case in every selected mode and prints one row each.
pub fn crowd_bench_cmd(args: &BenchArgs<'_>) -> Result<(), String> {
    if let Some(count) = args.random {
        return random_bench(args, count);
    }
    let wanted = |name: &str| args.cases.is_empty() || args.cases.iter().any(|c| name.contains(c));
    let mut cases: Vec<BenchCase> = quality::builtin_cases(args.scale)
        .into_iter()
        .filter(|c| wanted(&c.name))
        .map(BenchCase::Builtin)
        .collect();
    if let Some(showcase) = &args.showcase
        && wanted("showcase_canyon")
    {
        let map = bake_for_crowd(showcase)?;
        let agents = ((CANYON_AGENTS as f32 * args.scale).round() as u32).max(4);
        let (w, h) = (map.width, map.height);
        let scenario = crossing_scenario(
            showcase,
            &map,
            "infantry",
            agents,
            (w / 4, h / 2),
            (3 * w / 4, h / 2),
        )?;
        cases.push(BenchCase::Baked {
            label: "showcase_canyon".into(),
            map: showcase.clone(),
            scenario,
        });
    }
    for (map, scenario_path) in args.added {
        let scenario = Scenario::load(scenario_path).map_err(|e| e.to_string())?;
        let label = scenario_path.file_stem().map_or_else(
            || "scenario".to_owned(),
            |s| s.to_string_lossy().trim_end_matches(".scenario").to_owned(),
        );
        cases.push(BenchCase::Baked {
            label,
            map: map.clone(),
            scenario,
        });
    }
    if cases.is_empty() {
        return Err(
            "no crowd-bench case matches --case; the built-in cases are bottleneck, \
             head_on, crossing, circle, mixed_radii, rooms, dense_choke and showcase_canyon"
                .to_owned(),
        );
    }
    let modes: Vec<AvoidanceMode> = if args.modes.is_empty() {
        vec![
            AvoidanceMode::Boids,
            AvoidanceMode::Orca,
            AvoidanceMode::Context,
        ]
    } else {
        args.modes.to_vec()
    };
    let techniques = chosen_techniques(args)?;
    if let Some(dir) = args.frames {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot make the frames folder: {e}", dir.display()))?;
    }
    let archetypes = crowd::default_archetypes();
    println!("{}", quality::table_header());
    let mut rows = Vec::new();
    for case in &cases {
        for &mode in &modes {
            let (label, mut scenario, mut nav) = match case {
                BenchCase::Builtin(c) => (c.name.clone(), c.scenario.clone(), c.map.navigator()),
                BenchCase::Baked {
                    label,
                    map,
                    scenario,
                } => (label.clone(), scenario.clone(), bake_for_crowd(map)?.nav),
            };
            scenario.config.avoidance = mode;
            apply_settings(args, techniques, &mut scenario.config)?;
            if let Some(seed) = args.seed {
                scenario.seed = seed;
            }
            let mut frame_error = None;
            let mut watch = frame_writer(args.frames, &label, mode, &mut frame_error);
            let report = quality::run_watched(&label, &scenario, &archetypes, &mut nav, &mut watch)
                .map_err(|e| e.to_string())?;
            drop(watch); // it holds `frame_error`
            if let Some(e) = frame_error {
                return Err(e);
            }
            println!("{}", quality::table_row(&report));
            rows.push(report);
        }
    }
    let meeting = rows
        .iter()
        .filter(|r| r.meets(quality::TARGET_RATIO))
        .count();
    println!(
        "{meeting} of {} rows meet the targets (all arrived, none stuck, within {}x the bound, overlap mean <= 5 %, max <= 30 %, no wall penetration)",
        rows.len(),
        quality::TARGET_RATIO
    );
    if let Some(path) = args.json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
        navstudio::map::io::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("{}: could not write the JSON report: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// `crowd-bench --random N --write DIR`: the case's grid as `DIR/CASE.map` (Moving AI:
/// `@` walls, `.` ground; other costs are written as ground), a map document on it
/// (`DIR/CASE.ron`, 1 m cells, as `navstudio new` makes one) and its scenario
/// (`DIR/CASE.scenario.ron`, with `config`), so a designer can open the case in the editor.
fn write_case(
    dir: &Path,
    case: &quality::CrowdCase,
    config: &crowd::SimConfig,
) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot make the folder: {e}", dir.display()))?;
    let m = &case.map;
    let mut text = format!("type octile\nheight {}\nwidth {}\nmap\n", m.height, m.width);
    for row in m.cells.chunks(m.width as usize) {
        text.extend(row.iter().map(|&c| if c == 255 { '@' } else { '.' }));
        text.push('\n');
    }
    let map_path = dir.join(format!("{}.map", case.name));
    navstudio::map::io::write_atomic(&map_path, text.as_bytes())
        .map_err(|e| format!("{}: cannot write the map: {e}", map_path.display()))?;
    let doc_path = dir.join(format!("{}.ron", case.name));
    super::new_map::write_document(&map_path, &doc_path, &super::ScaleArgs::default())?;
    let mut scenario = case.scenario.clone();
    scenario.config = config.clone();
    let scenario_path = dir.join(format!("{}.scenario.ron", case.name));
    let ron = ron::ser::to_string_pretty(&scenario, ron::ser::PrettyConfig::default())
        .map_err(|e| e.to_string())?;
    navstudio::map::io::write_atomic(&scenario_path, ron.as_bytes()).map_err(|e| {
        format!(
            "{}: cannot write the scenario: {e}",
            scenario_path.display()
        )
    })?;
    println!(
        "wrote {} ({} agents): open {} in the editor, then load {} in the Crowd panel",
        case.name,
        scenario.spawns.iter().map(|s| s.count).sum::<u32>(),
        doc_path.display(),
        scenario_path.display()
    );
    Ok(())
}

/// Puts the techniques, `--decision-secs` and every `--set` into `config`.
fn apply_settings(
    args: &BenchArgs<'_>,
    techniques: crowd::Techniques,
    config: &mut crowd::SimConfig,
) -> Result<(), String> {
    config.techniques = techniques;
    config.decision_secs = args.decision_secs;
    for (name, value) in args.set {
        config.set_param(name, *value).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The techniques `--off` and `--on` leave.
fn chosen_techniques(args: &BenchArgs<'_>) -> Result<crowd::Techniques, String> {
    let mut techniques = crowd::Techniques::default();
    for name in args.off {
        if name == "all" {
            techniques = crowd::Techniques::none();
        } else if !techniques.set(name, false) {
            return Err(format!(
                "'{name}' is not a crowd technique; use {} or all",
                crowd::Techniques::NAMES.join(", ")
            ));
        }
    }
    for name in args.on {
        if !techniques.set(name, true) {
            return Err(format!(
                "'{name}' is not a crowd technique; use {}",
                crowd::Techniques::NAMES.join(", ")
            ));
        }
    }
    Ok(techniques)
}

/// `crowd-bench --random N`: N drawn cases, every selected mode, a row each, then the
/// per-family table.
fn random_bench(args: &BenchArgs<'_>, count: u32) -> Result<(), String> {
    use quality::random;
    if count == 0 {
        return Err("--random needs at least one case (e.g. --random 60)".to_owned());
    }
    if args.seeds == 0 {
        return Err("--seeds needs at least one seed (e.g. --seeds 4)".to_owned());
    }
    let mut base = crowd::SimConfig::default();
    apply_settings(args, chosen_techniques(args)?, &mut base)?;
    let config_in = |mode| crowd::SimConfig {
        avoidance: mode,
        ..base.clone()
    };
    if let Some(dir) = args.frames {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot make the frames folder: {e}", dir.display()))?;
    }
    let modes: Vec<AvoidanceMode> = if args.modes.is_empty() {
        vec![
            AvoidanceMode::Boids,
            AvoidanceMode::Orca,
            AvoidanceMode::Context,
        ]
    } else {
        args.modes.to_vec()
    };
    let seed = args.seed.unwrap_or(1);
    let seeds = (0..u64::from(args.seeds)).map(|k| seed.wrapping_add(k));
    let archetypes = crowd::default_archetypes();
    let wanted = |name: &str| args.cases.is_empty() || args.cases.iter().any(|c| name.contains(c));
    if let Some(dir) = args.write {
        for k in 0..count {
            let case = random::random_case(seed, k, args.scale, &archetypes);
            if wanted(&case.case.name) {
                write_case(dir, &case.case, &config_in(modes[0]))?;
            }
        }
        return Ok(());
    }
    let mut rows = Vec::new();
    for (seed, k) in seeds.flat_map(|s| (0..count).map(move |k| (s, k))) {
        if k == 0 {
            println!(
                "random cases: seed {seed}, {count} cases, scale {}",
                args.scale
            );
            println!("{}", quality::table_header());
        }
        let case = random::random_case(seed, k, args.scale, &archetypes);
        if !wanted(&case.case.name) {
            continue;
        }
        for &mode in &modes {
            let label = case.case.name.clone();
            let mut frame_error = None;
            let mut watch = frame_writer(args.frames, &label, mode, &mut frame_error);
            let row = random::run_random_watched(&case, &config_in(mode), &archetypes, &mut watch)
                .map_err(|e| e.to_string())?;
            drop(watch); // it holds `frame_error`
            if let Some(e) = frame_error {
                return Err(e);
            }
            println!("{}", quality::table_row(&row.report));
            rows.push(row);
        }
    }
    let summary = random::summarise(&rows);
    println!();
    println!("{}", random::summary_header());
    for s in &summary {
        println!("{}", random::summary_row(s));
    }
    let all = |f: &dyn Fn(&random::RandomRow) -> bool| rows.iter().filter(|r| f(r)).count();
    println!(
        "{} rows: {} all home at 5x the bound, {} within 2x, {} within 3x (nobody stuck, overlap mean <= 5 %, max <= 30 %, no wall penetration)",
        rows.len(),
        all(&random::RandomRow::all_home),
        all(&|r| r.within(2.0)),
        all(&|r| r.within(3.0)),
    );
    let missed: Vec<_> = rows.iter().filter(|r| !r.within(2.0)).collect();
    if !missed.is_empty() {
        println!("not within 2x, each replayed by the command after it:");
    }
    for r in missed {
        println!(
            "  {} {}: {}  navstudio crowd-bench --random {} --seed {} --case {} --mode {}",
            r.report.case,
            r.report.mode,
            miss_reason(r),
            r.index + 1,
            r.seed,
            r.report.case,
            r.report.mode,
        );
    }
    if let Some(path) = args.json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            seed: u64,
            seeds: u32,
            cases: u32,
            scale: f32,
            families: &'a [random::FamilySummary],
            rows: &'a [random::RandomRow],
        }
        let text = serde_json::to_string_pretty(&Report {
            seed,
            seeds: args.seeds,
            cases: count,
            scale: args.scale,
            families: &summary,
            rows: &rows,
        })
        .map_err(|e| e.to_string())?;
        navstudio::map::io::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("{}: could not write the JSON report: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Why a random row is not within 2 × its bound: the first target it misses.
fn miss_reason(r: &quality::random::RandomRow) -> String {
    let x = &r.report;
    if x.arrived_pct < 100.0 || x.ratio100.is_none() {
        format!("{:.1} % home, {} stuck", x.arrived_pct, x.stuck)
    } else if x.stuck > 0 {
        format!("{} stuck", x.stuck)
    } else if x.overlap_mean_pct > 5.0 || x.overlap_max_pct > 30.0 {
        format!(
            "overlap mean {:.1} %, max {:.1} %",
            x.overlap_mean_pct, x.overlap_max_pct
        )
    } else if x.wall_penetrations > 0 {
        format!("{} wall penetrations", x.wall_penetrations)
    } else {
        format!("{:.2} x the bound", x.ratio100.unwrap_or(f64::INFINITY))
    }
}
