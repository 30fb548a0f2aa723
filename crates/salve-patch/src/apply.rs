//! Applying a file's edit: from placed hunks to the new text, writing faithfully.
//!
//! [`apply_hunks`] places every hunk against the original text ([`crate::locate::place`]),
//! turns each placement into line operations ([`Op`]), refuses overlapping operations, and only
//! then assembles the new text in one pass. The file is the truth for everything the edit does
//! not change: untouched lines are copied byte for byte (with their own endings), inserted lines
//! take the file's dominant ending, and the byte-order mark and final-newline state are kept
//! unless a hunk at the end of the file explicitly changes the final newline.
//!
//! [`replace_whole`] and [`replace_whole_3way`] handle whole-file replacements the same way, and
//! [`create_text`] renders a new file.

use std::cell::OnceCell;

use crate::edit::{Hunk, HunkLine, LineKind};
use crate::locate::index::FileIndex;
use crate::locate::place::{eof_override, place_all, Edit};
use crate::locate::{whole, Placement};
use crate::merge::merge3;
use crate::report::{HunkReport, Rung, Status};
use crate::splice::Splice;
use crate::text::{strip_cr, Doc, Eol, BOM};

/// What happens to one file. The new content is a `String`, or a [`Splice`] of the current
/// text from [`apply_hunks_lazy`].
#[derive(Clone, Debug, PartialEq)]
pub struct FileOutcome<T = String> {
    /// The new content, only when the file must change.
    pub new_text: Option<T>,
    /// `Applied`, `AlreadyApplied`, or the status of the first failing hunk.
    pub status: Status,
    pub hunks: Vec<HunkReport>,
    pub added: usize,
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

/// A line the edit inserts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLine {
    pub text: String,
    /// The line's own ending; `None` takes the file's dominant ending.
    pub eol: Option<Eol>,
}

/// Replace file lines `[start, end)` with `insert`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub start: usize,
    pub end: usize,
    pub insert: Vec<NewLine>,
    /// The hunk the operation comes from.
    pub hunk: usize,
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
    let doc = Doc::parse(current);
    let idx = FileIndex::with_keys(&doc, hunk_keys(hunks)).with_scopes(
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
    let mut ops: Vec<Op> = Vec::new();
    let mut eof: Option<bool> = None;
    for (i, plan) in plans.iter_mut().enumerate() {
        match &plan.edit {
            Edit::Place(p) => {
                let lines = p.lines.as_deref().unwrap_or(&hunks[i].lines);
                match ops_for(&doc, lines, p, i) {
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
    let reports: Vec<HunkReport> = plans.into_iter().map(|p| p.report).collect();
    finish(&doc, reports, &ops, eof)
}

/// Every line the ladder may look up for these hunks, `maybe_added` variants included.
pub(crate) fn hunk_keys(hunks: &[Hunk]) -> Vec<String> {
    let mut keys = Vec::new();
    for h in hunks {
        keys.extend(h.lines.iter().map(|l| strip_cr(&l.text).to_string()));
        keys.extend(
            h.maybe_added
                .iter()
                .filter_map(|&i| h.lines.get(i))
                .map(|l| format!(" {}", strip_cr(&l.text))),
        );
    }
    keys
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

/// The operations one placed hunk makes. Fails when an inserted line's position is not
/// determined (file lines the pattern does not account for sit exactly where it would go).
pub(crate) fn ops_for(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    hunk: usize,
) -> Result<Vec<Op>, String> {
    let map = &p.fit.map;
    // Removed elision markers and the file lines they stand for, which a paired added marker
    // puts back (code the model moved without writing it out).
    let mut moved: Vec<(String, crate::locate::search::Span)> = Vec::new();
    if p.rung == Rung::Elision {
        for (pi, l) in lines.iter().filter(|l| l.kind != LineKind::Add).enumerate() {
            if l.kind == LineKind::Remove && crate::locate::elision::is_marker(&l.text) {
                if let Some(s) = map.get(pi) {
                    moved.push((crate::text::canonical(&l.text).into_owned(), *s));
                }
            }
        }
    }
    let mut ops = Vec::new();
    let mut pending: Option<Op> = None;
    let mut cursor = p.range().0;
    let mut pi = 0;
    for (li, l) in lines.iter().enumerate() {
        match l.kind {
            LineKind::Context => {
                ops.extend(pending.take());
                if let Some(s) = map.get(pi) {
                    cursor = s.end;
                }
                pi += 1;
            }
            LineKind::Remove => {
                let Some(&s) = map.get(pi) else {
                    return Err("the hunk does not match its placement".into());
                };
                pi += 1;
                if !s.is_empty() {
                    match pending.as_mut() {
                        Some(op) if op.end == s.start => op.end = s.end,
                        _ => {
                            ops.extend(pending.take());
                            pending = Some(Op {
                                start: s.start,
                                end: s.end,
                                insert: Vec::new(),
                                hunk,
                            });
                        }
                    }
                    cursor = s.end;
                }
            }
            LineKind::Add => {
                if pending.is_none() {
                    let next = map.get(pi).map(|s| s.start);
                    let at = match next {
                        Some(n) if n > cursor => {
                            let next_removes = lines[li + 1..]
                                .iter()
                                .find(|x| x.kind != LineKind::Add)
                                .is_some_and(|x| x.kind == LineKind::Remove);
                            if !next_removes {
                                return Err(format!(
                                    "lines {}-{} of the file are not in the hunk and sit where it inserts lines, so their order is unclear; include them as context",
                                    cursor + 1,
                                    n
                                ));
                            }
                            n
                        }
                        _ => cursor,
                    };
                    pending = Some(Op {
                        start: at,
                        end: at,
                        insert: Vec::new(),
                        hunk,
                    });
                }
                let Some(op) = pending.as_mut() else {
                    continue;
                };
                let c = crate::text::canonical(&l.text);
                match moved.iter().position(|(t, _)| *t == c) {
                    Some(k) => {
                        let (_, s) = moved.remove(k);
                        op.insert.extend((s.start..s.end).map(|f| NewLine {
                            text: doc.line(f).to_string(),
                            eol: Some(doc.eol(f)).filter(|e| *e != Eol::None),
                        }));
                    }
                    None => op.insert.push(NewLine {
                        text: p.fit.reindent.apply(strip_cr(&l.text)),
                        eol: None,
                    }),
                }
            }
        }
    }
    ops.extend(pending);
    Ok(ops)
}

/// The new text: `doc` with the sorted, non-overlapping `ops` applied. `eof` overrides the
/// final-newline state; `with_bom` puts the file's byte-order mark back.
pub(crate) fn assemble(doc: &Doc, ops: &[Op], eof: Option<bool>, with_bom: bool) -> String {
    splice(doc, ops, eof, with_bom).materialize(doc.text)
}

/// [`assemble`] as a [`Splice`] of `doc.text`: untouched lines are ranges of the original.
pub(crate) fn splice(doc: &Doc, ops: &[Op], eof: Option<bool>, with_bom: bool) -> Splice {
    let final_nl = eof.unwrap_or(doc.final_newline);
    let dom = doc.dominant.as_str();
    let original = doc.text;
    // Offsets in `doc` are into the body; the splice's are into the whole text.
    let base = original.len() - doc.body.len();
    let body = |from: usize, to: usize| base + from..base + to;
    let mut out = Splice::default();
    if with_bom && doc.bom {
        out.keep(original, 0..base);
    }
    let body_start = out.len();
    let mut line = 0;
    for op in ops {
        out.keep(original, body(doc.offset(line), doc.offset(op.start)));
        for nl in &op.insert {
            if out.len() > body_start && !out.ends_with(original, "\n") {
                out.push_new(dom);
            }
            out.push_new(&nl.text);
            out.push_new(nl.eol.map_or(dom, Eol::as_str));
        }
        line = op.end;
    }
    out.keep(original, body(doc.offset(line), doc.body.len()));
    if out.len() > body_start {
        if !final_nl {
            if out.ends_with(original, "\r\n") {
                out.truncate_end(2);
            } else if out.ends_with(original, "\n") {
                out.truncate_end(1);
            }
        } else if !out.ends_with(original, "\n") {
            out.push_new(dom);
        }
    }
    out
}

/// Operations turning `doc` into `new_body`, keeping the new text's own line endings.
pub(crate) fn diff_ops(doc: &Doc, new_body: &str, hunk: usize) -> Vec<Op> {
    let new_doc = Doc::parse(new_body);
    let old: Vec<&str> = (0..doc.len()).map(|i| doc.line_with_eol(i)).collect();
    let new: Vec<&str> = (0..new_doc.len())
        .map(|i| new_doc.line_with_eol(i))
        .collect();
    let mut ops = Vec::new();
    for d in similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new) {
        let (_, o, n) = d.as_tag_tuple();
        if (o.is_empty() && n.is_empty()) || matches!(d, similar::DiffOp::Equal { .. }) {
            continue;
        }
        ops.push(Op {
            start: o.start,
            end: o.end,
            insert: n
                .map(|j| NewLine {
                    text: new_doc.line(j).to_string(),
                    eol: Some(new_doc.eol(j)),
                })
                .collect(),
            hunk,
        });
    }
    ops
}

/// Replace the whole file at `path` with `content` (lines separated by `\n`), keeping the file's
/// BOM, each unchanged line's ending (new lines take the dominant one) and its final-newline
/// state; `final_newline` only matters for an empty file. Gap lines (`...`, `// ...`, see
/// [`whole::is_gap`]) are filled in from the file when their neighbours place them uniquely, and
/// refused (`NotFound` or `Ambiguous`) otherwise. `path` only tells whether a bare `...` is code
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
    let doc = Doc::parse(current);
    let base = baseline.filter(|b| *b != current).map(Doc::parse);
    let source = base.as_ref().unwrap_or(&doc);
    let mut report = HunkReport::new(0, Status::Applied);
    let dots_are_code = crate::parse::dots_are_code(path);
    let lines = match whole::fill_placeholders(source, content, dots_are_code) {
        Ok(l) => l,
        Err(e) => {
            report.status = e.status;
            report.message = Some(e.message);
            return refused(report);
        }
    };
    let gaps = content
        .lines()
        .filter(|l| whole::is_gap(l, dots_are_code))
        .count();
    if gaps > 0 {
        // Say so: the user should know the file supplied lines the reply left out.
        report.message = Some(format!(
            "{gaps} placeholder line(s) filled in with the lines they stand for from the file"
        ));
    }
    let final_nl = if source.is_empty() {
        final_newline
    } else {
        source.final_newline
    };
    let new_source = whole::render_like(source, &lines, final_nl);
    let body = match &base {
        None => new_source,
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
        return FileOutcome {
            new_text: None,
            status: Status::AlreadyApplied,
            hunks: vec![report],
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
        hunks: vec![report],
        added,
        removed,
    }
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
