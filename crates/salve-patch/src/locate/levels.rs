//! Indentation that differs by more than a uniform shift (issue 14 §3 j).
//!
//! The indent rung accepts one uniform delta between the reply's indentation and the file's
//! ([`super::reindent`]). A reply written in another level width (two spaces a level against a
//! four-space Python file) matches only at the canonical rung or looser, where whitespace is
//! folded, and no delta explains it; its added lines would then be written at the reply's raw
//! indentation, which breaks Python and misleads readers everywhere else.
//!
//! The quoted lines are the key. Each (reply line, file line) pair the placement matched gives a
//! reply indentation width and the file's. When these widths fit one straight line (file width =
//! a + reply width × ratio, the ratio taken from the pairs themselves), every added line is
//! mapped along it. When they do not, only widths seen among the pairs are mapped, as they were
//! seen. Anything else (a width that maps to a fraction of a column, a width never seen when
//! there is no straight line, tabs on either side) is not certain, and the hunk is refused.

use super::reindent::Reindent;
use super::{pre_image, Placement};
use crate::edit::HunkLine;
use crate::ops::Op;
use crate::text::{canonical, is_blank, leading_ws, Doc};

/// How the reply's indentation widths map onto the file's.
#[derive(Debug, PartialEq)]
enum Levels {
    /// `file = f0 + (reply - r0) * num / den`.
    Line {
        r0: usize,
        f0: usize,
        num: usize,
        den: usize,
    },
    /// Only the widths seen, as seen.
    Table(Vec<(usize, usize)>),
}

impl Levels {
    fn map(&self, w: usize) -> Option<usize> {
        match self {
            Levels::Line { r0, f0, num, den } => {
                let steps = w.checked_sub(*r0).map(|d| d * num);
                match steps {
                    Some(s) => s.is_multiple_of(*den).then(|| f0 + s / den),
                    None => {
                        let back = (r0 - w) * num;
                        back.is_multiple_of(*den)
                            .then(|| f0.checked_sub(back / den))?
                    }
                }
            }
            Levels::Table(t) => t.iter().find(|(r, _)| *r == w).map(|(_, f)| *f),
        }
    }
}

/// The mapping the matched pairs (reply indentation, file indentation) show, or `None` when they
/// contradict each other (one reply width at two file widths, or an order reversed).
fn infer(pairs: &[(usize, usize)]) -> Option<Levels> {
    let mut seen: Vec<(usize, usize)> = pairs.to_vec();
    seen.sort_unstable();
    seen.dedup();
    if seen
        .windows(2)
        .any(|w| w[0].0 == w[1].0 || w[0].1 >= w[1].1)
    {
        return None;
    }
    if let [(r0, f0), (r1, f1), ..] = seen[..] {
        let (num, den) = (f1 - f0, r1 - r0);
        if seen.iter().all(|&(r, f)| (f - f0) * den == (r - r0) * num) {
            return Some(Levels::Line { r0, f0, num, den });
        }
    }
    Some(Levels::Table(seen))
}

/// Re-indent the model-written lines of `ops` (one placed hunk) by the levels its matched lines
/// show, when no uniform delta explained them. An error says why the mapping is not certain.
pub(crate) fn relevel_ops(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    ops: &mut [Op],
) -> Result<(), String> {
    if p.fit.reindent != Reindent::Same {
        return Ok(());
    }
    let (pre, _) = pre_image(lines);
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (text, span) in pre.iter().zip(&p.fit.map) {
        let file = doc.line(span.start);
        // Only lines that really match are a key: the similar rung keeps misremembered ones.
        if span.end == span.start + 1
            && !is_blank(text)
            && !is_blank(file)
            && canonical(text) == canonical(file)
        {
            pairs.push((leading_ws(text), leading_ws(file)));
        }
    }
    if pairs.iter().all(|(r, f)| r == f) {
        return Ok(());
    }
    let mut written: Vec<&mut String> = ops
        .iter_mut()
        .flat_map(|o| o.insert.iter_mut())
        .filter(|n| n.eol.is_none())
        .map(|n| &mut n.text)
        .filter(|t| !is_blank(t))
        .collect();
    if written.is_empty() {
        return Ok(());
    }
    let unclear = |why: &str| {
        format!(
            "the lines this hunk quotes are indented differently from the file, not by one uniform shift, and {why}; write the added lines at the file's indentation"
        )
    };
    let tabs = |s: &str| s.contains('\t');
    if pairs.iter().any(|(r, f)| tabs(r) || tabs(f)) || written.iter().any(|t| tabs(leading_ws(t)))
    {
        return Err(unclear("tabs make the width of a level unclear"));
    }
    let widths: Vec<(usize, usize)> = pairs.iter().map(|(r, f)| (r.len(), f.len())).collect();
    let Some(levels) = infer(&widths) else {
        return Err(unclear("the quoted lines do not agree on how levels map"));
    };
    let mut out = Vec::with_capacity(written.len());
    for t in &written {
        let w = leading_ws(t).len();
        let Some(f) = levels.map(w) else {
            return Err(unclear(&format!(
                "an added line's indentation ({w} spaces) has no certain place among the file's levels"
            )));
        };
        out.push(format!("{}{}", " ".repeat(f), &t[w..]));
    }
    for (t, new) in written.iter_mut().zip(out) {
        **t = new;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn two_space_levels_become_four() {
        let l = infer(&[(0, 0), (2, 4), (4, 8)]).unwrap();
        assert_eq!(l.map(6), Some(12));
        assert_eq!(l.map(2), Some(4));
        // An offset too: the reply quoted a method body from column 0.
        let l = infer(&[(0, 4), (2, 8)]).unwrap();
        assert_eq!(l.map(4), Some(12));
        // Four-space reply into a two-space file: an odd width has no column.
        let l = infer(&[(0, 0), (4, 2)]).unwrap();
        assert_eq!(l.map(8), Some(4));
        assert_eq!(l.map(1), None);
    }

    #[test]
    fn contradictions_and_unseen_widths_are_uncertain() {
        assert_eq!(infer(&[(2, 4), (2, 8)]), None);
        assert_eq!(infer(&[(2, 8), (4, 4)]), None);
        // No straight line through 0→0, 2→4, 3→5: only the widths seen map.
        let l = infer(&[(0, 0), (2, 4), (3, 5)]).unwrap();
        assert_eq!(l.map(3), Some(5));
        assert_eq!(l.map(4), None);
    }
}
