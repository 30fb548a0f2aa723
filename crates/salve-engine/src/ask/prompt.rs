//! The prompt of `salve ask`: the instruction; for each source file its staged diff and full
//! content; each target file's current content (or that it does not exist yet); the
//! repository's own instructions from `.salve/instructions.md`; and a statement of the edit
//! formats salve reads, so the reply comes back in a form `salve apply` can place.
//!
//! Paths are shown relative to the work tree, as the reply must name them. Every file goes in a
//! fence longer than any backtick run inside it, so file content cannot close the fence early.
//! The prompt is deterministic (no dates, no absolute paths), so a cassette keyed by its hash
//! replays on any machine.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use salve_git::Git;

use crate::paths::{canonical_root, guard};

/// Where the repository's own instructions live, relative to the work tree.
pub const INSTRUCTIONS_FILE: &str = ".salve/instructions.md";
/// Files larger than this are not put in a prompt: 1 MiB.
pub const DEFAULT_MAX_PROMPT_FILE: u64 = 1024 * 1024;

/// The formats section: what salve reads, and the sentinel.
const FORMATS: &str = "\
## How to answer

salve applies your reply to the files above: it finds the edits in your reply, places each one \
exactly or refuses it, and writes all files or none. Write every change in one of these forms:

- a unified diff (`--- a/PATH`, `+++ b/PATH`, `@@` hunks) or a git diff (`diff --git`), with \
context lines copied exactly from the files shown;
- a Codex patch (`*** Begin Patch`, `*** Update File: PATH` / `*** Add File: PATH` / \
`*** Delete File: PATH`, `*** End Patch`);
- SEARCH/REPLACE blocks: the path on its own line, then `<<<<<<< SEARCH`, the exact lines to \
find, `=======`, the new lines, `>>>>>>> REPLACE`;
- old/new JSON: `{\"path\": ..., \"old_string\": ..., \"new_string\": ...}`;
- a whole file: the path on its own line, then a fenced block with the complete new content.

Paths are relative to the work tree, as written above. Never stand in for code with \
placeholders such as `// ... existing code ...`: every line you write is written to the file. \
Prose around the edits is fine. If nothing needs to change, reply with exactly \
NO_CHANGES_NEEDED.
";

/// A prompt that cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("the instruction is empty")]
    EmptyInstruction,
    #[error("cannot use the directory {}: {source}", dir.display())]
    Dir {
        dir: PathBuf,
        source: std::io::Error,
    },
}

/// What goes into a prompt.
#[derive(Clone, Debug)]
pub struct PromptInput<'a> {
    /// The work tree: paths are relative to it.
    pub dir: &'a Path,
    pub instruction: &'a str,
    /// Source files: staged diff and full content. They must exist.
    pub files: &'a [PathBuf],
    /// Target files: current content, or noted as new.
    pub targets: &'a [PathBuf],
    pub max_file_size: u64,
}

/// A built prompt and the paths it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub sources: Vec<String>,
    pub targets: Vec<String>,
    /// Whether `.salve/instructions.md` was included.
    pub instructions: bool,
}

/// Build the prompt; see the module docs.
pub fn build(input: &PromptInput<'_>) -> Result<Prompt, PromptError> {
    let instruction = input.instruction.trim();
    if instruction.is_empty() {
        return Err(PromptError::EmptyInstruction);
    }
    let root = canonical_root(input.dir).map_err(|source| PromptError::Dir {
        dir: input.dir.to_path_buf(),
        source,
    })?;
    let in_git = salve_git::Repo::discover(&root).is_ok();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "You are changing files in a software project. Make the change the instruction asks \
         for, and nothing else.\n\n## Instruction\n\n{instruction}\n"
    );

    let mut sources = Vec::new();
    if !input.files.is_empty() {
        text.push_str("## Source files\n");
        for file in input.files {
            let rel = tree_path(&root, file)?;
            let content =
                read(&root, &rel, input.max_file_size)?.ok_or_else(|| PromptError::File {
                    path: rel.clone(),
                    message: "no such file (a file the change creates is named as a target)".into(),
                })?;
            if in_git {
                let staged = staged_diff(&root, &rel);
                if !staged.trim().is_empty() {
                    let _ = write!(text, "\n### {rel} (staged changes)\n\n");
                    fenced(&mut text, "diff", &staged);
                }
            }
            let _ = write!(text, "\n### {rel}\n\n");
            fenced(&mut text, language(&rel), &content);
            sources.push(rel);
        }
        text.push('\n');
    }

    let mut targets = Vec::new();
    if !input.targets.is_empty() {
        text.push_str("## Target files\n");
        for file in input.targets {
            let rel = tree_path(&root, file)?;
            match read(&root, &rel, input.max_file_size)? {
                Some(content) => {
                    let _ = write!(text, "\n### {rel} (current content)\n\n");
                    fenced(&mut text, language(&rel), &content);
                }
                None => {
                    let _ = writeln!(text, "\n### {rel}\n\nThis file does not exist yet.");
                }
            }
            targets.push(rel);
        }
        text.push('\n');
    }

    let rules = read(&root, INSTRUCTIONS_FILE, input.max_file_size).unwrap_or(None);
    let instructions = rules.as_deref().is_some_and(|r| !r.trim().is_empty());
    if let Some(rules) = rules.filter(|r| !r.trim().is_empty()) {
        let _ = write!(
            text,
            "## Project instructions ({INSTRUCTIONS_FILE})\n\n{}\n\n",
            rules.trim_end()
        );
    }
    text.push_str(FORMATS);
    Ok(Prompt {
        text,
        sources,
        targets,
        instructions,
    })
}

/// `file` (relative to the work tree, or absolute inside it) as a guarded tree path.
fn tree_path(root: &Path, file: &Path) -> Result<String, PromptError> {
    let raw = if file.is_absolute() {
        let real = std::fs::canonicalize(file)
            .ok()
            .or_else(|| {
                // A target that does not exist yet: canonicalize its directory.
                let parent = std::fs::canonicalize(file.parent()?).ok()?;
                Some(parent.join(file.file_name()?))
            })
            .unwrap_or_else(|| file.to_path_buf());
        match real.strip_prefix(root) {
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => {
                return Err(PromptError::File {
                    path: file.display().to_string(),
                    message: "is outside the work tree".into(),
                })
            }
        }
    } else {
        file.to_string_lossy().into_owned()
    };
    let guarded = guard(root, &raw).map_err(|e| PromptError::File {
        path: raw.clone(),
        message: e.to_string(),
    })?;
    Ok(guarded.path.to_string())
}

/// The text of `rel`, `None` when it does not exist.
fn read(root: &Path, rel: &str, max: u64) -> Result<Option<String>, PromptError> {
    let path = root.join(rel);
    let err = |message: String| PromptError::File {
        path: rel.to_owned(),
        message,
    };
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(e.to_string())),
    };
    if !meta.is_file() {
        return Err(err("is not a regular file".into()));
    }
    if meta.len() > max {
        return Err(err(format!(
            "is {} bytes, more than the {max} a prompt takes",
            meta.len()
        )));
    }
    let bytes = std::fs::read(&path).map_err(|e| err(e.to_string()))?;
    if salve_patch::is_binary(&bytes) {
        return Err(err("is binary; only text files go into a prompt".into()));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| err("is not UTF-8 text".into()))
}

/// `git diff --cached` of one file; empty when nothing is staged or git fails.
fn staged_diff(root: &Path, rel: &str) -> String {
    Git::new(root)
        .args(["diff", "--cached", "--no-color", "--no-ext-diff", "--"])
        .arg(rel)
        .run()
        .unwrap_or_default()
}

/// Append `content` in a fence longer than any backtick run in it.
pub(crate) fn fenced(out: &mut String, info: &str, content: &str) {
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    out.push_str(&fence);
    out.push_str(info);
    out.push('\n');
    out.push_str(content);
    if !content.ends_with('\n') && !content.is_empty() {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
}

/// A fence language for a path, from its extension.
fn language(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match ext {
        "rs" => "rust",
        "py" => "python",
        "js" | "mjs" | "cjs" => "javascript",
        "ts" | "tsx" => "typescript",
        "go" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" | "cxx" => "cpp",
        "rb" => "ruby",
        "sh" | "bash" => "sh",
        "toml" => "toml",
        "json" => "json",
        "yaml" | "yml" => "yaml",
        "md" => "markdown",
        "html" => "html",
        "css" => "css",
        _ => "",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backticks_inside() {
        let mut out = String::new();
        fenced(&mut out, "md", "text\n```\ncode\n```\n");
        assert!(out.starts_with("````md\n"), "{out}");
        assert!(out.ends_with("\n````\n"), "{out}");
    }

    #[test]
    fn prompt_holds_instruction_sources_targets_rules_and_formats() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join(".salve")).unwrap();
        std::fs::write(root.join("src/app.py"), "print('helo')\n").unwrap();
        std::fs::write(root.join(".salve/instructions.md"), "Use tabs.\n").unwrap();
        let files = [PathBuf::from("src/app.py")];
        let targets = [PathBuf::from("tests/test_app.py")];
        let prompt = build(&PromptInput {
            dir: root,
            instruction: "  fix the greeting ",
            files: &files,
            targets: &targets,
            max_file_size: DEFAULT_MAX_PROMPT_FILE,
        })
        .unwrap();
        let t = &prompt.text;
        assert!(t.contains("## Instruction\n\nfix the greeting\n"), "{t}");
        assert!(
            t.contains("### src/app.py\n\n```python\nprint('helo')\n```\n"),
            "{t}"
        );
        assert!(
            t.contains("### tests/test_app.py\n\nThis file does not exist yet."),
            "{t}"
        );
        assert!(t.contains("(.salve/instructions.md)\n\nUse tabs.\n"), "{t}");
        assert!(t.contains("NO_CHANGES_NEEDED"));
        assert!(t.contains("*** Begin Patch"));
        assert!(
            !t.contains(&root.display().to_string()),
            "no absolute paths"
        );
        assert_eq!(prompt.sources, ["src/app.py"]);
        assert!(prompt.instructions);

        let missing = [PathBuf::from("src/none.py")];
        let err = build(&PromptInput {
            files: &missing,
            targets: &[],
            ..PromptInput {
                dir: root,
                instruction: "x",
                files: &[],
                targets: &[],
                max_file_size: 10,
            }
        })
        .unwrap_err();
        assert!(
            err.to_string().contains("src/none.py: no such file"),
            "{err}"
        );
        let escape = [PathBuf::from("../etc/passwd")];
        let err = build(&PromptInput {
            dir: root,
            instruction: "x",
            files: &escape,
            targets: &[],
            max_file_size: 10,
        })
        .unwrap_err();
        assert!(err.to_string().contains("climbs out"), "{err}");
    }
}
