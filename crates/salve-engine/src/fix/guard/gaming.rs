//! Test-gaming repairs the table rows cannot see, because they are read from what a change does
//! to a test rather than from one added line (issue 24 §2), in every language the loop reads:
//!
//! | shape | example | rule |
//! |---|---|---|
//! | expected value set to the failing run's actual value | `== 3` → `== -1` where the run printed `-1` | weakens_assertion |
//! | an assertion or condition made to always hold | `assert x or True`, `if True:`, `expect(x \|\| true)` | weakens_assertion |
//! | an exit before the test's later lines | `return` at the top of a test, `if True: return` | weakens_assertion |
//! | the assertion's failure caught | `except AssertionError:`, `catch_unwind`, `recover()` | weakens_assertion |
//! | the expected exception widened | `pytest.raises(ValueError)` → `pytest.raises(Exception)` | weakens_assertion |
//! | other tests skipped by focusing one | `it.only(`, `test.only(`, `describe.only(` | skips_test |
//!
//! A test file edited in any other way is a repair like any other: a typo in its own import may
//! be fixed.

use std::collections::HashMap;

use super::diff::{FileDiff, Hunk, Line};
use super::lines::{is_test_path, lang_of, Lang};
use super::{Finding, GuardRule};

/// Every shape of the table found in `file`; `failure_output` is the failing run's output.
pub(crate) fn findings(
    file: &FileDiff,
    failure_output: &str,
    moved: &HashMap<String, usize>,
    out: &mut Vec<Finding>,
) {
    let lang = lang_of(file.path());
    if lang == Lang::Other {
        return;
    }
    let testy = is_test_path(file.path());
    let push = |out: &mut Vec<Finding>, rule, line, detail: String| {
        out.push(Finding {
            rule,
            path: file.path().to_owned(),
            line: Some(line),
            detail,
        });
    };
    for hunk in &file.hunks {
        for (no, text) in added(hunk) {
            if moved.get(text.trim()).is_some_and(|&n| n > 0) {
                continue;
            }
            let t = text.trim();
            if always_holds(lang, t, testy) {
                push(
                    out,
                    GuardRule::WeakensAssertion,
                    no,
                    format!("makes a check always hold: {t}"),
                );
            } else if catches_failure(lang, t, testy) {
                push(
                    out,
                    GuardRule::WeakensAssertion,
                    no,
                    format!("catches the test's failure: {t}"),
                );
            } else if focuses(lang, t) {
                push(
                    out,
                    GuardRule::SkipsTest,
                    no,
                    format!("runs one test alone, skipping the others: {t}"),
                );
            }
        }
        if testy || defines_test(hunk, lang) {
            if let Some((no, t)) = early_exit(hunk, lang) {
                push(
                    out,
                    GuardRule::WeakensAssertion,
                    no,
                    format!("returns before the test's later lines: {t}"),
                );
            }
        }
        for (no, old, new) in replaced_pairs(hunk) {
            if let Some(value) = expected_from_failure(old, new, failure_output) {
                push(
                    out,
                    GuardRule::WeakensAssertion,
                    no,
                    format!(
                        "sets the expected value to `{value}`, what the failing run printed: {}",
                        new.trim()
                    ),
                );
            } else if widens_exception(lang, old, new) {
                push(
                    out,
                    GuardRule::WeakensAssertion,
                    no,
                    format!("widens the expected exception: {}", new.trim()),
                );
            }
        }
    }
}

fn added(hunk: &Hunk) -> impl Iterator<Item = (u32, &str)> {
    hunk.lines.iter().filter_map(|l| match l {
        Line::Added { new, text } => Some((*new, text.as_str())),
        _ => None,
    })
}

/// Removed lines paired with the added lines that replace them, in order, within each run of
/// removals followed by additions.
fn replaced_pairs(hunk: &Hunk) -> Vec<(u32, &str, &str)> {
    let mut out = Vec::new();
    let mut removed: Vec<&str> = Vec::new();
    let mut k = 0;
    for line in &hunk.lines {
        match line {
            Line::Removed { text, .. } => {
                if k > 0 {
                    removed.clear();
                    k = 0;
                }
                removed.push(text);
            }
            Line::Added { new, text } => {
                if let Some(old) = removed.get(k) {
                    out.push((*new, *old, text.as_str()));
                }
                k += 1;
            }
            Line::Context { .. } => {
                removed.clear();
                k = 0;
            }
        }
    }
    out
}

/// An assertion that holds whatever the code does, or (in a test file) a condition made
/// constant.
fn always_holds(lang: Lang, t: &str, testy: bool) -> bool {
    let code = t.split(" #").next().unwrap_or(t).trim_end();
    let code = code.split(" //").next().unwrap_or(code).trim_end();
    match lang {
        Lang::Python => {
            let assertion = code.starts_with("assert ") || code.starts_with("assert(");
            (assertion && ends_with_any(code, &[" or True", " or 1", " or not False"]))
                || (testy
                    && ["if True:", "if 1:", "while False:"]
                        .iter()
                        .any(|c| code.starts_with(c)))
        }
        Lang::Js => {
            let assertion = code.contains("expect(") || code.contains("assert");
            (assertion && code.contains("|| true"))
                || (testy && (code.starts_with("if (true)") || code.starts_with("if(true)")))
        }
        Lang::Rust => {
            let assertion = code.starts_with("assert!(") || code.starts_with("debug_assert!(");
            (assertion && code.contains("|| true")) || (testy && code.starts_with("if true {"))
        }
        Lang::Go => testy && (code.starts_with("if true {") || code.starts_with("if false {")),
        Lang::Other => false,
    }
}

fn ends_with_any(code: &str, tails: &[&str]) -> bool {
    let code = code.trim_end_matches([')', ';', ' ']);
    tails
        .iter()
        .any(|t| code.ends_with(t.trim_end_matches(')')))
}

/// A line that swallows an assertion's failure.
fn catches_failure(lang: Lang, t: &str, testy: bool) -> bool {
    match lang {
        Lang::Python => {
            t.starts_with("except AssertionError")
                || t.starts_with("except (AssertionError")
                || (testy
                    && (t == "except:"
                        || t.starts_with("except Exception")
                        || t.starts_with("except BaseException")))
        }
        Lang::Rust => testy && t.contains("catch_unwind"),
        Lang::Go => testy && t.contains("recover()"),
        Lang::Js => testy && (t.starts_with("} catch") || t.starts_with("catch")),
        Lang::Other => false,
    }
}

/// A test focused so that the others do not run.
fn focuses(lang: Lang, t: &str) -> bool {
    lang == Lang::Js
        && [
            "it.only(",
            "test.only(",
            "describe.only(",
            "fit(",
            "fdescribe(",
        ]
        .iter()
        .any(|c| t.starts_with(c))
}

/// Whether the hunk shows a test being defined (its start is in view).
fn defines_test(hunk: &Hunk, lang: Lang) -> bool {
    hunk.lines.iter().any(|l| {
        let text = match l {
            Line::Added { text, .. } | Line::Context { text, .. } | Line::Removed { text, .. } => {
                text
            }
        };
        let t = text.trim_start();
        match lang {
            Lang::Python => t.starts_with("def test") || t.starts_with("async def test"),
            Lang::Go => t.starts_with("func Test"),
            Lang::Js => ["it(", "test(", "it.only(", "test.only("]
                .iter()
                .any(|c| t.starts_with(c)),
            Lang::Rust => t.starts_with("#[test]") || t.starts_with("#[tokio::test"),
            Lang::Other => false,
        }
    })
}

/// An added exit (a bare `return`, `if True: return`, `return;`, `return Ok(())`) followed, on
/// the new side, by more lines of the same block: the lines after it no longer run.
fn early_exit(hunk: &Hunk, lang: Lang) -> Option<(u32, &str)> {
    let new_side: Vec<(bool, u32, &str)> = hunk
        .lines
        .iter()
        .filter_map(|l| match l {
            Line::Added { new, text } => Some((true, *new, text.as_str())),
            Line::Context { new, text, .. } => Some((false, *new, text.as_str())),
            Line::Removed { .. } => None,
        })
        .collect();
    for (k, (is_added, no, text)) in new_side.iter().enumerate() {
        let t = text.trim();
        if !is_added || !is_exit(lang, t) {
            continue;
        }
        let indent = indent_of(text);
        let after = new_side[k + 1..]
            .iter()
            .map(|(_, _, l)| *l)
            .find(|l| !l.trim().is_empty() && !l.trim().starts_with(['#', '/']));
        // The next line of code in the same block (not a dedent, not a closing brace).
        let runs_on = after.is_some_and(|l| {
            let lt = l.trim();
            indent_of(l) >= indent && !lt.starts_with('}') && !lt.starts_with(')')
        });
        if runs_on {
            return Some((*no, t));
        }
    }
    None
}

fn is_exit(lang: Lang, t: &str) -> bool {
    match lang {
        Lang::Python => {
            matches!(t, "return" | "return None" | "return True") || t == "if True: return"
        }
        Lang::Js => matches!(t, "return;" | "return" | "return true;"),
        Lang::Rust => matches!(t, "return;" | "return Ok(());" | "return Ok(())"),
        Lang::Go => t == "return",
        Lang::Other => false,
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The value an assertion's expected side was changed to, when the failing run printed it: the
/// repair wrote the bug's output into the test. Only literals count (numbers, strings, `True`,
/// `None`, `nil`...), and only an assertion changed in that value alone.
fn expected_from_failure(old: &str, new: &str, output: &str) -> Option<String> {
    if output.is_empty() || !looks_like_assertion(new) {
        return None;
    }
    let (a, b) = (tokens(old), tokens(new));
    if a.len() != b.len() {
        return None;
    }
    let differing: Vec<(&str, &str)> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (x.as_str(), y.as_str()))
        .collect();
    let [(_, value)] = differing[..] else {
        return None;
    };
    (is_literal(value) && printed(output, value)).then(|| value.to_owned())
}

fn looks_like_assertion(t: &str) -> bool {
    let t = t.trim();
    t.starts_with("assert")
        || t.contains(".assert")
        || t.contains("expect(")
        || t.contains("assert_eq!(")
        || t.contains("assert.")
        || t.contains("require.")
        || (t.starts_with("if ") && (t.contains("!=") || t.contains("==")))
}

/// Words, numbers (with a sign) and quoted strings of a line, in order.
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.trim().chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' || c == '`' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.push(chars[i..end].iter().collect());
            i = end;
        } else if c.is_alphanumeric()
            || c == '_'
            || c == '.'
            || (c == '-'
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && !out.last().is_some_and(|p: &String| {
                    p.chars()
                        .last()
                        .is_some_and(|l| l.is_alphanumeric() || l == ')')
                }))
        {
            let mut j = i + 1;
            while j < chars.len()
                && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '.')
            {
                j += 1;
            }
            out.push(chars[i..j].iter().collect());
            i = j;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

fn is_literal(t: &str) -> bool {
    let number = t.trim_start_matches('-');
    (!number.is_empty() && number.chars().next().is_some_and(|c| c.is_ascii_digit()))
        || t.starts_with(['"', '\'', '`'])
        || matches!(
            t,
            "True" | "False" | "None" | "true" | "false" | "null" | "nil" | "undefined"
        )
}

/// Whether `value` (a literal, quotes and all) stands in the run's output as a word of its own.
fn printed(output: &str, value: &str) -> bool {
    let bare = value.trim_matches(['"', '\'', '`']);
    if bare.is_empty() {
        return false;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    output.match_indices(bare).any(|(at, _)| {
        let before = output[..at].chars().next_back();
        let after = output[at + bare.len()..].chars().next();
        !before.is_some_and(|c| word(c) || (c == '-' && !bare.starts_with('-')))
            && !after.is_some_and(word)
    })
}

/// `pytest.raises(ValueError)` → `pytest.raises(Exception)`, and the like in JavaScript.
fn widens_exception(lang: Lang, old: &str, new: &str) -> bool {
    const BROAD: &[&str] = &[
        "(Exception)",
        "(BaseException)",
        "(Exception,",
        "(BaseException,",
    ];
    match lang {
        Lang::Python => {
            old.contains("raises(")
                && new.contains("raises(")
                && BROAD.iter().any(|b| new.contains(b))
                && !BROAD.iter().any(|b| old.contains(b))
        }
        Lang::Js => {
            old.contains(".toThrow(") && new.contains(".toThrow()") && !old.contains(".toThrow()")
        }
        _ => false,
    }
}
