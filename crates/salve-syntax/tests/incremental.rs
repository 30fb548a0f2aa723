//! A long-lived process parses the text after an edit incrementally from the tree it kept for
//! the text before. Whatever it kept, every verdict must be the one fresh parses give.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use salve_syntax::{check, first_error, Language, Verdict};

/// The verdict from fresh parses only, as `check` defines it.
fn fresh(path: &str, before: &str, after: &str) -> Verdict {
    let language = Language::for_path(Path::new(path)).unwrap();
    match first_error(language, after).unwrap() {
        None => Verdict::Clean,
        Some(error) => match first_error(language, before).unwrap() {
            None => match check(Path::new(path), before, after) {
                // Set aside for the preprocessor's lines: check's own rule, asked fresh.
                Verdict::Unchecked(u) => Verdict::Unchecked(u),
                _ => Verdict::Introduced(error),
            },
            Some(_) => Verdict::AlreadyBroken,
        },
    }
}

/// Edits of every shape: a token changed, a line added, a brace or colon dropped and put back,
/// indentation broken and mended, a block deleted, text appended at the end.
fn edits(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for i in (0..lines.len()).step_by(3) {
        let mut owned: Vec<String> = lines.iter().map(|s| (*s).to_owned()).collect();
        match i % 4 {
            0 => owned[i] = owned[i].replacen('1', "42", 1),
            1 => owned.insert(i, "    x = 1".to_owned()),
            2 => owned[i] = owned[i].replace(['{', ':', ')'], ""),
            _ => owned[i] = format!("  {}", owned[i]),
        }
        out.push(owned.join("\n") + "\n");
        // And back again, then the original once more, so kept trees are reused both ways.
        out.push(text.to_owned());
    }
    let half: Vec<&str> = lines[..lines.len() / 2].to_vec();
    out.push(half.join("\n") + "\n");
    out.push(text.to_owned());
    out.push(format!("{text}\n# tail é\n"));
    out
}

fn walk(path: &str, start: &str) {
    let mut before = start.to_owned();
    // A first fresh check keeps the tree of `before`'s successor, and so on down the chain.
    for after in edits(start) {
        let got = check(Path::new(path), &before, &after);
        let want = fresh(path, &before, &after);
        assert_eq!(got, want, "{path}: from\n{before}\nto\n{after}");
        before = after;
    }
}

#[test]
fn incremental_verdicts_equal_fresh_ones_python() {
    let text: String = (0..40)
        .map(|i| {
            format!(
                "def f{i}(a, b):\n    if a > {i}:\n        return (a + b) * {i}\n    return b\n\n"
            )
        })
        .collect();
    walk("m.py", &text);
}

#[test]
fn incremental_verdicts_equal_fresh_ones_rust_and_javascript() {
    let rust: String = (0..30)
        .map(|i| format!("fn f{i}(a: u32) -> u32 {{\n    if a > {i} {{\n        a * {i}\n    }} else {{ a }}\n}}\n"))
        .collect();
    walk("lib.rs", &rust);
    let js: String = (0..30)
        .map(|i| format!("function f{i}(a) {{\n  if (a > {i}) {{\n    return a * {i};\n  }}\n  return a;\n}}\n"))
        .collect();
    walk("app.js", &js);
}

/// Tab-indented Python never takes the window (its widths are Python's to read two ways), so
/// every edit goes to the full check, parsed incrementally from the kept tree: the kept trees
/// still serve the edits the window hands over.
#[test]
fn incremental_verdicts_equal_fresh_ones_python_with_tabs() {
    let text: String = (0..30)
        .map(|i| {
            format!("def f{i}(a, b):\n\tif a > {i}:\n\t\treturn (a + b) * {i}\n\treturn b\n\n")
        })
        .collect();
    let after = text.replacen("* 1\n", "* 2\n", 1);
    assert_eq!(
        salve_syntax::check_window(Language::Python, &text, &after),
        Err(salve_syntax::Fallback::Tabs)
    );
    walk("t.py", &text);
}
