//! The guard's line rules: skipped tests and suppressed failures (added lines that match a
//! table), weakened assertions (assertion lines removed, or replaced by weaker ones) and deleted
//! tests (test definitions present before and gone after).
//!
//! A line that the same diff both removes and adds (trimmed) was moved, not written: it counts
//! for none of the rules, so moving an `assert` or a `#[allow]` is not a finding.

use std::collections::{BTreeMap, HashMap};

use super::diff::{FileDiff, Hunk, Line};
use super::{Finding, GuardRule};

/// The languages the line rules tell apart, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    Js,
    Go,
    Other,
}

pub(crate) fn lang_of(path: &str) -> Lang {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match ext {
        "rs" => Lang::Rust,
        "py" | "pyi" => Lang::Python,
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" | "vue" | "svelte" => Lang::Js,
        "go" => Lang::Go,
        _ => Lang::Other,
    }
}

/// One row of a table: `text` found in an added line of a file in `langs` (every file when
/// empty), unless the line also contains `unless`.
struct Needle {
    text: &'static str,
    langs: &'static [Lang],
    unless: Option<&'static str>,
}

const fn n(text: &'static str, langs: &'static [Lang]) -> Needle {
    Needle {
        text,
        langs,
        unless: None,
    }
}

const RS: &[Lang] = &[Lang::Rust];
const PY: &[Lang] = &[Lang::Python];
const JS: &[Lang] = &[Lang::Js];
const GO: &[Lang] = &[Lang::Go];
const ANY: &[Lang] = &[];

/// Ways to skip a test. `.skip(` is JavaScript only: in Rust it is `Iterator::skip`.
const SKIPS: &[Needle] = &[
    n("#[ignore", RS),
    n("pytest.mark.skip", PY),
    n("pytest.mark.xfail", PY),
    n("pytest.skip(", PY),
    n("unittest.skip", PY),
    n("@skip", PY),
    n(".skipTest(", PY),
    n("expectedFailure", PY),
    n(".skip(", JS),
    n("xit(", JS),
    n("xdescribe(", JS),
    n("xtest(", JS),
    n("t.Skip", GO),
    n("b.Skip", GO),
];

/// Ways to make a failing check look green.
const SUPPRESSIONS: &[Needle] = &[
    Needle {
        text: "continue-on-error",
        langs: ANY,
        unless: Some("false"),
    },
    Needle {
        text: "allow_failure:",
        langs: ANY,
        unless: Some("false"),
    },
    n("|| true", ANY),
    n("|| :", ANY),
    n("|| exit 0", ANY),
    n("set +e", ANY),
    n("#[allow(", RS),
    n("#![allow(", RS),
    n("#[expect(", RS),
    n("#![expect(", RS),
    n(", allow(", RS),
    n("noqa", PY),
    n("type: ignore", PY),
    n("pylint: disable", PY),
    n("pragma: no cover", PY),
    n("eslint-disable", JS),
    n("@ts-ignore", JS),
    n("@ts-nocheck", JS),
    n("@ts-expect-error", JS),
    n("tslint:disable", JS),
    n("nolint", GO),
    n("NOLINT", ANY),
];

/// `needle` in `line`, not as the tail of a longer word (`xit(` is not in `exit(`).
fn contains_word(line: &str, needle: &str) -> bool {
    let starts_word = needle.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    line.match_indices(needle).any(|(at, _)| {
        !starts_word
            || !line[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn table_hit<'t>(table: &'t [Needle], lang: Lang, line: &str) -> Option<&'t Needle> {
    table.iter().find(|row| {
        (row.langs.is_empty() || row.langs.contains(&lang))
            && contains_word(line, row.text)
            && row.unless.is_none_or(|u| !line.contains(u))
    })
}

/// Trimmed lines the diff both removes and adds: moved, so no rule counts them.
pub(crate) fn moved_lines(files: &[FileDiff]) -> HashMap<String, usize> {
    let mut removed: HashMap<&str, usize> = HashMap::new();
    let mut added: HashMap<&str, usize> = HashMap::new();
    for line in files.iter().flat_map(|f| &f.hunks).flat_map(|h| &h.lines) {
        match line {
            Line::Removed { text, .. } => *removed.entry(text.trim()).or_default() += 1,
            Line::Added { text, .. } => *added.entry(text.trim()).or_default() += 1,
            Line::Context { .. } => {}
        }
    }
    removed
        .into_iter()
        .filter_map(|(k, r)| added.get(k).map(|a| (k.to_owned(), r.min(*a))))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// Lines that are really new (added and not moved), with their new line numbers.
fn new_lines<'f>(file: &'f FileDiff, moved: &mut HashMap<String, usize>) -> Vec<(u32, &'f str)> {
    let mut out = Vec::new();
    for line in file.hunks.iter().flat_map(|h| &h.lines) {
        if let Line::Added { new, text } = line {
            if !take_moved(moved, text) {
                out.push((*new, text.as_str()));
            }
        }
    }
    out
}

fn take_moved(moved: &mut HashMap<String, usize>, text: &str) -> bool {
    match moved.get_mut(text.trim()) {
        Some(left) if *left > 0 => {
            *left -= 1;
            true
        }
        _ => false,
    }
}

/// `SkipsTest` and `SuppressesFailure`: table rows matched by really new lines.
pub(crate) fn added_line_findings(
    file: &FileDiff,
    moved: &HashMap<String, usize>,
    out: &mut Vec<Finding>,
) {
    let lang = lang_of(file.path());
    let mut moved = moved.clone();
    for (line_no, text) in new_lines(file, &mut moved) {
        let tables = [
            (SKIPS, GuardRule::SkipsTest, "skips a test with"),
            (
                SUPPRESSIONS,
                GuardRule::SuppressesFailure,
                "suppresses failures with",
            ),
        ];
        for (table, rule, what) in tables {
            if let Some(row) = table_hit(table, lang, text) {
                out.push(Finding {
                    rule,
                    path: file.path().to_owned(),
                    line: Some(line_no),
                    detail: format!("{what} `{}`: {}", row.text, text.trim()),
                });
            }
        }
    }
}

/// How much an assertion checks: 0 always passes, 1 checks something weak (truthiness,
/// presence), 2 checks a value.
fn assertion_strength(lang: Lang, line: &str) -> Option<u8> {
    let t = line.trim();
    match lang {
        Lang::Rust => rust_assertion(t),
        Lang::Python => python_assertion(t),
        Lang::Js => js_assertion(t),
        Lang::Go => go_assertion(t),
        Lang::Other => None,
    }
}

const COMPARISONS: &[&str] = &["==", "!=", "<", ">", " in ", " is ", "matches!"];

fn compares(t: &str) -> bool {
    COMPARISONS.iter().any(|c| t.contains(c))
}

fn rust_assertion(t: &str) -> Option<u8> {
    const STRONG: &[&str] = &[
        "assert_eq!(",
        "assert_ne!(",
        "assert_matches!(",
        "prop_assert_eq!(",
    ];
    if STRONG.iter().any(|s| t.contains(s)) {
        return Some(if same_arguments(t) { 0 } else { 2 });
    }
    let at = t.find("assert!(")?;
    let args = t[at + "assert!(".len()..].trim_start();
    Some(if args.starts_with("true") {
        0
    } else if compares(args) {
        2
    } else {
        1
    })
}

/// `assert_eq!(x, x)`: both arguments spelled the same (split at the top-level comma).
fn same_arguments(t: &str) -> bool {
    let Some(open) = t.find('(') else {
        return false;
    };
    let inner = t[open + 1..].trim_end().trim_end_matches(';');
    let inner = inner.strip_suffix(')').unwrap_or(inner);
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(inner[start..].trim());
    parts.len() == 2 && parts[0] == parts[1]
}

fn python_assertion(t: &str) -> Option<u8> {
    if let Some(rest) = t
        .strip_prefix("assert ")
        .or_else(|| t.strip_prefix("assert("))
    {
        let rest = rest.trim_start_matches('(').trim();
        return Some(
            if ["True", "1", "not False"]
                .iter()
                .any(|x| rest.starts_with(x))
            {
                0
            } else if compares(rest) {
                2
            } else {
                1
            },
        );
    }
    let at = t.find(".assert").or_else(|| t.find("pytest.raises("))?;
    let call = &t[at..];
    const WEAK: &[&str] = &[
        ".assertTrue(",
        ".assertFalse(",
        ".assertIsNotNone(",
        ".assertIsNone(",
    ];
    Some(
        if call.starts_with(".assertTrue(True") || call.starts_with(".assertFalse(False") {
            0
        } else if WEAK.iter().any(|w| call.starts_with(w)) {
            1
        } else {
            2
        },
    )
}

fn js_assertion(t: &str) -> Option<u8> {
    const WEAK: &[&str] = &[
        ".toBeDefined(",
        ".toBeTruthy(",
        ".toBeFalsy(",
        ".not.toBeNull(",
        ".not.toBeUndefined(",
        ".toBeInstanceOf(",
        "assert.ok(",
    ];
    let is_assertion =
        contains_word(t, "expect(") || contains_word(t, "assert(") || t.contains("assert.");
    if !is_assertion {
        return None;
    }
    Some(
        if t.contains("expect(true)") || t.contains("assert(true)") || t.contains("assert.ok(true")
        {
            0
        } else if WEAK.iter().any(|w| t.contains(w)) {
            1
        } else {
            2
        },
    )
}

fn go_assertion(t: &str) -> Option<u8> {
    const STRONG: &[&str] = &["t.Error", "t.Fatal", "t.Fail", "assert.", "require."];
    const WEAK: &[&str] = &[".NotNil(", ".True(", ".NotEmpty(", ".NoError("];
    if !STRONG.iter().any(|s| contains_word(t, s)) {
        return None;
    }
    Some(if t.contains(".True(t, true") {
        0
    } else if WEAK.iter().any(|w| t.contains(w)) {
        1
    } else {
        2
    })
}

/// `WeakensAssertion`, hunk by hunk: more assertions removed than added, an assertion replaced
/// by a weaker one, or one that always passes.
pub(crate) fn assertion_findings(
    file: &FileDiff,
    moved: &HashMap<String, usize>,
    out: &mut Vec<Finding>,
) {
    let lang = lang_of(file.path());
    let mut moved = moved.clone();
    for hunk in &file.hunks {
        let (removed, added) = hunk_assertions(hunk, lang, &mut moved);
        let finding = |line: u32, detail: String| Finding {
            rule: GuardRule::WeakensAssertion,
            path: file.path().to_owned(),
            line: Some(line),
            detail,
        };
        for (line, text, _) in added.iter().filter(|(_, _, s)| *s == 0) {
            out.push(finding(
                *line,
                format!("adds an assertion that always passes: {text}"),
            ));
        }
        if removed.len() > added.len() {
            let (line, text, _) = removed[added.len()];
            let count = removed.len() - added.len();
            out.push(finding(
                line,
                format!("removes {count} assertion(s), first: {text}"),
            ));
        }
        for ((_, old, was), (line, new, now)) in removed.iter().zip(&added) {
            if now < was && *now > 0 {
                out.push(finding(
                    *line,
                    format!("replaces `{old}` with the weaker `{new}`"),
                ));
            }
        }
    }
}

type Assertions<'h> = Vec<(u32, &'h str, u8)>;

fn hunk_assertions<'h>(
    hunk: &'h Hunk,
    lang: Lang,
    moved: &mut HashMap<String, usize>,
) -> (Assertions<'h>, Assertions<'h>) {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for line in &hunk.lines {
        let (target, no, text) = match line {
            Line::Removed { old, text } => (&mut removed, *old, text),
            Line::Added { new, text } => (&mut added, *new, text),
            Line::Context { .. } => continue,
        };
        if let Some(strength) = assertion_strength(lang, text) {
            if !take_moved(moved, text) {
                target.push((no, text.trim(), strength));
            }
        }
    }
    (removed, added)
}

/// The name of the test a line defines (Python, Go, JavaScript), or `None`. Rust tests are found
/// by their attribute, see [`side_tests`].
fn test_name(lang: Lang, t: &str) -> Option<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    match lang {
        Lang::Python => {
            let t = t.strip_prefix("async ").unwrap_or(t);
            let rest = t.strip_prefix("def test").map(|r| format!("test{r}"));
            let rest = rest.or_else(|| t.strip_prefix("class Test").map(|r| format!("Test{r}")));
            rest.map(|r| ident(&r))
        }
        Lang::Go => t
            .strip_prefix("func Test")
            .map(|r| format!("Test{}", ident(r))),
        Lang::Js => {
            const CALLS: &[&str] = &["it(", "test(", "describe(", "it.only(", "test.only("];
            CALLS.iter().find(|c| t.starts_with(*c))?;
            let quote = t.find(['"', '\'', '`'])?;
            let q = t[quote..].chars().next()?;
            let rest = &t[quote + 1..];
            Some(rest[..rest.find(q)?].to_owned())
        }
        Lang::Rust | Lang::Other => None,
    }
}

const RUST_TEST_ATTRS: &[&str] = &[
    "#[test]",
    "#[tokio::test",
    "#[rstest",
    "#[test_case",
    "#[async_std::test",
];

/// The tests one side of a file's hunks defines, by name, with a line number on that side.
fn side_tests(file: &FileDiff, lang: Lang, old_side: bool) -> BTreeMap<String, u32> {
    let mut tests = BTreeMap::new();
    for hunk in &file.hunks {
        // Rust: a `fn` after a test attribute (other attributes and comments may sit between).
        let mut pending_attr = false;
        for line in &hunk.lines {
            let (no, text) =
                match (line, old_side) {
                    (Line::Context { old, text, .. }, true)
                    | (Line::Removed { old, text }, true) => (*old, text),
                    (Line::Context { new, text, .. }, false)
                    | (Line::Added { new, text }, false) => (*new, text),
                    _ => continue,
                };
            let t = text.trim();
            if lang == Lang::Rust {
                if RUST_TEST_ATTRS.iter().any(|a| t.starts_with(a)) {
                    pending_attr = true;
                } else if pending_attr && t.contains("fn ") {
                    let name = t[t.find("fn ").unwrap_or(0) + 3..]
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("");
                    tests.entry(name.to_owned()).or_insert(no);
                    pending_attr = false;
                } else if !(t.is_empty() || t.starts_with("#[") || t.starts_with("//")) {
                    pending_attr = false;
                }
            } else if let Some(name) = test_name(lang, t) {
                tests.entry(name).or_insert(no);
            }
        }
    }
    tests
}

/// Tests a file's change removes and adds, by name.
pub(crate) struct TestChanges {
    pub removed: BTreeMap<String, u32>,
    pub added: BTreeMap<String, u32>,
}

pub(crate) fn test_changes(file: &FileDiff) -> TestChanges {
    let lang = lang_of(file.path());
    let old = side_tests(file, lang, true);
    let new = side_tests(file, lang, false);
    TestChanges {
        removed: old
            .iter()
            .filter(|(k, _)| !new.contains_key(*k))
            .map(|(k, v)| (k.clone(), *v))
            .collect(),
        added: new
            .iter()
            .filter(|(k, _)| !old.contains_key(*k))
            .map(|(k, v)| (k.clone(), *v))
            .collect(),
    }
}

/// A path that holds tests by the usual conventions of each ecosystem.
pub(crate) fn is_test_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    path.starts_with("tests/")
        || path.starts_with("test/")
        || path.contains("/tests/")
        || path.contains("/test/")
        || path.contains("__tests__/")
        || name.ends_with("_test.go")
        || name.ends_with("_test.py")
        || name.starts_with("test_")
        || name == "conftest.py"
        || name.contains(".test.")
        || name.contains(".spec.")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
}
