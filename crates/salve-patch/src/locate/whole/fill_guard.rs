//! Two guards on filling whole-file gaps ([`crate::locate::whole`]): when a gap-shaped line is the
//! file's own, and when a fill would write lines the content already has.
//!
//! Files hold lines shaped like gaps: a grammar comment `// ...`, a variadic C parameter `...`,
//! `// (validators, remaining_offset)`, a doc example's `// ...rest of test...`. Content that
//! keeps such a line where the file has it means the line, not a cut; filled as a gap it would
//! stand for whatever lies up to the next line the content shares with the file, bringing back
//! what the edit deleted or reverting what it changed.
//!
//! A fill is certain only by its neighbours. When a neighbour line stands in the file once but
//! in the content twice (an edit that copied it), the fill can start at the file's copy while
//! the content already holds the lines after it: the result would repeat a stretch of the file.
//! A fill that writes again a run of lines the content holds around it is refused.

use std::collections::HashMap;

use crate::locate::rungs::window::similarity;
use crate::text::{canonical, has_words, is_blank, Doc};

/// How alike a changed line must be to the file's line in its place to be read as that line
/// edited rather than as a gap (canonical similarity).
const EDITED_LINE: f64 = 0.8;

/// How alike it must be when the file's line stands between the same two neighbours as the
/// content's: the one line a gap there would stand for.
const EDITED_BETWEEN: f64 = 0.5;

/// Consecutive lines, each with something of its own, that a fill may share with the content
/// around it before it counts as a repeat.
const MAX_SHARED_RUN: usize = 2;

/// Whether line `m` of `lines` is the file's own line in its place: `source` has the same line
/// (trimmed), or for a line with words one nearly the same (the line edited), with the same
/// non-blank line before it or after it as in the content; between both, one alike in shape.
pub(crate) fn in_place(source: &Doc, lines: &[&str], m: usize) -> bool {
    let want = lines[m].trim();
    let prev = lines[..m]
        .iter()
        .rev()
        .find(|l| !is_blank(l))
        .map(|l| l.trim());
    let next = lines[m + 1..]
        .iter()
        .find(|l| !is_blank(l))
        .map(|l| l.trim());
    let worded = want.chars().any(char::is_alphanumeric);
    let wanted: Vec<char> = canonical(want).chars().collect();
    let alike = |have: &str| {
        have == want
            || (worded && {
                let h: Vec<char> = canonical(have).chars().collect();
                similarity(&wanted, &h) >= EDITED_LINE
            })
    };
    let neighbour = |mut ks: Box<dyn Iterator<Item = usize> + '_>| {
        ks.find(|&j| !is_blank(source.line(j)))
            .map(|j| source.line(j).trim())
    };
    // Between both its neighbours, a line of the file is the one line a gap there would stand
    // for; a gap standing for one line alike in shape is that line edited (`// (validators, n)`
    // renamed), and a looser likeness suffices.
    let edited = |have: &str| {
        worded && {
            let h: Vec<char> = canonical(have).chars().collect();
            similarity(&wanted, &h) >= EDITED_BETWEEN
        }
    };
    // The neighbours first: a cheap test that rules out nearly every line before the
    // similarity is measured.
    (0..source.len()).any(|k| {
        let before = prev.is_some() && neighbour(Box::new((0..k).rev())) == prev;
        let after = next.is_some() && neighbour(Box::new(k + 1..source.len())) == next;
        let have = source.line(k).trim();
        ((before || after) && alike(have)) || (before && after && edited(have))
    })
}

/// Whether filling a gap with `source` lines `[start, end)` writes again a run of more than
/// [`MAX_SHARED_RUN`] consecutive lines (each with a letter or digit) that the content `lines`
/// holds as its own (`gaps` are the content's gap lines): more copies of the run than the file
/// has, counting the fill's and the content's. A file that repeats a run (a list of names in
/// two tables) may be filled with one copy while the content keeps the other.
pub(crate) fn repeats(
    source: &Doc,
    start: usize,
    end: usize,
    lines: &[&str],
    gaps: &[usize],
) -> bool {
    let own = runs(
        lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !gaps.contains(i))
            .map(|(_, l)| *l),
    );
    if own.is_empty() || end <= start {
        return false;
    }
    let fill = runs((start..end).map(|k| source.line(k)));
    let shared: Vec<&Vec<String>> = fill.keys().filter(|w| own.contains_key(*w)).collect();
    if shared.is_empty() {
        return false;
    }
    let file = runs((0..source.len()).map(|k| source.line(k)));
    shared.into_iter().any(|w| {
        fill.get(w).copied().unwrap_or(0) + own.get(w).copied().unwrap_or(0)
            > file.get(w).copied().unwrap_or(0)
    })
}

/// Every run of [`MAX_SHARED_RUN`] + 1 consecutive non-blank lines of `lines` that each have
/// something of their own, canonical, with how often it occurs.
fn runs<'a>(lines: impl Iterator<Item = &'a str>) -> HashMap<Vec<String>, usize> {
    let keys: Vec<Option<String>> = lines
        .filter(|l| !is_blank(l))
        .map(|l| has_words(l).then(|| canonical(l).into_owned()))
        .collect();
    let mut out: HashMap<Vec<String>, usize> = HashMap::new();
    for w in keys.windows(MAX_SHARED_RUN + 1) {
        if let Some(run) = w.iter().cloned().collect::<Option<Vec<String>>>() {
            *out.entry(run).or_insert(0) += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_shaped_line_beside_either_neighbour_is_in_place() {
        let src =
            Doc::parse("fn f(\n    fields: &[u8],\n    // (validators, remaining)\n) -> u8 {\n");
        // The line before it was deleted; the line after it still stands beside it.
        let lines = ["fn f(", "    // (validators, remaining)", ") -> u8 {"];
        assert!(in_place(&src, &lines, 1));
        // Edited, with words: still the file's line.
        let src = Doc::parse("/// ```\n///     // ...rest of test...\n/// ```\n");
        let lines = ["/// ```", "///     // ...rest of test_v2...", "/// ```"];
        assert!(in_place(&src, &lines, 1));
        // Neither neighbour matches: a gap.
        let lines = ["fn g(", "    // (validators, remaining)", "}"];
        assert!(!in_place(&src, &lines, 1));
    }

    #[test]
    fn a_renamed_line_between_both_neighbours_is_in_place() {
        let src =
            Doc::parse("fn f(\n    fields: &[u8],\n    // (validators, remaining)\n) -> u8 {\n");
        // `validators` renamed: too unlike for one neighbour, the file's line between both.
        let lines = [
            "    fields: &[u8],",
            "    // (srotadilav, remaining)",
            ") -> u8 {",
        ];
        assert!(in_place(&src, &lines, 1));
        let lines = ["fn f(", "    // (srotadilav, remaining)", ") -> u8 {"];
        assert!(!in_place(&src, &lines, 1));
    }

    #[test]
    fn a_fill_that_writes_the_contents_own_run_again_repeats() {
        let src = Doc::parse("a1\nb1\nc1\nd1\ne1\n");
        let lines = ["a1", "b1", "c1", "d1", "// ...", "e1"];
        // Filling the gap from b1 on would write b1, c1, d1 a second time.
        assert!(repeats(&src, 1, 4, &lines, &[4]));
        // Filling it with lines the content does not hold is fine.
        let lines = ["a1", "// ...", "e1"];
        assert!(!repeats(&src, 1, 4, &lines, &[1]));
        // A file holding the run twice: one copy filled, the other kept, is the file.
        let src = Doc::parse("a1\nb1\nc1\nd1\nx\nb1\nc1\nd1\n");
        let lines = ["a1", "// ...", "x", "b1", "c1", "d1"];
        assert!(!repeats(&src, 1, 4, &lines, &[1]));
    }
}
