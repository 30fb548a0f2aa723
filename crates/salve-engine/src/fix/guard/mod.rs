//! The guard (issue 10 point 5): users' first complaint about CI-fixing agents is that they make
//! CI pass by weakening it. [`inspect`] reads a repair's unified diff (the final diff salve's
//! apply records, as [`salve_patch::unified_diff`] renders it, or any `git diff`) and reports each
//! way it weakens the check:
//!
//! | rule | what it sees |
//! |---|---|
//! | [`GuardRule::DeletesTest`] | a test file deleted; a test function (`#[test] fn`, `def test_`, `func Test`, `it(`/`test(`/`describe(`) gone and not renamed or moved |
//! | [`GuardRule::SkipsTest`] | `#[ignore]`, `@pytest.mark.skip`/`skipif`/`xfail`, `@unittest.skip`, `.skip(`, `xit(`, `t.Skip` added |
//! | [`GuardRule::WeakensAssertion`] | more assertions removed than added in a hunk, one replaced by a weaker one (`assert_eq!` by `assert!(x.is_ok())`, `toBe` by `toBeDefined`), one that always passes (`assert True`) |
//! | [`GuardRule::SuppressesFailure`] | `continue-on-error`, `\|\| true`, `#[allow(`, `# noqa`, `eslint-disable`, `@ts-ignore`, `nolint` added |
//! | (shapes) | what a change does to a test: an expected value set to what the failing run printed, a check made to always hold, an exit before the test's later lines, a caught assertion failure, a widened expected exception, a focused test (see `gaming.rs`) |
//! | [`GuardRule::EditsCheckConfig`] | CI definitions, and the files that configure the check command's tools (`Cargo.toml` `[lints]`, `pytest.ini`, `.eslintrc*`, `tsconfig*.json`, `Makefile` for `make`...) |
//! | [`GuardRule::OutsidePaths`] | a path outside the repository (or in `.git`), or outside the `allow` list when one is given |
//!
//! Lines the diff moves (removes and adds unchanged) count for nothing, so moving an assertion or
//! renaming a test is not a finding. The guard only reports; the strictness decides whether a
//! finding refuses the repair ([`Strictness::guard_blocks`](super::strictness::Strictness::guard_blocks)).
//!
//! ```
//! use salve_engine::fix::guard::{inspect, GuardOptions, GuardRule};
//!
//! let diff = "--- a/tests/math.py\n+++ b/tests/math.py\n@@ -1,2 +1,3 @@\n+@pytest.mark.skip\n def test_add():\n     assert add(2, 2) == 4\n";
//! let findings = inspect(diff, std::path::Path::new("."), &GuardOptions::default());
//! assert_eq!(findings[0].rule, GuardRule::SkipsTest);
//! ```

mod config;
mod diff;
mod gaming;
mod lines;

#[cfg(test)]
mod gaming_tests;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use serde::Serialize;

/// What the guard checks a repair against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuardOptions {
    /// The check command (`["cargo", "test"]`): decides which files configure the check.
    pub check_command: Vec<String>,
    /// When not empty, the only paths a repair may touch: files or directories, relative to the
    /// work tree (absolute paths inside it are accepted too).
    pub allow: Vec<PathBuf>,
    /// The failing run's output: an expected value changed to a value it printed is the bug's
    /// output written into the test.
    pub failure_output: String,
}

/// The ways a repair can weaken the check; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardRule {
    DeletesTest,
    SkipsTest,
    WeakensAssertion,
    SuppressesFailure,
    EditsCheckConfig,
    OutsidePaths,
}

impl GuardRule {
    /// The rule's stable snake_case name, as JSON and the record spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardRule::DeletesTest => "deletes_test",
            GuardRule::SkipsTest => "skips_test",
            GuardRule::WeakensAssertion => "weakens_assertion",
            GuardRule::SuppressesFailure => "suppresses_failure",
            GuardRule::EditsCheckConfig => "edits_check_config",
            GuardRule::OutsidePaths => "outside_paths",
        }
    }
}

impl std::fmt::Display for GuardRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One way a repair weakens the check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: GuardRule,
    /// The file, relative to the work tree as the diff names it.
    pub path: String,
    /// The line in the new file (the old one for removals), when the finding has one.
    pub line: Option<u32>,
    /// What was seen, for people: the offending line or what is missing.
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}: {}", self.path, self.rule, self.detail),
            None => write!(f, "{}: {}: {}", self.path, self.rule, self.detail),
        }
    }
}

/// Every way `diff` weakens the check, in the diff's file order (rules in table order within a
/// file). `root` is the work tree the diff's paths are relative to: the guard reads it to resolve
/// symlinks and the TOML/INI sections around a hunk. Empty when the repair is clean.
pub fn inspect(diff: &str, root: &Path, options: &GuardOptions) -> Vec<Finding> {
    let files = diff::parse(diff);
    let moved = lines::moved_lines(&files);
    let changes: Vec<lines::TestChanges> = files.iter().map(lines::test_changes).collect();
    // A test removed here and added (same name) in another file was moved.
    let added_anywhere: std::collections::HashSet<&str> = changes
        .iter()
        .flat_map(|c| c.added.keys().map(String::as_str))
        .collect();
    let root_real = crate::paths::canonical_root(root).unwrap_or_else(|_| root.to_path_buf());
    let mut out = Vec::new();
    for (file, change) in files.iter().zip(&changes) {
        outside_paths(file, &root_real, &options.allow, &mut out);
        deleted_tests(file, change, &added_anywhere, &mut out);
        lines::added_line_findings(file, &moved, &mut out);
        lines::assertion_findings(file, &moved, &mut out);
        gaming::findings(file, &options.failure_output, &moved, &mut out);
        config::findings(file, root, &options.check_command, &mut out);
    }
    out
}

fn deleted_tests(
    file: &diff::FileDiff,
    change: &lines::TestChanges,
    added_anywhere: &std::collections::HashSet<&str>,
    out: &mut Vec<Finding>,
) {
    let gone: Vec<(&String, &u32)> = change
        .removed
        .iter()
        .filter(|(name, _)| !added_anywhere.contains(name.as_str()))
        .collect();
    let finding = |line, detail| Finding {
        rule: GuardRule::DeletesTest,
        path: file.path().to_owned(),
        line,
        detail,
    };
    if file.is_deleted() && lines::is_test_path(file.path()) {
        if !gone.is_empty() || change.removed.is_empty() {
            out.push(finding(None, "deletes a test file".to_owned()));
        }
        return;
    }
    // As many new tests in the file as vanished ones: renamed, not deleted.
    let renamed = change.added.len();
    if gone.len() > renamed {
        let names: Vec<&str> = gone.iter().map(|(n, _)| n.as_str()).collect();
        out.push(finding(
            Some(*gone[0].1),
            format!("removes test(s) {}", names.join(", ")),
        ));
    }
}

fn outside_paths(file: &diff::FileDiff, root: &Path, allow: &[PathBuf], out: &mut Vec<Finding>) {
    let mut paths: Vec<&str> = file.new.iter().map(String::as_str).collect();
    if let Some(old) = &file.old {
        if file.new.as_ref() != Some(old) {
            paths.push(old);
        }
    }
    for path in paths {
        let detail = match crate::paths::guard(root, path) {
            Err(rejection) => Some(rejection.to_string()),
            Ok(guarded) if !allow.is_empty() && !allowed(&guarded.path, root, allow) => {
                Some("the path is outside the allowed paths".to_owned())
            }
            Ok(_) => None,
        };
        if let Some(detail) = detail {
            out.push(Finding {
                rule: GuardRule::OutsidePaths,
                path: path.to_owned(),
                line: None,
                detail,
            });
        }
    }
}

/// Is `path` one of the allowed files or inside one of the allowed directories?
fn allowed(path: &crate::paths::TreePath, root: &Path, allow: &[PathBuf]) -> bool {
    allow.iter().any(|a| {
        let a = a.strip_prefix(root).unwrap_or(a);
        let Ok(a) = crate::paths::normalize(&a.to_string_lossy()) else {
            return false;
        };
        path == &a || path.as_str().starts_with(&format!("{}/", a.as_str()))
    })
}
