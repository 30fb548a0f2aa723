//! Changes that could stand elsewhere in a run of equal lines.
//!
//! Deleting three of a hundred equal lines, or inserting a line equal to its neighbours, is the
//! same change wherever in the run it is aligned, and the diff picks one place. When the other
//! side changed the same run, the merged text depends on that pick: the other side's line lands
//! before or after the deleted stretch. Such a merge is decided by a diff's tie-break, not by
//! the texts, so [`super::merge3`] merges every change at both ends of its run and calls a
//! conflict when the results differ.

use super::Change;

/// Which way to slide.
#[derive(Clone, Copy)]
pub(super) enum Way {
    Up,
    Down,
}

/// `changes` (of one side, `side` its lines, in base order) each slid as far as it goes `way`
/// within its run of equal lines, never into a neighbouring change. Replacements stay put.
pub(super) fn slid(changes: &[Change], base: &[&str], side: &[&str], way: Way) -> Vec<Change> {
    let mut out: Vec<Change> = changes.to_vec();
    for k in 0..out.len() {
        let lo = if k == 0 { 0 } else { out[k - 1].b1 };
        let hi = out.get(k + 1).map_or(base.len(), |c| c.b0);
        let c = &mut out[k];
        let deletion = c.s0 == c.s1 && c.b0 < c.b1;
        let insertion = c.b0 == c.b1 && c.s0 < c.s1;
        match way {
            Way::Up => {
                while c.b0 > lo
                    && c.s0 > 0
                    && ((deletion && base[c.b0 - 1] == base[c.b1 - 1])
                        || (insertion && base[c.b0 - 1] == side[c.s1 - 1]))
                {
                    shift(c, -1);
                }
            }
            Way::Down => {
                while c.b1 < hi
                    && c.s1 < side.len()
                    && ((deletion && base[c.b0] == base[c.b1])
                        || (insertion && base[c.b1] == side[c.s0]))
                {
                    shift(c, 1);
                }
            }
        }
    }
    out
}

/// Whether any of `changes` could slide at all.
pub(super) fn any_slides(changes: &[Change], base: &[&str], side: &[&str]) -> bool {
    let up = slid(changes, base, side, Way::Up);
    let down = slid(changes, base, side, Way::Down);
    up[..] != *changes || down[..] != *changes
}

fn shift(c: &mut Change, by: isize) {
    let mv = |x: usize| x.saturating_add_signed(by);
    c.b0 = mv(c.b0);
    c.b1 = mv(c.b1);
    c.s0 = mv(c.s0);
    c.s1 = mv(c.s1);
}
