//! Two guards on filling whole-file gaps ([`super::whole`]): when a gap-shaped line is the
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

use super::similar::similarity;
use crate::text::{canonical, is_blank, Doc};

/// How alike a changed line must be to the file's line in its place to be read as that line
/// edited rather than as a gap (canonical similarity).
const EDITED_LINE: f64 = 0.8;

/// Consecutive lines, each with something of its own, that a fill may share with the content
/// around it before it counts as a repeat.
const MAX_SHARED_RUN: usize = 2;

/// Whether line `m` of `lines` is the file's own line in its place: `source` has the same line
/// (trimmed), or for a line with words one nearly the same (the line edited), with the same
/// non-blank line before it or after it as in the content.
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
    (0..source.len()).any(|k| {
        alike(source.line(k).trim())
            && ((prev.is_some() && neighbour(Box::new((0..k).rev())) == prev)
                || (next.is_some() && neighbour(Box::new(k + 1..source.len())) == next))
    })
}

/// Whether filling a gap with `source` lines `[start, end)` writes again a run of more than
/// [`MAX_SHARED_RUN`] consecutive lines (each with a letter or digit) that the content `lines`
/// holds as consecutive lines of its own (`gaps` are the content's gap lines, not its own).
pub(crate) fn repeats(
    source: &Doc,
    start: usize,
    end: usize,
    lines: &[&str],
    gaps: &[usize],
) -> bool {
    let key = |l: &str| canonical(l).into_owned();
    let own: Vec<Option<String>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (!gaps.contains(&i) && substantial(l)).then(|| key(l)))
        .collect();
    let windows: std::collections::HashSet<&[Option<String>]> = own
        .windows(MAX_SHARED_RUN + 1)
        .filter(|w| w.iter().all(Option::is_some))
        .collect();
    if windows.is_empty() || end <= start {
        return false;
    }
    let fill: Vec<Option<String>> = (start..end)
        .map(|k| source.line(k))
        .filter(|l| !is_blank(l))
        .map(|l| substantial(l).then(|| key(l)))
        .collect();
    fill.windows(MAX_SHARED_RUN + 1)
        .any(|w| w.iter().all(Option::is_some) && windows.contains(w))
}

/// Whether a line says something of its own: a letter or digit.
fn substantial(line: &str) -> bool {
    line.chars().any(char::is_alphanumeric)
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
    fn a_fill_that_writes_the_contents_own_run_again_repeats() {
        let src = Doc::parse("a1\nb1\nc1\nd1\ne1\n");
        let lines = ["a1", "b1", "c1", "d1", "// ...", "e1"];
        // Filling the gap from b1 on would write b1, c1, d1 a second time.
        assert!(repeats(&src, 1, 4, &lines, &[4]));
        // Filling it with lines the content does not hold is fine.
        let lines = ["a1", "// ...", "e1"];
        assert!(!repeats(&src, 1, 4, &lines, &[1]));
    }
}
