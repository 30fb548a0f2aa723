//! The `--json` output of every command, pinned exactly with insta inline snapshots: the real
//! binary against real temporary git repositories.
//!
//! What changes from run to run (ids, commit and tree shas, sha256s, times, durations, temp
//! paths, the git version) is normalized by [`Norm`] before the snapshot, keeping the shape:
//! every key, in the order printed, every array length, and every stable value. Hex ids become
//! numbered placeholders (`[ckpt-1]`, `[sha1-2]`, `[run-1]`, `[sha256-3]`), numbered by first
//! appearance within one test, so a snapshot also pins which values are the same (the checkpoint
//! a restore names is the one taken before it). `[ms]` and `[unix-time]` stand for integers,
//! `[time]` for an RFC 3339 string; a value of another type under those keys is left as it is,
//! so it shows in the snapshot.
//!
//! The workspace does not enable serde_json's `preserve_order`, so the output is parsed into
//! [`Json`], which keeps object keys in the order they were printed.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::ask::{command_provider, fixture, project, salve as ask_salve};
use crate::support::{Run, Tree};

// ---------------------------------------------------------------------------------------------
// JSON with its key order

/// A JSON value whose objects keep their keys in the order they were read.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Json {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> &str {
        match self {
            Json::String(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(text) => s.serialize_str(text),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(n)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            entries.push((k, v));
        }
        Ok(Json::Object(entries))
    }
}

// ---------------------------------------------------------------------------------------------
// Normalization

/// Replaces what changes between runs and machines by placeholders; one per test, so the
/// numbering of placeholders is shared by all the snapshots of the test.
struct Norm {
    /// Literal substrings and what they become, longest first.
    literals: Vec<(String, String)>,
    /// Hex ids seen so far and their placeholders.
    seen: HashMap<String, String>,
    counts: HashMap<&'static str, usize>,
}

impl Norm {
    fn new(tree: &Tree) -> Norm {
        let mut literals = Vec::new();
        let outside = tree.outside().to_path_buf();
        for dir in [outside.canonicalize().unwrap(), outside] {
            literals.push((dir.to_string_lossy().into_owned(), "[tmp]".to_owned()));
        }
        let bin = assert_cmd::cargo::cargo_bin("salve");
        literals.push((bin.to_string_lossy().into_owned(), "[salve]".to_owned()));
        literals.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        literals.dedup();
        Norm {
            literals,
            seen: HashMap::new(),
            counts: HashMap::new(),
        }
    }

    /// Another temporary directory whose paths may show (a second repository).
    fn also(&mut self, dir: &Path, name: &str) {
        for dir in [dir.canonicalize().unwrap(), dir.to_path_buf()] {
            self.literals
                .push((dir.to_string_lossy().into_owned(), format!("[{name}]")));
        }
        self.literals
            .sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        self.literals.dedup();
    }

    /// `run`'s stdout, one line of JSON, parsed and normalized.
    fn line(&mut self, run: &Run) -> Json {
        self.parsed(run, Layout::Line)
    }

    /// `run`'s stdout, indented JSON, parsed and normalized.
    fn pretty(&mut self, run: &Run) -> Json {
        self.parsed(run, Layout::Pretty)
    }

    /// The value printed, after checking that printing it again gives the same bytes: that pins
    /// the layout, the key order and the number formats that the snapshot of the value cannot.
    fn parsed(&mut self, run: &Run, layout: Layout) -> Json {
        let value = Json::parse(&run.stdout);
        let again = match layout {
            Layout::Line => serde_json::to_string(&value),
            Layout::Pretty => serde_json::to_string_pretty(&value),
        };
        assert_eq!(
            run.stdout,
            format!("{}\n", again.unwrap()),
            "stdout is not {layout:?} JSON as expected"
        );
        self.value(None, &value)
    }

    fn value(&mut self, key: Option<&str>, value: &Json) -> Json {
        match (key, value) {
            (_, Json::Null) => Json::Null,
            (Some("time"), Json::Number(_)) => placeholder("unix-time"),
            (Some(k), Json::Number(_)) if k.ends_with("_ms") => placeholder("ms"),
            (Some("short_id"), Json::String(s)) if is_hex(s) && s.len() >= 7 => {
                placeholder("short_id")
            }
            (Some("version"), Json::String(s))
                if s.split('.').all(|p| p.parse::<u32>().is_ok()) =>
            {
                placeholder("git-version")
            }
            (_, Json::String(s)) => Json::String(self.text(s)),
            (_, Json::Array(items)) => {
                Json::Array(items.iter().map(|item| self.value(None, item)).collect())
            }
            (_, Json::Object(entries)) => Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), self.value(Some(k), v)))
                    .collect(),
            ),
            (_, other) => other.clone(),
        }
    }

    /// A string with temp paths, hex ids and times replaced.
    fn text(&mut self, text: &str) -> String {
        if is_rfc3339(text) {
            return "[time]".to_owned();
        }
        let mut text = text.to_owned();
        for (from, to) in &self.literals {
            text = text.replace(from.as_str(), to);
        }
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(start) = rest.find(|c: char| c.is_ascii_hexdigit()) {
            let before = &rest[..start];
            let len = rest[start..]
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .unwrap_or(rest.len() - start);
            let word = &rest[start..start + len];
            out.push_str(before);
            let bounded = !before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            match hex_kind(word) {
                // A replay cassette's key: a hash of the prompt, not a checkpoint.
                Some("ckpt") if bounded && out.ends_with("hash ") => {
                    out.push_str(&self.id("hash", word));
                }
                Some(kind) if bounded => out.push_str(&self.id(kind, word)),
                _ => out.push_str(word),
            }
            rest = &rest[start + len..];
        }
        out.push_str(rest);
        out
    }

    fn id(&mut self, kind: &'static str, hex: &str) -> String {
        if let Some(name) = self.seen.get(hex) {
            return name.clone();
        }
        let n = self.counts.entry(kind).or_default();
        *n += 1;
        let name = format!("[{kind}-{n}]");
        self.seen.insert(hex.to_owned(), name.clone());
        name
    }
}

#[derive(Clone, Copy, Debug)]
enum Layout {
    /// One line, then a newline.
    Line,
    /// `serde_json::to_string_pretty`, then a newline.
    Pretty,
}

fn placeholder(what: &str) -> Json {
    Json::String(format!("[{what}]"))
}

fn is_hex(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The kind of a lowercase hex id by its length: a git object, a sha256, a run id, a
/// checkpoint id.
fn hex_kind(word: &str) -> Option<&'static str> {
    if !is_hex(word) || !word.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    match word.len() {
        40 => Some("sha1"),
        64 => Some("sha256"),
        20 => Some("run"),
        12 => Some("ckpt"),
        _ => None,
    }
}

/// `2026-11-21T09:30:39.417Z` and the like.
fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
        && (s.ends_with('Z') || s[19..].contains(['+', '-']))
}

#[test]
fn the_normalizer_keeps_the_shape_and_replaces_what_changes() {
    let tree = Tree::plain();
    let mut norm = Norm::new(&tree);
    let tmp = tree.outside().display().to_string();
    let text = format!(
        r#"{{"z": 1, "id": "0193a1b2c3d4e5f60718", "commit": "{sha1}", "again": "{sha1}",
            "checkpoint": "ac3369c0b0a5", "word": "deadbeefcafe", "sha256": "{sha256}",
            "path": "{tmp}/work/a.py", "at": "2026-11-21T09:30:39.417Z", "time": 1700000000,
            "latency_ms": 12, "short_id": "0193a1b", "message": "checkpoint ac3369c0b0a5 taken",
            "files": [{{"path": "src/a.py", "added": 2}}], "none": null, "ok": true}}"#,
        sha1 = "2318a9608c32616900d0a2fa8e8bb00dea48f4f3",
        sha256 = "d994802cf20d74031ed5c2e58b46a0b43a75023745588c6d0ee8259d5dd9be45",
    );
    insta::assert_json_snapshot!(norm.value(None, &Json::parse(&text)), @r#"
    {
      "z": 1,
      "id": "[run-1]",
      "commit": "[sha1-1]",
      "again": "[sha1-1]",
      "checkpoint": "[ckpt-1]",
      "word": "deadbeefcafe",
      "sha256": "[sha256-1]",
      "path": "[tmp]/work/a.py",
      "at": "[time]",
      "time": "[unix-time]",
      "latency_ms": "[ms]",
      "short_id": "[short_id]",
      "message": "checkpoint [ckpt-1] taken",
      "files": [
        {
          "path": "src/a.py",
          "added": 2
        }
      ],
      "none": null,
      "ok": true
    }
    "#);
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn run(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

/// `run` with `GIT_COMMITTER_DATE` set, for a checkpoint of a known age.
fn run_dated(tree: &Tree, date: &str, args: &[&str]) -> Run {
    Run::from(
        tree.salve()
            .env("GIT_COMMITTER_DATE", date)
            .args(args)
            .output()
            .unwrap(),
    )
}

// The apply tests' fixtures: one small Python file with a typo, and its fix.
use crate::apply_cli::{diff, greet_tree, GREET, GREET_FIX, OTHER};

// ---------------------------------------------------------------------------------------------
// apply

#[test]
fn apply_applied() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    let out = tree.apply(GREET_FIX, &["--json"]);
    out.code(0);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "applied",
      "check_only": false,
      "files": [
        {
          "path": "greet.py",
          "change": "modify",
          "format": "unified",
          "status": "applied",
          "hunks": [
            {
              "index": 0,
              "status": "applied",
              "rung": "exact",
              "lines": {
                "start": 1,
                "end": 2
              }
            }
          ],
          "added": 1,
          "removed": 1
        }
      ],
      "checkpoint": "[ckpt-1]"
    }
    "#);
}

#[test]
fn apply_check() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    let out = tree.apply(GREET_FIX, &["--json", "--check"]);
    out.code(0);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "applied",
      "check_only": true,
      "files": [
        {
          "path": "greet.py",
          "change": "modify",
          "format": "unified",
          "status": "applied",
          "hunks": [
            {
              "index": 0,
              "status": "applied",
              "rung": "exact",
              "lines": {
                "start": 1,
                "end": 2
              }
            }
          ],
          "added": 1,
          "removed": 1
        }
      ]
    }
    "#);
    assert_eq!(tree.read("greet.py"), GREET);
}

#[test]
fn apply_already_applied() {
    let tree = Tree::git();
    tree.write("greet.py", GREET.replace("helo", "hello"))
        .commit("init");
    let mut norm = Norm::new(&tree);
    let out = tree.apply(GREET_FIX, &["--json"]);
    out.code(0);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "already_applied",
      "check_only": false,
      "files": [
        {
          "path": "greet.py",
          "change": "modify",
          "format": "unified",
          "status": "already_applied",
          "hunks": [
            {
              "index": 0,
              "status": "already_applied",
              "lines": {
                "start": 1,
                "end": 2
              }
            }
          ],
          "added": 0,
          "removed": 0
        }
      ]
    }
    "#);
}

#[test]
fn apply_refused_not_found_with_candidates() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    // Close to line 2, but not close enough to be placed.
    let reply = diff(
        "greet.py",
        "def greet(person):",
        "    print(\"helo\", person)",
        "    print(\"hello\", person)",
    );
    let out = tree.apply(&reply, &["--json"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "refused",
      "check_only": false,
      "files": [
        {
          "path": "greet.py",
          "change": "modify",
          "format": "unified",
          "status": "not_found",
          "hunks": [
            {
              "index": 0,
              "status": "not_found",
              "candidates": [
                {
                  "lines": {
                    "start": 1,
                    "end": 2
                  },
                  "score": 0.692,
                  "diff": "1: def·greet([-p-]{+nam+}e[-rson-]):\n2: ····print(\"helo\",·[-p-]{+nam+}e[-rson-])",
                  "excerpt": [
                    {
                      "line": 1,
                      "text": "def greet(name):"
                    },
                    {
                      "line": 2,
                      "text": "    print(\"helo\", name)"
                    },
                    {
                      "line": 3,
                      "text": ""
                    },
                    {
                      "line": 4,
                      "text": ""
                    }
                  ]
                }
              ],
              "message": "the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.69), which differ: 1: def·greet([-p-]{+nam+}e[-rson-]):\n2: ····print(\"helo\",·[-p-]{+nam+}e[-rson-])"
            }
          ],
          "added": 0,
          "removed": 0
        }
      ]
    }
    "#);
}

#[test]
fn apply_refused_syntax() {
    let tree = Tree::git();
    tree.write("calc.py", "def total(items):\n    s = 0\n    return s\n")
        .commit("init");
    let mut norm = Norm::new(&tree);
    let reply = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def total(items):\n     s = 0\n+      n = 0\n```\n";
    let out = tree.apply(reply, &["--json"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "refused",
      "check_only": false,
      "files": [
        {
          "path": "calc.py",
          "change": "modify",
          "format": "unified",
          "status": "syntax",
          "hunks": [
            {
              "index": 0,
              "status": "syntax",
              "rung": "exact",
              "lines": {
                "start": 1,
                "end": 2
              },
              "message": "placed, but its new text (line 3) does not parse: Python syntax error at line 3, column 7: unexpected indent: `n = 0`"
            }
          ],
          "added": 0,
          "removed": 0,
          "message": "the file would not parse after the edit: Python syntax error at line 3, column 7: unexpected indent: `n = 0`. It parsed cleanly before, so nothing was written. Hunk 1 caused it (its new text is line 3 of the file after the edit): fix that hunk and send it again.\n  3 |       n = 0"
        }
      ]
    }
    "#);
}

#[test]
fn apply_refused_ambiguous_hunk() {
    let tree = Tree::git();
    tree.write("twice.py", "def a():\n    x = 1\n\n\ndef b():\n    x = 1\n")
        .commit("init");
    let mut norm = Norm::new(&tree);
    let reply =
        "```diff\n--- a/twice.py\n+++ b/twice.py\n@@ -1,1 +1,1 @@\n-    x = 1\n+    x = 2\n```\n";
    let out = tree.apply(reply, &["--json"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "refused",
      "check_only": false,
      "files": [
        {
          "path": "twice.py",
          "change": "modify",
          "format": "unified",
          "status": "ambiguous",
          "hunks": [
            {
              "index": 0,
              "status": "ambiguous",
              "rung": "exact",
              "candidates": [
                {
                  "lines": {
                    "start": 2,
                    "end": 2
                  },
                  "score": 1.0,
                  "diff": "identical",
                  "scope": {
                    "line": 1,
                    "text": "def a():"
                  },
                  "excerpt": [
                    {
                      "line": 1,
                      "text": "def a():"
                    },
                    {
                      "line": 2,
                      "text": "    x = 1"
                    },
                    {
                      "line": 3,
                      "text": ""
                    },
                    {
                      "line": 4,
                      "text": ""
                    }
                  ]
                },
                {
                  "lines": {
                    "start": 6,
                    "end": 6
                  },
                  "score": 1.0,
                  "diff": "identical",
                  "scope": {
                    "line": 5,
                    "text": "def b():"
                  },
                  "excerpt": [
                    {
                      "line": 4,
                      "text": ""
                    },
                    {
                      "line": 5,
                      "text": "def b():"
                    },
                    {
                      "line": 6,
                      "text": "    x = 1"
                    }
                  ]
                }
              ],
              "message": "the hunk matches 2 places (lines 2-2, 6-6); include more surrounding lines, a scope line, or correct line numbers so only one place fits"
            }
          ],
          "added": 0,
          "removed": 0
        }
      ]
    }
    "#);
}

#[test]
fn apply_refused_ambiguous_path() {
    let tree = Tree::git();
    tree.write("a/config.py", "DEBUG = False\nPORT = 1\n")
        .write("b/config.py", "DEBUG = False\nPORT = 2\n")
        .commit("init");
    let mut norm = Norm::new(&tree);
    let out = tree.apply(
        &diff("config.py", "DEBUG = False", "PORT = 1", "PORT = 8080"),
        &["--json"],
    );
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "refused",
      "check_only": false,
      "files": [
        {
          "path": "config.py",
          "change": "modify",
          "format": "unified",
          "status": "ambiguous",
          "hunks": [],
          "added": 0,
          "removed": 0,
          "message": "config.py does not exist, and 2 files could be meant: a/config.py, b/config.py"
        }
      ]
    }
    "#);
}

#[test]
fn apply_partial() {
    let tree = greet_tree();
    tree.write("other.py", OTHER).commit("other");
    let mut norm = Norm::new(&tree);
    let reply = format!(
        "{GREET_FIX}\nAnd:\n\n{}",
        diff("other.py", "class Cache:", "    size = 0", "    size = 64")
    );
    let out = tree.apply(&reply, &["--json", "--partial"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "partial",
      "check_only": false,
      "files": [
        {
          "path": "greet.py",
          "change": "modify",
          "format": "unified",
          "status": "applied",
          "hunks": [
            {
              "index": 0,
              "status": "applied",
              "rung": "exact",
              "lines": {
                "start": 1,
                "end": 2
              }
            }
          ],
          "added": 1,
          "removed": 1
        },
        {
          "path": "other.py",
          "change": "modify",
          "format": "unified",
          "status": "not_found",
          "hunks": [
            {
              "index": 0,
              "status": "not_found",
              "message": "the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.00), which differ: 1: [-class-]{+import+}·[-Cache:-]{+os+}\n2: [-····size·=·0-]"
            }
          ],
          "added": 0,
          "removed": 0
        }
      ],
      "checkpoint": "[ckpt-1]"
    }
    "#);
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
}

#[test]
fn apply_path_rejected() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    let reply = format!(
        "{GREET_FIX}\n```diff\n--- /dev/null\n+++ b/../x\n@@ -0,0 +1,1 @@\n+escaped\n```\n"
    );
    let out = tree.apply(&reply, &["--json", "--partial"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "refused",
      "check_only": false,
      "files": [
        {
          "path": "greet.py",
          "change": "modify",
          "format": "unified",
          "status": "skipped",
          "hunks": [],
          "added": 0,
          "removed": 0,
          "message": "not attempted: the reply names a path that is not allowed, so none of it is trusted"
        },
        {
          "path": "../x",
          "change": "create",
          "format": "unified",
          "status": "path_rejected",
          "hunks": [],
          "added": 0,
          "removed": 0,
          "message": "path `../x` rejected: the path climbs out of the work tree with `..`"
        }
      ]
    }
    "#);
    assert_eq!(tree.read("greet.py"), GREET);
}

#[test]
fn apply_error_prints_the_error_as_json() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    let out = tree.apply(GREET_FIX, &["--json", "--base", "no-such-rev"]);
    out.code(2);
    insta::assert_json_snapshot!(norm.line(&out), @r#"
    {
      "error": {
        "kind": "unknown_revision",
        "message": "revision `no-such-rev` does not name a commit in this repository",
        "hint": "--base takes the commit the model read: a hash, branch, tag or HEAD~N"
      }
    }
    "#);
    // People still read the error on stderr.
    assert!(
        out.stderr.starts_with("Error: revision `no-such-rev`"),
        "{}",
        out.stderr
    );
}

/// An argument salve cannot parse is an error like any other under `--json`.
#[test]
fn usage_error_prints_the_error_as_json() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    let out = run(&tree, &["--json", "apply", "--chek"]);
    out.code(2);
    insta::assert_json_snapshot!(norm.line(&out), @r#"
    {
      "error": {
        "kind": "usage",
        "message": "unexpected argument '--chek' found",
        "hint": "a similar argument exists: '--check'"
      }
    }
    "#);
}

/// A whole-file block for a path that does not exist creates the file, and says so.
#[test]
fn apply_whole_file_block_creates_a_file() {
    let tree = greet_tree();
    let mut norm = Norm::new(&tree);
    let reply = "Add a helper:\n\nsrc/helper.py\n```python\ndef helper():\n    return 1\n```\n";
    let out = tree.apply(reply, &["--json", "--check"]);
    out.code(0);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "applied",
      "check_only": true,
      "files": [
        {
          "path": "src/helper.py",
          "change": "create",
          "format": "whole-file",
          "status": "applied",
          "hunks": [],
          "added": 2,
          "removed": 0
        }
      ]
    }
    "#);
}

/// A binary target and a Latin-1 one are refused with statuses of their own, not `conflict`.
#[test]
fn apply_refused_binary_and_encoding() {
    let tree = greet_tree();
    tree.write("data.bin", b"head\n\x00\x01\nline\n")
        .write("latin1.txt", b"caf\xe9\nline\n")
        .commit("odd files");
    let mut norm = Norm::new(&tree);
    let reply = format!(
        "{}{}",
        diff("data.bin", "head", "line", "LINE"),
        diff("latin1.txt", "caf\u{e9}", "line", "LINE")
    );
    let out = tree.apply(&reply, &["--json"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "outcome": "refused",
      "check_only": false,
      "files": [
        {
          "path": "data.bin",
          "change": "modify",
          "format": "unified",
          "status": "binary",
          "hunks": [],
          "added": 0,
          "removed": 0,
          "message": "data.bin is a binary file (it contains NUL bytes); salve only edits text"
        },
        {
          "path": "latin1.txt",
          "change": "modify",
          "format": "unified",
          "status": "encoding",
          "hunks": [],
          "added": 0,
          "removed": 0,
          "message": "latin1.txt is not UTF-8 text; salve only edits UTF-8 text files"
        }
      ]
    }
    "#);
}

// ---------------------------------------------------------------------------------------------
// ask and doctor

/// The bundled replay example in a fresh repository.
fn demo() -> (Tree, String) {
    let tree = Tree::git();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/ask-demo");
    crate::ask::copy_dir(&src, &tree.root);
    tree.commit("demo");
    let instruction = tree.read("instruction.txt").trim().to_owned();
    (tree, instruction)
}

fn demo_ask(tree: &Tree, instruction: &str) -> Run {
    let mut cmd = ask_salve(tree);
    cmd.args([
        "--json",
        "ask",
        instruction,
        "--file",
        "temperature/convert.py",
        "--target",
        "tests/test_convert.py",
    ]);
    Run::from(cmd.output().unwrap())
}

#[test]
fn ask_applied_from_the_replay_cassette() {
    let (tree, instruction) = demo();
    let mut norm = Norm::new(&tree);
    let out = demo_ask(&tree, &instruction);
    out.code(0);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "status": "applied",
      "chain": "default",
      "provider": "demo",
      "rounds": [
        {
          "provider": "demo",
          "follow_up": false,
          "class": "edit",
          "meta": {
            "provider": "demo",
            "kind": "replay",
            "latency_ms": "[ms]"
          },
          "report": {
            "outcome": "applied",
            "check_only": false,
            "files": [
              {
                "path": "temperature/convert.py",
                "change": "modify",
                "format": "unified",
                "status": "applied",
                "hunks": [
                  {
                    "index": 0,
                    "status": "applied",
                    "rung": "exact",
                    "lines": {
                      "start": 4,
                      "end": 6
                    }
                  }
                ],
                "added": 1,
                "removed": 1
              },
              {
                "path": "tests/test_convert.py",
                "change": "modify",
                "format": "search-replace",
                "status": "applied",
                "hunks": [
                  {
                    "index": 0,
                    "status": "applied",
                    "rung": "exact",
                    "lines": {
                      "start": 3,
                      "end": 8
                    }
                  }
                ],
                "added": 9,
                "removed": 1
              }
            ]
          }
        }
      ],
      "attempts": [
        {
          "provider": "demo",
          "call": 1,
          "class": "edit",
          "meta": {
            "provider": "demo",
            "kind": "replay",
            "latency_ms": "[ms]"
          }
        }
      ],
      "written": [
        "temperature/convert.py",
        "tests/test_convert.py"
      ],
      "checkpoint": "[ckpt-1]",
      "baseline": "[sha1-1]",
      "run": "[run-1]",
      "timings": {
        "prompt_ms": "[ms]",
        "provider_ms": "[ms]",
        "apply_ms": "[ms]",
        "record_ms": "[ms]",
        "total_ms": "[ms]"
      }
    }
    "#);

    // The recorded run of an ask, with its attempt and its prompt. The command names the
    // program `salve`, as an apply's does, whatever path it was run from.
    let id = out.json()["run"].as_str().unwrap().to_owned();
    let show = run(&tree, &["show", &id, "--json"]);
    show.code(0);
    insta::assert_json_snapshot!(norm.pretty(&show), @r#"
    {
      "run": {
        "id": "[run-1]",
        "kind": "ask",
        "command": [
          "salve",
          "--json",
          "ask",
          "fahrenheit(100) returns 203 instead of 212. Fix it and add a test.",
          "--file",
          "temperature/convert.py",
          "--target",
          "tests/test_convert.py"
        ],
        "baseline": "[sha1-1]",
        "checkpoint": "[ckpt-1]",
        "started_at": "[time]",
        "ended_at": "[time]",
        "status": "applied",
        "budgets": {
          "cost_usd": null,
          "follow_ups": 1,
          "follow_ups_used": 0,
          "provider_calls": 1,
          "tokens_in": null,
          "tokens_out": null
        },
        "files": 2,
        "added": 10,
        "removed": 2
      },
      "patch_sets": [
        {
          "seq": 1,
          "baseline": "[sha1-1]",
          "diff_sha256": "[sha256-1]",
          "files": [
            {
              "path": "temperature/convert.py",
              "change": "modify",
              "added": 1,
              "removed": 1
            },
            {
              "path": "tests/test_convert.py",
              "change": "modify",
              "added": 9,
              "removed": 1
            }
          ],
          "rationale": "answer from demo",
          "format": "mixed",
          "status": "applied"
        }
      ],
      "attempts": [
        {
          "seq": 1,
          "patch_set": 1,
          "failure_class": "edit",
          "provider": "demo",
          "latency_ms": "[ms]"
        }
      ],
      "decisions": [],
      "artifacts": [
        {
          "name": "apply_report",
          "sha256": "[sha256-2]",
          "size": 820
        },
        {
          "name": "extracted_diff",
          "sha256": "[sha256-3]",
          "size": 710
        },
        {
          "name": "final_diff",
          "sha256": "[sha256-1]",
          "size": 914
        },
        {
          "name": "prompt",
          "sha256": "[sha256-4]",
          "size": 2007
        },
        {
          "name": "raw_reply",
          "sha256": "[sha256-5]",
          "size": 983
        },
        {
          "name": "sanitized_diff",
          "sha256": "[sha256-3]",
          "size": 710
        }
      ]
    }
    "#);
}

#[test]
fn ask_provider_error_on_a_cassette_miss() {
    let (tree, _) = demo();
    let mut norm = Norm::new(&tree);
    let out = demo_ask(&tree, "Something the cassette never saw.");
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "status": "provider_error",
      "chain": "default",
      "rounds": [],
      "attempts": [
        {
          "provider": "demo",
          "call": 1,
          "class": "error",
          "failure": "replay_miss",
          "reason": "replay_miss: the cassette [tmp]/work/cassette.jsonl has no reply for this prompt (hash [hash-1]); record one with --record"
        }
      ],
      "written": [],
      "message": "All providers failed (chain `default`):\n  demo: replay_miss: the cassette [tmp]/work/cassette.jsonl has no reply for this prompt (hash [hash-1]); record one with --record",
      "run": "[run-1]",
      "timings": {
        "prompt_ms": "[ms]",
        "provider_ms": "[ms]",
        "apply_ms": "[ms]",
        "record_ms": "[ms]",
        "total_ms": "[ms]"
      }
    }
    "#);
}

#[test]
fn ask_refused_without_follow_ups() {
    let tree = Tree::git();
    let log = tree.outside().join("prompts.log");
    tree.write("app.py", "print('helo')\n");
    tree.write(
        "salve.toml",
        command_provider(
            "model",
            &["sh", &fixture("refuse_then_fix.sh"), log.to_str().unwrap()],
        ),
    );
    tree.commit("start").trust();
    let mut norm = Norm::new(&tree);
    norm.also(&fixtures_dir(), "fixtures");
    let mut cmd = ask_salve(&tree);
    cmd.args([
        "--json",
        "ask",
        "Fix the greeting typo.",
        "--file",
        "app.py",
        "--follow-ups",
        "0",
    ]);
    let out = Run::from(cmd.output().unwrap());
    out.code(1);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "status": "refused",
      "chain": "default",
      "provider": "model",
      "rounds": [
        {
          "provider": "model",
          "follow_up": false,
          "class": "edit",
          "meta": {
            "provider": "model",
            "kind": "command",
            "latency_ms": "[ms]"
          },
          "report": {
            "outcome": "refused",
            "check_only": false,
            "files": [
              {
                "path": "app.py",
                "change": "modify",
                "format": "unified",
                "status": "not_found",
                "hunks": [
                  {
                    "index": 0,
                    "status": "not_found",
                    "candidates": [
                      {
                        "lines": {
                          "start": 1,
                          "end": 1
                        },
                        "score": 0.857,
                        "diff": "1: print('h[-al-]{+e+}lo')",
                        "excerpt": [
                          {
                            "line": 1,
                            "text": "print('helo')"
                          }
                        ]
                      }
                    ],
                    "message": "the lines this hunk changes were not found; the closest match is lines 1-1 (similarity 0.86), which differ: 1: print('h[-al-]{+e+}lo')"
                  }
                ],
                "added": 0,
                "removed": 0
              }
            ]
          }
        }
      ],
      "attempts": [
        {
          "provider": "model",
          "call": 1,
          "class": "edit",
          "meta": {
            "provider": "model",
            "kind": "command",
            "latency_ms": "[ms]"
          }
        }
      ],
      "written": [],
      "baseline": "[sha1-1]",
      "run": "[run-1]",
      "timings": {
        "prompt_ms": "[ms]",
        "provider_ms": "[ms]",
        "apply_ms": "[ms]",
        "record_ms": "[ms]",
        "total_ms": "[ms]"
      }
    }
    "#);
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/providers")
}

/// A directory holding only `git` and `sh`, for a PATH on which no agent CLI is found.
pub(crate) fn bare_path(tree: &Tree) -> PathBuf {
    let bin = tree.outside().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for program in ["git", "sh"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is not on PATH"));
        std::os::unix::fs::symlink(found, bin.join(program)).unwrap();
    }
    bin
}

#[test]
fn doctor() {
    let providers = format!(
        "{}[providers.tape]\nkind = \"replay\"\ncassette = \"none.jsonl\"\n\n[chains]\nfast = [\"script\"]\n",
        command_provider("script", &["sh", &fixture("fix.sh")]),
    );
    let tree = project(&providers);
    let mut norm = Norm::new(&tree);
    norm.also(&fixtures_dir(), "fixtures");
    let path = bare_path(&tree);
    let mut cmd = ask_salve(&tree);
    cmd.env("PATH", &path).args(["--json", "doctor"]);
    let out = Run::from(cmd.output().unwrap());
    out.code(0);
    insta::assert_json_snapshot!(norm.pretty(&out), @r#"
    {
      "chains": {
        "default": {
          "providers": [
            "script",
            "tape"
          ],
          "uses": "default"
        },
        "fast": {
          "providers": [
            "script"
          ],
          "uses": "fast"
        },
        "quality": {
          "providers": [
            "script",
            "tape"
          ],
          "uses": "default"
        }
      },
      "config": {
        "follow_ups": 1,
        "root": "[tmp]/work",
        "sources": [
          {
            "found": false,
            "kind": "user",
            "path": "[tmp]/home/.config/salve/config.toml",
            "vars": []
          },
          {
            "found": true,
            "kind": "repository",
            "path": "[tmp]/work/salve.toml",
            "vars": []
          },
          {
            "found": false,
            "kind": "environment",
            "path": null,
            "vars": []
          }
        ],
        "trust": [
          {
            "file": "[tmp]/work/salve.toml",
            "power": "runs_program",
            "section": "providers.script",
            "trusted": true
          }
        ],
        "warnings": []
      },
      "git": {
        "minimum": "2.30",
        "ok": true,
        "version": "[git-version]"
      },
      "problems": [],
      "providers": [
        {
          "available": true,
          "checks": [
            {
              "detail": "[tmp]/bin/sh",
              "ok": true,
              "what": "program"
            }
          ],
          "kind": "command",
          "model": null,
          "name": "script",
          "origin": "repository",
          "preset": null,
          "signed_in": null
        },
        {
          "available": false,
          "checks": [
            {
              "detail": "cannot read the cassette [tmp]/work/none.jsonl: No such file or directory (os error 2)",
              "ok": false,
              "what": "cassette"
            }
          ],
          "kind": "replay",
          "model": null,
          "name": "tape",
          "origin": "repository",
          "preset": null,
          "signed_in": null
        },
        {
          "available": false,
          "checks": [
            {
              "detail": "`claude` is not on PATH",
              "ok": false,
              "what": "program"
            }
          ],
          "kind": "command",
          "model": null,
          "name": "claude",
          "origin": "builtin",
          "preset": "claude",
          "signed_in": null
        },
        {
          "available": false,
          "checks": [
            {
              "detail": "`codex` is not on PATH",
              "ok": false,
              "what": "program"
            }
          ],
          "kind": "command",
          "model": null,
          "name": "codex",
          "origin": "builtin",
          "preset": "codex",
          "signed_in": null
        },
        {
          "available": false,
          "checks": [
            {
              "detail": "`gemini` is not on PATH",
              "ok": false,
              "what": "program"
            }
          ],
          "kind": "command",
          "model": null,
          "name": "gemini",
          "origin": "builtin",
          "preset": "gemini",
          "signed_in": null
        }
      ],
      "store": {
        "exists": false,
        "in_git": true,
        "path": "[tmp]/work/.git/salve"
      }
    }
    "#);
}

// ---------------------------------------------------------------------------------------------
// checkpoints, restore, undo, commit

fn lib_repo() -> Tree {
    let tree = Tree::git();
    tree.write("src/lib.rs", "pub fn a() {}\n")
        .write("README.md", "readme\n")
        .commit("init");
    tree
}

#[test]
fn checkpoint_checkpoints_and_drop() {
    let tree = lib_repo();
    let mut norm = Norm::new(&tree);
    tree.write("src/lib.rs", "pub fn a() { 1 }\n");
    tree.write("notes.txt", "untracked\n");

    let old = run_dated(
        &tree,
        "2020-01-02T03:04:05Z",
        &["checkpoint", "-m", "long ago", "--json"],
    );
    old.code(0);
    insta::assert_json_snapshot!(norm.line(&old), @r#"
    {
      "branch": "refs/heads/main",
      "commit": "[sha1-1]",
      "head": "[sha1-2]",
      "id": "[ckpt-1]",
      "index_tree": "[sha1-3]",
      "skipped": [],
      "tree": "[sha1-4]"
    }
    "#);

    tree.git_cmd(&["add", "src/lib.rs"]);
    let new = run(&tree, &["checkpoint", "-m", "just now", "--json"]);
    new.code(0);
    insta::assert_json_snapshot!(norm.line(&new), @r#"
    {
      "branch": "refs/heads/main",
      "commit": "[sha1-5]",
      "head": "[sha1-2]",
      "id": "[ckpt-2]",
      "index_tree": "[sha1-6]",
      "skipped": [],
      "tree": "[sha1-4]"
    }
    "#);

    let list = run(&tree, &["checkpoints", "--json"]);
    list.code(0);
    insta::assert_json_snapshot!(norm.line(&list), @r#"
    [
      {
        "branch": "refs/heads/main",
        "commit": "[sha1-5]",
        "files_changed": 2,
        "head": "[sha1-2]",
        "id": "[ckpt-2]",
        "message": "just now",
        "skipped": 0,
        "time": "[unix-time]",
        "worktree": "[tmp]/work"
      },
      {
        "branch": "refs/heads/main",
        "commit": "[sha1-1]",
        "files_changed": 2,
        "head": "[sha1-2]",
        "id": "[ckpt-1]",
        "message": "long ago",
        "skipped": 0,
        "time": "[unix-time]",
        "worktree": "[tmp]/work"
      }
    ]
    "#);

    let dropped = run(
        &tree,
        &["checkpoint", "drop", "--older-than", "30d", "--json"],
    );
    dropped.code(0);
    insta::assert_json_snapshot!(norm.line(&dropped), @r#"
    {
      "dropped": [
        "[ckpt-1]"
      ]
    }
    "#);

    let id = new.json()["id"].as_str().unwrap().to_owned();
    let dropped = run(&tree, &["checkpoint", "drop", &id, "--json"]);
    dropped.code(0);
    insta::assert_json_snapshot!(norm.line(&dropped), @r#"
    {
      "dropped": [
        "[ckpt-2]"
      ]
    }
    "#);

    let list = run(&tree, &["checkpoints", "--json"]);
    list.code(0);
    insta::assert_json_snapshot!(norm.line(&list), @"[]");
}

#[test]
fn restore_and_undo() {
    let tree = lib_repo();
    let mut norm = Norm::new(&tree);
    tree.write("src/lib.rs", "pub fn a() { staged }\n");
    tree.git_cmd(&["add", "src/lib.rs"]);
    tree.write("notes.txt", "untracked notes\n");
    let taken = run(&tree, &["checkpoint", "-m", "before", "--json"]);
    taken.code(0);
    // Numbers the checkpoint first, as `[ckpt-1]`.
    norm.line(&taken);
    let id = taken.json()["id"].as_str().unwrap().to_owned();

    tree.write("src/lib.rs", "broken(\n");
    std::fs::remove_file(tree.path("notes.txt")).unwrap();
    tree.write("junk.rs", "junk\n");
    tree.git_cmd(&["add", "-A"]);

    let restored = run(&tree, &["restore", &id, "--json"]);
    restored.code(0);
    insta::assert_json_snapshot!(norm.line(&restored), @r#"
    {
      "before": "[ckpt-2]",
      "captured": [],
      "deleted": [
        "junk.rs"
      ],
      "head_differs": false,
      "index_restored": true,
      "target": "[ckpt-1]",
      "target_commit": "[sha1-1]",
      "written": [
        "notes.txt",
        "src/lib.rs"
      ]
    }
    "#);
    assert_eq!(tree.read("notes.txt"), "untracked notes\n");

    let undone = run(&tree, &["undo", "--json"]);
    undone.code(0);
    insta::assert_json_snapshot!(norm.line(&undone), @r#"
    {
      "restore": {
        "before": "[ckpt-3]",
        "captured": [],
        "deleted": [
          "notes.txt"
        ],
        "head_differs": false,
        "index_restored": true,
        "target": "[ckpt-2]",
        "target_commit": "[sha1-5]",
        "written": [
          "junk.rs",
          "src/lib.rs"
        ]
      },
      "undone": {
        "checkpoint": "[sha1-5]",
        "kind": "restore",
        "time": "[unix-time]"
      }
    }
    "#);
    assert_eq!(tree.read("src/lib.rs"), "broken(\n");
}

#[test]
fn restore_to_run() {
    let tree = lib_repo();
    let mut norm = Norm::new(&tree);
    let applied = tree.apply(
        "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn a() {}\n+pub fn b() {}\n```\n",
        &[],
    );
    applied.code(0);
    let run_id = crate::restore_to_run::last_run(&tree);
    let restored = run(&tree, &["restore", "--to-run", &run_id, "--json"]);
    restored.code(0);
    insta::assert_json_snapshot!(norm.line(&restored), @r#"
    {
      "restore": {
        "before": "[ckpt-1]",
        "captured": [],
        "deleted": [],
        "head_differs": false,
        "index_restored": true,
        "target": "[ckpt-2]",
        "target_commit": "[sha1-1]",
        "written": [
          "src/lib.rs"
        ]
      },
      "rewound": [
        "[run-1]"
      ],
      "run": "[run-1]"
    }
    "#);
    assert_eq!(tree.read("src/lib.rs"), "pub fn a() {}\n");
}

#[test]
fn undo_with_nothing_to_undo() {
    let tree = lib_repo();
    let mut norm = Norm::new(&tree);
    let out = run(&tree, &["undo", "--json"]);
    out.code(1);
    insta::assert_json_snapshot!(norm.line(&out), @r#"
    {
      "error": {
        "kind": "nothing_to_undo",
        "message": "nothing to undo: no salve change has been recorded in this work tree",
        "hint": "undo takes back changes salve made in this work tree (apply, ask, restore); the checkpoint list shows snapshots taken by hand"
      }
    }
    "#);
}

#[test]
fn commit_and_nothing_to_commit() {
    let tree = lib_repo();
    let mut norm = Norm::new(&tree);
    tree.write("src/lib.rs", "pub fn a() { fixed }\n");
    tree.write("README.md", "readme, unstaged\n");
    let out = run(
        &tree,
        &[
            "commit",
            "--files",
            "src/lib.rs",
            "-m",
            "handle the empty case",
            "--failed-task",
            "unit",
            "--verified",
            "passed",
            "--json",
        ],
    );
    out.code(0);
    insta::assert_json_snapshot!(norm.line(&out), @r#"
    {
      "branch": "refs/heads/main",
      "changed": [
        "src/lib.rs"
      ],
      "commit": "[sha1-1]",
      "message": "fix(lib): handle the empty case\n\nFailed tasks: unit\nLocal verification: passed",
      "parent": "[sha1-2]"
    }
    "#);
    assert_eq!(tree.read("README.md"), "readme, unstaged\n");

    let out = run(
        &tree,
        &["commit", "--files", "src/lib.rs", "-m", "again", "--json"],
    );
    out.code(1);
    insta::assert_json_snapshot!(norm.line(&out), @r#"
    {
      "error": {
        "kind": "nothing_to_commit",
        "message": "the named files do not differ from HEAD; nothing to commit",
        "hint": "name the files the fix changed; `git status` lists what differs from HEAD"
      }
    }
    "#);
}

// ---------------------------------------------------------------------------------------------
// The record: log, show, export, import, gc

const SRC: &str =
    "def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return len(items)\n";

const FIX: &str = "Here you go:\n\n```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def total(items):\n-    return sum(items)\n+    # ignore missing values\n+    return sum(i for i in items if i is not None)\n```\n";

const MISS: &str = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def average(items):\n-    return 0\n+    return 1\n```\n";

fn calc_repo() -> Tree {
    let tree = Tree::git();
    tree.write("calc.py", SRC).commit("init");
    tree
}

#[test]
fn log_show_export_import_gc() {
    let tree = calc_repo();
    let mut norm = Norm::new(&tree);
    tree.apply(FIX, &[]).code(0);
    tree.apply(MISS, &[]).code(1);

    let log = run(&tree, &["log", "--json"]);
    log.code(0);
    let ids: Vec<String> = log
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    insta::assert_json_snapshot!(norm.pretty(&log), @r#"
    [
      {
        "id": "[run-1]",
        "kind": "apply",
        "command": [
          "salve",
          "apply",
          "[tmp]/reply.md"
        ],
        "baseline": "[sha1-1]",
        "checkpoint": null,
        "started_at": "[time]",
        "ended_at": "[time]",
        "status": "refused",
        "message": "calc.py: not_found (the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):)",
        "files": 0,
        "added": 0,
        "removed": 0,
        "short_id": "[short_id]",
        "paths": [
          "calc.py"
        ]
      },
      {
        "id": "[run-2]",
        "kind": "apply",
        "command": [
          "salve",
          "apply",
          "[tmp]/reply.md"
        ],
        "baseline": "[sha1-1]",
        "checkpoint": "[ckpt-1]",
        "started_at": "[time]",
        "ended_at": "[time]",
        "status": "applied",
        "files": 1,
        "added": 2,
        "removed": 1,
        "short_id": "[short_id]",
        "paths": [
          "calc.py"
        ]
      }
    ]
    "#);

    let (refused, applied) = (&ids[0], &ids[1]);
    let show = run(&tree, &["show", applied, "--json"]);
    show.code(0);
    insta::assert_json_snapshot!(norm.pretty(&show), @r#"
    {
      "run": {
        "id": "[run-2]",
        "kind": "apply",
        "command": [
          "salve",
          "apply",
          "[tmp]/reply.md"
        ],
        "baseline": "[sha1-1]",
        "checkpoint": "[ckpt-1]",
        "started_at": "[time]",
        "ended_at": "[time]",
        "status": "applied",
        "files": 1,
        "added": 2,
        "removed": 1
      },
      "patch_sets": [
        {
          "seq": 1,
          "baseline": "[sha1-1]",
          "diff_sha256": "[sha256-1]",
          "files": [
            {
              "path": "calc.py",
              "change": "modify",
              "added": 2,
              "removed": 1
            }
          ],
          "format": "unified",
          "status": "applied"
        }
      ],
      "attempts": [],
      "decisions": [],
      "artifacts": [
        {
          "name": "apply_report",
          "sha256": "[sha256-2]",
          "size": 425
        },
        {
          "name": "final_diff",
          "sha256": "[sha256-1]",
          "size": 220
        },
        {
          "name": "raw_reply",
          "sha256": "[sha256-3]",
          "size": 192
        }
      ]
    }
    "#);

    let show = run(&tree, &["show", refused, "--json"]);
    show.code(0);
    insta::assert_json_snapshot!(norm.pretty(&show), @r#"
    {
      "run": {
        "id": "[run-1]",
        "kind": "apply",
        "command": [
          "salve",
          "apply",
          "[tmp]/reply.md"
        ],
        "baseline": "[sha1-1]",
        "checkpoint": null,
        "started_at": "[time]",
        "ended_at": "[time]",
        "status": "refused",
        "message": "calc.py: not_found (the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):)",
        "files": 0,
        "added": 0,
        "removed": 0
      },
      "patch_sets": [
        {
          "seq": 1,
          "baseline": "[sha1-1]",
          "diff_sha256": null,
          "files": [
            {
              "path": "calc.py",
              "change": "modify",
              "added": 0,
              "removed": 0
            }
          ],
          "format": "unified",
          "status": "rejected",
          "reason": "calc.py: not_found (the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):)"
        }
      ],
      "attempts": [],
      "decisions": [
        {
          "seq": 1,
          "chosen": "calc.py hunk 1: refused (not_found)",
          "alternatives": [
            "lines 1-2 (similarity 0.31)"
          ],
          "evidence": "the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):\n2: ····{+#·igno+}re[-tur-]{+·missi+}n{+g+}·[-0-]{+values+}"
        }
      ],
      "artifacts": [
        {
          "name": "apply_report",
          "sha256": "[sha256-4]",
          "size": 1400
        },
        {
          "name": "raw_reply",
          "sha256": "[sha256-5]",
          "size": 105
        }
      ]
    }
    "#);

    let export = run(&tree, &["export", applied, refused]);
    export.code(0);
    let lines: Vec<Json> = export
        .stdout
        .lines()
        .map(|line| {
            let value = Json::parse(line);
            assert_eq!(serde_json::to_string(&value).unwrap(), line);
            norm.value(None, &value)
        })
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0].get("run").unwrap().get("id").unwrap().str(),
        "[run-2]"
    );
    insta::assert_json_snapshot!(lines, @r#"
    [
      {
        "salve_export": 1,
        "run": {
          "id": "[run-2]",
          "kind": "apply",
          "command": [
            "salve",
            "apply",
            "[tmp]/reply.md"
          ],
          "baseline": "[sha1-1]",
          "checkpoint": "[ckpt-1]",
          "started_at": "[time]",
          "ended_at": "[time]",
          "status": "applied",
          "files": 1,
          "added": 2,
          "removed": 1
        },
        "patch_sets": [
          {
            "seq": 1,
            "baseline": "[sha1-1]",
            "diff_sha256": "[sha256-1]",
            "files": [
              {
                "path": "calc.py",
                "change": "modify",
                "added": 2,
                "removed": 1
              }
            ],
            "format": "unified",
            "status": "applied"
          }
        ],
        "attempts": [],
        "decisions": [],
        "artifacts": [
          {
            "name": "apply_report",
            "sha256": "[sha256-2]",
            "size": 425,
            "encoding": "utf8",
            "content": "{\n  \"outcome\": \"applied\",\n  \"check_only\": false,\n  \"files\": [\n    {\n      \"path\": \"calc.py\",\n      \"change\": \"modify\",\n      \"format\": \"unified\",\n      \"status\": \"applied\",\n      \"hunks\": [\n        {\n          \"index\": 0,\n          \"status\": \"applied\",\n          \"rung\": \"exact\",\n          \"lines\": {\n            \"start\": 1,\n            \"end\": 2\n          }\n        }\n      ],\n      \"added\": 2,\n      \"removed\": 1\n    }\n  ]\n}"
          },
          {
            "name": "final_diff",
            "sha256": "[sha256-1]",
            "size": 220,
            "encoding": "utf8",
            "content": "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,6 @@\n def total(items):\n-    return sum(items)\n+    # ignore missing values\n+    return sum(i for i in items if i is not None)\n \n \n def count(items):\n"
          },
          {
            "name": "raw_reply",
            "sha256": "[sha256-3]",
            "size": 192,
            "encoding": "utf8",
            "content": "Here you go:\n\n```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def total(items):\n-    return sum(items)\n+    # ignore missing values\n+    return sum(i for i in items if i is not None)\n```\n"
          }
        ]
      },
      {
        "salve_export": 1,
        "run": {
          "id": "[run-1]",
          "kind": "apply",
          "command": [
            "salve",
            "apply",
            "[tmp]/reply.md"
          ],
          "baseline": "[sha1-1]",
          "checkpoint": null,
          "started_at": "[time]",
          "ended_at": "[time]",
          "status": "refused",
          "message": "calc.py: not_found (the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):)",
          "files": 0,
          "added": 0,
          "removed": 0
        },
        "patch_sets": [
          {
            "seq": 1,
            "baseline": "[sha1-1]",
            "diff_sha256": null,
            "files": [
              {
                "path": "calc.py",
                "change": "modify",
                "added": 0,
                "removed": 0
              }
            ],
            "format": "unified",
            "status": "rejected",
            "reason": "calc.py: not_found (the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):)"
          }
        ],
        "attempts": [],
        "decisions": [
          {
            "seq": 1,
            "chosen": "calc.py hunk 1: refused (not_found)",
            "alternatives": [
              "lines 1-2 (similarity 0.31)"
            ],
            "evidence": "the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):\n2: ····{+#·igno+}re[-tur-]{+·missi+}n{+g+}·[-0-]{+values+}"
          }
        ],
        "artifacts": [
          {
            "name": "apply_report",
            "sha256": "[sha256-4]",
            "size": 1400,
            "encoding": "utf8",
            "content": "{\n  \"outcome\": \"refused\",\n  \"check_only\": false,\n  \"files\": [\n    {\n      \"path\": \"calc.py\",\n      \"change\": \"modify\",\n      \"format\": \"unified\",\n      \"status\": \"not_found\",\n      \"hunks\": [\n        {\n          \"index\": 0,\n          \"status\": \"not_found\",\n          \"candidates\": [\n            {\n              \"lines\": {\n                \"start\": 1,\n                \"end\": 2\n              },\n              \"score\": 0.31,\n              \"diff\": \"1: def·{+tot+}a[-verage-]{+l+}(items):\\n2: ····{+#·igno+}re[-tur-]{+·missi+}n{+g+}·[-0-]{+values+}\",\n              \"excerpt\": [\n                {\n                  \"line\": 1,\n                  \"text\": \"def total(items):\"\n                },\n                {\n                  \"line\": 2,\n                  \"text\": \"    # ignore missing values\"\n                },\n                {\n                  \"line\": 3,\n                  \"text\": \"    return sum(i for i in items if i is not None)\"\n                },\n                {\n                  \"line\": 4,\n                  \"text\": \"\"\n                }\n              ]\n            }\n          ],\n          \"message\": \"the lines this hunk changes were not found; the closest match is lines 1-2 (similarity 0.31), which differ: 1: def·{+tot+}a[-verage-]{+l+}(items):\\n2: ····{+#·igno+}re[-tur-]{+·missi+}n{+g+}·[-0-]{+values+}\"\n        }\n      ],\n      \"added\": 0,\n      \"removed\": 0\n    }\n  ]\n}"
          },
          {
            "name": "raw_reply",
            "sha256": "[sha256-5]",
            "size": 105,
            "encoding": "utf8",
            "content": "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def average(items):\n-    return 0\n+    return 1\n```\n"
          }
        ]
      }
    ]
    "#);

    let other = Tree::git();
    other.write("calc.py", SRC).commit("init");
    let file = tree.outside().join("runs.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    let file = file.to_str().unwrap();
    let imported = run(&other, &["import", file, "--json"]);
    imported.code(0);
    insta::assert_json_snapshot!(norm.line(&imported), @r#"
    {
      "imported": 2,
      "skipped": 0
    }
    "#);
    let again = run(&other, &["import", file, "--json"]);
    again.code(0);
    insta::assert_json_snapshot!(norm.line(&again), @r#"
    {
      "imported": 0,
      "skipped": 2
    }
    "#);

    let gc = run(&tree, &["gc", "--json"]);
    gc.code(0);
    insta::assert_json_snapshot!(norm.line(&gc), @r#"
    {
      "runs_pruned": 0,
      "objects_removed": 0,
      "bytes_freed": 0,
      "temp_files_removed": 0,
      "objects_kept": 5,
      "work_tree_temp_files": []
    }
    "#);
    // The record keeps these small contents in its database, written with the rows naming
    // them: they go with their runs, with no grace period for a writer between the two.
    let store = salve_store::Store::open(&tree.root).unwrap();
    let mut contents = std::collections::BTreeMap::new();
    for r in store.list(&salve_store::LogQuery::default()).unwrap() {
        for a in store.record(&r.run.id).unwrap().artifacts {
            contents.insert(a.sha256, a.size);
        }
    }
    drop(store);
    let gc = run(&tree, &["gc", "--older-than", "0m", "--json"]);
    gc.code(0);
    let mut freed = norm.line(&gc);
    if let Json::Object(entries) = &mut freed {
        for (key, value) in entries.iter_mut() {
            if key == "bytes_freed" {
                assert_eq!(*value, Json::Number(contents.values().sum::<u64>().into()));
                *value = Json::String("[the contents' sizes]".into());
            }
        }
    }
    assert_eq!(contents.len(), 5);
    insta::assert_json_snapshot!(freed, @r#"
    {
      "runs_pruned": 2,
      "objects_removed": 5,
      "bytes_freed": "[the contents' sizes]",
      "temp_files_removed": 0,
      "objects_kept": 0,
      "work_tree_temp_files": []
    }
    "#);
    let log = run(&tree, &["log", "--json"]);
    log.code(0);
    insta::assert_json_snapshot!(norm.pretty(&log), @"[]");
}

#[test]
fn log_and_gc_without_a_record() {
    let tree = calc_repo();
    let mut norm = Norm::new(&tree);
    let log = run(&tree, &["log", "--json"]);
    log.code(0);
    insta::assert_json_snapshot!(norm.line(&log), @"[]");
    let gc = run(&tree, &["gc", "--json"]);
    gc.code(0);
    insta::assert_json_snapshot!(norm.line(&gc), @r#"
    {
      "runs_pruned": 0,
      "objects_removed": 0,
      "bytes_freed": 0,
      "temp_files_removed": 0,
      "objects_kept": 0,
      "work_tree_temp_files": []
    }
    "#);
    assert!(!tree.exists(".git/salve"), "reading created a record");
}
