//! Added lines whose `+` was lost: the readings of a hunk that take some of its `maybe_added`
//! lines as added lines.
//!
//! A model that drops the `+` of an added line leaves a line that reads as context (the added
//! text started with a space) or as a removed line (it started with `-`, as a Markdown bullet
//! does). The parser lists such lines when they stand between two added lines
//! (`Hunk::maybe_added`); the same position also holds real context, for example an unchanged
//! line between two inserted blocks. So each listed line has two readings, and the hunk may mix
//! them.
//!
//! The hunk as written is always tried first. Only when it places nowhere, or only by a
//! structural rung (outer context left out, lines matched at other indentations), are readings
//! tried, fewest lines turned first; a reading a line form places is then taken over the loose
//! fit, which kept the lost-`+` line as context by matching it to another line. The first size at which any reading places decides, and only when
//! exactly one reading of that size places: two readings that both place are two different
//! edits, and the hunk is refused rather than one picked.
//!
//! A line taken as added leaves the pre-image, so the rest of the pre-image must fit the file
//! without it. A line that really is context stands in the file between its neighbours, so a
//! reading that drops it from the pre-image does not fit there; a reading that keeps a lost-`+`
//! line as context needs a line the file does not have. That is why the reading that places is
//! the one the model meant, and never a third text.

use crate::edit::{Hunk, HunkLine, LineKind};
use crate::locate::rungs::index::FileIndex;
use crate::locate::{locate_lines, Found};

/// Listed lines beyond this many are tried all at once only (the readings grow as 2^n).
const MAX_SUBSETS_OF: usize = 6;

/// The added line a `maybe_added` line stands for: its prefix back in front of its text.
fn as_added(l: &HunkLine) -> Option<HunkLine> {
    let prefix = match l.kind {
        LineKind::Context => ' ',
        LineKind::Remove => '-',
        LineKind::Add => return None,
    };
    Some(HunkLine::new(LineKind::Add, format!("{prefix}{}", l.text)))
}

/// The hunk's lines with the listed lines `turn` taken as added lines.
fn reading(hunk: &Hunk, turn: &[usize]) -> Option<Vec<HunkLine>> {
    let mut lines = hunk.lines.clone();
    for &i in turn {
        let l = lines.get_mut(i)?;
        *l = as_added(l)?;
    }
    (lines != hunk.lines).then_some(lines)
}

/// Every `k`-element subset of `0..n`, in lexicographic order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur: Vec<usize> = (0..k).collect();
    if k == 0 || k > n {
        return out;
    }
    loop {
        out.push(cur.clone());
        // The rightmost position that can still move right.
        let Some(i) = (0..k).rev().find(|&i| cur[i] < n - k + i) else {
            return out;
        };
        cur[i] += 1;
        for j in i + 1..k {
            cur[j] = cur[j - 1] + 1;
        }
    }
}

/// The ladder's answer for the first reading that places, as described in the module docs, or
/// `Found::Nothing`. `applied` and `gaps` are passed on to [`locate_lines`].
pub(crate) fn locate_readings(idx: &FileIndex, hunk: &Hunk, applied: bool, gaps: bool) -> Found {
    let listed = &hunk.maybe_added;
    let try_one = |turn: &[usize]| -> Found {
        match reading(hunk, turn) {
            Some(v) => locate_lines(idx, &v, Some(v.clone()), applied, gaps),
            None => Found::Nothing,
        }
    };
    if listed.len() > MAX_SUBSETS_OF {
        return try_one(listed);
    }
    for size in 1..=listed.len() {
        let mut hits: Vec<Found> = subsets(listed.len(), size)
            .into_iter()
            .map(|s| try_one(&s.iter().map(|&k| listed[k]).collect::<Vec<_>>()))
            .filter(|f| *f != Found::Nothing)
            .collect();
        match hits.len() {
            0 => continue,
            1 => return hits.pop().unwrap_or(Found::Nothing),
            _ => return Found::Nothing,
        }
    }
    Found::Nothing
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::text::Doc;

    fn hunk(body: &str, maybe: Vec<usize>) -> Hunk {
        let lines = body
            .lines()
            .map(|l| {
                let (k, t) = l.split_at(1);
                let kind = match k {
                    "+" => LineKind::Add,
                    "-" => LineKind::Remove,
                    _ => LineKind::Context,
                };
                HunkLine::new(kind, t)
            })
            .collect();
        Hunk {
            lines,
            maybe_added: maybe,
            ..Hunk::default()
        }
    }

    #[test]
    fn subsets_in_order() {
        assert_eq!(subsets(3, 2), vec![vec![0, 1], vec![0, 2], vec![1, 2]]);
        assert_eq!(subsets(2, 0), Vec::<Vec<usize>>::new());
        assert_eq!(subsets(1, 1), vec![vec![0]]);
    }

    #[test]
    fn a_removed_line_reads_back_as_a_bullet() {
        let h = hunk(" a\n+b\n- c\n+d\n e", vec![2]);
        let v = reading(&h, &h.maybe_added).unwrap();
        assert_eq!(v[2], HunkLine::new(LineKind::Add, "- c"));
    }

    #[test]
    fn only_the_lost_plus_line_is_turned_when_real_context_sits_between_adds() {
        // "keep" is real context between two inserted lines; "   lost" lost its `+`.
        let file = "fn f() {\n    keep();\n    end();\n}\n";
        let doc = Doc::parse(file);
        let h = hunk(
            " fn f() {\n+    one();\n     keep();\n+    two();\n    lost();\n+    three();\n     end();",
            vec![2, 4],
        );
        let idx = FileIndex::new(&doc);
        let Found::Candidates(c) = locate_readings(&idx, &h, true, false) else {
            panic!("not placed");
        };
        assert_eq!(c.len(), 1);
        let lines = c[0].lines.as_ref().unwrap();
        assert_eq!(lines[2].kind, LineKind::Context);
        assert_eq!(lines[4], HunkLine::new(LineKind::Add, "    lost();"));
    }

    #[test]
    fn two_readings_that_both_place_are_refused() {
        // Either middle line could be the one that lost its `+`: both readings fit somewhere.
        let file = "a\nx\nb\nc\ny\nd\n";
        let doc = Doc::parse(file);
        let h = hunk("+p\n x\n+q\n y\n+r", vec![1, 3]);
        let idx = FileIndex::new(&doc);
        assert_eq!(locate_readings(&idx, &h, true, false), Found::Nothing);
    }
}
