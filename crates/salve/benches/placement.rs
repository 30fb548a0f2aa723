//! In-process placement timings: `parse::extract` plus `apply::apply_hunks` on a 100,000-line
//! file, without process start or git. Run with `cargo bench -p salve --bench placement`.
//!
//! Each case prints the median of several runs and the rung used. The single fuzzy hunk must take
//! under 50 ms; the bench exits non-zero when it does not, or when a hunk is not placed. The
//! cross-tool comparison (GNU patch, git apply, sqlite3.c) is `scripts/bench-speed.py`.

// A benchmark, not library code: a failed unwrap is a failed run with a message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use salve_patch::{apply_hunks, extract, FileChange};

const LINES: usize = 100_000;
const RUNS: usize = 11;

fn line(i: usize) -> String {
    format!("int v{i} = compute({i}, {}); /* row {i} */", (i * 7) % 1000)
}

fn file_text() -> String {
    (0..LINES).map(|i| line(i) + "\n").collect()
}

/// A unified diff of one hunk around 1-based line `at`, with `edit` applied to the leading context.
fn one_hunk(at: usize, edit: impl Fn(usize, String) -> String) -> String {
    let mut body = String::new();
    for i in at - 4..at - 1 {
        body += &format!(" {}\n", edit(i, line(i)));
    }
    body += &format!(
        "-{}\n+{}\n",
        line(at - 1),
        line(at - 1).replace("compute", "compute_fast")
    );
    for i in at..at + 3 {
        body += &format!(" {}\n", line(i));
    }
    format!(
        "--- a/big.c\n+++ b/big.c\n@@ -{0},7 +{0},7 @@\n{body}",
        at - 3
    )
}

/// A clean unified diff changing every `step`-th line.
fn many_hunks(step: usize) -> (String, usize) {
    let mut out = String::from("--- a/big.c\n+++ b/big.c\n");
    let mut n = 0;
    let mut at = step;
    while at + 4 < LINES {
        out += &format!("@@ -{0},7 +{0},7 @@\n", at - 2);
        for i in at - 3..at {
            out += &format!(" {}\n", line(i));
        }
        out += &format!("-{}\n+{} // edited\n", line(at), line(at));
        for i in at + 1..at + 4 {
            out += &format!(" {}\n", line(i));
        }
        n += 1;
        at += step;
    }
    (out, n)
}

fn time_case(name: &str, text: &str, reply: &str, limit: Option<Duration>) -> bool {
    let mut times = Vec::with_capacity(RUNS);
    let mut rungs = Vec::new();
    let mut placed = true;
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let ex = extract(reply);
        let FileChange::Modify { hunks } = &ex.edits[0].change else {
            panic!("{name}: expected a modify edit");
        };
        let outcome = apply_hunks(text, hunks, None);
        times.push(t0.elapsed());
        placed = outcome.new_text.is_some();
        rungs = outcome
            .hunks
            .iter()
            .filter_map(|h| h.rung.map(|r| r.as_str()))
            .collect();
    }
    times.sort();
    let median = times[RUNS / 2];
    rungs.dedup();
    let within = limit.is_none_or(|l| median < l);
    println!(
        "{name:<48} {:>9.2} ms  rungs {:?}{}{}",
        median.as_secs_f64() * 1e3,
        rungs,
        if placed { "" } else { "  NOT PLACED" },
        match limit {
            Some(l) if !within => format!("  OVER {} ms", l.as_millis()),
            Some(l) => format!("  (limit {} ms)", l.as_millis()),
            None => String::new(),
        }
    );
    placed && within
}

fn main() {
    let text = file_text();
    let limit = Some(Duration::from_millis(50));
    let mut ok = true;
    println!(
        "placement on a {LINES}-line file ({:.1} MB), median of {RUNS} runs",
        text.len() as f64 / 1e6
    );
    ok &= time_case("one exact hunk", &text, &one_hunk(50_000, |_, l| l), limit);
    ok &= time_case(
        "one fuzzy hunk: trailing whitespace",
        &text,
        &one_hunk(50_000, |_, l| l + "  "),
        limit,
    );
    ok &= time_case(
        "one fuzzy hunk: doubled inner spaces (canonical)",
        &text,
        &one_hunk(50_000, |_, l| l.replace(" = ", "  =  ")),
        limit,
    );
    ok &= time_case(
        "one fuzzy hunk: typo in inner context (similar)",
        &text,
        &one_hunk(50_000, |i, l| {
            if i == 49_998 {
                l.replace("compute", "compte")
            } else {
                l
            }
        }),
        limit,
    );
    let (reply, n) = many_hunks(100);
    ok &= time_case(&format!("{n} clean hunks"), &text, &reply, None);
    if !ok {
        eprintln!("placement bench: a case was not placed or went over its limit");
        std::process::exit(1);
    }
}
