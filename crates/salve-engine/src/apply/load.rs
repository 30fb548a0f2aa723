//! Reading a file to edit: its bytes, checked to be text.
//!
//! Reading a large file is mostly the kernel copying it into fresh memory, page by page: on
//! sqlite3.c (9.6 MB) the page faults of the new buffer cost more CPU than everything salve
//! does with the text. So a large file is read into an anonymous mapping whose whole 2 MiB
//! stretches are advised as huge pages: a handful of faults instead of one per 4 KiB page
//! (where the kernel has no huge page to give, it falls back to small pages, as before). Only
//! the stretches the text fills whole are advised, so the memory used stays the text's size.
//!
//! It is read on the calling thread: a second thread reading half of it saves wall time but
//! costs more CPU than it saves. A file that changes meanwhile is read as it is; the write
//! later checks the metadata again (size and modification time), so it is never overwritten.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

pub(super) use crate::transaction::SharedText;

/// What a file holds.
pub(super) enum Loaded {
    Text(SharedText),
    /// It has a NUL byte.
    Binary,
    NotUtf8,
}

/// The size of a huge page (x86-64 and arm64 with 4 KiB pages).
const HUGE: usize = 2 << 20;

/// Files at least this large are read into a mapping with huge pages: smaller ones would fill
/// at most one, not worth the mapping's own system calls.
const MAPPED_FROM: usize = 2 * HUGE;

/// Read `path`, which its metadata said is `len` bytes long, as text.
pub(super) fn load_text(path: &Path, len: u64) -> io::Result<Loaded> {
    let mut file = File::open(path)?;
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let bytes = if len >= MAPPED_FROM {
        read_large(&mut file, len)?
    } else {
        read_whole(&mut file, len)?
    };
    if salve_patch::is_binary(&bytes) {
        return Ok(Loaded::Binary);
    }
    Ok(SharedText::try_from(bytes).map_or(Loaded::NotUtf8, Loaded::Text))
}

/// The rest of `file` (expected to be `len` bytes) into ordinary memory.
fn read_whole(file: &mut File, len: usize) -> io::Result<bytes::Bytes> {
    let mut bytes = Vec::with_capacity(len.saturating_add(1));
    file.read_to_end(&mut bytes)?;
    Ok(bytes::Bytes::from(bytes))
}

/// Huge-page advice is Linux's: elsewhere a large file is read like a small one.
#[cfg(not(target_os = "linux"))]
fn read_large(file: &mut File, len: usize) -> io::Result<bytes::Bytes> {
    read_whole(file, len)
}

/// The rest of `file` (expected to be `len` bytes) in an anonymous mapping advised as huge
/// pages where the text fills them whole. A file that grew since it was measured is read whole
/// all the same (into ordinary memory, past what the mapping holds).
#[cfg(target_os = "linux")]
fn read_large(file: &mut File, len: usize) -> io::Result<bytes::Bytes> {
    // A length the huge page divides: the kernel then places the mapping on a huge page's
    // boundary. The pages past the text are never touched, so they cost no memory.
    let mut map = memmap2::MmapMut::map_anon(len.next_multiple_of(HUGE))?;
    let addr = map.as_ptr() as usize;
    let first = addr.next_multiple_of(HUGE) - addr;
    let whole = len.saturating_sub(first) / HUGE * HUGE;
    if whole > 0 {
        // Advice only: refused, the text is read into small pages as it always was.
        let _ = map.advise_range(memmap2::Advice::HugePage, first, whole);
    }
    let mut n = 0;
    while n < len {
        match file.read(&mut map[n..len]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let mut more = Vec::new();
    if n == len {
        file.read_to_end(&mut more)?;
    }
    if more.is_empty() {
        return Ok(bytes::Bytes::from_owner(map).slice(..n));
    }
    let mut whole_file = Vec::with_capacity(n + more.len());
    whole_file.extend_from_slice(&map[..n]);
    whole_file.extend_from_slice(&more);
    Ok(bytes::Bytes::from(whole_file))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn large_files_read_whole_match_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let text: String = (0..200_000).map(|i| format!("line {i} \u{e9}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let Loaded::Text(got) = load_text(&path, text.len() as u64).unwrap() else {
            panic!("not text")
        };
        assert_eq!(got, text);
        // A stale length (the file grew or shrank since it was measured) reads the file as it is.
        for stale in [text.len() as u64 - 10, text.len() as u64 + 10] {
            let Loaded::Text(got) = load_text(&path, stale).unwrap() else {
                panic!("not text")
            };
            assert_eq!(got, text);
        }
    }

    #[test]
    fn binary_and_non_utf8_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let at = 1 << 20;
        let mut big = vec![b'a'; at + 7];
        big[at] = 0;
        std::fs::write(&path, &big).unwrap();
        assert!(matches!(
            load_text(&path, big.len() as u64).unwrap(),
            Loaded::Binary
        ));
        big[at] = 0xff;
        std::fs::write(&path, &big).unwrap();
        assert!(matches!(
            load_text(&path, big.len() as u64).unwrap(),
            Loaded::NotUtf8
        ));
        std::fs::write(&path, b"small\n").unwrap();
        assert!(matches!(load_text(&path, 6).unwrap(), Loaded::Text(t) if t == "small\n"));
    }

    /// A file large enough for the mapping, of every length around a huge page's multiple
    /// (the stretch advised, and the tail read into small pages), read as it is; one measured
    /// shorter or longer than it is (it changed meanwhile) is read whole all the same.
    #[test]
    fn mapped_reads_match_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        for size in [MAPPED_FROM, 3 * HUGE - 1, 3 * HUGE + 1, 5 * HUGE + 12_345] {
            let mut text = String::new();
            while text.len() < size {
                text.push_str(&format!("line {} of the file\n", text.len()));
            }
            text.truncate(size);
            std::fs::write(&path, &text).unwrap();
            let n = text.len();
            for measured in [n, n - 1000, n + 1000, n + HUGE] {
                let Loaded::Text(got) = load_text(&path, measured as u64).unwrap() else {
                    panic!("not text")
                };
                assert!(*got == *text, "size {size} measured {measured}");
            }
        }
        // Binary and non-UTF-8 files read through the mapping are told apart as well.
        let mut big = vec![b'a'; MAPPED_FROM + 7];
        big[MAPPED_FROM + 3] = 0;
        std::fs::write(&path, &big).unwrap();
        assert!(matches!(
            load_text(&path, big.len() as u64).unwrap(),
            Loaded::Binary
        ));
        big[MAPPED_FROM + 3] = 0xc3;
        std::fs::write(&path, &big).unwrap();
        assert!(matches!(
            load_text(&path, big.len() as u64).unwrap(),
            Loaded::NotUtf8
        ));
    }
}
