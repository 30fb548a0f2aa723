//! The Rust side of scripts/bench-packages.sh: the engine's own time for one in-process apply
//! of a reply, to compare with the same apply through the Python and Node packages.
//!
//!   cargo run --release -p salve-bindings --example bench_apply -- ROOT REPLY RUNS
//!
//! Applies REPLY to ROOT with `check` (nothing written, so every run does the same work) and no
//! record, RUNS times after a few warm-up runs, and prints the median in microseconds.

use std::time::Instant;

use salve_engine::apply::{apply, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, reply, runs] = args.as_slice() else {
        return Err("usage: bench_apply ROOT REPLY RUNS".into());
    };
    let reply = std::fs::read_to_string(reply)?;
    let runs: usize = runs.parse()?;
    let options = Options {
        check: true,
        record: false,
        ..Options::new(root)
    };
    for _ in 0..runs.min(10) {
        apply(&reply, &options)?;
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let outcome = apply(&reply, &options)?;
        times.push(start.elapsed().as_secs_f64() * 1e6);
        if outcome.report.exit_code() != 0 {
            return Err("the reply did not apply".into());
        }
    }
    times.sort_by(f64::total_cmp);
    println!("{:.0}", times[times.len() / 2]);
    Ok(())
}
