//! Moving AI benchmark scenarios (outside data, optimal lengths computed by others): every
//! scenario must be reachable by island ids and its traced flow path must arrive. Skips with
//! a note when `../shared/data` is absent (a fresh clone outside this workplace).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NAVSTUDIO_SHARED_DATA")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
            PathBuf::from,
        )
        .join("movingai");
    dir.is_dir().then_some(dir)
}

#[test]
fn moving_ai_scenarios_all_arrive() {
    let Some(dir) = data_dir() else {
        eprintln!("note: ../shared/data/movingai is absent; Moving AI scenario test skipped");
        return;
    };
    for (map, limit) in [
        ("arena", None),
        ("den312d", None),
        ("lak303d", Some(400)),
        ("random512-10-0", Some(300)),
        ("maze512-1-0", Some(150)),
        ("8room_000", Some(300)),
    ] {
        let m = dir.join(format!("{map}.map"));
        let s = dir.join(format!("{map}.map.scen"));
        let r = navstudio::scenarios::run(&m, &s, limit, false).unwrap();
        println!("{r:?}");
        assert!(
            (r.reachable_share - 1.0).abs() < 1e-12,
            "{map}: every scenario is solvable"
        );
        assert!(
            (r.arrived_share - 1.0).abs() < 1e-12,
            "{map}: every traced path must arrive"
        );
        // The traced path is never shorter than optimal except through LOS shortcuts, and the
        // tile design stays within a modest factor of it.
        assert!(
            r.ratio_mean > 0.95 && r.ratio_mean < 1.15,
            "{map}: mean ratio {}",
            r.ratio_mean
        );
        assert!(r.ratio_max < 2.0, "{map}: worst ratio {}", r.ratio_max);
        // Seamless mode (costs carried across windows) meets the product target.
        let r = navstudio::scenarios::run(&m, &s, limit.or(Some(200)), true).unwrap();
        println!("seamless {r:?}");
        assert!(
            (r.arrived_share - 1.0).abs() < 1e-12,
            "{map}: seamless paths must arrive"
        );
        assert!(
            r.ratio_mean <= 1.06,
            "{map}: seamless mean ratio {}",
            r.ratio_mean
        );
    }
}

#[test]
fn malformed_scen_rows_are_reported_with_their_line() {
    let err = navstudio::scenarios::parse_scen(
        "version 1\n0\ta.map\t1\t1\t0\t0\n",
        std::path::Path::new("x.scen"),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("x.scen line 2"), "{msg}");
}
