//! Unicode folded in the quoted lines is folded in the added lines too (issue 14 §3 k).
//!
//! The canonical form matches a quoted line with curly quotes, typographic dashes, non-breaking
//! spaces or invisible characters against the file's plain ASCII ([`crate::text::canonical`]).
//! When that happens, the model's writer (a chat UI, a word processor, a tokenizer) changed
//! those characters, and it changed them in the added lines too: written as they came, they put
//! `’` into code, a syntax error. So the added lines get the same mapping.
//!
//! Only mappings observed are applied: a character is replaced in the added lines only when a
//! quoted line held it where the file line it matched holds its plain counterpart. Where the
//! quoted lines show one character both folded and kept as it is (a curly quote in a string the
//! file really has, and a straight one in code), the added lines' use of it is ambiguous and the
//! hunk is refused, and so it is when the file itself holds the character elsewhere (a curly
//! apostrophe in its doc comments while its code has straight ones). ASCII is never mapped to anything, so a reply with straight quotes against a
//! file with curly ones is left as written. Characters the quoted lines never show folded are
//! left as written too.

use crate::text::Trim as _;
use std::collections::HashMap;

use crate::edit::HunkLine;
use crate::locate::{pre_image, Placement};
use crate::ops::Op;
use crate::text::{canonical, fold_char, Doc};

/// What a character in the reply stands for in the file: a replacement, or `None` when the
/// quoted lines disagree.
type Mapping = HashMap<char, Option<String>>;

fn record(map: &mut Mapping, from: char, to: String) {
    match map.get(&from) {
        None => {
            map.insert(from, Some(to));
        }
        Some(Some(t)) if *t == to => {}
        Some(_) => {
            map.insert(from, None);
        }
    }
}

/// Whether the canonical form changes `c`.
fn folds(c: char) -> bool {
    fold_char(c).as_ref() != c.to_string()
}

/// The non-whitespace characters of `s` after folding, each with the character it came from;
/// characters that fold to several (an ellipsis) are marked `None` as their source.
fn folded(s: &str) -> Vec<(char, Option<char>)> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let f = fold_char(c);
        let single = f.chars().count() == 1;
        for x in f.chars().filter(|x| !x.is_whitespace()) {
            out.push((x, single.then_some(c)));
        }
    }
    out
}

/// What one matched pair (reply line, file line) shows of the reply's folding.
fn observe(map: &mut Mapping, reply: &str, file: &str) {
    if reply.is_ascii() {
        return;
    }
    if canonical(reply) != canonical(file) {
        observe_dashes(map, reply, file);
        return;
    }
    let (r, f) = (folded(reply), folded(file));
    if r.len() != f.len() || r.iter().zip(&f).any(|(a, b)| a.0 != b.0) {
        // Normalization composed characters differently: no character-level evidence.
        return;
    }
    for ((_, rc), (_, fc)) in r.iter().zip(&f) {
        if let (Some(rc), Some(fc)) = (rc, fc) {
            if !rc.is_ascii() && folds(*rc) {
                record(map, *rc, fc.to_string());
            }
        }
    }
    // Spaces and invisible characters fold to whitespace or to nothing, so they have no place
    // in the sequences above: one the file line lacks was folded.
    for c in reply.chars().filter(|&c| !c.is_ascii() && folds(c)) {
        let to = fold_char(c);
        if to.trim_ws().is_empty() {
            let plain = if file.contains(c) {
                c.to_string()
            } else {
                to.into_owned()
            };
            record(map, c, plain);
        }
    }
}

/// Whether `c` is a typographic dash, which a writer may have made of one hyphen or several.
fn dash(c: char) -> bool {
    matches!(c, '\u{2012}'..='\u{2015}')
}

/// A matched pair that differs after folding only where a typographic dash of the reply stands
/// on a run of hyphens in the file (`argc—` for `argc--`): each dash maps to the run it stood
/// on. Anything else different gives no evidence.
fn observe_dashes(map: &mut Mapping, reply: &str, file: &str) {
    let (r, f) = (folded(reply), folded(file));
    let mut seen: Vec<(char, String)> = Vec::new();
    let mut j = 0;
    for &(rx, rc) in &r {
        match rc {
            Some(c) if dash(c) && f.get(j).is_some_and(|x| x.0 == '-') => {
                let run = f[j..].iter().take_while(|x| x.0 == '-').count();
                seen.push((c, "-".repeat(run)));
                j += run;
            }
            _ if f.get(j).is_some_and(|x| x.0 == rx) => j += 1,
            _ => return,
        }
    }
    if j != f.len() {
        return;
    }
    for (c, to) in seen {
        record(map, c, to);
    }
}

/// Apply the folding the hunk's matched lines show to the model-written lines of `ops`.
pub(crate) fn fold_ops(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    ops: &mut [Op],
) -> Result<(), String> {
    let written = |ops: &[Op]| {
        ops.iter()
            .flat_map(|o| o.insert.iter())
            .filter(|n| n.eol.is_none())
            .any(|n| !n.text.is_ascii())
    };
    if !written(ops) {
        return Ok(());
    }
    let (pre, _) = pre_image(lines);
    let mut map = Mapping::new();
    for (text, span) in pre.iter().zip(&p.fit.map) {
        if span.end == span.start + 1 {
            observe(&mut map, text, doc.line(span.start));
        }
    }
    if map.is_empty() {
        return Ok(());
    }
    add_sibling_quotes(&mut map, ops);
    // A character the file itself uses elsewhere may be meant as it is in the added lines (a
    // curly apostrophe in a doc comment of a file whose code has straight ones): unclear.
    for (c, to) in map.iter_mut() {
        if to.as_deref().is_some_and(|t| t != c.to_string()) && doc.body.contains(*c) {
            *to = None;
        }
    }
    for n in ops
        .iter_mut()
        .flat_map(|o| o.insert.iter_mut())
        .filter(|n| n.eol.is_none() && !n.text.is_ascii())
    {
        let mut out = String::with_capacity(n.text.len());
        for c in n.text.chars() {
            match map.get(&c) {
                Some(Some(to)) => out.push_str(to),
                Some(None) => {
                    return Err(format!(
                        "the lines this hunk quotes show {c:?} both as it is and as a plain character in the file (here or elsewhere in it), so which one the added lines mean is unclear; write the added lines with the file's characters"
                    ))
                }
                None => out.push(c),
            }
        }
        n.text = out;
    }
    Ok(())
}

/// A writer that curls quotes curls them by their place in the text, opening or closing: a
/// quoted line with one `"` shows it only as `“`, and the added lines' `”` is the same straight
/// quote. So a curly quote the quoted lines never show is mapped as its sibling is, when one of
/// the same family (folding to the same straight quote) was seen mapped to it.
fn add_sibling_quotes(map: &mut Mapping, ops: &[Op]) {
    let seen: Vec<String> = map
        .iter()
        .filter_map(|(c, to)| {
            let to = to.as_deref()?;
            (matches!(to, "\"" | "'") && fold_char(*c) == to).then(|| to.to_string())
        })
        .collect();
    let written = ops
        .iter()
        .flat_map(|o| o.insert.iter())
        .filter(|n| n.eol.is_none())
        .flat_map(|n| n.text.chars());
    let mut siblings = Vec::new();
    for c in written.filter(|c| !c.is_ascii() && !map.contains_key(c)) {
        let to = fold_char(c);
        if seen.iter().any(|s| *s == to) {
            siblings.push((c, to.into_owned()));
        }
    }
    for (c, to) in siblings {
        map.insert(c, Some(to));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn mapping(pairs: &[(&str, &str)]) -> Mapping {
        let mut m = Mapping::new();
        for (r, f) in pairs {
            observe(&mut m, r, f);
        }
        m
    }

    #[test]
    fn curly_quotes_seen_folded_are_mapped() {
        let m = mapping(&[("print(\u{2018}hi\u{2019})", "print('hi')")]);
        assert_eq!(m.get(&'\u{2018}'), Some(&Some("'".to_string())));
        assert_eq!(m.get(&'\u{2019}'), Some(&Some("'".to_string())));
        // Not seen: not mapped.
        assert_eq!(m.get(&'\u{201c}'), None);
    }

    #[test]
    fn a_closing_quote_follows_its_opening_sibling() {
        use crate::ops::NewLine;
        let mut map = mapping(&[("// reads as \u{201c}already", "// reads as \"already")]);
        let op = Op {
            start: 0,
            end: 0,
            insert: vec![NewLine {
                text: "// \u{201c}already there\u{201d} \u{2019}x".to_string(),
                eol: None,
            }],
            hunk: 0,
        };
        add_sibling_quotes(&mut map, std::slice::from_ref(&op));
        assert_eq!(map.get(&'\u{201d}'), Some(&Some("\"".to_string())));
        // Another family was not shown curled: left alone.
        assert_eq!(map.get(&'\u{2019}'), None);
    }

    #[test]
    fn a_dash_maps_to_the_run_of_hyphens_it_stood_on() {
        let m = mapping(&[("while(argc\u{2014})", "while(argc--)")]);
        assert_eq!(m.get(&'\u{2014}'), Some(&Some("--".to_string())));
        // Two runs of different lengths: unclear.
        let m = mapping(&[("a \u{2014} b", "a - b"), ("i\u{2014};", "i--;")]);
        assert_eq!(m.get(&'\u{2014}'), Some(&None));
        // Any other difference: no evidence.
        assert!(mapping(&[("while(n\u{2014}) x", "while(n--) y")]).is_empty());
    }

    #[test]
    fn kept_and_folded_is_ambiguous() {
        let m = mapping(&[
            ("x = \u{2018}a\u{2019}", "x = 'a'"),
            ("# it\u{2019}s", "# it\u{2019}s"),
        ]);
        assert_eq!(m.get(&'\u{2019}'), Some(&None));
        assert_eq!(m.get(&'\u{2018}'), Some(&Some("'".to_string())));
    }

    #[test]
    fn spaces_dashes_and_invisibles() {
        let m = mapping(&[("a\u{a0}=\u{a0}b \u{2013} c\u{200b}", "a = b - c")]);
        assert_eq!(m.get(&'\u{a0}'), Some(&Some(" ".to_string())));
        assert_eq!(m.get(&'\u{2013}'), Some(&Some("-".to_string())));
        assert_eq!(m.get(&'\u{200b}'), Some(&Some(String::new())));
        // Straight quotes in the reply against curly ones in the file: never mapped.
        assert!(mapping(&[("s = 'x'", "s = \u{2018}x\u{2019}")]).is_empty());
    }
}
