//! Reading a pack's index, and whole (undeltified) objects out of a pack, in process.
//!
//! Lookups read the index file in place (its fan-out table once, then a binary search over
//! the ids with positioned reads), so a user's large pack costs a few small reads, not its
//! whole index. An object stored as a delta is not read here: the caller asks git, which
//! is the case after a user's `git gc` rewrote salve's objects into its own pack.

use std::io::Read as _;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use sha1::{Digest as _, Sha1};

use super::RawEntry;

/// Ids are SHA-1 here: salve writes and reads packs in process only in SHA-1 repositories.
const ID: usize = 20;
const HEADER: u64 = 8;
const FANOUT: u64 = 256 * 4;

/// One pack's index, opened for lookups.
#[derive(Debug)]
pub(crate) struct PackIndex {
    idx: PathBuf,
    file: std::fs::File,
    fanout: Vec<u32>,
    /// The pack file, opened at the first read (listing a catalog reads hundreds of objects).
    pack: std::sync::OnceLock<Option<std::fs::File>>,
}

impl PackIndex {
    /// `None` when the file is not a version 2 index salve can read.
    pub(crate) fn open(idx: &Path) -> Option<PackIndex> {
        let file = std::fs::File::open(idx).ok()?;
        let mut head = vec![0u8; (HEADER + FANOUT) as usize];
        file.read_exact_at(&mut head, 0).ok()?;
        if head[..8] != [0xff, b't', b'O', b'c', 0, 0, 0, 2] {
            return None;
        }
        let fanout = head[8..]
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Some(PackIndex {
            idx: idx.to_path_buf(),
            file,
            fanout,
            pack: std::sync::OnceLock::new(),
        })
    }

    pub(crate) fn count(&self) -> u32 {
        self.fanout.last().copied().unwrap_or(0)
    }

    /// The pack file beside this index.
    pub(crate) fn pack_path(&self) -> PathBuf {
        self.idx.with_extension("pack")
    }

    pub(crate) fn idx_path(&self) -> &Path {
        &self.idx
    }

    /// `pack-<hex>`, the name without extension.
    pub(crate) fn stem(&self) -> String {
        self.idx
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The checksum of the pack this index describes (20 bytes before the index's own).
    pub(crate) fn pack_checksum(&self) -> Option<Vec<u8>> {
        let len = self.file.metadata().ok()?.len();
        let mut sum = vec![0u8; ID];
        self.file
            .read_exact_at(&mut sum, len.checked_sub(40)?)
            .ok()?;
        Some(sum)
    }

    /// The offset in the pack of the object `id`, when this pack holds it.
    pub(crate) fn find(&self, id: &[u8]) -> Option<u64> {
        let first = usize::from(*id.first()?);
        let lo = if first == 0 {
            0
        } else {
            self.fanout[first - 1]
        };
        let hi = self.fanout[first];
        let (mut lo, mut hi) = (u64::from(lo), u64::from(hi));
        let names = HEADER + FANOUT;
        let mut name = [0u8; ID];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.file.read_exact_at(&mut name, names + mid * 20).ok()?;
            match name.as_slice().cmp(id) {
                std::cmp::Ordering::Equal => return self.offset_of(mid),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    /// The pack offset of the `n`th object in id order.
    fn offset_of(&self, n: u64) -> Option<u64> {
        let count = u64::from(self.count());
        let offsets = HEADER + FANOUT + count * 24;
        let mut slot = [0u8; 4];
        self.file.read_exact_at(&mut slot, offsets + n * 4).ok()?;
        let slot = u32::from_be_bytes(slot);
        if slot & 0x8000_0000 == 0 {
            return Some(u64::from(slot));
        }
        let row = u64::from(slot & 0x7fff_ffff);
        let mut large = [0u8; 8];
        self.file
            .read_exact_at(&mut large, offsets + count * 4 + row * 8)
            .ok()?;
        Some(u64::from_be_bytes(large))
    }

    /// Every entry of the pack, whole, in pack order; `None` when one is a delta (salve's
    /// packs have none) or the files cannot be read.
    pub(crate) fn raw_entries(&self) -> Option<Vec<RawEntry>> {
        let idx = std::fs::read(&self.idx).ok()?;
        let count = usize::try_from(self.count()).ok()?;
        let names = (HEADER + FANOUT) as usize;
        let crcs = names + count * ID;
        let mut listed = Vec::with_capacity(count);
        for n in 0..count {
            let id = idx.get(names + n * ID..names + (n + 1) * ID)?.to_vec();
            let crc = u32::from_be_bytes(*idx.get(crcs + n * 4..)?.first_chunk::<4>()?);
            let offset = self.offset_of(n as u64)?;
            listed.push((offset, id, crc));
        }
        listed.sort_by_key(|(offset, _, _)| *offset);
        let pack = std::fs::read(self.pack_path()).ok()?;
        let end_of_entries = pack.len().checked_sub(ID)?;
        let mut entries = Vec::with_capacity(count);
        for (i, (offset, id, crc)) in listed.iter().enumerate() {
            let start = usize::try_from(*offset).ok()?;
            let end = match listed.get(i + 1) {
                Some((next, _, _)) => usize::try_from(*next).ok()?,
                None => end_of_entries,
            };
            let bytes = pack.get(start..end)?.to_vec();
            let kind = (bytes.first()? >> 4) & 7;
            if !(1..=3).contains(&kind) {
                return None;
            }
            let mut check = flate2::Crc::new();
            check.update(&bytes);
            if check.sum() != *crc {
                return None;
            }
            entries.push(RawEntry {
                id: id.clone(),
                bytes,
                crc: *crc,
            });
        }
        Some(entries)
    }

    /// The kind and content of the object at `offset`, checked against `id`; `None` for a
    /// delta or anything that does not read back as that object.
    pub(crate) fn read_at(&self, offset: u64, id: &[u8]) -> Option<(String, Vec<u8>)> {
        let file = self
            .pack
            .get_or_init(|| std::fs::File::open(self.pack_path()).ok())
            .as_ref()?;
        let mut head = [0u8; 16];
        let got = file.read_at(&mut head, offset).ok()?;
        let (kind, size, used) = parse_header(head.get(..got)?)?;
        let kind = match kind {
            1 => "commit",
            2 => "tree",
            3 => "blob",
            _ => return None,
        };
        let size = usize::try_from(size).ok()?;
        let start = offset + used as u64;
        let content = read_stored(file, start, size).or_else(|| inflate(file, start, size))?;
        let mut hasher = Sha1::new();
        hasher.update(format!("{kind} {size}\0").as_bytes());
        hasher.update(&content);
        (hasher.finalize().as_slice() == id).then(|| (kind.to_owned(), content))
    }
}

/// A pack entry's type, size and header length.
pub(super) fn parse_header(bytes: &[u8]) -> Option<(u8, u64, usize)> {
    let first = *bytes.first()?;
    let kind = (first >> 4) & 7;
    let mut size = u64::from(first & 0x0f);
    let mut shift = 4;
    let mut used = 1;
    let mut byte = first;
    while byte & 0x80 != 0 {
        byte = *bytes.get(used)?;
        size |= u64::from(byte & 0x7f).checked_shl(shift)?;
        shift += 7;
        used += 1;
    }
    Some((kind, size, used))
}

/// The content of a stored (uncompressed) zlib stream of `size` bytes at `start`, as salve
/// writes trees and commits; `None` when the stream there is not one.
fn read_stored(file: &std::fs::File, start: u64, size: usize) -> Option<Vec<u8>> {
    let blocks = size.div_ceil(65_535).max(1);
    let mut stream = vec![0u8; size + 2 + 5 * blocks + 4];
    file.read_exact_at(&mut stream, start).ok()?;
    crate::zlib::unstore(&stream).filter(|data| data.len() == size)
}

fn inflate(file: &std::fs::File, start: u64, size: usize) -> Option<Vec<u8>> {
    let mut reader = Positioned { file, at: start };
    let mut out = Vec::with_capacity(size);
    flate2::read::ZlibDecoder::new(&mut reader)
        .take(size as u64 + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() == size).then_some(out)
}

/// A reader over a file from a position, by positioned reads.
struct Positioned<'a> {
    file: &'a std::fs::File,
    at: u64,
}

impl std::io::Read for Positioned<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The content of a commit entry of a pack (as [`PackIndex::raw_entries`] gives them);
/// `None` for any other kind, or an entry that does not read back whole.
pub(crate) fn commit_content(entry: &RawEntry) -> Option<Vec<u8>> {
    let (kind, size, used) = parse_header(&entry.bytes)?;
    if kind != 1 {
        return None;
    }
    let size = usize::try_from(size).ok()?;
    let stream = entry.bytes.get(used..)?;
    let content = match crate::zlib::unstore(stream) {
        Some(content) => content,
        None => {
            let mut out = Vec::with_capacity(size);
            flate2::read::ZlibDecoder::new(stream)
                .take(size as u64 + 1)
                .read_to_end(&mut out)
                .ok()?;
            out
        }
    };
    (content.len() == size).then_some(content)
}
