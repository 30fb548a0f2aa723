//! The check on every written result (issue 23), whatever the ladder decided and whatever the
//! intended text: the file must not gain a line the reply holds as syntax, and must not lose a
//! run of lines the reply never showed as removed. It reads the reply, the file before and the
//! file written, never the expected text, so it holds for landed cases as much as wrong ones.
//!
//! The reply's lines are read by position, as the formats read them:
//! - syntax: SEARCH/REPLACE markers (aider's and Cline's), fence lines outside a block's
//!   sections, diff and Codex headers (`@@` lines too), Roo's `:start_line:` lines, and a path
//!   line right before a fence or a block;
//! - content: the lines of SEARCH and REPLACE sections, of hunk bodies (without their prefix)
//!   and of fence bodies, and every line of a JSON string;
//! - shown as removed: a hunk's `-` lines, SEARCH lines (the block replaces them all, even the
//!   ones REPLACE writes again, maybe elsewhere), and, in a JSON call, any line of its strings
//!   (the old text is one of them).
//!
//! A gained line counts only where the reply never holds the same text as content. Lines are
//! compared for removal by their letters and digits only, as drifts change whitespace and
//! punctuation; a lost run made only of lines without any (braces, blank lines) is no loss of
//! substance, and a line the written file still holds as often as before (moved, or aligned by
//! the diff with a copy among the added lines) is not lost; a line counts as shown when a quote of four or more letters and digits is part of
//! it (a text replacement may quote part of a line). A whole-file reply shows its removals by leaving lines out, so only the first
//! check applies to it.

use std::collections::HashSet;

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Syntax,
    Content,
    Removed,
    Search,
    Replace,
}

fn is_run(t: &str, c: char) -> bool {
    let n = t.chars().take_while(|&x| x == c).count();
    (5..=9).contains(&n)
}

fn is_fence(t: &str) -> bool {
    t.starts_with("```") || t.starts_with("~~~")
}

/// The role of every line of `reply` (trimmed text, role).
fn roles(reply: &str) -> Vec<(String, Role)> {
    #[derive(PartialEq)]
    enum St {
        Out,
        Search,
        Replace,
        Hunk,
        Fence,
    }
    let lines: Vec<&str> = reply.lines().collect();
    let mut out = Vec::new();
    let mut st = St::Out;
    for (k, raw) in lines.iter().enumerate() {
        let t = raw.trim();
        let next = lines.get(k + 1).map_or("", |l| l.trim());
        let role = match st {
            St::Search if is_run(t, '=') => {
                st = St::Replace;
                Role::Syntax
            }
            St::Search => Role::Search,
            St::Replace if is_run(t, '>') || t.starts_with("+++++++") => {
                st = St::Out;
                Role::Syntax
            }
            St::Replace => Role::Replace,
            _ if is_run(t, '<') || t.starts_with("------- SEARCH") => {
                st = St::Search;
                Role::Syntax
            }
            _ if t.starts_with("@@") || t.starts_with("*** ") || t.starts_with("diff --git") => {
                st = St::Hunk;
                Role::Syntax
            }
            _ if t.starts_with(":start_line:") || t.starts_with(":end_line:") => Role::Syntax,
            _ if (raw.starts_with("--- ") && next.starts_with("+++ "))
                || raw.starts_with("+++ ") =>
            {
                Role::Syntax
            }
            St::Hunk => match raw.as_bytes().first() {
                Some(b'-') => Role::Removed,
                Some(b'+' | b' ' | b'\\') => Role::Content,
                _ => {
                    st = St::Out;
                    if is_fence(t) {
                        Role::Syntax
                    } else {
                        Role::Content
                    }
                }
            },
            St::Fence if is_fence(t) => {
                st = St::Out;
                Role::Syntax
            }
            St::Fence => Role::Content,
            St::Out if is_fence(t) => {
                st = St::Fence;
                Role::Syntax
            }
            St::Out if is_fence(next) || is_run(next, '<') => Role::Syntax,
            St::Out => Role::Content,
        };
        // A hunk line's text is the file's without its prefix.
        let text = match role {
            Role::Removed | Role::Content if st == St::Hunk => raw.get(1..).unwrap_or("").trim(),
            _ => t,
        };
        out.push((text.to_owned(), role));
    }
    out
}

/// Letters and digits only.
fn substance(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// The lines of every JSON string in `reply`, unescaped.
fn json_lines(reply: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = reply.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        let lit = reply.get(start..(i + 1).min(reply.len())).unwrap_or("");
        if let Ok(s) = serde_json::from_str::<String>(lit) {
            out.extend(s.lines().map(|l| l.trim().to_owned()));
        }
        i += 1;
    }
    out
}

/// What the check finds wrong with `written`, if anything.
pub fn violation(reply: &str, current: &str, written: &str, whole: bool) -> Option<String> {
    let roles = roles(reply);
    let json = json_lines(reply);
    let content: HashSet<&str> = roles
        .iter()
        .filter(|(_, r)| *r != Role::Syntax)
        .map(|(t, _)| t.as_str())
        .chain(json.iter().map(String::as_str))
        .collect();
    let syntax: HashSet<&str> = roles
        .iter()
        .filter(|(t, r)| *r == Role::Syntax && !t.is_empty() && !content.contains(t.as_str()))
        .map(|(t, _)| t.as_str())
        .collect();
    let old: HashSet<&str> = current.lines().map(str::trim).collect();
    if let Some(l) = written
        .lines()
        .map(str::trim)
        .find(|l| syntax.contains(l) && !old.contains(l))
    {
        return Some(format!(
            "the written file gains the reply's syntax line {l:?}"
        ));
    }
    if whole {
        return None;
    }
    let removed: HashSet<String> = roles
        .iter()
        .filter(|(_, r)| matches!(r, Role::Removed | Role::Search))
        .map(|(t, _)| substance(t))
        .chain(json.iter().map(|l| substance(l)))
        .collect();
    let before: Vec<&str> = current.lines().collect();
    let after: Vec<&str> = written.lines().collect();
    // A line the diff shows removed in one place and added in another (a diff may align a
    // context line with a copy of it among the added lines) is not lost: count by text.
    let count = |lines: &[&str]| {
        let mut m = std::collections::HashMap::<String, usize>::new();
        for l in lines {
            *m.entry(substance(l)).or_default() += 1;
        }
        m
    };
    let (had, has) = (count(&before), count(&after));
    let lost = |s: &String| has.get(s).copied().unwrap_or(0) < had.get(s).copied().unwrap_or(0);
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &before, &after) {
        let run = &before[op.old_range()];
        if matches!(
            op,
            similar::DiffOp::Equal { .. } | similar::DiffOp::Insert { .. }
        ) {
            continue;
        }
        let unshown = run.iter().map(|l| (substance(l), *l)).find(|(s, line)| {
            // A text replacement may quote part of a line: the line is shown by it, by its
            // letters and digits or, for a short quote (`::Ref;`), by its very text.
            let part = || {
                removed
                    .iter()
                    .any(|r| r.len() >= 4 && s.contains(r.as_str()))
                    || json
                        .iter()
                        .any(|q| q.len() >= 3 && line.contains(q.as_str()))
            };
            !s.is_empty() && lost(s) && !removed.contains(s) && !part()
        });
        if let Some((s, _)) = unshown {
            let at = op.old_range().start + 1;
            return Some(format!(
                "the written file loses lines from line {at} that the reply never shows as removed ({s:?})"
            ));
        }
    }
    None
}
