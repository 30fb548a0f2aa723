//! What a checkpoint says about itself, in trailers after its message: the text of its
//! catalog entry's `meta` blob, and the message of its commit.
//!
//! Version 2 (this one) names the work tree's tree, the staged state's tree and the time in
//! trailers, so the meta alone describes the checkpoint once its commit is gone. Version 1 (the
//! old `refs/salve/checkpoints/<id>` commits) named an "index commit" whose tree was the staged
//! state, and took the work tree and time from the commit; both read back through
//! [`Meta::index`], which is a tree-ish either way.

use std::fmt::Write as _;

/// Marks a commit as a salve checkpoint and versions the trailer layout.
pub(crate) const MARKER: &str = "Salve-Checkpoint";
const HEAD: &str = "Salve-Head";
const BRANCH: &str = "Salve-Branch";
const INDEX: &str = "Salve-Index";
const WORKTREE: &str = "Salve-Worktree";
const SKIPPED: &str = "Salve-Skipped";
const INDEX_TREE: &str = "Salve-Index-Tree";
const TREE: &str = "Salve-Tree";
const TIME: &str = "Salve-Time";
/// Nanoseconds within the second of [`TIME`]: orders checkpoints taken in the same second.
const NANOS: &str = "Salve-Nanos";

/// The facts a checkpoint records besides its trees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub message: String,
    pub head: Option<String>,
    pub branch: Option<String>,
    /// The staged state: a tree (version 2) or a commit whose tree it is (version 1); `None`
    /// when the index had unresolved conflicts.
    pub index: Option<String>,
    pub worktree: Option<String>,
    pub skipped: usize,
    /// The work tree's tree (version 2 only; version 1 took it from the commit).
    pub tree: Option<String>,
    /// Seconds since the Unix epoch (version 2 only).
    pub time: Option<i64>,
    /// Nanoseconds within that second, when recorded: newest first holds within a second too.
    pub nanos: Option<u32>,
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
        let _ = writeln!(out, "{MARKER}: 2");
        let _ = writeln!(out, "{HEAD}: {}", self.head.as_deref().unwrap_or("unborn"));
        let _ = writeln!(
            out,
            "{BRANCH}: {}",
            self.branch.as_deref().unwrap_or("detached")
        );
        let _ = writeln!(
            out,
            "{INDEX_TREE}: {}",
            self.index.as_deref().unwrap_or("none")
        );
        if let Some(worktree) = &self.worktree {
            // A newline in the path would end the trailer early; it is informational only.
            let _ = writeln!(out, "{WORKTREE}: {}", worktree.replace('\n', " "));
        }
        let _ = writeln!(out, "{SKIPPED}: {}", self.skipped);
        if let Some(tree) = &self.tree {
            let _ = writeln!(out, "{TREE}: {tree}");
        }
        if let Some(time) = self.time {
            let _ = writeln!(out, "{TIME}: {time}");
        }
        if let Some(nanos) = self.nanos {
            let _ = writeln!(out, "{NANOS}: {nanos}");
        }
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
                INDEX | INDEX_TREE => meta.index = (value != "none").then(|| value.to_owned()),
                TREE => meta.tree = Some(value.to_owned()),
                TIME => meta.time = value.parse().ok(),
                NANOS => meta.nanos = value.parse().ok(),
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
            index: Some("b".repeat(40)),
            worktree: Some("/tmp/x".into()),
            skipped: 3,
            tree: Some("c".repeat(40)),
            time: Some(1_700_000_000),
            nanos: Some(123_456_789),
        };
        assert_eq!(Meta::parse(&born.render()), Some(born));
        let unborn = Meta {
            message: "salve checkpoint".into(),
            ..Meta::default()
        };
        assert_eq!(Meta::parse(&unborn.render()), Some(unborn));
        assert_eq!(Meta::parse("fix: something\n\nSigned-off-by: x"), None);
        // Version 1: the index commit reads back as the staged state's tree-ish.
        let old = Meta::parse("before apply\n\nSalve-Checkpoint: 1\nSalve-Index: abc\n");
        assert_eq!(old.as_ref().and_then(|m| m.index.as_deref()), Some("abc"));
        assert_eq!(old.map(|m| (m.tree, m.time)), Some((None, None)));
    }
}
