//! A line quoted without its indentation where the file has it at several indentations.
//!
//! Claude Code's `Edit`, Gemini CLI's `replace` and OpenCode's edit find `old_string` as a plain
//! substring and refuse when it stands more than once: the model must quote more. A model that
//! quotes a line without its indentation or line ending (`#[inline]`) where the file has that
//! line at column 0 and indented too has not said which it means; the exact rung would take the
//! column-0 one only because it matches byte for byte, a guess. Such a hunk is refused as
//! ambiguous, naming the lines.
//!
//! Only a quote of one line without a line ending, opening with a non-blank character, is
//! judged, and only other whole lines count: a quote standing inside a longer line (`x = 1` in
//! `y = [x = 1]`) is the substring rung's to weigh, and a quote that carries its indentation or
//! its line ending (SEARCH/REPLACE blocks do) says which line it means.

use crate::edit::TextPair;
use crate::locate::choose::plan::{range, Edit, Plan};
use crate::report::{HunkReport, Status};
use crate::text::{strip_cr, Doc};

/// The refusal for hunk `i`, when its old text (`pair`) is such a quote and `doc` has two or
/// more lines that are that text once their indentation is set aside.
pub(crate) fn refusal(doc: &Doc, pair: &TextPair, i: usize) -> Option<Plan> {
    let old = pair.old.as_str();
    if old.trim().is_empty() || old.contains('\n') || old.starts_with(char::is_whitespace) {
        return None;
    }
    let lines: Vec<usize> = (0..doc.len())
        .filter(|&k| {
            let line = strip_cr(doc.line(k));
            line.ends_with(old) && line.trim() == old.trim_end()
        })
        .take(6)
        .collect();
    let [first, .., last] = lines[..] else {
        return None;
    };
    let mut report = HunkReport::new(i, Status::Ambiguous);
    report.lines = Some(range(first, last + 1));
    let shown: Vec<String> = lines.iter().map(|k| (k + 1).to_string()).collect();
    report.message = Some(format!(
        "the old text {:?} is a line the file has at several indentations (lines {}), and the agents' tools would find it more than once; quote it with its indentation and a line around it so only one place fits",
        old.chars().take(60).collect::<String>(),
        shown.join(", ")
    ));
    Some(Plan {
        report,
        edit: Edit::Nothing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(old: &str) -> TextPair {
        TextPair {
            old: old.into(),
            new: "x".into(),
        }
    }

    #[test]
    fn a_line_at_two_indentations_quoted_without_either_is_refused() {
        let doc = Doc::parse("#[inline]\nfn a() {}\nimpl A {\n    #[inline]\n    fn b() {}\n}\n");
        assert!(refusal(&doc, &pair("#[inline]"), 0).is_some());
    }

    #[test]
    fn a_quote_with_its_indentation_or_standing_once_is_placed() {
        let doc = Doc::parse("#[inline]\nfn a() {}\nimpl A {\n    #[inline]\n    fn b() {}\n}\n");
        assert!(refusal(&doc, &pair("    #[inline]"), 0).is_none());
        assert!(refusal(&doc, &pair("fn a() {}"), 0).is_none());
        assert!(refusal(&doc, &pair("impl A {\n    #[inline]"), 0).is_none());
        // With its line ending (a SEARCH block's line), or inside a longer line: not judged here.
        assert!(refusal(&doc, &pair("#[inline]\n"), 0).is_none());
        let doc = Doc::parse("x = 1\ny = [x = 1]\n");
        assert!(refusal(&doc, &pair("x = 1"), 0).is_none());
    }
}
