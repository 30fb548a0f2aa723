//! Blank lines the file lacks: which of the hunk's blanks stand for the file's is sometimes open.
//!
//! The blank-lines rung places a hunk whose old side has more blank lines in a row than the file
//! by giving the file's blanks to some of the hunk's and leaving the rest out (empty spans), the
//! first ones first. When the hunk's new lines sit between two blanks of such a run, the choice
//! decides on which side of the file's blank line they land: a model that quoted one blank too
//! many gives no clue which. Nor when the run mixes kept and removed blanks: whether the file's
//! blank is removed depends on the choice. Nor when the left-out blank stands beside added lines
//! whose far end is a blank line: the quoted blank may as well be that one. The file may also
//! have more blank lines in a row than the hunk quotes: the rung gives the extra ones to the
//! run's last blank context line, and when the hunk's new lines sit between two blanks of that
//! run, how many of the file's blanks go before them is as open. Such a placement is refused,
//! never guessed; a run whose choices all give the same file (only blanks between, all kept) is
//! placed as before.
//!
//! A text replacement read as bytes (the substring rung) meets the same choice in disguise: a
//! SEARCH block's last line, when blank, adds no byte to its joined text, so the text also fits
//! where the file lacks that blank. That reading leaves the quote's last blank out, and
//! [`text_reading`] holds it to the same rules.

use crate::edit::{HunkLine, LineKind, TextPair};
use crate::locate::choose::plan::{Edit, Plan};
use crate::locate::rungs::search::{Fit, Span};
use crate::locate::{pre_image, Placement};
use crate::report::{HunkReport, Rung, Status};
use crate::text::{is_blank, Doc, Form};

/// One blank old-side line of a run: its kind, whether it was left out, whether it took more
/// than one file line (blanks the file has and the hunk does not quote), and how many non-blank
/// added lines stand before it within the run.
struct Blank {
    kind: LineKind,
    out: bool,
    wide: bool,
    segment: usize,
}

/// Refuse a blank-lines placement whose left-out blank lines could as well have been others of
/// their run, with a different file as the result.
pub(crate) fn check(lines: &[HunkLine], p: &Placement) -> Result<(), String> {
    if p.rung != Rung::BlankLines {
        return Ok(());
    }
    let mut run: Vec<Blank> = Vec::new();
    let mut segment = 0;
    let mut pi = 0;
    for l in lines {
        if l.kind == LineKind::Add {
            if !run.is_empty() && !is_blank(&l.text) {
                segment += 1;
            }
            continue;
        }
        let Some(span) = p.fit.map.get(pi) else {
            return Ok(());
        };
        pi += 1;
        if is_blank(&l.text) {
            run.push(Blank {
                kind: l.kind,
                out: span.is_empty(),
                wide: span.end > span.start + 1,
                segment,
            });
            continue;
        }
        settled(&run)?;
        run.clear();
        segment = 0;
    }
    settled(&run)?;
    rotated(lines, p)
}

/// Refuse a left-out blank context line beside added lines that have a blank line at their far
/// end: the quoted blank could as well be that one (a text replacement's old and new sides share
/// one of two blanks, and which is a diff's choice), and the added lines would land on its other
/// side. `}`, blank, then `#[test] fn t() {}` and a blank added, then `}`: the file lacking
/// the first blank, the new function goes either right after the `}` with the blank after it,
/// or after a blank with none before the closing `}`. So for a blank context line that took
/// several file blanks: the added lines, blank last, may go after the first or the last.
fn rotated(lines: &[HunkLine], p: &Placement) -> Result<(), String> {
    let mut pi = 0;
    for (li, l) in lines.iter().enumerate() {
        if l.kind == LineKind::Add {
            continue;
        }
        // Left out (the file lacks it) or wide (the file has more blanks there): either way
        // the file's blanks around the new lines are not the quote's.
        let loose = p
            .fit
            .map
            .get(pi)
            .is_some_and(|s| s.is_empty() || s.end > s.start + 1);
        pi += 1;
        if !(loose && l.kind == LineKind::Context && is_blank(&l.text)) {
            continue;
        }
        let after: Vec<&HunkLine> = lines[li + 1..]
            .iter()
            .take_while(|x| x.kind == LineKind::Add)
            .collect();
        let before: Vec<&HunkLine> = lines[..li]
            .iter()
            .rev()
            .take_while(|x| x.kind == LineKind::Add)
            .collect();
        // `before` is reversed: its last element is the run's first line.
        let turns = |run: &[&HunkLine], far: Option<&&HunkLine>| {
            far.is_some_and(|x| is_blank(&x.text)) && run.iter().any(|x| !is_blank(&x.text))
        };
        if turns(&after, after.last()) || turns(&before, before.last()) {
            return Err("the edit quotes a blank line the file lacks (or has more of) beside new lines that end in a blank line, so which blank lines are new decides where the new lines go; quote the blank lines as the file has them".into());
        }
    }
    Ok(())
}

/// Refuse a text replacement found as bytes on file lines `[start, end)` when its quote's last
/// line is a blank line the text reading leaves out (joined without a final newline it holds no
/// byte, and the file has no blank line after the occurrence), and leaving it out is one of
/// several choices (see [`check`]).
pub(crate) fn text_reading(
    doc: &Doc,
    lines: &[HunkLine],
    pair: &TextPair,
    start: usize,
    end: usize,
) -> Result<(), String> {
    let (pre, _) = pre_image(lines);
    let left_out = pre.last().is_some_and(|l| is_blank(l))
        && pair.old.ends_with('\n')
        && pair.old.split('\n').count() == pre.len()
        && (end >= doc.len() || !is_blank(doc.line(end)));
    if !left_out {
        return Ok(());
    }
    let mut map: Vec<Span> = (0..pre.len()).map(|k| Span::line(start + k)).collect();
    if let Some(last) = map.last_mut() {
        *last = Span::empty(end);
    }
    let fit = Fit {
        map,
        reindent: Default::default(),
        form: Form::Raw,
    };
    check(lines, &Placement::new(Rung::BlankLines, fit, None))
}

/// The refusal of hunk `i`, a text replacement found as bytes on file lines `[start, end)`, when
/// [`text_reading`] finds its reading a guess.
pub(crate) fn text_refusal(
    doc: &Doc,
    lines: &[HunkLine],
    pair: &TextPair,
    i: usize,
    (start, end): (usize, usize),
) -> Option<Plan> {
    let msg = text_reading(doc, lines, pair, start, end).err()?;
    let mut report = HunkReport::new(i, Status::Ambiguous);
    report.rung = Some(Rung::Substring);
    report.message = Some(msg);
    Some(Plan {
        report,
        edit: Edit::Nothing,
    })
}

/// Whether every choice of which blanks of `run` the file lacks (or which take the file's extra
/// blank lines) gives the same file.
fn settled(run: &[Blank]) -> Result<(), String> {
    let split = run.iter().any(|b| b.segment != run[0].segment);
    if split && run.iter().any(|b| b.wide) {
        return Err("the file has more blank lines here than the edit quotes, with new lines between the quoted ones, so how many of them go before the new lines is a guess; quote the blank lines as the file has them".into());
    }
    let out = run.iter().filter(|b| b.out).count();
    if out == 0 || out == run.len() {
        return Ok(());
    }
    let kept = run.iter().any(|b| b.kind == LineKind::Context);
    let removed = run.iter().any(|b| b.kind == LineKind::Remove);
    if kept && (removed || split) {
        return Err("the edit quotes more blank lines here than the file has, and which of them is the file's blank line decides where its lines go; quote the blank lines as the file has them".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::rungs::search::{Fit, Span};
    use crate::text::Form;
    use LineKind::{Add, Context, Remove};

    fn lines(ls: &[(LineKind, &str)]) -> Vec<HunkLine> {
        ls.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect()
    }

    /// A blank-lines placement whose old-side lines map to `spans` (`None`: left out).
    fn placed(spans: &[Option<usize>]) -> Placement {
        let map = spans
            .iter()
            .map(|s| s.map_or(Span::empty(0), Span::line))
            .collect();
        let fit = Fit {
            map,
            reindent: Default::default(),
            form: Form::Raw,
        };
        Placement::new(Rung::BlankLines, fit, None)
    }

    #[test]
    fn new_lines_between_a_kept_and_a_left_out_blank_are_refused() {
        let h = lines(&[
            (Context, "}"),
            (Context, ""),
            (Add, "fn f() {}"),
            (Context, ""),
            (Context, "x"),
        ]);
        assert!(check(&h, &placed(&[Some(0), Some(1), None, Some(2)])).is_err());
    }

    #[test]
    fn a_run_of_kept_blanks_with_nothing_between_is_placed() {
        let h = lines(&[
            (Context, "}"),
            (Context, ""),
            (Context, ""),
            (Add, "fn f() {}"),
            (Context, "x"),
        ]);
        assert!(check(&h, &placed(&[Some(0), Some(1), None, Some(2)])).is_ok());
    }

    #[test]
    fn a_left_out_blank_beside_new_lines_ending_in_a_blank_is_refused() {
        let h = lines(&[
            (Context, "    }"),
            (Context, ""),
            (Add, "    fn t() {}"),
            (Add, ""),
            (Context, "}"),
        ]);
        assert!(check(&h, &placed(&[Some(0), None, Some(1)])).is_err());
        // The file has the blank: nothing to choose.
        assert!(check(&h, &placed(&[Some(0), Some(1), Some(2)])).is_ok());
        // New lines with no blank at their far end go after the kept `}` either way.
        let h = lines(&[
            (Context, "    }"),
            (Context, ""),
            (Add, "    fn t() {}"),
            (Context, "}"),
        ]);
        assert!(check(&h, &placed(&[Some(0), None, Some(1)])).is_ok());
        // Mirrored: a blank first, then the left-out blank after the new lines.
        let h = lines(&[
            (Context, "    }"),
            (Add, ""),
            (Add, "    fn t() {}"),
            (Context, ""),
            (Context, "}"),
        ]);
        assert!(check(&h, &placed(&[Some(0), None, Some(1)])).is_err());
    }

    #[test]
    fn new_lines_between_quoted_blanks_where_the_file_has_more_are_refused() {
        // Two blanks quoted around the new line, three in the file: one or two go before it.
        let h = lines(&[
            (Context, "}"),
            (Context, ""),
            (Add, "fn f() {}"),
            (Context, ""),
            (Context, "x"),
        ]);
        let wide = |map: Vec<Span>| Placement::new(Rung::BlankLines, fit(map), None);
        let spans = vec![Span::line(0), Span::line(1), span(2, 4), Span::line(4)];
        assert!(check(&h, &wide(spans)).is_err());
        // Both quoted blanks before the new line: it goes after all the file's blanks.
        let h = lines(&[
            (Context, "}"),
            (Context, ""),
            (Context, ""),
            (Add, "fn f() {}"),
            (Context, "x"),
        ]);
        let spans = vec![Span::line(0), Span::line(1), span(2, 4), Span::line(4)];
        assert!(check(&h, &wide(spans)).is_ok());
    }

    #[test]
    fn new_lines_ending_in_a_blank_beside_a_blank_the_file_has_twice_are_refused() {
        // One blank quoted after `#define`, two in the file: the new comment and its blank go
        // after the first file blank or after both.
        let h = lines(&[
            (Context, "#define H"),
            (Context, ""),
            (Add, "// new"),
            (Add, ""),
            (Context, "// This file"),
        ]);
        let wide = |map: Vec<Span>| Placement::new(Rung::BlankLines, fit(map), None);
        let spans = vec![Span::line(0), span(1, 3), Span::line(3)];
        assert!(check(&h, &wide(spans.clone())).is_err());
        // New lines without a blank at their far end stay beside `// This file`.
        let h = lines(&[
            (Context, "#define H"),
            (Context, ""),
            (Add, "// new"),
            (Context, "// This file"),
        ]);
        assert!(check(&h, &wide(spans)).is_ok());
    }

    fn span(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    fn fit(map: Vec<Span>) -> Fit {
        Fit {
            map,
            reindent: Default::default(),
            form: Form::Raw,
        }
    }

    #[test]
    fn a_text_reading_that_leaves_out_a_quoted_last_blank_is_held_to_the_same_rules() {
        // SEARCH `a`, blank, blank; REPLACE `a`, blank, `b`, blank: joined, the old text `a\n\n`
        // fits a file with one blank after `a`, and `b` would land after it, not before.
        let h = lines(&[(Context, "a"), (Context, ""), (Add, "b"), (Context, "")]);
        let pair = TextPair {
            old: "a\n\n".into(),
            new: "a\n\nb\n".into(),
        };
        let doc = Doc::parse("x\na\n\n");
        assert!(text_reading(&doc, &h, &pair, 1, 3).is_err());
        // The file has the second blank: the text reading and the line reading agree.
        let doc = Doc::parse("x\na\n\n\ny\n");
        assert!(text_reading(&doc, &h, &pair, 1, 3).is_ok());
        // A text that runs to its last line's end (JSON) quotes no left-out blank.
        let pair = TextPair {
            old: "a\n\n\n".into(),
            new: "a\n\nb\n\n".into(),
        };
        let doc = Doc::parse("x\na\n\n\n");
        assert!(text_reading(&doc, &h, &pair, 1, 4).is_ok());
    }

    #[test]
    fn kept_and_removed_blanks_with_one_left_out_are_refused() {
        let h = lines(&[(Context, "}"), (Context, ""), (Remove, ""), (Context, "x")]);
        assert!(check(&h, &placed(&[Some(0), Some(1), None, Some(2)])).is_err());
        // Every blank there: nothing to choose.
        assert!(check(&h, &placed(&[Some(0), Some(1), Some(2), Some(3)])).is_ok());
    }
}
