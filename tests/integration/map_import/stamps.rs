//! Stamps: footprint rotation, rejected definitions and the built-in stamp library.

use super::*;

fn stamp(rows: &[&str], legend: Vec<(char, u8)>) -> Stamp {
    Stamp {
        id: "s".to_owned(),
        name: "S".to_owned(),
        rows: rows.iter().map(|r| (*r).to_owned()).collect(),
        legend,
    }
}

#[test]
fn stamp_footprint_rotates_clockwise() {
    use StampCell::{Cost as C, Transparent as T, Wall as W};
    // 3 wide, 2 tall:   # 1 2
    //                   . 3 #
    let s = stamp(&["#12", ".3#"], vec![]);
    let f0 = s.footprint(0).unwrap();
    assert_eq!((f0.width, f0.height), (3, 2));
    assert_eq!(f0.cells, vec![W, C(1), C(2), T, C(3), W]);
    // A quarter turn clockwise: the left column, read bottom-up, becomes the top row.
    let f1 = s.footprint(1).unwrap();
    assert_eq!((f1.width, f1.height), (2, 3));
    assert_eq!(f1.cells, vec![T, W, C(3), C(1), W, C(2)]);
    let f2 = s.footprint(2).unwrap();
    assert_eq!((f2.width, f2.height), (3, 2));
    assert_eq!(f2.cells, vec![W, C(3), T, C(2), C(1), W]);
    let f3 = s.footprint(3).unwrap();
    assert_eq!((f3.width, f3.height), (2, 3));
    assert_eq!(f3.cells, vec![C(2), W, C(1), C(3), W, T]);
    assert_eq!(f1.get(0, 2), Some(W));
    assert_eq!(f1.get(2, 0), None);
    assert!(matches!(
        s.footprint(4),
        Err(MapError::BadRotation { rotation: 4, .. })
    ));
}

#[test]
fn bad_stamp_definitions_are_rejected() {
    let bad = [
        stamp(&["##", "#"], vec![]),
        stamp(&["#x"], vec![]),
        stamp(&["s"], vec![('s', 0)]),
        stamp(&["s"], vec![('s', 255)]),
        stamp(&[], vec![]),
        stamp(&[""], vec![]),
        stamp(&["#"], vec![('#', 3)]),
    ];
    for (i, s) in bad.iter().enumerate() {
        let err = s.footprint(0).unwrap_err();
        assert!(matches!(err, MapError::BadStamp { .. }), "case {i}: {err}");
    }
    assert_eq!(
        stamp(&["s#"], vec![('s', 40)]).footprint(0).unwrap().cells,
        vec![StampCell::Cost(40), StampCell::Wall]
    );

    let lib_path = Path::new("custom/stamps.ron");
    let text = r###"(stamps: [(id: "a", name: "A", rows: ["##", "#"])])"###;
    let err = StampLibrary::parse(text, lib_path).unwrap_err();
    assert!(matches!(err, MapError::BadStamp { .. }), "{err}");
    assert!(err.to_string().contains("custom/stamps.ron"), "{err}");
    let dup =
        r###"(stamps: [(id: "a", name: "A", rows: ["#"]), (id: "a", name: "B", rows: ["1"])])"###;
    assert!(matches!(
        StampLibrary::parse(dup, lib_path),
        Err(MapError::BadStamp { .. })
    ));
    let typo = r###"(stamps: [(id: "a", name: "A", rowz: ["#"])])"###;
    assert!(matches!(
        StampLibrary::parse(typo, lib_path),
        Err(MapError::UnknownField { .. })
    ));
}

#[test]
fn builtin_stamp_library_parses_and_has_the_promised_stamps() {
    use StampCell::{Cost, Wall};
    let library = StampLibrary::builtin().unwrap();
    let size = |id: &str| {
        let f = library.get(id).unwrap().footprint(0).unwrap();
        (f.width, f.height, f)
    };
    let (w, h, wall) = size("wall_1x1");
    assert_eq!((w, h, wall.cells), (1, 1, vec![Wall]));
    let (w, h, block) = size("wall_block_3x3");
    assert_eq!((w, h), (3, 3));
    assert!(block.cells.iter().all(|&c| c == Wall));
    let (w, h, tower) = size("tower_2x2");
    assert_eq!((w, h), (2, 2));
    assert!(tower.cells.iter().all(|&c| c == Wall));
    let (w, h, road) = size("road_1x6");
    assert_eq!((w, h), (1, 6));
    assert!(road.cells.iter().all(|&c| c == Cost(1)));
    let (w, h, bridge) = size("bridge_3x8");
    assert_eq!((w, h), (3, 8));
    assert!(bridge.cells.iter().all(|&c| c == Cost(1)));

    // Factory: walls all round except a 2-cell gate; the inside is passable.
    let (w, h, factory) = size("factory_6x4");
    assert_eq!((w, h), (6, 4));
    let border: Vec<(u32, u32)> = (0..w)
        .flat_map(|x| [(x, 0), (x, h - 1)])
        .chain((0..h).flat_map(|y| [(0, y), (w - 1, y)]))
        .collect();
    let mut gaps: Vec<(u32, u32)> = border
        .into_iter()
        .filter(|&(x, y)| factory.get(x, y) != Some(Wall))
        .collect();
    gaps.sort_unstable();
    gaps.dedup();
    assert_eq!(gaps.len(), 2, "{gaps:?}");
    assert!(gaps[0].0.abs_diff(gaps[1].0) + gaps[0].1.abs_diff(gaps[1].1) == 1);
    assert!(matches!(factory.get(2, 1), Some(Cost(c)) if c < 10));
}
