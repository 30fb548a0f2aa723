//! A whole file that ends in "the rest is unchanged": where in the file does the rest begin?
//!
//! A model that rewrites the head of a file often ends with a placeholder that says so in words
//! (`# ... rest of the file unchanged ...`, `[rest of file unchanged]`, see
//! `parse::says_rest_unchanged`). The rest is then the file's own lines after the last line the
//! content keeps. Writing the head alone would drop them (issue 14 §3 l), and resuming at the
//! wrong line would repeat or drop code, so the resume point must be certain:
//!
//! - the last non-blank lines before the placeholder (one to three, as many as it takes to be
//!   unique, at least one that says something: a letter or digit, and not only `end` or `fi`)
//!   are found in the file at exactly one place, after the lines any earlier placeholder
//!   filled: the *anchor*. A line the edit changed or added cannot be told from a replacement
//!   or an insertion there, so an anchor not in the file refuses; it is not looked for further
//!   up;
//! - blank lines between the anchor and the placeholder are the file's blank lines after it;
//! - the content before the anchor is an edit of the file up to it that drops no file line:
//!   compared line by line, every file line is kept or replaced by at least as many lines. A gap
//!   between the content's lines and the anchor (file lines the content skips) says the anchor
//!   is a line the edit added that happens to be further down, so the rest would begin too late;
//! - when the lines right before the anchor replace file lines, they replace them line for line
//!   and at least two unchanged lines that say something (not `}`, `end` or `fi`) follow them:
//!   `    return True` and `}` could as well end a new function written before the one they end
//!   in the file, whose lines the rewrite would then lose;
//! - the rest is not empty.
//!
//! A bare trailing `...` or `// rest of file` says only that the content stops: it stays a file
//! cut short and is refused.

use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::loose_fits;
use crate::report::Status;
use crate::text::{has_words, is_blank};

/// How many non-blank lines before the placeholder the anchor may use.
const MAX_ANCHOR: usize = 3;

/// How many unchanged lines that say something (see `says_something`) must follow changed
/// ones before the placeholder.
const MIN_AFTER_CHANGE: usize = 2;

/// The first file line the trailing "rest unchanged" placeholder at `m` stands for: the rest of
/// the file is `[returned, len)`. `lo` is the first content line after the previous placeholder
/// (or 0) and `from` the file line where that placeholder's lines ended (or 0).
pub(crate) fn resume(
    idx: &FileIndex,
    lines: &[&str],
    m: usize,
    lo: usize,
    from: usize,
) -> Result<usize, Miss> {
    let doc = idx.doc;
    let kept: Vec<usize> = (lo..m).filter(|&i| !is_blank(lines[i])).collect();
    let Some(&last) = kept.last() else {
        return Err(Miss::NoNeighbours);
    };
    let mut anchor_end = None;
    for k in 1..=MAX_ANCHOR.min(kept.len()) {
        let pat = &lines[kept[kept.len() - k]..=last];
        if !pat.iter().any(|l| says_something(l)) {
            continue; // block ends alone (`}`, `endif`) place nothing
        }
        let ends: Vec<usize> = loose_fits(idx, pat, &vec![true; pat.len()], false)
            .iter()
            .map(|f| f.range())
            .filter(|&(s, _)| s >= from)
            .map(|(_, e)| e)
            .collect();
        match ends.len() {
            0 => return Err(Miss::NotFound),
            1 => {
                anchor_end = Some(ends[0]);
                break;
            }
            _ => {}
        }
    }
    let Some(a) = anchor_end else {
        return Err(Miss::Ambiguous);
    };
    // The content's blank lines after the anchor must be the file's.
    let blanks = m - last - 1;
    if a + blanks > doc.len() || (a..a + blanks).any(|k| !is_blank(doc.line(k))) {
        return Err(Miss::NotFound);
    }
    let added = check_head(&lines[lo..=last], (from..a).map(|k| doc.line(k)))?;
    let r = a + blanks;
    if r >= doc.len() {
        return Err(Miss::NoRest);
    }
    // A line the head adds that the rest holds too was moved up from the rest (or copied):
    // filling the rest in would write it twice, and which the model meant cannot be told.
    let in_rest = |t: &str| (r..doc.len()).any(|k| doc.line(k).trim() == t);
    if added.iter().any(|t| has_words(t) && in_rest(t)) {
        return Err(Miss::Ambiguous);
    }
    Ok(r)
}

/// Words that only end a block (`end`, `fi`, `endif`): like `}`, they fit the end of any block.
const BLOCK_ENDS: &[&str] = &[
    "end",
    "endif",
    "fi",
    "done",
    "esac",
    "endfor",
    "endwhile",
    "endforeach",
    "endfunction",
    "endsub",
    "wend",
    "loop",
    "next",
    "endmodule",
    "endclass",
];

/// Whether a line says something of its own: a letter or digit, and more than a word that
/// ends a block.
fn says_something(line: &str) -> bool {
    let t = line.trim().trim_start_matches('#');
    let word = t.trim_matches(|c: char| !c.is_alphanumeric());
    t.chars().any(char::is_alphanumeric) && !BLOCK_ENDS.contains(&word.to_lowercase().as_str())
}

/// Checks `head`, compared with the file lines `old` it rewrites up to the anchor: it may not
/// leave out a file line (a stretch of file lines with nothing in its place, or replaced by
/// fewer lines: [`Miss::Drops`]). And where lines the edit changed come right before the
/// anchor, they must replace as many file lines, line for line, and at least
/// [`MIN_AFTER_CHANGE`] unchanged lines that say something (not `}` or `end`) must follow
/// them: a new function that ends like the one it was written before (`    return True`, `}`)
/// would otherwise read as that function's end, and the function would be lost
/// ([`Miss::Ambiguous`]). Lines only added there leave no file line behind, so one will do.
/// Returns the lines the head adds or puts in place of file lines, trimmed.
fn check_head<'a, 'h>(
    head: &[&'h str],
    old: impl Iterator<Item = &'a str>,
) -> Result<Vec<&'h str>, Miss> {
    use similar::DiffOp;
    let old: Vec<&str> = old.map(str::trim_end).collect();
    let new: Vec<&str> = head.iter().map(|l| l.trim_end()).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new);
    let drops = ops.iter().any(|op| match *op {
        DiffOp::Delete { .. } => true,
        DiffOp::Replace {
            old_len, new_len, ..
        } => old_len > new_len,
        _ => false,
    });
    if drops {
        return Err(Miss::Drops);
    }
    let Some((DiffOp::Equal { new_index, len, .. }, before)) = ops.split_last() else {
        return Err(Miss::NotFound);
    };
    let unchanged = new[*new_index..new_index + len]
        .iter()
        .filter(|l| says_something(l))
        .count();
    if let Some(&DiffOp::Replace {
        old_len, new_len, ..
    }) = before.last()
    {
        if old_len != new_len || unchanged < MIN_AFTER_CHANGE {
            return Err(Miss::Ambiguous);
        }
    }
    let added = ops
        .iter()
        .filter_map(|op| match *op {
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => Some(new_index..new_index + new_len),
            _ => None,
        })
        .flatten()
        .map(|k| head[k].trim())
        .collect();
    Ok(added)
}

/// Why one gap could not be filled.
#[derive(Debug)]
pub(crate) enum Miss {
    /// Only other gaps or blank lines around it.
    NoNeighbours,
    /// The last thing in the content, and not in words that say the rest is unchanged: the file
    /// is cut short.
    CutShort,
    NotFound,
    Ambiguous,
    /// A trailing "rest unchanged" whose content before it leaves out file lines.
    Drops,
    /// A trailing "rest unchanged" after the file's last line.
    NoRest,
}

impl Miss {
    /// The refusal's status and why, for the model.
    pub(crate) fn reason(&self) -> (Status, &'static str) {
        match self {
            Miss::NoNeighbours => (
                Status::NotFound,
                "it has no lines of its own around it to place it by",
            ),
            Miss::CutShort => (
                Status::NotFound,
                "it ends the content, so the file is cut short and what the rest should be is unknown",
            ),
            Miss::NotFound => (Status::NotFound, "the lines around it are not in the file"),
            Miss::Ambiguous => (
                Status::Ambiguous,
                "the lines around it match more than one place in the file",
            ),
            Miss::Drops => (
                Status::NotFound,
                "the lines before it leave out lines the file has there, so where the rest begins is not certain",
            ),
            Miss::NoRest => (
                Status::NotFound,
                "the lines before it are the end of the file, so it stands for nothing",
            ),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::text::Doc;

    fn at(src: &str, content: &[&str]) -> Result<usize, Miss> {
        let doc = Doc::parse(src);
        let idx = FileIndex::new(&doc);
        resume(&idx, content, content.len() - 1, 0, 0)
    }

    const SRC: &str = "import a\nimport b\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n";

    #[test]
    fn the_rest_begins_after_a_unique_anchor() {
        let r = at(
            SRC,
            &[
                "import a",
                "import z",
                "import b",
                "",
                "# ... rest unchanged ...",
            ],
        );
        assert_eq!(r.unwrap(), 3);
        // A one-line anchor that fits twice is widened until it fits once.
        let src = "def f():\n    return 1\n\ndef g():\n    return 1\n";
        let r = at(src, &["def f():", "    return 1", "# rest unchanged"]);
        assert_eq!(r.unwrap(), 2);
        // Punctuation alone never anchors, nor does a word that only ends a block.
        let r = at("a\n}\nb\n", &["a", "}", "# rest unchanged"]);
        assert_eq!(r.unwrap(), 2);
        let r = at(
            "x\nfi\ny\nfi\nz\n",
            &["x", "fi", "y", "fi", "# rest unchanged"],
        );
        assert_eq!(r.unwrap(), 4);
        assert!(!says_something("  endif"));
        assert!(!says_something("end;"));
        assert!(says_something("endpoint = 1"));
    }

    #[test]
    fn a_changed_last_line_is_not_an_anchor() {
        // `import c` may replace `import b` or come after it: the rest's start is unknown.
        assert!(matches!(
            at(SRC, &["import a", "import c", "# rest unchanged"]),
            Err(Miss::NotFound)
        ));
    }

    #[test]
    fn a_blank_before_the_placeholder_must_be_the_files() {
        assert!(matches!(
            at(SRC, &["import a", "", "# rest unchanged"]),
            Err(Miss::NotFound)
        ));
    }

    #[test]
    fn an_anchor_further_down_than_the_content_reaches_is_refused() {
        // `    return 2` is in the file once, but the content skips `def f()` and its body to
        // reach it: the model added a line equal to a later one, or cut lines; either way the
        // rest would begin in the wrong place.
        assert!(matches!(
            at(SRC, &["import a", "import b", "", "    return 2", "# rest"]),
            Err(Miss::Drops)
        ));
    }

    #[test]
    fn one_unchanged_line_after_changed_ones_is_not_enough() {
        let src = "def load(n):\n    return read(n)\n\ndef save(n, o):\n    write(n, o)\n    return True\n\ndef drop(n):\n    remove(n)\n";
        // `ping` may replace `save` or be written before it, ending as it does: the rest could
        // begin after `save` or at it.
        let content = [
            "def load(n):",
            "    return read(n)",
            "",
            "def ping():",
            "    ok = 1",
            "    return True",
            "# rest unchanged",
        ];
        assert!(matches!(at(src, &content), Err(Miss::Ambiguous)));
        // After an added line, one unchanged line places the rest: no file line is left behind.
        let content = [
            "def load(n):",
            "    return read(n)",
            "",
            "def save(n, o):",
            "    write(n, o)",
            "    flush()",
            "    return True",
            "# rest unchanged",
        ];
        assert_eq!(at(src, &content).unwrap(), 6);
    }

    #[test]
    fn a_closing_line_does_not_count_as_unchanged_after_changed_lines() {
        let src = "int a(void) {\n    return 0;\n}\n\nint b(int x) {\n    x += 1;\n    return ret;\n}\n\nint c(void) {\n    return 1;\n}\n";
        // `n` may replace `b` or be written before it: `return ret;` and `}` end both.
        let content = [
            "int a(void) {",
            "    return 0;",
            "}",
            "",
            "int n(int y) {",
            "    y--;",
            "    return ret;",
            "}",
            "// rest unchanged",
        ];
        assert!(matches!(at(src, &content), Err(Miss::Ambiguous)));
        // A line rewritten in place, then two unchanged lines with words: the rest follows.
        let content = [
            "int a(void) {",
            "    return 0;",
            "}",
            "",
            "int b(int x) {",
            "    x += 2;",
            "    return ret;",
            "}",
            "",
            "int c(void) {",
            "// rest unchanged",
        ];
        assert_eq!(at(src, &content).unwrap(), 10);
    }

    #[test]
    fn nothing_after_the_anchor_is_no_rest() {
        assert!(matches!(
            at("x = 1\ny = 2\n", &["x = 1", "y = 2", "# rest unchanged"]),
            Err(Miss::NoRest)
        ));
    }
}
