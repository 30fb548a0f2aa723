//! Reading a file to edit: its bytes, checked to be text.
//!
//! Reading a large file is mostly the kernel copying it into fresh memory, page by page; the
//! two halves of a large file are read (and checked for NUL bytes) on two threads at once. The
//! length read is the one the caller's metadata gave, which the write later checks again
//! (size and modification time), so a file that changes meanwhile is never overwritten.

use std::fs::File;
use std::io;
use std::path::Path;

/// Files at least this large are read in two halves at once.
const PARALLEL_BYTES: usize = 1 << 20;

/// What a file holds.
pub(super) enum Loaded {
    Text(String),
    /// It has a NUL byte.
    Binary,
    NotUtf8,
}

/// Read `path`, which its metadata said is `len` bytes long, as text.
pub(super) fn load_text(path: &Path, len: u64) -> io::Result<Loaded> {
    let bytes = match usize::try_from(len) {
        Ok(len) if len >= PARALLEL_BYTES => match read_in_halves(path, len)? {
            Some(bytes) => bytes,
            None => std::fs::read(path)?,
        },
        _ => std::fs::read(path)?,
    };
    if salve_patch::is_binary(&bytes) {
        return Ok(Loaded::Binary);
    }
    Ok(String::from_utf8(bytes).map_or(Loaded::NotUtf8, Loaded::Text))
}

/// The file's `len` bytes read as two halves on two threads; `None` when it is no longer `len`
/// bytes long (the caller reads it the ordinary way).
#[cfg(unix)]
fn read_in_halves(path: &Path, len: usize) -> io::Result<Option<Vec<u8>>> {
    use std::os::unix::fs::FileExt;
    let file = File::open(path)?;
    // Zeroed memory from the allocator is mapped lazily: the reads fault it in, each thread its
    // own half.
    let mut bytes = vec![0u8; len];
    let mid = len / 2;
    let (lower, upper) = bytes.split_at_mut(mid);
    let read = |part: &mut [u8], at: usize| file.read_exact_at(part, at as u64);
    let halves = std::thread::scope(|scope| {
        let job = std::thread::Builder::new().spawn_scoped(scope, || read(upper, mid));
        // No second thread to be had: the caller reads the file the ordinary way.
        let job = job.ok()?;
        let a = read(lower, 0);
        let b = salve_concurrent::join(job);
        Some([a, b])
    });
    let Some(halves) = halves else {
        return Ok(None);
    };
    for r in halves {
        match r {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
    }
    // Grown since the metadata was read: not the file the caller measured.
    if file.read_at(&mut [0u8; 1], len as u64)? > 0 {
        return Ok(None);
    }
    Ok(Some(bytes))
}

#[cfg(not(unix))]
fn read_in_halves(_path: &Path, _len: usize) -> io::Result<Option<Vec<u8>>> {
    Ok(None)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn large_files_read_in_halves_match_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let text: String = (0..200_000).map(|i| format!("line {i} \u{e9}\n")).collect();
        assert!(text.len() >= PARALLEL_BYTES);
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
        let mut big = vec![b'a'; PARALLEL_BYTES + 7];
        big[PARALLEL_BYTES] = 0;
        std::fs::write(&path, &big).unwrap();
        assert!(matches!(
            load_text(&path, big.len() as u64).unwrap(),
            Loaded::Binary
        ));
        big[PARALLEL_BYTES] = 0xff;
        std::fs::write(&path, &big).unwrap();
        assert!(matches!(
            load_text(&path, big.len() as u64).unwrap(),
            Loaded::NotUtf8
        ));
        std::fs::write(&path, b"small\n").unwrap();
        assert!(matches!(load_text(&path, 6).unwrap(), Loaded::Text(t) if t == "small\n"));
    }
}
