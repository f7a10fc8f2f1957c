//! `navstudio info`, `export` and `path`: read a nav package and show what it holds — the
//! manifest and section sizes, one layer as an image, a path between two cells.

use std::path::Path;
use std::time::Instant;

use navstudio::map::{self};
use navstudio::nav::StreamOptions;
use navstudio::nav::grid::{DIR_NONE, DIRECTIONS, FLOW_PATHABLE, WALL};
use navstudio::nav::integrate::{IntegrationField, IntegratorScratch, UNREACHED, integrate_costs};
use navstudio::package;

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
    for l in &pkg.links {
        println!(
            "link       {} {} ({},{})→({},{}) {} {:.1} m wide, cost {}{}",
            l.id,
            l.kind.name(),
            l.a.x,
            l.a.y,
            l.b.x,
            l.b.y,
            if l.two_way { "both ways" } else { "one way" },
            l.width_m,
            l.traversal_cost(m.cell_size_m),
            if l.enabled { "" } else { ", disabled" }
        );
    }
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
                    for cell in field.iter() {
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
        "links": pkg.links.len(),
    })
}

/// Prints a route's window crossings and link traversals, one line each.
fn print_route(
    l: &navstudio::nav::NavLayer,
    links: Option<&navstudio::nav::links::overlay::LayerLinks>,
    route: &[u32],
) {
    let mut i = 0;
    while i < route.len() {
        let (a, next) = (route[i], route.get(i + 1).copied());
        if let Some(ll) = links
            && let Some(end) = ll.end(a)
        {
            if let Some(b) = next.filter(|&b| ll.is_traversal(a, b))
                && let Some(exit) = ll.end(b)
            {
                println!(
                    "  sector {:>6} → take link {} at ({},{}) to ({},{})",
                    end.sector, end.id, end.center.0, end.center.1, exit.center.0, exit.center.1
                );
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        if let (Some(n), Some(b)) = (l.nodes.get(a as usize), next)
            && b == a ^ 1
        {
            println!(
                "  sector {:>6} → leave through window {} at cells ({},{})+{}",
                n.sector,
                a / 2,
                n.cells.x(),
                n.cells.y(),
                n.cells.len()
            );
            i += 2;
            continue;
        }
        i += 1;
    }
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

/// What `navstudio path` does after planning: sources added to the path, then goal moves.
pub struct PathFollowUps<'a> {
    /// Sources added with `NavWorld::add_sources` (merging A* into the planned routes).
    pub add_from: &'a [(u32, u32)],
    /// Cells the goal moves to in turn (`NavWorld::move_goal`).
    pub then_to: &'a [(u32, u32)],
}

/// `navstudio path`: reachability, the portal route and the traced length per source, and
/// with several goals which one each source reaches; then sources added later and goals
/// moved (`--add-from`, `--then-to`), each with the traced lengths that follow.
pub fn path_cmd(
    pkg_path: &Path,
    type_name: &str,
    sources: &[(u32, u32)],
    goals: &[(u32, u32)],
    follow_ups: &PathFollowUps<'_>,
) -> Result<(), String> {
    // Streamed with its landmark tables, as a game opens it: only the regions the request
    // touches are decoded.
    let start = Instant::now();
    let mut world = navstudio::nav::NavWorld::open(pkg_path, StreamOptions::default())
        .map_err(|e| e.to_string())?;
    let open_ms = start.elapsed().as_secs_f64() * 1e3;
    let layer = world
        .nav()
        .layers
        .iter()
        .position(|l| l.name == type_name)
        .ok_or_else(|| format!("{}: no movement type '{type_name}'", pkg_path.display()))?;
    println!(
        "opened     in {open_ms:.0} ms (streamed: regions are read when a request needs them)"
    );
    let goal_name = |g: (u32, u32)| {
        if goals.len() > 1 {
            let k = goals.iter().position(|&x| x == g).unwrap_or(0);
            format!("goal {} ({},{})", k + 1, g.0, g.1)
        } else {
            format!("the goal ({},{})", g.0, g.1)
        }
    };
    let spec = world.nav().spec;
    for (what, &cell) in sources
        .iter()
        .map(|c| ("--from", c))
        .chain(goals.iter().map(|c| ("--to", c)))
        .chain(follow_ups.add_from.iter().map(|c| ("--add-from", c)))
        .chain(follow_ups.then_to.iter().map(|c| ("--then-to", c)))
    {
        if cell.0 >= spec.width || cell.1 >= spec.height {
            return Err(format!(
                "{}: {what} {},{} is outside the map, which is {} × {} cells: give a cell from 0,0 to {},{}",
                pkg_path.display(),
                cell.0,
                cell.1,
                spec.width,
                spec.height,
                spec.width - 1,
                spec.height - 1
            ));
        }
    }
    let mut any = false;
    for &from in sources {
        let reachable = goals.iter().any(|&to| world.is_reachable(layer, from, to));
        if reachable {
            println!("reachable  true from ({},{}) (island ids)", from.0, from.1);
        } else {
            println!(
                "reachable  false from ({},{}): {}",
                from.0,
                from.1,
                unreachable_reason(&world, layer, type_name, from, goals)
            );
        }
        any |= reachable;
    }
    if !any {
        return Err(format!(
            "{}: no source can reach {} for movement type '{type_name}' (reasons above)",
            pkg_path.display(),
            if goals.len() > 1 {
                "any goal"
            } else {
                "the goal"
            }
        ));
    }
    let start = Instant::now();
    let expanded = world.a_star_expansions();
    let id = world
        .request_path_to_any(layer, sources, goals)
        .map_err(|e| format!("{}: {e}", pkg_path.display()))?;
    let request_us = start.elapsed().as_secs_f64() * 1e6;
    let expanded = world.a_star_expansions() - expanded;
    match world.cluster_stats(layer) {
        Some(h) => println!(
            "search     sector hierarchy ({} clusters, {} border nodes, {} levels above): {expanded} nodes expanded",
            h.clusters, h.border_nodes, h.levels
        ),
        None => {
            println!("search     flat portal A* with landmark tables: {expanded} nodes expanded")
        }
    }
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
    let links = p.links.clone();
    for (from, route) in planned {
        println!(
            "from ({},{}): {} portal nodes on the route",
            from.0,
            from.1,
            route.len()
        );
        print_route(l, links.as_deref(), &route);
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
        for &(at, link) in &traced.links {
            let (a, b) = (traced.cells[at], traced.cells[at + 1]);
            println!(
                "  link     {link} taken from ({},{}) to ({},{})",
                a.0, a.1, b.0, b.1
            );
        }
    }
    let fail = |e: navstudio::nav::PathError| format!("{}: {e}", pkg_path.display());
    if !follow_ups.add_from.is_empty() {
        let runs = world.a_star_runs();
        let added = world.add_sources(id, follow_ups.add_from).map_err(fail)?;
        println!(
            "added      {added} source(s) to the path ({} merging A* run(s))",
            world.a_star_runs() - runs
        );
        print_traces(&world, id, follow_ups.add_from);
    }
    for &cell in follow_ups.then_to {
        use navstudio::nav::GoalMove;
        let how = world.move_goal(id, cell).map_err(fail)?;
        let mut frames = 0;
        while world.pending_rebuilds() > 0 {
            world.rebuild(std::time::Duration::from_millis(2));
            frames += 1;
        }
        let what = match how {
            GoalMove::Unchanged => "already there".to_owned(),
            GoalMove::FieldRebuilt => "inside its sector: goal field rebuilt, no search".to_owned(),
            GoalMove::RouteQueued => {
                format!("across a sector border: route re-planned in {frames} frame(s) of 2 ms")
            }
        };
        println!("moved      the goal to ({},{}), {what}", cell.0, cell.1);
        let routed = world
            .path(id)
            .map(|p| p.sources.clone())
            .unwrap_or_default();
        print_traces(&world, id, &routed);
    }
    Ok(())
}

/// Why no goal of `goals` is reachable from `from`: a wall at either end, or other islands.
/// A wall is a cell of no island (id 0): too steep, water, painted or buffered out for this
/// movement type; `navstudio path` cannot tell which from the package, Inspect in the
/// editor can.
fn unreachable_reason(
    world: &navstudio::nav::NavWorld,
    layer: usize,
    type_name: &str,
    from: (u32, u32),
    goals: &[(u32, u32)],
) -> String {
    let island = |c| world.island_at(layer, c);
    if island(from) == 0 {
        return format!("the source is a wall for {type_name} (too steep, water, or painted)");
    }
    let reasons: Vec<String> = goals
        .iter()
        .map(|&g| {
            if island(g) == 0 {
                format!(
                    "the goal ({},{}) is a wall for {type_name} (too steep, water, or painted)",
                    g.0, g.1
                )
            } else {
                format!(
                    "the goal ({},{}) is on island {}, the source on island {}: no way between them for {type_name}",
                    g.0,
                    g.1,
                    island(g),
                    island(from)
                )
            }
        })
        .collect();
    reasons.join("; ")
}

/// One `traced` line per source of `path` among `sources`.
fn print_traces(
    world: &navstudio::nav::NavWorld,
    path: navstudio::nav::PathId,
    sources: &[(u32, u32)],
) {
    for &from in sources {
        match world.trace_path(path, from) {
            Some(t) => println!(
                "  traced   {:.2} cells of path from ({},{}) to ({},{})",
                t.length, from.0, from.1, t.goal.0, t.goal.1
            ),
            None => println!("  from ({},{}): no route to the goal", from.0, from.1),
        }
    }
}
