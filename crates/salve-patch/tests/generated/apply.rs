//! Driving salve-patch's public API as the engine does for one file: extract the reply, then
//! place its hunks (or its whole file) on the current text, with the baseline when the model
//! read an older version. Any issue of the extraction refuses the reply, as `salve apply` does
//! without `--partial`. What would be written goes through the engine's check on the result
//! too: no line the reply holds as edit syntax reaches the file (DESIGN.md §3.3, `edit_syntax`).

use salve_patch::{
    apply_hunks, extract, looks_like_edit, replace_whole_with, FileChange, ReplySyntax, Whole,
};

pub enum Outcome {
    /// The new text (the current text when nothing had to change).
    Text(String),
    /// Refused, with the reason.
    Refused(String),
}

pub fn run(reply: &str, path: &str, current: &str, baseline: Option<&str>) -> Outcome {
    let ex = extract(reply);
    // The cheap detector must see every edit extraction finds, or a provider chain would drop
    // the reply as "no edit".
    assert!(
        ex.edits.is_empty() || looks_like_edit(reply),
        "extract finds an edit that looks_like_edit misses:\n{reply}"
    );
    if !ex.issues.is_empty() {
        return Outcome::Refused(format!("issues: {:?}", ex.issues));
    }
    let [edit] = &ex.edits[..] else {
        return Outcome::Refused(format!("{} edits", ex.edits.len()));
    };
    if edit.path != path {
        // Another file would be written: as wrong as a wrong text.
        return Outcome::Text(format!("<written to {}>", edit.path));
    }
    let out = match &edit.change {
        FileChange::Modify { hunks } => apply_hunks(current, hunks, baseline),
        FileChange::Replace {
            content,
            final_newline,
        } => {
            let whole = Whole {
                rest_unchanged: ex.rest_unchanged.contains(&edit.path),
                allow_shrink: false,
                snippet: edit.format == salve_patch::Format::Snippet,
            };
            replace_whole_with(path, current, content, *final_newline, baseline, whole)
        }
        other => return Outcome::Refused(format!("not an edit of an existing file: {other:?}")),
    };
    if out.status.is_success() {
        let text = out.new_text.unwrap_or_else(|| current.to_string());
        let hunks = match &edit.change {
            FileChange::Modify { hunks } => hunks.as_slice(),
            _ => &[],
        };
        let syntax = (text != current)
            .then(|| {
                ReplySyntax::of(reply).first_written(path, current, &[&text], hunks, edit.format)
            })
            .flatten();
        match syntax {
            Some(line) => Outcome::Refused(format!("EditSyntax: the line {line:?}")),
            None => Outcome::Text(text),
        }
    } else {
        let why: Vec<String> = out.hunks.iter().filter_map(|h| h.message.clone()).collect();
        Outcome::Refused(format!("{:?}: {}", out.status, why.join("; ")))
    }
}
