//! Speed checks for the applier, ignored by default because timings only mean something in a
//! release build on a quiet machine:
//! `cargo test -p salve-patch --release --test perf -- --ignored --nocapture`.
//!
//! The targets (DESIGN.md §8 measures them properly in a benchmark): a 1,000-hunk patch on a
//! 271k-line file about as fast as GNU patch (~0.04 s), a fuzzy hunk in a 100k-line file under
//! 50 ms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, Hunk, HunkLine, LineKind};
use similar::{capture_diff_slices, group_diff_ops, Algorithm, DiffOp};
use std::time::Instant;

/// A code-like file: mostly distinct lines, with the braces and blank lines real code repeats.
fn big_file(lines: usize) -> Vec<String> {
    (0..lines)
        .map(|i| match i % 7 {
            0 => format!("fn item_{i}(x: u32) -> u32 {{"),
            1 => format!("    let v = x.wrapping_mul({i});"),
            2 => "    if v > 10 {".to_string(),
            3 => format!("        return v + {};", i % 13),
            4 => "    }".to_string(),
            5 => "}".to_string(),
            _ => String::new(),
        })
        .collect()
}

fn hunks(a: &[String], b: &[String]) -> Vec<Hunk> {
    let ops = capture_diff_slices(Algorithm::Myers, a, b);
    group_diff_ops(ops, 3)
        .into_iter()
        .map(|group| {
            let mut lines = Vec::new();
            for op in &group {
                let (_, o, n) = op.as_tag_tuple();
                match op {
                    DiffOp::Equal { .. } => {
                        lines.extend(o.map(|k| HunkLine::new(LineKind::Context, a[k].clone())))
                    }
                    _ => {
                        lines.extend(o.map(|k| HunkLine::new(LineKind::Remove, a[k].clone())));
                        lines.extend(n.map(|k| HunkLine::new(LineKind::Add, b[k].clone())));
                    }
                }
            }
            Hunk {
                lines,
                old_start: group.iter().map(|op| op.old_range().start + 1).min(),
                ..Hunk::default()
            }
        })
        .collect()
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
#[ignore = "timing; run in release"]
fn thousand_hunks_on_a_large_file() {
    let a = big_file(271_000);
    let mut b = a.clone();
    for k in 0..1000 {
        let i = k * 271 + 1;
        b[i] = format!("{}  // changed", b[i]);
    }
    let hs = hunks(&a, &b);
    assert_eq!(hs.len(), 1000);
    let (ta, tb) = (join(&a), join(&b));
    let t = Instant::now();
    let doc = salve_patch::internals::Doc::parse(&ta);
    let parsed = t.elapsed();
    let idx = salve_patch::internals::FileIndex::new(&doc);
    idx.form(salve_patch::internals::Form::Raw);
    let indexed = t.elapsed();
    drop(idx);
    drop(doc);
    let t = Instant::now();
    let out = apply_hunks(&ta, &hs, None);
    let el = t.elapsed();
    println!("1000 hunks on 271k lines: {el:?} (parse {parsed:?}, parse+index {indexed:?})");
    assert_eq!(out.new_text.as_deref(), Some(tb.as_str()));
}

#[test]
#[ignore = "timing; run in release"]
fn fuzzy_hunk_in_a_large_file() {
    let a = big_file(100_000);
    let mut b = a.clone();
    b[50_001] = "    let v = x.wrapping_add(1);".to_string();
    let mut hs = hunks(&a, &b);
    // The model misremembered a context line: only the similar rung can place it.
    let ctx = hs[0]
        .lines
        .iter_mut()
        .find(|l| l.kind == LineKind::Context && l.text.contains("wrapping_mul"))
        .expect("a distinctive context line");
    ctx.text = ctx.text.replace("wrapping_mul", "wrapping_mull");
    let (ta, tb) = (join(&a), join(&b));
    let t = Instant::now();
    let out = apply_hunks(&ta, &hs, None);
    let el = t.elapsed();
    println!("fuzzy hunk in 100k lines: {el:?} {:?}", out.hunks[0].rung);
    assert_eq!(out.hunks[0].rung, Some(salve_patch::Rung::Similar));
    assert_eq!(out.new_text.as_deref(), Some(tb.as_str()));
}
