//! The goal tool's preview: what the game computes for a goal, through [`NavWorld`].
//!
//! With a goal set (Ctrl+click adds goals) the path is a `NavWorld::request_path_to_any`
//! request and the heat map the integrated cost to the nearest goal, so heat, arrows and
//! route all show flow to the nearest goal.
//!
//! The designer's source is requested as a path; for the flow arrows, each sector in view is
//! requested (merging A*) from one of its cells on the goal's island as the view reaches
//! it, so `NavWorld::sample_flow` answers for every cell shown: the arrows are exactly what
//! agents steer by. The heat map
//! is the exact whole-map integrated cost to the goal from the same integrator the run time
//! uses (`nav::integrate`); line of sight comes from the path's goal field, which continues
//! across sector borders.
//!
//! All of that runs on a helper thread (`navstudio-goal`): on a 2048² map the world's nav
//! copy, the whole-map integration and the image take far longer than a frame. The preview
//! world is built without ALT landmark tables (`NavWorld::set_landmarks(false)`: building
//! them took ~0.4 s per layer, and the preview is rebuilt on every nav change). Until a new
//! preview arrives the previous one stays on screen.

use rayon::prelude::*;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

use egui::{Color32, ColorImage};

use crate::nav::grid::{CLEAR, WALL};
use crate::nav::integrate::{
    INT_LOS, IntegrationField, IntegratorScratch, UNREACHED, integrate_costs,
};
use crate::nav::{CellRect, NavData, NavWorld, PathId, TracedPath};

use super::state::{EditorState, GoalPick};

/// The computed preview for one goal.
#[derive(Debug)]
pub struct GoalResult {
    /// Movement type (nav layer) index.
    pub layer: usize,
    /// The goal cell (the first of the set).
    pub goal: (u32, u32),
    /// Every goal of the set the path was planned for (walls left out), in pick order.
    pub goals: Vec<(u32, u32)>,
    /// The path of the designer's source (or of the goal alone) in the preview's world.
    pub path: PathId,
    /// Paths covering the sectors whose arrows were drawn, requested as the view needs them.
    arrow_paths: Vec<PathId>,
    /// Per sector: index into `arrow_paths` + 1 (0: not requested yet).
    arrow_sector: Vec<u32>,
    /// Island id of each goal, sorted.
    islands: Vec<u32>,
    /// Whole-map integrated cost to the goal, row-major; [`UNREACHED`] elsewhere.
    pub heat: Vec<u32>,
    /// Largest reached cost in `heat`.
    pub heat_max: u32,
    /// Wall cells as bits (cell `i` is bit `i % 64` of word `i / 64`): a cell of
    /// [`UNREACHED`] heat that is not a wall is ground that cannot reach the goal.
    walls: Vec<u64>,
    /// Whole-map LOS flags (cells that steer straight at the goal).
    pub los: Vec<bool>,
    /// The designer's source, traced along the flow, when it reaches the goal.
    pub traced: Option<TracedPath>,
    /// Centres of the portal windows the source's route crosses, in travel order.
    pub route_portals: Vec<(u32, u32)>,
    /// Sectors the merged path has flow tiles for.
    pub routed_sectors: usize,
    /// Sources requested so far (the designer's, then one per viewed sector for arrows).
    pub sources: usize,
    /// Time to plan the path, trace it and integrate the heat map.
    pub elapsed: Duration,
}

/// A goal field's window `(x0, y0, w, h)` and its line-of-sight cells.
type LosWindow = ((u32, u32, u32, u32), Vec<bool>);

/// What a preview is computed for: nav version, movement type (layer) and the pick.
type PreviewKey = (u64, usize, GoalPick);

/// Work for the goal thread.
struct GoalJob {
    key: PreviewKey,
    nav: Arc<NavData>,
    /// The previous world and its nav version: reused when the version matches (a new
    /// pick on the same bake), otherwise freed on the thread.
    world: Option<(NavWorld, u64)>,
    /// Heat map and LOS shown: the image is built with the result.
    show: (bool, bool),
    /// The document's links (a fresh world takes them).
    links: Vec<crate::nav::links::NavLink>,
    repaint: Option<egui::Context>,
}

/// What the goal thread sends back.
struct GoalDone {
    key: PreviewKey,
    world: NavWorld,
    result: Option<GoalResult>,
    problem: Option<String>,
    image: Option<((bool, bool), ColorImage)>,
}

/// The goal tool's state: a run-time world over the latest nav data and the preview of
/// the current pick. Recomputed on the goal thread when the nav data, the movement type or
/// the pick changes.
#[derive(Default)]
pub struct GoalPreview {
    world: Option<NavWorld>,
    world_version: u64,
    key: Option<PreviewKey>,
    /// The preview, when a goal is set and reachable (while a new one is computed: the
    /// previous one).
    pub result: Option<GoalResult>,
    /// Why there is no preview (goal on a wall, source on another island …).
    pub problem: Option<String>,
    /// Bumped when `result` changes, so textures know to re-upload.
    pub version: u64,
    /// Bumped when what [`Self::flow_at`] answers changes: with `version`, and when
    /// [`Self::cover_cells`] routes more sectors (the viewport keeps the arrows it sampled).
    arrows_version: u64,
    /// The heat / LOS image built with `result`, for these shown layers.
    image: Option<((bool, bool), ColorImage)>,
    /// The key of the preview being computed, if any.
    pending: Option<PreviewKey>,
    thread: Option<(Sender<GoalJob>, Receiver<GoalDone>)>,
}

impl std::fmt::Debug for GoalPreview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoalPreview")
            .field("key", &self.key)
            .field("problem", &self.problem)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

/// A cell of sector `s` on `island`, if the island reaches into the sector.
fn sector_cell_on_island(nav: &NavData, layer: usize, s: u32, island: u32) -> Option<(u32, u32)> {
    let l = nav.layers.get(layer)?;
    let (x0, y0, w, h) = l.cost.spec.sector_rect(s);
    (y0..y0 + h)
        .flat_map(|y| (x0..x0 + w).map(move |x| (x, y)))
        .find(|&(x, y)| l.islands.island_at(x, y) == island)
}

/// The goal thread: takes the newest job, computes its preview, sends it back.
fn run_goal_thread(jobs: &Receiver<GoalJob>, done: &Sender<GoalDone>) {
    while let Ok(mut job) = jobs.recv() {
        // Only the newest pick matters; keep a world an older job carried.
        loop {
            match jobs.try_recv() {
                Ok(mut newer) => {
                    if newer.world.is_none() {
                        newer.world = job.world.take();
                    }
                    job = newer;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        let version = job.key.0;
        let mut world = match job.world.take() {
            Some((world, v)) if v == version => world,
            _ => {
                let mut world = NavWorld::from_nav(Arc::clone(&job.nav));
                world.set_landmarks(false);
                // Checked against the map when taken from the document.
                let _ = world.set_links(std::mem::take(&mut job.links));
                world
            }
        };
        let (result, problem) = compute(&mut world, &job.nav, job.key.1, &job.key.2);
        let image = result.as_ref().and_then(|r| {
            let spec = job.nav.layers.get(r.layer)?.cost.spec;
            Some((
                job.show,
                heat_image(Some(r), spec.width, spec.height, job.show.0, job.show.1),
            ))
        });
        let reply = GoalDone {
            key: job.key,
            world,
            result,
            problem,
            image,
        };
        if done.send(reply).is_err() {
            return;
        }
        if let Some(ctx) = &job.repaint {
            ctx.request_repaint();
        }
    }
}

/// The preview of `pick` on nav layer `layer` in `world` (a fresh world over `nav`), or why
/// there is none.
fn compute(
    world: &mut NavWorld,
    nav: &NavData,
    layer: usize,
    pick: &GoalPick,
) -> (Option<GoalResult>, Option<String>) {
    if pick.goal.is_none() {
        return (None, None);
    }
    let Some(l) = nav.layers.get(layer) else {
        return (
            None,
            Some("Bake the map first: this movement type has no nav data yet.".to_owned()),
        );
    };
    let spec = l.cost.spec;
    let mut goals = pick.goals();
    goals.retain(|&(x, y)| x < spec.width && y < spec.height);
    let mut problem = None;
    let walls = goals.len();
    goals.retain(|&(x, y)| l.islands.island_at(x, y) != 0);
    let Some(&goal) = goals.first() else {
        let g = pick.goal.unwrap_or_default();
        return (
            None,
            Some(format!(
                "The goal ({}, {}) is a wall for {}: pick a passable cell.",
                g.0, g.1, l.name
            )),
        );
    };
    if goals.len() < walls {
        problem = Some(format!(
            "{} of the goals are walls for {} and are left out.",
            walls - goals.len(),
            l.name
        ));
    }
    let goal_island = l.islands.island_at(goal.0, goal.1);
    let mut islands: Vec<u32> = goals
        .iter()
        .map(|&(x, y)| l.islands.island_at(x, y))
        .collect();
    islands.sort_unstable();
    islands.dedup();
    let start = Instant::now();
    let mut sources = vec![goal];
    let mut user_source = None;
    if let Some(src) = pick.source {
        let island = l.islands.island_at(src.0, src.1);
        // Island ids are the ground's: links may join the source's to a goal's.
        if islands.binary_search(&island).is_ok()
            || goals.iter().any(|&g| world.is_reachable(layer, src, g))
        {
            sources = vec![src];
            user_source = Some(src);
        } else {
            problem = Some(format!(
                "The source ({}, {}) cannot reach the goal for {}: {}.",
                src.0,
                src.1,
                l.name,
                if island == 0 {
                    "it is a wall".to_owned()
                } else {
                    format!("it is on island {island}, the goal on island {goal_island}")
                }
            ));
        }
    }
    let path = match world.request_path_to_any(layer, &sources, &goals) {
        Ok(id) => id,
        Err(e) => return (None, Some(format!("The path request failed: {e}."))),
    };
    let traced = user_source.and_then(|s| world.trace_path(path, s));
    let (route_portals, routed_sectors, los_fields) = match world.path(path) {
        Some(p) => {
            let portals = if user_source.is_some() {
                p.routes.first().map_or_else(Vec::new, |r| {
                    r.nodes
                        .iter()
                        .filter_map(|&n| {
                            l.nodes
                                .get(n as usize)
                                .map(|node| node.center())
                                .or_else(|| {
                                    // A link's end node: its centre.
                                    p.links.as_ref()?.end(n).map(|e| e.center)
                                })
                        })
                        .collect()
                })
            } else {
                Vec::new()
            };
            let fields: Vec<LosWindow> = p
                .goal_fields
                .iter()
                .map(|gf| {
                    let flags = gf.field.flags.iter().map(|f| f & INT_LOS != 0).collect();
                    (gf.rect, flags)
                })
                .collect();
            (portals, p.exits.len(), fields)
        }
        None => (Vec::new(), 0, Vec::new()),
    };
    let costs = l.cost.to_cells();
    let seeds: Vec<(usize, u32)> = goals.iter().map(|&(x, y)| (spec.index(x, y), 0)).collect();
    let mut field = IntegrationField::new();
    let mut scratch = IntegratorScratch::new();
    integrate_costs(
        &costs,
        spec.width,
        spec.height,
        &seeds,
        &mut field,
        &mut scratch,
    );
    let heat_max = field
        .cost
        .iter()
        .zip(&costs)
        .filter(|&(&c, &k)| c != UNREACHED && k != WALL)
        .map(|(&c, _)| c)
        .max()
        .unwrap_or(0);
    let mut walls = vec![0u64; spec.cell_count().div_ceil(64)];
    for (i, _) in costs.iter().enumerate().filter(|&(_, &k)| k == WALL) {
        walls[i / 64] |= 1 << (i % 64);
    }
    let mut los = vec![false; spec.cell_count()];
    for ((rx, ry, rw, _), los_flags) in los_fields {
        for (i, &seen) in los_flags.iter().enumerate() {
            if seen && rw > 0 {
                let (x, y) = (rx + i as u32 % rw, ry + i as u32 / rw);
                if x < spec.width && y < spec.height {
                    los[spec.index(x, y)] = true;
                }
            }
        }
    }
    // Beyond the goal fields' windows line of sight carries as far as the goal is visible.
    let (width, sees): (usize, &NavWorld) = (spec.width as usize, world);
    los.par_chunks_mut(width).enumerate().for_each(|(y, row)| {
        for (x, seen) in row.iter_mut().enumerate() {
            let i = y * width + x;
            if !*seen && field.cost[i] != UNREACHED && costs[i] == CLEAR {
                *seen = sees.sees_goal(path, (x as u32, y as u32));
            }
        }
    });
    let result = GoalResult {
        layer,
        goal,
        goals,
        path,
        arrow_paths: Vec::new(),
        arrow_sector: vec![0; spec.sector_count()],
        islands,
        heat: field.cost,
        heat_max,
        walls,
        los,
        traced,
        route_portals,
        routed_sectors,
        sources: sources.len(),
        elapsed: start.elapsed(),
    };
    (Some(result), problem)
}

impl GoalPreview {
    /// Whether `to` is reachable from `from` for `layer` in the preview's world, links
    /// counted; `None` while the world is on the goal thread.
    #[must_use]
    pub fn reaches(&self, layer: usize, from: (u32, u32), to: (u32, u32)) -> Option<bool> {
        self.world.as_ref().map(|w| w.is_reachable(layer, from, to))
    }

    /// Asks for a new preview if the nav data, the selected type or the pick changed, and
    /// takes a finished one. `show` is the heat map and LOS visibility (the image is built
    /// with the preview); `repaint` is woken when a preview is ready. Returns whether
    /// anything changed.
    pub fn update(
        &mut self,
        state: &EditorState,
        show: (bool, bool),
        repaint: Option<&egui::Context>,
    ) -> bool {
        let mut changed = self.take_finished();
        let key = (
            state.preview_version(),
            state.selected_type,
            state.goal.clone(),
        );
        if self.key.as_ref() == Some(&key) {
            return changed;
        }
        self.key = Some(key.clone());
        changed = true;
        let (Some(nav), Some(_)) = (state.nav.as_ref(), state.goal.goal) else {
            // Nothing to compute: clear at once.
            self.clear_result();
            self.pending = None;
            return changed;
        };
        // The previous preview stays on screen until the new one arrives; its paths are
        // released now because its world goes to the thread.
        if let (Some(world), Some(old)) = (self.world.as_mut(), self.result.as_mut()) {
            world.release_path(old.path);
            for id in old.arrow_paths.drain(..) {
                world.release_path(id);
            }
            old.arrow_sector.iter_mut().for_each(|s| *s = 0);
        }
        let world = self.world.take().map(|w| (w, self.world_version));
        let job = GoalJob {
            key: key.clone(),
            nav: Arc::clone(nav),
            world,
            show,
            links: state.nav_links(),
            repaint: repaint.cloned(),
        };
        if self.thread.is_none() {
            self.thread = spawn_goal_thread();
        }
        let sent = self
            .thread
            .as_ref()
            .is_some_and(|(jobs, _)| jobs.send(job).is_ok());
        if sent {
            self.pending = Some(key);
        } else {
            self.thread = None;
            self.clear_result();
            self.problem =
                Some("The goal preview could not start its thread: free some resources and pick the goal again.".to_owned());
        }
        changed
    }

    fn clear_result(&mut self) {
        if let (Some(world), Some(old)) = (self.world.as_mut(), self.result.take()) {
            world.release_path(old.path);
            for id in old.arrow_paths {
                world.release_path(id);
            }
        }
        self.problem = None;
        self.image = None;
        self.version += 1;
        self.arrows_version += 1;
    }

    /// Takes finished previews of the pick being computed: the one for the current nav
    /// data, or one for older nav data of the same pick (shown meanwhile, so a preview keeps
    /// following the paint while new nav data arrives faster than previews are computed).
    /// Others are freed on another thread.
    fn take_finished(&mut self) -> bool {
        let Some((_, done)) = &self.thread else {
            return false;
        };
        let mut changed = false;
        while let Ok(reply) = done.try_recv() {
            let Some(wanted) = self.pending.as_ref() else {
                super::background::drop_later(reply.world);
                continue;
            };
            if (reply.key.1, &reply.key.2) != (wanted.1, &wanted.2) {
                super::background::drop_later(reply.world);
                continue;
            }
            if &reply.key == wanted {
                self.pending = None;
            }
            let old = (self.world.replace(reply.world), self.result.take());
            super::background::drop_later(old);
            self.world_version = reply.key.0;
            self.result = reply.result;
            self.problem = reply.problem;
            self.image = reply.image;
            self.version += 1;
            self.arrows_version += 1;
            changed = true;
        }
        changed
    }

    /// Whether a preview is being computed (the shown one is for an older pick or bake).
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The image built with the preview for these shown layers, if it is still unused.
    pub fn take_image(&mut self, show: (bool, bool)) -> Option<ColorImage> {
        match self.image.take() {
            Some((s, image)) if s == show => Some(image),
            _ => None,
        }
    }

    /// The direction an agent at `pos_cell` (continuous cell coordinates) steers, from the
    /// run-time world.
    #[must_use]
    pub fn flow_at(&self, pos_cell: (f32, f32)) -> Option<(f32, f32)> {
        let r = self.result.as_ref()?;
        let world = self.world.as_ref()?;
        let spec = world.nav().layers.get(r.layer)?.cost.spec;
        let sector = spec.sector_of(pos_cell.0 as u32, pos_cell.1 as u32);
        let path = match r.arrow_sector.get(sector as usize) {
            Some(&k) if k > 0 => r.arrow_paths.get(k as usize - 1).copied()?,
            _ => r.path,
        };
        world.sample_flow(path, pos_cell)
    }

    /// Requests paths for the sectors of `cells` (the visible cells) not covered yet, so
    /// their flow arrows come from routed tiles.
    pub fn cover_cells(&mut self, cells: CellRect) {
        let (Some(r), Some(world)) = (self.result.as_mut(), self.world.as_mut()) else {
            return;
        };
        let Some(spec) = world.nav().layers.get(r.layer).map(|l| l.cost.spec) else {
            return;
        };
        let cells = cells.clip(spec.width, spec.height);
        if cells.is_empty() {
            return;
        }
        let (x0, y0, x1, y1) = (cells.x0, cells.y0, cells.x1 - 1, cells.y1 - 1);
        let (s0, s1) = (spec.sector_of(x0, y0), spec.sector_of(x1, y1));
        let sx = spec.sectors_x();
        let mut sources = Vec::new();
        let mut covered = Vec::new();
        for sy in s0 / sx..=s1 / sx {
            for sxi in s0 % sx..=s1 % sx {
                let s = sy * sx + sxi;
                if r.arrow_sector.get(s as usize) != Some(&0) {
                    continue;
                }
                covered.push(s);
                let found = r
                    .islands
                    .iter()
                    .find_map(|&island| sector_cell_on_island(world.nav(), r.layer, s, island));
                if let Some(c) = found {
                    sources.push(c);
                }
            }
        }
        if covered.is_empty() {
            return;
        }
        let index = if sources.is_empty() {
            u32::MAX
        } else {
            match world.request_path_to_any(r.layer, &sources, &r.goals) {
                Ok(id) => {
                    r.arrow_paths.push(id);
                    r.sources += sources.len();
                    r.arrow_paths.len() as u32
                }
                Err(_) => u32::MAX,
            }
        };
        for s in covered {
            r.arrow_sector[s as usize] = index;
        }
        self.arrows_version += 1;
    }

    /// Changes whenever [`Self::flow_at`] may answer differently.
    #[must_use]
    pub fn arrows_version(&self) -> u64 {
        self.arrows_version
    }

    /// The heat map and LOS as one image: a cool-to-warm ramp by integrated cost, LOS cells
    /// tinted green, unreachable cells transparent.
    #[must_use]
    pub fn image(&self, width: u32, height: u32, show_heat: bool, show_los: bool) -> ColorImage {
        heat_image(self.result.as_ref(), width, height, show_heat, show_los)
    }
}

fn spawn_goal_thread() -> Option<(Sender<GoalJob>, Receiver<GoalDone>)> {
    let (job_tx, job_rx) = channel::<GoalJob>();
    let (done_tx, done_rx) = channel::<GoalDone>();
    std::thread::Builder::new()
        .name("navstudio-goal".to_owned())
        .spawn(move || run_goal_thread(&job_rx, &done_tx))
        .ok()?;
    Some((job_tx, done_rx))
}

/// See [`GoalPreview::image`].
fn heat_image(
    result: Option<&GoalResult>,
    width: u32,
    height: u32,
    show_heat: bool,
    show_los: bool,
) -> ColorImage {
    let n = width as usize * height as usize;
    let mut pixels = vec![Color32::TRANSPARENT; n];
    if let Some(r) = result {
        let max = r.heat_max.max(1) as f32;
        for (i, px) in pixels.iter_mut().enumerate() {
            if show_los && r.los.get(i).copied().unwrap_or(false) {
                *px = LOS_COLOR;
            } else if show_heat && let Some(&c) = r.heat.get(i) {
                if c != UNREACHED {
                    *px = heat_color((c as f32 / max).sqrt());
                } else if r
                    .walls
                    .get(i / 64)
                    .is_some_and(|w| w & (1 << (i % 64)) == 0)
                {
                    // Ground that cannot reach the goal: covered, so the cost overlay's
                    // greens below never read as "sees the goal".
                    *px = UNREACHABLE_COLOR;
                }
            }
        }
    }
    ColorImage::new([width as usize, height as usize], pixels)
}

/// Line-of-sight cells in the goal preview: they steer straight at the goal.
pub const LOS_COLOR: Color32 = Color32::from_rgba_premultiplied(49, 126, 66, 140);

/// Ground that cannot reach the goal (another island), in the goal preview: a dark grey
/// that no cost or heat colour uses.
pub const UNREACHABLE_COLOR: Color32 = Color32::from_rgba_premultiplied(26, 26, 30, 200);

/// Integration heat ramp: near the goal bright yellow, far away deep purple.
#[must_use]
pub fn heat_color(t: f32) -> Color32 {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        (0.0, [255.0, 236.0, 110.0]),
        (0.35, [245.0, 140.0, 60.0]),
        (0.7, [190.0, 50.0, 110.0]),
        (1.0, [70.0, 20.0, 120.0]),
    ];
    for pair in stops.windows(2) {
        let ((t0, c0), (t1, c1)) = (pair[0], pair[1]);
        if t <= t1 {
            let u = (t - t0) / (t1 - t0);
            let mix = |a: f32, b: f32| (a + (b - a) * u) as u8;
            return Color32::from_rgba_unmultiplied(
                mix(c0[0], c1[0]),
                mix(c0[1], c1[1]),
                mix(c0[2], c1[2]),
                140,
            );
        }
    }
    Color32::from_rgba_unmultiplied(70, 20, 120, 140)
}
