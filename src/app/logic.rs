//! The App's per-frame logic, before anything is drawn (rerun's `logic`): poll the bake
//! worker, step the crowd preview, send rebake requests, refresh the overlay textures.

use std::sync::Arc;
use std::time::Duration;

use egui::ViewportCommand;

use super::App;
use super::background::drop_later;
use super::overlays::images::ImagesWanted;
use super::worker::{BakeRequest, WorkerMessage};
use crate::nav::grid::CellRect;

impl App {
    pub(super) fn logic_impl(&mut self, ctx: &egui::Context) {
        self.perf.begin();
        if !self.style_set {
            Self::setup_style(ctx);
            self.style_set = true;
        }
        self.worker.set_repaint_context(ctx);
        self.poll_worker(ctx);
        self.handle_shortcuts(ctx);
        self.handle_dropped_files(ctx);
        self.handle_close_request(ctx);
        let mut cx = super::tools::ToolCx {
            state: &mut self.state,
            crowd: &mut self.crowd,
            goal: &self.goal_preview,
        };
        self.tools.settle(&mut cx);
        self.state.nav_wanted |= self.pending_export.is_some();
        if std::mem::take(&mut self.quit_requested) {
            ctx.send_viewport_cmd(ViewportCommand::Close);
        }
        self.request_bakes();
        self.finish_pending_export();
        self.refresh_textures(ctx);
        self.crowd_logic(ctx);
        self.autosave_step(false);
        let title = self.state.title();
        if title != self.title {
            ctx.send_viewport_cmd(ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        self.screenshot_step(ctx);
    }

    /// Keeps the crowd's navigator on the latest nav data and advances it by the frame time.
    fn crowd_logic(&mut self, ctx: &egui::Context) {
        if let Some(map) = &self.state.map {
            self.crowd.sync_nav(
                self.state.nav.as_ref(),
                self.state.nav_version,
                &map.document,
            );
        }
        let state = &self.state;
        self.crowd
            .sync_links(state.preview_version(), || state.nav_links());
        // The frame's own duration, capped so a stalled frame does not fast-forward.
        let dt = f64::from(ctx.input(|i| i.stable_dt).min(0.1));
        self.crowd.tick(dt);
        if self.crowd.playing && !self.crowd.sim().agents().is_empty() {
            ctx.request_repaint();
        }
    }

    fn poll_worker(&mut self, ctx: &egui::Context) {
        for message in self.worker.poll() {
            match message {
                WorkerMessage::Progress(_) => {}
                WorkerMessage::Baked(output, images) => {
                    self.full_timings.clone_from(&output.timings);
                    let nav = output.shared_nav.clone();
                    let old_nav = self.state.nav.take();
                    self.state.set_nav(nav);
                    let old_baked = self.state.baked.replace(*output);
                    drop_later((old_nav, old_baked));
                    self.cost_shown = None;
                    let mut images = images;
                    if let (Some((layer, image)), Some(nav)) =
                        (images.islands.take(), &self.state.nav)
                    {
                        self.textures.install_islands(ctx, image, nav, layer);
                    }
                    if let (Some(map), Some(baked)) = (&self.state.map, &self.state.baked) {
                        let type_index = images.type_index;
                        // Images of another size are from a map no longer open; those of
                        // another type leave the cost textures to `refresh_textures`.
                        let shown = self.state.overlays;
                        match self.textures.install_baked(ctx, map, *images, shown) {
                            Some(true) => {
                                self.cost_shown = Some((type_index, baked.types.len()));
                            }
                            Some(false) => {}
                            // Built from this bake once shown (`build_shown`).
                            None => self.textures.slope = None,
                        }
                    }
                }
                WorkerMessage::Patched(mut patch) => {
                    if let Some(nav) = patch.nav.clone() {
                        // The previous nav data can be the last reference: free it elsewhere.
                        let old_nav = self.state.nav.take();
                        self.state.set_nav(Some(Arc::clone(&nav)));
                        drop_later(old_nav);
                        if let Some(islands) = patch.islands.take() {
                            self.textures.install_island_patch(ctx, islands, &nav);
                        }
                    }
                    let width = self.state.map_size().0;
                    if let Some(baked) = self.state.baked.as_mut() {
                        patch.apply_to(baked, width);
                    }
                    if let (Some(map), Some(baked)) = (&self.state.map, &self.state.baked) {
                        self.textures.refresh_cost(
                            ctx,
                            map,
                            baked,
                            self.state.selected_type,
                            patch.rect,
                            self.state.overlays,
                        );
                    }
                }
                WorkerMessage::Failed(why) => {
                    // Wait for the next edit: re-baking the same document fails the same way.
                    self.state.pending_full_bake = false;
                    self.state.messages.push(format!(
                        "The map could not be baked: {why} The overlays show the previous bake."
                    ));
                }
                WorkerMessage::Cancelled => {
                    self.bake_suspended = true;
                    self.state.pending_full_bake = true;
                    self.state
                        .messages
                        .push("Bake cancelled: the overlays show the previous bake. Press Bake to finish.".to_owned());
                }
            }
        }
        if self.worker.is_busy() {
            // Progress arrives by message; this only keeps the bar's animation alive.
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    fn request_bakes(&mut self) {
        if self.worker.is_busy() || self.bake_suspended || self.state.read_only.is_some() {
            return;
        }
        let Some(map) = self.state.map.as_ref() else {
            return;
        };
        let heightmap = Arc::clone(&map.heightmap);
        let first = self.state.baked.is_none();
        let width = map.heightmap.width;
        // Paint cells only change by strokes and their undo/redo, which all mark their
        // cells in `pending_dirty`, emptied only here once a request took a copy; layers
        // added, removed or retargeted are found by comparing the layer lists.
        let changed = self.state.pending_dirty.unwrap_or(CellRect::full(0, 0));
        // The bake thread builds the overlay images shown (the island image from the nav data
        // it sends back).
        let images = ImagesWanted {
            overlay_type: self.state.selected_type,
            islands_layer: self
                .state
                .overlays
                .islands
                .then_some(self.state.selected_type),
            shown: self.state.overlays,
        };
        if self.state.pending_full_bake && (self.auto_rebake || first) {
            let request = BakeRequest::Full {
                document: self
                    .shared_document
                    .sync(&map.document, Some(changed), width),
                heightmap,
                images,
            };
            if self.worker.send(request) {
                self.state.pending_full_bake = false;
                self.state.pending_dirty = None;
            }
        } else if !self.state.pending_full_bake
            && let Some(rect) = self
                .state
                .pending_dirty
                .filter(|_| self.auto_rebake)
                // The costs are current but the nav data is not, and now something reads
                // it (the Goal tool, a nav overlay): fetch it without re-baking.
                .or((self.state.nav_behind && self.state.wants_nav()).then(|| CellRect::full(0, 0)))
        {
            let with_nav = self.state.wants_nav();
            let request = BakeRequest::Rect {
                document: self
                    .shared_document
                    .sync(&map.document, Some(changed), width),
                heightmap,
                rect,
                with_nav,
                images,
            };
            if self.worker.send(request) {
                self.state.pending_dirty = None;
                self.state.nav_behind |= !with_nav;
            }
        }
    }

    pub(super) fn start_full_bake(&mut self) {
        self.bake_suspended = false;
        self.state.pending_full_bake = true;
        let auto = self.auto_rebake;
        self.auto_rebake = true;
        self.request_bakes();
        self.auto_rebake = auto;
    }

    fn refresh_textures(&mut self, ctx: &egui::Context) {
        let Some(map) = self.state.map.as_ref() else {
            return;
        };
        let params = (
            map.document.height_scale_m,
            map.document.water_above_black_m(),
            map.document.cell_size_m,
        );
        if self.textures_need_reset {
            self.textures.reset(ctx, map);
            self.textures_need_reset = false;
            self.height_params = params;
            self.state.paint_dirty =
                Some(CellRect::full(map.heightmap.width, map.heightmap.height));
        } else if params != self.height_params {
            self.textures.refresh_height(ctx, map);
            self.height_params = params;
        }
        let full = CellRect::full(map.heightmap.width, map.heightmap.height);
        let selected = self.state.selected_type;
        let type_name = map
            .document
            .movement_types
            .get(selected)
            .map_or_else(String::new, |t| t.name.clone());
        if let Some(rect) = self.state.paint_dirty.take() {
            self.textures.refresh_paint(ctx, map, &type_name, rect);
        }
        let overlays = self.state.overlays;
        if let Some(baked) = &self.state.baked {
            let key = (selected, baked.types.len());
            if self.cost_shown != Some(key) {
                self.textures
                    .refresh_cost(ctx, map, baked, selected, full, overlays);
                self.cost_shown = Some(key);
            }
            // Overlays hidden at the last bake have no texture until shown.
            self.textures
                .build_shown(ctx, map, baked, selected, overlays);
        }
        if let (true, Some(nav)) = (overlays.islands, &self.state.nav) {
            self.textures.refresh_islands(ctx, nav, selected);
        }
        self.goal_preview.update(
            &self.state,
            (overlays.integration, overlays.line_of_sight),
            Some(ctx),
        );
        if let (true, Some(cells)) = (overlays.flow, self.viewport.arrow_cells()) {
            self.goal_preview.cover_cells(cells);
        }
        self.textures.refresh_goal(
            ctx,
            &mut self.goal_preview,
            (full.x1, full.y1),
            (overlays.integration, overlays.line_of_sight),
        );
    }
}
