//! Moving AI benchmark scenarios as an outside yardstick: bake a `.map` grid with cost 1 on
//! every passable cell, run every `.scen` row through `NavWorld` exactly as a game would
//! (island check, path request, flow traced to the goal) and compare the traced length with
//! the published optimal length (octile: 8 directions, no corner cutting) and with the
//! exact any-angle optimum ([`crate::any_angle`]: the shortest line through free space).

use std::path::Path;
use std::time::Instant;

use crate::any_angle::{AnyAngle, WallGrid};
use crate::bake::{self, BakeContext, BakeOptions};
use crate::map::{self, MovementType, StampLibrary, WaterRule};
use crate::nav::{NavData, NavWorld};

/// One `.scen` row.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ScenarioRow {
    /// Start cell.
    pub start: (u32, u32),
    /// Goal cell.
    pub goal: (u32, u32),
    /// Published optimal octile length (no corner cutting).
    pub optimal: f64,
}

/// One row's outcome.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RowResult {
    /// Start cell.
    pub start: (u32, u32),
    /// Goal cell.
    pub goal: (u32, u32),
    /// Published octile optimum.
    pub octile: f64,
    /// Exact any-angle optimum (`None` when the oracle was not run or found no path).
    pub any_angle: Option<f64>,
    /// Traced length (`None` when the row is unreachable or the trace did not arrive).
    pub traced: Option<f64>,
    /// `request_path` time. `[Units: µs]`
    pub request_us: Option<f64>,
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ScenarioReport {
    /// Map file name.
    pub map: String,
    /// Rows run.
    pub rows: usize,
    /// Share of rows whose start and goal share an island (must be 1.0).
    pub reachable_share: f64,
    /// Share of rows whose traced flow path arrived.
    pub arrived_share: f64,
    /// Traced length / published (octile) optimal length over rows with a non-zero
    /// optimum: mean.
    pub ratio_mean: f64,
    /// … 95th percentile.
    pub ratio_p95: f64,
    /// … maximum.
    pub ratio_max: f64,
    /// The row with the maximum ratio, to look at (`navstudio open` the map, goal tool).
    pub worst: Option<ScenarioRow>,
    /// Traced length / any-angle optimum over arrived rows with a non-zero optimum: mean
    /// (`None` when the any-angle oracle was not run).
    pub any_angle_mean: Option<f64>,
    /// … 95th percentile.
    pub any_angle_p95: Option<f64>,
    /// … maximum.
    pub any_angle_max: Option<f64>,
    /// The row with the maximum traced / any-angle ratio.
    pub any_angle_worst: Option<ScenarioRow>,
    /// Every row run, in file order (`navstudio scenarios --rows` prints them).
    #[serde(skip)]
    pub row_results: Vec<RowResult>,
    /// Mean time of one `request_path`. `[Units: µs]`
    pub request_us_mean: f64,
    /// Median time of one `request_path`. `[Units: µs]`
    pub request_us_median: f64,
    /// Load and bake time of the map. `[Units: ms]`
    pub bake_ms: f64,
}

/// Why scenarios could not run.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The map could not be loaded.
    #[error(transparent)]
    Map(#[from] map::MapError),
    /// The bake failed.
    #[error(transparent)]
    Bake(#[from] bake::BakeError),
    /// The scenario file could not be read.
    #[error("{path}: {source}; check the path")]
    Read {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A scenario row is malformed.
    #[error(
        "{path} line {line}: {problem}; expected `bucket map width height sx sy gx gy optimal`"
    )]
    Row {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// `--type` names no default movement type.
    #[error(
        "there is no movement type '{name}'; use land, hover or large (or leave --type out for the unit-cost grid type)"
    )]
    UnknownType {
        /// The name asked for.
        name: String,
    },
}

/// Parses a Moving AI `.scen` file (`version 1` header, tab-separated rows).
///
/// # Errors
/// [`ScenarioError`] naming the file and line of a malformed row.
pub fn parse_scen(text: &str, path: &Path) -> Result<Vec<ScenarioRow>, ScenarioError> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("version") {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = |problem: String| ScenarioError::Row {
            path: path.display().to_string(),
            line: i + 1,
            problem,
        };
        if f.len() != 9 {
            return Err(bad(format!("{} fields", f.len())));
        }
        let n = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| bad(format!("'{s}' is not a cell coordinate")))
        };
        let optimal = f[8]
            .parse::<f64>()
            .map_err(|_| bad(format!("'{}' is not a length", f[8])))?;
        rows.push(ScenarioRow {
            start: (n(f[4])?, n(f[5])?),
            goal: (n(f[6])?, n(f[7])?),
            optimal,
        });
    }
    Ok(rows)
}

/// The movement type Moving AI grids are scored with: every passable cell costs 1, no
/// slope, water, buffer or blur.
#[must_use]
pub fn grid_movement_type() -> MovementType {
    MovementType {
        name: "grid".to_owned(),
        max_slope_deg: 90.0,
        slope_cost: vec![(0.0, 1.0)],
        water: WaterRule::Impassable,
        wall_buffer_m: 0.0,
        blur_radius_m: 0.0,
        blur_strength: 0.0,
        // Moving AI scores every cell, pockets included.
        min_island_cells: 0,
    }
}

/// How [`run_with`] sets up `NavWorld`; the default is `NavWorld`'s own defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScenarioOptions<'a> {
    /// Run only the first N rows.
    pub limit: Option<usize>,
    /// `NavWorld::set_seamless` (costs carried across portal windows).
    pub seamless: bool,
    /// `NavWorld::set_flow_lookahead` in cells (0 = follow the flow cell by cell); `None`
    /// keeps the default.
    pub flow_lookahead: Option<u32>,
    /// `NavWorld::set_heuristic_weight`; `None` keeps the default.
    pub heuristic_weight: Option<f32>,
    /// `NavWorld::set_landmarks(false)`: octile heuristic only.
    pub no_landmarks: bool,
    /// Score with this movement type of the default document ("land", "hover", "large":
    /// a large unit's wall buffer closes narrow gaps) instead of [`grid_movement_type`].
    pub movement_type: Option<&'a str>,
    /// `NavWorld::set_search_mode` (flat portal A* or the sector hierarchy); `None` keeps
    /// the default, which picks by map size.
    pub search_mode: Option<crate::nav::SearchMode>,
    /// Run only this many rows, spread evenly over the file (every bucket of path lengths
    /// gets its share), after `limit`.
    pub spread: Option<usize>,
    /// Skip the any-angle oracle (its figures are then `None`).
    pub no_any_angle: bool,
}

/// Bakes `map_path` with [`grid_movement_type`] and runs the scenario rows (the first
/// `limit` of them, if given); `seamless` selects NavWorld's quality mode. Without the
/// any-angle oracle (see [`run_with`] for it).
///
/// # Errors
/// [`ScenarioError`] for unreadable or malformed inputs.
pub fn run(
    map_path: &Path,
    scen_path: &Path,
    limit: Option<usize>,
    seamless: bool,
) -> Result<ScenarioReport, ScenarioError> {
    run_with(
        map_path,
        scen_path,
        &ScenarioOptions {
            limit,
            seamless,
            no_any_angle: true,
            ..ScenarioOptions::default()
        },
    )
}

/// A Moving AI grid baked as the scenarios score it: with [`grid_movement_type`], or the
/// default document's movement type `movement_type`, and no water.
///
/// # Errors
/// [`ScenarioError`] for an unknown type or an unreadable map.
pub fn bake_grid(map_path: &Path, movement_type: Option<&str>) -> Result<NavData, ScenarioError> {
    let ty = match movement_type {
        None => grid_movement_type(),
        Some(name) => map::default_movement_types()
            .into_iter()
            .find(|t| t.name == name)
            .ok_or_else(|| ScenarioError::UnknownType {
                name: name.to_owned(),
            })?,
    };
    let mut loaded = map::new_map_from_heightmap(map_path)?;
    loaded.document.movement_types = vec![ty];
    loaded.document.water_level_m = -1.0;
    let baked = bake::bake(
        &loaded.document,
        &loaded.heightmap,
        &StampLibrary::default(),
        &BakeOptions::default(),
        &mut BakeContext::default(),
    )?;
    Ok(std::sync::Arc::unwrap_or_clone(baked.nav))
}

/// [`run`] with every `NavWorld` setting the benchmark varies.
///
/// # Errors
/// [`ScenarioError`] for unreadable or malformed inputs.
pub fn run_with(
    map_path: &Path,
    scen_path: &Path,
    options: &ScenarioOptions<'_>,
) -> Result<ScenarioReport, ScenarioError> {
    let &ScenarioOptions {
        limit,
        movement_type,
        spread,
        no_any_angle,
        ..
    } = options;
    let start = Instant::now();
    let nav = bake_grid(map_path, movement_type)?;
    let bake_ms = start.elapsed().as_secs_f64() * 1000.0;
    let text = std::fs::read_to_string(scen_path).map_err(|source| ScenarioError::Read {
        path: scen_path.display().to_string(),
        source,
    })?;
    let mut rows = parse_scen(&text, scen_path)?;
    if let Some(limit) = limit {
        rows.truncate(limit);
    }
    if let Some(n) = spread {
        rows = spread_rows(&rows, n);
    }
    let oracle = (!no_any_angle).then(|| AnyAngle::new(walls_of(&nav)));
    let mut world = NavWorld::from_nav(nav);
    configure(&mut world, options);
    let (mut reachable, mut arrived) = (0_usize, 0_usize);
    let mut ratios = Vec::with_capacity(rows.len());
    let mut times_us = Vec::with_capacity(rows.len());
    let mut worst = None;
    let mut any_ratios = Vec::new();
    let mut any_worst = None;
    let mut row_results = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut result = RowResult {
            start: row.start,
            goal: row.goal,
            octile: row.optimal,
            any_angle: None,
            traced: None,
            request_us: None,
        };
        if world.is_reachable(0, row.start, row.goal) {
            reachable += 1;
            let t = Instant::now();
            if let Ok(id) = world.request_path(0, &[row.start], row.goal) {
                let us = t.elapsed().as_secs_f64() * 1e6;
                times_us.push(us);
                result.request_us = Some(us);
                if let Some(traced) = world.trace_path(id, row.start) {
                    arrived += 1;
                    result.traced = Some(traced.length);
                    if row.optimal > 0.0 {
                        let ratio = traced.length / row.optimal;
                        if worst.is_none_or(|(r, _)| ratio > r) {
                            worst = Some((ratio, *row));
                        }
                        ratios.push(ratio);
                    }
                }
                world.release_path(id);
            }
        }
        if let Some(oracle) = &oracle {
            // Both the published octile path and the traced one are free-space paths, so
            // the shorter bounds the search (the rounding of the published figure aside).
            let bound = result.traced.map_or(row.optimal, |t| t.min(row.optimal)) + 1e-6;
            result.any_angle = oracle
                .length(row.start, row.goal, Some(bound))
                .or_else(|| oracle.length(row.start, row.goal, None));
            if let (Some(a), Some(t)) = (result.any_angle, result.traced)
                && a > 0.0
            {
                let ratio = t / a;
                if any_worst.is_none_or(|(r, _)| ratio > r) {
                    any_worst = Some((ratio, *row));
                }
                any_ratios.push(ratio);
            }
        }
        row_results.push(result);
    }
    ratios.sort_by(f64::total_cmp);
    any_ratios.sort_by(f64::total_cmp);
    times_us.sort_by(f64::total_cmp);
    let share = |n: usize| n as f64 / rows.len().max(1) as f64;
    let pick = |v: &[f64], q: f64| {
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Ok(ScenarioReport {
        map: map_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        rows: rows.len(),
        reachable_share: share(reachable),
        arrived_share: share(arrived),
        ratio_mean: mean(&ratios),
        ratio_p95: pick(&ratios, 0.95),
        ratio_max: ratios.last().copied().unwrap_or(0.0),
        worst: worst.map(|(_, row)| row),
        any_angle_mean: oracle.as_ref().map(|_| mean(&any_ratios)),
        any_angle_p95: oracle.as_ref().map(|_| pick(&any_ratios, 0.95)),
        any_angle_max: oracle
            .as_ref()
            .map(|_| any_ratios.last().copied().unwrap_or(0.0)),
        any_angle_worst: any_worst.map(|(_, row)| row),
        row_results,
        request_us_mean: mean(&times_us),
        request_us_median: pick(&times_us, 0.5),
        bake_ms,
    })
}

/// Applies the `NavWorld` settings of `options` (quality mode, look-ahead, heuristic
/// weight, landmarks, search mode).
pub fn configure(world: &mut NavWorld, options: &ScenarioOptions<'_>) {
    world.set_seamless(options.seamless);
    if let Some(cells) = options.flow_lookahead {
        world.set_flow_lookahead(cells);
    }
    if let Some(weight) = options.heuristic_weight {
        world.set_heuristic_weight(weight);
    }
    if options.no_landmarks {
        world.set_landmarks(false);
    }
    if let Some(mode) = options.search_mode {
        world.set_search_mode(mode);
    }
}

/// `n` rows spread evenly over `rows` (all of them when there are no more than `n`).
#[must_use]
pub fn spread_rows(rows: &[ScenarioRow], n: usize) -> Vec<ScenarioRow> {
    if n >= rows.len() {
        return rows.to_vec();
    }
    (0..n).map(|i| rows[i * rows.len() / n]).collect()
}

/// The walls of a baked grid's first movement type, as the reference paths read them.
#[must_use]
pub fn walls_of(nav: &NavData) -> WallGrid {
    let cost = &nav.layers[0].cost;
    let spec = cost.spec;
    let mut walls = Vec::with_capacity(spec.cell_count());
    for y in 0..spec.height {
        for x in 0..spec.width {
            walls.push(cost.get(x, y) == crate::nav::grid::WALL);
        }
    }
    WallGrid::new(spec.width, spec.height, walls)
}
