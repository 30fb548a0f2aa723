//! The benchmark scripts run in a short mode with the tests, so they cannot rot unnoticed (one
//! stopped after its first measurement when checkpoints moved into one catalog ref).

use std::process::Command;

#[test]
fn bench_checkpoint_runs_to_its_ratios() {
    let stdout = run_script(
        Command::new("bash")
            .arg(script("bench-checkpoint.sh"))
            .env("FILES", "200")
            .env("RUNS", "1"),
    );
    for line in ["checkpoint / by hand:", "restore / checkout:"] {
        assert!(stdout.contains(line), "{stdout}");
    }
}

#[test]
fn bench_ui_runs_to_its_ratios() {
    let stdout = run_script(
        Command::new("python3")
            .arg(script("bench-ui.py"))
            .env("RUNS", "300")
            .env("REQUESTS", "10")
            .env("NAV", "1"),
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
    let stdout = run_script(
        Command::new("python3")
            .arg(script("bench-snippets.py"))
            .args([
                "--salve",
                env!("CARGO_BIN_EXE_salve"),
                "--jobs",
                "1",
                "--cases",
            ])
            .arg(tmp.path().join("cases")),
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

/// `registry-pairs.py`: two releases of a crate in a registry laid out as cargo's give one
/// commit-sized pair per changed file, written as cases `bench-snippets.py` reads; a change
/// too large for a commit and a file only one release has give none.
#[test]
fn registry_pairs_writes_commit_sized_changes_as_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("cargo/registry/src/index.example");
    let lines: String = (0..40)
        .map(|i| format!("pub fn f{i}() -> u32 {{ {i} }}\n"))
        .collect();
    let big: String = (0..60).map(|i| format!("// note {i}\n")).collect();
    for (version, one, note) in [("1.0.0", "1", "old"), ("1.0.1", "2", "new")] {
        let dir = src.join(format!("demo-{version}/src"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("lib.rs"),
            lines.replace("{ 1 }", &format!("{{ {one}0 }}")),
        )
        .unwrap();
        // Every line changes: no commit is that size.
        std::fs::write(dir.join("notes.rs"), big.replace("note", note)).unwrap();
    }
    std::fs::write(src.join("demo-1.0.1/src/extra.rs"), "pub fn g() {}\n").unwrap();
    let out = tmp.path().join("cases");
    let stdout = run_script(
        Command::new("python3")
            .arg(script("registry-pairs.py"))
            .arg("--out")
            .arg(&out)
            .env("CARGO_HOME", tmp.path().join("cargo")),
    );
    assert!(stdout.starts_with("1 pairs from 1 crates"), "{stdout}");
    let cases: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cases.len(), 1, "{cases:?}");
    let case = &cases[0];
    let meta = std::fs::read_to_string(case.join("case.json")).unwrap();
    assert!(meta.contains("\"expect\": \"apply\""), "{meta}");
    let before = std::fs::read_to_string(case.join("before/src/lib.rs")).unwrap();
    let after = std::fs::read_to_string(case.join("after/src/lib.rs")).unwrap();
    assert!(
        before.contains("{ 10 }") && after.contains("{ 20 }"),
        "{before}\n{after}"
    );
}

#[test]
fn bench_prompt_runs_to_its_share() {
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
    let stdout = run_script(
        Command::new("python3")
            .arg(script("bench-prompt.py"))
            .args(["--modules", "colorsys", "--per-module", "1"])
            .args(["--salve", env!("CARGO_BIN_EXE_salve")]),
    );
    assert!(
        stdout.contains("salve: the fix's line stands in the prompt for 1 of 1 bugs (100.0%)"),
        "{stdout}"
    );
}

/// Run a benchmark script with the test build of salve and git's user configuration out of the
/// way; its stdout when it succeeded, else the test fails with what it printed.
fn run_script(command: &mut Command) -> String {
    let out = command
        .env("SALVE", env!("CARGO_BIN_EXE_salve"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn script(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

fn has_program(name: &str, probe: &str) -> bool {
    Command::new(name)
        .arg(probe)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `bench-speed.py --short`: every table is printed (tools side by side, the bar with its CPU
/// row, the fuzzy hunks, memory) and salve's results are right.
#[test]
fn bench_speed_short_runs_to_every_table() {
    if !has_program("patch", "--version") || !std::path::Path::new("/usr/bin/time").exists() {
        crate::skip::skip(
            "bench_speed_short_runs_to_every_table",
            "GNU patch or /usr/bin/time is missing",
        );
        return;
    }
    let stdout = run_script(Command::new("python3").arg(script("bench-speed.py")).args([
        "--short",
        "--salve",
        env!("CARGO_BIN_EXE_salve"),
        "--against",
        env!("CARGO_BIN_EXE_salve"),
    ]));
    for line in [
        "### synthetic file, clean patch, 100 hunks",
        "### Clean patch in CPU, alternating (2 rounds)",
        "| salve (other) |",
        "| salve --no-checkpoint --no-record |",
        "| clean patch, salve --no-checkpoint --no-record vs gnu-patch, CPU |",
        "| typo in an inner context line (similar) | similar |",
        "| curly quotes and doubled spaces (canonical) | canonical |",
        "| synthetic 1 MB file, one hunk |",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
    // The tables of the tools side by side (the alternating loop's rows have no result column).
    let salve_rows = stdout
        .lines()
        .filter(|l| l.starts_with("| salve") && !l.starts_with("| salve ("));
    for row in salve_rows {
        assert!(row.ends_with("| 0 | correct |"), "{row}\n{stdout}");
    }
}

/// `bench-mcp.py --short`: a real `salve mcp` child serves both tools on both files, `salve
/// apply` processes apply the same edits, and the table has ratios for each; with `--chain`,
/// every call writes a new text and the script checks each copy ends with the last one.
#[test]
fn bench_mcp_short_runs_to_its_ratios() {
    for chain in [false, true] {
        let mut args = vec!["--short", "--salve", env!("CARGO_BIN_EXE_salve")];
        if chain {
            args.push("--chain");
        }
        let stdout = run_script(
            Command::new("python3")
                .arg(script("bench-mcp.py"))
                .args(&args),
        );
        assert_eq!(
            stdout.contains("each writing a text never written before"),
            chain,
            "{stdout}"
        );
        mcp_rows_have_ratios(&stdout);
    }
}

fn mcp_rows_have_ratios(stdout: &str) {
    for file in ["2,000 lines", "3 lines"] {
        for tool in [
            "git apply",
            "str_replace",
            "apply_edit",
            "salve apply (CLI)",
        ] {
            let row = format!("| {file} | {tool} |");
            let line = stdout.lines().find(|l| l.starts_with(&row));
            assert!(
                line.is_some_and(|l| l.ends_with("x |")),
                "no {row} with a ratio in:\n{stdout}"
            );
        }
    }
}

/// `bench-mcp.py --cli --short --against`: `salve apply` processes of two binaries (here the
/// same one), in default mode and without checkpoint and record, next to `git apply`, on the
/// 2,000-line text file and the 3-line one, each row with its ratios.
#[test]
fn bench_mcp_cli_short_runs_to_its_ratios() {
    let salve = env!("CARGO_BIN_EXE_salve");
    let stdout = run_script(Command::new("python3").arg(script("bench-mcp.py")).args([
        "--cli",
        "--short",
        "--salve",
        salve,
        "--against",
        salve,
    ]));
    for file in ["2,000-line .txt", "3 lines"] {
        for tool in [
            "git apply",
            "salve apply (this)",
            "salve apply (this) --no-checkpoint --no-record",
            "salve apply (other)",
            "salve apply (other) --no-checkpoint --no-record",
        ] {
            let row = format!("| {file} | {tool} |");
            let line = stdout.lines().find(|l| l.starts_with(&row));
            assert!(
                line.is_some_and(|l| l.ends_with("x |")),
                "no {row} with a ratio in:\n{stdout}"
            );
        }
    }
}

/// `bench-fix.py --short`: both loop shapes run green with the scripted provider.
#[test]
fn bench_fix_short_runs_both_shapes() {
    let stdout = run_script(Command::new("python3").arg(script("bench-fix.py")).args([
        "--short",
        "--salve",
        env!("CARGO_BIN_EXE_salve"),
    ]));
    for line in [
        "| 1 iteration (repaired at once) | 1 |",
        "| 3 iterations (2 undone, then repaired) | 1 |",
        "bar: salve's overhead per iteration < 100 ms:",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
}

/// `bench-log.sh` with a small record: the listings and the apply timings all print.
#[test]
fn bench_log_short_runs_to_its_timings() {
    let stdout = run_script(
        Command::new("bash")
            .arg(script("bench-log.sh"))
            .env("RUNS", "200")
            .env("ITER", "2"),
    );
    for line in [
        "runs recorded: 200",
        "salve log (first page, 20 runs)",
        "salve log --status refused",
        "salve apply --no-checkpoint --no-record",
        "recording overhead",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
}

/// `bench-lib.sh`, which the shell scripts source: with `SALVE` set it builds nothing and
/// names the repository and an absolute binary.
#[test]
fn bench_lib_names_the_repository_and_the_binary() {
    let lib = script("bench-lib.sh");
    let stdout = run_script(Command::new("bash").arg("-c").arg(format!(
        ". '{}' && echo \"root=$root\" && echo \"salve=$salve\" && echo \"lc=$LC_ALL\"",
        lib.display()
    )));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let salve = std::path::Path::new(env!("CARGO_BIN_EXE_salve"));
    assert!(
        stdout.contains(&format!("root={}\n", root.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("salve={}\n", salve.display())),
        "{stdout}"
    );
    assert!(stdout.contains("lc=C\n"), "{stdout}");
}

/// `bench-corpus.sh` on a few cases of the shared corpus: salve and `git apply` are scored side
/// by side, and salve writes nothing wrong.
#[test]
fn bench_corpus_short_scores_a_few_cases() {
    let cases =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/cases");
    if !cases.join("../score.py").is_file() {
        crate::skip::skip(
            "bench_corpus_short_scores_a_few_cases",
            "the shared corpus is not beside the clone",
        );
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let stdout = run_script(
        Command::new("bash")
            .arg(script("bench-corpus.sh"))
            .env("CORPUS", &cases)
            .env("FILTER", "^rg-076eeff-")
            .env("TOOLS", "salve git-apply")
            .env("JOBS", "1")
            .env("OUT", out.path()),
    );
    let salve = stdout.lines().find(|l| l.starts_with("| salve |"));
    // CAR, then WAR and silent wrong writes: none wrong.
    assert!(
        salve.is_some_and(|l| l.contains("| 0.0% | 0 |")),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("| git-apply |")),
        "{stdout}"
    );
}

/// `bench-mcp.py --cli --chain --short`: each apply writes a text the file never had; the
/// script checks every copy ends with the last one, and the table has ratios.
#[test]
fn bench_mcp_cli_chain_short_runs_to_its_ratios() {
    let stdout = run_script(Command::new("python3").arg(script("bench-mcp.py")).args([
        "--cli",
        "--chain",
        "--short",
        "--salve",
        env!("CARGO_BIN_EXE_salve"),
    ]));
    assert!(
        stdout.contains("each changing the line to a text it never had"),
        "{stdout}"
    );
    for file in ["2,000-line .txt", "3 lines"] {
        for tool in [
            "git apply",
            "salve apply",
            "salve apply --no-checkpoint --no-record",
        ] {
            let row = format!("| {file} | {tool} |");
            let line = stdout.lines().find(|l| l.starts_with(&row));
            assert!(
                line.is_some_and(|l| l.ends_with("x |")),
                "no {row} with a ratio in:\n{stdout}"
            );
        }
    }
}
