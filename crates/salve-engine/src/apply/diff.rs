//! The unified diff of what an apply writes (or would write, under `check`), for the record: the
//! text each file had before, read just ahead of the write, against the text it is given.
//! A delete paired with a create in one file's change is shown as the rename it is.

use std::borrow::Cow;
use std::path::Path;

use salve_patch::{unified_diff, unified_diff_spliced};

use super::file::Placed;
use crate::transaction::{Content, Expect, Op};

/// The diff of every op of the files that placed, in report order.
pub(crate) fn render(root: &Path, placed: &[Placed]) -> String {
    let mut out = String::new();
    for p in placed.iter().filter(|p| p.ok()) {
        out.push_str(&file_diff(root, &p.ops));
    }
    out
}

fn rel(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.to_string_lossy().replace('\\', "/")
}

/// The file's text now, or empty when it does not exist (or is not readable: the record then
/// shows the whole new text, which is still what was written).
fn read(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8(b).unwrap_or_else(|e| lossy(e.as_bytes()).into_owned()))
        .unwrap_or_default()
}

/// The bytes as text: checked in one fast pass when they are UTF-8 (nearly always), replacing
/// invalid sequences otherwise.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn file_diff(root: &Path, ops: &[Op]) -> String {
    let deletes: Vec<&Op> = ops
        .iter()
        .filter(|o| matches!(o, Op::Delete { .. }))
        .collect();
    let writes: Vec<&Op> = ops
        .iter()
        .filter(|o| matches!(o, Op::Write { .. }))
        .collect();
    if let (
        [Op::Delete { path: from, .. }],
        [Op::Write {
            path: to,
            content,
            expect: Expect::Absent,
            ..
        }],
    ) = (deletes.as_slice(), writes.as_slice())
    {
        if let Content::Spliced { original, splice } = content {
            return unified_diff_spliced(&rel(root, from), &rel(root, to), original, splice);
        }
        let new = content.bytes();
        let new = lossy(&new);
        return unified_diff(&rel(root, from), &rel(root, to), &read(from), &new);
    }
    let mut out = String::new();
    for op in ops {
        match op {
            Op::Write {
                path,
                content,
                expect,
                ..
            } => {
                let name = rel(root, path);
                // The splice knows what changed in the text it was made against, which is the
                // file as read: no second read, no diff.
                if let (Content::Spliced { original, splice }, Expect::Unchanged(_)) =
                    (content, expect)
                {
                    // A whole-file write keeps nothing of the original in place, though most of
                    // its lines may be the same: diff it, so the diff shows what changed.
                    if splice.kept_bytes() * 2 < original.len() {
                        let new = splice.materialize(original);
                        out.push_str(&unified_diff(&name, &name, original, &new));
                    } else {
                        out.push_str(&unified_diff_spliced(&name, &name, original, splice));
                    }
                    continue;
                }
                let new = content.bytes();
                let new = lossy(&new);
                out.push_str(&match expect {
                    Expect::Absent => unified_diff("/dev/null", &name, "", &new),
                    Expect::Unchanged(_) => unified_diff(&name, &name, &read(path), &new),
                });
            }
            Op::Delete { path, .. } => {
                let name = rel(root, path);
                out.push_str(&unified_diff(&name, "/dev/null", &read(path), ""));
            }
        }
    }
    out
}
