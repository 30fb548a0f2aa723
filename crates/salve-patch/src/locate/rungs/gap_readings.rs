//! A similar window that reads better with one file line left out: the quote dropped a line.
//!
//! The similar rung reads its best window straight, each quoted line against the file line at
//! its position. When the quote left a line out, every quoted line on one side of the gap is
//! tied to the file line next to its own. In a run of equal lines (`2,2,2,2` rows of a table)
//! or of closing braces that reading still scores high, and it puts the edit's new lines one
//! line off. So the window is also read with one of its lines left out, in both ways a gap can
//! lie: the quote's lines after the gap one line further down (the window's own start), or its
//! lines before the gap one line further up (the window starting a line earlier).
//!
//! Only the best of those readings count, and only where they move a change: a best reading
//! that puts every removed line and every insertion where the straight reading puts them
//! differs only in which context lines it ties, and the straight placement writes the same
//! file. A reading counts only if the rung would take it: every removed line the file's in
//! substance where it ties it, and byte for byte (trailing whitespace aside) wherever the
//! straight reading ties it so (a reading that takes a removed `}` at another indentation for
//! the one quoted exactly is no rival).

use crate::edit::{HunkLine, LineKind};
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::window::{gap_scores, score_window, Window};
use crate::text::canonical;

/// Where a hunk changes its pattern (its old-side lines): the indices of the lines it removes,
/// and of the lines its inserted runs go before (the pattern's length for a run at the end).
/// Added lines right after a removed line replace it and stand where it stood: not an insertion.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Changes {
    pub removed: Vec<usize>,
    pub inserted: Vec<usize>,
}

impl Changes {
    pub(crate) fn of(lines: &[HunkLine]) -> Changes {
        let mut out = Changes::default();
        let mut k = 0;
        let mut prev = LineKind::Context;
        for l in lines {
            match l.kind {
                LineKind::Remove => out.removed.push(k),
                LineKind::Add if prev != LineKind::Remove && out.inserted.last() != Some(&k) => {
                    out.inserted.push(k);
                }
                _ => {}
            }
            if l.kind != LineKind::Add {
                k += 1;
                prev = l.kind;
            }
        }
        out
    }
}

/// Whether the best reading of window `w` for `pat` with one file line left out beats the
/// straight reading and moves one of the hunk's `changes` (see the module docs).
pub(crate) fn reads_better_gapped(
    idx: &FileIndex,
    pat: &[&str],
    w: &Window,
    changes: &Changes,
) -> bool {
    let pats: Vec<Vec<char>> = pat.iter().map(|l| canonical(l).chars().collect()).collect();
    let doc = idx.doc;
    let exact = |i: usize, at: usize| pat[i].trim_end() == doc.line(at).trim_end();
    // A reading: the window starting at `start`, the gap before pattern line `gap`.
    let holds = |start: usize, gap: usize| {
        changes.removed.iter().all(|&i| {
            let at = start + i + usize::from(i >= gap);
            at < doc.len()
                && crate::locate::guards::substance::same(pat[i], doc.line(at))
                && (exact(i, at) || !exact(i, w.start + i))
        })
    };
    // Lines after the gap one further down: removed lines after it, or an insertion at or
    // after it, move.
    let later = |gap: usize| {
        changes.removed.iter().any(|&i| i >= gap) || changes.inserted.iter().any(|&c| c >= gap)
    };
    // Lines before the gap one further up: removed lines before it, or an insertion at or
    // before it, move.
    let earlier = |gap: usize| {
        changes.removed.iter().any(|&i| i < gap) || changes.inserted.iter().any(|&c| c <= gap)
    };
    let mut readings: Vec<(f64, bool)> = (1..)
        .zip(gap_scores(idx, &pats, w))
        .filter(|&(gap, _)| holds(w.start, gap))
        .map(|(gap, score)| (score, later(gap)))
        .collect();
    if let Some(up) = w.start.checked_sub(1).map(|s| score_window(idx, &pats, s)) {
        readings.extend(
            (1..)
                .zip(gap_scores(idx, &pats, &up))
                .filter(|&(gap, _)| holds(up.start, gap))
                .map(|(gap, score)| (score, earlier(gap))),
        );
    }
    let top = readings.iter().map(|r| r.0).fold(w.score, f64::max);
    top > w.score + 1e-9
        && readings
            .iter()
            .any(|&(score, moves)| moves && score >= top - 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::rungs::similar::windows;
    use crate::text::Doc;

    fn lines(body: &str) -> Vec<HunkLine> {
        body.lines()
            .map(|l| {
                let (k, t) = l.split_at(1);
                let kind = match k {
                    "-" => LineKind::Remove,
                    "+" => LineKind::Add,
                    _ => LineKind::Context,
                };
                HunkLine::new(kind, t)
            })
            .collect()
    }

    #[test]
    fn changes_name_removed_lines_and_insertion_points() {
        let c = Changes::of(&lines(" a\n-b\n+B\n c\n+x\n+y\n d\n+z"));
        assert_eq!(c.removed, vec![1]);
        // `B` replaces `b`; `x`, `y` go before `d` (index 3); `z` ends the hunk (index 4).
        assert_eq!(c.inserted, vec![3, 4]);
    }

    #[test]
    fn a_quote_one_row_short_of_a_run_before_its_last_line_is_read_a_line_up() {
        // Rows `r` with commas, a last row without one, then `]`. The quote has three rows, an
        // insertion, one more row, then `]`: it left out the comma-less row. Read straight, the
        // best window ties its last row to the comma-less one and the insertion lands a row
        // late; the window a line up, read with that row left out, matches exactly.
        let row = "  0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,";
        let last = "  0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,0x1e6,0x1e6";
        let text = format!("index = [\n{row}\n{row}\n{row}\n{row}\n{row}\n{last}\n]\ndata = [\n");
        let doc = Doc::parse(&text);
        let idx = FileIndex::new(&doc);
        let pat = [row, row, row, row, "]"];
        let wins = windows(&idx, &pat, None);
        assert_eq!(wins[0].start, 3);
        let before_last_row = Changes {
            removed: Vec::new(),
            inserted: vec![3],
        };
        assert!(reads_better_gapped(&idx, &pat, &wins[0], &before_last_row));
        // The quote's rows as the file has them: the straight reading is exact.
        let text = format!("index = [\n{row}\n{row}\n{row}\n{row}\n{row}\n]\ndata = [\n");
        let doc = Doc::parse(&text);
        let idx = FileIndex::new(&doc);
        let wins = windows(&idx, &pat, None);
        assert!(!reads_better_gapped(&idx, &pat, &wins[0], &before_last_row));
    }
}
