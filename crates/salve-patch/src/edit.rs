//! The edit model: what the parsers produce and the applier consumes.
//!
//! Every format salve reads (git and unified diffs, Codex envelopes, SEARCH/REPLACE blocks, old/new
//! JSON, whole-file blocks) is lowered to the same shape: a list of [`FileEdit`]s, each with a
//! [`FileChange`]. Text edits are [`Hunk`]s of context, removed and added lines. Line text never
//! carries its line ending; the applier takes line endings from the file, because the file is the
//! truth for every byte the edit does not change.

use serde::{Deserialize, Serialize};

/// The edit format a piece of a reply was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `diff --git` headers, with optional mode, rename and delete metadata.
    Git,
    /// Plain `---`/`+++`/`@@` unified diff.
    Unified,
    /// Codex `*** Begin Patch` envelope.
    Codex,
    /// aider or Cline/Roo style `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks.
    SearchReplace,
    /// `{"path", "old_string", "new_string"}` objects or arrays of them.
    OldNewJson,
    /// A path line followed by a fenced block holding the whole new file.
    WholeFile,
    /// Cline/Roo tool calls written as XML (`<apply_diff>`, `<replace_in_file>`,
    /// `<write_to_file>`).
    ToolXml,
    /// Agent tool calls as JSON: Claude Code `Edit`/`MultiEdit`/`Write`, Gemini CLI
    /// `replace`/`write_file`, OpenCode `edit`; also whole-file `{file_path, content}` objects.
    ToolJson,
    /// A lazy edit snippet: the changed regions of one file with unchanged lines around each,
    /// separated by marker comments (`// ... existing code ...`), as Cursor's `edit_file`
    /// (`{"target_file", "instructions", "code_edit"}`), Morph and Relace write them.
    Snippet,
}

impl Format {
    /// The name used in reports and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Git => "git",
            Format::Unified => "unified",
            Format::Codex => "codex",
            Format::SearchReplace => "search-replace",
            Format::OldNewJson => "old-new-json",
            Format::WholeFile => "whole-file",
            Format::ToolXml => "tool-xml",
            Format::ToolJson => "tool-json",
            Format::Snippet => "snippet",
        }
    }
}

/// The role of one line inside a hunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// Present before and after; must match the file.
    Context,
    /// Present before only; must match the file and is removed.
    Remove,
    /// Present after only; inserted.
    Add,
}

/// One line of a hunk, without its line ending.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HunkLine {
    /// Context, removed or added.
    pub kind: LineKind,
    /// The line's text, without the diff prefix and without the line ending.
    pub text: String,
}

impl HunkLine {
    /// A line of `kind` with `text` (no line ending).
    pub fn new(kind: LineKind, text: impl Into<String>) -> Self {
        HunkLine {
            kind,
            text: text.into(),
        }
    }
}

/// Where a hunk is pinned, beyond its content.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// No explicit pin; placed by content, scope or hint.
    #[default]
    None,
    /// The hunk starts at the first line of the file (e.g. `@@ -0,0 +1 @@` on an empty pre-image,
    /// or a header of `-1,N` together with a pre-image that is all context at the top).
    Start,
    /// The hunk ends at the end of the file (Codex `*** End of File`, or a `\ No newline` marker).
    End,
    /// A pure insertion after this 1-based line (0: before the first line), as a text editor's
    /// `insert` command gives it (Anthropic's `insert_line`). The line number is the place.
    AfterLine(usize),
}

/// A contiguous change: a pre-image (context + removed lines) replaced by a post-image
/// (context + added lines).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hunk {
    /// The lines in reply order: context and removed lines make the pre-image, context and
    /// added lines the post-image.
    pub lines: Vec<HunkLine>,
    /// 1-based line in the old file where the pre-image starts, when the reply gave one. A hint only.
    pub old_start: Option<usize>,
    /// Scope lines that locate the hunk: Codex `@@ fn foo` lines (several may be stacked) or the
    /// section heading after a unified `@@ -a,b +c,d @@`. The hunk lies after the last of them.
    pub scopes: Vec<String>,
    /// An explicit pin to the start or end of the file, beyond the content.
    pub anchor: Anchor,
    /// `\ No newline at end of file` followed the old side.
    pub old_no_newline: bool,
    /// `\ No newline at end of file` followed the new side.
    pub new_no_newline: bool,
    /// Indices into `lines` of context or removed lines that may really be added lines whose
    /// `+` the model forgot (a line with a leading space or a `-` amid added lines). The applier
    /// tries the hunk as written first and, only when that places nowhere, reads some of them
    /// as added lines whose text is their prefix (`" "` or `"-"`) and text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maybe_added: Vec<usize>,
    /// How many of the last lines are blank context lines read from blank reply lines only
    /// because the header counts asked for more lines. A header that over-counts makes the
    /// blank line between a diff and the prose after it look like such a line, so the applier
    /// also tries the hunk without them when it places no better with them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub padded_tail: usize,
    /// The old and new text, for a hunk lowered from a text replacement (old/new JSON,
    /// SEARCH/REPLACE). Such an edit means "replace this text", which may start or end in the
    /// middle of a line: when the pre-image does not match whole lines exactly, the applier
    /// looks for the old text as a substring of the file. `None` for line-based formats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substring: Option<TextPair>,
    /// How many occurrences of the old text the edit replaces, when the reply said
    /// (`replace_all`, `expected_replacements`): the old text must occur exactly that often
    /// (`All`: at least once), byte for byte, else the hunk is refused. `None`: one occurrence,
    /// found by the ladder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<Occurrences>,
    /// The reply stops, with no newline, in this hunk's last line, a context or removed line: a
    /// reply cut there leaves a line that is only the start of the file's line. The applier
    /// writes the hunk only where that line is the whole of the file's line it is placed on,
    /// and refuses it as `truncated` otherwise (a complete reply stripped of its last newline
    /// passes; a cut one does not).
    #[serde(default, skip_serializing_if = "is_false")]
    pub cut_line: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The occurrence count a text replacement asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Occurrences {
    /// Every occurrence (Claude Code's and OpenCode's `replace_all`); at least one.
    All,
    /// Exactly this many (Gemini CLI's `expected_replacements`).
    Exactly(usize),
}

/// The two sides of a text replacement, with `\n` line endings. A final `\n` on `old` means the
/// replaced text runs to the end of a line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TextPair {
    /// The text to replace.
    pub old: String,
    /// The text to put in its place.
    pub new: String,
}

impl TextPair {
    /// The same replacement backwards.
    pub fn reversed(&self) -> TextPair {
        TextPair {
            old: self.new.clone(),
            new: self.old.clone(),
        }
    }
}

impl Hunk {
    /// The lines the file must contain before the edit, in order.
    pub fn pre_image(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .filter(|l| l.kind != LineKind::Add)
            .map(|l| l.text.as_str())
    }

    /// The lines the file contains after the edit, in order.
    pub fn post_image(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .filter(|l| l.kind != LineKind::Remove)
            .map(|l| l.text.as_str())
    }

    /// True when the hunk only inserts lines (no context, no removal).
    pub fn is_pure_insertion(&self) -> bool {
        self.lines.iter().all(|l| l.kind == LineKind::Add)
    }

    /// True when the hunk changes nothing.
    pub fn is_noop(&self) -> bool {
        self.lines.iter().all(|l| l.kind == LineKind::Context)
    }

    /// The same hunk applied backwards: added lines become removed lines and the reverse.
    pub fn reversed(&self) -> Hunk {
        let lines = self
            .lines
            .iter()
            .map(|l| HunkLine {
                kind: match l.kind {
                    LineKind::Add => LineKind::Remove,
                    LineKind::Remove => LineKind::Add,
                    LineKind::Context => LineKind::Context,
                },
                text: l.text.clone(),
            })
            .collect();
        Hunk {
            lines,
            old_start: self.old_start,
            scopes: self.scopes.clone(),
            anchor: self.anchor,
            old_no_newline: self.new_no_newline,
            new_no_newline: self.old_no_newline,
            maybe_added: self.maybe_added.clone(),
            padded_tail: self.padded_tail,
            substring: self.substring.as_ref().map(TextPair::reversed),
            occurrences: self.occurrences,
            // Reversed, the last line is no longer read from the end of a reply.
            cut_line: false,
        }
    }
}

/// What happens to one file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileChange {
    /// Change an existing file hunk by hunk.
    Modify {
        /// The hunks, in reply order; all are placed against the original text.
        hunks: Vec<Hunk>,
    },
    /// Create a new file with this content (line endings `\n`, `final_newline` says whether the
    /// last line ends with one).
    Create {
        /// The new file's lines, separated by `\n`.
        content: String,
        /// Whether the last line ends with a newline.
        final_newline: bool,
    },
    /// Delete the file. `expected`, when present, is the content the reply says it had.
    Delete {
        /// The content the reply says the file had, when it showed it.
        expected: Option<String>,
    },
    /// Move the file, then apply the hunks (possibly none) to it.
    Rename {
        /// The destination path, as the reply wrote it.
        to: String,
        /// Hunks applied to the file after the move, placed against its original text.
        hunks: Vec<Hunk>,
    },
    /// Replace the whole file with this content; creates the file when it does not exist.
    Replace {
        /// The whole new content, lines separated by `\n`; gap lines (`...`) are filled in
        /// from the file by the applier.
        content: String,
        /// Whether the last line ends with a newline (used for an empty or new file only: the
        /// applier keeps an existing file's final-newline state).
        final_newline: bool,
    },
}

/// One file's worth of edits, as extracted from a reply.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileEdit {
    /// The path as the reply wrote it, with `a/`/`b/` prefixes already removed. For a rename, the
    /// source path.
    pub path: String,
    /// What happens to the file.
    pub change: FileChange,
    /// The format the edit was written in.
    pub format: Format,
    /// A git file mode the reply asked for (`new file mode 100755`, `new mode 100644`).
    pub mode: Option<u32>,
}

impl FileEdit {
    /// The same edit applied backwards, for `salve apply --reverse`.
    pub fn reversed(&self) -> FileEdit {
        let change = match &self.change {
            FileChange::Modify { hunks } => FileChange::Modify {
                hunks: hunks.iter().map(Hunk::reversed).collect(),
            },
            FileChange::Create {
                content,
                final_newline: _,
            } => FileChange::Delete {
                expected: Some(content.clone()),
            },
            FileChange::Delete { expected } => FileChange::Create {
                content: expected.clone().unwrap_or_default(),
                final_newline: expected.as_deref().is_some_and(|e| e.ends_with('\n')),
            },
            FileChange::Rename { to, hunks } => {
                return FileEdit {
                    path: to.clone(),
                    change: FileChange::Rename {
                        to: self.path.clone(),
                        hunks: hunks.iter().map(Hunk::reversed).collect(),
                    },
                    format: self.format,
                    mode: self.mode,
                }
            }
            FileChange::Replace { .. } => self.change.clone(),
        };
        FileEdit {
            path: self.path.clone(),
            change,
            format: self.format,
            mode: self.mode,
        }
    }
}

/// Why (part of) a reply cannot be used as it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    /// The reply stops in the middle of an edit (unclosed block or fence, cut hunk, missing
    /// `*** End Patch`).
    Truncated,
    /// The edit stands in for code with a placeholder such as `// ... existing code ...`.
    Lazy,
    /// The edit is recognisable but broken (bad header, unbalanced markers, invalid JSON).
    Malformed,
    /// No edit at all was found in the reply.
    NoEdit,
    /// A line reads both as edit syntax and as content (a `=======` or marker line inside a
    /// REPLACE section, a marker without a prefix among a hunk's lines): which the reply meant
    /// is not known, so nothing is written.
    EditSyntax,
}

/// A problem found while reading a reply. Issues that name a path refuse that file's edit; issues
/// without a path refuse the whole reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseIssue {
    /// What is wrong.
    pub kind: IssueKind,
    /// The file whose edit it refuses; `None` refuses the whole reply.
    pub path: Option<String>,
    /// A one-line explanation a model or a person can act on.
    pub message: String,
}

/// Everything extracted from one reply.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extraction {
    /// Every edit found, in reply order (later Modify edits of a path merged into the first).
    pub edits: Vec<FileEdit>,
    /// Everything that could not be used; empty when every edit is usable.
    pub issues: Vec<ParseIssue>,
    /// Repairs the sanitizer made (recounted hunk, blank context restored, `+` recovered, ...),
    /// reported so the user can see them.
    pub notes: Vec<String>,
    /// Whole-file blocks named only by a bare name (`AUTHORS`). Each one's issue is among
    /// `issues`; a caller that can see the work tree may take the block instead, when the name
    /// is a file there and the block is clearly that file's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bare_named: Vec<BareNamed>,
    /// Paths of whole-file blocks beside a sentence saying the rest of the file is unchanged
    /// ("The rest of the file is unchanged."): content that stops early is then the head of
    /// the file, to fill in from it, and a new file under such a path has no rest to fill from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rest_unchanged: Vec<String>,
}

/// A whole-file block after a line holding only a bare name, and the issue that refuses it
/// unless the work tree shows the name is sure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BareNamed {
    /// The whole-file replacement the block would be.
    pub edit: FileEdit,
    /// The issue (in [`Extraction::issues`]) it stands in for.
    pub issue: ParseIssue,
    /// The name is a path line with characters a path line rarely holds (`[id]`, `(group)`,
    /// spaces): the block is that file when the path names a file of the tree, or a new file
    /// whose directory exists or is created by the same reply.
    #[serde(default)]
    pub loose: bool,
}

impl Extraction {
    /// The distinct formats present, in order of first appearance.
    pub fn formats(&self) -> Vec<Format> {
        let mut seen = Vec::new();
        for e in &self.edits {
            if !seen.contains(&e.format) {
                seen.push(e.format);
            }
        }
        seen
    }
}
