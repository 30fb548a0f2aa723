//! What a checkpoint commit says about itself, in trailers at the end of its message.
//!
//! The commit's tree is the work tree. Its parents are HEAD at the time (when HEAD was born) and
//! then an "index commit" whose tree is the staged state, so both trees stay reachable from the
//! checkpoint ref and survive `git gc`. The trailers say which parent is which, so a checkpoint
//! taken on an unborn branch (no HEAD parent) reads back correctly.

use std::fmt::Write as _;

/// Marks a commit as a salve checkpoint and versions the trailer layout.
pub(crate) const MARKER: &str = "Salve-Checkpoint";
const HEAD: &str = "Salve-Head";
const BRANCH: &str = "Salve-Branch";
const INDEX: &str = "Salve-Index";
const WORKTREE: &str = "Salve-Worktree";
const SKIPPED: &str = "Salve-Skipped";

/// The facts a checkpoint records besides its trees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub message: String,
    pub head: Option<String>,
    pub branch: Option<String>,
    pub index_commit: Option<String>,
    pub worktree: Option<String>,
    pub skipped: usize,
}

impl Meta {
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        let message = self.message.trim();
        out.push_str(if message.is_empty() {
            "salve checkpoint"
        } else {
            message
        });
        out.push_str("\n\n");
        let _ = writeln!(out, "{MARKER}: 1");
        let _ = writeln!(out, "{HEAD}: {}", self.head.as_deref().unwrap_or("unborn"));
        let _ = writeln!(
            out,
            "{BRANCH}: {}",
            self.branch.as_deref().unwrap_or("detached")
        );
        let _ = writeln!(
            out,
            "{INDEX}: {}",
            self.index_commit.as_deref().unwrap_or("none")
        );
        if let Some(worktree) = &self.worktree {
            // A newline in the path would end the trailer early; it is informational only.
            let _ = writeln!(out, "{WORKTREE}: {}", worktree.replace('\n', " "));
        }
        let _ = writeln!(out, "{SKIPPED}: {}", self.skipped);
        out
    }

    /// The meta of a checkpoint commit message, or `None` when it is not one.
    pub(crate) fn parse(message: &str) -> Option<Meta> {
        let mut meta = Meta::default();
        let mut body = Vec::new();
        let mut is_checkpoint = false;
        for line in message.lines() {
            let Some((key, value)) = line.split_once(": ") else {
                body.push(line);
                continue;
            };
            let value = value.trim();
            match key {
                MARKER => is_checkpoint = true,
                HEAD => meta.head = (value != "unborn").then(|| value.to_owned()),
                BRANCH => meta.branch = (value != "detached").then(|| value.to_owned()),
                INDEX => meta.index_commit = (value != "none").then(|| value.to_owned()),
                WORKTREE => meta.worktree = Some(value.to_owned()),
                SKIPPED => meta.skipped = value.parse().unwrap_or(0),
                _ => body.push(line),
            }
        }
        if !is_checkpoint {
            return None;
        }
        meta.message = body.join("\n").trim().to_owned();
        Some(meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_born_and_unborn() {
        let born = Meta {
            message: "before apply\n\nwith a body".into(),
            head: Some("a".repeat(40)),
            branch: Some("refs/heads/main".into()),
            index_commit: Some("b".repeat(40)),
            worktree: Some("/tmp/x".into()),
            skipped: 3,
        };
        assert_eq!(Meta::parse(&born.render()), Some(born));
        let unborn = Meta {
            message: "salve checkpoint".into(),
            ..Meta::default()
        };
        assert_eq!(Meta::parse(&unborn.render()), Some(unborn));
        assert_eq!(Meta::parse("fix: something\n\nSigned-off-by: x"), None);
    }
}
