//! Property test: the lazy edit-syntax check (old text read only for a suspect line) and the
//! reply's slashed words (split only on lines with a `/`) give the verdicts the eager versions
//! gave, on replies, old texts and new texts drawn from lines that are syntax, damaged syntax
//! (glued, indented, cut) and content. Seeded: `SALVE_PROP_SEED` picks the seed, which is
//! printed.

use std::borrow::Cow;
use std::collections::HashSet;

use super::{fence_open, same_path, ReplySyntax, DOCUMENTS};
use crate::edit::{Format, Hunk, HunkLine, LineKind};

/// The check as it was before the old text was made lazy (kept here as the reference).
fn eager(
    s: &ReplySyntax,
    path: &str,
    old: &str,
    new_pieces: &[&str],
    hunks: &[Hunk],
    format: Format,
) -> Option<String> {
    let diff = matches!(format, Format::Git | Format::Unified | Format::Codex);
    let json = matches!(format, Format::OldNewJson | Format::ToolJson);
    if json && hunks.is_empty() {
        return None;
    }
    let document = path
        .rsplit_once('.')
        .is_some_and(|(_, ext)| DOCUMENTS.contains(&ext.to_ascii_lowercase().as_str()));
    let removals: HashSet<String> = hunks
        .iter()
        .filter(|_| diff)
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind == LineKind::Remove && !l.text.trim().is_empty())
        .map(|l| format!("-{}", l.text).trim().to_owned())
        .collect();
    let data: HashSet<&str> = if diff || json {
        hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.kind == LineKind::Add)
            .map(|l| l.text.trim())
            .collect()
    } else {
        HashSet::new()
    };
    let suspect = |line: &str, t: &str| {
        s.markers.contains(t)
            || s.markers.iter().any(|m| {
                t.len() > m.len() && (t.ends_with(m.as_str()) || t.starts_with(m.as_str()))
            })
            || (!document && s.fences.contains(t) && fence_open(line).is_some())
            || s.doubled.contains(t)
            || s.paths.iter().any(|(l, p)| l == t && same_path(p, path))
            || removals.contains(t)
    };
    let old_lines: HashSet<&str> = old.lines().map(str::trim).collect();
    for piece in new_pieces {
        for line in piece.lines() {
            let line = line.strip_prefix('\u{feff}').unwrap_or(line);
            let t = line.trim();
            if t.is_empty() || !suspect(line, t) || data.contains(t) || old_lines.contains(t) {
                continue;
            }
            if removals.contains(t) && !s.markers.contains(t) {
                let removed = t.get(1..).unwrap_or("").trim();
                if !old_lines.contains(removed) {
                    continue;
                }
            }
            return Some(line.trim_end().to_owned());
        }
    }
    None
}

/// The reply's slashed words as they were gathered before (every line split).
fn eager_slashed(reply: &str) -> HashSet<String> {
    reply
        .lines()
        .map(str::trim)
        .flat_map(|t| {
            t.split(|c: char| c.is_whitespace() || "\"'`()<>,;[]{}".contains(c))
                .filter(|w| w.contains('/') && w.len() < 200)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// splitmix64: a small, seeded generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

const LINES: &[&str] = &[
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "------- SEARCH",
    "+++++++ REPLACE",
    ":start_line:3",
    "diff --git a/f.c b/f.c",
    "--- a/f.c",
    "+++ b/f.c",
    "*** Begin Patch",
    "*** End Patch",
    "*** Update File: f.c",
    "```c",
    "```python",
    "```",
    "f.c",
    "src/f.c",
    "### src/f.c",
    "- x",
    "-x",
    "x",
    "y",
    "  int a = 1; /* src/a.c */",
    "import x from './components/Header'",
    "return (a/b);",
    "}",
    "",
    "   ",
    "\u{feff}x",
    "see https://example.com/a/b, then",
    "a/b\t'c/d'\"e/f\"(g/h)",
];

/// A line drawn from [`LINES`], sometimes damaged: glued to text, indented, cut short.
fn line(rng: &mut Rng) -> String {
    let base = rng.pick(LINES);
    match rng.below(6) {
        0 => format!("  {base}"),
        1 => format!("{base} x"),
        2 => format!("x {base}"),
        3 => base.chars().take(base.chars().count() / 2).collect(),
        _ => base.to_owned(),
    }
}

fn text(rng: &mut Rng, max: usize) -> String {
    (0..rng.below(max))
        .map(|_| line(rng) + if rng.below(5) == 0 { "\r\n" } else { "\n" })
        .collect()
}

fn hunks(rng: &mut Rng) -> Vec<Hunk> {
    (0..rng.below(3))
        .map(|_| Hunk {
            lines: (0..rng.below(6))
                .map(|_| {
                    let kind = [LineKind::Context, LineKind::Add, LineKind::Remove][rng.below(3)];
                    HunkLine::new(kind, line(rng))
                })
                .collect(),
            ..Hunk::default()
        })
        .collect()
}

#[test]
fn lazy_and_eager_checks_agree_on_damaged_replies() {
    let seed = std::env::var("SALVE_PROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2511_u64);
    eprintln!("written_prop seed {seed} (SALVE_PROP_SEED)");
    let mut rng = Rng(seed);
    let formats = [
        Format::Git,
        Format::Unified,
        Format::SearchReplace,
        Format::WholeFile,
        Format::OldNewJson,
        Format::Codex,
    ];
    let paths = ["f.c", "src/f.c", "notes.md", "x"];
    let mut refused = 0;
    for case in 0..20_000 {
        let reply = text(&mut rng, 12);
        let s = ReplySyntax::of(&reply);
        let slashed: std::collections::BTreeSet<&String> = s.slashed.iter().collect();
        let eager_words = eager_slashed(&reply);
        assert_eq!(
            slashed,
            eager_words.iter().collect(),
            "case {case}: {reply:?}"
        );
        let old = text(&mut rng, 8);
        let new: Vec<String> = (0..1 + rng.below(3)).map(|_| text(&mut rng, 6)).collect();
        let pieces: Vec<&str> = new.iter().map(String::as_str).collect();
        let hs = hunks(&mut rng);
        let format = formats[rng.below(formats.len())];
        let path = paths[rng.below(paths.len())];
        let want = eager(&s, path, &old, &pieces, &hs, format);
        let mut asked = false;
        let got = s.first_written_lazy(
            path,
            || {
                asked = true;
                Cow::Borrowed(old.as_str())
            },
            &pieces,
            &hs,
            format,
        );
        assert_eq!(
            got, want,
            "case {case}: reply {reply:?} old {old:?} new {new:?}"
        );
        // A verdict that refuses needed the old text; one that found nothing suspect did not.
        assert!(got.is_none() || asked, "case {case}");
        refused += usize::from(got.is_some());
    }
    // The draw exercises both verdicts.
    assert!(refused > 100, "only {refused} refusals drawn");
}
