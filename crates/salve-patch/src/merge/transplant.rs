//! Carrying one version's change over to another version of the same base, when it touches
//! nothing the other version changed. A fix commits its repair this way: the change from the
//! file before the repair to the file after it, carried onto HEAD's version, while the user's
//! own lines in the same file stay out of the commit.
//!
//! Stricter than a merge in what it carries: each changed stretch of the base must stand, line
//! for line and contiguous, in the other version, and an insertion must fall between two lines
//! that stand together there. Looser in one way: a change that merely touches one of the other
//! version's changes is carried, since the lines it changes are not the other's. The result is
//! checked both ways: carrying the other version's change onto the changed text must give the
//! same text, or the two changes are not independent, and nothing is returned.

use super::{changes, records, Change};

/// `onto` with the change from `base` to `changed` carried over; `None` when that change
/// touches lines `onto` changed, or could land in more than one way.
pub fn transplant(base: &str, onto: &str, changed: &str) -> Option<String> {
    let one = carry(base, onto, changed)?;
    let other = carry(base, changed, onto)?;
    (one == other).then_some(one)
}

fn carry(base: &str, onto: &str, changed: &str) -> Option<String> {
    let b = records(base);
    let o = records(onto);
    let t = records(changed);
    let at = kept_at(&changes(&b, &o), b.len());
    // Each change as the stretch of `onto` it replaces and the lines it puts there.
    let mut edits: Vec<(usize, usize, &[&str])> = Vec::new();
    for c in changes(&b, &t) {
        let lines = &t[c.s0..c.s1];
        let span = if c.b0 < c.b1 {
            let first = at[c.b0]?;
            let contiguous = (c.b0..c.b1).all(|k| at[k] == Some(first + (k - c.b0)));
            contiguous.then_some((first, first + (c.b1 - c.b0)))?
        } else {
            let point = insertion_point(&at, c.b0, o.len())?;
            (point, point)
        };
        edits.push((span.0, span.1, lines));
    }
    let mut out = String::new();
    let mut next = 0;
    for (start, end, lines) in edits {
        if start < next {
            return None;
        }
        out.extend(o[next..start].iter().copied());
        out.extend(lines.iter().copied());
        next = end;
    }
    out.extend(o[next..].iter().copied());
    Some(out)
}

/// For each base line, where it stands in the other version when that version kept it.
fn kept_at(other: &[Change], base_len: usize) -> Vec<Option<usize>> {
    let mut at = vec![None; base_len];
    let (mut i, mut j) = (0, 0);
    for c in other {
        while i < c.b0 {
            at[i] = Some(j);
            i += 1;
            j += 1;
        }
        i = c.b1;
        j = c.s1;
    }
    while i < base_len {
        at[i] = Some(j);
        i += 1;
        j += 1;
    }
    at
}

/// Where an insertion before base line `b0` goes in the other version (`len` lines): between the
/// two base lines around it, which must stand there together (the file's start or end counts
/// only where the other version kept that end).
fn insertion_point(at: &[Option<usize>], b0: usize, len: usize) -> Option<usize> {
    let before = b0.checked_sub(1).map(|k| at[k]);
    let after = at.get(b0).copied();
    match (before, after) {
        (None, Some(Some(0))) => Some(0),
        (Some(Some(x)), None) if x + 1 == len => Some(len),
        (Some(Some(x)), Some(Some(y))) if x + 1 == y => Some(y),
        // An empty base: only onto an empty version.
        (None, None) if len == 0 => Some(0),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_change_next_to_the_other_versions_lines_is_carried() {
        let base =
            "# note\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
        let head = "def add(a, b):\n    return a - b\n";
        let fixed = base.replace("a - b", "a + b");
        assert_eq!(
            transplant(base, head, &fixed).unwrap(),
            "def add(a, b):\n    return a + b\n"
        );
    }

    #[test]
    fn a_change_over_the_other_versions_lines_is_not() {
        // The other version changed the very line the change replaces.
        let base = "a\nb\nc\n";
        assert_eq!(transplant(base, "a\nB\nc\n", "a\nb2\nc\n"), None);
        // An insertion where the other version inserted too: which goes first is not known.
        assert_eq!(transplant(base, "a\nx\nb\nc\n", "a\ny\nb\nc\n"), None);
        // Where the other version removed the neighbours an insertion sits between.
        assert_eq!(transplant(base, "a\nc\n", "a\nb\ny\nc\n"), None);
    }

    #[test]
    fn changes_apart_commute() {
        let base = "1\n2\n3\n4\n5\n";
        let onto = "0\n1\n2\n3\n4\n5\n6\n";
        let changed = "1\n2\nthree\n4\n5\n";
        assert_eq!(
            transplant(base, onto, changed).unwrap(),
            "0\n1\n2\nthree\n4\n5\n6\n"
        );
        // Nothing changed: the other version as it is.
        assert_eq!(transplant(base, onto, base).unwrap(), onto);
    }
}
