//! Whole-file blocks: a path line (or fence info path) and a fenced block holding the complete
//! new content of the file.
//!
//! The content replaces the file. Gap lines (`...`, `// ...`, `# ... existing code ...`, see
//! [`is_gap`](crate::placeholder::is_gap)) are the applier's to fill from the file, strictly, so they raise no issue here;
//! so are placeholders in words between two kept stretches, and one that ends the content
//! saying the rest is unchanged (`# ... rest of the file unchanged ...`, `[rest of file
//! unchanged]`), see [`is_gap_at`]. Any other placeholder (`# rest of the code` that ends the
//! content, one that opens it, `/* rest of file */`) would delete the code it stands for: such a
//! block is refused as lazy.

use super::body::truncate;
use super::cx::{Cx, Region, RegionState};
use super::diff::parse_hunk_header;
use super::fence::{fence_open, is_fence_close, Fence};
use super::{markers, sanitize};
use crate::edit::{FileChange, FileEdit, Format, IssueKind};
use crate::placeholder::is_gap_at;

/// Records the fenced content of `r` as the whole new content of `path`.
pub(crate) fn take(cx: &mut Cx, r: &Region, path: String, lang: &str) {
    let lines: Vec<&str> = (r.start..r.end).map(|k| cx.src.line(k)).collect();
    if says_rest_beside(cx, r) {
        cx.rest_unchanged.push(path.clone());
    }
    take_lines(cx, path, lines, r.state, lang, Format::WholeFile, r.start);
}

/// How many non-blank prose lines before a block's fence (its path line among them) and after
/// its close are read as the sentence beside it.
const BESIDE: usize = 3;

/// Whether a sentence right before the block `r` (above its fence) or right after its closing
/// fence says the rest of the file is unchanged (`crate::placeholder::says_rest_unchanged_in_prose`).
fn says_rest_beside(cx: &Cx, r: &Region) -> bool {
    let says = |k: usize| crate::placeholder::says_rest_unchanged_in_prose(cx.src.line(k));
    let before = (0..r.start.saturating_sub(1))
        .rev()
        .filter(|&k| !cx.src.line(k).trim().is_empty())
        .take(BESIDE)
        .take_while(|&k| fence_open(cx.src.line(k)).is_none())
        .any(says);
    let after = r.state == RegionState::Closed
        && (r.end + 1..cx.src.len())
            .filter(|&k| !cx.src.line(k).trim().is_empty())
            .take(BESIDE)
            .take_while(|&k| fence_open(cx.src.line(k)).is_none())
            .any(says);
    before || after
}

/// The first line of `lines` (an index into it) that is edit syntax at the top level of the
/// text, outside any fence it holds: a SEARCH/REPLACE marker of any shape, a diff header or
/// hunk header, or a Codex envelope line. A README that shows a diff inside its own fence
/// keeps it as text.
pub(crate) fn edit_syntax_at(lines: &[&str]) -> Option<usize> {
    let mut inner: Option<Fence> = None;
    for (k, l) in lines.iter().enumerate() {
        if let Some(f) = &inner {
            if is_fence_close(l, f) {
                inner = None;
            }
            continue;
        }
        if let Some(f) = fence_open(l) {
            inner = Some(f);
            continue;
        }
        let next = lines.get(k + 1).copied().unwrap_or("");
        let diff_header = (l.starts_with("--- ") && next.starts_with("+++ "))
            || l.starts_with("diff --git ")
            || (l.starts_with("@@ -") && parse_hunk_header(l).is_some());
        if diff_header
            || markers::codex::is_start(l)
            || markers::is_search(l)
            || markers::looks_like_marker(l)
        {
            return Some(k);
        }
    }
    None
}

/// Records `lines` as the whole new content of `path`, in `format`. `state` says whether the
/// block was closed; `first` is the reply line of `lines[0]`, for messages. Content holding edit
/// syntax is never written: it is `Malformed`, except in a JSON call's string, where only content
/// that opens with edit syntax is.
pub(crate) fn take_lines(
    cx: &mut Cx,
    path: String,
    mut lines: Vec<&str>,
    state: RegionState,
    lang: &str,
    format: Format,
    first: usize,
) {
    if let Some((_, stripped)) = sanitize::strip_line_numbers(&lines) {
        cx.note(format!(
            "{path}: line-number prefixes stripped from the whole-file content"
        ));
        lines = stripped;
    }
    if state == RegionState::Open {
        cx.issue(
            IssueKind::Truncated,
            Some(&path),
            "the reply ends inside the whole-file block",
        );
    }
    if lines.iter().all(|l| l.trim().is_empty()) {
        cx.issue(IssueKind::Malformed, Some(&path), "empty whole-file block");
        return;
    }
    // A whole file in a JSON call is a string: a marker line in it is data (DESIGN.md §3.3),
    // unless the content opens with one: then it is an edit sent as the file, not a file.
    let data = format == Format::ToolJson;
    let opens = |k: usize| lines[..k].iter().all(|l| l.trim().is_empty());
    if let Some(k) = edit_syntax_at(&lines).filter(|&k| !data || opens(k)) {
        cx.issue(
            IssueKind::Malformed,
            Some(&path),
            format!(
                "line {}: the whole-file content holds edit syntax {:?}; it is not written as the file",
                first + k + 1,
                truncate(lines[k].trim(), 60)
            ),
        );
        return;
    }
    // Content that opens or ends with a marker (`// ... existing code ...`) is a lazy edit
    // snippet: its markers stand for the file's lines and are merged, never written.
    // A write tool's content says it is the whole file, so only a fenced block is read so.
    let format = if format == Format::Snippet
        || (format == Format::WholeFile && crate::snippet::is_snippet(&lines, &path))
    {
        Format::Snippet
    } else {
        format
    };
    let dots_ok = crate::placeholder::dots_are_content(&path) || matches!(lang, "python" | "py");
    if let Some(l) = (0..lines.len())
        .filter(|_| format != Format::Snippet)
        .find(|&i| {
            crate::placeholder::is_placeholder_content(lines[i], dots_ok)
                && !is_gap_at(&lines, i, dots_ok)
        })
        .map(|i| lines[i])
    {
        cx.issue(
            IssueKind::Lazy,
            Some(&path),
            format!(
                "whole-file content has the placeholder {:?} instead of code",
                truncate(l.trim(), 60)
            ),
        );
    }
    let mut content = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in &lines {
        content.push_str(l);
        content.push('\n');
    }
    cx.edits.push(FileEdit {
        path,
        change: FileChange::Replace {
            content,
            final_newline: true,
        },
        format,
        mode: None,
    });
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use crate::edit::{FileChange, Format, IssueKind};
    use crate::parse::extract;

    fn replace(content: &str) -> FileChange {
        FileChange::Replace {
            content: content.into(),
            final_newline: true,
        }
    }

    #[test]
    fn bare_name_block_is_refused_and_kept_beside_its_issue() {
        let x = extract("Updated:\n\nAUTHORS\n```\n- Ann\n- Bo\n```\n");
        assert!(x.edits.is_empty(), "{:?}", x.edits);
        assert_eq!(x.issues.len(), 1);
        assert_eq!(x.issues[0].kind, IssueKind::Malformed);
        assert_eq!(x.bare_named.len(), 1);
        assert_eq!(x.bare_named[0].issue, x.issues[0]);
        assert_eq!(x.bare_named[0].edit.path, "AUTHORS");
        assert_eq!(x.bare_named[0].edit.change, replace("- Ann\n- Bo\n"));
        // A block that would be refused as a whole file anyway (cut off) is not kept.
        let x = extract("AUTHORS\n```\n- Ann\n- Bo\n");
        assert!(x.bare_named.is_empty(), "{:?}", x.bare_named);
        assert!(!x.issues.is_empty());
    }

    #[test]
    fn path_line_then_fence() {
        let x = extract("Here it is.\n\nsrc/lib.rs\n```rust\nfn a() {}\n```\n\nBye.\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits.len(), 1);
        assert_eq!(x.edits[0].path, "src/lib.rs");
        assert_eq!(x.edits[0].format, Format::WholeFile);
        assert_eq!(x.edits[0].change, replace("fn a() {}\n"));
    }

    #[test]
    fn a_path_line_beats_a_language_tag_that_is_a_file_name() {
        let x = extract("Makefile\n```makefile\nall:\n\techo hi\n```\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits[0].path, "Makefile");
        let x = extract("```makefile\nall:\n\techo hi\n```\n");
        assert_eq!(x.edits[0].path, "makefile");
    }

    #[test]
    fn a_quoted_bare_name_before_a_block_is_never_dropped() {
        let x = extract("`CHANGES`:\n```\nnew changes\n```\n\n`a.py`:\n```\nx = 2\n```\n");
        assert_eq!(x.edits.len(), 1);
        assert_eq!(x.edits[0].path, "a.py");
        assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
        assert_eq!(x.issues[0].path.as_deref(), Some("CHANGES"));
        assert_eq!(x.bare_named.len(), 1);
        // A shell session after a command's name is no file.
        let x = extract("Run `make`:\n```sh\nmake test\n```\n\n`a.py`:\n```\nx = 2\n```\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
    }

    #[test]
    fn a_block_after_a_sentence_naming_a_file_waits_for_the_tree() {
        let x = extract("Updated `middleware/nocache.go`:\n\n```go\npackage m\n```\n");
        assert!(x.edits.is_empty(), "{x:?}");
        assert!(
            x.issues.iter().all(|i| i.kind == IssueKind::NoEdit),
            "{x:?}"
        );
        assert_eq!(x.bare_named.len(), 1);
        assert_eq!(x.bare_named[0].edit.path, "middleware/nocache.go");
        // A shell session after such a sentence is no file.
        let x = extract("Then run `scripts/build.sh`:\n\n```sh\n./scripts/build.sh\n```\n");
        assert!(x.bare_named.is_empty());
    }

    #[test]
    fn decorated_path_with_blank_line_and_info_path() {
        let x = extract("**`src/a b.rs`**\n\n```rust\nx\n```\n```toml Cargo.toml\n[a]\n```\n");
        assert_eq!(x.edits.len(), 2);
        assert_eq!(x.edits[0].path, "src/a b.rs");
        assert_eq!(x.edits[1].path, "Cargo.toml");
        assert_eq!(x.edits[1].change, replace("[a]\n"));
    }

    #[test]
    fn inner_fences_in_longer_fence() {
        let x = extract("README.md\n````markdown\n# T\n```sh\nrg x\n```\n````\n");
        assert_eq!(x.edits[0].change, replace("# T\n```sh\nrg x\n```\n"));
    }

    #[test]
    fn code_sample_after_prose_is_not_a_file() {
        let x = extract("Change `src/lib.rs` like this:\n```rust\nfn a() {}\n```\n");
        assert!(x.edits.is_empty());
        assert_eq!(x.issues[0].kind, IssueKind::NoEdit);
    }

    #[test]
    fn unclosed_fence_at_end_is_truncated() {
        let x = extract("src/lib.rs\n```rust\nfn a() {\n    let x =");
        assert_eq!(x.issues[0].kind, IssueKind::Truncated);
        assert_eq!(x.issues[0].path.as_deref(), Some("src/lib.rs"));
    }

    #[test]
    fn placeholders_are_lazy_and_gaps_are_not() {
        for body in [
            "    // rest of the code",
            "/* rest of file */",
            "    // existing code here ...",
            "# rest of the code",
        ] {
            // Ending the content, it makes the block a lazy edit snippet: the marker keeps
            // the rest of the file, merged by the applier (`crate::snippet`).
            let x = extract(&format!("src/lib.rs\n```rust\nfn a() {{\n{body}\n```\n"));
            assert!(x.issues.is_empty(), "{body}: {:?}", x.issues);
            assert_eq!(x.edits[0].format, Format::Snippet, "{body}");
        }
        // Opening the content, too.
        let x = extract("src/lib.rs\n```rust\n/* rest of file */\nfn a() {\n}\n```\n");
        assert_eq!(x.edits[0].format, Format::Snippet);
        // A write tool's content says it is the whole file: a placeholder ending it is lazy.
        let x = extract(
            "{\"file_path\": \"a.py\", \"content\": \"def f():\\n    # rest of the code\\n\"}",
        );
        assert_eq!(x.issues[0].kind, IssueKind::Lazy);
        // Saying that the rest is unchanged, it is the applier's to fill from the file, or
        // refuse when where the rest begins is not certain.
        let x = extract("src/lib.rs\n```rust\nfn a() {\n    // rest unchanged\n```\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        // Between kept lines a worded placeholder is a gap the applier fills, or refuses.
        let x = extract("src/lib.rs\n```rust\nfn a() {\n    // rest unchanged\n}\n```\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        // Gaps are filled from the file by the applier, strictly, so they are not an issue.
        for body in [
            "    // ... existing code ...",
            "// ...",
            "    ...",
            "# ... rest unchanged ...",
        ] {
            let x = extract(&format!(
                "src/lib.rs\n```rust\nfn a() {{\n{body}\n}}\n```\n"
            ));
            assert!(x.issues.is_empty(), "{body}: {:?}", x.issues);
            assert_eq!(x.edits.len(), 1);
        }
        // A bare `...` is code in Python.
        let x = extract("a.py\n```python\ndef f():\n    ...\n```\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
    }

    #[test]
    fn numbered_content_is_stripped() {
        let x = extract("a.txt\n```\n1 | x\n2 | y\n```\n");
        assert_eq!(x.edits[0].change, replace("x\ny\n"));
        assert!(!x.notes.is_empty());
    }
}
