//! The order guard (issue 14 §3 f): a relaxed rung must never reorder lines.
//!
//! Every rung ends in a map from the hunk's old-side lines to file lines, and [`crate::locate::ops_for`]
//! turns that map into line operations. The looser rungs (blank lines, context-relax, elision,
//! similar) build maps with gaps, empty spans and spans standing for several lines, where a slip
//! could put an added line on the wrong side of a kept one: a closing `}` and the `return`
//! before it swapped. Rather than trust each rung's bookkeeping, the result is checked after the
//! fact, whatever the rung:
//!
//! - every kept (context) line the map ties to one file line is that line (canonically equal),
//!   except at the similar rung, whose context may differ by design;
//! - the placed region, with the hunk's operations applied, holds the hunk's new side in the
//!   hunk's order: each kept line as the file lines it stands for, each added line as written
//!   (compared canonically, since re-indentation and Unicode folding change its bytes).
//!
//! A hunk that fails is refused, never written.

use crate::edit::{HunkLine, LineKind};
use crate::locate::Placement;
use crate::ops::Op;
use crate::report::Rung;
use crate::text::Trim as _;
use std::borrow::Cow;

use crate::text::{canonical, canonical_eq, is_blank, strip_cr, Doc};

/// Check the operations `ops` made for one placed hunk (`lines`, placed at `p`) against the
/// invariant above. The error is a message for the report.
pub(crate) fn check(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    ops: &[Op],
) -> Result<(), String> {
    let want = expected(doc, lines, p)?;
    let have = region(doc, p, ops)?;
    let mut at = 0;
    for w in &want {
        match have[at..].iter().position(|h| h.same(doc, w)) {
            Some(k) => at += k + 1,
            None => {
                return Err(format!(
                    "placing this hunk would not keep its lines in order (line {:?} is not where the hunk puts it); quote the lines around the change exactly",
                    excerpt(w.text(doc))
                ))
            }
        }
    }
    Ok(())
}

/// A line of the hunk's new side or of the placed region: a file line by its number, or text
/// the hunk writes. Kept as such rather than as canonical text, since nearly every comparison
/// is of a file line with itself or of an added line with its own copy.
#[derive(Clone, Copy)]
enum Item<'a> {
    File(usize),
    Text(&'a str),
}

impl<'a> Item<'a> {
    fn text(self, doc: &'a Doc) -> &'a str {
        match self {
            Item::File(k) => doc.line(k),
            Item::Text(t) => t,
        }
    }

    /// Equal as this check compares lines (see [`key`]).
    fn same(&self, doc: &Doc, other: &Item) -> bool {
        match (*self, *other) {
            (Item::File(a), Item::File(b)) if a == b => true,
            (a, b) => {
                let (a, b) = (strip_cr(a.text(doc)), strip_cr(b.text(doc)));
                a == b || key(a) == key(b)
            }
        }
    }
}

/// The hunk's new side as it must appear, in order: kept lines as the file lines
/// their spans cover, added lines as written. Added elision markers at the elision rung stand
/// for moved file lines and are left out (they are not in the result as written).
fn expected<'a>(
    doc: &'a Doc,
    lines: &'a [HunkLine],
    p: &Placement,
) -> Result<Vec<Item<'a>>, String> {
    let map = &p.fit.map;
    let mut want = Vec::new();
    let mut pi = 0;
    let first_change = lines.iter().position(|l| l.kind != LineKind::Context);
    let last_change = lines.iter().rposition(|l| l.kind != LineKind::Context);
    for (li, l) in lines.iter().enumerate() {
        let text = strip_cr(&l.text);
        match l.kind {
            LineKind::Remove => pi += 1,
            LineKind::Add => {
                if !(p.rung == Rung::Elision && crate::placeholder::is_marker(text)) {
                    want.push(Item::Text(text));
                }
            }
            LineKind::Context => {
                let Some(span) = map.get(pi) else {
                    return Err("the hunk does not match its placement".into());
                };
                pi += 1;
                if span.is_empty() {
                    // A kept line the placement left out (a blank the file lacks, or outer
                    // context dropped) is fine at the hunk's edges. Between changes it is a
                    // line the result needs and does not have: the changes on its two sides
                    // would close up.
                    let outer =
                        first_change.is_none_or(|f| li < f) || last_change.is_none_or(|e| li > e);
                    if !outer && !is_blank(text) {
                        return Err(format!(
                            "the unchanged line {:?} between this hunk's changes was not found where the hunk places them; quote the lines around the change exactly",
                            excerpt(text)
                        ));
                    }
                    continue;
                }
                let single = span.end == span.start + 1;
                let file = doc.line(span.start);
                let loose_context = p.rung == Rung::Similar
                    || (p.rung == Rung::Elision && crate::placeholder::is_marker(text))
                    || (is_blank(text) && is_blank(file));
                if single && !loose_context && !canonical_eq(text, file) {
                    return Err(format!(
                        "the placement ties the unchanged line {:?} to line {} of the file, which differs; quote the lines around the change exactly",
                        excerpt(text),
                        span.start + 1
                    ));
                }
                if single && p.rung == Rung::Similar && stands_elsewhere(doc, text, span.start) {
                    return Err(format!(
                        "the placement ties the unchanged line {:?} to line {} of the file, which differs, while the line as quoted stands elsewhere in the file; quote the lines around the change exactly",
                        excerpt(text),
                        span.start + 1
                    ));
                }
                want.extend((span.start..span.end).map(Item::File));
            }
        }
    }
    Ok(want)
}

/// Whether the quoted line `text`, tied by the similar rung to file line `at` that it differs
/// from, stands in the file at another line: then the quote names that line (or one of them),
/// and the fit is another place that looks alike (a sibling function with the same body, a
/// sibling loop over another range while the quoted one's edit is made already). Lines without
/// a letter or digit (braces, blanks) say nothing of where they are.
fn stands_elsewhere(doc: &Doc, text: &str, at: usize) -> bool {
    let text = strip_cr(text);
    if canonical_eq(text, doc.line(at)) || !text.chars().any(char::is_alphanumeric) {
        return false;
    }
    // An ASCII line is canonically equal only if it holds the quote's longest ASCII word (the
    // canonical form of ASCII only trims and collapses whitespace): a cheap test before the
    // comparison, since this looks at every line of the file.
    let word = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .max_by_key(|w| w.len())
        .unwrap_or_default();
    (0..doc.len()).any(|k| {
        let line = doc.line(k);
        k != at && (!line.is_ascii() || line.contains(word)) && canonical_eq(line, text)
    })
}

/// A line as this check compares it: canonical, with every run of hyphens made one, since a
/// typographic dash the fold maps back ([`crate::locate::write::fold`]) stood for a run of unknown length.
fn key(s: &str) -> Cow<'_, str> {
    let c = canonical(s);
    if !c.contains("--") {
        return c;
    }
    let mut out = String::with_capacity(c.len());
    for ch in c.chars() {
        if !(ch == '-' && out.ends_with('-')) {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// The first 60 characters of a line, for messages.
fn excerpt(s: &str) -> String {
    s.trim_ws().chars().take(60).collect()
}

/// The placed region (the placement's range widened to the operations) after the operations,
/// line by line.
fn region<'a>(doc: &Doc, p: &Placement, ops: &'a [Op]) -> Result<Vec<Item<'a>>, String> {
    let (s, e) = p.range();
    let lo = ops.iter().map(|o| o.start).fold(s, usize::min);
    let hi = ops.iter().map(|o| o.end).fold(e, usize::max).min(doc.len());
    let mut sorted: Vec<&Op> = ops.iter().collect();
    sorted.sort_by_key(|o| (o.start, o.end));
    let mut out = Vec::with_capacity(hi.saturating_sub(lo) + 8);
    let mut k = lo;
    for op in sorted {
        if op.start < k {
            return Err("the hunk's changes overlap each other where it was placed".into());
        }
        out.extend((k..op.start).map(Item::File));
        out.extend(op.insert.iter().map(|n| Item::Text(strip_cr(&n.text))));
        k = op.end;
    }
    out.extend((k..hi).map(Item::File));
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::locate::rungs::search::{Fit, Span};
    use crate::ops::NewLine;
    use crate::text::Form;

    fn placement(rung: Rung, map: Vec<Span>) -> Placement {
        Placement::new(
            rung,
            Fit {
                map,
                reindent: Default::default(),
                form: Form::Raw,
            },
            None,
        )
    }

    fn op(start: usize, end: usize, insert: &[&str]) -> Op {
        Op {
            start,
            end,
            insert: insert
                .iter()
                .map(|t| NewLine {
                    text: t.to_string(),
                    eol: None,
                })
                .collect(),
            hunk: 0,
        }
    }

    #[test]
    fn an_insertion_on_the_wrong_side_of_a_kept_line_is_refused() {
        let doc = Doc::parse("fn f() {\n    let x = 1;\n}\n");
        let lines = vec![
            HunkLine::new(LineKind::Context, "    let x = 1;"),
            HunkLine::new(LineKind::Add, "    return x;"),
            HunkLine::new(LineKind::Context, "}"),
        ];
        let p = placement(Rung::ContextRelax, vec![Span::line(1), Span::line(2)]);
        // In order: after `let`, before `}`.
        assert!(check(&doc, &lines, &p, &[op(2, 2, &["    return x;"])]).is_ok());
        // After the closing brace: the return and the brace swapped.
        assert!(check(&doc, &lines, &p, &[op(3, 3, &["    return x;"])]).is_err());
        // A removal that eats a kept line.
        assert!(check(&doc, &lines, &p, &[op(2, 3, &["    return x;"])]).is_err());
    }

    #[test]
    fn a_kept_line_left_out_between_changes_is_refused() {
        // The `}` between the two changes is not in the map: the `return` would land after
        // the brace's place closes, next to the other change.
        let doc = Doc::parse("    let x = 1;\n}\n");
        let lines = vec![
            HunkLine::new(LineKind::Remove, "    let x = 1;"),
            HunkLine::new(LineKind::Add, "    let x = 2;"),
            HunkLine::new(LineKind::Context, "}"),
            HunkLine::new(LineKind::Add, "    return x;"),
        ];
        let p = placement(Rung::ContextRelax, vec![Span::line(0), Span::empty(1)]);
        let ops = [op(0, 1, &["    let x = 2;", "    return x;"])];
        assert!(check(&doc, &lines, &p, &ops).is_err());
        // At the edge of the hunk, a left-out line is only context relaxed.
        let lines = vec![
            HunkLine::new(LineKind::Remove, "    let x = 1;"),
            HunkLine::new(LineKind::Add, "    let x = 2;"),
            HunkLine::new(LineKind::Context, "}"),
        ];
        assert!(check(&doc, &lines, &p, &[op(0, 1, &["    let x = 2;"])]).is_ok());
    }

    #[test]
    fn a_kept_line_tied_to_another_file_line_is_refused() {
        let doc = Doc::parse("a\nb\nc\n");
        let lines = vec![
            HunkLine::new(LineKind::Context, "a"),
            HunkLine::new(LineKind::Remove, "b"),
            HunkLine::new(LineKind::Context, "c"),
        ];
        let good = placement(
            Rung::BlankLines,
            vec![Span::line(0), Span::line(1), Span::line(2)],
        );
        assert!(check(&doc, &lines, &good, &[op(1, 2, &[])]).is_ok());
        let bad = placement(
            Rung::BlankLines,
            vec![Span::line(1), Span::line(1), Span::line(2)],
        );
        assert!(check(&doc, &lines, &bad, &[op(1, 2, &[])]).is_err());
        // The similar rung may keep a misremembered context line.
        let lines = vec![
            HunkLine::new(LineKind::Context, "a2"),
            HunkLine::new(LineKind::Remove, "b"),
            HunkLine::new(LineKind::Context, "c"),
        ];
        let sim = placement(
            Rung::Similar,
            vec![Span::line(0), Span::line(1), Span::line(2)],
        );
        assert!(check(&doc, &lines, &sim, &[op(1, 2, &[])]).is_ok());
    }

    #[test]
    fn a_similar_fit_whose_quoted_line_stands_elsewhere_is_refused() {
        let doc = Doc::parse("fn a(\n    x: u8,\n    y: u8,\n) {}\nfn b(\n    y: u8,\n) {}\n");
        // The quote names `fn a(` but left out `x: u8,`; the similar rung tied it to `fn b(`.
        let lines = vec![
            HunkLine::new(LineKind::Context, "fn a("),
            HunkLine::new(LineKind::Remove, "    y: u8,"),
            HunkLine::new(LineKind::Add, "    y: u16,"),
            HunkLine::new(LineKind::Context, ") {}"),
        ];
        let sim = placement(
            Rung::Similar,
            vec![Span::line(4), Span::line(5), Span::line(6)],
        );
        let err = check(&doc, &lines, &sim, &[op(5, 6, &["    y: u16,"])]).unwrap_err();
        assert!(err.contains("stands elsewhere"), "{err}");
        // A misremembered line that stands nowhere else is the similar rung's to keep.
        let lines = vec![
            HunkLine::new(LineKind::Context, "fn bee("),
            HunkLine::new(LineKind::Remove, "    y: u8,"),
            HunkLine::new(LineKind::Add, "    y: u16,"),
            HunkLine::new(LineKind::Context, ") {}"),
        ];
        assert!(check(&doc, &lines, &sim, &[op(5, 6, &["    y: u16,"])]).is_ok());
    }

    #[test]
    fn a_similar_fit_whose_quoted_line_stands_twice_elsewhere_is_refused() {
        // `for k in 0..c {` stands in the first and third loops; the fit ties it to the second's
        // `for k in c..9 {`, whose `#[allow]` line the deletion would take.
        let doc =
            Doc::parse("for k in 0..c {\n}\n#[allow]\nfor k in c..9 {\n}\nfor k in 0..c {\n}\n");
        let lines = vec![
            HunkLine::new(LineKind::Remove, "#[allow]"),
            HunkLine::new(LineKind::Context, "for k in 0..c {"),
        ];
        let sim = placement(Rung::Similar, vec![Span::line(2), Span::line(3)]);
        let err = check(&doc, &lines, &sim, &[op(2, 3, &[])]).unwrap_err();
        assert!(err.contains("stands elsewhere"), "{err}");
    }
}
