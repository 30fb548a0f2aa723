//! The benchmark scripts run in a short mode with the tests, so they cannot rot unnoticed (one
//! stopped after its first measurement when checkpoints moved into one catalog ref).

use std::process::Command;

#[test]
fn bench_checkpoint_runs_to_its_ratios() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("bash")
        .arg(root.join("scripts/bench-checkpoint.sh"))
        .env("FILES", "200")
        .env("RUNS", "1")
        .env("SALVE", env!("CARGO_BIN_EXE_salve"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in ["checkpoint / by hand:", "restore / checkout:"] {
        assert!(stdout.contains(line), "{stdout}");
    }
}

#[test]
fn bench_ui_runs_to_its_ratios() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/bench-ui.py"))
        .env("RUNS", "300")
        .env("REQUESTS", "10")
        .env("NAV", "1")
        .env("SALVE", env!("CARGO_BIN_EXE_salve"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "live stamp (/api/version)",
        "timeline, first page (/)",
        "a run's page",
    ] {
        assert!(stdout.contains(line), "{stdout}");
    }
}

#[test]
fn bench_prompt_runs_to_its_share() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/bench-prompt.py"))
        .args(["--modules", "colorsys", "--per-module", "1"])
        .args(["--salve", env!("CARGO_BIN_EXE_salve")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("salve: the fix's line stands in the prompt for 1 of 1 bugs (100.0%)"),
        "{stdout}"
    );
}
