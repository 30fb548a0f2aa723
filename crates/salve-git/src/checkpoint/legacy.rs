//! Checkpoints of older salve versions: one commit per ref under `refs/salve/checkpoints/`.
//!
//! They are listed as they are until the next write of the catalog, which copies each into a
//! catalog entry and then deletes its ref (only if it still points where it did).

use crate::checkpoint::meta::Meta;
use crate::checkpoint::{legacy_ref_name, parse, Checkpoint, LEGACY_REF_PREFIX};
use crate::cmd::GitError;
use crate::repo::Repo;

/// Whether any old-style ref may exist, answered from the ref files without a git process when
/// the repository stores refs as files (a reftable repository always asks git).
pub(super) fn may_exist(repo: &Repo) -> Result<bool, GitError> {
    let common = repo.common_dir()?;
    let config = std::fs::read_to_string(common.join("config")).unwrap_or_default();
    if config.to_ascii_lowercase().contains("refstorage") {
        return Ok(true);
    }
    let loose = common.join(LEGACY_REF_PREFIX.trim_end_matches('/'));
    let has_loose = std::fs::read_dir(&loose).is_ok_and(|mut entries| entries.next().is_some());
    let packed = std::fs::read(common.join("packed-refs")).unwrap_or_default();
    let needle = LEGACY_REF_PREFIX.as_bytes();
    Ok(has_loose || packed.windows(needle.len()).any(|w| w == needle))
}

/// Every old-style checkpoint, in no particular order.
pub(super) fn list(repo: &Repo) -> Result<Vec<Checkpoint>, GitError> {
    if !may_exist(repo)? {
        return Ok(Vec::new());
    }
    let out = repo
        .git()
        .args([
            "for-each-ref",
            "--format=%(refname)%00%(objectname)%00%(tree)%00%(committerdate:unix)%00%(contents)%00",
            LEGACY_REF_PREFIX,
        ])
        .run_bytes()?;
    // Each record is five NUL-terminated fields; the newline for-each-ref adds after a record
    // ends up at the start of the next refname (and alone at the very end).
    let fields: Vec<&[u8]> = out.split(|b| *b == 0).collect();
    let mut checkpoints = Vec::new();
    for record in fields.chunks(5) {
        let [refname, oid, tree, time, message] = record else {
            continue;
        };
        let refname = String::from_utf8_lossy(refname);
        let Some(id) = refname
            .trim_start_matches('\n')
            .strip_prefix(LEGACY_REF_PREFIX)
        else {
            continue;
        };
        let oid = String::from_utf8_lossy(oid).into_owned();
        // Refs under the prefix that are not checkpoint commits are not ours to show or move.
        let Some(mut checkpoint) = parse(&oid, tree, time, message) else {
            continue;
        };
        checkpoint.id = id.to_owned();
        checkpoints.push(checkpoint);
    }
    Ok(checkpoints)
}

/// The version 2 meta of old-style checkpoints, their staged state's commit resolved to its
/// tree (one `cat-file` for all), in the order given.
pub(super) fn metas(repo: &Repo, old: &[Checkpoint]) -> Result<Vec<Meta>, GitError> {
    let mut query = Vec::new();
    for checkpoint in old.iter() {
        if let Some(index) = &checkpoint.index {
            query.extend_from_slice(format!("{index}^{{tree}}\n").as_bytes());
        }
    }
    let answer = if query.is_empty() {
        String::new()
    } else {
        repo.git()
            .args(["cat-file", "--batch-check=%(objectname)"])
            .stdin(query)
            .run()?
    };
    let mut trees = answer.lines();
    let mut metas = Vec::new();
    for checkpoint in old {
        let index = match &checkpoint.index {
            // A missing index commit answers "<rev> missing": the staged state is then unknown.
            Some(_) => trees.next().filter(|t| !t.contains(' ')).map(str::to_owned),
            None => None,
        };
        metas.push(Meta {
            message: checkpoint.message.clone(),
            head: checkpoint.head.clone(),
            branch: checkpoint.branch.clone(),
            index,
            worktree: checkpoint
                .worktree
                .as_ref()
                .map(|w| w.to_string_lossy().into_owned()),
            skipped: checkpoint.skipped,
            tree: Some(checkpoint.tree.clone()),
            time: Some(checkpoint.time),
            nanos: checkpoint.nanos,
        });
    }
    Ok(metas)
}

/// Delete the refs of old-style checkpoints that are now in the catalog, each only if it still
/// points at the same commit. Refs that moved or vanished meanwhile are left; the next write
/// tries again.
pub(super) fn delete(repo: &Repo, moved: &[Checkpoint]) {
    if moved.is_empty() {
        return;
    }
    // One transaction for all; it fails whole if one ref moved, and then each goes alone.
    let mut script = Vec::new();
    for checkpoint in moved {
        script.extend_from_slice(b"delete ");
        script.extend_from_slice(legacy_ref_name(&checkpoint.id).as_bytes());
        script.push(0);
        script.extend_from_slice(checkpoint.commit.as_bytes());
        script.push(0);
    }
    let all = repo
        .git()
        .args(["update-ref", "--stdin", "-z"])
        .stdin(script)
        .run_bytes();
    if all.is_ok() {
        return;
    }
    for checkpoint in moved {
        let _ = repo
            .git()
            .args(["update-ref", "-d"])
            .arg(legacy_ref_name(&checkpoint.id))
            .arg(&checkpoint.commit)
            .run_bytes();
    }
}
