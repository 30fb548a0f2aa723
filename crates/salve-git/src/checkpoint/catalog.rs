//! The catalog: one ref, one parentless commit, one directory per checkpoint (see the parent
//! module for why).
//!
//! Every change reads the catalog, writes a new tree and commit (in process, see `odb`), and
//! moves the ref only if it still points at the commit it read; a writer that lost the race
//! reads again and retries, so two writers never drop each other's checkpoints. Old-style
//! checkpoint refs are folded in by the same write and deleted once it has landed.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::checkpoint::meta::Meta;
use crate::checkpoint::{garbage, legacy, parse, Checkpoint, CATALOG_REF};
use crate::cmd::{split_nul, GitError};
use crate::odb::{commit_content, parse_tree, tree_content, Kind, Odb, TreeEntry};
use crate::refs;
use crate::repo::Repo;

/// Checkpoint commit id → the id of its entry's tree.
type Entries = BTreeMap<String, String>;

/// How often a writer that keeps losing the race tries again before giving up.
const ATTEMPTS: u32 = 64;

/// The catalog's checkpoints, in no particular order.
pub(super) fn list(repo: &Repo) -> Result<Vec<Checkpoint>, GitError> {
    let odb = Odb::open(repo)?;
    let Some((_, entries)) = read_tip(repo, &odb)? else {
        return Ok(Vec::new());
    };
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(metas) = metas_in_process(&odb, &entries) {
        return Ok(entries
            .keys()
            .zip(metas)
            .filter_map(|(commit, meta)| parse(commit, b"", b"", &meta))
            .collect());
    }
    let mut query = Vec::new();
    for entry in entries.values() {
        query.extend_from_slice(format!("{entry}:meta\n").as_bytes());
    }
    let out = repo
        .git()
        .args(["cat-file", "--batch"])
        .stdin(query)
        .run_bytes()?;
    let mut checkpoints = Vec::new();
    let mut rest = out.as_slice();
    for commit in entries.keys() {
        let Some((content, after)) = next_object(rest) else {
            break;
        };
        rest = after;
        if let Some(checkpoint) = content.and_then(|meta| parse(commit, b"", b"", meta)) {
            checkpoints.push(checkpoint);
        }
    }
    Ok(checkpoints)
}

/// Every entry's `meta` blob, read in process (whole objects, loose or in a pack); `None`
/// when one is not readable so (a delta after the user's gc): git reads them all then.
fn metas_in_process(odb: &Odb, entries: &Entries) -> Option<Vec<Vec<u8>>> {
    entries
        .values()
        .map(|entry| {
            let (kind, tree) = odb.read(entry)?;
            if kind != "tree" {
                return None;
            }
            let id_len = entry.len() / 2;
            let (_, _, blob) = parse_tree(&tree, id_len)?
                .into_iter()
                .find(|(mode, name, _)| mode == "100644" && name == b"meta")?;
            let (kind, meta) = odb.read(&blob)?;
            (kind == "blob").then_some(meta)
        })
        .collect()
}

/// One object of `cat-file --batch` output: its content (`None` when missing) and the rest.
fn next_object(out: &[u8]) -> Option<(Option<&[u8]>, &[u8])> {
    let end = out.iter().position(|b| *b == b'\n')?;
    let header = String::from_utf8_lossy(&out[..end]);
    let rest = &out[end + 1..];
    if header.ends_with(" missing") || header.ends_with(" ambiguous") {
        return Some((None, rest));
    }
    let size: usize = header.rsplit(' ').next()?.parse().ok()?;
    let content = rest.get(..size)?;
    Some((Some(content), rest.get(size + 1..).unwrap_or_default()))
}

/// Add the checkpoint whose commit is `commit`, described by `meta` (which names its trees),
/// writing what `odb` holds queued (the checkpoint's own objects) in the same pack as the
/// catalog's. Adding one that is already there changes nothing.
pub(super) fn add(repo: &Repo, odb: &Odb, commit: &str, meta: &Meta) -> Result<(), GitError> {
    // A work tree or staged state with no files is the empty tree, which git may never have
    // written; the catalog must not point at an object that is not there.
    odb.write(Kind::Tree, &[])?;
    let entry = entry_tree(odb, meta)?;
    update(repo, odb, |entries| {
        entries.insert(commit.to_owned(), entry.clone());
    })
}

/// Remove the checkpoints whose commits are listed; the others stay.
pub(super) fn remove(repo: &Repo, commits: &[String]) -> Result<(), GitError> {
    let odb = Odb::batch(repo, Vec::new())?;
    update(repo, &odb, |entries| {
        for commit in commits {
            entries.remove(commit);
        }
    })
}

/// A checkpoint's directory: `tree`, `index` (when the staged state was recorded) and `meta`.
fn entry_tree(odb: &Odb, meta: &Meta) -> Result<String, GitError> {
    let blob = odb.write(Kind::Blob, meta.render().as_bytes())?;
    let mut entries = vec![TreeEntry {
        mode: "100644",
        name: b"meta".to_vec(),
        id: blob,
    }];
    if let Some(tree) = &meta.tree {
        entries.push(TreeEntry {
            mode: "40000",
            name: b"tree".to_vec(),
            id: tree.clone(),
        });
    }
    if let Some(index) = &meta.index {
        entries.push(TreeEntry {
            mode: "40000",
            name: b"index".to_vec(),
            id: index.clone(),
        });
    }
    write_tree(odb, &mut entries)
}

fn write_tree(odb: &Odb, entries: &mut [TreeEntry]) -> Result<String, GitError> {
    let content = tree_content(entries).ok_or_else(|| GitError::Failed {
        args: "mktree (in process)".to_owned(),
        code: -1,
        stderr: "an object id is not hexadecimal".to_owned(),
    })?;
    odb.write(Kind::Tree, &content)
}

/// The catalog's tip and its entries; `None` when there is no catalog. A tip that no longer
/// reads because it was replaced and a merge of salve's packs left it out (see `garbage`) is
/// read again from the ref.
fn read_tip(repo: &Repo, odb: &Odb) -> Result<Option<(String, Entries)>, GitError> {
    let mut attempt = 0;
    loop {
        let Some(tip) = tip(repo)? else {
            return Ok(None);
        };
        match read_entries(repo, odb, &tip) {
            Ok(entries) => return Ok(Some((tip, entries))),
            Err(e) => {
                attempt += 1;
                if attempt >= ATTEMPTS || self::tip(repo)?.as_deref() == Some(tip.as_str()) {
                    return Err(e);
                }
            }
        }
    }
}

/// The catalog commit, from the ref files when they are plain.
pub(crate) fn tip(repo: &Repo) -> Result<Option<String>, GitError> {
    let common = repo.common_dir()?;
    match refs::read(&common, &common, CATALOG_REF) {
        refs::Value::Id(id) => Ok(Some(id)),
        refs::Value::Absent => Ok(None),
        refs::Value::Symbolic(_) | refs::Value::Unknown => repo.resolve_commit(CATALOG_REF),
    }
}

/// The entries of the catalog commit `tip`: read in process while its objects are whole (loose
/// or in a pack, as salve writes them), else by `git ls-tree` (after `git gc` made deltas).
fn read_entries(repo: &Repo, odb: &Odb, tip: &str) -> Result<Entries, GitError> {
    if let Some(entries) = read_entries_in_process(odb, tip) {
        return Ok(entries);
    }
    let out = repo.git().args(["ls-tree", "-z", tip]).run_bytes()?;
    let mut entries = Entries::new();
    for record in split_nul(&out) {
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let header = String::from_utf8_lossy(&record[..tab]);
        let name = String::from_utf8_lossy(&record[tab + 1..]).into_owned();
        if let [_, "tree", id] = header.split(' ').collect::<Vec<_>>().as_slice() {
            entries.insert(name, (*id).to_owned());
        }
    }
    Ok(entries)
}

fn read_entries_in_process(odb: &Odb, tip: &str) -> Option<Entries> {
    let (kind, commit) = odb.read(tip)?;
    let tree = String::from_utf8_lossy(
        commit
            .strip_prefix(b"tree ")?
            .split(|b| *b == b'\n')
            .next()?,
    )
    .into_owned();
    if kind != "commit" {
        return None;
    }
    let (kind, content) = odb.read(&tree)?;
    if kind != "tree" {
        return None;
    }
    let entries = parse_tree(&content, tip.len() / 2)?;
    Some(
        entries
            .into_iter()
            .filter(|(mode, _, _)| mode == "40000")
            .map(|(_, name, id)| (String::from_utf8_lossy(&name).into_owned(), id))
            .collect(),
    )
}

/// Read the catalog, fold in old-style refs, apply `change`, and move the ref from the commit
/// read to the one written; on a lost race, start over. What `odb` queued is written (one
/// pack) before the ref moves, so the ref never names an object that is not there.
fn update(repo: &Repo, odb: &Odb, mut change: impl FnMut(&mut Entries)) -> Result<(), GitError> {
    let mut attempt = 0;
    loop {
        let (tip, mut entries) = match read_tip(repo, odb)? {
            Some((tip, entries)) => (Some(tip), entries),
            None => (None, Entries::new()),
        };
        let old = legacy::list(repo)?;
        let missing: Vec<Checkpoint> = old
            .iter()
            .filter(|c| !entries.contains_key(&c.commit))
            .cloned()
            .collect();
        for (checkpoint, meta) in missing.iter().zip(legacy::metas(repo, &missing)?) {
            entries.insert(checkpoint.commit.clone(), entry_tree(odb, &meta)?);
        }
        change(&mut entries);
        let new = if entries.is_empty() {
            None
        } else {
            Some(write_catalog(repo, odb, &entries, tip.as_deref())?)
        };
        odb.flush()?;
        let lost = match swap(repo, tip.as_deref(), new.as_deref()) {
            Ok(true) => {
                legacy::delete(repo, &old);
                odb.consolidate(&|commits| {
                    garbage::select(repo, self::tip(repo).ok().flatten(), commits)
                });
                return Ok(());
            }
            Ok(false) => refs::lost(CATALOG_REF),
            // Only a ref that moved under us is a lost race; anything else is an error.
            Err(e) if self::tip(repo)? == tip => return Err(e),
            Err(e) => e,
        };
        attempt += 1;
        if attempt >= ATTEMPTS {
            return Err(lost);
        }
        std::thread::sleep(backoff(attempt));
    }
}

/// A short pause that grows with the attempts and differs between processes, so writers that
/// collided do not collide again in step.
fn backoff(attempt: u32) -> Duration {
    let spread = u64::from(std::process::id() % 7) + u64::from(attempt.min(10));
    Duration::from_millis(1 + spread)
}

/// A new parentless catalog commit holding `entries`, to replace the tip `base` (see
/// `garbage` for why it names it).
fn write_catalog(
    repo: &Repo,
    odb: &Odb,
    entries: &Entries,
    base: Option<&str>,
) -> Result<String, GitError> {
    let mut tree: Vec<TreeEntry> = entries
        .iter()
        .map(|(commit, entry)| TreeEntry {
            mode: "40000",
            name: commit.as_bytes().to_vec(),
            id: entry.clone(),
        })
        .collect();
    let content = tree_content(&mut tree).ok_or_else(|| GitError::Failed {
        args: "mktree (in process)".to_owned(),
        code: -1,
        stderr: "an object id is not hexadecimal".to_owned(),
    })?;
    // In this pack even when an older one holds it: a merge may leave that copy out.
    let tree = odb.write_fresh(Kind::Tree, &content)?;
    let message = format!(
        "salve checkpoints ({} kept)\n\nOne directory per checkpoint: `tree`, `index`, `meta`. \
         `salve checkpoints` lists them.\n\n{}{}\n{}{}\n",
        entries.len(),
        garbage::BASE_TRAILER,
        base.unwrap_or("none"),
        garbage::WRITTEN_TRAILER,
        garbage::wall_clock()
    );
    odb.write(
        Kind::Commit,
        &commit_content(&tree, &[], now(repo), &message),
    )
}

/// Move the catalog ref from `old` to `new` (`None`: absent) if it is still at `old`: in
/// process by git's lock-file protocol where refs are plain files, else by `git update-ref`.
/// `Ok(false)` when another writer got there first.
fn swap(repo: &Repo, old: Option<&str>, new: Option<&str>) -> Result<bool, GitError> {
    if let Some(new) = new {
        match refs::swap(&repo.common_dir()?, CATALOG_REF, old, new) {
            refs::Swap::Done => return Ok(true),
            refs::Swap::Lost => return Ok(false),
            refs::Swap::Unknown => {}
        }
    }
    let git = repo.git().args(["update-ref", "-m", "salve checkpoints"]);
    let git = match (old, new) {
        (_, Some(new)) => {
            let zero = "0".repeat(new.len());
            git.args([CATALOG_REF, new, old.unwrap_or(&zero)])
        }
        (Some(old), None) => git.args(["-d", CATALOG_REF, old]),
        (None, None) => return Ok(true),
    };
    git.run_bytes().map(|_| true)
}

/// Seconds since the Unix epoch: the clock's, or the time `GIT_COMMITTER_DATE` names when it
/// is set (git parses it, in any of the forms git accepts), as a checkpoint's commit made by
/// git would have it.
/// The nanoseconds within the current second: only to order checkpoints taken in one second.
pub(super) fn subsec_nanos() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
}

pub(super) fn now(repo: &Repo) -> i64 {
    if std::env::var_os("GIT_COMMITTER_DATE").is_some() {
        let ident = repo.git().args(["var", "GIT_COMMITTER_IDENT"]).run();
        if let Some(time) = ident
            .ok()
            .and_then(|i| i.rsplit(' ').nth(1).and_then(|t| t.parse().ok()))
        {
            return time;
        }
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
