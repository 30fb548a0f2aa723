//! The substring rung for text replacements (old/new JSON, SEARCH/REPLACE).
//!
//! Agents that edit by "replace this text with that" (Claude Code's Edit tool and its kin) often
//! send old text that starts or ends in the middle of a line: `x = compute(1)` for the line
//! `    x = compute(1)  # note`. Hunks are line based, so the ladder cannot place such text. This
//! rung looks for the old text as an exact substring of the file, with CRLF read as LF, and
//! turns a unique occurrence into one line operation that rewrites only the lines the span
//! touches: the text before and after the span on those lines is kept byte for byte, and each
//! line keeps its own ending.
//!
//! The rung is asked only when the ladder did not match whole lines byte for byte, or (for
//! text of several lines) up to one indentation delta (`placed_by_lines`), and it comes before the
//! looser rungs, because exact bytes are stronger evidence. The rules are the ladder's: several
//! occurrences are reported, never chosen by position (explicit evidence such as a
//! `:start_line:` hint may still choose); one occurrence away from every looser whole-line
//! candidate is a second reading of the edit, so that is refused too; the new text found once,
//! with every occurrence of the old text inside it, means the edit is already there. When the
//! old text is nowhere, the rest of the ladder decides, so drifted whole-line edits still land.

use crate::diag::char_diff;
use crate::edit::{Hunk, TextPair};
use crate::locate::choose::evidence;
use crate::locate::choose::plan::{range, window_text, Edit, Plan, SHOWN};
use crate::locate::rungs::index::FileIndex;
use crate::locate::{Found, Placement};
use crate::ops::{NewLine, Op};
use crate::report::{Candidate, HunkReport, Rung, Status};
use crate::text::{Doc, Eol};

/// At most this many occurrences are collected; more only says "many".
pub(crate) const MAX_HITS: usize = 64;

/// What the old text of a replacement finds in a file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TextFound {
    /// One occurrence: the operation that replaces it (its `hunk` is 0 until the caller sets it).
    One(Op),
    /// Several occurrences, each with the operation that would replace it; at most
    /// [`MAX_HITS`].
    Many(Vec<Op>),
    /// The new text is there once and the old text is not, except inside it: lines
    /// `[start, end)`.
    AlreadyApplied { start: usize, end: usize },
    /// The old text is not in the file.
    Missing,
}

/// The file's text with every line ending read as `\n`, and where each line starts in it.
pub(crate) struct Flat {
    pub text: String,
    starts: Vec<usize>,
}

impl Flat {
    pub(crate) fn new(doc: &Doc) -> Flat {
        let mut text = String::with_capacity(doc.body.len());
        let mut starts = Vec::with_capacity(doc.len());
        for i in 0..doc.len() {
            starts.push(text.len());
            text.push_str(doc.line(i));
            if doc.eol(i) != Eol::None {
                text.push('\n');
            }
        }
        Flat { text, starts }
    }

    /// The line holding byte `off` (a line's `\n` belongs to it); `off` must be inside the text.
    fn line_at(&self, off: usize) -> usize {
        self.starts.partition_point(|&s| s <= off).saturating_sub(1)
    }

    /// Where line `i` ends, its `\n` included.
    fn line_end(&self, i: usize) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    /// The lines `[start, end)` the bytes `[a, b)` touch (an empty span touches its line).
    pub(crate) fn lines_of(&self, a: usize, b: usize) -> (usize, usize) {
        let last = if b > a { b - 1 } else { a };
        (self.line_at(a), self.line_at(last) + 1)
    }
}

/// Start offsets of every occurrence of `needle` in `hay`, overlapping ones included, at most
/// `cap`.
pub(crate) fn occurrences(hay: &str, needle: &str, cap: usize) -> Vec<usize> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    let mut from = 0;
    while let Some(k) = hay.get(from..).and_then(|h| h.find(needle)) {
        let at = from + k;
        out.push(at);
        if out.len() >= cap {
            break;
        }
        from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// Find `pair.old` in the file (see the module documentation). `absent` says the old text is not
/// in the file in any looser form either: only then does the new text alone prove the edit is
/// already there (a drifted old text, say with a typographic dash, would otherwise let a
/// deletion whose new text is its own leftover context pass as done).
pub(crate) fn find(doc: &Doc, flat: &Flat, pair: &TextPair, absent: bool) -> TextFound {
    let old = pair.old.replace("\r\n", "\n");
    let new = pair.new.replace("\r\n", "\n");
    if old.trim().is_empty() || old == new {
        return TextFound::Missing;
    }
    // An occurrence inside a longer word is not the text the model quoted (issue 14 §3 n).
    let whole = |hits: Vec<usize>, len: usize| -> Vec<usize> {
        hits.into_iter()
            .filter(|&a| !crate::locate::guards::substance::cuts_word(&flat.text, a, a + len))
            .collect()
    };
    let mut raw = occurrences(&flat.text, &old, MAX_HITS);
    raw.retain(|&a| !crate::locate::guards::joins::pulls_up_line(&flat.text, a, &old, &new));
    let mut olds = whole(raw.clone(), old.len());
    // A quote that begins where a word begins may end inside a longer one: a model quotes the
    // start of a line (`use rand` of `use rand_pcg::Pcg`). Standing so in several places, the
    // quote is ambiguous to the tool that wrote it, whose count of one fails: the one
    // whole-word place is not the only reading. One that begins mid-word (`count = 1` inside
    // `max_count = 1`) is no reading.
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let starts_mid_word = |a: usize| {
        flat.text[..a].chars().next_back().is_some_and(word) && old.chars().next().is_some_and(word)
    };
    let readings: Vec<usize> = raw.into_iter().filter(|&a| !starts_mid_word(a)).collect();
    let many_bytes = readings.len() > 1 && olds.len() == 1;
    // A deletion at the start or end of the old text leaves new text that stood in the file
    // before the edit too: finding it proves nothing (see `applied_evidence::post_image_vouches`).
    let edge_deletion = old.starts_with(new.as_str()) || old.ends_with(new.as_str());
    let multi_line = new.trim_end_matches('\n').contains('\n');
    if !new.trim().is_empty() && !edge_deletion && (!olds.is_empty() || absent) {
        let mut news = whole(occurrences(&flat.text, &new, MAX_HITS), new.len());
        // New text of several lines found starting inside a line's indentation stands at the
        // reply's levels, not the file's (a 2-space `  });` at the end of an 8-space one): the
        // line ladder weighs a result found at another indentation, this is no exact proof.
        if new.starts_with([' ', '\t']) && multi_line {
            news.retain(|&a| !inside_indentation(flat, a));
        }
        if let [n] = news[..] {
            let inside = olds
                .iter()
                .all(|&o| o >= n && o + old.len() <= n + new.len());
            if inside {
                let (start, end) = flat.lines_of(n, n + new.len());
                return TextFound::AlreadyApplied { start, end };
            }
        }
    }
    // Old text whose first line is indented less than the file's line (it starts inside the
    // line's indentation) shows the reply indents differently; its other new lines would land
    // at the reply's levels, so the line ladder, which maps levels or refuses, decides.
    if old.starts_with([' ', '\t']) && multi_line {
        olds.retain(|&a| !inside_indentation(flat, a));
    }
    if many_bytes {
        olds = readings;
    }
    match olds[..] {
        [] => TextFound::Missing,
        [a] => TextFound::One(replace_op(doc, flat, a, a + old.len(), &new)),
        _ => TextFound::Many(
            olds.iter()
                .map(|&a| replace_op(doc, flat, a, a + old.len(), &new))
                .collect(),
        ),
    }
}

/// Whether byte `a` lies inside the leading whitespace of its line, past its first column.
fn inside_indentation(flat: &Flat, a: usize) -> bool {
    let start = flat.starts[flat.line_at(a)];
    a > start && flat.text[start..a].chars().all(|c| c == ' ' || c == '\t')
}

/// The operation replacing the flat bytes `[a, b)` with `new`: the lines the span touches are
/// rewritten with the text around the span kept. When the result would not end at a line end,
/// the following line joins the operation, since the replacement runs into it.
pub(crate) fn replace_op(doc: &Doc, flat: &Flat, a: usize, b: usize, new: &str) -> Op {
    let first = flat.line_at(a);
    let mut text = String::with_capacity(new.len() + 80);
    text.push_str(&flat.text[flat.starts[first]..a]);
    text.push_str(new);
    let end = if b >= flat.text.len() {
        doc.len()
    } else {
        let j = flat.line_at(b);
        if b == flat.starts[j] && (text.is_empty() || text.ends_with('\n')) {
            j
        } else {
            text.push_str(&flat.text[b..flat.line_end(j)]);
            j + 1
        }
    };
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let pieces: Vec<&str> = if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    let old_count = end - first;
    let count = pieces.len();
    let insert = pieces
        .iter()
        .enumerate()
        .map(|(k, p)| {
            // Each rewritten line keeps the ending of the line it stands in for; the last one
            // keeps the last replaced line's, so the final-newline state never changes here.
            let eol = if k + 1 == count {
                end.checked_sub(1).map(|l| doc.eol(l))
            } else if k + 1 < old_count {
                Some(doc.eol(first + k))
            } else {
                None
            };
            NewLine {
                text: (*p).to_string(),
                eol,
            }
        })
        .collect();
    Op {
        start: first,
        end,
        insert,
        hunk: 0,
    }
}

/// The lines of an exact occurrence of the old text that lies apart from every range in
/// `placed` (where the line ladder found the old text only up to whitespace), if any. Then the
/// pair has two readings, the model's exact bytes at one place and its lines, re-spaced, at
/// another, and neither may be taken silently. Old text of whole indented lines found inside a
/// line's indentation is no exact reading: there its first line stands deeper than written,
/// re-spaced as much as the ladder's place.
pub(crate) fn exact_apart(
    flat: &Flat,
    pair: &TextPair,
    placed: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let old = pair.old.replace("\r\n", "\n");
    if old.trim().is_empty() {
        return None;
    }
    let whole_indented = old.ends_with('\n') && old.starts_with([' ', '\t']);
    occurrences(&flat.text, &old, MAX_HITS)
        .into_iter()
        .filter(|&a| !(whole_indented && inside_indentation(flat, a)))
        .map(|a| flat.lines_of(a, a + old.len()))
        .find(|&(s, e)| placed.iter().all(|&(ps, pe)| e <= ps || s >= pe))
}

/// Whether the line ladder's answer stands before the substring rung is asked: the old text
/// is whole lines of the file byte for byte, or up to one indentation delta (then the ladder
/// re-indents added lines, which a substring cannot), or the edit was found already applied.
/// Looser matches are weaker evidence than the exact bytes of a substring: trailing whitespace
/// the quote stops short of (`name:` of a line `name: `) is the file's, which a replacement of
/// the bytes keeps and a replacement of the whole line would drop.
/// A one-line replacement has no other lines to re-indent: its bytes are the better reading.
pub(crate) fn placed_by_lines(found: &Option<Found>, pair: Option<&TextPair>) -> bool {
    let one_line = pair.is_some_and(|p| {
        !p.old.trim_end_matches('\n').contains('\n') && !p.new.trim_end_matches('\n').contains('\n')
    });
    match found {
        Some(Found::AlreadyApplied { .. } | Found::Unclear { .. }) => true,
        Some(Found::Candidates(c)) => c
            .first()
            .is_some_and(|p| p.rung == Rung::Exact || (p.rung == Rung::Indent && !one_line)),
        _ => false,
    }
}

/// The substring rung for a text replacement; `None` when the old text is not in the file, so
/// the rest of the ladder decides.
pub(crate) fn by_substring(
    idx: &FileIndex,
    flat: &Flat,
    hunk: &Hunk,
    pair: &TextPair,
    found: &Option<Found>,
    i: usize,
    offsets: &[isize],
) -> Option<Plan> {
    let doc = idx.doc;
    let mut report = HunkReport::new(i, Status::Applied);
    report.rung = Some(Rung::Substring);
    // Old lines that stand with a line left out are misquoted, not absent (see
    // [`crate::locate::guards::joins::misquotes`]).
    let gapped = crate::locate::guards::joins::misquoted_at(idx, &hunk.lines);
    let absent = matches!(found, Some(Found::Nothing)) && gapped.is_empty();
    let op = match find(doc, flat, pair, absent) {
        TextFound::Missing => return None,
        TextFound::AlreadyApplied { start, end } => {
            report.status = Status::AlreadyApplied;
            report.lines = Some(range(start, end));
            return Some(Plan {
                report,
                edit: Edit::Nothing,
            });
        }
        TextFound::One(op) => op,
        TextFound::Many(ops) => {
            let ranges: Vec<(usize, usize)> = ops.iter().map(|o| (o.start, o.end)).collect();
            match evidence::choose(
                idx,
                &hunk.scopes,
                hunk.anchor,
                hunk.old_start,
                offsets,
                &ranges,
            ) {
                Some(k) => ops.into_iter().nth(k)?,
                None => {
                    let why = format!("the old text occurs {}", places(&ranges));
                    return Some(ambiguous_text(doc, pair, i, &ranges, &why));
                }
            }
        }
    };
    if !gapped.is_empty() {
        let why = format!(
            "the old text occurs once, at line {}, but its lines also stand with a line between them left out {}",
            op.start + 1,
            places(&gapped)
        );
        let mut ranges = vec![(op.start, op.end)];
        ranges.extend(gapped);
        return Some(ambiguous_text(doc, pair, i, &ranges, &why));
    }
    // Whole lines that match the old text loosely somewhere else are another reading of the
    // edit; with two readings and no way to tell them apart, refuse.
    if let Some(Found::Candidates(c)) = found {
        let loose: Vec<(usize, usize)> = c.iter().map(Placement::range).collect();
        let agrees = loose
            .iter()
            .any(|&(s, e)| s < op.end && op.start < e.max(s + 1));
        if !loose.is_empty() && !agrees {
            let why = format!(
                "the old text occurs once, at line {}, but also matches whole lines loosely {}",
                op.start + 1,
                places(&loose)
            );
            let mut ranges = vec![(op.start, op.end)];
            ranges.extend(loose);
            return Some(ambiguous_text(doc, pair, i, &ranges, &why));
        }
    }
    if let Some(plan) = crate::locate::variants::dropped::text_refusal(
        doc,
        &hunk.lines,
        pair,
        i,
        (op.start, op.end),
    ) {
        return Some(plan);
    }
    report.lines = Some(range(op.start, op.end));
    Some(Plan {
        report,
        edit: Edit::Ops {
            ops: vec![Op { hunk: i, ..op }],
            eof: None,
        },
    })
}

fn ambiguous_text(
    doc: &Doc,
    pair: &TextPair,
    i: usize,
    ranges: &[(usize, usize)],
    why: &str,
) -> Plan {
    let mut report = HunkReport::new(i, Status::Ambiguous);
    report.rung = Some(Rung::Substring);
    let expected = pair.old.trim_end_matches('\n');
    report.candidates = ranges
        .iter()
        .take(SHOWN)
        .map(|&(s, e)| {
            Candidate::new(
                range(s, e),
                1.0,
                char_diff(expected, &window_text(doc, s, e)),
            )
        })
        .collect();
    // At most MAX_HITS were collected: the count is a floor, as the message says.
    report.candidates_omitted = ranges.len().saturating_sub(SHOWN);
    report.message = Some(format!(
        "{why}; include more of the surrounding text so it matches only one place"
    ));
    Plan {
        report,
        edit: Edit::Nothing,
    }
}

/// "in N places (lines a-b, c-d, ...)" for a report message.
fn places(ranges: &[(usize, usize)]) -> String {
    let shown: Vec<String> = ranges
        .iter()
        .take(6)
        .map(|&(s, e)| {
            let r = range(s, e);
            format!("{}-{}", r.start, r.end)
        })
        .collect();
    let more = if ranges.len() > shown.len() {
        ", ..."
    } else {
        ""
    };
    let least = if ranges.len() >= MAX_HITS {
        "at least "
    } else {
        ""
    };
    format!(
        "in {least}{} places (lines {}{more})",
        ranges.len(),
        shown.join(", ")
    )
}

#[cfg(test)]
#[path = "substring_tests.rs"]
mod tests;
