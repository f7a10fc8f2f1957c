//! Undo restores the document byte-for-byte: random sequences of real editor edits (brush
//! strokes in every mode, stamp placements, movement-type and map-setting edits) applied to
//! the small sample map, then undone one by one, give the original document's RON text and
//! paint layers exactly; redoing them all gives the edited document again.

use std::path::Path;

use navstudio::app::backend;
use navstudio::app::model::commands::Command;
use navstudio::app::state::EditorState;
use navstudio::app::tools::{BrushMode, BrushSettings, Stroke};
use navstudio::map::{MapDocument, PaintTarget, StampPlacement};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Edit {
    Stroke {
        mode: usize,
        target_all: bool,
        from: (f32, f32),
        to: (f32, f32),
        radius: f32,
    },
    Stamp {
        which: usize,
        x: i32,
        y: i32,
        rotation: u8,
    },
    MaxSlope(f32),
    Water(f32),
}

fn edit() -> impl Strategy<Value = Edit> {
    let cell = (0.0f32..96.0, 0.0f32..96.0);
    prop_oneof![
        (0usize..5, any::<bool>(), cell.clone(), cell, 0.5f32..6.0).prop_map(
            |(mode, target_all, from, to, radius)| Edit::Stroke {
                mode,
                target_all,
                from,
                to,
                radius
            }
        ),
        (0usize..4, 0i32..90, 0i32..90, 0u8..4).prop_map(|(which, x, y, rotation)| {
            Edit::Stamp {
                which,
                x,
                y,
                rotation,
            }
        }),
        (5.0f32..80.0).prop_map(Edit::MaxSlope),
        (-5.0f32..20.0).prop_map(Edit::Water),
    ]
}

fn text(doc: &MapDocument) -> String {
    ron::ser::to_string(doc).unwrap()
}

fn apply(state: &mut EditorState, edit: &Edit) {
    let (w, h) = state.map_size();
    let map = state.map.as_mut().unwrap();
    match edit {
        Edit::Stroke {
            mode,
            target_all,
            from,
            to,
            radius,
        } => {
            let settings = BrushSettings {
                mode: [
                    BrushMode::AddCost,
                    BrushMode::RemoveCost,
                    BrushMode::ForceWall,
                    BrushMode::ForceClear,
                    BrushMode::Erase,
                ][*mode],
                radius_cells: *radius,
                ..BrushSettings::default()
            };
            let target = if *target_all {
                PaintTarget::All
            } else {
                PaintTarget::Type("land".to_owned())
            };
            // As the paint tool does: each move a command, the stroke one undo step.
            let mut stroke = Stroke::begin(&map.document, w, h, settings, target);
            for p in [*from, *to] {
                let document = &state.map.as_ref().unwrap().document;
                if let Some(command) = stroke.extend_to(document, p) {
                    state.execute_continuing(command);
                }
            }
            state.end_gesture();
        }
        Edit::Stamp {
            which,
            x,
            y,
            rotation,
        } => {
            let ids = ["wall_block_3x3", "factory_6x4", "tower_2x2", "wall_1x1"];
            state.place_stamp(StampPlacement {
                stamp: ids[*which].to_owned(),
                x: *x,
                y: *y,
                rotation: *rotation,
            });
        }
        Edit::MaxSlope(deg) => {
            let before = map.document.movement_types[0].clone();
            let mut after = before.clone();
            after.max_slope_deg = *deg;
            state.execute(Command::EditMovementType {
                index: 0,
                before,
                after,
            });
        }
        Edit::Water(level) => {
            let before = navstudio::app::model::commands::MapSettings::of(&map.document);
            let mut after = before.clone();
            after.water_level_m = *level;
            state.execute(Command::EditMapSettings { before, after });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn undo_restores_the_document_byte_for_byte(edits in prop::collection::vec(edit(), 1..12)) {
        let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/small.ron");
        let mut state = EditorState::default();
        state.open(backend::load_map(&small).unwrap());
        let original = state.map.as_ref().unwrap().document.clone();
        for e in &edits {
            apply(&mut state, e);
        }
        let edited = state.map.as_ref().unwrap().document.clone();
        let steps = state.history.position();
        prop_assert!(steps == 0 || edited != original, "an edit was recorded but changed nothing");
        for _ in 0..steps {
            state.undo();
        }
        let undone = &state.map.as_ref().unwrap().document;
        prop_assert_eq!(text(undone), text(&original));
        prop_assert!(undone == &original, "paint cells differ after undo");
        prop_assert!(!state.is_modified());
        for _ in 0..steps {
            state.redo();
        }
        let redone = &state.map.as_ref().unwrap().document;
        prop_assert!(redone == &edited, "redo does not give the edited document back");
    }
}
