//! Damaged replies, as a property (issue 23, DESIGN.md §3.3), for the damages that put edit
//! syntax where it does not belong. Every scenario reply that applies (see `damage/pool.rs`) is
//! damaged once per case:
//! - `dup-fence`: a fence opener written twice (with the path line before it written again
//!   between them, half of the time), as a model that restarts its block does;
//! - `marker-in-replace`: a marker line (`=======`, `>>>>>>> REPLACE`, `<<<<<<< SEARCH`, a Roo
//!   `:start_line:` line) inserted among a REPLACE section's lines, where the format reads it as
//!   syntax;
//! - `marker-in-hunk`: a marker line inserted without a prefix among a hunk's lines, where the
//!   format reads it as syntax too (not an `@@` line: that one is a hunk header, and splits the
//!   hunk into two hunks, a different reply);
//! - `marker-as-plus`: a marker line inserted as an added line (`+=======`) of a diff, and
//!   `marker-in-json`: inserted as a line of a tool call's JSON string (`new_string`, `content`):
//!   there the format reads it as content.
//!
//! Where the marker is syntax, salve must refuse the damaged reply or write exactly what the
//! undamaged reply writes. Where it is content, salve must write it as asked (the undamaged
//! result with the marker line beside the line it follows) and never read it as syntax: a
//! refusal as `edit_syntax` or for edit syntax in the content is wrong, while a refusal because
//! the file no longer parses (a `=======` line in Python) or for a reason of its own is counted
//! apart.
//!
//! ```text
//! SALVE_DAMAGE_CASES=100000 SALVE_DAMAGE_SEED=7 \
//!   cargo test -p salve-patch --release --test damaged_markers -- --nocapture
//! ```
//!
//! `SALVE_DAMAGE_CASES` (default 3000), `SALVE_DAMAGE_SEED` (default fixed; logged),
//! `SALVE_DAMAGE_ONLY=N` runs case N alone and prints it, `SALVE_DAMAGE_CORPUS=1` adds the
//! replies of the shared corpora (v1 and v2).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "generated/apply.rs"]
#[allow(dead_code)] // the refusal reasons are read by the generator only
mod apply;
#[path = "damage/pool.rs"]
#[allow(dead_code)] // `part_of_change` serves the cut damages only
mod pool;
#[path = "generated/rng.rs"]
#[allow(dead_code)]
mod rng;

use apply::Outcome;
use pool::{env_u64, sources, Source};
use rng::Rng;

const DEFAULT_SEED: u64 = 0x0023_0002;
const DEFAULT_CASES: u64 = 3000;

/// Marker lines of the formats salve reads. An `@@` line is content inside a REPLACE section
/// (`.patch` fixtures hold them), so it is inserted among a hunk's lines and as content only.
const MARKERS: [&str; 7] = [
    "=======",
    ">>>>>>> REPLACE",
    "<<<<<<< SEARCH",
    ":start_line:3",
    "@@ -1,2 +1,2 @@",
    "*** End Patch",
    "diff --git a/x b/x",
];

/// What the damaged reply must do.
enum Want {
    /// Refuse, or write what the undamaged reply writes.
    RefuseOrSame,
    /// Write what the undamaged reply writes with this marker line added, as content.
    Content(String),
}

struct Damaged {
    what: String,
    reply: String,
    want: Want,
}

/// Where things are in a reply, by line.
#[derive(Default)]
struct Shape {
    /// Fence openers.
    openers: Vec<usize>,
    /// Lines of REPLACE sections, and their closing markers: a marker inserted before one of
    /// them lands inside the section.
    replace: Vec<usize>,
    /// Hunk body lines that follow another body line of the same hunk.
    hunk_gaps: Vec<usize>,
    /// Added lines.
    plus: Vec<usize>,
}

fn shape(lines: &[&str]) -> Shape {
    #[derive(PartialEq)]
    enum St {
        Out,
        Search,
        Replace,
        Hunk,
    }
    let run = |l: &str, c: char| {
        let n = l.chars().take_while(|&x| x == c).count();
        (5..=9).contains(&n)
    };
    let mut s = Shape::default();
    let mut st = St::Out;
    // The open fence's character and length: a close has the same character, at least as
    // many, and nothing after them.
    let mut fence: Option<(char, usize)> = None;
    for (i, raw) in lines.iter().enumerate() {
        let l = raw.trim_end_matches('\r');
        let t = l.trim_start();
        let ch = t.chars().next().filter(|c| matches!(c, '`' | '~'));
        let n = ch.map_or(0, |c| t.chars().take_while(|&x| x == c).count());
        if st != St::Search && st != St::Replace && n >= 3 {
            match (fence, ch) {
                (None, Some(c)) => {
                    s.openers.push(i);
                    fence = Some((c, n));
                }
                (Some((c, m)), Some(c2)) if c == c2 && n >= m && t.trim_end().len() == n => {
                    fence = None;
                }
                _ => {}
            }
            st = St::Out;
            continue;
        }
        match st {
            St::Search if run(l, '=') => st = St::Replace,
            St::Replace => {
                s.replace.push(i);
                if run(l, '>') {
                    st = St::Out;
                }
            }
            St::Hunk => match l.as_bytes().first() {
                Some(b' ' | b'+' | b'-' | b'\\') if !l.starts_with("--- ") => {
                    s.hunk_gaps.push(i);
                    if l.starts_with('+') && !l.starts_with("+++ ") {
                        s.plus.push(i);
                    }
                }
                _ => st = St::Out,
            },
            _ => {}
        }
        if run(l, '<') && l.starts_with('<') {
            st = St::Search;
        } else if l.starts_with("@@") {
            st = St::Hunk;
        } else if st == St::Out && l.starts_with('+') && !l.starts_with("+++ ") {
            // A Codex chunk's or a bare body's added line outside an `@@` hunk.
            s.plus.push(i);
        }
    }
    s
}

fn insert(lines: &[&str], at: usize, new: &[&str]) -> String {
    let mut out: Vec<&str> = lines[..at].to_vec();
    out.extend_from_slice(new);
    out.extend_from_slice(&lines[at..]);
    out.join("\n")
}

/// Whether `written` is `after` with one line `marker` more, and nothing else: the marker was
/// written as content. Where the reply's new text leaves out a line the file has, a fuzzy rung
/// may put the marker a line off from where the reply shows it, and the indent rung shifts it
/// by the delta it reads between the reply and the file, as it does every added line; that is
/// the placement's business, the property asks only that the marker be content.
fn with_marker(written: &str, after: &str, marker: &str) -> bool {
    let lines: Vec<&str> = written.split_inclusive('\n').collect();
    (0..lines.len())
        .filter(|&i| lines[i].trim() == marker)
        .any(|i| {
            let mut rest = lines[..i].concat();
            rest.push_str(&lines[i + 1..].concat());
            // The marker as the last line without a newline takes the one before it.
            rest == after
                || (i + 1 == lines.len()
                    && !lines[i].ends_with('\n')
                    && rest.trim_end_matches(['\n', '\r']) == after)
        })
}

fn damage(s: &Source, rng: &mut Rng) -> Option<Damaged> {
    let lines: Vec<&str> = s.reply.split('\n').collect();
    let sh = shape(&lines);
    let marker = MARKERS[rng.below(MARKERS.len())];
    match rng.below(5) {
        0 => {
            let &k = pick(&sh.openers, rng)?;
            let path_before = k > 0 && lines[k - 1].contains(s.path.as_str());
            let (new, what) = if path_before && rng.chance(1, 2) {
                (vec![lines[k - 1], lines[k]], "path line and fence opener")
            } else {
                (vec![lines[k]], "fence opener")
            };
            Some(Damaged {
                what: format!("dup-fence: {what} of line {} written again", k + 1),
                reply: insert(&lines, k + 1, &new),
                want: Want::RefuseOrSame,
            })
        }
        1 => {
            let &k = pick(&sh.replace, rng)?;
            if marker.starts_with("@@") {
                return None;
            }
            Some(Damaged {
                what: format!("marker-in-replace: {marker:?} before line {}", k + 1),
                reply: insert(&lines, k, &[marker]),
                want: Want::RefuseOrSame,
            })
        }
        2 => {
            let &k = pick(&sh.hunk_gaps, rng)?;
            // An `@@` line without a prefix among a hunk's lines is, by the diff format, a
            // hunk header: it splits the hunk in two, a different reply rather than a reading
            // that collides with another.
            if marker.starts_with("@@") {
                return None;
            }
            Some(Damaged {
                what: format!("marker-in-hunk: {marker:?} before line {}", k + 1),
                reply: insert(&lines, k, &[marker]),
                want: Want::RefuseOrSame,
            })
        }
        3 => {
            let &k = pick(&sh.plus, rng)?;
            let plus = format!("+{marker}");
            Some(Damaged {
                what: format!("marker-as-plus: {plus:?} after line {}", k + 1),
                reply: insert(&lines, k + 1, &[&plus]),
                want: Want::Content(marker.to_owned()),
            })
        }
        _ => json_damage(s, marker, rng),
    }
}

fn pick<'a, T>(v: &'a [T], rng: &mut Rng) -> Option<&'a T> {
    (!v.is_empty()).then(|| &v[rng.below(v.len())])
}

/// Keys whose JSON string is the new text of a tool call.
const NEW_KEYS: [&str; 6] = [
    "\"new_string\"",
    "\"newString\"",
    "\"new_str\"",
    "\"content\"",
    "\"replace\"",
    "\"new\"",
];

/// A marker line inserted into a tool call's new text, after one of its `\n` escapes.
fn json_damage(s: &Source, marker: &str, rng: &mut Rng) -> Option<Damaged> {
    let key = NEW_KEYS
        .iter()
        .find_map(|k| s.reply.find(k).map(|at| at + k.len()))?;
    let open = key + s.reply[key..].find('"')? + 1;
    // The string's end: the first quote not escaped.
    let bytes = s.reply.as_bytes();
    let mut end = open;
    while end < bytes.len() && bytes[end] != b'"' {
        end += if bytes[end] == b'\\' { 2 } else { 1 };
    }
    let body = s.reply.get(open..end)?;
    let breaks: Vec<usize> = body.match_indices("\\n").map(|(i, _)| i + 2).collect();
    let &cut = pick(&breaks, rng)?;
    let decoded: String = serde_json::from_str(&format!("\"{}\"", &body[..cut])).ok()?;
    let line = decoded
        .strip_suffix('\n')?
        .rsplit('\n')
        .next()?
        .trim_end_matches('\r');
    if line.trim().is_empty() {
        return None;
    }
    let escaped = serde_json::to_string(marker).ok()?;
    let reply = format!(
        "{}{}\\n{}",
        &s.reply[..open + cut],
        &escaped[1..escaped.len() - 1],
        &s.reply[open + cut..]
    );
    Some(Damaged {
        what: format!("marker-in-json: {marker:?} after {line:?}"),
        reply,
        want: Want::Content(marker.to_owned()),
    })
}

fn show(seed: u64, index: u64, s: &Source, d: &Damaged, got: &str) {
    let plus = match &d.want {
        Want::RefuseOrSame => String::new(),
        Want::Content(m) => format!(", with the line {m:?}"),
    };
    eprintln!(
        "=== case {index} (SALVE_DAMAGE_SEED={seed:#x} SALVE_DAMAGE_ONLY={index}): {} ({}), {}\n--- reply\n{}\n--- got\n{got}\n--- wanted{plus}\n{}",
        s.name, s.path, d.what, d.reply, s.after
    );
}

#[test]
fn replies_with_misplaced_markers_are_refused_or_written_as_the_format_reads_them() {
    let seed = env_u64("SALVE_DAMAGE_SEED").unwrap_or(DEFAULT_SEED);
    let cases = env_u64("SALVE_DAMAGE_CASES").unwrap_or(DEFAULT_CASES);
    let only = env_u64("SALVE_DAMAGE_ONLY");
    let pool = sources();
    eprintln!(
        "damaged_markers: seed {seed:#x}, {} replies that apply",
        pool.len()
    );
    assert!(pool.len() >= 50, "too few scenario replies: {}", pool.len());
    let (mut refused, mut same, mut content, mut unparsed, mut drawn) = (0u64, 0, 0, 0, 0);
    let mut other = 0u64;
    let mut wrong = Vec::new();
    for index in only.map_or(0..cases, |i| i..i + 1) {
        let mut rng = Rng::new(seed, index);
        let s = &pool[rng.below(pool.len())];
        let Some(d) = damage(s, &mut rng) else {
            continue;
        };
        drawn += 1;
        let got = apply::run(&d.reply, &s.path, &s.before, None);
        let ok = match (&d.want, &got) {
            (Want::RefuseOrSame, Outcome::Refused(_)) => {
                refused += 1;
                true
            }
            (Want::RefuseOrSame, Outcome::Text(t)) => {
                same += u64::from(*t == s.after);
                *t == s.after
            }
            (Want::Content(m), Outcome::Text(t)) => {
                let ok = with_marker(t, &s.after, m);
                content += u64::from(ok);
                ok
            }
            (Want::Content(_), Outcome::Refused(why)) => {
                // Refused for reading the content as syntax: wrong. Refused because the file
                // no longer parses, or for a reason of its own (a placeholder the marker now
                // stands beside): a refusal, not a wrong write.
                let as_syntax = why.starts_with("EditSyntax") || why.contains("edit syntax");
                unparsed += u64::from(why.starts_with("Syntax"));
                other += u64::from(!as_syntax && !why.starts_with("Syntax"));
                !as_syntax
            }
        };
        if !ok || only.is_some() {
            let text = match &got {
                Outcome::Text(t) => t.clone(),
                Outcome::Refused(why) => format!("<refused: {why}>"),
            };
            show(seed, index, s, &d, &text);
        }
        if !ok {
            wrong.push(index);
        }
    }
    eprintln!(
        "damaged_markers: {cases} cases, {drawn} damaged: {refused} refused, {same} wrote what the undamaged reply writes, {content} wrote the marker as content, {unparsed} refused as content the file's syntax rejects, {other} refused as content for another reason, {} wrong",
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "wrong outcomes at cases {wrong:?} (seed {seed:#x})"
    );
}
