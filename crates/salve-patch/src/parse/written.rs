//! No edit syntax in what is written (DESIGN.md §3.3): the lines a reply holds as syntax, and
//! the check that none of them reaches a file unless the old file had it.
//!
//! The check reads the reply, the old text and the new text, never the reader or rung that
//! produced the new text, so a rule added for one path cannot be bypassed by another. A line
//! the reply holds as syntax is one the readers take as structure, never as content:
//! - a SEARCH/REPLACE marker of any shape (`<<<<<<< SEARCH`, `>>>>>>> REPLACE`, Cline's
//!   `------- SEARCH`, a git conflict marker), but not `=======` alone, which is a Markdown and
//!   reST heading underline;
//! - a Roo line marker (`:start_line:N`, `:end_line:N`);
//! - a diff or Codex header (`diff --git`, a `---`/`+++` pair, `*** Begin Patch`, `*** Update
//!   File:`, ...), but not an `@@` hunk header, which `.patch` fixtures hold;
//! - a fence line, in a file that is not a document (Markdown, reST, text files hold fences);
//! - a line naming the edited file's own path;
//! - a diff's removal line `-T` with its marker, where the old file has `T`: the line reads as
//!   "remove T" as well as "add -T" (a lost `+`), and the two readings collide.
//!
//! What a format marks unambiguously as content is data, even when it looks like syntax: a
//! diff's `+` line, a JSON string (never a line of the reply), a whole file in a structured
//! call. The caller says which added lines are data; those may be written.

use crate::text::Trim as _;
use std::borrow::Cow;

/// The reply's syntax lines and the edit's lines, as sets looked up for every written line:
/// hashed with foldhash, since SipHash's resistance to chosen collisions buys nothing for a
/// reply's own lines and cost a third of reading them.
type HashSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

use super::fence::fence_open;
use super::markers::is_marker;
use super::paths::{may_name_strict_path, path_candidate};
use crate::edit::{Format, Hunk, LineKind};

/// The lines of one reply that are edit syntax (trimmed), and the path lines it holds.
#[derive(Clone, Debug, Default)]
pub struct ReplySyntax {
    markers: HashSet<String>,
    fences: HashSet<String>,
    /// Fence lines the reply writes twice in a row.
    doubled: HashSet<String>,
    /// Path lines (trimmed) with the path each names.
    paths: Vec<(String, String)>,
    /// Every word of the reply that holds a `/` (an import, a path in prose or code).
    slashed: HashSet<String>,
}

/// The characters besides whitespace that end a word of the reply (for the reply's slashed words).
const WORD_STOPS: [char; 13] = [
    '"', '\'', '`', '(', ')', '<', '>', ',', ';', '[', ']', '{', '}',
];

/// Whether an ASCII byte ends a word of the reply: `char::is_whitespace` (tab to carriage
/// return, space) or one of [`WORD_STOPS`].
const ASCII_STOP: [bool; 128] = {
    let mut stop = [false; 128];
    let mut b = 0x09;
    while b <= 0x0d {
        stop[b] = true;
        b += 1;
    }
    stop[b' ' as usize] = true;
    let mut k = 0;
    while k < WORD_STOPS.len() {
        stop[WORD_STOPS[k] as usize] = true;
        k += 1;
    }
    stop
};

/// Every word of the trimmed line `t` that holds a `/`, in order: the pieces of `t` between
/// whitespace and [`WORD_STOPS`]. An ASCII line is not split whole: each `/` is widened to its
/// word (a C diff has a `/` on most lines, and splitting them by characters cost a tenth of
/// reading the reply).
fn slashed_words<'t>(t: &'t str, mut each: impl FnMut(&'t str)) {
    let b = t.as_bytes();
    let Some(first) = memchr::memchr(b'/', b) else {
        return;
    };
    if !t.is_ascii() {
        t.split(|c: char| c.is_whitespace() || WORD_STOPS.contains(&c))
            .filter(|w| w.contains('/'))
            .for_each(each);
        return;
    }
    let stop = |c: &u8| ASCII_STOP[usize::from(*c)];
    let (mut from, mut next) = (0, Some(first));
    while let Some(p) = next {
        let start = b[from..p]
            .iter()
            .rposition(stop)
            .map_or(from, |i| from + i + 1);
        let end = b[p..].iter().position(stop).map_or(b.len(), |i| p + i);
        each(&t[start..end]);
        from = end;
        next = memchr::memchr(b'/', &b[from..]).map(|q| from + q);
    }
}

/// File extensions whose text holds fences as content.
const DOCUMENTS: &[&str] = &[
    "md", "markdown", "mdx", "rst", "txt", "adoc", "org", "ipynb",
];

impl ReplySyntax {
    /// The syntax lines of `reply`.
    pub fn of(reply: &str) -> ReplySyntax {
        let mut out = ReplySyntax::default();
        let lines: Vec<&str> = reply.lines().collect();
        let trimmed: Vec<&str> = lines.iter().map(|l| l.trim_ws()).collect();
        for (k, (line, &t)) in lines.iter().zip(&trimmed).enumerate() {
            if t.is_empty() {
                continue;
            }
            slashed_words(t, |w| {
                // A C diff repeats `/*` on most lines: owned once, not once a line.
                if w.len() < 200 && !out.slashed.contains(w) {
                    out.slashed.insert(w.to_owned());
                }
            });
            let next = trimmed.get(k + 1).copied().unwrap_or("");
            if is_marker(t) {
                out.markers.insert(t.to_owned());
            } else if t.starts_with("--- ") && next.starts_with("+++ ") {
                out.markers.insert(t.to_owned());
                out.markers.insert(next.to_owned());
            } else if fence_open(line).is_some_and(|f| f.tag.is_none() && !f.info.is_empty()) {
                // Only an opener with an info string: a bare ```` ``` ```` is as often a code
                // example in a doc comment or docstring.
                // A fence opener written twice in a row: the second is never content, even in
                // a document.
                if next == t {
                    out.doubled.insert(t.to_owned());
                }
                out.fences.insert(t.to_owned());
            } else if let Some(p) = may_name_strict_path(t)
                .then(|| path_candidate(line))
                .flatten()
                .filter(|p| p.strict)
            {
                out.paths.push((t.to_owned(), p.path));
            }
        }
        out
    }

    /// The first line of the new text (given as the pieces it puts in) that the reply holds as
    /// syntax and that `old` does not have, for the file `path` edited by `hunks` (none for a
    /// whole file) in `format`. The added lines of a diff and the strings of a JSON call are
    /// content as their format marks it, so they may be written.
    pub fn first_written(
        &self,
        path: &str,
        old: &str,
        new_pieces: &[&str],
        hunks: &[Hunk],
        format: Format,
    ) -> Option<String> {
        self.first_written_lazy(path, || Cow::Borrowed(old), new_pieces, hunks, format)
    }

    /// [`ReplySyntax::first_written`] with the old text built by `old` only when a line of the
    /// new text is suspect: a clean edit of a large file never assembles it.
    pub fn first_written_lazy<'o>(
        &self,
        path: &str,
        old: impl FnOnce() -> Cow<'o, str>,
        new_pieces: &[&str],
        hunks: &[Hunk],
        format: Format,
    ) -> Option<String> {
        let diff = matches!(format, Format::Git | Format::Unified | Format::Codex);
        let json = matches!(format, Format::OldNewJson | Format::ToolJson);
        if json && hunks.is_empty() {
            // A whole file in a structured call: every line is data.
            return None;
        }
        let added_are_data = diff || json;
        let document = path
            .rsplit_once('.')
            .is_some_and(|(_, ext)| DOCUMENTS.contains(&ext.to_ascii_lowercase().as_str()));
        let removals: HashSet<String> = hunks
            .iter()
            .filter(|_| diff)
            .flat_map(|h| &h.lines)
            .filter(|l| l.kind == LineKind::Remove && !l.text.trim_ws().is_empty())
            .map(|l| format!("-{}", l.text).trim_ws().to_owned())
            .collect();
        let data: HashSet<&str> = if added_are_data {
            hunks
                .iter()
                .flat_map(|h| &h.lines)
                .filter(|l| l.kind == LineKind::Add)
                .map(|l| l.text.trim_ws())
                .collect()
        } else {
            HashSet::default()
        };
        let suspect = |line: &str, t: &str| {
            self.markers.contains(t)
                // A text replacement joins its first and last lines to the file's line around
                // it: a marker may reach the file glued to other text.
                || self
                    .markers
                    .iter()
                    .any(|m| t.len() > m.len() && (t.ends_with(m.as_str()) || t.starts_with(m.as_str())))
                || (!document && self.fences.contains(t) && fence_open(line).is_some())
                || self.doubled.contains(t)
                || self
                    .paths
                    .iter()
                    .any(|(line, p)| line == t && same_path(p, path))
                || removals.contains(t)
        };
        // The suspect lines, in order; the old text is read only when there is one (the verdict
        // is the same: a line that is not suspect is never looked up in it).
        let suspects: Vec<&str> = new_pieces
            .iter()
            .flat_map(|piece| piece.lines())
            // A file's BOM stays on its first line: the line is what follows it.
            .map(|line| line.strip_prefix('\u{feff}').unwrap_or(line))
            .filter(|line| {
                let t = line.trim_ws();
                !t.is_empty() && suspect(line, t) && !data.contains(t)
            })
            .collect();
        if suspects.is_empty() {
            return None;
        }
        let old = old();
        let old_lines: HashSet<&str> = old.lines().map(str::trim).collect();
        for line in suspects {
            let t = line.trim_ws();
            if old_lines.contains(t) {
                continue;
            }
            // A lost `+` on a `-T` line is content unless the file has `T` to remove.
            if removals.contains(t) && !self.markers.contains(t) {
                let removed = t.get(1..).unwrap_or("").trim_ws();
                if !old_lines.contains(removed) {
                    continue;
                }
            }
            return Some(line.trim_end_ws().to_owned());
        }
        None
    }
}

impl ReplySyntax {
    /// Where the reply points at a file named `name` inside a directory (`./components/Header`
    /// in an import, `src/Header.js` in prose): a word of the reply ending in `/` and `name` or
    /// its stem. A bare name that exists nowhere is then no file for the root.
    pub fn points_elsewhere(&self, name: &str) -> Option<String> {
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        if name.contains('/') || stem.chars().filter(|c| c.is_alphanumeric()).count() < 3 {
            return None;
        }
        let mut found: Vec<&String> = self
            .slashed
            .iter()
            .filter(|w| {
                let w = w.trim_end_matches(['.', '!', '?', ':']);
                let last = w.rsplit('/').next().unwrap_or("");
                !w.contains("://")
                    && !w.starts_with("//")
                    && w.rsplit_once('/')
                        .is_some_and(|(dir, _)| !dir.trim_start_matches('.').is_empty())
                    && (last == name || last == stem)
            })
            .collect();
        found.sort();
        found.first().map(|w| (*w).clone())
    }
}

/// Whether a path line's `named` path is the file `path` (or its tail: a path line may leave
/// out leading directories).
fn same_path(named: &str, path: &str) -> bool {
    let named = named.trim_start_matches("./");
    named == path || path.ends_with(&format!("/{named}"))
}

#[cfg(test)]
#[path = "written_prop.rs"]
mod prop;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::{slashed_words, ReplySyntax, WORD_STOPS};
    use crate::edit::{Format, Hunk, HunkLine, LineKind};

    /// The words widened from each `/` are the words a split of the whole line gives that hold
    /// one, in order: seeded random lines over stops, every ASCII whitespace (the vertical tab
    /// and form feed included), slashes, letters and some non-ASCII.
    #[test]
    fn slashed_words_agree_with_a_split() {
        let seed = 1313u64;
        eprintln!("seed {seed}");
        let mut rng = crate::test_rng::SeededRng::new(seed);
        let mut next = move |n: usize| rng.below(n);
        let mut alphabet: Vec<char> = WORD_STOPS.to_vec();
        alphabet.extend([
            '/', '/', '/', 'a', 'b', '.', '*', ' ', '\t', '\u{b}', '\u{c}', '\r',
        ]);
        alphabet.extend(['\u{a0}', '\u{2003}', '\u{e9}', '\u{85}', '\u{1}', '\u{7f}']);
        for case in 0..50_000 {
            let ascii = next(4) > 0;
            let line: String = (0..next(40))
                .map(|_| {
                    alphabet[next(if ascii {
                        alphabet.len() - 6
                    } else {
                        alphabet.len()
                    })]
                })
                .collect();
            let want: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || WORD_STOPS.contains(&c))
                .filter(|w| w.contains('/'))
                .collect();
            let mut got = Vec::new();
            slashed_words(&line, |w| got.push(w));
            assert_eq!(got, want, "seed {seed} case {case} {line:?}");
        }
    }

    fn hunk(lines: &[(LineKind, &str)]) -> Hunk {
        Hunk {
            lines: lines
                .iter()
                .map(|(k, t)| HunkLine::new(*k, (*t).to_owned()))
                .collect(),
            ..Hunk::default()
        }
    }

    #[test]
    fn a_path_line_behind_the_files_bom_is_still_the_path_line() {
        let reply = "hooks.ts\n````\nhooks.ts\n````\nimport x;\n````\n";
        let s = ReplySyntax::of(reply);
        let new = "\u{feff}hooks.ts\n";
        assert_eq!(
            s.first_written(
                "hooks.ts",
                "\u{feff}import x;\n",
                &[new],
                &[],
                Format::WholeFile
            )
            .as_deref(),
            Some("hooks.ts")
        );
    }

    #[test]
    fn markers_the_reply_holds_are_not_written() {
        let reply = "### n.txt\n```text\nn.txt\n```text\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n";
        let s = ReplySyntax::of(reply);
        let new = "n.txt\n```text\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n";
        assert_eq!(
            s.first_written("n.txt", "a\n", &[new], &[], Format::SearchReplace)
                .as_deref(),
            Some("n.txt")
        );
        assert_eq!(
            s.first_written(
                "n.txt",
                "a\n",
                &["x\n<<<<<<< SEARCH\n"],
                &[],
                Format::SearchReplace
            )
            .as_deref(),
            Some("<<<<<<< SEARCH")
        );
        // A heading underline stays writable; so does a marker the old file had.
        // A marker joined to a line of the file by a text replacement.
        assert!(s
            .first_written(
                "n.txt",
                "a\n",
                &["x = <<<<<<< SEARCH\n"],
                &[],
                Format::SearchReplace
            )
            .is_some());
        assert_eq!(
            s.first_written(
                "n.txt",
                "a\n",
                &["Title\n=======\n"],
                &[],
                Format::SearchReplace
            ),
            None
        );
        assert_eq!(
            s.first_written(
                "n.txt",
                "<<<<<<< SEARCH\n",
                &["<<<<<<< SEARCH\n"],
                &[],
                Format::SearchReplace
            ),
            None
        );
    }

    #[test]
    fn a_bare_name_the_reply_places_in_a_directory() {
        let s = ReplySyntax::of("+import Header from './components/Header';\n#### Header.js\n");
        assert_eq!(
            s.points_elsewhere("Header.js").as_deref(),
            Some("./components/Header")
        );
        assert_eq!(s.points_elsewhere("Footer.js"), None);
        assert_eq!(s.points_elsewhere("src/Header.js"), None);
        let s = ReplySyntax::of("See https://x.org/Header and ./Header\n");
        assert_eq!(s.points_elsewhere("Header.js"), None);
    }

    #[test]
    fn fences_are_content_of_documents_only() {
        let s = ReplySyntax::of("a.py\n```python\nx = 1\n```\n");
        assert!(s
            .first_written("a.py", "", &["```python\n"], &[], Format::SearchReplace)
            .is_some());
        assert!(s
            .first_written(
                "README.md",
                "",
                &["```python\n"],
                &[],
                Format::SearchReplace
            )
            .is_none());
        // An opener written twice in a row is syntax even in a document.
        let s = ReplySyntax::of("a.md\n```markdown\n```markdown\n# T\n```\n");
        assert!(s
            .first_written("a.md", "", &["```markdown\n# T\n"], &[], Format::WholeFile)
            .is_some());
    }

    #[test]
    fn roo_line_markers_and_diff_headers() {
        let s = ReplySyntax::of(":start_line:2\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n");
        assert!(s
            .first_written("x", "", &[":start_line:2\n"], &[], Format::SearchReplace)
            .is_some());
        assert!(s
            .first_written("x", "", &["--- a/x\n"], &[], Format::SearchReplace)
            .is_some());
        // Hunk headers belong in `.patch` fixtures.
        assert!(s
            .first_written("x", "", &["@@ -1 +1 @@\n"], &[], Format::SearchReplace)
            .is_none());
    }

    #[test]
    fn data_lines_are_written() {
        let s = ReplySyntax::of("+<<<<<<< SEARCH\n<<<<<<< SEARCH\n");
        let h = hunk(&[(LineKind::Add, "<<<<<<< SEARCH")]);
        assert!(s
            .first_written(
                "x",
                "",
                &["<<<<<<< SEARCH\n"],
                std::slice::from_ref(&h),
                Format::Unified
            )
            .is_none());
        assert!(s
            .first_written("x", "", &["<<<<<<< SEARCH\n"], &[h], Format::SearchReplace)
            .is_some());
    }

    #[test]
    fn a_removal_line_written_where_the_file_has_its_text_collides() {
        let s = ReplySyntax::of("-C\n+C'\n");
        let h = hunk(&[(LineKind::Remove, "C"), (LineKind::Add, "C'")]);
        let hs = std::slice::from_ref(&h);
        assert_eq!(
            s.first_written("f", "B\nC\n", &["-C\nC'\n"], hs, Format::Unified)
                .as_deref(),
            Some("-C")
        );
        // A Markdown bullet that lost its `+`: the file has no ` item` to remove.
        let s = ReplySyntax::of("- item\n");
        let h = hunk(&[(LineKind::Remove, " item")]);
        assert!(s
            .first_written("f.md", "- other\n", &["- item\n"], &[h], Format::Unified)
            .is_none());
    }
}
