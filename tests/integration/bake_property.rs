//! Property tests of the bake's two promises to the game and the editor:
//! * the nav package round trip is the identity: reading the bytes of any bake gives the
//!   same navigation data and manifest, and writing that again gives the same bytes;
//! * the incremental rebake the editor runs after each edit (`bake::rebake_rect`) writes the
//!   same package, byte for byte, as a full bake of the edited document, after any random
//!   sequence of paint dabs (add / remove cost, force wall, force clear, erase; on the
//!   shared and the per-type layers) and stamp placements and removals.
//!
//! Maps are small generated maps (random seed and size, roughened heights, no-data holes)
//! so each case bakes in milliseconds.

use crate::common::Rng;
use navstudio::bake::{self, BakeContext, BakeOptions, Baked, CellRect};
use navstudio::map::{
    self, GenerateSpec, Heightmap, MapDocument, MapKind, PaintCell, PaintForce, PaintLayer,
    PaintTarget, StampLibrary, StampPlacement,
};
use navstudio::package;
use proptest::prelude::*;

/// A random small map: the small sample map's layout at a random size and seed, heights
/// roughened by random noise (so slope walls appear anywhere), a few no-data cells.
fn random_map(
    seed: u64,
    width: u32,
    height: u32,
    rough: u16,
    holes: u32,
) -> (MapDocument, Heightmap) {
    let spec = GenerateSpec {
        kind: MapKind::Small,
        width,
        height,
        seed,
    };
    let g = map::generate(&spec);
    let mut rng = Rng::new(seed ^ 0x5EED);
    let heights: Vec<u16> = g
        .heights
        .iter()
        .map(|&h| {
            let noise = rng.below(u32::from(rough) + 1) as u16;
            h.saturating_add(noise)
        })
        .collect();
    let mut heightmap = map::heightmap_from_u16(width, height, &heights);
    if holes > 0 {
        heightmap.blocked = vec![false; (width * height) as usize];
        for _ in 0..holes {
            let i = rng.below(width * height) as usize;
            heightmap.blocked[i] = true;
        }
    }
    (g.document, heightmap)
}

fn full_bake(doc: &MapDocument, heightmap: &Heightmap, types: &Option<Vec<String>>) -> Baked {
    bake::bake(
        doc,
        heightmap,
        &StampLibrary::builtin().unwrap(),
        &BakeOptions {
            types: types.clone(),
            ..BakeOptions::default()
        },
        &mut BakeContext::default(),
    )
    .unwrap()
}

fn package_bytes(doc: &MapDocument, baked: &Baked) -> Vec<u8> {
    package::to_bytes(&baked.nav, &bake::package_meta(doc, &baked.type_indices))
}

/// Which of the movement types to bake (`None`: all of them).
fn type_subset(mask: u8) -> Option<Vec<String>> {
    let names = ["land", "hover", "large"];
    let chosen: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, n)| (*n).to_owned())
        .collect();
    (!chosen.is_empty() && chosen.len() < names.len()).then_some(chosen)
}

const STAMPS: [&str; 6] = [
    "wall_1x1",
    "wall_block_3x3",
    "factory_6x4",
    "bridge_3x8",
    "tower_2x2",
    "road_1x6",
];

const TARGETS: [&str; 4] = ["all", "land", "hover", "large"];

/// One editor edit. Positions are fractions of the map size (`0..=1000` ‰) so every map
/// size gets edits all over it, edges included.
#[derive(Clone, Debug)]
enum Edit {
    /// A square dab of the brush in `mode` (0 add cost, 1 remove cost, 2 force wall,
    /// 3 force clear, 4 erase) on the paint layer of `target`.
    Dab {
        target: usize,
        mode: u8,
        x: u16,
        y: u16,
        radius: u32,
        strength: i16,
    },
    /// A stamp placed, its top-left corner up to 4 cells off the map.
    Place {
        stamp: usize,
        x: u16,
        y: u16,
        rotation: u8,
    },
    /// The `index % count`-th placed stamp removed (nothing if none).
    Remove { index: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0usize..4, 0u8..5, 0u16..=1000, 0u16..=1000, 0u32..5, 1i16..=254).prop_map(
            |(target, mode, x, y, radius, strength)| Edit::Dab {
                target,
                mode,
                x,
                y,
                radius,
                strength
            }
        ),
        1 => (0usize..STAMPS.len(), 0u16..=1000, 0u16..=1000, 0u8..4).prop_map(
            |(stamp, x, y, rotation)| Edit::Place {
                stamp,
                x,
                y,
                rotation
            }
        ),
        1 => any::<usize>().prop_map(|index| Edit::Remove { index }),
    ]
}

/// The cell a per-mille position lands on, shifted by `off` (may leave the map).
fn at(permille: u16, size: u32, off: i32) -> i32 {
    (i64::from(permille) * i64::from(size) / 1000) as i32 - off
}

/// The rectangle a footprint covers on the map, clipped.
fn footprint_rect(fp: &bake::paint::PlacedFootprint, w: u32, h: u32) -> CellRect {
    CellRect {
        x0: fp.x.clamp(0, w as i32) as u32,
        y0: fp.y.clamp(0, h as i32) as u32,
        x1: (fp.x + fp.width as i32).clamp(0, w as i32) as u32,
        y1: (fp.y + fp.height as i32).clamp(0, h as i32) as u32,
    }
}

/// Applies `edit` to the document and returns the rectangle it changed, as the editor's
/// commands report it to the rebake.
fn apply(doc: &mut MapDocument, edit: &Edit, w: u32, h: u32, stamps: &StampLibrary) -> CellRect {
    match *edit {
        Edit::Dab {
            target,
            mode,
            x,
            y,
            radius,
            strength,
        } => {
            let target = match TARGETS[target] {
                "all" => PaintTarget::All,
                name => PaintTarget::Type(name.to_owned()),
            };
            let layer = match doc.paint.iter().position(|l| l.target == target) {
                Some(i) => i,
                None => {
                    let file = doc.unused_paint_file(&target);
                    doc.paint.push(PaintLayer::new(target, &file, w, h));
                    doc.paint.len() - 1
                }
            };
            let layer = &mut doc.paint[layer];
            let (cx, cy) = (at(x, w, 0).min(w as i32 - 1), at(y, h, 0).min(h as i32 - 1));
            let r = radius as i32;
            let (x0, y0) = ((cx - r).max(0), (cy - r).max(0));
            let (x1, y1) = ((cx + r + 1).min(w as i32), (cy + r + 1).min(h as i32));
            for py in y0..y1 {
                for px in x0..x1 {
                    let (px, py) = (px as u32, py as u32);
                    let old = layer.get(w, px, py).unwrap_or_default();
                    // Cost modes fall off towards the dab's edge, like the brush.
                    let fall = 1 + (px as i32 - cx).abs().max((py as i32 - cy).abs());
                    let step = (i32::from(strength) / fall) as i16;
                    let new = match mode {
                        0 => PaintCell {
                            delta: old.delta.saturating_add(step).clamp(-254, 254),
                            force: old.force,
                        },
                        1 => PaintCell {
                            delta: old.delta.saturating_sub(step).clamp(-254, 254),
                            force: old.force,
                        },
                        2 => PaintCell {
                            delta: old.delta,
                            force: PaintForce::Wall,
                        },
                        3 => PaintCell {
                            delta: old.delta,
                            force: PaintForce::Clear,
                        },
                        _ => PaintCell::default(),
                    };
                    layer.set(w, px, py, new);
                }
            }
            CellRect {
                x0: x0 as u32,
                y0: y0 as u32,
                x1: x1 as u32,
                y1: y1 as u32,
            }
        }
        Edit::Place {
            stamp,
            x,
            y,
            rotation,
        } => {
            doc.stamps.push(StampPlacement {
                stamp: STAMPS[stamp].to_owned(),
                x: at(x, w, 4),
                y: at(y, h, 4),
                rotation,
            });
            let fp = bake::place_footprints(doc, stamps).unwrap().pop().unwrap();
            footprint_rect(&fp, w, h)
        }
        Edit::Remove { index } => {
            if doc.stamps.is_empty() {
                return CellRect {
                    x0: 0,
                    y0: 0,
                    x1: 0,
                    y1: 0,
                };
            }
            let index = index % doc.stamps.len();
            let fp = bake::place_footprints(doc, stamps)
                .unwrap()
                .swap_remove(index);
            doc.stamps.remove(index);
            footprint_rect(&fp, w, h)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Reading a package gives back exactly what was baked, and writing it again gives the
    /// same bytes.
    #[test]
    fn package_round_trip_is_identity(
        seed in any::<u64>(),
        width in 12u32..56,
        height in 12u32..56,
        rough in prop_oneof![Just(0u16), 0u16..4000],
        holes in 0u32..20,
        mask in 0u8..8,
        edits in proptest::collection::vec(edit(), 0..6),
    ) {
        let (mut doc, heightmap) = random_map(seed, width, height, rough, holes);
        let stamps = StampLibrary::builtin().unwrap();
        for e in &edits {
            apply(&mut doc, e, width, height, &stamps);
        }
        let types = type_subset(mask);
        let baked = full_bake(&doc, &heightmap, &types);
        let meta = bake::package_meta(&doc, &baked.type_indices);
        let bytes = package::to_bytes(&baked.nav, &meta);

        let pkg = package::from_bytes(&bytes).unwrap();
        prop_assert!(pkg.nav == *baked.nav, "read-back NavData differs from the bake");
        // The manifest as read is the one built from the data, plus the chunk index.
        let mut without_index = pkg.manifest.clone();
        without_index.chunks.clear();
        prop_assert_eq!(&without_index, &package::manifest_for(&baked.nav, &meta));
        prop_assert_eq!((pkg.manifest.width, pkg.manifest.height), (width, height));
        let again = package::to_bytes(&pkg.nav, &meta);
        prop_assert!(again == bytes, "re-encoding the read package changed its bytes");
    }

    /// After every edit of a random sequence, the incremental rebake of the edit's rectangle
    /// writes the same package bytes (and the same cost grids) as a full bake.
    #[test]
    fn incremental_rebake_equals_full_bake(
        seed in any::<u64>(),
        width in 16u32..48,
        height in 16u32..48,
        rough in prop_oneof![Just(0u16), 0u16..3000],
        mask in 0u8..8,
        edits in proptest::collection::vec(edit(), 1..8),
    ) {
        let (mut doc, heightmap) = random_map(seed, width, height, rough, 0);
        let stamps = StampLibrary::builtin().unwrap();
        let types = type_subset(mask);
        let mut baked = full_bake(&doc, &heightmap, &types);
        for (step, e) in edits.iter().enumerate() {
            let dirty = apply(&mut doc, e, width, height, &stamps);
            bake::rebake_rect(&doc, &heightmap, &stamps, &mut baked, dirty, &mut BakeContext::default())
                .unwrap();
            let full = full_bake(&doc, &heightmap, &types);
            prop_assert!(
                baked.cost_layers == full.cost_layers,
                "cost grids differ after edit {} ({:?})", step, e
            );
            prop_assert!(
                package_bytes(&doc, &baked) == package_bytes(&doc, &full),
                "package bytes differ after edit {} ({:?})", step, e
            );
        }
    }
}
