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
        let viewport = self.viewport_mut();
        let rect = viewport.rect;
        if rect.width() < 1.0 || rect.height() < 1.0 {
            return;
        }
        let span = source
            .0
            .abs_diff(goal.0)
            .max(source.1.abs_diff(goal.1))
            .max(48) as f32;
        let px_per_cell = 0.5 * rect.width().min(rect.height()) / span;
        let mid = (
            (source.0 + goal.0) as f32 * 0.5 + 0.5,
            (source.1 + goal.1) as f32 * 0.5 + 0.5,
        );
        viewport.fit_requested = false;
        viewport.transform.px_per_cell = px_per_cell;
        viewport.transform.offset = rect.size() * 0.5 - egui::vec2(mid.0, mid.1) * px_per_cell;
    }
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
    use super::parse_route;

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
