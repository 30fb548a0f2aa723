//! Writing and reading git objects without a git process.
//!
//! A git process costs a few milliseconds to start; a checkpoint writes a handful of small
//! objects. salve encodes them itself (the byte formats are git's: `<type> <size>\0<content>`,
//! hashed). Two ways out:
//! - [`Odb::batch`], what checkpoints use: objects are kept in memory and [`Odb::flush`] writes
//!   them as one pack (see `pack`), two files where loose objects were one file (and often a
//!   fan-out directory) each. An object the store already holds, loose or in any pack, is not
//!   queued again.
//! - [`Odb::open`]: each object loose at once, `objects/xx/yyyy...`, through a temporary file
//!   renamed into place so a reader never sees half an object.
//!
//! Reads find loose objects, queued ones, and whole objects in packs (salve's own, and git's
//! where an object is not a delta); anything else is left to git. In a repository that does
//! not use SHA-1 every write goes through `git hash-object -w` at once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use sha1::{Digest as _, Sha1};

use crate::cmd::GitError;
pub(crate) use crate::object::{hex, unhex, Kind};
use crate::pack::{self, PackIndex};
use crate::repo::Repo;

/// A repository's object store, as far as salve writes and reads it.
pub(crate) struct Odb {
    repo: Repo,
    /// `objects/` of the common git directory, when objects are SHA-1 and written here.
    loose: Option<PathBuf>,
    /// Objects written since the last [`Odb::flush`], when they go out as one pack; `None`
    /// when each is written loose at once (or by git, in another hash).
    pending: Option<Mutex<Pending>>,
    /// The indexes of `objects/pack`, opened at the first lookup.
    packs: Mutex<Option<Vec<PackIndex>>>,
}

#[derive(Default)]
struct Pending {
    objects: Vec<pack::Object>,
    ids: HashSet<Vec<u8>>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Odb {
    /// Objects written loose, one file each, at once.
    pub(crate) fn open(repo: &Repo) -> Result<Odb, GitError> {
        let common = repo.common_dir()?;
        let loose = (!uses_other_hash(&common)).then(|| common.join("objects"));
        Ok(Odb {
            repo: repo.clone(),
            loose,
            pending: None,
            packs: Mutex::new(None),
        })
    }

    /// Objects kept in memory (starting with `objects`) until [`Odb::flush`] writes them as
    /// one pack; in a repository of another hash, written by git at once as [`Odb::open`]'s.
    pub(crate) fn batch(repo: &Repo, objects: Vec<pack::Object>) -> Result<Odb, GitError> {
        let mut odb = Odb::open(repo)?;
        if odb.loose.is_some() {
            let ids = objects.iter().map(|o| o.id.clone()).collect();
            odb.pending = Some(Mutex::new(Pending { objects, ids }));
        }
        Ok(odb)
    }

    /// True when objects are written here in process (SHA-1 repositories).
    pub(crate) fn writes_in_process(&self) -> bool {
        self.loose.is_some()
    }

    /// Store `content` as an object of `kind`; returns its id (lowercase hex).
    pub(crate) fn write(&self, kind: Kind, content: &[u8]) -> Result<String, GitError> {
        self.write_object(kind, content, false)
    }

    /// [`Odb::write`], but queued for the next pack even when the store holds the object
    /// already: the catalog's tree, which a merge may drop from older packs once no catalog
    /// commit that can still become the tip names it (see `pack::merge`).
    pub(crate) fn write_fresh(&self, kind: Kind, content: &[u8]) -> Result<String, GitError> {
        self.write_object(kind, content, true)
    }

    fn write_object(&self, kind: Kind, content: &[u8], fresh: bool) -> Result<String, GitError> {
        let Some(objects) = &self.loose else {
            return self
                .repo
                .git()
                .args(["hash-object", "-w", "--literally", "--stdin", "-t"])
                .arg(kind.name())
                .stdin(content.to_vec())
                .run();
        };
        let header = format!("{} {}\0", kind.name(), content.len());
        let mut hasher = Sha1::new();
        hasher.update(header.as_bytes());
        hasher.update(content);
        let digest = hasher.finalize();
        let id = hex(&digest);
        let dir = objects.join(&id[..2]);
        let path = dir.join(&id[2..]);
        if let Some(pending) = &self.pending {
            let queued = pending
                .lock()
                .is_ok_and(|p| p.ids.contains(digest.as_slice()));
            let held = || path.exists() || self.find_packed(&digest).is_some();
            if queued || (!fresh && held()) {
                return Ok(id);
            }
            let mut pending = pending.lock().map_err(|_| {
                GitError::io("queueing an object", std::io::Error::other("poisoned"))
            })?;
            // Another thread may have queued it since the check above: a pack holds each
            // object once.
            if !pending.ids.insert(digest.to_vec()) {
                return Ok(id);
            }
            pending.objects.push(pack::Object {
                kind,
                id: digest.to_vec(),
                content: content.to_vec(),
            });
            return Ok(id);
        }
        if path.exists() {
            return Ok(id);
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
        let compressed = match kind {
            Kind::Blob => crate::zlib::compress(&[header.as_bytes(), content])
                .map_err(|e| GitError::io("compressing an object", e))?,
            Kind::Tree | Kind::Commit => crate::zlib::store(&[header.as_bytes(), content]),
        };
        write_new(&dir, &path, &compressed)?;
        Ok(id)
    }

    /// The objects written since the last flush, taken out of this store unwritten (a
    /// checkpoint's snapshot keeps them until it is published).
    pub(crate) fn take_pending(&self) -> Vec<pack::Object> {
        self.pending
            .as_ref()
            .and_then(|p| p.lock().ok())
            .map(|mut p| {
                p.ids.clear();
                std::mem::take(&mut p.objects)
            })
            .unwrap_or_default()
    }

    /// Write the objects written since the last flush as one pack (nothing when there are
    /// none, or when objects are written at once).
    pub(crate) fn flush(&self) -> Result<(), GitError> {
        let (Some(objects), Some(_)) = (&self.loose, &self.pending) else {
            return Ok(());
        };
        let queued = self.take_pending();
        if queued.is_empty() {
            return Ok(());
        }
        let pack_dir = objects.join("pack");
        let io = |e| GitError::io(format!("writing a pack in {}", pack_dir.display()), e);
        std::fs::create_dir_all(&pack_dir).map_err(io)?;
        let entries = queued
            .iter()
            .map(pack::encode)
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(io)?;
        pack::write(&pack_dir, &entries).map_err(io)?;
        Ok(())
    }

    /// Merge salve's small packs when there are many (see `pack::merge`), leaving out the
    /// objects `garbage` picks among the commits of the packs merged. Best effort: a merge
    /// that fails leaves every object where it was.
    pub(crate) fn consolidate(&self, garbage: &pack::merge::Garbage<'_>) {
        if let Some(objects) = &self.loose {
            let _ = pack::merge::consolidate(&objects.join("pack"), garbage);
        }
    }

    /// Where the packs hold `id`: the index of the pack and the offset.
    fn find_packed(&self, id: &[u8]) -> Option<u64> {
        let objects = self.loose.as_ref()?;
        let mut packs = self.packs.lock().ok()?;
        let packs = packs.get_or_insert_with(|| open_indexes(&objects.join("pack")));
        packs.iter().find_map(|p| p.find(id))
    }
}

fn open_indexes(pack_dir: &Path) -> Vec<PackIndex> {
    pack::index_files(pack_dir)
        .iter()
        .filter_map(|p| PackIndex::open(p))
        .collect()
}

impl Odb {
    /// The kind and content of an object, read in process: loose, queued, or whole in a pack.
    /// `None` when it is none of those here (a delta in a pack, in an alternate, or a store
    /// salve does not read itself): the caller asks git then.
    pub(crate) fn read(&self, id: &str) -> Option<(String, Vec<u8>)> {
        if let Some(found) = self.read_loose(id) {
            return Some(found);
        }
        let objects = self.loose.as_ref()?;
        let digest = unhex(id)?;
        if let Some(found) = self.read_pending(&digest) {
            return Some(found);
        }
        for fresh in [false, true] {
            let mut packs = self.packs.lock().ok()?;
            if fresh || packs.is_none() {
                // Another writer's pack (or a merge) since the list was made: list again.
                *packs = Some(open_indexes(&objects.join("pack")));
            }
            let found = packs
                .iter()
                .flatten()
                .find_map(|p| p.find(&digest).and_then(|at| p.read_at(at, &digest)));
            if found.is_some() {
                return found;
            }
        }
        None
    }

    fn read_pending(&self, digest: &[u8]) -> Option<(String, Vec<u8>)> {
        let pending = self.pending.as_ref()?.lock().ok()?;
        let object = pending.objects.iter().find(|o| o.id == digest)?;
        Some((object.kind.name().to_owned(), object.content.clone()))
    }

    /// The kind and content of a loose object, or `None` when it is not loose here.
    fn read_loose(&self, id: &str) -> Option<(String, Vec<u8>)> {
        use std::io::Read as _;
        let objects = self.loose.as_ref()?;
        if id.len() < 3 {
            return None;
        }
        let stream = std::fs::read(objects.join(&id[..2]).join(&id[2..])).ok()?;
        let mut raw = match crate::zlib::unstore(&stream) {
            Some(raw) => raw,
            None => {
                // Room for what a loose object usually inflates to, so reading it is not a
                // series of small reads into a growing buffer.
                let mut raw = Vec::with_capacity(stream.len().saturating_mul(4).max(256));
                flate2::bufread::ZlibDecoder::new(stream.as_slice())
                    .read_to_end(&mut raw)
                    .ok()?;
                raw
            }
        };
        let nul = raw.iter().position(|b| *b == 0)?;
        let header = String::from_utf8_lossy(&raw[..nul]).into_owned();
        let (kind, size) = header.split_once(' ')?;
        let content = raw.split_off(nul + 1);
        (size.parse::<usize>().ok()? == content.len()).then(|| (kind.to_owned(), content))
    }
}

/// The entries of a tree object's content: mode, name and id. `None` when it is malformed.
pub(crate) fn parse_tree(content: &[u8], id_len: usize) -> Option<Vec<(String, Vec<u8>, String)>> {
    let mut entries = Vec::new();
    let mut rest = content;
    while !rest.is_empty() {
        let space = rest.iter().position(|b| *b == b' ')?;
        let nul = rest.iter().position(|b| *b == 0)?;
        let mode = String::from_utf8_lossy(&rest[..space]).into_owned();
        let name = rest.get(space + 1..nul)?.to_vec();
        let id = hex(rest.get(nul + 1..nul + 1 + id_len)?);
        entries.push((mode, name, id));
        rest = &rest[nul + 1 + id_len..];
    }
    Some(entries)
}

/// Write `bytes` to `path` through a temporary file in `dir`, read-only like git's objects.
fn write_new(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), GitError> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!("tmp_obj_salve_{}_{n}", std::process::id()));
    let written = std::fs::write(&temp, bytes).and_then(|()| {
        let mut permissions = std::fs::metadata(&temp)?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&temp, permissions)?;
        std::fs::rename(&temp, path)
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(GitError::io(format!("writing {}", path.display()), e));
    }
    Ok(())
}

/// True when the repository's `extensions.objectFormat` names a hash other than SHA-1.
fn uses_other_hash(common_dir: &Path) -> bool {
    let Ok(config) = std::fs::read_to_string(common_dir.join("config")) else {
        return false;
    };
    config.lines().any(|line| {
        let line: String = line
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        line.starts_with("objectformat=") && line != "objectformat=sha1"
    })
}

/// One entry of a tree object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TreeEntry {
    /// Octal without leading zeros, as git writes it: `40000`, `100644`, `100755`, `120000`.
    pub mode: &'static str,
    pub name: Vec<u8>,
    pub id: String,
}

impl TreeEntry {
    fn is_tree(&self) -> bool {
        self.mode == "40000"
    }
}

/// The content of a tree object holding `entries`, in git's order (a sub-tree sorts as if
/// its name ended in `/`). `None` when an id is not hex.
pub(crate) fn tree_content(entries: &mut [TreeEntry]) -> Option<Vec<u8>> {
    entries.sort_by_key(sort_key);
    let mut out = Vec::new();
    for entry in entries.iter() {
        out.extend_from_slice(entry.mode.as_bytes());
        out.push(b' ');
        out.extend_from_slice(&entry.name);
        out.push(0);
        out.extend_from_slice(&unhex(&entry.id)?);
    }
    Some(out)
}

fn sort_key(entry: &TreeEntry) -> Vec<u8> {
    let mut key = entry.name.clone();
    if entry.is_tree() {
        key.push(b'/');
    }
    key
}

/// The content of a commit object with salve's identity at `time` (seconds, UTC).
pub(crate) fn commit_content(tree: &str, parents: &[&str], time: i64, message: &str) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut out = format!("tree {tree}\n");
    for parent in parents {
        let _ = writeln!(out, "parent {parent}");
    }
    let who = format!(
        "{} <{}> {time} +0000",
        crate::checkpoint::options::IDENTITY_NAME,
        crate::checkpoint::options::IDENTITY_EMAIL
    );
    let _ = write!(out, "author {who}\ncommitter {who}\n\n{message}");
    if !message.ends_with('\n') {
        out.push('\n');
    }
    out.into_bytes()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Blobs compressed, trees and commits stored: git reads each back and `fsck --strict`
    /// finds nothing wrong with them.
    #[test]
    fn git_reads_every_kind_written_in_process() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "core.fsync=none"])
                .args(args)
                .current_dir(&root)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
            out.stdout
        };
        git(&["init", "-q"]);
        let odb = Odb::open(&Repo { root: root.clone() }).unwrap();
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let blob = odb.write(Kind::Blob, &text).unwrap();
        let mut entries = vec![TreeEntry {
            mode: "100644",
            name: b"big.txt".to_vec(),
            id: blob.clone(),
        }];
        let tree = odb
            .write(Kind::Tree, &tree_content(&mut entries).unwrap())
            .unwrap();
        let commit = odb
            .write(
                Kind::Commit,
                &commit_content(&tree, &[], 1_700_000_000, "a message\n"),
            )
            .unwrap();
        assert_eq!(git(&["cat-file", "blob", &blob]), text);
        let listed = String::from_utf8(git(&["ls-tree", &commit])).unwrap();
        assert_eq!(listed, format!("100644 blob {blob}\tbig.txt\n"));
        git(&["update-ref", "refs/heads/main", &commit]);
        git(&["fsck", "--strict", "--no-dangling"]);
    }

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        let bytes = [0u8, 1, 0xab, 0xff];
        assert_eq!(hex(&bytes), "0001abff");
        assert_eq!(unhex("0001ABff"), Some(bytes.to_vec()));
        assert_eq!(unhex("0g"), None);
        assert_eq!(unhex("abc"), None);
    }

    #[test]
    fn trees_sort_directories_as_if_they_ended_in_a_slash() {
        let id = "0".repeat(40);
        let mut entries = vec![
            TreeEntry {
                mode: "100644",
                name: b"a.b".to_vec(),
                id: id.clone(),
            },
            TreeEntry {
                mode: "40000",
                name: b"a".to_vec(),
                id: id.clone(),
            },
            TreeEntry {
                mode: "100644",
                name: b"a-".to_vec(),
                id,
            },
        ];
        assert!(tree_content(&mut entries).is_some());
        let names: Vec<&[u8]> = entries.iter().map(|e| e.name.as_slice()).collect();
        assert_eq!(names, vec![&b"a-"[..], b"a.b", b"a"]);
    }
}
