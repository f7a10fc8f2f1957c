//! Traced cost against the fine-direction reference on a weighted map: random reachable
//! pairs of one movement type, each planned and traced as a game would (`request_path`,
//! `trace_path`), the taut string priced cell by cell
//! ([`crate::any_angle::weighted::points_cost`]) and divided by the cheapest 48-direction
//! path's price ([`crate::any_angle::weighted::fine_direction_cost`]).
//! `navstudio scenarios MAP` runs it for a map document, a heightmap or a package.

use crate::any_angle::weighted::{CostGrid, WALL, fine_direction_cost, points_cost};
use crate::movingai::{ScenarioOptions, configure};
use crate::nav::grid::WALL as NAV_WALL;
use crate::nav::rng::SplitMix64;
use crate::nav::{NavData, NavWorld};

/// How [`run`] draws its pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostScenarioOptions {
    /// Index of the movement type.
    pub layer: usize,
    /// Pairs to price.
    pub pairs: usize,
    /// Seed of the pairs.
    pub seed: u64,
    /// Pairs closer than this (cells, straight line) are drawn again: a few cells' ratio
    /// says more about rounding at the ends than about the route.
    pub min_distance: u32,
}

/// One priced pair.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CostRow {
    /// Source cell.
    pub start: (u32, u32),
    /// Goal cell.
    pub goal: (u32, u32),
    /// The taut string's price.
    pub traced: f64,
    /// The fine-direction reference's price.
    pub reference: f64,
    /// The string's length in cells.
    pub length: f64,
}

/// What [`run`] measured.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CostReport {
    /// Movement type name.
    pub movement_type: String,
    /// Seed of the pairs.
    pub seed: u64,
    /// Pairs priced.
    pub rows: usize,
    /// Pairs whose trace did not arrive (must be 0).
    pub not_arrived: usize,
    /// Pairs left out because the trace crossed a link (the reference walks the grid only).
    pub over_links: usize,
    /// Traced price / reference price: mean.
    pub ratio_mean: f64,
    /// … 95th percentile.
    pub ratio_p95: f64,
    /// … maximum.
    pub ratio_max: f64,
    /// The pair with the maximum ratio.
    pub worst: Option<CostRow>,
    /// Median time of one `request_path`. `[Units: µs]`
    pub request_us_median: f64,
    /// Median time of one `trace_path` (the string pulled and priced for the figure).
    /// `[Units: µs]`
    pub trace_us_median: f64,
    /// Every priced pair, in the order drawn.
    #[serde(skip)]
    pub row_results: Vec<CostRow>,
}

/// The cost field of movement type `layer` as the reference reads it.
#[must_use]
pub fn cost_grid(nav: &NavData, layer: usize) -> CostGrid {
    let cost = &nav.layers[layer].cost;
    let spec = cost.spec;
    let mut costs = Vec::with_capacity(spec.cell_count());
    for y in 0..spec.height {
        for x in 0..spec.width {
            let c = cost.get(x, y);
            costs.push(if c == NAV_WALL { WALL } else { c });
        }
    }
    CostGrid {
        width: spec.width,
        height: spec.height,
        costs,
    }
}

/// Draws `options.pairs` random reachable pairs of passable cells at least
/// `min_distance` apart, traces each in a world set up by `world_options` (its `NavWorld`
/// settings; the rest is for Moving AI grids) and prices it against the reference.
///
/// # Errors
/// A sentence when the movement type does not exist or the map has no two passable cells
/// that far apart in one island.
pub fn run(
    nav: NavData,
    options: &CostScenarioOptions,
    world_options: &ScenarioOptions<'_>,
) -> Result<CostReport, String> {
    let layer = options.layer;
    if layer >= nav.layers.len() {
        return Err(format!(
            "movement type {layer} does not exist; the map has {}",
            nav.layers.len()
        ));
    }
    let grid = cost_grid(&nav, layer);
    let name = nav.layers[layer].name.clone();
    let passable: Vec<(u32, u32)> = (0..grid.height)
        .flat_map(|y| (0..grid.width).map(move |x| (x, y)))
        .filter(|&(x, y)| grid.cost(i64::from(x), i64::from(y)) != WALL)
        .collect();
    if passable.len() < 2 {
        return Err(format!(
            "movement type '{name}' has fewer than two passable cells"
        ));
    }
    let mut world = NavWorld::from_nav(nav);
    configure(&mut world, world_options);
    let mut rng = SplitMix64::new(options.seed);
    let min2 = u64::from(options.min_distance).pow(2);
    let (mut rows, mut not_arrived, mut over_links) = (Vec::new(), 0, 0);
    let mut attempts = 0_usize;
    let mut times_us = Vec::new();
    let mut trace_us = Vec::new();
    while rows.len() + not_arrived < options.pairs {
        attempts += 1;
        if attempts > options.pairs * 1000 + 10_000 {
            return Err(format!(
                "found only {} reachable pairs {} cells apart for '{name}' in {attempts} draws; ask for fewer pairs or a shorter distance",
                rows.len() + not_arrived,
                options.min_distance
            ));
        }
        let pick = |rng: &mut SplitMix64| passable[rng.below(passable.len() as u32) as usize];
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        let d2 = u64::from(a.0.abs_diff(b.0)).pow(2) + u64::from(a.1.abs_diff(b.1)).pow(2);
        if d2 < min2.max(1) || !world.is_reachable(layer, a, b) {
            continue;
        }
        let t = std::time::Instant::now();
        let Ok(id) = world.request_path(layer, &[a], b) else {
            continue;
        };
        times_us.push(t.elapsed().as_secs_f64() * 1e6);
        let t = std::time::Instant::now();
        let traced = world.trace_path(id, a);
        trace_us.push(t.elapsed().as_secs_f64() * 1e6);
        world.release_path(id);
        let Some(traced) = traced else {
            not_arrived += 1;
            continue;
        };
        if !traced.links.is_empty() {
            over_links += 1;
            continue;
        }
        let (Some(cost), Some(reference)) = (
            points_cost(&grid, &traced.points),
            fine_direction_cost(&grid, a, b),
        ) else {
            // A string through a wall, or no grid path (a link joins the islands): the
            // trace is not comparable; count it as not arrived.
            not_arrived += 1;
            continue;
        };
        rows.push(CostRow {
            start: a,
            goal: b,
            traced: cost,
            reference,
            length: traced.length,
        });
    }
    let mut ratios: Vec<f64> = rows.iter().map(|r| r.traced / r.reference).collect();
    let worst = rows
        .iter()
        .zip(&ratios)
        .max_by(|x, y| x.1.total_cmp(y.1))
        .map(|(r, _)| *r);
    ratios.sort_by(f64::total_cmp);
    times_us.sort_by(f64::total_cmp);
    trace_us.sort_by(f64::total_cmp);
    let pick = |v: &[f64], q: f64| {
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    Ok(CostReport {
        movement_type: name,
        seed: options.seed,
        rows: rows.len(),
        not_arrived,
        over_links,
        ratio_mean: ratios.iter().sum::<f64>() / ratios.len().max(1) as f64,
        ratio_p95: pick(&ratios, 0.95),
        ratio_max: ratios.last().copied().unwrap_or(0.0),
        worst,
        request_us_median: pick(&times_us, 0.5),
        trace_us_median: pick(&trace_us, 0.5),
        row_results: rows,
    })
}
