//! A reply that stops with no newline in a hunk's last quoted line (see
//! [`crate::edit::Hunk::cut_line`]) is complete only if that line is whole. The file tells: the
//! line must be the whole of the file's line where the hunk is placed. A line cut short is only
//! the start of it, and a line some rung placed loosely, or left out, proves nothing either, so
//! both refuse the hunk as `truncated` rather than write an edit whose end the reply lost.

use crate::edit::{Hunk, LineKind};
use crate::report::{HunkReport, Status};
use crate::text::{canonical_eq, strip_cr, Doc};

/// Refuses `hunk` as truncated when its last line may have been cut and is not the file's line
/// at the end of the place `report` found for it.
pub(crate) fn refuse_cut_line(doc: &Doc, hunk: &Hunk, report: &mut HunkReport) {
    if !hunk.cut_line || !report.status.is_success() {
        return;
    }
    let Some(last) = hunk.lines.last() else {
        return;
    };
    // Found already applied, the lines shown are the edit's result: a removed line is not
    // among them, so nothing shows it whole.
    let shown = last.kind == LineKind::Context || report.status == Status::Applied;
    let file_line = report
        .lines
        .filter(|r| shown && r.end >= 1 && r.end <= doc.len())
        .map(|r| (r.end, strip_cr(doc.line(r.end - 1))));
    if let Some((_, line)) = file_line {
        if canonical_eq(line, &last.text) {
            return;
        }
    }
    let there = file_line.map_or_else(String::new, |(n, l)| {
        format!(", and the file's line {n} there is {:?}", short(l))
    });
    report.status = Status::Truncated;
    report.message = Some(format!(
        "the reply stops, with no newline, in this hunk's last line {:?}{there}: the reply was cut there; send the hunk again in full",
        short(&last.text)
    ));
}

fn short(s: &str) -> String {
    s.chars().take(60).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use crate::edit::{Hunk, HunkLine, LineKind};
    use crate::report::Status;

    fn hunk(last: (LineKind, &str)) -> Hunk {
        Hunk {
            lines: vec![
                HunkLine::new(LineKind::Context, "a"),
                HunkLine::new(LineKind::Remove, "b"),
                HunkLine::new(LineKind::Add, "B"),
                HunkLine::new(last.0, last.1),
            ],
            cut_line: true,
            ..Hunk::default()
        }
    }

    #[test]
    fn a_last_line_cut_short_is_refused_and_a_whole_one_applies() {
        let file = "a\nb\nthe last line\nd\n";
        for kind in [LineKind::Context, LineKind::Remove] {
            let out = crate::apply_hunks(file, &[hunk((kind, "the last"))], None);
            assert!(!out.status.is_success(), "{kind:?}: {:?}", out.hunks);
            assert!(out.new_text.is_none());
        }
        // Placed by a rung that lets the cut line go (the similar rung, on a longer hunk).
        let long = "fn f() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    g(a, b, c);\n}\n";
        let h = Hunk {
            lines: vec![
                HunkLine::new(LineKind::Context, "fn f() {"),
                HunkLine::new(LineKind::Context, "    let a = 1;"),
                HunkLine::new(LineKind::Remove, "    let b = 2;"),
                HunkLine::new(LineKind::Add, "    let b = 20;"),
                HunkLine::new(LineKind::Context, "    let c = 3;"),
                HunkLine::new(LineKind::Context, "    g(a, b"),
            ],
            cut_line: true,
            ..Hunk::default()
        };
        let out = crate::apply_hunks(long, &[h], None);
        assert_eq!(out.status, Status::Truncated, "{:?}", out.hunks);
        let out = crate::apply_hunks(file, &[hunk((LineKind::Context, "the last line"))], None);
        assert_eq!(out.status, Status::Applied);
        assert_eq!(out.new_text.as_deref(), Some("a\nB\nthe last line\nd\n"));
    }

    #[test]
    fn a_removal_found_already_applied_cannot_show_its_line_whole() {
        // The result stands and the removed line is gone: the cut line proves nothing.
        let file = "a\nB\nd\n";
        let out = crate::apply_hunks(file, &[hunk((LineKind::Remove, "the last"))], None);
        assert_eq!(out.status, Status::Truncated, "{:?}", out.hunks);
    }
}
