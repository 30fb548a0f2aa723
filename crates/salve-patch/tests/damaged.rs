//! Damaged replies, as a property (issue 23, DESIGN.md §3.3): take the scenario replies that
//! apply, damage them the way real replies are damaged, and check that salve either refuses the
//! damaged reply or writes exactly what the undamaged one writes, never a third text.
//!
//! Damages drawn:
//! - the reply cut at a random byte inside its edit (from the first line that opens one);
//! - the file the reply writes, sent whole and cut at a random line, with a trailing `...`, a
//!   `... rest unchanged ...` comment, a "rest is unchanged" sentence after the block, or
//!   nothing, as a fenced block or a Claude `Write` call.
//!
//! Two kinds of written cases are counted and listed with `SALVE_DAMAGE_SHOW=1`, but do not
//! fail the run, since the damaged reply means something else than the undamaged one:
//! - a whole file cut with nothing to say so, losing only a few lines (below the cut rule of
//!   `locate::cut`), reads like a rewrite that deletes them (`unmarked`). A "rest is unchanged"
//!   sentence after the block counts the same where the rest cannot be placed: models write it
//!   after complete files too (the corpus does), so it fills the rest only when certain;
//! - a whole file cut with a `... rest unchanged ...` line where the rest held edits of the
//!   undamaged reply: salve fills in the file's own rest, as the damaged reply asks
//!   (`false_rest`).
//!
//! A reply cut at a byte is refused when the cut left a sign (DESIGN.md §3.3): the reply stops
//! with no newline inside an edit's structure (a hunk line the file shows cut short, an unclosed
//! fence, the start of a marker or header, a path line), a hunk short of its counts at the very
//! end, a header or a path line with nothing after it. A cut that leaves no sign is a shorter,
//! complete reply, counted apart (`silent`, see [`silent_cut`]) when what it writes is part of
//! the undamaged change ([`pool::part_of_change`]); any other write is wrong.
//!
//! The CI run is bounded; longer runs by hand:
//!
//! ```text
//! SALVE_DAMAGE_CASES=100000 SALVE_DAMAGE_SEED=12345 \
//!   cargo test -p salve-patch --release --test damaged -- --nocapture
//! ```
//!
//! `SALVE_DAMAGE_ONLY=N` runs case N alone and prints it, `SALVE_DAMAGE_SHOW=1` prints every
//! case written that is not the undamaged text, `SALVE_DAMAGE_CORPUS=1` adds the replies of
//! the shared corpora (v1 and v2) to the scenario folders'.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "generated/apply.rs"]
#[allow(dead_code)] // the refusal reasons are read by the generator only
mod apply;
#[path = "damage/pool.rs"]
mod pool;
#[path = "generated/rng.rs"]
#[allow(dead_code)]
mod rng;

use apply::Outcome;
use pool::{env_u64, part_of_change, sources, Source};
use rng::Rng;

const DEFAULT_SEED: u64 = 0xDA3A_2023;
const DEFAULT_CASES: u64 = 3000;

/// How a whole file cut short says so, if at all.
#[derive(Clone, Copy, Debug)]
enum Mark {
    None,
    Dots,
    Comment,
    Sentence,
}

/// One damaged reply and what it is.
struct Damaged {
    what: String,
    reply: String,
    /// The reply cut at a byte where the cut leaves no sign (see [`silent_cut`]).
    silent: bool,
    /// A whole file cut with nothing to say so, or only a sentence after it.
    unmarked: bool,
    /// A whole file cut with a "rest unchanged" placeholder line where the rest held edits:
    /// the damaged reply says something else than the undamaged one.
    false_rest: bool,
}

/// Where the reply's edit begins: the first line that opens a fence, a block, a diff or a call.
fn edit_start(reply: &str) -> usize {
    let opens = [
        "```",
        "~~~",
        "<<<<<<<",
        "--- ",
        "diff --git",
        "@@",
        "*** Begin",
        "{",
        "[",
        "<",
    ];
    let mut at = 0;
    for line in reply.split_inclusive('\n') {
        if opens.iter().any(|o| line.trim_start().starts_with(o)) {
            return at;
        }
        at += line.len();
    }
    0
}

fn byte_cut(s: &Source, rng: &mut Rng) -> Option<Damaged> {
    let start = edit_start(&s.reply);
    let len = s.reply.len();
    if len <= start + 1 {
        return None;
    }
    let mut at = rng.range(start + 1, len - 1);
    while !s.reply.is_char_boundary(at) {
        at -= 1;
    }
    Some(Damaged {
        what: format!("reply cut at byte {at} of {len}"),
        reply: s.reply[..at].to_string(),
        silent: silent_cut(&s.reply, at),
        unmarked: false,
        false_rest: false,
    })
}

/// The tokens that open or close an edit's structure, or head a file's diff: a cut inside one
/// of these lines, or right after an opener or a header, leaves a sign.
const SYNTAX: [&str; 12] = [
    "@@",
    "--- ",
    "+++ ",
    "diff --git",
    "index ",
    "*** ",
    "<<<<<<<",
    "=======",
    ">>>>>>>",
    "```",
    "~~~",
    "\\",
];

/// A diff hunk as the cut reply shows it so far.
struct Tally {
    counts: Option<(usize, usize)>,
    old: usize,
    new: usize,
    changed: bool,
    last: u8,
}

impl Tally {
    fn open(header: &str) -> Tally {
        let nums = |s: &str| -> Option<usize> {
            let s = s.split(',').nth(1).unwrap_or("1");
            s.parse().ok()
        };
        let mut it = header.split_whitespace().skip(1);
        let counts = match (it.next(), it.next()) {
            (Some(o), Some(n)) if o.starts_with('-') && n.starts_with('+') => {
                nums(&o[1..]).zip(nums(&n[1..]))
            }
            _ => None,
        };
        Tally {
            counts,
            old: 0,
            new: 0,
            changed: false,
            last: b' ',
        }
    }

    /// Short of its counts on both sides: a body one line short on one side is as often a
    /// header that miscounts (complete replies in the corpus do).
    fn short_both(&self) -> bool {
        self.counts
            .is_some_and(|(o, n)| self.old < o && self.new < n)
    }

    fn met(&self) -> bool {
        self.counts
            .is_none_or(|(o, n)| self.old >= o && self.new >= n)
    }

    fn push(&mut self, prefix: u8) {
        match prefix {
            b'+' => self.new += 1,
            b'-' => self.old += 1,
            _ => {
                self.old += 1;
                self.new += 1;
            }
        }
        self.changed |= prefix != b' ';
        self.last = prefix;
    }
}

/// How deep `text` stands inside JSON objects and arrays, strings aside.
fn json_depth(text: &str) -> i64 {
    let (mut depth, mut string, mut escaped) = (0i64, false, false);
    for c in text.chars() {
        match (string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => string = false,
            (false, _, '"') => string = true,
            (false, _, '{' | '[') => depth += 1,
            (false, _, '}' | ']') => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// Whether a cut at byte `at` of `reply` leaves no sign of itself, so that the cut reply is a
/// shorter, complete reply. It does when, outside every fence, SEARCH/REPLACE block and Codex
/// patch, the cut
/// falls
/// - inside an added line (`+`) of a hunk whose counts the cut reply meets, or has none: the
///   line as cut reads as a whole line;
/// - at the end of a hunk's line, where the hunk has changed something and is not left short
///   of its counts on both sides on a changed line (short on one side, it reads as a header
///   that miscounts, which complete replies have);
/// - inside prose, or at the end of a line that is neither a header, an opener nor a path line
///   (a line a fence or a block follows).
///
/// A cut in a JSON reply leaves no sign only at a line's end between whole values (one object
/// per line); an XML tool call always closes, so every cut in one leaves a sign.
fn silent_cut(reply: &str, at: usize) -> bool {
    let opening = reply[edit_start(reply)..].trim_start();
    let head = &reply[..at];
    let rest = &reply[at..];
    let whole = head.ends_with('\n') || rest.starts_with('\n') || rest.starts_with("\r\n");
    if opening.starts_with('{') || opening.starts_with('[') {
        // Between two whole JSON values (one per line), a cut leaves complete ones.
        return whole && json_depth(head) == 0;
    }
    if opening.starts_with('<') && !opening.starts_with("<<<") {
        return false;
    }
    let lines: Vec<&str> = head
        .strip_suffix('\n')
        .unwrap_or(head)
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let (mut fence, mut search) = (false, false);
    let mut hunk: Option<Tally> = None;
    for l in &lines {
        if l.starts_with("@@") {
            hunk = Some(Tally::open(l));
            continue;
        }
        // A hunk's lines are its own, whatever they hold (a ` ```` ` context line).
        if let Some(h) = hunk.as_mut() {
            match l.as_bytes().first() {
                Some(&p @ (b' ' | b'+' | b'-'))
                    if !l.starts_with("--- ") && !l.starts_with("+++ ") =>
                {
                    h.push(p);
                    continue;
                }
                Some(b'\\') => continue,
                None if !h.met() => {
                    h.push(b' ');
                    continue;
                }
                _ => hunk = None,
            }
        }
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        if t.starts_with("<<<<<<<") || t.starts_with("*** Begin Patch") {
            search = true;
        } else if t.starts_with(">>>>>>>") || t.starts_with("*** End Patch") {
            search = false;
        }
    }
    let last = lines.last().copied().unwrap_or("");
    // The whole line the cut falls in (or ends), as the undamaged reply has it.
    let full = if whole {
        last.to_string()
    } else {
        format!("{last}{}", rest.split('\n').next().unwrap_or(""))
    };
    let syntax = SYNTAX.iter().any(|s| full.trim_start().starts_with(s));
    if fence || search {
        return false;
    }
    // A whole path line is one when a fence or a block follows it.
    let after = rest.split('\n').skip(usize::from(!head.ends_with('\n')));
    let next = after.map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let path_line = !full.trim().is_empty()
        && (next.starts_with("```") || next.starts_with("~~~") || next.starts_with("<<<<<<<"));
    match (&hunk, whole) {
        (Some(h), false) => h.last == b'+' && h.met() && last.starts_with('+'),
        (Some(h), true) => h.changed && !(h.short_both() && h.last != b' '),
        (None, false) => !syntax,
        (None, true) => {
            let closer = ["```", "~~~", ">>>>>>>"]
                .iter()
                .any(|c| full.trim_start().starts_with(c));
            closer || (!syntax && !path_line)
        }
    }
}

fn comment_for(path: &str) -> &'static str {
    let hash = [
        ".py", ".sh", ".rb", ".toml", ".yml", ".yaml", ".pl", ".r", ".cfg", ".ini",
    ];
    if hash.iter().any(|e| path.ends_with(e)) {
        "# ... rest of the file unchanged ..."
    } else if path.ends_with(".md") || path.ends_with(".html") {
        "<!-- ... rest of the file unchanged ... -->"
    } else {
        "// ... rest of the file unchanged ..."
    }
}

fn whole_cut(s: &Source, rng: &mut Rng) -> Option<Damaged> {
    let lines: Vec<&str> = s.after.lines().collect();
    if lines.len() < 2 {
        return None;
    }
    let keep = rng.range(1, lines.len() - 1);
    let mark = [Mark::None, Mark::Dots, Mark::Comment, Mark::Sentence][rng.below(4)];
    let mut content: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
    match mark {
        Mark::Dots => content.push_str("...\n"),
        Mark::Comment => {
            content.push_str(comment_for(&s.path));
            content.push('\n');
        }
        Mark::None | Mark::Sentence => {}
    }
    let fence = if content.contains("```") {
        "~~~~"
    } else {
        "```"
    };
    let call = matches!(mark, Mark::None) && rng.chance(1, 3);
    let reply = if call {
        let v = serde_json::json!({"name": "Write", "input": {"file_path": s.path, "content": content}});
        format!("{v}\n")
    } else {
        let mut r = format!("{}\n{fence}\n{content}{fence}\n", s.path);
        if matches!(mark, Mark::Sentence) {
            r.push_str("\nThe rest of the file is unchanged.\n");
        }
        r
    };
    Some(Damaged {
        what: format!(
            "whole file cut after line {keep} of {}, {mark:?}{}",
            lines.len(),
            if call { ", as a Write call" } else { "" }
        ),
        reply,
        silent: false,
        unmarked: matches!(mark, Mark::None | Mark::Sentence),
        false_rest: matches!(mark, Mark::Comment) && !rest_kept(s, keep),
    })
}

/// Whether the lines of the new text after its first `keep` lines are the old text's own end:
/// then "the rest is unchanged" is true of the cut.
fn rest_kept(s: &Source, keep: usize) -> bool {
    let new: Vec<&str> = s.after.lines().collect();
    let old: Vec<&str> = s.before.lines().collect();
    let rest = &new[keep..];
    // Where the file's own rest begins: after the last line shown, when the file has it once
    // (a reply that moves lines keeps the file's end, but not all of what follows that line).
    let at: Vec<usize> = (0..old.len())
        .filter(|&i| old[i] == new[keep - 1])
        .collect();
    if let [i] = at[..] {
        return old[i + 1..] == *rest;
    }
    rest.len() <= old.len() && old[old.len() - rest.len()..] == *rest
}

fn show(seed: u64, index: u64, s: &Source, d: &Damaged, got: &str) {
    eprintln!(
        "=== case {index} (SALVE_DAMAGE_SEED={seed:#x} SALVE_DAMAGE_ONLY={index}): {} ({}), {}\n--- reply\n{}\n--- written\n{got}\n--- expected\n{}",
        s.name, s.path, d.what, d.reply, s.after
    );
}

#[test]
fn damaged_replies_are_refused_or_write_what_the_undamaged_reply_writes() {
    let seed = env_u64("SALVE_DAMAGE_SEED").unwrap_or(DEFAULT_SEED);
    let cases = env_u64("SALVE_DAMAGE_CASES").unwrap_or(DEFAULT_CASES);
    let only = env_u64("SALVE_DAMAGE_ONLY");
    let verbose = std::env::var("SALVE_DAMAGE_SHOW").is_ok();
    let pool = sources();
    eprintln!(
        "damaged: seed {seed:#x}, {} scenario replies that apply",
        pool.len()
    );
    assert!(pool.len() >= 50, "too few scenario replies: {}", pool.len());
    let (mut refused, mut same, mut unmarked, mut false_rest) = (0u64, 0u64, 0u64, 0u64);
    let mut silent = 0u64;
    let mut wrong = Vec::new();
    for index in only.map_or(0..cases, |i| i..i + 1) {
        let mut rng = Rng::new(seed, index);
        let s = &pool[rng.below(pool.len())];
        let damaged = if rng.chance(1, 2) {
            byte_cut(s, &mut rng)
        } else {
            whole_cut(s, &mut rng)
        };
        let Some(d) = damaged else { continue };
        match apply::run(&d.reply, &s.path, &s.before, None) {
            Outcome::Refused(_) => refused += 1,
            Outcome::Text(t) if t == s.after => same += 1,
            Outcome::Text(t) => {
                if d.false_rest {
                    false_rest += 1;
                    if verbose {
                        show(seed, index, s, &d, &t);
                    }
                } else if d.unmarked {
                    unmarked += 1;
                    if verbose {
                        show(seed, index, s, &d, &t);
                    }
                } else if d.silent && part_of_change(&s.before, &t, &s.after) {
                    silent += 1;
                    if verbose {
                        show(seed, index, s, &d, &t);
                    }
                } else {
                    show(seed, index, s, &d, &t);
                    wrong.push(index);
                }
            }
        }
        if only.is_some() {
            eprintln!("case {index}: {}", d.what);
        }
    }
    eprintln!(
        "damaged: {cases} cases: {refused} refused, {same} wrote what the undamaged reply writes, {unmarked} whole-file cuts without a placeholder line written, {false_rest} cuts saying the rest is unchanged where it was not filled in from the file, {silent} byte cuts leaving no sign written as part of the change, {} wrong",
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "wrong writes at cases {wrong:?} (seed {seed:#x})"
    );
}
