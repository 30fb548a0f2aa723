//! Another reading of a hunk's lines, for what the parser could not decide from the reply
//! alone: blank lines at the end that the header counts pulled in (`padded_tail`). The ladder
//! tries the hunk as written first and takes the variant when that places worse or in fewer
//! places. (Context lines
//! that may be added lines whose `+` was lost have their readings in `lost_plus`.)

use crate::edit::{Hunk, HunkLine, LineKind};
use crate::locate::{line_form, Found};

/// The hunk's lines without its padded tail, when it has one and keeps a change.
pub(crate) fn unpadded(hunk: &Hunk) -> Option<Vec<HunkLine>> {
    let keep = hunk.lines.len().checked_sub(hunk.padded_tail)?;
    let lines = &hunk.lines[..keep];
    (hunk.padded_tail > 0 && lines.iter().any(|l| l.kind != LineKind::Context))
        .then(|| lines.to_vec())
}

/// Whether the ladder found candidates by a line form (exact to canonical).
pub(crate) fn by_line_form(found: &Found) -> bool {
    matches!(found, Found::Candidates(c) if c.first().is_some_and(|p| line_form(p.rung).is_some()))
}

/// How many candidates the ladder found (none for any other verdict).
pub(crate) fn places(found: &Found) -> usize {
    match found {
        Found::Candidates(c) => c.len(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(lines: &[(LineKind, &str)], padded_tail: usize) -> Hunk {
        Hunk {
            lines: lines.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect(),
            padded_tail,
            ..Hunk::default()
        }
    }

    #[test]
    fn the_padded_tail_is_left_out() {
        use LineKind::{Context, Remove};
        let h = hunk(&[(Context, "a"), (Remove, "b"), (Context, "")], 1);
        let lines = unpadded(&h).unwrap_or_default();
        assert_eq!(lines, h.lines[..2].to_vec());
    }

    #[test]
    fn no_variant_without_padding_or_without_a_change_left() {
        use LineKind::{Add, Context};
        assert_eq!(unpadded(&hunk(&[(Context, "a"), (Add, "b")], 0)), None);
        assert_eq!(unpadded(&hunk(&[(Add, "b"), (Context, "")], 2)), None);
        assert_eq!(unpadded(&hunk(&[(Context, "a"), (Context, "")], 1)), None);
    }
}
