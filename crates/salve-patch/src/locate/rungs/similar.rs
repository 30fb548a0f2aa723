//! The similar rung: line-aligned edit-distance similarity, the last resort.
//!
//! Candidate windows come from seeds (file lines canonically equal to some pattern line, plus the
//! line hint), never from sliding over the file. Each window is scored line by line with a bounded
//! Levenshtein distance on canonical forms. A window is accepted only on real evidence
//! ([`accept`]): it covers the whole pattern, every line the edit removes is in it (whitespace
//! aside), enough other content matches too, and it has a high absolute score **and** a clear
//! margin over the best window that does not overlap it. Otherwise the best windows are only
//! reported, so the model can see what it missed.
//!
//! The margin is measured against the other windows read both straight and with one file line
//! left out ([`gapped_score`]): a quote that dropped a line matches every block it was taken from
//! with a gap, and two such blocks are two equal readings however differently their dropped
//! lines score when a window ties them to a quoted line. And the best window itself must not
//! read better with one of its lines left out ([`crate::locate::rungs::gap_readings`]): then the quote left a
//! line out there, and the straight reading ties every line after the gap one line off; in a
//! run of equal lines or of closing braces it still scores high, and puts the new lines one
//! line off. Where the gap is decides where they go, and the quote does not say.

use std::collections::HashMap;

use crate::locate::rungs::gap_readings::{reads_better_gapped, Changes};
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::window::{gap_scores, score_window, Window};
use crate::text::{canonical, has_words, hash_form, indent_width, is_blank, leading_ws, Doc, Form};

/// Minimum similarity for an accepted window.
pub(crate) const MIN_SCORE: f64 = 0.8;
/// Minimum lead over the best non-overlapping window.
pub(crate) const MIN_MARGIN: f64 = 0.1;
/// Minimum number of non-blank pattern lines that must equal their file lines (whitespace
/// aside): a couple of short lines that happen to match are no evidence of place.
pub(crate) const MIN_EVIDENCE_LINES: usize = 3;
/// Minimum non-whitespace characters in those matching lines, so that `}` and `end` alone do
/// not count as evidence.
pub(crate) const MIN_EVIDENCE_CHARS: usize = 24;

/// Seeds per pattern line beyond which the line is too common to vote.
const MAX_SEEDS_PER_LINE: usize = 64;
/// Windows scored per hunk.
const MAX_WINDOWS: usize = 48;

/// Scored windows for `pat`, best first.
pub(crate) fn windows(idx: &FileIndex, pat: &[&str], hint: Option<usize>) -> Vec<Window> {
    let n = pat.len();
    let total = idx.len();
    if n == 0 || total == 0 {
        return Vec::new();
    }
    let last_start = total.saturating_sub(n);
    let fi = idx.form(Form::Canon);
    let mut votes: HashMap<usize, u32> = HashMap::new();
    for (k, line) in pat.iter().enumerate() {
        if is_blank(line) {
            continue;
        }
        let h = hash_form(Form::Canon, line);
        if fi.count(h, MAX_SEEDS_PER_LINE + 1) > MAX_SEEDS_PER_LINE {
            continue;
        }
        for o in fi.lines(h) {
            if o >= k && o - k <= last_start {
                *votes.entry(o - k).or_insert(0) += 1;
            }
        }
    }
    if let Some(h) = hint {
        let s = h.saturating_sub(1).min(last_start);
        votes.entry(s).or_insert(0);
    }
    let starts: Vec<(usize, usize)> = votes.into_iter().map(|(s, v)| (s, v as usize)).collect();
    best_windows(idx, pat, starts, 0.0)
}

/// The [`MAX_WINDOWS`] starts with the most votes (`(start, votes)`), scored, those under
/// `min_score` dropped, best first (ties by position).
fn best_windows(
    idx: &FileIndex,
    pat: &[&str],
    mut starts: Vec<(usize, usize)>,
    min_score: f64,
) -> Vec<Window> {
    starts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    starts.truncate(MAX_WINDOWS);
    let pats: Vec<Vec<char>> = pat.iter().map(|l| canonical(l).chars().collect()).collect();
    let mut out: Vec<Window> = starts
        .into_iter()
        .map(|(s, _)| score_window(idx, &pats, s))
        .filter(|w| w.score >= min_score)
        .collect();
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.start.cmp(&b.start))
    });
    out
}

/// Lines of a file past which [`loose_windows`] does not look: the report would wait on it.
const LOOSE_MAX_LINES: usize = 50_000;
/// Pattern lines past which [`loose_windows`] does not look: a long quote with no line of it in
/// the file is not a near miss.
const LOOSE_MAX_PATTERN: usize = 12;
/// Below this similarity a window found only loosely is noise, not a candidate.
const LOOSE_MIN_SCORE: f64 = 0.5;

/// Windows for a short pattern none of whose lines stands in the file (a one-line quote with a
/// typo), for the refusal's candidates only, never for placing: each file line is pre-scored
/// by the character trigrams it shares with the pattern line it would face, the best starts are
/// scored as [`windows`] scores its seeds, and those below [`LOOSE_MIN_SCORE`] are dropped.
pub(crate) fn loose_windows(idx: &FileIndex, pat: &[&str]) -> Vec<Window> {
    let n = pat.len();
    let total = idx.len();
    if n == 0 || n > LOOSE_MAX_PATTERN || total < n || total > LOOSE_MAX_LINES {
        return Vec::new();
    }
    let grams = |line: &str| -> std::collections::HashSet<[char; 3]> {
        let chars: Vec<char> = squeezed(line).chars().collect();
        chars.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
    };
    let wanted: Vec<_> = pat.iter().map(|l| grams(l)).collect();
    if wanted.iter().all(|g| g.is_empty()) {
        return Vec::new();
    }
    let shared: Vec<Vec<usize>> = (0..total)
        .map(|i| {
            let have = grams(idx.doc.line(i));
            wanted
                .iter()
                .map(|w| w.intersection(&have).count())
                .collect()
        })
        .collect();
    let starts: Vec<(usize, usize)> = (0..=total - n)
        .map(|s| (s, (0..n).map(|k| shared[s + k][k]).sum()))
        .filter(|&(_, hits)| hits > 0)
        .collect();
    best_windows(idx, pat, starts, LOOSE_MIN_SCORE)
}

/// A window apart from the best one (`wins[0]`) that reads as well as it, or nearly (within
/// [`MIN_MARGIN`]), once one of its lines is left out, while read straight it does not: the
/// quote dropped a line of one of two blocks alike, and its straight score tells nothing of
/// which. (A window close read straight is a plain twin, refused by the margin itself.) A
/// window overlapping the best one counts too when it starts two lines or more away: read with
/// one line left out it still ties every quoted line to another file line (two adjacent blocks
/// alike, the quote's trailing context the next block's head). A window a line away is the
/// best one's own gapped reading, judged by [`crate::locate::rungs::gap_readings`].
pub(crate) fn gapped_rival(idx: &FileIndex, pat: &[&str], wins: &[Window]) -> Option<Window> {
    let best = wins.first()?;
    let pats: Vec<Vec<char>> = pat.iter().map(|l| canonical(l).chars().collect()).collect();
    // A window seeded by a line after the gap starts one line late: the quote's first lines
    // stand one further up. Read from the line before too.
    let earlier = |w: &Window| {
        let start = w.start.checked_sub(1)?;
        (w.len == pats.len()).then(|| score_window(idx, &pats, start))
    };
    wins.iter()
        .skip(1)
        .flat_map(|w| std::iter::once(w.clone()).chain(earlier(w)))
        .filter(|w| !w.overlaps(best) || w.start.abs_diff(best.start) > 1)
        .map(|w| {
            let g = gapped_score(idx, &pats, &w);
            (w, g)
        })
        .filter(|(w, g)| best.score - g < MIN_MARGIN && best.score - w.score >= MIN_MARGIN)
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
        .map(|(w, _)| w)
}

/// The score of window `w` read with one file line left out: pattern lines before the gap
/// against the window's lines, the rest against the lines one further on. The best over every
/// place of the gap inside the window (a gap at either end is just another window), or the
/// window's own score when that is higher.
fn gapped_score(idx: &FileIndex, pats: &[Vec<char>], w: &Window) -> f64 {
    gap_scores(idx, pats, w).into_iter().fold(w.score, f64::max)
}

/// The line without any whitespace, in canonical form: equal for lines that differ only in
/// spacing, typography or invisible characters.
fn squeezed(line: &str) -> String {
    canonical(line)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// The verdict on scored windows for `pat` (`changes`: where the hunk changes it, see
/// [`Changes`]): the accepted window with its margin, or nothing. The best window must
/// - cover every pattern line (not run past the end of the file);
/// - hold every removed line in substance (whitespace, look-alikes and quote marks aside): an
///   edit must not delete a line the model did not see, however similar;
/// - match at least [`MIN_EVIDENCE_LINES`] non-blank lines with [`MIN_EVIDENCE_CHARS`]
///   characters between them, and more than half of all its lines;
/// - score at least [`MIN_SCORE`], and [`MIN_MARGIN`] more than the best window not overlapping
///   it, read straight or with a line left out ([`gapped_rival`]);
/// - not read better with one of its lines left out where that moves a change
///   ([`crate::locate::rungs::gap_readings`]).
pub(crate) fn accept(
    idx: &FileIndex,
    pat: &[&str],
    wins: &[Window],
    changes: &Changes,
) -> Option<(usize, f64)> {
    let removed = &changes.removed[..];
    let best = wins.first()?;
    if best.len != pat.len() || best.len == 0 || best.score < MIN_SCORE {
        return None;
    }
    let runner = wins
        .iter()
        .skip(1)
        .find(|w| !w.overlaps(best))
        .map_or(0.0, |w| w.score);
    let margin = best.score - runner;
    if margin < MIN_MARGIN {
        return None;
    }
    let doc = idx.doc;
    if gapped_rival(idx, pat, wins).is_some() || reads_better_gapped(idx, pat, best, changes) {
        return None;
    }
    let same: Vec<bool> = pat
        .iter()
        .enumerate()
        .map(|(k, p)| squeezed(p) == squeezed(doc.line(best.start + k)))
        .collect();
    // A removed line must be the file's in substance: spacing, look-alikes and quote marks
    // aside, the same words, numbers and operators (issue 14 §3 n).
    let substance = |i: usize| {
        pat.get(i)
            .is_some_and(|p| crate::locate::guards::substance::same(p, doc.line(best.start + i)))
    };
    if removed.iter().any(|&i| !substance(i)) {
        return None;
    }
    if shifted_brackets(doc, pat, best.start, removed) {
        return None;
    }
    let (lines, chars) = pat
        .iter()
        .zip(&same)
        .filter(|(p, &s)| s && !is_blank(p))
        .fold((0, 0), |(n, c), (p, _)| {
            (n + 1, c + squeezed(p).chars().count())
        });
    if lines < MIN_EVIDENCE_LINES || chars < MIN_EVIDENCE_CHARS {
        return None;
    }
    if same.iter().filter(|&&s| s).count() * 2 <= pat.len() {
        return None;
    }
    Some((0, margin))
}

/// Whether a removed line of brackets only stands in the window (from file line `start`) at
/// another indentation than the lines with words that match show: closing braces read one level
/// off (the quote left one out), which the window's high score hides, since braces alike match
/// at any level. Deleting them would take another block's braces.
fn shifted_brackets(doc: &Doc, pat: &[&str], start: usize, removed: &[usize]) -> bool {
    let delta = |k: usize| {
        let width = |l: &str| indent_width(leading_ws(l), 4) as isize;
        width(doc.line(start + k)) - width(pat[k])
    };
    let worded: Vec<isize> = (0..pat.len())
        .filter(|&k| has_words(pat[k]) && canonical(pat[k]) == canonical(doc.line(start + k)))
        .map(delta)
        .collect();
    !worded.is_empty()
        && removed
            .iter()
            .any(|&k| !is_blank(pat[k]) && !has_words(pat[k]) && !worded.contains(&delta(k)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::locate::rungs::window::bounded_levenshtein;
    use crate::text::Doc;

    /// A hunk that removes the pattern lines `r`.
    fn rm(r: &[usize]) -> Changes {
        Changes {
            removed: r.to_vec(),
            inserted: Vec::new(),
        }
    }

    /// A hunk that inserts lines before each pattern line of `c`.
    fn ins(c: &[usize]) -> Changes {
        Changes {
            removed: Vec::new(),
            inserted: c.to_vec(),
        }
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn levenshtein_within_bound() {
        assert_eq!(
            bounded_levenshtein(&chars("kitten"), &chars("sitting"), 5),
            Some(3)
        );
        assert_eq!(
            bounded_levenshtein(&chars("kitten"), &chars("sitting"), 2),
            None
        );
        assert_eq!(bounded_levenshtein(&chars(""), &chars("ab"), 3), Some(2));
        assert_eq!(
            bounded_levenshtein(&chars("abc"), &chars("abc"), 0),
            Some(0)
        );
    }

    #[test]
    fn removed_braces_one_level_off_the_worded_lines_are_refused() {
        // The quote left out the `if`'s brace: its removed braces fit the file's one level
        // deeper, while the worded lines match at their own indentation.
        let doc = Doc::parse(
            "fn f() {\n    loop {\n        if a() {\n            let n = fill(buf);\n            return read_all(buf, n);\n        }\n    }\n}\nstruct S;\n",
        );
        let idx = FileIndex::new(&doc);
        let head = [
            "            let n = fill(buf);",
            "            return read_all(buf, n);",
        ];
        let pat = [head[0], head[1], "    }", "}", "struct T;"];
        let wins = windows(&idx, &pat, None);
        assert_eq!(wins[0].start, 3);
        assert!(accept(&idx, &pat, &wins, &rm(&[2, 3])).is_none());
        // The braces at their own levels: one line misremembered, placed.
        let pat = [head[0], head[1], "        }", "    }", "}", "struct T;"];
        let wins = windows(&idx, &pat, None);
        assert!(accept(&idx, &pat, &wins, &rm(&[2, 3])).is_some());
    }

    #[test]
    fn accepts_a_clear_winner_and_refuses_twins() {
        let doc = Doc::parse(
            "fn area(width: u32, height: u32) -> u32 {\n    let w = width.max(1);\n    let h = height.max(1);\n    w * h\n}\nfn b() {\n    other();\n}\n",
        );
        let idx = FileIndex::new(&doc);
        // One context line misremembered; the removed line is really there.
        let pat = [
            "fn area(width: u32, height: u32) -> u32 {",
            "    let w = width.max(2);",
            "    let h = height.max(1);",
            "    w * h",
            "}",
        ];
        let wins = windows(&idx, &pat, None);
        assert_eq!(wins[0].start, 0);
        assert!(accept(&idx, &pat, &wins, &rm(&[2])).is_some());
        // The same window when the removed line is the misremembered one: refused.
        assert!(accept(&idx, &pat, &wins, &rm(&[1])).is_none());

        let twin = Doc::parse("fn a() {\n    let x = 1;\n}\nfn a() {\n    let x = 3;\n}\n");
        let idx = FileIndex::new(&twin);
        let pat = ["fn a() {", "    let x = 2;", "}"];
        let wins = windows(&idx, &pat, None);
        assert!(accept(&idx, &pat, &wins, &ins(&[2])).is_none());
    }

    #[test]
    fn a_quote_that_dropped_a_line_of_two_blocks_is_refused() {
        // Two blocks alike but for one line; the quote left that line out, so it reads as
        // either block with a gap, although the straight windows, which tie the quote's last
        // line to the left-out one, score the two blocks apart.
        let block = |odd: &str| {
            format!("    let value = build_the_value();\n    check_the_value(value);\n    store_the_value(value);\n    {odd}\n    report_the_value(value);\n")
        };
        let one = block("report_value(v);");
        let two = block("emit_every_metric_for_the_dashboard_now();");
        let pat = [
            "    let value = build_the_value();",
            "    check_the_value(value);",
            "    store_the_value(value);",
            "    report_the_value(value);",
        ];
        let both = format!("{one}\n{two}");
        let doc = Doc::parse(&both);
        let idx = FileIndex::new(&doc);
        let wins = windows(&idx, &pat, None);
        assert!(wins[0].start == 0 && accept(&idx, &pat, &wins, &rm(&[2])).is_none());
        // One block alone: the straight window is a fine reading.
        let doc = Doc::parse(&one);
        let idx = FileIndex::new(&doc);
        let wins = windows(&idx, &pat, None);
        assert!(accept(&idx, &pat, &wins, &rm(&[2])).is_some());
    }

    #[test]
    fn a_window_that_reads_better_with_a_line_left_out_is_refused() {
        // Four equal lines between two others; the quote has three of them. Read straight, its
        // last line is tied to the fourth `2` and every place in the run scores alike: where
        // the left-out line was decides where an insertion between the `2`s goes.
        let row = |d: char| {
            format!(
                "  {}",
                [d; 16].iter().map(|c| format!("{c},")).collect::<String>()
            )
        };
        let (zeros, twos) = (row('0'), row('2'));
        let text = format!("data = [\n{zeros}\n{twos}\n{twos}\n{twos}\n{twos}\n{zeros}\n]\n");
        let doc = Doc::parse(&text);
        let idx = FileIndex::new(&doc);
        let pat = [zeros.as_str(), &twos, &twos, &twos, &zeros];
        let wins = windows(&idx, &pat, None);
        assert!(wins[0].score >= MIN_SCORE);
        assert!(reads_better_gapped(&idx, &pat, &wins[0], &ins(&[2])));
        assert!(accept(&idx, &pat, &wins, &ins(&[2])).is_none());
        // The run as long as the quote's: read straight, nothing to choose.
        let text = format!("data = [\n{zeros}\n{twos}\n{twos}\n{twos}\n{zeros}\n]\n");
        let doc = Doc::parse(&text);
        let idx = FileIndex::new(&doc);
        let wins = windows(&idx, &pat, None);
        assert!(!reads_better_gapped(&idx, &pat, &wins[0], &ins(&[2])));
    }

    #[test]
    fn a_gapped_reading_that_ties_a_removed_line_to_another_line_is_no_reading() {
        // The quote left out `C,` before its context `D(..)`. The best reading has the gap
        // there, after the removed lines: the straight reading removes the same lines and only
        // ties `D(..)` to `C,`. Read with the gap before `B = 20` the score rises too, but the
        // removed `B = 20` is then tied to `C,`: no reading at all.
        let doc = Doc::parse("#[repr(u16)]\nenum XYNoDiscriminant {\n    A,\n    B = 20,\n    C,\n    D(u32, u32),\n    E = 10,\n");
        let idx = FileIndex::new(&doc);
        let pat = [
            "#[repr(u16)]",
            "enum XYNoDiscriminant {",
            "    A,",
            "    B = 20,",
            "    D(u32, u32),",
        ];
        let wins = windows(&idx, &pat, None);
        assert_eq!(wins[0].start, 0);
        assert!(!reads_better_gapped(&idx, &pat, &wins[0], &rm(&[1, 2, 3])));
        // An insertion before `D(..)` goes on one side of `C,` or the other: unclear.
        assert!(reads_better_gapped(&idx, &pat, &wins[0], &ins(&[4])));
        // One after `A,` is placed alike by the best reading and the straight one.
        assert!(!reads_better_gapped(&idx, &pat, &wins[0], &ins(&[3])));
    }

    #[test]
    fn an_adjacent_block_read_with_a_line_left_out_is_a_rival() {
        // Two versions of one function, the second with a line more. The quote is the second's
        // with that line left out, its trailing context the head of the next item: the first
        // version reads nearly as well straight, and its window overlaps the second's.
        let f = "pub(crate) const fn scope_id(addr: &c::sockaddr_in6) -> u32 {";
        let text = format!(
            "#[cfg(not(windows))]\n#[inline]\n{f}\n    addr.sin6_scope_id\n}}\n\n#[cfg(windows)]\n#[inline]\n{f}\n    let addr: &sockaddr_in6 = unsafe {{ transmute(addr) }};\n    addr.sin6_scope_id\n}}\n\n#[cfg(not(windows))]\n#[inline]\npub(crate) const fn other() {{}}\n"
        );
        let doc = Doc::parse(&text);
        let idx = FileIndex::new(&doc);
        let pat = [
            "#[inline]",
            f,
            "    addr.sin6_scope_id",
            "}",
            "",
            "#[cfg(not(windows))]",
            "#[inline]",
        ];
        let wins = windows(&idx, &pat, None);
        assert_eq!(wins[0].start, 1);
        assert!(gapped_rival(&idx, &pat, &wins).is_some());
        assert!(accept(&idx, &pat, &wins, &rm(&[2, 3])).is_none());
    }

    #[test]
    fn short_or_thin_evidence_is_refused() {
        // Two lines, one of which the edit removes and the file does not have.
        let doc = Doc::parse("x = 1\ny = 2\n");
        let idx = FileIndex::new(&doc);
        let pat = ["x = 1", "y = 3"];
        let wins = windows(&idx, &pat, None);
        assert!(!wins.is_empty());
        assert!(accept(&idx, &pat, &wins, &rm(&[1])).is_none());
        // Enough lines, but only braces match.
        let doc = Doc::parse("{\n}\n{\nalpha_beta\n}\n");
        let idx = FileIndex::new(&doc);
        let pat = ["{", "}", "{", "alpha_betaa", "}"];
        let wins = windows(&idx, &pat, None);
        assert!(accept(&idx, &pat, &wins, &ins(&[2])).is_none());
    }

    #[test]
    fn a_window_past_the_end_of_the_file_is_refused() {
        let doc = Doc::parse("}\ndef hello_there_friend():\n    return 'hello there'\n");
        let idx = FileIndex::new(&doc);
        let pat = [
            ")",
            "def hello_there_friend():",
            "    return 'hello there'",
            "",
        ];
        let wins = windows(&idx, &pat, None);
        assert!(wins.iter().all(|w| w.len < pat.len()));
        assert!(accept(&idx, &pat, &wins, &rm(&[2])).is_none());
    }
}
