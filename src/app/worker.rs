//! The background bake worker: one named thread (`navstudio-bake`) that takes bake
//! requests over a channel, reports progress and results over another, and stops early
//! when the cancel flag is set. The UI polls it once per frame and never waits on it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::map::{Heightmap, MapDocument};

use super::backend::{self, BakeOutput, BakeProgress, BakeStopped};
use super::overlays::images::{
    BakedImages, ImagesWanted, IslandImage, IslandsChange, IslandsShown, islands_image,
    islands_image_in,
};
use crate::nav::NavData;
use crate::nav::grid::CellRect;

/// Work for the bake thread.
#[derive(Clone, Debug)]
pub enum BakeRequest {
    /// Bake every movement type from scratch.
    Full {
        /// The document to bake.
        document: Arc<MapDocument>,
        /// Its heights.
        heightmap: Arc<Heightmap>,
        /// The overlay images the thread builds with the result.
        images: ImagesWanted,
    },
    /// Re-bake the cells of `rect` (paint changed there). An empty `rect` re-bakes nothing
    /// and only sends the nav data back (it fell behind while nothing showed it).
    Rect {
        /// The document to bake.
        document: Arc<MapDocument>,
        /// Its heights.
        heightmap: Arc<Heightmap>,
        /// The changed cells.
        rect: CellRect,
        /// Send the updated nav data back too (a nav overlay or the goal tool shows it).
        with_nav: bool,
        /// As in `Full`, for when the rect re-bake has to fall back to a full bake; with
        /// `with_nav`, the patch carries the island image too.
        images: ImagesWanted,
    },
}

/// New costs for a rectangle, per movement type.
#[derive(Clone, Debug)]
pub struct RectPatch {
    /// The re-baked cells.
    pub rect: CellRect,
    /// Per type, the rect's cells (row-major within the rect) and the type's new totals.
    pub types: Vec<TypePatch>,
    /// How long it took.
    pub elapsed: Duration,
    /// The updated nav data, when the request asked for it.
    pub nav: Option<Arc<NavData>>,
    /// The island image of `nav`'s layer, when the request asked for it (see
    /// `overlays::islands_image`) and the islands are not those of the last image sent.
    pub islands: Option<IslandImage>,
}

impl RectPatch {
    /// Writes the patch into a full bake output.
    pub fn apply_to(&self, output: &mut BakeOutput, width: u32) {
        let w = self.rect.width() as usize;
        for (layers, patch) in output.types.iter_mut().zip(&self.types) {
            for (row, y) in (self.rect.y0..self.rect.y1).enumerate() {
                let start = y as usize * width as usize + self.rect.x0 as usize;
                for (dst, src) in [
                    (&mut layers.final_cost, &patch.cost),
                    (&mut layers.contribution, &patch.contribution),
                ] {
                    if let (Some(d), Some(s)) = (
                        dst.get_mut(start..start + w),
                        src.get(row * w..(row + 1) * w),
                    ) {
                        d.copy_from_slice(s);
                    }
                }
            }
            layers.wall_count = patch.walls;
            layers.mean_cost = patch.mean;
        }
        output.timings = vec![("rebake rect".to_owned(), self.elapsed)];
    }
}

/// One movement type's part of a [`RectPatch`].
#[derive(Clone, Debug, PartialEq)]
pub struct TypePatch {
    /// Final costs of the rect.
    pub cost: Vec<u8>,
    /// Buffer / blur contributions of the rect (see `TypeLayers::contribution`).
    pub contribution: Vec<u8>,
    /// The type's wall count after the patch.
    pub walls: usize,
    /// The type's mean passable cost after the patch.
    pub mean: f32,
}

/// What the bake thread reports.
#[derive(Clone, Debug)]
pub enum WorkerMessage {
    /// A stage started.
    Progress(BakeProgress),
    /// A full bake finished, with its overlay images.
    Baked(Box<BakeOutput>, Box<BakedImages>),
    /// A rect re-bake finished.
    Patched(RectPatch),
    /// The running bake was cancelled.
    Cancelled,
    /// The library refused the document (the sentence says what to change).
    Failed(String),
}

type RepaintHook = Arc<Mutex<Option<egui::Context>>>;

/// The UI's handle on the bake thread.
pub struct Worker {
    requests: Option<Sender<BakeRequest>>,
    messages: Receiver<WorkerMessage>,
    cancel: Arc<AtomicBool>,
    repaint: RepaintHook,
    in_flight: usize,
    progress: Option<BakeProgress>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("in_flight", &self.in_flight)
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// Starts the bake thread.
    ///
    /// # Errors
    /// The OS refused to start a thread.
    pub fn spawn() -> std::io::Result<Self> {
        let (request_tx, request_rx) = channel::<BakeRequest>();
        let (message_tx, message_rx) = channel::<WorkerMessage>();
        let cancel = Arc::new(AtomicBool::new(false));
        let repaint: RepaintHook = Arc::new(Mutex::new(None));
        let thread = {
            let cancel = Arc::clone(&cancel);
            let repaint = Arc::clone(&repaint);
            std::thread::Builder::new()
                .name("navstudio-bake".to_owned())
                .spawn(move || run(&request_rx, &message_tx, &cancel, &repaint))?
        };
        Ok(Self {
            requests: Some(request_tx),
            messages: message_rx,
            cancel,
            repaint,
            in_flight: 0,
            progress: None,
            thread: Some(thread),
        })
    }

    /// Lets the thread wake the UI when it has something to report.
    pub fn set_repaint_context(&self, ctx: &egui::Context) {
        let mut hook = self.repaint.lock().unwrap_or_else(PoisonError::into_inner);
        if hook.is_none() {
            *hook = Some(ctx.clone());
        }
    }

    /// Queues a request. Returns `false` when the thread is gone.
    pub fn send(&mut self, request: BakeRequest) -> bool {
        self.cancel.store(false, Ordering::Relaxed);
        let sent = self
            .requests
            .as_ref()
            .is_some_and(|tx| tx.send(request).is_ok());
        if sent {
            self.in_flight += 1;
        }
        sent
    }

    /// Asks the running and queued bakes to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether requests are queued or running.
    #[must_use]
    pub fn is_busy(&self) -> bool {
        self.in_flight > 0
    }

    /// The latest progress of the running bake.
    #[must_use]
    pub fn progress(&self) -> Option<&BakeProgress> {
        self.progress.as_ref()
    }

    /// Takes every message that arrived since the last call.
    pub fn poll(&mut self) -> Vec<WorkerMessage> {
        let mut out = Vec::new();
        loop {
            match self.messages.try_recv() {
                Ok(message) => {
                    match &message {
                        WorkerMessage::Progress(p) => self.progress = Some(p.clone()),
                        WorkerMessage::Baked(..)
                        | WorkerMessage::Patched(_)
                        | WorkerMessage::Cancelled
                        | WorkerMessage::Failed(_) => {
                            self.in_flight = self.in_flight.saturating_sub(1);
                            if self.in_flight == 0 {
                                self.progress = None;
                            }
                        }
                    }
                    out.push(message);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.in_flight = 0;
                    break;
                }
            }
        }
        out
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            // The cancel flag makes the join quick; a panicked worker has nothing to clean.
            let _ = thread.join();
        }
    }
}

fn run(
    requests: &Receiver<BakeRequest>,
    messages: &Sender<WorkerMessage>,
    cancel: &Arc<AtomicBool>,
    repaint: &RepaintHook,
) {
    let wake = |repaint: &RepaintHook| {
        if let Some(ctx) = repaint
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            ctx.request_repaint();
        }
    };
    // Progress goes straight to the UI from inside the bake (stages report from rayon
    // threads too, hence the clones).
    let reporter = || -> Box<dyn Fn(BakeProgress) + Send + Sync> {
        let messages = messages.clone();
        let repaint = Arc::clone(repaint);
        Box::new(move |p| {
            let _ = messages.send(WorkerMessage::Progress(p));
            wake(&repaint);
        })
    };
    let mut last: Option<BakeOutput> = None;
    // The islands of the last island image sent: a stroke that keeps them sends none.
    let mut sent_islands: Option<IslandsShown> = None;
    let stopped = |why| match why {
        BakeStopped::Cancelled => WorkerMessage::Cancelled,
        BakeStopped::Failed(why) => WorkerMessage::Failed(why),
    };
    // A full bake: keep it for rect re-bakes, build the overlay images here.
    let bake_whole = |document: &MapDocument,
                      hm: &Heightmap,
                      last: &mut Option<BakeOutput>,
                      sent_islands: &mut Option<IslandsShown>,
                      wanted: ImagesWanted| {
        match backend::bake_full(document, hm, cancel, reporter()) {
            Ok(mut output) => {
                let images = BakedImages::build(&output, (hm.width, hm.height), wanted);
                *sent_islands = wanted
                    .islands_layer
                    .zip(output.shared_nav.as_ref())
                    .map(|(layer, nav)| IslandsShown::of(nav, layer));
                let shown = output.split_for_window();
                *last = Some(output);
                WorkerMessage::Baked(Box::new(shown), Box::new(images))
            }
            Err(why) => stopped(why),
        }
    };
    while let Ok(request) = requests.recv() {
        let reply = match request {
            BakeRequest::Full {
                document,
                heightmap,
                images,
            } => bake_whole(&document, &heightmap, &mut last, &mut sent_islands, images),
            BakeRequest::Rect {
                document,
                heightmap,
                rect,
                with_nav,
                images,
            } => match last.as_mut() {
                Some(previous) if previous.types.len() == document.movement_types.len() => {
                    let start = Instant::now();
                    // The bake changes costs up to the types' reach (wall buffer, blur)
                    // around the edit: the patch carries all of them.
                    let changed = if rect.area() == 0 {
                        rect
                    } else {
                        backend::bake_rect(&document, &heightmap, previous, rect)
                    };
                    let mut patch = patch_of(previous, changed, heightmap.width, start.elapsed());
                    if with_nav {
                        patch.nav = previous.baked.as_ref().map(|b| Arc::clone(&b.nav));
                        patch.islands = images.islands_layer.and_then(|layer| {
                            let nav = patch.nav.as_ref()?;
                            let change = sent_islands
                                .as_ref()
                                .map_or(IslandsChange::Whole, |s| s.change_to(nav, layer));
                            let base = sent_islands.replace(IslandsShown::of(nav, layer));
                            match (change, base) {
                                (IslandsChange::Same, _) => None,
                                (IslandsChange::Cells(rect), Some(base)) => Some(IslandImage {
                                    layer,
                                    image: islands_image_in(nav, layer, rect),
                                    part: Some((rect, base)),
                                }),
                                _ => Some(IslandImage {
                                    layer,
                                    image: islands_image(nav, layer),
                                    part: None,
                                }),
                            }
                        });
                    }
                    WorkerMessage::Patched(patch)
                }
                _ => bake_whole(&document, &heightmap, &mut last, &mut sent_islands, images),
            },
        };
        // The request's document is released before the reply: the UI updates that copy in
        // place for its next request (see `shared_doc`), which it can only do once no bake
        // holds it.
        if messages.send(reply).is_err() {
            return;
        }
        wake(repaint);
    }
}

/// The rect's cells of every type, from the library's bake the bake thread keeps.
fn patch_of(output: &BakeOutput, rect: CellRect, width: u32, elapsed: Duration) -> RectPatch {
    let layers = output
        .baked
        .as_ref()
        .map_or(&[][..], |b| &b.cost_layers[..]);
    let types = output
        .types
        .iter()
        .zip(layers)
        .map(|(t, l)| TypePatch {
            cost: backend::rect_cells(&l.final_cost, rect, width),
            contribution: backend::rect_contributions(l, rect, width),
            walls: t.wall_count,
            mean: t.mean_cost,
        })
        .collect();
    RectPatch {
        rect,
        types,
        elapsed,
        nav: None,
        islands: None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::app::state::OverlaySettings;

    #[test]
    fn worker_thread_is_named_and_bakes() {
        let mut w = Worker::spawn().unwrap();
        assert_eq!(
            w.thread.as_ref().unwrap().thread().name(),
            Some("navstudio-bake")
        );
        let doc = crate::app::backend::tests_support::doc();
        let hm = Heightmap {
            width: 6,
            height: 4,
            height01: vec![0.5; 24],
            blocked: Vec::new(),
        };
        assert!(w.send(BakeRequest::Full {
            document: Arc::new(doc),
            heightmap: Arc::new(hm),
            images: ImagesWanted {
                overlay_type: 0,
                islands_layer: Some(0),
                // The slope shown, the wall buffer and blur hidden (as by default): only
                // the shown one gets an image.
                shown: OverlaySettings {
                    slope: true,
                    ..OverlaySettings::default()
                },
            },
        }));
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut baked = None;
        while baked.is_none() && Instant::now() < deadline {
            for m in w.poll() {
                if let WorkerMessage::Baked(b, images) = m {
                    assert_eq!(images.size, [6, 4]);
                    assert_eq!(images.slope.as_ref().map(|i| i.size), Some([6, 4]));
                    assert!(images.cost.is_some());
                    assert!(images.contribution.is_none());
                    let islands = images.islands.as_ref().and_then(|i| i.1.as_ref());
                    assert_eq!(islands.map(|i| i.size), Some([6, 4]));
                    baked = Some(b);
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let baked = baked.unwrap();
        assert!(!w.is_busy());
        assert_eq!(baked.types[0].final_cost, vec![1; 24]);
    }

    /// The window's grids, moved out of the bake thread's output, stay equal to a fresh full
    /// bake through rect re-bakes and their patches, while the bake thread keeps no grids.
    #[test]
    fn the_windows_grids_follow_rect_rebakes_through_patches() {
        use crate::map::{PaintCell, PaintForce, PaintLayer, PaintTarget};
        let mut doc = crate::app::backend::tests_support::doc();
        let (w, h) = (24u32, 20u32);
        let hm = Heightmap {
            width: w,
            height: h,
            height01: (0..w * h).map(|i| (i % 7) as f32 / 40.0).collect(),
            blocked: Vec::new(),
        };
        let never = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut kept = backend::bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        let mut window = kept.split_for_window();
        assert!(kept.types.iter().all(|t| t.final_cost.is_empty()));
        assert!(kept.shared_nav.is_none() && window.shared_nav.is_some());
        // Once the window lets go of the nav data, rect rebakes change it in place.
        window.shared_nav = None;
        let nav_at = |out: &BakeOutput| out.baked.as_ref().map(|b| Arc::as_ptr(&b.nav));
        let nav_before = nav_at(&kept);
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells: vec![PaintCell::default(); (w * h) as usize],
        });
        for (at, force, delta) in [
            (5 * 24 + 7, PaintForce::Wall, 0),
            (12 * 24 + 15, PaintForce::None, 60),
        ] {
            let cells = &mut doc.paint[0].cells;
            cells[at].force = force;
            cells[at].delta = delta;
            let (x, y) = ((at % 24) as u32, (at / 24) as u32);
            let rect = CellRect {
                x0: x,
                y0: y,
                x1: x + 1,
                y1: y + 1,
            };
            let changed = backend::bake_rect(&doc, &hm, &mut kept, rect);
            patch_of(&kept, changed, w, Duration::ZERO).apply_to(&mut window, w);
        }
        let full = backend::bake_full(&doc, &hm, &never, Box::new(|_| {})).unwrap();
        for (a, b) in window.types.iter().zip(&full.types) {
            assert_eq!(a.final_cost, b.final_cost, "{}", a.name);
            assert_eq!(a.contribution, b.contribution, "{}", a.name);
            assert_eq!(a.wall_count, b.wall_count, "{}", a.name);
            assert_eq!(a.mean_cost, b.mean_cost, "{}", a.name);
            assert_eq!(
                a.final_cost[5 * 24 + 7],
                crate::nav::grid::WALL,
                "{}",
                a.name
            );
        }
        assert!(kept.types.iter().all(|t| t.final_cost.is_empty()));
        assert_eq!(
            nav_at(&kept),
            nav_before,
            "a rebake copied unshared nav data"
        );
    }

    /// With islands shown, a stroke that changes costs but no wall sends no island image
    /// (the islands are the ones of the last image); one that paints a wall sends the image
    /// of the sectors whose ids changed, and the window's texture check agrees.
    #[test]
    fn strokes_that_keep_the_islands_send_no_island_image() {
        use crate::map::{PaintCell, PaintForce, PaintLayer, PaintTarget};
        let mut w = Worker::spawn().unwrap();
        let mut doc = crate::app::backend::tests_support::doc();
        let (width, height) = (24u32, 20u32);
        doc.paint.push(PaintLayer {
            target: PaintTarget::All,
            file: "t.paint.all.png".to_owned(),
            cells: vec![PaintCell::default(); (width * height) as usize],
        });
        let hm = Arc::new(Heightmap {
            width,
            height,
            height01: vec![0.5; (width * height) as usize],
            blocked: Vec::new(),
        });
        let images = ImagesWanted {
            overlay_type: 0,
            islands_layer: Some(0),
            shown: OverlaySettings::default(),
        };
        let next = |w: &mut Worker| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                for m in w.poll() {
                    if !matches!(m, WorkerMessage::Progress(_)) {
                        return m;
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            panic!("no reply");
        };
        assert!(w.send(BakeRequest::Full {
            document: Arc::new(doc.clone()),
            heightmap: Arc::clone(&hm),
            images,
        }));
        let WorkerMessage::Baked(baked, _) = next(&mut w) else {
            panic!("no full bake");
        };
        let mut held = baked.shared_nav.clone().unwrap();
        let mut shown = IslandsShown::of(&held, 0);
        for (at, force, delta, image_expected) in [
            (12 * 24 + 15, PaintForce::None, 60, false),
            (5 * 24 + 7, PaintForce::Wall, 0, true),
            (8 * 24 + 3, PaintForce::None, 30, false),
        ] {
            doc.paint[0].cells[at] = PaintCell { delta, force };
            let (x, y) = ((at % 24) as u32, (at / 24) as u32);
            assert!(w.send(BakeRequest::Rect {
                document: Arc::new(doc.clone()),
                heightmap: Arc::clone(&hm),
                rect: CellRect {
                    x0: x,
                    y0: y,
                    x1: x + 1,
                    y1: y + 1,
                },
                with_nav: true,
                images,
            }));
            let WorkerMessage::Patched(patch) = next(&mut w) else {
                panic!("no patch");
            };
            let nav = patch.nav.unwrap();
            assert!(
                !Arc::ptr_eq(&nav, &held),
                "the window held the old nav data"
            );
            assert_eq!(patch.islands.is_some(), image_expected, "at {at}");
            assert_eq!(shown.is_current(&nav, 0), !image_expected, "at {at}");
            if let Some(sent) = patch.islands {
                // The wall's sector only, drawn as the whole image draws it, against the
                // islands shown before.
                let (rect, base) = sent.part.unwrap();
                assert!(rect.contains(x, y) && rect.area() < (width * height) as usize);
                let whole = islands_image(&nav, 0).unwrap();
                let part = sent.image.unwrap();
                for (row, yy) in (rect.y0..rect.y1).enumerate() {
                    for (col, xx) in (rect.x0..rect.x1).enumerate() {
                        assert_eq!(
                            part.pixels[row * rect.width() as usize + col],
                            whole.pixels[(yy * width + xx) as usize]
                        );
                    }
                }
                assert!(base.same_as(&shown));
                shown = IslandsShown::of(&nav, 0);
            }
            held = nav;
        }
    }
}
