//! What the hunks of a file found in exactly one place say about the others' line hints: the
//! offsets at which they stand from their hints, and whether they stand on both sides of a hunk
//! found in several places. Between such hunks, offsets of zero mean the hints hold; beyond the
//! last of them (or before the first) the file may have moved where none of them measures it.

use crate::edit::Hunk;
use crate::locate::{Found, Placement};

/// What the hunks found in one place say about the hints.
pub(crate) struct Measure<'m> {
    /// Their offsets (placed line minus hinted line), or `[0]` when none was measured.
    pub offsets: &'m [isize],
    /// No hunk was found in one place.
    pub unmeasured: bool,
    /// Hunks found in one place stand both above and below every candidate of this one.
    pub bracketed: bool,
}

/// Whether hunks found in exactly one place stand both above and below every candidate.
pub(crate) fn bracketed(found: &[Option<Found>], cands: &[Placement]) -> bool {
    let unique: Vec<(usize, usize)> = found
        .iter()
        .filter_map(|f| match f {
            Some(Found::Candidates(c)) if c.len() == 1 => Some(c[0].range()),
            _ => None,
        })
        .collect();
    cands.iter().all(|p| {
        let (s, e) = p.range();
        unique.iter().any(|u| u.1 <= s) && unique.iter().any(|u| u.0 >= e)
    })
}

/// Offsets (placed line minus hinted line) of the hunks found in exactly one place.
pub(crate) fn unique_offsets(hunks: &[Hunk], found: &[Option<Found>]) -> Vec<isize> {
    let mut out = Vec::new();
    for (h, f) in hunks.iter().zip(found) {
        if let (Some(hint), Some(Found::Candidates(c))) = (h.old_start, f) {
            if let [p] = &c[..] {
                let d = p.range().0 as isize + 1 - hint as isize;
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    out
}
