//! How long salve's own work in `salve ask` takes on the bundled example (examples/ask-demo)
//! with a provider that answers at once: prompt build, extraction, apply (checkpoint included)
//! and record. The bar is 50 ms.
//!
//!   cargo bench -p salve-engine --bench ask            # 30 runs
//!   RUNS=100 cargo bench -p salve-engine --bench ask
//!
//! Each run asks in a fresh state (the two files put back, untimed) of one git repository.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use salve_engine::ask::{self, Status, StoreRecorder};
use salve_llm::{Chain, Failure, Meta, Provider, ProviderKind, Reply, Request, RetryPolicy};

/// Answers every prompt with the example's reply, at once.
struct AtOnce {
    reply: String,
}

impl Provider for AtOnce {
    fn name(&self) -> &str {
        "instant"
    }
    fn kind(&self) -> ProviderKind {
        ProviderKind::Command
    }
    fn complete(&self, _: &Request) -> Result<Reply, Failure> {
        Ok(Reply {
            text: self.reply.clone(),
            meta: Meta::new("instant", ProviderKind::Command, None),
        })
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?} failed");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    // `cargo bench` passes `--bench`; other flags (a filter) are ignored.
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/ask-demo");
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("demo");
    copy_dir(&example, &dir);
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "-A"]);
    git(
        &dir,
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.invalid",
            "commit",
            "-q",
            "-m",
            "demo",
        ],
    );
    let originals: Vec<(PathBuf, Vec<u8>)> = ["temperature/convert.py", "tests/test_convert.py"]
        .iter()
        .map(|p| (dir.join(p), std::fs::read(dir.join(p)).unwrap()))
        .collect();
    let provider: Arc<dyn Provider> = Arc::new(AtOnce {
        reply: std::fs::read_to_string(example.join("reply.md")).unwrap(),
    });
    let chain = Chain::new("default", vec![provider], RetryPolicy::default());
    let mut options = ask::Options::new(
        &dir,
        std::fs::read_to_string(example.join("instruction.txt")).unwrap(),
    );
    options.files = vec![PathBuf::from("temperature/convert.py")];
    options.targets = vec![PathBuf::from("tests/test_convert.py")];

    let mut totals = Vec::new();
    let mut parts = Vec::new();
    for i in 0..runs + 1 {
        for (path, bytes) in &originals {
            std::fs::write(path, bytes).unwrap();
        }
        let start = Instant::now();
        let outcome = ask::with_chain(&options, &chain, &mut StoreRecorder::default()).unwrap();
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(outcome.status, Status::Applied);
        assert!(outcome.run.is_some(), "not recorded");
        // The first run opens and migrates the record: a one-time cost, not counted.
        if i > 0 {
            totals.push(ms);
            parts.push(outcome.timings);
        }
    }
    totals.sort_by(f64::total_cmp);
    let median = percentile(&totals, 0.5);
    let avg = |f: fn(&ask::Timings) -> u64| {
        parts.iter().map(|t| f(t) as f64).sum::<f64>() / parts.len() as f64
    };
    println!("salve ask on examples/ask-demo, provider answering at once, {runs} runs:");
    println!(
        "  total: median {median:.1} ms, p90 {:.1} ms, min {:.1} ms",
        percentile(&totals, 0.9),
        totals[0]
    );
    println!(
        "  parts (mean): prompt {:.1} ms, apply {:.1} ms (checkpoint and write included), record {:.1} ms",
        avg(|t| t.prompt_ms),
        avg(|t| t.apply_ms),
        avg(|t| t.record_ms)
    );
    println!(
        "  bar (median under 50 ms): {}",
        if median < 50.0 { "met" } else { "NOT met" }
    );
}
