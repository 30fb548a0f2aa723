//! [`looks_like_edit`] against a full [`extract`] over every reply of the shared corpus
//! (`../../../shared/corpus`, `cases/` and `v2/cases/`), when present.
//!
//! The cheap scan must never say "no edit" where extraction finds one: that would make a
//! provider chain drop a usable reply. The other way round it agrees too, except on replies
//! written as agent tool calls (Cline/Roo `<apply_diff>` XML with a `<diff>` line between the
//! path and the block, Claude Code `{"name": "Edit", "input": {...}}` JSON): DESIGN.md §3.1 lists
//! them, `extract` does not read them yet, and the scan rightly sees their SEARCH/REPLACE
//! blocks and old/new keys. Those are printed and counted; any other disagreement fails.

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
        println!("agent tool call, not read by extract yet: {case}");
    }
    println!(
        "{replies} replies: {} missed, {} agent tool calls extract does not read yet, {} other disagreements",
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
