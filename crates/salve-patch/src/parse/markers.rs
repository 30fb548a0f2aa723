//! The lines each reply format takes as structure, never as content: SEARCH/REPLACE markers,
//! Codex envelope lines, Roo line markers, diff headers. A leaf that the readers, the wrapper,
//! the cheap detector and the check on what is written ([`super::written`]) all ask, so that
//! what one calls a marker the others do too.

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
    let t = line.trim();
    let n = t.bytes().take_while(|&b| b == ch).count();
    if n < min {
        return false;
    }
    let rest = t.get(n..).unwrap_or("").trim_start();
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
    let t = line.trim();
    if t.len() > 80 {
        return false;
    }
    let is_mark = |c: char| matches!(c, '<' | '>' | '=' | '-' | '+');
    let run = t.chars().take_while(|&c| is_mark(c)).count();
    let word = t[run..].trim();
    let back = t.chars().rev().take_while(|&c| is_mark(c)).count();
    let word_back = t[..t.len() - back].trim();
    let is_word = |w: &str| w.eq_ignore_ascii_case("search") || w.eq_ignore_ascii_case("replace");
    if (run >= 2 && is_word(word)) || (back >= 2 && is_word(word_back)) {
        return true;
    }
    // git conflict markers: exactly seven `<` or `>` and a space (`<<<<<<< HEAD`).
    (t.starts_with("<<<<<<< ") || t.starts_with(">>>>>>> ")) && !t[7..].starts_with(['<', '>'])
}

/// Whether `t` (trimmed) is a marker of a format salve reads, on its own.
pub(crate) fn is_marker(t: &str) -> bool {
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
    let t = line.trim();
    is_marker(t) || is_divider(t)
}
