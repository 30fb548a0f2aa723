//! The drop-in tools' arguments written as reply text in formats salve reads, so they go
//! through the same extraction, path guard and placement as any `apply_edit`.

/// Characters salve's path lines never carry (see `salve_patch::parse`): a path holding one
/// cannot be named on a path line.
const NOT_ON_A_PATH_LINE: &[char] = &[
    '`', '<', '>', '|', '*', '?', '"', '[', ']', '{', '}', '(', ')', '=', ',', ';', '$', '!', '&',
    '\n', '\r',
];

/// `str_replace {path, old_str, new_str}` as an old/new JSON edit.
pub fn str_replace(path: &str, old_str: &str, new_str: &str) -> String {
    serde_json::json!({
        "path": path,
        "old_string": old_str,
        "new_string": new_str,
    })
    .to_string()
}

/// Why a `write_file` cannot be expressed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteFileError {
    /// The path holds a character a path line cannot carry.
    #[error("the path {0:?} has a character salve's whole-file form cannot name")]
    Path(String),
    /// No content: salve refuses an empty whole file as a truncated reply.
    #[error("the content is empty")]
    Empty,
}

/// `write_file {path, content}` as a whole-file block: a backticked path line, then a fence
/// longer than any backtick run in the content, so no line of it can close the block.
pub fn write_file(path: &str, content: &str) -> Result<String, WriteFileError> {
    if path.trim().is_empty() || path.contains(NOT_ON_A_PATH_LINE) {
        return Err(WriteFileError::Path(path.to_owned()));
    }
    if content.trim().is_empty() {
        return Err(WriteFileError::Empty);
    }
    // A bare name (`compile`) is only a weak path line: `./` makes it a strong one.
    let named = if path.contains('/') {
        path.to_owned()
    } else {
        format!("./{path}")
    };
    let fence = "`".repeat(longest_backtick_run(content).max(2) + 1);
    let mut reply = String::with_capacity(content.len() + named.len() + 2 * fence.len() + 8);
    reply.push('`');
    reply.push_str(&named);
    reply.push_str("`\n");
    reply.push_str(&fence);
    reply.push('\n');
    reply.push_str(content);
    if !content.ends_with('\n') {
        reply.push('\n');
    }
    reply.push_str(&fence);
    reply.push('\n');
    Ok(reply)
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn str_replace_is_one_old_new_json_object_salve_reads() {
        let reply = str_replace("src/a.rs", "let x = 1;", "let x = \"2\";");
        let extraction = salve_patch::extract(&reply);
        assert!(extraction.issues.is_empty(), "{:?}", extraction.issues);
        assert_eq!(extraction.edits.len(), 1);
        assert_eq!(extraction.edits[0].path, "src/a.rs");
    }

    #[test]
    fn write_file_fences_outlast_the_content() {
        let content = "# Notes\n\n````rust\nfn main() {}\n````\n";
        let reply = write_file("docs/notes.md", content).unwrap();
        assert!(reply.starts_with("`docs/notes.md`\n`````\n"), "{reply}");
        let extraction = salve_patch::extract(&reply);
        assert!(extraction.issues.is_empty(), "{:?}", extraction.issues);
        assert_eq!(extraction.edits.len(), 1);
        match &extraction.edits[0].change {
            salve_patch::FileChange::Replace { content: c, .. } => assert_eq!(c, content),
            other => panic!("not a whole file: {other:?}"),
        }
    }

    #[test]
    fn write_file_names_bare_files_and_refuses_what_it_cannot_name() {
        let reply = write_file("compile", "#!/bin/sh\nmake\n").unwrap();
        let extraction = salve_patch::extract(&reply);
        assert_eq!(extraction.edits.len(), 1, "{reply}");
        assert!(extraction.edits[0].path.ends_with("compile"));
        assert!(matches!(
            write_file("app/[id].tsx", "x\n"),
            Err(WriteFileError::Path(_))
        ));
        assert_eq!(write_file("a.txt", "\n"), Err(WriteFileError::Empty));
    }
}
