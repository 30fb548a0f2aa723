//! The line endings of a new file. A reply's text says them only where a structured call gives
//! them (a JSON string holding `\r\n`); otherwise a new file follows the files beside it, when
//! they agree on CRLF, so a Windows project does not gain one LF file per edit.

use std::io::Read as _;
use std::path::Path;

use salve_patch::create_text;

/// Text files beside a new one that must agree on CRLF before it is written with CRLF: one or
/// two files are no convention (a file saved on Windows in an LF project).
const AGREEING: usize = 3;
/// Files beside it read at most, and bytes read of each.
const LOOKED_AT: usize = 16;
const HEAD: u64 = 8 * 1024;

/// The bytes of a new file at `real` from its `content`.
pub(super) fn new_file_text(real: &Path, content: &str, final_newline: bool) -> String {
    let text = create_text(content, final_newline);
    if text.contains('\r') || !text.contains('\n') {
        return text;
    }
    match real.parent() {
        Some(dir) if neighbours_use_crlf(dir) => text.replace('\n', "\r\n"),
        _ => text,
    }
}

/// Whether the text files in `dir` (at least [`AGREEING`] of them) all end their lines with
/// CRLF. Hidden files, binary files and files without a line break say nothing.
fn neighbours_use_crlf(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut names: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.'))
        })
        .collect();
    names.sort();
    let (mut crlf, mut lf) = (0, 0);
    for path in names.iter().take(LOOKED_AT) {
        match ending_of(path) {
            Some(true) => crlf += 1,
            Some(false) => lf += 1,
            None => {}
        }
    }
    crlf >= AGREEING && lf == 0
}

/// `Some(true)` for a text file whose head ends lines with CRLF, `Some(false)` for LF only.
fn ending_of(path: &Path) -> Option<bool> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(HEAD)
        .read_to_end(&mut head)
        .ok()?;
    if head.contains(&0) {
        return None;
    }
    let first = head.iter().position(|&b| b == b'\n')?;
    Some(first > 0 && head[first - 1] == b'\r')
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        dir
    }

    #[test]
    fn a_new_file_follows_three_agreeing_crlf_neighbours() {
        let dir = dir_with(&[
            ("a.c", b"a\r\nb\r\n"),
            ("b.c", b"x\r\n"),
            ("c.h", b"y\r\nz\r\n"),
        ]);
        let new = dir.path().join("d.c");
        assert_eq!(new_file_text(&new, "one\ntwo\n", true), "one\r\ntwo\r\n");
        assert_eq!(new_file_text(&new, "one\ntwo", false), "one\r\ntwo");
    }

    #[test]
    fn explicit_endings_few_or_mixed_neighbours_keep_the_content() {
        let crlf = dir_with(&[("a.c", b"a\r\n"), ("b.c", b"x\r\n"), ("c.h", b"y\r\n")]);
        // A JSON string that says \r\n, or a line with none, is written as it is.
        let new = crlf.path().join("d.c");
        assert_eq!(new_file_text(&new, "one\r\ntwo\n", true), "one\r\ntwo\n");
        assert_eq!(new_file_text(&new, "one", false), "one");
        let two = dir_with(&[("a.c", b"a\r\n"), ("b.c", b"x\r\n"), (".hidden", b"h\r\n")]);
        assert_eq!(
            new_file_text(&two.path().join("n.c"), "one\n", true),
            "one\n"
        );
        let mixed = dir_with(&[
            ("a.c", b"a\r\n"),
            ("b.c", b"x\r\n"),
            ("c.c", b"x\r\n"),
            ("d.c", b"lf\n"),
            ("e.bin", b"\0\r\n"),
        ]);
        assert_eq!(
            new_file_text(&mixed.path().join("n.c"), "one\n", true),
            "one\n"
        );
        assert_eq!(
            new_file_text(&mixed.path().join("gone/n.c"), "one\n", true),
            "one\n"
        );
    }
}
