//! The monkey's hands: pointer buttons, drags and key chords on the harness, the panels'
//! widgets found through the accessibility tree, and random cells and fractions.

use super::*;

pub(super) fn small_map_copy(dir: &Path) -> PathBuf {
    let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    for file in ["small.ron", "small.png", "small.paint.all.png"] {
        std::fs::copy(maps.join(file), dir.join(file)).unwrap();
    }
    dir.join("small.ron")
}

pub(super) fn uniform(rng: &mut Rng) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32
}

pub(super) fn range(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * uniform(rng)
}

pub(super) fn chance(rng: &mut Rng, p: f32) -> bool {
    uniform(rng) < p
}

pub(super) fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u32) as usize]
}

pub(super) fn cell(rng: &mut Rng) -> (f32, f32) {
    (range(rng, -4.0, MAP + 4.0), range(rng, -4.0, MAP + 4.0))
}

pub(super) fn near(rng: &mut Rng, c: (f32, f32), r: f32) -> (f32, f32) {
    (c.0 + range(rng, -r, r), c.1 + range(rng, -r, r))
}

/// Steps until the bake thread and the goal preview are idle.
pub(super) fn settle(h: &mut Harness<'_, App>) {
    h.step();
    h.step();
    let deadline = Instant::now() + Duration::from_secs(120);
    while h.state().bake_in_flight() || h.state().goal_preview.is_pending() {
        assert!(
            Instant::now() < deadline,
            "the editor stayed busy for 120 s"
        );
        std::thread::sleep(Duration::from_millis(1));
        h.step();
    }
    h.step();
}

/// A screen point of a cell, kept inside the viewport (so a click never lands on a menu).
pub(super) fn screen(h: &Harness<'_, App>, c: (f32, f32)) -> Pos2 {
    let vp = h.state().viewport();
    let p = vp.transform.screen_from_cell(vp.rect, c);
    let r = vp.rect.shrink(1.0);
    if r.width() <= 0.0 || r.height() <= 0.0 {
        return vp.rect.center();
    }
    p.clamp(r.min, r.max)
}

pub(super) fn button(
    h: &Harness<'_, App>,
    pos: Pos2,
    button: PointerButton,
    pressed: bool,
    m: Modifiers,
) {
    h.event(egui::Event::PointerButton {
        pos,
        button,
        pressed,
        modifiers: m,
    });
}

pub(super) fn press_chord(h: &Harness<'_, App>, c: Chord) {
    h.key_press_modifiers(c.0, c.1);
}

pub(super) fn shift_if(shift: bool) -> Modifiers {
    if shift {
        Modifiers::SHIFT
    } else {
        Modifiers::NONE
    }
}

/// Roles the random widget pick chooses from.
const WIDGET_ROLES: [Role; 5] = [
    Role::Button,
    Role::CheckBox,
    Role::Slider,
    Role::SpinButton,
    Role::ComboBox,
];

/// Every enabled widget of the picked roles with a label, as (role, label, nth, range).
pub(super) fn widgets(h: &Harness<'_, App>) -> Vec<(WidgetRef, Option<(f64, f64)>)> {
    let mut out: Vec<(WidgetRef, Option<(f64, f64)>)> = Vec::new();
    for node in h.root().children_recursive() {
        let n = node.accesskit_node();
        let role = n.role();
        if !WIDGET_ROLES.contains(&role) || n.is_disabled() || n.is_hidden() {
            continue;
        }
        let Some(label) = n.label().filter(|l| !l.trim().is_empty()) else {
            continue;
        };
        if role == Role::Button && FORBIDDEN_BUTTONS.iter().any(|f| label.starts_with(f)) {
            continue;
        }
        let nth = out
            .iter()
            .filter(|(w, _)| w.role == role && w.label == label)
            .count();
        let bounds = n.min_numeric_value().zip(n.max_numeric_value());
        out.push((WidgetRef { role, label, nth }, bounds));
    }
    out
}

/// The first node labelled `label` that is not a plain text label (`query_by_label` panics
/// when a label shows up twice, as "Goal" does with the goal tool on).
pub(super) fn first<'t>(h: &'t Harness<'_, App>, label: &'t str) -> Option<egui_kittest::Node<'t>> {
    h.query_all_by_label(label)
        .find(|n| n.accesskit_node().role() != Role::Label)
}

pub(super) fn find_widget<'t>(
    h: &'t Harness<'_, App>,
    w: &'t WidgetRef,
) -> Option<egui_kittest::Node<'t>> {
    h.query_all_by_role_and_label(w.role, &w.label).nth(w.nth)
}

/// The plot rectangle of the slope→cost curve, below its heading, if on screen.
pub(super) fn curve_rect(h: &mut Harness<'_, App>) -> Option<Rect> {
    h.query_all_by_label("Slope -> cost").next()?.scroll_to_me();
    h.step();
    h.step();
    let heading = h.query_all_by_label("Slope -> cost").next()?.rect();
    let window = h.ctx.content_rect();
    // The plot is 190 points high, right under the heading, as wide as the panel; keep
    // clear of its axis labels.
    let plot = Rect::from_min_max(
        Pos2::new(heading.left() + 40.0, heading.bottom() + 12.0),
        Pos2::new(window.right() - 30.0, heading.bottom() + 160.0),
    );
    (window.contains_rect(plot) && plot.width() > 40.0).then_some(plot)
}

pub(super) fn at(rect: Rect, f: (f32, f32)) -> Pos2 {
    rect.min + vec2(f.0 * rect.width(), f.1 * rect.height())
}

pub(super) fn frac(rng: &mut Rng) -> (f32, f32) {
    (uniform(rng), uniform(rng))
}

pub(super) fn self_types(h: &Harness<'_, App>) -> Vec<String> {
    h.state()
        .state
        .map
        .as_ref()
        .map(|m| {
            m.document
                .movement_types
                .iter()
                .map(|t| t.name.clone())
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn double_click(h: &mut Harness<'_, App>, p: Pos2) {
    h.hover_at(p);
    h.step();
    for _ in 0..2 {
        button(h, p, PointerButton::Primary, true, Modifiers::NONE);
        button(h, p, PointerButton::Primary, false, Modifiers::NONE);
        h.step();
    }
}

pub(super) fn drag(h: &mut Harness<'_, App>, a: Pos2, b: Pos2) {
    h.hover_at(a);
    h.step();
    button(h, a, PointerButton::Primary, true, Modifiers::NONE);
    h.step();
    for t in [0.3, 0.7, 1.0] {
        h.hover_at(a + (b - a) * t);
        h.step();
    }
    button(h, b, PointerButton::Primary, false, Modifiers::NONE);
    h.step();
}

pub(super) fn curve(h: &mut Harness<'_, App>, rect: Rect, op: CurveOp) {
    match op {
        CurveOp::Insert(a) => double_click(h, at(rect, a)),
        CurveOp::InsertAndDrag(a, b) => {
            double_click(h, at(rect, a));
            h.step();
            drag(h, at(rect, a), at(rect, b));
        }
        CurveOp::Drag(a, b) => drag(h, at(rect, a), at(rect, b)),
        CurveOp::InsertAndRemove(a) => {
            double_click(h, at(rect, a));
            h.step();
            curve(h, rect, CurveOp::Remove(a));
        }
        CurveOp::Remove(a) => {
            let p = at(rect, a);
            h.hover_at(p);
            h.step();
            button(h, p, PointerButton::Secondary, true, Modifiers::NONE);
            button(h, p, PointerButton::Secondary, false, Modifiers::NONE);
        }
    }
}
