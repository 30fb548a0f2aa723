//! Where the regions of a snippet fit in several orders, the reading of each region that the
//! snippet means, when the counts of its readings leave no doubt; else none and the snippet is
//! refused with its candidates.
//!
//! Two measures, each enough on its own:
//!
//! - [`dominant`]: a reading best on every count at once (it changes the fewest lines, its
//!   anchors at both ends are the longest, it spans the fewest file lines), and against a
//!   reading at another place (sharing neither its first nor its last file line) longer
//!   anchored at one end: counts weigh readings of one place, and two places with alike
//!   anchors are a region that fits twice, whichever is cheaper;
//! - [`one_place`]: the readings are one place read several ways (they share their first or
//!   their last file line), and one of them is cheaper than each other and holds more lines of
//!   substance in the anchor at the end where they differ. Readings of the same span give the
//!   same text and count as one. Readings at different places, a reading that only adds lines
//!   against one that removes some, and a shorter reading whose end falls inside the other's
//!   anchor (a run of like lines, `<br>` `<br>` `<br>`, read one line shorter) are never
//!   settled this way, nor a snippet with a region whose readings were not all looked at
//!   (`partial`: one of them would delete a long stretch, and it could stand in the snippet's
//!   order, `chain::any_in_order`);
//! - [`full_context`], where neither settles: one reading alone holds the region's first
//!   [`CONTEXT`] lines and its last [`CONTEXT`] lines as whole anchors, apart from each other
//!   (the unchanged lines around a change that Cursor's and Morph's prompts ask for; blank
//!   lines the snippet shows beside a marker count, as the file has them there), its runs
//!   at both ends are at least as long as every other reading's, and no other reading only adds
//!   lines where it removes some. A reading with shorter anchors is what a region reads as when
//!   the lines it adds or keeps are like the file's own nearby (a `}` closing a block, an item
//!   like the next); the one reading with the whole context at both ends is the place meant.

use super::anchor::{self, Placement};
use super::chain::{self, Chain};
use super::marker::Region;
use crate::text::{has_words, Doc};

/// The unchanged lines a region holds at each end around its change, as the prompts of the
/// tools that write snippets ask for them (Cursor's and Morph's: three).
const CONTEXT: usize = 3;

/// One reading per span, keeping the split with the longest anchors: the same span gives the
/// same lines whatever the split.
fn distinct_spans(places: &[Placement]) -> Vec<Placement> {
    let mut spans: Vec<Placement> = Vec::with_capacity(places.len());
    for p in places {
        match spans
            .iter_mut()
            .find(|q| (q.start, q.end) == (p.start, p.end))
        {
            Some(q) if p.head + p.tail > q.head + q.tail => *q = *p,
            Some(_) => {}
            None => spans.push(*p),
        }
    }
    spans
}

/// Several chains fit. When every region that fits several ways has a reading that one of the
/// measures settles, and those fit in order, the snippet is placed; else `None`. `partial`:
/// some region's readings were not all looked at.
pub(super) fn settle(
    source: &Doc,
    regions: &[Region],
    alive: &[Vec<Placement>],
    partial: bool,
) -> Option<Vec<Placement>> {
    let mut kept = Vec::with_capacity(alive.len());
    for (r, a) in regions.iter().zip(alive) {
        if a.len() == 1 {
            kept.push(a.clone());
            continue;
        }
        let pick = match dominant(source, r, a) {
            Some(p) => p,
            None if !partial => one_place(source, r, a).or_else(|| full_context(source, r, a))?,
            None => return None,
        };
        kept.push(vec![pick]);
    }
    match chain::choose(&kept) {
        Chain::One(picks) => Some(picks),
        _ => None,
    }
}

/// The reading of `r` among `places` that is best on every count (see the module docs), if
/// any. A region that stands as it is in one place is not settled by counts: already applied,
/// or lines deleted that the snippet cannot show.
fn dominant(source: &Doc, r: &Region, places: &[Placement]) -> Option<Placement> {
    let costs: Vec<usize> = places
        .iter()
        .map(|p| anchor::cost(source, &r.lines, p))
        .collect();
    if costs.contains(&0) {
        return None;
    }
    let (best, x) = places.iter().zip(&costs).min_by_key(|(_, &c)| c)?;
    let wins = places
        .iter()
        .zip(&costs)
        .filter(|(p, _)| *p != best)
        .all(|(p, &c)| {
            // Counts weigh readings of one place; between two places only the anchors speak.
            // Two places with alike anchors are a region that fits twice (a test changed
            // between the boilerplate lines every test has), and the cheaper one is merely the
            // shorter: the meant one may rewrite more.
            let elsewhere = p.start != best.start && p.end != best.end;
            let longer = best.head > p.head || best.tail > p.tail;
            c > *x
                && best.head >= p.head
                && best.tail >= p.tail
                && best.end - best.start <= p.end - p.start
                && (!elsewhere || longer)
        });
    wins.then_some(*best)
}

/// What one reading of a region does to the file, as [`one_place`] weighs it.
#[derive(Clone, Copy, Debug)]
struct Weighed {
    p: Placement,
    cost: usize,
    removed: usize,
    /// The region's first (last) lines that stand at the reading's start (end), however the
    /// reading divides them between anchor and new text.
    head_run: usize,
    tail_run: usize,
    /// How many of those hold a letter or digit (a blank line or a brace says little).
    head_words: usize,
    tail_words: usize,
}

fn weigh(source: &Doc, r: &Region, p: Placement) -> Weighed {
    let lines = &r.lines;
    let (removed, added) = anchor::changes(source, lines, &p);
    let head_run = if r.lead {
        anchor::forward(source, lines, p.start)
    } else {
        0
    };
    let tail_run = if r.trail {
        anchor::backward(source, lines, p.end)
    } else {
        0
    };
    let words = |ls: &[&str]| ls.iter().filter(|l| has_words(l)).count();
    Weighed {
        p,
        cost: removed + added,
        removed,
        head_run,
        tail_run,
        head_words: words(&lines[..head_run]),
        tail_words: words(&lines[lines.len() - tail_run..]),
    }
}

/// The reading of `r` among `places` that one place read several ways settles (see the
/// module docs), if any.
fn one_place(source: &Doc, r: &Region, places: &[Placement]) -> Option<Placement> {
    let spans = distinct_spans(places);
    if let [only] = spans.as_slice() {
        return Some(*only);
    }
    let weighed: Vec<Weighed> = spans.into_iter().map(|p| weigh(source, r, p)).collect();
    if weighed.iter().any(|w| w.cost == 0) {
        return None;
    }
    let mut good = weighed
        .iter()
        .filter(|b| weighed.iter().filter(|o| o.p != b.p).all(|o| beats(b, o)));
    match (good.next(), good.next()) {
        (Some(b), None) => Some(b.p),
        _ => None,
    }
}

/// Whether reading `b` is meant rather than `o`, a reading of the same place.
fn beats(b: &Weighed, o: &Weighed) -> bool {
    let (bp, op) = (b.p, o.p);
    if bp.start != op.start && bp.end != op.end {
        return false;
    }
    // Only adding lines explains the region as well as removing some does: a region that adds
    // a block like the next one reads cheaper run on into that block.
    if o.removed == 0 && b.removed > 0 {
        return false;
    }
    if o.cost <= b.cost {
        return false;
    }
    let longest = b.head_run >= o.head_run
        && b.tail_run >= o.tail_run
        && bp.end - bp.start <= op.end - op.start;
    let fuller = if bp.start == op.start {
        b.tail_words > o.tail_words && !(bp.end - b.tail_run < op.end && op.end <= bp.end)
    } else {
        b.head_words > o.head_words && !(bp.start <= op.start && op.start < bp.start + b.head_run)
    };
    longest || fuller
}

/// The one reading of `r` among `places` whose anchors are the whole context at both ends (see
/// the module docs), if there is exactly one and nothing weighs against it.
fn full_context(source: &Doc, r: &Region, places: &[Placement]) -> Option<Placement> {
    // Blank lines between a marker and the region are context the snippet shows (the file
    // has them there, `anchor::blanks_fit`), though they anchor nothing.
    let (before, after) = r.blanks;
    let whole = |p: &Placement| {
        (!r.lead || p.head + before >= CONTEXT) && (!r.trail || p.tail + after >= CONTEXT)
    };
    // A span is read whole when any split of it is: the same lines, whatever the split.
    let mut full = distinct_spans(places).into_iter().filter(|q| {
        places
            .iter()
            .any(|p| (p.start, p.end) == (q.start, q.end) && whole(p))
    });
    let (Some(b), None) = (full.next(), full.next()) else {
        return None;
    };
    let weighed: Vec<Weighed> = distinct_spans(places)
        .into_iter()
        .map(|p| weigh(source, r, p))
        .collect();
    if weighed.iter().any(|w| w.cost == 0) {
        return None;
    }
    // An end with no marker is the file's own start or end: nothing to anchor there.
    let runs = |w: &Weighed| {
        (
            if r.lead { w.head_run } else { usize::MAX },
            if r.trail { w.tail_run } else { usize::MAX },
        )
    };
    let b = weighed.iter().find(|w| w.p == b)?;
    let (bh, bt) = runs(b);
    let fits = weighed.iter().filter(|o| o.p != b.p).all(|o| {
        let (oh, ot) = runs(o);
        // Only adding lines explains a region as well as removing some (see `beats`), unless
        // that reading is anchored at one end by a single line (see `shadow`).
        let adds_only = o.removed == 0 && b.removed > 0 && !shadow(r, b, o);
        !adds_only && oh <= bh && ot <= bt
    });
    fits.then_some(b.p)
}

/// Whether `o`, a reading that only adds lines, is a shadow of `b`, the one reading with the
/// whole context at both ends: at one end its run is a single line (the region's first or last
/// line, which stands at `b`'s own end too, so one line that repeats), and it changes more
/// lines than `b`. Read so, the region's next lines, which stand in the file right after `b`'s
/// first line, would be lines it adds again beside themselves. A single line anchors nothing
/// where it repeats (`anchor`), so such a reading does not weigh against `b`. A reading with
/// two lines or more at each end still does: a region that adds an item like its neighbour
/// reads with whole context over that neighbour where the meant reading holds two lines.
fn shadow(r: &Region, b: &Weighed, o: &Weighed) -> bool {
    let head = r.lead && o.head_run == 1 && o.p.start != b.p.start;
    let tail = r.trail && o.tail_run == 1 && o.p.end != b.p.end;
    (head || tail) && b.cost < o.cost
}
