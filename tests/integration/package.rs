//! The nav package: round trip, determinism, atomic write, and a reader that survives
//! truncation, bit flips and lying headers without panicking.

use crate::common::{Rng, bake_all, generated};
use navstudio::map::MapKind;
use navstudio::package::{self, HEADER_LEN, PackageError, PackageMeta};

fn small_package() -> (navstudio::nav::NavData, Vec<u8>) {
    let baked = bake_all(&generated(MapKind::Small));
    let meta = PackageMeta {
        map_name: "small".into(),
        layer_params: vec!["land".into(), "hover".into(), "large".into()],
        bake_options: vec![("sector_size".into(), "10".into())],
    };
    let bytes = package::to_bytes(&baked.nav, &meta);
    (baked.nav, bytes)
}

/// Rewrites the header checksum so a corrupted payload reaches the section decoders.
fn fix_checksum(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[HEADER_LEN..]);
    bytes[32..36].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn round_trip_is_identity_and_bytes_are_deterministic() {
    let (nav, bytes) = small_package();
    let pkg = package::from_bytes(&bytes).unwrap();
    assert!(
        pkg.nav == nav,
        "read-back NavData differs from the baked one"
    );
    assert_eq!(pkg.manifest.map_name, "small");
    assert_eq!(pkg.manifest.layers.len(), 3);
    // A second, independent bake of the same inputs gives the same bytes.
    let (_, again) = small_package();
    assert!(bytes == again, "repeat bakes differ");
}

#[test]
fn write_is_atomic_and_read_matches() {
    let (nav, _) = small_package();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.navpkg");
    std::fs::write(&path, b"old contents").unwrap();
    package::write(&path, &nav, &PackageMeta::default()).unwrap();
    let pkg = package::read(&path).unwrap();
    assert!(pkg.nav == nav);
    // No temp files left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // Writing into a folder that does not exist fails cleanly and names the file.
    let bad = dir.path().join("missing/x.navpkg");
    let err = package::write(&bad, &nav, &PackageMeta::default()).unwrap_err();
    assert!(err.to_string().contains("x.navpkg"), "{err}");
}

#[test]
fn every_truncation_is_an_error() {
    let (_, bytes) = small_package();
    // Every offset through the header, manifest and section table, then a stride.
    let dense = 4096.min(bytes.len());
    let offsets = (0..dense).chain((dense..bytes.len()).step_by(97));
    for cut in offsets {
        match package::from_bytes(&bytes[..cut]) {
            Err(PackageError::Truncated { .. } | PackageError::BadMagic { .. }) => {}
            other => panic!("cut at {cut}: expected Truncated, got {other:?}"),
        }
    }
}

#[test]
fn flipped_bytes_are_caught_by_the_checksum() {
    let (_, bytes) = small_package();
    let mut rng = Rng(11);
    for _ in 0..300 {
        let mut b = bytes.clone();
        let i = HEADER_LEN + rng.below((b.len() - HEADER_LEN) as u32) as usize;
        b[i] ^= 1 << rng.below(8);
        assert!(matches!(
            package::from_bytes(&b),
            Err(PackageError::Checksum { .. })
        ));
    }
}

/// With the checksum recomputed, corruption reaches every decoder: it must give an error or
/// (rarely, e.g. a flipped padding bit in compressed data) a package, never a panic.
#[test]
fn corrupted_payload_with_valid_checksum_never_panics() {
    let (_, bytes) = small_package();
    let mut rng = Rng(5);
    let mut errors = 0;
    for round in 0..400 {
        let mut b = bytes.clone();
        for _ in 0..1 + round % 4 {
            let i = HEADER_LEN + rng.below((b.len() - HEADER_LEN) as u32) as usize;
            b[i] = rng.below(256) as u8;
        }
        fix_checksum(&mut b);
        if package::from_bytes(&b).is_err() {
            errors += 1;
        }
    }
    assert!(
        errors > 300,
        "only {errors} of 400 corruptions were detected"
    );
}

#[test]
fn header_lies_are_rejected() {
    let (_, bytes) = small_package();
    // Wrong magic.
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(
        package::from_bytes(&b),
        Err(PackageError::BadMagic { .. })
    ));
    // Newer and older versions.
    let mut b = bytes.clone();
    b[8..12].copy_from_slice(&2_u32.to_le_bytes());
    let err = package::from_bytes(&b).unwrap_err();
    assert!(
        matches!(err, PackageError::NewerVersion { found: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("upgrade navstudio"));
    let mut b = bytes.clone();
    b[8..12].copy_from_slice(&0_u32.to_le_bytes());
    assert!(matches!(
        package::from_bytes(&b),
        Err(PackageError::OlderVersion { .. })
    ));
    // A payload length beyond the file.
    let mut b = bytes.clone();
    b[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        package::from_bytes(&b),
        Err(PackageError::Truncated { .. })
    ));
    // A section claiming a gigantic raw size: refused before any allocation.
    let manifest_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let table = HEADER_LEN + manifest_len;
    let mut b = bytes.clone();
    b[table + 8..table + 16].copy_from_slice(&(1_u64 << 40).to_le_bytes());
    fix_checksum(&mut b);
    let err = package::from_bytes(&b).unwrap_err();
    assert!(matches!(err, PackageError::Invalid { .. }), "{err}");
    assert!(err.to_string().contains("more than"), "{err}");
    // A section table whose stored lengths disagree with the bytes present.
    let mut b = bytes.clone();
    b[table + 16] ^= 0x01;
    fix_checksum(&mut b);
    assert!(package::from_bytes(&b).is_err());
    // Random bytes.
    let mut rng = Rng(3);
    for len in [0, 1, 8, 39, 40, 41, 1000] {
        let junk: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        assert!(package::from_bytes(&junk).is_err());
    }
}
