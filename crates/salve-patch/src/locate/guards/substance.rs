//! Never overwrite what the model did not quote (issue 14 §3 n).
//!
//! A line the edit removes or replaces must be the file's line *in substance*, at every rung:
//! whitespace, Unicode look-alikes (curly quotes, dashes, nbsp) and the choice of quote mark may
//! differ, but words, numbers and operators may not. Context lines may differ more, within the
//! rung's own rules (the similar rung allows a misremembered context line). A removed line that
//! differs in substance means the model edits text it has not seen: the hunk is refused and the
//! file's line shown, so the model can quote it again.
//!
//! Substance is the line's token sequence after canonical folding: runs of letters, digits and
//! `_` are words, every other non-space character is a token of its own, and `"`, `'` and `` ` ``
//! all read as one quote mark. `return x` and `returnx` differ; `f( a )` and `f(a)` do not.

use crate::edit::{HunkLine, LineKind};
use crate::locate::Placement;
use crate::report::Rung;
use crate::text::Trim as _;
use crate::text::{canonical, is_blank, strip_cr, Doc};

/// The tokens of a line, as compared for substance.
pub(crate) fn tokens(line: &str) -> Vec<String> {
    let c = canonical(line);
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    for ch in c.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            word.push(ch);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if ch.is_whitespace() {
            continue;
        }
        let ch = if matches!(ch, '"' | '`') { '\'' } else { ch };
        out.push(ch.to_string());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether two lines are the same in substance. A typographic dash stands for a run of
/// hyphens of unknown length (a writer's `--` becomes `—`), so when either line holds one, runs
/// of `-` compare as one.
pub(crate) fn same(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (ta, tb) = (tokens(a), tokens(b));
    if ta == tb {
        return true;
    }
    let dash = |s: &str| s.contains(['\u{2012}', '\u{2013}', '\u{2014}', '\u{2015}']);
    (dash(a) || dash(b)) && hyphen_runs(ta) == hyphen_runs(tb)
}

/// Tokens with every run of `-` tokens made one.
fn hyphen_runs(mut t: Vec<String>) -> Vec<String> {
    t.dedup_by(|x, y| x == "-" && y == "-");
    t
}

/// Check every removed line of a placed hunk against the file line it stands on. Elision markers
/// the elision rung pairs with an added marker (moved code) stand for file lines by design, and
/// a removed blank line may stand on a blank line of any kind.
pub(crate) fn check_removed(doc: &Doc, lines: &[HunkLine], p: &Placement) -> Result<(), String> {
    let old = lines.iter().filter(|l| l.kind != LineKind::Add);
    for (l, span) in old.zip(&p.fit.map) {
        if l.kind != LineKind::Remove || span.is_empty() {
            continue;
        }
        let text = strip_cr(&l.text);
        if p.rung == Rung::Elision && crate::placeholder::is_marker(text) {
            continue;
        }
        for f in span.start..span.end {
            let file = doc.line(f);
            if (is_blank(text) && is_blank(file)) || same(text, file) {
                continue;
            }
            return Err(format!(
                "the hunk removes {:?}, but line {} of the file reads {:?}: the edit would overwrite text it does not quote; quote the file's line exactly",
                excerpt(text),
                f + 1,
                excerpt(file)
            ));
        }
    }
    Ok(())
}

/// Whether the bytes `[a, b)` of `hay` start or end inside a word: the text found there is then
/// part of a longer word of the file (`count` inside `max_count`), which differs in substance.
pub(crate) fn cuts_word(hay: &str, a: usize, b: usize) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let (Some(inner), Some(before)) = (hay.get(a..b), hay.get(..a)) else {
        return false;
    };
    let after = hay.get(b..).unwrap_or("");
    let joined = |x: Option<char>, y: Option<char>| x.is_some_and(word) && y.is_some_and(word);
    joined(before.chars().next_back(), inner.chars().next())
        || joined(inner.chars().next_back(), after.chars().next())
}

fn excerpt(s: &str) -> String {
    s.trim_ws().chars().take(80).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn spacing_look_alikes_and_quotes_are_not_substance() {
        assert!(same("    f( a, b )", "f(a,b)"));
        assert!(same("x = \u{201c}hi\u{201d}  \u{2013} 1", "x = 'hi' - 1"));
        assert!(same("s = `a`", "s = \"a\""));
    }

    #[test]
    fn a_typographic_dash_stands_for_a_run_of_hyphens() {
        assert!(same("while(argc\u{2014})", "while(argc--)"));
        assert!(same("x = a \u{2013} b", "x = a - b"));
        // Without a typographic dash, hyphens count one by one.
        assert!(!same("while(argc-)", "while(argc--)"));
        // The dash stands for hyphens only: other operators still differ.
        assert!(!same("while(argc\u{2014})", "while(argc++)"));
    }

    #[test]
    fn words_numbers_and_operators_are() {
        assert!(!same("return x", "returnx"));
        assert!(!same("limit = 10", "limit = 100"));
        assert!(!same("if a < b:", "if a <= b:"));
        assert!(!same("let total = price;", "let total = cost;"));
    }

    #[test]
    fn a_span_inside_a_longer_word_is_cut() {
        let hay = "max_count = 1\ncount = 2\n";
        assert!(cuts_word(hay, 4, 13));
        assert!(!cuts_word(hay, 14, 23));
        assert!(cuts_word(hay, 14, 18));
        assert!(!cuts_word(hay, 19, 20));
        // Punctuation at the edge of the span joins nothing.
        assert!(!cuts_word("f(x)", 1, 3));
    }
}
