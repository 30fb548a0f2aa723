//! Whitespace trimming exactly as `str::trim` and its kin do it (Unicode's White_Space), with
//! a byte loop for the usual line, whose ends are ASCII: the applier trims every hunk line and
//! many file lines several times, and the `char` decoding of the general path cost about 90
//! instructions a call. A line whose first kept byte at an end is not ASCII takes the general
//! path, since a Unicode space may stand there.

/// The ASCII bytes that are White_Space (`char::is_whitespace`): tab, line feed, vertical tab,
/// form feed, carriage return and space.
fn ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// Where the leading ASCII whitespace of `b` ends, and whether a non-ASCII byte stands there.
fn first_kept(b: &[u8]) -> (usize, bool) {
    let i = b.iter().position(|&c| !ascii_space(c)).unwrap_or(b.len());
    (i, b.get(i).is_some_and(|&c| c >= 0x80))
}

/// Where the trailing ASCII whitespace of `b` starts, and whether a non-ASCII byte ends what is
/// kept.
fn last_kept(b: &[u8]) -> (usize, bool) {
    let j = b
        .iter()
        .rposition(|&c| !ascii_space(c))
        .map_or(0, |j| j + 1);
    (j, j > 0 && b[j - 1] >= 0x80)
}

/// `s.trim()`.
pub(crate) fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    let (i, wide) = first_kept(b);
    if wide {
        return s.trim();
    }
    if i == b.len() {
        return "";
    }
    let (j, wide) = last_kept(b);
    if wide {
        return s.trim();
    }
    &s[i..j]
}

/// `s.trim_start()`.
pub(crate) fn trim_start(s: &str) -> &str {
    match first_kept(s.as_bytes()) {
        (_, true) => s.trim_start(),
        (i, false) => &s[i..],
    }
}

/// `s.trim_end()`.
pub(crate) fn trim_end(s: &str) -> &str {
    match last_kept(s.as_bytes()) {
        (_, true) => s.trim_end(),
        (j, false) => &s[..j],
    }
}

/// The three as methods, so that a call reads as the standard one does.
pub(crate) trait Trim {
    /// `str::trim`.
    fn trim_ws(&self) -> &str;
    /// `str::trim_start`.
    fn trim_start_ws(&self) -> &str;
    /// `str::trim_end`.
    fn trim_end_ws(&self) -> &str;
}

impl Trim for str {
    #[inline]
    fn trim_ws(&self) -> &str {
        trim(self)
    }

    #[inline]
    fn trim_start_ws(&self) -> &str {
        trim_start(self)
    }

    #[inline]
    fn trim_end_ws(&self) -> &str {
        trim_end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function agrees with the standard library's on strings built from ASCII and
    /// Unicode whitespace, bytes that are not whitespace (`\x1c` is a separator but not
    /// White_Space) and other letters, at every length up to 9.
    #[test]
    fn trims_as_the_standard_library_does() {
        let seed = 2525u64;
        eprintln!("seed {seed}");
        let alphabet = [
            " ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "a", "é", "\u{a0}", "\u{85}",
            "\u{2028}", "\u{3000}", "\u{200b}", "\u{feff}", "}",
        ];
        let mut state = seed;
        for case in 0..200_000 {
            let mut s = String::new();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mut bits = state >> 8;
            let len = (bits % 10) as usize;
            for _ in 0..len {
                bits /= 10;
                if bits == 0 {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    bits = state >> 8;
                }
                s.push_str(alphabet[(bits % alphabet.len() as u64) as usize]);
            }
            assert_eq!(trim(&s), s.trim(), "seed {seed} case {case}: {s:?}");
            assert_eq!(
                trim_start(&s),
                s.trim_start(),
                "seed {seed} case {case}: {s:?}"
            );
            assert_eq!(trim_end(&s), s.trim_end(), "seed {seed} case {case}: {s:?}");
        }
    }
}
