//! The engine speaks in domain words: no `salve` subcommand and no command-line flag is spelled
//! in its sources (outside tests). Each front end adds its own spelling (the CLI's `salve undo`,
//! the MCP server's `undo` tool), so an agent over MCP is never told to run a command it
//! cannot, and the CLI can rename a flag in one place.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

const COMMANDS: &[&str] = &[
    "apply",
    "ask",
    "fix",
    "rules",
    "doctor",
    "trust",
    "checkpoint",
    "checkpoints",
    "restore",
    "undo",
    "commit",
    "log",
    "show",
    "export",
    "import",
    "gc",
    "mcp",
    "ui",
    "completions",
    "man",
];

const FLAGS: &[&str] = &[
    "--partial",
    "--check",
    "--base",
    "--reverse",
    "--max-file-size",
    "--no-checkpoint",
    "--no-record",
    "--no-syntax-check",
    "--allow-shrink",
    "--diff",
    "--json",
    "--quiet",
    "--color",
    "--target",
    "--file",
    "--provider",
    "--model-hint",
    "--dry-run",
    "--record",
    "--follow-ups",
    "--force",
    "--steps",
    "--to-run",
    "--allow-any-check",
    "--strictness",
    "--proposed",
    "--no-commit",
    "--no-verify",
    "--ci",
    "--show",
    "--revoke",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_name().unwrap().to_string_lossy();
            if !(name == "tests.rs" || name.ends_with("_tests.rs")) {
                out.push(path);
            }
        }
    }
}

/// The code of a file outside its tests and comments: lines up to a `#[cfg(test)]`, comment
/// lines dropped, and the arguments given to other programs (git's own flags).
fn code(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter(|(_, l)| !l.contains(".args(") && !l.contains(".arg("))
        .map(|(i, l)| (i + 1, l))
        .collect()
}

fn spells_a_flag(line: &str, flag: &str) -> bool {
    line.match_indices(flag).any(|(at, _)| {
        let after = line[at + flag.len()..].chars().next();
        let before = line[..at].chars().next_back();
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[test]
fn engine_sources_name_no_cli_command_or_flag() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 50, "{} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code(&text) {
            let command = COMMANDS
                .iter()
                .find(|c| spells_a_flag(line, &format!("salve {c}")));
            let flag = FLAGS.iter().find(|f| spells_a_flag(line, f));
            if let Some(spelled) = command
                .map(|c| format!("salve {c}"))
                .or(flag.map(|f| (*f).to_owned()))
            {
                found.push(format!(
                    "{}:{n}: {spelled}: {}",
                    file.display(),
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "CLI words in the engine:\n{}",
        found.join("\n")
    );
}
