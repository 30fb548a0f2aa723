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

/// `scripts/bench-snippets.py` on a corpus of one case made here: every variant runs, the
/// table prints, and nothing is written wrong.
#[test]
fn bench_snippets_runs_on_a_tiny_corpus() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tmp = tempfile::tempdir().unwrap();
    let case = tmp.path().join("cases/tiny-01");
    let body: String = (0..12)
        .map(|i| {
            format!(
                "def f{i}(x):\n    y = x * {i} + {}\n    return y - {i}\n\n\n",
                i * i
            )
        })
        .collect();
    let before = format!("import os\n\n\n{body}");
    let after = before.replace("    y = x * 5 + 25\n", "    y = x * 5 + 26\n");
    for (side, text) in [("before", &before), ("after", &after)] {
        std::fs::create_dir_all(case.join(side)).unwrap();
        std::fs::write(case.join(side).join("calc.py"), text).unwrap();
    }
    std::fs::write(
        case.join("case.json"),
        r#"{"id": "tiny-01", "format": "unified", "drift": [], "expect": "apply"}"#,
    )
    .unwrap();
    let out = Command::new("python3")
        .arg(root.join("scripts/bench-snippets.py"))
        .args([
            "--salve",
            env!("CARGO_BIN_EXE_salve"),
            "--jobs",
            "1",
            "--cases",
        ])
        .arg(tmp.path().join("cases"))
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
    for row in [
        "| ctx3 | 1 | 1 | 0 | 0 | 0 |",
        "| reworded | 1 | 1 | 0 | 0 | 0 |",
        "| tool | 1 | 1 | 0 | 0 | 0 |",
    ] {
        assert!(stdout.contains(row), "{stdout}");
    }
    assert!(stdout.contains("seed 28"), "{stdout}");
}

#[test]
fn bench_prompt_runs_to_its_share() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The bugs are made in standard-library modules and caught by CPython's own tests, which
    // some Pythons leave out (Debian ships them apart, in libpython3-testsuite).
    let has_tests = Command::new("python3")
        .args(["-c", "import test.test_colorsys"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tests {
        crate::skip::skip(
            "bench_prompt_runs_to_its_share",
            "this python3 has no test suite (test.test_colorsys)",
        );
        return;
    }
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
