//! `merge::merge3` against the real `git merge-file -p`: byte-equal output on every clean merge,
//! and a conflict exactly when git reports one. Skipped (with a note) when git is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use salve_patch::merge3;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../../../tests/support/skip.rs"]
mod skip;

static SEQ: AtomicUsize = AtomicUsize::new(0);

/// git's verdict: `Ok(text)` for a clean merge, `Err(())` for a conflict, `None` without git.
fn git_merge(base: &str, ours: &str, theirs: &str) -> Option<Result<String, ()>> {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "salve-merge-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).ok()?;
    let (o, b, t) = (dir.join("ours"), dir.join("base"), dir.join("theirs"));
    std::fs::write(&o, ours).ok()?;
    std::fs::write(&b, base).ok()?;
    std::fs::write(&t, theirs).ok()?;
    let out = Command::new("git")
        .args(["merge-file", "-p", "-q"])
        .arg(&o)
        .arg(&b)
        .arg(&t)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    match out.status.code() {
        Some(0) => Some(Ok(String::from_utf8_lossy(&out.stdout).into_owned())),
        Some(c) if c > 0 && c < 128 => Some(Err(())),
        _ => None,
    }
}

fn check(base: &str, ours: &str, theirs: &str) {
    check_with(base, ours, theirs, false);
}

/// `conservative` allows the verdicts to differ. In a run of equal lines (blank lines, lone
/// braces) a change can be aligned in several places; git's xdiff and salve's Myers may pick
/// different ones, so two changes git sees touching salve may see apart, and the other way
/// round. When both merge cleanly, the results must still be equal byte for byte.
fn check_with(base: &str, ours: &str, theirs: &str, conservative: bool) {
    let Some(git) = git_merge(base, ours, theirs) else {
        skip::skip("merge_git", "git merge-file is not available");
        return;
    };
    let mine = merge3(base, ours, theirs);
    match (git, mine) {
        (Ok(g), Ok(m)) => assert_eq!(
            m, g,
            "clean merge differs\nbase={base:?}\nours={ours:?}\ntheirs={theirs:?}"
        ),
        (Err(()), Err(_)) => {}
        (Ok(_), Err(_)) | (Err(()), Ok(_)) if conservative => {}
        (g, m) => panic!(
            "verdicts differ: git={g:?} mine={m:?}\nbase={base:?}\nours={ours:?}\ntheirs={theirs:?}"
        ),
    }
}

#[test]
fn fixed_cases_match_git() {
    let base = "fn main() {\n    let a = 1;\n    let b = 2;\n\n    let c = 3;\n    println!(\"{}\", a + b + c);\n}\n";
    let cases = [
        // Separate edits.
        (
            base.replace("a = 1", "a = 10"),
            base.replace("c = 3", "c = 30"),
        ),
        // Touching edits conflict in git.
        (
            base.replace("a = 1", "a = 10"),
            base.replace("b = 2", "b = 20"),
        ),
        // Identical edits.
        (
            base.replace("b = 2", "b = 5"),
            base.replace("b = 2", "b = 5"),
        ),
        // Insertion next to a deletion elsewhere.
        (
            base.replace("    let a = 1;\n", "    let a = 1;\n    let z = 0;\n"),
            base.replace("    println!(\"{}\", a + b + c);\n", ""),
        ),
        // CRLF and no final newline.
        (
            base.replace('\n', "\r\n").replace("a = 1", "a = 2"),
            base.replace('\n', "\r\n"),
        ),
        (base.trim_end().to_string(), base.replace("c = 3", "c = 4")),
        // Blank-line insertions that can slide.
        (
            base.replace("\n\n", "\n\n\n"),
            base.replace("a = 1", "a = 2"),
        ),
    ];
    for (ours, theirs) in &cases {
        check(base, ours, theirs);
        check(base, theirs, ours);
    }
    let crlf = base.replace('\n', "\r\n");
    check(
        &crlf,
        &crlf.replace("a = 1", "a = 2"),
        &crlf.replace("c = 3", "c = 9"),
    );
}

/// Texts from a small alphabet of lines, so alignments are often ambiguous.
fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0u8..6, 0..14)
}

fn render(v: &[u8]) -> String {
    const LINES: [&str; 6] = ["a\n", "b\n", "\n", "}\n", "c\n", "    x\n"];
    v.iter().map(|&i| LINES[i as usize]).collect()
}

/// Edit a few lines of `base`.
fn edit(base: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let n = base.len();
    prop::collection::vec(
        (0..=n, 0usize..3, prop::collection::vec(0u8..6, 0..3)),
        0..3,
    )
    .prop_map(move |edits| {
        let mut v = base.clone();
        for (at, del, ins) in edits {
            let at = at.min(v.len());
            let del = del.min(v.len() - at);
            v.splice(at..at + del, ins);
        }
        v
    })
}

/// Texts of distinct lines, and edits that insert lines of their own: every line diff is
/// unambiguous, so salve must agree with git exactly.
fn distinct() -> impl Strategy<Value = (String, String, String)> {
    (prop::collection::vec(any::<bool>(), 0..14), 0u32..1000).prop_flat_map(|(keep, salt)| {
        let base: Vec<u8> = (0..keep.len() as u8).collect();
        let side = |tag: u32| {
            let n = base.len();
            prop::collection::vec((0..=n, 0usize..3, 0usize..3), 0..3)
                .prop_map(move |edits| (tag, edits))
        };
        (Just(base.clone()), side(salt * 2), side(salt * 2 + 1)).prop_map(
            |(base, (t1, e1), (t2, e2))| {
                let line = |i: u8| format!("line {i}\n");
                let apply = |tag: u32, edits: Vec<(usize, usize, usize)>| {
                    let mut v: Vec<String> = base.iter().map(|&i| line(i)).collect();
                    for (k, (at, del, ins)) in edits.into_iter().enumerate() {
                        let at = at.min(v.len());
                        let del = del.min(v.len() - at);
                        let new = (0..ins).map(|j| format!("new {tag} {k} {j}\n"));
                        v.splice(at..at + del, new);
                    }
                    v.concat()
                };
                let b: String = base.iter().map(|&i| line(i)).collect();
                (b, apply(t1, e1), apply(t2, e2))
            },
        )
    })
}

proptest! {
    // A fixed seed, as the generator's CI run has: long random runs are for finding new
    // classes by hand (raise `cases`, drop the seed; 20,000 random cases found none after the
    // two tests below), and CI must not fail on whichever random case finds one.
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5A1E_2026),
        ..ProptestConfig::default()
    })]

    #[test]
    fn unambiguous_merges_match_git((base, ours, theirs) in distinct()) {
        check(&base, &ours, &theirs);
    }

    #[test]
    fn ambiguous_merges_never_differ_from_git(
        (base, ours, theirs) in text().prop_flat_map(|b| (Just(b.clone()), edit(b.clone()), edit(b)))
    ) {
        check_with(&render(&base), &render(&ours), &render(&theirs), true);
    }
}

#[test]
fn an_insertion_aligned_differently_is_refused_not_merged_wrong() {
    // git merges this; salve's diff aligns ours' insertion next to theirs' change and refuses.
    let (base, ours, theirs) = (
        "\n\n\n}\nb\n",
        "\n\n\n}\n\n\n}\nb\n",
        "}\nc\n\n}\na\n}\nb\n",
    );
    assert!(merge3(base, ours, theirs).is_err());
    check_with(base, ours, theirs, true);
}

/// Both sides delete one of three equal lines. Whether that is one deletion or two cannot be
/// told from the texts; keeping only one would lose an edit, so it is a conflict (git, which
/// aligns differently, deletes two).
#[test]
fn equal_changes_in_a_run_of_equal_lines_are_a_conflict_not_one_change() {
    let base = "\n    x\na\nc\nc\nc\n    x\n}\n}\n    x\n";
    let ours = "\n    x\na\nc\nc\n    x\n}\n}\n    x\n";
    let theirs = "\n    x\nc\na\nc\nc\n    x\n}\n";
    assert!(merge3(base, ours, theirs).is_err());
    check_with(base, ours, theirs, true);
}

/// An inserted block that ends with the line it is inserted after (`});`) could be aligned on
/// either side of it; the other side's edit of that line is not inside a run of equal lines, so
/// git's alignment (the block after the edited line) is taken, byte for byte.
#[test]
fn an_edited_block_edge_merges_as_git_does() {
    let base = "test('a', () => {\n\tx();\n});\n\nend();\n";
    let ours = "test('a', () => {\n\tx();\n}); // reviewed\n\nend();\n";
    let theirs = "test('a', () => {\n\tx();\n});\n\ntest('b', () => {\n\ty();\n});\n\nend();\n";
    let merged = merge3(base, ours, theirs).expect("merges");
    assert!(merged.starts_with("test('a', () => {\n\tx();\n}); // reviewed\n"));
    check(base, ours, theirs);
}

/// Both sides change one run of equal lines (ours deletes one `b`, theirs deletes one too and
/// adds lines around the run): git reads one deletion, the texts allow two. Found by the
/// property test above in a long run; refused rather than merged by one aligner's pick.
#[test]
fn both_sides_changing_one_run_of_equal_lines_is_a_conflict() {
    let base = "a\na\na\na\nb\nb\nb\n}\n";
    let ours = "a\na\na\na\nb\nb\n}\n";
    let theirs = "a\na\na\na\n    x\nb\nb\n}\n}\n\n";
    assert!(merge3(base, ours, theirs).is_err());
    check_with(base, ours, theirs, true);
}

/// Ours deletes the first blank line and adds a `}` at the end, or adds a `}` at the top and
/// deletes the blank between the braces: both read the same. Theirs deletes that blank. git
/// merges to `}` three times (two edits), Myers' alignment to ours as it is (one edit): the
/// texts differ in how many blank lines stand, which is an edit, not a tie-break. Found by the
/// property test above in a long run.
#[test]
fn alignments_that_keep_different_numbers_of_blank_lines_conflict() {
    let (base, ours, theirs) = ("\n}\n\n}\n", "}\n\n}\n}\n", "\n}\n}\n");
    assert!(merge3(base, ours, theirs).is_err());
    check_with(base, ours, theirs, true);
}

/// Theirs reads as "delete the blank after `x`, add lines at the end" or as "add a `b` before
/// that blank, replace the last `b`": lines repeating with a period (`b`, blank, `b`) and no run
/// of equal lines. Ours' insertion after the first `b` lands on a different `b` in each: a
/// conflict, where git merges by its alignment. Found by the property test in a long run.
#[test]
fn a_side_that_aligns_otherwise_from_the_end_is_a_conflict_when_the_merges_differ() {
    let base = "b\na\na\n    x\n\nb\n\nb\n";
    let ours = "b\na\na\n    x\n\nb\nc\n}\n\nb\n";
    let theirs = "b\na\na\n    x\nb\n\nb\n\n\n    x\n";
    assert!(merge3(base, ours, theirs).is_err());
    check_with(base, ours, theirs, true);
}

/// Theirs inserts a test after one it nearly copies: the copy's last lines equal the first's, so
/// the insertion also aligns rotated into the first test's end, where ours' edit of its closing
/// line would land on the copy's. That is a slide of one inserted block, which git's alignment
/// keeps whole (v2 corpus `ky-7c7f5fe-stale-01`); merged as git does, not a conflict.
#[test]
fn an_insertion_that_slides_along_its_near_copy_merges_as_git_does() {
    let test = |name: &str, verb: &str| {
        format!("test('{name}', async t => {{\n\tconst s = await serve();\n\tawait t.throws(\n\t\tky.{verb}(s.url),\n\t\t/Error/\n\t);\n\n\tawait s.close();\n}});\n\n")
    };
    let base = format!("{}test('extend', t => {{}});\n", test("get", "get"));
    let ours = base.replacen(
        "});\n\ntest('extend'",
        "}); // reviewed\n\ntest('extend'",
        1,
    );
    let theirs = format!(
        "{}{}test('extend', t => {{}});\n",
        test("get", "get"),
        test("post", "post")
    );
    let merged = merge3(&base, &ours, &theirs).expect("merges");
    assert!(
        merged.contains("\tawait s.close();\n}); // reviewed\n\ntest('post'"),
        "{merged}"
    );
    check(&base, &ours, &theirs);
}
