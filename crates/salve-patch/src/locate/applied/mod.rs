//! Two hunks of one reply that disagree about a place one of them found already applied.
//!
//! A hunk found already applied vouches for its lines: they are its result. When another hunk
//! changes those lines, one of the two readings is wrong, and [`crate::apply`] refuses the pair
//! (a moved block found at its new place by the hunk that deletes it from the old one). Two
//! sub-classes can be told apart, both only when the hunk that changes the lines comes first in
//! the reply (call it X, and the applied one A). Hunks of one reply describe one file, whether
//! they are read together or in their order, and then both readings agree:
//!
//! - **A chain.** X replaces a line A adds, and A's old text stands elsewhere, once, by a looser
//!   form (the reason it was taken as applied: its result stood apart from its old text). If A
//!   were applied, the file X was written against held A's result where X found it and A's old
//!   text nowhere; A's old text is there, so X changes the place and A is placed at its old
//!   text (`limit: 3` to `2` in one block, `limit: 4` to `3` in a similar one).
//! - **A move made.** X deletes only lines A adds (adding no text of its own, at most blank
//!   lines), and A's old text is nowhere in the file, so A cannot be placed and its result
//!   stands. X found the moved lines only at their new place: they are gone from the old one,
//!   and the move is made. X is already applied as well.
//!
//! Everything else stays refused.

pub(crate) mod applied_evidence;
pub(crate) mod insertion;
pub(crate) mod readings;

use crate::edit::{Hunk, HunkLine, LineKind};
use crate::locate::choose::plan::placed;
use crate::locate::choose::plan::{range, Edit, Plan};
use crate::locate::rungs::index::FileIndex;
use crate::locate::{locate_fresh, Found, Placement};
use crate::ops::Op;
use crate::report::Status;
use crate::text::Trim as _;
use crate::text::{is_blank, strip_cr, Doc};

/// Settle the pairs above: re-place a chained hunk A (its ops added to `ops`) or mark a hunk X
/// that made a move already applied (its ops removed). `place` makes the operations of a hunk
/// at a placement.
pub(crate) fn settle(
    idx: &FileIndex,
    hunks: &[Hunk],
    plans: &mut [Plan],
    ops: &mut Vec<Op>,
    mut place: impl FnMut(&[HunkLine], &Placement, usize) -> Result<(Vec<Op>, Option<bool>), String>,
) -> Option<bool> {
    let mut eof = None;
    for a in 0..plans.len() {
        let Some(added) = added_lines(&plans[a], &hunks[a]) else {
            continue;
        };
        let (s, e) = added.region;
        let hitting: Vec<usize> = (0..a)
            .filter(|&x| plans[x].report.status == Status::Applied)
            .filter(|&x| ops.iter().any(|o| o.hunk == x && touches(o, s, e)))
            .collect();
        if hitting.is_empty() {
            continue;
        }
        match locate_fresh(idx, &hunks[a]) {
            Found::Candidates(c) if c.len() == 1 => {
                let p = &c[0];
                let (ps, pe) = p.range();
                let apart = pe <= s || ps >= e;
                let chained = hitting.iter().all(|&x| {
                    ops.iter()
                        .filter(|o| o.hunk == x)
                        .any(|o| (o.start..o.end).any(|k| added.has(k)))
                });
                if !apart || !chained {
                    continue;
                }
                let lines = p.lines.as_deref().unwrap_or(&hunks[a].lines);
                if let Ok((new, f)) = place(lines, p, a) {
                    ops.extend(new);
                    eof = f.or(eof);
                    plans[a] = placed(a, p.clone());
                }
            }
            Found::Nothing if old_text_absent(idx, &hunks[a]) => {
                for &x in &hitting {
                    if moved_away(idx.doc, ops, x, &added) {
                        made(&mut plans[x], ops, a);
                    }
                }
            }
            _ => {}
        }
    }
    eof
}

/// The file lines an applied hunk's result covers, and which of them it adds.
struct Added {
    region: (usize, usize),
    /// Per line of the region: added by the hunk, with text on it.
    added: Vec<bool>,
}

impl Added {
    /// Whether file line `k` is one the hunk adds, with text on it.
    fn has(&self, k: usize) -> bool {
        k.checked_sub(self.region.0)
            .is_some_and(|i| self.added.get(i) == Some(&true))
    }
}

/// For a hunk found already applied whose result covers its lines one for one: which file lines
/// it adds.
fn added_lines(plan: &Plan, hunk: &Hunk) -> Option<Added> {
    if plan.report.status != Status::AlreadyApplied {
        return None;
    }
    let r = plan.report.lines?;
    let (s, e) = (r.start - 1, r.end);
    let post: Vec<&HunkLine> = hunk
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .collect();
    (post.len() == e - s).then(|| Added {
        region: (s, e),
        added: post
            .iter()
            .map(|l| l.kind == LineKind::Add && !is_blank(strip_cr(&l.text)))
            .collect(),
    })
}

fn touches(o: &Op, s: usize, e: usize) -> bool {
    if o.start == o.end {
        s < o.start && o.start < e
    } else {
        o.start < e && s < o.end
    }
}

/// Whether none of the lines the hunk removes (with text on them) stands anywhere in the file,
/// even inside a longer line, and it removes at least one.
fn old_text_absent(idx: &FileIndex, hunk: &Hunk) -> bool {
    let removed: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| strip_cr(&l.text).trim_ws())
        .filter(|t| !t.is_empty())
        .collect();
    !removed.is_empty() && removed.iter().all(|t| !idx.doc.text.contains(t))
}

/// Whether hunk `x` only deletes lines the applied hunk adds: every removed line with text one
/// it adds (blank lines may go with them), at least one such line, and nothing but blank lines
/// written.
fn moved_away(doc: &Doc, ops: &[Op], x: usize, added: &Added) -> bool {
    let mine: Vec<&Op> = ops.iter().filter(|o| o.hunk == x).collect();
    !mine.is_empty()
        && mine.iter().all(|o| {
            o.insert.iter().all(|n| is_blank(&n.text))
                && (o.start..o.end).all(|k| added.has(k) || is_blank(doc.line(k)))
        })
        && mine.iter().any(|o| (o.start..o.end).any(|k| added.has(k)))
}

/// Mark hunk `x` (of a move) already applied, dropping its operations.
fn made(plan: &mut Plan, ops: &mut Vec<Op>, a: usize) {
    let x = plan.report.index;
    let lo = ops.iter().filter(|o| o.hunk == x).map(|o| o.start).min();
    let hi = ops.iter().filter(|o| o.hunk == x).map(|o| o.end).max();
    ops.retain(|o| o.hunk != x);
    plan.report.status = Status::AlreadyApplied;
    plan.report.rung = None;
    if let (Some(lo), Some(hi)) = (lo, hi) {
        plan.report.lines = Some(range(lo, hi));
    }
    plan.report.message = Some(format!(
        "the lines this hunk deletes stand only where hunk {} put them: the move is already made",
        a + 1
    ));
    plan.edit = Edit::Nothing;
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use crate::apply::apply_hunks;
    use crate::edit::{Hunk, HunkLine, LineKind};
    use crate::report::Status;

    fn hunk(body: &str) -> Hunk {
        let lines = body
            .lines()
            .map(|l| {
                let (k, t) = l.split_at(1);
                let kind = match k {
                    "-" => LineKind::Remove,
                    "+" => LineKind::Add,
                    _ => LineKind::Context,
                };
                HunkLine::new(kind, t)
            })
            .collect();
        Hunk {
            lines,
            ..Hunk::default()
        }
    }

    const TWO: &str = "fast {\n  limit: 3,\n  get,\n}\nslow {\n  limit: 4,\n  get,\n}\n";

    #[test]
    fn a_chain_written_first_places_the_retried_hunk_at_its_old_text() {
        let x = hunk("-  limit: 3,\n+  limit: 2,\n   get,");
        // Its result stands exactly in `fast`, its old text only with other whitespace in `slow`.
        let a = hunk("-  limit: 4,  \n+  limit: 3,\n   get,\n }");
        let out = apply_hunks(TWO, &[x.clone(), a.clone()], None);
        assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
        assert_eq!(
            out.new_text.unwrap(),
            "fast {\n  limit: 2,\n  get,\n}\nslow {\n  limit: 3,\n  get,\n}\n"
        );
        // Written after it, the chain reads either way: refused (the retried hunk's old line
        // still stands beside its result, so it is not taken as applied either).
        let out = apply_hunks(TWO, &[a, x], None);
        assert!(
            matches!(out.status, Status::Conflict | Status::NotFound),
            "{:#?}",
            out.hunks
        );
        assert_eq!(out.new_text, None);
    }

    #[test]
    fn a_move_already_made_is_already_applied() {
        let file = "a\nb\nnew\nBADGE1\nBADGE2\nc\n";
        let a = hunk("-old\n+new\n+BADGE1\n+BADGE2");
        let out = apply_hunks(file, &[hunk("-BADGE1\n-BADGE2"), a.clone()], None);
        assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
        assert_eq!(out.new_text, None);
        // The delete writes text of its own: that text is nowhere, refused.
        let out = apply_hunks(
            file,
            &[hunk("-BADGE1\n-BADGE2\n+see below"), a.clone()],
            None,
        );
        assert_eq!(out.status, Status::Conflict, "{:#?}", out.hunks);
        // The applied hunk's old text stands inside another line: it may still be to do.
        let bold = "a\nbold\nnew\nBADGE1\nBADGE2\nc\n";
        let out = apply_hunks(bold, &[hunk("-BADGE1\n-BADGE2"), a], None);
        assert_eq!(out.status, Status::Conflict, "{:#?}", out.hunks);
    }
}
