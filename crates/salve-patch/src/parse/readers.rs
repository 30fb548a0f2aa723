//! The table of reply formats: one [`Reader`] per format whose edits start at a line of their
//! own, in the order they are tried. It drives every place that needs to know where an edit
//! starts, so a format cannot be known to one of them and missed by another:
//! - extraction (`wrapper::scan_region`): at each line, the first reader that opens there and
//!   reads an edit takes it ([`read_at`]);
//! - a fence's content (`wrapper::fence`): content that leads with any reader's edit is that
//!   edit, never a whole file ([`leads_any`]); a format whose text may hold fences of its own
//!   reads the fence up to its close first ([`fenced_at`]);
//! - the cheap detector ([`super::looks_like_edit`]): a line where any reader proves an edit
//!   ([`proves_any`]).
//!
//! Whole-file blocks have no entry: they are what a fence with a path holds when no reader
//! leads its content (`wrapper::fence`).
//!
//! Adding a format: write its parser file (`parse/NAME.rs`, with its grammar in the module
//! docs), add its [`Format`] variant in `edit.rs`, and add one entry to [`READERS`].

use super::cx::{Cx, Region, Source};
use super::fence::Fence;
use super::paths::{self, PathLine};
use super::{codex, diff, json, markers, search_replace, tool_xml};
use crate::edit::{Format, IssueKind};

/// What a region's scan carries from line to line, for the readers that need it.
#[derive(Default)]
pub(super) struct LineState {
    /// A path line seen just before this line.
    pub pending: Option<PathLine>,
    /// A hunk without a file header was already reported in this region.
    pub orphan_seen: bool,
}

/// What the detector carries from line to line.
pub(super) struct Scan {
    /// A SEARCH marker seen, and a divider since it: a REPLACE marker then completes a block.
    search: bool,
    divider: bool,
    /// The JSON scan's budget, as in extraction, keeps repeated attempts linear overall.
    json_budget: usize,
}

impl Scan {
    pub(super) fn new(reply: &str) -> Scan {
        Scan {
            search: false,
            divider: false,
            json_budget: reply.len().saturating_mul(4).saturating_add(4096),
        }
    }
}

/// A fence read by its format's reader up to the close: the content starts at `start`, its
/// first non-blank line is `first`; returns the line after the close.
pub(super) type FencedRead = fn(
    cx: &mut Cx,
    r: &Region,
    start: usize,
    first: usize,
    f: &Fence,
    hint: Option<String>,
) -> usize;

/// How a format reads a fence whose text may hold fences of its own.
pub(super) struct Fenced {
    /// Whether the content, whose first non-blank line is `first`, opens with this format.
    pub opens: fn(src: &Source, first: usize, end: usize) -> bool,
    pub read: FencedRead,
}

/// One reply format whose edits start at a line of their own.
pub(super) struct Reader {
    /// The formats its edits are reported as (read by the table's tests: every format but whole
    /// files has a reader).
    #[cfg_attr(not(test), allow(dead_code))]
    pub formats: &'static [Format],
    /// Whether to try reading an edit at line `i` (a cheap test; `diff_fence` says the region
    /// is a ```` ```diff ```` fence).
    pub opens: fn(src: &Source, i: usize, end: usize, diff_fence: bool) -> bool,
    /// Whether content starting at line `i` is this format's edit (or a broken one), so never a
    /// whole file.
    pub leads: fn(src: &Source, i: usize, end: usize) -> bool,
    /// Read the edit opening at line `i` of `r`: the line after it, or `None` when there is none
    /// after all (the line then goes to the next reader, or is prose).
    pub read: fn(cx: &mut Cx, r: &Region, i: usize, state: &mut LineState) -> Option<usize>,
    /// Whether line `i` shows that the reply holds an edit of this format, given what `scan`
    /// saw on earlier lines. It must say so wherever `read` would find an edit.
    pub proves: fn(src: &Source, i: usize, n: usize, scan: &mut Scan) -> bool,
    pub fenced: Option<Fenced>,
}

/// The readers, in the order they are tried at a line.
pub(super) const READERS: &[Reader] = &[
    Reader {
        formats: &[Format::ToolXml, Format::Snippet],
        opens: |src, i, _, _| tool_xml::tool_at(src.line(i)).is_some(),
        leads: |src, i, _| tool_xml::tool_at(src.line(i)).is_some(),
        read: |cx, r, i, _| Some(tool_xml::parse(cx, r, i)),
        proves: |src, i, _, _| tool_xml::tool_at(src.line(i)).is_some(),
        fenced: Some(Fenced {
            opens: |src, first, _| tool_xml::tool_at(src.line(first)).is_some(),
            read: |cx, r, _, first, f, _| tool_xml::parse_fenced(cx, r, first, f),
        }),
    },
    Reader {
        formats: &[Format::Git],
        opens: |src, i, _, _| src.line(i).starts_with("diff --git "),
        leads: |src, i, _| src.line(i).starts_with("diff --git "),
        read: |cx, r, i, _| Some(diff::parse_git(cx, r, i)),
        proves: |src, i, _, _| src.line(i).starts_with("diff --git "),
        fenced: None,
    },
    Reader {
        formats: &[Format::Unified],
        opens: |src, i, end, _| diff::is_file_header(src, i, end),
        leads: diff::is_file_header,
        read: |cx, r, i, _| Some(diff::parse_unified(cx, r, i)),
        proves: |src, i, n, _| diff::is_file_header(src, i, n),
        fenced: None,
    },
    Reader {
        formats: &[Format::Codex],
        opens: |src, i, _, _| markers::codex::is_start(src.line(i)),
        leads: |src, i, _| markers::codex::is_start(src.line(i)),
        read: |cx, r, i, _| Some(codex::parse(cx, r, i)),
        proves: |src, i, _, _| markers::codex::is_start(src.line(i)),
        fenced: None,
    },
    Reader {
        formats: &[Format::SearchReplace],
        opens: |src, i, _, _| markers::is_search(src.line(i)),
        leads: |src, i, _| markers::is_search(src.line(i)),
        read: read_search_replace,
        proves: proves_search_replace,
        fenced: Some(Fenced {
            // A path line may come first: blocks of several files share one fence.
            opens: |src, first, end| {
                markers::is_search(src.line(first))
                    || (paths::path_candidate(src.line(first)).is_some()
                        && src
                            .next_nonblank(first + 1, end)
                            .is_some_and(|s| markers::is_search(src.line(s))))
            },
            read: |cx, r, start, _, f, hint| search_replace::parse_fenced(cx, r, start, f, hint),
        }),
    },
    Reader {
        formats: &[Format::OldNewJson, Format::ToolJson],
        opens: |src, i, _, _| opens_json(src.line(i)),
        // The key search reads to the end of the content: cheap once per fence, not per line.
        leads: |src, i, end| {
            opens_json(src.line(i))
                && json::mentions_edit_keys(
                    src.text().get(src.offset(i)..src.offset(end)).unwrap_or(""),
                )
        },
        read: |cx, r, i, _| json::try_parse(cx, r, i),
        proves: |src, i, _, scan| {
            let line = src.line(i);
            let t = line.trim_start();
            opens_json(t)
                && json::may_hold_edit(
                    src.text()
                        .get(src.offset(i) + line.len() - t.len()..)
                        .unwrap_or(""),
                    &mut scan.json_budget,
                )
        },
        fenced: None,
    },
    Reader {
        // Hunks with no file header, for the path attached to the region.
        formats: &[Format::Unified],
        opens: |src, i, end, diff_fence| {
            diff::is_orphan_hunk_start(src, i, end)
                || (diff_fence && diff::is_headerless_body_start(src.line(i)))
        },
        leads: diff::is_orphan_hunk_start,
        read: read_orphan,
        // An edit only with a path attached, which the detector checks at the fence
        // (`sniff::fence_holds_edit`).
        proves: |_, _, _, _| false,
        fenced: None,
    },
];

fn opens_json(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('{') || t.starts_with('[')
}

/// A SEARCH/REPLACE block takes its path from a path line just before it, else the region's
/// attached path, else the previous block's.
fn read_search_replace(cx: &mut Cx, r: &Region, i: usize, state: &mut LineState) -> Option<usize> {
    let path = state
        .pending
        .take()
        .map(|p| p.path)
        .or_else(|| r.hint.clone())
        .or_else(|| cx.last_sr_path.clone());
    Some(search_replace::parse_block(cx, r, i, path))
}

/// Only a complete block proves an edit: SEARCH, then a divider, then REPLACE.
fn proves_search_replace(src: &Source, i: usize, _: usize, scan: &mut Scan) -> bool {
    let line = src.line(i);
    if markers::is_search(line) {
        (scan.search, scan.divider) = (true, false);
    } else if scan.search && markers::is_divider(line) {
        scan.divider = true;
    } else if scan.divider && markers::is_replace(line) {
        return true;
    }
    false
}

/// Hunks with no file header (or a headerless body in a ```` ```diff ```` fence) belong to the
/// path attached to the region; without one they are reported once per region and skipped.
fn read_orphan(cx: &mut Cx, r: &Region, i: usize, state: &mut LineState) -> Option<usize> {
    if let Some(path) = r.hint.clone() {
        return Some(diff::parse_orphan(cx, r, i, &path));
    }
    if !diff::is_orphan_hunk_start(&cx.src, i, r.end) {
        return None;
    }
    if !state.orphan_seen {
        state.orphan_seen = true;
        cx.issue(
            IssueKind::Malformed,
            None,
            format!("line {}: diff hunk without a file header", i + 1),
        );
    }
    Some(diff::skip_orphan(cx, r, i))
}

/// Reads the edit opening at line `i` of `r`, if one does; returns the line after it.
pub(super) fn read_at(cx: &mut Cx, r: &Region, i: usize, state: &mut LineState) -> Option<usize> {
    for reader in READERS {
        if (reader.opens)(&cx.src, i, r.end, r.diff_lang) {
            if let Some(next) = (reader.read)(cx, r, i, state) {
                return Some(next);
            }
        }
    }
    None
}

/// Whether content starting at line `i` is an edit of any format, never a whole file.
pub(super) fn leads_any(src: &Source, i: usize, end: usize) -> bool {
    READERS.iter().any(|r| (r.leads)(src, i, end))
}

/// Whether line `i` proves an edit for any reader. Every reader sees every line, so what a
/// reader keeps across lines stays right.
pub(super) fn proves_any(src: &Source, i: usize, n: usize, scan: &mut Scan) -> bool {
    let mut found = false;
    for reader in READERS {
        found |= (reader.proves)(src, i, n, scan);
    }
    found
}

/// The fence reader of the format whose text opens the fence content at line `first`.
pub(super) fn fenced_at(src: &Source, first: usize, end: usize) -> Option<FencedRead> {
    READERS
        .iter()
        .filter_map(|r| r.fenced.as_ref())
        .find(|f| (f.opens)(src, first, end))
        .map(|f| f.read)
}

/// Every format a reader reports (the whole-file format has no reader).
#[cfg(test)]
pub(super) fn formats() -> Vec<Format> {
    READERS
        .iter()
        .flat_map(|r| r.formats.iter().copied())
        .collect()
}
