//! A cheap answer to "does this reply hold an edit?", for callers that only need to know whether
//! to stop asking (salve-llm's reply classification), not what the edit is.
//!
//! [`looks_like_edit`] walks the reply's lines once and looks for the markers at which [`extract`]
//! starts reading an edit, using the same line tests as the readers: it does not lower anything,
//! parse JSON or place hunks. Every marker it misses would make [`extract`] miss the edit too, so
//! it never says "no edit" where [`extract`] finds one; it may say "edit" where [`extract`] then
//! finds only a broken one (a SEARCH block with no path, a diff header without hunks).
//!
//! [`extract`]: super::extract

use super::cx::Source;
use super::fence::{fence_open, is_diff_lang, is_fence_close, lang_of, Fence};
use super::readers::{proves_any, Scan};
use super::{diff, markers, paths};

/// True when `reply` holds something [`extract`](super::extract) reads as an edit: a line where
/// a reader of the formats table proves one (a git or unified diff header, a Codex envelope, a
/// complete SEARCH/REPLACE block, an old/new or tool-call JSON value that closes with its keys,
/// a Cline/Roo tool call), or a fence with a path attached (a path line before it or in its
/// info string) whose content can be a whole file or hunks of that path.
///
/// It is a cheap scan, linear in the reply, meant for deciding whether a provider's reply is
/// worth applying. It errs only one way: whenever [`extract`](super::extract) finds an edit, this
/// says `true`; it may say `true` for a reply whose edit turns out unusable (a refused apply
/// costs less than a dropped edit).
pub fn looks_like_edit(reply: &str) -> bool {
    let src = Source::new(reply);
    let n = src.len();
    let mut prev: Option<usize> = None;
    let mut scan = Scan::new(reply);
    for i in 0..n {
        let line = src.line(i);
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        if proves_any(&src, i, n, &mut scan) {
            return true;
        }
        if let Some(f) = fence_open(line) {
            if fence_holds_edit(&src, i, &f, prev) {
                return true;
            }
        }
        prev = Some(i);
    }
    false
}

/// Whether the fence opened at line `i` (after the non-blank line `prev`) has a path attached
/// that [`super::wrapper`] would use: a strong path makes any non-empty content an edit (a whole
/// file, or hunks of that path); a weak one only a script (`#!`), a ```` ```diff ```` fence, or
/// content opening with a bare hunk. SEARCH/REPLACE content is left to the block check.
fn fence_holds_edit(src: &Source, i: usize, f: &Fence, prev: Option<usize>) -> bool {
    let info_path = paths::path_from_info(&f.info).is_some();
    let pending = prev.and_then(|p| {
        let l = src.line(p);
        paths::path_candidate(l).or_else(|| paths::prose_path(l))
    });
    if !info_path && pending.is_none() {
        return false;
    }
    let n = src.len();
    let Some(first) = src.next_nonblank(i + 1, n) else {
        return false;
    };
    if is_fence_close(src.line(first), f) {
        return false;
    }
    // Content opening with SEARCH/REPLACE is read block by block, never as a whole file: only
    // a complete block (seen by the caller) makes an edit there.
    let second = src.next_nonblank(first + 1, n);
    if markers::is_search(src.line(first))
        || (paths::path_candidate(src.line(first)).is_some()
            && second.is_some_and(|k| markers::is_search(src.line(k))))
    {
        return false;
    }
    info_path
        || pending.is_some_and(|p| p.strict)
        || is_diff_lang(&lang_of(&f.info))
        || src.line(first).starts_with("#!")
        || diff::is_orphan_hunk_start(src, first, n)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "sniff_tests.rs"]
mod tests;
