//! Command-line interface: argument parsing and one function per subcommand. Every error
//! reaches the user as one sentence (what failed, which file, what to do).

use std::path::{Path, PathBuf};

mod bake;
mod bench_paths;
mod cost_scenarios;
mod crowd;
mod new_map;
mod package;

use clap::{Parser, Subcommand, ValueEnum};

use navstudio::map::{self, generate};

/// navstudio — a map editor and baker for flow-field navigation data.
///
/// With no subcommand, opens the editor on FILE, or on the default map (maps/showcase.ron).
#[derive(Parser, Debug)]
#[command(
    name = "navstudio",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Open the editor on this map (.ron), heightmap or nav package, as `navstudio open FILE`.
    file: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// The scale of a new map made from a heightmap: every field defaults to what the file says
/// (see `navstudio new --help`).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ScaleArgs {
    /// Metres per cell (default: from an SRTM .hgt's name and size, else 1).
    #[arg(long)]
    cell_size_m: Option<f32>,
    /// Metres at the lowest and highest sample, BLACK,WHITE (default: the file's own metres
    /// for .hgt and Terrain-RGB, else 0,100).
    #[arg(long, value_parser = parse_range, allow_hyphen_values = true)]
    height_range_m: Option<(f32, f32)>,
    /// Cells lower than this are water, in the same metres as the height range (default: no
    /// water).
    #[arg(long, allow_hyphen_values = true)]
    water_level_m: Option<f32>,
    /// Sector edge length in cells, 1..=255 (default 10).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=255))]
    sector_size: Option<u16>,
    /// Movement types: land-hover-large (default), land-hover or land.
    #[arg(long, value_parser = map::MovementPreset::parse)]
    movement_preset: Option<map::MovementPreset>,
}

impl ScaleArgs {
    /// Whether any field was given.
    fn any(&self) -> bool {
        self.cell_size_m.is_some()
            || self.height_range_m.is_some()
            || self.water_level_m.is_some()
            || self.sector_size.is_some()
            || self.movement_preset.is_some()
    }

    /// The pre-filled settings with the given fields replacing theirs.
    fn apply(&self, settings: &mut map::NewMapSettings) {
        if let Some(c) = self.cell_size_m {
            settings.cell_size_m = c;
        }
        if let Some((black, white)) = self.height_range_m {
            settings.height_black_m = black;
            settings.height_white_m = white;
        }
        if let Some(w) = self.water_level_m {
            settings.water_level_m = Some(w);
        }
        if let Some(s) = self.sector_size {
            settings.sector_size = s;
        }
        if let Some(p) = self.movement_preset {
            settings.preset = p;
        }
    }
}

/// Parses `BLACK,WHITE` metres.
fn parse_range(s: &str) -> Result<(f32, f32), String> {
    let (a, b) = s.split_once(',').ok_or_else(|| {
        format!("'{s}' is not a height range; write it as BLACK,WHITE in metres (e.g. 1165,4333)")
    })?;
    let parse = |v: &str| {
        v.trim()
            .parse::<f32>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| {
                format!("'{s}' is not a height range; both ends must be numbers of metres")
            })
    };
    let (black, white) = (parse(a)?, parse(b)?);
    if white < black {
        return Err(format!(
            "'{s}' is not a height range; the height at white ({white}) must not be below the height at black ({black})"
        ));
    }
    Ok((black, white))
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the editor on a map document (.ron), a heightmap (.png/.r16/.hgt/.map) or a package.
    Open {
        /// File to open.
        file: PathBuf,
    },
    /// Make a new map document from a heightmap at its real scale: every field is pre-filled
    /// from the file (SRTM .hgt: cell size from the name and size, metres from the file) and
    /// can be set with the flags. Prints the settings, the slope histogram and the share of
    /// walls per movement type; writes the document (the heightmap stays where it is).
    New {
        /// The heightmap (.png, .hgt, .r16 …).
        heightmap: PathBuf,
        /// The map document to write, e.g. maps/NAME.ron.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        scale: ScaleArgs,
    },
    /// Load a map document and its heightmap, check them and print a summary.
    Validate {
        /// The map document (maps/NAME.ron).
        map: PathBuf,
    },
    /// Generate a procedural sample map (heightmap PNG, paint PNGs and the .ron document).
    Generate {
        /// Which kind of map to make.
        #[arg(long, value_enum, default_value_t = Kind::Showcase)]
        kind: Kind,
        /// Width and height in cells (default: 640 showcase, 96 small, 2048 benchmark).
        #[arg(long)]
        size: Option<u32>,
        /// Random seed; the same seed gives the same map.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output document path, e.g. maps/showcase.ron (the heightmap goes beside it).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Bake a map: cost fields, sectors, portals, graph, islands, flow permutations.
    /// Prints a per-stage timing table; with -o writes the nav package.
    Bake {
        /// The map document (maps/NAME.ron), or a heightmap (.png, .hgt, .r16, .map …),
        /// baked as the new map `navstudio new` would make for it (the flags below set its
        /// scale).
        map: PathBuf,
        /// Where to write the nav package (NAME.navpkg).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Bake only these movement types (comma-separated names).
        #[arg(long, value_delimiter = ',')]
        types: Option<Vec<String>>,
        /// Which search tables the package stores for fast path requests: `auto` picks the
        /// sector hierarchy on maps of 40,000 sectors or more (2000² cells in sectors of
        /// 10) and landmark tables per portal node below, where each is faster.
        #[arg(long, value_enum, default_value = "auto")]
        search_tables: bake::SearchTables,
        #[command(flatten)]
        scale: ScaleArgs,
    },
    /// Print a nav package's manifest and section sizes.
    Info {
        /// The package (NAME.navpkg).
        package: PathBuf,
        /// Print JSON instead: the manifest with its chunk index, and per movement type the
        /// counts a reader in another language can check itself against (cells per island
        /// id, a histogram of cell costs, portal windows, nodes, edges, unique flow tiles).
        #[arg(long)]
        json: bool,
    },
    /// Write one layer of a nav package as a PNG for inspection in any image tool.
    Export {
        /// The package (NAME.navpkg).
        package: PathBuf,
        /// Which layer.
        #[arg(long, value_enum)]
        layer: package::ExportLayer,
        /// Movement type name.
        #[arg(long = "type")]
        type_name: String,
        /// Goal cell X,Y (integration and flow layers).
        #[arg(long, value_parser = parse_cell)]
        goal: Option<(u32, u32)>,
        /// Output PNG.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Run the crowd preview headless on a map and print its metrics.
    Crowd {
        /// The map document (maps/NAME.ron); it is baked first.
        map: PathBuf,
        /// A scenario file (RON: spawns and orders); without one, --agents infantry cross
        /// from --from to --to.
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Steps to run (60 per simulated second).
        #[arg(long, default_value_t = 600)]
        steps: u64,
        /// Agents of the default scenario.
        #[arg(long, default_value_t = 200)]
        agents: u32,
        /// Archetype of the default scenario (infantry, tank, hovercraft, "large walker").
        #[arg(long, default_value = "infantry")]
        archetype: String,
        /// Start cell X,Y of the default scenario (default: left middle).
        #[arg(long, value_parser = parse_cell)]
        from: Option<(u32, u32)>,
        /// Goal cell X,Y of the default scenario (default: right middle).
        #[arg(long, value_parser = parse_cell)]
        to: Option<(u32, u32)>,
        /// Local avoidance: boids, orca or context.
        #[arg(long, value_parser = parse_mode)]
        mode: Option<navstudio::crowd::AvoidanceMode>,
    },
    /// Measure how well crowds move: play the built-in cases (a door, a head-on swap,
    /// crossing streams, the circle swap, mixed radii, rooms, a dense choke) and the
    /// showcase map's canyon in every avoidance mode and print one row per case and mode:
    /// arrival, time against the geometric lower bound, stuck agents, overlap, wall
    /// penetrations, path efficiency, jitter and step time.
    CrowdBench {
        /// Run only the cases whose name contains one of these.
        #[arg(long)]
        case: Vec<String>,
        /// Avoidance modes to run (default: boids, orca and context).
        #[arg(long, value_parser = parse_mode)]
        mode: Vec<navstudio::crowd::AvoidanceMode>,
        /// Agent counts as a share of the full cases (100–1,000 agents each at 1).
        #[arg(long, default_value_t = 1.0)]
        scale: f32,
        /// Also add a case from a map document and a scenario file saved by the editor's
        /// Scenarios panel: MAP.ron,SCENARIO.ron (repeatable).
        #[arg(long, value_parser = parse_pair)]
        add: Vec<(PathBuf, PathBuf)>,
        /// Leave out the showcase map's canyon (it needs a bake of maps/showcase.ron).
        #[arg(long)]
        no_showcase: bool,
        /// Write the rows as JSON to this file too.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Turn a crowd switch off (repeatable): resolve_contacts (the contact rule), or all
        /// (flow following and separation alone).
        #[arg(long)]
        off: Vec<String>,
        /// Turn a crowd switch on (repeatable; after --off): context_orca and
        /// corner_clearance are off by default.
        #[arg(long)]
        on: Vec<String>,
        /// Set a movement parameter for every run (repeatable), e.g. `--set
        /// reaction_secs=0.25`: reaction_secs, separation_margin_m, max_neighbours,
        /// contact_relaxation, avoidance_horizon_secs, contact_horizon_secs,
        /// orca_time_horizon_secs, context_slots (docs/crowd.md, Parameters).
        #[arg(long, value_name = "NAME=VALUE", value_parser = parse_param)]
        set: Vec<(String, f32)>,
        /// Write a PNG of the crowd every 2 simulated seconds into this folder (made if
        /// missing), to watch a case (CASE-MODE-NNNN.png).
        #[arg(long)]
        frames: Option<PathBuf>,
        /// ORCA and context steering decide every this many seconds and keep their chosen
        /// velocity in between (e.g. 0.1: 10 Hz decisions, 60 Hz movement); 0: every step.
        #[arg(long, default_value_t = 0.0)]
        decision_secs: f32,
        /// Seed of every case's spawn positions (the cases' own seed when absent): the same
        /// seed gives the same rows, other seeds show how much a row owes to one layout.
        #[arg(long)]
        seed: Option<u64>,
        /// Instead of the built-in cases, draw N random cases from ten families (door
        /// swaps, one-way gaps, crossings, antipodes, mixed radii, room chains,
        /// serpentines, pillars, obstacle fields, open-ground marches) with the --seed
        /// (default 1), run each to 5x its bound and report per family and mode.
        #[arg(long)]
        random: Option<u32>,
        /// With --random: draw and run the cases of this many seeds in turn (from --seed
        /// up, one at a time) and report the families over all of them (e.g. --random 300
        /// --seeds 4: 120 cases a family).
        #[arg(long, requires = "random", default_value_t = 1)]
        seeds: u32,
        /// With --random: write each drawn case (as --case picks) into this folder instead
        /// of running it, to open in the editor: CASE.map (the grid, Moving AI format),
        /// CASE.ron (a map document on it) and CASE.scenario.ron (its spawns and orders, in
        /// the first --mode; load it in the Crowd panel's Scenarios).
        #[arg(long, requires = "random")]
        write: Option<PathBuf>,
    },
    /// Write a generated grid map and its scenarios in the Moving AI format
    /// (KIND-SIZE-SEED.map and .map.scen, octile optima computed here), for `navstudio
    /// scenarios`.
    GridMaps {
        /// rooms (rooms and doors), obstacles (random rectangles) or maze32 (corridors 32
        /// wide).
        #[arg(value_enum)]
        kind: GridMapKind,
        /// Width and height in cells.
        #[arg(long, default_value_t = 512)]
        size: u32,
        /// Random seed; the same seed gives the same map and rows.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Scenario rows to write.
        #[arg(long, default_value_t = 150)]
        rows: usize,
        /// Folder to write into (made if missing).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Run Moving AI benchmark scenarios: bake the grid (cost 1 everywhere passable), plan
    /// and trace every row, report reachability, arrival, traced / octile optimum (the
    /// published length) and traced / any-angle optimum (the shortest line through free
    /// space, computed here). Given a map document (.ron), a heightmap or a package
    /// (.navpkg) and no scenario file, price --pairs random reachable pairs' traces on its
    /// cost field against the 48-direction reference instead (traced cost / reference).
    Scenarios {
        /// The Moving AI grid (.map), or a map document, heightmap or package.
        map: PathBuf,
        /// Its scenario file (.scen); leave out for a weighted map.
        scen: Option<PathBuf>,
        /// Weighted map: random pairs to price.
        #[arg(long, default_value_t = 100)]
        pairs: usize,
        /// Weighted map: seed of the pairs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run only the first N rows.
        #[arg(long)]
        limit: Option<usize>,
        /// Run only N rows spread evenly over the file (short and long paths alike).
        #[arg(long)]
        spread: Option<usize>,
        /// Print every row as one JSON line (start, goal, octile, any_angle, traced,
        /// request_us) before the report.
        #[arg(long)]
        rows: bool,
        /// Skip the any-angle oracle (faster; its figures are left out).
        #[arg(long)]
        no_any_angle: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Use the seamless quality mode (costs carried across portal windows).
        #[arg(long)]
        seamless: bool,
        /// Flow-following look-ahead in cells (0 = cell by cell; default: NavWorld's).
        #[arg(long)]
        lookahead: Option<u32>,
        /// A* heuristic weight of the hierarchy search (1 = optimal portal routes; default:
        /// NavWorld's); the flat search is always optimal
        #[arg(long)]
        weight: Option<f32>,
        /// Plan without ALT landmark bounds (octile heuristic only).
        #[arg(long)]
        no_landmarks: bool,
        /// Score with a default movement type (land, hover, large) instead of the unit-cost
        /// grid type; for a weighted map, its movement type (default: the first).
        #[arg(long = "type")]
        movement_type: Option<String>,
        /// Portal search: `flat` (A* over every portal node) or `hierarchy` (over the
        /// sector hierarchy's border nodes); default: by map size.
        #[arg(long, value_parser = parse_search)]
        search: Option<navstudio::nav::SearchMode>,
    },
    /// Plan a path in a nav package: reachability, the portal route, and the length of the
    /// path traced by following the flow field. Several --to make a goal set: each source
    /// goes to its nearest goal, and the report says which.
    Path {
        /// The package (NAME.navpkg).
        package: PathBuf,
        /// Movement type name.
        #[arg(long = "type")]
        type_name: String,
        /// Source cell X,Y (repeat for several sources, planned as one merged path).
        #[arg(long, value_parser = parse_cell, required = true)]
        from: Vec<(u32, u32)>,
        /// Goal cell X,Y (repeat for a goal set).
        #[arg(long, value_parser = parse_cell, required = true)]
        to: Vec<(u32, u32)>,
        /// After planning, add this source X,Y to the path (repeatable): a merging A* each.
        #[arg(long = "add-from", value_parser = parse_cell)]
        add_from: Vec<(u32, u32)>,
        /// After planning, move the goal to X,Y (repeatable, in turn), as a chased unit's
        /// goal moves: inside its sector one goal field, across a border a re-plan.
        #[arg(long = "then-to", value_parser = parse_cell)]
        then_to: Vec<(u32, u32)>,
    },
    /// Time path requests on any package as a game meets them: open it streamed, time the
    /// first request, then answer random reachable requests across the map (pairs at least
    /// half the map apart), warm; print median, p99 and max request time, the wall time and
    /// the process's resident memory.
    BenchPaths {
        /// The package (NAME.navpkg).
        package: PathBuf,
        /// Movement type name (default: the package's first).
        #[arg(long = "type")]
        type_name: Option<String>,
        /// Warm requests after the first.
        #[arg(long, default_value_t = 1000)]
        requests: usize,
        /// Answer them on T threads sharing one copy of the data (read whole), each with its
        /// own query; without it, one streamed world answers them.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: Option<u16>,
        /// Seed of the random pairs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Portal search: `auto` (the package's: the hierarchy with its levels on big
        /// maps), `flat`, `hierarchy` (its clusters only) or `levels`.
        #[arg(long, value_parser = parse_search)]
        search: Option<navstudio::nav::SearchMode>,
        /// Answer each request in calls of this many milliseconds (`advance_path`), as a
        /// game spreads requests over frames; prints each call's time and overrun.
        #[arg(long = "budget-ms")]
        budget_ms: Option<f64>,
        /// With `--threads`: print to stderr what the shared data holds, table by table,
        /// after the first request and after the warm ones.
        #[arg(long)]
        memory: bool,
        /// Also print the K slowest warm requests, each with its cells and the `navstudio
        /// path` command that plans it again.
        #[arg(long, default_value_t = 0)]
        slowest: usize,
    },
}

/// Parses an avoidance mode name.
fn parse_mode(s: &str) -> Result<navstudio::crowd::AvoidanceMode, String> {
    use navstudio::crowd::AvoidanceMode;
    match s.to_ascii_lowercase().as_str() {
        "boids" => Ok(AvoidanceMode::Boids),
        "orca" => Ok(AvoidanceMode::Orca),
        "context" => Ok(AvoidanceMode::Context),
        _ => Err(format!(
            "'{s}' is not an avoidance mode; use boids, orca or context"
        )),
    }
}

/// Parses a portal search name.
fn parse_search(s: &str) -> Result<navstudio::nav::SearchMode, String> {
    use navstudio::nav::SearchMode;
    match s.to_ascii_lowercase().as_str() {
        "auto" => Ok(SearchMode::Auto),
        "flat" => Ok(SearchMode::Flat),
        "hierarchy" | "clusters" => Ok(SearchMode::Clusters),
        "levels" => Ok(SearchMode::Levels),
        _ => Err(format!(
            "'{s}' is not a portal search; use auto, flat, hierarchy or levels"
        )),
    }
}

/// Parses `NAME=VALUE` into a crowd parameter setting, checked against its range.
fn parse_param(s: &str) -> Result<(String, f32), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| {
        format!(
            "'{s}' is not a parameter setting; write it as NAME=VALUE (e.g. reaction_secs=0.25)"
        )
    })?;
    let value: f32 = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' in '{s}' is not a number; give e.g. 0.25"))?;
    let name = name.trim().to_owned();
    navstudio::crowd::SimConfig::default()
        .set_param(&name, value)
        .map_err(|e| e.to_string())?;
    Ok((name, value))
}

/// Parses `A,B` into two paths.
fn parse_pair(s: &str) -> Result<(PathBuf, PathBuf), String> {
    let (a, b) = s.split_once(',').ok_or_else(|| {
        format!("'{s}' is not a map and a scenario; write it as MAP.ron,SCENARIO.ron")
    })?;
    Ok((PathBuf::from(a.trim()), PathBuf::from(b.trim())))
}

/// Parses `X,Y` into a cell.
fn parse_cell(s: &str) -> Result<(u32, u32), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not a cell; write it as X,Y (e.g. 120,45)"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}' is not a cell; X and Y must be whole numbers ≥ 0"))
    };
    Ok((parse(x)?, parse(y)?))
}

/// Kinds of generated grid map (`navstudio grid-maps`).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum GridMapKind {
    /// Rooms joined by doors 2–12 wide, a few pillars.
    Rooms,
    /// Random rectangles over about 20 % of the map.
    Obstacles,
    /// A maze of corridors 32 wide.
    Maze32,
}

/// Kinds of generated map.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Kind {
    /// The default map: hills, cliffs, a plateau with ramps, a lake with an island, a swamp,
    /// a narrow canyon, stamps and paint.
    Showcase,
    /// A small quick-look map for tests.
    Small,
    /// A large realistic map for benchmarks.
    Benchmark,
}

/// The default map opened by `navstudio` with no arguments.
pub fn default_map_path() -> PathBuf {
    let local = Path::new("maps/showcase.ron");
    if local.exists() {
        return local.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron")
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        None => open_editor(Some(cli.file.unwrap_or_else(default_map_path))),
        Some(Command::New {
            heightmap,
            output,
            scale,
        }) => new_map::new_cmd(&heightmap, &output, &scale),
        Some(Command::Open { file }) => open_editor(Some(file)),
        Some(Command::Validate { map }) => validate(&map),
        Some(Command::Generate {
            kind,
            size,
            seed,
            output,
        }) => generate_map(kind, size, seed, &output),
        Some(Command::Bake {
            map,
            output,
            types,
            search_tables,
            scale,
        }) => bake::bake_cmd(&map, output.as_deref(), types, search_tables, &scale),
        Some(Command::Info { package, json }) => package::info_cmd(&package, json),
        Some(Command::Export {
            package,
            layer,
            type_name,
            goal,
            output,
        }) => package::export_cmd(&package, layer, &type_name, goal, &output),
        Some(Command::Crowd {
            map,
            scenario,
            steps,
            agents,
            archetype,
            from,
            to,
            mode,
        }) => crowd::crowd_cmd(
            &map,
            &crowd::CrowdArgs {
                scenario: scenario.as_deref(),
                steps,
                agents,
                archetype: &archetype,
                from,
                to,
                mode,
            },
        ),
        Some(Command::CrowdBench {
            case,
            mode,
            scale,
            add,
            no_showcase,
            json,
            off,
            on,
            set,
            frames,
            decision_secs,
            seed,
            random,
            seeds,
            write,
        }) => crowd::crowd_bench_cmd(&crowd::BenchArgs {
            cases: &case,
            modes: &mode,
            scale,
            added: &add,
            showcase: (!no_showcase).then(default_map_path),
            json: json.as_deref(),
            off: &off,
            on: &on,
            set: &set,
            frames: frames.as_deref(),
            decision_secs,
            seed,
            random,
            seeds,
            write: write.as_deref(),
        }),
        Some(Command::GridMaps {
            kind,
            size,
            seed,
            rows,
            output,
        }) => {
            use navstudio::grid_maps::GridKind;
            if !(16..=8192).contains(&size) {
                return Err(format!(
                    "--size {size} is out of range; give 16 to 8192 cells"
                ));
            }
            let kind = match kind {
                GridMapKind::Rooms => GridKind::Rooms,
                GridMapKind::Obstacles => GridKind::Obstacles,
                GridMapKind::Maze32 => GridKind::Maze,
            };
            let path = navstudio::grid_maps::write(kind, size, seed, rows, &output)?;
            println!("wrote {} and its .scen", path.display());
            Ok(())
        }
        Some(Command::Scenarios {
            map,
            scen,
            pairs,
            seed,
            limit,
            spread,
            rows,
            no_any_angle,
            json,
            seamless,
            lookahead,
            weight,
            no_landmarks,
            movement_type,
            search,
        }) => {
            let options = navstudio::movingai::ScenarioOptions {
                limit,
                seamless,
                flow_lookahead: lookahead,
                heuristic_weight: weight,
                no_landmarks,
                movement_type: movement_type.as_deref(),
                search_mode: search,
                spread,
                no_any_angle,
            };
            let Some(scen) = scen else {
                return cost_scenarios::cost_scenarios_cmd(&map, &options, pairs, seed, rows, json);
            };
            let r =
                navstudio::movingai::run_with(&map, &scen, &options).map_err(|e| e.to_string())?;
            if rows {
                for row in &r.row_results {
                    println!("{}", serde_json::to_string(row).map_err(|e| e.to_string())?);
                }
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?
                );
            } else {
                println!(
                    "{}: {} scenarios, reachable {:.2} %, arrived {:.2} %, traced/octile mean {:.4} p95 {:.4} max {:.4}, request mean {:.0} µs median {:.0} µs (bake {:.0} ms)",
                    r.map,
                    r.rows,
                    100.0 * r.reachable_share,
                    100.0 * r.arrived_share,
                    r.ratio_mean,
                    r.ratio_p95,
                    r.ratio_max,
                    r.request_us_mean,
                    r.request_us_median,
                    r.bake_ms
                );
                if let (Some(mean), Some(p95), Some(max)) =
                    (r.any_angle_mean, r.any_angle_p95, r.any_angle_max)
                {
                    println!("traced/any-angle mean {mean:.4} p95 {p95:.4} max {max:.4}");
                }
                if let Some(w) = r.worst {
                    println!(
                        "worst row (octile): ({},{}) -> ({},{}), optimal {:.2}",
                        w.start.0, w.start.1, w.goal.0, w.goal.1, w.optimal
                    );
                }
                if let Some(w) = r.any_angle_worst {
                    println!(
                        "worst row (any-angle): ({},{}) -> ({},{})",
                        w.start.0, w.start.1, w.goal.0, w.goal.1
                    );
                }
            }
            Ok(())
        }
        Some(Command::BenchPaths {
            package,
            type_name,
            requests,
            threads,
            seed,
            json,
            search,
            budget_ms,
            memory,
            slowest,
        }) => bench_paths::bench_paths_cmd(&bench_paths::BenchPathsArgs {
            package: &package,
            type_name: type_name.as_deref(),
            requests,
            threads: threads.map(usize::from),
            seed,
            json,
            search,
            budget_ms,
            memory,
            slowest,
        }),
        Some(Command::Path {
            package,
            type_name,
            from,
            to,
            add_from,
            then_to,
        }) => package::path_cmd(
            &package,
            &type_name,
            &from,
            &to,
            &package::PathFollowUps {
                add_from: &add_from,
                then_to: &then_to,
            },
        ),
    }
}

#[cfg(feature = "gui")]
fn open_editor(path: Option<PathBuf>) -> Result<(), String> {
    navstudio::app::run_editor(path).map_err(|e| e.to_string())
}

#[cfg(not(feature = "gui"))]
fn open_editor(_path: Option<PathBuf>) -> Result<(), String> {
    Err("this navstudio was built without the editor (feature `gui`); use the headless \
         commands (navstudio validate / bake / info / export --help) or rebuild with default features"
        .to_owned())
}

fn validate(path: &Path) -> Result<(), String> {
    let loaded = map::io::load_map(path).map_err(|e| e.to_string())?;
    for warning in &loaded.warnings {
        println!("warning: {warning}");
    }
    print!("{}", map::summary(&loaded));
    Ok(())
}

fn generate_map(kind: Kind, size: Option<u32>, seed: u64, output: &Path) -> Result<(), String> {
    let (kind, default_size) = match kind {
        Kind::Showcase => (generate::MapKind::Showcase, 640),
        Kind::Small => (generate::MapKind::Small, 96),
        Kind::Benchmark => (generate::MapKind::Benchmark, 2048),
    };
    let size = size.unwrap_or(default_size);
    let spec = generate::GenerateSpec {
        kind,
        width: size,
        height: size,
        seed,
    };
    let generated = generate::generate(&spec);
    generate::write_generated(&generated, output).map_err(|e| e.to_string())?;
    println!(
        "wrote {} ({}×{} cells) and its heightmap and paint side files",
        output.display(),
        generated.width,
        generated.height
    );
    Ok(())
}
