//! No unexplained loss (DESIGN.md §3.3): a whole-file replacement that is one stretch of the
//! file it replaces, the rest missing, is a reply cut short, not a rewrite.
//!
//! The check reads the old text, the new text and what the reply says beside the block, never
//! which reader produced the content, so a fenced block, a Claude `Write`, a Gemini
//! `write_file` and a Cline `<write_to_file>` are judged alike.
//!
//! The new content is compared with the file line by line (trailing whitespace aside). It is a
//! *stretch* of the file when most of its lines (two in three) are file lines, and it leaves out
//! a run of file lines at the file's start or end with fewer than half as many lines in their
//! place: the file's beginning, its end, or a middle part, with the edits the model made inside
//! it. Then:
//! - a sentence beside the block that says the rest of the file is unchanged (the parser's
//!   [`crate::Extraction::rest_unchanged`]) makes content that stops before the file's last
//!   line a head: the rest is filled in from the file where it begins certainly
//!   ([`rest::resume`](crate::locate::whole::rest::resume)). A sentence is weaker than a placeholder line:
//!   models write "This keeps the rest of the file unchanged." after complete files too (a
//!   rewrite that deletes the file's last lines among them), so where the rest cannot be
//!   placed the content is judged by the rules below as if nothing were said; a missing
//!   beginning is not filled, and refuses;
//! - a last line `...` (Python's Ellipsis, which passes as code there) after which file lines
//!   are missing, or at column 0 (no module ends on an Ellipsis), says the content stops:
//!   refused;
//! - content with placeholders filled in (`// ... existing code ...`) says with them which file
//!   lines it leaves out; a run left out at the file's start or end that no placeholder stands
//!   for is then a reply cut short as much as a deletion, however short: refused (the rule for
//!   edit snippets without a leading or trailing marker, issue 28);
//! - otherwise, losing at least [`MIN_LOST`] lines and a fifth of the file is refused as
//!   [`Status::Truncated`]. A smaller loss is what a rewrite that deletes a function or a stale
//!   section at the end looks like, and is written.
//!
//! A new content made mostly of new text is a rewrite, however much it deletes, and is never
//! judged here. A cut that is really meant is confirmed by the caller (`allow_shrink`), or
//! written as an edit that deletes the lines.

use similar::DiffOp;

use crate::locate::rungs::index::FileIndex;
use crate::locate::whole::rest;
use crate::locate::whole::FillError;
use crate::report::Status;
use crate::text::{has_words, is_blank, Doc};

/// Fewest file lines a stretch must leave out, without a word from the reply, to be a cut.
pub(crate) const MIN_LOST: usize = 8;

/// The share of the file (one part in this many) a stretch must leave out to be a cut.
const LOST_SHARE: usize = 5;

/// What the new content leaves out of the file, when it is a stretch of it.
#[derive(Debug, PartialEq, Eq)]
struct Stretch {
    /// File lines left out before the first kept line.
    head: usize,
    /// File lines left out after the last kept line.
    tail: usize,
    /// File lines after the last kept line, whatever the content has in their place.
    left_out: usize,
    /// The file lines `[start, end)` the content keeps, 1-based for messages.
    start: usize,
    end: usize,
}

/// Check `lines`, the new content of a file that held `source` (gaps already filled), and fill
/// a missing end in from the file where `rest_unchanged` says so. `Err` refuses the file as
/// [`Status::Truncated`].
pub(crate) fn check(
    source: &Doc,
    lines: Vec<String>,
    rest_unchanged: bool,
    placeholders: bool,
) -> Result<Vec<String>, FillError> {
    let dotted = ends_with_dots(&lines);
    let shown = if dotted {
        trimmed_end(&lines)
    } else {
        lines.len()
    };
    // The same last lines can end two functions: the stretch says whether lines were left out.
    // A content at least as long as the file, ending as it does, is the whole file whatever the
    // prose says; a shorter one may end like the file by a block that ends alike.
    let short = |s: &Stretch| s.tail > 0;
    let whole = reaches_end(source, &lines)
        && lines.len() >= source.len()
        && !stretch(source, &lines).as_ref().is_some_and(short);
    if rest_unchanged && !dotted && !source.is_empty() && !whole {
        // The reply says the file goes on: whatever the content keeps, it is the head, and
        // the rest is the file's own from where the head ends.
        if stretch(source, &lines).is_some_and(|s| s.head > 0) {
            return Err(said_rest(
                "the file's beginning is missing too, so the content is no head of it",
            ));
        }
        // Where the rest cannot be placed, the sentence may be the one models write after a
        // complete file too ("This keeps the rest of the file unchanged."): the content is
        // judged as it stands, as if nothing were said.
        if let Some(filled) = fill_rest(source, &lines) {
            return Ok(filled);
        }
    }
    if dotted && at_column_zero(&lines) && !source.is_empty() {
        return Err(FillError {
            status: Status::Truncated,
            message: "the new content ends with a line `...`, which says it stops there: the file is cut short; write the whole file, or the changed lines as an edit".into(),
        });
    }
    let Some(s) = stretch(source, &lines[..shown]) else {
        return Ok(lines);
    };
    let cut = |why: String| {
        FillError {
        status: Status::Truncated,
        message: format!(
            "the new content is lines {}-{} of the file as it stands (with its edits) and leaves out {} line(s) {}: {why}; write the whole file, or confirm that the deletion is meant",
            s.start,
            s.end,
            s.head + s.tail.max(s.left_out),
            match (s.head, s.tail.max(s.left_out)) {
                (0, _) => "after them",
                (_, 0) => "before them",
                _ => "around them",
            }
        ),
    }
    };
    if dotted && s.left_out > 0 {
        return Err(cut(
            "its last line `...` says the content stops there".into()
        ));
    }
    let lost = s.head + s.tail;
    if placeholders && lost > 0 {
        return Err(cut(
            "its placeholders stand for the lines it leaves out inside the file, and none stands for these: a reply cut short and a deletion read alike".into(),
        ));
    }
    if lost >= MIN_LOST && lost * LOST_SHARE >= source.len() {
        return Err(cut("a reply cut short, not a rewrite".into()));
    }
    Ok(lines)
}

/// The refusal of content beside a "rest unchanged" sentence that cannot be filled in.
fn said_rest(why: &str) -> FillError {
    FillError {
        status: Status::Truncated,
        message: format!(
            "the reply says the rest of the file is unchanged, but the content stops before the file's end and {why}; write the whole file, or the changed lines as an edit"
        ),
    }
}

/// Whether the content's last line with words is the file's last such line: content that
/// reaches the file's end has no rest to fill, whatever the prose around it says.
fn reaches_end(source: &Doc, lines: &[String]) -> bool {
    // Compared from their last lines with words on (`}` ends every block of a C file), blank
    // lines aside: the closing lines after them must be the file's too.
    fn tail<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> Vec<&'a str> {
        let mut out = Vec::new();
        for l in lines.rev().filter(|l| !is_blank(l)) {
            out.push(l.trim_end());
            if has_words(l) {
                break;
            }
        }
        out
    }
    let new = tail(lines.iter().map(String::as_str));
    let old = tail((0..source.len()).map(|k| source.line(k)));
    new.is_empty() || old.is_empty() || new == old
}

/// Whether the content's last non-blank line is a bare `...` (or `…`).
fn ends_with_dots(lines: &[String]) -> bool {
    lines
        .iter()
        .rev()
        .find(|l| !is_blank(l))
        .is_some_and(|l| matches!(l.trim(), "..." | "\u{2026}"))
}

/// Whether the content's last non-blank line (its `...`) stands at column 0: no file ends on a
/// module-level Ellipsis, so there it says the content stops, whatever was left out.
fn at_column_zero(lines: &[String]) -> bool {
    lines
        .iter()
        .rev()
        .find(|l| !is_blank(l))
        .is_some_and(|l| !l.starts_with([' ', '\t']))
}

/// How many lines are left once the last non-blank line and the blank lines after it go.
fn trimmed_end(lines: &[String]) -> usize {
    lines.iter().rposition(|l| !is_blank(l)).unwrap_or(0)
}

/// What `new` leaves out of `source` when it is a stretch of it (see the module docs).
fn stretch(source: &Doc, new: &[String]) -> Option<Stretch> {
    if source.is_empty() || new.is_empty() {
        return None;
    }
    let old: Vec<&str> = (0..source.len())
        .map(|k| source.line(k).trim_end())
        .collect();
    let new: Vec<&str> = new.iter().map(|l| l.trim_end()).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new);
    let equal: Vec<(usize, usize, usize)> = ops
        .iter()
        .filter_map(|op| match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => Some((old_index, new_index, len)),
            _ => None,
        })
        .collect();
    let kept: usize = equal.iter().map(|e| e.2).sum();
    // Where the kept stretch begins and ends is read from runs with words: the diff may as well
    // match the content's last blank line or `}` with the file's very last one.
    let worded: Vec<&(usize, usize, usize)> = equal
        .iter()
        .filter(|&&(o, _, len)| old[o..o + len].iter().any(|l| has_words(l)))
        .collect();
    let (&&(first_old, first_new, _), &&(last_old, last_new, last_len)) =
        (worded.first()?, worded.last()?);
    if kept * 3 < new.len() * 2 {
        return None; // mostly new text: a rewrite
    }
    let lost = |left_out: usize, in_place: usize| {
        if in_place * 2 < left_out {
            left_out
        } else {
            0
        }
    };
    let old_end = last_old + last_len;
    let head = lost(first_old, first_new);
    let tail = lost(old.len() - old_end, new.len() - (last_new + last_len));
    let left_out = old.len() - old_end;
    (head + tail > 0 || left_out > 0).then_some(Stretch {
        head,
        tail,
        left_out,
        start: first_old + 1,
        end: old_end,
    })
}

/// The content with the file's lines after its last kept line added, where that is certain
/// and the content changes something ([`rest::resume`](crate::locate::whole::rest::resume)).
fn fill_rest(source: &Doc, lines: &[String]) -> Option<Vec<String>> {
    let idx = FileIndex::new(source);
    let view: Vec<&str> = lines.iter().map(String::as_str).collect();
    let from = rest::resume(&idx, &view, view.len(), 0, 0).ok()?;
    let mut out = lines.to_vec();
    out.extend((from..source.len()).map(|k| source.line(k).to_string()));
    let unchanged =
        out.len() == source.len() && out.iter().enumerate().all(|(k, l)| l == source.line(k));
    (!unchanged).then_some(out)
}

#[cfg(test)]
#[path = "cut_tests.rs"]
mod tests;
