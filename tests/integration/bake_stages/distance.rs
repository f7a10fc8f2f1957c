//! Stage 4, distance to walls, and the stages read from it (buffer dilation, blur), against
//! the brute-force oracles.

use super::*;

#[test]
fn distance_matches_brute_force_on_awkward_sizes() {
    let mut rng = Rng::new(42);
    let sizes = [
        (1, 1),
        (1, 17),
        (17, 1),
        (3, 40),
        (40, 3),
        (128, 2),
        (129, 3),
        (2, 129),
        (300, 4),
        (257, 9),
        (5, 300),
        (70, 193),
    ];
    for (w, h) in sizes {
        for density in [0.0, 0.01, 0.1, 0.5, 1.0] {
            let mask = random_mask(&mut rng, w, h, density);
            assert_eq!(
                squared_distance_to_walls(&mask, w, h),
                brute_sqdist(&mask, w, h),
                "{w}×{h} density {density}"
            );
            // The capped passes in bands of rows (64 tall, or eight reaches for wide radii,
            // each reading the walls a radius above and below it) and along long rows.
            for radius in [1.0, 2.5, 6.0, 12.0] {
                assert_eq!(
                    buffer_walls(&mask, w, h, radius),
                    brute_dilate(&mask, w, h, radius),
                    "{w}×{h} density {density} buffer {radius}"
                );
                assert_eq!(
                    blur_walls(&mask, w, h, radius, 40.0),
                    brute_blur(&mask, w, h, radius, 40.0),
                    "{w}×{h} density {density} blur {radius}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn distance_is_exact(w in 1u32..24, h in 1u32..24, seed: u64, density in 0.0f64..0.4) {
        let mask = random_mask(&mut Rng::new(seed), w, h, density);
        prop_assert_eq!(squared_distance_to_walls(&mask, w, h), brute_sqdist(&mask, w, h));
    }

    #[test]
    fn dilation_matches_a_disc_scan(
        w in 1u32..20, h in 1u32..20, seed: u64, density in 0.0f64..0.2,
        radius in prop::sample::select(vec![0.0f32, 0.5, 0.7, 1.0, 1.2, 1.5, 2.0, 2.3, 3.5, 100.0]),
    ) {
        let mask = random_mask(&mut Rng::new(seed), w, h, density);
        let sq = squared_distance_to_walls(&mask, w, h);
        let expected = brute_dilate(&mask, w, h, radius);
        prop_assert_eq!(dilate_walls(&mask, &sq, radius), expected.clone());
        // The bake's single pass, with its distances capped past the buffer.
        prop_assert_eq!(buffer_walls(&mask, w, h, radius), expected);
    }

    #[test]
    fn blur_matches_brute_force(
        w in 1u32..20, h in 1u32..20, seed: u64, density in 0.0f64..0.2,
        radius in prop::sample::select(vec![0.0f32, 1.0, 1.5, 2.0, 3.0, 4.7, 50.0]),
        strength in prop::sample::select(vec![0.0f32, 1.0, 6.0, 100.0, 400.0]),
    ) {
        let mask = random_mask(&mut Rng::new(seed), w, h, density);
        let sq = squared_distance_to_walls(&mask, w, h);
        let expected = brute_blur(&mask, w, h, radius, strength);
        prop_assert_eq!(blur_cost(&sq, radius, strength), expected.clone());
        prop_assert_eq!(blur_walls(&mask, w, h, radius, strength), expected);
    }
}

#[test]
fn distance_without_walls_is_infinite() {
    assert!(
        squared_distance_to_walls(&[false; 35], 5, 7)
            .iter()
            .all(|d| *d == f32::INFINITY)
    );
    assert!(squared_distance_to_walls(&[], 0, 0).is_empty());
}
