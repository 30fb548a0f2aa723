//! Explicit evidence for choosing between several candidates: scope lines, anchors and line
//! hints consistent with where the file's other hunks were found.
//!
//! Evidence only ever narrows a candidate set; a choice is made only when exactly one candidate
//! remains. Nothing here picks "the first" or "the nearest".

use crate::edit::Anchor;
use crate::locate::rungs::index::{FileIndex, PREFIX_SCOPE_MIN};
use crate::text::{canonical, indent_width, is_blank, leading_ws, Doc};

fn scope_matches(line: &str, scope: &str) -> bool {
    let l = canonical(line);
    if l == scope {
        return true;
    }
    scope.len() >= PREFIX_SCOPE_MIN && l.starts_with(scope)
}

/// The line that ends the block opened at line `s`: the next non-blank line indented no deeper
/// than `s` that does not just close it.
pub(crate) fn block_end(doc: &Doc, s: usize) -> usize {
    let indent = indent_width(leading_ws(doc.line(s)), 4);
    for k in s + 1..doc.len() {
        let line = doc.line(k);
        if is_blank(line) {
            continue;
        }
        let w = indent_width(leading_ws(line), 4);
        let t = line.trim_start();
        let closes = t.starts_with(['}', ')', ']']) || t == "end" || t.starts_with("end ");
        if w < indent || (w == indent && !closes) {
            return k;
        }
    }
    doc.len()
}

/// The stacked scopes resolved to `(scope line, end of its block)`: each scope must occur
/// exactly once inside the block of the previous one.
pub(crate) fn resolve_scopes(idx: &FileIndex, scopes: &[String]) -> Option<(usize, usize)> {
    if scopes.is_empty() {
        return None;
    }
    let doc = idx.doc;
    let (mut lo, mut hi) = (0, doc.len());
    let mut found = None;
    for scope in scopes {
        let sc = canonical(scope);
        if sc.is_empty() {
            continue;
        }
        // The index narrows the file to the lines that may match; the text decides.
        let lines = idx.scope_lines(&sc);
        let mut hits = lines
            .into_iter()
            .filter(|&i| i >= lo && i < hi && scope_matches(doc.line(i), &sc));
        let s = hits.next()?;
        if hits.next().is_some() {
            return None;
        }
        found = Some(s);
        lo = s + 1;
        hi = block_end(doc, s).min(hi);
    }
    found.map(|s| (s, hi))
}

/// git's default section heading for a hunk starting at line `start`: the nearest line above
/// it that starts with a letter, `_` or `$`.
fn heading(doc: &Doc, start: usize) -> Option<usize> {
    (0..start).rev().find(|&k| {
        doc.line(k)
            .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
    })
}

/// Candidate ranges narrowed by scope lines: first "inside the scope's block", then, for a single
/// scope, "the scope is the section heading git would print for this position".
pub(crate) fn by_scope(
    idx: &FileIndex,
    scopes: &[String],
    ranges: &[(usize, usize)],
) -> Vec<usize> {
    if scopes.is_empty() {
        return Vec::new();
    }
    let doc = idx.doc;
    if let Some((s, end)) = resolve_scopes(idx, scopes) {
        let inside: Vec<usize> = (0..ranges.len())
            .filter(|&i| ranges[i].0 > s && ranges[i].0 < end)
            .collect();
        if !inside.is_empty() {
            return inside;
        }
    }
    if let [scope] = scopes {
        let sc = canonical(scope);
        if sc.is_empty() {
            return Vec::new();
        }
        return (0..ranges.len())
            .filter(|&i| heading(doc, ranges[i].0).is_some_and(|h| scope_matches(doc.line(h), &sc)))
            .collect();
    }
    Vec::new()
}

/// Candidates pinned by an anchor: the one starting the file or the one ending it.
pub(crate) fn by_anchor(anchor: Anchor, len: usize, ranges: &[(usize, usize)]) -> Vec<usize> {
    match anchor {
        Anchor::None | Anchor::AfterLine(_) => Vec::new(),
        Anchor::Start => (0..ranges.len()).filter(|&i| ranges[i].0 == 0).collect(),
        Anchor::End => (0..ranges.len()).filter(|&i| ranges[i].1 == len).collect(),
    }
}

/// Candidates whose start equals the 1-based hint shifted by one of `offsets` (the offsets at
/// which the file's other hunks were found, or 0 when there are none).
pub(crate) fn by_hint(
    hint: Option<usize>,
    offsets: &[isize],
    ranges: &[(usize, usize)],
) -> Vec<usize> {
    let Some(h) = hint else {
        return Vec::new();
    };
    (0..ranges.len())
        .filter(|&i| {
            let at = ranges[i].0 as isize + 1;
            offsets.iter().any(|d| at == h as isize + d)
        })
        .collect()
}

/// The one candidate that two independent kinds of evidence name together: the line hint
/// (consistent with the other hunks) picks exactly it, and its git section heading is the hunk's
/// only scope line. Checking that costs a walk up to the heading, where resolving the scope in the
/// whole file (the general path) costs a pass over every line, and a clean `git diff` of a file
/// with repeated code has both for every repeated hunk.
fn hint_agrees_with_heading(
    doc: &Doc,
    scopes: &[String],
    hint: Option<usize>,
    offsets: &[isize],
    ranges: &[(usize, usize)],
) -> Option<usize> {
    let [scope] = scopes else {
        return None;
    };
    let [k] = by_hint(hint, offsets, ranges)[..] else {
        return None;
    };
    let sc = canonical(scope);
    let h = heading(doc, ranges[k].0)?;
    (!sc.is_empty() && scope_matches(doc.line(h), &sc)).then_some(k)
}

/// Narrow `ranges` with every kind of evidence in turn; `Some` when exactly one is left.
pub(crate) fn choose(
    idx: &FileIndex,
    scopes: &[String],
    anchor: Anchor,
    hint: Option<usize>,
    offsets: &[isize],
    ranges: &[(usize, usize)],
) -> Option<usize> {
    if let Some(k) = hint_agrees_with_heading(idx.doc, scopes, hint, offsets, ranges) {
        return Some(k);
    }
    let mut alive: Vec<usize> = (0..ranges.len()).collect();
    let sub =
        |alive: &[usize]| -> Vec<(usize, usize)> { alive.iter().map(|&i| ranges[i]).collect() };
    type Step<'s> = &'s dyn Fn(&[(usize, usize)]) -> Vec<usize>;
    let steps: [Step; 3] = [
        &|r| by_scope(idx, scopes, r),
        &|r| by_anchor(anchor, idx.len(), r),
        &|r| by_hint(hint, offsets, r),
    ];
    for step in steps {
        if alive.len() == 1 {
            break;
        }
        let keep = step(&sub(&alive));
        if !keep.is_empty() {
            alive = keep.into_iter().map(|k| alive[k]).collect();
        }
    }
    (alive.len() == 1).then(|| alive[0])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const SRC: &str = "impl A {\n    fn run() {\n        x();\n    }\n}\nimpl B {\n    fn run() {\n        x();\n    }\n}\n";

    #[test]
    fn stacked_scopes_pick_the_block() {
        let doc = Doc::parse(SRC);
        let idx = FileIndex::new(&doc);
        let ranges = [(2, 3), (7, 8)];
        assert_eq!(
            by_scope(&idx, &["impl B {".into(), "fn run() {".into()], &ranges),
            vec![1]
        );
        assert_eq!(by_scope(&idx, &["impl A {".into()], &ranges), vec![0]);
        // An ambiguous scope gives no evidence.
        assert!(by_scope(&idx, &["fn run() {".into()], &ranges).is_empty());
    }

    #[test]
    fn block_end_skips_closers() {
        let doc = Doc::parse(SRC);
        assert_eq!(block_end(&doc, 0), 5);
        assert_eq!(block_end(&doc, 1), 4);
    }

    #[test]
    fn hint_must_agree_with_an_offset() {
        let ranges = [(9, 12), (29, 32)];
        assert_eq!(by_hint(Some(25), &[5], &ranges), vec![1]);
        assert!(by_hint(Some(25), &[0], &ranges).is_empty());
        assert!(by_hint(None, &[0], &ranges).is_empty());
    }

    #[test]
    fn a_hint_and_the_heading_agreeing_pick_without_resolving_the_scope() {
        // Two functions with the same body; git's heading for a hunk is the function line.
        let src = "int a(void) {\n  x();\n  y();\n}\nint b(void) {\n  x();\n  y();\n}\n";
        let doc = Doc::parse(src);
        let idx = FileIndex::new(&doc);
        let ranges = [(1, 3), (5, 7)];
        let scope = ["int b(void) {".to_string()];
        assert_eq!(
            hint_agrees_with_heading(&doc, &scope, Some(6), &[0], &ranges),
            Some(1)
        );
        assert_eq!(
            choose(&idx, &scope, Anchor::None, Some(6), &[0], &ranges),
            Some(1)
        );
        // The hint names the other candidate: the heading disagrees, so the scope decides.
        assert_eq!(
            hint_agrees_with_heading(&doc, &scope, Some(2), &[0], &ranges),
            None
        );
        assert_eq!(
            choose(&idx, &scope, Anchor::None, Some(2), &[0], &ranges),
            Some(1)
        );
        // No hint: the scope alone decides.
        assert_eq!(
            choose(&idx, &scope, Anchor::None, None, &[0], &ranges),
            Some(1)
        );
    }

    #[test]
    fn choose_needs_exactly_one() {
        let doc = Doc::parse(SRC);
        let idx = FileIndex::new(&doc);
        let ranges = [(2, 3), (7, 8)];
        assert_eq!(
            choose(&idx, &[], Anchor::None, Some(8), &[0], &ranges),
            Some(1)
        );
        assert_eq!(choose(&idx, &[], Anchor::None, None, &[0], &ranges), None);
        assert_eq!(
            choose(&idx, &[], Anchor::End, None, &[0], &[(0, 2), (8, 10)]),
            Some(1)
        );
    }
}
