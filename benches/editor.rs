//! Editor frame times on the real `App`, driven headless through egui_kittest frames: logic,
//! layout and the app's texture updates, no GPU rendering. The in-editor View > Performance
//! window and `NAVSTUDIO_FRAME_LOG` measure the real window.
//!
//! - `open_showcase_first_frame`: `App::new` on the default map + the first frame, which
//!   shows the hill-shaded heightmap while the bake starts on the worker;
//! - `paint_frame_2048`: one frame of a brush drag on the 2048 × 2048 benchmark map while
//!   the worker rebakes behind it;
//! - `brush_to_overlay_2048`: from the frame a dab lands to the frame the cost overlay shows
//!   it (also printed in 60 Hz frames);
//! - `paint_frame_during_full_bake_2048`: painting while a full 2048² bake runs;
//! - `crowd_frame_20k_agents`: a frame with 20,000 agents drawn, paused and playing.
//!
//! Besides criterion's estimates each bench prints the median, p99 and worst single frame and
//! how many frames took over 16.7 ms and over 50 ms.
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use navstudio::app::App;
use navstudio::app::perf::summarize;
use navstudio::app::tools::Tool;
use navstudio::map::generate::{GenerateSpec, MapKind, generate, write_generated};

fn harness(app: App) -> Harness<'static, App> {
    Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        .build_ui_state(|ui, app: &mut App| app.ui_for_test(ui), app)
}

fn wait_baked(harness: &mut Harness<'_, App>) -> Duration {
    let start = Instant::now();
    loop {
        harness.step();
        if harness.state().is_baked() {
            harness.step();
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no bake in 300 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The benchmark map written once per run (`navstudio generate --kind benchmark`).
fn benchmark_map() -> &'static Path {
    static MAP: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &MAP.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("benchmark.ron");
        let g = generate(&GenerateSpec {
            kind: MapKind::Benchmark,
            width: 2048,
            height: 2048,
            seed: 1,
        });
        write_generated(&g, &path).unwrap();
        (dir, path)
    })
    .1
}

fn opened_2048() -> Harness<'static, App> {
    let mut h = harness(App::new(Some(benchmark_map())).unwrap());
    let t = wait_baked(&mut h);
    eprintln!(
        "2048² benchmark map: open → baked and shown in {:.2} s",
        t.as_secs_f64()
    );
    h
}

fn screen(h: &Harness<'_, App>, cell: (f32, f32)) -> Pos2 {
    let vp = h.state().viewport();
    vp.transform.screen_from_cell(vp.rect, cell)
}

fn press(h: &mut Harness<'_, App>, pos: Pos2, pressed: bool) {
    h.event(egui::Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    });
}

fn report(name: &str, frames_ms: &[f64]) {
    let s = summarize(frames_ms.iter().copied());
    let over = |limit: f64| frames_ms.iter().filter(|&&f| f > limit).count();
    eprintln!(
        "{name}: {} frames, median {:.2} ms, p99 {:.2} ms, worst {:.2} ms; {} over 16.7 ms, {} over 50 ms",
        frames_ms.len(),
        s.median,
        s.p99,
        s.worst,
        over(16.7),
        over(50.0)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A thread's time on a core and time runnable but waiting for one, in ns, from Linux's
/// schedstat file; `None` where it is missing.
fn sched_ns(path: &str) -> Option<[u64; 2]> {
    let s = std::fs::read_to_string(path).ok()?;
    let mut it = s.split_whitespace().map(|v| v.parse::<u64>().ok());
    Some([it.next()??, it.next()??])
}

/// Time on a core per thread name (the process's threads), in ns.
fn cpu_by_thread_name() -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        let dir = task.path();
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if let Some([cpu, _]) = sched_ns(&dir.join("schedstat").to_string_lossy()) {
            *out.entry(name.trim().to_owned()).or_insert(0) += cpu;
        }
    }
    out
}

/// Where the main thread's frame time went, and what the other threads ran meanwhile: a
/// frame is on a core, runnable but waiting for one (another thread or process had it), or
/// blocked (waiting on another thread). Linux only; silent elsewhere.
#[derive(Default)]
struct FrameSplit {
    frames: u32,
    wall_ns: u64,
    cpu_ns: u64,
    queued_ns: u64,
    threads_before: std::collections::BTreeMap<String, u64>,
}

impl FrameSplit {
    fn start() -> Self {
        Self {
            threads_before: cpu_by_thread_name(),
            ..Self::default()
        }
    }

    /// Runs one frame (`step`), measured.
    fn frame(&mut self, step: impl FnOnce()) -> Duration {
        let before = sched_ns("/proc/thread-self/schedstat");
        let t = Instant::now();
        step();
        let d = t.elapsed();
        let after = sched_ns("/proc/thread-self/schedstat");
        if let (Some(a), Some(b)) = (before, after) {
            self.frames += 1;
            self.wall_ns += d.as_nanos() as u64;
            self.cpu_ns += b[0] - a[0];
            self.queued_ns += b[1] - a[1];
        }
        d
    }

    fn report(&self, name: &str) {
        if self.frames == 0 {
            return;
        }
        let per = |ns: u64| ns as f64 / 1e6 / f64::from(self.frames);
        let blocked = self.wall_ns.saturating_sub(self.cpu_ns + self.queued_ns);
        eprintln!(
            "{name}, main thread per frame (mean of {}): {:.3} ms wall = {:.3} on a core + {:.3} waiting for a core + {:.3} blocked",
            self.frames,
            per(self.wall_ns),
            per(self.cpu_ns),
            per(self.queued_ns),
            per(blocked),
        );
        let after = cpu_by_thread_name();
        let mut others: Vec<String> = after
            .iter()
            .map(|(k, &v)| {
                (
                    k,
                    v.saturating_sub(self.threads_before.get(k).copied().unwrap_or(0)),
                )
            })
            .filter(|&(_, v)| v > 0)
            .map(|(k, v)| format!("{k} {:.3}", per(v)))
            .collect();
        others.sort();
        eprintln!(
            "{name}, ms on a core per frame by thread name: {}",
            others.join(", ")
        );
    }
}

fn open_showcase(c: &mut Criterion) {
    let showcase = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/showcase.ron");
    let mut group = c.benchmark_group("editor");
    group.sample_size(10);
    group.bench_function("open_showcase_first_frame", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let mut h = harness(App::new(Some(&showcase)).unwrap());
                h.step();
                total += start.elapsed();
                assert!(h.state().state.map.is_some());
                drop(h); // cancels the bake outside the timing
            }
            total
        });
    });
    let mut h = harness(App::new(Some(&showcase)).unwrap());
    let t = wait_baked(&mut h);
    eprintln!(
        "showcase: open → bake finished and shown in {:.2} s",
        t.as_secs_f64()
    );
    group.finish();
}

/// Moves along a zigzag over the map's middle, `step` cells per frame.
struct Zigzag {
    k: u32,
}

impl Zigzag {
    fn next(&mut self) -> (f32, f32) {
        self.k += 1;
        let x = 300.0 + (self.k % 200) as f32 * 7.0;
        let y = 400.0 + ((self.k / 200) % 100) as f32 * 12.0;
        (x, y)
    }
}

fn paint_2048(c: &mut Criterion) {
    let mut h = opened_2048();
    h.state_mut().select_tool(Tool::Paint);
    h.step();
    let mut zig = Zigzag { k: 0 };
    let start = screen(&h, zig.next());
    h.hover_at(start);
    h.step();
    press(&mut h, start, true);
    h.step();

    let mut group = c.benchmark_group("editor");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    let mut frames = Vec::new();
    let mut split = FrameSplit::start();
    group.bench_function("paint_frame_2048", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let p = screen(&h, zig.next());
                h.hover_at(p);
                let d = split.frame(|| h.step());
                frames.push(ms(d));
                total += d;
            }
            total
        });
    });
    report("paint_frame_2048", &frames);
    split.report("paint_frame_2048");
    let end = screen(&h, zig.next());
    press(&mut h, end, false);
    h.step();
    wait_baked(&mut h);

    // Latency: a single dab (click) on passable land, then frames until the overlay's cost
    // under the dab changes. A dab that changes nothing (a stamp's cells replace paint, or
    // the paint there is already at its limit) is retried elsewhere and not counted.
    let mut rng = common::Rng::new(7);
    let mut latency_frames = Vec::new();
    let mut latency_ms = Vec::new();
    let mut no_op_dabs = 0u32;
    group.bench_function("brush_to_overlay_2048", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // The land costs of the 5 × 5 cells around (x, y), inside the dab's radius.
                let window = |h: &Harness<'_, App>, x: u32, y: u32| -> Vec<u8> {
                    let cost = &h.state().state.baked.as_ref().unwrap().types[0].final_cost;
                    (y - 2..=y + 2)
                        .flat_map(|yy| (x - 2..=x + 2).map(move |xx| (yy * 2048 + xx) as usize))
                        .map(|i| cost[i])
                        .collect()
                };
                loop {
                    let (x, y) = loop {
                        let (x, y) = (200 + rng.below(1648), 200 + rng.below(1648));
                        if window(&h, x, y).iter().all(|&c| c < 150) {
                            break (x, y);
                        }
                    };
                    let before = window(&h, x, y);
                    let p = screen(&h, (x as f32 + 0.5, y as f32 + 0.5));
                    h.hover_at(p);
                    h.step();
                    let t = Instant::now();
                    press(&mut h, p, true);
                    press(&mut h, p, false);
                    h.step();
                    let mut n = 0u32;
                    let mut shown = true;
                    while window(&h, x, y) == before {
                        if h.state().is_baked() {
                            shown = false;
                            break;
                        }
                        n += 1;
                        h.step();
                        assert!(
                            t.elapsed() < Duration::from_secs(30),
                            "the dab never showed"
                        );
                    }
                    let d = t.elapsed();
                    if !shown {
                        no_op_dabs += 1;
                        continue;
                    }
                    total += d;
                    latency_frames.push(f64::from(n));
                    latency_ms.push(ms(d));
                    break;
                }
            }
            total
        });
    });
    eprintln!("brush_to_overlay_2048: {no_op_dabs} dab(s) changed no cost and were retried");
    report("brush_to_overlay_2048 (ms)", &latency_ms);
    let s = summarize(latency_ms.iter().copied());
    eprintln!(
        "brush_to_overlay_2048: at 60 Hz the overlay shows a dab {:.0} frame(s) later (median), {:.0} worst; headless frames stepped after the dab frame: median {:.0}",
        (s.median / 16.67).ceil(),
        (s.worst / 16.67).ceil(),
        summarize(latency_frames.iter().copied()).median
    );

    // Under load: paint while full bakes of the whole 2048² map (3 types) run. Each full
    // bake is started 10 frames after the previous one was received (so the paint made
    // during it goes through a rect re-bake first), the brush is kept down, lifted and put
    // down again every 120 frames; every frame is measured, the one that receives a bake too.
    wait_baked(&mut h);
    let mut load_frames = Vec::new();
    let mut bakes_started = 0u32;
    let mut bakes_received = 0u32;
    let mut seen_nav = h.state().state.nav_version;
    let mut since_bake = 10u32;
    let mut stroke_frames = 0u32;
    let mut receive_frames = Vec::new();
    group.bench_function("paint_frame_during_full_bake_2048", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if since_bake == 10 {
                    h.state_mut().state.pending_full_bake = true;
                    bakes_started += 1;
                }
                since_bake += 1;
                let p = screen(&h, zig.next());
                h.hover_at(p);
                if stroke_frames.is_multiple_of(120) {
                    press(&mut h, p, true);
                } else if stroke_frames % 120 == 119 {
                    press(&mut h, p, false);
                }
                stroke_frames += 1;
                let t = Instant::now();
                h.step();
                let d = t.elapsed();
                load_frames.push(ms(d));
                total += d;
                // A new nav version is a full bake received (rect re-bakes here carry none).
                let nav = h.state().state.nav_version;
                if nav != seen_nav {
                    seen_nav = nav;
                    bakes_received += 1;
                    since_bake = 0;
                    receive_frames.push(ms(d));
                }
                // Real frames come at most every 16.7 ms; let the bake share the CPU.
                std::thread::sleep(Duration::from_millis(8));
            }
            total
        });
    });
    report(
        &format!(
            "paint_frame_during_full_bake_2048 ({bakes_started} full bakes started, {bakes_received} received)"
        ),
        &load_frames,
    );
    report(
        "paint_frame_during_full_bake_2048, the frames receiving a full bake",
        &receive_frames,
    );
    // Lift the brush and let the last bake finish.
    let p = screen(&h, zig.next());
    press(&mut h, p, false);
    h.step();
    wait_baked(&mut h);

    // Painting with a goal set (goal tool preview shown): every rect re-bake carries the nav
    // data back, and the goal preview (run-time world, path, whole-map integration, heat
    // image) is recomputed for each new nav version.
    let goal = {
        let cost = &h.state().state.baked.as_ref().unwrap().types[0].final_cost;
        (1024..2048u32)
            .map(|x| (x, 1024u32))
            .find(|&(x, y)| cost[(y * 2048 + x) as usize] < 100)
            .unwrap()
    };
    h.state_mut().state.goal.goal = Some(goal);
    let start = Instant::now();
    while h.state().goal_preview.result.is_none() {
        h.step();
        std::thread::sleep(Duration::from_millis(2));
        assert!(start.elapsed() < Duration::from_secs(60), "no goal preview");
    }
    eprintln!(
        "goal preview on 2048²: first shown {:.0} ms after the goal was set",
        ms(start.elapsed())
    );
    let p = screen(&h, zig.next());
    h.hover_at(p);
    h.step();
    press(&mut h, p, true);
    let mut goal_frames = Vec::new();
    let first_version = h.state().goal_preview.version;
    group.bench_function("paint_frame_with_goal_2048", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let p = screen(&h, zig.next());
                h.hover_at(p);
                let t = Instant::now();
                h.step();
                let d = t.elapsed();
                goal_frames.push(ms(d));
                total += d;
                std::thread::sleep(Duration::from_millis(8));
            }
            total
        });
    });
    report(
        &format!(
            "paint_frame_with_goal_2048 ({} goal previews shown)",
            h.state().goal_preview.version - first_version
        ),
        &goal_frames,
    );
    let p = screen(&h, zig.next());
    press(&mut h, p, false);
    h.step();
    group.finish();
}

fn crowd_20k(c: &mut Criterion) {
    let mut h = opened_2048();
    {
        let app = h.state_mut();
        app.select_tool(Tool::Spawn);
        app.crowd.playing = false;
        app.crowd.spawn_count = 20_000;
        // 20,000 infantry over a 400 m square of the map's open middle.
        let (a, b) = (
            navstudio::crowd::Vec2::new(700.0, 700.0),
            navstudio::crowd::Vec2::new(1100.0, 1100.0),
        );
        app.crowd.spawn_rect(a, b);
    }
    h.step();
    let agents = h.state().crowd.sim().agents().len();
    eprintln!("crowd_frame_20k_agents: {agents} agents spawned");
    h.state_mut()
        .crowd
        .order(navstudio::crowd::Vec2::new(1500.0, 1500.0));
    h.step();

    let mut group = c.benchmark_group("editor");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    for playing in [false, true] {
        let name = if playing {
            "crowd_frame_20k_agents_playing"
        } else {
            "crowd_frame_20k_agents_paused"
        };
        h.state_mut().crowd.playing = playing;
        let mut frames = Vec::new();
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    h.step();
                    let d = t.elapsed();
                    frames.push(ms(d));
                    total += d;
                }
                total
            });
        });
        report(name, &frames);
        let m = h.state().crowd.sim().metrics();
        eprintln!(
            "{name}: last step {:.2} ms at step {}, {} moving, {} arrived, {} stuck",
            m.step_secs * 1000.0,
            m.step,
            m.moving,
            m.arrived,
            m.stuck
        );
    }
    group.finish();
}

criterion_group!(benches, open_showcase, paint_2048, crowd_20k);
criterion_main!(benches);
