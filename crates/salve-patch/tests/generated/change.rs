//! The intended edit: what the model means to change, as line changes over the text it read.
//!
//! An edit is made either by a small mutation of a real file (replace, insert or delete lines,
//! change part of one line, or several of these) or taken from a real before/after pair of this
//! repository's history (by a line diff). Either way the intended text is computed here, before
//! any rendering or drift, so the check compares against what was meant and not against what a
//! renderer or the applier made of it.

use crate::rng::Rng;

/// Lines `at..at + old.len()` of the text replaced by `new`.
#[derive(Clone, Debug)]
pub struct Change {
    pub at: usize,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// For a one-line change: the part of the line replaced (old, new), so text-replacement
    /// formats can quote less than a line.
    pub sub: Option<(String, String)>,
}

/// The model's view of a file and what it means to do to it.
#[derive(Clone, Debug)]
pub struct Case {
    pub path: String,
    pub view: Vec<String>,
    /// Sorted, not overlapping, not touching.
    pub changes: Vec<Change>,
    /// How the edit was made, for the report.
    pub kind: &'static str,
}

pub fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

pub fn join(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// `view` with `changes` made.
pub fn apply(view: &[String], changes: &[Change]) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    for c in changes {
        out.extend_from_slice(&view[at..c.at]);
        out.extend(c.new.iter().cloned());
        at = c.at + c.old.len();
    }
    out.extend_from_slice(&view[at..]);
    out
}

/// Changes that turn `a` into `b`: common head and tail trimmed, the middle diffed by LCS.
/// `None` when the middle is too large to diff cheaply.
pub fn diff(a: &[String], b: &[String]) -> Option<Vec<Change>> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a2, b2) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    if a2.len() * b2.len() > 300_000 {
        return None;
    }
    // lcs[i][j]: length of the LCS of a2[i..] and b2[j..].
    let (n, m) = (a2.len(), b2.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a2[i] == b2[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out: Vec<Change> = Vec::new();
    let mut open: Option<Change> = None;
    while i < n || j < m {
        if i < n && j < m && a2[i] == b2[j] {
            out.extend(open.take());
            i += 1;
            j += 1;
            continue;
        }
        let c = open.get_or_insert_with(|| Change {
            at: head + i,
            old: Vec::new(),
            new: Vec::new(),
            sub: None,
        });
        if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            c.new.push(b2[j].clone());
            j += 1;
        } else {
            c.old.push(a2[i].clone());
            i += 1;
        }
    }
    out.extend(open);
    Some(out)
}

/// A word of `line` (letters, digits, `_`, at least 3 long): its byte range.
fn word(rng: &mut Rng, line: &str) -> Option<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    for (k, ch) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        let w = ch.is_ascii_alphanumeric() || ch == '_';
        match (w, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                if k - s >= 3 {
                    words.push((s, k));
                }
                start = None;
            }
            _ => {}
        }
    }
    (!words.is_empty()).then(|| *rng.pick(&words))
}

/// `line` with one word changed, and the part that changed (old, new) widened a little.
fn mutate(rng: &mut Rng, line: &str) -> Option<(String, (String, String))> {
    let (s, e) = word(rng, line)?;
    let w = &line[s..e];
    let new_word = match rng.below(3) {
        0 => format!("{w}_v2"),
        1 => format!("new_{w}"),
        _ => w.chars().rev().collect(),
    };
    if new_word == w {
        return None;
    }
    // Widen the replaced span by a few ASCII characters each side.
    let mut a = s;
    for _ in 0..rng.below(8) {
        if a > 0 && line.is_char_boundary(a - 1) && line.as_bytes()[a - 1].is_ascii() {
            a -= 1;
        }
    }
    let mut b = e;
    for _ in 0..rng.below(8) {
        if b < line.len() && line.as_bytes()[b].is_ascii() {
            b += 1;
        }
    }
    let new_line = format!("{}{new_word}{}", &line[..s], &line[e..]);
    let old_sub = line[a..b].to_string();
    let new_sub = format!("{}{new_word}{}", &line[a..s], &line[e..b]);
    Some((new_line, (old_sub, new_sub)))
}

/// One random change at line `at` of `view`.
fn one(rng: &mut Rng, view: &[String], at: usize, kind: usize) -> Option<Change> {
    let n = view.len();
    let take = |k: usize| view[at..(at + k).min(n)].to_vec();
    match kind {
        // Replace 1 to 4 lines by mutated versions of themselves.
        0 => {
            let old = take(rng.range(1, 4));
            let new: Vec<String> = old
                .iter()
                .map(|l| mutate(rng, l).map_or_else(|| l.clone(), |(m, _)| m))
                .collect();
            (new != old).then_some(Change {
                at,
                old,
                new,
                sub: None,
            })
        }
        // Insert 1 to 3 lines copied from elsewhere in the file.
        1 => {
            let from = rng.below(n);
            let new = view[from..(from + rng.range(1, 3)).min(n)].to_vec();
            // A copy of lines that touch or straddle the insertion point (right beside it, or
            // a rotation of them: `}`, blank, `fn main() {}` inserted after the first `}` of
            // `}`, `}`, blank, `fn main() {}`) reads as well as "already there" (a retried
            // edit), which salve takes it for by design: not made here.
            let k = new.len();
            if (at.saturating_sub(k)..=at).any(|j| view.get(j..j + k) == Some(&new[..])) {
                return None;
            }
            Some(Change {
                at,
                old: Vec::new(),
                new,
                sub: None,
            })
        }
        // Delete 1 to 3 lines.
        2 => Some(Change {
            at,
            old: take(rng.range(1, 3)),
            new: Vec::new(),
            sub: None,
        }),
        // Change part of one line.
        _ => {
            let (new, sub) = mutate(rng, &view[at])?;
            Some(Change {
                at,
                old: vec![view[at].clone()],
                new: vec![new],
                sub: Some(sub),
            })
        }
    }
}

/// A synthetic edit of `text`: one to three changes at least 12 lines apart, none touching only
/// blank lines.
pub fn synthetic(rng: &mut Rng, path: &str, text: &str) -> Option<Case> {
    let view = lines(text);
    let n = view.len();
    let count = if rng.chance(1, 3) { rng.range(2, 3) } else { 1 };
    let kind = rng.below(4);
    let mut changes: Vec<Change> = Vec::new();
    for _ in 0..count * 4 {
        if changes.len() == count {
            break;
        }
        let at = rng.below(n);
        let Some(c) = one(rng, &view, at, kind) else {
            continue;
        };
        let end = c.at + c.old.len();
        let far = changes
            .iter()
            .all(|o| end + 12 <= o.at || o.at + o.old.len() + 12 <= c.at);
        let blank = c.old.iter().chain(&c.new).all(|l| l.trim().is_empty());
        if far && !blank {
            changes.push(c);
        }
    }
    if changes.is_empty() {
        return None;
    }
    changes.sort_by_key(|c| c.at);
    Some(Case {
        path: path.to_string(),
        view,
        changes,
        kind: ["replace", "insert", "delete", "sub-line"][kind],
    })
}

/// The edit of a history pair.
pub fn from_pair(path: &str, before: &str, after: &str) -> Option<Case> {
    let view = lines(before);
    let changes = diff(&view, &lines(after))?;
    (!changes.is_empty()).then(|| Case {
        path: path.to_string(),
        view,
        changes,
        kind: "history",
    })
}
