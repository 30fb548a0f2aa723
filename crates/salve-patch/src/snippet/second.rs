//! The snippet merge as a second reader of a whole-file block whose markers sit only between
//! kept stretches (no leading or trailing marker). Such a block is the whole-file reader's: it
//! fills each marker from the file by the lines around it. The same text sent through Cursor's
//! `edit_file` is a snippet by its schema and merged region by region. The two read one reply,
//! so neither may win silently where the other disagrees:
//!
//! - the whole-file reading refused (other than as a cut): the merge is tried, and its own
//!   checks decide (it refuses what it cannot anchor, with each region pinned to the file's
//!   first and last lines as no marker leads or trails);
//! - both refused: one refusal naming both reasons;
//! - both would write (the whole-file reader having read every marker as standing for file
//!   lines, none kept as content), and the texts differ beyond trailing whitespace (which the
//!   merge takes from the file and the whole-file reader from the reply): ambiguous, refused.
//!
//! Only such blocks are judged so: content that opens or ends with a marker or a placeholder,
//! or holds a placeholder the merge would not read as a marker, stays with the reader its parse
//! chose (see `markers_only_inside`).

use super::marker::is_marker;
use super::{has_marker, merge, Merged};
use crate::locate::whole::FillError;
use crate::report::Status;
use crate::text::{is_blank, Doc};

/// The reading a whole-file block takes.
#[derive(Debug)]
pub(crate) enum Reading {
    /// The whole-file reader's lines (its gaps filled from the file).
    Whole(Vec<String>),
    /// The snippet merge's, where the whole-file reader refused.
    Snippet(Merged),
}

/// Judges the whole-file reader's result `whole` for `content` against the snippet merge of
/// the same content (see the module's rules). Content without a marker is the whole-file
/// reader's alone.
pub(crate) fn judge(
    source: &Doc,
    content: &str,
    path: &str,
    whole: Result<Vec<String>, FillError>,
) -> Result<Reading, FillError> {
    // A cut (content that keeps one stretch of the file and stops) is no gap the merge could
    // read better: without a trailing marker its last region would end the file wherever the
    // cut fell.
    let cut = matches!(&whole, Err(e) if e.status == Status::Truncated);
    // Where the whole-file reader kept a marker-like line as content (a `// ...` in a file that
    // uses it, a comment in words beside an insertion, a write tool's content), its own rules
    // decided that the line is no marker: the merge, which reads every such line as one, is no
    // second reading of it.
    let kept = matches!(&whole, Ok(lines) if lines.iter().any(|l| is_marker(l, path)));
    if cut || kept || !markers_only_inside(content, path) {
        return whole.map(Reading::Whole);
    }
    match (whole, merge(source, content, path)) {
        (Ok(lines), Ok(m)) if same_text(&lines, &m.lines) => Ok(Reading::Whole(lines)),
        (Ok(_), Ok(_)) => Err(FillError {
            status: Status::Ambiguous,
            message: "the content reads two ways that give different files: with its markers \
                      filled in from the file around them, and as an edit snippet whose regions \
                      are anchored by their first and last lines; add a leading or trailing \
                      marker, or write the lines the markers stand for out in full"
                .into(),
        }),
        (Ok(lines), Err(_)) => Ok(Reading::Whole(lines)),
        (Err(_), Ok(m)) => Ok(Reading::Snippet(m)),
        (Err(e), Err(reports)) => {
            let why = reports
                .iter()
                .find_map(|r| r.message.clone())
                .unwrap_or_else(|| "no region could be placed".into());
            Err(FillError {
                status: e.status,
                message: format!(
                    "{}; read as an edit snippet, it is refused too: {why}",
                    e.message
                ),
            })
        }
    }
}

/// Whether `content` holds a marker and neither opens nor ends with one, and every line the
/// whole-file reader would take for a gap is a marker. A marker ending the content that says
/// the rest is unchanged (`# ... rest of the file unchanged ...`), or a bare `...` ending it, is
/// the whole-file reader's alone, as its parse decided: a reply cut short often ends so, and
/// read as a snippet it would keep the file's tail over the lines the cut lost, or write the
/// `...` (no marker to the merge) as the file's last line.
fn markers_only_inside(content: &str, path: &str) -> bool {
    let lines: Vec<&str> = content.lines().collect();
    let dots_are_code = crate::parse::dots_are_code(path);
    let gap = |i: usize| crate::placeholder::is_gap_at(&lines, i, dots_are_code);
    let mut kept = (0..lines.len()).filter(|&i| !is_blank(lines[i]));
    let first = kept.next();
    let last = kept.next_back().or(first);
    let edge = |i: Option<usize>| i.is_some_and(|i| gap(i) || is_marker(lines[i], path));
    let unread = (0..lines.len()).any(|i| gap(i) && !is_marker(lines[i], path));
    !edge(first) && !edge(last) && !unread && has_marker(content, path)
}

/// Whether two readings write the same lines, trailing whitespace aside.
fn same_text(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.trim_end() == y.trim_end())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use crate::apply::{replace_whole_with, Whole};
    use crate::report::Status;

    fn apply(file: &str, content: &str) -> (Status, Option<String>, Vec<String>) {
        let out = replace_whole_with("a.rs", file, content, true, None, Whole::default());
        let msgs = out.hunks.iter().filter_map(|h| h.message.clone()).collect();
        (out.status, out.new_text, msgs)
    }

    // `fn one` and `fn two` share their bodies, so the lines around a marker inside `fn one`
    // stand twice for the whole-file reader; as a snippet, the first region is pinned to the
    // file's first line and the last to its end, which leaves one reading.
    const FILE: &str = "use a;\n\nfn one() {\n    x();\n    x();\n}\n\nfn two() {\n    x();\n    x();\n}\n\nfn three() {\n    y();\n}\n";

    #[test]
    fn a_block_the_whole_file_reader_refuses_is_merged_as_a_snippet() {
        let content = "use a;\nuse b;\n\nfn one() {\n    x();\n    // ... existing code ...\n    x();\n}\n\nfn three() {\n    z();\n}\n";
        let whole =
            crate::locate::whole::fill_placeholders(&crate::text::Doc::parse(FILE), content, false);
        assert_eq!(whole.unwrap_err().status, Status::Ambiguous);
        let (status, text, msgs) = apply(FILE, content);
        assert_eq!(status, Status::Applied, "{msgs:?}");
        let want = FILE
            .replace("use a;\n", "use a;\nuse b;\n")
            .replace("y();", "z();");
        assert_eq!(text.as_deref(), Some(want.as_str()));
        assert_eq!(msgs.len(), 2, "one report per region: {msgs:?}");
        assert!(msgs[1].contains("anchored at file lines 10-15"), "{msgs:?}");
    }

    #[test]
    fn a_block_both_readers_refuse_is_one_refusal_naming_both() {
        // The marker stands in `fn one` before a line that `fn two` has alike, and the region
        // after it changes `fn two`: its lines fit from either body.
        let content = "use a;\nuse b;\n\nfn one() {\n    // ... existing code ...\n    x();\n}\n\nfn two() {\n    x();\n    w();\n}\n\nfn three() {\n    y();\n}\n";
        let (status, text, msgs) = apply(FILE, content);
        assert_eq!(status, Status::Ambiguous);
        assert_eq!(text, None);
        assert_eq!(msgs.len(), 1, "{msgs:?}");
        assert!(
            msgs[0].contains("could not be filled in from the file"),
            "{msgs:?}"
        );
        assert!(
            msgs[0].contains("read as an edit snippet, it is refused too: region 2"),
            "{msgs:?}"
        );
        assert!(msgs[0].contains("fit 4 places"), "{msgs:?}");
    }

    #[test]
    fn content_without_a_marker_is_the_whole_file_readers_alone() {
        let content = FILE.replace("y();", "z();");
        let (status, text, msgs) = apply(FILE, &content);
        assert_eq!(status, Status::Applied, "{msgs:?}");
        assert_eq!(text.as_deref(), Some(content.as_str()));
    }

    #[test]
    fn two_readings_that_write_different_files_are_refused_as_ambiguous() {
        // No hand-made block found makes both readers succeed apart; the rule is checked on
        // the judge itself, with a whole-file reading that differs from the merge.
        let source = crate::text::Doc::parse(FILE);
        let content = "use a;\nuse b;\n\nfn one() {\n    x();\n    // ... existing code ...\n    x();\n}\n\nfn three() {\n    z();\n}\n";
        let merged: Vec<String> = match super::judge(&source, content, "a.rs", Ok(Vec::new())) {
            Err(e) => {
                assert_eq!(e.status, Status::Ambiguous);
                assert!(e.message.contains("reads two ways"), "{}", e.message);
                super::merge(&source, content, "a.rs").unwrap().lines
            }
            Ok(r) => panic!("{r:?}"),
        };
        // The same lines (trailing whitespace aside) are one reading, the whole-file reader's.
        let spaced: Vec<String> = merged.iter().map(|l| format!("{l} ")).collect();
        match super::judge(&source, content, "a.rs", Ok(spaced.clone())) {
            Ok(super::Reading::Whole(lines)) => assert_eq!(lines, spaced),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_block_cut_short_after_a_marker_is_refused_as_cut_not_merged() {
        // The content stops at `g`: the whole-file reader's cut check refuses it, and the merge
        // is not asked, as its last region would end the file where the cut fell.
        let file: String = ('a'..='z').map(|c| format!("let {c} = 0;\n")).collect();
        let content = "let a = 0;\nlet b = 0;\n// ... existing code ...\nlet f = 0;\nlet g = 0;\n";
        let (status, text, msgs) = apply(&file, content);
        assert_eq!(status, Status::Truncated, "{msgs:?}");
        assert_eq!(text, None);
        assert!(!msgs.iter().any(|m| m.contains("edit snippet")), "{msgs:?}");
    }
}
