//! Reading a file to edit: its bytes, checked to be text.
//!
//! Reading a large file is mostly the kernel copying it into fresh memory, page by page. It is
//! read on the calling thread into one buffer of the size the caller's metadata gave (one byte
//! more, so the read that finds the end needs no second allocation): a second thread reading
//! half of it saves wall time but costs more CPU than it saves (both threads fault pages of the
//! same buffer in at once). A file that changes meanwhile is read as it is; the write later
//! checks the metadata again (size and modification time), so it is never overwritten.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// What a file holds.
pub(super) enum Loaded {
    Text(String),
    /// It has a NUL byte.
    Binary,
    NotUtf8,
}

/// Read `path`, which its metadata said is `len` bytes long, as text.
pub(super) fn load_text(path: &Path, len: u64) -> io::Result<Loaded> {
    let mut file = File::open(path)?;
    let capacity = usize::try_from(len).map_or(0, |n| n.saturating_add(1));
    let mut bytes = Vec::with_capacity(capacity);
    file.read_to_end(&mut bytes)?;
    if salve_patch::is_binary(&bytes) {
        return Ok(Loaded::Binary);
    }
    Ok(String::from_utf8(bytes).map_or(Loaded::NotUtf8, Loaded::Text))
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
}
