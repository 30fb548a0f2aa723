//! Three-way merge of line-based text, agreeing with `git merge-file -p` on clean merges.
//!
//! [`merge3`] diffs the base against each side (Myers), then normalises each diff the way git's
//! xdiff does before merging: change groups are slid as far up as they can go and then down
//! (merging groups they bump into), and a group that could line up with a change on the other
//! file is moved back to the last such position. Changes from the two sides that overlap or merely
//! touch in the base conflict unless they are identical, as in git; a conflicting stretch whose two
//! results are equal line for line still merges cleanly (git's "zealous" level). Lines are compared
//! with their endings, so CRLF and a missing final newline are merged byte for byte.

mod slide;
mod transplant;

use thiserror::Error;

use slide::{any_slides, slid, Way};
pub use transplant::transplant;

use crate::report::LineRange;
use crate::text::Doc;

/// The sides changed the same lines differently.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("merge conflict at lines {}", ranges.iter().map(|r| format!("{}-{}", r.start, r.end)).collect::<Vec<_>>().join(", "))]
pub struct MergeConflict {
    /// The conflicting stretches, 1-based inclusive lines of `ours`.
    pub ranges: Vec<LineRange>,
}

/// Whether the base lines a change replaces could be aligned one line earlier or later: the
/// line before the change equals its last line, or the line after equals its first.
fn slidable(b: &[&str], c: &Change) -> bool {
    if c.b0 == c.b1 {
        // A pure insertion slides when the lines around it equal its own ends; the sides' texts
        // decide that, and two equal insertions at one point are the same insertion.
        return false;
    }
    (c.b0 > 0 && b[c.b0 - 1] == b[c.b1 - 1]) || (c.b1 < b.len() && b[c.b0] == b[c.b1])
}

/// One change of a side against the base: base lines `[b0, b1)` become side lines `[s0, s1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Change {
    b0: usize,
    b1: usize,
    s0: usize,
    s1: usize,
}

fn records(text: &str) -> Vec<&str> {
    let doc = Doc::parse(text);
    (0..doc.len()).map(|i| doc.line_with_eol(i)).collect()
}

/// Merge the change from `base` to `theirs` into `ours`.
///
/// Stricter than git in one way: a change that could be aligned at several places in a run of
/// equal lines is merged at both ends of the run too (diffed from the end, and slid; see
/// [`slide`]), and a merge whose text depends on the place is a conflict.
pub fn merge3(base: &str, ours: &str, theirs: &str) -> Result<String, MergeConflict> {
    let b = records(base);
    let o = records(ours);
    let t = records(theirs);
    let co = changes(&b, &o);
    let ct = changes(&b, &t);
    if co.is_empty() {
        return Ok(theirs.to_string());
    }
    if ct.is_empty() {
        return Ok(ours.to_string());
    }
    let merged = combine(&b, &o, &t, &co, &ct)?;
    // A change standing inside a run of equal lines (the same line before and after it), or a
    // side whose diff from the end aligns it otherwise (lines repeating with a period, `b`,
    // blank, `b`), leaves the other side's alignment to chance. At a block's edge (a closing
    // `});` that an inserted block also ends with) the other alignments only make the changes
    // touch, which says nothing (below), and git's alignment, which keeps blocks whole, is taken.
    let in_run = |c: &Change| c.b0 > 0 && c.b1 < b.len() && b[c.b0 - 1] == b[c.b1];
    let slides_in_run = co.iter().any(|c| run_of(&b, &o, c).is_some())
        || ct.iter().any(|c| run_of(&b, &t, c).is_some());
    let alt_o = other_alignments(&b, &o, &co);
    let alt_t = other_alignments(&b, &t, &ct);
    let realigned = !alt_o.is_empty() || !alt_t.is_empty();
    if !co.iter().chain(&ct).any(in_run) && !slides_in_run && !realigned {
        return Ok(merged);
    }
    // Both sides changing one run of equal lines (not blank ones) have no alignment the texts
    // decide: git's, xdiff's slides and Myers' from either end each pick their own.
    if let Some(line) = shared_run(&b, &o, &co, &ct).or_else(|| shared_run(&b, &t, &ct, &co)) {
        return Err(MergeConflict {
            ranges: vec![LineRange {
                start: line + 1,
                end: line + 1,
            }],
        });
    }
    // The same changes aligned the other ways where lines repeat ([`other_alignments`]), and
    // slid to either end of their runs. Each pairing that merges must merge to the same text.
    let mut pairings: Vec<(Vec<Change>, Vec<Change>)> = Vec::new();
    let with_own = |own: &Vec<Change>, alt: Vec<Vec<Change>>| {
        std::iter::once(own.clone()).chain(alt).collect::<Vec<_>>()
    };
    let (all_o, all_t) = (with_own(&co, alt_o), with_own(&ct, alt_t));
    for (i, po) in all_o.iter().enumerate() {
        for (j, pt) in all_t.iter().enumerate() {
            if i + j > 0 {
                pairings.push((po.clone(), pt.clone()));
            }
        }
    }
    if any_slides(&co, &b, &o) || any_slides(&ct, &b, &t) {
        for (wo, wt) in [
            (Way::Up, Way::Up),
            (Way::Down, Way::Down),
            (Way::Up, Way::Down),
            (Way::Down, Way::Up),
        ] {
            pairings.push((slid(&co, &b, &o, wo), slid(&ct, &b, &t, wt)));
        }
    }
    // A pairing that conflicts says nothing: another alignment may only make two changes
    // touch, which git's rule calls a conflict. Two clean merges that differ are the ambiguity.
    for (po, pt) in pairings {
        let Ok(other) = combine(&b, &o, &t, &po, &pt) else {
            continue;
        };
        if other != merged && !blank_lines_apart(&other, &merged) {
            let line = merged
                .lines()
                .zip(other.lines())
                .take_while(|(x, y)| x == y)
                .count()
                + 1;
            return Err(MergeConflict {
                ranges: vec![LineRange {
                    start: line,
                    end: line,
                }],
            });
        }
    }
    Ok(merged)
}

/// Whether two texts differ only in where blank lines stand: the run that repeats most in any
/// file. Where a blank line goes beside the other side's change, git's pick is as good as any,
/// and refusing every such merge would refuse most stale edits near a paragraph break. Not in
/// how many stand: one blank line deleted by both sides, or by one side only, is an edit.
fn blank_lines_apart(a: &str, b: &str) -> bool {
    let blanks = |t: &str| {
        t.split_inclusive('\n')
            .filter(|l| l.trim().is_empty())
            .count()
    };
    if blanks(a) != blanks(b) {
        return false;
    }
    let solid = |t: &str| -> Vec<String> {
        t.split_inclusive('\n')
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    };
    solid(a) == solid(b)
}

/// A base line where a change of `one` (its side's lines `side`) could stand elsewhere in a run
/// of equal non-blank lines ([`run_of`]) that a change of `other` touches too.
fn shared_run(b: &[&str], side: &[&str], one: &[Change], other: &[Change]) -> Option<usize> {
    one.iter().find_map(|c| {
        let (lo, hi) = run_of(b, side, c)?;
        other
            .iter()
            .any(|d| d.b0 <= hi && d.b1 >= lo)
            .then_some(c.b0)
    })
}

/// The base lines `[lo, hi)` of the run of equal non-blank lines change `c` could be aligned
/// anywhere in: it deletes only lines of the run, or adds a line of it, beside or between
/// others. (Distinct lines added between two equal ones have one place.)
fn run_of(b: &[&str], side: &[&str], c: &Change) -> Option<(usize, usize)> {
    let before = c.b0.checked_sub(1).map(|k| b[k]);
    let after = b.get(c.b1).copied();
    let deleted = &b[c.b0..c.b1];
    let added = &side[c.s0..c.s1];
    let line = [before, after, deleted.first().copied()]
        .into_iter()
        .flatten()
        .find(|l| {
            let deletes_run = !deleted.is_empty() && deleted.iter().all(|d| d == l);
            let adds_run = added.contains(l);
            (deletes_run || adds_run) && (before == Some(*l) || after == Some(*l))
        })?;
    if line.trim().is_empty() {
        return None;
    }
    let mut lo = c.b0;
    while lo > 0 && b[lo - 1] == line {
        lo -= 1;
    }
    let mut hi = c.b1;
    while hi < b.len() && b[hi] == line {
        hi += 1;
    }
    Some((lo, hi))
}

/// The alignments of `a` to `b` other than `own` that a diff's tie-breaks give: diffed from the
/// last lines to the first (a replacement's extra or missing lines at its other end), and with
/// the texts' roles swapped (deleting before inserting where both are as short), each distinct.
fn other_alignments(a: &[&str], b: &[&str], own: &[Change]) -> Vec<Vec<Change>> {
    let mut out: Vec<Vec<Change>> = Vec::new();
    for alt in [reversed_changes(a, b), swapped_changes(a, b)] {
        if alt != own && !out.contains(&alt) && !slides(own, &alt) {
            out.push(alt);
        }
    }
    out
}

/// Whether `alt` only slides `own`'s insertions and deletions along lines they repeat (an
/// inserted test rotated into the end of its near-copy above). xdiff's slide, which `changes`
/// follows, keeps blocks whole there, as git does; a slide within a run of equal lines is
/// judged apart ([`shared_run`], [`slide`]).
fn slides(own: &[Change], alt: &[Change]) -> bool {
    let diagonal = |c: &Change| c.b0 as isize - c.s0 as isize;
    own.len() == alt.len()
        && own.iter().zip(alt).all(|(c, a)| {
            (c.b0 == c.b1 || c.s0 == c.s1)
                && c.b1 - c.b0 == a.b1 - a.b0
                && c.s1 - c.s0 == a.s1 - a.s0
                && diagonal(c) == diagonal(a)
        })
}

/// The changes turning `a` into `b`, found by diffing `b` against `a`.
fn swapped_changes(a: &[&str], b: &[&str]) -> Vec<Change> {
    changes(b, a)
        .into_iter()
        .map(|c| Change {
            b0: c.s0,
            b1: c.s1,
            s0: c.b0,
            s1: c.b1,
        })
        .collect()
}

/// The changes turning `a` into `b` as a diff from the last lines to the first aligns them.
fn reversed_changes(a: &[&str], b: &[&str]) -> Vec<Change> {
    let ra: Vec<&str> = a.iter().rev().copied().collect();
    let rb: Vec<&str> = b.iter().rev().copied().collect();
    let (n, m) = (a.len(), b.len());
    changes(&ra, &rb)
        .into_iter()
        .rev()
        .map(|c| Change {
            b0: n - c.b1,
            b1: n - c.b0,
            s0: m - c.s1,
            s1: m - c.s0,
        })
        .collect()
}

/// The merge of the changes `co` (base to ours) and `ct` (base to theirs), as git's merge does.
fn combine(
    b: &[&str],
    o: &[&str],
    t: &[&str],
    co: &[Change],
    ct: &[Change],
) -> Result<String, MergeConflict> {
    let ours_len: usize = o.iter().map(|l| l.len()).sum();
    let theirs_len: usize = t.iter().map(|l| l.len()).sum();
    // All changes in base order, tagged with their side (0 ours, 1 theirs).
    let mut all: Vec<(usize, Change)> = co
        .iter()
        .map(|c| (0, *c))
        .chain(ct.iter().map(|c| (1, *c)))
        .collect();
    all.sort_by_key(|(side, c)| (c.b0, c.b1, *side));
    // Cluster changes that overlap or touch across sides; a cluster whose two results are equal
    // (identical changes included) merges cleanly, any other is a conflict.
    let mut clusters: Vec<Vec<(usize, Change)>> = Vec::new();
    for (side, c) in all {
        let joins = clusters.last().is_some_and(|cl| {
            cl.iter()
                .any(|(s2, c2)| *s2 != side && c.b0 <= c2.b1 && c2.b0 <= c.b1)
        });
        match clusters.last_mut() {
            Some(cl) if joins => cl.push((side, c)),
            _ => clusters.push(vec![(side, c)]),
        }
    }
    let mut out = String::with_capacity(ours_len.max(theirs_len));
    let mut conflicts = Vec::new();
    let mut at = 0; // next base line to copy
    let mut ours_at = 0; // the matching line of ours, for reporting
    for cl in &clusters {
        let b0 = cl.iter().map(|(_, c)| c.b0).min().unwrap_or(at);
        let b1 = cl.iter().map(|(_, c)| c.b1).max().unwrap_or(at);
        for line in &b[at..b0] {
            out.push_str(line);
        }
        ours_at += b0 - at;
        let side_of = |side: usize| -> Vec<&str> {
            let src = if side == 0 { o } else { t };
            let mut v = Vec::new();
            let mut k = b0;
            let mut mine: Vec<&Change> = cl
                .iter()
                .filter(|(s, _)| *s == side)
                .map(|(_, c)| c)
                .collect();
            mine.sort_by_key(|c| (c.b0, c.b1));
            for c in mine {
                v.extend_from_slice(&b[k..c.b0]);
                v.extend_from_slice(&src[c.s0..c.s1]);
                k = c.b1;
            }
            v.extend_from_slice(&b[k..b1]);
            v
        };
        let mine = side_of(0);
        let sides: Vec<usize> = cl.iter().map(|(s, _)| *s).collect();
        let chosen = if sides.iter().all(|&s| s == 1) {
            side_of(1)
        } else if sides.iter().all(|&s| s == 0) {
            mine.clone()
        } else {
            let theirs_v = side_of(1);
            // Both sides changed here. Equal results merge once, unless a change sits in a run
            // of equal lines: then "the same change" may be two changes aligned onto one line
            // (two deletions of one of three equal lines), and keeping one would lose the other.
            let slides = cl.iter().any(|(_, c)| slidable(b, c));
            if theirs_v != mine || slides {
                conflicts.push(LineRange {
                    start: ours_at + 1,
                    end: (ours_at + mine.len()).max(ours_at + 1),
                });
            }
            mine.clone()
        };
        for line in &chosen {
            out.push_str(line);
        }
        ours_at += mine.len();
        at = b1;
    }
    for line in &b[at..] {
        out.push_str(line);
    }
    if conflicts.is_empty() {
        Ok(out)
    } else {
        Err(MergeConflict { ranges: conflicts })
    }
}

/// The changes turning `a` into `b`, normalised like git's xdiff.
fn changes(a: &[&str], b: &[&str]) -> Vec<Change> {
    let mut ca = vec![false; a.len()];
    let mut cb = vec![false; b.len()];
    for d in similar::capture_diff_slices(similar::Algorithm::Myers, a, b) {
        match d {
            similar::DiffOp::Equal { .. } => {}
            similar::DiffOp::Delete {
                old_index, old_len, ..
            } => ca[old_index..old_index + old_len].fill(true),
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => cb[new_index..new_index + new_len].fill(true),
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                ca[old_index..old_index + old_len].fill(true);
                cb[new_index..new_index + new_len].fill(true);
            }
        }
    }
    compact(a, &mut ca, &cb);
    compact(b, &mut cb, &ca);
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if (i < a.len() && ca[i]) || (j < b.len() && cb[j]) {
            let (i0, j0) = (i, j);
            while i < a.len() && ca[i] {
                i += 1;
            }
            while j < b.len() && cb[j] {
                j += 1;
            }
            out.push(Change {
                b0: i0,
                b1: i,
                s0: j0,
                s1: j,
            });
        } else {
            i += 1;
            j += 1;
        }
    }
    out
}

/// Slide the change groups of `recs` (flags `c`) like xdiff: as far up as possible, then as far
/// down as possible (absorbing groups bumped into) until stable; then back up to the last
/// position aligned with a change in the other file, if there was one. `other` holds the other
/// file's flags; its groups correspond to ours by the count of unchanged lines before them.
fn compact(recs: &[&str], c: &mut [bool], other: &[bool]) {
    let n = recs.len();
    let other_unchanged: Vec<usize> = (0..other.len()).filter(|&k| !other[k]).collect();
    let other_group = |k: usize| -> bool {
        let prev = if k == 0 {
            -1
        } else {
            other_unchanged
                .get(k - 1)
                .map_or(other.len() as isize, |&p| p as isize)
        };
        let next = other_unchanged
            .get(k)
            .map_or(other.len() as isize, |&p| p as isize);
        next - prev > 1
    };
    let mut start = 0;
    let mut k = 0; // unchanged lines before `start`
    loop {
        let mut end = start;
        while end < n && c[end] {
            end += 1;
        }
        if end > start {
            let mut earliest_end;
            let mut end_match;
            loop {
                let size = end - start;
                while start > 0 && recs[start - 1] == recs[end - 1] {
                    start -= 1;
                    c[start] = true;
                    end -= 1;
                    c[end] = false;
                    k -= 1;
                    while start > 0 && c[start - 1] {
                        start -= 1;
                    }
                }
                earliest_end = end;
                end_match = other_group(k).then_some(end);
                while end < n && recs[start] == recs[end] {
                    c[start] = false;
                    start += 1;
                    c[end] = true;
                    end += 1;
                    k += 1;
                    while end < n && c[end] {
                        end += 1;
                    }
                    if other_group(k) {
                        end_match = Some(end);
                    }
                }
                if size == end - start {
                    break;
                }
            }
            if end != earliest_end && end_match.is_some() {
                while !other_group(k) && start > 0 && recs[start - 1] == recs[end - 1] {
                    start -= 1;
                    c[start] = true;
                    end -= 1;
                    c[end] = false;
                    k -= 1;
                    while start > 0 && c[start - 1] {
                        start -= 1;
                    }
                }
            }
        }
        if end >= n {
            break;
        }
        start = end + 1;
        k += 1;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_deletion_that_could_fall_on_either_side_of_the_other_change_conflicts() {
        let zeros = |n: usize| "0,\n".repeat(n);
        let base = format!("[\n{}]\n", zeros(10));
        // Ours marks a line in the middle of the run; theirs deletes three of its lines, which
        // could be the three before the mark or the three after it.
        let ours = format!("[\n{}// mark\n{}]\n", zeros(6), zeros(4));
        let theirs = format!("[\n{}]\n", zeros(7));
        assert!(merge3(&base, &ours, &theirs).is_err());
        // The mark outside the run: every alignment gives the same text.
        let ours = format!("// mark\n[\n{}]\n", zeros(10));
        let merged = merge3(&base, &ours, &theirs).unwrap();
        assert_eq!(merged, format!("// mark\n[\n{}]\n", zeros(7)));
    }

    #[test]
    fn a_blank_line_on_either_side_of_the_other_change_merges_as_git_does() {
        // Ours adds a blank to a run of two; theirs inserts a paragraph into the run. Where the
        // blank goes is a tie-break, not an edit lost: merged, not refused.
        let base = "a\n\n\nb\n";
        let ours = "a\n\n\n\nb\n";
        let theirs = "a\n\nnew\n\n\nb\n";
        assert!(merge3(base, ours, theirs).is_ok());
    }

    #[test]
    fn a_replacement_that_drops_lines_of_a_run_on_either_side_of_the_other_change_conflicts() {
        let zeros = |n: usize| "0,\n".repeat(n);
        let base = format!("[\n{}]\n", zeros(12));
        // Theirs adds a line near the top and turns four lines near the bottom into two: the two
        // lines dropped may be any of the run's, before ours' mark or after it.
        let ours = format!("[\n{}// mark\n{}]\n", zeros(6), zeros(5));
        let theirs = format!("[\n0,\nnew,\n{}1,\n1,\n]\n", zeros(7));
        assert!(merge3(&base, &ours, &theirs).is_err());
    }

    #[test]
    fn merges_separate_changes() {
        let base = "a\nb\nc\nd\ne\n";
        let ours = "a\nB\nc\nd\ne\n";
        let theirs = "a\nb\nc\nD\ne\n";
        assert_eq!(merge3(base, ours, theirs).unwrap(), "a\nB\nc\nD\ne\n");
    }

    #[test]
    fn touching_changes_conflict_like_git() {
        let base = "a\nb\nc\n";
        let ours = "a\nB\nc\n";
        let theirs = "a\nb\nC\n";
        let err = merge3(base, ours, theirs).unwrap_err();
        assert_eq!(err.ranges, vec![LineRange { start: 2, end: 3 }]);
    }

    #[test]
    fn identical_changes_merge_cleanly() {
        let base = "a\nb\nc\n";
        let both = "a\nX\nc\n";
        assert_eq!(merge3(base, both, both).unwrap(), both);
        assert_eq!(merge3(base, base, both).unwrap(), both);
    }
}
