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
