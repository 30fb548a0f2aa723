//! An added line indented exactly as a line the hunk quotes takes that line's indentation in the
//! file.
//!
//! The earlier passes ([`crate::locate::write::reindent`], [`crate::locate::write::levels`], [`crate::locate::write::style`]) map the reply's
//! indentation onto the file's by a rule: a shift, a level width, spaces per tab. A file may
//! indent one level in two ways (tabs and a few alignment spaces, `\t\t       n -= 1;`), and a
//! rule then writes the added line the other way (`\t\t\t   `). The quoted lines show the
//! file's own indentation for the reply's: an added line at the very indentation of a quoted
//! line is at that file line's indentation. When the quoted lines at one indentation of the
//! reply stand at two different ones in the file (a reply that writes the file's tabs and its
//! spaces alike as spaces), an added line at that indentation has no certain place, and the
//! hunk is refused.

use crate::edit::{HunkLine, LineKind};
#[cfg(test)]
use crate::locate::pre_image;
use crate::locate::Placement;
use crate::ops::Op;
use crate::report::Rung;
#[cfg(test)]
use crate::text::{canonical_eq, Doc};
use crate::text::{is_blank, leading_ws, strip_cr};

/// Give the model-written lines of `ops` (one placed hunk) the file indentation of the quoted
/// lines the reply indents alike; an error when those quoted lines disagree.
/// `pairs` are the hunk's matched indentation pairs ([`crate::locate::write::levels::matched_pairs`],
/// computed once per hunk for this pass and the releveling).
pub(crate) fn match_quoted(
    lines: &[HunkLine],
    p: &Placement,
    pairs: &[(&str, &str)],
    ops: &mut [Op],
) -> Result<(), String> {
    // Elision markers bring file lines back in place of added lines: no one-for-one pairing.
    if p.rung == Rung::Elision {
        return Ok(());
    }
    if pairs.iter().all(|(r, f)| r == f) {
        return Ok(());
    }
    let added: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text))
        .collect();
    let mut written: Vec<&mut String> = ops
        .iter_mut()
        .flat_map(|o| o.insert.iter_mut())
        .filter(|n| n.eol.is_none())
        .map(|n| &mut n.text)
        .collect();
    if written.len() != added.len() {
        return Ok(());
    }
    for (raw, text) in added.iter().zip(written.iter_mut()) {
        if is_blank(raw) {
            continue;
        }
        let ws = leading_ws(raw);
        let mut files = pairs.iter().filter(|(r, _)| *r == ws).map(|(_, f)| *f);
        let Some(first) = files.next() else {
            continue;
        };
        if files.any(|f| f != first) {
            return Err(format!(
                "an added line is indented as quoted lines that stand at different indentations in the file ({:?} and more), so its own cannot be told; write the added lines in the file's indentation",
                first
            ));
        }
        let body = &text[leading_ws(text).len()..];
        **text = format!("{first}{body}");
    }
    Ok(())
}

/// The (reply, file) indentation of every non-blank quoted line that matches its file line:
/// the pairs this pass computed for itself before it shared the releveling's; kept as the
/// reference the shared ones are tested against.
#[cfg(test)]
fn quoted_pairs<'a>(doc: &'a Doc, lines: &'a [HunkLine], p: &Placement) -> Vec<(&'a str, &'a str)> {
    let (pre, _) = pre_image(lines);
    pre.iter()
        .zip(&p.fit.map)
        .filter(|(_, span)| span.end == span.start + 1 && span.start < doc.len())
        .map(|(text, span)| (*text, strip_cr(doc.line(span.start))))
        .filter(|(text, file)| !is_blank(text) && !is_blank(file) && canonical_eq(text, file))
        .map(|(text, file)| (leading_ws(text), leading_ws(file)))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::locate::rungs::search::{Fit, Span};
    use crate::ops::NewLine;
    use crate::text::Form;

    fn run(file: &str, hunk: &[(LineKind, &str)], fit_at: &[usize]) -> Result<Vec<String>, String> {
        let doc = Doc::parse(file);
        let lines: Vec<HunkLine> = hunk
            .iter()
            .map(|(k, t)| HunkLine::new(*k, t.to_string()))
            .collect();
        let fit = Fit {
            map: fit_at.iter().map(|&i| Span::line(i)).collect(),
            reindent: Default::default(),
            form: Form::Canon,
        };
        let p = Placement::new(Rung::Canonical, fit, None);
        let insert: Vec<NewLine> = lines
            .iter()
            .filter(|l| l.kind == LineKind::Add)
            .map(|l| NewLine {
                text: l.text.clone(),
                eol: None,
            })
            .collect();
        let mut ops = vec![Op {
            start: 1,
            end: 2,
            insert,
            hunk: 0,
        }];
        let pairs = crate::locate::write::levels::matched_pairs(&doc, &lines, &p);
        match_quoted(&lines, &p, &pairs, &mut ops)?;
        Ok(ops[0].insert.iter().map(|n| n.text.clone()).collect())
    }

    /// The pairs shared with the releveling are the pairs this pass computed for itself:
    /// seeded random files and hunks (tabs, spaces, no-break spaces, blank lines, `\r` before
    /// the newline, curly quotes, lines quoted with other indentation or changed), placed by
    /// random maps (single lines, empty and wide spans, lines past the end).
    #[test]
    fn shared_pairs_agree_with_the_quoted_pairs() {
        let seed = 1313u64;
        eprintln!("seed {seed}");
        let mut rng = crate::test_rng::SeededRng::new(seed);
        let mut next = move |n: usize| rng.below(n);
        let indents = ["", " ", "    ", "\t", "\t  ", "\u{a0}\u{a0}", "  \t"];
        let bodies = [
            "x = 1;",
            "}",
            "",
            "say(\"hi\");",
            "say(\u{201c}hi\u{201d});",
            "  ",
            "a  b",
        ];
        let ends = ["", "\r", " "];
        let line = |next: &mut dyn FnMut(usize) -> usize| {
            format!(
                "{}{}{}",
                indents[next(indents.len())],
                bodies[next(bodies.len())],
                ends[next(ends.len())]
            )
        };
        let mut paired = 0;
        for case in 0..20_000 {
            let file: Vec<String> = (0..1 + next(12)).map(|_| line(&mut next)).collect();
            let text: String = file.iter().map(|l| format!("{l}\n")).collect();
            let doc = Doc::parse(&text);
            let lines: Vec<HunkLine> = (0..next(10))
                .map(|_| {
                    let kind = [LineKind::Context, LineKind::Remove, LineKind::Add][next(3)];
                    let t = match next(3) {
                        0 => file[next(file.len())].clone(),
                        _ => line(&mut next),
                    };
                    HunkLine::new(kind, t)
                })
                .collect();
            let pre = lines.iter().filter(|l| l.kind != LineKind::Add).count();
            let map = (0..pre + next(2))
                .map(|_| {
                    let start = next(file.len() + 2);
                    Span {
                        start,
                        end: start + [1, 1, 1, 0, 2][next(5)],
                    }
                })
                .collect();
            let fit = Fit {
                map,
                reindent: Default::default(),
                form: Form::Canon,
            };
            let p = Placement::new(Rung::Canonical, fit, None);
            let shared = crate::locate::write::levels::matched_pairs(&doc, &lines, &p);
            paired += usize::from(!shared.is_empty());
            assert_eq!(
                shared,
                quoted_pairs(&doc, &lines, &p),
                "seed {seed} case {case} {text:?} {lines:?}"
            );
        }
        // Not a test of empty lists: most cases pair some lines.
        assert!(paired > 2_000, "{paired}");
    }

    #[test]
    fn an_added_line_takes_the_indentation_of_the_quoted_line_indented_alike() {
        // Tabs and alignment spaces, quoted as spaces: the rule would write `\t\t\t   `.
        let file = "\t\tfor (;;\n\t\t       n--) x;\n";
        let hunk = [
            (LineKind::Context, "        for (;;"),
            (LineKind::Remove, "               n--) x;"),
            (LineKind::Add, "               m--) x;"),
        ];
        assert_eq!(run(file, &hunk, &[0, 1]).unwrap(), ["\t\t       m--) x;"]);
    }

    #[test]
    fn quoted_lines_indented_alike_at_two_file_indentations_refuse() {
        let file = "    a \\\n\tb\n";
        let hunk = [
            (LineKind::Context, "    a \\"),
            (LineKind::Remove, "    b"),
            (LineKind::Add, "    c"),
        ];
        assert!(run(file, &hunk, &[0, 1]).is_err());
        // Quoted as the file has them: nothing to do.
        let hunk = [
            (LineKind::Context, "    a \\"),
            (LineKind::Remove, "\tb"),
            (LineKind::Add, "\tc"),
        ];
        assert_eq!(run(file, &hunk, &[0, 1]).unwrap(), ["\tc"]);
    }
}
