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
        if self.crowd.sim_secs() < plan.after_secs {
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
