//! Line operations on a parsed file, and the text they make.
//!
//! Every way of changing a file (placed hunks, the 3-way rung, whole-file replacements, text
//! replacements) ends as a list of [`Op`]s on the original [`Doc`]; [`splice`] and [`assemble`]
//! then build the new text in one pass, copying untouched lines byte for byte. This module sits
//! below both the placement ladder and the applier, so they share it without depending on each
//! other.

use crate::splice::Splice;
use crate::text::{Doc, Eol};

/// A line the edit inserts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NewLine {
    pub text: String,
    /// The line's own ending; `None` takes the file's dominant ending.
    pub eol: Option<Eol>,
}

/// Replace file lines `[start, end)` with `insert`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Op {
    pub start: usize,
    pub end: usize,
    pub insert: Vec<NewLine>,
    /// The hunk the operation comes from.
    pub hunk: usize,
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
