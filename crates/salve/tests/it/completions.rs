//! `salve completions` and `salve man`: generated from the real argument definitions, usable by
//! the shells and by man.

use std::process::Command;

use crate::support::Tree;

#[test]
fn completion_scripts_name_every_command_and_bash_reads_its_own() {
    let tree = Tree::plain();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = tree.salve().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for command in ["apply", "checkpoint", "restore", "undo", "completions"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        assert!(
            script.contains("max-file-size"),
            "{shell} lacks apply's flags"
        );
    }
    let out = tree.salve().args(["completions", "bash"]).output().unwrap();
    let path = tree.outside().join("salve.bash");
    std::fs::write(&path, &out.stdout).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&path).status().unwrap();
    assert!(syntax.success(), "bash cannot parse the script");
    let bad = tree.salve().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_manual_page_is_roff_with_the_commands() {
    let tree = Tree::plain();
    let out = tree.salve().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH salve 1"), "{page}");
    assert!(page.contains(".SH NAME"));
    assert!(page.contains("apply"));
    assert!(page.contains("Exit codes"));
}
