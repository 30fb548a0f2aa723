//! [`looks_like_edit`] against a full [`extract`]: over every reply of the shared corpus
//! (`../../../shared/corpus`, `cases/` and `v2/cases/`, when present), over the scenario
//! folders, and over the agents' tool-call forms written bare. (The generated cases check the
//! same property on every reply they draw, in `generated/apply.rs`.)
//!
//! The cheap scan must never say "no edit" where extraction finds one: that would make a
//! provider chain drop a usable reply. The other way round it may say "edit" for a reply whose
//! edit turns out unusable (an agent tool call whose body `extract` cannot lower); on the
//! corpus those are printed and counted, and any other disagreement fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{extract, looks_like_edit};
use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../../tests/support/skip.rs"]
mod skip;

fn corpus_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    vec![root.join("cases"), root.join("v2/cases")]
}

/// A reply written as an agent's tool call, a form `extract` does not read yet.
fn is_tool_call(reply: &str) -> bool {
    [
        "<apply_diff>",
        "<replace_in_file>",
        "<write_to_file>",
        "\"input\"",
    ]
    .iter()
    .any(|m| reply.contains(m))
}

/// Every `reply.txt` of the scenario folders: each edit `extract` finds is seen.
#[test]
fn sees_every_edit_of_the_scenario_folders() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/scenarios");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("reply.txt"))
        .filter(|p| p.is_file())
        .collect();
    cases.sort();
    assert!(cases.len() > 300, "{} scenarios", cases.len());
    let missed: Vec<String> = cases
        .iter()
        .filter(|p| {
            let reply = fs::read_to_string(p).unwrap();
            !extract(&reply).edits.is_empty() && !looks_like_edit(&reply)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(missed.is_empty(), "edits missed: {missed:#?}");
}

/// The Cline/Roo tool calls, bare or fenced, and the tool-call JSON: read by `extract`, so
/// seen by the detector.
#[test]
fn sees_agent_tool_calls() {
    for reply in [
        "<write_to_file>\n<path>src/app.py</path>\n<content>\nprint('hi')\n</content>\n<line_count>1</line_count>\n</write_to_file>\n",
        "I will write the file.\n\n<write_to_file>\n<path>notes.md</path>\n<content>\n# Notes\n</content>\n</write_to_file>\n",
        "<replace_in_file>\n<path>a.py</path>\n<diff>\n------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
        "```xml\n<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:1\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n```\n",
        "{\"file_path\": \"a.py\", \"old_string\": \"x = 1\\n\", \"new_string\": \"x = 2\\n\"}\n",
    ] {
        assert!(!extract(reply).edits.is_empty(), "extract reads:\n{reply}");
        assert!(looks_like_edit(reply), "the detector misses:\n{reply}");
    }
}

#[test]
fn agrees_with_extract_over_the_corpus() {
    let mut replies = 0;
    let mut missed = Vec::new();
    let mut extra = Vec::new();
    for dir in corpus_dirs() {
        let Ok(entries) = fs::read_dir(&dir) else {
            skip::skip(
                "looks_like_edit",
                &format!("the corpus is not at {}", dir.display()),
            );
            continue;
        };
        let mut cases: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        cases.sort();
        for case in cases {
            let Ok(reply) = fs::read_to_string(case.join("response.txt")) else {
                continue;
            };
            replies += 1;
            let found = !extract(&reply).edits.is_empty();
            match (found, looks_like_edit(&reply)) {
                (true, false) => missed.push(case.display().to_string()),
                (false, true) => extra.push((case.display().to_string(), reply)),
                _ => {}
            }
        }
    }
    let (tool_calls, unexplained): (Vec<_>, Vec<_>) = extra
        .into_iter()
        .partition(|(_, reply)| is_tool_call(reply));
    for (case, _) in &tool_calls {
        println!("agent tool call extract does not lower: {case}");
    }
    println!(
        "{replies} replies: {} missed, {} agent tool calls extract does not lower, {} other disagreements",
        missed.len(),
        tool_calls.len(),
        unexplained.len()
    );
    assert!(missed.is_empty(), "edits missed: {missed:#?}");
    let unexplained: Vec<&String> = unexplained.iter().map(|(case, _)| case).collect();
    assert!(
        unexplained.is_empty(),
        "edit-like replies without an edit: {unexplained:#?}"
    );
}
