//! The paint layer codec: pixel encoding and bounds-checked get/set.

use super::*;

#[test]
fn paint_pixels_encode_as_specified_and_bad_pixels_are_rejected() {
    let cell = |delta, force| PaintCell { delta, force };
    assert_eq!(cell(40, PaintForce::None).to_rgb(), [40, 0, 0]);
    assert_eq!(cell(-7, PaintForce::Wall).to_rgb(), [0, 7, 255]);
    assert_eq!(cell(0, PaintForce::Clear).to_rgb(), [0, 0, 128]);
    for delta in -254..=254 {
        for force in [PaintForce::None, PaintForce::Wall, PaintForce::Clear] {
            let c = cell(delta, force);
            assert_eq!(PaintCell::from_rgb(c.to_rgb()), Ok(c));
        }
    }
    assert!(PaintCell::from_rgb([1, 1, 0]).is_err());
    assert!(PaintCell::from_rgb([0, 0, 64]).is_err());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.png");
    let mut pixels = vec![0u8; 4 * 3 * 3];
    pixels[(2 * 4 + 3) * 3 + 2] = 77; // (3, 2) has blue 77
    write_rgb8(&path, 4, 3, &pixels);
    let err = PaintLayer::read_png(&path, 4, 3).unwrap_err();
    assert!(
        matches!(err, MapError::PaintPixel { x: 3, y: 2, .. }),
        "{err}"
    );
    pixels[(2 * 4 + 3) * 3 + 2] = 0;
    pixels[3] = 5; // (1, 0): R and G both set
    pixels[4] = 6;
    write_rgb8(&path, 4, 3, &pixels);
    let err = PaintLayer::read_png(&path, 4, 3).unwrap_err();
    assert!(
        matches!(err, MapError::PaintPixel { x: 1, y: 0, .. }),
        "{err}"
    );
    assert_names_file(&err, &path);
    let grey = dir.path().join("g.png");
    write_gray8(&grey, 4, 3, &[0; 12]);
    let err = PaintLayer::read_png(&grey, 4, 3).unwrap_err();
    assert!(
        matches!(err, MapError::UnsupportedPixelFormat { .. }),
        "{err}"
    );
}

#[test]
fn paint_layer_get_set_stay_in_bounds() {
    let mut layer = PaintLayer::new(PaintTarget::All, "p.png", 3, 2);
    assert_eq!(layer.cells.len(), 6);
    let c = PaintCell {
        delta: 5,
        force: PaintForce::Clear,
    };
    assert!(layer.set(3, 2, 1, c));
    assert_eq!(layer.cells[5], c);
    assert_eq!(layer.get(3, 2, 1), Some(c));
    assert!(!layer.set(3, 3, 0, c));
    assert!(!layer.set(3, 0, 2, c));
    assert_eq!(layer.get(3, 3, 0), None);
}
