//! Two readings of the same lines: "the edit is already there" against "the old text is there,
//! loosely".
//!
//! When the post-image stands in the file by a strict form and the pre-image only by a looser
//! one, the ladder has to choose. A looser fit apart from the post-image is another block that
//! merely looks alike (a retried edit of one of two similar blocks): the edit is applied. A fit
//! overlapping the post-image is usually the edit's own text: a drifted deletion whose
//! remaining lines happen to stand together inside what it deletes, where the fit is the truth.
//!
//! Except when the looser fit says nothing. A line of brackets only (a closing brace, `});`) is
//! known by its indentation alone; folding that whitespace away matches it to any other brace. A run of closing braces matched at other indentations overlapping the
//! exact post-image of a retried brace deletion is such a hollow fit: deleting again would take
//! two more braces. A fit that needs its looser form only on such lines is set aside like one
//! apart from the post-image; a fit that needs it on any other line (words, a comment, even
//! `//-`) keeps the edit placed, and so does one that differs only in trailing whitespace.
//!
//! Braces re-indented along one straight line (a 2-space reply's 4, 2, 0 for the file's 8, 4,
//! 0) are usually the drifted old text itself, and keep the edit placed: a deletion of braces
//! leaves a post-image of braces, which proves nothing. Not when the edit adds a line with words
//! and the post-image, added lines and all, stands by the strict form: those words were written
//! by the edit, so the braces beside them at another indentation are another block.

use super::levels::straight;
use super::search::Fit;
use crate::text::{fold_char, hash_form, leading_ws, strip_cr, Doc, Form};

/// The post-image's place that says "already applied", with the form that found it: the first
/// form (of `forms`, in the ladder's order) that found the post-image found it once.
pub(crate) fn settled(
    post_hits: &[Vec<(usize, usize)>],
    forms: &[Form],
) -> Option<(Form, usize, usize)> {
    let (k, hits) = post_hits.iter().enumerate().find(|(_, p)| !p.is_empty())?;
    match hits[..] {
        [(s, e)] => Some((*forms.get(k)?, s, e)),
        _ => None,
    }
}

/// Whether `f` covers no line of `[start, end)`.
pub(crate) fn apart(f: &Fit, start: usize, end: usize) -> bool {
    let (s, e) = f.range();
    e <= start || s >= end
}

/// Whether fit `f` of the pre-image `pre` is no evidence against a post-image found by `strict`:
/// it needs its looser form only on bracket lines (see [`bracket_only`]), and on at least one.
/// A line that differs only in trailing whitespace is drift every reading allows: neutral.
/// `adds_words`: whether the edit adds a line holding a letter or digit.
pub(crate) fn hollow(doc: &Doc, pre: &[&str], f: &Fit, strict: Form, adds_words: bool) -> bool {
    let mut looser = false;
    for (p, span) in pre.iter().zip(&f.map) {
        if span.is_empty() || span.end - span.start != 1 {
            return false;
        }
        let have = strip_cr(doc.line(span.start));
        if hash_form(strict, p) == hash_form(strict, have) || p.trim_end() == have.trim_end() {
            continue;
        }
        if !(bracket_only(p) && bracket_only(have)) {
            return false;
        }
        looser = true;
    }
    looser && (adds_words || !consistent(doc, pre, f))
}

/// Whether fit `f` of the pre-image `pre` differs from the file only as a writer changes text:
/// trailing whitespace, and typographic characters (curly quotes, dashes, non-breaking spaces)
/// the reply holds where the file has their plain forms. Such a fit is the old text itself as
/// the model's writer passed it on, not another block that merely looks like it.
pub(crate) fn writer_drift(doc: &Doc, pre: &[&str], f: &Fit) -> bool {
    pre.iter().zip(&f.map).all(|(p, span)| {
        if span.end != span.start + 1 {
            return false;
        }
        let have = strip_cr(doc.line(span.start)).trim_end();
        let want = strip_cr(p).trim_end();
        want == have || {
            let folded: String = want.chars().map(fold_char).collect();
            folded == have
        }
    })
}

/// Whether the fit's non-blank lines map the pre-image's indentation widths onto the file's
/// along one straight line (tabs on either side count as consistent: not judged here).
fn consistent(doc: &Doc, pre: &[&str], f: &Fit) -> bool {
    let mut pairs = Vec::new();
    for (p, span) in pre.iter().zip(&f.map) {
        let have = strip_cr(doc.line(span.start));
        if p.trim().is_empty() || have.trim().is_empty() {
            continue;
        }
        let (a, b) = (leading_ws(p), leading_ws(have));
        if a.contains('\t') || b.contains('\t') {
            return true;
        }
        pairs.push((a.len(), b.len()));
    }
    straight(&pairs)
}

/// A line of brackets and separators only (`}`, `});`, `],`): known by its indentation alone.
fn bracket_only(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.chars()
            .all(|c| "{}[]();,".contains(c) || c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::search::Span;

    fn fit(start: usize, n: usize) -> Fit {
        Fit {
            map: (start..start + n).map(Span::line).collect(),
            reindent: Default::default(),
            form: Form::Canon,
        }
    }

    #[test]
    fn braces_at_other_indentations_are_hollow() {
        let doc = Doc::parse("        }\n    }\n}\n");
        let pre = ["        }", "            }", "        }"];
        assert!(hollow(&doc, &pre, &fit(0, 3), Form::Raw, false));
    }

    #[test]
    fn braces_rescaled_consistently_keep_the_fit() {
        // A 2-space reply's 4, 2, 0 for the file's 8, 4, 0: the old text, halved.
        let doc = Doc::parse("        }\n    }\n}\n");
        let pre = ["    }", "  }", "}"];
        assert!(!hollow(&doc, &pre, &fit(0, 3), Form::Raw, false));
    }

    #[test]
    fn braces_shifted_consistently_beside_added_words_are_hollow() {
        // A retried insertion after `        }` / `    }`: the same braces one level deeper.
        let doc = Doc::parse("            }\n        }\n    }\n");
        let pre = ["        }", "    }", "}"];
        assert!(hollow(&doc, &pre, &fit(0, 3), Form::Raw, true));
        assert!(!hollow(&doc, &pre, &fit(0, 3), Form::Raw, false));
    }

    #[test]
    fn a_line_with_words_that_differs_keeps_the_fit() {
        let doc = Doc::parse("    }\n    case \"$T\" in\n");
        let pre = ["    }", "    case \u{201c}$T\u{201d} in"];
        assert!(!hollow(&doc, &pre, &fit(0, 2), Form::Raw, false));
    }

    #[test]
    fn trailing_whitespace_and_wordless_comments_keep_the_fit() {
        let doc = Doc::parse("//-\n// Copyright\n");
        assert!(!hollow(
            &doc,
            &["//-   ", "// Copyright"],
            &fit(0, 2),
            Form::Raw,
            false
        ));
        let doc = Doc::parse("    //-\n}\n");
        assert!(!hollow(&doc, &["//-", "}"], &fit(0, 2), Form::Raw, false));
    }

    #[test]
    fn trailing_whitespace_and_curly_quotes_are_the_writers_drift() {
        let doc = Doc::parse("let s = \"a\";\n    x();\n");
        let pre = ["let s = \u{201c}a\u{201d};\t", "    x();"];
        assert!(writer_drift(&doc, &pre, &fit(0, 2)));
        // Other spacing is not.
        assert!(!writer_drift(
            &doc,
            &["let s = \"a\";", "  x();"],
            &fit(0, 2)
        ));
    }

    #[test]
    fn a_fit_equal_in_the_strict_form_is_not_hollow() {
        let doc = Doc::parse("    }\n}\n");
        assert!(!hollow(&doc, &["    }", "}"], &fit(0, 2), Form::Raw, false));
    }
}
