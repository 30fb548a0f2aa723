//! The structural rungs (blank-lines, elision, context-relax, inner gaps) and what their fits
//! mean once the line forms found no pre-image.
//!
//! [`crate::locate::locate_lines`] walks the line forms; when none finds the old text it hands over
//! what they saw ([`Unplaced`]: where the post-image stood in each form), and [`verdict`] asks
//! the structural rungs. Their fits are looser readings, so next to a post-image that stands as
//! quoted they decide between "applied already", "not made" and "cannot be told"; without one,
//! the first rung that finds the old text places it.

use crate::edit::{HunkLine, LineKind};
use crate::locate::applied::readings::{apart, braces_astray, hollow, settled};
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::{self, loose_fits, Fit, Span};
use crate::locate::{
    adds_words, guards::joins, line_forms, pre_image, rungs::elision, rungs::gaps, Found, LADDER,
};
use crate::report::Rung;
use crate::text::{canonical, has_words, Doc, Form};

/// What the line forms leave for the structural rungs.
pub(crate) struct Unplaced {
    /// Where the post-image stood in each line form tried, strictest first (each list empty
    /// when the form's evidence does not count).
    pub(crate) post_hits: Vec<Vec<(usize, usize)>>,
    /// The one place of the post-image that `removal_stands` voided, for a deletion of run
    /// lines.
    pub(crate) run_voided: Option<(usize, usize)>,
}

/// The ladder's answer from the structural rungs for a hunk the line forms did not place (see
/// the module docs). `wrap` makes candidates of a rung's fits.
pub(crate) fn verdict(
    idx: &FileIndex,
    lines: &[HunkLine],
    seen: Unplaced,
    applied: bool,
    gaps: bool,
    wrap: &dyn Fn(Rung, Vec<Fit>) -> Found,
) -> Found {
    let (pre, ctx) = pre_image(lines);
    let Unplaced {
        post_hits,
        run_voided,
    } = seen;
    let forms = line_forms();
    let adds_words = adds_words(lines);
    let loose = structural(idx, &pre, &ctx, lines, gaps);
    if let (Some((start, end)), Some((Rung::ContextRelax, fits)), true) =
        (run_voided, &loose, applied)
    {
        // A deletion of lines equal to the ones it keeps (a run of equal lines), its result
        // standing once with some of the removed lines beside it, and context-relax finding
        // the old text across that place: a retried deletion and a drifted first one read alike.
        if fits.iter().any(|f| !apart(f, start, end)) {
            return Found::Unclear { start, end };
        }
    }
    if let Some((strict, start, end)) = settled(&post_hits, &forms).filter(|_| applied) {
        // A structural rung finding the pre-image across the post-image's place (a deletion
        // whose context lost a blank line reads as its own result) means the edit is not made.
        // Not a fit that reads braces at another indentation over the post-image found by a
        // stricter form: that is the edit's result read at a shift (see [`readings`]).
        let misquotes = joins::misquotes(idx, lines);
        let across = |f: &Fit| {
            let (s, e) = f.range();
            !apart(f, start, end)
                && (s < start || e > end)
                && !hollow(idx.doc, &pre, f, strict, adds_words)
        };
        // Only a lost blank line, though: context-relax, which leaves outer context out, also
        // finds a retried deletion in a run of equal lines across its own result.
        // An elision fit across it reads the markers as cuts, where the post-image found them
        // as the file's own lines (`// ...` comments standing in the code): two readings too.
        return match loose {
            Some((Rung::ContextRelax | Rung::Elision, fits)) if fits.iter().any(across) => {
                Found::Unclear { start, end }
            }
            Some((rung, fits)) if fits.iter().any(across) => wrap(rung, fits),
            // Old lines standing with a line left out are misquoted, not made (see
            // [`joins::misquotes`]). A text replacement is never placed with inner lines left
            // out, but its old lines standing so across the place show the edit is not made.
            // A deletion's result stood there before it too: its old lines standing so anywhere
            // tell a retried deletion no better than the misquote tells an edit still to make.
            _ if !gaps && misquotes.iter().any(across) => Found::Nothing,
            _ if !adds_words && !misquotes.is_empty() => Found::Unclear { start, end },
            _ => Found::AlreadyApplied { start, end },
        };
    }
    if let (Some((Rung::ContextRelax, fits)), true) = (&loose, applied) {
        // Context-relax leaves outer context out, and with it what tells places apart. The
        // edit's result standing as quoted (trailing whitespace aside) in several places, one
        // apart from every fit, is the quote's own lines standing together: a retried edit
        // (a deletion of a function's last `}` made in one of two like tests) reads as well.
        let mut strict = post_hits.iter().take(2).flatten();
        if let Some(&(start, end)) = strict.find(|&&(s, e)| fits.iter().all(|f| apart(f, s, e))) {
            return Found::Unclear { start, end };
        }
    }
    match loose {
        Some((rung, fits)) => wrap(rung, fits),
        None => Found::Nothing,
    }
}

/// The structural rungs (blank-lines, elision, context-relax), in ladder order: the first that
/// finds the pre-image, with its fits.
fn structural(
    idx: &FileIndex,
    pre: &[&str],
    ctx: &[bool],
    lines: &[HunkLine],
    gaps: bool,
) -> Option<(Rung, Vec<Fit>)> {
    LADDER.into_iter().find_map(|rung| {
        let fits = structural_fits(rung, idx, pre, ctx, lines, gaps)?;
        (!fits.is_empty()).then_some((rung, fits))
    })
}

/// What one structural rung finds; `None` for a rung that is not structural.
fn structural_fits(
    rung: Rung,
    idx: &FileIndex,
    pre: &[&str],
    ctx: &[bool],
    lines: &[HunkLine],
    gaps: bool,
) -> Option<Vec<Fit>> {
    Some(match rung {
        Rung::BlankLines => search::strictest(
            Form::TrimEnd,
            &[Form::Trim],
            Form::Canon,
            |f| search::blankless_fits(idx, f, pre, ctx),
            Vec::is_empty,
        ),
        Rung::Elision => elision::fits(idx, pre, ctx, &elision_markers(lines)),
        Rung::ContextRelax => {
            // Outer context left out, the lines that still match must say where they are: a
            // fit whose matched lines are only brackets (`))`, `}`, `}`) is any function's end.
            let fits: Vec<Fit> = context_relax(idx, pre, ctx, outer_context(lines))
                .into_iter()
                .filter(|f| worded_match(idx.doc, f))
                .collect();
            // Then inner context left out, in the line-based formats only.
            if fits.is_empty() && gaps {
                gaps::fits(idx, pre, ctx, lines)
            } else {
                fits
            }
        }
        _ => return None,
    })
}

/// Whether some file line fit `f` ties a quoted line to holds a letter or digit.
fn worded_match(doc: &Doc, f: &Fit) -> bool {
    f.map
        .iter()
        .filter(|span| span.end > span.start)
        .any(|span| (span.start..span.end).any(|k| has_words(doc.line(k))))
}

/// For each pre-image line, whether the elision rung may treat it as a marker: a context marker,
/// or a removed marker paired with an added marker of the same text (the model moved code it
/// elided; the added marker brings the same lines back).
pub(crate) fn elision_markers(lines: &[HunkLine]) -> Vec<bool> {
    let added: Vec<String> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add && crate::placeholder::is_marker(&l.text))
        .map(|l| canonical(&l.text).into_owned())
        .collect();
    let mut used = vec![false; added.len()];
    lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| {
            if !crate::placeholder::is_marker(&l.text) {
                return false;
            }
            if l.kind == LineKind::Context {
                return true;
            }
            let c = canonical(&l.text);
            match (0..added.len()).find(|&k| !used[k] && added[k] == c) {
                Some(k) => {
                    used[k] = true;
                    true
                }
                None => false,
            }
        })
        .collect()
}

/// How many context lines lead and trail the hunk itself, added lines included: only those are
/// outer. A context line with an added line beyond it is inside the hunk even when it leads or
/// trails the pre-image; dropping it would let the added lines on its two sides close up (or an
/// added `return` land after the `}` it belongs before).
fn outer_context(lines: &[HunkLine]) -> (usize, usize) {
    let ctx = |l: &&HunkLine| l.kind == LineKind::Context;
    (
        lines.iter().take_while(ctx).count(),
        lines.iter().rev().take_while(ctx).count(),
    )
}

/// Context-relax: leave out up to two outer context lines per side (`outer` bounds them, see
/// [`outer_context`]), symmetrically where both sides have context, never more than a third of
/// the context; removed lines stay. A fit that reads brackets at widths its worded lines rule
/// out is another block's brackets ([`braces_astray`]), no fit.
fn context_relax(idx: &FileIndex, pre: &[&str], ctx: &[bool], outer: (usize, usize)) -> Vec<Fit> {
    let lead = ctx.iter().take_while(|&&c| c).count().min(outer.0);
    let trail = ctx.iter().rev().take_while(|&&c| c).count().min(outer.1);
    let total_ctx = ctx.iter().filter(|&&c| c).count();
    if ctx.iter().all(|&c| c) {
        // All context: nothing to keep the edit honest.
        return Vec::new();
    }
    let mut tried = Vec::new();
    for k in 1..=2usize {
        let (a, b) = (k.min(lead), k.min(trail));
        if a + b == 0 || (a + b) * 3 > total_ctx || tried.contains(&(a, b)) {
            continue;
        }
        tried.push((a, b));
        let inner = &pre[a..pre.len() - b];
        let fits: Vec<Fit> = loose_fits(idx, inner, &ctx[a..ctx.len() - b], true)
            .into_iter()
            .filter(|f| !braces_astray(idx.doc, inner, f))
            .collect();
        if fits.is_empty() {
            continue;
        }
        return fits
            .into_iter()
            .map(|f| {
                let (s, e) = f.range();
                let mut map = vec![Span::empty(s); a];
                map.extend(f.map);
                map.extend(std::iter::repeat_n(Span::empty(e), b));
                Fit { map, ..f }
            })
            .collect();
    }
    Vec::new()
}
