//! Which old catalog commits and trees a merge of salve's packs may leave out.
//!
//! Every catalog change writes a new parentless commit and a tree naming every checkpoint (70
//! bytes each), and the commit it replaces is unreachable from then on. Carried from merge to
//! merge, those trees would grow with the square of the checkpoints kept. So a merge leaves
//! out a catalog commit that can never become the tip again:
//! - each catalog commit names, in a trailer, the tip its writer read (its base), and the ref
//!   moves only from the tip a writer read (compare and swap). Since each commit names the one
//!   before it, no commit id comes back as the tip. So a commit that is neither the tip nor
//!   based on it can never be swapped in: it is dead. The tip is read after every pack was
//!   read, so a commit written later is in no pack merged.
//! - a commit that was the tip goes only once it was replaced [`GRACE`] seconds ago or more, so
//!   a reader that read the ref a moment ago still finds its objects. The time of replacement is
//!   its successor's: the chain from the tip back through the bases is walked while its commits
//!   are that young, and every commit it reaches is kept (one that does not re-read the ref and
//!   tries again: see the catalog's readers). A commit off that chain was never the tip, or was
//!   replaced before a commit older than the grace was written; it goes once its own time is
//!   older than the grace too. Times are the wall clock's, from the commit's own trailer, never
//!   its committer date (`GIT_COMMITTER_DATE` may pin that anywhere).
//! - where the catalog ref keeps a reflog (`core.logAllRefUpdates=always`, or a ref store salve
//!   does not write itself), git walks the old tips the reflog names: nothing is left out.
//!
//! A dead commit's tree goes with it unless a kept commit names it; a writer always puts its
//! catalog tree in its own pack, even when an older pack holds the same tree, so a tree left
//! out here is never one a new commit relies on. Commits of salve versions without the
//! trailers, and the first commit of a catalog (based on no tip), are always kept; a chain that
//! reaches a commit that cannot be read or parsed leaves everything in place.

use std::collections::{HashMap, HashSet};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::checkpoint::CATALOG_REF;
use crate::odb::{unhex, Odb};
use crate::repo::Repo;

/// The trailer of a catalog commit's message naming the tip it replaced (`none` for the
/// first).
pub(super) const BASE_TRAILER: &str = "Salve-Catalog-Base: ";

/// The trailer of a catalog commit's message with the wall clock's seconds when it was
/// written: the grace is measured on it, whatever date the commit carries.
pub(super) const WRITTEN_TRAILER: &str = "Salve-Catalog-Written: ";

/// Seconds a replaced catalog commit is kept all the same: for readers other than salve's (a
/// user's `git log refs/salve/catalog`, a `git gc` walking from the tip it read), which do
/// not retry. Short, because what a merge keeps it carries on: an agent's edits come
/// seconds apart, and this leaves out nearly every replaced catalog at the next merge.
const GRACE: i64 = 10;

/// What a catalog commit says about itself.
#[derive(Clone)]
struct CatalogCommit {
    tree: Vec<u8>,
    /// `None` for the first commit of a catalog.
    base: Option<Vec<u8>>,
    /// Wall-clock seconds when it was written.
    written: i64,
}

/// The wall clock's seconds since the Unix epoch, for [`WRITTEN_TRAILER`].
pub(super) fn wall_clock() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The ids among `commits` (id, content) and their trees that the merge may leave out,
/// `tip` being the catalog's tip read after every merged pack was read (`None`: no catalog,
/// or it could not be read; nothing is left out then).
pub(super) fn select(
    repo: &Repo,
    tip: Option<String>,
    commits: &[(Vec<u8>, Vec<u8>)],
) -> HashSet<Vec<u8>> {
    select_at(repo, tip, commits, wall_clock())
}

fn select_at(
    repo: &Repo,
    tip: Option<String>,
    commits: &[(Vec<u8>, Vec<u8>)],
    now: i64,
) -> HashSet<Vec<u8>> {
    let mut out = HashSet::new();
    let Some(tip) = tip else {
        return out;
    };
    if reflog_kept(repo) {
        return out;
    }
    let Some(tip_id) = unhex(&tip) else {
        return out;
    };
    let parsed: HashMap<&[u8], CatalogCommit> = commits
        .iter()
        .filter_map(|(id, content)| Some((id.as_slice(), parse(content)?)))
        .collect();
    let Some(recent) = recent_chain(repo, &tip, &parsed, now) else {
        return out;
    };
    let Some(tip_tree) = recent.tip_tree else {
        return out;
    };
    let mut kept_trees: HashSet<Vec<u8>> = HashSet::from([tip_tree]);
    let mut dead_trees = HashSet::new();
    for (id, content) in commits {
        match parsed.get(id.as_slice()) {
            Some(c)
                if *id != tip_id
                    && !recent.ids.contains(id)
                    && c.base.as_ref().is_some_and(|base| *base != tip_id)
                    && c.written.saturating_add(GRACE) < now =>
            {
                out.insert(id.clone());
                dead_trees.insert(c.tree.clone());
            }
            Some(c) => {
                kept_trees.insert(c.tree.clone());
            }
            None => {
                if let Some(tree) = tree_of(content) {
                    kept_trees.insert(tree);
                }
            }
        }
    }
    out.extend(dead_trees.into_iter().filter(|t| !kept_trees.contains(t)));
    out
}

/// The tip's tree and the commits replaced less than [`GRACE`] seconds ago.
struct Recent {
    tip_tree: Option<Vec<u8>>,
    ids: HashSet<Vec<u8>>,
}

/// Walk from the tip back through the bases while each commit was written within the grace
/// (so its base was replaced within it). `None` when the tip or a commit on the way cannot be
/// read as a catalog commit: nothing is left out then.
fn recent_chain(
    repo: &Repo,
    tip: &str,
    parsed: &HashMap<&[u8], CatalogCommit>,
    now: i64,
) -> Option<Recent> {
    let odb = Odb::open(repo).ok()?;
    let read = |id: &[u8]| -> Option<CatalogCommit> {
        if let Some(c) = parsed.get(id) {
            return Some(c.clone());
        }
        let (kind, content) = odb.read(&crate::object::hex(id))?;
        (kind == "commit").then(|| parse(&content)).flatten()
    };
    let tip_id = unhex(tip)?;
    let mut current = read(&tip_id)?;
    let mut recent = Recent {
        tip_tree: Some(current.tree.clone()),
        ids: HashSet::new(),
    };
    while current.written.saturating_add(GRACE) >= now {
        let Some(base) = current.base.clone() else {
            break;
        };
        if !recent.ids.insert(base.clone()) {
            break;
        }
        current = read(&base)?;
    }
    Some(recent)
}

/// Whether the catalog ref has a reflog git reads (a file under `logs/`), or may have one in a
/// ref store salve does not write itself.
fn reflog_kept(repo: &Repo) -> bool {
    let Ok(common) = repo.common_dir() else {
        return true;
    };
    common.join("logs").join(CATALOG_REF).exists()
        || common.join("reftable").exists()
        || !common.join("refs").is_dir()
}

/// The tree a commit's content names.
fn tree_of(content: &[u8]) -> Option<Vec<u8>> {
    let line = content.split(|b| *b == b'\n').next()?;
    unhex(std::str::from_utf8(line.strip_prefix(b"tree ")?).ok()?)
}

/// A catalog commit as salve writes it: parentless, salve's identity, the catalog's message
/// with its base and written trailers. `None` for anything else.
fn parse(content: &[u8]) -> Option<CatalogCommit> {
    let text = std::str::from_utf8(content).ok()?;
    let (head, message) = text.split_once("\n\n")?;
    if !message.starts_with("salve checkpoints (") {
        return None;
    }
    let mut tree = None;
    let mut ours = false;
    let ident = format!(
        "{} <{}> ",
        crate::checkpoint::options::IDENTITY_NAME,
        crate::checkpoint::options::IDENTITY_EMAIL
    );
    for line in head.lines() {
        if let Some(id) = line.strip_prefix("tree ") {
            tree = unhex(id);
        } else if line.starts_with("parent ") {
            return None;
        } else if let Some(rest) = line.strip_prefix("committer ") {
            ours = rest.starts_with(ident.as_str());
        }
    }
    let written = message
        .lines()
        .find_map(|l| l.strip_prefix(WRITTEN_TRAILER))?
        .trim()
        .parse()
        .ok()?;
    let base = message
        .lines()
        .find_map(|l| l.strip_prefix(BASE_TRAILER))?
        .trim();
    let base = if base == "none" {
        None
    } else {
        Some(unhex(base)?)
    };
    if !ours {
        return None;
    }
    Some(CatalogCommit {
        tree: tree?,
        base,
        written,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::object::Kind;

    fn commit_with(tree: &str, base: &str, written: i64, parent: bool) -> Vec<u8> {
        let parent = if parent {
            format!("parent {}\n", "b".repeat(40))
        } else {
            String::new()
        };
        // The committer date is pinned far in the past, as `GIT_COMMITTER_DATE` may pin it:
        // only the written trailer counts.
        format!(
            "tree {tree}\n{parent}author salve <salve@localhost> 1000 +0000\ncommitter salve \
             <salve@localhost> 1000 +0000\n\nsalve checkpoints (2 kept)\n\nOne directory.\n\n\
             {BASE_TRAILER}{base}\n{WRITTEN_TRAILER}{written}\n"
        )
        .into_bytes()
    }

    fn commit(base: &str, written: i64, parent: bool) -> Vec<u8> {
        commit_with(&"a".repeat(40), base, written, parent)
    }

    #[test]
    fn only_parentless_catalog_commits_with_both_trailers_parse() {
        let base = "c".repeat(40);
        let parsed = parse(&commit(&base, 1_700_000_000, false)).unwrap();
        assert_eq!(parsed.base, unhex(&base));
        assert_eq!(parsed.written, 1_700_000_000);
        assert_eq!(parsed.tree, unhex(&"a".repeat(40)).unwrap());
        assert!(parse(&commit("none", 5, false)).unwrap().base.is_none());
        assert!(
            parse(&commit(&base, 5, true)).is_none(),
            "a parent: not ours"
        );
        let no_trailer = String::from_utf8(commit(&base, 5, false))
            .unwrap()
            .replace(BASE_TRAILER, "Other: ");
        assert!(parse(no_trailer.as_bytes()).is_none(), "older salve: kept");
        let no_written = String::from_utf8(commit(&base, 5, false))
            .unwrap()
            .replace(WRITTEN_TRAILER, "Other: ");
        assert!(parse(no_written.as_bytes()).is_none(), "older salve: kept");
        let other_ident = String::from_utf8(commit(&base, 5, false))
            .unwrap()
            .replace("committer salve", "committer someone");
        assert!(parse(other_ident.as_bytes()).is_none());
    }

    /// A repository with a chain of catalog commits (an older one) <- c0 <- c1 <- c2 (tip), at the given
    /// wall-clock seconds, each with a tree of its own, and a commit `lost` based on c1 (a
    /// writer that lost the race to c2). Returns the repo, the commits (id, content) and the
    /// tree ids.
    /// The temp dir, the repository, the commits (id, content) and their trees.
    type Chain = (
        tempfile::TempDir,
        Repo,
        Vec<(Vec<u8>, Vec<u8>)>,
        Vec<Vec<u8>>,
    );

    fn chain(times: [i64; 4]) -> Chain {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&root)
            .env("HOME", &root)
            .status()
            .unwrap();
        assert!(status.success());
        let repo = Repo::discover(&root).unwrap();
        let odb = Odb::open(&repo).unwrap();
        let mut commits = Vec::new();
        let mut trees = Vec::new();
        let mut base = "d".repeat(40);
        let mut ids: Vec<Vec<u8>> = Vec::new();
        for (k, written) in times.iter().enumerate() {
            let tree = odb
                .write(Kind::Blob, format!("tree {k}").as_bytes())
                .unwrap();
            let on = if k == 3 {
                crate::object::hex(&ids[1])
            } else {
                base.clone()
            };
            let content = commit_with(&tree, &on, *written, false);
            let id = odb.write(Kind::Commit, &content).unwrap();
            odb.flush().unwrap();
            ids.push(unhex(&id).unwrap());
            trees.push(unhex(&tree).unwrap());
            commits.push((unhex(&id).unwrap(), content));
            if k < 3 {
                base = id;
            }
        }
        (tmp, repo, commits, trees)
    }

    #[test]
    fn a_tip_replaced_within_the_grace_is_kept_however_old_it_is() {
        let now = 10_000;
        // c0 written long ago, replaced long ago; c1 written long ago, replaced 3 seconds ago
        // by c2; `lost` (based on c1) written long ago.
        let (_tmp, repo, commits, trees) = chain([100, 200, now - 3, 300]);
        let tip = crate::object::hex(&commits[2].0);
        let out = select_at(&repo, Some(tip), &commits, now);
        assert!(out.contains(&commits[0].0), "c0 went long ago");
        assert!(out.contains(&trees[0]));
        assert!(!out.contains(&commits[1].0), "c1 was the tip 3 seconds ago");
        assert!(!out.contains(&trees[1]));
        assert!(!out.contains(&commits[2].0), "the tip stays");
        assert!(out.contains(&commits[3].0), "never the tip, and old");
    }

    #[test]
    fn replaced_longer_ago_than_the_grace_it_goes() {
        let now = 10_000;
        let (_tmp, repo, commits, _) = chain([100, 200, now - GRACE - 1, 300]);
        let tip = crate::object::hex(&commits[2].0);
        let out = select_at(&repo, Some(tip), &commits, now);
        assert!(out.contains(&commits[0].0));
        assert!(out.contains(&commits[1].0));
        assert!(!out.contains(&commits[2].0));
    }

    #[test]
    fn a_reflog_of_the_catalog_or_a_reftable_store_keeps_everything() {
        let now = 10_000;
        let (_tmp, repo, commits, _) = chain([100, 200, now - GRACE - 1, 300]);
        let logs = repo.common_dir().unwrap().join("logs/refs/salve");
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(logs.join("catalog"), "").unwrap();
        let tip = crate::object::hex(&commits[2].0);
        assert!(select_at(&repo, Some(tip.clone()), &commits, now).is_empty());
        // A ref store salve does not write itself (reftable) may log: the same.
        std::fs::remove_file(logs.join("catalog")).unwrap();
        assert!(!select_at(&repo, Some(tip.clone()), &commits, now).is_empty());
        std::fs::create_dir(repo.common_dir().unwrap().join("reftable")).unwrap();
        assert!(select_at(&repo, Some(tip), &commits, now).is_empty());
    }
}
