//! Codex patch envelopes (`*** Begin Patch` ... `*** End Patch`).
//!
//! Update chunks carry no line numbers: they are located by content and by their `@@ scope`
//! lines, of which several may be stacked before one chunk. The envelope's end line is the only
//! proof that the reply was not cut, so a missing `*** End Patch` at the end of the reply is a
//! truncation.

use super::body::{self, read_body};
use super::cx::{Cx, Region, Source};
use super::diff::{self, HunkHeader};
use super::sanitize;
use crate::edit::{Anchor, FileChange, FileEdit, Format, Hunk, IssueKind, LineKind};

use super::markers::codex::{ADD, BEGIN, DELETE, END, EOF_MARK, MOVE, UPDATE};

fn codex_terminator(src: &Source, i: usize, _end: usize) -> bool {
    let l = src.line(i);
    l.starts_with("@@") || l.starts_with("***")
}

fn clean_path(p: &str) -> Option<String> {
    let p = p.trim().trim_matches(['`', '"', '\'']).trim();
    (!p.is_empty()).then(|| p.to_string())
}

/// Reads a Codex patch starting at line `i`; returns the line after it.
pub(crate) fn parse(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let began = cx.src.line(i).trim_end() == BEGIN;
    let mut i = if began { i + 1 } else { i };
    let mut ended = false;
    let mut last_path: Option<String> = None;
    while i < r.end {
        let t = cx.src.line(i).trim_end();
        if t == END {
            ended = true;
            i += 1;
            // Patch lines right after the end line: the end line stands among a chunk's lines
            // (read as syntax it drops them, as content it lost its prefix).
            // Blank lines between (a blank context line lost or kept its space) do not end the
            // chunk either.
            let k = (i..r.end).find(|&k| !cx.src.line(k).trim().is_empty());
            let next = k.map_or("", |k| cx.src.line(k));
            if matches!(next.as_bytes().first(), Some(b'+' | b'-' | b' '))
                && !next.starts_with("--- ")
            {
                cx.issue(
                    IssueKind::EditSyntax,
                    last_path.as_deref(),
                    format!(
                        "line {i}: {END:?} stands among the lines of a chunk, which go on after it"
                    ),
                );
            }
            break;
        }
        if t.trim().is_empty() {
            i += 1;
            continue;
        }
        let op = [ADD, DELETE, UPDATE]
            .into_iter()
            .find_map(|p| t.strip_prefix(p).map(|rest| (p, rest)));
        let Some((op, rest)) = op else {
            if !began {
                break;
            }
            // Inside an envelope, text before the next `***` line belongs to the patch; with no
            // such line left, the patch simply lacks its end line and prose follows.
            match (i + 1..r.end).find(|&k| cx.src.line(k).starts_with("***")) {
                Some(k) => {
                    let msg = format!(
                        "line {}: text inside a Codex patch is not a patch line",
                        i + 1
                    );
                    cx.issue(IssueKind::Malformed, last_path.as_deref(), msg);
                    i = k;
                    continue;
                }
                // Changed lines right after the Begin line, with no file line: the envelope
                // line stands among another edit's lines, and those lines belong to no file.
                None if last_path.is_none()
                    && matches!(t.as_bytes().first(), Some(b'+' | b'-' | b' ')) =>
                {
                    cx.issue(
                        IssueKind::Malformed,
                        None,
                        format!(
                            "line {}: changed lines after {BEGIN:?} with no file line",
                            i + 1
                        ),
                    );
                    break;
                }
                // The reply stops, with no newline, on the line after the patch's lines, or on
                // text glued to them: no prose after a forgotten end line (that comes after a
                // blank line) but patch lines cut short or lost their prefix.
                None if ((i + 1 >= cx.src.len() && !cx.src.ends_with_newline)
                    || super::cut::glued_tail(cx, i))
                    && r.ends_reply_unclosed(&cx.src) =>
                {
                    i = r.end;
                    break;
                }
                None => {
                    cx.note(format!(
                        "line {}: Codex patch ends without {END:?} before this line",
                        i + 1
                    ));
                    break;
                }
            }
        };
        let Some(path) = clean_path(rest) else {
            cx.issue(
                IssueKind::Malformed,
                None,
                format!("line {}: Codex file line without a path", i + 1),
            );
            i += 1;
            continue;
        };
        i = match op {
            ADD => add_file(cx, r, i + 1, &path),
            DELETE => {
                cx.edits.push(FileEdit {
                    path: path.clone(),
                    change: FileChange::Delete { expected: None },
                    format: Format::Codex,
                    mode: None,
                });
                i + 1
            }
            _ => update_file(cx, r, i + 1, &path),
        };
        last_path = Some(path);
    }
    if began && !ended && i >= r.end && r.ends_reply_unclosed(&cx.src) {
        cx.issue(
            IssueKind::Truncated,
            last_path.as_deref(),
            format!("the reply ends inside a Codex patch (no {END:?})"),
        );
    }
    i
}

fn lazy_check(cx: &mut Cx, path: &str, hunks: &[Hunk]) {
    if let Some(l) = sanitize::lazy_added_line(hunks) {
        cx.issue(
            IssueKind::Lazy,
            Some(path),
            format!("added line {:?} stands in for code", body::truncate(l, 60)),
        );
    }
}

fn add_file(cx: &mut Cx, r: &Region, i: usize, path: &str) -> usize {
    let b = read_body(&cx.src, i, r.end, None, codex_terminator);
    let next = b.next.max(i);
    if b.lines.iter().any(|l| l.kind == LineKind::Remove) {
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            "removed lines in a Codex Add File",
        );
    }
    if b.lines.iter().any(|l| l.kind == LineKind::Context) {
        cx.note(format!(
            "{path}: Add File lines without '+' read as content"
        ));
    }
    let no_newline = b.new_no_newline;
    let hunk = Hunk {
        lines: b.lines,
        ..Hunk::default()
    };
    lazy_check(cx, path, std::slice::from_ref(&hunk));
    let mut content = String::new();
    for l in hunk.post_image() {
        content.push_str(l);
        content.push('\n');
    }
    if no_newline {
        content.pop();
    }
    let final_newline = !content.is_empty() && !no_newline;
    cx.edits.push(FileEdit {
        path: path.to_string(),
        change: FileChange::Create {
            content,
            final_newline,
        },
        format: Format::Codex,
        mode: None,
    });
    next
}

fn update_file(cx: &mut Cx, r: &Region, mut i: usize, path: &str) -> usize {
    let mut to = None;
    if let Some(rest) = cx.src.line(i).trim_end().strip_prefix(MOVE) {
        to = clean_path(rest);
        i += 1;
    }
    let mut hunks: Vec<Hunk> = Vec::new();
    while i < r.end {
        let mut scopes = Vec::new();
        let mut old_start = None;
        let mut saw_header = false;
        while i < r.end && cx.src.line(i).starts_with("@@") {
            saw_header = true;
            if let Some(h) = diff::parse_hunk_header(cx.src.line(i)) {
                old_start = old_start.or(h.old_start.filter(|&s| s > 0));
                scopes.extend(h.scope);
            }
            i += 1;
        }
        if !saw_header && (cx.src.line(i).starts_with("***") || !hunks.is_empty()) {
            break;
        }
        let b = read_body(&cx.src, i, r.end, None, codex_terminator);
        if b.lines.is_empty() && !saw_header && b.malformed.is_none() {
            break;
        }
        i = b.next.max(i);
        // Blank lines the body did not take (nothing prefixed after them) separate chunks.
        if let Some(k) = cx.src.next_nonblank(i, r.end) {
            let l = cx.src.line(k);
            if l.starts_with("@@") || l.trim_end() == EOF_MARK {
                i = k;
            }
        }
        let mut eof = false;
        if cx.src.line(i).trim_end() == EOF_MARK {
            eof = true;
            i += 1;
        }
        let n = hunks.len() + 1;
        if let Some(mut h) = diff::finish_hunk(cx, path, n, &HunkHeader::default(), b) {
            h.scopes = scopes;
            h.old_start = old_start;
            if eof {
                h.anchor = Anchor::End;
            }
            hunks.push(h);
        }
        if !cx.src.line(i).starts_with("@@") {
            break;
        }
    }
    lazy_check(cx, path, &hunks);
    let change = match to {
        Some(to) => FileChange::Rename { to, hunks },
        None if hunks.is_empty() => {
            cx.note(format!("{path}: Codex Update File without changes ignored"));
            return i;
        }
        None => FileChange::Modify { hunks },
    };
    cx.edits.push(FileEdit {
        path: path.to_string(),
        change,
        format: Format::Codex,
        mode: None,
    });
    i
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use crate::edit::{Anchor, FileChange, Format, IssueKind, LineKind};
    use crate::parse::extract;
    use LineKind::{Add, Context, Remove};

    fn lines(h: &crate::edit::Hunk) -> Vec<(LineKind, &str)> {
        h.lines.iter().map(|l| (l.kind, l.text.as_str())).collect()
    }

    #[test]
    fn full_envelope() {
        let x = extract(
            "*** Begin Patch\n*** Add File: new.txt\n+a\n+b\n*** Delete File: old.txt\n\
             *** Update File: src/m.rs\n*** Move to: src/n.rs\n@@ impl Foo\n@@     fn bar()\n x\n-y\n+z\n\
             @@\n p\n+q\n*** End of File\n*** End Patch\n",
        );
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits.len(), 3);
        assert_eq!(x.edits[0].path, "new.txt");
        assert_eq!(
            x.edits[0].change,
            FileChange::Create {
                content: "a\nb\n".into(),
                final_newline: true
            }
        );
        assert_eq!(x.edits[1].change, FileChange::Delete { expected: None });
        assert_eq!(x.edits[2].format, Format::Codex);
        let FileChange::Rename { to, hunks } = &x.edits[2].change else {
            panic!("{:?}", x.edits[2].change)
        };
        assert_eq!(to, "src/n.rs");
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].scopes, vec!["impl Foo", "fn bar()"]);
        assert_eq!(
            lines(&hunks[0]),
            vec![(Context, "x"), (Remove, "y"), (Add, "z")]
        );
        assert_eq!(hunks[0].anchor, Anchor::None);
        assert_eq!(hunks[1].anchor, Anchor::End);
        assert_eq!(lines(&hunks[1]), vec![(Context, "p"), (Add, "q")]);
    }

    #[test]
    fn chunk_without_at_line() {
        let x = extract("*** Begin Patch\n*** Update File: a.rs\n a\n-b\n+c\n*** End Patch\n");
        let FileChange::Modify { hunks } = &x.edits[0].change else {
            panic!()
        };
        assert_eq!(
            lines(&hunks[0]),
            vec![(Context, "a"), (Remove, "b"), (Add, "c")]
        );
        assert!(hunks[0].scopes.is_empty());
    }

    #[test]
    fn blank_context_in_codex() {
        let x =
            extract("*** Begin Patch\n*** Update File: a.rs\n@@\n a\n\n-b\n+c\n*** End Patch\n");
        let FileChange::Modify { hunks } = &x.edits[0].change else {
            panic!()
        };
        assert_eq!(
            lines(&hunks[0]),
            vec![(Context, "a"), (Context, ""), (Remove, "b"), (Add, "c")]
        );
        assert!(x.notes.iter().any(|n| n.contains("blank")));
    }

    #[test]
    fn missing_end_at_reply_end_is_truncated() {
        let x = extract("```\n*** Begin Patch\n*** Update File: a.rs\n@@\n a\n-b\n+c");
        assert_eq!(x.issues.len(), 1);
        assert_eq!(x.issues[0].kind, IssueKind::Truncated);
        assert_eq!(x.issues[0].path.as_deref(), Some("a.rs"));
    }

    #[test]
    fn missing_end_in_closed_fence_is_a_note() {
        let x =
            extract("```\n*** Begin Patch\n*** Update File: a.rs\n@@\n a\n-b\n+c\n```\nDone.\n");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits.len(), 1);
    }

    #[test]
    fn unprefixed_context_is_malformed_not_dropped() {
        let x = extract(
            "*** Begin Patch\n*** Update File: a.rs\nfn main() {\n-    a();\n+    b();\n}\n*** Update File: b.rs\n@@\n-x\n+y\n*** End Patch\n",
        );
        assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
        assert_eq!(x.issues[0].kind, IssueKind::Malformed);
        assert_eq!(x.issues[0].path.as_deref(), Some("a.rs"));
        assert_eq!(x.edits.len(), 1);
        assert_eq!(x.edits[0].path, "b.rs");
    }

    #[test]
    fn lazy_added_line() {
        let x = extract(
            "*** Begin Patch\n*** Update File: a.rs\n@@\n fn a() {\n+    // ... existing code ...\n }\n*** End Patch\n",
        );
        assert_eq!(x.issues[0].kind, IssueKind::Lazy);
        assert_eq!(x.issues[0].path.as_deref(), Some("a.rs"));
    }
}
