//! Read checkpoints back, newest first.

use crate::checkpoint::{parse, Checkpoint, REF_PREFIX};
use crate::cmd::GitError;
use crate::repo::Repo;

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Also count the files each checkpoint changed against the HEAD it was taken on (one
    /// `diff-tree` per checkpoint).
    pub with_file_counts: bool,
}

pub type Error = GitError;

/// Every checkpoint ref, newest first (ties broken by id, so the order is stable).
pub fn list(repo: &Repo, options: &Options) -> Result<Vec<Checkpoint>, Error> {
    let out = repo
        .git()
        .args([
            "for-each-ref",
            "--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(contents)%00",
            REF_PREFIX,
        ])
        .run_bytes()?;
    // Each record is four NUL-terminated fields; the newline for-each-ref adds after a record
    // ends up at the start of the next refname (and alone at the very end).
    let fields: Vec<&[u8]> = out.split(|b| *b == 0).collect();
    let mut checkpoints = Vec::new();
    for record in fields.chunks(4) {
        let [refname, oid, time, message] = record else {
            continue;
        };
        let refname = String::from_utf8_lossy(refname);
        let Some(id) = refname.trim_start_matches('\n').strip_prefix(REF_PREFIX) else {
            continue;
        };
        let oid = String::from_utf8_lossy(oid).into_owned();
        // Refs under the prefix that are not checkpoint commits are not ours to show.
        let Some(mut checkpoint) = parse(&oid, time, message) else {
            continue;
        };
        checkpoint.id = id.to_owned();
        checkpoints.push(checkpoint);
    }
    checkpoints.sort_by(|a, b| b.time.cmp(&a.time).then_with(|| a.id.cmp(&b.id)));
    if options.with_file_counts {
        let empty = repo.empty_tree()?;
        for checkpoint in &mut checkpoints {
            let base = checkpoint.head.clone().unwrap_or_else(|| empty.clone());
            checkpoint.files_changed = Some(repo.changed_paths(&base, &checkpoint.commit)?.len());
        }
    }
    Ok(checkpoints)
}
