//! `EditsCheckConfig`: a repair that changes how the check judges, instead of what it judges.
//! Which files count depends on the check command: the table below names, per tool, the files
//! (and for shared files like `Cargo.toml` or `pyproject.toml`, the sections) that configure it.
//! CI definitions count whatever the command, and so does any file the command names (a script).

use std::path::Path;

use super::diff::{FileDiff, Line};
use super::{Finding, GuardRule};

/// How a row names files: by exact file name, by the start of the file name, or by directory.
#[derive(Clone, Copy)]
enum Name {
    Is(&'static str),
    StartsWith(&'static str),
    EndsWith(&'static str),
    Under(&'static str),
}

/// Which part of a matched file counts: all of it, or only lines in these TOML/INI sections
/// (a section and its sub-sections: `lints` covers `[lints.clippy]`).
#[derive(Clone, Copy)]
enum Scope {
    Whole,
    Sections(&'static [&'static str]),
}

/// One row: when the check command mentions one of `tools` (always when empty), changing `name`
/// within `scope` changes the check.
struct Row {
    tools: &'static [&'static str],
    name: Name,
    scope: Scope,
}

const fn row(tools: &'static [&'static str], name: Name, scope: Scope) -> Row {
    Row { tools, name, scope }
}

const ALWAYS: &[&str] = &[];
const CARGO: &[&str] = &[
    "cargo",
    "rustc",
    "clippy-driver",
    "cargo-clippy",
    "cargo-nextest",
];
const PYTHON: &[&str] = &[
    "pytest", "py.test", "python", "python3", "tox", "nox", "unittest", "mypy", "ruff", "flake8",
    "pylint", "coverage",
];
const NODE: &[&str] = &[
    "npm", "npx", "yarn", "pnpm", "node", "bun", "tsc", "eslint", "jest", "vitest", "mocha",
];
const GO: &[&str] = &["go", "golangci-lint", "gotestsum"];
const MAKE: &[&str] = &["make", "gmake"];
const CMAKE: &[&str] = &["cmake", "ctest"];
const JUST: &[&str] = &["just"];

use Name::*;
use Scope::*;

const TABLE: &[Row] = &[
    row(ALWAYS, Under(".github/workflows/"), Whole),
    row(ALWAYS, Is(".gitlab-ci.yml"), Whole),
    row(ALWAYS, Under(".circleci/"), Whole),
    row(ALWAYS, Under(".buildkite/"), Whole),
    row(ALWAYS, Is("azure-pipelines.yml"), Whole),
    row(ALWAYS, Is("Jenkinsfile"), Whole),
    row(ALWAYS, Is(".travis.yml"), Whole),
    row(ALWAYS, Is(".pre-commit-config.yaml"), Whole),
    row(
        CARGO,
        Is("Cargo.toml"),
        Sections(&["lints", "workspace.lints"]),
    ),
    row(CARGO, Is("clippy.toml"), Whole),
    row(CARGO, Is(".clippy.toml"), Whole),
    row(CARGO, Is("rustfmt.toml"), Whole),
    row(CARGO, Is(".rustfmt.toml"), Whole),
    row(CARGO, Is("deny.toml"), Whole),
    row(CARGO, Under(".cargo/"), Whole),
    row(PYTHON, Is("pytest.ini"), Whole),
    row(PYTHON, Is("conftest.py"), Whole),
    row(PYTHON, Is("tox.ini"), Whole),
    row(PYTHON, Is("noxfile.py"), Whole),
    row(PYTHON, Is(".flake8"), Whole),
    row(PYTHON, Is("mypy.ini"), Whole),
    row(PYTHON, Is("ruff.toml"), Whole),
    row(PYTHON, Is(".ruff.toml"), Whole),
    row(PYTHON, Is(".coveragerc"), Whole),
    row(PYTHON, Is(".pylintrc"), Whole),
    row(
        PYTHON,
        Is("setup.cfg"),
        Sections(&["tool:pytest", "flake8", "mypy", "pylint", "coverage"]),
    ),
    row(
        PYTHON,
        Is("pyproject.toml"),
        Sections(&[
            "tool.pytest",
            "tool.mypy",
            "tool.ruff",
            "tool.coverage",
            "tool.pylint",
            "tool.pyright",
        ]),
    ),
    row(NODE, StartsWith(".eslintrc"), Whole),
    row(NODE, StartsWith("eslint.config."), Whole),
    row(NODE, Is(".eslintignore"), Whole),
    row(NODE, StartsWith("tsconfig"), Whole),
    row(NODE, StartsWith("jest.config"), Whole),
    row(NODE, StartsWith("vitest.config"), Whole),
    row(NODE, StartsWith(".mocharc"), Whole),
    row(GO, StartsWith(".golangci"), Whole),
    row(MAKE, Is("Makefile"), Whole),
    row(MAKE, Is("makefile"), Whole),
    row(MAKE, Is("GNUmakefile"), Whole),
    row(MAKE, EndsWith(".mk"), Whole),
    row(CMAKE, Is("CMakeLists.txt"), Whole),
    row(JUST, Is("justfile"), Whole),
    row(JUST, Is("Justfile"), Whole),
];

/// The words of a check command, split further at shell punctuation (`sh -c "cargo test && npm
/// test"` names cargo and npm), each as written and as its file name (`/usr/bin/make` is `make`).
fn command_words(check: &[String]) -> Vec<String> {
    check
        .iter()
        .flat_map(|arg| arg.split(|c: char| c.is_whitespace() || ";&|()\"'".contains(c)))
        .filter(|w| !w.is_empty())
        .map(|w| w.strip_prefix("./").unwrap_or(w).to_owned())
        .collect()
}

fn base(word: &str) -> &str {
    let name = word.rsplit('/').next().unwrap_or(word);
    name.strip_suffix(".exe").unwrap_or(name)
}

fn name_matches(name: Name, path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    match name {
        Is(n) => file == n,
        StartsWith(p) => file.starts_with(p),
        EndsWith(s) => file.ends_with(s),
        Under(d) => path.starts_with(d) || path.contains(&format!("/{d}")),
    }
}

/// `EditsCheckConfig` findings for one file.
pub(crate) fn findings(file: &FileDiff, root: &Path, check: &[String], out: &mut Vec<Finding>) {
    let words = command_words(check);
    let tools: Vec<&str> = words.iter().map(|w| base(w)).collect();
    let path = file.path();
    let finding = |line: Option<u32>, detail: String| Finding {
        rule: GuardRule::EditsCheckConfig,
        path: path.to_owned(),
        line,
        detail,
    };
    // A script or file the command itself names. A test file named there is a repair like any
    // other (a typo in its own import): what it does to the tests is read by the other rules.
    let named = words
        .iter()
        .any(|w| w == path || file.old.as_deref() == Some(w.as_str()));
    if named && !super::lines::is_test_path(path) {
        out.push(finding(
            None,
            "edits a file the check command runs".to_owned(),
        ));
        return;
    }
    let Some(row) = TABLE.iter().find(|r| {
        name_matches(r.name, path)
            && (r.tools.is_empty() || r.tools.iter().any(|t| tools.contains(t)))
    }) else {
        return;
    };
    match row.scope {
        Whole => out.push(finding(
            first_changed_line(file),
            "edits the configuration of the check".to_owned(),
        )),
        Sections(sections) => {
            if let Some((line, section)) = changed_in_sections(file, root, sections) {
                out.push(finding(
                    Some(line),
                    format!("edits the check's settings in `[{section}]`"),
                ));
            }
        }
    }
}

fn first_changed_line(file: &FileDiff) -> Option<u32> {
    file.hunks
        .iter()
        .flat_map(|h| &h.lines)
        .find_map(|l| match l {
            Line::Added { new, .. } => Some(*new),
            Line::Removed { old, .. } => Some(*old),
            Line::Context { .. } => None,
        })
}

/// `[name]`, `[[name]]` or `[ name ]`: the section a TOML or INI header line opens.
fn header(text: &str) -> Option<String> {
    let t = text.trim();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let inner = inner.trim_start_matches('[').trim_end_matches(']').trim();
    Some(inner.trim_matches('"').to_owned())
}

fn in_sections(section: &str, sections: &[&str]) -> bool {
    sections
        .iter()
        .any(|s| section == *s || section.starts_with(&format!("{s}.")))
}

/// The first changed line that lies in one of `sections`, and its section. Before a hunk's first
/// header line, the section is read from the file on disk: the lines above the hunk are the same
/// before and after the change (up to earlier hunks, which rarely add a header).
fn changed_in_sections(file: &FileDiff, root: &Path, sections: &[&str]) -> Option<(u32, String)> {
    let disk = std::fs::read_to_string(root.join(file.path())).unwrap_or_default();
    for hunk in &file.hunks {
        let above = hunk.old_start.min(hunk.new_start).saturating_sub(1) as usize;
        let mut section = disk.lines().take(above).filter_map(header).last();
        for line in &hunk.lines {
            let (no, text, changed) = match line {
                Line::Context { new, text, .. } => (*new, text, false),
                Line::Added { new, text } => (*new, text, true),
                Line::Removed { old, text } => (*old, text, true),
            };
            if let Some(h) = header(text) {
                section = Some(h);
            }
            match &section {
                Some(s) if changed && in_sections(s, sections) => return Some((no, s.clone())),
                // Unknown section (no header above, file unreadable): count it, the guard
                // prefers a refusal the user can override to a weakened check.
                None if changed && disk.is_empty() => {
                    return Some((no, "unknown section".to_owned()));
                }
                _ => {}
            }
        }
    }
    None
}
