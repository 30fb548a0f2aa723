//! The README's quick start, run as written, so the test fails when the README drifts from what
//! salve does.
//!
//! The commands are read from the `## Quick start` section: the `salve apply` line of the first
//! `sh` block must print exactly the `text` block that follows it, and the "apply to a copy" block
//! must change the copy, leave its tests passing (as many as the README says) and come back byte
//! for byte with `--reverse`. `cargo run --release --` is replaced by the binary under test, and the
//! examples are copied to a temp folder first so the checkout is never written.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use crate::scenarios::{read_tree, salve, workspace_root, write_tree};

fn readme() -> String {
    fs::read_to_string(workspace_root().join("README.md")).expect("README.md at the workspace root")
}

/// The text of the `## {title}` section, up to the next `## ` heading.
fn section<'a>(doc: &'a str, title: &str) -> &'a str {
    let head = format!("\n## {title}\n");
    let start = doc
        .find(&head)
        .unwrap_or_else(|| panic!("README has no `## {title}` section"))
        + head.len();
    let rest = &doc[start..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The fenced blocks of a section, as (info string, body).
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        out.push((info.trim().to_owned(), body));
    }
    out
}

/// The arguments after `cargo run ... --` on a command line, without a trailing `# comment`.
fn salve_args(line: &str) -> Vec<String> {
    let line = line.split(" #").next().unwrap();
    let (_, args) = line
        .split_once(" -- ")
        .unwrap_or_else(|| panic!("expected `cargo run ... -- ARGS` in {line:?}"));
    args.split_whitespace().map(str::to_owned).collect()
}

/// Copies `examples/` of the workspace into `dir`.
fn copy_examples(dir: &Path) {
    let src = workspace_root().join("examples");
    let tree = read_tree(&src, false);
    write_tree(&dir.join("examples"), &tree);
}

#[test]
fn quick_start_prints_what_the_readme_shows() {
    let doc = readme();
    let quick = section(&doc, "Quick start");
    let blocks = code_blocks(quick);
    let (_, first) = blocks
        .iter()
        .find(|(info, _)| info == "sh")
        .expect("a sh block in Quick start");
    let line = first
        .lines()
        .find(|l| l.contains(" apply "))
        .expect("a `salve apply` command in the first sh block");
    let args = salve_args(line);
    let (_, shown) = blocks
        .iter()
        .find(|(info, _)| info == "text")
        .expect("a text block showing the output in Quick start");

    let tmp = tempfile::tempdir().unwrap();
    copy_examples(tmp.path());
    let before = read_tree(tmp.path(), false);
    let out = salve(tmp.path()).args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "`{line}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.trim_end(),
        shown.trim_end(),
        "the output of `{line}` differs from the README's"
    );
    if args.iter().any(|a| a == "--check") {
        assert_eq!(read_tree(tmp.path(), false), before, "--check wrote files");
    }
}

#[test]
fn apply_to_a_copy_and_back_as_the_readme_says() {
    let doc = readme();
    let blocks = code_blocks(section(&doc, "Quick start"));
    let (_, block) = blocks
        .iter()
        .find(|(info, body)| info == "sh" && body.contains("cp -r"))
        .expect("a sh block in Quick start that copies an example");
    let lines: Vec<&str> = block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let cp: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        &cp[..2],
        ["cp", "-r"],
        "the block should start with `cp -r SRC DST`"
    );
    let (src, dst) = (cp[2], cp[3]);

    let tmp = tempfile::tempdir().unwrap();
    copy_examples(tmp.path());
    let copy = tmp.path().join("copy");
    write_tree(&copy, &read_tree(&tmp.path().join(src), false));
    let original = read_tree(&copy, false);
    // The README's destination becomes our temp copy.
    let run = |line: &str| {
        let args: Vec<String> = salve_args(line)
            .into_iter()
            .map(|a| {
                if a == dst {
                    copy.display().to_string()
                } else {
                    a
                }
            })
            .collect();
        let out = salve(tmp.path()).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "`{line}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };

    let apply = lines
        .iter()
        .find(|l| l.contains(" apply ") && !l.contains("--reverse"))
        .unwrap();
    run(apply);
    assert_ne!(
        read_tree(&copy, false),
        original,
        "`{apply}` changed nothing"
    );

    if let Some(test_line) = lines.iter().find(|l| l.contains("unittest")) {
        let want: usize = test_line
            .split('#')
            .nth(1)
            .and_then(|c| c.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("`# N tests` after the unittest command");
        match std::process::Command::new("python3")
            .args(["-m", "unittest"])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(&copy)
            .output()
        {
            Ok(out) => {
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.status.success(),
                    "the example's tests fail after the apply:\n{err}"
                );
                assert!(
                    err.contains(&format!("Ran {want} test")),
                    "expected {want} tests:\n{err}"
                );
            }
            Err(e) => crate::skip::skip(
                "readme",
                &format!("python3 is not available ({e}); the example's tests did not run"),
            ),
        }
    }

    let reverse = lines
        .iter()
        .find(|l| l.contains("--reverse"))
        .expect("a --reverse line");
    run(reverse);
    assert_eq!(
        read_tree(&copy, false),
        original,
        "`{reverse}` did not restore the copy byte for byte"
    );
}

#[test]
fn readme_helpers_parse_what_they_should() {
    let doc = "# t\n\n## Quick start\n\n```sh\ncargo run -- apply x # note\n```\n\n```text\nout\n```\n## Next\n";
    let blocks = code_blocks(section(doc, "Quick start"));
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[1], ("text".to_owned(), "out\n".to_owned()));
    assert_eq!(salve_args("cargo run -- apply x # note"), ["apply", "x"]);
}
