//! The window fast path never weakens the verdict, as a property: seeded random edits of real
//! Python files (the fixtures here, and the shared corpus's `.py` files when it is beside the
//! clone), and whenever the window says the file is clean, the full check (fresh parses of the
//! whole texts) must not find an error the edit introduced. A failure names the seed, the case
//! and both texts; `SALVE_WINDOW_SEED=<n>` runs that seed alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/support/skip.rs"]
mod skip;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use salve_syntax::{check_window, first_error, Fallback, Language};

/// splitmix64: a seeded generator, so that a failure is reproduced from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Byte offsets in `line` that are character boundaries.
fn boundary(rng: &mut Rng, line: &str) -> usize {
    let mut at = rng.below(line.len() + 1);
    while !line.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Lines whose text holds `needle`, or any line when none does.
fn line_with(rng: &mut Rng, lines: &[String], needle: &str) -> usize {
    let hits: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(needle))
        .collect();
    if hits.is_empty() {
        rng.below(lines.len())
    } else {
        hits[rng.below(hits.len())]
    }
}

/// One random edit of `text`, with its name.
fn edit(rng: &mut Rng, text: &str) -> (String, &'static str) {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    if lines.is_empty() {
        return ("x = 1\n".to_owned(), "fill");
    }
    let i = rng.below(lines.len());
    let pad = indent_of(&lines[i]).to_owned();
    let inserted = |s: &str| format!("{pad}{s}\n");
    let name = match rng.below(22) {
        0 => {
            lines.remove(i);
            "delete a line"
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
            "duplicate a line"
        }
        2 => {
            lines[i] = format!("    {}", lines[i]);
            "indent a line"
        }
        3 => {
            let cut = lines[i].len() - lines[i].trim_start_matches(' ').len();
            lines[i] = lines[i][cut.min(if rng.below(2) == 0 { 4 } else { 1 })..].to_owned();
            "dedent a line"
        }
        4 => {
            let word = rng.pick(&["else:", "elif x:", "except:", "finally:", "case 1:"]);
            lines.insert(i, inserted(word));
            "insert a clause"
        }
        5 => {
            let at = boundary(rng, &lines[i]);
            let c = rng.pick(&["(", "[", "{", ")", "]", "}"]);
            lines[i].insert_str(at, c);
            "a bracket"
        }
        6 => {
            let at = boundary(rng, &lines[i]);
            lines[i].insert_str(at, rng.pick(&["'", "\"", "\\", "#", "\\\n"]));
            "a quote, backslash or hash"
        }
        7 => {
            let at = boundary(rng, &lines[i]);
            lines[i].insert_str(at, rng.pick(&["\"\"\"", "'''", "f'''{", "r\"\"\""]));
            "a triple quote"
        }
        8 => {
            lines.insert(
                i,
                inserted(rng.pick(&["@decorator", "@property", "@x.y(1)"])),
            );
            "insert a decorator"
        }
        9 => {
            let j = line_with(rng, &lines, "def ");
            lines[j] = lines[j].replacen("def ", rng.pick(&["x = ", "async def ", "class "]), 1);
            "change a def"
        }
        10 => {
            let j = line_with(rng, &lines, "\"\"\"");
            let at = boundary(rng, &lines[j]);
            lines[j].insert_str(at, rng.pick(&["word", "\"", "\"\"\"", "\n", "\\"]));
            "edit a docstring"
        }
        11 => {
            let j = line_with(rng, &lines, "f\"");
            let at = boundary(rng, &lines[j]);
            lines[j].insert_str(
                at,
                rng.pick(&["{", "}", "{x}", "{{", "'", "\"", "{a[\"k\"]}"]),
            );
            "edit an f-string"
        }
        12 => {
            let depth = rng.pick(&["", "    ", "        ", "            ", " "]);
            let stmt = rng.pick(&["y = 1", "pass", "return", "break", "if y:", "def g():"]);
            lines.insert(i, format!("{depth}{stmt}\n"));
            "insert a statement"
        }
        13 => {
            let depth = rng.pick(&["", "    ", "        ", "  "]);
            lines.insert(i, format!("{depth}{}\n", rng.pick(&["", "# note", "\t"])));
            "insert a blank or comment line"
        }
        14 => {
            let n = 2 + rng.below(4);
            let end = (i + n).min(lines.len());
            lines.drain(i..end);
            "delete lines"
        }
        15 => {
            if i + 1 < lines.len() {
                lines.swap(i, i + 1);
            }
            "swap two lines"
        }
        16 => {
            lines[i] = lines[i].replacen(':', "", 1);
            "drop a colon"
        }
        17 => {
            if lines[i].ends_with('\n') && i + 1 < lines.len() {
                lines[i].pop();
                lines[i].push(' ');
            }
            "join two lines"
        }
        18 => {
            let at = boundary(rng, &lines[i]);
            lines[i].insert_str(at, rng.pick(&["x", "1", " ", ",", ":", "=", "é", "“"]));
            "insert a character"
        }
        19 => {
            let at = boundary(rng, &lines[i]);
            let mut end = (at + 1 + rng.below(4)).min(lines[i].len());
            while !lines[i].is_char_boundary(end) {
                end -= 1;
            }
            lines[i].replace_range(at..end, "");
            "delete characters"
        }
        20 => {
            let line = lines[i].replace("    ", "\t");
            lines[i] = line;
            "tabs for spaces"
        }
        _ => {
            lines[i] = inserted(rng.pick(&["x = 2", "return None", "print(x)", "..."]));
            "replace a line"
        }
    };
    (lines.concat(), name)
}

struct Tally {
    clean: usize,
    fallbacks: BTreeMap<String, usize>,
}

/// Run `cases` seeded edits over `text`, walking on from edits that keep it clean.
fn run(name: &str, start: &str, seed: u64, cases: usize, tally: &mut Tally) {
    let mut rng = Rng(seed);
    let mut before = start.to_owned();
    for case in 0..cases {
        let (mut after, mut what) = edit(&mut rng, &before);
        if rng.below(4) == 0 {
            // Two edits at once, often far apart.
            let (twice, second) = edit(&mut rng, &after);
            after = twice;
            what = if what == second { what } else { "two edits" };
        }
        match check_window(Language::Python, &before, &after) {
            Ok(()) => {
                tally.clean += 1;
                let error = first_error(Language::Python, &after).unwrap();
                if let Some(error) = error {
                    let was = first_error(Language::Python, &before).unwrap();
                    assert!(
                        was.is_some(),
                        "seed {seed} case {case} ({name}, {what}): the window said clean, the \
                         full check says the edit introduced {error}\n--- before\n{before}\n--- \
                         after\n{after}"
                    );
                }
                if rng.below(3) == 0 {
                    before = after;
                }
            }
            Err(why) => {
                *tally.fallbacks.entry(format!("{why:?}")).or_default() += 1;
                // The text before stays: most fallbacks are broken files.
                if why == Fallback::Unchanged {
                    before = start.to_owned();
                }
            }
        }
    }
}

fn fixtures() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/window");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn seeds(default: std::ops::Range<u64>) -> Vec<u64> {
    match std::env::var("SALVE_WINDOW_SEED") {
        Ok(s) => vec![s.parse().expect("SALVE_WINDOW_SEED is a number")],
        Err(_) => default.collect(),
    }
}

#[test]
fn a_clean_window_never_hides_an_introduced_error_fixtures() {
    let mut tally = Tally {
        clean: 0,
        fallbacks: BTreeMap::new(),
    };
    let mut cases = 0;
    for (name, text) in fixtures() {
        assert_eq!(
            first_error(Language::Python, &text).unwrap(),
            None,
            "{name}"
        );
        // The lexer reads each fixture to its end: a statement added there takes the window.
        let added = format!("{text}x = 1\n");
        assert_eq!(
            check_window(Language::Python, &text, &added),
            Ok(()),
            "{name}"
        );
        for seed in seeds(1..9) {
            run(&name, &text, seed, 300, &mut tally);
            cases += 300;
        }
    }
    eprintln!(
        "seeds {:?}: window said clean {} times; fallbacks {:?}",
        seeds(1..9),
        tally.clean,
        tally.fallbacks
    );
    // The property is only as strong as the cases where the window answered: most edits that
    // keep a file clean must take the fast path, and every kind of fallback must be seen.
    assert!(
        tally.clean >= cases / 6,
        "clean {}, {:?}",
        tally.clean,
        tally.fallbacks
    );
    for why in ["Lexer", "Tabs", "WindowError", "Bounds"] {
        assert!(
            tally.fallbacks.contains_key(why),
            "{why}: {:?}",
            tally.fallbacks
        );
    }
}

fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            corpus_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

#[test]
fn a_clean_window_never_hides_an_introduced_error_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !root.is_dir() {
        skip::skip(
            "a_clean_window_never_hides_an_introduced_error_corpus",
            "the shared corpus is not beside the clone",
        );
        return;
    }
    let mut paths = Vec::new();
    corpus_files(&root, &mut paths);
    paths.sort();
    let mut seen = std::collections::HashSet::new();
    let mut tally = Tally {
        clean: 0,
        fallbacks: BTreeMap::new(),
    };
    let mut files = 0;
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // The corpus holds many versions of a few files: each text once, clean ones only.
        if text.len() > 200_000 || !seen.insert(text.clone()) {
            continue;
        }
        if first_error(Language::Python, &text)
            .ok()
            .flatten()
            .is_some()
        {
            continue;
        }
        files += 1;
        // A sample of the files, to keep the test's time reasonable in a debug build.
        if files % 4 != 1 {
            continue;
        }
        for seed in seeds(100..101) {
            run(&path.display().to_string(), &text, seed, 40, &mut tally);
        }
    }
    eprintln!(
        "seeds {:?}, {files} corpus files: window said clean {} times; fallbacks {:?}",
        seeds(100..101),
        tally.clean,
        tally.fallbacks
    );
    assert!(
        files > 0 && tally.clean > 0,
        "{files} files, {:?}",
        tally.fallbacks
    );
}
