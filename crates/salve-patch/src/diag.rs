//! Short character-level diffs for failure reports, with invisible characters made visible.
//!
//! A model that wrote `“` where the file has `"`, or two spaces where it has a tab, cannot see the
//! difference in ordinary text. [`char_diff`] shows only the lines that differ, marks what the edit
//! expected but the file lacks as `[-…-]` and what the file has instead as `{+…+}`, writes spaces as
//! `·`, tabs as `→`, carriage returns as `␍`, and other invisible or look-alike characters as
//! `⟨U+00A0⟩`, and shortens long equal stretches.
//!
//! Every line it writes is at most [`MAX_WIDTH`] characters and says how many it left out: a
//! minified file's one line can be megabytes, and a report quoting it whole for each candidate
//! is unreadable and unsendable.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// Differing lines shown before the rest is summarised.
const MAX_LINES: usize = 6;
/// Equal stretches longer than this are shortened to their ends.
const MAX_EQUAL: usize = 24;
const KEEP: usize = 10;
/// Characters of one diff line shown before the rest is only counted.
pub(crate) const MAX_WIDTH: usize = 300;
/// Lines longer than this (together) are compared by their differing middle only, each side
/// cut to this many characters, so the character diff stays cheap.
const MAX_INLINE: usize = 2_000;

/// `s` cut to `max` characters, saying how many were left out: `abc… 5 more characters`.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}… {} more characters", &s[..at], s[at..].chars().count()),
        None => s.to_owned(),
    }
}

/// [`visible`] of at most `max` characters of `raw`, saying how many were left out.
fn visible_cut(raw: &str, max: usize) -> String {
    match raw.char_indices().nth(max) {
        Some((at, _)) => format!(
            "{}… {} more characters",
            visible(&raw[..at]),
            raw[at..].chars().count()
        ),
        None => visible(raw),
    }
}

/// Character-level diff from `expected` (what the edit says) to `found` (what the file has).
pub(crate) fn char_diff(expected: &str, found: &str) -> String {
    if expected == found {
        return "identical".into();
    }
    let a: Vec<&str> = expected.split('\n').collect();
    let b: Vec<&str> = found.split('\n').collect();
    let mut out: Vec<String> = Vec::new();
    let mut shown = 0usize;
    let mut hidden = 0usize;
    let mut push = |line: String, out: &mut Vec<String>| {
        if shown < MAX_LINES {
            out.push(line);
            shown += 1;
        } else {
            hidden += 1;
        }
    };
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for (k, line) in a.iter().enumerate().skip(old_index).take(old_len) {
                    push(
                        format!("{}: [-{}-]", k + 1, visible_cut(line, MAX_WIDTH)),
                        &mut out,
                    );
                }
            }
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => {
                for line in b.iter().skip(new_index).take(new_len) {
                    push(
                        format!("{}: {{+{}+}}", old_index + 1, visible_cut(line, MAX_WIDTH)),
                        &mut out,
                    );
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let pairs = old_len.max(new_len);
                for k in 0..pairs {
                    let line = match (
                        a.get(old_index + k).filter(|_| k < old_len),
                        b.get(new_index + k).filter(|_| k < new_len),
                    ) {
                        (Some(x), Some(y)) => {
                            format!("{}: {}", old_index + k + 1, clip(&inline(x, y), MAX_WIDTH))
                        }
                        (Some(x), None) => {
                            format!("{}: [-{}-]", old_index + k + 1, visible_cut(x, MAX_WIDTH))
                        }
                        (None, Some(y)) => {
                            format!("{}: {{+{}+}}", old_index + k + 1, visible_cut(y, MAX_WIDTH))
                        }
                        (None, None) => continue,
                    };
                    push(line, &mut out);
                }
            }
        }
    }
    if hidden > 0 {
        out.push(format!("… {hidden} more line(s) differ"));
    }
    out.join("\n")
}

/// One line pair as an inline character diff.
fn inline(x: &str, y: &str) -> String {
    let a: Vec<char> = x.chars().collect();
    let b: Vec<char> = y.chars().collect();
    if a.len() + b.len() <= MAX_INLINE {
        return inline_chars(&a, &b);
    }
    // Long lines: the common ends are equal stretches, and only the middle is diffed, cut to
    // a length the diff handles fast (the rest of it is counted, not shown).
    let prefix = a.iter().zip(&b).take_while(|(p, q)| p == q).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(p, q)| p == q)
        .count();
    let (middle_a, middle_b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let ends = |chars: &[char]| shorten(&visible(&chars.iter().collect::<String>()));
    let mut out = ends(&a[..prefix]);
    if middle_a.len() + middle_b.len() <= MAX_INLINE {
        out.push_str(&inline_chars(middle_a, middle_b));
    } else {
        let side = |chars: &[char]| visible_cut(&chars.iter().collect::<String>(), MAX_INLINE / 2);
        out.push_str(&format!("[-{}-]{{+{}+}}", side(middle_a), side(middle_b)));
    }
    out.push_str(&ends(&a[a.len() - suffix..]));
    out
}

fn inline_chars(a: &[char], b: &[char]) -> String {
    let mut out = String::new();
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        let (_, o, n) = op.as_tag_tuple();
        let left: String = a[o.clone()].iter().collect();
        let right: String = b[n.clone()].iter().collect();
        match op {
            DiffOp::Equal { .. } => out.push_str(&shorten(&visible(&left))),
            DiffOp::Delete { .. } => out.push_str(&format!("[-{}-]", visible(&left))),
            DiffOp::Insert { .. } => out.push_str(&format!("{{+{}+}}", visible(&right))),
            DiffOp::Replace { .. } => {
                out.push_str(&format!("[-{}-]{{+{}+}}", visible(&left), visible(&right)))
            }
        }
    }
    out
}

fn shorten(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= MAX_EQUAL {
        return s.to_string();
    }
    let head: String = chars[..KEEP].iter().collect();
    let tail: String = chars[chars.len() - KEEP..].iter().collect();
    format!("{head}…{tail}")
}

/// The text with invisible and look-alike characters spelled out.
pub(crate) fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ' ' => out.push('·'),
            '\t' => out.push('→'),
            '\r' => out.push('␍'),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c if odd(c) => out.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Characters a reader cannot tell from ASCII or cannot see at all.
fn odd(c: char) -> bool {
    c.is_control()
        || c.is_whitespace()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{2060}'
                | '\u{feff}'
                | '\u{00ad}'
                | '\u{2018}'..='\u{201f}'
                | '\u{2010}'..='\u{2015}'
                | '\u{2032}'
                | '\u{2033}'
                | '\u{2212}'
                | '\u{2026}'
        )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn shows_invisible_characters() {
        assert_eq!(visible("a b\tc\r"), "a·b→c␍");
        assert_eq!(visible("x\u{a0}y"), "x⟨U+00A0⟩y");
        assert_eq!(visible("é"), "é");
    }

    #[test]
    fn marks_the_differing_characters_only() {
        let d = char_diff("let s = \u{201c}hi\u{201d};", "let s = \"hi\";");
        assert_eq!(d, "1: let·s·=·[-⟨U+201C⟩-]{+\"+}hi[-⟨U+201D⟩-]{+\"+};");
        assert_eq!(char_diff("a\nb", "a\nb"), "identical");
    }

    #[test]
    fn reports_missing_and_extra_lines() {
        let d = char_diff("a\nb\nc", "a\nc\nd");
        assert!(d.contains("2: [-b-]"), "{d}");
        assert!(d.contains("{+d+}"), "{d}");
    }

    #[test]
    fn a_megabyte_line_gives_a_short_diff_that_says_what_it_left_out() {
        let line = "function f(a){return a+1};".repeat(40_000);
        let d = char_diff("function f(a){return a+1};", &line);
        assert!(d.chars().count() < MAX_WIDTH + 60, "{}", d.len());
        assert!(d.contains(" more characters"), "{d}");

        // Two long lines that differ in the middle: cheap, short, and the change is shown.
        let other = format!("{}X{}", &line[..500_000], &line[500_000..]);
        let started = std::time::Instant::now();
        let d = char_diff(&line, &other);
        assert!(started.elapsed().as_secs() < 2);
        assert!(d.contains("{+X+}"), "{d}");
        assert!(d.chars().count() < MAX_WIDTH + 60, "{}", d.len());

        // Long lines that differ everywhere are cut on both sides.
        let d = char_diff(&"a".repeat(100_000), &"b".repeat(100_000));
        assert!(d.contains("more characters"), "{d}");
        assert!(d.chars().count() < MAX_WIDTH + 60, "{}", d.len());
    }

    #[test]
    fn clip_counts_what_it_leaves_out() {
        assert_eq!(clip("abcdef", 4), "abcd… 2 more characters");
        assert_eq!(clip("abc", 4), "abc");
        assert_eq!(clip("ééé", 1), "é… 2 more characters");
    }

    #[test]
    fn shortens_long_equal_stretches() {
        let d = char_diff(
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa x",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa y",
        );
        assert!(d.contains('…'), "{d}");
        assert!(d.len() < 60, "{d}");
    }
}
