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
//! - as a second guard, only commits older than [`GRACE`] by their own time go, so a reader
//!   that read the ref a moment ago still finds its objects (one that does not re-reads the
//!   ref and tries again: see the catalog's readers).
//!
//! A dead commit's tree goes with it unless a kept commit names it; a writer always puts its
//! catalog tree in its own pack, even when an older pack holds the same tree, so a tree left
//! out here is never one a new commit relies on. Commits of salve versions without the
//! trailer, and the first commit of a catalog (based on no tip), are always kept.

use std::collections::HashSet;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::odb::{unhex, Odb};
use crate::repo::Repo;

/// The trailer of a catalog commit's message naming the tip it replaced (`none` for the
/// first).
pub(super) const BASE_TRAILER: &str = "Salve-Catalog-Base: ";

/// Seconds a dead catalog commit is kept all the same: for readers other than salve's (a
/// user's `git log refs/salve/catalog`, a `git gc` walking from the tip it read), which do
/// not retry. Short, because what a merge keeps it carries on: an agent's edits come
/// seconds apart, and this leaves out nearly every replaced catalog at the next merge.
const GRACE: i64 = 10;

/// What a catalog commit says about itself.
struct CatalogCommit {
    tree: Vec<u8>,
    /// `None` for the first commit of a catalog.
    base: Option<Vec<u8>>,
    time: i64,
}

/// The ids among `commits` (id, content) and their trees that the merge may leave out,
/// `tip` being the catalog's tip read after every merged pack was read (`None`: no catalog,
/// or it could not be read; nothing is left out then).
pub(super) fn select(
    repo: &Repo,
    tip: Option<String>,
    commits: &[(Vec<u8>, Vec<u8>)],
) -> HashSet<Vec<u8>> {
    let mut out = HashSet::new();
    let Some(tip) = tip else {
        return out;
    };
    let (Some(tip_id), Some(tip_tree)) = (unhex(&tip), tip_tree(repo, &tip)) else {
        return out;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let mut kept_trees: HashSet<Vec<u8>> = HashSet::from([tip_tree]);
    let mut dead_trees = HashSet::new();
    for (id, content) in commits {
        match parse(content) {
            Some(c)
                if *id != tip_id
                    && c.base.as_ref().is_some_and(|base| *base != tip_id)
                    && c.time.saturating_add(GRACE) < now =>
            {
                out.insert(id.clone());
                dead_trees.insert(c.tree);
            }
            Some(c) => {
                kept_trees.insert(c.tree);
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

/// The tree of the catalog's tip, read in process or by git; `None` when neither can.
fn tip_tree(repo: &Repo, tip: &str) -> Option<Vec<u8>> {
    if let Some((kind, content)) = Odb::open(repo).ok()?.read(tip) {
        return (kind == "commit").then(|| tree_of(&content)).flatten();
    }
    let tree = repo
        .git()
        .args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{tip}^{{tree}}"))
        .run()
        .ok()?;
    unhex(tree.trim())
}

/// The tree a commit's content names.
fn tree_of(content: &[u8]) -> Option<Vec<u8>> {
    let line = content.split(|b| *b == b'\n').next()?;
    unhex(std::str::from_utf8(line.strip_prefix(b"tree ")?).ok()?)
}

/// A catalog commit as salve writes it: parentless, salve's identity, the catalog's message
/// with its base trailer. `None` for anything else.
fn parse(content: &[u8]) -> Option<CatalogCommit> {
    let text = std::str::from_utf8(content).ok()?;
    let (head, message) = text.split_once("\n\n")?;
    if !message.starts_with("salve checkpoints (") {
        return None;
    }
    let mut tree = None;
    let mut time = None;
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
            let when = rest.strip_prefix(ident.as_str())?;
            time = when.split(' ').next()?.parse().ok();
        }
    }
    let base = message
        .lines()
        .find_map(|l| l.strip_prefix(BASE_TRAILER))?
        .trim();
    let base = if base == "none" {
        None
    } else {
        Some(unhex(base)?)
    };
    Some(CatalogCommit {
        tree: tree?,
        base,
        time: time?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn commit(base: &str, time: i64, parent: bool) -> Vec<u8> {
        let parent = if parent {
            format!("parent {}\n", "b".repeat(40))
        } else {
            String::new()
        };
        format!(
            "tree {}\n{parent}author salve <salve@localhost> {time} +0000\ncommitter salve \
             <salve@localhost> {time} +0000\n\nsalve checkpoints (2 kept)\n\nOne directory.\n\n\
             {BASE_TRAILER}{base}\n",
            "a".repeat(40)
        )
        .into_bytes()
    }

    #[test]
    fn only_parentless_catalog_commits_with_a_base_parse() {
        let base = "c".repeat(40);
        let parsed = parse(&commit(&base, 1_700_000_000, false)).unwrap();
        assert_eq!(parsed.base, unhex(&base));
        assert_eq!(parsed.time, 1_700_000_000);
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
        let other_ident = String::from_utf8(commit(&base, 5, false))
            .unwrap()
            .replace("committer salve", "committer someone");
        assert!(parse(other_ident.as_bytes()).is_none());
    }
}
