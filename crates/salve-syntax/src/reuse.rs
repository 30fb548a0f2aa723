//! Trees kept from earlier parses in this process, so that the text after an edit is parsed
//! incrementally from the tree of the text before it.
//!
//! A long-lived process (the MCP server) checks the same files over and over, and each edit's
//! text before is, most often, the text after the previous one, which was parsed then. Parsing
//! only what changed costs a fraction of a whole parse. tree-sitter's incremental parse is
//! meant to give the tree a fresh parse gives; as a second line of defence an error it reports
//! is confirmed by a fresh parse before anything is said about it (see `parse`), so a kept tree
//! can only ever make a clean file faster to judge.
//!
//! A kept tree is used only when the text it came from equals the text before the edit, byte
//! for byte (compared, not hashed). A handful of trees are kept, the latest first.

use std::sync::Mutex;

use tree_sitter::{InputEdit, Point, Tree};

use crate::Language;

/// How many trees are kept (one per recently checked file).
const KEPT: usize = 8;

struct Kept {
    language: Language,
    text: String,
    tree: Tree,
}

static KEPT_TREES: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// A tree for `before` as `language`, edited to stand for `after`'s text (ready to be passed
/// to the parser as the old tree), when one is kept.
pub(crate) fn edited_tree(language: Language, before: &str, after: &str) -> Option<Tree> {
    let kept = KEPT_TREES.lock().ok()?;
    let found = kept
        .iter()
        .find(|k| k.language == language && k.text == before)?;
    let mut tree = found.tree.clone();
    drop(kept);
    tree.edit(&edit_between(before, after));
    Some(tree)
}

/// Keep `tree`, the parse of `text` as `language`, for the next edit of that text.
pub(crate) fn keep(language: Language, text: &str, tree: &Tree) {
    let Ok(mut kept) = KEPT_TREES.lock() else {
        return;
    };
    kept.retain(|k| !(k.language == language && k.text == text));
    kept.insert(
        0,
        Kept {
            language,
            text: text.to_owned(),
            tree: tree.clone(),
        },
    );
    kept.truncate(KEPT);
}

/// The lengths of the longest common prefix of `b` and `a`, and of their longest common suffix
/// in what the prefix leaves: the bytes an edit from `b` to `a` kept at each end.
pub(crate) fn common_ends(b: &[u8], a: &[u8]) -> (usize, usize) {
    let prefix = b.iter().zip(a).take_while(|(x, y)| x == y).count();
    let most = b.len().min(a.len()) - prefix;
    let suffix = b
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(most)
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, suffix)
}

/// The one edit that turns `before` into `after`: their common start and end kept, the middle
/// replaced. Offsets fall on character boundaries.
fn edit_between(before: &str, after: &str) -> InputEdit {
    let (b, a) = (before.as_bytes(), after.as_bytes());
    let (mut start, mut tail) = common_ends(b, a);
    while !before.is_char_boundary(start) || !after.is_char_boundary(start) {
        start -= 1;
    }
    while !before.is_char_boundary(b.len() - tail) || !after.is_char_boundary(a.len() - tail) {
        tail -= 1;
    }
    let (old_end, new_end) = (b.len() - tail, a.len() - tail);
    InputEdit {
        start_byte: start,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(b, start),
        old_end_position: point_at(b, old_end),
        new_end_position: point_at(a, new_end),
    }
}

/// tree-sitter's point (row, byte column) of byte offset `at`.
fn point_at(text: &[u8], at: usize) -> Point {
    let head = &text[..at];
    let row = head.iter().filter(|&&c| c == b'\n').count();
    let column = head.iter().rev().take_while(|&&c| c != b'\n').count();
    Point { row, column }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_spans_exactly_what_differs() {
        let e = edit_between("a\nbc\nd\n", "a\nbXYc\nd\n");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 3, 5));
        assert_eq!(e.start_position, Point { row: 1, column: 1 });
        assert_eq!(e.new_end_position, Point { row: 1, column: 3 });
        // A repeated letter at the seam is counted once.
        let e = edit_between("aaa", "aa");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (2, 3, 2));
        let e = edit_between("x", "x");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (1, 1, 1));
        // Multi-byte characters are not split.
        let e = edit_between("é", "è");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (0, 2, 2));
    }
}
