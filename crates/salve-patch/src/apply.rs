//! Applying a file's edit: from placed hunks to the new text, writing faithfully.
//!
//! [`apply_hunks`] places every hunk against the original text ([`crate::locate::choose::place`]),
//! turns each placement into line operations ([`Op`]), refuses overlapping operations, and only
//! then assembles the new text in one pass. The file is the truth for everything the edit does
//! not change: untouched lines are copied byte for byte (with their own endings), inserted lines
//! take the file's dominant ending, and the byte-order mark and final-newline state are kept
//! unless a hunk at the end of the file explicitly changes the final newline.
//!
//! [`replace_whole`] and [`replace_whole_3way`] handle whole-file replacements the same way, and
//! [`create_text`] renders a new file.

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::edit::Hunk;
use crate::locate::choose::place::{eof_override, place_all};
use crate::locate::choose::plan::Edit;
use crate::locate::guards::cut_line;
use crate::locate::rungs::index::FileIndex;
use crate::locate::write::style::{reply_style, ReplyStyle};
use crate::locate::{
    applied, applied::applied_evidence, hunk_keys, ops_for, whole, whole::cut, write::levels,
};
use crate::merge::merge3;
use crate::ops::{diff_ops, splice, Op};
use crate::report::{HunkReport, Rung, Status};
use crate::snippet::Reading;
use crate::splice::Splice;
use crate::text::{strip_cr, Doc, BOM};

/// What happens to one file. The new content is a `String`, or a [`Splice`] of the current
/// text from [`apply_hunks_lazy`].
#[derive(Clone, Debug, PartialEq)]
pub struct FileOutcome<T = String> {
    /// The new content, only when the file must change.
    pub new_text: Option<T>,
    /// `Applied`, `AlreadyApplied`, or the status of the first failing hunk.
    pub status: Status,
    /// One report per hunk, in order.
    pub hunks: Vec<HunkReport>,
    /// Lines added (0 when nothing is written).
    pub added: usize,
    /// Lines removed (0 when nothing is written).
    pub removed: usize,
}

impl<T> FileOutcome<T> {
    /// The same outcome with the new text turned into another form.
    pub fn map_text<U>(self, f: impl FnOnce(T) -> U) -> FileOutcome<U> {
        FileOutcome {
            new_text: self.new_text.map(f),
            status: self.status,
            hunks: self.hunks,
            added: self.added,
            removed: self.removed,
        }
    }
}

impl FileOutcome<Splice> {
    /// The outcome with the new text built whole from `current` (the text the splice was made
    /// against).
    pub fn materialize(self, current: &str) -> FileOutcome {
        self.map_text(|s| s.materialize(current))
    }
}

/// Apply `hunks` to `current`. `baseline` is the file as the model saw it, when it differs from
/// `current`; it enables the 3-way rung.
pub fn apply_hunks(current: &str, hunks: &[Hunk], baseline: Option<&str>) -> FileOutcome {
    apply_hunks_lazy(current, hunks, || baseline.map(str::to_owned)).materialize(current)
}

/// [`apply_hunks`] with the baseline fetched by `baseline` only if a hunk needs the 3-way rung
/// (at most once): most edits place without it, and reading it (from git) can cost more than
/// placing every hunk. The new text comes as a [`Splice`] of `current`, so a large file is never
/// copied whole to be written.
pub fn apply_hunks_lazy(
    current: &str,
    hunks: &[Hunk],
    baseline: impl Fn() -> Option<String>,
) -> FileOutcome<Splice> {
    // Indentation pasted as no-break spaces is indentation (issue 23 §4).
    let unbroken = match crate::locate::variants::pasted::unbreak(current, hunks) {
        Ok(h) => h,
        Err(why) => return unreadable_indentation(hunks.len(), why),
    };
    let hunks = &*unbroken;
    // The split and the raw form's fingerprint pass in one read of the file.
    let keys = hunk_keys(hunks);
    let (doc, found) = FileIndex::parse_primed(current, &keys);
    let idx = FileIndex::with_keys(&doc, keys)
        .with_found(found)
        .with_scopes(
            hunks
                .iter()
                .flat_map(|h| h.scopes.iter().map(String::as_str)),
        );
    let base_text: OnceCell<Option<String>> = OnceCell::new();
    let base_doc: OnceCell<Option<Doc>> = OnceCell::new();
    let base = || {
        base_doc
            .get_or_init(|| {
                base_text
                    .get_or_init(&baseline)
                    .as_deref()
                    .filter(|b| *b != current)
                    .map(Doc::parse)
            })
            .as_ref()
    };
    let mut plans = place_all(&idx, hunks, &base);
    // What all of this file's placed hunks show of how the reply writes its indentation.
    let placed = || {
        plans
            .iter()
            .enumerate()
            .filter_map(|(i, plan)| match &plan.edit {
                Edit::Place(p) => Some((p.lines.as_deref().unwrap_or(&hunks[i].lines), p)),
                _ => None,
            })
    };
    let shown = reply_style(&doc, placed());
    // Indentation pasted as no-break spaces was already read once, by columns; the whole file's
    // readings of a style the quoted lines do not show would be a second guess on top.
    // (Faithful differs from Unknown in those readings only.)
    let shown = match (&unbroken, shown) {
        (Cow::Owned(_), ReplyStyle::OwnOnly(_) | ReplyStyle::Faithful) => ReplyStyle::Unknown,
        (_, s) => s,
    };
    let levels = levels::shown(&doc, placed());
    let mut ops: Vec<Op> = Vec::new();
    let mut eof: Option<bool> = None;
    for (i, plan) in plans.iter_mut().enumerate() {
        match &plan.edit {
            Edit::Place(p) => {
                let lines = p.lines.as_deref().unwrap_or(&hunks[i].lines);
                match ops_for(&doc, lines, p, i, shown, levels) {
                    Ok(o) => {
                        if let Some(f) = eof_override(&doc, &hunks[i], p) {
                            eof = Some(f);
                        }
                        ops.extend(o);
                    }
                    Err(msg) => {
                        plan.report.status = Status::Ambiguous;
                        plan.report.message = Some(msg);
                    }
                }
            }
            Edit::Ops { ops: o, eof: e } => {
                if e.is_some() {
                    eof = *e;
                }
                ops.extend(o.iter().cloned());
            }
            Edit::Nothing => {}
        }
    }
    let settled = applied::settle(&idx, hunks, &mut plans, &mut ops, |lines, p, i| {
        let o = ops_for(&doc, lines, p, i, shown, levels)?;
        Ok((o, eof_override(&doc, &hunks[i], p)))
    });
    eof = settled.or(eof);
    ops.sort_by_key(|o| (o.start, o.end, o.hunk));
    for w in 1..ops.len() {
        let (a, b) = (&ops[w - 1], &ops[w]);
        let same_point = a.start == a.end && b.start == b.end && a.start == b.start;
        if a.hunk != b.hunk && (b.start < a.end || same_point) {
            let (first, second) = (a.hunk.min(b.hunk), a.hunk.max(b.hunk));
            let r = &mut plans[second].report;
            if r.status.is_success() {
                r.status = Status::Conflict;
                r.message = Some(format!(
                    "this hunk overlaps hunk {} (around line {}); merge the two into one hunk",
                    first + 1,
                    b.start + 1
                ));
            }
        }
    }
    let mut reports: Vec<HunkReport> = plans.into_iter().map(|p| p.report).collect();
    for (r, h) in reports.iter_mut().zip(hunks) {
        applied_evidence::refuse_applied_beside_old(&doc, h, r);
        cut_line::refuse_cut_line(&doc, h, r);
    }
    refuse_changes_to_applied(&mut reports, &ops);
    finish(&doc, reports, &ops, eof)
}

/// Every hunk refused for indentation the file cannot read (`why`), nothing written.
fn unreadable_indentation(hunks: usize, why: String) -> FileOutcome<Splice> {
    let hunks: Vec<HunkReport> = (0..hunks)
        .map(|i| {
            let mut r = HunkReport::new(i, Status::Ambiguous);
            r.message = Some(why.clone());
            r
        })
        .collect();
    FileOutcome {
        new_text: None,
        status: Status::Ambiguous,
        hunks,
        added: 0,
        removed: 0,
    }
}

/// A hunk found already applied vouches for its lines: they are the edit's result. Another hunk
/// that removes one of them, or inserts between two of them, contradicts that reading (one of
/// the two placements is wrong, e.g. a moved block found at its new place by the hunk that
/// deletes it from the old one), so it is refused rather than applied on top.
fn refuse_changes_to_applied(reports: &mut [HunkReport], ops: &[Op]) {
    let applied: Vec<(usize, usize, usize)> = reports
        .iter()
        .filter(|r| r.status == Status::AlreadyApplied)
        .filter_map(|r| r.lines.map(|l| (r.index, l.start - 1, l.end)))
        .collect();
    for op in ops {
        let hit = applied.iter().find(|&&(h, s, e)| {
            h != op.hunk
                && if op.start == op.end {
                    s < op.start && op.start < e
                } else {
                    op.start < e && s < op.end
                }
        });
        let Some(&(h, s, e)) = hit else { continue };
        if let Some(r) = reports.get_mut(op.hunk) {
            if r.status.is_success() {
                r.status = Status::Conflict;
                r.message = Some(format!(
                    "this hunk changes lines {}-{}, which hunk {} found already applied; if the edit is already in the file there is nothing to do, otherwise quote the current lines again",
                    s + 1,
                    e,
                    h + 1
                ));
            }
        }
    }
}

fn finish(
    doc: &Doc,
    mut reports: Vec<HunkReport>,
    ops: &[Op],
    eof: Option<bool>,
) -> FileOutcome<Splice> {
    if let Some(bad) = reports.iter().find(|r| !r.status.is_success()) {
        let status = bad.status;
        for r in reports.iter_mut() {
            if r.status == Status::Applied {
                r.status = Status::Skipped;
            }
        }
        return FileOutcome {
            new_text: None,
            status,
            hunks: reports,
            added: 0,
            removed: 0,
        };
    }
    let text = splice(doc, ops, eof, true);
    let unchanged = text.is_identity(doc.text);
    let added = ops.iter().map(|o| o.insert.len()).sum();
    let removed = ops.iter().map(|o| o.end - o.start).sum();
    FileOutcome {
        status: if unchanged {
            Status::AlreadyApplied
        } else {
            Status::Applied
        },
        new_text: (!unchanged).then_some(text),
        hunks: reports,
        added: if unchanged { 0 } else { added },
        removed: if unchanged { 0 } else { removed },
    }
}

/// Replace the whole file at `path` with `content` (lines separated by `\n`), keeping the file's
/// BOM, each unchanged line's ending (new lines take the dominant one) and its final-newline
/// state; `final_newline` only matters for an empty file. Gap lines (`...`, `// ...`,
/// `# ... existing code ...`) are filled in from the file when their neighbours place them
/// uniquely, and refused (`NotFound` or `Ambiguous`) otherwise. `path` only tells whether a bare `...` is code
/// there (Python).
pub fn replace_whole(path: &str, current: &str, content: &str, final_newline: bool) -> FileOutcome {
    replace_whole_3way(path, current, content, final_newline, None)
}

/// [`replace_whole`] with the baseline the model read: when it differs from `current`, the
/// replacement is taken as a change of the baseline and merged into `current` (3-way), so changes
/// made to the file since the model read it survive. A conflict refuses the file.
pub fn replace_whole_3way(
    path: &str,
    current: &str,
    content: &str,
    final_newline: bool,
    baseline: Option<&str>,
) -> FileOutcome {
    replace_whole_with(
        path,
        current,
        content,
        final_newline,
        baseline,
        Whole::default(),
    )
}

/// What a reply says about a whole-file replacement beyond its content, and what its caller
/// allows: the inputs of the "no unexplained loss" check (DESIGN.md §3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Whole {
    /// A sentence beside the block says the rest of the file is unchanged
    /// ([`crate::Extraction::rest_unchanged`]): content that keeps the file's beginning and
    /// stops is filled in with the file's end, where that end begins certainly.
    pub rest_unchanged: bool,
    /// The caller confirms that the content may be one stretch of the file with the rest
    /// deleted: without it, such content is refused as `truncated`.
    pub allow_shrink: bool,
    /// The content is a lazy edit snippet ([`crate::Format::Snippet`]): its marker lines
    /// (`// ... existing code ...`) separate regions, each anchored by its unchanged first and
    /// last lines, and a leading or trailing marker keeps the file's head or tail.
    pub snippet: bool,
}

/// [`replace_whole_3way`] with what the reply says beside the block and what the caller allows
/// ([`Whole`]). New content that is one stretch of the file (its beginning, its end or a middle
/// part, with edits inside) and leaves the rest out is a reply cut short: filled in when the
/// reply says the rest is unchanged, refused as [`Status::Truncated`] otherwise.
pub fn replace_whole_with(
    path: &str,
    current: &str,
    content: &str,
    final_newline: bool,
    baseline: Option<&str>,
    whole: Whole,
) -> FileOutcome {
    let doc = Doc::parse(current);
    let base = baseline.filter(|b| *b != current).map(Doc::parse);
    let source = base.as_ref().unwrap_or(&doc);
    let mut report = HunkReport::new(0, Status::Applied);
    // Indentation pasted as no-break spaces is indentation (issue 23 §4).
    let content = match crate::locate::variants::pasted::unbreak_whole(current, content) {
        Ok(c) => c,
        Err(why) => {
            report.status = Status::Ambiguous;
            report.message = Some(why);
            return refused(report);
        }
    };
    // A byte-order mark copied with the file's first line is the file's, which keeps its own.
    let content = content.strip_prefix('\u{feff}').unwrap_or(&content);
    let mut regions = Vec::new();
    let lines = if whole.snippet && crate::snippet::has_marker(content, path) {
        match crate::snippet::merge(source, content, path) {
            Ok(m) => {
                regions = m.reports;
                m.lines
            }
            Err(reports) => return refused_regions(reports),
        }
    } else {
        let dots_are_code = crate::parse::dots_are_code(path);
        let read = filled(source, content, dots_are_code, whole);
        let lines = match crate::snippet::judge(source, content, path, read) {
            Ok(Reading::Whole(l)) => l,
            Ok(Reading::Snippet(m)) => {
                regions = m.reports;
                m.lines
            }
            Err(e) => {
                report.status = e.status;
                report.message = Some(e.message);
                return refused(report);
            }
        };
        let content_lines: Vec<&str> = content.lines().collect();
        let gaps = whole::gaps(source, &content_lines, dots_are_code).len();
        if gaps > 0 && regions.is_empty() {
            // Say so: the user should know the file supplied lines the reply left out.
            report.message = Some(format!(
                "{gaps} placeholder line(s) filled in with the lines they stand for from the file"
            ));
        }
        lines
    };
    let final_nl = if source.is_empty() {
        final_newline
    } else {
        source.final_newline
    };
    let new_source = whole::render_like(source, &lines, final_nl);
    // The reply's file is the file as it stands (line endings aside): already applied, whatever
    // the baseline says. Merging it would replay the baseline's changes a second time, and a
    // change the tree made since that moved equal lines can read as a conflict.
    let same_as_current =
        lines.len() == doc.len() && lines.iter().enumerate().all(|(i, l)| l == doc.line(i));
    let body = match &base {
        None => new_source,
        Some(_) if same_as_current => doc.body.to_string(),
        Some(b) => {
            report.rung = Some(Rung::ThreeWay);
            match merge3(b.body, doc.body, &new_source) {
                Ok(m) => m,
                Err(conflict) => {
                    report.status = Status::Conflict;
                    report.lines = conflict.ranges.first().copied();
                    report.message = Some(format!(
                        "the new file was written from an older version and conflicts with changes made since, at lines {}; re-read the file and rewrite it",
                        conflict
                            .ranges
                            .iter()
                            .map(|r| format!("{}-{}", r.start, r.end))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                    return refused(report);
                }
            }
        }
    };
    if body == doc.body {
        report.status = Status::AlreadyApplied;
        for r in &mut regions {
            r.status = Status::AlreadyApplied;
        }
        return FileOutcome {
            new_text: None,
            status: Status::AlreadyApplied,
            hunks: region_reports(report, regions),
            added: 0,
            removed: 0,
        };
    }
    let ops = diff_ops(&doc, &body, 0);
    let added = ops.iter().map(|o| o.insert.len()).sum();
    let removed = ops.iter().map(|o| o.end - o.start).sum();
    let mut text = String::with_capacity(body.len() + 3);
    if doc.bom {
        text.push(BOM);
    }
    text.push_str(&body);
    FileOutcome {
        new_text: Some(text),
        status: Status::Applied,
        hunks: region_reports(report, regions),
        added,
        removed,
    }
}

/// The hunk reports of a whole-file replacement: one per snippet region when it was a snippet
/// (the 3-way rung, when used, noted on each), else the one report of the file.
fn region_reports(report: HunkReport, mut regions: Vec<HunkReport>) -> Vec<HunkReport> {
    if regions.is_empty() {
        return vec![report];
    }
    if report.rung == Some(Rung::ThreeWay) {
        for r in &mut regions {
            r.rung = Some(Rung::ThreeWay);
        }
    }
    regions
}

/// A snippet refused: the reports of the regions that could not be placed; the file's status
/// is the first one's.
fn refused_regions(reports: Vec<HunkReport>) -> FileOutcome {
    FileOutcome {
        new_text: None,
        status: reports.first().map_or(Status::NotFound, |r| r.status),
        hunks: reports,
        added: 0,
        removed: 0,
    }
}

/// The lines of whole-file `content` with its gaps filled in from `source`, then checked for
/// an unexplained loss (a stretch of the file with the rest missing; see `locate::whole::cut`) unless
/// the caller allows it.
fn filled(
    source: &Doc,
    content: &str,
    dots_are_code: bool,
    whole: Whole,
) -> Result<Vec<String>, whole::FillError> {
    let (lines, placeholders) = whole::fill_placeholders_noting(source, content, dots_are_code)?;
    if whole.allow_shrink {
        return Ok(lines);
    }
    cut::check(source, lines, whole.rest_unchanged, placeholders)
}

fn refused(report: HunkReport) -> FileOutcome {
    FileOutcome {
        new_text: None,
        status: report.status,
        hunks: vec![report],
        added: 0,
        removed: 0,
    }
}

/// The text of a new file: `content` (lines separated by `\n`, with or without a trailing one)
/// ending with a newline exactly when `final_newline` says so.
pub fn create_text(content: &str, final_newline: bool) -> String {
    let body = content.strip_suffix('\n').unwrap_or(content);
    if body.is_empty() && !content.ends_with('\n') {
        return String::new();
    }
    let mut out = body.to_string();
    if final_newline {
        out.push('\n');
    }
    out
}

/// The content of a new file (and whether it ends with a newline) when `hunks` are a single pure
/// insertion pinned to the start of the file (`@@ -0,0 +1,N @@`). Applied to an existing file
/// such a hunk inserts at the top; for a path that does not exist it can only mean a new file,
/// which is how models often write one without `/dev/null`.
pub fn new_file_from_insertion(hunks: &[Hunk]) -> Option<(String, bool)> {
    let [h] = hunks else {
        return None;
    };
    if h.anchor != crate::edit::Anchor::Start || !h.is_pure_insertion() || h.lines.is_empty() {
        return None;
    }
    let mut content = String::new();
    for l in &h.lines {
        content.push_str(strip_cr(&l.text));
        content.push('\n');
    }
    Some((content, !h.new_no_newline))
}
