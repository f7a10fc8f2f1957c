//! Stage 1, slope: planes and bumps by hand, the rect variant against the full grid.

use super::*;

#[test]
fn slope_of_a_plane_is_the_same_everywhere_including_edges() {
    // h01 = 3/32·x + 1/8·y; scale 16 m, cell 2 m → gradient (0.75, 1.0), |g| = 1.25.
    let (w, h) = (6, 5);
    let heights: Vec<f32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| 3.0 / 32.0 * x as f32 + 0.125 * y as f32))
        .collect();
    let s = slope_deg(&heights, w, h, 2.0, 16.0);
    let expected = 1.25_f64.atan().to_degrees() as f32; // 51.340 19°
    assert_eq!(s.len(), 30);
    for v in &s {
        assert!((v - expected).abs() < 1e-4, "{v} vs {expected}");
    }
    // Along x only: gradient 1 → 45°.
    let ramp: Vec<f32> = (0..h)
        .flat_map(|_| (0..w).map(|x| x as f32 / 16.0))
        .collect();
    for v in slope_deg(&ramp, w, h, 1.0, 16.0) {
        assert!((v - 45.0).abs() < 1e-4);
    }
    // A 1-wide map has no x gradient; the y gradient still counts.
    let column: Vec<f32> = (0..7).map(|y| y as f32 / 16.0).collect();
    for v in slope_deg(&column, 1, 7, 1.0, 16.0) {
        assert!((v - 45.0).abs() < 1e-4);
    }
    assert_eq!(slope_deg(&[0.3], 1, 1, 1.0, 100.0), vec![0.0]);
}

#[test]
fn slope_of_a_bump_uses_central_and_one_sided_differences() {
    let heights = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    let s = slope_deg(&heights, 3, 3, 1.0, 2.0);
    let steep = 2.0_f64.atan().to_degrees() as f32; // one-sided: (1 - 0) · 2 m / 1 m
    let expected = [0.0, steep, 0.0, steep, 0.0, steep, 0.0, steep, 0.0];
    for (v, e) in s.iter().zip(expected) {
        assert!((v - e).abs() < 1e-4, "{s:?}");
    }
}

#[test]
fn slope_rect_matches_the_full_grid_and_bad_input_is_a_cliff() {
    let mut rng = Rng::new(7);
    let (w, h) = (13, 9);
    let heights: Vec<f32> = (0..w * h).map(|_| rng.next_f32()).collect();
    let full = slope_deg(&heights, w, h, 1.5, 7.0);
    let rect = CellRect {
        x0: 3,
        y0: 0,
        x1: 20,
        y1: 4,
    };
    let part = slope_deg_rect(&heights, w, h, 1.5, 7.0, rect);
    let clipped = rect.clip(w, h);
    assert_eq!(part.len(), (clipped.width() * clipped.height()) as usize);
    for y in clipped.y0..clipped.y1 {
        for x in clipped.x0..clipped.x1 {
            let i = ((y - clipped.y0) * clipped.width() + x - clipped.x0) as usize;
            assert_eq!(part[i], full[(y * w + x) as usize]);
        }
    }
    assert!(
        slope_deg(&heights, w, h, 0.0, 7.0)
            .iter()
            .all(|&v| v == 90.0)
    );
    assert!(
        slope_deg(&heights, w, h, f32::NAN, 7.0)
            .iter()
            .all(|&v| v == 90.0)
    );
    assert_eq!(
        slope_deg(&heights, w + 1, h, 1.0, 7.0).len(),
        ((w + 1) * h) as usize
    );
    let mut holes = vec![0.5; 9];
    holes[4] = f32::NAN;
    let s = slope_deg(&holes, 3, 3, 1.0, 1.0);
    assert_eq!(s[1], 90.0);
    assert_eq!(s[0], 0.0);
    assert!(slope_deg(&[], 0, 0, 1.0, 1.0).is_empty());
    assert!(slope_deg(&[], 0, 4, 1.0, 1.0).is_empty());
}
