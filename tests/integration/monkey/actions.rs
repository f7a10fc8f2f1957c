//! How the monkey picks its next action (weighted by what the editor shows) and performs
//! it, checks the editor's invariants after it, and undoes everything at the end.

use super::input::*;
use super::*;

/// Movement types from which the monkey deletes rather than adds.
const MANY_TYPES: usize = 8;

impl Monkey {
    pub(super) fn new(seed: u64) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = small_map_copy(dir.path());
        let mut h = harness(App::new(Some(&path)).unwrap());
        settle(&mut h);
        assert!(h.state().is_baked(), "small.ron did not bake");
        // Keep spawns small: the crowd steps every frame while playing.
        h.state_mut().crowd.spawn_count = 40;
        Self {
            rng: Rng::new(seed),
            dir,
            h,
            saves: 0,
        }
    }

    pub(super) fn document(&self) -> &MapDocument {
        &self.h.state().state.map.as_ref().unwrap().document
    }

    pub(super) fn heightmap(&self) -> &Heightmap {
        &self.h.state().state.map.as_ref().unwrap().heightmap
    }

    /// Draws the next action for the editor as it is now.
    pub(super) fn next_action(&mut self) -> Action {
        let app = self.h.state();
        if app.error_message().is_some() && chance(&mut self.rng, 0.8) {
            return Action::CloseError;
        }
        if !app.state.messages.is_empty() && chance(&mut self.rng, 0.3) {
            return Action::DismissMessages;
        }
        let tool = app.tools.active();
        let agents = app.crowd.sim().agents().len();
        let types = app
            .state
            .map
            .as_ref()
            .map_or(0, |m| m.document.movement_types.len());
        let rng = &mut self.rng;
        match rng.below(100) {
            0..=7 => Action::ToolButton(pick(rng, &Tool::ALL)),
            8..=10 => Action::Key(Chord::plain(pick(
                rng,
                &[Key::B, Key::I, Key::S, Key::G, Key::A, Key::C],
            ))),
            11..=34 => {
                if matches!(tool, Tool::Spawn) && agents > MAX_AGENTS {
                    return Action::Crowd("Clear agents");
                }
                let from = cell(rng);
                if chance(rng, 0.35) {
                    Action::Click {
                        cell: from,
                        shift: chance(rng, 0.2),
                    }
                } else {
                    let n = 1 + rng.below(4) as usize;
                    let mut via = Vec::with_capacity(n);
                    let mut last = from;
                    for _ in 0..n {
                        last = near(rng, last, 12.0);
                        via.push(last);
                    }
                    let key_midway = chance(rng, 0.15).then(|| {
                        pick(
                            rng,
                            &[
                                Chord::undo(),
                                Chord::redo(),
                                Chord::plain(Key::Delete),
                                Chord::plain(Key::R),
                                Chord::plain(Key::Escape),
                                Chord::plain(Key::B),
                                Chord::plain(Key::S),
                                Chord::plain(Key::I),
                            ],
                        )
                    });
                    Action::Drag {
                        from,
                        via,
                        shift: chance(rng, 0.1),
                        key_midway,
                    }
                }
            }
            35..=37 => Action::RightClick(cell(rng)),
            38..=39 => {
                if chance(rng, 0.5) {
                    let from = cell(rng);
                    Action::Pan {
                        from,
                        to: near(rng, from, 20.0),
                    }
                } else {
                    Action::Wheel {
                        at: cell(rng),
                        delta: range(rng, -300.0, 300.0),
                    }
                }
            }
            40..=44 => Action::Key(pick(
                rng,
                &[
                    Chord::plain(Key::R),
                    Chord::plain(Key::Delete),
                    Chord::plain(Key::Backspace),
                    Chord::plain(Key::Escape),
                    Chord::plain(Key::P),
                    Chord::plain(Key::Period),
                    Chord::plain(Key::F),
                    Chord::plain(Key::F1),
                ],
            )),
            45..=47 => {
                let stamps = navstudio::app::model::stamp_placement::library();
                let k = rng.below(stamps.stamps.len() as u32) as usize;
                Action::PickStamp(stamps.stamps[k].id.clone())
            }
            48..=59 => self.random_widget(),
            60..=63 => Action::Overlay(pick(rng, &OVERLAYS)),
            64..=70 => Action::Key(pick(rng, &[Chord::undo(), Chord::undo(), Chord::redo_y()])),
            71..=72 => Action::Key(Chord::redo()),
            73 => Action::EditMenu(pick(rng, &["Undo", "Redo"])),
            74..=75 => Action::Bake,
            76..=79 => Action::Crowd(pick(rng, &["Play/Pause", "Step", "Step", "Clear agents"])),
            80 => Action::ChooseArchetype(rng.below(8) as usize),
            // Two ways to add a type and one to delete would grow the list without end (24
            // types after 10,000 actions), and every rebake bakes them all: past
            // `MANY_TYPES`, delete.
            81..=82 if types >= MANY_TYPES => Action::MovementType("Delete"),
            81..=82 => Action::MovementType(pick(rng, &["Add", "Duplicate", "Delete"])),
            83..=84 => Action::SelectType(rng.below(6) as usize),
            85..=89 => {
                let a = frac(rng);
                let b = frac(rng);
                Action::Curve(match rng.below(5) {
                    0 => CurveOp::Insert(a),
                    1 => CurveOp::InsertAndDrag(a, b),
                    2 => CurveOp::Drag(a, b),
                    3 => CurveOp::InsertAndRemove(a),
                    _ => CurveOp::Remove(a),
                })
            }
            90 => Action::Save,
            91 => {
                self.saves += 1;
                Action::SaveAs(self.saves)
            }
            92 => {
                self.saves += 1;
                Action::Export(self.saves)
            }
            93..=95 => Action::Resize(range(rng, 640.0, 1920.0), range(rng, 420.0, 1200.0)),
            _ => Action::Idle(1 + rng.below(30) as u8),
        }
    }

    fn random_widget(&mut self) -> Action {
        let found = widgets(&self.h);
        if found.is_empty() {
            return Action::Idle(1);
        }
        let (w, bounds) = found[self.rng.below(found.len() as u32) as usize].clone();
        let rng = &mut self.rng;
        let op = match w.role {
            Role::Slider | Role::SpinButton => match rng.below(3) {
                0 => WidgetOp::Increment,
                1 => WidgetOp::Decrement,
                _ => {
                    let (lo, hi) = bounds.unwrap_or((-10.0, 100.0));
                    // Huge crowds only make the run slow.
                    let hi = if w.label.starts_with("Agents per spawn") {
                        hi.min(200.0)
                    } else {
                        hi
                    };
                    // Now and then a value beyond the range: the widget must clamp it.
                    let (lo, hi) = if chance(rng, 0.1) {
                        (lo - 10.0, hi + 10.0)
                    } else {
                        (lo, hi)
                    };
                    WidgetOp::Set(lo + (hi - lo) * f64::from(uniform(rng)))
                }
            },
            _ => WidgetOp::Click,
        };
        Action::Widget(w, op)
    }

    /// Runs one action through the UI and lets the editor settle.
    pub(super) fn run(&mut self, action: &Action) {
        let h = &mut self.h;
        match action {
            Action::ToolButton(tool) => {
                if let Some(b) = first(h, tool.label()) {
                    b.click_accesskit();
                }
            }
            Action::Key(chord) => press_chord(h, *chord),
            Action::Click { cell, shift } => {
                let p = screen(h, *cell);
                let m = shift_if(*shift);
                h.hover_at(p);
                h.step();
                h.event(egui::Event::ModifiersChanged(m));
                button(h, p, PointerButton::Primary, true, m);
                button(h, p, PointerButton::Primary, false, m);
                h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
            }
            Action::Drag {
                from,
                via,
                shift,
                key_midway,
            } => {
                let m = shift_if(*shift);
                let p = screen(h, *from);
                h.hover_at(p);
                h.step();
                h.event(egui::Event::ModifiersChanged(m));
                button(h, p, PointerButton::Primary, true, m);
                h.step();
                let mut last = p;
                for (k, c) in via.iter().enumerate() {
                    last = screen(h, *c);
                    h.hover_at(last);
                    h.step();
                    if k == via.len() / 2
                        && let Some(chord) = key_midway
                    {
                        press_chord(h, *chord);
                        h.step();
                    }
                }
                button(h, last, PointerButton::Primary, false, m);
                h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
            }
            Action::RightClick(c) => {
                let p = screen(h, *c);
                h.hover_at(p);
                h.step();
                button(h, p, PointerButton::Secondary, true, Modifiers::NONE);
                h.step();
                button(h, p, PointerButton::Secondary, false, Modifiers::NONE);
            }
            Action::Pan { from, to } => {
                let (a, b) = (screen(h, *from), screen(h, *to));
                h.hover_at(a);
                h.step();
                button(h, a, PointerButton::Middle, true, Modifiers::NONE);
                h.step();
                h.hover_at(b);
                h.step();
                button(h, b, PointerButton::Middle, false, Modifiers::NONE);
            }
            Action::Wheel { at, delta } => {
                let p = screen(h, *at);
                h.hover_at(p);
                h.event(egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Point,
                    delta: vec2(0.0, *delta),
                    phase: egui::TouchPhase::Move,
                    source: egui::MouseWheelSource::Wheel,
                    modifiers: Modifiers::NONE,
                });
            }
            Action::PickStamp(id) => {
                if let Some(b) = first(h, id) {
                    b.click_accesskit();
                }
            }
            Action::Widget(w, op) => {
                if let Some(node) = find_widget(h, w) {
                    match op {
                        WidgetOp::Click => node.click_accesskit(),
                        WidgetOp::Increment => node.increment_accesskit(),
                        WidgetOp::Decrement => node.decrement_accesskit(),
                        WidgetOp::Set(v) => node.set_value_accesskit(*v),
                    }
                }
            }
            Action::Overlay(prefix) => {
                if let Some(b) = h.query_all_by_role(Role::CheckBox).find(|n| {
                    n.accesskit_node()
                        .label()
                        .is_some_and(|l| l.starts_with(prefix))
                }) {
                    b.click_accesskit();
                }
            }
            Action::EditMenu(what) => {
                if let Some(menu) = first(h, "Edit") {
                    menu.click();
                    h.step();
                    h.step();
                    let what: &'static str = what;
                    if let Some(item) = h
                        .query_all_by(move |n| {
                            n.role() != Role::Label
                                && n.label().is_some_and(|l| l.starts_with(what))
                        })
                        .next()
                    {
                        item.click();
                    }
                    h.step();
                    // Close the menu if the item was disabled.
                    h.key_press(Key::Escape);
                }
            }
            Action::Bake => {
                // The Bake section's header has the same label: the button comes after it.
                if let Some(b) = h
                    .query_all_by_label("Bake")
                    .rfind(|n| n.accesskit_node().role() != Role::Label)
                {
                    b.click_accesskit();
                }
            }
            Action::Crowd(what) => {
                let label = match *what {
                    "Play/Pause" if h.state().crowd.playing => "Pause",
                    "Play/Pause" => "Play",
                    other => other,
                };
                if let Some(b) = first(h, label) {
                    b.click_accesskit();
                }
            }
            Action::ChooseArchetype(k) => {
                let combo = h.query_all_by_role(Role::ComboBox).next();
                let opened = combo.inspect(|c| c.click_accesskit()).is_some();
                if opened {
                    h.step();
                    h.step();
                    let names: Vec<String> = h
                        .state()
                        .crowd
                        .archetypes
                        .iter()
                        .map(|a| a.name.clone())
                        .collect();
                    if let Some(name) = names.get(k % names.len().max(1))
                        && let Some(option) = h
                            .query_all_by_label(name)
                            .rfind(|n| n.accesskit_node().role() != Role::Label)
                    {
                        option.click_accesskit();
                    }
                }
            }
            Action::MovementType(what) => {
                // The Movement types panel is on the right; the stamp tool has a Delete too.
                let half = h.ctx.content_rect().center().x;
                if let Some(b) = h.query_all_by_label(what).find(|n| {
                    n.accesskit_node().role() != Role::Label && n.rect().center().x > half
                }) {
                    b.click_accesskit();
                }
            }
            Action::SelectType(k) => {
                let names: Vec<String> = self_types(h);
                if let Some(name) = names.get(k % names.len().max(1))
                    && let Some(b) = h
                        .query_all_by_label(name)
                        .find(|n| n.accesskit_node().role() != Role::Label)
                {
                    b.click_accesskit();
                }
            }
            Action::Curve(op) => {
                if let Some(rect) = curve_rect(h) {
                    curve(h, rect, *op);
                }
            }
            Action::Save => press_chord(h, Chord(Modifiers::COMMAND, Key::S)),
            Action::SaveAs(n) => {
                let folder = self.dir.path().join(format!("save{n}"));
                std::fs::create_dir_all(&folder).unwrap();
                let path = folder.join(format!("monkey{n}.ron"));
                // A message box left by an earlier action (a refused export) is not ours.
                let before = h.state().error_message().map(str::to_owned);
                h.state_mut().save_as(&path);
                settle(h);
                check_saved(h, &path, before.as_deref());
                return;
            }
            Action::Export(n) => {
                let path = self.dir.path().join(format!("monkey{n}.navpkg"));
                h.state_mut().export_package(&path);
            }
            Action::Resize(w, hh) => {
                h.set_size(vec2(*w, *hh));
            }
            Action::DismissMessages => {
                if let Some(b) = first(h, "Dismiss") {
                    b.click_accesskit();
                }
            }
            Action::CloseError => {
                if let Some(b) = first(h, "OK") {
                    b.click();
                }
            }
            Action::Idle(frames) => h.run_steps(usize::from(*frames)),
        }
        settle(h);
    }

    /// The checks that must hold after every action.
    pub(super) fn check(&self) {
        let app = self.h.state();
        let map = app.state.map.as_ref().expect("the map stays open");
        let doc = &map.document;
        if let Err(e) = doc.validate() {
            panic!("the document does not validate: {e}");
        }
        let cells = map.heightmap.width as usize * map.heightmap.height as usize;
        for (i, layer) in doc.paint.iter().enumerate() {
            assert_eq!(
                layer.cells.len(),
                cells,
                "paint layer {i} ({}) has the wrong size",
                layer.file
            );
        }
        assert!(
            app.state.selected_type < doc.movement_types.len(),
            "selected movement type {} of {}",
            app.state.selected_type,
            doc.movement_types.len()
        );
        if let Some(s) = app.state.stamp.selected {
            assert!(
                s < doc.stamps.len(),
                "selected stamp {s} of {}",
                doc.stamps.len()
            );
        }
        assert!(app.state.read_only.is_none());
    }

    /// Undoes everything with Ctrl+Z; returns the number of steps.
    pub(super) fn undo_all(&mut self) -> usize {
        let steps = self.h.state().state.history.position();
        for _ in 0..steps {
            press_chord(&self.h, Chord::undo());
            self.h.step();
        }
        settle(&mut self.h);
        steps
    }
}
