//! The nav package: round trip, determinism, atomic write, chunking by region, version 1
//! still read, and a reader that survives truncation, bit flips and lying headers and
//! indexes without panicking.

use crate::common::{self, Rng, bake_all, generated};
use navstudio::map::MapKind;
use navstudio::package::{self, HEADER_LEN, PackageError, PackageMeta};

fn small_package() -> (navstudio::nav::NavData, Vec<u8>) {
    let baked = bake_all(&generated(MapKind::Small));
    let meta = PackageMeta {
        map_name: "small".into(),
        layer_params: vec!["land".into(), "hover".into(), "large".into()],
        bake_options: vec![("sector_size".into(), "10".into())],
        hierarchy: None,
        links: Vec::new(),
    };
    let bytes = package::to_bytes(&baked.nav, &meta);
    (std::sync::Arc::unwrap_or_clone(baked.nav), bytes)
}

/// A version 2 package taken apart: its manifest as JSON and its chunks' stored bytes.
fn split(bytes: &[u8]) -> (serde_json::Value, Vec<Vec<u8>>) {
    let manifest = common::manifest_json(bytes);
    let chunks = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let at = c["offset"].as_u64().unwrap() as usize;
            bytes[at..at + c["stored_len"].as_u64().unwrap() as usize].to_vec()
        })
        .collect();
    (manifest, chunks)
}

/// Puts a package back together with valid checksums and offsets (as the writer does:
/// offsets shifted until the manifest's length settles), so a corruption reaches the
/// decoders instead of stopping at a checksum.
pub(crate) fn join(mut manifest: serde_json::Value, chunks: &[Vec<u8>]) -> Vec<u8> {
    let mut start = HEADER_LEN;
    loop {
        let mut offset = start;
        for (c, stored) in manifest["chunks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .zip(chunks)
        {
            c["offset"] = offset.into();
            c["stored_len"] = stored.len().into();
            c["crc32"] = crc32fast::hash(stored).into();
            offset += stored.len();
        }
        let text = serde_json::to_vec(&manifest).unwrap();
        if HEADER_LEN + text.len() == start {
            let mut out = b"NAVSTPKG".to_vec();
            out.extend_from_slice(&2_u32.to_le_bytes());
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(&crc32fast::hash(&text).to_le_bytes());
            out.extend_from_slice(&0_u32.to_le_bytes());
            out.extend_from_slice(&text);
            chunks.iter().for_each(|c| out.extend_from_slice(c));
            return out;
        }
        start = HEADER_LEN + text.len();
    }
}

/// A map of many regions (sectors of 3 cells, so 34 × 24 sectors make 3 × 2 regions, the
/// last ones partial) with random walls and costs, two movement types.
fn regional_nav() -> navstudio::nav::NavData {
    use navstudio::nav::{CostField, GridSpec, NavData, build_layer};
    let spec = GridSpec {
        width: 100,
        height: 70,
        sector_size: 3,
    };
    let mut rng = Rng::new(17);
    let layers = ["land", "hover"]
        .iter()
        .map(|name| {
            let costs: Vec<u8> = (0..spec.cell_count())
                .map(|_| match rng.below(10) {
                    0 | 1 => 255,
                    2 => 1 + rng.below(40) as u8,
                    _ => 1,
                })
                .collect();
            build_layer(
                name,
                CostField::from_cells(spec, &costs),
                &|_| {},
                &std::sync::atomic::AtomicBool::new(false),
            )
            .unwrap()
        })
        .collect();
    NavData::new(spec, 0.5, layers)
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
    let len = package::write(&path, &nav, &PackageMeta::default()).unwrap();
    // Written chunk by chunk, the file is the package encoded in memory.
    let bytes = package::to_bytes(&nav, &PackageMeta::default());
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(len, bytes.len());
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
    let mut rng = Rng::new(11);
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

/// With the checksums recomputed, corruption reaches every decoder: it must give an error
/// or (rarely, e.g. a flipped padding bit in compressed data) a package, never a panic.
#[test]
fn corrupted_chunks_with_valid_checksums_never_panic() {
    let bytes = package::to_bytes(&regional_nav(), &PackageMeta::default());
    let (manifest, chunks) = split(&bytes);
    let mut rng = Rng::new(5);
    let mut errors = 0;
    for round in 0..400 {
        let mut c = chunks.clone();
        let k = rng.below(c.len() as u32) as usize;
        for _ in 0..1 + round % 4 {
            if !c[k].is_empty() {
                let i = rng.below(c[k].len() as u32) as usize;
                c[k][i] = rng.below(256) as u8;
            }
        }
        if package::from_bytes(&join(manifest.clone(), &c)).is_err() {
            errors += 1;
        }
    }
    assert!(
        errors > 300,
        "only {errors} of 400 corruptions were detected"
    );
}

/// The links chunk decompressed, damaged and recompressed (so the damage reaches its
/// decoder, not only the checksum): a typed error or links that check out, never a panic.
#[test]
fn damaged_links_chunks_never_panic() {
    use navstudio::nav::links::{LinkKind, NavLink};
    let nav = regional_nav();
    let mut ferry = NavLink::walk(4, (1, 1), (60, 40));
    ferry.kind = LinkKind::Ride {
        capacity: 10,
        period_s: 30.0,
    };
    let mut drop = NavLink::walk(9, (70, 3), (2, 50));
    drop.kind = LinkKind::Drop;
    drop.two_way = false;
    let links = vec![ferry, drop];
    let meta = PackageMeta {
        links: links.clone(),
        ..PackageMeta::default()
    };
    let bytes = package::to_bytes(&nav, &meta);
    let pkg = package::from_bytes(&bytes).unwrap();
    assert_eq!(pkg.links, links);
    assert_eq!(pkg.version, 3);
    let (manifest, chunks) = split(&bytes);
    let k = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["kind"] == "links")
        .unwrap();
    let raw = zstd::decode_all(&chunks[k][..]).unwrap();
    let mut rng = Rng::new(47);
    let (mut errors, mut read) = (0, 0);
    for round in 0..600 {
        let mut r = raw.clone();
        match round % 3 {
            0 => r.truncate(rng.below(r.len() as u32) as usize),
            1 => {
                let i = rng.below(r.len() as u32) as usize;
                r[i] = rng.below(256) as u8;
            }
            _ => r.extend(std::iter::repeat_n(0, 1 + rng.below(60) as usize)),
        }
        let mut c = chunks.clone();
        c[k] = zstd::encode_all(&r[..], 3).unwrap();
        let mut m = manifest.clone();
        m["chunks"][k]["raw_len"] = r.len().into();
        match package::from_bytes(&join(m, &c)) {
            Err(PackageError::Invalid { what, .. }) => {
                assert!(what.contains("link"), "{what}");
                errors += 1;
            }
            Err(e) => panic!("round {round}: {e}"),
            Ok(p) => {
                read += 1;
                let spec = p.nav.spec;
                navstudio::nav::links::validate_links(&p.links, spec.width, spec.height).unwrap();
            }
        }
    }
    assert!(errors > 300, "{errors} errors, {read} read");
    // A package that requires a kind this build does not know is refused.
    let (mut m, c) = split(&bytes);
    m["requires"] = serde_json::json!(["links", "levels_v9"]);
    let err = package::from_bytes(&join(m, &c)).unwrap_err();
    assert!(err.to_string().contains("levels_v9"), "{err}");
}

#[test]
fn many_regions_round_trip_and_chunk_as_documented() {
    let nav = regional_nav();
    let bytes = package::to_bytes(&nav, &PackageMeta::default());
    let pkg = package::from_bytes(&bytes).unwrap();
    assert!(pkg.nav == nav, "read-back NavData differs");
    assert_eq!(pkg.version, 2);
    // 2 layers × 4 global chunks (3 and the landmark tables) + 6 regions × 2 layers × 3
    // regional chunks, in file order: globals first, then region by region.
    let kinds: Vec<(u32, &str, Option<u32>)> = pkg
        .manifest
        .chunks
        .iter()
        .map(|c| (c.layer, c.kind.as_str(), c.region))
        .collect();
    assert_eq!(kinds.len(), 2 * 4 + 6 * 2 * 3);
    assert_eq!(kinds[0], (0, "windows", None));
    assert_eq!(kinds[3], (0, "alt_landmarks", None));
    assert_eq!(kinds[6], (1, "sector_islands", None));
    assert_eq!(kinds[7], (1, "alt_landmarks", None));
    assert_eq!(kinds[8], (0, "cost", Some(0)));
    assert_eq!(kinds[13], (1, "flows", Some(0)));
    assert_eq!(kinds.last().unwrap(), &(1, "flows", Some(5)));
}

#[test]
fn version_1_packages_still_read() {
    // Baked from maps/small.ron by the last build that wrote version 1.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/small.v1.navpkg");
    let old = package::read(&path).unwrap();
    assert_eq!(old.version, 1);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = navstudio::map::load_map(&root.join("maps/small.ron")).unwrap();
    let nav = navstudio::bake::bake(
        &map.document,
        &map.heightmap,
        &navstudio::map::StampLibrary::builtin().unwrap(),
        &navstudio::bake::BakeOptions::default(),
        &mut navstudio::bake::BakeContext::default(),
    )
    .unwrap()
    .nav;
    // The integrator has changed since (a 4-neighbour flood then, fast marching now), so the
    // flow tiles and in-sector weights differ from a fresh bake; everything else is the same.
    assert_eq!(
        (old.nav.spec, old.nav.cell_size_m),
        (nav.spec, nav.cell_size_m)
    );
    assert_eq!(old.nav.layers.len(), nav.layers.len());
    for (a, b) in old.nav.layers.iter().zip(&nav.layers) {
        assert_eq!(a.name, b.name);
        assert!(a.cost == b.cost, "{}: cost fields differ", a.name);
        assert!(
            a.windows == b.windows && a.nodes == b.nodes,
            "{}: portals differ",
            a.name
        );
        assert!(a.islands == b.islands, "{}: islands differ", a.name);
        assert_eq!(
            a.graph.offsets, b.graph.offsets,
            "{}: graph edges differ",
            a.name
        );
        assert_eq!(
            a.graph.targets, b.graph.targets,
            "{}: graph edges differ",
            a.name
        );
        assert_eq!(a.flows.node_tile.len(), b.flows.node_tile.len());
    }
    assert_eq!(old.manifest.map_name, "small");
    assert!(
        old.manifest.layers[0]
            .params
            .as_str()
            .is_some_and(|ron| ron.starts_with("(name:\"land\"")),
        "{:?}",
        old.manifest.layers[0].params
    );
    // Written again, it is a version 2 package of the same data.
    let again = package::from_bytes(&package::to_bytes(&old.nav, &PackageMeta::default())).unwrap();
    assert_eq!(again.version, 2);
    assert!(again.nav == old.nav);
}

#[test]
fn a_damaged_chunk_is_named() {
    let bytes = package::to_bytes(&regional_nav(), &PackageMeta::default());
    let (manifest, _) = split(&bytes);
    let flows = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "flows" && c["region"] == 4 && c["layer"] == 1)
        .unwrap();
    let mut b = bytes.clone();
    b[flows["offset"].as_u64().unwrap() as usize + 3] ^= 0x40;
    let err = package::from_bytes(&b).unwrap_err();
    assert!(matches!(err, PackageError::Checksum { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("flows chunk of movement type hover, region 4"),
        "{err}"
    );
}

#[test]
fn unknown_chunk_kinds_are_skipped() {
    // A later build may add chunks (road-network shortcuts, say); this one reads what it
    // knows.
    let nav = regional_nav();
    let (mut manifest, mut chunks) = split(&package::to_bytes(&nav, &PackageMeta::default()));
    manifest["chunks"].as_array_mut().unwrap().insert(
        3,
        serde_json::json!({"layer": 0, "kind": "road_shortcuts", "offset": 0,
            "stored_len": 0, "raw_len": 5, "crc32": 0}),
    );
    chunks.insert(3, b"extra".to_vec());
    let pkg = package::from_bytes(&join(manifest, &chunks)).unwrap();
    assert!(pkg.nav == nav);
}

#[test]
fn header_and_index_lies_are_rejected() {
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
    b[8..12].copy_from_slice(&4_u32.to_le_bytes());
    let err = package::from_bytes(&b).unwrap_err();
    assert!(
        matches!(err, PackageError::NewerVersion { found: 4, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("upgrade navstudio"));
    let mut b = bytes.clone();
    b[8..12].copy_from_slice(&0_u32.to_le_bytes());
    assert!(matches!(
        package::from_bytes(&b),
        Err(PackageError::OlderVersion { .. })
    ));
    // A manifest length beyond the file.
    let mut b = bytes.clone();
    b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        package::from_bytes(&b),
        Err(PackageError::Truncated { .. })
    ));
    let (manifest, chunks) = split(&bytes);
    let lie = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut m = manifest.clone();
        edit(&mut m);
        package::from_bytes(&join(m, &chunks)).unwrap_err()
    };
    // A chunk claiming a gigantic raw size: refused before any allocation.
    let err = lie(&|m| m["chunks"][6]["raw_len"] = (1_u64 << 40).into());
    assert!(matches!(err, PackageError::Invalid { .. }), "{err}");
    assert!(err.to_string().contains("more than"), "{err}");
    // A map bigger than the build accepts, and a region size of zero.
    let err = lie(&|m| m["width"] = 1_000_000.into());
    assert!(err.to_string().contains("out of range"), "{err}");
    let err = lie(&|m| m["region_sectors"] = 0.into());
    assert!(err.to_string().contains("region size"), "{err}");
    // A chunk that names a region or movement type that does not exist, twice, or not at all.
    let err = lie(&|m| m["chunks"][6]["region"] = 7.into());
    assert!(err.to_string().contains("do not exist"), "{err}");
    let err = lie(&|m| m["chunks"][1]["kind"] = "windows".into());
    assert!(err.to_string().contains("twice"), "{err}");
    let err = lie(&|m| m["chunks"][1]["kind"] = "future_kind".into());
    assert!(
        err.to_string()
            .contains("graph chunk of movement type land is missing"),
        "{err}"
    );
    // Not JSON.
    let mut b = b"NAVSTPKG\x02\0\0\0\x03\0\0\0".to_vec();
    b.extend_from_slice(&crc32fast::hash(b"[1]").to_le_bytes());
    b.extend_from_slice(b"\0\0\0\0[1]");
    let err = package::from_bytes(&b).unwrap_err();
    assert!(err.to_string().contains("not readable JSON"), "{err}");
    // Offsets that disagree with the chunks' lengths.
    let mut b = bytes.clone();
    b.push(0);
    let err = package::from_bytes(&b).unwrap_err();
    assert!(err.to_string().contains("follow the last chunk"), "{err}");
    // Random bytes.
    let mut rng = Rng::new(3);
    for len in [0, 1, 8, 23, 24, 25, 1000] {
        let junk: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        assert!(package::from_bytes(&junk).is_err());
    }
}

/// The second, independent reader (`tools/navpkg.py`, written from docs/package-format.md
/// with Python's standard library and `zstandard`) must agree with navstudio on every count,
/// cost cell and island id of the sample packages, and refuse a damaged one. Skipped with a
/// note when Python or `zstandard` is missing, unless `NAVSTUDIO_REQUIRE_PYTHON=1` (CI).
#[test]
fn the_python_reader_agrees() {
    use std::process::Command;
    // CI names the interpreter that has zstandard (a pyenv `python3` may not).
    let python = std::env::var("NAVSTUDIO_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_python = Command::new(&python)
        .args(["-c", "import zstandard"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        assert!(
            std::env::var("NAVSTUDIO_REQUIRE_PYTHON").is_err(),
            "python3 with zstandard is required (NAVSTUDIO_REQUIRE_PYTHON is set)"
        );
        eprintln!("skipped: python3 with the zstandard package is not installed");
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_navstudio");
    let dir = tempfile::tempdir().unwrap();
    let reader = root.join("tools/navpkg.py");
    for map in ["small", "showcase"] {
        let pkg = dir.path().join(format!("{map}.navpkg"));
        let out = Command::new(bin)
            .args(["bake", &format!("maps/{map}.ron"), "-o"])
            .arg(&pkg)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&python)
            .arg(&reader)
            .arg(&pkg)
            .args(["--check", bin])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("agree"),
            "{map}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A damaged chunk: the Python reader refuses it too.
        let mut bytes = std::fs::read(&pkg).unwrap();
        let last = bytes.len() - 5;
        bytes[last] ^= 0x21;
        std::fs::write(&pkg, &bytes).unwrap();
        let out = Command::new(&python)
            .arg(&reader)
            .arg(&pkg)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{map}: the damaged package read");
        assert!(String::from_utf8_lossy(&out.stderr).contains("corrupted"));
    }
}

/// A world opened with the landmark tables a package stores answers exactly as one that
/// builds them; a package without them (version 2 written before they existed, or version
/// 1) still opens; and a table that does not fit its graph is refused by name.
#[test]
fn stored_landmark_tables_answer_as_built_ones() {
    use navstudio::nav::NavWorld;
    let (nav, bytes) = small_package();
    let pkg = package::from_bytes(&bytes).unwrap();
    assert_eq!(pkg.landmarks.len(), nav.layers.len());
    // That they decode to a fresh build's tables is checked inside the crate
    // (world::kept_tests).
    assert!(
        pkg.landmarks.iter().all(Option::is_some),
        "every type has portal nodes, so tables"
    );
    let mut opened = NavWorld::from_package(pkg);
    let mut built = NavWorld::from_nav(nav.clone());
    let mut rng = Rng::new(3);
    let (w, h) = (nav.spec.width, nav.spec.height);
    let mut traced = 0;
    for _ in 0..80 {
        let layer = rng.below(nav.layers.len() as u32) as usize;
        let (a, b) = ((rng.below(w), rng.below(h)), (rng.below(w), rng.below(h)));
        match (
            opened.request_path(layer, &[a], b),
            built.request_path(layer, &[a], b),
        ) {
            (Ok(x), Ok(y)) => {
                assert_eq!(
                    opened.trace_path(x, a),
                    built.trace_path(y, a),
                    "{a:?} → {b:?}"
                );
                traced += 1;
            }
            (x, y) => assert_eq!(x.err(), y.err()),
        }
    }
    assert!(traced > 20);

    // Without the landmarks chunks the package still opens, and has no tables.
    let (mut manifest, mut chunks) = split(&bytes);
    let kept: Vec<bool> = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"] != "alt_landmarks")
        .collect();
    let mut keep = kept.iter();
    manifest["chunks"]
        .as_array_mut()
        .unwrap()
        .retain(|_| *keep.next().unwrap());
    let mut keep = kept.iter();
    chunks.retain(|_| *keep.next().unwrap());
    let bare = package::from_bytes(&join(manifest, &chunks)).unwrap();
    assert!(bare.nav == nav && bare.landmarks.iter().all(Option::is_none));

    // The land type's tables given to the hover type: their node count does not fit.
    let (mut manifest, chunks) = split(&bytes);
    for c in manifest["chunks"].as_array_mut().unwrap() {
        if c["kind"] == "alt_landmarks" {
            let layer = c["layer"].as_u64().unwrap();
            c["layer"] = ((layer + 1) % 3).into();
        }
    }
    let err = package::from_bytes(&join(manifest, &chunks))
        .unwrap_err()
        .to_string();
    assert!(err.contains("landmark tables cover"), "{err}");
}
