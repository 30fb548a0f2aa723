//! The similar rung: line-aligned edit-distance similarity, the last resort.
//!
//! Candidate windows come from seeds (file lines canonically equal to some pattern line, plus the
//! line hint), never from sliding over the file. Each window is scored line by line with a bounded
//! Levenshtein distance on canonical forms. A window is accepted only with a high absolute score
//! **and** a clear margin over the best window that does not overlap it; otherwise the best
//! windows are only reported, so the model can see what it missed.

use std::collections::HashMap;

use super::index::FileIndex;
use crate::text::{canonical, hash_form, is_blank, Form};

/// Minimum similarity for an accepted window.
pub const MIN_SCORE: f64 = 0.8;
/// Minimum lead over the best non-overlapping window.
pub const MIN_MARGIN: f64 = 0.1;
/// Minimum similarity of each line the edit removes.
pub const MIN_REMOVED_LINE: f64 = 0.6;

/// Seeds per pattern line beyond which the line is too common to vote.
const MAX_SEEDS_PER_LINE: usize = 64;
/// Windows scored per hunk.
const MAX_WINDOWS: usize = 48;

/// A scored window `[start, start + len)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub start: usize,
    pub len: usize,
    pub score: f64,
    /// Similarity of each pattern line to its file line.
    pub lines: Vec<f64>,
}

impl Window {
    fn overlaps(&self, other: &Window) -> bool {
        self.start < other.start + other.len && other.start < self.start + self.len
    }
}

/// Scored windows for `pat`, best first.
pub fn windows(idx: &FileIndex, pat: &[&str], hint: Option<usize>) -> Vec<Window> {
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
    let mut starts: Vec<(usize, u32)> = votes.into_iter().collect();
    starts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    starts.truncate(MAX_WINDOWS);
    let pats: Vec<Vec<char>> = pat.iter().map(|l| canonical(l).chars().collect()).collect();
    let mut out: Vec<Window> = starts
        .into_iter()
        .map(|(s, _)| score_window(idx, &pats, s))
        .collect();
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.start.cmp(&b.start))
    });
    out
}

fn score_window(idx: &FileIndex, pats: &[Vec<char>], start: usize) -> Window {
    let doc = idx.doc;
    let n = pats.len().min(doc.len() - start);
    let mut num = 0.0;
    let mut den = 0.0;
    let mut lines = Vec::with_capacity(pats.len());
    for (i, p) in pats.iter().enumerate() {
        let (sim, weight) = if i < n {
            let f: Vec<char> = canonical(doc.line(start + i)).chars().collect();
            let w = p.len().max(f.len()).max(1) as f64;
            (similarity(p, &f), w)
        } else {
            (0.0, p.len().max(1) as f64)
        };
        num += sim * weight;
        den += weight;
        lines.push(sim);
    }
    Window {
        start,
        len: n,
        score: if den > 0.0 { num / den } else { 0.0 },
        lines,
    }
}

/// 1 - distance / longer length, 1.0 for two empty lines.
pub fn similarity(a: &[char], b: &[char]) -> f64 {
    let m = a.len().max(b.len());
    if m == 0 {
        return 1.0;
    }
    // Past half the length the lines count as unrelated; the bound keeps the work linear.
    let bound = m / 2 + 1;
    match bounded_levenshtein(a, b, bound) {
        Some(d) => 1.0 - d as f64 / m as f64,
        None => 0.0,
    }
}

/// Levenshtein distance when it is at most `bound`, computed in a diagonal band of that width.
pub fn bounded_levenshtein(a: &[char], b: &[char], bound: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > bound {
        return None;
    }
    if n == 0 || m == 0 {
        return Some(n.max(m));
    }
    let inf = bound + 1;
    let mut prev = vec![inf; m + 1];
    let mut cur = vec![inf; m + 1];
    for (j, p) in prev.iter_mut().enumerate().take(bound.min(m) + 1) {
        *p = j;
    }
    for i in 1..=n {
        let lo = i.saturating_sub(bound).max(1);
        let hi = (i + bound).min(m);
        cur.fill(inf);
        if i <= bound {
            cur[0] = i;
        }
        let mut row_min = cur[0];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let v = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            cur[j] = v.min(inf);
            row_min = row_min.min(cur[j]);
        }
        if row_min > bound {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[m];
    (d <= bound).then_some(d)
}

/// The verdict on scored windows: the accepted window with its margin, or nothing.
pub fn accept(wins: &[Window], removed: &[usize]) -> Option<(usize, f64)> {
    let best = wins.first()?;
    if best.score < MIN_SCORE || best.len == 0 {
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
    if removed
        .iter()
        .any(|&i| best.lines.get(i).is_none_or(|&s| s < MIN_REMOVED_LINE))
    {
        return None;
    }
    let equal = best.lines.iter().filter(|&&s| s >= 1.0).count();
    if equal * 2 < best.lines.len() {
        return None;
    }
    Some((0, margin))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::text::Doc;

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
    fn accepts_a_clear_winner_and_refuses_twins() {
        let doc =
            Doc::parse("fn a() {\n    let x = 1;\n    call(x);\n}\nfn b() {\n    other();\n}\n");
        let idx = FileIndex::new(&doc);
        let pat = ["fn a() {", "    let x = 2;", "    call(x);", "}"];
        let wins = windows(&idx, &pat, None);
        assert_eq!(wins[0].start, 0);
        assert!(accept(&wins, &[1]).is_some());

        let twin = Doc::parse("fn a() {\n    let x = 1;\n}\nfn a() {\n    let x = 3;\n}\n");
        let idx = FileIndex::new(&twin);
        let pat = ["fn a() {", "    let x = 2;", "}"];
        let wins = windows(&idx, &pat, None);
        assert!(accept(&wins, &[]).is_none());
    }
}
