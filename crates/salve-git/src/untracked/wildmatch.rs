//! git's glob matcher for ignore patterns, as git defines it (`*`, `?`, `[...]`, `\x`, and `**`
//! next to slashes), over bytes.
//!
//! The rules, from git's documentation and checked against git by the property test:
//! - `?` and `[...]` match one byte; under `pathname`, never a `/`.
//! - `*` matches any run of bytes; under `pathname`, none holding a `/`.
//! - `**` at the start of the pattern or after a `/`, and followed by `/` or the end, matches
//!   across slashes (and `**/` may match nothing); elsewhere it is a `*`.
//! - `[!...]` and `[^...]` negate; `a-z` is a byte range; `]` first in a class is literal;
//!   `\` escapes the next byte anywhere. Named classes (`[:alpha:]`) are not modelled: a
//!   pattern holding `[:` is refused by [`super::patterns`] before it gets here.

/// The outcome of matching from one point, as git's matcher distinguishes them: a mismatch
/// that an outer `*` may retry, or one that no retry can mend.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Found {
    Match,
    NoMatch,
    /// Text ran out: no later start of an outer `*` can help.
    AbortAll,
    /// A single `*` met a slash: only an outer `**` can still help.
    AbortToDoubleStar,
}

/// Whether `pattern` matches the whole of `text`. `pathname`: slashes are only matched by `/`
/// and `**`.
pub(crate) fn matches(pattern: &[u8], text: &[u8], pathname: bool) -> bool {
    run(pattern, 0, text, 0, pathname) == Found::Match
}

fn special(b: u8) -> bool {
    matches!(b, b'*' | b'?' | b'[' | b'\\')
}

fn at(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

fn run(pat: &[u8], mut p: usize, text: &[u8], mut t: usize, pathname: bool) -> Found {
    while p < pat.len() {
        let mut pc = pat[p];
        let tc = at(text, t);
        if t >= text.len() && pc != b'*' {
            return Found::AbortAll;
        }
        match pc {
            b'?' => {
                if pathname && tc == b'/' {
                    return Found::NoMatch;
                }
            }
            b'*' => return star(pat, p, text, t, pathname),
            b'[' => match class(pat, p, tc) {
                None => return Found::AbortAll,
                Some((matched, end)) => {
                    if !matched || (pathname && tc == b'/') {
                        return Found::NoMatch;
                    }
                    p = end;
                }
            },
            _ => {
                if pc == b'\\' {
                    p += 1;
                    pc = at(pat, p);
                }
                if tc != pc {
                    return Found::NoMatch;
                }
            }
        }
        p += 1;
        t += 1;
    }
    if t < text.len() {
        Found::NoMatch
    } else {
        Found::Match
    }
}

/// A `*` or `**` at `p`.
fn star(pat: &[u8], p: usize, text: &[u8], mut t: usize, pathname: bool) -> Found {
    let start = p;
    let mut p = p + 1;
    let match_slash;
    if at(pat, p) == b'*' {
        while at(pat, p) == b'*' {
            p += 1;
        }
        let after_slash = start == 0 || pat[start - 1] == b'/';
        let next = at(pat, p);
        let before_slash =
            p >= pat.len() || next == b'/' || (next == b'\\' && at(pat, p + 1) == b'/');
        if after_slash && before_slash {
            // `**/` may stand for no directory at all.
            if next == b'/' && p < pat.len() && run(pat, p + 1, text, t, pathname) == Found::Match {
                return Found::Match;
            }
            match_slash = true;
        } else {
            match_slash = !pathname;
        }
    } else {
        match_slash = !pathname;
    }
    if p >= pat.len() {
        if !match_slash && text[t.min(text.len())..].contains(&b'/') {
            return Found::NoMatch;
        }
        return Found::Match;
    }
    if !match_slash && pat[p] == b'/' {
        // One `*` then a slash: the rest of this directory's name.
        let Some(offset) = text[t.min(text.len())..].iter().position(|b| *b == b'/') else {
            return Found::NoMatch;
        };
        return run(pat, p, text, t + offset, pathname);
    }
    loop {
        if t >= text.len() {
            break;
        }
        let next = pat[p];
        if !special(next) {
            // Skip ahead to the next byte that could begin the rest of the pattern.
            while t < text.len() && (match_slash || text[t] != b'/') && text[t] != next {
                t += 1;
            }
            if at(text, t) != next || t >= text.len() {
                // A `**` that cannot find it anywhere ends the match; a `*` that cannot find
                // it in this directory leaves an outer `**` to try further on.
                return if match_slash {
                    Found::AbortAll
                } else {
                    Found::AbortToDoubleStar
                };
            }
        }
        let found = run(pat, p, text, t, pathname);
        if found != Found::NoMatch {
            if !match_slash || found != Found::AbortToDoubleStar {
                return found;
            }
        } else if !match_slash && text[t] == b'/' {
            return Found::AbortToDoubleStar;
        }
        t += 1;
    }
    Found::AbortAll
}

/// A bracket class at `p` against byte `tc`: whether it matched and the index of its closing
/// `]`, or `None` when the pattern ends inside it.
fn class(pat: &[u8], p: usize, tc: u8) -> Option<(bool, usize)> {
    let mut p = p + 1;
    let mut pc = at(pat, p);
    let negated = pc == b'!' || pc == b'^';
    if negated {
        p += 1;
        pc = at(pat, p);
    }
    let mut prev: u8 = 0;
    let mut matched = false;
    loop {
        if p >= pat.len() {
            return None;
        }
        if pc == b'\\' {
            p += 1;
            pc = at(pat, p);
            if p >= pat.len() {
                return None;
            }
            if tc == pc {
                matched = true;
            }
        } else if pc == b'-' && prev != 0 && p + 1 < pat.len() && pat[p + 1] != b']' {
            p += 1;
            pc = pat[p];
            if pc == b'\\' {
                p += 1;
                if p >= pat.len() {
                    return None;
                }
                pc = pat[p];
            }
            if tc <= pc && tc >= prev {
                matched = true;
            }
            pc = 0;
        } else if tc == pc {
            matched = true;
        }
        prev = pc;
        p += 1;
        pc = at(pat, p);
        if pc == b']' && p < pat.len() {
            break;
        }
    }
    Some((matched != negated, p))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_and_slashes_follow_gits_rules() {
        let cases: &[(&str, &str, bool, bool)] = &[
            ("*.o", "a.o", true, true),
            ("*.o", "d/a.o", true, false),
            ("*.o", "d/a.o", false, true),
            ("**/x", "x", true, true),
            ("**/x", "a/b/x", true, true),
            ("a/**/b", "a/b", true, true),
            ("a/**/b", "a/x/y/b", true, true),
            ("a/**", "a/x/y", true, true),
            ("a**/b", "ax/b", true, true),
            ("a**/b", "a/x/b", true, false),
            ("[a-c]x", "bx", true, true),
            ("[!a-c]x", "bx", true, false),
            ("[]]x", "]x", true, true),
            ("\\#x", "#x", true, true),
            ("a?c", "a/c", true, false),
            ("[a", "a", true, false),
            ("**/*.log", "b/x.d/k.log", true, true),
            ("a/*/**/z", "a/b/c/z", true, true),
            ("x\\", "x", true, false),
        ];
        for (pattern, text, pathname, want) in cases {
            assert_eq!(
                matches(pattern.as_bytes(), text.as_bytes(), *pathname),
                *want,
                "{pattern} on {text} (pathname {pathname})"
            );
        }
    }
}
