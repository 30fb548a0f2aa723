//! From line changes to the hunks a reply shows: each change with `context` lines either side,
//! changes whose context would touch merged into one hunk, as diff tools do.

use crate::change::Change;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum K {
    Ctx,
    Del,
    Add,
}

#[derive(Clone, Debug)]
pub struct Hunk {
    /// 0-based index in the view of the first pre-image line.
    pub old_at: usize,
    /// 0-based index in the intended text of the first post-image line.
    pub new_at: usize,
    pub lines: Vec<(K, String)>,
    /// The part of a line a one-line change replaces, when it is the hunk's only change.
    pub sub: Option<(String, String)>,
}

impl Hunk {
    pub fn pre(&self) -> Vec<&str> {
        self.side(K::Add)
    }

    pub fn post(&self) -> Vec<&str> {
        self.side(K::Del)
    }

    fn side(&self, skip: K) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|(k, _)| *k != skip)
            .map(|(_, l)| l.as_str())
            .collect()
    }

    pub fn count(&self, skip: K) -> usize {
        self.lines.iter().filter(|(k, _)| *k != skip).count()
    }
}

/// The hunks of `changes` over `view`, with `context` lines around each change.
pub fn hunks(view: &[String], changes: &[Change], context: usize) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    // Where the last hunk's lines stop in the view, and the running line delta.
    let mut end = 0;
    let mut delta: isize = 0;
    for c in changes {
        let from = c.at.saturating_sub(context);
        if out.is_empty() || from > end {
            out.push(Hunk {
                old_at: from,
                new_at: (from as isize + delta) as usize,
                lines: Vec::new(),
                sub: c.sub.clone(),
            });
            end = from;
        }
        let Some(h) = out.last_mut() else {
            continue;
        };
        if h.lines.iter().any(|(k, _)| *k != K::Ctx) {
            // A second change in this hunk: the part-of-a-line form no longer covers it.
            h.sub = None;
        }
        // The previous change's trailing context may run into this change: drop that part.
        while end > c.at {
            h.lines.pop();
            end -= 1;
        }
        for l in &view[end..c.at] {
            h.lines.push((K::Ctx, l.clone()));
        }
        h.lines.extend(c.old.iter().map(|l| (K::Del, l.clone())));
        h.lines.extend(c.new.iter().map(|l| (K::Add, l.clone())));
        let after = c.at + c.old.len();
        end = (after + context).min(view.len());
        for l in &view[after..end] {
            h.lines.push((K::Ctx, l.clone()));
        }
        delta += c.new.len() as isize - c.old.len() as isize;
    }
    out
}

/// Every index of `lines` where `pat` starts (nothing for an empty pattern).
pub fn find(lines: &[String], pat: &[&str]) -> Vec<usize> {
    if pat.is_empty() || pat.len() > lines.len() {
        return Vec::new();
    }
    (0..=lines.len() - pat.len())
        .filter(|&i| pat.iter().zip(&lines[i..]).all(|(p, l)| p == l))
        .collect()
}

/// True when a drift made some hunk quote, byte for byte, lines of the view other than its
/// own: the reply then describes another edit exactly, and no applier could tell.
///
/// Compared loosely (whitespace and typographic quotes ignored, blank lines skipped), since a
/// drift can as well make the quote fit another place better than its own by the ladder's
/// order (a dropped blank line making it another block's lines, re-indented).
pub fn quotes_elsewhere(view: &[String], hunks: &[Hunk]) -> bool {
    quotes(view, hunks, false)
}

/// True when some hunk's quote fits the view anywhere, its own place included, compared as in
/// [`quotes_elsewhere`]. A drift that leaves out a quoted line makes a quote that fits nowhere
/// as written; one that still fits (loosely) reads as another edit of those lines.
pub fn quotes_anywhere(view: &[String], hunks: &[Hunk]) -> bool {
    quotes(view, hunks, true)
}

fn quotes(view: &[String], hunks: &[Hunk], own_too: bool) -> bool {
    let loose = |l: &str| -> String {
        l.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| match c {
                '\u{201c}' | '\u{201d}' => '"',
                '\u{2019}' => '\'',
                '\u{2013}' => '-',
                c => c,
            })
            .collect()
    };
    // The view's non-blank lines, loosely, with their line numbers.
    let lines: Vec<(usize, String)> = view
        .iter()
        .enumerate()
        .map(|(i, l)| (i, loose(l)))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let keys: Vec<String> = lines.iter().map(|(_, l)| l.clone()).collect();
    hunks.iter().any(|h| {
        let pat: Vec<String> = h
            .pre()
            .iter()
            .map(|l| loose(l))
            .filter(|l| !l.is_empty())
            .collect();
        let pat: Vec<&str> = pat.iter().map(String::as_str).collect();
        let own = lines.iter().position(|(i, _)| *i >= h.old_at);
        find(&keys, &pat).iter().any(|&k| own_too || Some(k) != own)
    })
}

/// True when every hunk's part-of-a-line old text stands exactly once in the file `lines`.
pub fn sub_once(lines: &[String], hunks: &[Hunk]) -> bool {
    let joined = crate::change::join(lines);
    hunks.iter().all(|h| match &h.sub {
        Some((old, _)) => joined.matches(old.as_str()).count() == 1,
        None => true,
    })
}

/// True when some hunk's old text still stands in `text` once the edit is made: retried, the
/// edit could as well mean that other place, so "already applied" is not the one answer.
///
/// `text`: the reply gives old text as a string (SEARCH/REPLACE, `old_string`), which the agents'
/// tools find as a substring: a quote that starts or ends with a blank line then also fits
/// text that starts or ends mid-line (seed 777, case 2979: `"    }\n}\n"` quoted a `}` before a
/// blank line and stood once more at the end of the file; seed 9, case 5872: a SEARCH opening
/// with a blank line fit the end of the line before).
pub fn old_survives(lines: &[String], hunks: &[Hunk], sub: bool, text: bool) -> bool {
    let joined = crate::change::join(lines);
    hunks.iter().any(|h| match (&h.sub, sub) {
        (Some((old, _)), true) => joined.contains(old.as_str()),
        _ => !find(lines, &h.pre()).is_empty() || (text && joined.contains(&h.pre().join("\n"))),
    })
}

/// True when some hunk's part-of-a-line quote begins inside a word (or inside a line's
/// indentation) in one place of `lines` and where a word (or a line) begins in another. To salve
/// a quote that begins mid-word is no reading of that place (issue 14 §3 n: `count = 1` is not
/// the tail of `max_count = 1`), and an old text equal to a whole line is placed on that line by
/// the line ladder before any substring is looked for; so the reply reads as the other place.
/// The agent's own tool, which wants its old text once, would have refused it. Such a quote is
/// not drawn (seed 1007: `x: usize)` cut from `index: usize)` beside `self, x: usize)`; seed
/// 2027: `    where` cut from the indentation of `            where` beside the line `    where`).
pub fn quote_begins_mid_word(lines: &[String], hunks: &[Hunk]) -> bool {
    let joined = crate::change::join(lines);
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let blank = |c: char| c == ' ' || c == '\t';
    hunks.iter().any(|h| {
        let Some((old, _)) = &h.sub else {
            return false;
        };
        let Some(first) = old.chars().next() else {
            return false;
        };
        let (mut inside, mut begins) = (false, false);
        for (at, _) in joined.match_indices(old.as_str()) {
            let before = joined[..at].chars().next_back();
            let within = if word(first) {
                before.is_some_and(word)
            } else if blank(first) {
                before.is_some_and(blank)
            } else {
                false
            };
            if within {
                inside = true;
            } else {
                begins = true;
            }
        }
        inside && begins
    })
}
