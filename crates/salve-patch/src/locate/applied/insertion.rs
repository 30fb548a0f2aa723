//! What a hunk's own lines say about reading it as already applied: whether it changes only
//! trailing whitespace, whether its insertion could slide along equal neighbours, and whether
//! it inserts real code of its own. The ladder ([`crate::locate::locate`]) weighs these before it takes
//! a post-image found in the file as the edit already made.

use crate::edit::{HunkLine, LineKind};
use crate::text::strip_cr;
use crate::text::Trim as _;

/// Whether the hunk changes trailing whitespace: a removed line and an added line equal but for
/// it. Then the added lines vouch for "already applied" only with their exact line ends, since
/// the file's old lines equal them up to the whitespace the edit is about.
pub(crate) fn changes_trailing_ws(lines: &[HunkLine]) -> bool {
    let removed: std::collections::HashSet<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| strip_cr(&l.text).trim_end_ws())
        .collect();
    lines.iter().any(|l| {
        let t = strip_cr(&l.text);
        l.kind == LineKind::Add
            && removed.contains(t.trim_end_ws())
            && !lines
                .iter()
                .any(|r| r.kind == LineKind::Remove && strip_cr(&r.text) == t)
    })
}

/// Whether the lines a hunk adds hold real code of their own: at least two lines with a letter
/// or digit that are not copies of the hunk's other lines. Repeating such a run verbatim beside
/// itself is not what an edit means; repeating a blank, a brace or lines already around it may
/// be.
pub(crate) fn substantial_insertion(lines: &[HunkLine]) -> bool {
    let others: std::collections::HashSet<&str> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| strip_cr(&l.text).trim_ws())
        .collect();
    let own: std::collections::HashSet<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text).trim_ws())
        .filter(|t| t.chars().any(char::is_alphanumeric) && !others.contains(t))
        .collect();
    own.len() >= 2
}

/// Whether a run of added lines (with no removal next to it) could slide over an equal
/// neighbouring context line, as an insertion into a run of equal lines can.
pub(crate) fn slidable_insertion(lines: &[HunkLine]) -> bool {
    let text = |i: usize| strip_cr(&lines[i].text);
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind != LineKind::Add {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].kind == LineKind::Add {
            i += 1;
        }
        let before = start
            .checked_sub(1)
            .filter(|&b| lines[b].kind == LineKind::Context);
        let after = (i < lines.len() && lines[i].kind == LineKind::Context).then_some(i);
        let prev_remove = start > 0 && lines[start - 1].kind == LineKind::Remove;
        let next_remove = i < lines.len() && lines[i].kind == LineKind::Remove;
        if prev_remove || next_remove {
            continue;
        }
        if before.is_some_and(|b| text(b) == text(i - 1))
            || after.is_some_and(|a| text(a) == text(start))
        {
            return true;
        }
    }
    false
}
