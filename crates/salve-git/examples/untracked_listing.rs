//! Time the untracked listing a checkpoint takes, in process against git's, alternating in one
//! run: `untracked_listing <repository> [rounds]`. Driven by `scripts/bench-untracked.py`.
//!
//! Each round lists the work tree both ways (the collapsed listing and the full listing below
//! the collapsed directories, as the checkpoint scan asks for them) and checks that both give
//! the same records. Prints one line per way: median and 90th percentile wall time in
//! microseconds, and CPU (this process and its children) per call in microseconds.

use std::path::{Path, PathBuf};
use std::time::Instant;

use salve_git::{untracked, Repo};

/// CPU time of this process and its waited-for children, in clock ticks (`/proc/self/stat`).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime, stime, cutime, cstime are fields 14 to 17 of the whole line: 11 to 14 here.
    (11..15)
        .filter_map(|i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum()
}

type Records = (Vec<Vec<u8>>, Vec<Vec<u8>>);

fn listing(repo: &Repo, in_process: bool) -> Result<Records, String> {
    let listed = if in_process {
        untracked::in_process(repo)
            .map_err(|e| e.to_string())?
            .ok_or("this repository is not listed in process (see salve_git::untracked)")?
    } else {
        untracked::by_git(repo).map_err(|e| e.to_string())?
    };
    let roots: Vec<PathBuf> = listed
        .top
        .iter()
        .filter_map(|r| r.strip_suffix(b"/"))
        .map(salve_git::path_from_bytes)
        .filter(|d| !repo.root.join(d).join(".git").exists())
        .collect();
    let mut below = if roots.is_empty() {
        Vec::new()
    } else {
        listed.below(repo, &roots).map_err(|e| e.to_string())?
    };
    below.sort();
    Ok((listed.top, below))
}

fn report(name: &str, mut times: Vec<u128>, ticks: u64) {
    times.sort_unstable();
    let calls = times.len().max(1);
    let median = times.get(calls / 2).copied().unwrap_or(0);
    let p90 = times.get(calls * 9 / 10).copied().unwrap_or(0);
    // Clock ticks are 10 ms on Linux.
    let cpu = ticks * 10_000 / calls as u64;
    println!("{name}\tp50_us {median}\tp90_us {p90}\tcpu_us {cpu}");
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let root = args
        .next()
        .ok_or("usage: untracked_listing <repository> [rounds]")?;
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(50);
    let repo = Repo::discover(Path::new(&root)).map_err(|e| e.to_string())?;
    // One uncounted round each: the configuration probe, caches.
    let first = listing(&repo, true)?;
    if first != listing(&repo, false)? {
        return Err("the two listings differ".into());
    }
    println!("records\ttop {}\tbelow {}", first.0.len(), first.1.len());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut our_ticks, mut their_ticks) = (0, 0);
    for _ in 0..rounds {
        for in_process in [true, false] {
            let (ticks, start) = (cpu_ticks(), Instant::now());
            listing(&repo, in_process)?;
            let took = start.elapsed().as_micros();
            let spent = cpu_ticks().saturating_sub(ticks);
            if in_process {
                ours.push(took);
                our_ticks += spent;
            } else {
                theirs.push(took);
                their_ticks += spent;
            }
        }
    }
    report("in_process", ours, our_ticks);
    report("git", theirs, their_ticks);
    Ok(())
}
