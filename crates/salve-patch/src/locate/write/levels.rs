//! Indentation that differs by more than a uniform shift (issue 14 §3 j).
//!
//! The indent rung accepts one uniform delta between the reply's indentation and the file's
//! ([`crate::locate::write::reindent`]). A reply written in another level width (two spaces a level against a
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

use crate::edit::{HunkLine, LineKind};
use crate::locate::write::indentation;
use crate::locate::write::reindent::Reindent;
use crate::locate::Placement;
use crate::ops::Op;
use crate::report::Rung;
use crate::text::{canonical_eq, is_blank, leading_ws, strip_cr, Doc};

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
    infer_levels(pairs)
}

/// Whether the (reply width, file width) pairs map along one straight line: a consistent
/// re-indentation (a shift, or a rescaling such as a 2-space reply for a 4-space file).
pub(crate) fn straight(pairs: &[(usize, usize)]) -> bool {
    match infer_levels(pairs) {
        Some(Levels::Line { .. }) => true,
        Some(Levels::Table(t)) => t.len() < 2,
        None => false,
    }
}

/// Whether the (reply width, file width) pairs map the reply's levels onto the file's one way:
/// no reply width at two file widths, and no order reversed (a shift, a rescaling, or any
/// order-keeping table).
pub(crate) fn one_way(pairs: &[(usize, usize)]) -> bool {
    infer_levels(pairs).is_some()
}

fn infer_levels(pairs: &[(usize, usize)]) -> Option<Levels> {
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

/// What all placed hunks of one file show of how the reply's level widths relate to the file's:
/// the ratio the hunks quoting two or more levels agree on, and the reply's own level width.
/// A hunk that quotes a single level cannot tell a shift from a rescaling by itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Shown {
    ratio: Ratio,
    unit: Option<usize>,
    /// The reply's most common step deeper, 8 included (which `unit` leaves out as two levels
    /// of 4 as well as one of 8): with the file's own step, it tells whether a quoted level sits
    /// at the same depth in levels on both sides.
    step: Option<usize>,
    /// Some hunk quotes a line at another width than the file's: the reply does not keep the
    /// file's widths throughout.
    respaced: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Ratio {
    /// No hunk quotes two levels.
    #[default]
    Unseen,
    /// Every hunk quoting two levels shows `file step = reply step × num / den` (reduced).
    Seen(usize, usize),
    /// The hunks disagree, or one shows no straight line.
    Unclear,
}

/// The (reply, file) indentation of every quoted line of a hunk that really matches its file
/// line (the similar rung keeps misremembered ones, which are no key). Computed once per placed
/// hunk and shared by the releveling and the quoted indentation.
pub(crate) fn matched_pairs<'a>(
    doc: &'a Doc,
    lines: &'a [HunkLine],
    p: &Placement,
) -> Vec<(&'a str, &'a str)> {
    // The pre-image's lines, walked in place (this runs for every placed hunk, twice: the
    // file's evidence and the hunk's operations).
    let pre = lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| strip_cr(&l.text));
    let mut pairs = Vec::with_capacity(p.fit.map.len());
    for (text, span) in pre.zip(&p.fit.map) {
        if span.end != span.start + 1 || span.start >= doc.len() {
            continue;
        }
        let file = doc.line(span.start);
        if !is_blank(text) && !is_blank(file) && canonical_eq(text, file) {
            pairs.push((leading_ws(text), leading_ws(file)));
        }
    }
    pairs
}

fn tabs(s: &str) -> bool {
    s.contains('\t')
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A step that tells one level's width: 8 may be one level of 8 or two of 4, so it tells none.
fn level_width(step: Option<usize>) -> Option<usize> {
    step.filter(|&w| w < 8)
}

/// The evidence all of one file's placed hunks give (see [`Shown`]).
pub(crate) fn shown<'a>(
    doc: &Doc,
    placed: impl Iterator<Item = (&'a [HunkLine], &'a Placement)>,
) -> Shown {
    let mut ratio = Ratio::Unseen;
    let mut respaced = false;
    let mut reply: Vec<&str> = Vec::new();
    for (lines, p) in placed {
        reply.extend(lines.iter().map(|l| l.text.as_str()));
        let pairs = matched_pairs(doc, lines, p);
        if pairs.iter().any(|(r, f)| tabs(r) || tabs(f)) {
            continue;
        }
        let widths: Vec<(usize, usize)> = pairs.iter().map(|(r, f)| (r.len(), f.len())).collect();
        respaced |= widths.iter().any(|(r, f)| r != f);
        let here = match infer(&widths) {
            Some(Levels::Line { num, den, .. }) => {
                let g = gcd(num, den).max(1);
                Ratio::Seen(num / g, den / g)
            }
            Some(Levels::Table(t)) if t.len() < 2 => continue,
            _ => Ratio::Unclear,
        };
        ratio = match ratio {
            Ratio::Unseen => here,
            r if r == here => r,
            _ => Ratio::Unclear,
        };
    }
    let step = indentation::step(reply.into_iter().map(strip_cr));
    Shown {
        ratio,
        unit: level_width(step),
        step,
        respaced,
    }
}

/// Re-indent the model-written lines of `ops` (one placed hunk) by the levels its matched lines
/// show, when no uniform delta explained them, or when its matched lines show a single level
/// and an added line sits at another (then a shift and a rescaling differ, and only `shown`,
/// the evidence of the reply's other hunks and of both level widths, can tell which is meant).
/// An error says why the mapping is not certain.
/// `pairs` are the hunk's [`matched_pairs`].
pub(crate) fn relevel_ops(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    pairs: &[(&str, &str)],
    shown: Shown,
    ops: &mut [Op],
) -> Result<(), String> {
    let same = p.fit.reindent == Reindent::Same;
    if same && pairs.iter().all(|(r, f)| r == f) && !single_level(pairs) {
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
    let any_tabs = pairs.iter().any(|(r, f)| tabs(r) || tabs(f))
        || written.iter().any(|t| tabs(leading_ws(t)));
    if any_tabs {
        if same && pairs.iter().any(|(r, f)| r != f) {
            return Err(unclear("tabs make the width of a level unclear"));
        }
        return Ok(());
    }
    let widths: Vec<(usize, usize)> = pairs.iter().map(|(r, f)| (r.len(), f.len())).collect();
    let levels = if single_level(pairs) {
        let (r0, f0) = widths[0];
        // The reply's own widths: by undoing the uniform delta the indent rung applied, or as
        // written after a prefix stripped (which stops at column 0, so undoing it could not
        // tell 0 from 2), where the added lines are known one for one.
        let raw = matches!(p.fit.reindent, Reindent::Strip(_))
            .then(|| reply_widths(lines, p, written.len()))
            .flatten();
        let delta = if same { 0 } else { f0 as isize - r0 as isize };
        for (k, t) in written.iter_mut().enumerate() {
            let w = match &raw {
                Some(raw) => raw[k] as isize,
                None => leading_ws(t).len() as isize - delta,
            };
            let Ok(w) = usize::try_from(w) else {
                return Err(unclear("an added line sits left of any column"));
            };
            **t = format!("{}{}", " ".repeat(w), t.trim_start_matches(' '));
        }
        if written.iter().all(|t| leading_ws(t).len() == r0) {
            Levels::Table(vec![(r0, f0)])
        } else {
            one_level(r0, f0, shown, || {
                indentation::space_unit(doc, p.range().0, p.range().1)
            })?
        }
    } else if !same || pairs.iter().all(|(r, f)| r == f) {
        return Ok(());
    } else {
        infer(&widths).ok_or_else(|| unclear("the quoted lines do not agree on how levels map"))?
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

/// The indentation widths the reply wrote its `n` non-blank added lines at, when they are
/// known one for one (no elision marker brought file lines back in their place) and indented
/// with spaces only.
fn reply_widths(lines: &[HunkLine], p: &Placement, n: usize) -> Option<Vec<usize>> {
    if p.rung == Rung::Elision {
        return None;
    }
    let raw: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text))
        .filter(|t| !is_blank(t))
        .collect();
    if raw.len() != n || raw.iter().any(|t| tabs(leading_ws(t))) {
        return None;
    }
    Some(raw.iter().map(|t| leading_ws(t).len()).collect())
}

/// Whether the quoted lines show exactly one indentation width on each side.
fn single_level(pairs: &[(&str, &str)]) -> bool {
    pairs
        .first()
        .is_some_and(|first| pairs.iter().all(|p| p == first))
}

/// The mapping for a hunk quoting the single level `r0` → `f0` with added lines at other
/// widths: the ratio the reply's other hunks show; else a rescaling when the quoted level is the
/// same depth in levels on both sides, each by its own step (8 spaces a level quoting a 2-space
/// file's first level: issue 23 §4); else refused when a rescaling from column 0 fits as well as
/// a shift (`f0` twice or half `r0`, or both at column 0 with the reply's level width off the
/// file's grid); else a shift. `file_step` is the file's most common step deeper.
fn one_level(
    r0: usize,
    f0: usize,
    shown: Shown,
    file_step: impl FnOnce() -> Option<usize>,
) -> Result<Levels, String> {
    // Looked at once, and only when some rule below asks.
    let mut file_step = Some(file_step);
    let mut seen: Option<Option<usize>> = None;
    let mut file_step = move || *seen.get_or_insert_with(|| file_step.take().and_then(|f| f()));
    let unseen = shown.ratio == Ratio::Unseen;
    if let (true, Some(u)) = (unseen && r0 != f0 && r0 > 0 && f0 > 0, shown.step) {
        if let Some(f) = file_step().filter(|&f| f != u) {
            if r0.is_multiple_of(u) && f0.is_multiple_of(f) && r0 / u == f0 / f {
                // Levels twice the file's quoted at twice its width are also the file's own
                // levels shifted by as many levels as the quote is deep (a reply indented one
                // level deeper throughout): both readings put the added lines on the file's
                // grid, at other levels, and the quote does not say which.
                if r0 == 2 * f0 {
                    return Err(one_level_unclear(&format!(
                        "its {r0} spaces for the file's {f0} fit a shift and a rescaling alike"
                    )));
                }
                return Ok(Levels::Line {
                    r0,
                    f0,
                    num: f,
                    den: u,
                });
            }
        }
    }
    let mut file_unit = || level_width(file_step());
    let (num, den) = match shown.ratio {
        Ratio::Seen(num, den) => (num, den),
        Ratio::Unclear => {
            return Err(one_level_unclear(
                "the reply's other hunks do not agree on how its levels map to the file's",
            ))
        }
        // Quoted at the file's own width while another hunk quotes the file at other widths:
        // "the reply keeps the file's widths" holds for this hunk only, and whether its other
        // levels follow the file or the rest of the reply cannot be told.
        Ratio::Unseen if r0 == f0 && shown.respaced => {
            return Err(one_level_unclear(
                "the reply's other hunks quote the file at other widths",
            ))
        }
        // A quoted level at half or twice the file's width fits a rescaling from column 0 as
        // well as a shift: the two disagree on every other level.
        Ratio::Unseen if r0 != f0 && (f0 == 2 * r0 || r0 == 2 * f0) => {
            return Err(one_level_unclear(&format!(
                "its {r0} spaces for the file's {f0} fit a shift and a rescaling alike"
            )))
        }
        // Quoted where no rescaling from column 0 fits (at the file's own nonzero width, or
        // shifted by other than half or double): the reply shifts the file's widths.
        Ratio::Unseen if r0 > 0 || f0 > 0 => (1, 1),
        Ratio::Unseen => match (shown.unit, file_unit()) {
            // The reply never steps one level deeper (its other widths are alignments such as
            // ` * ` comment lines), or the file shows no level width: nothing to rescale.
            (None, _) | (_, None) => (1, 1),
            // Whole levels of the file (a 4-space step in a 2-space Markdown file, whose code
            // blocks sit two levels in): shifted, the lines stay on the file's grid.
            (Some(u), Some(f)) if u % f == 0 => (1, 1),
            (Some(u), Some(f)) => {
                return Err(one_level_unclear(&format!(
                    "the reply uses {u}-space levels, the file {f}-space ones"
                )));
            }
        },
    };
    Ok(Levels::Line { r0, f0, num, den })
}

fn one_level_unclear(why: &str) -> String {
    format!(
        "the lines this hunk quotes show a single indentation level, so whether its added lines at other levels are shifted or rescaled into the file's levels cannot be told ({why}); write the added lines at the file's indentation, or quote lines at more levels"
    )
}

fn unclear(why: &str) -> String {
    format!(
        "the lines this hunk quotes are indented differently from the file, not by one uniform shift, and {why}; write the added lines at the file's indentation"
    )
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
    fn one_quoted_level_maps_only_with_evidence() {
        let shown = |ratio, unit| Shown {
            ratio,
            unit,
            step: None,
            respaced: false,
        };
        // Another hunk showed 2-space levels at twice the width: the ratio decides.
        let l = one_level(0, 0, shown(Ratio::Seen(2, 1), Some(2)), || Some(4)).unwrap();
        assert_eq!(l.map(2), Some(4));
        // No ratio, quoted at column 0 in both, and the reply's level width is the file's.
        let l = one_level(0, 0, shown(Ratio::Unseen, Some(4)), || Some(4)).unwrap();
        assert_eq!(l.map(4), Some(4));
        // Shifted by 2 onto column 0: no rescaling from column 0 fits, a shift.
        let l = one_level(2, 0, shown(Ratio::Unseen, Some(4)), || Some(2)).unwrap();
        assert_eq!(l.map(6), Some(4));
        // Level widths differ, or nothing tells them: refused.
        assert!(one_level(0, 0, shown(Ratio::Unseen, Some(2)), || Some(4)).is_err());
        assert!(one_level(0, 0, shown(Ratio::Unseen, Some(3)), || Some(2)).is_err());
        let l = one_level(0, 0, shown(Ratio::Unseen, Some(4)), || Some(2)).unwrap();
        assert_eq!(l.map(4), Some(4));
        // No level step in the reply (a ` * ` comment line at 1): its widths stay.
        let l = one_level(0, 0, shown(Ratio::Unseen, None), || Some(4)).unwrap();
        assert_eq!(l.map(1), Some(1));
        assert!(one_level(0, 0, shown(Ratio::Unclear, Some(4)), || Some(4)).is_err());
        // Quoted at the file's own width 2: no rescaling from column 0 fits, the widths stay.
        let l = one_level(2, 2, shown(Ratio::Unseen, Some(4)), || Some(2)).unwrap();
        assert_eq!(l.map(6), Some(6));
        // 2 for the file's 4 fits a shift by 2 and a doubling alike.
        let err = one_level(2, 4, shown(Ratio::Unseen, Some(4)), || Some(4)).unwrap_err();
        assert!(err.contains("shift and a rescaling"), "{err}");
        // Quoted at the file's widths here, at other widths in another hunk: refused.
        let respaced = Shown {
            ratio: Ratio::Unseen,
            unit: Some(4),
            step: None,
            respaced: true,
        };
        let err = one_level(0, 0, respaced, || Some(2)).unwrap_err();
        assert!(
            err.contains("other hunks quote the file at other widths"),
            "{err}"
        );
    }

    #[test]
    fn a_quoted_level_at_the_same_depth_on_both_sides_rescales() {
        let shown = |step| Shown {
            step: Some(step),
            ..Shown::default()
        };
        // Eight spaces a level quoting a two-space file's first level: a nested line at 16 is
        // the file's second level, not 10 columns.
        let l = one_level(8, 2, shown(8), || Some(2)).unwrap();
        assert_eq!(l.map(16), Some(4));
        assert_eq!(l.map(0), Some(0));
        // Four spaces a level quoting it at 4: a rescaling (8 -> 4), or the file's levels
        // shifted one level deeper (8 -> 6): both on the file's grid, so refused. The same
        // shape one size up (8 quoting 4, a line added at 16) was written as a rescaling where
        // the reply had shifted the file one level (generator seed 23, case 50493).
        for (r0, f0, u, f) in [(4, 2, 4, 2), (8, 4, 8, 4)] {
            let err = one_level(r0, f0, shown(u), || Some(f)).unwrap_err();
            assert!(err.contains("fit a shift and a rescaling alike"), "{err}");
        }
        // Eight a level quoting a two-space file's first level is no one-level shift (that
        // would be three of the file's levels): still rescaled, as above.
        // Depths that differ in levels (two of the reply's, one of the file's): a shift, as
        // before.
        let l = one_level(8, 2, shown(4), || Some(2)).unwrap();
        assert_eq!(l.map(12), Some(6));
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
