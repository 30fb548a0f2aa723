//! Edits of a Jupyter notebook's cells (DESIGN.md §9 of issue 23): a reply that quotes a cell's
//! code as plain text, not as the JSON strings the file holds it in.
//!
//! Placed on the file's text, such a hunk either finds nothing or, worse, lands inside one JSON
//! string and writes raw newlines and quotes into it. So each hunk is first tried on every cell's
//! decoded source: a hunk that fits exactly one cell (and does not also read as an exact edit of
//! the JSON text) is placed in that cell by the ordinary ladder, and the cell's new source is
//! written back as JSON in the value's own layout; every byte outside the edited values is kept.
//! A hunk found in several cells, or only across a cell boundary, is refused. A reply whose
//! hunks all read as edits of the JSON text goes the ordinary way.

mod cells;

use std::ops::Range;

use crate::apply::{apply_hunks, FileOutcome};
use crate::edit::Hunk;
use crate::report::{HunkReport, LineRange, Rung, Status};
use crate::splice::Splice;
use cells::Source;

/// How one hunk reads against the notebook.
#[derive(Clone, Debug, PartialEq)]
enum Reading {
    /// An edit of the file's JSON text.
    Json,
    /// An edit of this cell's source.
    Cell(usize),
    /// Refused: why, as a hunk status and message.
    Refused(Status, String),
}

/// Apply `hunks` to the notebook `current` when some of them edit its cells' code as plain text.
/// `None` when the file is not a notebook this reader follows, or when every hunk reads as an
/// edit of the JSON text itself: the caller then applies them as to any file.
pub fn apply_notebook(current: &str, hunks: &[Hunk]) -> Option<FileOutcome<Splice>> {
    let cells = cells::read(current)?;
    let readings: Vec<Reading> = hunks
        .iter()
        .map(|h| read_hunk(current, &cells, h))
        .collect();
    if readings.iter().all(|r| *r == Reading::Json) {
        return None;
    }
    let mut reports: Vec<Option<HunkReport>> = vec![None; hunks.len()];
    for (i, r) in readings.iter().enumerate() {
        let refused = match r {
            Reading::Refused(status, why) => Some((*status, why.clone())),
            Reading::Json => Some((
                Status::Conflict,
                "this hunk edits the notebook's JSON text while others of the same reply edit its cells' code; send the JSON edit on its own".to_owned(),
            )),
            Reading::Cell(_) => None,
        };
        if let Some((status, why)) = refused {
            let mut rep = HunkReport::new(i, status);
            rep.message = Some(why);
            reports[i] = Some(rep);
        }
    }
    let ascii = cells::escapes_non_ascii(current);
    let mut written: Vec<(Range<usize>, String)> = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for (c, cell) in cells.iter().enumerate() {
        let mine: Vec<usize> = (0..hunks.len())
            .filter(|&i| readings[i] == Reading::Cell(c))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let group: Vec<Hunk> = mine.iter().map(|&i| unhinted(&hunks[i])).collect();
        let out = apply_hunks(&cell.text, &group, None);
        for (mut rep, &i) in out.hunks.into_iter().zip(&mine) {
            rep.index = i;
            rep.lines = rep.lines.and_then(|l| file_lines(current, cell, l));
            let note = format!("placed in the source of cell {} (written as JSON)", c + 1);
            rep.message = Some(match rep.message.take() {
                Some(m) => format!("{m}; {note}"),
                None => note,
            });
            reports[i] = Some(rep);
        }
        if let Some(new) = out.new_text {
            let like = cells.iter().find(|s| s.array && !s.parts.is_empty());
            written.push((
                cell.span.clone(),
                cells::encode(current, cell, like, &new, ascii),
            ));
            added += out.added;
            removed += out.removed;
        }
    }
    let reports: Vec<HunkReport> = reports
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|| HunkReport::new(i, Status::NotFound)))
        .collect();
    Some(outcome(current, &cells, reports, written, added, removed))
}

/// Every cell's source of the notebook `text`, decoded and joined (each ending with a newline),
/// for checks that read the lines an edit writes: a notebook holds its cells' lines inside JSON
/// strings, where a line-based check would not see them. `None` when `text` is not a notebook
/// this reader follows.
pub fn notebook_sources(text: &str) -> Option<String> {
    let cells = cells::read(text)?;
    let mut all = String::new();
    for c in cells {
        all.push_str(&c.text);
        if !all.ends_with('\n') {
            all.push('\n');
        }
    }
    Some(all)
}

/// The code cells' sources of the notebook `text`, decoded and joined (each ending with a
/// newline), when the notebook says its kernel's language is Python: what a Python parser can
/// judge of an edit. `None` otherwise.
pub fn notebook_python(text: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let meta = v.get("metadata")?;
    let language = meta
        .pointer("/kernelspec/language")
        .or_else(|| meta.pointer("/language_info/name"))
        .and_then(serde_json::Value::as_str)?;
    if !language.eq_ignore_ascii_case("python") {
        return None;
    }
    let cells = cells::read(text)?;
    let mut all = String::new();
    for c in cells.iter().filter(|c| c.code) {
        all.push_str(&c.text);
        if !all.ends_with('\n') {
            all.push('\n');
        }
    }
    Some(all)
}

/// The text a cell's `source` value (a JSON string, or an array of strings, as
/// [`apply_notebook`] writes one) holds; `None` for anything else.
pub fn notebook_source_value(json: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(json).ok()? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Array(parts) => parts
            .iter()
            .map(|p| p.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .map(|v| v.concat()),
        _ => None,
    }
}

/// The outcome of the placed cells: refused when a hunk failed, or when the written file would
/// not read back as the same notebook with the new sources (a check on the writer itself).
fn outcome(
    current: &str,
    cells: &[Source],
    mut reports: Vec<HunkReport>,
    written: Vec<(Range<usize>, String)>,
    added: usize,
    removed: usize,
) -> FileOutcome<Splice> {
    let failed = reports
        .iter()
        .find(|r| !r.status.is_success())
        .map(|r| r.status);
    let refuse = |mut reports: Vec<HunkReport>, status: Status| {
        for r in reports.iter_mut() {
            if r.status == Status::Applied {
                r.status = Status::Skipped;
            }
        }
        FileOutcome {
            new_text: None,
            status,
            hunks: reports,
            added: 0,
            removed: 0,
        }
    };
    if let Some(status) = failed {
        return refuse(reports, status);
    }
    if written.is_empty() {
        return FileOutcome {
            new_text: None,
            status: Status::AlreadyApplied,
            hunks: reports,
            added: 0,
            removed: 0,
        };
    }
    let mut splice = Splice::default();
    let mut at = 0;
    for (span, text) in &written {
        splice.keep(current, at..span.start);
        splice.push_new(text);
        at = span.end;
    }
    splice.keep(current, at..current.len());
    if !reads_back(&splice.materialize(current), cells, &written) {
        if let Some(r) = reports.first_mut() {
            r.status = Status::Malformed;
            r.message = Some(
                "the notebook written with this edit would not read back as the same notebook with the new cell sources; nothing was written".to_owned(),
            );
        }
        return refuse(reports, Status::Malformed);
    }
    FileOutcome {
        new_text: Some(splice),
        status: Status::Applied,
        hunks: reports,
        added,
        removed,
    }
}

/// True when `new` is valid JSON whose cells are those of the old file, with the written ones
/// decoding to what was meant.
fn reads_back(new: &str, old: &[Source], written: &[(Range<usize>, String)]) -> bool {
    if serde_json::from_str::<serde_json::Value>(new).is_err() {
        return false;
    }
    let Some(now) = cells::read(new) else {
        return false;
    };
    now.len() == old.len()
        && written.iter().all(|(span, text)| {
            let meant: Option<String> =
                serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .map(|v| match v {
                        serde_json::Value::String(s) => s,
                        serde_json::Value::Array(a) => {
                            a.iter().filter_map(serde_json::Value::as_str).collect()
                        }
                        _ => String::new(),
                    });
            let i = old.iter().position(|s| s.span == *span);
            matches!((meant, i), (Some(m), Some(i)) if now[i].text == m)
        })
}

/// How hunk `h` reads: on one cell, on the JSON text, or neither with a reason.
fn read_hunk(current: &str, cells: &[Source], h: &Hunk) -> Reading {
    let probe = unhinted(h);
    let fits: Vec<usize> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| places(&c.text, &probe).is_some())
        .map(|(i, _)| i)
        .collect();
    let json = places(current, h);
    // Only a strict reading of the JSON text competes with a cell: a hunk of plain code found
    // inside one JSON string (the substring rung) or by a fuzzy rung is the cell's code.
    let json_strict =
        json.is_some_and(|r| matches!(r, None | Some(Rung::Exact | Rung::TrailingWs)));
    match (fits.as_slice(), json) {
        ([], Some(_)) => Reading::Json,
        ([c], _) if !json_strict => Reading::Cell(*c),
        ([c], _) => Reading::Refused(
            Status::Ambiguous,
            format!(
                "this hunk reads both as an edit of the notebook's JSON text and as one of the code of cell {}; quote the cell's code alone, or the JSON lines with more context",
                c + 1
            ),
        ),
        ([], None) if spans_cells(cells, &probe) => Reading::Refused(
            Status::Ambiguous,
            "the lines this hunk quotes run across two cells of the notebook; edit one cell per hunk".to_owned(),
        ),
        ([], None) => Reading::Refused(
            Status::NotFound,
            "the lines this hunk changes were found neither in the notebook's JSON text nor in any cell's source".to_owned(),
        ),
        (many, _) => Reading::Refused(
            Status::Ambiguous,
            format!(
                "the lines this hunk quotes are in {} cells of the notebook ({}); quote more of the one cell to change",
                many.len(),
                many.iter().map(|c| format!("cell {}", c + 1)).collect::<Vec<_>>().join(", ")
            ),
        ),
    }
}

/// `Some(rung)` (the first placed hunk's, `None` when already applied) when `h` places on
/// `text`, `None` when it does not.
fn places(text: &str, h: &Hunk) -> Option<Option<Rung>> {
    let out = apply_hunks(text, std::slice::from_ref(h), None);
    out.status
        .is_success()
        .then(|| out.hunks.first().and_then(|r| r.rung))
}

/// True when `h` places on the cells' sources read as one text: it quotes across a boundary.
fn spans_cells(cells: &[Source], h: &Hunk) -> bool {
    if cells.len() < 2 {
        return false;
    }
    let mut all = String::new();
    for c in cells {
        all.push_str(&c.text);
        if !all.ends_with('\n') {
            all.push('\n');
        }
    }
    places(&all, h).is_some()
}

/// `h` without its line-number hint, which counts lines of the JSON file, not of a cell.
fn unhinted(h: &Hunk) -> Hunk {
    Hunk {
        old_start: None,
        ..h.clone()
    }
}

/// The file lines of cell lines `l` when the source holds one string per line, one per file
/// line (nbformat's layout); otherwise there is no honest file line to give.
fn file_lines(current: &str, cell: &Source, l: LineRange) -> Option<LineRange> {
    let one_per_line = cell.array
        && cell.parts.iter().enumerate().all(|(k, p)| {
            let part: Option<String> = current
                .get(p.clone())
                .and_then(|j| serde_json::from_str(j).ok());
            part.is_some_and(|t| {
                let last = k + 1 == cell.parts.len();
                t.find('\n').map_or(last, |n| n + 1 == t.len())
            })
        });
    if !one_per_line {
        return None;
    }
    let line_of = |off: usize| current.get(..off).map(|s| s.matches('\n').count() + 1);
    let start = line_of(cell.parts.get(l.start.checked_sub(1)?)?.start)?;
    let end = line_of(cell.parts.get(l.end.checked_sub(1)?)?.start)?;
    Some(LineRange { start, end })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
