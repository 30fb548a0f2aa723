use super::{apply_notebook, notebook_python, notebook_source_value, notebook_sources};
use crate::parse::extract;
use crate::report::Status;
use crate::FileChange;

/// A notebook as Jupyter writes it (indent 1, one string per line, non-ASCII as itself).
const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Greeting — \"demo\"\n",
    "Prints a name."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [],
   "source": [
    "import os\n",
    "def greet(name):\n",
    "    print(\"hello\", name)\n",
    "\n",
    "greet(\"x\")"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": "total = 0\nfor i in range(3):\n    total += i"
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "print(\"done\")\n",
    "greet(\"x\")"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

fn hunks(reply: &str) -> Vec<crate::Hunk> {
    let ex = extract(reply);
    match &ex.edits[0].change {
        FileChange::Modify { hunks } => hunks.clone(),
        other => panic!("not a modify: {other:?}"),
    }
}

fn sr(search: &str, replace: &str) -> String {
    format!("nb.ipynb\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

fn apply(reply: &str) -> crate::FileOutcome {
    apply_notebook(NB, &hunks(reply))
        .expect("a cell edit")
        .materialize(NB)
}

#[test]
fn cell_code_is_written_inside_its_source_with_json_escaping() {
    let out = apply(&sr(
        "def greet(name):\n    print(\"hello\", name)\n",
        "def greet(name, end=\"!\"):\n    print(\"hello\\t\", name + end)\n    return name\n",
    ));
    assert_eq!(out.status, Status::Applied, "{:?}", out.hunks);
    let want = NB.replace(
        "    \"def greet(name):\\n\",\n    \"    print(\\\"hello\\\", name)\\n\",\n",
        "    \"def greet(name, end=\\\"!\\\"):\\n\",\n    \"    print(\\\"hello\\\\t\\\", name + end)\\n\",\n    \"    return name\\n\",\n",
    );
    assert_ne!(want, NB);
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
    assert_eq!((out.added, out.removed), (3, 2));
    let lines = out.hunks[0].lines.expect("file lines");
    assert_eq!((lines.start, lines.end), (18, 19));
    let v: serde_json::Value = serde_json::from_str(out.new_text.as_deref().unwrap()).unwrap();
    let src: String = v["cells"][1]["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(src.contains("    print(\"hello\\t\", name + end)\n    return name\n"));
}

#[test]
fn a_source_held_as_one_string_stays_one_string() {
    let out = apply(&sr("    total += i\n", "    total += i * i\n"));
    assert_eq!(out.status, Status::Applied, "{:?}", out.hunks);
    let want = NB.replace("    total += i\"", "    total += i * i\"");
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
}

#[test]
fn markdown_cells_take_edits_too_and_keep_the_last_lines_missing_newline() {
    let out = apply(&sr("Prints a name.\n", "Prints a name, twice.\n"));
    assert_eq!(out.status, Status::Applied, "{:?}", out.hunks);
    let want = NB.replace("\"Prints a name.\"", "\"Prints a name, twice.\"");
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
}

#[test]
fn code_found_in_two_cells_is_refused_with_both() {
    let out = apply(&sr("greet(\"x\")\n", "greet(\"y\")\n"));
    assert_eq!(out.status, Status::Ambiguous);
    assert_eq!(out.new_text, None);
    let msg = out.hunks[0].message.as_deref().unwrap();
    assert!(msg.contains("cell 2, cell 4"), "{msg}");
}

#[test]
fn code_quoted_across_two_cells_is_refused() {
    let out = apply(&sr(
        "greet(\"x\")\ntotal = 0\n",
        "greet(\"z\")\ntotal = 1\n",
    ));
    assert_eq!(out.status, Status::Ambiguous);
    assert_eq!(out.new_text, None);
    let msg = out.hunks[0].message.as_deref().unwrap();
    assert!(msg.contains("across two cells"), "{msg}");
}

#[test]
fn one_failing_hunk_refuses_the_notebook() {
    let reply = format!(
        "{}{}",
        sr("import os\n", "import os\nimport sys\n"),
        sr("import numpy\n", "import numpy as np\n")
    );
    let out = apply(&reply);
    assert_eq!(out.status, Status::NotFound);
    assert_eq!(out.new_text, None);
    assert_eq!(out.hunks[0].status, Status::Skipped);
}

#[test]
fn an_edit_already_in_the_cell_writes_nothing() {
    let out = apply(&sr("import os\n", "import os\n"));
    assert!(out.status.is_success());
    assert_eq!(out.new_text, None);
}

#[test]
fn edits_of_the_json_text_are_left_to_the_ordinary_path() {
    let reply = "nb.ipynb\n```json\n<<<<<<< SEARCH\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n=======\n \"nbformat\": 4,\n \"nbformat_minor\": 4\n>>>>>>> REPLACE\n```\n";
    assert!(apply_notebook(NB, &hunks(reply)).is_none());
    let quoted = sr(
        "    \"import os\\n\",\n",
        "    \"import os\\n\",\n    \"import sys\\n\",\n",
    );
    assert!(apply_notebook(NB, &hunks(&quoted)).is_none());
}

#[test]
fn a_file_that_is_no_notebook_is_left_alone() {
    let reply = sr("a\n", "b\n");
    assert!(apply_notebook("{\"a\": 1}\n", &hunks(&reply)).is_none());
    assert!(apply_notebook("a\n", &hunks(&reply)).is_none());
}

#[test]
fn a_file_escaping_non_ascii_gets_escapes() {
    let nb = "{\"cells\": [{\"source\": [\"s = \\\"caf\\u00e9\\\"\\n\", \"print(s)\"]}]}";
    let h = hunks(&sr("print(s)\n", "print(s, \"\u{e9}t\u{e9}\")\n"));
    let out = apply_notebook(nb, &h).unwrap().materialize(nb);
    assert_eq!(
        out.new_text.as_deref(),
        Some("{\"cells\": [{\"source\": [\"s = \\\"caf\\u00e9\\\"\\n\", \"print(s, \\\"\\u00e9t\\u00e9\\\")\"]}]}")
    );
}

#[test]
fn checks_read_the_cells_lines_decoded() {
    let all = notebook_sources(NB).unwrap();
    assert!(all.starts_with("# Greeting — \"demo\"\nPrints a name.\nimport os\n"));
    let code = notebook_python(NB).unwrap();
    assert!(!code.contains("Greeting"));
    assert!(code.contains("    print(\"hello\", name)\n"));
    // No Python kernel named: nothing for a Python parser to judge.
    assert!(notebook_python("{\"cells\": [], \"metadata\": {}}").is_none());
    assert_eq!(
        notebook_source_value("[\"a\\n\", \"b\"]").as_deref(),
        Some("a\nb")
    );
    assert_eq!(notebook_source_value("\"x\"").as_deref(), Some("x"));
    assert_eq!(notebook_source_value("[1]"), None);
}
