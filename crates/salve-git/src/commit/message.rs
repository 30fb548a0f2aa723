//! The message of a fix commit:
//!
//! ```text
//! fix(<scopes>): <summary>
//!
//! Failed tasks: <check commands or ids>
//! Local verification: passed | enhanced | failed
//! ```

use std::path::{Component, Path};

/// How the fix was verified locally before it was committed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Verification {
    /// The failing checks pass now.
    #[default]
    Passed,
    /// They pass, and more checks than the failing ones were run.
    Enhanced,
    /// Committed although a check still fails (the user asked for it).
    Failed,
}

impl Verification {
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::Passed => "passed",
            Verification::Enhanced => "enhanced",
            Verification::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Verification> {
        match text.trim().to_ascii_lowercase().as_str() {
            "passed" => Some(Verification::Passed),
            "enhanced" => Some(Verification::Enhanced),
            "failed" => Some(Verification::Failed),
            _ => None,
        }
    }
}

/// The parts of a fix commit message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FixMessage {
    /// The conventional type: `fix` when empty, or `feat`, `chore`, `refactor`, ...
    pub kind: String,
    /// Shown as `fix(a,b)`; empty gives `fix:`.
    pub scopes: Vec<String>,
    /// One line. A summary that already starts with `<type>:` or `<type>(` is used as the
    /// whole first line.
    pub summary: String,
    /// The checks that failed before the fix; empty gives `none`.
    pub failed_tasks: Vec<String>,
    /// How the fix was verified; `None` (nothing ran) writes no `Local verification:` line,
    /// so a message never claims a verification that did not happen.
    pub verification: Option<Verification>,
}

impl FixMessage {
    pub fn render(&self) -> String {
        let kind = if self.kind.trim().is_empty() {
            "fix"
        } else {
            self.kind.trim()
        };
        let summary = self.summary.lines().next().unwrap_or("").trim();
        let header = if summary.starts_with(&format!("{kind}:"))
            || summary.starts_with(&format!("{kind}("))
        {
            summary.to_owned()
        } else if self.scopes.is_empty() {
            format!("{kind}: {summary}")
        } else {
            format!("{kind}({}): {summary}", self.scopes.join(","))
        };
        let tasks = if self.failed_tasks.is_empty() {
            "none".to_owned()
        } else {
            self.failed_tasks
                .iter()
                .map(|t| t.replace('\n', " "))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut message = format!("{header}\n\nFailed tasks: {tasks}\n");
        if let Some(v) = self.verification {
            message.push_str(&format!("Local verification: {}\n", v.as_str()));
        }
        message
    }
}

/// Directory names that say where code lives rather than what it is.
const CONTAINERS: &[&str] = &[
    "crates", "packages", "src", "lib", "libs", "apps", "app", "tests", "test", "internal", "pkg",
    "cmd", "source", "sources", "modules",
];

/// Scopes for the touched files: per file, its first directory that is not a generic container
/// (`crates/salve-git/src/cmd.rs` → `salve-git`), else its file stem (`src/main.rs` → `main`).
/// Sorted and without duplicates.
pub fn scopes_for<P: AsRef<Path>>(paths: &[P]) -> Vec<String> {
    let mut scopes: Vec<String> = paths.iter().filter_map(|p| scope_of(p.as_ref())).collect();
    scopes.sort();
    scopes.dedup();
    scopes
}

fn scope_of(path: &Path) -> Option<String> {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let (file, dirs) = parts.split_last()?;
    if let Some(dir) = dirs.iter().find(|d| !CONTAINERS.contains(&d.as_str())) {
        return Some(dir.clone());
    }
    let stem = Path::new(file).file_stem()?.to_string_lossy().into_owned();
    (!stem.is_empty()).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_three_parts() {
        let message = FixMessage {
            scopes: vec!["parser".into(), "cli".into()],
            summary: "handle empty input".into(),
            failed_tasks: vec!["cargo test".into()],
            verification: Some(Verification::Passed),
            ..FixMessage::default()
        };
        assert_eq!(
            message.render(),
            "fix(parser,cli): handle empty input\n\nFailed tasks: cargo test\nLocal verification: passed\n"
        );
        let bare = FixMessage {
            summary: "fix(x): given whole".into(),
            verification: Some(Verification::Failed),
            ..FixMessage::default()
        };
        assert_eq!(
            bare.render(),
            "fix(x): given whole\n\nFailed tasks: none\nLocal verification: failed\n"
        );
    }

    #[test]
    fn no_verification_claims_none_and_the_type_is_chosen() {
        let message = FixMessage {
            kind: "refactor".into(),
            scopes: vec!["store".into()],
            summary: "split the writer".into(),
            ..FixMessage::default()
        };
        assert_eq!(
            message.render(),
            "refactor(store): split the writer\n\nFailed tasks: none\n"
        );
    }

    #[test]
    fn scopes_skip_containers() {
        assert_eq!(
            scopes_for(&[
                "crates/salve-git/src/cmd.rs",
                "src/main.rs",
                "README.md",
                "crates/salve-git/src/repo.rs",
            ]),
            vec!["README", "main", "salve-git"]
        );
    }
}
