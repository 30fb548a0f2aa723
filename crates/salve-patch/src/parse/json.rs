//! old/new JSON edits: `{"path", "old_string", "new_string"}` objects, arrays of them, and
//! objects holding an `edits` array (the path may sit on the outer object).
//!
//! The JSON value is delimited by a bracket scan that knows about strings, then parsed with
//! serde_json. A value that never closes is a truncated reply when it mentions edit keys.

use super::cx::{Cx, Region};
use super::tool_json::{self, CONTENT_KEYS, NEW_KEYS, OLD_KEYS, PATH_KEYS};
use crate::edit::IssueKind;
use serde_json::Value;

/// The outcome of scanning for the end of a JSON value.
enum Scan {
    /// The value ends after this many bytes.
    Closed(usize),
    /// The text ends first.
    Open,
    /// Not a JSON value, or the scan budget ran out.
    No,
}

/// Finds where the JSON value at the start of `text` ends, charging the bytes read to `budget`.
fn value_end(text: &str, budget: &mut usize) -> Scan {
    let bytes = text.as_bytes();
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return Scan::No;
    }
    let mut depth: usize = 0;
    let mut in_str = false;
    let mut escaped = false;
    for (k, &b) in bytes.iter().enumerate() {
        if *budget == 0 {
            return Scan::No;
        }
        *budget -= 1;
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Scan::Closed(k + 1);
                }
            }
            _ => {}
        }
    }
    Scan::Open
}

/// True when `text` has `"key"` followed by a colon for one of the old/new keys, or for a path
/// key and a content key (a whole-file write).
pub(crate) fn mentions_edit_keys(text: &str) -> bool {
    OLD_KEYS.iter().chain(NEW_KEYS).any(|k| has_key(text, k))
        || (PATH_KEYS.iter().any(|k| has_key(text, k))
            && CONTENT_KEYS.iter().any(|k| has_key(text, k)))
}

/// Whether the JSON value starting `text` may be read as an edit, without parsing it: the value
/// closes, and it has a path and an old and a new key or a content key (or a `\u` escape, which
/// could spell one).
/// Charges the bytes scanned to `budget`; when the budget runs out the answer is `true`. A cheap
/// superset of what [`try_parse`] lowers to an edit.
pub(crate) fn may_hold_edit(text: &str, budget: &mut usize) -> bool {
    match value_end(text, budget) {
        Scan::Closed(n) => {
            let value = text.get(..n).unwrap_or(text);
            let any = |keys: &[&str]| keys.iter().any(|k| has_key(value, k));
            value.contains("\\u")
                || (any(PATH_KEYS) && ((any(OLD_KEYS) && any(NEW_KEYS)) || any(CONTENT_KEYS)))
        }
        Scan::Open => false,
        Scan::No => *budget == 0,
    }
}

fn has_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted).any(|(k, _)| {
        text.get(k + quoted.len()..)
            .is_some_and(|r| r.trim_start().starts_with(':'))
    })
}

/// The last complete `"path": "..."` value in `text`, for naming a cut edit.
fn last_path(text: &str) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for key in PATH_KEYS {
        let quoted = format!("\"{key}\"");
        for (k, _) in text.match_indices(&quoted) {
            let rest = text.get(k + quoted.len()..).unwrap_or("").trim_start();
            let Some(rest) = rest.strip_prefix(':') else {
                continue;
            };
            let rest = rest.trim_start();
            if !rest.starts_with('"') {
                continue;
            }
            let mut escaped = false;
            let end = rest.char_indices().skip(1).find(|&(_, c)| {
                let stop = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                stop
            });
            if let Some((e, _)) = end {
                if let Ok(Value::String(s)) =
                    serde_json::from_str::<Value>(rest.get(..=e).unwrap_or(""))
                {
                    if best.as_ref().is_none_or(|(b, _)| k > *b) {
                        best = Some((k, s));
                    }
                }
            }
        }
    }
    best.map(|(_, s)| s)
}

/// Reads the JSON value starting on line `i`, if it is an edit; returns the line after it.
pub(crate) fn try_parse(cx: &mut Cx, r: &Region, i: usize) -> Option<usize> {
    let line = cx.src.line(i);
    let lead = line.len() - line.trim_start().len();
    let start = cx.src.offset(i) + lead;
    let stop = cx.src.offset(r.end);
    let text = cx.src.text().get(start..stop)?;
    match value_end(text, &mut cx.json_budget) {
        Scan::No => None,
        Scan::Open => {
            // The key search reads the rest of the region, so it is charged to the budget too.
            if cx.json_budget < text.len() {
                return None;
            }
            cx.json_budget -= text.len();
            if !mentions_edit_keys(text) {
                return None;
            }
            let path = last_path(text);
            if r.ends_reply_unclosed(&cx.src) {
                cx.issue(
                    IssueKind::Truncated,
                    path.as_deref(),
                    "the reply ends inside a JSON edit",
                );
            } else {
                cx.issue(
                    IssueKind::Malformed,
                    path.as_deref(),
                    "JSON edit never closes",
                );
            }
            Some(r.end)
        }
        Scan::Closed(n) => {
            let value: Value = serde_json::from_str(text.get(..n)?).ok()?;
            if !tool_json::lower_value(cx, &value, i) {
                return None;
            }
            Some(cx.src.line_of(start + n.saturating_sub(1)) + 1)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use crate::edit::{FileChange, Format, IssueKind, LineKind};
    use crate::parse::extract;
    use LineKind::{Add, Context, Remove};

    fn hunk_lines(c: &FileChange) -> Vec<(LineKind, String)> {
        let FileChange::Modify { hunks } = c else {
            panic!("{c:?}")
        };
        hunks[0]
            .lines
            .iter()
            .map(|l| (l.kind, l.text.clone()))
            .collect()
    }

    #[test]
    fn array_of_objects() {
        let x = extract(
            "Done.\n\n```json\n[\n  {\"path\": \"a.rs\", \"old_string\": \"x\\ny\\nz\", \"new_string\": \"x\\nY\\nz\"},\n  {\"file_path\": \"n.rs\", \"old_string\": \"\", \"new_string\": \"fn n() {}\\n\"}\n]\n```\n",
        );
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits.len(), 2);
        assert_eq!(x.edits[0].format, Format::OldNewJson);
        assert_eq!(
            hunk_lines(&x.edits[0].change),
            vec![
                (Context, "x".into()),
                (Remove, "y".into()),
                (Add, "Y".into()),
                (Context, "z".into())
            ]
        );
        assert_eq!(
            x.edits[1].change,
            FileChange::Create {
                content: "fn n() {}\n".into(),
                final_newline: true
            }
        );
    }

    #[test]
    fn single_object_with_alternative_keys() {
        let x = extract("{\"file\": \"a.txt\", \"search\": \"a\", \"replace\": \"b\"}\n");
        assert_eq!(x.edits[0].path, "a.txt");
        assert_eq!(
            hunk_lines(&x.edits[0].change),
            vec![(Remove, "a".into()), (Add, "b".into())]
        );
        let x = extract("{\"path\": \"a.txt\", \"old\": \"a\", \"new\": \"b\"}");
        assert_eq!(x.edits.len(), 1);
    }

    #[test]
    fn edits_list_inherits_path() {
        let x = extract(
            "{\"file_path\": \"m.rs\", \"edits\": [{\"old_string\": \"a\", \"new_string\": \"b\"}, {\"old_string\": \"c\", \"new_string\": \"d\"}]}",
        );
        assert_eq!(x.edits.len(), 1, "merged into one file edit");
        let FileChange::Modify { hunks } = &x.edits[0].change else {
            panic!()
        };
        assert_eq!(hunks.len(), 2);
    }

    #[test]
    fn cut_json_is_truncated() {
        let x = extract("<<<AI_DIFF_START>>>\n[\n  {\n    \"path\": \"src/a.rs\",\n    \"old_string\": \"x\",\n    \"new_string\": \"let y = \\\"ab");
        assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
        assert_eq!(x.issues[0].kind, IssueKind::Truncated);
        assert_eq!(x.issues[0].path.as_deref(), Some("src/a.rs"));
    }

    #[test]
    fn ordinary_json_is_not_an_edit() {
        let x = extract("Config:\n```json\n{\"name\": \"x\", \"version\": 1}\n```\n");
        assert_eq!(x.edits.len(), 0);
        assert_eq!(x.issues[0].kind, IssueKind::NoEdit);
    }

    #[test]
    fn crlf_and_trailing_newline_in_values() {
        let x = extract(
            "[{\"path\": \"a\", \"old_string\": \"p\\r\\nq\\n\", \"new_string\": \"p\\r\\nr\\n\"}]",
        );
        assert_eq!(
            hunk_lines(&x.edits[0].change),
            vec![
                (Context, "p".into()),
                (Remove, "q".into()),
                (Add, "r".into())
            ]
        );
    }

    #[test]
    fn one_sided_final_newline_is_a_blank_line() {
        // The search side ends with a blank line written with a trailing space; the replace
        // side's final newline is that blank line, not a terminator.
        let x = extract("[{\"path\": \"a\", \"old_string\": \"p\\n \", \"new_string\": \"q\\n\"}]");
        assert_eq!(
            hunk_lines(&x.edits[0].change),
            vec![
                (Remove, "p".into()),
                (Remove, " ".into()),
                (Add, "q".into()),
                (Add, "".into())
            ]
        );
        let x = extract("[{\"path\": \"n\", \"old_string\": \"\", \"new_string\": \"a\\nb\"}]");
        assert_eq!(
            x.edits[0].change,
            FileChange::Create {
                content: "a\nb".into(),
                final_newline: false
            }
        );
    }

    #[test]
    fn a_missing_side_is_malformed_and_an_empty_one_is_not() {
        let x = extract("```json\n{\"path\": \"c.toml\", \"old_string\": \"workers = 4\"}\n```\n");
        assert!(x.edits.is_empty(), "{:?}", x.edits);
        assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
        assert_eq!(x.issues[0].kind, IssueKind::Malformed);
        assert_eq!(x.issues[0].path.as_deref(), Some("c.toml"));
        assert!(x.issues[0].message.contains("new_string"));
        let x = extract("{\"path\": \"n.rs\", \"new_string\": \"fn n() {}\"}");
        assert!(x.edits.is_empty(), "{:?}", x.edits);
        assert_eq!(x.issues[0].kind, IssueKind::Malformed);
        // An explicitly empty new string deletes the old text.
        let x = extract("{\"path\": \"c.toml\", \"old_string\": \"a\\nb\", \"new_string\": \"\"}");
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(
            hunk_lines(&x.edits[0].change),
            vec![(Remove, "a".into()), (Remove, "b".into())]
        );
    }

    #[test]
    fn the_hunk_keeps_the_text_pair() {
        let text = |reply: &str| {
            let x = extract(reply);
            let FileChange::Modify { hunks } = &x.edits[0].change else {
                panic!("{:?}", x.edits)
            };
            let p = hunks[0].substring.clone().expect("text pair");
            (p.old, p.new)
        };
        assert_eq!(
            text("{\"path\": \"a\", \"old_string\": \"f(1)\", \"new_string\": \"f(2)\"}"),
            ("f(1)".into(), "f(2)".into())
        );
        // A newline on both sides ends the replaced text at a line end; CRs are dropped.
        assert_eq!(
            text("{\"path\": \"a\", \"old_string\": \"p\\r\\nq\\n\", \"new_string\": \"r\\n\"}"),
            ("p\nq\n".into(), "r\n".into())
        );
        // On one side only it is part of that side's text.
        assert_eq!(
            text("{\"path\": \"a\", \"old_string\": \"p\\n\", \"new_string\": \"\"}"),
            ("p\n".into(), "".into())
        );
    }

    #[test]
    fn missing_path_is_malformed() {
        let x = extract("[{\"old_string\": \"a\", \"new_string\": \"b\"}]");
        assert_eq!(x.issues[0].kind, IssueKind::Malformed);
        assert_eq!(x.issues[0].path, None);
    }
}
