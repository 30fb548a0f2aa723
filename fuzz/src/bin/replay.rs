//! A libFuzzer-free driver for the fuzz targets, runnable on the stable toolchain:
//!
//! ```text
//! cargo run --release --no-default-features --bin replay -- parse 60
//! cargo run --release --no-default-features --bin replay -- apply 60 extra/seed/dir
//! ```
//!
//! It loads the seeds (`seeds/<target>/` plus any folders given), runs each once, then mutates
//! them at random (byte flips, insertions of format tokens, line duplication and deletion, splices)
//! for the given number of seconds. A panic is saved to `artifacts/<target>/crash-<hash>` and ends
//! the run with exit status 1. The mutator is a plain xorshift generator seeded from the clock, so
//! runs differ; the seed is printed for replaying one.

use std::fs;
use std::panic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Fragments of every format salve reads: inserting them steers random inputs into the parsers.
const TOKENS: &[&str] = &[
    "\n@@ -1,3 +1,3 @@\n",
    "\n@@\n",
    "\n+",
    "\n-",
    "\n ",
    "\n",
    "\r\n",
    "diff --git a/x b/x\n",
    "--- a/x\n+++ b/x\n",
    "--- /dev/null\n",
    "+++ /dev/null\n",
    "new file mode 100644\n",
    "deleted file mode 100644\n",
    "rename from x\nrename to y\n",
    "\\ No newline at end of file\n",
    "*** Begin Patch\n",
    "*** End Patch\n",
    "*** Update File: x\n",
    "*** Add File: y\n",
    "*** Delete File: x\n",
    "*** Move to: z\n",
    "*** End of File\n",
    "<<<<<<< SEARCH\n",
    "=======\n",
    ">>>>>>> REPLACE\n",
    ":start_line:2\n",
    "-------\n",
    "```diff\n",
    "```\n",
    "````\n",
    "<<<AI_DIFF_START>>>\n",
    "<<<AI_DIFF_END>>>\n",
    "{\"path\": \"x\", \"old_string\": \"a\", \"new_string\": \"b\"}",
    "[",
    "]",
    "\\n",
    "\\\"",
    "// ...\n",
    "# ... rest unchanged ...\n",
    "...",
    "\u{feff}",
    "\u{a0}",
    "\u{200b}",
    "\u{201c}",
    "\u{2013}",
    "\t",
    "    ",
    "../",
    "/etc/passwd",
    ".git/config",
    "12 | ",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn line_starts(data: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            data.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect()
}

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], input: &mut Vec<u8>) {
    for _ in 0..=rng.below(4) {
        let len = input.len();
        match rng.below(7) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 => {
                let tok = TOKENS[rng.below(TOKENS.len())].as_bytes();
                let at = rng.below(len + 1);
                input.splice(at..at, tok.iter().copied());
            }
            2 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                input.drain(a..b);
            }
            3 => {
                let starts = line_starts(input);
                let a = starts[rng.below(starts.len())];
                let b = starts[rng.below(starts.len())].max(a);
                let chunk = input[a..b].to_vec();
                input.splice(a..a, chunk);
            }
            4 => {
                let starts = line_starts(input);
                let a = starts[rng.below(starts.len())];
                let b = starts[rng.below(starts.len())].max(a);
                input.drain(a..b);
            }
            5 if !seeds.is_empty() => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len() + 1);
                let to = (from + rng.below(256)).min(other.len());
                let at = rng.below(len + 1);
                input.splice(at..at, other[from..to].iter().copied());
            }
            _ => {
                let at = rng.below(len + 1);
                input.insert(
                    at,
                    [b' ', b'\n', b'+', b'-', b'@', b'"', b'\\', 0][rng.below(8)],
                );
            }
        }
    }
}

fn load(dir: &Path, into: &mut Vec<Vec<u8>>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if let Ok(data) = fs::read(&p) {
            into.push(data);
        }
    }
}

fn save_crash(target: &str, input: &[u8]) -> PathBuf {
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("artifacts")
        .join(target);
    let _ = fs::create_dir_all(&dir);
    let path = dir.join(format!("crash-{hash:016x}"));
    let _ = fs::write(&path, input);
    path
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.first().map(String::as_str).unwrap_or("parse");
    let run: fn(&[u8]) = match target {
        "parse" => salve_fuzz::parse,
        "apply" => salve_fuzz::apply,
        other => {
            eprintln!("unknown target {other}: use parse or apply");
            std::process::exit(2);
        }
    };
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    let mut seeds = Vec::new();
    load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("seeds")
            .join(target),
        &mut seeds,
    );
    for extra in args.iter().skip(2) {
        load(Path::new(extra), &mut seeds);
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        | 1;
    let seed = std::env::var("REPLAY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(seed);
    let mut rng = Rng(seed);
    eprintln!(
        "replay {target}: {} seeds, {secs} s, REPLAY_SEED={seed}",
        seeds.len()
    );
    panic::set_hook(Box::new(|_| {}));

    let check = |input: &[u8]| -> bool { panic::catch_unwind(|| run(input)).is_ok() };
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut iterations = 0u64;
    let mut slowest = Duration::ZERO;
    let mut queue: Vec<Vec<u8>> = seeds.clone();
    queue.push(Vec::new());
    loop {
        let input = if let Some(s) = queue.pop() {
            s
        } else {
            if Instant::now() >= deadline {
                break;
            }
            let mut x = if seeds.is_empty() {
                Vec::new()
            } else {
                seeds[rng.below(seeds.len())].clone()
            };
            mutate(&mut rng, &seeds, &mut x);
            x
        };
        let t0 = Instant::now();
        let ok = check(&input);
        slowest = slowest.max(t0.elapsed());
        iterations += 1;
        if !ok {
            let _ = panic::take_hook();
            let path = save_crash(target, &input);
            eprintln!(
                "replay {target}: panic after {iterations} inputs; input saved to {}",
                path.display()
            );
            run(&input);
            std::process::exit(1);
        }
    }
    eprintln!(
        "replay {target}: {iterations} inputs, no panic; slowest input {:.1} ms",
        slowest.as_secs_f64() * 1e3
    );
}
