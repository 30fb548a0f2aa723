//! Bodies of the fuzz targets, shared by the libFuzzer binaries (`cargo +nightly fuzz run parse`)
//! and the stable random driver (`cargo run --release --no-default-features --bin replay`).
//!
//! Beyond "does not panic", each target checks properties that must hold for any input:
//! - `parse`: extraction is deterministic and its result survives a JSON round trip (it is what
//!   `--json` and the MCP tool show).
//! - `apply`: placement is deterministic; a file without carriage returns gets none from an edit
//!   without them; a unique block cut from the file itself is always placed, and replacing it with
//!   itself changes nothing.

use salve_patch::{apply_hunks, extract, Extraction, FileChange, Hunk, HunkLine, LineKind};

/// Fuzz the reply parser with arbitrary text.
pub fn parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ex = extract(text);
    assert_eq!(extract(text), ex, "extract is not deterministic");
    let json =
        serde_json::to_string(&ex).unwrap_or_else(|e| panic!("extraction does not serialize: {e}"));
    let back: Extraction = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("extraction does not deserialize: {e}"));
    assert_eq!(back, ex, "extraction changed in a JSON round trip");
}

/// Fuzz the parser and the placement ladder. Input: file text, a NUL byte, the reply. Without a
/// NUL, the whole input is the file and the edit is built from the file's own lines.
pub fn apply(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.split_once('\0') {
        Some((file, reply)) => apply_reply(file, reply),
        None => apply_self_block(text),
    }
}

fn apply_reply(file: &str, reply: &str) {
    let ex = extract(reply);
    for edit in &ex.edits {
        let hunks = match &edit.change {
            FileChange::Modify { hunks } | FileChange::Rename { hunks, .. } => hunks,
            _ => continue,
        };
        let first = apply_hunks(file, hunks, None).new_text;
        assert_eq!(
            apply_hunks(file, hunks, None).new_text,
            first,
            "apply_hunks is not deterministic"
        );
        let _ = apply_hunks(file, hunks, Some(file));
        if let Some(new) = &first {
            // JSON escapes can decode to a carriage return, so look at the decoded hunk lines.
            let cr_in_edit = hunks
                .iter()
                .any(|h| h.lines.iter().any(|l| l.text.contains('\r')));
            if !file.contains('\r') && !cr_in_edit {
                assert!(
                    !new.contains('\r'),
                    "a carriage return appeared from nowhere"
                );
            }
        }
    }
}

/// Cuts a block of lines from the file and replaces it with itself plus an inserted line.
fn apply_self_block(file: &str) {
    let lines: Vec<&str> = file.lines().collect();
    if lines.len() < 3 || file.contains('\r') {
        return;
    }
    let start = lines.len() / 3;
    let block = &lines[start..(start + 3).min(lines.len())];
    let blank = |s: &&str| s.trim().is_empty();
    if block.iter().all(blank) {
        return;
    }
    let occurrences = lines.windows(block.len()).filter(|w| w == &block).count();
    let ctx = |t: &&str| HunkLine::new(LineKind::Context, *t);
    let same = Hunk {
        lines: block.iter().map(ctx).collect(),
        ..Hunk::default()
    };
    let mut grow = same.clone();
    grow.lines
        .insert(1, HunkLine::new(LineKind::Add, "\u{1}fuzz\u{1}"));
    let grown = apply_hunks(file, std::slice::from_ref(&grow), None).new_text;
    if occurrences == 1 {
        let new = grown.unwrap_or_else(|| panic!("a unique exact block was not placed"));
        assert_eq!(
            new.lines().count(),
            file.lines().count() + 1,
            "inserting one line changed the line count by another amount"
        );
        assert!(
            new.contains("\u{1}fuzz\u{1}"),
            "the inserted line is missing"
        );
    }
    if let Some(new) = apply_hunks(file, std::slice::from_ref(&same), None).new_text {
        assert_eq!(new, file, "a hunk of context only changed the file");
    }
}
