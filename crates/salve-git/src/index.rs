//! Reading git's index file (versions 2 to 4), for checkpoints taken without a git process.
//!
//! Only what a snapshot needs is kept: each entry's path, mode, blob id and stat data. An index
//! this reader does not fully understand (a split or sparse index, conflicted entries, entries
//! flagged assume-unchanged, skip-worktree or intent-to-add, submodules) is reported as
//! [`None`] so the caller takes the checkpoint through git instead.

use std::path::Path;

use crate::odb::hex;

/// One stage-0 entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub path: Vec<u8>,
    pub mode: u32,
    pub id: String,
    pub stat: Stat,
}

/// The stat data git keeps per entry, truncated to 32 bits as git stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stat {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub dev: u32,
    pub ino: u32,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
}

/// The index's entries, in index order (sorted by path), and the index file's own mtime
/// (entries not older than it are "racily clean" and must be re-read).
pub(crate) struct Index {
    pub entries: Vec<Entry>,
    pub mtime: (u32, u32),
}

/// The index at `path`; an absent file is an empty index. `None`: not readable here.
pub(crate) fn read(path: &Path) -> Option<Index> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(Index {
                entries: Vec::new(),
                mtime: (0, 0),
            })
        }
        Err(_) => return None,
    };
    let meta = std::fs::metadata(path).ok()?;
    let mtime = {
        use std::os::unix::fs::MetadataExt as _;
        (meta.mtime() as u32, meta.mtime_nsec() as u32)
    };
    let entries = parse(&bytes)?;
    Some(Index { entries, mtime })
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn parse(bytes: &[u8]) -> Option<Vec<Entry>> {
    const ID: usize = 20;
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(bytes, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = usize::try_from(be32(bytes, 8)?).ok()?;
    let mut at = 12;
    let mut entries = Vec::with_capacity(count);
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let word = |i: usize| be32(bytes, start + 4 * i);
        let stat = Stat {
            ctime: (word(0)?, word(1)?),
            mtime: (word(2)?, word(3)?),
            dev: word(4)?,
            ino: word(5)?,
            mode: word(6)?,
            uid: word(7)?,
            gid: word(8)?,
            size: word(9)?,
        };
        let id = hex(bytes.get(start + 40..start + 40 + ID)?);
        let flags =
            u16::from_be_bytes([*bytes.get(start + 40 + ID)?, *bytes.get(start + 41 + ID)?]);
        at = start + 42 + ID;
        // Assume-unchanged, or a conflict stage: git's view of these needs more than this reader.
        if flags & 0x8000 != 0 || flags & 0x3000 != 0 {
            return None;
        }
        if flags & 0x4000 != 0 {
            // Extended flags (version 3+): skip-worktree or intent-to-add, or unknown bits.
            let extended = u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]);
            if extended != 0 {
                return None;
            }
            at += 2;
        }
        let path = if version == 4 {
            let (strip, used) = varint(bytes.get(at..)?)?;
            at += used;
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let keep = previous.len().checked_sub(strip)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            path
        } else {
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let path = bytes[at..end].to_vec();
            // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
            let length = end - start;
            at = start + (length + 8) / 8 * 8;
            path
        };
        // A submodule's recorded commit follows its own HEAD under `add -A`: leave it to git.
        if stat.mode == 0o160000 || entry_mode(stat.mode).is_none() {
            return None;
        }
        previous.clone_from(&path);
        entries.push(Entry {
            path,
            mode: stat.mode,
            id,
            stat,
        });
    }
    // Extensions: a split index ("link") or a sparse one ("sdir") lists entries elsewhere.
    while bytes.len().checked_sub(at)? > ID {
        let signature = bytes.get(at..at + 4)?;
        if signature == b"link" || signature == b"sdir" {
            return None;
        }
        let size = usize::try_from(be32(bytes, at + 4)?).ok()?;
        at += 8 + size;
    }
    Some(entries)
}

/// The mode git writes in a tree for an index mode, or `None` for kinds this reader leaves to
/// git.
pub(crate) fn entry_mode(mode: u32) -> Option<&'static str> {
    match mode {
        0o100644 => Some("100644"),
        0o100755 => Some("100755"),
        0o120000 => Some("120000"),
        _ => None,
    }
}

/// The offset encoding of version 4 path compression.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut byte = *bytes.first()?;
    used += 1;
    let mut value = usize::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = *bytes.get(used)?;
        used += 1;
        value = value.checked_add(1)?.checked_shl(7)? | usize::from(byte & 0x7f);
    }
    Some((value, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_decode_as_git_encodes_them() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        // 128 is encoded as 0x80 0x00 in git's offset encoding.
        assert_eq!(varint(&[0x80, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0x80]), None);
    }

    #[test]
    fn garbage_is_not_an_index() {
        assert!(parse(b"nope").is_none());
        assert!(parse(b"DIRC\0\0\0\x09\0\0\0\0").is_none());
    }
}
