//! A checkpoint's new objects as one pack, where they were five to seven loose files.
//!
//! On a file system where creating a file is the expensive part of an apply (each loose object
//! is a temporary file and a rename, plus a fan-out directory in a young repository), two files
//! cost less than seven. The pack is git's format, version 2, with no deltas: every object is
//! whole, zlib-compressed (blobs) or stored (trees and commits, which are mostly ids), so git
//! reads it as any other pack and salve reads its own objects back without resolving deltas.
//! The pack is written to a temporary name and renamed, then its index the same way, as git
//! does: a reader that finds the index finds the pack.
//!
//! salve's packs are told apart from git's by their name alone: `pack-<id>` where `<id>` is the
//! SHA-1 of a fixed prefix and the pack's own checksum, which git does not check against the
//! name. So no list of them needs keeping, and a user's `git gc` that folds them into its own
//! pack leaves nothing behind that salve would miss. [`merge`] keeps their number small.

mod index;
pub(crate) mod merge;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use sha1::{Digest as _, Sha1};

use crate::object::{hex, Kind};

pub(crate) use index::PackIndex;

/// What a salve pack's name hashes together with the pack's checksum.
const NAME_PREFIX: &[u8] = b"salve pack\0";

/// A temporary file older than this is a leftover of a killed writer (a write takes
/// milliseconds), and salve removes it.
const LEFTOVER_AGE: Duration = Duration::from_secs(600);

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// One object to pack: its kind, its id's bytes and its content (no header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Object {
    pub kind: Kind,
    pub id: Vec<u8>,
    pub content: Vec<u8>,
}

/// One entry as it sits in a pack: id, the entry's bytes (header and zlib stream) and their
/// CRC-32, as the index records it.
#[derive(Clone, Debug)]
pub(crate) struct RawEntry {
    pub id: Vec<u8>,
    pub bytes: Vec<u8>,
    pub crc: u32,
}

/// The type number a pack entry's header gives `kind`.
fn type_number(kind: Kind) -> u8 {
    match kind {
        Kind::Commit => 1,
        Kind::Tree => 2,
        Kind::Blob => 3,
    }
}

/// The entry of `object` in a pack: its header (type and size) and its zlib stream.
pub(crate) fn encode(object: &Object) -> std::io::Result<RawEntry> {
    let mut bytes = entry_header(type_number(object.kind), object.content.len() as u64);
    let stream = match object.kind {
        Kind::Blob => crate::zlib::compress(&[&object.content])?,
        Kind::Tree | Kind::Commit => crate::zlib::store(&[&object.content]),
    };
    bytes.extend_from_slice(&stream);
    let mut crc = flate2::Crc::new();
    crc.update(&bytes);
    Ok(RawEntry {
        id: object.id.clone(),
        bytes,
        crc: crc.sum(),
    })
}

/// A pack entry's header: type in bits 4 to 6 of the first byte, the size in its low four
/// bits and then seven bits a byte, the high bit saying another byte follows.
fn entry_header(kind: u8, mut size: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    let mut byte = (kind << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size > 0 {
        out.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    out.push(byte);
    out
}

/// The pack holding `entries` (distinct ids) and its index, as bytes: (pack, index, name).
pub(crate) fn build(entries: &[RawEntry]) -> (Vec<u8>, Vec<u8>, String) {
    let total: usize = entries.iter().map(|e| e.bytes.len()).sum();
    let mut pack = Vec::with_capacity(12 + total + 20);
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(
        &u32::try_from(entries.len())
            .unwrap_or(u32::MAX)
            .to_be_bytes(),
    );
    let mut placed: Vec<(&[u8], u32, u64)> = Vec::with_capacity(entries.len());
    for entry in entries {
        placed.push((&entry.id, entry.crc, pack.len() as u64));
        pack.extend_from_slice(&entry.bytes);
    }
    let checksum: [u8; 20] = Sha1::digest(&pack).into();
    pack.extend_from_slice(&checksum);
    placed.sort_by(|a, b| a.0.cmp(b.0));
    let idx = index_bytes(&placed, &checksum);
    (pack, idx, name_for(&checksum))
}

/// A version 2 index of the entries `placed` (sorted by id: id, CRC-32, offset).
fn index_bytes(placed: &[(&[u8], u32, u64)], checksum: &[u8; 20]) -> Vec<u8> {
    let mut idx = Vec::with_capacity(8 + 1024 + placed.len() * 28 + 40);
    idx.extend_from_slice(&[0xff, b't', b'O', b'c']);
    idx.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _, _) in placed {
        fanout[usize::from(id[0])] += 1;
    }
    let mut running = 0u32;
    for count in fanout {
        running += count;
        idx.extend_from_slice(&running.to_be_bytes());
    }
    for (id, _, _) in placed {
        idx.extend_from_slice(id);
    }
    for (_, crc, _) in placed {
        idx.extend_from_slice(&crc.to_be_bytes());
    }
    // Offsets past 2 GiB go to a table of 8-byte offsets, the 4-byte slot naming its row.
    let mut large = Vec::new();
    for (_, _, offset) in placed {
        let slot = match u32::try_from(*offset) {
            Ok(small) if small < 0x8000_0000 => small,
            _ => {
                let row = u32::try_from(large.len()).unwrap_or(u32::MAX) | 0x8000_0000;
                large.push(*offset);
                row
            }
        };
        idx.extend_from_slice(&slot.to_be_bytes());
    }
    for offset in large {
        idx.extend_from_slice(&offset.to_be_bytes());
    }
    idx.extend_from_slice(checksum);
    let own: [u8; 20] = Sha1::digest(&idx).into();
    idx.extend_from_slice(&own);
    idx
}

/// The name (`pack-<hex>`) salve gives the pack whose checksum is `checksum`.
fn name_for(checksum: &[u8]) -> String {
    let mut hasher = Sha1::new();
    hasher.update(NAME_PREFIX);
    hasher.update(checksum);
    format!("pack-{}", hex(&hasher.finalize()))
}

/// True when `name` (`pack-<hex>`, no extension) is the name salve gives a pack of checksum
/// `checksum`: the pack is salve's.
pub(crate) fn is_salve_name(name: &str, checksum: &[u8]) -> bool {
    name_for(checksum) == name
}

/// Write `entries` as one pack and its index into `pack_dir`; returns the pack's name.
pub(crate) fn write(pack_dir: &Path, entries: &[RawEntry]) -> std::io::Result<String> {
    let (pack, idx, name) = build(entries);
    let final_pack = pack_dir.join(format!("{name}.pack"));
    let final_idx = pack_dir.join(format!("{name}.idx"));
    if final_idx.exists() && final_pack.exists() {
        // The same objects in the same order: the same pack, already there.
        return Ok(name);
    }
    publish(pack_dir, "pack", &pack, &final_pack)?;
    publish(pack_dir, "idx", &idx, &final_idx)?;
    Ok(name)
}

/// Write `bytes` to a temporary file of `pack_dir` (named as git names its own, so that `git
/// gc` removes one a killed writer left) and rename it to `path`, read-only as git's are.
fn publish(pack_dir: &Path, what: &str, bytes: &[u8], path: &Path) -> std::io::Result<()> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = pack_dir.join(format!("tmp_{what}_salve_{}_{n}", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(true);
        file.set_permissions(permissions)?;
        drop(file);
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// The `.idx` files of `pack_dir`, newest first (by name order within a second: any order
/// finds an object, newest first finds the catalog's tip in the first one).
pub(crate) fn index_files(pack_dir: &Path) -> Vec<PathBuf> {
    let Ok(listing) = std::fs::read_dir(pack_dir) else {
        return Vec::new();
    };
    let mut found: Vec<(SystemTime, PathBuf)> = listing
        .filter_map(Result::ok)
        .filter(|e| e.file_name().as_encoded_bytes().ends_with(b".idx"))
        .map(|e| {
            let time = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            (time, e.path())
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, path)| path).collect()
}

/// Remove what a killed salve writer left in `pack_dir`: its temporary files, and a salve
/// pack whose index was never renamed into place (no ref can name its objects: the catalog
/// moves only after the index is there). Only files older than [`LEFTOVER_AGE`], so that a
/// writer at work is never disturbed. Failing to remove one is harmless.
pub(crate) fn remove_leftovers(pack_dir: &Path) {
    let Ok(listing) = std::fs::read_dir(pack_dir) else {
        return;
    };
    let old = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > LEFTOVER_AGE)
    };
    for entry in listing.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let path = entry.path();
        let temp = name.starts_with("tmp_pack_salve_") || name.starts_with("tmp_idx_salve_");
        let orphan = name
            .strip_suffix(".pack")
            .filter(|stem| !pack_dir.join(format!("{stem}.idx")).exists())
            .is_some_and(|stem| trailer(&path).is_some_and(|sum| is_salve_name(stem, &sum)));
        if (temp || orphan) && old(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// The last 20 bytes of a pack file: its checksum.
fn trailer(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt as _;
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut sum = vec![0u8; 20];
    file.read_exact_at(&mut sum, len.checked_sub(20)?).ok()?;
    Some(sum)
}

#[cfg(test)]
mod tests;
