//! The Crowd panel: archetype, count, avoidance, metrics and plots of the
//! [`CrowdPreview`].

use egui::{Color32, Ui};
use egui_plot::{Legend, Line, Plot};

use crate::app::crowd_jams::link_traffic_text;
use crate::app::crowd_preview::{AgentColouring, CrowdPreview};
use crate::crowd::{AgentState, AvoidanceMode, StepMetrics};

/// The Crowd panel: archetype, count, avoidance, metrics and plots.
pub fn crowd_panel_ui(ui: &mut Ui, crowd: &mut CrowdPreview) {
    if !crowd.is_ready() {
        ui.weak("Waiting for the bake…");
    }
    // Play, pause, step and clear sit in the crowd toolbar at the top of the right panel.
    egui::Grid::new("crowd_options")
        .num_columns(2)
        .spacing([8.0, 4.0])
        .show(ui, |ui| {
            let label = ui.label("Speed");
            ui.add(
                egui::Slider::new(&mut crowd.speed, 0.25..=8.0)
                    .logarithmic(true)
                    .suffix("×"),
            )
            .labelled_by(label.id);
            ui.end_row();
            // A combo box: wrapped buttons in a grid cell spill over the next row.
            let label = ui.label("Archetype");
            let current = crowd
                .archetypes
                .get(crowd.archetype)
                .map_or_else(String::new, |a| a.name.clone());
            egui::ComboBox::from_id_salt("crowd archetype")
                .selected_text(current)
                .show_ui(ui, |ui| {
                    for (k, a) in crowd.archetypes.iter().enumerate() {
                        ui.selectable_value(&mut crowd.archetype, k, &a.name)
                            .on_hover_text(format!(
                                "{}: radius {:.1} m, {:.1} m/s, mass {:.0}",
                                a.movement_type, a.radius_m, a.max_speed, a.mass
                            ));
                    }
                })
                .response
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Agents per spawn");
            ui.add(egui::Slider::new(&mut crowd.spawn_count, 1..=20_000).logarithmic(true))
                .labelled_by(label.id);
            ui.end_row();
            ui.label("Avoidance");
            let mut mode = crowd.sim().config().avoidance;
            ui.horizontal(|ui| {
                ui.selectable_value(&mut mode, AvoidanceMode::Boids, "Boids");
                ui.selectable_value(&mut mode, AvoidanceMode::Orca, "ORCA");
                ui.selectable_value(&mut mode, AvoidanceMode::Context, "Context");
            });
            if mode != crowd.sim().config().avoidance {
                crowd.set_avoidance(mode);
            }
            ui.end_row();
            let label = ui.label("Decide every");
            let mut decision_secs = crowd.sim().config().decision_secs;
            ui.add(egui::Slider::new(&mut decision_secs, 0.0..=0.5).suffix(" s"))
                .labelled_by(label.id)
                .on_hover_text(
                    "ORCA and context steering choose a velocity this often and keep it in \
                     between (0.1 s: 10 Hz decisions, 60 Hz movement); 0: every step",
                );
            if decision_secs != crowd.sim().config().decision_secs {
                crowd.set_decision_secs(decision_secs);
            }
            ui.end_row();
        });
    ui.horizontal(|ui| {
        ui.label("Colour by");
        egui::ComboBox::from_id_salt("crowd colouring")
            .selected_text(crowd.colouring.label())
            .show_ui(ui, |ui| {
                for c in AgentColouring::ALL {
                    ui.selectable_value(&mut crowd.colouring, c, c.label())
                        .on_hover_text(c.legend());
                }
            })
            .response
            .on_hover_text(crowd.colouring.legend());
    });
    ui.checkbox(&mut crowd.show_velocity, "Velocity vectors");
    ui.checkbox(&mut crowd.show_congestion, "Congestion overlay")
        .on_hover_text(
            "Cells coloured by the agent-seconds travelling agents spent there below a quarter \
             of their top speed: yellow a little, red where the most time was lost. Cleared \
             with the agents.",
        );
    egui::CollapsingHeader::new("Movement techniques")
        .id_salt("crowd techniques")
        .show(ui, |ui| {
            let mut techniques = crowd.sim().config().techniques;
            for name in crate::crowd::Techniques::NAMES {
                let about = crate::crowd::Techniques::about(name);
                if let Some(flag) = techniques.flag_mut(name) {
                    ui.checkbox(flag, name).on_hover_text(about);
                }
            }
            if techniques != crowd.sim().config().techniques {
                crowd.set_techniques(techniques);
            }
            ui.weak("Saved with the scenario; docs/crowd.md says what each one buys");
        });
    parameters_ui(ui, crowd);
    if let Some(msg) = &crowd.message {
        ui.colored_label(Color32::from_rgb(255, 150, 90), msg);
    }
    let agents = crowd.sim().agents().len();
    let m = crowd.sim().metrics();
    ui.label(format!(
        "{agents} agents · {} selected · {} arrived · {} moving · {} queued · {} stuck",
        crowd.selection.len(),
        m.arrived,
        m.moving,
        m.queued,
        m.stuck
    ))
    .on_hover_text(
        "Queued: waiting behind agents that make progress (a queue that moves). \
         Stuck: neither the agent nor those ahead of it got nearer the goal for a while (a jam)",
    );
    ui.label(format!(
        "mean speed {:.2} m/s · {} wall contacts · step {:.2} ms",
        m.mean_speed_mps,
        m.wall_contacts,
        m.step_secs * 1000.0
    ));
    ui.label(format!(
        "overlap mean {:.1} % · max {:.0} % of the smaller radius",
        100.0 * m.overlap_mean,
        100.0 * m.overlap_max
    ))
    .on_hover_text("How deep touching agents press into each other this step");
    ui.label(format!(
        "collisions: {} unresolved · {} resolving · {} resolved",
        m.collisions_unresolved, m.collisions_resolving, m.collisions_resolved
    ))
    .on_hover_text(
        "Agents whose movement over the avoidance horizon runs into a neighbour's: still (unresolved), \
         not any more thanks to a side-step, slowing, waiting or pushing (resolving), or \
         past one in the last 0.25 s (resolved)",
    );
    let now = crowd.sim_secs();
    match crowd.gate.as_ref().map(|g| (g.throughput(now), g.total())) {
        Some((per_sec, total)) => {
            ui.horizontal(|ui| {
                ui.label(format!("gate: {per_sec:.1} agents/s · {total} through"))
                    .on_hover_text("Agents crossing the orange line, over the last 10 s");
                if ui.small_button("Remove gate").clicked() {
                    crowd.gate = None;
                }
            });
        }
        None => {
            ui.weak("Shift+drag with the Command tool to draw a gate and count agents through it");
        }
    }
    for (id, flow) in crowd.sim().link_flows() {
        ui.label(format!("link {id}: {}", link_traffic_text(flow, now)))
            .on_hover_text(
                "Agents carried across the link over the last 10 s and so far, and agents \
                 waiting at its entrance now (for a free lane, or for the next ride)",
            );
    }
    if crowd.history.len() > 1 {
        let series = |f: &dyn Fn(&StepMetrics) -> f64| -> Vec<[f64; 2]> {
            crowd
                .history
                .iter()
                .map(|m| [m.step as f64 / 60.0, f(m)])
                .collect()
        };
        let plot = |id: &str, height: f32| {
            Plot::new(id)
                .height(height)
                .legend(Legend::default())
                .x_axis_label("s")
                .allow_scroll(false)
        };
        plot("crowd_states", 110.0).show(ui, |plot| {
            let colour = crate::app::crowd_preview::state_colour;
            plot.line(
                Line::new("arrived", series(&|m| f64::from(m.arrived)))
                    .color(colour(AgentState::Arrived)),
            );
            plot.line(
                Line::new("moving", series(&|m| f64::from(m.moving)))
                    .color(colour(AgentState::Moving)),
            );
            plot.line(
                Line::new("queued", series(&|m| f64::from(m.queued)))
                    .color(colour(AgentState::Queued)),
            );
            plot.line(
                Line::new("stuck", series(&|m| f64::from(m.stuck)))
                    .color(colour(AgentState::Stuck)),
            );
        });
        plot("crowd_collisions", 80.0).show(ui, |plot| {
            plot.line(Line::new(
                "unresolved",
                series(&|m| f64::from(m.collisions_unresolved)),
            ));
            plot.line(Line::new(
                "resolving",
                series(&|m| f64::from(m.collisions_resolving)),
            ));
        });
        plot("crowd_overlap", 80.0).show(ui, |plot| {
            let pct = |v: f32| 100.0 * f64::from(v);
            plot.line(Line::new(
                "overlap mean %",
                series(&|m| pct(m.overlap_mean)),
            ));
            plot.line(Line::new("overlap max %", series(&|m| pct(m.overlap_max))));
        });
        plot("crowd_step_ms", 80.0).show(ui, |plot| {
            plot.line(Line::new("step ms", series(&|m| m.step_secs * 1000.0)));
        });
    }
}

/// The movement parameters of the current avoidance mode (`SimConfig::PARAMS`), with their
/// units: the crowd running in the viewport changes at once, and a saved scenario keeps them.
fn parameters_ui(ui: &mut Ui, crowd: &mut CrowdPreview) {
    use crate::crowd::SimConfig;
    egui::CollapsingHeader::new("Parameters")
        .id_salt("crowd parameters")
        .show(ui, |ui| {
            let mut config = crowd.sim().config().clone();
            let mode = config.avoidance;
            egui::Grid::new("crowd parameter grid")
                .num_columns(2)
                .spacing([8.0, 4.0])
                .show(ui, |ui| {
                    for p in SimConfig::PARAMS.iter().filter(|p| p.modes.contains(&mode)) {
                        let Some(mut value) = config.param(p.name) else {
                            continue;
                        };
                        let label = ui.label(p.name).on_hover_text(p.about);
                        let (lo, hi) = p.range;
                        // A number field, as the movement type's: a slider beside these
                        // names left no room for its value in the panel.
                        let field = egui::DragValue::new(&mut value)
                            .range(lo..=hi)
                            .speed(if p.whole { 0.1 } else { (hi - lo) / 500.0 })
                            .max_decimals(if p.whole { 0 } else { 3 })
                            .suffix(if p.unit.is_empty() {
                                String::new()
                            } else {
                                format!(" {}", p.unit)
                            });
                        ui.add(field).labelled_by(label.id).on_hover_text(p.about);
                        // The field keeps to the range, so this only fails for a name the
                        // settings do not have, which `PARAMS` cannot hold.
                        let _ =
                            config.set_param(p.name, if p.whole { value.round() } else { value });
                        ui.end_row();
                    }
                });
            ui.horizontal(|ui| {
                if ui
                    .button("Defaults")
                    .on_hover_text("Put every parameter back to its default")
                    .clicked()
                {
                    let defaults = SimConfig::default();
                    for p in &SimConfig::PARAMS {
                        if let Some(v) = defaults.param(p.name) {
                            let _ = config.set_param(p.name, v);
                        }
                    }
                }
                ui.weak("Saved with the scenario");
            });
            if &config != crowd.sim().config() {
                crowd.set_config(config);
            }
        });
}
