//! Readings of a text replacement that its own lines rule out.
//!
//! The [`crate::locate::rungs::substring`] rung takes the old text as bytes, so a quote of whole lines can also
//! fit where it was never meant: its first line as the tail of a longer line, or nowhere at all
//! because the model left a line out of the middle of its quote. Two such signs are read here:
//!
//! - [`pulls_up_line`]: an occurrence that starts mid-line, whose new text begins with a whole
//!   later line of the old text. Replacing it joins that line onto the head of the first one
//!   (`"result": {` then `"tools": [` becoming `"result":         "tools": [`): the quote was of
//!   whole lines (`{` was a line of its own elsewhere), and the bytes only happen to fit here.
//! - [`gapped`]: where the old text's lines stand with a line or two between them that the quote
//!   left out ([`crate::locate::rungs::gaps`]). Then the old text is not absent from the file: it is misquoted,
//!   and its new text standing somewhere proves nothing about the edit being made (the new text
//!   of a deletion is the quote's kept lines, which stood before the edit too). And an exact
//!   occurrence elsewhere is a second reading, as at every rung. Only lines matched as quoted
//!   (trailing whitespace aside) count: looser, a line skipped reads a retried deletion's old
//!   text into its own result.
//! - [`misquoted`]: the same with a lower bar, for an edit that adds no line with words (a
//!   deletion). Its new text is lines that stood in the file before the edit too, so finding it
//!   says "applied" only while the old text is absent; old lines standing with a line left out,
//!   anywhere in the file, are not absent (`}`, blank, `#endif  // H_` quoted where the file
//!   has `}`, `#endif`, blank, `#endif  // H_`). The ladder then cannot tell a retried deletion
//!   from a misquoted one, and refuses. The bar is lower than the gaps rung's because this
//!   only refuses: two non-blank lines, one of them a removed line with words (a brace or a
//!   blank standing near the kept lines is what any block end looks like).

use crate::edit::HunkLine;
use crate::locate::pre_image;
use crate::locate::rungs::gaps;
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::Fit;
use crate::text::{has_words, Form};

/// Whether replacing the occurrence of `old` at byte `a` of `text` with `new` joins a whole line
/// of the old text onto the head of the line the occurrence starts in (see the module docs).
pub(crate) fn pulls_up_line(text: &str, a: usize, old: &str, new: &str) -> bool {
    let head = text[..a].rsplit('\n').next().unwrap_or("");
    if head.trim().is_empty() {
        return false;
    }
    let first = new.split('\n').next().unwrap_or("");
    if first.trim().is_empty() {
        return false;
    }
    // The old text's lines after its first that are whole lines of the file: each but the last
    // ends in a newline, and the last ends where the file's line does.
    let mut later: Vec<&str> = old.split('\n').skip(1).collect();
    let rest = &text[a + old.len()..];
    if !(rest.is_empty() || rest.starts_with('\n')) {
        later.pop();
    }
    later.contains(&first)
}

/// Fewest non-blank old lines, one of them with words, for a quote with a line left out to
/// count (see the module docs): the one bar for every use, since each only refuses.
const MIN_MISQUOTE_LINES: usize = 2;

/// Where the hunk's old lines stand with a line or two left out, each line as quoted up to
/// trailing whitespace: the old text is misquoted, not gone. Lines matched only at another
/// indentation or canonically, with a line skipped, are as likely the edit's own result (a
/// retried deletion whose removed `        }` reads as the `    }` it left), so they do not count;
/// nor does an old text without a line with words (`}`, blank, `}` stands near any block end).
/// Every check that asks "is the old text there, misquoted?" asks this, whatever the hunk's
/// format or shape: the substring rung before taking the new text as proof, and the ladder before
/// reading the edit as applied.
pub(crate) fn misquotes(idx: &FileIndex, lines: &[HunkLine]) -> Vec<Fit> {
    let (pre, ctx) = pre_image(lines);
    if !pre.iter().any(|l| has_words(l)) {
        return Vec::new();
    }
    let mut fits = gaps::fits_of_at_least(idx, &pre, &ctx, lines, MIN_MISQUOTE_LINES);
    fits.retain(|f| f.form == Form::TrimEnd);
    fits
}

/// The places `[start, end)` of [`misquotes`].
pub(crate) fn misquoted_at(idx: &FileIndex, lines: &[HunkLine]) -> Vec<(usize, usize)> {
    misquotes(idx, lines).iter().map(Fit::range).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::edit::LineKind;
    use crate::text::Doc;

    #[test]
    fn a_quote_of_whole_lines_does_not_join_them() {
        let text = "{\n    \"result\": {\n        \"tools\": [\n";
        let old = "{\n        \"tools\": [\n";
        let new = "        \"tools\": [\n";
        let a = text.find(old).unwrap_or(0);
        assert!(a > 0 && pulls_up_line(text, a, old, new));
        // Without a final newline, its last line is whole when the file's line ends there.
        let (old, new) = (old.trim_end(), new.trim_end());
        assert!(pulls_up_line(text, a, old, new));
        // At a line start there is no head to join onto.
        assert!(!pulls_up_line("{\n        \"tools\": [\n", 0, old, new));
        // A tail replaced by another tail joins nothing.
        assert!(!pulls_up_line(
            "    x = f(1)\n    y\n",
            8,
            "f(1)\n    y\n",
            "g(2)\n    y\n"
        ));
    }

    #[test]
    fn old_lines_with_one_left_out_are_misquoted() {
        let doc = Doc::parse("#[a]\n#[b]\nmod d;\nmod e;\n#[a]\nmod p;\n");
        let idx = FileIndex::new(&doc);
        let l = |k: LineKind, t: &str| HunkLine::new(k, t);
        use LineKind::{Context, Remove};
        let hunk = [
            l(Context, "#[a]"),
            l(Remove, "#[b]"),
            l(Remove, "mod d;"),
            l(Remove, "mod e;"),
            l(Context, "mod p;"),
        ];
        assert_eq!(misquoted_at(&idx, &hunk), vec![(0, 6)]);
    }

    #[test]
    fn a_short_quote_with_a_line_left_out_is_misquoted() {
        let l = |k: LineKind, t: &str| HunkLine::new(k, t);
        use LineKind::{Context, Remove};
        // `}`, blank, `#endif  // H_` where the file has `#endif` after the `}`: the removed
        // line with words stands one line off.
        let doc = Doc::parse("#ifdef C\n}\n#endif\n\n#endif  // H_\n");
        let idx = FileIndex::new(&doc);
        let hunk = [l(Context, "}"), l(Context, ""), l(Remove, "#endif  // H_")];
        assert_eq!(misquoted_at(&idx, &hunk), vec![(1, 5)]);
        // Three lines off is no quote of these lines.
        let doc = Doc::parse("}\n#a\n#b\n#c\n\n#endif  // H_\n");
        assert!(misquotes(&FileIndex::new(&doc), &hunk).is_empty());
        // Braces and blanks alone are any block's end: no evidence.
        let doc = Doc::parse("}\n#endif\n\n}\n");
        let brace = [l(Context, "}"), l(Context, ""), l(Remove, "}")];
        assert!(misquotes(&FileIndex::new(&doc), &brace).is_empty());
        // Matched only at another indentation, a skipped line is as likely the edit's result.
        let doc = Doc::parse("}\n#endif\n\n    #endif  // H_\n");
        assert!(misquotes(&FileIndex::new(&doc), &hunk).is_empty());
    }
}
