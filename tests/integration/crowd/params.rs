//! `crowd-bench --set NAME=VALUE`: a movement parameter reaches the runs and the scenarios
//! written for the editor; a wrong name or a value out of range is refused, saying which and
//! what is allowed.

use crate::common::run_cli;

use navstudio::crowd::{Scenario, SimConfig};

#[test]
fn crowd_bench_set_reaches_the_written_scenario_and_refuses_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_cli(
        &[
            "crowd-bench",
            "--random",
            "1",
            "--set",
            "reaction_secs=0.3",
            "--set",
            "context_slots=24",
            "--mode",
            "context",
            "--write",
            "cases",
        ],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: Vec<_> = std::fs::read_dir(dir.path().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".scenario.ron"))
        .collect();
    assert_eq!(written.len(), 1);
    let scenario = Scenario::load(&written[0]).unwrap();
    let expected = SimConfig {
        avoidance: navstudio::crowd::AvoidanceMode::Context,
        reaction_secs: 0.3,
        context_slots: 24,
        ..SimConfig::default()
    };
    assert_eq!(scenario.config, expected);

    for (set, says) in [
        (
            "reaction=0.3",
            "no such parameter; use one of reaction_secs",
        ),
        ("max_neighbours=40", "must be a whole number from 1 to 16"),
        ("reaction_secs", "write it as NAME=VALUE"),
    ] {
        let out = run_cli(&["crowd-bench", "--set", set], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "--set {set}: {err}"
        );
    }
}
