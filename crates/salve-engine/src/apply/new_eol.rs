//! Line endings of a new file (DESIGN.md §3.2, "the file is the truth"): a new file has no
//! endings of its own to keep, so it takes those the content gives explicitly (`\r\n` in a JSON
//! string), else those of the files beside it. A directory of CRLF files gets a CRLF file; a
//! directory of LF files, a mixed one or an empty one keeps the content as written.
//!
//! Cost: only the first few files of the directory are sampled, and only their heads are read.

use std::io::Read;
use std::path::Path;

/// Files of the directory sampled, and bytes read from each.
const SAMPLE_FILES: usize = 8;
const SAMPLE_BYTES: u64 = 16 * 1024;

/// `text` (a new file's content at `path`) with the line endings of the files beside it, when
/// the content has no CR of its own and every sampled neighbour uses CRLF.
pub(super) fn like_neighbours(path: &Path, text: String) -> String {
    if text.contains('\r') || !text.contains('\n') {
        return text;
    }
    let Some(dir) = path.parent() else {
        return text;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return text;
    };
    let (mut crlf, mut lf) = (0usize, 0usize);
    for entry in entries.flatten().take(SAMPLE_FILES * 4) {
        if crlf + lf >= SAMPLE_FILES {
            break;
        }
        let p = entry.path();
        if p == path || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let mut head = Vec::new();
        let read =
            std::fs::File::open(&p).and_then(|f| f.take(SAMPLE_BYTES).read_to_end(&mut head));
        if read.is_err() || head.contains(&0) {
            continue;
        }
        let pairs = head.windows(2).filter(|w| w == b"\r\n").count();
        let newlines = head.iter().filter(|&&b| b == b'\n').count();
        match (pairs, newlines) {
            (_, 0) => {}
            (p, n) if p == n => crlf += 1,
            (0, _) => lf += 1,
            // Mixed endings say nothing either way.
            _ => return text,
        }
    }
    if crlf > 0 && lf == 0 {
        text.replace('\n', "\r\n")
    } else {
        text
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::like_neighbours;

    #[test]
    fn a_new_file_takes_the_endings_of_its_neighbours_unless_it_has_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let crlf = dir.path().join("win");
        let lf = dir.path().join("unix");
        std::fs::create_dir_all(&crlf).unwrap();
        std::fs::create_dir_all(&lf).unwrap();
        std::fs::write(crlf.join("a.txt"), "a\r\nb\r\n").unwrap();
        std::fs::write(crlf.join("b.txt"), "c\r\n").unwrap();
        std::fs::write(lf.join("a.txt"), "a\nb\n").unwrap();
        assert_eq!(
            like_neighbours(&crlf.join("n.txt"), "x\ny\n".into()),
            "x\r\ny\r\n"
        );
        assert_eq!(
            like_neighbours(&lf.join("n.txt"), "x\ny\n".into()),
            "x\ny\n"
        );
        // Endings the content gives explicitly are kept.
        assert_eq!(
            like_neighbours(&lf.join("n.txt"), "x\r\ny".into()),
            "x\r\ny"
        );
        assert_eq!(
            like_neighbours(&dir.path().join("n.txt"), "x\n".into()),
            "x\n"
        );
        std::fs::write(crlf.join("c.txt"), "d\n").unwrap();
        assert_eq!(like_neighbours(&crlf.join("n.txt"), "x\n".into()), "x\n");
    }
}
