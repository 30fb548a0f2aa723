//! The line operations one placed hunk makes ([`ops_for`]), and the passes over them that write
//! its added lines in the file's terms (levels, style, quoted indentation, folded Unicode) or
//! refuse a placement that would reorder lines or leave a choice open.

use crate::edit::{HunkLine, LineKind};
use crate::locate::rungs::search::Span;
use crate::locate::{
    guards::order, guards::substance, variants::dropped, write::align, write::fold, write::kept,
    write::levels, write::mixed, write::quoted, write::style, Placement,
};
use crate::ops::{NewLine, Op};
use crate::report::Rung;
use crate::text::{canonical, strip_cr, Doc, Eol};

/// The operations one placed hunk makes. Fails when an inserted line's position is not
/// determined (file lines the pattern does not account for sit exactly where it would go).
pub(crate) fn ops_for(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    hunk: usize,
    reply_style: style::ReplyStyle,
    shown: levels::Shown,
) -> Result<Vec<Op>, String> {
    // A fit between tabs and spaces takes the tab width that makes a tab one level.
    let tuned = crate::locate::write::reindent::by_levels(doc, lines, p)?;
    let p = tuned.as_ref().unwrap_or(p);
    crate::locate::write::reindent::check_added_style(lines, p)?;
    let map = &p.fit.map;
    // Removed elision markers and the file lines they stand for, which a paired added marker
    // puts back (code the model moved without writing it out).
    let mut moved: Vec<(String, Span)> = Vec::new();
    if p.rung == Rung::Elision {
        for (pi, l) in lines.iter().filter(|l| l.kind != LineKind::Add).enumerate() {
            if l.kind == LineKind::Remove && crate::placeholder::is_marker(&l.text) {
                if let Some(s) = map.get(pi) {
                    moved.push((canonical(&l.text).into_owned(), *s));
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
                let c = canonical(&l.text);
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
    dropped::check(lines, p)?;
    kept::keep_file_lines(doc, lines, p, &mut ops);
    substance::check_removed(doc, lines, p)?;
    // The matched indentation pairs, once for both passes that read them.
    let pairs = levels::matched_pairs(doc, lines, p);
    levels::relevel_ops(doc, lines, p, &pairs, shown, &mut ops)?;
    style::restyle_ops(doc, lines, p, reply_style, &mut ops)?;
    align::check(doc, lines, p, reply_style, &ops)?;
    quoted::match_quoted(lines, p, &pairs, &mut ops)?;
    mixed::check(doc, lines, p, reply_style, &ops)?;
    fold::fold_ops(doc, lines, p, &mut ops)?;
    order::check(doc, lines, p, &ops)?;
    Ok(ops)
}
