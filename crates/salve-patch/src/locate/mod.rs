//! The placement ladder (DESIGN.md §3.2): where in a file does a hunk go?
//!
//! [`locate`] walks the rungs for one hunk against a [`FileIndex`] and stops at the first rung
//! that finds *any* candidate: exact, trailing-ws, indent, canonical (the line-form rungs, each a
//! hash lookup in [`index`]), then blank-lines, elision and context-relax (structural rungs built
//! on [`search`]). The already-applied check sits among the line-form rungs: the post-image found
//! uniquely while the pre-image is absent (or only inside that post-image) means the edit is
//! already there. The 3-way and similar rungs need more than one hunk's view of the file and live
//! in [`place`], which also chooses between several candidates with [`evidence`]. So does the
//! [`substring`] rung, which places text replacements whose old text starts or ends mid-line.
//!
//! The ladder never returns "the first" of several candidates: it returns them all.
//!
//! # Module map
//!
//! - Finding places: [`index`] (per-file hashes of each line form), [`search`] (runs of lines in
//!   one form), [`elision`], [`gaps`] (inner context left out), [`similar`], [`substring`] (text
//!   replacements that start or end mid-line), [`gap_readings`] (a similar window read with a
//!   line left out), [`count`] (`replace_all`, `expected_replacements`).
//! - Choosing among places: [`place`] (every hunk of a file, 3-way, hints), [`evidence`] (scope
//!   lines and anchors), [`measure`] (what hunks found once say of the hints), [`plan`] (one
//!   hunk's decision), [`ambiguity`] (refusals naming several places), [`quoted_twice`] (a
//!   one-line quote the agents' tools would find twice).
//! - Already applied: [`applied_evidence`] (where the post-image stands and when that counts),
//!   [`readings`] (applied against a loose fit of the old text), [`insertion`] (what an inserted
//!   run's own lines allow), [`applied`] (two hunks that disagree about an applied place).
//! - Other readings of the hunk itself: [`variant`] (padding blanks), [`lost_plus`] (a lost `+`),
//!   [`dropped`] (blank lines the file lacks).
//! - Writing the placed lines: [`reindent`] (a uniform shift), [`levels`] (level widths mapped),
//!   [`style`] (tabs or spaces where the lines land), [`align`] (spaces between two tab levels
//!   where the file aligns with spaces after tabs), [`quoted`] (an added line indented as a
//!   quoted line takes that line's file indentation), [`mixed`] (a converting reply against a
//!   file of both styles), [`fold`] (Unicode folded back), [`kept`] (lines removed and added
//!   back unchanged).
//! - Guards that refuse rather than write a third text: [`order`] (no reordering),
//!   [`substance`] (removed lines must be the file's in substance), [`joins`] (byte readings of
//!   a text replacement that its lines rule out).
//! - Whole files: [`whole`] (elision gaps filled, content in the file's style), [`fill_guard`]
//!   (gap-shaped lines that are the file's own, fills that repeat content), [`rest`] (a
//!   trailing "rest unchanged").

mod align;
pub(crate) mod ambiguity;
pub(crate) mod applied;
pub(crate) mod applied_evidence;
pub(crate) mod count;
pub(crate) mod dropped;
pub(crate) mod elision;
pub(crate) mod evidence;
pub(crate) mod fill_guard;
pub(crate) mod fold;
pub(crate) mod gap_readings;
pub(crate) mod gaps;
pub(crate) mod index;
mod insertion;
pub(crate) mod joins;
pub(crate) mod kept;
pub(crate) mod levels;
pub(crate) mod lost_plus;
pub(crate) mod measure;
mod mixed;
pub(crate) mod order;
pub(crate) mod place;
pub(crate) mod plan;
pub(crate) mod quoted;
mod quoted_twice;
pub(crate) mod readings;
pub(crate) mod reindent;
pub(crate) mod rest;
pub(crate) mod search;
pub(crate) mod similar;
pub(crate) mod style;
pub(crate) mod substance;
pub(crate) mod substring;
pub(crate) mod variant;
pub(crate) mod whole;

use crate::edit::{Hunk, HunkLine, LineKind};
use crate::ops::{NewLine, Op};
use crate::report::Rung;
use crate::text::{canonical, has_words, strip_cr, Doc, Eol, Form};
use applied_evidence::post_hits_in;
use index::FileIndex;
use insertion::{changes_trailing_ws, slidable_insertion, substantial_insertion};
use readings::{apart, braces_astray, hollow, over_own_result, settled, writer_drift};
use search::{contiguous_fits, loose_fits, Fit, Span};
use variant::{by_line_form, places, unpadded};

/// One candidate position of a hunk.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placement {
    pub rung: Rung,
    pub fit: Fit,
    /// The hunk lines this placement uses when they differ from the hunk's own (a `maybe_added`
    /// line taken as added).
    pub lines: Option<Vec<HunkLine>>,
    pub similarity: Option<f64>,
    pub margin: Option<f64>,
    /// Where a pure insertion goes (lines are inserted before this line); unused otherwise.
    pub at: usize,
}

impl Placement {
    pub(crate) fn new(rung: Rung, fit: Fit, lines: Option<Vec<HunkLine>>) -> Self {
        Placement {
            rung,
            fit,
            lines,
            similarity: None,
            margin: None,
            at: 0,
        }
    }

    /// The file range covered, `[start, end)`; empty at the insertion point for a pure insertion.
    pub(crate) fn range(&self) -> (usize, usize) {
        if self.fit.map.is_empty() {
            (self.at, self.at)
        } else {
            self.fit.range()
        }
    }
}

/// What the ladder found for one hunk.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Found {
    /// One or more candidates, all from the rung that decided.
    Candidates(Vec<Placement>),
    /// The post-image is in the file and the pre-image is not: lines `[start, end)`.
    AlreadyApplied { start: usize, end: usize },
    /// The post-image stands at lines `[start, end)`, and context-relax finds the pre-image
    /// across that place, or a looser line form finds it there with braces read at another
    /// indentation, or (a deletion, whose post-image stood there before it too) a looser form
    /// finds it elsewhere, or (an edit adding no words) its old lines stand anywhere with a line
    /// left out, or its lines as quoted stand elsewhere with a line left out: applied already, or
    /// not yet, cannot be told.
    Unclear { start: usize, end: usize },
    /// No rung found anything.
    Nothing,
}

/// The pre-image of a set of hunk lines: texts and whether each is context.
pub(crate) fn pre_image(lines: &[HunkLine]) -> (Vec<&str>, Vec<bool>) {
    lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| (strip_cr(&l.text), l.kind == LineKind::Context))
        .unzip()
}

pub(crate) fn post_image(lines: &[HunkLine]) -> Vec<&str> {
    lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .map(|l| strip_cr(&l.text))
        .collect()
}

/// Walk the ladder (exact to context-relax) for a hunk. The hunk without its padded tail (blank
/// lines the header counts pulled in, [`Hunk::padded_tail`]) is taken when that finds the
/// pre-image by a line form and the hunk as written does not, or finds it in more places: a
/// blank line that only an over-count put in the hunk is no evidence for one of those places
/// (the blank between the diff and the prose after it matches the blank after the first of two
/// equal functions, not the last one at the end of the file); the hunk's other evidence, its
/// line hint, chooses among them, or it is refused as ambiguous. Readings with some of its
/// `maybe_added` lines as added lines ([`lost_plus`]) only when the hunk places nowhere. Inner
/// context gaps ([`gaps`]) are looked for only in line-based formats.
pub(crate) fn locate(idx: &FileIndex, hunk: &Hunk) -> Found {
    locate_as(idx, hunk, true)
}

/// [`locate`] without the already-applied verdicts: where the hunk's old text stands, for a
/// hunk found applied whose reading another hunk of the reply contradicts ([`applied`]).
pub(crate) fn locate_fresh(idx: &FileIndex, hunk: &Hunk) -> Found {
    locate_as(idx, hunk, false)
}

fn locate_as(idx: &FileIndex, hunk: &Hunk, applied: bool) -> Found {
    let gaps = hunk.substring.is_none();
    let mut found = locate_lines(idx, &hunk.lines, None, applied, gaps);
    if let Some(lines) = unpadded(hunk) {
        let alt = locate_lines(idx, &lines, Some(lines.clone()), applied, gaps);
        // The padding is the header's count, not a line of the reply: it may place a hunk
        // the written lines do not, but it must not choose one place among several the
        // written lines fit (a blank after one of two equal endings, none at the end of the
        // file); then the written lines' places are weighed by evidence and the hint.
        if by_line_form(&alt) && (!by_line_form(&found) || places(&alt) > places(&found)) {
            found = alt;
        }
    }
    if hunk.maybe_added.is_empty() {
        return found;
    }
    match found {
        Found::Nothing => lost_plus::locate_readings(idx, hunk, applied, gaps),
        // Written lines placed only by a structural rung (outer context left out, braces read
        // at another indentation) against a reading with a lost `+` that a line form places:
        // the lost-`+` line kept as context needed a line the file lacks, which the loose rung
        // supplied from elsewhere. The reading is the edit (see [`lost_plus`]).
        Found::Candidates(_) if !by_line_form(&found) => {
            let reading = lost_plus::locate_readings(idx, hunk, applied, gaps);
            if by_line_form(&reading) {
                reading
            } else {
                found
            }
        }
        _ => found,
    }
}

/// What one line form finds for a hunk: fits of the pre-image, and places of the post-image.
type FormHits = (Vec<Fit>, Vec<(usize, usize)>);

const LINE_RUNGS: [(Rung, Form); 4] = [
    (Rung::Exact, Form::Raw),
    (Rung::TrailingWs, Form::TrimEnd),
    (Rung::Indent, Form::Trim),
    (Rung::Canonical, Form::Canon),
];

pub(crate) fn locate_lines(
    idx: &FileIndex,
    lines: &[HunkLine],
    variant: Option<Vec<HunkLine>>,
    applied: bool,
    gaps: bool,
) -> Found {
    let (pre, ctx) = pre_image(lines);
    if pre.is_empty() {
        return Found::Nothing;
    }
    let post = post_image(lines);
    let added: Vec<bool> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .map(|l| l.kind == LineKind::Add)
        .collect();
    let repeats_context = slidable_insertion(lines);
    let adds_words = lines
        .iter()
        .any(|l| l.kind == LineKind::Add && l.text.chars().any(char::is_alphanumeric));
    let exact_ends = changes_trailing_ws(lines);
    let mut post_hits: Vec<Vec<(usize, usize)>> = Vec::new();
    // The one place of the post-image that `removal_stands` voided, for a deletion of run lines.
    let mut run_voided: Option<(usize, usize)> = None;
    let forms = LINE_RUNGS.map(|(_, f)| f);
    let wrap = |rung: Rung, fits: Vec<Fit>| {
        Found::Candidates(
            fits.into_iter()
                .map(|f| Placement::new(rung, f, variant.clone()))
                .collect(),
        )
    };
    let hits = |form: Form| {
        (
            contiguous_fits(idx, form, &pre),
            post_hits_in(idx, form, &pre, &post, &added, exact_ends),
        )
    };
    // Lines equal in one form are equal in every looser one: when the canonical form finds
    // neither image, the forms between exact and canonical cannot, and are never indexed.
    let mut canon: Option<FormHits> = None;
    for (rung, form) in LINE_RUNGS {
        let (fits, posts) = match form {
            Form::Raw => hits(form),
            Form::Canon => canon.take().unwrap_or_else(|| hits(form)),
            _ => {
                let c = canon.get_or_insert_with(|| hits(Form::Canon));
                if c.0.is_empty() && c.1.is_empty() {
                    post_hits.push(Vec::new());
                    continue;
                }
                hits(form)
            }
        };
        if !fits.is_empty() && !applied {
            return wrap(rung, fits);
        }
        // Where the post-image stands is evidence only as `applied` allows. A place where the
        // removed lines still stand voids the form's evidence as a whole: dropping that place
        // alone would make another occurrence look like the one place.
        let voided = posts
            .iter()
            .any(|&(s, e)| applied_evidence::removal_stands(idx.doc, lines, s, e));
        let vouches = applied_evidence::post_image_vouches(lines, form) && !voided;
        if let ([place], true, None) = (&posts[..], voided, run_voided) {
            run_voided = applied_evidence::removes_run_lines(lines).then_some(*place);
        }
        let posts = if vouches { posts } else { Vec::new() };
        if !fits.is_empty() {
            if let [(ps, pe)] = posts[..] {
                // Pre-image only inside the post-image: the edit is already there (an edit
                // that adds lines before or after its own context leaves the pre-image in
                // place). Not when an inserted run could slide along equal neighbours: then the
                // diff could have put it anywhere in a run of equal lines, and the file's run
                // may simply be one line short.
                let inside = fits.iter().all(|f| {
                    let (s, e) = f.range();
                    s >= ps && e <= pe
                });
                if inside && !repeats_context {
                    return Found::AlreadyApplied { start: ps, end: pe };
                }
                if inside && substantial_insertion(lines) {
                    // The slide leaves two readings: already applied, or a second copy of lines
                    // that already stand next to their context. A model rarely means to repeat
                    // a run of real code of its own verbatim beside itself, and retrying an
                    // applied edit is common: such an insertion is taken as applied. A short one
                    // (a blank, a brace, a copy of a neighbour) is a diff tool's window onto a
                    // run of equal lines longer than its context, and is placed as before.
                    return Found::AlreadyApplied { start: ps, end: pe };
                }
            }
            if let Some(verdict) = result_over_fits(
                idx,
                &pre,
                &fits,
                &post_hits,
                adds_words,
                removes_only(lines),
            ) {
                return verdict;
            }
            return wrap(rung, fits);
        }
        post_hits.push(posts);
    }
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
            // A text replacement is never placed with inner lines left out, but its old lines
            // standing so across the place, each byte for byte up to trailing whitespace, show
            // the edit is not made: misquoted, not applied.
            _ if !gaps && joins::gapped_fits(idx, lines).iter().any(across) => Found::Nothing,
            // A deletion's result stood there before it too: its old lines standing anywhere
            // with a line left out are misquoted, not absent (see [`joins::misquoted`]).
            _ if !adds_words && joins::misquoted(idx, lines) => Found::Unclear { start, end },
            // A deletion's post-image is context that stood before the edit too: found apart
            // from where its old text stands with a line left out (each line as quoted, see
            // [`joins`]; three lines are enough to say the old text is not gone), it tells a
            // retried deletion no better than the misquote tells an edit still to make (see
            // `result_over_fits`).
            _ if removes_only(lines)
                && joins::gapped_fits_of_at_least(idx, lines, 3)
                    .iter()
                    .any(|f| apart(f, start, end)) =>
            {
                Found::Unclear { start, end }
            }
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

/// Whether the hunk only removes lines (adds none).
fn removes_only(lines: &[HunkLine]) -> bool {
    !lines.iter().any(|l| l.kind == LineKind::Add)
}

/// The verdict on fits a looser line form found while the post-image stands by a stricter one
/// (`post_hits`, one list per stricter form; see [`readings`]), if any.
///
/// The post-image found once, apart from every fit (or hollow over it): the edit was made there,
/// and its old text merely looks like other lines (a retried edit of one of two similar blocks);
/// placing it again would write it a second time. The post-image standing exactly across a fit
/// that needs its looser form only on braces, though in several places: the edit's result read
/// at a shift, or its old text quoted at one, cannot be told.
fn result_over_fits(
    idx: &FileIndex,
    pre: &[&str],
    fits: &[Fit],
    post_hits: &[Vec<(usize, usize)>],
    adds_words: bool,
    deletion: bool,
) -> Option<Found> {
    let forms = LINE_RUNGS.map(|(_, f)| f);
    // A deletion's post-image is context that stood in the file before the edit too, and one
    // found elsewhere says little against the old text itself, found with only its writer's
    // drift (trailing whitespace, curly quotes; see [`readings`]).
    let settled_here = settled(post_hits, &forms)
        .filter(|_| !(deletion && fits.iter().all(|f| writer_drift(idx.doc, pre, f))));
    if let Some((strict, ps, pe)) = settled_here {
        let is_hollow = |f: &Fit| hollow(idx.doc, pre, f, strict, adds_words);
        if fits.iter().all(|f| apart(f, ps, pe) || is_hollow(f)) {
            // Found apart from a loose fit of its old text, a deletion's post-image tells a
            // retried deletion no better than the old text drifted (re-indented, re-spaced)
            // tells an edit still to make. Only a hollow fit (braces at other levels) is no
            // reading.
            if deletion && !fits.iter().all(is_hollow) {
                return Some(Found::Unclear { start: ps, end: pe });
            }
            return Some(Found::AlreadyApplied { start: ps, end: pe });
        }
    }
    let exact = post_hits.first().map_or(&[][..], Vec::as_slice);
    fits.iter()
        .find_map(|f| over_own_result(idx.doc, pre, f, exact))
        .map(|(start, end)| Found::Unclear { start, end })
}

/// The structural rungs (blank-lines, elision, context-relax): the first that finds the
/// pre-image, with its fits.
fn structural(
    idx: &FileIndex,
    pre: &[&str],
    ctx: &[bool],
    lines: &[HunkLine],
    gaps: bool,
) -> Option<(Rung, Vec<Fit>)> {
    let fits = search::strictest(
        Form::TrimEnd,
        &[Form::Trim],
        Form::Canon,
        |f| search::blankless_fits(idx, f, pre, ctx),
        Vec::is_empty,
    );
    if !fits.is_empty() {
        return Some((Rung::BlankLines, fits));
    }
    let fits = elision::fits(idx, pre, ctx, &elision_markers(lines));
    if !fits.is_empty() {
        return Some((Rung::Elision, fits));
    }
    // Outer context left out, the lines that still match must say where they are: a fit whose
    // matched lines are only brackets (`))`, `}`, `}`) is any function's end.
    let fits: Vec<Fit> = context_relax(idx, pre, ctx, outer_context(lines))
        .into_iter()
        .filter(|f| worded_match(idx.doc, f))
        .collect();
    if !fits.is_empty() {
        return Some((Rung::ContextRelax, fits));
    }
    let fits = if gaps {
        gaps::fits(idx, pre, ctx, lines)
    } else {
        Vec::new()
    };
    (!fits.is_empty()).then_some((Rung::ContextRelax, fits))
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
        .filter(|l| l.kind == LineKind::Add && elision::is_marker(&l.text))
        .map(|l| canonical(&l.text).into_owned())
        .collect();
    let mut used = vec![false; added.len()];
    lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| {
            if !elision::is_marker(&l.text) {
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

/// Every line the ladder may look up for these hunks, `maybe_added` variants included.
pub(crate) fn hunk_keys(hunks: &[Hunk]) -> Vec<String> {
    let mut keys = Vec::new();
    for h in hunks {
        keys.extend(h.lines.iter().map(|l| strip_cr(&l.text).to_string()));
        keys.extend(
            h.maybe_added
                .iter()
                .filter_map(|&i| h.lines.get(i))
                .map(|l| {
                    let prefix = if l.kind == LineKind::Remove { '-' } else { ' ' };
                    format!("{prefix}{}", strip_cr(&l.text))
                }),
        );
    }
    keys
}

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
    let map = &p.fit.map;
    // Removed elision markers and the file lines they stand for, which a paired added marker
    // puts back (code the model moved without writing it out).
    let mut moved: Vec<(String, Span)> = Vec::new();
    if p.rung == Rung::Elision {
        for (pi, l) in lines.iter().filter(|l| l.kind != LineKind::Add).enumerate() {
            if l.kind == LineKind::Remove && elision::is_marker(&l.text) {
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
    levels::relevel_ops(doc, lines, p, shown, &mut ops)?;
    style::restyle_ops(doc, lines, p, reply_style, &mut ops)?;
    align::check(doc, lines, p, reply_style, &ops)?;
    quoted::match_quoted(doc, lines, p, &mut ops)?;
    mixed::check(doc, lines, p, reply_style, &ops)?;
    fold::fold_ops(doc, lines, p, &mut ops)?;
    order::check(doc, lines, p, &ops)?;
    Ok(ops)
}
