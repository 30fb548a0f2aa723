//! The extraction under way: the reply's lines ([`Source`]), the regions it is read in
//! ([`Region`]), and what has been found so far ([`Cx`]).
//!
//! Every format reader shares these, so they sit below all of them.

use crate::edit::{Anchor, BareNamed, Extraction, FileChange, FileEdit, IssueKind, ParseIssue};
use crate::text::Trim as _;
use std::collections::{HashMap, HashSet};

/// The reply split into lines, with byte offsets for the JSON reader.
pub(crate) struct Source<'a> {
    text: &'a str,
    lines: Vec<&'a str>,
    offsets: Vec<usize>,
    pub(crate) ends_with_newline: bool,
}

impl<'a> Source<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut offsets = Vec::new();
        let mut pos = 0;
        for piece in text.split('\n') {
            offsets.push(pos);
            lines.push(piece.strip_suffix('\r').unwrap_or(piece));
            pos += piece.len() + 1;
        }
        // `split` yields a last empty piece after a final newline (or for an empty text).
        if lines.last() == Some(&"") {
            lines.pop();
            offsets.pop();
        }
        Source {
            text,
            lines,
            offsets,
            ends_with_newline: text.ends_with('\n'),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Line `i`, or `""` past the end.
    pub(crate) fn line(&self, i: usize) -> &'a str {
        self.lines.get(i).copied().unwrap_or("")
    }

    /// Byte offset where line `i` starts (the text length past the end).
    pub(crate) fn offset(&self, i: usize) -> usize {
        self.offsets.get(i).copied().unwrap_or(self.text.len())
    }

    /// The line holding byte `off`.
    pub(crate) fn line_of(&self, off: usize) -> usize {
        self.offsets
            .partition_point(|&o| o <= off)
            .saturating_sub(1)
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The first non-blank line in `from..to`, if any.
    pub(crate) fn next_nonblank(&self, from: usize, to: usize) -> Option<usize> {
        (from..to.min(self.len())).find(|&k| !self.line(k).trim_ws().is_empty())
    }
}

/// How a region of lines ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegionState {
    /// The whole reply, or content that ran to its end outside any wrapper.
    Top,
    /// Closed by its fence or end marker (or by an enclosing closed wrapper).
    Closed,
    /// A fence or marker pair that the reply ended inside.
    Open,
}

/// A run of lines read as a (nested) reply.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    pub start: usize,
    pub end: usize,
    pub state: RegionState,
    /// A path attached to the enclosing fence (path line before it or info string).
    pub hint: Option<String>,
    /// The enclosing fence is ```` ```diff ```` or ```` ```patch ````.
    pub diff_lang: bool,
    pub depth: usize,
}

impl Region {
    /// The state of a nested region that runs to `self.end` without its own close.
    pub(crate) fn unclosed_child_state(&self, src: &Source) -> RegionState {
        if self.state != RegionState::Closed && self.end >= src.len() {
            RegionState::Open
        } else {
            RegionState::Closed
        }
    }

    /// True when the reply itself ends at the end of this region with no close: the place where
    /// a cut reply stops.
    pub(crate) fn ends_reply_unclosed(&self, src: &Source) -> bool {
        self.state != RegionState::Closed && self.end >= src.len()
    }
}

/// The extraction under way.
pub(crate) struct Cx<'a> {
    pub src: Source<'a>,
    pub edits: Vec<FileEdit>,
    pub issues: Vec<ParseIssue>,
    pub notes: Vec<String>,
    /// Whole-file blocks named by a bare name only (see [`crate::edit::BareNamed`]).
    pub bare_named: Vec<BareNamed>,
    /// The path of the last SEARCH/REPLACE block, inherited by a following block without one.
    pub last_sr_path: Option<String>,
    /// Bytes the JSON reader may still scan; keeps repeated failed attempts linear overall.
    pub json_budget: usize,
    /// Paths of whole-file blocks beside a sentence saying the rest is unchanged.
    pub rest_unchanged: Vec<String>,
}

impl<'a> Cx<'a> {
    pub(crate) fn new(reply: &'a str) -> Self {
        Cx {
            src: Source::new(reply),
            edits: Vec::new(),
            issues: Vec::new(),
            notes: Vec::new(),
            bare_named: Vec::new(),
            last_sr_path: None,
            json_budget: reply.len().saturating_mul(4).saturating_add(4096),
            rest_unchanged: Vec::new(),
        }
    }

    pub(crate) fn issue(
        &mut self,
        kind: IssueKind,
        path: Option<&str>,
        message: impl Into<String>,
    ) {
        self.issues.push(ParseIssue {
            kind,
            path: path.map(str::to_string),
            message: message.into(),
        });
    }

    pub(crate) fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Count of edits and issues, to tell whether reading a region found anything.
    pub(crate) fn found(&self) -> usize {
        self.edits.len() + self.issues.len()
    }

    /// The extraction: Modify edits of one path merged, repeated issues and notes dropped, and
    /// a `NoEdit` issue when nothing at all was found.
    pub(crate) fn finish(mut self) -> Extraction {
        for e in &mut self.edits {
            slash_path(&mut e.path, &mut self.notes);
            if let FileChange::Rename { to, .. } = &mut e.change {
                slash_path(to, &mut self.notes);
            }
        }
        for i in &mut self.issues {
            if let Some(p) = &mut i.path {
                slash_path(p, &mut self.notes);
            }
        }
        for p in &mut self.rest_unchanged {
            slash_path(p, &mut Vec::new());
        }
        let edits = merge_modifies(std::mem::take(&mut self.edits), &mut self.notes);
        let edits = lone_line_inserts(edits, &mut self.issues);
        let mut seen = HashSet::new();
        let mut issues: Vec<ParseIssue> = self
            .issues
            .into_iter()
            .filter(|i| seen.insert((i.kind, i.path.clone())))
            .collect();
        if edits.is_empty() && issues.is_empty() {
            issues.push(ParseIssue {
                kind: IssueKind::NoEdit,
                path: None,
                message: "no edit found in the reply".to_string(),
            });
        }
        let mut seen = HashSet::new();
        let notes: Vec<String> = self
            .notes
            .into_iter()
            .filter(|n| seen.insert(n.clone()))
            .collect();
        Extraction {
            edits,
            issues,
            notes,
            bare_named: self.bare_named,
            rest_unchanged: self.rest_unchanged,
        }
    }
}

/// Edits of files where an insert at a line number ([`Anchor::AfterLine`]) is not the file's
/// only edit are dropped, each file with a `Malformed` issue: next to another edit, whether the
/// line number counts the file before or after it is unclear, and a guess may land the lines
/// one edit off.
fn lone_line_inserts(edits: Vec<FileEdit>, issues: &mut Vec<ParseIssue>) -> Vec<FileEdit> {
    let by_line = |e: &FileEdit| match &e.change {
        FileChange::Modify { hunks } => hunks
            .iter()
            .any(|h| matches!(h.anchor, Anchor::AfterLine(_))),
        _ => false,
    };
    let mixed: HashSet<String> = edits
        .iter()
        .filter(|e| by_line(e))
        .filter(|e| {
            let hunks = match &e.change {
                FileChange::Modify { hunks } => hunks.len(),
                _ => 0,
            };
            hunks > 1 || edits.iter().filter(|o| o.path == e.path).count() > 1
        })
        .map(|e| e.path.clone())
        .collect();
    if mixed.is_empty() {
        return edits;
    }
    let mut paths: Vec<&String> = mixed.iter().collect();
    paths.sort();
    for path in paths {
        issues.push(ParseIssue {
            kind: IssueKind::Malformed,
            path: Some(path.clone()),
            message: "an `insert` at a line number together with other edits of the same file: whether the line counts the file before or after them is unclear; send the insert alone, or as an edit with the lines around it".to_string(),
        });
    }
    edits
        .into_iter()
        .filter(|e| !mixed.contains(&e.path))
        .collect()
}

/// Reads a path written with backslashes (`src\pages\index.astro`, from an agent on Windows)
/// as a `/` path. A backslash in a real file name is rare enough that no reply means one.
fn slash_path(path: &mut String, notes: &mut Vec<String>) {
    if path.contains('\\') {
        let fixed = path.replace('\\', "/");
        notes.push(format!("{path}: read as {fixed}"));
        *path = fixed;
    }
}

/// Folds later Modify edits of a path into the first one, so every hunk of a file is placed
/// against the same original text. A hunk repeated exactly (a reply that shows its diff twice)
/// is kept once.
fn merge_modifies(edits: Vec<FileEdit>, notes: &mut Vec<String>) -> Vec<FileEdit> {
    let mut out: Vec<FileEdit> = Vec::with_capacity(edits.len());
    let mut first: HashMap<String, usize> = HashMap::new();
    // For a path edited more than once: its merged hunks by hash (positions in the merged edit).
    // Built at the second edit of the path, so a path edited once never pays for it.
    let mut known: HashMap<usize, HashMap<u64, Vec<usize>>> = HashMap::new();
    let hash_of = |h: &crate::edit::Hunk| {
        use std::hash::{Hash, Hasher};
        let mut state = std::collections::hash_map::DefaultHasher::new();
        h.hash(&mut state);
        state.finish()
    };
    for e in edits {
        let FileChange::Modify { hunks } = &e.change else {
            out.push(e);
            continue;
        };
        let Some(&k) = first.get(&e.path) else {
            first.insert(e.path.clone(), out.len());
            out.push(e);
            continue;
        };
        if let FileChange::Modify { hunks: into } = &mut out[k].change {
            let by_hash = known.entry(k).or_insert_with(|| {
                let mut m: HashMap<u64, Vec<usize>> = HashMap::new();
                for (i, h) in into.iter().enumerate() {
                    m.entry(hash_of(h)).or_default().push(i);
                }
                m
            });
            let mut dropped = 0;
            for h in hunks {
                let same_hash = by_hash.entry(hash_of(h)).or_default();
                if same_hash.iter().any(|&i| into[i] == *h) {
                    dropped += 1;
                    continue;
                }
                same_hash.push(into.len());
                into.push(h.clone());
            }
            notes.push(format!(
                "{}: edits of the same file merged into one{}",
                e.path,
                if dropped > 0 {
                    format!(" ({dropped} repeated hunk(s) dropped)")
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}
