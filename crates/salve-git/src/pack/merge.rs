//! Keeping salve's packs few: every checkpoint adds one, and git's `gc --auto` repacks the
//! whole repository once a repository holds `gc.autoPackLimit` packs (50 by default).
//!
//! Once salve's own packs reach [`MOST`], the small ones are merged into one, geometrically as
//! `git repack --geometric=2` does: the largest packs stay while each holds at least twice the
//! objects of all smaller ones together, and the rest become one pack. So a merge rewrites
//! mostly recent, small packs, a large pack is rewritten only when the small ones have grown to
//! half its size, and salve's packs stay at most [`MOST`]. Entries are copied as they are
//! (salve's packs hold no deltas, so an entry does not depend on where it sits).
//!
//! A merge also leaves out what the caller's selector picks among the merged packs' commits:
//! the catalog's replaced commits and trees, which no ref can name again (see the checkpoint
//! catalog's `garbage` module). Without that, every checkpoint's catalog tree (which names
//! every checkpoint) would be carried from merge to merge, and the packs would grow with the
//! square of the checkpoints kept.
//!
//! Safe beside other writers and readers: the merged pack and its index are in place before
//! any pack it replaces is removed, so every object is always in some pack; two merges at once
//! each write a complete pack (the objects may then be held twice, which git tolerates); a
//! merge that cannot read a pack (removed by another merge, or a user's `git gc`) stops
//! without removing anything.

use std::collections::HashSet;
use std::path::Path;

use super::{index::PackIndex, RawEntry};

/// salve's packs in one repository, at most (well under git's `gc.autoPackLimit` of 50).
pub(crate) const MOST: usize = 10;

/// What [`consolidate`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Merged {
    /// The new pack's name; `None` when nothing needed merging.
    pub name: Option<String>,
    /// How many packs it replaced.
    pub replaced: usize,
}

/// salve's packs in `pack_dir` (see the parent module for how they are told apart), but
/// those a user marked to keep (`.keep`).
pub(crate) fn salve_packs(pack_dir: &Path) -> Vec<PackIndex> {
    super::index_files(pack_dir)
        .iter()
        .filter(|path| !path.with_extension("keep").exists())
        .filter_map(|path| PackIndex::open(path))
        .filter(|p| {
            p.pack_checksum()
                .is_some_and(|sum| super::is_salve_name(&p.stem(), &sum))
        })
        .collect()
}

/// Given the commits (id, content) of the packs being merged, the ids of objects the merge
/// may leave out: objects nothing can name any more (see the catalog's `garbage`).
pub(crate) type Garbage<'a> = dyn Fn(&[(Vec<u8>, Vec<u8>)]) -> HashSet<Vec<u8>> + 'a;

/// Merge salve's small packs in `pack_dir` when there are [`MOST`] or more, leaving out what
/// `garbage` picks; also removes a killed writer's leftovers.
pub(crate) fn consolidate(pack_dir: &Path, garbage: &Garbage<'_>) -> std::io::Result<Merged> {
    super::remove_leftovers(pack_dir);
    // A multi-pack index names the packs it covers; removing one under it is git's repack's
    // job (it rewrites the index too). Where the user keeps one, salve leaves its packs to it.
    if pack_dir.join("multi-pack-index").exists() {
        return Ok(Merged::default());
    }
    let mut packs = salve_packs(pack_dir);
    if packs.len() < MOST {
        return Ok(Merged::default());
    }
    packs.sort_by_key(|p| std::cmp::Reverse(p.count()));
    let keep = kept(
        &packs
            .iter()
            .map(|p| u64::from(p.count()))
            .collect::<Vec<_>>(),
    );
    let merging = &packs[keep..];
    merge(pack_dir, merging, garbage)
}

/// How many of the packs of `counts` (largest first) stay as they are: the largest while each
/// holds at least twice the objects of all smaller ones together; never all but one.
pub(crate) fn kept(counts: &[u64]) -> usize {
    let mut keep = 0;
    while keep < counts.len() {
        let rest: u64 = counts[keep + 1..].iter().sum();
        if counts[keep] < rest.saturating_mul(2) {
            break;
        }
        keep += 1;
    }
    // Merging one pack into itself gains nothing; merge at least two.
    keep.min(counts.len().saturating_sub(2))
}

/// Merge `packs` into one pack (less what `garbage` picks), then remove them.
fn merge(pack_dir: &Path, packs: &[PackIndex], garbage: &Garbage<'_>) -> std::io::Result<Merged> {
    let mut entries: Vec<RawEntry> = Vec::new();
    let mut seen = HashSet::new();
    for pack in packs {
        let Some(raw) = pack.raw_entries() else {
            // Gone or changed under us (another merge, a user's gc): leave everything.
            return Ok(Merged::default());
        };
        for entry in raw {
            if seen.insert(entry.id.clone()) {
                entries.push(entry);
            }
        }
    }
    // Commits are asked about only after every pack was read: a catalog commit written after
    // this point is in no pack merged here.
    let commits: Vec<(Vec<u8>, Vec<u8>)> = entries
        .iter()
        .filter_map(|e| Some((e.id.clone(), super::index::commit_content(e)?)))
        .collect();
    let dropped = garbage(&commits);
    entries.retain(|e| !dropped.contains(&e.id));
    let name = super::write(pack_dir, &entries)?;
    for pack in packs.iter().filter(|p| p.stem() != name) {
        // The index first: a reader that no longer finds it does not look for the pack.
        let _ = std::fs::remove_file(pack.idx_path());
        for ext in ["pack", "rev", "bitmap"] {
            let _ = std::fs::remove_file(pack.idx_path().with_extension(ext));
        }
    }
    Ok(Merged {
        name: Some(name),
        replaced: packs.len(),
    })
}
