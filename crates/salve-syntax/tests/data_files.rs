//! Data files (issue 23 §9): JSON, Jupyter notebooks, YAML and TOML broken by an edit are caught
//! with the error's line; files already broken are not judged; clean edits pass.

use std::path::Path;

use salve_syntax::{check, ErrorKind, Language, Verdict};

fn introduced(path: &str, before: &str, after: &str) -> salve_syntax::SyntaxError {
    assert_eq!(
        check(Path::new(path), before, before),
        Verdict::Clean,
        "{path}"
    );
    match check(Path::new(path), before, after) {
        Verdict::Introduced(e) => e,
        other => panic!("{path}: expected an introduced error, got {other:?}"),
    }
}

#[test]
fn json_with_a_raw_newline_in_a_string() {
    let before = "{\n  \"name\": \"salve\",\n  \"version\": \"1.0.0\"\n}\n";
    let after = "{\n  \"name\": \"salve\nedit\",\n  \"version\": \"1.0.0\"\n}\n";
    let e = introduced("package.json", before, after);
    assert_eq!(e.line, 2, "{e}");
    assert!(matches!(e.kind, ErrorKind::Invalid(_)), "{e}");
    let fine = "{\n  \"name\": \"salve\",\n  \"version\": \"1.1.0\"\n}\n";
    assert_eq!(
        check(Path::new("package.json"), before, fine),
        Verdict::Clean
    );
    // A JSON file with comments (tsconfig.json often has them) was never valid JSON: not judged.
    let commented = "{\n  // strict\n  \"strict\": true\n}\n";
    assert_eq!(
        check(
            Path::new("tsconfig.json"),
            commented,
            "{\n  // strict\n  \"strict\": tru\n}\n"
        ),
        Verdict::AlreadyBroken
    );
}

#[test]
fn notebook_cell_edited_as_plain_text() {
    let before = r#"{
 "cells": [
  {
   "cell_type": "code",
   "metadata": {},
   "source": [
    "def total(xs):\n",
    "    return sum(xs)\n"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;
    // The substring rung put a plain-text line and a quote inside the JSON string.
    let after = before.replace(
        "    return sum(xs)\\n",
        "    print(\"total\")\n    return sum(xs)\\n",
    );
    let e = introduced("analysis.ipynb", before, &after);
    assert_eq!(e.language, Language::Notebook);
    assert_eq!(e.line, 8, "{e}");
    assert!(
        e.to_string().contains("cell's code is a JSON string"),
        "{e}"
    );
    // The same edit written as the file's JSON lines is clean.
    let escaped = before.replace(
        "    \"    return sum(xs)\\n\"\n",
        "    \"    print(\\\"total\\\")\\n\",\n    \"    return sum(xs)\\n\"\n",
    );
    assert_ne!(escaped, before);
    assert_eq!(
        check(Path::new("analysis.ipynb"), before, &escaped),
        Verdict::Clean
    );
}

#[test]
fn yaml_key_between_two_levels() {
    let before = "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n";
    let after = format!(
        "{before}      - uses: actions/setup-python@v5\n       with:\n         python-version: \"3.12\"\n"
    );
    let e = introduced(".github/workflows/ci.yml", before, &after);
    assert_eq!(e.line, 8, "{e}");
    let fine = format!(
        "{before}      - uses: actions/setup-python@v5\n        with:\n          python-version: \"3.12\"\n"
    );
    assert_eq!(
        check(Path::new(".github/workflows/ci.yml"), before, &fine),
        Verdict::Clean
    );
}

#[test]
fn toml_with_an_unclosed_table_header() {
    let before = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n";
    let after = "[package]\nname = \"x\"\n\n[dependencies\nserde = \"1\"\n";
    let e = introduced("Cargo.toml", before, after);
    assert_eq!(e.line, 4, "{e}");
    assert_eq!(e.language.name(), "TOML");
}
