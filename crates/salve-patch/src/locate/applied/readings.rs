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
//!
//! Nor when the post-image stands exactly across such a fit, even where it stands in several
//! places (a post-image of one brace stands all over a file): a retried deletion of the `}`
//! after `    }` finds `        }` / `    }`, the same shape one level deeper, over the `    }`
//! its own first run left. Reading the reply's indentation as shifted and reading the edit as
//! made fit the same lines equally well, and deleting again would take the next brace out: the
//! ladder calls that unclear and the hunk is refused. A reply that indents by another unit is
//! not shifted but rescaled, and its exact post-image is a coincidence: that fit stays placed. Across the post-image found by a
//! structural rung (blank lines of the old text left out), a hollow fit likewise does not say
//! "not made yet".

use crate::locate::rungs::search::Fit;
use crate::locate::write::levels::straight;
use crate::text::Trim as _;
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
    looser_on_brackets(doc, pre, f, strict) && (adds_words || !consistent(doc, pre, f))
}

/// Where fit `f` stands over the edit's own result: it needs its looser form only on bracket
/// lines, and one of `posts` (places of the post-image by the exact form) shares a line with
/// it. The braces it matched at another indentation are then the edit's result read with a
/// shift: a retried brace deletion deletes the next brace out, a retried insertion beside braces
/// goes in one level deeper. The fit's own reading, the old text quoted with its indentation
/// shifted, fits the same lines just as well, so the two cannot be told. Not a fit whose widths
/// are the reply's own rescaled (see [`rescaled`]): the exact post-image there is a coincidence.
pub(crate) fn over_own_result(
    doc: &Doc,
    pre: &[&str],
    f: &Fit,
    posts: &[(usize, usize)],
) -> Option<(usize, usize)> {
    if !looser_on_brackets(doc, pre, f, Form::Raw) || rescaled(doc, pre, f) {
        return None;
    }
    posts.iter().copied().find(|&(s, e)| !apart(f, s, e))
}

/// Whether fit `f` needs its looser form (against `strict`) only on bracket lines (see
/// [`bracket_only`]), and on at least one. A line that differs only in trailing whitespace is
/// drift every reading allows: neutral; so is a blank line of the old text the fit left out
/// (the blank-lines rung).
fn looser_on_brackets(doc: &Doc, pre: &[&str], f: &Fit, strict: Form) -> bool {
    let mut looser = false;
    for (p, span) in pre.iter().zip(&f.map) {
        if p.trim_ws().is_empty()
            && (span.start..span.end).all(|k| doc.line(k).trim_ws().is_empty())
        {
            continue;
        }
        if span.is_empty() || span.end - span.start != 1 {
            return false;
        }
        let have = strip_cr(doc.line(span.start));
        if hash_form(strict, p) == hash_form(strict, have) || p.trim_end_ws() == have.trim_end_ws()
        {
            continue;
        }
        if !(bracket_only(p) && bracket_only(have)) {
            return false;
        }
        looser = true;
    }
    looser
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
        let have = strip_cr(doc.line(span.start)).trim_end_ws();
        let want = strip_cr(p).trim_end_ws();
        want == have || {
            let folded: String = want.chars().map(fold_char).collect();
            folded == have
        }
    })
}

/// Whether the fit's non-blank lines map the pre-image's indentation widths onto the file's
/// along one straight line (tabs on either side count as consistent: not judged here).
fn consistent(doc: &Doc, pre: &[&str], f: &Fit) -> bool {
    widths(doc, pre, f).is_none_or(|pairs| straight(&pairs))
}

/// Whether the fit maps the pre-image's indentation widths onto the file's along a straight line
/// of another slope: the reply indents by another unit (a 2-space reply's 4, 2, 0 for the file's
/// 8, 4, 0), so its widths are not the file's and an exact match of its lines is a coincidence.
fn rescaled(doc: &Doc, pre: &[&str], f: &Fit) -> bool {
    widths(doc, pre, f).is_some_and(|pairs| {
        straight(&pairs) && pairs.windows(2).any(|w| w[0].1 + w[1].0 != w[1].1 + w[0].0)
    })
}

/// Whether fit `f` ties bracket lines of `pre` to file lines at indentations its other lines
/// rule out: the lines with words map the quote's widths onto the file's along one straight line
/// (a shift or a rescaling), and with the brackets added no straight line does. A closing brace
/// is known by its indentation alone, so a fit that reads it at a width of its own has matched
/// another block's brace: a lost `+` on an added `        }` leaves a context line of seven
/// spaces, which a relaxed fit ties to the next brace out, and every brace after it one further.
pub(crate) fn braces_astray(doc: &Doc, pre: &[&str], f: &Fit) -> bool {
    let worded = widths_of(doc, pre, f, |p| !bracket_only(p));
    let all = widths(doc, pre, f);
    matches!((worded, all), (Some(w), Some(a)) if !w.is_empty() && straight(&w) && !straight(&a))
}

/// The (reply, file) indentation widths of the fit's non-blank lines; `None` when tabs indent
/// either side (not judged here).
fn widths(doc: &Doc, pre: &[&str], f: &Fit) -> Option<Vec<(usize, usize)>> {
    widths_of(doc, pre, f, |_| true)
}

/// [`widths`] of the quoted lines `keep` accepts.
fn widths_of(
    doc: &Doc,
    pre: &[&str],
    f: &Fit,
    keep: impl Fn(&str) -> bool,
) -> Option<Vec<(usize, usize)>> {
    let mut pairs = Vec::new();
    for (p, span) in pre.iter().zip(&f.map) {
        if p.trim_ws().is_empty() || span.is_empty() || !keep(p) {
            continue;
        }
        let have = strip_cr(doc.line(span.start));
        if have.trim_ws().is_empty() {
            continue;
        }
        let (a, b) = (leading_ws(p), leading_ws(have));
        if a.contains('\t') || b.contains('\t') {
            return None;
        }
        pairs.push((a.len(), b.len()));
    }
    Some(pairs)
}

/// A line of brackets and separators only (`}`, `});`, `],`): known by its indentation alone.
fn bracket_only(line: &str) -> bool {
    let t = line.trim_ws();
    !t.is_empty()
        && t.chars()
            .all(|c| "{}[]();,".contains(c) || c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::rungs::search::Span;

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
    fn braces_shifted_over_the_exact_result_are_its_own_result() {
        let doc = Doc::parse("        }\n    }\n");
        let pre = ["    }", "}"];
        assert_eq!(
            over_own_result(&doc, &pre, &fit(0, 2), &[(1, 2)]),
            Some((1, 2))
        );
        assert_eq!(over_own_result(&doc, &pre, &fit(0, 2), &[(3, 4)]), None);
        // A 2-space reply's 4, 2, 0 for the file's 8, 4, 0: rescaled, so a coincidence.
        let doc = Doc::parse("        }\n    }\n}\n");
        let pre = ["    }", "  }", "}"];
        assert_eq!(over_own_result(&doc, &pre, &fit(0, 3), &[(1, 3)]), None);
    }

    #[test]
    fn a_blank_line_the_fit_left_out_is_neutral() {
        let doc = Doc::parse("        }\n    }\nimpl B {\n");
        let pre = ["    }", "}", "", "impl B {"];
        let mut f = fit(0, 2);
        f.map.push(Span::empty(2));
        f.map.push(Span::line(2));
        assert!(hollow(&doc, &pre, &f, Form::Raw, false));
    }

    #[test]
    fn braces_at_widths_the_worded_lines_rule_out_are_astray() {
        // A lost `+` on `        }`: the quote's seven-space brace tied to the `    }` after
        // `None,`, and its `    }` to the `}` below, while the worded lines sit unshifted.
        let doc = Doc::parse("        Some(x)\n        None,\n    }\n}\n");
        let pre = ["        Some(x)", "        None,", "       }", "    }"];
        assert!(braces_astray(&doc, &pre, &fit(0, 4)));
        // Every line one level shallower: a shift, the brace with it.
        let pre = ["    Some(x)", "    None,", "}"];
        assert!(!braces_astray(&doc, &pre, &fit(0, 3)));
        // Braces only: nothing to judge them against.
        let doc = Doc::parse("        }\n    }\n");
        assert!(!braces_astray(&doc, &["  }", "    }"], &fit(0, 2)));
    }

    #[test]
    fn a_fit_equal_in_the_strict_form_is_not_hollow() {
        let doc = Doc::parse("    }\n}\n");
        assert!(!hollow(&doc, &["    }", "}"], &fit(0, 2), Form::Raw, false));
    }
}
