//! `NAVSTUDIO_SCREENSHOT`: save one frame of the editor as a PNG and close (README images).

use std::sync::Arc;

use egui::ViewportCommand;

use super::App;

impl App {
    pub(super) fn screenshot_step(&mut self, ctx: &egui::Context) {
        // A heightmap waits in the New map dialog: that dialog is the frame to save.
        let ready = self.is_baked()
            || (self.state.map.is_none() && (self.error.is_some() || self.new_map.is_some()));
        let Some(plan) = self.screenshot.as_mut() else {
            return;
        };
        if plan.requested {
            return;
        }
        ctx.request_repaint();
        if !ready {
            return;
        }
        if let Some(scenario) = plan.scenario.take() {
            if let Err(e) = self.crowd.load_scenario(&scenario) {
                eprintln!("navstudio: the screenshot scenario does not load: {e}");
            }
            self.crowd.playing = true;
            self.crowd.speed = 8.0;
        }
        if let Some((name, source, goal)) = plan.route.take() {
            let index = self.state.map.as_ref().and_then(|m| {
                m.document
                    .movement_types
                    .iter()
                    .position(|t| t.name == name)
            });
            match index {
                Some(i) => {
                    self.state.selected_type = i;
                    self.state.goal.goal = Some(goal);
                    self.state.goal.source = Some(source);
                    self.select_tool(super::tools::Tool::Goal);
                    self.frame_route(source, goal);
                }
                None => eprintln!(
                    "navstudio: the map has no movement type `{name}`; the screenshot shows no route"
                ),
            }
            return;
        }
        if self.crowd.sim_secs() < plan.after_secs || self.goal_preview.is_pending() {
            return;
        }
        // Framed on the frames just before the shot, where the agents are by then.
        match plan.view {
            Some(ViewPick::Cells(lo, hi)) => self.frame_cells(lo, hi, 0.95, 8.0),
            Some(ViewPick::Agents) => {
                let _ = self.frame_agents();
            }
            None => {}
        }
        let Some(plan) = self.screenshot.as_mut() else {
            return;
        };
        if plan.frames_after_bake > 0 {
            plan.frames_after_bake -= 1;
            return;
        }
        plan.requested = true;
        self.allow_close = true;
        let path = plan.path.clone();
        let close_ctx = ctx.clone();
        ctx.request_screenshot(move |image: Arc<egui::ColorImage>| {
            let [w, h] = image.size;
            let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
            let saved = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
                .ok_or_else(|| "the screenshot has the wrong size".to_owned())
                .and_then(|img| img.save(&path).map_err(|e| e.to_string()));
            if let Err(err) = saved {
                eprintln!(
                    "navstudio: could not save the screenshot to {}: {err}",
                    path.display()
                );
            }
            close_ctx.send_viewport_cmd(ViewportCommand::Close);
        });
    }
}

impl App {
    /// Centres the view on the route from `source` to `goal`, zoomed so that it spans about
    /// half the canvas (at least 48 cells across), as a designer would zoom to look at it.
    fn frame_route(&mut self, source: (u32, u32), goal: (u32, u32)) {
        let (lo, hi) = (
            (source.0.min(goal.0) as f32, source.1.min(goal.1) as f32),
            (source.0.max(goal.0) as f32, source.1.max(goal.1) as f32),
        );
        self.frame_cells(lo, (hi.0 + 1.0, hi.1 + 1.0), 0.5, 48.0);
    }

    /// Zooms the view onto the selected agents, or onto every agent when none is selected
    /// (View → Frame agents, Shift+F), as Unity's F frames the selection. `false` when there
    /// is no agent.
    pub(super) fn frame_agents(&mut self) -> bool {
        let cell_m = match self.state.map.as_ref() {
            Some(m) => m.document.cell_size_m.max(1e-6),
            None => return false,
        };
        let agents = self.crowd.sim().agents();
        let picked: Vec<usize> = if self.crowd.selection.is_empty() {
            (0..agents.len()).collect()
        } else {
            self.crowd
                .selection
                .iter()
                .map(|id| id.0 as usize)
                .collect()
        };
        let mut lo = (f32::INFINITY, f32::INFINITY);
        let mut hi = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        for i in picked.into_iter().filter(|&i| i < agents.len()) {
            let p = agents.pos_world[i] * (1.0 / cell_m);
            (lo.0, lo.1) = (lo.0.min(p.x), lo.1.min(p.y));
            (hi.0, hi.1) = (hi.0.max(p.x), hi.1.max(p.y));
        }
        if lo.0 > hi.0 {
            return false;
        }
        self.frame_cells(lo, hi, 0.8, 24.0);
        true
    }

    /// [`Self::frame_agents`], or a word in the Crowd panel when there is no agent.
    pub(super) fn frame_agents_or_say(&mut self) {
        if !self.frame_agents() {
            self.crowd.message =
                Some("No agents to frame: spawn some with the Spawn tool first.".to_owned());
        }
    }

    /// Centres the view on the cells from `lo` to `hi` (corners, in cells), zoomed so that
    /// they fill `share` of the canvas and at least `min_span` cells show across.
    pub(super) fn frame_cells(
        &mut self,
        lo: (f32, f32),
        hi: (f32, f32),
        share: f32,
        min_span: f32,
    ) {
        let viewport = self.viewport_mut();
        let rect = viewport.rect;
        if rect.width() < 1.0 || rect.height() < 1.0 {
            return;
        }
        let (w, h) = ((hi.0 - lo.0).max(1.0), (hi.1 - lo.1).max(1.0));
        let px_per_cell = (share * (rect.width() / w).min(rect.height() / h))
            .min(share * rect.width().min(rect.height()) / min_span);
        let mid = ((lo.0 + hi.0) * 0.5, (lo.1 + hi.1) * 0.5);
        viewport.fit_requested = false;
        viewport.transform.px_per_cell = px_per_cell;
        viewport.transform.offset = rect.size() * 0.5 - egui::vec2(mid.0, mid.1) * px_per_cell;
    }
}

/// What a screenshot frames: a block of cells (its corners, in cells) or the agents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum ViewPick {
    Cells((f32, f32), (f32, f32)),
    Agents,
}

/// `X0,Y0:X1,Y1` (corner cells, both inside) or `agents` → what to frame
/// (`NAVSTUDIO_SCREENSHOT_VIEW`).
pub(super) fn parse_view(text: &str) -> Option<ViewPick> {
    if text.trim() == "agents" {
        return Some(ViewPick::Agents);
    }
    let cell = |c: &str| {
        let (x, y) = c.split_once(',')?;
        Some((
            x.trim().parse::<u32>().ok()? as f32,
            y.trim().parse::<u32>().ok()? as f32,
        ))
    };
    let (a, b) = text.split_once(':')?;
    let (a, b) = (cell(a)?, cell(b)?);
    Some(ViewPick::Cells(
        (a.0.min(b.0), a.1.min(b.1)),
        (a.0.max(b.0) + 1.0, a.1.max(b.1) + 1.0),
    ))
}

/// A scripted Goal tool pick: the movement type's name, the source and the goal cell.
pub(super) type RoutePick = (String, (u32, u32), (u32, u32));

/// `TYPE:SX,SY:GX,GY` → the movement type's name, the source and the goal cell.
pub(super) fn parse_route(text: &str) -> Option<RoutePick> {
    let cell = |c: &str| {
        let (x, y) = c.split_once(',')?;
        Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
    };
    let mut parts = text.split(':');
    let (name, source, goal) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || name.is_empty() {
        return None;
    }
    Some((name.to_owned(), cell(source)?, cell(goal)?))
}

#[cfg(test)]
mod tests {
    use super::{ViewPick, parse_route, parse_view};

    #[test]
    fn a_view_reads_two_corner_cells_in_any_order_or_agents() {
        // Corners inside: cells 10..=20 × 5..=7 are 11 × 3 cells, corners 10,5 and 21,8.
        let block = Some(ViewPick::Cells((10.0, 5.0), (21.0, 8.0)));
        assert_eq!(parse_view("10,5:20,7"), block);
        assert_eq!(parse_view("20,7:10,5"), block);
        assert_eq!(parse_view(" agents "), Some(ViewPick::Agents));
        assert_eq!(parse_view("10,5"), None);
        assert_eq!(parse_view("10,5:20"), None);
        assert_eq!(parse_view("-1,5:20,7"), None);
    }

    #[test]
    fn a_route_reads_type_source_and_goal() {
        assert_eq!(
            parse_route("hover:20,454:60,454"),
            Some(("hover".to_owned(), (20, 454), (60, 454)))
        );
        assert_eq!(parse_route("hover:20,454"), None);
        assert_eq!(parse_route("hover:20,454:60"), None);
        assert_eq!(parse_route(":1,2:3,4"), None);
        assert_eq!(parse_route("land:1,2:3,4:5,6"), None);
    }
}
