//! Lazy edit snippets: the changed regions of one file with a few unchanged lines around each,
//! separated by marker comments (`// ... existing code ...`), as Cursor's `edit_file`, Morph
//! and Relace write them. They are merged here without a model, strictly:
//!
//! - the snippet is cut at its markers into regions ([`marker`]);
//! - each region is anchored by its unchanged first and last lines ([`anchor`]): it replaces
//!   what the file has between them, and a marker stands for the file's lines between two
//!   regions; a leading (trailing) marker keeps the file's head (tail), and without one the
//!   region starts at line 1 (ends at the file's end) or is refused as cut;
//! - the regions go in file order, in the one way they fit ([`chain`]); where they fit several
//!   ways, a region's reading that its counts leave no doubt about settles it ([`settle`]); a
//!   region that fits nowhere, several ways without such a reading, or only out of order
//!   refuses the file with its candidates.
//!
//! The merged lines then take the same road as any whole-file replacement (line endings, 3-way
//! with the baseline, already-applied, and the engine's checks on what is written), so a
//! marker never reaches the file: every line of the result is either the file's or a region's.

mod anchor;
mod chain;
mod marker;
mod report;
mod second;
mod settle;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;

pub(crate) use marker::{has_marker, is_snippet};
pub(crate) use second::{judge, Reading};

use crate::report::HunkReport;
use crate::text::Doc;
use anchor::Placement;
use chain::Chain;
use marker::Region;
use similar::DiffOp;

/// A merged snippet: the file's new lines, and one report per region.
#[derive(Debug)]
pub(crate) struct Merged {
    pub lines: Vec<String>,
    pub reports: Vec<HunkReport>,
}

/// Merges the snippet `content` for the file at `path` into `source`; on refusal, the reports
/// of the regions that could not be placed.
pub(crate) fn merge(source: &Doc, content: &str, path: &str) -> Result<Merged, Vec<HunkReport>> {
    let regions = marker::regions(content, path);
    if regions.is_empty() {
        return Err(vec![report::only_markers()]);
    }
    let mut options = Vec::with_capacity(regions.len());
    let mut left_out = Vec::with_capacity(regions.len());
    let mut failed = Vec::new();
    for (k, r) in regions.iter().enumerate() {
        match anchor::placements(source, r) {
            Ok(found) => {
                left_out.push(found.left_out);
                options.push(found.places);
            }
            Err(miss) => failed.push(report::missed(k, r, &miss)),
        }
    }
    if !failed.is_empty() {
        return Err(failed);
    }
    match chain::choose(&options) {
        Chain::One(picks) => Ok(assemble(source, &regions, &picks)),
        Chain::OutOfOrder => Err(report::out_of_order(&regions, &options)),
        Chain::Many(alive) => {
            let partial = chain::any_in_order(&options, &left_out);
            match settle::settle(source, &regions, &alive, partial) {
                Some(picks) => Ok(assemble(source, &regions, &picks)),
                None => Err(report::ambiguous(&regions, &alive)),
            }
        }
    }
}

/// The file's lines with each region in its place, and the regions' reports.
fn assemble(source: &Doc, regions: &[Region], picks: &[Placement]) -> Merged {
    let mut lines: Vec<String> = Vec::with_capacity(source.len());
    let mut reports = Vec::with_capacity(regions.len());
    let mut at = 0;
    for (k, (r, p)) in regions.iter().zip(picks).enumerate() {
        lines.extend((at..p.start).map(|i| source.line(i).to_string()));
        lines.extend((p.start..p.start + p.head).map(|i| source.line(i).to_string()));
        let changed = middle(source, r, p, &mut lines);
        lines.extend((p.end - p.tail..p.end).map(|i| source.line(i).to_string()));
        reports.push(report::placed(k, r, p, changed));
        at = p.end;
    }
    lines.extend((at..source.len()).map(|i| source.line(i).to_string()));
    Merged { lines, reports }
}

/// Pushes the region's lines between its anchors, keeping the file's bytes for a line that is
/// the file's own there but for trailing whitespace; returns how many file lines changed
/// (removed or replaced) and how many were added.
fn middle(source: &Doc, r: &Region, p: &Placement, out: &mut Vec<String>) -> (usize, usize) {
    let from = p.start + p.head;
    let old_raw: Vec<&str> = (from..p.end - p.tail).map(|i| source.line(i)).collect();
    let new_raw = &r.lines[p.head..r.lines.len() - p.tail];
    let old: Vec<&str> = old_raw.iter().map(|l| l.trim_end()).collect();
    let new: Vec<&str> = new_raw.iter().map(|l| l.trim_end()).collect();
    let (mut removed, mut added) = (0, 0);
    for op in anchor::middle_ops(&old, &new) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                out.extend(
                    old_raw[old_index..old_index + len]
                        .iter()
                        .map(|l| l.to_string()),
                );
            }
            DiffOp::Delete { old_len, .. } => removed += old_len,
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                added += new_len;
                out.extend(
                    new_raw[new_index..new_index + new_len]
                        .iter()
                        .map(|l| l.to_string()),
                );
            }
            DiffOp::Replace {
                old_len,
                new_index,
                new_len,
                ..
            } => {
                removed += old_len;
                added += new_len;
                out.extend(
                    new_raw[new_index..new_index + new_len]
                        .iter()
                        .map(|l| l.to_string()),
                );
            }
        }
    }
    (removed, added)
}
