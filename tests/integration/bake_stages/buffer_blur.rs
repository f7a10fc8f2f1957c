//! Stages 5 and 6, wall buffer and wall blur by hand: the gaps the buffer closes, buffers
//! larger than the map, a blur worked out cell by cell.

use super::*;

/// Whether a unit gets from the top row to the bottom row through a wall row with a `gap`
/// cells wide opening, after buffering by `radius` cells.
fn gap_passable(gap: u32, radius: f32) -> bool {
    let (w, h) = (gap + 6, 7);
    let mut mask = vec![false; (w * h) as usize];
    for x in 0..w {
        if x < 3 || x >= 3 + gap {
            mask[(3 * w + x) as usize] = true;
        }
    }
    let sq = squared_distance_to_walls(&mask, w, h);
    let walls = dilate_walls(&mask, &sq, radius);
    let open = |x: u32, y: u32| !walls[(y * w + x) as usize];
    (0..w).filter(|&x| open(x, 0)).any(|start| {
        pathfinding::prelude::bfs(
            &(start, 0u32),
            |&(x, y)| {
                let mut next = Vec::new();
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                    if nx >= 0 && ny >= 0 && nx < i64::from(w) && ny < i64::from(h) {
                        let (nx, ny) = (nx as u32, ny as u32);
                        if open(nx, ny) {
                            next.push((nx, ny));
                        }
                    }
                }
                next
            },
            |&(_, y)| y == h - 1,
        )
        .is_some()
    })
}

#[test]
fn buffer_closes_the_gaps_its_docs_promise() {
    assert!(gap_passable(1, 0.0));
    assert!(gap_passable(1, 0.5));
    assert!(!gap_passable(1, 1.0));
    assert!(gap_passable(2, 0.0));
    assert!(gap_passable(2, 0.5));
    assert!(
        !gap_passable(2, 1.0),
        "a 2-cell gap must close for a 1-cell buffer"
    );
    assert!(gap_passable(3, 1.0));
    assert!(gap_passable(3, 1.5));
    assert!(!gap_passable(3, 2.0));
    assert!(!gap_passable(4, 2.0));
    assert!(gap_passable(5, 2.0));
}

#[test]
fn buffer_larger_than_the_map() {
    let mut mask = vec![false; 12];
    mask[5] = true;
    let sq = squared_distance_to_walls(&mask, 4, 3);
    assert!(dilate_walls(&mask, &sq, 1e6).iter().all(|&w| w));
    let none = vec![false; 12];
    let sq = squared_distance_to_walls(&none, 4, 3);
    assert_eq!(dilate_walls(&none, &sq, 1e6), none);
    assert_eq!(
        dilate_walls(&mask, &[0.0], 3.0),
        mask,
        "mismatched lengths: unchanged"
    );
}

#[test]
fn blur_by_hand() {
    // One wall at (0, 0) of a 4×4 map, radius 3, strength 6.
    let mut mask = vec![false; 16];
    mask[0] = true;
    let sq = squared_distance_to_walls(&mask, 4, 4);
    let b = blur_cost(&sq, 3.0, 6.0);
    // d = 0, 1, 2, 3 | 1, √2, √5, √10 | 2, √5, √8, √13 | 3, ...
    // 6·(1 − d/3): 4, 2, 0 | 3.17→3, 1.53→2, 0 | ...
    #[rustfmt::skip]
    let expected = vec![
        0, 4, 2, 0,
        4, 3, 2, 0,
        2, 2, 0, 0,
        0, 0, 0, 0,
    ];
    assert_eq!(b, expected);
    assert_eq!(blur_cost(&sq, 1.0, 6.0), vec![0; 16]);
    assert_eq!(blur_cost(&sq, 3.0, -2.0), vec![0; 16]);
    assert_eq!(blur_cost(&[f32::INFINITY; 3], 5.0, 6.0), vec![0; 3]);
    // A radius far beyond the map: a shallow gradient, never a wall.
    let far = blur_cost(&sq, 1e6, 300.0);
    assert_eq!(far[0], 0);
    assert!(far[1..].iter().all(|&c| c == 254));
}
