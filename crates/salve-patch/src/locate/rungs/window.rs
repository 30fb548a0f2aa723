//! Scoring a window of the file against a quote, line by line: the measure the similar rung
//! ([`crate::locate::rungs::similar`]) and its gapped readings ([`crate::locate::rungs::gap_readings`]) share. Edit distance on
//! canonical forms, bounded so the work stays linear in the line length.

use crate::locate::rungs::index::FileIndex;
use crate::text::canonical;

/// A scored window `[start, start + len)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Window {
    pub start: usize,
    pub len: usize,
    pub score: f64,
    /// Similarity of each pattern line to its file line.
    pub lines: Vec<f64>,
}

impl Window {
    pub(crate) fn overlaps(&self, other: &Window) -> bool {
        self.start < other.start + other.len && other.start < self.start + self.len
    }
}

pub(crate) fn score_window(idx: &FileIndex, pats: &[Vec<char>], start: usize) -> Window {
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

/// The score of window `w` read with the gap before pattern line `g`, for `g` in `1..n` (element
/// `g - 1`); empty when the window is short or the file has no line after it.
pub(crate) fn gap_scores(idx: &FileIndex, pats: &[Vec<char>], w: &Window) -> Vec<f64> {
    let doc = idx.doc;
    let n = pats.len();
    if w.len != n || n < 2 || w.start + n >= doc.len() {
        return Vec::new();
    }
    let weight = |p: &[char], k: usize| p.len().max(doc.line(k).chars().count()).max(1) as f64;
    // Weighted similarities of each pattern line against its straight and its shifted line.
    let mut straight = Vec::with_capacity(n);
    let mut shifted = Vec::with_capacity(n);
    for (i, p) in pats.iter().enumerate() {
        let (a, b) = (w.start + i, w.start + i + 1);
        let fa: Vec<char> = canonical(doc.line(a)).chars().collect();
        let fb: Vec<char> = canonical(doc.line(b)).chars().collect();
        straight.push((similarity(p, &fa) * weight(p, a), weight(p, a)));
        shifted.push((similarity(p, &fb) * weight(p, b), weight(p, b)));
    }
    (1..n)
        .map(|gap| {
            let (num, den) = straight[..gap]
                .iter()
                .chain(&shifted[gap..])
                .fold((0.0, 0.0), |(n, d), (x, y)| (n + x, d + y));
            if den > 0.0 {
                num / den
            } else {
                0.0
            }
        })
        .collect()
}

/// 1 - distance / longer length, 1.0 for two empty lines.
pub(crate) fn similarity(a: &[char], b: &[char]) -> f64 {
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
pub(crate) fn bounded_levenshtein(a: &[char], b: &[char], bound: usize) -> Option<usize> {
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
