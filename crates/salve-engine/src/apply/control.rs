//! No control characters the file did not have (DESIGN.md §3.3): a NUL byte in a reply, or
//! another C0 control but tab, CR and LF, written into a text file makes git call it binary,
//! and then salve itself, `--reverse` and `undo` can no longer edit it. So a file whose new
//! text adds one is refused with status `binary`, nothing written.
//!
//! The check reads what is about to be written, never how it was produced, so no reader or rung
//! bypasses it. A control character the old file already holds (a form feed in a C file, an
//! escape in a terminal script) may be written again: the file was already that way. A renamed
//! file's old text is the file it moves from.
//!
//! Cost: only the new text is scanned (for a splice, the pieces it puts in); the old file is
//! read only when the new text holds a control character, which is rare.

use std::borrow::Cow;

use salve_patch::Status;

use super::stop::{refuse, Stop};
use crate::transaction::{Content, Expect, Op};

/// Whether `b` is a control character a text file should not gain.
fn is_control(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')
}

/// What the old files of one placed change held: the texts replaced or deleted by `ops`.
pub(super) fn old_texts(ops: &[Op]) -> Vec<Cow<'_, [u8]>> {
    let mut out = Vec::new();
    for op in ops {
        match op {
            Op::Write {
                content: Content::Spliced { original, .. },
                ..
            } => out.push(Cow::Borrowed(str::as_bytes(original))),
            // Bytes over an existing file (a mode change, a rename's source): read it back.
            Op::Write {
                path,
                content: Content::Bytes(_),
                expect: Expect::Unchanged(_),
                ..
            }
            | Op::Delete { path, .. } => {
                if let Ok(bytes) = std::fs::read(path) {
                    out.push(Cow::Owned(bytes));
                }
            }
            Op::Write { .. } => {}
        }
    }
    out
}

/// Refuse the change `ops` make to `path` when their new text holds a control character that
/// none of the old texts holds.
pub(super) fn judge(path: &str, ops: &[Op]) -> Result<(), Stop> {
    let mut found: Vec<(u8, String)> = Vec::new();
    for op in ops {
        let Op::Write { content, .. } = op else {
            continue;
        };
        match content {
            Content::Spliced { splice, .. } => {
                for piece in splice.new_pieces() {
                    found.extend(controls_in(piece));
                }
            }
            Content::Bytes(bytes) => {
                found.extend(controls_in(&String::from_utf8_lossy(bytes)));
            }
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    let old = old_texts(ops);
    let Some((byte, line)) = found
        .into_iter()
        .find(|(b, _)| !old.iter().any(|text| text.contains(b)))
    else {
        return Ok(());
    };
    refuse(
        Status::Binary,
        format!(
            "the edit would write {} into {path}, a text file that has none (in the new line \
             {}); git would then treat the file as binary, so nothing was written. Send the \
             text without it.",
            name(byte),
            shown(&line)
        ),
    )
}

/// Every distinct control character in `text`, each with the line it first appears in.
fn controls_in(text: &str) -> Vec<(u8, String)> {
    let mut out: Vec<(u8, String)> = Vec::new();
    if !text.bytes().any(is_control) {
        return out;
    }
    for line in text.split('\n') {
        for b in line.bytes().filter(|b| is_control(*b)) {
            if !out.iter().any(|(seen, _)| *seen == b) {
                out.push((b, line.to_owned()));
            }
        }
    }
    out
}

/// The character's name, as a reader would look it up.
fn name(byte: u8) -> String {
    match byte {
        0 => "a NUL byte (U+0000)".to_owned(),
        0x1b => "an escape character (U+001B)".to_owned(),
        0x0c => "a form feed (U+000C)".to_owned(),
        b => format!("the control character U+{b:04X}"),
    }
}

/// A line with its control characters visible, cut to a readable length.
fn shown(line: &str) -> String {
    let escaped: String = line.chars().flat_map(char::escape_debug).collect();
    let cut: String = escaped.chars().take(120).collect();
    if cut.len() < escaped.len() {
        format!("`{cut}…`")
    } else {
        format!("`{cut}`")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

    use salve_patch::Splice;

    use super::*;

    fn spliced(original: &str, new: &str) -> Op {
        let mut splice = Splice::default();
        splice.keep(original, 0..original.len());
        splice.push_new(new);
        Op::Write {
            path: PathBuf::from("/nonexistent/a.md"),
            content: Content::Spliced {
                original: crate::transaction::SharedText::from(original.to_owned()),
                splice,
            },
            mode: None,
            expect: Expect::Absent,
        }
    }

    fn refused(r: Result<(), Stop>) -> Option<String> {
        match r {
            Err(Stop::Refuse(Status::Binary, m)) => Some(m),
            _ => None,
        }
    }

    #[test]
    fn a_nul_or_escape_the_file_lacks_is_refused() {
        let m = refused(judge("a.md", &[spliced("# Title\n", "a\0b\n")])).unwrap();
        assert!(m.contains("NUL byte") && m.contains("`a\\0b`"), "{m}");
        let m = refused(judge("a.md", &[spliced("x\n", "\x1b[31mred\n")])).unwrap();
        assert!(m.contains("escape character"), "{m}");
    }

    #[test]
    fn tabs_line_endings_and_controls_the_file_had_pass() {
        assert!(judge("a.md", &[spliced("x\n", "\ta\r\nb\n")]).is_ok());
        assert!(judge("a.c", &[spliced("one\x0c\n", "two\x0c\n")]).is_ok());
        // A form feed the file had does not let a NUL through.
        assert!(refused(judge("a.c", &[spliced("one\x0c\n", "\x0c\0\n")])).is_some());
    }

    #[test]
    fn a_new_file_has_none() {
        let op = Op::Write {
            path: PathBuf::from("/nonexistent/new.txt"),
            content: Content::Bytes(b"ok\nbell\x07\n".to_vec()),
            mode: None,
            expect: Expect::Absent,
        };
        let m = refused(judge("new.txt", &[op])).unwrap();
        assert!(m.contains("U+0007"), "{m}");
    }
}
