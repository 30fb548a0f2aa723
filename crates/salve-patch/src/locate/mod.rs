//! The placement ladder (DESIGN.md §3.2): where in a file does a hunk go?
//!
//! [`locate`] walks the rungs for one hunk against a [`FileIndex`] and stops at the first rung
//! that finds *any* candidate: exact, trailing-ws, indent, canonical (the line-form rungs, each a
//! hash lookup in [`rungs::index`]), then blank-lines, elision and context-relax (structural rungs built
//! on [`rungs::search`]). The already-applied check sits among the line-form rungs: the post-image found
//! uniquely while the pre-image is absent (or only inside that post-image) means the edit is
//! already there. The 3-way and similar rungs need more than one hunk's view of the file and live
//! in [`choose::place`], which also chooses between several candidates with
//! [`choose::evidence`]. So does the [`rungs::substring`] rung, which places text replacements whose old text starts or ends mid-line.
//!
//! The ladder never returns "the first" of several candidates: it returns them all.
//!
//! # Module map
//!
//! Each folder is one role; [`LADDER`] is the rung order.
//! - [`rungs`]: finding places. The per-file index of line forms, runs of lines in one form,
//!   the structural rungs (blank lines, elision, inner gaps), the similar rung and the window
//!   score it shares with its gapped readings, the substring rung, counted replacements.
//! - [`choose`]: choosing among places. Every hunk of a file together (3-way, hints), the
//!   evidence that tells candidates apart, one hunk's decision, refusals naming several places.
//! - [`applied`]: already applied. Where the post-image stands and when that counts, against a
//!   loose fit of the old text, what an inserted run allows, two hunks that disagree.
//! - [`variants`]: other readings of the hunk itself (padding blanks, a lost `+`, blank lines
//!   the file lacks, pasted no-break spaces).
//! - [`write`]: writing the placed lines in the file's terms (shift, levels, tabs or spaces,
//!   quoted indentation, folded Unicode, lines removed and added back).
//! - [`guards`]: what a relaxed rung would write that is refused instead of a third text (no
//!   reordering, removed lines that are the file's in substance, ruled-out byte readings).
//! - [`whole`]: whole files (gaps filled from the file, content in the file's style, a trailing
//!   "rest unchanged", a whole file cut short).

pub(crate) mod applied;
pub(crate) mod choose;
pub(crate) mod guards;
pub(crate) mod rungs;
pub(crate) mod variants;
pub(crate) mod whole;
pub(crate) mod write;

use crate::edit::{Hunk, HunkLine, LineKind};
use crate::report::Rung;
use crate::text::{strip_cr, Form};
use applied::applied_evidence::post_hits_in;
use applied::insertion::{changes_trailing_ws, slidable_insertion, substantial_insertion};
use applied::readings::{apart, hollow, over_own_result, settled, writer_drift};
use rungs::index::FileIndex;
use rungs::search::{contiguous_fits, Fit};
use variants::variant::{by_line_form, places, unpadded};

use rungs::loose::Unplaced;
pub(crate) use write::placed_ops::ops_for;

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
    // Sized once: an `unzip` of a filter grows both lists from empty, and this runs several
    // times for every hunk.
    let mut text = Vec::with_capacity(lines.len());
    let mut context = Vec::with_capacity(lines.len());
    for l in lines.iter().filter(|l| l.kind != LineKind::Add) {
        text.push(strip_cr(&l.text));
        context.push(l.kind == LineKind::Context);
    }
    (text, context)
}

pub(crate) fn post_image(lines: &[HunkLine]) -> Vec<&str> {
    lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .map(|l| strip_cr(&l.text))
        .collect()
}

/// For each line of the post-image ([`post_image`]), whether the hunk adds it (else it is
/// context): what tells the edit's own lines from the lines that stood before it too.
pub(crate) fn added_in_post(lines: &[HunkLine]) -> Vec<bool> {
    lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .map(|l| l.kind == LineKind::Add)
        .collect()
}

/// Walk the ladder (exact to context-relax) for a hunk. The hunk without its padded tail (blank
/// lines the header counts pulled in, [`Hunk::padded_tail`]) is taken when that finds the
/// pre-image by a line form and the hunk as written does not, or finds it in more places: a
/// blank line that only an over-count put in the hunk is no evidence for one of those places
/// (the blank between the diff and the prose after it matches the blank after the first of two
/// equal functions, not the last one at the end of the file); the hunk's other evidence, its
/// line hint, chooses among them, or it is refused as ambiguous. Readings with some of its
/// `maybe_added` lines as added lines ([`variants::lost_plus`]) only when the hunk places nowhere. Inner
/// context gaps ([`rungs::gaps`]) are looked for only in line-based formats.
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
        Found::Nothing => variants::lost_plus::locate_readings(idx, hunk, applied, gaps),
        // Written lines placed only by a structural rung (outer context left out, braces read
        // at another indentation) against a reading with a lost `+` that a line form places:
        // the lost-`+` line kept as context needed a line the file lacks, which the loose rung
        // supplied from elsewhere. The reading is the edit (see [`lost_plus`]).
        Found::Candidates(_) if !by_line_form(&found) => {
            let reading = variants::lost_plus::locate_readings(idx, hunk, applied, gaps);
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

/// The placement ladder, strictest rung first (DESIGN.md §3.2): the one place its order is
/// written. [`locate`] walks the line-form rungs, then the structural ones ([`rungs::loose`]),
/// in this order and stops at the first that finds a candidate; the file-wide rungs (3-way,
/// similar) are tried in this order by [`choose::place`] for what the walk left unplaced. The
/// substring rung places a text replacement that its lines did not place exactly.
pub(crate) const LADDER: [Rung; 10] = [
    Rung::Exact,
    Rung::Substring,
    Rung::TrailingWs,
    Rung::Indent,
    Rung::Canonical,
    Rung::BlankLines,
    Rung::Elision,
    Rung::ContextRelax,
    Rung::ThreeWay,
    Rung::Similar,
];

/// The line form a line-form rung compares in, `None` for the other rungs.
pub(crate) const fn line_form(rung: Rung) -> Option<Form> {
    match rung {
        Rung::Exact => Some(Form::Raw),
        Rung::TrailingWs => Some(Form::TrimEnd),
        Rung::Indent => Some(Form::Trim),
        Rung::Canonical => Some(Form::Canon),
        _ => None,
    }
}

/// The line-form rungs with their forms, in ladder order.
pub(crate) fn line_rungs() -> impl Iterator<Item = (Rung, Form)> {
    LADDER
        .into_iter()
        .filter_map(|r| line_form(r).map(|f| (r, f)))
}

/// The line forms of the line-form rungs, strictest first.
pub(crate) fn line_forms() -> Vec<Form> {
    line_rungs().map(|(_, f)| f).collect()
}

pub(crate) fn locate_lines(
    idx: &FileIndex,
    lines: &[HunkLine],
    variant: Option<Vec<HunkLine>>,
    applied: bool,
    gaps: bool,
) -> Found {
    let (pre, _) = pre_image(lines);
    if pre.is_empty() {
        return Found::Nothing;
    }
    let post = post_image(lines);
    let added = added_in_post(lines);
    let repeats_context = slidable_insertion(lines);
    let adds_words = adds_words(lines);
    let exact_ends = changes_trailing_ws(lines);
    let mut post_hits: Vec<Vec<(usize, usize)>> = Vec::new();
    // The one place of the post-image that `removal_stands` voided, for a deletion of run lines.
    let mut run_voided: Option<(usize, usize)> = None;
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
    for (rung, form) in line_rungs() {
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
            .any(|&(s, e)| applied::applied_evidence::removal_stands(idx.doc, lines, s, e));
        let vouches = applied::applied_evidence::post_image_vouches(lines, form) && !voided;
        if let ([place], true, None) = (&posts[..], voided, run_voided) {
            run_voided = applied::applied_evidence::removes_run_lines(lines).then_some(*place);
        }
        let posts = if vouches { posts } else { Vec::new() };
        if !fits.is_empty() {
            let found = FormFound {
                fits: &fits,
                posts: &posts,
                stricter: &post_hits,
            };
            return found
                .verdict(idx, lines, &pre, repeats_context, adds_words)
                .unwrap_or_else(|| wrap(rung, fits));
        }
        post_hits.push(posts);
    }
    rungs::loose::verdict(
        idx,
        lines,
        Unplaced {
            post_hits,
            run_voided,
        },
        applied,
        gaps,
        &wrap,
    )
}

/// Fits of the pre-image one line form found, with where that form (`posts`, when its evidence
/// counts) and the stricter ones (`stricter`) found the post-image.
struct FormFound<'a> {
    fits: &'a [Fit],
    posts: &'a [(usize, usize)],
    stricter: &'a [Vec<(usize, usize)>],
}

impl FormFound<'_> {
    /// "Applied already" or "cannot be told" when the post-image says so; `None` places the
    /// fits.
    fn verdict(
        &self,
        idx: &FileIndex,
        lines: &[HunkLine],
        pre: &[&str],
        repeats_context: bool,
        adds_words: bool,
    ) -> Option<Found> {
        if let [(ps, pe)] = self.posts[..] {
            // Pre-image only inside the post-image: the edit is already there (an edit
            // that adds lines before or after its own context leaves the pre-image in
            // place). Not when an inserted run could slide along equal neighbours: then the
            // diff could have put it anywhere in a run of equal lines, and the file's run
            // may simply be one line short.
            let inside = self.fits.iter().all(|f| {
                let (s, e) = f.range();
                s >= ps && e <= pe
            });
            if inside && !repeats_context {
                return Some(Found::AlreadyApplied { start: ps, end: pe });
            }
            if inside && substantial_insertion(lines) {
                // The slide leaves two readings: already applied, or a second copy of lines
                // that already stand next to their context. A model rarely means to repeat
                // a run of real code of its own verbatim beside itself, and retrying an
                // applied edit is common: such an insertion is taken as applied. A short one
                // (a blank, a brace, a copy of a neighbour) is a diff tool's window onto a
                // run of equal lines longer than its context, and is placed as before.
                return Some(Found::AlreadyApplied { start: ps, end: pe });
            }
        }
        result_over_fits(
            idx,
            pre,
            self.fits,
            self.stricter,
            adds_words,
            removes_only(lines),
        )
    }
}

/// Whether the hunk adds a line with a letter or digit: added words are evidence of their own
/// where the result stands, bracket and blank lines are not.
pub(crate) fn adds_words(lines: &[HunkLine]) -> bool {
    lines
        .iter()
        .any(|l| l.kind == LineKind::Add && crate::text::has_words(&l.text))
}

/// Whether the hunk only removes lines (adds none).
fn removes_only(lines: &[HunkLine]) -> bool {
    !lines.iter().any(|l| l.kind == LineKind::Add)
}

/// The verdict on fits a looser line form found while the post-image stands by a stricter one
/// (`post_hits`, one list per stricter form; see [`applied::readings`]), if any.
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
    let forms = line_forms();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_names_every_rung_once_strictest_first() {
        let mut sorted = LADDER;
        sorted.sort();
        assert_eq!(sorted, LADDER, "the ladder follows the order of `Rung`");
        assert!(sorted.windows(2).all(|w| w[0] != w[1]), "each rung once");
        let line: Vec<Rung> = line_rungs().map(|(r, _)| r).collect();
        assert_eq!(
            line,
            [Rung::Exact, Rung::TrailingWs, Rung::Indent, Rung::Canonical]
        );
        assert_eq!(
            line_forms(),
            [Form::Raw, Form::TrimEnd, Form::Trim, Form::Canon]
        );
    }
}
