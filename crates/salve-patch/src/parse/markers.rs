//! The lines each reply format takes as structure, never as content: SEARCH/REPLACE markers,
//! Codex envelope lines, Roo line markers, diff headers. A leaf that the readers, the wrapper,
//! the cheap detector and the check on what is written ([`super::written`]) all ask, so that
//! what one calls a marker the others do too.

use crate::text::Trim as _;

/// The lines of a Codex patch envelope.
pub(crate) mod codex {
    pub(crate) const BEGIN: &str = "*** Begin Patch";
    pub(crate) const END: &str = "*** End Patch";
    pub(crate) const ADD: &str = "*** Add File:";
    pub(crate) const DELETE: &str = "*** Delete File:";
    pub(crate) const UPDATE: &str = "*** Update File:";
    pub(crate) const MOVE: &str = "*** Move to:";
    pub(crate) const EOF_MARK: &str = "*** End of File";

    /// True for a line that opens a Codex patch (with or without the Begin line).
    pub(crate) fn is_start(line: &str) -> bool {
        let t = line.trim_end();
        t == BEGIN || t.starts_with(UPDATE) || t.starts_with(ADD) || t.starts_with(DELETE)
    }
}

/// `ch` repeated at least `min` times (5 for `<`/`=`/`>`, 3 for the Cline `-`/`+` style; the
/// agents' own tests accept 5 to 11 and more), then `word`.
fn marker(line: &str, ch: u8, min: usize, word: &str) -> bool {
    let t = line.trim_ws();
    let n = t.bytes().take_while(|&b| b == ch).count();
    if n < min {
        return false;
    }
    let rest = t.get(n..).unwrap_or("").trim_start_ws();
    if word.is_empty() {
        rest.is_empty()
    } else {
        rest.eq_ignore_ascii_case(word)
    }
}

/// `<<<<<<< SEARCH` (5 or more `<`) or Cline's `------- SEARCH`.
pub(crate) fn is_search(line: &str) -> bool {
    marker(line, b'<', 5, "SEARCH") || marker(line, b'-', 3, "SEARCH")
}

/// `=======` (5 or more `=`).
pub(crate) fn is_divider(line: &str) -> bool {
    marker(line, b'=', 5, "")
}

/// `>>>>>>> REPLACE` (5 or more `>`) or Cline's `+++++++ REPLACE`.
pub(crate) fn is_replace(line: &str) -> bool {
    marker(line, b'>', 5, "REPLACE") || marker(line, b'+', 3, "REPLACE")
}

/// True when `line` is shaped like a SEARCH/REPLACE marker of any kind: a run of 2 or more of
/// `<`, `>`, `=`, `-`, `+` next to the word SEARCH or REPLACE (either side, any case), or a git
/// conflict marker (`<<<<<<< HEAD`, `>>>>>>> branch`). Such a line is edit syntax: it must be
/// read as a marker or refused, never written into a file.
pub(crate) fn looks_like_marker(line: &str) -> bool {
    let t = line.trim_ws();
    if t.len() > 80 {
        return false;
    }
    let is_mark = |c: char| matches!(c, '<' | '>' | '=' | '-' | '+');
    let run = t.chars().take_while(|&c| is_mark(c)).count();
    let word = t[run..].trim_ws();
    let back = t.chars().rev().take_while(|&c| is_mark(c)).count();
    let word_back = t[..t.len() - back].trim_ws();
    let is_word = |w: &str| w.eq_ignore_ascii_case("search") || w.eq_ignore_ascii_case("replace");
    if (run >= 2 && is_word(word)) || (back >= 2 && is_word(word_back)) {
        return true;
    }
    // git conflict markers: exactly seven `<` or `>` and a space (`<<<<<<< HEAD`).
    (t.starts_with("<<<<<<< ") || t.starts_with(">>>>>>> ")) && !t[7..].starts_with(['<', '>'])
}

/// Whether `t` (trimmed) is a marker of a format salve reads, on its own.
pub(crate) fn is_marker(t: &str) -> bool {
    may_be_marker(t) && is_marker_shape(t)
}

/// A cheap test every marker passes (a reply's lines are asked one by one, and most are code):
/// each marker [`is_marker_shape`] knows starts (once trimmed) with a run of `<`, `>`, `=`, `-`
/// or `+`, with `:` (Roo's line markers), `***` (Codex) or `diff --git `, or ends with a run of
/// `<`, `>`, `=`, `-` or `+` (a word then its markers). The property test in this module's tests
/// checks that no line the full test takes is turned away here.
fn may_be_marker(t: &str) -> bool {
    // Trimmed at one end only: `diff --git ` keeps its space.
    let (lead, tail) = (t.trim_start_ws().as_bytes(), t.trim_end_ws().as_bytes());
    let mark = |b: Option<&u8>| matches!(b, Some(b'<' | b'>' | b'=' | b'-' | b'+'));
    mark(lead.first())
        || mark(tail.last())
        || lead.first() == Some(&b':')
        || lead.starts_with(b"***")
        || lead.starts_with(b"diff --git ")
}

/// [`is_marker`] without the cheap test in front.
fn is_marker_shape(t: &str) -> bool {
    is_search(t)
        || is_replace(t)
        || looks_like_marker(t)
        || t.starts_with(":start_line:")
        || t.starts_with(":end_line:")
        || t.starts_with("diff --git ")
        || codex::is_start(t)
        || t == codex::END
        || t.starts_with(codex::MOVE)
}

/// Whether `line` is, on its own, a marker of a format salve reads (a divider included):
/// never a line that merely lost its diff prefix.
pub(crate) fn is_marker_line(line: &str) -> bool {
    let t = line.trim_ws();
    is_marker(t) || is_divider(t)
}

#[cfg(test)]
mod tests {
    use super::{is_marker_shape, may_be_marker};

    /// Property (seeded; `SALVE_PROP_SEED` picks the seed, which is printed): the cheap test
    /// in front of [`super::is_marker`] turns away no line the full test takes, on markers of
    /// every format damaged by cuts, insertions, doubled characters, case and whitespace.
    #[test]
    fn the_cheap_test_keeps_every_marker() {
        let seed = std::env::var("SALVE_PROP_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2512_u64);
        eprintln!("markers seed {seed} (SALVE_PROP_SEED)");
        let mut state = seed;
        let mut next = move |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % n as u64) as usize
        };
        let pool = [
            "<<<<<<< SEARCH",
            "=======",
            ">>>>>>> REPLACE",
            "------- SEARCH",
            "+++++++ REPLACE",
            "SEARCH <<<<<<<",
            "replace >>",
            "<<<<<<< HEAD",
            ">>>>>>> main",
            ":start_line:12",
            ":end_line:3",
            "diff --git a/x b/x",
            "*** Begin Patch",
            "*** End Patch",
            "*** Update File: a.rs",
            "*** Add File: b.rs",
            "*** Delete File: c.rs",
            "*** Move to: d.rs",
            "int x = 1;",
            "** a comment",
            "- item",
        ];
        let chars = [
            '<', '>', '=', '-', '+', '*', ':', ' ', '\t', 'a', 'S', '\u{a0}', 'é',
        ];
        let mut kept = 0;
        for case in 0..200_000 {
            let mut line: Vec<char> = pool[next(pool.len())].chars().collect();
            for _ in 0..next(3) {
                let at = next(line.len() + 1);
                match next(4) {
                    0 if at < line.len() => {
                        line.remove(at);
                    }
                    1 if at < line.len() => line.insert(at, line[at]),
                    2 => line.insert(at, chars[next(chars.len())]),
                    _ => line.truncate(at.max(1)),
                }
            }
            let mut text: String = line.into_iter().collect();
            if next(3) == 0 {
                text = format!(
                    "{}{text}{}",
                    [" ", "\t", "\u{a0}"][next(3)],
                    [" ", ""][next(2)]
                );
            }
            if next(2) == 0 {
                text = text.to_lowercase();
            }
            if is_marker_shape(&text) {
                kept += 1;
                assert!(may_be_marker(&text), "case {case}: {text:?}");
            }
        }
        assert!(kept > 10_000, "only {kept} markers drawn");
    }
}
