//! The command line's own edges: argument errors under `--json`, and the manual pages.

use crate::support::{Run, Tree};

fn salve(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

/// With `--json`, an argument clap refuses is still data on stdout, in the shape every error has,
/// with clap's own words on stderr and exit code 2.
#[test]
fn argument_errors_under_json_print_the_error_on_stdout() {
    let tree = Tree::git();
    for (args, says, hint) in [
        (&["--json", "aply"][..], "aply", Some("apply")),
        (&["--json", "apply", "--chek"], "--chek", Some("--check")),
        (&["apply", "--json", "--color", "alway"], "alway", None),
        (&["--json"], "requires a subcommand", None),
        (&["--json", "restore"], "<ID>", None),
        (&["rules", "--json"], "salve rules", None),
        (&["--json", "rules"], "salve rules", None),
    ] {
        let run = salve(&tree, args);
        run.code(2);
        let json = run.json();
        let error = &json["error"];
        assert_eq!(error["kind"], "usage", "{args:?}: {json}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(says), "{args:?}: {json}");
        assert!(!message.starts_with("error:"), "{args:?}: {json}");
        let hint_text = error["hint"].as_str().unwrap();
        if let Some(hint) = hint {
            assert!(hint_text.contains(hint), "{args:?}: {json}");
        }
        assert_eq!(json.as_object().unwrap().len(), 1, "only the error: {json}");
        assert!(!run.stderr.is_empty(), "clap still explains on stderr");
    }
}

/// Without `--json` stdout stays empty; help and version are no errors, and a `--json` after
/// `--` is an argument (here a file name), not salve's flag.
#[test]
fn argument_errors_without_json_and_help_are_unchanged() {
    let tree = Tree::git();
    let run = salve(&tree, &["aply"]);
    run.code(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("aply"), "{}", run.stderr);

    let run = salve(&tree, &["--json", "--help"]);
    run.code(0);
    assert!(run.stdout.contains("Usage:"), "{}", run.stdout);
    assert!(!run.stdout.contains("\"error\""), "{}", run.stdout);
    let run = salve(&tree, &["--json", "--version"]);
    run.code(0);
    assert!(run.stdout.starts_with("salve "), "{}", run.stdout);

    let run = salve(&tree, &["apply", "--bogus", "--", "--json"]);
    run.code(2);
    assert_eq!(run.stdout, "");
}

fn man(tree: &Tree, args: &[&str]) -> String {
    let run = salve(tree, &[&["man"][..], args].concat());
    run.code(0);
    run.stdout
}

/// The synopsis names each option's value (`-C DIR`, `--color WHEN`), as `--help` does.
#[test]
fn the_manual_synopsis_shows_value_names() {
    let tree = Tree::plain();
    let page = man(&tree, &[]);
    let synopsis = page
        .split(".SH SYNOPSIS\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap();
    for shown in [
        r"[\fB\-C\fR \fIDIR\fR]",
        r"[\fB\-\-color\fR \fIWHEN\fR]",
        r"[\fB\-q\fR|\fB\-\-quiet\fR]",
        r"<\fICOMMAND\fR>",
    ] {
        assert!(synopsis.contains(shown), "{shown} missing: {synopsis}");
    }
    let apply = man(&tree, &["apply"]);
    assert!(
        apply.contains(r"[\fB\-\-max\-file\-size\fR \fISIZE\fR]"),
        "{apply}"
    );
    assert!(apply.contains(r"[\fIFILE\fR]"), "{apply}");
    // One roff preamble per page, however many sections it is rendered from.
    assert_eq!(apply.matches(".ds Aq").count(), 2, "{apply}");
}

/// Every page another page refers to (`salve-apply(1)`, `salve-rules-pin(1)`) is one
/// `salve man` prints, and `--dir` writes the same pages under the names they refer to.
#[test]
fn every_page_the_manual_refers_to_can_be_printed() {
    let tree = Tree::plain();
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = Vec::new();
    while let Some(path) = pending.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let page = man(&tree, &args);
        let name = std::iter::once("salve")
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join("-");
        assert!(
            page.contains(&format!(".TH {name} 1 ")),
            "{name}: {}",
            &page[..200]
        );
        for line in page.lines() {
            // The COMMANDS section: one `.TP` heading line per page, `salve\-apply(1)`.
            let Some(referred) = line.strip_suffix("(1)").filter(|l| !l.contains(' ')) else {
                continue;
            };
            let words: Vec<String> = referred.split(r"\-").map(str::to_owned).collect();
            assert_eq!(words[0], "salve", "{line}");
            assert_eq!(words[..words.len() - 1], path_with_salve(&path), "{line}");
            pending.push(words[1..].to_vec());
        }
        seen.push(name);
    }
    assert!(seen.len() > 20, "{seen:?}");
    assert!(seen.contains(&"salve-rules-pin".to_owned()), "{seen:?}");
    assert!(!seen.contains(&"salve-help".to_owned()), "{seen:?}");

    let dir = tree.outside().join("man1");
    let run = salve(&tree, &["man", "--dir", dir.to_str().unwrap()]);
    run.code(0);
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = seen.iter().map(|n| format!("{n}.1")).collect();
    expected.sort();
    assert_eq!(written, expected);
    assert_eq!(
        std::fs::read_to_string(dir.join("salve-apply.1")).unwrap(),
        man(&tree, &["apply"])
    );

    let run = salve(&tree, &["man", "nope"]);
    run.code(2);
    assert!(run.stderr.contains("nope"), "{}", run.stderr);
}

fn path_with_salve(path: &[String]) -> Vec<String> {
    std::iter::once("salve".to_owned())
        .chain(path.iter().cloned())
        .collect()
}
