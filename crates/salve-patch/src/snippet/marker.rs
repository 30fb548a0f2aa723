//! Marker lines of an edit snippet, and the snippet cut into regions at them.
//!
//! A marker is a comment of the file's language that stands for unchanged lines: `// ...
//! existing code ...`, `# ... rest of the code ...`, `<!-- ... -->`, `{/* ... */}`, `-- ...`,
//! `.. existing code` (reST), `/* ... (unchanged) ... */`, `// existing code`, `# ... other
//! methods ...`, or bare dots in a comment (`// ...`); bare dots outside a comment are a cut, not
//! a marker. The placeholder rules the parser
//! already uses ([`crate::parse::is_placeholder`]) decide most of them; this module adds the
//! wordings they leave out (`... other methods ...`).

use crate::text::{is_blank, strip_cr};

/// Nouns that, after `other` or `more` between dots, name code left out: `... other methods
/// ...`, `// ... more tests ...`.
const OTHER_NOUNS: &[&str] = &[
    "methods",
    "method",
    "functions",
    "function",
    "fields",
    "imports",
    "tests",
    "cases",
    "classes",
    "properties",
    "props",
    "routes",
    "handlers",
    "members",
    "entries",
    "components",
    "code",
    "lines",
    "rules",
    "options",
    "settings",
];

/// Whether `line`, in a snippet for the file at `path`, is a marker that stands for unchanged
/// lines of the file.
pub(crate) fn is_marker(line: &str, path: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.len() > 120 {
        return false;
    }
    // Bare dots outside a comment say the reply was cut short, not that the rest is kept.
    if t.chars().all(|c| c == '.' || c == '…' || c.is_whitespace()) {
        return false;
    }
    crate::parse::is_placeholder(t, path) || other_members(t)
}

/// The text of a comment-only line, or `None`.
fn comment_body(t: &str) -> Option<&str> {
    let body = ["//", "#", "--", "/*", "{/*", "<!--", ".. "]
        .iter()
        .find_map(|o| t.strip_prefix(o))?;
    let body = ["*/}", "*/", "-->"]
        .iter()
        .find_map(|c| body.trim_end().strip_suffix(c))
        .unwrap_or(body);
    Some(body.trim())
}

/// `// ... other methods ...`, `# ... more tests ...`: dots around `other` or `more` and a noun
/// naming code, in a comment; or `# keep existing code` in words alone (as a reST comment has it: `.. keep existing code`).
fn other_members(t: &str) -> bool {
    let Some(body) = comment_body(t) else {
        return false;
    };
    let dotted = body.starts_with("...") || body.starts_with('…');
    let words: Vec<String> = body
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if !(2..=5).contains(&words.len()) {
        return false;
    }
    let noun = |from: usize| {
        words[from..]
            .iter()
            .any(|w| OTHER_NOUNS.contains(&w.as_str()))
    };
    let keep = words[0] == "keep"
        && (words[1] == "existing"
            || (words[1] == "the" && words.get(2).is_some_and(|w| w == "existing")))
        && noun(2);
    keep || (dotted && matches!(words[0].as_str(), "other" | "more") && noun(1))
}

/// Whether whole-file content `lines` is written as a snippet: its first or last non-blank
/// line is a marker, so it says "everything before (or after) is unchanged" rather than being
/// the file's own first or last line. Content that opens with the file's head and ends saying
/// in words that the rest of the file is unchanged (`# ... rest of the file unchanged ...`) is
/// the whole-file reader's, which fills the rest in where it begins certainly, as before.
pub(crate) fn is_snippet(lines: &[&str], path: &str) -> bool {
    let mut kept = lines.iter().filter(|l| !is_blank(l));
    let first = kept.next();
    let last = kept.next_back().or(first);
    first.is_some_and(|l| is_marker(l, path))
        || last.is_some_and(|l| is_marker(l, path) && !crate::placeholder::says_rest_unchanged(l))
}

/// Whether any line of `content` is a marker.
pub(crate) fn has_marker(content: &str, path: &str) -> bool {
    content.lines().any(|l| is_marker(l, path))
}

/// One stretch of a snippet between markers (or the snippet's start or end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Region<'a> {
    /// The region's lines, without the blank lines that touch a marker (they may stand beside
    /// a line the region changes, so they anchor nothing; the file keeps its own).
    pub lines: Vec<&'a str>,
    /// The snippet line (0-based) of `lines[0]`, for reports.
    pub first: usize,
    /// A marker stands before the region: the file's lines before it are kept.
    pub lead: bool,
    /// A marker stands after the region: the file's lines after it are kept.
    pub trail: bool,
    /// Blank lines left out between the marker before the region and its first line, and
    /// between its last line and the marker after it: the file must have at least as many
    /// there, or the snippet says something the merge would not do.
    pub blanks: (usize, usize),
    /// The marker before the region, and the one after it, is a comment whose syntax asks for
    /// a blank line between it and the text beside it (reST's `..`): a blank line there is the
    /// marker's, whatever the file has.
    pub spaced: (bool, bool),
}

/// Whether the marker `line` is a comment that a blank line must separate from the text beside
/// it: a reST comment (`.. existing code`) runs on into the lines after it otherwise.
fn needs_blank(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(".. ") || t == ".."
}

/// A snippet cut at its markers: the regions in order (none empty).
pub(crate) fn regions<'a>(content: &'a str, path: &str) -> Vec<Region<'a>> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    // A byte-order mark copied with the file's first line is the file's, which keeps its own.
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let lines: Vec<&str> = body.split('\n').map(strip_cr).collect();
    let mut out: Vec<Region<'a>> = Vec::new();
    let mut start = 0;
    let mut lead = false;
    for i in 0..=lines.len() {
        let at_end = i == lines.len();
        if !at_end && !is_marker(lines[i], path) {
            continue;
        }
        let trail = !at_end;
        if let Some(r) = region(&lines, start, i, lead, trail) {
            out.push(r);
        } else if let (true, Some(prev)) = (lead, out.last_mut()) {
            // Two markers with nothing between them are one marker.
            prev.trail = true;
        }
        start = i + 1;
        lead = trail;
    }
    out
}

/// The region of `lines[start..end]`, trimmed of blank lines next to a marker; `None` when
/// nothing but blank lines is left.
fn region<'a>(
    lines: &[&'a str],
    start: usize,
    end: usize,
    lead: bool,
    trail: bool,
) -> Option<Region<'a>> {
    if start < end && lines[start..end].iter().all(|l| is_blank(l)) {
        // Blank lines between two markers are layout; before the first marker or after the
        // last they say how the file begins or ends, which the file must bear out.
        return (lead != trail).then(|| Region {
            lines: lines[start..end].to_vec(),
            first: start,
            lead,
            trail,
            blanks: (0, 0),
            spaced: (false, false),
        });
    }
    let (mut a, mut b) = (start, end);
    if lead {
        while a < b && is_blank(lines[a]) {
            a += 1;
        }
    }
    if trail {
        while b > a && is_blank(lines[b - 1]) {
            b -= 1;
        }
    }
    if a == b {
        return None;
    }
    Some(Region {
        lines: lines[a..b].to_vec(),
        first: a,
        lead,
        trail,
        blanks: (a - start, end - b),
        spaced: (
            lead && start > 0 && needs_blank(lines[start - 1]),
            trail && lines.get(end).is_some_and(|l| needs_blank(l)),
        ),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn markers_in_every_comment_syntax_and_wording() {
        for (line, path) in [
            ("// ... existing code ...", "a.ts"),
            ("    # ... existing code ...", "a.py"),
            ("# ... rest of the code ...", "a.py"),
            ("/* ... (unchanged) ... */", "a.c"),
            ("// existing code", "a.rs"),
            ("    // ... other methods ...", "a.java"),
            ("# ...", "a.py"),
            ("-- ... existing code ...", "a.sql"),
            ("<!-- ... existing code ... -->", "README.md"),
            ("{/* ... existing code ... */}", "App.jsx"),
            (".. existing code", "AUTHORS.rst"),
            (".. keep existing code", "README.rst"),
            (".. other methods", "README.rst"),
            ("// ...", "a.js"),
        ] {
            assert!(is_marker(line, path), "{line} in {path}");
        }
        for (line, path) in [
            ("...", "a.py"),
            ("...", "a.js"),
            ("return x", "a.py"),
            (
                "// the existing code paths handle the rest of this in the caller",
                "a.rs",
            ),
            ("...rest,", "a.js"),
            ("# other things", "a.py"),
        ] {
            assert!(!is_marker(line, path), "{line} in {path}");
        }
    }

    #[test]
    fn regions_split_at_markers_without_the_blank_lines_beside_them() {
        let s = "// ... existing code ...\n\nfn a() {}\n\n// ... existing code ...\nfn b() {}\n";
        let r = regions(s, "a.rs");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].lines, ["fn a() {}"]);
        assert_eq!((r[0].first, r[0].lead, r[0].trail), (2, true, true));
        assert_eq!(r[1].lines, ["fn b() {}"]);
        assert_eq!((r[1].lead, r[1].trail), (true, false));
    }

    #[test]
    fn a_snippet_opens_or_ends_with_a_marker() {
        assert!(is_snippet(&["# ... existing code ...", "x = 1"], "a.py"));
        assert!(is_snippet(
            &["x = 1", "", "# ... existing code ...", ""],
            "a.py"
        ));
        assert!(!is_snippet(
            &["x = 1", "# ... rest of the file unchanged ..."],
            "a.py"
        ));
        assert!(!is_snippet(&["x = 1", "# ...", "y = 2"], "a.py"));
    }
}
