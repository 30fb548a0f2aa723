//! Evidence that an edit is already applied: where its post-image stands, and when that counts.
//!
//! The ladder ([`crate::locate::locate_lines`]) asks these while it looks for the pre-image: the
//! post-image found once while the pre-image is absent means the edit was made (a retried
//! edit). These helpers say where the post-image stands, and when it proves less than it seems:
//! a deletion, whose post-image is only context that stood in the file before the edit too, and
//! a deletion at the edge of its hunk whose removed lines still stand beside the match. (An
//! insertion that could slide and a trailing-whitespace change are judged in `insertion`.)

use crate::edit::{Hunk, HunkLine, LineKind, TextPair};
use crate::locate::guards::substance::cuts_word;
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::{contiguous_fits, Fit};
use crate::locate::rungs::substring::{occurrences, Flat, MAX_HITS};
use crate::locate::write::levels::one_way;
use crate::locate::{post_image, pre_image};
use crate::report::{HunkReport, Status};
use crate::text::Trim as _;
use crate::text::{leading_ws, strip_cr, Doc, Form};

/// File lines beyond the removed lines' own count that [`removal_stands`] looks through, for
/// context lines the reply left out between them and the post-image.
const SLACK: usize = 2;

/// Whether the post-image, found in `form`, can vouch for "already applied". An edit that only
/// removes lines leaves a post-image made of lines that stood in the file before the edit too,
/// so finding it is weaker evidence than finding added lines. Found with its lines' exact
/// indentation it counts; found at another indentation (the indent form) only when two of its
/// lines hold words or numbers, since a run of closing braces at other levels is no proof that
/// lines were removed next to it; the canonical form, which folds inner spacing, never counts.
/// A post-image of blank lines only never counts: blank lines stand all over a file, before the
/// edit as after it (a deletion between two blank lines is not made wherever two blank lines
/// meet). An edit that adds only bracket lines vouches only in the strict forms too.
pub(crate) fn post_image_vouches(lines: &[HunkLine], form: Form) -> bool {
    let mut added = lines.iter().filter(|l| l.kind == LineKind::Add).peekable();
    if added.peek().is_some() {
        // Added lines of brackets only (`}`, `);`), found where whitespace is folded, match
        // any closing bracket at any level: they prove nothing was added.
        let loose = matches!(form, Form::Trim | Form::Canon);
        return !loose || added.any(|l| l.text.chars().any(char::is_alphanumeric));
    }
    if post_image(lines).iter().all(|l| l.trim_ws().is_empty()) {
        return false;
    }
    let worded = || {
        post_image(lines)
            .iter()
            .filter(|l| l.chars().any(char::is_alphanumeric))
            .count()
            >= 2
    };
    match form {
        Form::Raw | Form::TrimEnd => true,
        Form::Trim => worded(),
        Form::Canon => false,
    }
}

/// Whether a deletion at the edge of its hunk has not happened at the post-image's place
/// `[start, end)`: when the post-image is the pre-image's last (or first) lines, nothing kept
/// lies beyond the removed lines to show they are gone, so the file is asked directly. When
/// most of the removed lines (those with text, each file line counted once) still stand within
/// their own count (plus [`SLACK`]) before (or after) the place, the pre-image merely did not
/// match (a quoted line left out), and the edit is not applied.
pub(crate) fn removal_stands(doc: &Doc, lines: &[HunkLine], start: usize, end: usize) -> bool {
    if lines.iter().any(|l| l.kind == LineKind::Add) {
        return false;
    }
    let (pre, _) = pre_image(lines);
    let post = post_image(lines);
    let n = pre.len() - post.len();
    let before =
        pre.ends_with(&post) && mostly_in(doc, &pre[..n], start.saturating_sub(n + SLACK), start);
    let after = pre.starts_with(&post) && mostly_in(doc, &pre[post.len()..], end, end + n + SLACK);
    before || after
}

/// "Already applied", whatever rung said so, needs the lines the edit removes to be gone: a
/// result found right beside the old lines it replaces is refused (`not_found`), never taken as
/// done (see [`replaced_lines_stand`]). Run after hunks that disagree were settled
/// ([`crate::locate::applied::settle`]), which may place such a hunk at its old text.
pub(crate) fn refuse_applied_beside_old(doc: &Doc, hunk: &Hunk, report: &mut HunkReport) {
    let Some(lines) = report
        .lines
        .filter(|_| report.status == Status::AlreadyApplied)
    else {
        return;
    };
    if replaced_lines_stand(doc, &hunk.lines, lines.start - 1, lines.end) {
        report.status = Status::NotFound;
        report.message = Some(format!(
            "the edit's result stands at lines {}-{}, but the lines it replaces still stand beside it: the file holds both, so the edit is not applied; quote the lines to change as they are now",
            lines.start, lines.end
        ));
    }
}

/// Whether the lines an edit that adds text removes for good (pre-image lines with text that no
/// post-image line keeps) all still stand right beside the place `[start, end)` where its
/// result was found, within the hunk's length (plus [`SLACK`]) before or after it, one of them
/// a line the file holds once. A
/// result standing next to the old text it replaces is no retried edit: the file holds both (a
/// method defined twice, new version first), and the edit is still to make, or was written
/// against another file. An edit is already applied only when the lines it removes are gone.
pub(crate) fn replaced_lines_stand(
    doc: &Doc,
    lines: &[HunkLine],
    start: usize,
    end: usize,
) -> bool {
    if !lines.iter().any(|l| l.kind == LineKind::Add) {
        return false;
    }
    let (pre, _) = pre_image(lines);
    let mut kept: Vec<&str> = post_image(lines)
        .into_iter()
        .map(|l| strip_cr(l).trim_end_ws())
        .collect();
    let mut removed: Vec<&str> = Vec::new();
    for l in pre {
        let t = strip_cr(l).trim_end_ws();
        match kept.iter().position(|k| *k == t) {
            Some(k) => {
                kept.swap_remove(k);
            }
            None if crate::text::has_words(t) => removed.push(t),
            None => {}
        }
    }
    // A line the file holds more than once (`wait(d);` in three loops) says nothing of its
    // own: one removed line the file holds once must be among them. And every removed line
    // must stand there: an edit that moved some of its lines into new code (a function split
    // in two, the old name kept for a wrapper) leaves others gone.
    let once = |t: &&str| {
        (0..doc.len())
            .filter(|&k| strip_cr(doc.line(k)).trim_end_ws() == *t)
            .count()
            == 1
    };
    let reach = lines.len() + SLACK;
    removed.iter().any(once)
        && (all_in(doc, &removed, start.saturating_sub(reach), start)
            || all_in(doc, &removed, end, end + reach))
}

/// Whether every one of `removed` (non-empty) stands among file lines `[from, to)`, compared
/// up to trailing whitespace, each file line matching once.
fn all_in(doc: &Doc, removed: &[&str], from: usize, to: usize) -> bool {
    let mut window: Vec<&str> = (from..to.min(doc.len()))
        .map(|f| strip_cr(doc.line(f)).trim_end_ws())
        .collect();
    !removed.is_empty()
        && removed
            .iter()
            .all(|w| match window.iter().position(|f| f == w) {
                Some(k) => {
                    window.remove(k);
                    true
                }
                None => false,
            })
}

/// Whether an edit only removes lines, each equal to a line it keeps: a deletion inside a run
/// of equal lines, whose result looks the same wherever in the run it is made.
pub(crate) fn removes_run_lines(lines: &[HunkLine]) -> bool {
    let kept: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Context)
        .map(|l| strip_cr(&l.text).trim_end_ws())
        .collect();
    let mut removed = lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .peekable();
    !lines.iter().any(|l| l.kind == LineKind::Add)
        && removed.peek().is_some()
        && removed.all(|l| {
            let t = strip_cr(&l.text).trim_end_ws();
            !t.trim_ws().is_empty() && kept.contains(&t)
        })
}

/// Whether most of the non-blank `removed` lines stand among file lines `[from, to)`, compared
/// up to trailing whitespace, each file line matching once.
fn mostly_in(doc: &Doc, removed: &[&str], from: usize, to: usize) -> bool {
    let mut window: Vec<&str> = (from..to.min(doc.len()))
        .map(|f| strip_cr(doc.line(f)).trim_end_ws())
        .collect();
    let wanted: Vec<&str> = removed
        .iter()
        .map(|l| strip_cr(l).trim_end_ws())
        .filter(|l| !l.trim_ws().is_empty())
        .collect();
    let found = wanted
        .iter()
        .filter(|w| match window.iter().position(|f| f == *w) {
            Some(k) => {
                window.remove(k);
                true
            }
            None => false,
        })
        .count();
    !wanted.is_empty() && found * 2 > wanted.len()
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
        .filter(|f| levels_one_way(doc, form, post, f))
        .filter(|f| {
            post.iter().zip(&f.map).zip(added).all(|((p, span), &add)| {
                let want = f.reindent.apply(p);
                let have = strip_cr(doc.line(span.start));
                !add || if exact_ends {
                    want == have
                } else {
                    want.trim_end_ws() == have.trim_end_ws()
                }
            })
        })
        .map(|f| f.range())
        .collect()
}

/// Whether the post-image, found at fit `f` in `form`, stands there as the edit would write it
/// in indentation: where the form folds leading whitespace, the reply's indentation widths must
/// map onto the file's one way (see [`one_way`]). Closing braces at 12, 4 and 0 columns with an
/// added line at 28 read in the trim or canonical form as the braces at 32, 28 and 24 around a
/// line at 28 deeper in the file, yet no edit writes that: it is another block's text, not this
/// edit's result, and no evidence that the edit was made. Widths indented with tabs are not
/// judged here.
fn levels_one_way(doc: &Doc, form: Form, post: &[&str], f: &Fit) -> bool {
    if !matches!(form, Form::Trim | Form::Canon) {
        return true;
    }
    let mut pairs = Vec::new();
    for (p, span) in post.iter().zip(&f.map) {
        let have = strip_cr(doc.line(span.start));
        if p.trim_ws().is_empty() || have.trim_ws().is_empty() {
            continue;
        }
        let (a, b) = (leading_ws(p), leading_ws(have));
        if a.contains('\t') || b.contains('\t') {
            return true;
        }
        pairs.push((a.len(), b.len()));
    }
    one_way(&pairs)
}

/// A text replacement whose old text stands nowhere byte for byte, while its new text stands
/// once, byte for byte, as whole words and with only whitespace beside it on its lines, apart
/// from every place the line ladder found the old text only in a looser form (`places`, each
/// `[start, end)`): the lines where the new text stands, `[start, end)`. The byte-exact new text
/// is stricter evidence than a re-spaced line: a retried edit whose old text was part of a line
/// (`   where` inside `    where`) finds its old words on another line at another indentation,
/// and must not rewrite them there. The old text's own words inside the new text (`where` in
/// `new_where`) do not count as the old text standing; a deletion at the edge of the old text
/// leaves new text that stood before the edit too, and proves nothing.
pub(crate) fn new_text_settled(
    flat: &Flat,
    pair: &TextPair,
    places: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let old = pair.old.replace("\r\n", "\n");
    let new = pair.new.replace("\r\n", "\n");
    if old.trim_ws().is_empty() || new.trim_ws().is_empty() || old == new {
        return None;
    }
    if old.starts_with(new.as_str())
        || old.ends_with(new.as_str())
        || keeps_only_old_lines(&old, &new)
    {
        return None;
    }
    if !occurrences(&flat.text, &old, 1).is_empty() {
        return None;
    }
    let news: Vec<usize> = occurrences(&flat.text, &new, MAX_HITS)
        .into_iter()
        .filter(|&a| !cuts_word(&flat.text, a, a + new.len()))
        .collect();
    let [n] = news[..] else {
        return None;
    };
    // Only whitespace beside it on its lines: the new text is those lines, as a line rung's
    // post-image would be, not a fragment of a longer line that happens to read the same.
    let head = flat.text[..n].rsplit('\n').next().unwrap_or("");
    let tail = flat.text[n + new.len()..].split('\n').next().unwrap_or("");
    if !head.trim_ws().is_empty() || !tail.trim_ws().is_empty() {
        return None;
    }
    let (start, end) = flat.lines_of(n, n + new.len());
    places
        .iter()
        .all(|&(s, e)| e <= start || s >= end)
        .then_some((start, end))
}

/// Whether `new`'s lines are some of `old`'s whole lines, in order: a deletion of whole lines,
/// whose new text is context that stood in the file before the edit too.
fn keeps_only_old_lines(old: &str, new: &str) -> bool {
    let mut olds = old.split('\n');
    new.split('\n').all(|n| olds.any(|o| o == n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(spec: &[(LineKind, &str)]) -> Vec<HunkLine> {
        spec.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect()
    }

    #[test]
    fn a_deletion_of_lines_it_also_keeps_removes_run_lines() {
        use LineKind::{Add, Context, Remove};
        let run = lines(&[(Context, "5,5,"), (Remove, "5,5,"), (Context, "5,0xad")]);
        assert!(removes_run_lines(&run));
        let distinct = lines(&[(Context, "a"), (Remove, "b"), (Context, "c")]);
        assert!(!removes_run_lines(&distinct));
        let replace = lines(&[(Context, "5,5,"), (Remove, "5,5,"), (Add, "6,")]);
        assert!(!removes_run_lines(&replace));
    }

    #[test]
    fn deletions_vouch_only_in_strict_forms() {
        use LineKind::{Add, Context, Remove};
        let inner = lines(&[(Context, "a"), (Remove, "b"), (Context, "c")]);
        assert!(post_image_vouches(&inner, Form::TrimEnd));
        assert!(post_image_vouches(&inner, Form::Trim));
        assert!(!post_image_vouches(&inner, Form::Canon));
        let braces = lines(&[(Context, "    }"), (Remove, "x();"), (Context, "}")]);
        assert!(post_image_vouches(&braces, Form::Raw));
        assert!(!post_image_vouches(&braces, Form::Trim));
        let replace = lines(&[(Remove, "a"), (Add, "b")]);
        assert!(post_image_vouches(&replace, Form::Canon));
        let brace = lines(&[(Context, "  }"), (Add, "    }"), (Context, "Ok(())")]);
        assert!(!post_image_vouches(&brace, Form::Canon));
        assert!(post_image_vouches(&brace, Form::Raw));
        // Blank lines around a removed line are no evidence in any form.
        let blanks = lines(&[(Context, ""), (Remove, "- item"), (Context, "  ")]);
        assert!(!post_image_vouches(&blanks, Form::Raw));
        assert!(!post_image_vouches(&blanks, Form::Trim));
    }

    #[test]
    fn an_edge_removal_still_in_the_file_is_not_applied() {
        use LineKind::{Context, Remove};
        // Remove `head` before `a` `b`: the file still has it, one left-out line away.
        let hunk = lines(&[(Remove, "head"), (Context, "a"), (Context, "b")]);
        let doc = Doc::parse("head\nskipped\na\nb\n");
        assert!(removal_stands(&doc, &hunk, 2, 4));
        // Gone from there: the retried edit is applied.
        let doc = Doc::parse("x\na\nb\nhead\n");
        assert!(!removal_stands(&doc, &hunk, 1, 3));
        // The same at the end, blank removed lines aside.
        let hunk = lines(&[(Context, "a"), (Remove, "tail"), (Remove, "")]);
        let doc = Doc::parse("a\nmid\ntail\n\n");
        assert!(removal_stands(&doc, &hunk, 0, 1));
        // A brace or two like the removed ones nearby is not the removed block.
        let hunk = lines(&[
            (Remove, "if x {"),
            (Remove, "    y();"),
            (Remove, "}"),
            (Context, "z();"),
        ]);
        let doc = Doc::parse("if w {\n    v();\n}\nz();\n");
        assert!(!removal_stands(&doc, &hunk, 3, 4));
        // An inner removal is proven by its kept lines standing together.
        let inner = lines(&[(Context, "a"), (Remove, "b"), (Context, "c")]);
        let doc = Doc::parse("b\na\nc\n");
        assert!(!removal_stands(&doc, &inner, 1, 3));
    }

    #[test]
    fn a_retried_sub_line_edit_is_settled_by_its_new_text() {
        let pair = |old: &str, new: &str| TextPair {
            old: old.into(),
            new: new.into(),
        };
        let doc = Doc::parse("impl X\nwhere\n{\n    new_where\n}\n");
        let flat = Flat::new(&doc);
        let retried = pair("   where", "   new_where");
        // `   where` stands nowhere; `where` re-spaced at line 1 is apart from the new text.
        assert_eq!(new_text_settled(&flat, &retried, &[(1, 2)]), Some((3, 4)));
        // A place overlapping the new text's line settles nothing.
        assert_eq!(new_text_settled(&flat, &retried, &[(3, 4)]), None);
        // The old text standing byte for byte: the edit is not made yet.
        let fresh = pair("where", "new_where");
        assert_eq!(new_text_settled(&flat, &fresh, &[(1, 2)]), None);
        // New text inside a longer word is not the new text.
        let cut = pair("   wher", "   new_wher");
        assert_eq!(new_text_settled(&flat, &cut, &[(1, 2)]), None);
        // The new text as a fragment of a longer line is not those lines.
        let doc = Doc::parse("where\nlet x =    new_where;\n");
        let flat = Flat::new(&doc);
        assert_eq!(new_text_settled(&flat, &retried, &[(0, 1)]), None);
        // A deletion at the edge of the old text leaves text that stood before: no proof.
        let doc = Doc::parse("a\nkeep();\n  keep();\n");
        let flat = Flat::new(&doc);
        let edge = pair("  keep();\n  drop();", "  keep();");
        assert_eq!(new_text_settled(&flat, &edge, &[(1, 2)]), None);
        // Nor does one in the middle: `    }` twice stands in `        }` / `    }`.
        let doc = Doc::parse("        }\n    }\n\n    if x {\n        f();\n    }\n");
        let flat = Flat::new(&doc);
        let middle = pair("    }\n\n    if x {\n        f();\t\n    }", "    }\n    }");
        assert_eq!(new_text_settled(&flat, &middle, &[(3, 6)]), None);
    }
}
