//! Where one region of a snippet can go in the file.
//!
//! A region is anchored by its unchanged lines: a run at its start that stands in the file (the
//! head) and one at its end (the tail), trailing whitespace aside. Every place a run of
//! [`MIN_RUN`] lines stands is a candidate (or of the longest run, where that is shorter), not
//! only the place of the longest run: a region that adds lines like the file's own runs on
//! into them elsewhere, and the place meant must not be lost to that (where the place meant
//! holds one line only, [`nearer`] finds it). One line anchors only where it stands once. An
//! anchor must also hold a line with a letter or digit, or two lines that are not blank (a
//! blank line and a brace fit too many places). A region with no marker before it starts at
//! the file's first line instead of a head, one with no marker after it ends at the file's end
//! instead of a tail.
//!
//! Every head place is paired with every tail place after it; a pair is a placement when what
//! the file has between the anchors can become the region's lines between them without losing a
//! stretch of more than [`MAX_UNEXPLAINED`] lines that nothing in the region replaces (such a
//! stretch is code the snippet does not show and no marker stands for).

use super::marker::Region;
use crate::text::{has_words, is_blank, Doc};

/// The longest stretch of file lines between a region's anchors that may go without a
/// replacement line in the region: a deleted block. Longer, and the anchors more likely belong
/// to two different places than to a region that deletes so much.
pub(crate) const MAX_UNEXPLAINED: usize = 12;

/// Most head or tail places looked at for one region: beyond it the region is ambiguous anyway.
const MAX_PLACES: usize = 32;

/// Runs this long anchor a region wherever they stand, even where a longer one stands too.
const MIN_RUN: usize = 2;

/// How the anchors matched the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum How {
    /// Byte for byte.
    Exact,
    /// Trailing whitespace aside.
    Whitespace,
}

/// One place a region fits: it replaces file lines `start..end`, the first `head` of them and
/// the last `tail` of them being its anchors (kept as the file has them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    pub start: usize,
    pub end: usize,
    pub head: usize,
    pub tail: usize,
    pub how: How,
}

/// Every place a region fits. `left_out`: readings not in `places` that the place meant may be
/// one of, so that the places found are not weighed against each other (see `settle`) while
/// one of these could stand in the snippet's order: a head and a tail that share an end with a
/// place found but would delete more than [`MAX_UNEXPLAINED`] lines between them, or, for a
/// region that stands whole, its first lines standing elsewhere too (the span of those lines
/// alone: its tail, not looked for, lies further on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Readings {
    pub places: Vec<Placement>,
    pub left_out: Vec<Span>,
}

/// Why a region fits nowhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Miss {
    /// No run of the region's first (`head`) or last lines stands in the file with a line of
    /// substance: nothing says where it goes.
    NoAnchor { head: bool },
    /// The region starts (or ends) like file line `line` (0-based) but no marker stands for the
    /// file lines before (after) it: the snippet was cut.
    Cut { head: bool, line: usize },
    /// The region's unchanged run at its start (`head`) or end is one line, standing at
    /// several `places` (0-based file lines): one line that repeats says nothing of which.
    Short { head: bool, places: Vec<usize> },
    /// The region's anchor stands at more than [`MAX_PLACES`] `places`.
    Several { head: bool, places: Vec<usize> },
    /// The region's first lines and its last lines stand in the file, but never the first
    /// before the last.
    Crossed,
    /// The region is one line that stands in the file as it is.
    Lone,
    /// Blank lines before the first marker or after the last, where the file has other lines.
    Blanks,
    /// The region fits only where the file has fewer blank lines next to it than the snippet
    /// shows between it and its markers (`shown`: before, after); `at` is one such place.
    Layout {
        at: (usize, usize),
        shown: (usize, usize),
    },
    /// Anchors were found, but every pair of them leaves more than [`MAX_UNEXPLAINED`] file
    /// lines that nothing replaces; `lines` is the best pair's span, `lost` its longest stretch.
    Unexplained { lines: (usize, usize), lost: usize },
}

pub(super) fn same(a: &str, b: &str) -> bool {
    a == b || a.trim_end() == b.trim_end()
}

pub(super) fn forward(doc: &Doc, r: &[&str], p: usize) -> usize {
    (0..r.len())
        .take_while(|&j| p + j < doc.len() && same(r[j], doc.line(p + j)))
        .count()
}

/// How many of the region's last lines end at file line `end - 1`.
pub(super) fn backward(doc: &Doc, r: &[&str], end: usize) -> usize {
    (0..r.len().min(end))
        .take_while(|&j| same(r[r.len() - 1 - j], doc.line(end - 1 - j)))
        .count()
}

/// A place an anchor fits (the first line for a head, one past the last for a tail) and how
/// many of the region's lines it covers there.
type Run = (usize, usize);

/// Whether anchor lines can say where a region goes: a line with a letter or digit, or at
/// least two lines that are not blank (`}` and `},` together fit far fewer places than one).
fn strong(lines: &[&str]) -> bool {
    lines.iter().any(|l| has_words(l)) || lines.iter().filter(|l| !is_blank(l)).count() >= 2
}

/// The runs that may anchor the region: every place where the longest run, or [`MIN_RUN`]
/// lines if that is shorter, stand; not only the place of the longest run. The place meant may
/// run shorter than another (a region that adds lines like the file's own runs on into them
/// elsewhere), and must not be lost to it. A run of one line anchors only where it is the
/// longest and stands in one place (see also [`nearer`]).
fn anchors(
    runs: Vec<Run>,
    is_strong: impl Fn(usize) -> bool,
    head: bool,
) -> Result<Vec<Run>, Miss> {
    let line = |p: usize| if head { p } else { p - 1 };
    let best = runs.iter().map(|&(_, n)| n).max().unwrap_or(0);
    let floor = best.min(MIN_RUN);
    let at: Vec<Run> = runs
        .iter()
        .copied()
        .filter(|&(_, n)| n >= floor && is_strong(n))
        .collect();
    if at.is_empty() {
        return Err(Miss::NoAnchor { head });
    }
    if floor == 1 && at.len() > 1 {
        let places = at.iter().map(|&(p, _)| line(p)).collect();
        return Err(Miss::Short { head, places });
    }
    if at.len() > MAX_PLACES {
        let places = at.iter().map(|&(p, _)| line(p)).collect();
        return Err(Miss::Several { head, places });
    }
    Ok(at)
}

fn heads(doc: &Doc, r: &[&str]) -> Result<Vec<Run>, Miss> {
    let runs = (0..doc.len())
        .map(|p| (p, forward(doc, r, p)))
        .filter(|&(_, n)| n > 0)
        .collect();
    anchors(runs, |n| strong(&r[..n]), true)
}

fn tails(doc: &Doc, r: &[&str]) -> Result<Vec<Run>, Miss> {
    let runs = (1..=doc.len())
        .map(|e| (e, backward(doc, r, e)))
        .filter(|&(_, n)| n > 0)
        .collect();
    anchors(runs, |n| strong(&r[r.len() - n..]), false)
}

/// Without a marker before it, the region starts at line 1; it is cut when its first lines
/// stand further down the file and not at the top.
fn pinned_head(doc: &Doc, r: &[&str]) -> Result<Vec<Run>, Miss> {
    let at_top = forward(doc, r, 0);
    if at_top == 0 {
        let further = match heads(doc, r) {
            Ok(at) => at.first().map(|&(p, _)| p),
            Err(Miss::Several { places, .. } | Miss::Short { places, .. }) => {
                places.first().copied()
            }
            Err(_) => None,
        };
        if let Some(line) = further {
            return Err(Miss::Cut { head: true, line });
        }
    }
    Ok(vec![(0, at_top)])
}

/// Without a marker after it, the region ends at the file's end; as [`pinned_head`]. Where
/// only blank lines follow the place its last lines stand, it ends the file there and the
/// blank lines go, as a whole file without them would have it: nothing but layout is lost.
fn pinned_tail(doc: &Doc, r: &[&str]) -> Result<Vec<Run>, Miss> {
    let at_end = backward(doc, r, doc.len());
    if at_end == 0 {
        let further = match tails(doc, r) {
            Ok(at) => match at.as_slice() {
                [(e, _)] if *e < doc.len() && (*e..doc.len()).all(|i| is_blank(doc.line(i))) => {
                    return Ok(vec![(doc.len(), 0)]);
                }
                _ => at.first().map(|&(e, _)| e.saturating_sub(1)),
            },
            Err(Miss::Several { places, .. } | Miss::Short { places, .. }) => {
                places.first().copied()
            }
            Err(_) => None,
        };
        if let Some(line) = further {
            return Err(Miss::Cut { head: false, line });
        }
    }
    Ok(vec![(doc.len(), at_end)])
}

/// Every place the region fits (see the module docs), or why it fits nowhere. A place where
/// the file has fewer blank lines between the region and a marker than the snippet shows, or
/// only a weak anchor beside them, refuses the region: merging there might not do what the
/// snippet says (blank lines added or removed next to a marker, or a region whose context was
/// a blank line anchored elsewhere).
pub(crate) fn placements(doc: &Doc, region: &Region) -> Result<Readings, Miss> {
    let all = readings(doc, region)?;
    // One reading that fails refuses the region: dropping it could leave a wrong one alone.
    match all.places.iter().find(|p| !blanks_fit(doc, region, p)) {
        Some(p) => Err(Miss::Layout {
            at: (p.start, p.end),
            shown: region.blanks,
        }),
        None => Ok(all),
    }
}

/// Whether the file has at least the blank lines the snippet shows before the region (after
/// the marker before it) and after it (before the marker after it), next to `p`, and the
/// anchor beside them says where the region goes without them. Where the file has exactly as
/// many, the anchor needs a line with a letter or digit (braces beside a blank line fit where
/// new lines close too). One blank line shown where the file has more is layout: the marker
/// keeps what the file has. Where the file has none, it is layout only beside a marker whose
/// syntax asks for a blank line (reST), and the anchor must then be two lines or more (a
/// one-line anchor that was meant to follow a blank line may stand elsewhere without one).
/// Beside several blank lines the snippet may remove the file's others or the marker may
/// keep them, so the anchor must be two lines or more with a letter or digit; fewer in the file
/// than shown refuses.
fn blanks_fit(doc: &Doc, region: &Region, p: &Placement) -> bool {
    let (before, after) = region.blanks;
    let r = &region.lines;
    let whole = p.head + p.tail >= r.len();
    let head = if whole { &r[..] } else { &r[..p.head] };
    let tail = if whole {
        &r[..]
    } else {
        &r[r.len() - p.tail..]
    };
    let in_file_before = (0..p.start)
        .rev()
        .take_while(|&i| is_blank(doc.line(i)))
        .count();
    let in_file_after = (p.end..doc.len())
        .take_while(|&i| is_blank(doc.line(i)))
        .count();
    // One blank line beside a marker is how snippets are laid out (Cursor's own examples): the
    // marker stands for the file's own blank lines there, however many. Several are written on
    // purpose, and may be a change. Where the file has no blank line at all, the one shown is
    // the marker's only when its syntax asks for it (reST); otherwise it is a line the snippet
    // says stands there, and the file's lines up to one are lines it removes: a reading the
    // merge cannot make (two syn release pairs, `use` lines deleted before a blank line and a
    // trailing marker, kept them).
    let says = |shown: usize, in_file: usize, lines: &[&str], spaced: bool| {
        let words = lines.iter().any(|l| has_words(l));
        let long = lines.len() >= 2;
        match shown {
            0 => true,
            _ if shown == in_file => words,
            1 => words && (in_file > 1 || (in_file == 0 && spaced && long)),
            _ => shown < in_file && words && long,
        }
    };
    says(before, in_file_before, head, region.spaced.0)
        && says(after, in_file_after, tail, region.spaced.1)
}

fn readings(doc: &Doc, region: &Region) -> Result<Readings, Miss> {
    let r = &region.lines;
    if r.iter().all(|l| is_blank(l)) {
        return blank_end(doc, region).map(|places| Readings {
            places,
            left_out: Vec::new(),
        });
    }
    let starts = if region.lead {
        heads(doc, r)?
    } else {
        pinned_head(doc, r)?
    };
    let whole: Vec<usize> = starts
        .iter()
        .filter(|&&(_, n)| n == r.len())
        .map(|&(p, _)| p)
        .collect();
    if !whole.is_empty() && r.iter().filter(|l| !is_blank(l)).count() < 2 {
        // One line between markers changes nothing and says nothing: blank lines beside it
        // may be all that is left of lines it deletes.
        return Err(Miss::Lone);
    }
    if !whole.is_empty() {
        // The whole region stands in the file: unchanged (or already applied) where it is.
        // Without a marker after it, it must also end the file, else the rest would be lost.
        // Only blank lines after it end the file as well: they go (see `pinned_tail`).
        let ends_file = |end: usize| (end..doc.len()).all(|i| is_blank(doc.line(i)));
        let fit: Vec<Placement> = whole
            .iter()
            .filter(|&&p| region.trail || ends_file(p + r.len()))
            .map(|&p| {
                let end = if region.trail { p + r.len() } else { doc.len() };
                placement(doc, r, p, end, r.len(), 0)
            })
            .collect();
        if fit.is_empty() {
            return Err(Miss::Cut {
                head: false,
                line: whole[0] + r.len() - 1,
            });
        }
        let mut fit = fit;
        if region.lead && region.trail {
            fit.extend(deletions(doc, region, &starts));
        }
        // Its first lines also stand elsewhere: a head there, with a tail further on, is a
        // reading not looked at here.
        let left_out = starts
            .iter()
            .filter(|&&(_, n)| n < r.len())
            .map(|&(p, n)| (p, p + n))
            .collect();
        return Ok(Readings {
            places: fit,
            left_out,
        });
    }
    let ends = if region.trail {
        tails(doc, r)?
    } else {
        pinned_tail(doc, r)?
    };
    let (mut out, worst, dropped) = pairs(doc, region, &starts, &ends);
    // A pair left out for the stretch it loses, sharing an end with a pair kept, is a reading
    // of the same place that the counts would not weigh.
    let left_out: Vec<Span> = dropped
        .into_iter()
        .filter(|&(p, e)| out.iter().any(|q| q.start == p || q.end == e))
        .collect();
    if out.is_empty() {
        if let Some((lines, lost)) = worst {
            return Err(Miss::Unexplained { lines, lost });
        }
        return Err(Miss::Crossed);
    }
    let shadows = nearer(doc, region, &out);
    out.extend(shadows);
    Ok(Readings {
        places: out,
        left_out,
    })
}

/// Lines `start..end` of the file that a pair of anchors spans.
pub(crate) type Span = (usize, usize);

/// Every head place paired with every tail place after it, as placements; the pair that loses
/// the fewest lines among those that lose more than [`MAX_UNEXPLAINED`] in a row, with how
/// many; and the spans of all those left out. A long stretch is never taken for what the
/// region replaces, even where the region's ends pair one way only: a model that leaves out
/// lines without a marker writes the same snippet as one that deletes them (issue 28: a region
/// whose anchors leave a removed stretch that no marker stands for is refused).
fn pairs(
    doc: &Doc,
    region: &Region,
    starts: &[Run],
    ends: &[Run],
) -> (Vec<Placement>, Option<(Span, usize)>, Vec<Span>) {
    let r = &region.lines;
    let mut out = Vec::new();
    let mut dropped = Vec::new();
    let mut worst: Option<(Span, usize)> = None;
    for &(p, hp) in starts {
        for &(e, te) in ends {
            let Some((h, t)) = split(r, e.saturating_sub(p), hp, te, region) else {
                continue;
            };
            if e < p + h + t {
                continue;
            }
            let lost = unexplained(doc, r, p, e, h, t);
            if lost > MAX_UNEXPLAINED {
                dropped.push((p, e));
                if worst.is_none_or(|(_, l)| lost < l) {
                    worst = Some(((p, e), lost));
                }
                continue;
            }
            out.push(placement(doc, r, p, e, h, t));
        }
    }
    (out, worst, dropped)
}

/// A region that stands whole in the file may also be its start and its end with lines
/// deleted between them (its last lines stand again a little further on, even a brace): another
/// reading of the same snippet, so the region is ambiguous rather than already applied.
fn deletions(doc: &Doc, region: &Region, starts: &[Run]) -> Vec<Placement> {
    let r = &region.lines;
    let m = r.len();
    let mut out = Vec::new();
    for &(p, n) in starts.iter().filter(|&&(_, n)| n == m) {
        let far = (p + n + MAX_UNEXPLAINED).min(doc.len());
        for e in p + n + 1..=far {
            let t = backward(doc, r, e).min(m - 1);
            if t >= 1 && strong(&r[..m - t]) {
                out.push(placement(doc, r, p, e, m - t, t));
            }
        }
    }
    out
}

/// Blank lines before the first marker or after the last say the file begins or ends with
/// them: in place when it does, else refused (they may be all that is left of lines the
/// snippet deletes there).
fn blank_end(doc: &Doc, region: &Region) -> Result<Vec<Placement>, Miss> {
    let k = region.lines.len();
    let n = doc.len();
    let (start, fits) = if region.trail {
        (0, k <= n && (0..k).all(|i| is_blank(doc.line(i))))
    } else {
        let s = n.saturating_sub(k);
        (s, k <= n && (s..n).all(|i| is_blank(doc.line(i))))
    };
    if !fits {
        return Err(Miss::Blanks);
    }
    Ok(vec![placement(doc, &region.lines, start, start + k, k, 0)])
}

/// How many of the region's lines are its head and tail anchors in a span of `span` file
/// lines: the runs found, shortened where they overlap (a region that repeats the file's own
/// lines, say an inserted test like the one before it, runs its head on into the lines it
/// adds); `None` when an anchor the region needs is left without a line of substance.
fn split(r: &[&str], span: usize, h: usize, t: usize, region: &Region) -> Option<(usize, usize)> {
    let t = t.min(r.len()).min(span);
    let h = h.min(r.len() - t).min(span - t);
    let head_ok = !region.lead || (h >= 1 && strong(&r[..h]));
    let tail_ok = !region.trail || (t >= 1 && strong(&r[r.len() - t..]));
    (head_ok && tail_ok).then_some((h, t))
}

pub(super) fn placement(
    doc: &Doc,
    r: &[&str],
    start: usize,
    end: usize,
    head: usize,
    tail: usize,
) -> Placement {
    let exact = (0..head).all(|j| r[j] == doc.line(start + j))
        && (0..tail).all(|j| r[r.len() - 1 - j] == doc.line(end - 1 - j));
    Placement {
        start,
        end,
        head,
        tail,
        how: if exact { How::Exact } else { How::Whitespace },
    }
}

/// The longest run of file lines between the anchors that the region's middle lines do not
/// replace: for each changed stretch, the removed lines beyond the added ones.
pub(super) fn unexplained(doc: &Doc, r: &[&str], p: usize, e: usize, h: usize, t: usize) -> usize {
    let old_len = (e - t) - (p + h);
    let new_len = r.len() - h - t;
    // Cheap bounds first: a short middle loses little, a far longer one too much.
    if old_len <= MAX_UNEXPLAINED {
        return 0;
    }
    if old_len.saturating_sub(new_len) > MAX_UNEXPLAINED * 4 {
        return old_len - new_len;
    }
    let old: Vec<&str> = (p + h..e - t).map(|i| doc.line(i).trim_end()).collect();
    let new: Vec<&str> = r[h..r.len() - t].iter().map(|l| l.trim_end()).collect();
    middle_ops(&old, &new)
        .iter()
        .map(|op| {
            let (_, o, n) = op.as_tag_tuple();
            o.len().saturating_sub(n.len())
        })
        .max()
        .unwrap_or(0)
}

/// How far apart the file's lines at `p` and the region's lines are: the lines a merge there
/// removes plus the lines it adds, trailing whitespace aside.
pub(crate) fn cost(doc: &Doc, r: &[&str], p: &Placement) -> usize {
    let (removed, added) = changes(doc, r, p);
    removed + added
}

/// The file lines a merge at `p` removes and the lines it adds, trailing whitespace aside.
pub(crate) fn changes(doc: &Doc, r: &[&str], p: &Placement) -> (usize, usize) {
    let old: Vec<&str> = (p.start..p.end).map(|i| doc.line(i).trim_end()).collect();
    let new: Vec<&str> = r.iter().map(|l| l.trim_end()).collect();
    middle_ops(&old, &new)
        .iter()
        .fold((0, 0), |(d, a), op| match op.as_tag_tuple() {
            (similar::DiffTag::Equal, _, _) => (d, a),
            (_, o, n) => (d + o.len(), a + n.len()),
        })
}

/// The line diff of a file's middle `old` against a region's middle `new`.
pub(crate) fn middle_ops(old: &[&str], new: &[&str]) -> Vec<similar::DiffOp> {
    similar::capture_diff_slices(similar::Algorithm::Myers, old, new)
}

// Shorter anchors nearer in: the other readings of a placed region.
//
// A region's unchanged run at its end may be a single line (`}`) where it is meant, while the
// lines the region adds before it are like the file's own further on, so that there the run
// is longer. The longer run is found as an anchor, the place meant is not (one line is no
// anchor), and merging there would replace the code in between. So every placement is checked
// for a nearer end: a place between its anchors where the region's last line stands too and
// the region fits as well (likewise a nearer start for its first line). Such a place is
// another reading of the snippet, added as a candidate: the region is then ambiguous and is
// refused with both places, never merged over the code between them.

/// The readings of `region` with a nearer end or start than one of `placed`.
fn nearer(doc: &Doc, region: &Region, placed: &[Placement]) -> Vec<Placement> {
    let r = &region.lines;
    let m = r.len();
    let mut out: Vec<Placement> = Vec::new();
    let push = |q: Placement, out: &mut Vec<Placement>| {
        if !placed.contains(&q) && !out.contains(&q) {
            out.push(q);
        }
    };
    for p in placed {
        if region.trail {
            // Ends nearer in than `p.end`, after the first line.
            for e in p.start + 1..p.end {
                if !same(r[m - 1], doc.line(e - 1)) {
                    continue;
                }
                let t = backward(doc, r, e).min(m - 1).max(1);
                let h = p.head.min(m - t).min((e - p.start).saturating_sub(t));
                if (region.lead && h == 0) || e < p.start + h + t {
                    continue;
                }
                if unexplained(doc, r, p.start, e, h, t) <= MAX_UNEXPLAINED {
                    push(placement(doc, r, p.start, e, h, t), &mut out);
                }
            }
        }
        if region.lead {
            // Starts nearer in than `p.start`, before the last line.
            for s in p.start + 1..p.end {
                if !same(r[0], doc.line(s)) {
                    continue;
                }
                let h = forward(doc, r, s).min(m - 1).max(1);
                let t = p.tail.min(m - h).min((p.end - s).saturating_sub(h));
                if (region.trail && t == 0) || s + h + t > p.end {
                    continue;
                }
                if unexplained(doc, r, s, p.end, h, t) <= MAX_UNEXPLAINED {
                    push(placement(doc, r, s, p.end, h, t), &mut out);
                }
            }
        }
    }
    out
}
