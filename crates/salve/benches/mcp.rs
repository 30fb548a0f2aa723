//! The `apply_edit` round trip of `salve mcp` over stdio, next to a plain `salve apply` process,
//! on the same small edit in the same small repository, with checkpoint and record on (the
//! defaults of both). Run with `cargo bench -p salve --bench mcp`.
//!
//! Two edits that undo each other alternate, so every call really places, checkpoints, writes
//! and records. One MCP server serves all the calls (it is resident); every `salve apply` is a
//! new process. Prints p50 and p99 of each; the bar is an MCP p50 under 10 ms.

// A benchmark, not library code: a failed unwrap is a failed run with a message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MCP_CALLS: usize = 300;
const CLI_RUNS: usize = 100;
const WARM_UP: usize = 10;
const BAR_P50: Duration = Duration::from_millis(10);

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

/// A small repository: a dozen files of 40 lines, committed.
fn repository(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "bench"]);
    git(dir, &["config", "user.email", "bench@salve.invalid"]);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for f in 0..12 {
        let text: String = (0..40)
            .map(|i| format!("pub fn f{f}_{i}(x: u32) -> u32 {{ x + {i} }}\n"))
            .collect();
        std::fs::write(dir.join(format!("src/m{f}.rs")), text).unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "start"]);
}

/// The edit and its reverse: line 21 of src/m3.rs changes, three lines of context each side.
fn edits() -> [String; 2] {
    let line = |i: usize| format!("pub fn f3_{i}(x: u32) -> u32 {{ x + {i} }}");
    let changed = "pub fn f3_20(x: u32) -> u32 { x.saturating_add(20) }";
    let hunk = |old: &str, new: &str| {
        let mut body = String::from("--- a/src/m3.rs\n+++ b/src/m3.rs\n@@ -18,7 +18,7 @@\n");
        for i in 17..20 {
            body += &format!(" {}\n", line(i));
        }
        body += &format!("-{old}\n+{new}\n");
        for i in 21..24 {
            body += &format!(" {}\n", line(i));
        }
        body
    };
    [hunk(&line(20), changed), hunk(changed, &line(20))]
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn report(name: &str, mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    let p50 = percentile(&times, 0.50);
    println!(
        "{name:<34} n={:<4} p50 {:>7.2} ms   p99 {:>7.2} ms",
        times.len(),
        p50.as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3
    );
    p50
}

/// `check_only` calls place and record but neither checkpoint nor write: the same round trip
/// without the checkpoint's git processes, to show where the time goes.
fn bench_mcp(dir: &Path, edits: &[String; 2], check_only: bool) -> Vec<Duration> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_salve"))
        .args(["mcp", "-C"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut roundtrip = |message: String, line: &mut String| {
        let start = Instant::now();
        stdin.write_all(message.as_bytes()).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(line).unwrap();
        start.elapsed()
    };
    roundtrip(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#.to_owned() + "\n" + r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"# + "\n",
        &mut line,
    );
    let mut times = Vec::with_capacity(MCP_CALLS);
    for k in 0..WARM_UP + MCP_CALLS {
        let call = serde_json::json!({
            "jsonrpc": "2.0", "id": k + 1, "method": "tools/call",
            "params": {"name": "apply_edit", "arguments": {"edit": edits[if check_only { 0 } else { k % 2 }], "check_only": check_only}}
        });
        let took = roundtrip(call.to_string() + "\n", &mut line);
        let response: serde_json::Value = serde_json::from_str(&line).unwrap();
        let outcome = &response["result"]["structuredContent"]["report"]["outcome"];
        assert_eq!(outcome, "applied", "{line}");
        assert_eq!(
            response["result"]["structuredContent"]["checkpoint"].is_string(),
            !check_only
        );
        assert!(response["result"]["structuredContent"]["run"].is_string());
        if k >= WARM_UP {
            times.push(took);
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    times
}

fn bench_cli(dir: &Path, scratch: &Path, edits: &[String; 2]) -> Vec<Duration> {
    let files = [scratch.join("edit-a.diff"), scratch.join("edit-b.diff")];
    for (file, edit) in files.iter().zip(edits) {
        std::fs::write(file, edit).unwrap();
    }
    let mut times = Vec::with_capacity(CLI_RUNS);
    for k in 0..WARM_UP + CLI_RUNS {
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_salve"))
            .args(["apply", "-C"])
            .arg(dir)
            .arg(&files[k % 2])
            .arg("--quiet")
            .output()
            .unwrap();
        let took = start.elapsed();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if k >= WARM_UP {
            times.push(took);
        }
    }
    times
}

fn main() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("repo");
    std::fs::create_dir(&dir).unwrap();
    repository(&dir);
    let edits = edits();
    println!(
        "apply_edit round trip, small edit, checkpoint and record on ({})",
        dir.display()
    );
    let mcp = report(
        "salve mcp: apply_edit over stdio",
        bench_mcp(&dir, &edits, false),
    );
    report(
        "  the same, check_only (no checkpoint)",
        bench_mcp(&dir, &edits, true),
    );
    report(
        "salve apply: one process per edit",
        bench_cli(&dir, scratch.path(), &edits),
    );
    if mcp > BAR_P50 {
        eprintln!("FAIL: the MCP p50 is over {} ms", BAR_P50.as_millis());
        std::process::exit(1);
    }
}
