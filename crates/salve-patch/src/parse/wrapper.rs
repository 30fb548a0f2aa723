//! Wrappers around edits: Markdown fences (any length, backticks or tildes) and the
//! `<<<AI_DIFF_START>>>` / `<<<AI_DIFF_END>>>` markers.
//!
//! A wrapper's content is read as a nested reply, so wrappers may hold prose, several edits and
//! further wrappers. A fence that has a path attached and whose content is not an edit is a
//! whole-file block. A wrapper the reply ends inside is an [`RegionState::Open`] region; the
//! format readers use that as evidence of truncation.

use super::{paths, scan_region, search_replace, whole_file, Cx, Region, RegionState};

pub(crate) const MARK_START: &str = "<<<AI_DIFF_START>>>";
pub(crate) const MARK_END: &str = "<<<AI_DIFF_END>>>";

/// An opening fence line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fence {
    pub indent: usize,
    pub ch: u8,
    pub len: usize,
    pub info: String,
}

/// Reads an opening fence: up to three spaces, then three or more backticks or tildes, then an
/// info string (which may not hold a backtick in a backtick fence).
pub(crate) fn fence_open(line: &str) -> Option<Fence> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = line.get(indent..)?;
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = rest.get(len..)?.trim();
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some(Fence {
        indent,
        ch,
        len,
        info: info.to_string(),
    })
}

/// True when `line` closes `f`: the same character, at least as many, indented no deeper than
/// the opener (so a diff context line ` ``` ` inside a column-0 fence is content), nothing after.
pub(crate) fn is_fence_close(line: &str, f: &Fence) -> bool {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > f.indent {
        return false;
    }
    let Some(rest) = line.get(indent..) else {
        return false;
    };
    let n = rest.bytes().take_while(|&b| b == f.ch).count();
    n >= f.len && rest.get(n..).is_some_and(|r| r.trim().is_empty())
}

/// Reads a markers pair starting at line `i`; returns the line after it.
pub(crate) fn markers(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let close = (i + 1..r.end).find(|&k| cx.src.line(k).trim() == MARK_END);
    let (end, state) = match close {
        Some(c) => (c, RegionState::Closed),
        None => (r.end, r.unclosed_child_state(&cx.src)),
    };
    let inner = Region {
        start: i + 1,
        end,
        state,
        hint: None,
        diff_lang: false,
        depth: r.depth + 1,
    };
    scan_region(cx, &inner);
    close.map_or(end, |c| c + 1)
}

/// The language word of an info string (`rust` in `rust src/lib.rs` or `rust:src/lib.rs`).
fn lang_of(info: &str) -> String {
    let first = info.split_whitespace().next().unwrap_or("");
    first.split(':').next().unwrap_or("").to_ascii_lowercase()
}

/// True when the content starting at `first` opens with an edit of any format.
fn starts_with_edit(cx: &Cx, first: usize, end: usize) -> bool {
    let line = cx.src.line(first);
    let t = line.trim_start();
    line.starts_with("diff --git ")
        || super::diff::is_file_header(&cx.src, first, end)
        || super::codex::is_start(line)
        || search_replace::is_search(line)
        || super::diff::is_orphan_hunk_start(&cx.src, first, end)
        || line.trim() == MARK_START
        || ((t.starts_with('{') || t.starts_with('['))
            && super::json::mentions_edit_keys(
                cx.src
                    .text()
                    .get(cx.src.offset(first)..cx.src.offset(end))
                    .unwrap_or(""),
            ))
}

/// Reads the fence opened at line `i`; returns the line after its close. `pending` is a path
/// line seen just before the fence.
pub(crate) fn fence(
    cx: &mut Cx,
    r: &Region,
    i: usize,
    f: &Fence,
    pending: Option<paths::PathLine>,
) -> usize {
    let info_path = paths::path_from_info(&f.info);
    // A weak path (a bare word such as `compile`) is trusted for whole-file content only when
    // the content is a script (`#!`); edit formats inside the fence prove intent on their own.
    let strong = info_path.is_some() || pending.as_ref().is_some_and(|p| p.strict);
    let hint = info_path.or(pending.map(|p| p.path));
    let lang = lang_of(&f.info);
    let diff_lang = matches!(lang.as_str(), "diff" | "patch" | "udiff" | "git-diff");
    let start = i + 1;
    let first = cx.src.next_nonblank(start, r.end);

    // SEARCH/REPLACE content may itself hold fences, so its blocks are read before the close.
    if let Some(k) = first {
        let second = cx.src.next_nonblank(k + 1, r.end);
        let sr_first = search_replace::is_search(cx.src.line(k))
            || (paths::path_candidate(cx.src.line(k)).is_some()
                && second.is_some_and(|s| search_replace::is_search(cx.src.line(s))));
        if sr_first {
            return search_replace::parse_fenced(cx, r, start, f, hint);
        }
    }

    let close = (start..r.end).find(|&k| is_fence_close(cx.src.line(k), f));
    let end = close.unwrap_or(r.end);
    let state = match close {
        Some(_) => RegionState::Closed,
        None => r.unclosed_child_state(&cx.src),
    };
    if close.is_none() && state == RegionState::Closed {
        cx.note(format!(
            "line {}: fence never closed; read up to the end of its wrapper",
            i + 1
        ));
    }
    let inner = Region {
        start,
        end,
        state,
        hint: hint.clone(),
        diff_lang,
        depth: r.depth + 1,
    };
    let next = close.map_or(end, |c| c + 1);
    let Some(first) = cx.src.next_nonblank(start, end) else {
        return next;
    };
    let edit_first = starts_with_edit(cx, first, end);
    let whole_ok = strong || cx.src.line(first).starts_with("#!");
    let hint = hint.filter(|_| whole_ok || edit_first || diff_lang);
    match hint {
        Some(path) if !edit_first && !diff_lang => {
            whole_file::take(cx, &inner, path, &lang);
        }
        Some(path) => {
            let before = cx.found();
            scan_region(cx, &inner);
            if cx.found() == before && !diff_lang && whole_ok {
                whole_file::take(cx, &inner, path, &lang);
            }
        }
        None => scan_region(cx, &inner),
    }
    next
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn fence_openers() {
        let f = fence_open("```diff").unwrap();
        assert_eq!(
            (f.indent, f.ch, f.len, f.info.as_str()),
            (0, b'`', 3, "diff")
        );
        let f = fence_open("  ````rust src/lib.rs").unwrap();
        assert_eq!(
            (f.indent, f.len, f.info.as_str()),
            (2, 4, "rust src/lib.rs")
        );
        assert_eq!(fence_open("~~~").map(|f| f.ch), Some(b'~'));
        assert!(fence_open("``").is_none());
        assert!(fence_open("    ```").is_none());
        assert!(fence_open("```a`b").is_none());
        assert!(fence_open("text ```").is_none());
    }

    #[test]
    fn fence_closers() {
        let f = fence_open("````").unwrap();
        assert!(is_fence_close("````", &f));
        assert!(is_fence_close("`````  ", &f));
        assert!(!is_fence_close("```", &f));
        assert!(!is_fence_close("````rust", &f));
        let f = fence_open("```").unwrap();
        assert!(!is_fence_close(" ```", &f));
        assert!(!is_fence_close("~~~", &f));
        let f = fence_open("  ```").unwrap();
        assert!(is_fence_close(" ```", &f));
    }

    #[test]
    fn lang_words() {
        assert_eq!(lang_of("Rust src/x.rs"), "rust");
        assert_eq!(lang_of("rust:src/x.rs"), "rust");
        assert_eq!(lang_of(""), "");
    }
}
