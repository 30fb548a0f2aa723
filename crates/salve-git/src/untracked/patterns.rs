//! Ignore files read as git reads them, and the question "is this path excluded?".
//!
//! A file is split into lines; a UTF-8 byte-order mark at its start is dropped; empty lines and
//! lines starting with `#` are skipped; a carriage return before the newline goes, then
//! unescaped trailing spaces. A leading `!` negates. A trailing `/` makes the pattern match
//! directories only. A pattern with no other `/` is matched against the last path component
//! alone; one with a `/` against the path below the ignore file's directory (a leading `/` is
//! dropped), its leading literal part compared as bytes and the rest with
//! [`wildmatch`](super::wildmatch) in pathname mode, as git does.
//!
//! Precedence, as git applies it: the deepest directory's `.gitignore` first, up to the root's,
//! then `info/exclude`, then the global excludes file; within a file the last matching line
//! wins, and a negated match means "not excluded" and ends the search.

use super::wildmatch;

/// One line of an ignore file.
#[derive(Clone, Debug)]
struct Pattern {
    text: Vec<u8>,
    negative: bool,
    dir_only: bool,
    /// No slash: matched against the last component.
    basename: bool,
    /// Bytes before the first glob-special byte.
    literal: usize,
}

/// The lines of one ignore file and the directory it applies to (`""` or `"a/b/"`).
#[derive(Clone, Debug)]
pub(super) struct List {
    base: Vec<u8>,
    patterns: Vec<Pattern>,
}

/// A pattern shape this model does not reproduce (git's named character classes).
#[derive(Debug)]
pub(super) struct Unmodelled;

impl List {
    /// Parse the bytes of an ignore file that applies below `base` (empty or ending in `/`).
    pub fn parse(base: &[u8], bytes: &[u8]) -> Result<List, Unmodelled> {
        if bytes.contains(&0) {
            return Err(Unmodelled);
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let mut patterns = Vec::new();
        for line in bytes.split(|b| *b == b'\n') {
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = trim_trailing_spaces(line);
            if let Some(pattern) = Pattern::parse(line)? {
                patterns.push(pattern);
            }
        }
        Ok(List {
            base: base.to_vec(),
            patterns,
        })
    }

    #[cfg(test)]
    pub fn base(&self) -> &[u8] {
        &self.base
    }

    #[cfg(test)]
    pub fn clone_list(&self) -> List {
        self.clone()
    }

    /// `Some(true)`: excluded by this list; `Some(false)`: re-included; `None`: no line
    /// matches. `path` is from the work tree's root; `is_dir` says what it is.
    pub fn verdict(&self, path: &[u8], is_dir: bool) -> Option<bool> {
        let name_at = path.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
        let name = &path[name_at..];
        for pattern in self.patterns.iter().rev() {
            if pattern.dir_only && !is_dir {
                continue;
            }
            let hit = if pattern.basename {
                wildmatch::matches(&pattern.text, name, false)
            } else {
                pattern.matches_path(&self.base, path)
            };
            if hit {
                return Some(!pattern.negative);
            }
        }
        None
    }
}

impl Pattern {
    fn parse(line: &[u8]) -> Result<Option<Pattern>, Unmodelled> {
        let (negative, rest) = match line.strip_prefix(b"!") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let (dir_only, text) = match rest.strip_suffix(b"/") {
            Some(text) => (true, text),
            None => (false, rest),
        };
        if text.is_empty() {
            // git keeps it, and it can match nothing.
            return Ok(None);
        }
        if text.windows(2).any(|w| w == b"[:") {
            return Err(Unmodelled);
        }
        let literal = text
            .iter()
            .position(|b| b"*?[\\".contains(b))
            .unwrap_or(text.len());
        Ok(Some(Pattern {
            basename: !text.contains(&b'/'),
            text: text.to_vec(),
            negative,
            dir_only,
            literal,
        }))
    }

    /// The pattern against the part of `path` below `base`, as git's pathname match does it:
    /// a leading `/` dropped, the literal prefix compared as bytes, the rest globbed on its own
    /// (so a `**` right after the prefix counts as at the pattern's start, as in git).
    fn matches_path(&self, base: &[u8], path: &[u8]) -> bool {
        let (text, literal) = match self.text.strip_prefix(b"/") {
            Some(text) => (text, self.literal.saturating_sub(1)),
            None => (&self.text[..], self.literal),
        };
        let Some(name) = path.strip_prefix(base) else {
            return false;
        };
        if name.is_empty() {
            return false;
        }
        if literal > 0 {
            if literal > name.len() || text[..literal] != name[..literal] {
                return false;
            }
            if literal == text.len() {
                return literal == name.len();
            }
        }
        wildmatch::matches(&text[literal..], &name[literal..], true)
    }
}

/// A line without its unescaped trailing spaces (tabs stay, as in git).
fn trim_trailing_spaces(line: &[u8]) -> &[u8] {
    let mut cut: Option<usize> = None;
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b' ' => {
                cut.get_or_insert(i);
            }
            b'\\' => {
                i += 1;
                if i >= line.len() {
                    return line;
                }
                cut = None;
            }
            _ => cut = None,
        }
        i += 1;
    }
    cut.map_or(line, |at| &line[..at])
}

/// The ignore lists that apply at one point of the walk, most important last.
#[derive(Debug, Default)]
pub(super) struct Stack {
    /// `info/exclude` and the global file: consulted after every `.gitignore`.
    pub outer: Vec<List>,
    /// `.gitignore` lists from the root down.
    pub dirs: Vec<List>,
}

impl Stack {
    /// Whether `path` is excluded by the lists in force.
    pub fn excluded(&self, path: &[u8], is_dir: bool) -> bool {
        self.dirs
            .iter()
            .rev()
            .chain(self.outer.iter())
            .find_map(|list| list.verdict(path, is_dir))
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_spaces_go_unless_escaped() {
        assert_eq!(trim_trailing_spaces(b"a  "), b"a");
        assert_eq!(trim_trailing_spaces(b"a\\ "), b"a\\ ");
        assert_eq!(trim_trailing_spaces(b"a\\  "), b"a\\ ");
        assert_eq!(trim_trailing_spaces(b"a\t"), b"a\t");
        assert_eq!(trim_trailing_spaces(b"a\\"), b"a\\");
    }

    #[test]
    fn a_list_applies_gits_precedence_within_a_file() {
        let list = List::parse(b"d/", b"*.log\n!keep.log\n/top\nsub/\n").unwrap_or_else(|_| {
            panic!("parses");
        });
        assert_eq!(list.verdict(b"d/x.log", false), Some(true));
        assert_eq!(list.verdict(b"d/keep.log", false), Some(false));
        assert_eq!(list.verdict(b"d/top", false), Some(true));
        assert_eq!(list.verdict(b"d/e/top", false), None);
        assert_eq!(list.verdict(b"d/e/sub", true), Some(true));
        assert_eq!(list.verdict(b"d/e/sub", false), None);
    }

    #[test]
    fn named_classes_are_not_modelled() {
        assert!(List::parse(b"", b"[[:alpha:]]x\n").is_err());
    }
}
