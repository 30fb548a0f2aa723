//! Property test of the order guard (issue 14 §3 f): whatever rung places a hunk, the result
//! holds the hunk's new side (its kept and added lines) in the hunk's order.
//!
//! Random files of code-like lines (with repeats, blank lines and closing braces, where relaxed
//! rungs have room to slip) get one hunk cut from a random window, with lines removed and fresh
//! lines added, and then drift that sends it down the ladder: none (exact), extra or missing
//! blank lines (blank-lines), wrong outer context (context-relax), a uniform indentation shift
//! (indent), typographic drift (canonical), or a misremembered inner context line (similar).
//! Whenever the hunk is applied, its new side must appear in the result in order; the lines the
//! drift changed are not the file's and are left out of the comparison.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use salve_patch::{apply_hunks, Hunk, HunkLine, LineKind};

const VOCAB: [&str; 10] = [
    "fn run(x: u32) -> u32 {",
    "    let y = x + 1;",
    "    if y > 2 {",
    "        return y;",
    "    }",
    "}",
    "",
    "    y * 2",
    "// it's \"done\"",
    "    total - 1",
];

/// A line as the comparison sees it: trimmed, spaces collapsed, typography folded.
fn norm(s: &str) -> String {
    s.replace(['\u{201c}', '\u{201d}'], "\"")
        .replace(['\u{2018}', '\u{2019}'], "'")
        .replace('\u{a0}', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, Clone)]
struct Case {
    file: Vec<String>,
    start: usize,
    /// Per window line: 0 keep, 1 remove, 2 remove and add a fresh line, 3 keep and add one after.
    plan: Vec<u8>,
    drift: u8,
    hint: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(0..VOCAB.len() + 6, 8..40),
        any::<prop::sample::Index>(),
        prop::collection::vec(0u8..4, 3..13),
        0u8..6,
        any::<bool>(),
    )
        .prop_map(|(ids, at, plan, drift, hint)| {
            let file: Vec<String> = ids
                .iter()
                .enumerate()
                .map(|(k, &i)| match VOCAB.get(i) {
                    Some(v) => v.to_string(),
                    None => format!("    step_{k}();"),
                })
                .collect();
            let n = plan.len().min(file.len());
            let start = at.index(file.len() - n + 1);
            Case {
                file,
                start,
                plan: plan[..n].to_vec(),
                drift,
                hint,
            }
        })
}

/// The hunk for a case and, per hunk line, whether drift changed it.
fn hunk(c: &Case) -> (Hunk, Vec<bool>) {
    let mut lines = Vec::new();
    for (k, &op) in c.plan.iter().enumerate() {
        let text = c.file[c.start + k].clone();
        let fresh = format!("    added_{k}(\"v\");");
        match op {
            1 => lines.push(HunkLine::new(LineKind::Remove, text)),
            2 => {
                lines.push(HunkLine::new(LineKind::Remove, text));
                lines.push(HunkLine::new(LineKind::Add, fresh));
            }
            3 => {
                lines.push(HunkLine::new(LineKind::Context, text));
                lines.push(HunkLine::new(LineKind::Add, fresh));
            }
            _ => lines.push(HunkLine::new(LineKind::Context, text)),
        }
    }
    let mut drifted = vec![false; lines.len()];
    let ctx: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].kind == LineKind::Context)
        .collect();
    match c.drift {
        1 => {
            // A blank context line the file lacks, or one the file has left out.
            let at = ctx.get(ctx.len() / 2).copied().unwrap_or(0);
            if lines.get(at).is_some_and(|l| l.text.is_empty()) {
                lines.remove(at);
                drifted.remove(at);
            } else {
                lines.insert(at, HunkLine::new(LineKind::Context, ""));
                drifted.insert(at, true);
            }
        }
        2 => {
            // The outermost context lines misremembered (one or both).
            let ends = if c.hint {
                vec![ctx.first()]
            } else {
                vec![ctx.first(), ctx.last()]
            };
            for &i in ends.into_iter().flatten() {
                lines[i].text = format!("    other_{i}();");
                drifted[i] = true;
            }
        }
        3 => {
            for l in lines.iter_mut().filter(|l| !l.text.is_empty()) {
                l.text = format!("    {}", l.text);
            }
        }
        4 => {
            for &i in &ctx {
                lines[i].text = lines[i]
                    .text
                    .replacen('"', "\u{201c}", 1)
                    .replace('\'', "\u{2019}")
                    .replacen(' ', "\u{a0}", 1);
            }
        }
        5 => {
            if let Some(&i) = ctx.get(ctx.len() / 2) {
                lines[i].text = format!("{} // changed", lines[i].text);
                drifted[i] = true;
            }
        }
        _ => {}
    }
    let h = Hunk {
        lines,
        old_start: c.hint.then_some(c.start + 1),
        ..Hunk::default()
    };
    (h, drifted)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn placed_hunks_keep_their_new_side_in_order(c in case()) {
        let (h, drifted) = hunk(&c);
        prop_assume!(h.lines.iter().any(|l| l.kind != LineKind::Context));
        let text = format!("{}\n", c.file.join("\n"));
        let out = apply_hunks(&text, std::slice::from_ref(&h), None);
        let Some(new) = out.new_text.as_deref() else {
            return Ok(());
        };
        let have: Vec<String> = new.lines().map(norm).collect();
        let want: Vec<String> = h
            .lines
            .iter()
            .zip(&drifted)
            .filter(|(l, d)| l.kind != LineKind::Remove && !**d && !l.text.trim().is_empty())
            .map(|(l, _)| norm(&l.text))
            .collect();
        for l in h.lines.iter().filter(|l| l.kind == LineKind::Add) {
            let n = have.iter().filter(|x| **x == norm(&l.text)).count();
            prop_assert_eq!(n, 1, "{:?} written {} times", l.text, n);
        }
        let mut at = 0;
        for w in &want {
            let k = have[at..].iter().position(|x| x == w);
            prop_assert!(k.is_some(), "{w:?} missing or out of order in\n{new}\nhunk {:#?}\n{:#?}", h.lines, out.hunks);
            at += k.unwrap_or(0) + 1;
        }
    }
}
