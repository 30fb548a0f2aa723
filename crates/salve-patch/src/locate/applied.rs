//! Evidence that an edit is already applied: where its post-image stands, and when that counts.
//!
//! The ladder ([`super::locate_lines`]) asks these while it looks for the pre-image: the
//! post-image found once while the pre-image is absent means the edit was made (a retried
//! edit). Each helper says when the post-image proves less than it seems: a trailing-whitespace
//! change, an insertion that could slide along equal neighbours, and a deletion at the edge of
//! its hunk, whose post-image is only the context that was always there.

use super::index::FileIndex;
use super::search::contiguous_fits;
use super::{post_image, pre_image};
use crate::edit::{HunkLine, LineKind};
use crate::text::{strip_cr, Form};

/// Whether the post-image, found in `form`, can vouch for "already applied".
///
/// An edit that only removes lines leaves a post-image made of lines that stood in the file
/// before the edit too, so finding it is weaker evidence than finding added lines:
/// - when the post-image is the pre-image's first or last lines (nothing kept on one side of
///   the removal, in some alignment of repeated lines), it proves nothing at all: a pre-image
///   that is not found (a quoted line left out, a stale quote) is then not found, never
///   "already applied";
/// - otherwise only a form that keeps the lines' words and inner spacing counts (not the
///   canonical form): a loosely equal run of short lines is no proof that lines were removed
///   between them.
pub(crate) fn post_image_vouches(lines: &[HunkLine], form: Form) -> bool {
    if lines.iter().any(|l| l.kind == LineKind::Add) {
        return true;
    }
    let (pre, _) = pre_image(lines);
    let post = post_image(lines);
    form != Form::Canon && !pre.starts_with(&post) && !pre.ends_with(&post)
}

/// Whether the hunk changes trailing whitespace: a removed line and an added line equal but for
/// it. Then the added lines vouch for "already applied" only with their exact line ends, since
/// the file's old lines equal them up to the whitespace the edit is about.
pub(crate) fn changes_trailing_ws(lines: &[HunkLine]) -> bool {
    let removed: std::collections::HashSet<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| strip_cr(&l.text).trim_end())
        .collect();
    lines.iter().any(|l| {
        let t = strip_cr(&l.text);
        l.kind == LineKind::Add
            && removed.contains(t.trim_end())
            && !lines
                .iter()
                .any(|r| r.kind == LineKind::Remove && strip_cr(&r.text) == t)
    })
}

/// Whether the lines a hunk adds hold real code of their own: at least two lines with a letter
/// or digit that are not copies of the hunk's other lines. Repeating such a run verbatim beside
/// itself is not what an edit means; repeating a blank, a brace or lines already around it may
/// be.
pub(crate) fn substantial_insertion(lines: &[HunkLine]) -> bool {
    let others: std::collections::HashSet<&str> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| strip_cr(&l.text).trim())
        .collect();
    let own: std::collections::HashSet<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text).trim())
        .filter(|t| t.chars().any(char::is_alphanumeric) && !others.contains(t))
        .collect();
    own.len() >= 2
}

/// Whether a run of added lines (with no removal next to it) could slide over an equal
/// neighbouring context line, as an insertion into a run of equal lines can.
pub(crate) fn slidable_insertion(lines: &[HunkLine]) -> bool {
    let text = |i: usize| strip_cr(&lines[i].text);
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind != LineKind::Add {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].kind == LineKind::Add {
            i += 1;
        }
        let before = start
            .checked_sub(1)
            .filter(|&b| lines[b].kind == LineKind::Context);
        let after = (i < lines.len() && lines[i].kind == LineKind::Context).then_some(i);
        let prev_remove = start > 0 && lines[start - 1].kind == LineKind::Remove;
        let next_remove = i < lines.len() && lines[i].kind == LineKind::Remove;
        if prev_remove || next_remove {
            continue;
        }
        if before.is_some_and(|b| text(b) == text(i - 1))
            || after.is_some_and(|a| text(a) == text(start))
        {
            return true;
        }
    }
    false
}

/// Where the post-image stands in the file, compared in `form`, as evidence that the edit is
/// already applied. Nothing when the edit is invisible in this form (pre- and post-image compare
/// equal, e.g. an indentation-only change under the canonical form), and only places where every
/// added line is really there (up to trailing whitespace and the indentation delta), since a
/// loose form must not vouch for the lines the edit writes.
pub(crate) fn post_hits_in(
    idx: &FileIndex,
    form: Form,
    pre: &[&str],
    post: &[&str],
    added: &[bool],
    exact_ends: bool,
) -> Vec<(usize, usize)> {
    let same = |a: &[&str], b: &[&str]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| crate::text::hash_form(form, x) == crate::text::hash_form(form, y))
    };
    if post.is_empty() || same(pre, post) {
        return Vec::new();
    }
    let doc = idx.doc;
    contiguous_fits(idx, form, post)
        .into_iter()
        .filter(|f| {
            post.iter().zip(&f.map).zip(added).all(|((p, span), &add)| {
                let want = f.reindent.apply(p);
                let have = strip_cr(doc.line(span.start));
                !add || if exact_ends {
                    want == have
                } else {
                    want.trim_end() == have.trim_end()
                }
            })
        })
        .map(|f| f.range())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(spec: &[(LineKind, &str)]) -> Vec<HunkLine> {
        spec.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect()
    }

    #[test]
    fn edge_deletions_do_not_vouch() {
        use LineKind::{Add, Context, Remove};
        let raw = Form::Raw;
        assert!(!post_image_vouches(&lines(&[(Context, "a"), (Remove, "b")]), raw));
        assert!(!post_image_vouches(&lines(&[(Remove, "a"), (Context, "b")]), raw));
        let inner = lines(&[(Context, "a"), (Remove, "b"), (Context, "c")]);
        assert!(post_image_vouches(&inner, raw));
        assert!(!post_image_vouches(&inner, Form::Canon));
        assert!(post_image_vouches(&lines(&[(Remove, "a"), (Add, "b")]), Form::Canon));
        // Repeated lines: `x` `y` `x` kept around `z` `x` are also the last three lines of
        // `x` `z` `x` `y` `x`, with the removal at the start.
        let repeated = lines(&[
            (Context, "x"),
            (Remove, "z"),
            (Remove, "x"),
            (Context, "y"),
            (Context, "x"),
        ]);
        assert!(!post_image_vouches(&repeated, raw));
    }
}
