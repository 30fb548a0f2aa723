//! Inner context the reply left out: the second half of the context-relax rung.
//!
//! Models write a hunk's context from memory and now and then skip a line inside it: a field
//! between two others, the second line of a comment, a line between the last kept line and the
//! first removed one. Context-relax proper drops outer context only; this finds the pre-image
//! with a few file lines the hunk does not mention standing between two of its lines, and keeps
//! those file lines where they are (they are neither removed nor moved).
//!
//! The rules, each for a reason:
//! - Only line-based formats (unified, git, Codex) ask for this. A text replacement quotes its
//!   old text as one piece, and one that misses a line is the model's old text not matching
//!   (issue 14 §3 n): the caller does not call this for those.
//! - At most [`MAX_GAPS`] gaps of at most [`MAX_GAP_LINES`] lines each, and at least
//!   [`MIN_LINES`] non-blank pre-image lines: a pattern mostly made of holes is no evidence.
//!   A lower bar ([`fits_of_at_least`]) serves only evidence that refuses ([`crate::locate::guards::joins::misquoted`]).
//! - A gap lies next to at least one context line. Between two removed lines it could be a
//!   line the edit means to remove too, and that is a guess.
//! - Every pattern line matches its file line in the form searched (trailing whitespace,
//!   indentation or canonical; the strictest that finds anything wins), and the indentation
//!   delta is uniform as on the other rungs.
//! - No added line stands between the two pattern lines around a gap, unless the first of them
//!   is a removed line: added lines after a removed one replace it and stand where it stood,
//!   before the gap. Anywhere else an added line beside a gap could go on either side of the
//!   file lines the hunk left out, and that is a guess. ([`crate::locate::ops_for`] refuses such a place
//!   too, and the order guard checks every result.)
//!
//! All fits are returned, every reading of each seed among them (a gap beside a line the file
//! has twice in a row may stand on either side of it, and the two readings change different
//! lines); several are narrowed by evidence or refused as ambiguous, as at every rung.

use crate::edit::{HunkLine, LineKind};
use crate::locate::rungs::index::{FileIndex, FormIndex};
use crate::locate::rungs::search::{rarest, strictest, Fit, Span};
use crate::locate::write::reindent::Reindent;
use crate::text::{hash_form, is_blank, Form};

/// Most gaps in one hunk.
pub(crate) const MAX_GAPS: usize = 2;
/// Most file lines in one gap.
pub(crate) const MAX_GAP_LINES: usize = 2;
/// Fewest non-blank pre-image lines for a hunk to be placed with gaps.
pub(crate) const MIN_LINES: usize = 4;

/// Fits of the pre-image `pre` (`ctx[i]`: line `i` is context) with inner gaps, as described in
/// the module docs.
pub(crate) fn fits(idx: &FileIndex, pre: &[&str], ctx: &[bool], lines: &[HunkLine]) -> Vec<Fit> {
    fits_of_at_least(idx, pre, ctx, lines, MIN_LINES)
}

/// [`fits`] for a pre-image of at least `min` non-blank lines: fewer than [`MIN_LINES`] serve
/// as evidence against a reading (the old text is not gone), never to place a hunk.
pub(crate) fn fits_of_at_least(
    idx: &FileIndex,
    pre: &[&str],
    ctx: &[bool],
    lines: &[HunkLine],
    min: usize,
) -> Vec<Fit> {
    let nonblank = pre.iter().filter(|l| !is_blank(l)).count();
    if nonblank < min || ctx.iter().all(|&c| c) || ctx.iter().all(|&c| !c) {
        return Vec::new();
    }
    let allowed = gap_allowed(lines);
    if allowed.len() != pre.len() || !allowed.contains(&true) {
        return Vec::new();
    }
    strictest(
        Form::TrimEnd,
        &[Form::Trim],
        Form::Canon,
        |f| fits_in(idx, f, pre, &allowed),
        Vec::is_empty,
    )
}

/// For each pre-image line `i`, whether a gap may stand between pre-image lines `i - 1` and `i`
/// (never before line 0), by the rules in the module docs.
fn gap_allowed(lines: &[HunkLine]) -> Vec<bool> {
    let mut out = Vec::new();
    let mut prev: Option<LineKind> = None;
    let mut adds_between = false;
    for l in lines {
        if l.kind == LineKind::Add {
            adds_between = true;
            continue;
        }
        out.push(match prev {
            None => false,
            Some(p) => {
                (p == LineKind::Context || l.kind == LineKind::Context)
                    && (!adds_between || p == LineKind::Remove)
            }
        });
        prev = Some(l.kind);
        adds_between = false;
    }
    out
}

/// One search in `form`: seed at every occurrence of the pattern's rarest line, walk out both
/// ways, matching line by line and skipping a few file lines where a gap is allowed.
fn fits_in(idx: &FileIndex, form: Form, pre: &[&str], allowed: &[bool]) -> Vec<Fit> {
    let fi = idx.form(form);
    let hs: Vec<u64> = pre.iter().map(|l| hash_form(form, l)).collect();
    let Some(k) = rarest(&fi, &hs) else {
        return Vec::new();
    };
    let may_gap = |i: usize| allowed[i];
    let doc = idx.doc;
    let tabs = || idx.indents_with_tabs();
    let mut out: Vec<Fit> = Vec::new();
    for o in fi.lines(hs[k]) {
        for (files, gaps) in walk(&fi, idx.len(), &hs, k, o, &may_gap) {
            if gaps == 0 {
                // Contiguous: the stricter rungs have had their say.
                continue;
            }
            let pairs = pre.iter().zip(&files).map(|(p, &f)| (*p, doc.line(f)));
            let reindent = match (form, Reindent::infer(pairs, tabs)) {
                (_, Some(r)) => r,
                (Form::Trim, None) => continue,
                (_, None) => Reindent::Same,
            };
            let fit = Fit {
                map: files.iter().map(|&f| Span::line(f)).collect(),
                reindent,
                form,
            };
            if !out.contains(&fit) {
                out.push(fit);
            }
        }
    }
    out
}

/// Most readings kept per seed: past a few, the hunk is ambiguous whichever is chosen.
const MAX_READINGS: usize = 8;

/// Every way the pattern fits with pattern line `k` on file line `o`: the file line of each
/// pattern line and the number of gaps used. Every reading, not the first: a gap next to a
/// line that equals its neighbour in the file (`#endif` quoted once where the file has two)
/// can stand on either side of it, and the two readings change different lines.
fn walk(
    fi: &FormIndex<'_>,
    total: usize,
    hs: &[u64],
    k: usize,
    o: usize,
    may_gap: &dyn Fn(usize) -> bool,
) -> Vec<(Vec<usize>, usize)> {
    let n = hs.len();
    let order: Vec<usize> = (k + 1..n).chain((0..k).rev()).collect();
    let mut files = vec![0; n];
    files[k] = o;
    let mut out = Vec::new();
    let w = Walk {
        fi,
        total,
        hs,
        k,
        may_gap,
        order: &order,
    };
    w.extend(0, &mut files, 0, &mut out);
    out
}

/// The fixed parts of one [`walk`].
struct Walk<'w, 'f> {
    fi: &'w FormIndex<'f>,
    total: usize,
    hs: &'w [u64],
    k: usize,
    may_gap: &'w dyn Fn(usize) -> bool,
    /// Pattern lines in the order they are placed: forward from `k`, then backward.
    order: &'w [usize],
}

impl Walk<'_, '_> {
    /// Place `order[step..]` given the lines placed so far, pushing each complete reading.
    fn extend(
        &self,
        step: usize,
        files: &mut Vec<usize>,
        gaps: usize,
        out: &mut Vec<(Vec<usize>, usize)>,
    ) {
        if out.len() >= MAX_READINGS {
            return;
        }
        let Some(&i) = self.order.get(step) else {
            out.push((files.clone(), gaps));
            return;
        };
        let forward = i > self.k;
        let skips = if (self.may_gap)(if forward { i } else { i + 1 }) {
            MAX_GAP_LINES
        } else {
            0
        };
        for s in 0..=skips {
            let at = if forward {
                files[i - 1] + 1 + s
            } else if files[i + 1] > s {
                files[i + 1] - 1 - s
            } else {
                break;
            };
            let more = gaps + usize::from(s > 0);
            if at >= self.total || more > MAX_GAPS || self.fi.hash(at) != self.hs[i] {
                continue;
            }
            files[i] = at;
            self.extend(step + 1, files, more, out);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::text::Doc;

    fn find(file: &str, pat: &[&str], ctx: &[bool]) -> Vec<Vec<usize>> {
        let lines: Vec<HunkLine> = pat
            .iter()
            .zip(ctx)
            .map(|(t, &c)| {
                let kind = if c {
                    LineKind::Context
                } else {
                    LineKind::Remove
                };
                HunkLine::new(kind, *t)
            })
            .collect();
        find_lines(file, &lines)
    }

    fn find_lines(file: &str, lines: &[HunkLine]) -> Vec<Vec<usize>> {
        let doc = Doc::parse(file);
        let idx = FileIndex::new(&doc);
        let (pre, ctx) = crate::locate::pre_image(lines);
        fits(&idx, &pre, &ctx, lines)
            .into_iter()
            .map(|f| f.map.iter().map(|s| s.start).collect())
            .collect()
    }

    const FILE: &str = "struct P {\n    x: i32,\n    y: i32,\n    z: i32,\n}\n\nfn f() {}\n";

    #[test]
    fn a_context_line_left_out_between_two_others() {
        let got = find(
            FILE,
            &["struct P {", "    x: i32,", "    z: i32,", "}"],
            &[true, true, false, true],
        );
        assert_eq!(got, vec![vec![0, 1, 3, 4]]);
    }

    #[test]
    fn a_gap_between_two_removed_lines_is_not_taken() {
        let got = find(
            FILE,
            &["struct P {", "    x: i32,", "    z: i32,", "}"],
            &[true, false, false, true],
        );
        assert!(got.is_empty());
    }

    #[test]
    fn contiguous_matches_and_too_few_lines_are_left_to_other_rungs() {
        let got = find(
            FILE,
            &["struct P {", "    x: i32,", "    y: i32,", "}"],
            &[true, true, false, false],
        );
        assert!(got.is_empty(), "{got:?}");
        let got = find(
            FILE,
            &["    x: i32,", "    z: i32,", "}"],
            &[true, false, true],
        );
        assert!(got.is_empty());
    }

    #[test]
    fn gaps_are_bounded() {
        let file = "a1\nb1\nx\nx\nx\nc1\nd1\n";
        let got = find(file, &["a1", "b1", "c1", "d1"], &[true, true, false, true]);
        assert!(got.is_empty());
        let file = "a1\nb1\nx\nx\nc1\nd1\n";
        let got = find(file, &["a1", "b1", "c1", "d1"], &[true, true, false, true]);
        assert_eq!(got, vec![vec![0, 1, 4, 5]]);
        let file = "a1\nx\nb1\nx\nc1\nx\nd1\ne1\n";
        let got = find(
            file,
            &["a1", "b1", "c1", "d1", "e1"],
            &[true, true, true, false, true],
        );
        assert!(got.is_empty(), "three gaps: {got:?}");
    }

    #[test]
    fn a_gap_on_either_side_of_a_repeated_line_gives_two_readings() {
        // The quote has one `#endif` where the file has two: the changed one is either.
        let file = "#if A\n#define B\n#endif\n#endif\n\n// one\n// two\n";
        let l = |k: LineKind, t: &str| HunkLine::new(k, t);
        use LineKind::{Add, Context, Remove};
        let hunk = [
            l(Context, "#if A"),
            l(Context, "#define B"),
            l(Remove, "#endif"),
            l(Add, "#fidne"),
            l(Context, ""),
            l(Context, "// one"),
            l(Context, "// two"),
        ];
        let mut got = find_lines(file, &hunk);
        got.sort();
        assert_eq!(got, vec![vec![0, 1, 2, 4, 5, 6], vec![0, 1, 3, 4, 5, 6]]);
    }

    #[test]
    fn added_lines_beside_a_gap_only_after_a_removed_line() {
        let l = |k: LineKind, t: &str| HunkLine::new(k, t);
        use LineKind::{Add, Context, Remove};
        // `- x` `+ x2` replace x; the left-out y stays after the replacement.
        let after_remove = [
            l(Context, "struct P {"),
            l(Remove, "    x: i32,"),
            l(Add, "    x: i64,"),
            l(Context, "    z: i32,"),
            l(Context, "}"),
        ];
        assert_eq!(find_lines(FILE, &after_remove), vec![vec![0, 1, 3, 4]]);
        // An insertion beside the left-out line could go on either side of it.
        let beside_insert = [
            l(Context, "struct P {"),
            l(Context, "    x: i32,"),
            l(Add, "    w: i32,"),
            l(Remove, "    z: i32,"),
            l(Context, "}"),
        ];
        assert!(find_lines(FILE, &beside_insert).is_empty());
        assert_eq!(gap_allowed(&after_remove), vec![false, true, true, true]);
        assert_eq!(gap_allowed(&beside_insert), vec![false, true, false, true]);
    }
}
